//! Risk-weight rule sets as versioned data.
//!
//! A [`RuleSet`] is built from rows in the `rule_tables.csv` layout:
//! `ruleset_id, valid_from, valid_to, exposure_class, table_id, basis, key, maturity_bucket,
//! risk_weight_pct, crr_article, notes`. Rows with the same `table_id` form one [`RuleTable`]
//! (a CQS table, a flat weight, a flag rule or an SCRA grade table), which carries its article.
//! The tables are data; the *order* in which a lever consults them (the decision procedure,
//! following the article) lives in [`procedure`].
//!
//! Shipped rule sets (`data/rule_tables.csv` and `data/rule_tables_spec_legacy.csv`):
//!
//! | id | what | default for |
//! |---|---|---|
//! | `EU-CRR2` | CRR as amended by CRR2, 2021-06-28 to 2024-12-31 | reporting dates before 2025-01-01 |
//! | `EU-CRR3` | CRR as amended by CRR3, from 2025-01-01 | reporting dates from 2025-01-01 |
//! | `SPEC-LEGACY` | the specification's first PSE reading, its MDB table, its RGLA rule and the generic corporate 100 to 75 % rule | never (selectable) |
//! | `SPEC-LEGACY-ADMIN` | the specification's second ("admin") PSE reading and its all-zero MDB table, otherwise as `SPEC-LEGACY` | never (selectable) |
//!
//! Rule sets are chosen by reporting date ([`RuleSet::for_reporting_date`]), never by "latest".

pub mod procedure;

use std::fmt;
use std::sync::{Arc, OnceLock};

use chrono::NaiveDate;
use rustc_hash::FxHashMap;

use crate::error::{Error, Result};

const CRR_CSV: &str = include_str!("../../data/rule_tables.csv");
const LEGACY_CSV: &str = include_str!("../../data/rule_tables_spec_legacy.csv");

/// What a table is keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The counterparty's own credit quality step (1..6, or `unrated`).
    EntityCqs,
    /// The CQS of the counterparty's central government (1..6, or `sovereign_unrated`).
    SovereignCqs,
    /// One weight, whatever the inputs.
    Flat,
    /// A condition (flag) that, when met, gives the weight.
    Flag,
    /// The SCRA grade of an unrated institution (`A_plus`, `A`, `B`, `C`).
    ScraGrade,
}

impl Basis {
    fn parse(s: &str) -> Option<Basis> {
        Some(match s {
            "entity_cqs" => Basis::EntityCqs,
            "sovereign_cqs" => Basis::SovereignCqs,
            "flat" => Basis::Flat,
            "flag" => Basis::Flag,
            "scra_grade" => Basis::ScraGrade,
            _ => return None,
        })
    }
}

/// Which maturity condition a table carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaturityBucket {
    /// No maturity condition.
    Any,
    /// Original maturity of three months or less.
    Le3mOriginal,
    /// Residual maturity of three months or less.
    Le3mResidual,
    /// Original maturity of three months or less, or six months for trade in goods (CRR3 Art. 120(2)).
    Le3mOriginalOr6mTradeGoods,
    /// The exposure has a short-term credit assessment (Art. 131).
    ShortTermRating,
    /// The file's Maturity (as given) is three months or less (specification rule sets).
    Le3mMaturity,
    /// The file's Maturity (as given) is over three months (specification rule sets).
    Gt3mMaturity,
}

impl MaturityBucket {
    fn parse(s: &str) -> Option<MaturityBucket> {
        Some(match s {
            "any" | "" => MaturityBucket::Any,
            "le_3m_original" => MaturityBucket::Le3mOriginal,
            "le_3m_residual" => MaturityBucket::Le3mResidual,
            "le_3m_original_or_le_6m_trade_goods" => MaturityBucket::Le3mOriginalOr6mTradeGoods,
            "short_term_rating" => MaturityBucket::ShortTermRating,
            "le_3m_maturity" => MaturityBucket::Le3mMaturity,
            "gt_3m_maturity" => MaturityBucket::Gt3mMaturity,
            _ => return None,
        })
    }
}

/// A weight cell of a table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Weight {
    /// A risk weight in percent.
    Pct(f64),
    /// "Apply the sovereign rules of the entity's own jurisdiction" (`SOV`).
    Sovereign,
    /// "Apply the central-government or regional-government rules" (`SOV_OR_RGLA`).
    SovereignOrRgla,
    /// "Use the guarantor's weight" (`GUARANTOR_RW`).
    Guarantor,
}

impl Weight {
    fn parse(s: &str) -> Option<Weight> {
        match s {
            "SOV" => Some(Weight::Sovereign),
            "SOV_OR_RGLA" => Some(Weight::SovereignOrRgla),
            "GUARANTOR_RW" => Some(Weight::Guarantor),
            _ => {
                let v: f64 = s.parse().ok()?;
                (v.is_finite() && (0.0..=1250.0).contains(&v)).then_some(Weight::Pct(v))
            }
        }
    }

    /// The percentage, when this cell is a number.
    pub fn pct(self) -> Option<f64> {
        match self {
            Weight::Pct(v) => Some(v),
            _ => None,
        }
    }
}

/// One table of a rule set (all rows sharing a `table_id`).
#[derive(Debug, Clone)]
pub struct RuleTable {
    /// Position in its rule set's tables.
    index: u16,
    id: String,
    exposure_class: String,
    basis: Basis,
    maturity: MaturityBucket,
    article: String,
    reference: String,
    notes: String,
    valid_from: Option<NaiveDate>,
    valid_to: Option<NaiveDate>,
    /// Index 0: unrated (`unrated` / `sovereign_unrated`); 1..=6: CQS.
    by_cqs: [Option<Weight>; 7],
    by_key: Vec<(String, Weight)>,
}

impl RuleTable {
    /// The table's position in its rule set ([`RuleSet::tables`]).
    pub fn index(&self) -> u16 {
        self.index
    }

    /// The table id (`PSE_UNRATED`, `SOV_T1`, ...): the Applied_Rule.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The exposure class column (`pse`, `rgla`, ...).
    pub fn exposure_class(&self) -> &str {
        &self.exposure_class
    }

    /// What the table is keyed by.
    pub fn basis(&self) -> Basis {
        self.basis
    }

    /// The maturity condition.
    pub fn maturity(&self) -> MaturityBucket {
        self.maturity
    }

    /// The article as written in the rule table (`Art 116(1) Table 2`).
    pub fn article(&self) -> &str {
        &self.article
    }

    /// The Regulatory_Reference text (`CRR Art. 116(1) Table 2`).
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// The notes column.
    pub fn notes(&self) -> &str {
        &self.notes
    }

    /// First day the table applies (when the rows say so).
    pub fn valid_from(&self) -> Option<NaiveDate> {
        self.valid_from
    }

    /// Last day the table applies (`None`: open-ended).
    pub fn valid_to(&self) -> Option<NaiveDate> {
        self.valid_to
    }

    /// The weight for a credit quality step; `None` is the unrated column.
    #[inline]
    pub fn by_cqs(&self, cqs: Option<u8>) -> Option<Weight> {
        match cqs {
            Some(c @ 1..=6) => self.by_cqs[c as usize],
            Some(_) => None,
            None => self.by_cqs[0],
        }
    }

    /// The weight of a named key (flag name, SCRA grade, `any`).
    pub fn by_key(&self, key: &str) -> Option<Weight> {
        self.by_key.iter().find(|(k, _)| k == key).map(|(_, w)| *w)
    }

    /// The single weight of a flat or flag table (its first row).
    #[inline]
    pub fn single(&self) -> Option<Weight> {
        self.by_key
            .first()
            .map(|(_, w)| *w)
            .or_else(|| self.by_cqs.iter().flatten().next().copied())
    }
}

/// Which decision procedures a rule set uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// The regulation (EU-CRR2, EU-CRR3).
    Regulation,
    /// The specification's own readings (SPEC-LEGACY, SPEC-LEGACY-ADMIN).
    SpecLegacy,
}

/// Tables the procedures consult, resolved to indexes once when the rule set is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
#[repr(u8)]
pub enum Slot {
    SovT1,
    SovDomestic,
    SovEcb,
    RglaRated,
    RglaUnrated,
    RglaAsCg,
    RglaMsDomestic,
    PseUnrated,
    PseRated,
    PseShort,
    PseAsCg,
    MdbListed,
    MdbOtherRated,
    MdbOtherUnrated,
    IoListed,
    InstRated,
    InstRatedShort,
    InstUnrated,
    InstUnratedShort,
    InstScra,
    InstScraShort,
    CorpRated,
    CorpUnrated,
    FcsmFloor,
    FcsmCashSameCcy,
    PseSpec,
    PseSpecShort,
    PseSpecOwnGov,
    MdbSpec,
    RglaSpecOwnGov,
    RglaSpecRated,
    RglaSpecDefault,
    CorpSpecCollateral,
}

const SLOT_IDS: [(Slot, &str); 33] = [
    (Slot::SovT1, "SOV_T1"),
    (Slot::SovDomestic, "SOV_DOMESTIC"),
    (Slot::SovEcb, "SOV_ECB"),
    (Slot::RglaRated, "RGLA_RATED"),
    (Slot::RglaUnrated, "RGLA_UNRATED"),
    (Slot::RglaAsCg, "RGLA_AS_CG"),
    (Slot::RglaMsDomestic, "RGLA_MS_DOMESTIC"),
    (Slot::PseUnrated, "PSE_UNRATED"),
    (Slot::PseRated, "PSE_RATED"),
    (Slot::PseShort, "PSE_SHORT"),
    (Slot::PseAsCg, "PSE_AS_CG"),
    (Slot::MdbListed, "MDB_LISTED"),
    (Slot::MdbOtherRated, "MDB_OTHER_RATED"),
    (Slot::MdbOtherUnrated, "MDB_OTHER_UNRATED"),
    (Slot::IoListed, "IO_LISTED"),
    (Slot::InstRated, "INST_RATED"),
    (Slot::InstRatedShort, "INST_RATED_SHORT"),
    (Slot::InstUnrated, "INST_UNRATED"),
    (Slot::InstUnratedShort, "INST_UNRATED_SHORT"),
    (Slot::InstScra, "INST_SCRA"),
    (Slot::InstScraShort, "INST_SCRA_SHORT"),
    (Slot::CorpRated, "CORP_RATED"),
    (Slot::CorpUnrated, "CORP_UNRATED"),
    (Slot::FcsmFloor, "FCSM_FLOOR"),
    (Slot::FcsmCashSameCcy, "FCSM_CASH_SAME_CCY"),
    (Slot::PseSpec, "PSE_SPEC"),
    (Slot::PseSpecShort, "PSE_SPEC_SHORT"),
    (Slot::PseSpecOwnGov, "PSE_SPEC_OWN_GOV"),
    (Slot::MdbSpec, "MDB_SPEC"),
    (Slot::RglaSpecOwnGov, "RGLA_SPEC_OWN_GOV"),
    (Slot::RglaSpecRated, "RGLA_SPEC_RATED"),
    (Slot::RglaSpecDefault, "RGLA_SPEC_DEFAULT"),
    (Slot::CorpSpecCollateral, "CORP_SPEC_COLLATERAL"),
];

/// A versioned rule set: its tables plus the pre-resolved slots the procedures use.
#[derive(Debug, Clone)]
pub struct RuleSet {
    id: String,
    family: Family,
    valid_from: Option<NaiveDate>,
    valid_to: Option<NaiveDate>,
    tables: Vec<RuleTable>,
    slots: [Option<u16>; SLOT_IDS.len()],
}

impl RuleSet {
    /// A shipped rule set by id (case-insensitive): `EU-CRR2`, `EU-CRR3`, `SPEC-LEGACY`,
    /// `SPEC-LEGACY-ADMIN`.
    pub fn by_id(id: &str) -> Result<Arc<RuleSet>> {
        let wanted = id.trim();
        shipped()
            .iter()
            .find(|r| r.id.eq_ignore_ascii_case(wanted))
            .cloned()
            .ok_or_else(|| Error::UnknownRuleSet(wanted.to_string()))
    }

    /// The regulatory rule set in force on the reporting date: `EU-CRR3` from 2025-01-01,
    /// `EU-CRR2` before (also for dates before CRR2 applied, the earliest set shipped).
    pub fn for_reporting_date(d: NaiveDate) -> Arc<RuleSet> {
        let regs: Vec<&Arc<RuleSet>> = shipped()
            .iter()
            .filter(|r| r.family == Family::Regulation)
            .collect();
        let in_force = regs
            .iter()
            .find(|r| r.valid_from.is_none_or(|f| f <= d) && r.valid_to.is_none_or(|t| d <= t));
        match in_force {
            Some(r) => Arc::clone(r),
            None => {
                // Before the earliest set: take the earliest; after all (impossible with an
                // open-ended set): take the latest.
                let earliest = regs.iter().min_by_key(|r| r.valid_from).copied();
                let chosen = if earliest.and_then(|r| r.valid_from).is_some_and(|f| d < f) {
                    earliest
                } else {
                    regs.iter().max_by_key(|r| r.valid_from).copied()
                };
                Arc::clone(chosen.unwrap_or_else(|| &shipped()[0]))
            }
        }
    }

    /// The ids of all shipped rule sets.
    pub fn available() -> Vec<&'static str> {
        vec!["EU-CRR2", "EU-CRR3", "SPEC-LEGACY", "SPEC-LEGACY-ADMIN"]
    }

    /// Parses rule tables in the `rule_tables.csv` layout; one [`RuleSet`] per `ruleset_id`, in
    /// order of first appearance. Ids starting with `SPEC-` use the specification's procedures.
    pub fn parse_csv(text: &str, source: &str) -> Result<Vec<RuleSet>> {
        parse_rule_csv(text, source)
    }

    /// The rule set id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Which procedures apply.
    pub fn family(&self) -> Family {
        self.family
    }

    /// First day of application.
    pub fn valid_from(&self) -> Option<NaiveDate> {
        self.valid_from
    }

    /// Last day of application (`None`: open-ended).
    pub fn valid_to(&self) -> Option<NaiveDate> {
        self.valid_to
    }

    /// All tables.
    pub fn tables(&self) -> &[RuleTable] {
        &self.tables
    }

    /// A table by id.
    pub fn table(&self, id: &str) -> Option<&RuleTable> {
        self.tables.iter().find(|t| t.id == id)
    }

    /// A pre-resolved table.
    #[inline]
    pub fn slot(&self, s: Slot) -> Option<&RuleTable> {
        self.slots[s as usize].map(|i| &self.tables[i as usize])
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)
    }
}

fn shipped() -> &'static [Arc<RuleSet>] {
    static SETS: OnceLock<Vec<Arc<RuleSet>>> = OnceLock::new();
    SETS.get_or_init(|| {
        let mut v = Vec::new();
        for (text, name) in [
            (CRR_CSV, "rule_tables.csv"),
            (LEGACY_CSV, "rule_tables_spec_legacy.csv"),
        ] {
            // The shipped tables are checked by the crate's tests; a failure is a build defect.
            match parse_rule_csv(text, name) {
                Ok(sets) => v.extend(sets.into_iter().map(Arc::new)),
                Err(e) => panic!("shipped rule table {name} is invalid: {e}"),
            }
        }
        v
    })
}

fn reference_text(article: &str) -> String {
    let a = article.trim();
    if let Some(rest) = a.strip_prefix("Art ") {
        format!("CRR Art. {rest}")
    } else {
        a.to_string()
    }
}

fn parse_date(s: &str) -> Option<Option<NaiveDate>> {
    if s.trim().is_empty() {
        return Some(None);
    }
    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
        .ok()
        .map(Some)
}

fn parse_rule_csv(text: &str, source: &str) -> Result<Vec<RuleSet>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let err = |line: u64, message: String| Error::RuleTable {
        table: source.to_string(),
        line,
        message,
    };
    let mut rdr = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = rdr
        .headers()?
        .iter()
        .map(|h| h.to_ascii_lowercase())
        .collect();
    let col = |name: &str| -> Result<usize> {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| err(1, format!("missing column {name}")))
    };
    let (c_rs, c_from, c_to, c_class, c_table, c_basis, c_key, c_mat, c_rw, c_art) = (
        col("ruleset_id")?,
        col("valid_from")?,
        col("valid_to")?,
        col("exposure_class")?,
        col("table_id")?,
        col("basis")?,
        col("key")?,
        col("maturity_bucket")?,
        col("risk_weight_pct")?,
        col("crr_article")?,
    );
    let c_notes = headers.iter().position(|h| h == "notes");
    let mut sets: Vec<RuleSet> = Vec::new();
    let mut set_index: FxHashMap<String, usize> = FxHashMap::default();
    for rec in rdr.records() {
        let rec = rec?;
        let line = rec.position().map(|p| p.line()).unwrap_or(0);
        let get = |c: usize| rec.get(c).unwrap_or("");
        let rs_id = get(c_rs);
        if rs_id.is_empty() {
            return Err(err(line, "ruleset_id is empty".into()));
        }
        let from = parse_date(get(c_from)).ok_or_else(|| {
            err(
                line,
                format!("valid_from \"{}\" is not a date", get(c_from)),
            )
        })?;
        let to = parse_date(get(c_to))
            .ok_or_else(|| err(line, format!("valid_to \"{}\" is not a date", get(c_to))))?;
        let basis = Basis::parse(get(c_basis))
            .ok_or_else(|| err(line, format!("unknown basis \"{}\"", get(c_basis))))?;
        let maturity = MaturityBucket::parse(get(c_mat))
            .ok_or_else(|| err(line, format!("unknown maturity_bucket \"{}\"", get(c_mat))))?;
        let weight = Weight::parse(get(c_rw)).ok_or_else(|| {
            err(
                line,
                format!("risk_weight_pct \"{}\" is not a weight", get(c_rw)),
            )
        })?;
        let table_id = get(c_table);
        if table_id.is_empty() {
            return Err(err(line, "table_id is empty".into()));
        }
        let article = get(c_art);
        let key = get(c_key);

        let si = match set_index.get(rs_id) {
            Some(&i) => i,
            None => {
                let family = if rs_id.starts_with("SPEC-") {
                    Family::SpecLegacy
                } else {
                    Family::Regulation
                };
                sets.push(RuleSet {
                    id: rs_id.to_string(),
                    family,
                    valid_from: from,
                    valid_to: to,
                    tables: Vec::new(),
                    slots: [None; SLOT_IDS.len()],
                });
                set_index.insert(rs_id.to_string(), sets.len() - 1);
                sets.len() - 1
            }
        };
        let set = &mut sets[si];
        // The set applies from its earliest row to its latest (open-ended if any row is).
        set.valid_from = match (set.valid_from, from) {
            (Some(a), Some(b)) => Some(a.min(b)),
            _ => None,
        };
        let ti = match set.tables.iter().position(|t| t.id == table_id) {
            Some(i) => i,
            None => {
                let index = u16::try_from(set.tables.len()).map_err(|_| {
                    err(line, "more than 65,535 tables in one rule set".to_string())
                })?;
                set.tables.push(RuleTable {
                    index,
                    id: table_id.to_string(),
                    exposure_class: get(c_class).to_string(),
                    basis,
                    maturity,
                    article: article.to_string(),
                    reference: reference_text(article),
                    notes: c_notes
                        .map(|c| rec.get(c).unwrap_or("").to_string())
                        .unwrap_or_default(),
                    valid_from: from,
                    valid_to: to,
                    by_cqs: [None; 7],
                    by_key: Vec::new(),
                });
                set.tables.len() - 1
            }
        };
        let t = &mut set.tables[ti];
        if t.basis != basis || t.maturity != maturity || t.article != article {
            return Err(err(
                line,
                format!(
                    "table {table_id} mixes bases, maturity buckets or articles; split it into separate tables"
                ),
            ));
        }
        match basis {
            Basis::EntityCqs | Basis::SovereignCqs => {
                let idx = match key {
                    "unrated" | "sovereign_unrated" => 0usize,
                    k => match k.parse::<usize>() {
                        Ok(n @ 1..=6) => n,
                        _ => {
                            return Err(err(
                                line,
                                format!(
                                    "key \"{k}\" is not a CQS 1-6, unrated or sovereign_unrated"
                                ),
                            ));
                        }
                    },
                };
                if t.by_cqs[idx].is_some() {
                    return Err(err(
                        line,
                        format!("duplicate key {key} in table {table_id}"),
                    ));
                }
                t.by_cqs[idx] = Some(weight);
            }
            _ => {
                if t.by_key.iter().any(|(k, _)| k == key) {
                    return Err(err(
                        line,
                        format!("duplicate key {key} in table {table_id}"),
                    ));
                }
                t.by_key.push((key.to_string(), weight));
            }
        }
    }
    for set in &mut sets {
        // valid_to of the set: the latest valid_to of its main tables; open-ended if any is.
        let mut open = false;
        let mut latest: Option<NaiveDate> = None;
        for t in &set.tables {
            match t.valid_to {
                None => open = true,
                Some(d) => latest = Some(latest.map_or(d, |l: NaiveDate| l.max(d))),
            }
        }
        set.valid_to = if open { None } else { latest };
        for (slot, id) in SLOT_IDS {
            set.slots[slot as usize] = set.tables.iter().position(|t| t.id == id).map(|i| i as u16);
        }
    }
    Ok(sets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn shipped_sets_parse() {
        for id in RuleSet::available() {
            let rs = RuleSet::by_id(id).unwrap();
            assert_eq!(rs.id(), id);
        }
        assert!(RuleSet::by_id("eu-crr3").is_ok());
        assert!(matches!(
            RuleSet::by_id("EU-CRR9"),
            Err(Error::UnknownRuleSet(_))
        ));
    }

    #[test]
    fn chosen_by_reporting_date() {
        assert_eq!(RuleSet::for_reporting_date(d("2024-12-31")).id(), "EU-CRR2");
        assert_eq!(RuleSet::for_reporting_date(d("2025-01-01")).id(), "EU-CRR3");
        assert_eq!(RuleSet::for_reporting_date(d("2030-06-30")).id(), "EU-CRR3");
        assert_eq!(RuleSet::for_reporting_date(d("2019-01-01")).id(), "EU-CRR2");
    }

    #[test]
    fn tables_are_data() {
        let crr3 = RuleSet::by_id("EU-CRR3").unwrap();
        let crr2 = RuleSet::by_id("EU-CRR2").unwrap();
        let t = crr3.slot(Slot::PseUnrated).unwrap();
        assert_eq!(t.by_cqs(Some(5)), Some(Weight::Pct(100.0)));
        assert_eq!(t.by_cqs(None), Some(Weight::Pct(100.0)));
        assert_eq!(t.reference(), "CRR Art. 116(1) Table 2");
        assert_eq!(
            crr3.slot(Slot::InstRated).unwrap().by_cqs(Some(2)),
            Some(Weight::Pct(30.0))
        );
        assert_eq!(
            crr2.slot(Slot::InstRated).unwrap().by_cqs(Some(2)),
            Some(Weight::Pct(50.0))
        );
        assert_eq!(
            crr3.slot(Slot::CorpRated).unwrap().by_cqs(Some(3)),
            Some(Weight::Pct(75.0))
        );
        assert_eq!(
            crr2.slot(Slot::CorpRated).unwrap().by_cqs(Some(3)),
            Some(Weight::Pct(100.0))
        );
        assert_eq!(
            crr3.slot(Slot::InstScra).unwrap().by_key("A_plus"),
            Some(Weight::Pct(30.0))
        );
        assert!(crr2.slot(Slot::InstScra).is_none());
        assert_eq!(
            crr3.slot(Slot::PseAsCg).unwrap().single(),
            Some(Weight::SovereignOrRgla)
        );
        assert_eq!(
            crr3.slot(Slot::MdbOtherUnrated).unwrap().single(),
            Some(Weight::Pct(50.0))
        );
        assert_eq!(crr3.valid_from(), Some(d("2025-01-01")));
        assert_eq!(crr2.valid_to(), Some(d("2024-12-31")));
        let legacy = RuleSet::by_id("SPEC-LEGACY").unwrap();
        assert_eq!(legacy.family(), Family::SpecLegacy);
        assert_eq!(
            legacy.slot(Slot::PseSpec).unwrap().by_cqs(Some(5)),
            Some(Weight::Pct(150.0))
        );
        assert_eq!(
            legacy.slot(Slot::PseSpecShort).unwrap().by_cqs(Some(3)),
            None
        );
    }

    #[test]
    fn bad_tables_are_refused_with_line_numbers() {
        let head = "ruleset_id,valid_from,valid_to,exposure_class,table_id,basis,key,maturity_bucket,risk_weight_pct,crr_article,notes\n";
        let bad_rw = format!("{head}X,2025-01-01,,pse,T,entity_cqs,1,any,abc,Art 1,\n");
        let e = RuleSet::parse_csv(&bad_rw, "t.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("abc"), "{e}");
        let bad_key = format!("{head}X,2025-01-01,,pse,T,entity_cqs,7,any,20,Art 1,\n");
        assert!(RuleSet::parse_csv(&bad_key, "t.csv").is_err());
        let dup = format!(
            "{head}X,,,pse,T,entity_cqs,1,any,20,Art 1,\nX,,,pse,T,entity_cqs,1,any,30,Art 1,\n"
        );
        assert!(
            RuleSet::parse_csv(&dup, "t.csv")
                .unwrap_err()
                .to_string()
                .contains("duplicate")
        );
        let mixed = format!(
            "{head}X,,,pse,T,entity_cqs,1,any,20,Art 1,\nX,,,pse,T,entity_cqs,2,any,30,Art 2,\n"
        );
        assert!(RuleSet::parse_csv(&mixed, "t.csv").is_err());
    }
}
