//! The row engine: one [`Decision`] per exposure row and lever.
//!
//! # Interface (what the pipeline codes against)
//!
//! ```text
//! let rules   = RuleSet::for_reporting_date(date);           // or RuleSet::by_id("SPEC-LEGACY")?
//! let refdata = Arc::new(RefData::load_dir(dir)?);           // or RefData::builtin_shared()
//! let engine  = Engine::new(rules, refdata, EngineContext::new(date));   // client_country "ES"
//! // per row, from any thread (Engine is Send + Sync):
//! let d: Decision<'_> = engine.evaluate(Lever::Pse, &row);
//! d.suggested_rw_pct            // f64, percent, never above d.current_rw_pct
//! d.current_rw_pct              // f64, percent (100 when the row had none: flag CURRENT_RW_DEFAULTED)
//! d.regulatory_rw_pct           // Option<f64>: the rule's weight before the clamp
//! d.status                      // MatchStatus::{Matched, NotMatched, Error} -> .as_str()
//! d.applied_rule                // AppliedRule: Display "PSE_AS_CG > SOV_DOMESTIC" (empty when none)
//! d.regulatory_reference        // Reference: Display "CRR Art. 116(4); CRR Art. 114(4)"
//! d.details                     // Details: Display = the Match_Details text (spec texts verbatim)
//! d.flags                       // Flags: .contains(Flags::CURRENT_BELOW_REGULATORY), Display lists them
//! d.rw_delta_pct()              // current - suggested
//! d.capital_saving(amount)      // amount x (current - suggested) / 100  (an RWA reduction)
//! ```
//!
//! `Decision<'a>` borrows from the engine (rule tables, reference entities) and from the row (the
//! NIF/LEI/name shown in a message), so the hot path allocates nothing. Write the texts with
//! `d.details.write_to(&mut buf)`, `d.applied_rule.write_to(&mut buf)` and
//! `d.regulatory_reference.write_to(&mut buf)` (appending to a reused `String`, several times
//! faster than `write!(buf, "{}", ..)`, which gives the same text), or keep them with `.to_string()`.
//!
//! Inputs the engine reads from [`ExposureRow`]: `current_rw_pct`, `nif` (PSE, RGLA), `lei` and
//! `legal_name` (MDB, institutions, ECB), `country` (sovereigns, institutions, corporates'
//! sovereign floor), `currency` (domestic-currency rules 114(4), 115(5), collateral), `cqs`
//! (institutions, corporates, unrated-in-reference MDBs, sovereigns missing from the reference
//! list), `original_maturity_days` / `maturity_date` / `residual_maturity_days` (short-term rules),
//! `scra_grade` (unrated institutions under CRR3), `asset_class`, `eligible_collateral`,
//! `exposure_amount`, `collateral_value`, `collateral_rw_pct`, `collateral_type`,
//! `collateral_currency` (corporates).
//!
//! Three-month edge: with a `maturity_date` the engine compares calendar dates (maturity on or
//! before reporting date + 3 months is short-term); with day counts only, 92 days or fewer
//! (the longest three-calendar-month span) is short-term.

use std::fmt;
use std::sync::Arc;

use chrono::{Months, NaiveDate};

use crate::model::{ExposureRow, Lever, MatchStatus};
use crate::refdata::{
    Country, Institution, LeiError, MdbEntity, MdbKind, Nif, NifError, PublicEntity, RefData,
};
use crate::rules::{RuleSet, RuleTable};

/// Run-level inputs of the engine.
#[derive(Debug, Clone)]
pub struct EngineContext {
    /// Reporting date: maturities are measured from it.
    pub reporting_date: NaiveDate,
    /// The client's home country, "ES" by default: an ISO alpha-2 code or a name such as "Spain"
    /// (see [`Country::parse_loose`]). Used by the specification's "own government" rules.
    pub client_country: String,
}

impl EngineContext {
    /// A context for this reporting date with the default client country, Spain.
    pub fn new(reporting_date: NaiveDate) -> EngineContext {
        EngineContext {
            reporting_date,
            client_country: "ES".to_string(),
        }
    }
}

/// Day count at or below which a maturity without a calendar date is "three months or less".
pub const SHORT_TERM_MAX_DAYS: f64 = 92.0;

/// The row engine. Immutable, `Send + Sync`; share it by reference across threads.
#[derive(Debug, Clone)]
pub struct Engine {
    pub(crate) rules: Arc<RuleSet>,
    pub(crate) refdata: Arc<RefData>,
    pub(crate) ctx: EngineContext,
    pub(crate) client_country: Option<Country>,
    pub(crate) three_months: Option<NaiveDate>,
}

impl Engine {
    /// Builds an engine for one run.
    pub fn new(rules: Arc<RuleSet>, refdata: Arc<RefData>, ctx: EngineContext) -> Engine {
        let client_country = Country::parse_loose(&ctx.client_country);
        let three_months = ctx.reporting_date.checked_add_months(Months::new(3));
        Engine {
            rules,
            refdata,
            ctx,
            client_country,
            three_months,
        }
    }

    /// The rule set in use.
    pub fn rules(&self) -> &Arc<RuleSet> {
        &self.rules
    }

    /// The reference data in use.
    pub fn refdata(&self) -> &Arc<RefData> {
        &self.refdata
    }

    /// The run context.
    pub fn context(&self) -> &EngineContext {
        &self.ctx
    }

    /// Evaluates one row under a lever. Never panics and allocates nothing.
    pub fn evaluate<'a>(&'a self, lever: Lever, row: &ExposureRow<'a>) -> Decision<'a> {
        self.dispatch(lever, row, None)
    }

    /// The path the rule procedure takes for one row: every test in the article's order with
    /// its inputs and outcome, the rule set, the reference-data entries used and the decision
    /// (the same decision [`Engine::evaluate`] takes; see [`crate::trace`]). For one row on
    /// demand (the explainability and validation screens); it allocates.
    pub fn trace(&self, lever: Lever, row: &ExposureRow<'_>) -> crate::trace::DecisionTrace {
        let rec = crate::trace::Recorder::default();
        let d = self.dispatch(lever, row, Some(&rec));
        crate::trace::DecisionTrace {
            lever,
            rule_set: crate::trace::RuleSetInfo {
                id: self.rules.id().to_string(),
                valid_from: self.rules.valid_from(),
                valid_to: self.rules.valid_to(),
            },
            reporting_date: self.ctx.reporting_date,
            steps: rec.steps.into_inner(),
            reference_entries: rec.entries.into_inner(),
            status: d.status,
            current_rw_pct: d.current_rw_pct,
            regulatory_rw_pct: d.regulatory_rw_pct,
            suggested_rw_pct: d.suggested_rw_pct,
            applied_rule: d.applied_rule.to_string(),
            regulatory_reference: d.regulatory_reference.to_string(),
            details: d.details.to_string(),
            flags: d.flags.names().map(str::to_string).collect(),
        }
    }
}

/// Bit flags on a decision.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Flags(u16);

impl Flags {
    /// No flag.
    pub const NONE: Flags = Flags(0);
    /// The regulation allows a higher weight than the file's current one: current kept, saving 0.
    pub const CURRENT_BELOW_REGULATORY: Flags = Flags(1);
    /// The row had no current weight: 100 % assumed (as the specification says).
    pub const CURRENT_RW_DEFAULTED: Flags = Flags(1 << 1);
    /// No usable maturity: short-term treatments were not considered.
    pub const MATURITY_MISSING: Flags = Flags(1 << 2);
    /// The rule wants the original maturity; only the file's Maturity (taken as residual) was
    /// available and was used in its place.
    pub const RESIDUAL_AS_ORIGINAL: Flags = Flags(1 << 3);
    /// No currency: domestic-currency treatments (114(4), 115(5), 222(6)) were not applied.
    pub const CURRENCY_MISSING: Flags = Flags(1 << 4);
    /// The credit quality step came from the file, not from the reference list.
    pub const CQS_FROM_FILE: Flags = Flags(1 << 5);
    /// The counterparty was matched by legal name, acronym or alias (not by identifier).
    pub const MATCHED_BY_NAME: Flags = Flags(1 << 6);
    /// Something needs a person's review (for example collateral flagged but not valued).
    pub const NEEDS_REVIEW: Flags = Flags(1 << 7);
    /// A sovereign floor raised the weight (unrated corporate or foreign-currency institution).
    pub const SOVEREIGN_FLOOR: Flags = Flags(1 << 8);
    /// The counterparty is not in the reference list; the file's own data was used.
    pub const NOT_IN_REFERENCE: Flags = Flags(1 << 9);
    /// The LEI failed its check digits; the name was used instead.
    pub const INVALID_LEI: Flags = Flags(1 << 10);
    /// The file's credit quality step differs from the reference list's; the list's was used.
    pub const CQS_CONFLICT: Flags = Flags(1 << 11);
    /// The Maturity cell could not be read: short-term treatments were not considered.
    pub const MATURITY_UNREADABLE: Flags = Flags(1 << 12);

    const NAMES: [(Flags, &'static str); 13] = [
        (
            Flags::CURRENT_BELOW_REGULATORY,
            "current RW below regulatory RW",
        ),
        (
            Flags::CURRENT_RW_DEFAULTED,
            "current RW missing, 100% assumed",
        ),
        (Flags::MATURITY_MISSING, "maturity missing"),
        (
            Flags::RESIDUAL_AS_ORIGINAL,
            "maturity taken as original maturity",
        ),
        (Flags::CURRENCY_MISSING, "currency missing"),
        (Flags::CQS_FROM_FILE, "CQS from file"),
        (Flags::MATCHED_BY_NAME, "matched by name"),
        (Flags::NEEDS_REVIEW, "review needed"),
        (Flags::SOVEREIGN_FLOOR, "sovereign floor applied"),
        (Flags::NOT_IN_REFERENCE, "not in reference list"),
        (Flags::INVALID_LEI, "invalid LEI"),
        (Flags::CQS_CONFLICT, "CQS in file differs from reference"),
        (Flags::MATURITY_UNREADABLE, "maturity unreadable"),
    ];

    /// The bits set in both.
    #[inline]
    pub fn intersection(self, other: Flags) -> Flags {
        Flags(self.0 & other.0)
    }

    /// True when all bits of `other` are set.
    #[inline]
    pub fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }

    /// True when no flag is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The raw bits.
    pub fn bits(self) -> u16 {
        self.0
    }

    /// The name of the flag at bit `bit` (0 to 15), if one is defined there.
    pub fn name_of_bit(bit: u32) -> Option<&'static str> {
        Flags::NAMES
            .iter()
            .find(|(f, _)| f.0 == 1u16.checked_shl(bit).unwrap_or(0))
            .map(|(_, n)| *n)
    }

    /// Iterates the human-readable names of the set flags.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Flags::NAMES
            .into_iter()
            .filter(move |(f, _)| self.contains(*f))
            .map(|(_, n)| n)
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        Flags(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Flags {
    fn bitor_assign(&mut self, rhs: Flags) {
        self.0 |= rhs.0;
    }
}

impl fmt::Display for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, n) in self.names().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(n)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Flags({self})")
    }
}

/// The rule tables a decision used (at most three: a rule, the table it points to, and the
/// credit risk mitigation applied on top).
#[derive(Clone, Copy)]
pub struct AppliedRule<'a> {
    pub(crate) rule_set: &'a str,
    pub(crate) tables: [Option<&'a RuleTable>; 3],
}

impl<'a> AppliedRule<'a> {
    pub(crate) fn none(rule_set: &'a str) -> AppliedRule<'a> {
        AppliedRule {
            rule_set,
            tables: [None, None, None],
        }
    }

    /// The rule set id.
    pub fn rule_set(&self) -> &'a str {
        self.rule_set
    }

    /// The path as one number: the rule set's table indices ([`RuleTable::index`]), 16 bits
    /// each, `0xFFFF` for none (`u64::MAX >> 16` when no rule applied). For grouping rows by
    /// rule without text; [`crate::rules::RuleSet::tables`] turns it back into names.
    #[inline]
    pub fn key(&self) -> u64 {
        let i = |t: Option<&RuleTable>| t.map_or(0xFFFF, |t| u64::from(t.index()));
        i(self.tables[0]) | (i(self.tables[1]) << 16) | (i(self.tables[2]) << 32)
    }

    /// The main table id (`PSE_UNRATED`), if a rule applied.
    pub fn primary(&self) -> Option<&'a str> {
        self.tables[0].map(|t| t.id())
    }

    /// The table the main rule pointed to (`SOV_DOMESTIC` after `PSE_AS_CG`), if any.
    pub fn secondary(&self) -> Option<&'a str> {
        self.tables[1].map(|t| t.id())
    }

    /// True when no rule applied.
    pub fn is_none(&self) -> bool {
        self.tables[0].is_none()
    }
}

impl AppliedRule<'_> {
    /// Appends the Applied_Rule text to `out` (same as `Display`, without the formatter).
    #[inline]
    pub fn write_to(&self, out: &mut String) {
        let mut first = true;
        for t in self.tables.iter().flatten() {
            if !first {
                out.push_str(" > ");
            }
            out.push_str(t.id());
            first = false;
        }
    }
}

impl fmt::Display for AppliedRule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for t in self.tables.iter().flatten() {
            if !first {
                f.write_str(" > ")?;
            }
            f.write_str(t.id())?;
            first = false;
        }
        Ok(())
    }
}

impl fmt::Debug for AppliedRule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AppliedRule({}: {self})", self.rule_set)
    }
}

/// The Regulatory_Reference of a decision (the articles of its tables).
#[derive(Clone, Copy)]
pub struct Reference<'a>(pub(crate) [Option<&'a RuleTable>; 3]);

impl<'a> Reference<'a> {
    /// True when no rule applied.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    /// The index of the last table of the path ([`RuleTable::index`]), the one that gave the
    /// weight; `None` when no rule applied.
    #[inline]
    pub fn decisive_index(&self) -> Option<u16> {
        self.0.iter().rev().flatten().next().map(|t| t.index())
    }

    /// The article of the last table of the path, the one that gave the weight
    /// (`CRR Art. 114(4)` for `PSE_AS_CG > SOV_DOMESTIC`); `None` when no rule applied.
    #[inline]
    pub fn decisive(&self) -> Option<&'a str> {
        self.0.iter().rev().flatten().next().map(|t| t.reference())
    }
}

impl Reference<'_> {
    /// Appends the Regulatory_Reference text to `out` (same as `Display`, without the formatter).
    #[inline]
    pub fn write_to(&self, out: &mut String) {
        let mut first = true;
        for t in self.0.iter().flatten() {
            if !first {
                out.push_str("; ");
            }
            out.push_str(t.reference());
            first = false;
        }
    }
}

impl fmt::Display for Reference<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for t in self.0.iter().flatten() {
            if !first {
                f.write_str("; ")?;
            }
            f.write_str(t.reference())?;
            first = false;
        }
        Ok(())
    }
}

impl fmt::Debug for Reference<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Reference({self})")
    }
}

/// Who the row was matched to.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    /// A public sector entity.
    Pse(&'a PublicEntity),
    /// A regional government or local authority.
    Rgla(&'a PublicEntity),
    /// An MDB, international organisation or the ECB.
    Mdb(&'a MdbEntity),
    /// An institution: from the reference list, or as described by the file.
    Institution {
        /// The reference entry, when found.
        entity: Option<&'a Institution>,
        /// The row's LEI.
        lei: &'a str,
        /// The row's legal name.
        name: &'a str,
    },
    /// A corporate, as described by the file.
    Corporate {
        /// The row's legal name.
        name: &'a str,
    },
    /// A central government.
    Sovereign(Country),
}

/// Why the weight is what it is.
#[derive(Debug, Clone, Copy)]
pub enum Reason<'a> {
    /// Treated as the central government; `domestic` when the domestic-currency rule applied.
    TreatedAsCentralGovernment {
        /// Its jurisdiction.
        country: Country,
        /// 114(4) applied.
        domestic: bool,
        /// Sovereign CQS used otherwise.
        cqs: Option<u8>,
    },
    /// An EU Member State regional/local body in its domestic currency (115(5)).
    MemberStateDomesticCurrency {
        /// Its jurisdiction.
        country: Country,
    },
    /// Short-term treatment.
    ShortTerm {
        /// The counterparty's CQS or SCRA grade text, when the table is keyed by one.
        cqs: Option<u8>,
    },
    /// The counterparty's own rating.
    EntityRating(u8),
    /// The rating of the counterparty's central government.
    SovereignRating {
        /// The jurisdiction, when known.
        country: Option<Country>,
        /// Its CQS (`None`: unrated).
        cqs: Option<u8>,
    },
    /// A zero-weight list entry (117(2), 118, ECB).
    Listed(MdbKind),
    /// An unrated MDB outside the 117(2) list.
    UnratedMdb,
    /// An unrated institution under the SCRA.
    Scra {
        /// The grade as written.
        grade: &'a str,
        /// Short-term table used.
        short: bool,
    },
    /// A rated corporate.
    CorporateRated(u8),
    /// An unrated corporate (100 %, or its sovereign's weight if higher).
    CorporateUnrated,
    /// Financial collateral under the simple method (Art. 222).
    Collateral {
        /// The obligor's own weight.
        base_rw: f64,
        /// The weight given to the covered part.
        collateral_rw: f64,
        /// Covered share of the exposure, 0..1.
        covered_share: f64,
    },
    /// A sovereign exposure in its domestic currency (114(4)) or to the ECB (114(3)).
    SovereignDomestic {
        /// The sovereign.
        country: Country,
    },
    /// The specification's own-government rule.
    SpecOwnGovernment {
        /// The shared jurisdiction.
        country: Country,
        /// Its CQS.
        cqs: Option<u8>,
    },
    /// A specification table by CQS.
    SpecTable {
        /// The CQS used.
        cqs: Option<u8>,
        /// The short-term column was used.
        short: bool,
    },
    /// The specification's generic 100 to 75 % corporate rule.
    SpecGenericCollateral,
    /// The specification's RGLA default.
    SpecDefault,
    /// No rating (a sovereign or MDB without one).
    Unrated,
}

/// The Match_Details of a decision; `Display` renders the text.
#[derive(Debug, Clone, Copy)]
pub enum Details<'a> {
    /// "Missing required fields: {list}".
    MissingFields(&'static str),
    /// "Missing required NIF field".
    MissingNif,
    /// "Missing required LEI and Legal_Name fields".
    MissingLeiAndName,
    /// The NIF failed its format or check character.
    InvalidNif {
        /// As written.
        raw: &'a str,
        /// Why.
        error: NifError,
    },
    /// The LEI failed its format or check digits (and no name could stand in).
    InvalidLei {
        /// As written.
        raw: &'a str,
        /// Why.
        error: LeiError,
    },
    /// The lever's reference list is empty.
    ReferenceEmpty(Lever),
    /// "NIF x not found in Spanish PSE database" / "... RGLA database".
    NifNotFound {
        /// The normalised NIF.
        nif: Nif,
        /// Which list.
        lever: Lever,
    },
    /// "MDB entity not found using LEI: .. or Legal Name: ..".
    MdbNotFound {
        /// The row's LEI.
        lei: &'a str,
        /// The row's legal name.
        name: &'a str,
    },
    /// The legal name designates two different entities.
    AmbiguousName {
        /// The row's legal name.
        name: &'a str,
        /// One candidate.
        a: &'a str,
        /// The other.
        b: &'a str,
    },
    /// The country is not a code or not in the sovereign list (and the file has no CQS).
    CountryNotFound {
        /// As written.
        country: &'a str,
    },
    /// "No analysis function found for lever".
    NoAnalysisFunction(Lever),
    /// The row's asset class is not a corporate one.
    NotCorporate {
        /// As written.
        asset_class: &'a str,
    },
    /// Neither a CQS nor an SCRA grade for an institution.
    InstitutionUnassessed,
    /// The specification's generic corporate rule does not apply to this row.
    SpecGenericNotApplicable,
    /// The current weight is negative.
    InvalidCurrentRw(f64),
    /// A negative Exposure_Amount.
    InvalidAmount(f64),
    /// The row's CQS is outside 1..6.
    InvalidCqs(u8),
    /// The file's Credit_Quality_Step cell is not a CQS 1..6 (as written).
    InvalidCqsText(&'a str),
    /// The rule set has no table for this case (a custom or incomplete rule set).
    NoRule(&'static str),
    /// A weight was determined.
    Matched(Explanation<'a>),
}

/// The reasons a row is not matched or in error, as stable keys (see [`Details::reason`]).
pub const REASONS: [&str; 19] = [
    "matched",
    "missing_fields",
    "missing_nif",
    "missing_lei_and_name",
    "invalid_nif",
    "invalid_lei",
    "reference_empty",
    "nif_not_found",
    "mdb_not_found",
    "ambiguous_name",
    "country_not_found",
    "no_analysis_function",
    "not_corporate",
    "institution_unassessed",
    "spec_generic_not_applicable",
    "invalid_current_rw",
    "invalid_amount",
    "invalid_cqs",
    "no_rule",
];

impl Details<'_> {
    /// The index in [`REASONS`] of this decision's reason: a stable key for counting rows by
    /// reason (`nif_not_found`, `missing_nif`, ...; `matched` for matched rows).
    pub fn reason_index(&self) -> usize {
        match self {
            Details::Matched(_) => 0,
            Details::MissingFields(_) => 1,
            Details::MissingNif => 2,
            Details::MissingLeiAndName => 3,
            Details::InvalidNif { .. } => 4,
            Details::InvalidLei { .. } => 5,
            Details::ReferenceEmpty(_) => 6,
            Details::NifNotFound { .. } => 7,
            Details::MdbNotFound { .. } => 8,
            Details::AmbiguousName { .. } => 9,
            Details::CountryNotFound { .. } => 10,
            Details::NoAnalysisFunction(_) => 11,
            Details::NotCorporate { .. } => 12,
            Details::InstitutionUnassessed => 13,
            Details::SpecGenericNotApplicable => 14,
            Details::InvalidCurrentRw(_) => 15,
            Details::InvalidAmount(_) => 16,
            Details::InvalidCqs(_) | Details::InvalidCqsText(_) => 17,
            Details::NoRule(_) => 18,
        }
    }

    /// The reason's stable key (see [`REASONS`]).
    pub fn reason(&self) -> &'static str {
        REASONS[self.reason_index()]
    }
}

/// What a matched decision rests on.
#[derive(Debug, Clone, Copy)]
pub struct Explanation<'a> {
    /// The counterparty.
    pub subject: Subject<'a>,
    /// Why.
    pub reason: Reason<'a>,
    /// The rule's weight.
    pub regulatory_rw_pct: f64,
    /// The file's current weight.
    pub current_rw_pct: f64,
    /// The rule's weight was above the current one: current kept.
    pub clamped: bool,
    /// Collateral was flagged but could not be recognised (not valued).
    pub collateral_not_recognised: bool,
    /// The decision's flags that its text explains (the original maturity assumed, a CQS from
    /// the file or in conflict with the reference list, an invalid LEI).
    pub notes: Flags,
    /// How the sovereign floor of an unrated corporate (Art. 122(2)) was established, when not
    /// from the row's own country.
    pub floor_note: Option<FloorNote<'a>>,
    /// The Maturity cell as written when it could not be read; empty otherwise.
    pub unreadable_maturity: &'a str,
}

/// Why the sovereign floor of an unrated corporate was not taken from the row's country.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloorNote<'a> {
    /// The row gives no country: the client's country was used.
    CountryAssumed(Country),
    /// The row's country is not in the sovereign reference data: its central government was
    /// taken as unrated (100 %), to be reviewed.
    CountryUnknown(&'a str),
}

/// Writes string pieces one after the other (cheaper than `write!` with arguments: the texts are
/// rendered once per output row).
macro_rules! put {
    ($f:expr $(, $s:expr)* $(,)?) => {{
        $( $f.write_str($s)?; )*
        Ok(())
    }};
}

const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

fn digit(c: u8) -> &'static str {
    DIGITS.get(c as usize).copied().unwrap_or("?")
}

fn write_int<W: fmt::Write + ?Sized>(f: &mut W, v: i64) -> fmt::Result {
    let mut buf = [0u8; 24];
    let mut i = buf.len();
    let neg = v < 0;
    let mut n = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if neg {
        i -= 1;
        buf[i] = b'-';
    }
    f.write_str(std::str::from_utf8(&buf[i..]).unwrap_or("?"))
}

fn write_pct<W: fmt::Write + ?Sized>(f: &mut W, v: f64) -> fmt::Result {
    // Whole weights (20, 50, 100) are the rule: written without rounding.
    if v.abs() < 1e15 && v == (v as i64) as f64 {
        let mut b = itoa::Buffer::new();
        return put!(f, b.format(v as i64), "%");
    }
    if (v - v.round()).abs() < 1e-9 && v.abs() < 1e15 {
        write_int(f, v.round() as i64)?;
        f.write_str("%")
    } else {
        let s = format!("{v:.4}");
        put!(f, s.trim_end_matches('0').trim_end_matches('.'), "%")
    }
}

struct Pct(f64);

impl fmt::Display for Pct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_pct(f, self.0)
    }
}

fn write_cqs<W: fmt::Write + ?Sized>(f: &mut W, cqs: Option<u8>) -> fmt::Result {
    match cqs {
        Some(c) => put!(f, "CQS ", digit(c)),
        None => f.write_str("unrated"),
    }
}

impl Subject<'_> {
    /// Renders the text into any `fmt::Write`.
    pub fn render<W: fmt::Write + ?Sized>(&self, f: &mut W) -> fmt::Result {
        match self {
            Subject::Pse(e) => put!(f, "PSE ", &e.legal_name, " (NIF ", e.nif.as_str(), ")"),
            Subject::Rgla(e) => put!(f, "RGLA ", &e.legal_name, " (NIF ", e.nif.as_str(), ")"),
            Subject::Mdb(e) => match &e.lei {
                Some(l) => put!(f, e.label(), " ", &e.legal_name, " (LEI ", l.as_str(), ")"),
                None => put!(f, e.label(), " ", &e.legal_name),
            },
            Subject::Institution {
                entity: Some(e), ..
            } => match &e.lei {
                Some(l) => put!(f, "Institution ", &e.legal_name, " (LEI ", l.as_str(), ")"),
                None => put!(f, "Institution ", &e.legal_name),
            },
            Subject::Institution {
                entity: None,
                lei,
                name,
            } => {
                f.write_str("Institution")?;
                if !name.is_empty() {
                    put!(f, " ", name)?;
                }
                if !lei.is_empty() {
                    put!(f, " (LEI ", lei, ")")?;
                }
                Ok(())
            }
            Subject::Corporate { name } if !name.is_empty() => put!(f, "Corporate ", name),
            Subject::Corporate { .. } => f.write_str("Corporate"),
            Subject::Sovereign(c) => put!(f, "Central government ", c.as_str()),
        }
    }
}

impl Reason<'_> {
    /// Renders the text into any `fmt::Write`.
    pub fn render<W: fmt::Write + ?Sized>(&self, f: &mut W) -> fmt::Result {
        match *self {
            Reason::TreatedAsCentralGovernment {
                country,
                domestic: true,
                ..
            } => put!(
                f,
                "treated as central government ",
                country.as_str(),
                ", exposure in its domestic currency"
            ),
            Reason::TreatedAsCentralGovernment {
                country,
                domestic: false,
                cqs,
            } => {
                put!(f, "treated as central government ", country.as_str(), " (")?;
                write_cqs(f, cqs)?;
                f.write_str(")")
            }
            Reason::MemberStateDomesticCurrency { country } => put!(
                f,
                country.as_str(),
                " regional or local authority, exposure in its domestic currency"
            ),
            Reason::ShortTerm { cqs: Some(c) } => {
                put!(f, "maturity of three months or less, CQS ", digit(c))
            }
            Reason::ShortTerm { cqs: None } => {
                f.write_str("original maturity of three months or less")
            }
            Reason::EntityRating(c) => put!(f, "own rating CQS ", digit(c)),
            Reason::SovereignRating { country, cqs } => {
                f.write_str("unrated; central government ")?;
                if let Some(c) = country {
                    put!(f, c.as_str(), " ")?;
                }
                write_cqs(f, cqs)
            }
            Reason::Listed(MdbKind::Listed117_2) => {
                f.write_str("multilateral development bank listed in Art. 117(2)")
            }
            Reason::Listed(MdbKind::InternationalOrg118) => {
                f.write_str("international organisation listed in Art. 118")
            }
            Reason::Listed(MdbKind::Ecb114_3) => f.write_str("European Central Bank"),
            Reason::Listed(MdbKind::Other117_1) => f.write_str("multilateral development bank"),
            Reason::UnratedMdb => {
                f.write_str("unrated multilateral development bank outside the Art. 117(2) list")
            }
            Reason::Scra { grade, short } => {
                put!(f, "unrated; SCRA grade ", grade)?;
                if short {
                    f.write_str(", short-term")
                } else {
                    Ok(())
                }
            }
            Reason::CorporateRated(c) => put!(f, "rated CQS ", digit(c)),
            Reason::CorporateUnrated => f.write_str("unrated"),
            Reason::Collateral {
                base_rw,
                collateral_rw,
                covered_share,
            } => {
                write!(
                    f,
                    "{:.1}% covered by financial collateral at {} (simple method)",
                    covered_share * 100.0,
                    Pct(collateral_rw)
                )?;
                if covered_share < 1.0 - 1e-12 {
                    f.write_str(", rest at ")?;
                    write_pct(f, base_rw)?;
                }
                Ok(())
            }
            Reason::SovereignDomestic { country } => {
                put!(f, "exposure in the domestic currency of ", country.as_str())
            }
            Reason::SpecOwnGovernment { country, cqs } => {
                put!(
                    f,
                    "client and entity share the own government ",
                    country.as_str(),
                    " ("
                )?;
                write_cqs(f, cqs)?;
                f.write_str(")")
            }
            Reason::SpecTable { cqs, short } => {
                f.write_str("government ")?;
                write_cqs(f, cqs)?;
                if short {
                    f.write_str(", maturity of three months or less")
                } else {
                    Ok(())
                }
            }
            Reason::SpecGenericCollateral => {
                f.write_str("corporate with eligible collateral at 100%")
            }
            Reason::SpecDefault => f.write_str("no rating and no own-government weight"),
            Reason::Unrated => f.write_str("unrated"),
        }
    }
}

impl Details<'_> {
    /// Renders the text into any `fmt::Write`.
    pub fn render<W: fmt::Write + ?Sized>(&self, f: &mut W) -> fmt::Result {
        match *self {
            Details::MissingFields(list) => put!(f, "Missing required fields: ", list),
            Details::MissingNif => f.write_str("Missing required NIF field"),
            Details::MissingLeiAndName => f.write_str("Missing required LEI and Legal_Name fields"),
            Details::InvalidNif { raw, error } => write!(f, "Invalid NIF {}: {error}", raw.trim()),
            Details::InvalidLei { raw, error } => write!(f, "Invalid LEI {}: {error}", raw.trim()),
            Details::ReferenceEmpty(Lever::Pse) => f.write_str("PSE reference data is empty"),
            Details::ReferenceEmpty(Lever::Rgla) => f.write_str("RGLA reference data not available - analysis skipped"),
            Details::ReferenceEmpty(Lever::Mdb) => f.write_str("MDB reference data not available/empty"),
            Details::ReferenceEmpty(Lever::Sovereigns) => f.write_str("Sovereign reference data is empty"),
            Details::ReferenceEmpty(l) => put!(f, l.as_str(), " reference data is empty"),
            Details::NifNotFound { nif, lever: Lever::Rgla } => {
                put!(f, "NIF ", nif.as_str(), " not found in Spanish RGLA database")
            }
            Details::NifNotFound { nif, .. } => put!(f, "NIF ", nif.as_str(), " not found in Spanish PSE database"),
            Details::MdbNotFound { lei, name } => {
                put!(f, "MDB entity not found using LEI: ", lei.trim(), " or Legal Name: ", name.trim())
            }
            Details::AmbiguousName { name, a, b } => put!(
                f,
                "Legal Name ",
                name.trim(),
                " matches more than one entity (",
                a,
                ", ",
                b,
                "): provide the LEI"
            ),
            Details::CountryNotFound { country } => {
                put!(f, "Country ", country.trim(), " not found in sovereign reference data")
            }
            Details::NoAnalysisFunction(l) => put!(f, "No analysis function found for lever: ", l.as_str()),
            Details::NotCorporate { asset_class } => {
                put!(f, "Asset class ", asset_class.trim(), " is not a corporate exposure")
            }
            Details::InstitutionUnassessed => f.write_str(
                "Missing required fields: Credit_Quality_Step or SCRA_Grade (unrated institution without SCRA grade)",
            ),
            Details::SpecGenericNotApplicable => f.write_str(
                "Generic rule not applicable: needs Corporate asset class, eligible collateral Yes and current RW 100%",
            ),
            Details::InvalidCurrentRw(v) => write!(f, "Invalid Current_Risk_Weight: {v}"),
            Details::InvalidAmount(v) => {
                write!(f, "Invalid Exposure_Amount: {v} (an exposure value cannot be negative)")
            }
            Details::InvalidCqs(c) => write!(f, "Invalid Credit_Quality_Step: {c} (expected 1 to 6)"),
            Details::InvalidCqsText(t) => {
                put!(f, "Invalid Credit_Quality_Step: ", t, " (expected 1 to 6)")
            }
            Details::NoRule(what) => put!(f, "Analysis error: the rule set has no rule for ", what),
            Details::Matched(e) => {
                e.subject.render(f)?;
                f.write_str(": ")?;
                e.reason.render(f)?;
                f.write_str("; regulatory RW ")?;
                write_pct(f, e.regulatory_rw_pct)?;
                if e.clamped {
                    f.write_str("; current RW ")?;
                    write_pct(f, e.current_rw_pct)?;
                    f.write_str(" is below the regulatory RW ")?;
                    write_pct(f, e.regulatory_rw_pct)?;
                    f.write_str(": current kept")?;
                }
                if e.collateral_not_recognised {
                    f.write_str("; eligible collateral flagged without value and risk weight: not recognised, review")?;
                }
                if e.notes.contains(Flags::RESIDUAL_AS_ORIGINAL) {
                    f.write_str("; the Maturity given was taken as the original maturity (no Origination_Date): check it")?;
                }
                if e.notes.contains(Flags::CQS_FROM_FILE) {
                    f.write_str("; credit quality step from the file (none in the reference data)")?;
                }
                if e.notes.contains(Flags::CQS_CONFLICT) {
                    f.write_str("; the file's credit quality step differs from the reference data: the reference data's was used")?;
                }
                if e.notes.contains(Flags::INVALID_LEI) {
                    f.write_str("; the file's LEI is invalid: matched by name")?;
                }
                if !e.unreadable_maturity.is_empty() {
                    put!(
                        f,
                        "; Maturity \"",
                        e.unreadable_maturity,
                        "\" could not be read (a date, a number of months, or a number with its unit such as 90 days): short-term treatment not considered, check it"
                    )?;
                }
                match e.floor_note {
                    Some(FloorNote::CountryAssumed(c)) => {
                        put!(f, "; country missing: sovereign floor of ", c.as_str(), " (client country) applied")?;
                    }
                    Some(FloorNote::CountryUnknown(c)) => {
                        put!(
                            f,
                            "; country ",
                            c.trim(),
                            " not in sovereign reference data: its central government taken as unrated (100%), review"
                        )?;
                    }
                    None => {}
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render(f)
    }
}

impl fmt::Display for Reason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render(f)
    }
}

impl fmt::Display for Details<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render(f)
    }
}

impl Details<'_> {
    /// Appends the Match_Details text to `out`: the same text as `Display`, without the
    /// formatter's per-piece dispatch (the fast path for writing millions of rows).
    #[inline]
    pub fn write_to(&self, out: &mut String) {
        let _ = self.render(out);
    }
}

/// The engine's verdict on one row.
#[derive(Debug, Clone, Copy)]
pub struct Decision<'a> {
    /// Suggested weight in percent; never above `current_rw_pct`.
    pub suggested_rw_pct: f64,
    /// The weight used as "current" (100 when the row had none).
    pub current_rw_pct: f64,
    /// The rule's weight before the clamp; `None` when no rule applied.
    pub regulatory_rw_pct: Option<f64>,
    /// matched, not_matched or error.
    pub status: MatchStatus,
    /// The rule tables used (Applied_Rule).
    pub applied_rule: AppliedRule<'a>,
    /// The articles (Regulatory_Reference).
    pub regulatory_reference: Reference<'a>,
    /// The Match_Details text.
    pub details: Details<'a>,
    /// Flags.
    pub flags: Flags,
}

impl Decision<'_> {
    /// RW_Delta: current minus suggested, in percentage points (never negative).
    #[inline]
    pub fn rw_delta_pct(&self) -> f64 {
        self.current_rw_pct - self.suggested_rw_pct
    }

    /// Capital_Saving: exposure x (current - suggested) / 100. This is an RWA reduction, valid
    /// when the amount is the standardised exposure value.
    #[inline]
    pub fn capital_saving(&self, exposure_amount: f64) -> f64 {
        let s = exposure_amount * self.rw_delta_pct() / 100.0;
        if s.is_finite() { s } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_text() {
        assert_eq!(Pct(20.0).to_string(), "20%");
        assert_eq!(Pct(37.5).to_string(), "37.5%");
        assert_eq!(Pct(0.0).to_string(), "0%");
    }

    #[test]
    fn flags_render() {
        let f = Flags::CURRENT_BELOW_REGULATORY | Flags::CURRENCY_MISSING;
        assert!(f.contains(Flags::CURRENT_BELOW_REGULATORY));
        assert!(!f.contains(Flags::NEEDS_REVIEW));
        assert_eq!(
            f.to_string(),
            "current RW below regulatory RW; currency missing"
        );
    }

    #[test]
    fn engine_is_send_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Engine>();
        assert_send_sync::<Decision<'static>>();
    }
}
