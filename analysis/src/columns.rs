//! The standard columns of an exposure file and the detection of a file's own columns (type and
//! sample values from the first rows).

use serde::{Deserialize, Serialize};

use crate::ingest::number::is_strictly_numeric;
use crate::ingest::values::{parse_bool, parse_date};

/// Where a standard column sits in the mapping dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnCategory {
    /// Needed by every analysis.
    Core,
    /// Needed by some levers to match reference data.
    Analysis,
    /// Improves the analysis when present.
    Optional,
}

/// The data type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnType {
    /// Free text or codes.
    Text,
    /// Numbers (either notation, `%` allowed).
    Numeric,
    /// Dates.
    Date,
    /// Yes/no flags.
    Boolean,
}

/// A standard column the engine understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum StandardField {
    /// Exposure_ID.
    ExposureId,
    /// Asset_Class.
    AssetClass,
    /// Eligible_Collateral.
    EligibleCollateral,
    /// Current_Risk_Weight.
    CurrentRiskWeight,
    /// Exposure_Amount.
    ExposureAmount,
    /// NIF.
    Nif,
    /// LEI.
    Lei,
    /// Legal_Name.
    LegalName,
    /// Maturity.
    Maturity,
    /// Currency.
    Currency,
    /// Country.
    Country,
    /// Credit_Quality_Step.
    CreditQualityStep,
    /// Rating.
    Rating,
    /// Collateral_Value.
    CollateralValue,
    /// Collateral_Risk_Weight.
    CollateralRiskWeight,
    /// Collateral_Type.
    CollateralType,
    /// Collateral_Currency.
    CollateralCurrency,
    /// SCRA_Grade.
    ScraGrade,
    /// Origination_Date.
    OriginationDate,
}

/// Number of standard fields.
pub const FIELD_COUNT: usize = 19;

/// A standard column: name, description, category, type, whether every analysis needs it, and
/// the English and Spanish names files commonly use for it.
#[derive(Debug, Clone, Serialize)]
pub struct StandardColumn {
    /// The field.
    #[serde(skip)]
    pub field: StandardField,
    /// The column name, as written in processed files and mappings.
    pub name: &'static str,
    /// What the column holds.
    pub description: &'static str,
    /// Mapping-dialog category.
    pub category: ColumnCategory,
    /// Data type.
    pub data_type: ColumnType,
    /// Required by every analysis (levers add their own requirements).
    pub is_required: bool,
    /// Other names for the column (English and Spanish), used by auto-mapping.
    #[serde(skip)]
    pub synonyms: &'static [&'static str],
}

use ColumnCategory::{Analysis, Core, Optional};
use ColumnType::{Boolean, Date, Numeric, Text};

/// All standard columns, in display order.
pub static STANDARD_COLUMNS: [StandardColumn; FIELD_COUNT] = [
    StandardColumn {
        field: StandardField::ExposureId,
        name: "Exposure_ID",
        description: "Unique identifier of the exposure (loan, bond, facility or contract).",
        category: Core,
        data_type: Text,
        is_required: true,
        synonyms: &[
            "exposure id",
            "id",
            "exposure ref",
            "exposure reference",
            "loan id",
            "contract id",
            "deal id",
            "facility id",
            "transaction id",
            "id exposicion",
            "identificador",
            "referencia",
            "contrato",
            "numero contrato",
            "id operacion",
            "operacion",
            "numero operacion",
            "codigo operacion",
        ],
    },
    StandardColumn {
        field: StandardField::AssetClass,
        name: "Asset_Class",
        description: "Exposure class of the standardised approach (e.g. Corporate, Institution, Public Sector Entity).",
        category: Core,
        data_type: Text,
        is_required: true,
        synonyms: &[
            "asset class",
            "exposure class",
            "class",
            "segment",
            "portfolio",
            "asset type",
            "exposure type",
            "clase activo",
            "clase de activo",
            "tipo exposicion",
            "tipo de exposicion",
            "categoria exposicion",
            "categoria",
            "cartera",
            "segmento",
        ],
    },
    StandardColumn {
        field: StandardField::EligibleCollateral,
        name: "Eligible_Collateral",
        description: "Whether the exposure has eligible collateral (Yes/No).",
        category: Core,
        data_type: Boolean,
        is_required: true,
        synonyms: &[
            "eligible collateral",
            "collateral eligible",
            "collateralised",
            "collateralized",
            "secured",
            "has collateral",
            "garantia elegible",
            "colateral elegible",
            "con garantia",
            "garantizado",
            "garantia",
            "colateral",
        ],
    },
    StandardColumn {
        field: StandardField::CurrentRiskWeight,
        name: "Current_Risk_Weight",
        description: "Risk weight currently applied, as a percentage (20) or a decimal (0.2); range 0-999.",
        category: Core,
        data_type: Numeric,
        is_required: true,
        synonyms: &[
            "risk weight",
            "rw",
            "current rw",
            "current risk weight",
            "risk weighting",
            "rw pct",
            "rw %",
            "ponderacion",
            "ponderacion riesgo",
            "ponderacion de riesgo",
            "ponderacion actual",
            "peso riesgo",
            "rw actual",
            "porcentaje ponderacion",
        ],
    },
    StandardColumn {
        field: StandardField::ExposureAmount,
        name: "Exposure_Amount",
        description: "Exposure value under the standardised approach, in the exposure currency.",
        category: Core,
        data_type: Numeric,
        is_required: true,
        synonyms: &[
            "exposure amount",
            "amount",
            "exposure",
            "exposure value",
            "ead",
            "outstanding",
            "balance",
            "nominal",
            "principal",
            "notional",
            "importe",
            "importe exposicion",
            "exposicion",
            "saldo",
            "saldo vivo",
            "valor exposicion",
            "riesgo vivo",
        ],
    },
    StandardColumn {
        field: StandardField::Nif,
        name: "NIF",
        description: "Spanish tax identification number of the counterparty (NIF/CIF).",
        category: Analysis,
        data_type: Text,
        is_required: false,
        synonyms: &[
            "nif",
            "cif",
            "nif cif",
            "cif nif",
            "tax id",
            "tax number",
            "vat",
            "vat number",
            "identificador fiscal",
            "numero identificacion fiscal",
            "nif contraparte",
        ],
    },
    StandardColumn {
        field: StandardField::Lei,
        name: "LEI",
        description: "Legal Entity Identifier (ISO 17442) of the counterparty.",
        category: Analysis,
        data_type: Text,
        is_required: false,
        synonyms: &["lei", "lei code", "legal entity identifier", "codigo lei"],
    },
    StandardColumn {
        field: StandardField::LegalName,
        name: "Legal_Name",
        description: "Legal name of the counterparty.",
        category: Analysis,
        data_type: Text,
        is_required: false,
        synonyms: &[
            "legal name",
            "name",
            "counterparty",
            "counterparty name",
            "obligor",
            "borrower",
            "entity name",
            "issuer",
            "razon social",
            "nombre",
            "contraparte",
            "nombre contraparte",
            "denominacion",
            "acreditado",
            "titular",
            "emisor",
        ],
    },
    StandardColumn {
        field: StandardField::Maturity,
        name: "Maturity",
        description: "Maturity date of the exposure, or the residual maturity as a period (e.g. 3m, 2y, or a bare number in months unless the header names days or years).",
        category: Analysis,
        data_type: Date,
        is_required: false,
        synonyms: &[
            "maturity",
            "maturity date",
            "residual maturity",
            "end date",
            "expiry",
            "expiry date",
            "vencimiento",
            "fecha vencimiento",
            "fecha de vencimiento",
            "plazo",
            "plazo residual",
            "fecha fin",
        ],
    },
    StandardColumn {
        field: StandardField::Currency,
        name: "Currency",
        description: "ISO 4217 currency of the exposure (e.g. EUR).",
        category: Optional,
        data_type: Text,
        is_required: false,
        synonyms: &["currency", "ccy", "currency code", "divisa", "moneda"],
    },
    StandardColumn {
        field: StandardField::Country,
        name: "Country",
        description: "ISO 3166 code of the counterparty's jurisdiction (e.g. ES).",
        category: Optional,
        data_type: Text,
        is_required: false,
        synonyms: &[
            "country",
            "country code",
            "jurisdiction",
            "residence",
            "country of residence",
            "pais",
            "codigo pais",
            "pais residencia",
            "jurisdiccion",
        ],
    },
    StandardColumn {
        field: StandardField::CreditQualityStep,
        name: "Credit_Quality_Step",
        description: "Credit quality step 1-6 of the counterparty's ECAI rating.",
        category: Optional,
        data_type: Numeric,
        is_required: false,
        synonyms: &[
            "credit quality step",
            "cqs",
            "ecai step",
            "step",
            "nivel calidad crediticia",
            "grado calidad crediticia",
        ],
    },
    StandardColumn {
        field: StandardField::Rating,
        name: "Rating",
        description: "Long-term external rating in S&P, Fitch or Moody's notation (mapped to a credit quality step).",
        category: Optional,
        data_type: Text,
        is_required: false,
        synonyms: &[
            "rating",
            "external rating",
            "ecai rating",
            "credit rating",
            "calificacion",
            "calificacion crediticia",
            "rating externo",
        ],
    },
    StandardColumn {
        field: StandardField::CollateralValue,
        name: "Collateral_Value",
        description: "Value of the collateral securing the exposure.",
        category: Optional,
        data_type: Numeric,
        is_required: false,
        synonyms: &[
            "collateral value",
            "collateral amount",
            "value of collateral",
            "valor garantia",
            "importe garantia",
            "valor colateral",
        ],
    },
    StandardColumn {
        field: StandardField::CollateralRiskWeight,
        name: "Collateral_Risk_Weight",
        description: "Risk weight of a direct exposure to the collateral instrument.",
        category: Optional,
        data_type: Numeric,
        is_required: false,
        synonyms: &[
            "collateral risk weight",
            "collateral rw",
            "rw collateral",
            "ponderacion garantia",
            "ponderacion colateral",
        ],
    },
    StandardColumn {
        field: StandardField::CollateralType,
        name: "Collateral_Type",
        description: "Type of collateral (cash, deposit, sovereign_bond, bond, equity, ...).",
        category: Optional,
        data_type: Text,
        is_required: false,
        synonyms: &[
            "collateral type",
            "type of collateral",
            "tipo garantia",
            "tipo colateral",
        ],
    },
    StandardColumn {
        field: StandardField::CollateralCurrency,
        name: "Collateral_Currency",
        description: "ISO 4217 currency of the collateral.",
        category: Optional,
        data_type: Text,
        is_required: false,
        synonyms: &["collateral currency", "divisa garantia", "moneda garantia"],
    },
    StandardColumn {
        field: StandardField::ScraGrade,
        name: "SCRA_Grade",
        description: "SCRA grade of an unrated institution (A+, A, B or C).",
        category: Optional,
        data_type: Text,
        is_required: false,
        synonyms: &["scra grade", "scra", "grado scra"],
    },
    StandardColumn {
        field: StandardField::OriginationDate,
        name: "Origination_Date",
        description: "Date the exposure was originated (drawn or issued): with a Maturity date it gives the original maturity that the short-term rules of Art. 116(3), 120(2) and 121 use.",
        category: Optional,
        data_type: Date,
        is_required: false,
        synonyms: &[
            "origination date",
            "start date",
            "issue date",
            "inception date",
            "fecha inicio",
            "fecha de inicio",
            "fecha formalizacion",
            "fecha de formalizacion",
            "fecha origen",
            "fecha emision",
            "fecha de emision",
        ],
    },
];

impl StandardField {
    /// All fields, in display order.
    pub fn all() -> impl Iterator<Item = StandardField> {
        STANDARD_COLUMNS.iter().map(|c| c.field)
    }

    /// Index of the field in [`STANDARD_COLUMNS`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The standard column definition.
    pub fn column(self) -> &'static StandardColumn {
        &STANDARD_COLUMNS[self.index()]
    }

    /// The standard column name (`Exposure_Amount`, ...).
    pub fn name(self) -> &'static str {
        self.column().name
    }

    /// Finds a field by its standard name (case-insensitive; spaces, dashes and underscores
    /// are ignored).
    pub fn from_name(name: &str) -> Option<StandardField> {
        let n = normalize(name);
        STANDARD_COLUMNS
            .iter()
            .find(|c| normalize(c.name) == n)
            .map(|c| c.field)
    }
}

/// Lower-cases, strips accents (Spanish and common Latin letters) and drops everything that is
/// not a letter or digit, so `Ponderación (%)`, `ponderacion` and `PONDERACION_%` compare equal.
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let c = match c {
            'á' | 'à' | 'â' | 'ä' | 'Á' | 'À' | 'Â' | 'Ä' => 'a',
            'é' | 'è' | 'ê' | 'ë' | 'É' | 'È' | 'Ê' | 'Ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' | 'Í' | 'Ì' | 'Î' | 'Ï' => 'i',
            'ó' | 'ò' | 'ô' | 'ö' | 'Ó' | 'Ò' | 'Ô' | 'Ö' => 'o',
            'ú' | 'ù' | 'û' | 'ü' | 'Ú' | 'Ù' | 'Û' | 'Ü' => 'u',
            'ñ' | 'Ñ' => 'n',
            'ç' | 'Ç' => 'c',
            '%' => {
                out.push_str("pct");
                continue;
            }
            c => c,
        };
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// A column of an uploaded file, as detected from its first rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetectedColumn {
    /// The column name from the header row.
    pub name: String,
    /// The detected type.
    pub data_type: ColumnType,
    /// Up to 5 distinct non-blank sample values.
    pub sample_values: Vec<String>,
    /// Share of non-blank sample values that fit the detected type (1 for text; 0 when the
    /// column is blank in every sampled row).
    pub confidence: f64,
}

/// Rows looked at by column detection.
pub const DETECTION_ROWS: usize = 10;
/// Sample values kept per detected column.
pub const DETECTION_SAMPLES: usize = 5;

/// Detects the type and sample values of each column from the first [`DETECTION_ROWS`] rows.
/// A column is numeric, date or boolean when every non-blank value fits (numbers are checked
/// before booleans, so a 0/1 column is numeric); otherwise text.
pub fn detect_columns(headers: &[String], rows: &[Vec<String>]) -> Vec<DetectedColumn> {
    let rows = &rows[..rows.len().min(DETECTION_ROWS)];
    headers
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let values: Vec<&str> = rows
                .iter()
                .filter_map(|r| r.get(c))
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
                .collect();
            let mut samples: Vec<String> = Vec::new();
            for v in &values {
                if samples.len() >= DETECTION_SAMPLES {
                    break;
                }
                if !samples.iter().any(|s| s == v) {
                    samples.push((*v).to_string());
                }
            }
            let (data_type, confidence) = if values.is_empty() {
                (ColumnType::Text, 0.0)
            } else {
                let n = values.len() as f64;
                let share =
                    |f: &dyn Fn(&str) -> bool| values.iter().filter(|v| f(v)).count() as f64 / n;
                let num = share(&|v| is_strictly_numeric(v));
                let date = share(&|v| parse_date(v.as_bytes()).is_some());
                let boolean = share(&|v| parse_bool(v.as_bytes()).is_some());
                if date == 1.0 {
                    (ColumnType::Date, 1.0)
                } else if num == 1.0 {
                    (ColumnType::Numeric, 1.0)
                } else if boolean == 1.0 {
                    (ColumnType::Boolean, 1.0)
                } else {
                    (ColumnType::Text, 1.0)
                }
            };
            DetectedColumn {
                name: name.clone(),
                data_type,
                sample_values: samples,
                confidence,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_indexed_in_order() {
        for (i, c) in STANDARD_COLUMNS.iter().enumerate() {
            assert_eq!(c.field.index(), i, "{}", c.name);
        }
        assert_eq!(
            StandardField::from_name("exposure amount"),
            Some(StandardField::ExposureAmount)
        );
        assert_eq!(StandardField::from_name("NIF"), Some(StandardField::Nif));
        assert_eq!(StandardField::from_name("nope"), None);
    }

    #[test]
    fn normalizes_accents_and_symbols() {
        assert_eq!(normalize("Ponderación (%)"), "ponderacionpct");
        assert_eq!(normalize("Exposure_Amount"), "exposureamount");
        assert_eq!(normalize("Año"), "ano");
    }

    #[test]
    fn detects_types_and_samples() {
        let headers = vec![
            "Id".to_string(),
            "Importe".into(),
            "Venc".into(),
            "Gar".into(),
            "Blank".into(),
        ];
        let rows: Vec<Vec<String>> = (0..12)
            .map(|i| {
                vec![
                    format!("E{i}"),
                    format!("{i}.000,5"),
                    "2026-01-31".into(),
                    if i % 2 == 0 {
                        "Sí".into()
                    } else {
                        "No".into()
                    },
                    String::new(),
                ]
            })
            .collect();
        let d = detect_columns(&headers, &rows);
        assert_eq!(d[0].data_type, ColumnType::Text);
        assert_eq!(d[0].sample_values, vec!["E0", "E1", "E2", "E3", "E4"]);
        assert_eq!(d[1].data_type, ColumnType::Numeric);
        assert_eq!(d[2].data_type, ColumnType::Date);
        assert_eq!(d[2].sample_values, vec!["2026-01-31"]);
        assert_eq!(d[3].data_type, ColumnType::Boolean);
        assert_eq!(d[4].confidence, 0.0);
    }
}
