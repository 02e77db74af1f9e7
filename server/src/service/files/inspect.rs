//! Inspection of a file before it is uploaded for processing (the manual mode's column detection):
//! nothing is stored, the temporary file is removed when the request ends. A stored file is
//! inspected the same way for the classification review ([`inspect_stored`]).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{FileType, Received, check_received};
use crate::db::files::FileRow;
use crate::error::{ApiError, ApiResult};
use crate::service::Scope;
use crate::service::levers::DataType;
use crate::state::AppState;
use crate::storage::ObjectKey;

/// A column of the inspected file.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DetectedColumn {
    /// The header.
    pub name: String,
    /// The detected type (from the first 10 rows).
    pub data_type: DataType,
    /// Up to 5 distinct sample values.
    pub samples: Vec<String>,
}

/// A competing lever of a classification.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Competitor {
    /// The lever's code.
    pub lever: String,
    /// Its probability (0..1).
    pub score: f64,
}

/// The classifier's proposal for the inspected rows.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InspectionClassification {
    /// The proposed lever's code (`pse`, `rgla`, ...).
    pub lever: String,
    /// The id of the lever with that code, when the database has one.
    pub lever_id: Option<String>,
    /// Its name.
    pub lever_name: Option<String>,
    /// Confidence (0..1).
    pub confidence: f64,
    /// The other levers, most likely first.
    pub competitors: Vec<Competitor>,
    /// One line of reasons.
    pub reason: String,
}

/// What an inspection learns about a file.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Inspection {
    /// The file's name (sanitised).
    pub file_name: String,
    /// Its columns.
    pub columns: Vec<DetectedColumn>,
    /// The first 10 data rows.
    pub preview: Vec<Vec<String>>,
    /// Standard column to source column: auto-mapping and the universal suggestions.
    pub suggested_mapping: BTreeMap<String, String>,
    /// Standard column to the suggestion's score (0..1).
    pub suggestion_scores: BTreeMap<String, f64>,
    /// The detected risk-weight notation.
    pub risk_weight_format: Option<String>,
    /// The detected maturity unit.
    pub maturity_unit: Option<String>,
    /// The classifier's proposal, when it found evidence.
    pub classification: Option<InspectionClassification>,
}

/// Rows read by an inspection.
pub const INSPECT_ROWS: usize = analysis::columns::DETECTION_ROWS;

/// The refusal of a file that is not a table.
const NOT_A_TABLE: &str = "Column detection needs a CSV or Excel file: PDF files are stored only.";

/// Inspects a received file (same bounds and checks as an upload; nothing stored).
pub async fn inspect(state: &AppState, scope: &Scope, received: Received) -> ApiResult<Inspection> {
    let _ = scope;
    let file_name = super::kind::sanitize_name(&received.name);
    let (_, preview) = check_received(state, &received, INSPECT_ROWS).await?;
    drop(received);
    let Some(preview) = preview else {
        return Err(ApiError::validation(NOT_A_TABLE));
    };
    inspection_of(state, file_name, preview).await
}

/// Inspects a stored file of a client (the classification review reads the file it reviews):
/// its first rows read from object storage, with the upload's bounds.
pub async fn inspect_stored(state: &AppState, file: &FileRow) -> ApiResult<Inspection> {
    if !FileType::from_extension(&file.file_type).is_some_and(FileType::is_table) {
        return Err(ApiError::validation(NOT_A_TABLE));
    }
    let key = file
        .object_key
        .as_deref()
        .ok_or_else(|| ApiError::not_found("The stored file is missing"))?;
    let key = ObjectKey::parse(key).map_err(|e| ApiError::Internal(e.into()))?;
    // A local store's object is read in place; another store's is copied into a temporary file.
    let (path, _temp) = match state.storage.backend() {
        crate::storage::Backend::Local(root) => (root.join(key.as_str()), None),
        crate::storage::Backend::S3 { .. } => {
            let temp = state
                .storage
                .input_to_temp(&key)
                .await
                .map_err(|e| ApiError::Internal(e.into()))?;
            (temp.to_path_buf(), Some(temp))
        }
    };
    let limits = super::upload_limits(state);
    let name = file.name.clone();
    let preview = tokio::task::spawn_blocking(move || {
        let mut f = std::fs::File::open(&path)?;
        analysis::ingest::preview(
            analysis::ingest::Input::Reader {
                name: &name,
                reader: &mut f,
            },
            &limits,
            INSPECT_ROWS,
        )
        .map_err(std::io::Error::other)
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?
    .map_err(|e| ApiError::validation(format!("The file could not be read: {e}")))?;
    inspection_of(state, file.name.clone(), preview).await
}

/// The inspection of a file's first rows.
async fn inspection_of(
    state: &AppState,
    file_name: String,
    preview: analysis::ingest::Preview,
) -> ApiResult<Inspection> {
    let x = tokio::task::spawn_blocking(move || {
        analysis::inspect::inspect_preview(preview, &analysis::refdata::RefData::builtin_shared())
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?;
    let headers = x.info.headers.clone();
    let mut suggested_mapping = BTreeMap::new();
    let mut suggestion_scores = BTreeMap::new();
    for s in &x.suggestions {
        suggested_mapping.insert(s.target.clone(), s.source.clone());
        suggestion_scores.insert(s.target.clone(), s.confidence);
    }
    // Universal suggestions fill standard columns the engine left unmapped, from source columns
    // it did not use.
    for (target, source, score) in
        crate::service::mappings::suggestions_for(state, &headers).await?
    {
        if suggested_mapping.contains_key(&target)
            || suggested_mapping.values().any(|v| *v == source)
        {
            continue;
        }
        if analysis::columns::StandardField::from_name(&target).is_none() {
            continue;
        }
        suggested_mapping.insert(target.clone(), source);
        suggestion_scores.insert(target, score);
    }
    let classification = match x.classification.lever {
        None => None,
        Some(lever) => {
            let code = lever.as_str();
            let db_lever = crate::db::clients::levers(&state.db.pool)
                .await?
                .into_iter()
                .find(|l| l.code.as_deref() == Some(code));
            let mut competitors: Vec<Competitor> = x
                .classification
                .scores
                .iter()
                .filter(|(l, _)| *l != lever)
                .map(|(l, s)| Competitor {
                    lever: l.as_str().to_owned(),
                    score: (*s * 1000.0).round() / 1000.0,
                })
                .collect();
            competitors.sort_by(|a, b| b.score.total_cmp(&a.score));
            Some(InspectionClassification {
                lever: code.to_owned(),
                lever_id: db_lever.as_ref().map(|l| l.id.clone()),
                lever_name: db_lever.map(|l| l.lever_name),
                confidence: x.classification.confidence,
                competitors,
                reason: x.classification.reason(),
            })
        }
    };
    Ok(Inspection {
        file_name,
        columns: x
            .columns
            .into_iter()
            .map(|c| DetectedColumn {
                name: c.name,
                data_type: DataType::from_engine(c.data_type),
                samples: c.sample_values,
            })
            .collect(),
        preview: x.rows,
        suggested_mapping,
        suggestion_scores,
        risk_weight_format: x.risk_weight_format.map(|f| {
            match f {
                analysis::pipeline::RwFormat::Fraction => "decimal",
                analysis::pipeline::RwFormat::Percent => "percent",
            }
            .to_owned()
        }),
        maturity_unit: x.maturity_unit.map(|u| u.as_str().to_owned()),
        classification,
    })
}
