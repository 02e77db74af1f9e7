//! The report media storage as the PDF export's [`AssetResolver`]: a report's images and its
//! charts' current rows (an uploaded table read again, or one of the client's datasets), for
//! a caller whose right to read the report was checked before.

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::datasets;
use super::{DataTable, MediaKind, table_page};
use crate::db::report_media as db;
use crate::error::ApiError;
use crate::pdf::model::{ChartSource, MAX_CHART_ROWS};
use crate::pdf::{AssetError, AssetResolver, ImageAsset};
use crate::service::Scope;
use crate::state::AppState;
use crate::storage::{ObjectKey, StorageError};

/// The assets of one report, read with the caller's scope.
pub struct ReportAssets<'a> {
    state: &'a AppState,
    scope: &'a Scope,
    report_id: &'a str,
    client_id: &'a str,
}

impl<'a> ReportAssets<'a> {
    /// The assets of `report_id` (of `client_id`), which `scope` may read.
    pub fn new(
        state: &'a AppState,
        scope: &'a Scope,
        report_id: &'a str,
        client_id: &'a str,
    ) -> Self {
        ReportAssets {
            state,
            scope,
            report_id,
            client_id,
        }
    }
}

fn failure(e: impl std::fmt::Display) -> AssetError {
    AssetError(e.to_string())
}

/// A table as the chart's rows: one object per row, keyed by column name.
fn objects(table: DataTable) -> Vec<Map<String, Value>> {
    table
        .rows
        .into_iter()
        .take(MAX_CHART_ROWS)
        .map(|row| {
            table
                .columns
                .iter()
                .cloned()
                .zip(
                    row.into_iter()
                        .map(|c| serde_json::to_value(c).unwrap_or(Value::Null)),
                )
                .collect()
        })
        .collect()
}

/// A source that is gone (its file deleted, its dataset unknown) is `None`: the chart draws
/// the rows stored with it. Anything else fails the export.
fn gone_or_failed(e: ApiError) -> Result<Option<Vec<Map<String, Value>>>, AssetError> {
    match e {
        ApiError::NotFound { .. } | ApiError::Validation { .. } => Ok(None),
        other => Err(failure(other)),
    }
}

#[async_trait]
impl AssetResolver for ReportAssets<'_> {
    async fn image(&self, media_id: &str) -> Result<Option<ImageAsset>, AssetError> {
        let Some(row) = db::get(&self.state.db.pool, self.report_id, media_id)
            .await
            .map_err(failure)?
        else {
            return Ok(None);
        };
        if MediaKind::parse(&row.kind) != MediaKind::Image {
            return Ok(None);
        }
        let Ok(key) = ObjectKey::parse(&row.object_key) else {
            return Ok(None);
        };
        match self.state.storage.get_bytes(&key).await {
            Ok(bytes) => Ok(Some(ImageAsset {
                bytes: bytes.to_vec(),
                content_type: row.content_type,
            })),
            Err(StorageError::NotFound(_)) => Ok(None),
            Err(e) => Err(failure(e)),
        }
    }

    async fn chart_rows(
        &self,
        source: &ChartSource,
    ) -> Result<Option<Vec<Map<String, Value>>>, AssetError> {
        match source {
            ChartSource::Client { dataset } => {
                match datasets::read_for(self.state, self.scope, self.client_id, dataset).await {
                    Ok(t) => Ok(Some(objects(t))),
                    Err(e) => gone_or_failed(e),
                }
            }
            ChartSource::Media { media_id, .. } => {
                let Some(row) = db::get(&self.state.db.pool, self.report_id, media_id)
                    .await
                    .map_err(failure)?
                else {
                    return Ok(None);
                };
                if MediaKind::parse(&row.kind) == MediaKind::Image {
                    return Ok(None);
                }
                match table_page(self.state, &row, 0, MAX_CHART_ROWS).await {
                    Ok(t) => Ok(Some(objects(t))),
                    Err(e) => gone_or_failed(e),
                }
            }
        }
    }
}
