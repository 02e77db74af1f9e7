//! Core value types shared by the ingest pipeline and the rules engine.
//!
//! The pipeline turns each input record into an [`ExposureRow`] (borrowed, no allocation) and asks
//! the engine for a [`Decision`](crate::engine::Decision). Risk weights are always carried in **percent** inside the engine
//! (20.0 means 20 %); the pipeline converts from and back to the file's own format.

use serde::{Deserialize, Serialize};

/// The optimisation lever a file is analysed under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Lever {
    /// Public sector entities (CRR Art. 116).
    Pse,
    /// Regional governments and local authorities (CRR Art. 115).
    Rgla,
    /// Multilateral development banks (Art. 117) and international organisations (Art. 118).
    Mdb,
    /// Institutions (Art. 120, 121).
    Institutions,
    /// Corporates (Art. 122) with collateral under the simple method (Art. 222).
    Corporates,
    /// Central governments and central banks (Art. 114).
    Sovereigns,
}

impl Lever {
    /// All levers, in a stable order.
    pub const ALL: [Lever; 6] = [
        Lever::Pse,
        Lever::Rgla,
        Lever::Mdb,
        Lever::Institutions,
        Lever::Corporates,
        Lever::Sovereigns,
    ];

    /// The lever's stable identifier (`pse`, `rgla`, ...), as used on the CLI and in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            Lever::Pse => "pse",
            Lever::Rgla => "rgla",
            Lever::Mdb => "mdb",
            Lever::Institutions => "institutions",
            Lever::Corporates => "corporates",
            Lever::Sovereigns => "sovereigns",
        }
    }

    /// Parses a lever identifier (case-insensitive; accepts a few common spellings).
    pub fn parse(s: &str) -> Option<Lever> {
        match s.trim().to_ascii_lowercase().as_str() {
            "pse" | "public_sector_entities" | "public sector entities" => Some(Lever::Pse),
            "rgla" | "regional_and_local_governments" => Some(Lever::Rgla),
            "mdb" | "mdbs" | "multilateral_development_banks" => Some(Lever::Mdb),
            "institutions" | "institution" | "inst" => Some(Lever::Institutions),
            "corporates" | "corporate" | "corp" => Some(Lever::Corporates),
            "sovereigns" | "sovereign" | "sov" => Some(Lever::Sovereigns),
            _ => None,
        }
    }
}

/// One exposure as the engine sees it. Text fields are borrowed from the parsed record and are
/// empty when the column is absent or the cell is blank; numbers are already parsed.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExposureRow<'a> {
    /// Exposure_ID.
    pub exposure_id: &'a str,
    /// Asset_Class as written in the file.
    pub asset_class: &'a str,
    /// Eligible_Collateral: `Some(true)` for yes/si/y/1/true, `Some(false)` for no/n/0/false.
    pub eligible_collateral: Option<bool>,
    /// Current_Risk_Weight in percent.
    pub current_rw_pct: Option<f64>,
    /// Exposure_Amount in the file's currency.
    pub exposure_amount: Option<f64>,
    /// NIF (Spanish tax id) as written; the engine normalises it.
    pub nif: &'a str,
    /// LEI as written; the engine normalises it.
    pub lei: &'a str,
    /// Legal_Name as written.
    pub legal_name: &'a str,
    /// Residual maturity in days, when the Maturity column could be read (a date relative to the
    /// reporting date, or a number of years/months/days).
    pub residual_maturity_days: Option<f64>,
    /// Original maturity in days, when known (Art. 121(3) short-term treatment).
    pub original_maturity_days: Option<f64>,
    /// ISO 4217 currency code of the exposure.
    pub currency: &'a str,
    /// ISO 3166 alpha-2 country of the counterparty's jurisdiction.
    pub country: &'a str,
    /// Credit quality step 1..=6 from the file (Credit_Quality_Step or a mapped Rating).
    pub cqs: Option<u8>,
    /// The Credit_Quality_Step cell as written when it holds something that is not a CQS 1 to 6
    /// (`7`, `0`, `2.5`, `abc`); empty otherwise. Rules that read the CQS then refuse the row
    /// ("Invalid Credit_Quality_Step") instead of treating it as unrated.
    pub invalid_cqs: &'a str,
    /// The Maturity cell as written when it could not be read (neither a date, nor a count, nor
    /// a count with a unit: `soon`, `-5`); empty otherwise. The decision is flagged "maturity
    /// unreadable" and a matched row's Match_Details say so.
    pub invalid_maturity: &'a str,
    /// Collateral_Value.
    pub collateral_value: Option<f64>,
    /// Collateral_Risk_Weight in percent: the weight of a direct exposure to the collateral
    /// instrument (Art. 222(1)).
    pub collateral_rw_pct: Option<f64>,
    /// The Maturity cell read as a calendar date, when it was one. The engine then tests the
    /// 3-month edge in calendar months from the reporting date (exact), and otherwise falls back
    /// to the day counts above.
    pub maturity_date: Option<chrono::NaiveDate>,
    /// SCRA_Grade of an unrated institution (CRR3 Art. 121): `A+`, `A`, `B` or `C`.
    pub scra_grade: &'a str,
    /// Collateral_Type (for example `cash`, `deposit`, `sovereign_bond`, `bond`, `equity`).
    pub collateral_type: &'a str,
    /// Collateral_Currency (ISO 4217); empty means "same as the exposure" is not known.
    pub collateral_currency: &'a str,
}

/// Outcome of matching a row against reference data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// The counterparty was found and a regulatory weight was determined.
    Matched,
    /// Missing data or no reference hit; the current weight is kept.
    NotMatched,
    /// An analysis problem or missing reference data; the current weight is kept.
    Error,
}

impl MatchStatus {
    /// The text written in the Match_Status column.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchStatus::Matched => "matched",
            MatchStatus::NotMatched => "not_matched",
            MatchStatus::Error => "error",
        }
    }
}
