//! Decision procedures: for each lever, the order in which the rule tables are consulted. The
//! order follows the article, never "lowest weight wins":
//!
//! - **PSE (Art. 116)**: 116(4) treated as central government -> sovereign rules (114(4) domestic
//!   currency 0 %, else Table 1 by sovereign CQS); else original maturity of three months or less
//!   -> 116(3) 20 %; else own rating -> 116(2); else the sovereign's CQS -> 116(1) Table 2
//!   (sovereign unrated: 100 %).
//! - **RGLA (Art. 115)**: 115(2) treated as central government -> sovereign rules; else EU Member
//!   State body in its domestic currency -> 115(5) 20 %; else own rating -> rated table; else the
//!   sovereign's CQS -> unrated table.
//! - **MDB (Art. 117, 118, 114(3))**: ECB -> 0 %; Art. 118 organisation -> 0 %; 117(2) listed -> 0 %;
//!   else own rating -> MDB table; else the unrated MDB weight (CRR3 50 %; CRR2 via the
//!   institution tables).
//! - **Institutions (Art. 120, 121)**: rated -> short-term table when the maturity qualifies
//!   (CRR2: residual <= 3 months; CRR3: original <= 3 months), else Table 3 / ECRA; unrated ->
//!   CRR3 SCRA grade (short-term grade table when the original maturity <= 3 months; foreign-
//!   currency exposures floored at the sovereign's weight, Art. 121(6)); CRR2 121(3) short-term
//!   20 % or Table 5 by the sovereign's CQS.
//! - **Corporates (Art. 122, 222)**: rated -> Table 6; unrated -> 100 % or the sovereign's weight
//!   if higher; then valued financial collateral under the simple method: the covered part takes
//!   the collateral's weight floored at 20 % (0 % for same-currency cash, or 0 %-weighted sovereign
//!   debt discounted by 20 %, Art. 222(6)). Collateral flagged but not valued is not recognised and
//!   the row is flagged for review.
//! - **Sovereigns (Art. 114)**: ECB -> 0 %; EU Member State in its domestic currency -> 0 %; else
//!   Table 1 by CQS; unrated -> 100 %.
//!
//! The specification's rule sets (`SPEC-LEGACY`, `SPEC-LEGACY-ADMIN`) have their own procedures:
//! the own-government rule first, then the specification's PSE and MDB tables, its RGLA rule and
//! its generic corporate 100 to 75 % rule; institutions and sovereigns have no function there.
//!
//! Every procedure ends with the clamp: the suggestion is never above the current weight.

// The nested `if let` steps mirror the article's paragraphs one by one; collapsing them into
// let-chains would hide that structure.
#![allow(clippy::collapsible_if)]

use crate::engine::{
    AppliedRule, Decision, Details, Engine, Explanation, Flags, FloorNote, Reason, Reference,
    SHORT_TERM_MAX_DAYS, Subject,
};
use crate::model::{ExposureRow, Lever, MatchStatus};
use crate::refdata::{
    Country, Currency, Institution, Lei, MdbEntity, MdbKind, NameMatch, Nif, PublicEntity,
};
use crate::rules::{Basis, Family, MaturityBucket, RuleTable, Slot, Weight};
use crate::trace::{Recorder, ReferenceEntry, TraceStep, pct_text, yes_no};

/// The current weight as the engine uses it.
#[derive(Clone, Copy)]
struct Current<'t> {
    value: f64,
    flags: Flags,
    negative: bool,
    /// The recorder of a traced evaluation ([`Engine::trace`]); `None` on the hot path.
    trace: Option<&'t Recorder>,
}

impl Current<'_> {
    /// Records a step when tracing; the closure is never called otherwise.
    #[inline(always)]
    fn step(&self, f: impl FnOnce() -> TraceStep) {
        if let Some(r) = self.trace {
            r.step(f());
        }
    }

    /// Records the reference entry used when tracing.
    #[inline(always)]
    fn entry(&self, f: impl FnOnce() -> ReferenceEntry) {
        if let Some(r) = self.trace {
            r.entry(f());
        }
    }
}

/// The maturity inputs of a row, as a trace shows them.
fn maturity_inputs(row: &ExposureRow<'_>) -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    if let Some(d) = row.maturity_date {
        v.push(("maturity date", d.to_string()));
    }
    match finite(row.residual_maturity_days) {
        Some(d) => v.push((
            "residual maturity (days)",
            format!("{}", (d * 100.0).round() / 100.0),
        )),
        None if row.invalid_maturity.is_empty() => v.push(("residual maturity", "none".into())),
        None => v.push(("Maturity (unreadable)", row.invalid_maturity.to_string())),
    }
    match finite(row.original_maturity_days) {
        Some(d) => v.push(("original maturity (days)", format!("{d}"))),
        None => v.push((
            "original maturity",
            "not given (no Origination_Date)".into(),
        )),
    }
    v
}

fn current(row: &ExposureRow<'_>) -> Current<'static> {
    match row.current_rw_pct {
        Some(v) if v.is_finite() && v >= 0.0 => Current {
            value: v,
            flags: Flags::NONE,
            negative: false,
            trace: None,
        },
        Some(v) if v.is_finite() => Current {
            value: v,
            flags: Flags::NONE,
            negative: true,
            trace: None,
        },
        _ => Current {
            value: 100.0,
            flags: Flags::CURRENT_RW_DEFAULTED,
            negative: false,
            trace: None,
        },
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Term {
    Short,
    Long,
    Unknown,
}

fn days_term(d: f64) -> Term {
    if d <= SHORT_TERM_MAX_DAYS + 1e-9 {
        Term::Short
    } else {
        Term::Long
    }
}

fn finite(v: Option<f64>) -> Option<f64> {
    v.filter(|x| x.is_finite())
}

#[inline]
fn pct(w: Option<Weight>) -> Option<f64> {
    w.and_then(Weight::pct)
}

fn currency_loose(s: &str) -> Option<Currency> {
    let t = s.trim();
    if t == "€" || t.eq_ignore_ascii_case("euro") || t.eq_ignore_ascii_case("euros") {
        return Currency::parse("EUR");
    }
    Currency::parse(t)
}

/// Country codes as written, or country names (see [`Country::parse_loose`]).
fn country_loose(s: &str) -> Option<Country> {
    Country::parse_loose(s)
}

fn looks_corporate(asset_class: &str) -> bool {
    let mut buf = [0u8; crate::refdata::ids::NAME_BUF];
    let Some(f) = crate::refdata::ids::fold_name_into(asset_class, &mut buf) else {
        return false;
    };
    f.contains("corporat")
        || f.contains("empresa")
        || f.contains("pyme")
        || f.split(' ').any(|w| {
            matches!(
                w,
                "corp" | "sme" | "smes" | "company" | "companies" | "corporates"
            )
        })
}

/// Grade key of the SCRA table for a grade as written.
fn scra_key(raw: &str) -> Option<&'static str> {
    let t = raw.trim();
    let mut buf = [0u8; 8];
    let mut n = 0;
    for b in t.bytes() {
        if b.is_ascii_alphanumeric() || b == b'+' {
            if n == buf.len() {
                return None;
            }
            buf[n] = b.to_ascii_uppercase();
            n += 1;
        }
    }
    match &buf[..n] {
        b"A+" | b"APLUS" | b"AP" => Some("A_plus"),
        b"A" | b"GRADEA" => Some("A"),
        b"B" | b"GRADEB" => Some("B"),
        b"C" | b"GRADEC" => Some("C"),
        _ => None,
    }
}

/// What the matched entity gives, before the clamp.
struct Outcome<'a> {
    rw: f64,
    tables: [Option<&'a RuleTable>; 3],
    reason: Reason<'a>,
}

impl<'a> Outcome<'a> {
    fn one(rw: f64, t: &'a RuleTable, reason: Reason<'a>) -> Outcome<'a> {
        Outcome {
            rw,
            tables: [Some(t), None, None],
            reason,
        }
    }
    fn two(rw: f64, t: &'a RuleTable, u: &'a RuleTable, reason: Reason<'a>) -> Outcome<'a> {
        Outcome {
            rw,
            tables: [Some(t), Some(u), None],
            reason,
        }
    }
}

impl Engine {
    pub(crate) fn dispatch<'a>(
        &'a self,
        lever: Lever,
        row: &ExposureRow<'a>,
        trace: Option<&Recorder>,
    ) -> Decision<'a> {
        let mut d = self.dispatch_rules(lever, row, trace);
        if !row.invalid_maturity.is_empty() {
            d.flags |= Flags::MATURITY_UNREADABLE;
            if let Details::Matched(e) = &mut d.details {
                e.unreadable_maturity = row.invalid_maturity;
            }
        }
        d
    }

    fn dispatch_rules<'a>(
        &'a self,
        lever: Lever,
        row: &ExposureRow<'a>,
        trace: Option<&Recorder>,
    ) -> Decision<'a> {
        let cur = Current {
            trace,
            ..current(row)
        };
        cur.step(|| {
            let (outcome, value) = match row.current_rw_pct {
                Some(v) if v.is_finite() => {
                    (if v < 0.0 { "no: negative" } else { "yes" }, pct_text(v))
                }
                _ => ("missing: 100% assumed", "none".to_string()),
            };
            TraceStep::new(
                "",
                "current risk weight usable?",
                &[("Current_Risk_Weight", value)],
                outcome,
            )
        });
        if cur.negative {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::InvalidCurrentRw(cur.value),
                Flags::NONE,
            );
        }
        // An exposure value is never negative (a negative amount would turn a lower weight
        // into a negative saving).
        if let Some(a) = row.exposure_amount.filter(|a| *a < 0.0) {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::InvalidAmount(a),
                Flags::NONE,
            );
        }
        match self.rules.family() {
            Family::Regulation => match lever {
                Lever::Pse => self.crr_pse(cur, row),
                Lever::Rgla => self.crr_rgla(cur, row),
                Lever::Mdb => self.crr_mdb(cur, row),
                Lever::Institutions => self.crr_institution(cur, row),
                Lever::Corporates => self.crr_corporate(cur, row),
                Lever::Sovereigns => self.crr_sovereign(cur, row),
            },
            Family::SpecLegacy => match lever {
                Lever::Pse => self.spec_pse(cur, row),
                Lever::Rgla => self.spec_rgla(cur, row),
                Lever::Mdb => self.spec_mdb(cur, row),
                Lever::Corporates => self.spec_corporate(cur, row),
                Lever::Institutions | Lever::Sovereigns => self.keep(
                    cur,
                    MatchStatus::Error,
                    Details::NoAnalysisFunction(lever),
                    Flags::NONE,
                ),
            },
        }
    }

    // ----- building blocks -------------------------------------------------------------------

    /// Where a reference list came from (`built-in`, a file), for traces.
    fn list_source(&self, list: &str) -> String {
        self.refdata
            .sources()
            .lists
            .iter()
            .find(|(n, _, _)| *n == list)
            .map(|(_, s, _)| s.to_string())
            .unwrap_or_default()
    }

    #[inline]
    fn t(&self, s: Slot) -> Option<&RuleTable> {
        self.rules.slot(s)
    }

    /// Keeps the current weight (not matched, error).
    fn keep<'a>(
        &'a self,
        cur: Current<'_>,
        status: MatchStatus,
        details: Details<'a>,
        flags: Flags,
    ) -> Decision<'a> {
        cur.step(|| {
            TraceStep::new(
                "",
                "result",
                &[("Match_Details", details.to_string())],
                &format!(
                    "{}: current weight {} kept",
                    status.as_str(),
                    pct_text(cur.value)
                ),
            )
        });
        Decision {
            suggested_rw_pct: cur.value,
            current_rw_pct: cur.value,
            regulatory_rw_pct: None,
            status,
            applied_rule: AppliedRule::none(self.rules.id()),
            regulatory_reference: Reference([None, None, None]),
            details,
            flags: cur.flags | flags,
        }
    }

    /// A matched decision, with the clamp.
    fn decide<'a>(
        &'a self,
        cur: Current<'_>,
        out: Outcome<'a>,
        subject: Subject<'a>,
        flags: Flags,
    ) -> Decision<'a> {
        let clamped = out.rw > cur.value;
        let suggested = if clamped { cur.value } else { out.rw };
        cur.step(|| {
            let tables: Vec<&str> = out.tables.iter().flatten().map(|t| t.id()).collect();
            let articles: Vec<&str> = out.tables.iter().flatten().map(|t| t.reference()).collect();
            TraceStep::new(
                &articles.join("; "),
                &format!("weight of {}", tables.join(" > ")),
                &[("basis", out.reason.to_string())],
                &pct_text(out.rw),
            )
        });
        cur.step(|| {
            TraceStep::new(
                "",
                "regulatory weight above the current weight?",
                &[
                    ("current", pct_text(cur.value)),
                    ("regulatory", pct_text(out.rw)),
                ],
                &if clamped {
                    format!("yes: current {} kept, saving 0", pct_text(cur.value))
                } else {
                    format!("no: {} suggested", pct_text(suggested))
                },
            )
        });
        let mut flags = cur.flags | flags;
        if clamped {
            flags |= Flags::CURRENT_BELOW_REGULATORY;
        }
        Decision {
            suggested_rw_pct: suggested,
            current_rw_pct: cur.value,
            regulatory_rw_pct: Some(out.rw),
            status: MatchStatus::Matched,
            applied_rule: AppliedRule {
                rule_set: self.rules.id(),
                tables: out.tables,
            },
            regulatory_reference: Reference(out.tables),
            details: Details::Matched(Explanation {
                subject,
                reason: out.reason,
                regulatory_rw_pct: out.rw,
                current_rw_pct: cur.value,
                clamped,
                collateral_not_recognised: false,
                notes: flags.intersection(
                    Flags::RESIDUAL_AS_ORIGINAL
                        | Flags::CQS_FROM_FILE
                        | Flags::CQS_CONFLICT
                        | Flags::INVALID_LEI,
                ),
                floor_note: None,
                unreadable_maturity: "",
            }),
            flags,
        }
    }

    fn no_rule<'a>(&'a self, cur: Current<'_>, what: &'static str, flags: Flags) -> Decision<'a> {
        self.keep(cur, MatchStatus::Error, Details::NoRule(what), flags)
    }

    /// The row's CQS, validated.
    /// The row's CQS, validated: an unreadable Credit_Quality_Step cell or a step outside 1..6
    /// is an error (never "unrated").
    #[allow(clippy::result_large_err)] // the error is the decision's text, returned by value
    fn row_cqs<'a>(row: &ExposureRow<'a>) -> Result<Option<u8>, Details<'a>> {
        if !row.invalid_cqs.is_empty() {
            return Err(Details::InvalidCqsText(row.invalid_cqs));
        }
        match row.cqs {
            Some(c @ 1..=6) => Ok(Some(c)),
            Some(c) => Err(Details::InvalidCqs(c)),
            None => Ok(None),
        }
    }

    /// An entity's CQS: the reference list's, else the file's (flagged); a file CQS that differs
    /// from the list's is flagged and the list's is used. An unreadable file CQS matters only
    /// when the list has none.
    #[allow(clippy::result_large_err)] // the error is the decision's text, returned by value
    fn entity_cqs<'a>(
        cur: Current<'_>,
        listed: Option<u8>,
        row: &ExposureRow<'a>,
        flags: &mut Flags,
    ) -> Result<Option<u8>, Details<'a>> {
        cur.step(|| {
            let file = match Self::row_cqs(row) {
                Ok(Some(c)) => c.to_string(),
                Ok(None) => "none".into(),
                Err(_) => format!("invalid ({})", row.invalid_cqs),
            };
            let outcome = match (listed, Self::row_cqs(row)) {
                (Some(l), _) => format!("CQS {l} (reference data)"),
                (None, Ok(Some(f))) => format!("CQS {f} (file)"),
                (None, Ok(None)) => "none".into(),
                (None, Err(_)) => "the file's CQS is invalid".into(),
            };
            TraceStep::new(
                "",
                "own rating?",
                &[
                    (
                        "reference CQS",
                        listed.map_or("none".into(), |c| c.to_string()),
                    ),
                    ("file CQS", file),
                ],
                &outcome,
            )
        });
        match (listed, Self::row_cqs(row)) {
            (Some(l), Ok(Some(f))) => {
                if f != l {
                    *flags |= Flags::CQS_CONFLICT;
                }
                Ok(Some(l))
            }
            (Some(l), _) => Ok(Some(l)),
            (None, Ok(Some(f))) => {
                *flags |= Flags::CQS_FROM_FILE;
                Ok(Some(f))
            }
            (None, other) => other,
        }
    }

    fn sovereign_cqs(&self, country: Country, stated: Option<u8>) -> Option<u8> {
        stated.or_else(|| self.refdata.sovereigns().get(country).and_then(|s| s.cqs))
    }

    /// Sovereign treatment of `country` for this row: Art. 114(4) when an EU Member State's
    /// exposure is in its domestic currency, else Table 1 by CQS.
    fn sovereign_treatment(
        &self,
        cur: Current<'_>,
        country: Country,
        stated_cqs: Option<u8>,
        row: &ExposureRow<'_>,
        flags: &mut Flags,
    ) -> Option<(f64, &RuleTable, bool, Option<u8>)> {
        let sov = self.refdata.sovereigns().get(country);
        cur.step(|| {
            let art = self
                .t(Slot::SovDomestic)
                .map(|t| t.reference().to_string())
                .unwrap_or_default();
            let (eu, dom) = match sov {
                Some(s) => (
                    yes_no(s.eu_member).to_string(),
                    s.domestic_currency.map_or("none".into(), |c| c.to_string()),
                ),
                None => ("not in the sovereign list".into(), "unknown".into()),
            };
            let ccy = row.currency.trim();
            let outcome = match (sov, currency_loose(row.currency)) {
                (Some(s), Some(c)) if s.eu_member && s.domestic_currency == Some(c) => "yes",
                (Some(s), None) if s.eu_member && s.domestic_currency.is_some() => {
                    "no: currency missing"
                }
                _ => "no",
            };
            TraceStep::new(
                &art,
                "EU Member State's central government in its domestic currency?",
                &[
                    ("country", country.as_str().to_string()),
                    ("EU member", eu),
                    ("domestic currency", dom),
                    (
                        "Currency",
                        if ccy.is_empty() {
                            "none".into()
                        } else {
                            ccy.to_string()
                        },
                    ),
                ],
                outcome,
            )
        });
        cur.entry(|| ReferenceEntry {
            list: "sovereign".into(),
            key: country.as_str().to_string(),
            name: country.as_str().to_string(),
            source: self.list_source("sovereigns"),
            as_of: String::new(),
        });
        if let Some(s) = sov {
            if let (true, Some(dom)) = (s.eu_member, s.domestic_currency) {
                match currency_loose(row.currency) {
                    Some(c) if c == dom => {
                        if let Some(t) = self.t(Slot::SovDomestic) {
                            if let Some(rw) = pct(t.single()) {
                                return Some((rw, t, true, s.cqs));
                            }
                        }
                    }
                    Some(_) => {}
                    None => *flags |= Flags::CURRENCY_MISSING,
                }
            }
        }
        let cqs = stated_cqs.or_else(|| sov.and_then(|s| s.cqs));
        let t = self.t(Slot::SovT1)?;
        let rw = pct(t.by_cqs(cqs))?;
        Some((rw, t, false, cqs))
    }

    fn residual_term(&self, row: &ExposureRow<'_>) -> Term {
        if let (Some(md), Some(limit)) = (row.maturity_date, self.three_months) {
            return if md <= limit { Term::Short } else { Term::Long };
        }
        match finite(row.residual_maturity_days) {
            Some(d) => days_term(d),
            None => Term::Unknown,
        }
    }

    /// Whether the row meets a table's maturity condition.
    fn term(
        &self,
        cur: Current<'_>,
        row: &ExposureRow<'_>,
        bucket: MaturityBucket,
        flags: &mut Flags,
    ) -> Term {
        let t = self.term_inner(row, bucket, flags);
        if matches!(
            bucket,
            MaturityBucket::Any | MaturityBucket::ShortTermRating
        ) {
            return t;
        }
        cur.step(|| {
            let test = match bucket {
                MaturityBucket::Le3mOriginal | MaturityBucket::Le3mOriginalOr6mTradeGoods => {
                    "original maturity <= 3 months?"
                }
                MaturityBucket::Le3mResidual => "residual maturity <= 3 months?",
                _ => "maturity <= 3 months?",
            };
            let outcome = match t {
                Term::Short if flags.contains(Flags::RESIDUAL_AS_ORIGINAL) => {
                    "yes (the Maturity given taken as the original maturity)"
                }
                Term::Short => "yes",
                Term::Long => "no",
                Term::Unknown => "unknown: no usable maturity",
            };
            let mut inputs = maturity_inputs(row);
            if let Some(limit) = self.three_months {
                inputs.push(("reporting date + 3 months", limit.to_string()));
            }
            TraceStep::new("", test, &inputs, outcome)
        });
        t
    }

    fn term_inner(&self, row: &ExposureRow<'_>, bucket: MaturityBucket, flags: &mut Flags) -> Term {
        let t = match bucket {
            MaturityBucket::Any | MaturityBucket::ShortTermRating => return Term::Unknown,
            MaturityBucket::Le3mOriginal | MaturityBucket::Le3mOriginalOr6mTradeGoods => {
                if let Some(d) = finite(row.original_maturity_days) {
                    return days_term(d);
                }
                let t = self.residual_term(row);
                if t == Term::Short {
                    *flags |= Flags::RESIDUAL_AS_ORIGINAL;
                }
                t
            }
            MaturityBucket::Le3mResidual => match self.residual_term(row) {
                Term::Unknown => match finite(row.original_maturity_days) {
                    // The residual maturity never exceeds the original one.
                    Some(d) if days_term(d) == Term::Short => Term::Short,
                    _ => Term::Unknown,
                },
                t => t,
            },
            MaturityBucket::Le3mMaturity | MaturityBucket::Gt3mMaturity => {
                match self.residual_term(row) {
                    Term::Unknown => finite(row.original_maturity_days)
                        .map(days_term)
                        .unwrap_or(Term::Unknown),
                    t => t,
                }
            }
        };
        if t == Term::Unknown {
            *flags |= Flags::MATURITY_MISSING;
        }
        t
    }

    /// Looks a NIF up in the PSE or RGLA list, or explains why not. The error is the finished
    /// decision itself (returned by value: boxing it would allocate on every unmatched row).
    #[allow(clippy::result_large_err)]
    fn find_public<'a>(
        &'a self,
        cur: Current<'_>,
        row: &ExposureRow<'a>,
        lever: Lever,
    ) -> Result<&'a PublicEntity, Decision<'a>> {
        let list = if lever == Lever::Rgla {
            self.refdata.rgla()
        } else {
            self.refdata.pse()
        };
        let raw = row.nif.trim();
        let list_name = if lever == Lever::Rgla { "RGLA" } else { "PSE" };
        if raw.is_empty() {
            cur.step(|| TraceStep::new("", "NIF given?", &[("NIF", String::new())], "no"));
            let d = if lever == Lever::Rgla {
                Details::MissingNif
            } else {
                Details::MissingFields("NIF")
            };
            return Err(self.keep(cur, MatchStatus::NotMatched, d, Flags::NONE));
        }
        if list.is_empty() {
            // The specification degrades an unavailable RGLA list to "not matched"; an empty PSE
            // list is an error.
            let status = if lever == Lever::Rgla {
                MatchStatus::NotMatched
            } else {
                MatchStatus::Error
            };
            return Err(self.keep(cur, status, Details::ReferenceEmpty(lever), Flags::NONE));
        }
        let nif = match Nif::parse(raw) {
            Ok(n) => n,
            Err(error) => {
                cur.step(|| {
                    TraceStep::new(
                        "",
                        "NIF valid?",
                        &[("NIF", raw.to_string())],
                        &format!("no: {error}"),
                    )
                });
                return Err(self.keep(
                    cur,
                    MatchStatus::NotMatched,
                    Details::InvalidNif { raw, error },
                    Flags::NONE,
                ));
            }
        };
        let found = list.get(&nif);
        cur.step(|| {
            TraceStep::new(
                "",
                &format!("NIF in the {list_name} reference list?"),
                &[("NIF", nif.as_str().to_string())],
                &match found {
                    Some(e) => format!("yes: {}", e.legal_name),
                    None => "no".to_string(),
                },
            )
        });
        if let Some(e) = found {
            cur.entry(|| ReferenceEntry {
                list: list_name.into(),
                key: e.nif_str().to_string(),
                name: e.legal_name.clone(),
                source: if e.source.is_empty() {
                    self.list_source(&list_name.to_ascii_lowercase())
                } else {
                    format!(
                        "{} ({})",
                        e.source,
                        self.list_source(&list_name.to_ascii_lowercase())
                    )
                },
                as_of: e.as_of.clone(),
            });
        }
        found.ok_or_else(|| {
            self.keep(
                cur,
                MatchStatus::NotMatched,
                Details::NifNotFound { nif, lever },
                Flags::NONE,
            )
        })
    }

    /// Looks an MDB / international organisation up by LEI, then by name.
    #[allow(clippy::result_large_err)]
    fn find_mdb<'a>(
        &'a self,
        cur: Current<'_>,
        row: &ExposureRow<'a>,
        flags: &mut Flags,
    ) -> Result<&'a MdbEntity, Decision<'a>> {
        let lei_raw = row.lei.trim();
        let name = row.legal_name.trim();
        if lei_raw.is_empty() && name.is_empty() {
            return Err(self.keep(
                cur,
                MatchStatus::NotMatched,
                Details::MissingLeiAndName,
                *flags,
            ));
        }
        let list = self.refdata.mdb();
        if list.is_empty() {
            return Err(self.keep(
                cur,
                MatchStatus::Error,
                Details::ReferenceEmpty(Lever::Mdb),
                *flags,
            ));
        }
        let mut lei_error = None;
        let found = |e: &MdbEntity, by: &str, key: &str| {
            cur.step(|| {
                TraceStep::new(
                    "",
                    &format!("{by} in the MDB and international organisation list?"),
                    &[(by, key.to_string())],
                    &format!("yes: {}", e.label()),
                )
            });
            cur.entry(|| ReferenceEntry {
                list: "MDB".into(),
                key: key.to_string(),
                name: e.legal_name.clone(),
                source: self.list_source("mdb"),
                as_of: String::new(),
            });
        };
        if !lei_raw.is_empty() {
            match Lei::parse(lei_raw) {
                Ok(l) => {
                    if let Some(e) = list.by_lei(&l) {
                        found(e, "LEI", lei_raw);
                        return Ok(e);
                    }
                    cur.step(|| {
                        TraceStep::new(
                            "",
                            "LEI in the MDB and international organisation list?",
                            &[("LEI", lei_raw.to_string())],
                            "no",
                        )
                    });
                }
                Err(e) => {
                    lei_error = Some(e);
                    *flags |= Flags::INVALID_LEI;
                }
            }
        }
        if !name.is_empty() {
            match list.by_name(name) {
                NameMatch::Found(e) => {
                    *flags |= Flags::MATCHED_BY_NAME;
                    found(e, "name", name);
                    return Ok(e);
                }
                NameMatch::Ambiguous(a, b) => {
                    cur.step(|| {
                        TraceStep::new(
                            "",
                            "name in the MDB and international organisation list?",
                            &[("name", name.to_string())],
                            &format!("ambiguous: {} or {}", a.label(), b.label()),
                        )
                    });
                    let d = Details::AmbiguousName {
                        name,
                        a: a.label(),
                        b: b.label(),
                    };
                    return Err(self.keep(cur, MatchStatus::NotMatched, d, *flags));
                }
                NameMatch::NotFound => {}
            }
        }
        let d = match lei_error {
            Some(error) if name.is_empty() => Details::InvalidLei {
                raw: lei_raw,
                error,
            },
            _ => Details::MdbNotFound { lei: lei_raw, name },
        };
        Err(self.keep(cur, MatchStatus::NotMatched, d, *flags))
    }

    // ----- regulation (EU-CRR2, EU-CRR3) ------------------------------------------------------

    fn crr_pse<'a>(&'a self, cur: Current<'_>, row: &ExposureRow<'a>) -> Decision<'a> {
        let Some(t_unrated) = self.t(Slot::PseUnrated) else {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::NoAnalysisFunction(Lever::Pse),
                Flags::NONE,
            );
        };
        let e = match self.find_public(cur, row, Lever::Pse) {
            Ok(e) => e,
            Err(d) => return d,
        };
        let subject = Subject::Pse(e);
        let mut flags = Flags::NONE;
        // Art. 116(4): treated as the central government.
        cur.step(|| {
            TraceStep::new(
                self.t(Slot::PseAsCg).map_or("", |t| t.reference()),
                "listed as treated like the central government?",
                &[(
                    "treated_as_central_government",
                    yes_no(e.treated_as_central_government).to_string(),
                )],
                yes_no(e.treated_as_central_government),
            )
        });
        if e.treated_as_central_government {
            if let Some(t_cg) = self.t(Slot::PseAsCg) {
                if let Some((rw, t_sov, domestic, cqs)) =
                    self.sovereign_treatment(cur, e.country, e.own_gov_cqs, row, &mut flags)
                {
                    let reason = Reason::TreatedAsCentralGovernment {
                        country: e.country,
                        domestic,
                        cqs,
                    };
                    return self.decide(cur, Outcome::two(rw, t_cg, t_sov, reason), subject, flags);
                }
            }
        }
        // Art. 116(3): original maturity of three months or less.
        if let Some(t_short) = self.t(Slot::PseShort) {
            if self.term(cur, row, t_short.maturity(), &mut flags) == Term::Short {
                if let Some(rw) = pct(t_short.single()) {
                    return self.decide(
                        cur,
                        Outcome::one(rw, t_short, Reason::ShortTerm { cqs: None }),
                        subject,
                        flags,
                    );
                }
            }
        }
        // Art. 116(2): own rating.
        let own = match Self::entity_cqs(cur, e.entity_cqs, row, &mut flags) {
            Ok(c) => c,
            Err(d) => return self.keep(cur, MatchStatus::NotMatched, d, flags),
        };
        if let (Some(c), Some(t_rated)) = (own, self.t(Slot::PseRated)) {
            if let Some(rw) = pct(t_rated.by_cqs(Some(c))) {
                return self.decide(
                    cur,
                    Outcome::one(rw, t_rated, Reason::EntityRating(c)),
                    subject,
                    flags,
                );
            }
        }
        // Art. 116(1): the sovereign's CQS.
        let cqs = self.sovereign_cqs(e.country, e.own_gov_cqs);
        match pct(t_unrated.by_cqs(cqs)) {
            Some(rw) => {
                let reason = Reason::SovereignRating {
                    country: Some(e.country),
                    cqs,
                };
                self.decide(cur, Outcome::one(rw, t_unrated, reason), subject, flags)
            }
            None => self.no_rule(cur, "an unrated PSE", flags),
        }
    }

    fn crr_rgla<'a>(&'a self, cur: Current<'_>, row: &ExposureRow<'a>) -> Decision<'a> {
        let Some(t_unrated) = self.t(Slot::RglaUnrated) else {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::NoAnalysisFunction(Lever::Rgla),
                Flags::NONE,
            );
        };
        let e = match self.find_public(cur, row, Lever::Rgla) {
            Ok(e) => e,
            Err(d) => return d,
        };
        let subject = Subject::Rgla(e);
        let mut flags = Flags::NONE;
        // Art. 115(2)/(4): treated as the central government.
        cur.step(|| {
            TraceStep::new(
                self.t(Slot::RglaAsCg).map_or("", |t| t.reference()),
                "listed as treated like the central government?",
                &[(
                    "treated_as_central_government",
                    yes_no(e.treated_as_central_government).to_string(),
                )],
                yes_no(e.treated_as_central_government),
            )
        });
        if e.treated_as_central_government {
            if let Some(t_cg) = self.t(Slot::RglaAsCg) {
                if let Some((rw, t_sov, domestic, cqs)) =
                    self.sovereign_treatment(cur, e.country, e.own_gov_cqs, row, &mut flags)
                {
                    let reason = Reason::TreatedAsCentralGovernment {
                        country: e.country,
                        domestic,
                        cqs,
                    };
                    return self.decide(cur, Outcome::two(rw, t_cg, t_sov, reason), subject, flags);
                }
            }
        }
        // Art. 115(5): Member State body, domestic currency.
        cur.step(|| {
            let s = self.refdata.sovereigns().get(e.country);
            let dom = s.and_then(|s| s.domestic_currency);
            let ms = s.is_some_and(|s| s.eu_member);
            let yes = ms && dom.is_some() && currency_loose(row.currency) == dom;
            TraceStep::new(
                self.t(Slot::RglaMsDomestic).map_or("", |t| t.reference()),
                "EU Member State body in the domestic currency?",
                &[
                    ("country", e.country.as_str().to_string()),
                    ("EU member", yes_no(ms).to_string()),
                    (
                        "domestic currency",
                        dom.map_or("none".into(), |c| c.to_string()),
                    ),
                    ("Currency", row.currency.trim().to_string()),
                ],
                yes_no(yes),
            )
        });
        if let (Some(t_ms), Some(s)) = (
            self.t(Slot::RglaMsDomestic),
            self.refdata.sovereigns().get(e.country),
        ) {
            if let (true, Some(dom)) = (s.eu_member, s.domestic_currency) {
                match currency_loose(row.currency) {
                    Some(c) if c == dom => {
                        if let Some(rw) = pct(t_ms.single()) {
                            let reason = Reason::MemberStateDomesticCurrency { country: e.country };
                            return self.decide(
                                cur,
                                Outcome::one(rw, t_ms, reason),
                                subject,
                                flags,
                            );
                        }
                    }
                    Some(_) => {}
                    None => flags |= Flags::CURRENCY_MISSING,
                }
            }
        }
        // Own rating.
        let own = match Self::entity_cqs(cur, e.entity_cqs, row, &mut flags) {
            Ok(c) => c,
            Err(d) => return self.keep(cur, MatchStatus::NotMatched, d, flags),
        };
        if let (Some(c), Some(t_rated)) = (own, self.t(Slot::RglaRated)) {
            if let Some(rw) = pct(t_rated.by_cqs(Some(c))) {
                return self.decide(
                    cur,
                    Outcome::one(rw, t_rated, Reason::EntityRating(c)),
                    subject,
                    flags,
                );
            }
        }
        // Unrated: the sovereign's CQS.
        let cqs = self.sovereign_cqs(e.country, e.own_gov_cqs);
        match pct(t_unrated.by_cqs(cqs)) {
            Some(rw) => {
                let reason = Reason::SovereignRating {
                    country: Some(e.country),
                    cqs,
                };
                self.decide(cur, Outcome::one(rw, t_unrated, reason), subject, flags)
            }
            None => self.no_rule(cur, "an unrated RGLA", flags),
        }
    }

    fn crr_mdb<'a>(&'a self, cur: Current<'_>, row: &ExposureRow<'a>) -> Decision<'a> {
        let mut flags = Flags::NONE;
        let e = match self.find_mdb(cur, row, &mut flags) {
            Ok(e) => e,
            Err(d) => return d,
        };
        let subject = Subject::Mdb(e);
        cur.step(|| {
            let kind = match e.kind {
                MdbKind::Ecb114_3 => "the ECB (114(3))",
                MdbKind::InternationalOrg118 => "an Art. 118 international organisation",
                MdbKind::Listed117_2 => "an Art. 117(2) multilateral development bank",
                MdbKind::Other117_1 => "another multilateral development bank (117(1))",
            };
            TraceStep::new(
                "",
                "which kind of body?",
                &[("entity", e.label().to_string())],
                kind,
            )
        });
        let listed = |slot: Slot, what: &'static str| -> Decision<'a> {
            match self.t(slot).and_then(|t| pct(t.single()).map(|rw| (rw, t))) {
                Some((rw, t)) => self.decide(
                    cur,
                    Outcome::one(rw, t, Reason::Listed(e.kind)),
                    subject,
                    flags,
                ),
                None => self.no_rule(cur, what, flags),
            }
        };
        match e.kind {
            MdbKind::Ecb114_3 => listed(Slot::SovEcb, "the ECB"),
            MdbKind::InternationalOrg118 => listed(Slot::IoListed, "an Art. 118 organisation"),
            MdbKind::Listed117_2 => listed(Slot::MdbListed, "an Art. 117(2) MDB"),
            MdbKind::Other117_1 => {
                let cqs = match e.entity_cqs {
                    Some(c) => Some(c),
                    None => match Self::row_cqs(row) {
                        Ok(Some(c)) => {
                            flags |= Flags::CQS_FROM_FILE;
                            Some(c)
                        }
                        Ok(None) => None,
                        Err(d) => {
                            return self.keep(cur, MatchStatus::NotMatched, d, flags);
                        }
                    },
                };
                if let Some(c) = cqs {
                    return match self
                        .t(Slot::MdbOtherRated)
                        .and_then(|t| pct(t.by_cqs(Some(c))).map(|rw| (rw, t)))
                    {
                        Some((rw, t)) => self.decide(
                            cur,
                            Outcome::one(rw, t, Reason::EntityRating(c)),
                            subject,
                            flags,
                        ),
                        None => self.no_rule(cur, "a rated MDB", flags),
                    };
                }
                let Some(t) = self.t(Slot::MdbOtherUnrated) else {
                    return self.no_rule(cur, "an unrated MDB", flags);
                };
                match t.basis() {
                    Basis::SovereignCqs => {
                        // CRR2: treated as an institution, by the CQS of its jurisdiction.
                        let country = country_loose(row.country);
                        let cqs = country.and_then(|c| self.sovereign_cqs(c, None));
                        match pct(t.by_cqs(cqs)) {
                            Some(rw) => self.decide(
                                cur,
                                Outcome::one(rw, t, Reason::SovereignRating { country, cqs }),
                                subject,
                                flags,
                            ),
                            None => self.no_rule(cur, "an unrated MDB", flags),
                        }
                    }
                    _ => match pct(t.single()) {
                        Some(rw) => self.decide(
                            cur,
                            Outcome::one(rw, t, Reason::UnratedMdb),
                            subject,
                            flags,
                        ),
                        None => self.no_rule(cur, "an unrated MDB", flags),
                    },
                }
            }
        }
    }

    fn crr_institution<'a>(&'a self, cur: Current<'_>, row: &ExposureRow<'a>) -> Decision<'a> {
        let Some(t_rated) = self.t(Slot::InstRated) else {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::NoAnalysisFunction(Lever::Institutions),
                Flags::NONE,
            );
        };
        let mut flags = Flags::NONE;
        let lei_raw = row.lei.trim();
        let name = row.legal_name.trim();
        if lei_raw.is_empty() && name.is_empty() {
            return self.keep(
                cur,
                MatchStatus::NotMatched,
                Details::MissingLeiAndName,
                flags,
            );
        }
        let list = self.refdata.institutions();
        let mut entity: Option<&'a Institution> = None;
        let mut lei_error = None;
        if !lei_raw.is_empty() {
            match Lei::parse(lei_raw) {
                Ok(l) => entity = list.by_lei(&l),
                Err(e) => {
                    flags |= Flags::INVALID_LEI;
                    lei_error = Some(e);
                }
            }
        }
        // Nothing identifies the institution when its LEI is invalid, it is not found by name and
        // the file gives neither a CQS nor an SCRA grade: say why.
        let unassessed = match (lei_error, entity) {
            (Some(error), None) => Details::InvalidLei {
                raw: lei_raw,
                error,
            },
            _ => Details::InstitutionUnassessed,
        };
        if entity.is_none() && !name.is_empty() {
            if let NameMatch::Found(e) = list.by_name(name) {
                entity = Some(e);
                flags |= Flags::MATCHED_BY_NAME;
            }
        }
        if entity.is_none() {
            flags |= Flags::NOT_IN_REFERENCE;
        }
        cur.step(|| {
            TraceStep::new(
                "",
                "institution in the reference list (by LEI, then by name)?",
                &[("LEI", lei_raw.to_string()), ("name", name.to_string())],
                &match entity {
                    Some(e) if flags.contains(Flags::MATCHED_BY_NAME) => {
                        format!("yes, by name: {}", e.legal_name)
                    }
                    Some(e) => format!("yes: {}", e.legal_name),
                    None => "no: the file's data is used".into(),
                },
            )
        });
        if let Some(e) = entity {
            cur.entry(|| ReferenceEntry {
                list: "institution".into(),
                key: e
                    .lei
                    .map_or_else(|| name.to_string(), |l| l.as_str().to_string()),
                name: e.legal_name.clone(),
                source: self.list_source("institutions"),
                as_of: String::new(),
            });
        }
        cur.step(|| {
            TraceStep::new(
                "",
                "own rating?",
                &[
                    (
                        "reference CQS",
                        entity
                            .and_then(|e| e.entity_cqs)
                            .map_or("none".into(), |c| c.to_string()),
                    ),
                    (
                        "file CQS",
                        match Self::row_cqs(row) {
                            Ok(Some(c)) => c.to_string(),
                            Ok(None) => "none".into(),
                            Err(_) => format!("invalid ({})", row.invalid_cqs),
                        },
                    ),
                ],
                &match (entity.and_then(|e| e.entity_cqs), Self::row_cqs(row)) {
                    (Some(c), _) | (None, Ok(Some(c))) => format!("CQS {c}"),
                    (None, Ok(None)) => "none: unrated".into(),
                    (None, Err(_)) => "the file's CQS is invalid".into(),
                },
            )
        });
        let file_cqs = match Self::row_cqs(row) {
            Ok(c) => c,
            Err(d) => {
                return self.keep(cur, MatchStatus::NotMatched, d, flags);
            }
        };
        let cqs = match entity.and_then(|e| e.entity_cqs) {
            Some(c) => {
                if file_cqs.is_some_and(|f| f != c) {
                    flags |= Flags::CQS_CONFLICT;
                }
                Some(c)
            }
            None => {
                if file_cqs.is_some() {
                    flags |= Flags::CQS_FROM_FILE;
                }
                file_cqs
            }
        };
        let country = entity
            .and_then(|e| e.country)
            .or_else(|| country_loose(row.country));
        let subject = Subject::Institution {
            entity,
            lei: lei_raw,
            name,
        };

        if let Some(c) = cqs {
            // Art. 120(2): short-term rated exposures.
            if let Some(ts) = self.t(Slot::InstRatedShort) {
                if self.term(cur, row, ts.maturity(), &mut flags) == Term::Short {
                    if let Some(rw) = pct(ts.by_cqs(Some(c))) {
                        return self.decide(
                            cur,
                            Outcome::one(rw, ts, Reason::ShortTerm { cqs: Some(c) }),
                            subject,
                            flags,
                        );
                    }
                }
            }
            return match pct(t_rated.by_cqs(Some(c))) {
                Some(rw) => self.decide(
                    cur,
                    Outcome::one(rw, t_rated, Reason::EntityRating(c)),
                    subject,
                    flags,
                ),
                None => self.no_rule(cur, "a rated institution", flags),
            };
        }

        if let Some(t_scra) = self.t(Slot::InstScra) {
            // CRR3 Art. 121: the SCRA grade.
            let grade_raw = row.scra_grade.trim();
            cur.step(|| {
                TraceStep::new(
                    t_scra.reference(),
                    "SCRA grade given?",
                    &[("SCRA_Grade", grade_raw.to_string())],
                    &match scra_key(grade_raw) {
                        Some(k) => format!("yes: {}", k.replace("_plus", "+")),
                        None => "no".into(),
                    },
                )
            });
            let Some(key) = scra_key(grade_raw) else {
                return self.keep(cur, MatchStatus::NotMatched, unassessed, flags);
            };
            let mut table = t_scra;
            let mut short = false;
            let mut rw = None;
            if let Some(ts) = self.t(Slot::InstScraShort) {
                if self.term(cur, row, ts.maturity(), &mut flags) == Term::Short {
                    let k = if key == "A_plus" { "A" } else { key };
                    if let Some(v) = pct(ts.by_key(k)) {
                        rw = Some(v);
                        table = ts;
                        short = true;
                    }
                }
            }
            let Some(mut rw) = rw.or_else(|| pct(t_scra.by_key(key))) else {
                return self.no_rule(cur, "this SCRA grade", flags);
            };
            let reason = Reason::Scra {
                grade: grade_raw,
                short,
            };
            // Art. 121(6): foreign-currency exposures are floored at the sovereign's weight.
            if let Some(c) = country {
                if let Some(s) = self.refdata.sovereigns().get(c) {
                    match (currency_loose(row.currency), s.domestic_currency) {
                        (Some(ccy), Some(dom)) if ccy != dom => {
                            if let Some(t_sov) = self.t(Slot::SovT1) {
                                if let Some(floor) = pct(t_sov.by_cqs(s.cqs)) {
                                    if floor > rw {
                                        rw = floor;
                                        flags |= Flags::SOVEREIGN_FLOOR;
                                        return self.decide(
                                            cur,
                                            Outcome::two(rw, table, t_sov, reason),
                                            subject,
                                            flags,
                                        );
                                    }
                                }
                            }
                        }
                        (None, _) => flags |= Flags::CURRENCY_MISSING,
                        _ => {}
                    }
                }
            }
            return self.decide(cur, Outcome::one(rw, table, reason), subject, flags);
        }

        // CRR2 Art. 121(3): unrated, original maturity of three months or less.
        if let Some(ts) = self.t(Slot::InstUnratedShort) {
            if self.term(cur, row, ts.maturity(), &mut flags) == Term::Short {
                if let Some(rw) = pct(ts.single()) {
                    return self.decide(
                        cur,
                        Outcome::one(rw, ts, Reason::ShortTerm { cqs: None }),
                        subject,
                        flags,
                    );
                }
            }
        }
        // CRR2 Art. 121(1): the sovereign's CQS.
        let Some(t_unrated) = self.t(Slot::InstUnrated) else {
            return self.keep(cur, MatchStatus::NotMatched, unassessed, flags);
        };
        let sov_cqs = country.and_then(|c| self.sovereign_cqs(c, None));
        match pct(t_unrated.by_cqs(sov_cqs)) {
            Some(rw) => {
                let reason = Reason::SovereignRating {
                    country,
                    cqs: sov_cqs,
                };
                self.decide(cur, Outcome::one(rw, t_unrated, reason), subject, flags)
            }
            None => self.no_rule(cur, "an unrated institution", flags),
        }
    }

    fn crr_corporate<'a>(&'a self, cur: Current<'_>, row: &ExposureRow<'a>) -> Decision<'a> {
        let (Some(t_rated), Some(t_unrated)) = (self.t(Slot::CorpRated), self.t(Slot::CorpUnrated))
        else {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::NoAnalysisFunction(Lever::Corporates),
                Flags::NONE,
            );
        };
        let ac = row.asset_class.trim();
        cur.step(|| {
            TraceStep::new(
                "",
                "a corporate exposure?",
                &[("Asset_Class", ac.to_string())],
                if ac.is_empty() {
                    "yes (no asset class given)"
                } else {
                    yes_no(looks_corporate(ac))
                },
            )
        });
        if !ac.is_empty() && !looks_corporate(ac) {
            return self.keep(
                cur,
                MatchStatus::NotMatched,
                Details::NotCorporate { asset_class: ac },
                Flags::NONE,
            );
        }
        let mut flags = Flags::NONE;
        let mut floor_note = None;
        let subject = Subject::Corporate {
            name: row.legal_name.trim(),
        };
        let cqs = match Self::row_cqs(row) {
            Ok(c) => c,
            Err(d) => {
                return self.keep(cur, MatchStatus::NotMatched, d, flags);
            }
        };
        cur.step(|| {
            TraceStep::new(
                t_rated.reference(),
                "own rating?",
                &[("file CQS", cqs.map_or("none".into(), |c| c.to_string()))],
                &cqs.map_or("none: unrated".into(), |c| format!("CQS {c}")),
            )
        });
        // The obligor's own weight.
        let base = match cqs {
            Some(c) => match pct(t_rated.by_cqs(Some(c))) {
                Some(rw) => Outcome::one(rw, t_rated, Reason::CorporateRated(c)),
                None => return self.no_rule(cur, "a rated corporate", flags),
            },
            None => {
                let Some(rw) = pct(t_unrated.single()) else {
                    return self.no_rule(cur, "an unrated corporate", flags);
                };
                let mut out = Outcome::one(rw, t_unrated, Reason::CorporateUnrated);
                // Art. 122(2): or the weight of its central government if higher. Without a
                // country the client's is used; a country missing from the reference data is
                // taken as unrated (Art. 114(1): 100 %) and flagged for review.
                let given = row.country.trim();
                let country = if given.is_empty() {
                    if let Some(c) = self.client_country {
                        floor_note = Some(FloorNote::CountryAssumed(c));
                    }
                    self.client_country
                } else {
                    country_loose(given)
                };
                let sov = country.and_then(|c| self.refdata.sovereigns().get(c));
                if sov.is_none() && !given.is_empty() {
                    flags |= Flags::NOT_IN_REFERENCE | Flags::NEEDS_REVIEW;
                    floor_note = Some(FloorNote::CountryUnknown(given));
                }
                cur.step(|| {
                    let sov_rw =
                        sov.and_then(|s| self.t(Slot::SovT1).and_then(|t| pct(t.by_cqs(s.cqs))));
                    TraceStep::new(
                        t_unrated.reference(),
                        "central government's weight higher than the unrated weight?",
                        &[
                            (
                                "country",
                                country.map_or("none".into(), |c| c.as_str().to_string()),
                            ),
                            (
                                "sovereign CQS",
                                sov.and_then(|s| s.cqs)
                                    .map_or("none".into(), |c| c.to_string()),
                            ),
                            ("sovereign weight", sov_rw.map_or("none".into(), pct_text)),
                            ("unrated weight", pct_text(rw)),
                        ],
                        yes_no(sov_rw.is_some_and(|v| v > rw)),
                    )
                });
                if let (Some(s), Some(t_sov)) = (sov, self.t(Slot::SovT1)) {
                    if let Some(sov_rw) = pct(t_sov.by_cqs(s.cqs)) {
                        if sov_rw > rw {
                            flags |= Flags::SOVEREIGN_FLOOR;
                            out = Outcome::two(sov_rw, t_unrated, t_sov, Reason::CorporateUnrated);
                        }
                    }
                }
                out
            }
        };

        // Financial collateral, simple method (Art. 222).
        let value = finite(row.collateral_value).filter(|v| *v > 0.0);
        let crw = finite(row.collateral_rw_pct).filter(|v| *v >= 0.0);
        let amount = finite(row.exposure_amount).filter(|v| *v > 0.0);
        let mut not_recognised = false;
        cur.step(|| {
            TraceStep::new(
                self.t(Slot::FcsmFloor).map_or("", |t| t.reference()),
                "eligible financial collateral with a value and a weight?",
                &[
                    (
                        "Eligible_Collateral",
                        row.eligible_collateral
                            .map_or("not given".into(), |b| yes_no(b).to_string()),
                    ),
                    (
                        "Collateral_Value",
                        value.map_or("none".into(), |v| v.to_string()),
                    ),
                    (
                        "Collateral_Risk_Weight",
                        crw.map_or("none".into(), pct_text),
                    ),
                    ("Collateral_Type", row.collateral_type.trim().to_string()),
                ],
                yes_no(
                    row.eligible_collateral != Some(false)
                        && value.is_some()
                        && crw.is_some()
                        && amount.is_some(),
                ),
            )
        });
        if row.eligible_collateral != Some(false) {
            if let (Some(value), Some(crw), Some(amount)) = (value, crw, amount) {
                let exp_ccy = currency_loose(row.currency);
                let col_ccy = currency_loose(row.collateral_currency);
                let same_ccy = matches!((exp_ccy, col_ccy), (Some(a), Some(b)) if a == b);
                if exp_ccy.is_none() || col_ccy.is_none() {
                    flags |= Flags::CURRENCY_MISSING;
                }
                let kind = {
                    let mut buf = [0u8; crate::refdata::ids::NAME_BUF];
                    let f = crate::refdata::ids::fold_name_into(row.collateral_type, &mut buf)
                        .unwrap_or("");
                    if f.contains("cash") || f.contains("deposit") || f.contains("efectivo") {
                        1
                    } else if f.contains("sovereign")
                        || f.contains("government")
                        || f.contains("govt")
                        || f.contains("treasury")
                        || f.contains("deuda publica")
                        || f.contains("bono del estado")
                    {
                        2
                    } else {
                        0
                    }
                };
                let cash_zero = self
                    .t(Slot::FcsmCashSameCcy)
                    .filter(|_| same_ccy && crw == 0.0 && kind != 0);
                // Art. 222(3): the collateral's weight, floored at 20 %, on its whole value.
                let floored = match self.t(Slot::FcsmFloor) {
                    Some(t) => (
                        crw.max(pct(t.single()).unwrap_or(20.0)),
                        value.min(amount),
                        Some(t),
                    ),
                    None => (crw, value.min(amount), None),
                };
                let blended = |(c_rw, covered, _): (f64, f64, _)| {
                    (covered * c_rw + (amount - covered) * base.rw) / amount
                };
                let (c_rw, covered, c_table) = match cash_zero {
                    // Art. 222(6)(a): cash on deposit in the same currency, 0 % on its value.
                    Some(t) if kind == 1 => {
                        (pct(t.single()).unwrap_or(0.0), value.min(amount), Some(t))
                    }
                    // Art. 222(6)(b): 0 %-weighted sovereign debt, 0 % on its value less 20 %;
                    // the 20 % floor of 222(3) on the whole value is also allowed, and can be
                    // the lower of the two when the obligor's own weight is high.
                    Some(t) => {
                        let zero = (
                            pct(t.single()).unwrap_or(0.0),
                            (value * 0.8).min(amount),
                            Some(t),
                        );
                        if floored.2.is_some() && blended(floored) < blended(zero) {
                            floored
                        } else {
                            zero
                        }
                    }
                    None => floored,
                };
                if let Some(c_table) = c_table {
                    if c_rw < base.rw {
                        let rw = (covered * c_rw + (amount - covered) * base.rw) / amount;
                        let reason = Reason::Collateral {
                            base_rw: base.rw,
                            collateral_rw: c_rw,
                            covered_share: covered / amount,
                        };
                        let out = Outcome {
                            rw,
                            tables: [base.tables[0], base.tables[1], Some(c_table)],
                            reason,
                        };
                        let mut d = self.decide(cur, out, subject, flags);
                        if let Details::Matched(ref mut e) = d.details {
                            e.floor_note = floor_note;
                        }
                        return d;
                    }
                }
            } else if row.eligible_collateral == Some(true) {
                flags |= Flags::NEEDS_REVIEW;
                not_recognised = true;
            }
        }
        let mut d = self.decide(cur, base, subject, flags);
        if let Details::Matched(ref mut e) = d.details {
            e.collateral_not_recognised = not_recognised;
            e.floor_note = floor_note;
        }
        d
    }

    fn crr_sovereign<'a>(&'a self, cur: Current<'_>, row: &ExposureRow<'a>) -> Decision<'a> {
        let Some(t_sov) = self.t(Slot::SovT1) else {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::NoAnalysisFunction(Lever::Sovereigns),
                Flags::NONE,
            );
        };
        let mut flags = Flags::NONE;
        // Art. 114(3): the ECB, by LEI or name; in the built-in list too when the loaded MDB
        // list does not hold it (the ECB is an institution of the Union, not client data).
        let find_ecb = |list: &'a crate::refdata::MdbList| {
            let by_lei = Lei::parse(row.lei).ok().and_then(|l| list.by_lei(&l));
            let by_name = || match list.by_name(row.legal_name) {
                NameMatch::Found(e) => Some(e),
                _ => None,
            };
            by_lei
                .or_else(by_name)
                .filter(|e| e.kind == MdbKind::Ecb114_3)
        };
        let ecb = find_ecb(self.refdata.mdb()).or_else(|| {
            let builtin = crate::refdata::RefData::builtin_mdb();
            if std::ptr::eq(builtin, self.refdata.mdb()) {
                None
            } else {
                find_ecb(builtin)
            }
        });
        if let Some(e) = ecb {
            if let Some((rw, t)) = self
                .t(Slot::SovEcb)
                .and_then(|t| pct(t.single()).map(|rw| (rw, t)))
            {
                return self.decide(
                    cur,
                    Outcome::one(rw, t, Reason::Listed(MdbKind::Ecb114_3)),
                    Subject::Mdb(e),
                    flags,
                );
            }
        }
        cur.step(|| {
            TraceStep::new(
                self.t(Slot::SovEcb).map_or("", |t| t.reference()),
                "the European Central Bank?",
                &[
                    ("LEI", row.lei.trim().to_string()),
                    ("name", row.legal_name.trim().to_string()),
                ],
                yes_no(ecb.is_some()),
            )
        });
        let raw = row.country.trim();
        if raw.is_empty() {
            return self.keep(
                cur,
                MatchStatus::NotMatched,
                Details::MissingFields("Country"),
                flags,
            );
        }
        let Some(country) = country_loose(raw) else {
            return self.keep(
                cur,
                MatchStatus::NotMatched,
                Details::CountryNotFound { country: raw },
                flags,
            );
        };
        let subject = Subject::Sovereign(country);
        if let Some(s) = self.refdata.sovereigns().get(country) {
            // The list's CQS; the file's only where the list has none (both flagged).
            let cqs = match Self::entity_cqs(cur, s.cqs, row, &mut flags) {
                Ok(c) => c,
                Err(d) => return self.keep(cur, MatchStatus::NotMatched, d, flags),
            };
            return match self.sovereign_treatment(cur, country, cqs, row, &mut flags) {
                Some((rw, t, true, _)) => self.decide(
                    cur,
                    Outcome::one(rw, t, Reason::SovereignDomestic { country }),
                    subject,
                    flags,
                ),
                Some((rw, t, false, Some(c))) => self.decide(
                    cur,
                    Outcome::one(rw, t, Reason::EntityRating(c)),
                    subject,
                    flags,
                ),
                Some((rw, t, false, None)) => {
                    self.decide(cur, Outcome::one(rw, t, Reason::Unrated), subject, flags)
                }
                None => self.no_rule(cur, "this sovereign", flags),
            };
        }
        // Not in the sovereign list: the file's CQS, if any.
        match Self::row_cqs(row) {
            Ok(Some(c)) => {
                flags |= Flags::CQS_FROM_FILE | Flags::NOT_IN_REFERENCE;
                match pct(t_sov.by_cqs(Some(c))) {
                    Some(rw) => self.decide(
                        cur,
                        Outcome::one(rw, t_sov, Reason::EntityRating(c)),
                        subject,
                        flags,
                    ),
                    None => self.no_rule(cur, "this sovereign", flags),
                }
            }
            Ok(None) => self.keep(
                cur,
                MatchStatus::NotMatched,
                Details::CountryNotFound { country: raw },
                flags,
            ),
            Err(d) => self.keep(cur, MatchStatus::NotMatched, d, flags),
        }
    }

    // ----- the specification's rule sets (SPEC-LEGACY, SPEC-LEGACY-ADMIN) ------------------

    /// The own-government weight: Table 1 by the sovereign's CQS.
    fn spec_own_gov<'a>(
        &'a self,
        rule: &'a RuleTable,
        country: Country,
        stated: Option<u8>,
    ) -> Option<Outcome<'a>> {
        let t_sov = self.t(Slot::SovT1)?;
        let cqs = self.sovereign_cqs(country, stated);
        let rw = pct(t_sov.by_cqs(cqs))?;
        Some(Outcome::two(
            rw,
            rule,
            t_sov,
            Reason::SpecOwnGovernment { country, cqs },
        ))
    }

    fn spec_pse<'a>(&'a self, cur: Current<'_>, row: &ExposureRow<'a>) -> Decision<'a> {
        let Some(t_long) = self.t(Slot::PseSpec) else {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::NoAnalysisFunction(Lever::Pse),
                Flags::NONE,
            );
        };
        let mut flags = Flags::NONE;
        let term = self.term(cur, row, MaturityBucket::Le3mMaturity, &mut flags);
        let missing_nif = row.nif.trim().is_empty();
        match (missing_nif, term == Term::Unknown) {
            (true, true) => {
                return self.keep(
                    cur,
                    MatchStatus::NotMatched,
                    Details::MissingFields("NIF, Maturity"),
                    flags,
                );
            }
            (false, true) => {
                return self.keep(
                    cur,
                    MatchStatus::NotMatched,
                    Details::MissingFields("Maturity"),
                    flags,
                );
            }
            _ => {}
        }
        let e = match self.find_public(cur, row, Lever::Pse) {
            Ok(e) => e,
            Err(d) => return d,
        };
        let subject = Subject::Pse(e);
        if self.client_country == Some(e.country) {
            if let Some(out) = self
                .t(Slot::PseSpecOwnGov)
                .and_then(|t| self.spec_own_gov(t, e.country, e.own_gov_cqs))
            {
                return self.decide(cur, out, subject, flags);
            }
        }
        let cqs = self.sovereign_cqs(e.country, e.own_gov_cqs);
        if term == Term::Short {
            if let Some(ts) = self.t(Slot::PseSpecShort) {
                if let Some(rw) = pct(ts.by_cqs(cqs)) {
                    return self.decide(
                        cur,
                        Outcome::one(rw, ts, Reason::SpecTable { cqs, short: true }),
                        subject,
                        flags,
                    );
                }
            }
        }
        match pct(t_long.by_cqs(cqs)) {
            Some(rw) => self.decide(
                cur,
                Outcome::one(rw, t_long, Reason::SpecTable { cqs, short: false }),
                subject,
                flags,
            ),
            None => self.no_rule(cur, "this PSE", flags),
        }
    }

    fn spec_rgla<'a>(&'a self, cur: Current<'_>, row: &ExposureRow<'a>) -> Decision<'a> {
        let Some(t_gov) = self.t(Slot::RglaSpecOwnGov) else {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::NoAnalysisFunction(Lever::Rgla),
                Flags::NONE,
            );
        };
        let e = match self.find_public(cur, row, Lever::Rgla) {
            Ok(e) => e,
            Err(d) => return d,
        };
        let subject = Subject::Rgla(e);
        if self.client_country == Some(e.country) {
            if let Some(out) = self.spec_own_gov(t_gov, e.country, e.own_gov_cqs) {
                return self.decide(cur, out, subject, Flags::NONE);
            }
        }
        if let (Some(c), Some(t)) = (e.entity_cqs, self.t(Slot::RglaSpecRated)) {
            if let Some(rw) = pct(t.by_cqs(Some(c))) {
                return self.decide(
                    cur,
                    Outcome::one(rw, t, Reason::EntityRating(c)),
                    subject,
                    Flags::NONE,
                );
            }
        }
        if self.sovereign_cqs(e.country, e.own_gov_cqs).is_some() {
            if let Some(out) = self.spec_own_gov(t_gov, e.country, e.own_gov_cqs) {
                let out = Outcome {
                    reason: Reason::SovereignRating {
                        country: Some(e.country),
                        cqs: self.sovereign_cqs(e.country, e.own_gov_cqs),
                    },
                    ..out
                };
                return self.decide(cur, out, subject, Flags::NONE);
            }
        }
        match self
            .t(Slot::RglaSpecDefault)
            .and_then(|t| pct(t.single()).map(|rw| (rw, t)))
        {
            Some((rw, t)) => self.decide(
                cur,
                Outcome::one(rw, t, Reason::SpecDefault),
                subject,
                Flags::NONE,
            ),
            None => self.no_rule(cur, "this RGLA", Flags::NONE),
        }
    }

    fn spec_mdb<'a>(&'a self, cur: Current<'_>, row: &ExposureRow<'a>) -> Decision<'a> {
        let Some(t) = self.t(Slot::MdbSpec) else {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::NoAnalysisFunction(Lever::Mdb),
                Flags::NONE,
            );
        };
        let mut flags = Flags::NONE;
        let e = match self.find_mdb(cur, row, &mut flags) {
            Ok(e) => e,
            Err(d) => return d,
        };
        let cqs = match e.entity_cqs {
            Some(c) => Some(c),
            None => match Self::row_cqs(row) {
                Ok(Some(c)) => {
                    flags |= Flags::CQS_FROM_FILE;
                    Some(c)
                }
                Ok(None) => None,
                Err(d) => {
                    return self.keep(cur, MatchStatus::NotMatched, d, flags);
                }
            },
        };
        let reason = match cqs {
            Some(c) => Reason::EntityRating(c),
            None => Reason::Unrated,
        };
        match pct(t.by_cqs(cqs)) {
            Some(rw) => self.decide(cur, Outcome::one(rw, t, reason), Subject::Mdb(e), flags),
            None => self.no_rule(cur, "this MDB", flags),
        }
    }

    fn spec_corporate<'a>(&'a self, cur: Current<'_>, row: &ExposureRow<'a>) -> Decision<'a> {
        let Some(t) = self.t(Slot::CorpSpecCollateral) else {
            return self.keep(
                cur,
                MatchStatus::Error,
                Details::NoAnalysisFunction(Lever::Corporates),
                Flags::NONE,
            );
        };
        let applies = looks_corporate(row.asset_class)
            && row.eligible_collateral == Some(true)
            && (cur.value - 100.0).abs() < 1e-9;
        if !applies {
            return self.keep(
                cur,
                MatchStatus::NotMatched,
                Details::SpecGenericNotApplicable,
                Flags::NONE,
            );
        }
        match pct(t.single()) {
            Some(rw) => {
                let subject = Subject::Corporate {
                    name: row.legal_name.trim(),
                };
                self.decide(
                    cur,
                    Outcome::one(rw, t, Reason::SpecGenericCollateral),
                    subject,
                    Flags::NONE,
                )
            }
            None => self.no_rule(cur, "the generic corporate rule", Flags::NONE),
        }
    }
}
