//! Inspection of an uploaded file before it is processed: its columns (type and samples from the
//! first rows), the suggested mapping with its scores, the risk-weight notation and maturity unit
//! the run would use, and the lever the classifier proposes with its competitors. Pure apart from
//! reading the given [`Input`]; nothing is written.

use serde::{Deserialize, Serialize};

use crate::classify::{Classification, classify};
use crate::columns::{DETECTION_ROWS, DetectedColumn, StandardField, detect_columns};
use crate::ingest::{
    DecimalStyle, IngestError, Input, Limits, Preview, SourceInfo, parse_number, preview,
};
use crate::mapping::{MappingSuggestion, MaturityUnit, auto_map};
use crate::pipeline::RwFormat;
use crate::refdata::RefData;

/// What an inspection learns about a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inspection {
    /// The format and headers.
    pub info: SourceInfo,
    /// Each column's detected type and samples.
    pub columns: Vec<DetectedColumn>,
    /// The first data rows read (at most the requested number), as wide as the headers.
    pub rows: Vec<Vec<String>>,
    /// Auto-mapping suggestions (standard column, source column, score).
    pub suggestions: Vec<MappingSuggestion>,
    /// The risk-weight notation of the suggested `Current_Risk_Weight` column, by majority of
    /// its sampled values (values in 0..=1 vote decimal, above 12.5 or with `%` percent); `None`
    /// without such a column or without a numeric value in it.
    pub risk_weight_format: Option<RwFormat>,
    /// The unit of the suggested `Maturity` column's bare numbers (from its header, else
    /// months); `None` without such a column.
    pub maturity_unit: Option<MaturityUnit>,
    /// The classifier's proposal on the sampled rows.
    pub classification: Classification,
}

/// Reads the headers and the first `max_rows` data rows of `input` (within `limits`, with the
/// ingest's hostile-file guards) and inspects them.
pub fn inspect(
    input: Input<'_>,
    limits: &Limits,
    max_rows: usize,
    refdata: &RefData,
) -> Result<Inspection, IngestError> {
    let p = preview(input, limits, max_rows.max(1))?;
    Ok(inspect_preview(p, refdata))
}

/// Inspects rows already read (see [`inspect`]).
pub fn inspect_preview(p: Preview, refdata: &RefData) -> Inspection {
    let headers = &p.info.headers;
    let detect_rows = &p.rows[..p.rows.len().min(DETECTION_ROWS)];
    let columns = detect_columns(headers, detect_rows);
    let suggestions = auto_map(headers);
    let column_of = |field: StandardField| {
        suggestions
            .iter()
            .find(|s| s.target == field.name())
            .and_then(|s| headers.iter().position(|h| *h == s.source))
    };
    let risk_weight_format = column_of(StandardField::CurrentRiskWeight)
        .and_then(|c| rw_format(p.rows.iter().filter_map(|r| r.get(c)).map(|v| v.as_bytes())));
    let maturity_unit = suggestions
        .iter()
        .find(|s| s.target == StandardField::Maturity.name())
        .map(|s| s.maturity_unit.unwrap_or_default());
    let header_refs: Vec<&str> = headers.iter().map(String::as_str).collect();
    let row_refs: Vec<Vec<&str>> = p
        .rows
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
        .collect();
    let classification = classify(&header_refs, &row_refs, refdata);
    Inspection {
        info: p.info,
        columns,
        rows: p.rows,
        suggestions,
        risk_weight_format,
        maturity_unit,
        classification,
    }
}

/// The notation of risk-weight cells by majority: a value in 0..=1 votes decimal, above 12.5 or
/// with a `%` sign percent (values in between fit either and do not vote). Ties go to percent,
/// as in the run. `None` when nothing votes.
fn rw_format<'a>(cells: impl Iterator<Item = &'a [u8]>) -> Option<RwFormat> {
    let cells: Vec<&[u8]> = cells.collect();
    let style = DecimalStyle::detect(cells.iter().copied(), DecimalStyle::Unknown);
    let (mut pct, mut frac) = (0u32, 0u32);
    for cell in cells {
        let Some(n) = parse_number(cell, style) else {
            continue;
        };
        if n.percent || n.value > 12.5 {
            pct += 1;
        } else if n.value > 0.0 && n.value <= 1.0 {
            frac += 1;
        }
    }
    match (pct, frac) {
        (0, 0) => None,
        (p, f) if f > p => Some(RwFormat::Fraction),
        _ => Some(RwFormat::Percent),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inspect_csv(text: &str) -> Inspection {
        inspect(
            Input::Bytes {
                name: "f.csv",
                data: text.as_bytes(),
            },
            &Limits::upload(),
            10,
            &RefData::builtin(),
        )
        .unwrap()
    }

    #[test]
    fn finds_columns_mapping_notation_and_unit() {
        let x = inspect_csv(
            "Exposure_ID,NIF,Exposure_Amount,Current_Risk_Weight,Maturity (days)\n\
             E1,Q2826000H,1000,1,30\nE2,Q2816003D,2000,0.5,400\n",
        );
        assert_eq!(x.info.headers.len(), 5);
        assert_eq!(x.rows.len(), 2);
        assert_eq!(x.columns[2].sample_values, vec!["1000", "2000"]);
        assert!(
            x.suggestions
                .iter()
                .any(|s| s.target == "Exposure_Amount" && s.confidence == 1.0)
        );
        assert_eq!(x.risk_weight_format, Some(RwFormat::Fraction));
        assert_eq!(x.maturity_unit, Some(MaturityUnit::Days));
    }

    #[test]
    fn percent_weights_and_no_maturity() {
        let x = inspect_csv("Exposure_Amount,Current_Risk_Weight\n10,100\n20,50\n");
        assert_eq!(x.risk_weight_format, Some(RwFormat::Percent));
        assert_eq!(x.maturity_unit, None);
        let y = inspect_csv("Name,Amount\nA,1\n");
        assert_eq!(y.risk_weight_format, None);
    }

    #[test]
    fn refuses_what_the_ingest_refuses() {
        let r = inspect(
            Input::Bytes {
                name: "f.csv",
                data: b"",
            },
            &Limits::upload(),
            10,
            &RefData::builtin(),
        );
        assert!(r.is_err());
    }
}
