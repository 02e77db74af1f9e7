//! Column mapping: from a file's own column names to the standard columns. Auto-mapping (exact
//! name, English and Spanish synonyms, fuzzy similarity), saved-template matching, sanitising a
//! mapping against the file's real columns, and validation with the product's messages.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::columns::{FIELD_COUNT, STANDARD_COLUMNS, StandardField, normalize};
use crate::ingest::number::is_strictly_numeric;
pub use crate::ingest::values::MaturityUnit;
use crate::model::Lever;

/// Mapping problems. The texts are the product's messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MappingError {
    /// Nothing usable left after sanitising a mapping at processing time.
    #[error(
        "No valid column mappings found after sanitization. Please check your column mappings."
    )]
    NoValidMappings,
    /// Nothing usable left after cleaning the selections of the mapping dialog.
    #[error("No valid column mappings found. Please check your selections.")]
    NoValidSelections,
    /// A mapped source column the file does not have.
    #[error(
        "Source column \"{source_column}\" from mapping not found in uploaded file. Available columns: {available}"
    )]
    SourceNotFound {
        /// The mapped source column.
        source_column: String,
        /// The file's columns, comma-separated.
        available: String,
    },
    /// Required standard columns not mapped.
    #[error("Missing required columns for {analysis} analysis: {}. Please map these columns before proceeding. The analysis cannot run without them.", missing.join(", "))]
    MissingRequired {
        /// `PSE`, `MDB`, `RGLA` or `standard`.
        analysis: String,
        /// The standard columns missing.
        missing: Vec<String>,
    },
    /// Values in the first rows do not fit their standard column's type.
    #[error("Data validation failed: {}", .0.join("; "))]
    DataValidation(Vec<String>),
    /// A mapping file that is not a JSON object of strings.
    #[error("Invalid Mapping: {0}")]
    Invalid(String),
}

/// A mapping from standard column names to the file's column names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ColumnMapping(pub BTreeMap<String, String>);

impl ColumnMapping {
    /// The source column mapped to `field`, if any.
    pub fn source_for(&self, field: StandardField) -> Option<&str> {
        self.0
            .iter()
            .find(|(t, _)| StandardField::from_name(t) == Some(field))
            .map(|(_, s)| s.as_str())
    }

    /// Number of mapped columns.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Reads a mapping from JSON: either a plain object `{"Exposure_Amount": "Importe", ...}`
    /// or a saved template `{"target_mapping": {...}}`. Entries whose value is not a string
    /// are dropped here (sanitising does the rest).
    pub fn from_json(text: &str) -> Result<ColumnMapping, MappingError> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| MappingError::Invalid(e.to_string()))?;
        let obj = match &v {
            serde_json::Value::Object(o) => {
                match o.get("target_mapping").or_else(|| o.get("mapping")) {
                    Some(serde_json::Value::Object(inner)) => inner,
                    _ => o,
                }
            }
            _ => {
                return Err(MappingError::Invalid(
                    "the mapping must be a JSON object of standard column to source column".into(),
                ));
            }
        };
        Ok(ColumnMapping(
            obj.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect(),
        ))
    }
}

/// How an auto-mapping suggestion was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchMethod {
    /// The source column has the standard name.
    Exact,
    /// The source column has a known English or Spanish name of the column.
    Synonym,
    /// The source column contains a known name.
    Contains,
    /// The names are similar.
    Fuzzy,
}

/// One auto-mapping suggestion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MappingSuggestion {
    /// Standard column name.
    pub target: String,
    /// Source column name.
    pub source: String,
    /// 0 to 1.
    pub confidence: f64,
    /// How it was found.
    pub method: MatchMethod,
    /// For the Maturity column: the unit its bare numbers are read in, from the header
    /// ([`maturity_unit_from_header`]), else months. The user can change it
    /// (`AnalyzeOptions::maturity_unit`, `--maturity-unit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maturity_unit: Option<MaturityUnit>,
}

/// The unit a Maturity header names, if any: days (`days`, `day`, `días`, `dias`, `d`), months
/// (`months`, `month`, `mths`, `meses`, `mes`, `m`) or years (`years`, `yrs`, `años`, `anos`,
/// `y`), as a word of the header (`Maturity (days)`, `Plazo_meses`, `VencimientoAnos`,
/// `Term [y]`); a one-letter unit only as the header's last word. `None` when it names none (the
/// column's bare numbers are then months, the specification's unit) or names two different ones.
pub fn maturity_unit_from_header(header: &str) -> Option<MaturityUnit> {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in header.chars() {
        if ch.is_alphabetic() {
            // A new word at a lower-to-upper change ("VencimientoAnos").
            if ch.is_uppercase() && prev_lower && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = ch.is_lowercase();
            let folded = crate::columns::normalize(&ch.to_string());
            cur.push_str(&folded);
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let last = words.len().saturating_sub(1);
    let mut found: Option<MaturityUnit> = None;
    for (i, w) in words.iter().enumerate() {
        let unit = match w.as_str() {
            "days" | "day" | "dias" | "dia" => MaturityUnit::Days,
            "months" | "month" | "mths" | "mth" | "meses" | "mes" => MaturityUnit::Months,
            "years" | "year" | "yrs" | "yr" | "anos" | "ano" => MaturityUnit::Years,
            "d" if i == last && i > 0 => MaturityUnit::Days,
            "m" if i == last && i > 0 => MaturityUnit::Months,
            "y" if i == last && i > 0 => MaturityUnit::Years,
            _ => continue,
        };
        match found {
            Some(f) if f != unit => return None,
            _ => found = Some(unit),
        }
    }
    found
}

/// Confidence above which a suggestion is accepted.
pub const AUTO_MAP_ACCEPT: f64 = 0.5;
/// Name similarity above which a fuzzy match counts.
pub const FUZZY_ACCEPT: f64 = 0.7;
/// Share of overlapping column names for a saved template to match.
pub const TEMPLATE_MATCH: f64 = 0.6;

fn score(source_norm: &str, col: &crate::columns::StandardColumn) -> Option<(f64, MatchMethod)> {
    if source_norm.is_empty() {
        return None;
    }
    if source_norm == normalize(col.name) {
        return Some((1.0, MatchMethod::Exact));
    }
    let mut best: Option<(f64, MatchMethod)> = None;
    let mut consider = |s: f64, m: MatchMethod| {
        if best.is_none_or(|(b, _)| s > b) {
            best = Some((s, m));
        }
    };
    for syn in std::iter::once(col.name).chain(col.synonyms.iter().copied()) {
        let n = normalize(syn);
        if n.is_empty() {
            continue;
        }
        if n == source_norm {
            consider(0.95, MatchMethod::Synonym);
            continue;
        }
        // A longer name that contains a known one ("importe_eur", "fecha_vencimiento_final").
        if n.len() >= 4 && source_norm.contains(&n) {
            let share = n.len() as f64 / source_norm.len() as f64;
            consider(0.6 + 0.25 * share, MatchMethod::Contains);
        }
        let sim = strsim::normalized_damerau_levenshtein(source_norm, &n);
        if sim > FUZZY_ACCEPT && n.len() >= 4 {
            consider(sim * 0.9, MatchMethod::Fuzzy);
        }
    }
    best
}

/// Suggests a mapping for the file's columns: every standard column scored against every source
/// column; the best pairs are taken first, each source and each target used once; suggestions
/// above [`AUTO_MAP_ACCEPT`] are kept.
pub fn auto_map(source_columns: &[String]) -> Vec<MappingSuggestion> {
    let mut pairs = Vec::new();
    for (si, s) in source_columns.iter().enumerate() {
        let sn = normalize(s);
        for (ti, col) in STANDARD_COLUMNS.iter().enumerate() {
            if let Some((conf, method)) = score(&sn, col)
                && conf > AUTO_MAP_ACCEPT
            {
                pairs.push((conf, si, ti, method));
            }
        }
    }
    // Best first; ties go to the earlier standard column, then the earlier source column.
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)).then(a.1.cmp(&b.1)));
    let mut used_s = vec![false; source_columns.len()];
    let mut used_t = [false; FIELD_COUNT];
    let mut out = Vec::new();
    for (conf, si, ti, method) in pairs {
        if used_s[si] || used_t[ti] {
            continue;
        }
        used_s[si] = true;
        used_t[ti] = true;
        let target = STANDARD_COLUMNS[ti].name;
        out.push(MappingSuggestion {
            target: target.to_string(),
            source: source_columns[si].clone(),
            confidence: (conf * 1000.0).round() / 1000.0,
            method,
            maturity_unit: (target == StandardField::Maturity.name())
                .then(|| maturity_unit_from_header(&source_columns[si]).unwrap_or_default()),
        });
    }
    out.sort_by_key(|s| StandardField::from_name(&s.target));
    out
}

/// The accepted suggestions as a mapping.
pub fn suggested_mapping(source_columns: &[String]) -> ColumnMapping {
    ColumnMapping(
        auto_map(source_columns)
            .into_iter()
            .map(|s| (s.target, s.source))
            .collect(),
    )
}

/// A saved mapping template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MappingTemplate {
    /// Template name.
    pub template_name: String,
    /// The source columns of the file the template was saved from.
    pub source_columns: Vec<String>,
    /// Standard column to source column.
    pub target_mapping: BTreeMap<String, String>,
}

/// Share of overlapping column names (case-insensitive, trimmed) relative to the larger list.
pub fn template_overlap(a: &[String], b: &[String]) -> f64 {
    let larger = a.len().max(b.len());
    if larger == 0 {
        return 0.0;
    }
    let bl: Vec<String> = b.iter().map(|s| s.trim().to_lowercase()).collect();
    let mut seen: Vec<String> = Vec::new();
    for s in a {
        let l = s.trim().to_lowercase();
        if bl.contains(&l) && !seen.contains(&l) {
            seen.push(l);
        }
    }
    seen.len() as f64 / larger as f64
}

/// The saved template that best fits the file's columns, when one reaches [`TEMPLATE_MATCH`];
/// with its overlap.
pub fn match_template<'a>(
    columns: &[String],
    templates: &'a [MappingTemplate],
) -> Option<(&'a MappingTemplate, f64)> {
    templates
        .iter()
        .map(|t| (t, template_overlap(columns, &t.source_columns)))
        .filter(|(_, o)| *o >= TEMPLATE_MATCH)
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// Finds a file column by name: exact first, then trimmed and case-insensitive.
pub fn find_column(headers: &[String], name: &str) -> Option<usize> {
    headers.iter().position(|h| h == name).or_else(|| {
        let n = name.trim();
        headers
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(n))
    })
}

/// A mapping cleaned against the file's real columns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Sanitized {
    /// The entries kept: standard name to the file's column name as spelled in the file.
    pub mapping: ColumnMapping,
    /// Mapped source columns the file does not have (dropped), as messages.
    pub not_found: Vec<String>,
    /// Entries dropped for another reason (empty source, unknown standard column, a source or
    /// target mapped twice), as messages.
    pub dropped: Vec<String>,
}

/// Keeps the entries whose source is non-empty and present in the file's columns and whose
/// target is a standard column; a source or target is used once (first wins). Fails with
/// 'No valid column mappings found after sanitization. ...' when nothing remains.
pub fn sanitize(mapping: &ColumnMapping, headers: &[String]) -> Result<Sanitized, MappingError> {
    let mut out = Sanitized::default();
    let mut used_sources: Vec<usize> = Vec::new();
    let mut used_targets: Vec<StandardField> = Vec::new();
    for (target, source) in &mapping.0 {
        let src = source.trim();
        if src.is_empty() {
            continue;
        }
        let Some(field) = StandardField::from_name(target) else {
            out.dropped
                .push(format!("\"{target}\" is not a standard column"));
            continue;
        };
        let Some(ci) = find_column(headers, src) else {
            out.not_found.push(
                MappingError::SourceNotFound {
                    source_column: src.to_string(),
                    available: headers.join(", "),
                }
                .to_string(),
            );
            continue;
        };
        if used_targets.contains(&field) {
            out.dropped
                .push(format!("{} is mapped more than once", field.name()));
            continue;
        }
        if used_sources.contains(&ci) {
            out.dropped.push(format!(
                "Source column \"{}\" is mapped more than once",
                headers[ci]
            ));
            continue;
        }
        used_sources.push(ci);
        used_targets.push(field);
        out.mapping
            .0
            .insert(field.name().to_string(), headers[ci].clone());
    }
    if out.mapping.is_empty() {
        return Err(MappingError::NoValidMappings);
    }
    Ok(out)
}

/// The analysis name used in messages: `PSE`, `MDB`, `RGLA` or `standard`.
pub fn analysis_name(lever: Lever) -> &'static str {
    match lever {
        Lever::Pse => "PSE",
        Lever::Mdb => "MDB",
        Lever::Rgla => "RGLA",
        _ => "standard",
    }
}

/// Required standard columns for a lever: the lever's column definitions flagged required when
/// given (`defined`), else the product's fallbacks.
pub fn required_columns(lever: Lever, defined: Option<&[String]>) -> Vec<StandardField> {
    if let Some(d) = defined {
        let fields: Vec<StandardField> = d
            .iter()
            .filter_map(|n| StandardField::from_name(n))
            .collect();
        if !fields.is_empty() {
            return fields;
        }
    }
    use StandardField::*;
    match lever {
        Lever::Pse => vec![Nif, Maturity, ExposureAmount, CurrentRiskWeight],
        Lever::Mdb => vec![Lei, LegalName, Maturity, ExposureAmount],
        Lever::Rgla => vec![
            ExposureId,
            AssetClass,
            EligibleCollateral,
            CurrentRiskWeight,
            ExposureAmount,
            Nif,
        ],
        _ => vec![
            ExposureId,
            AssetClass,
            EligibleCollateral,
            CurrentRiskWeight,
            ExposureAmount,
        ],
    }
}

/// Standard columns whose values must be numeric.
pub const NUMERIC_FIELDS: [StandardField; 4] = [
    StandardField::ExposureAmount,
    StandardField::CurrentRiskWeight,
    StandardField::CollateralValue,
    StandardField::CollateralRiskWeight,
];

/// Rows checked by data validation.
pub const VALIDATION_ROWS: usize = 5;

/// The outcome of validating a mapping.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ValidationReport {
    /// `PSE`, `MDB`, `RGLA` or `standard`.
    pub analysis: String,
    /// Required standard columns that are not mapped.
    pub missing_required: Vec<String>,
    /// Data-type errors in the first rows.
    pub errors: Vec<String>,
    /// Warnings (empty identifiers in the first rows, mapped columns not found).
    pub warnings: Vec<String>,
    /// Number of mapped columns.
    pub mapped: usize,
}

impl ValidationReport {
    /// True when the mapping can be used: no missing required column, no data-type error and
    /// at least one mapped column.
    pub fn is_valid(&self) -> bool {
        self.missing_required.is_empty() && self.errors.is_empty() && self.mapped > 0
    }

    /// The panel's headline.
    pub fn headline(&self) -> String {
        if !self.missing_required.is_empty() {
            format!("Missing required columns for {} analysis", self.analysis)
        } else if !self.errors.is_empty() {
            "Data type validation errors:".to_string()
        } else if self.analysis == "PSE" {
            "All validations passed for PSE analysis! Ready to analyse against 2,890+ Spanish PSE entities.".to_string()
        } else {
            format!("All validations passed for {} analysis!", self.analysis)
        }
    }

    /// The first problem as an error, when there is one.
    pub fn into_result(self) -> Result<(), MappingError> {
        if !self.missing_required.is_empty() {
            return Err(MappingError::MissingRequired {
                analysis: self.analysis,
                missing: self.missing_required,
            });
        }
        if !self.errors.is_empty() {
            return Err(MappingError::DataValidation(self.errors));
        }
        if self.mapped == 0 {
            return Err(MappingError::NoValidMappings);
        }
        Ok(())
    }
}

/// Validates a sanitised mapping for a lever against the file's headers and first rows
/// (`rows[i]` is data row `i + 1`; only the first [`VALIDATION_ROWS`] are checked).
pub fn validate(
    mapping: &ColumnMapping,
    lever: Lever,
    required: &[StandardField],
    headers: &[String],
    rows: &[Vec<String>],
) -> ValidationReport {
    let mut report = ValidationReport {
        analysis: analysis_name(lever).to_string(),
        mapped: mapping.len(),
        ..ValidationReport::default()
    };
    for f in required {
        let src = mapping.source_for(*f);
        if src.is_none_or(|s| find_column(headers, s).is_none()) {
            report.missing_required.push(f.name().to_string());
        }
    }
    for (i, row) in rows.iter().take(VALIDATION_ROWS).enumerate() {
        for f in NUMERIC_FIELDS {
            let Some(src) = mapping.source_for(f) else {
                continue;
            };
            let Some(ci) = find_column(headers, src) else {
                continue;
            };
            let v = row.get(ci).map(|s| s.trim()).unwrap_or("");
            if !v.is_empty() && !is_strictly_numeric(v) {
                report.errors.push(format!(
                    "Row {}: Source column \"{}\" contains non-numeric value \"{}\" for expected numeric field \"{}\"",
                    i + 1,
                    headers[ci],
                    v,
                    f.name()
                ));
            }
        }
    }
    // Empty identifiers only warn, and only the identifier the lever matches on.
    let ids: &[StandardField] = match lever {
        Lever::Pse | Lever::Rgla => &[StandardField::Nif],
        Lever::Mdb | Lever::Institutions => &[StandardField::Lei],
        _ => &[],
    };
    for f in ids {
        let Some(ci) = mapping.source_for(*f).and_then(|s| find_column(headers, s)) else {
            continue;
        };
        let empty: Vec<String> = rows
            .iter()
            .take(VALIDATION_ROWS)
            .enumerate()
            .filter(|(_, r)| r.get(ci).is_none_or(|s| s.trim().is_empty()))
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        if !empty.is_empty() {
            report.warnings.push(format!(
                "{} is empty in row{} {}",
                f.name(),
                if empty.len() > 1 { "s" } else { "" },
                empty.join(", ")
            ));
        }
    }
    report
}

/// Column index in the file for each standard field, after mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedMapping {
    cols: [Option<usize>; FIELD_COUNT],
}

impl ResolvedMapping {
    /// Resolves a sanitised mapping against the headers.
    pub fn new(mapping: &ColumnMapping, headers: &[String]) -> ResolvedMapping {
        let mut cols = [None; FIELD_COUNT];
        for f in StandardField::all() {
            cols[f.index()] = mapping.source_for(f).and_then(|s| find_column(headers, s));
        }
        ResolvedMapping { cols }
    }

    /// The file column of a field.
    #[inline]
    pub fn col(&self, f: StandardField) -> Option<usize> {
        self.cols[f.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn target_of(s: &[MappingSuggestion], src: &str) -> Option<String> {
        s.iter().find(|m| m.source == src).map(|m| m.target.clone())
    }

    #[test]
    fn auto_maps_exact_synonym_and_fuzzy() {
        let src = cols(&[
            "Exposure_ID",
            "Importe",
            "Ponderación",
            "Vencimiento",
            "NIF/CIF",
            "Razón social",
            "Exposure Amnt",
            "Unrelated",
            "Divisa",
        ]);
        let s = auto_map(&src);
        assert_eq!(target_of(&s, "Exposure_ID").as_deref(), Some("Exposure_ID"));
        assert_eq!(
            s.iter()
                .find(|m| m.source == "Exposure_ID")
                .unwrap()
                .confidence,
            1.0
        );
        assert_eq!(
            target_of(&s, "Ponderación").as_deref(),
            Some("Current_Risk_Weight")
        );
        assert_eq!(target_of(&s, "Vencimiento").as_deref(), Some("Maturity"));
        assert_eq!(target_of(&s, "NIF/CIF").as_deref(), Some("NIF"));
        assert_eq!(target_of(&s, "Razón social").as_deref(), Some("Legal_Name"));
        assert_eq!(target_of(&s, "Divisa").as_deref(), Some("Currency"));
        assert_eq!(target_of(&s, "Unrelated"), None, "{s:#?}");
        // "Importe" (synonym, 0.95) wins Exposure_Amount over the misspelt English name.
        assert_eq!(target_of(&s, "Importe").as_deref(), Some("Exposure_Amount"));
        assert_eq!(target_of(&s, "Exposure Amnt"), None);
        // Each target once.
        let mut t: Vec<_> = s.iter().map(|m| m.target.clone()).collect();
        t.dedup();
        assert_eq!(t.len(), s.len());
    }

    #[test]
    fn fuzzy_names() {
        let s = auto_map(&cols(&["Exposure Amnt", "Legal Nme"]));
        assert_eq!(
            target_of(&s, "Exposure Amnt").as_deref(),
            Some("Exposure_Amount")
        );
        assert_eq!(target_of(&s, "Legal Nme").as_deref(), Some("Legal_Name"));
        assert!(
            s.iter()
                .all(|m| m.method == MatchMethod::Fuzzy && m.confidence > 0.5)
        );
    }

    #[test]
    fn templates() {
        let t = MappingTemplate {
            template_name: "bank".into(),
            source_columns: cols(&["a", "b", "c", "d", "e"]),
            target_mapping: BTreeMap::new(),
        };
        let ts = [t];
        assert!(match_template(&cols(&["A", "b", "c"]), &ts).is_some()); // 3/5
        assert!(match_template(&cols(&["A", "b"]), &ts).is_none()); // 2/5
        assert!(match_template(&cols(&["a", "b", "c", "x", "y", "z"]), &ts).is_none()); // 3/6
        assert_eq!(
            template_overlap(
                &cols(&["a", "b", "c", "x"]),
                &cols(&["a", "b", "c", "d", "e"])
            ),
            0.6
        );
    }

    #[test]
    fn sanitizing() {
        let headers = cols(&["Importe", "NIF"]);
        let mut m = BTreeMap::new();
        m.insert("Exposure_Amount".to_string(), "importe".to_string());
        m.insert("Maturity".to_string(), "Venc".to_string());
        m.insert("NIF".to_string(), "".to_string());
        m.insert("Bogus".to_string(), "NIF".to_string());
        let s = sanitize(&ColumnMapping(m), &headers).unwrap();
        assert_eq!(
            s.mapping.0.get("Exposure_Amount").map(String::as_str),
            Some("Importe")
        );
        assert_eq!(s.mapping.len(), 1);
        assert_eq!(
            s.not_found,
            vec![
                "Source column \"Venc\" from mapping not found in uploaded file. Available columns: Importe, NIF"
            ]
        );
        let empty = ColumnMapping::default();
        assert_eq!(
            sanitize(&empty, &headers).unwrap_err().to_string(),
            "No valid column mappings found after sanitization. Please check your column mappings."
        );
        let j = ColumnMapping::from_json(r#"{"target_mapping": {"NIF": "NIF", "X": 3}}"#).unwrap();
        assert_eq!(j.len(), 1);
        assert!(ColumnMapping::from_json("[1]").is_err());
    }

    #[test]
    fn validation_messages() {
        let headers = cols(&["Importe", "NIF", "RW"]);
        let mut m = BTreeMap::new();
        m.insert("Exposure_Amount".to_string(), "Importe".to_string());
        m.insert("NIF".to_string(), "NIF".to_string());
        m.insert("Current_Risk_Weight".to_string(), "RW".to_string());
        let m = ColumnMapping(m);
        let req = required_columns(Lever::Pse, None);
        let rows = vec![
            cols(&["1.000,5", "Q9900001J", "20%"]),
            cols(&["abc", "", "20"]),
        ];
        let r = validate(&m, Lever::Pse, &req, &headers, &rows);
        assert_eq!(r.missing_required, vec!["Maturity"]);
        assert_eq!(
            r.errors,
            vec![
                "Row 2: Source column \"Importe\" contains non-numeric value \"abc\" for expected numeric field \"Exposure_Amount\""
            ]
        );
        assert_eq!(r.warnings, vec!["NIF is empty in row 2"]);
        assert_eq!(r.headline(), "Missing required columns for PSE analysis");
        let e = r.into_result().unwrap_err().to_string();
        assert!(
            e.starts_with("Missing required columns for PSE analysis: Maturity."),
            "{e}"
        );
        assert_eq!(
            required_columns(Lever::Corporates, None),
            vec![
                StandardField::ExposureId,
                StandardField::AssetClass,
                StandardField::EligibleCollateral,
                StandardField::CurrentRiskWeight,
                StandardField::ExposureAmount
            ]
        );
        let defined = vec!["LEI".to_string()];
        assert_eq!(
            required_columns(Lever::Mdb, Some(&defined)),
            vec![StandardField::Lei]
        );
    }
}
