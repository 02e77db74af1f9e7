//! AI explainability over HTTP (the client's AI Insights screen): the client's completed runs, a
//! run's overview and tokens, its decisions paged and searched by the server, one decision's
//! trace and confidence, its historical patterns, and the analysis as a file. Every route reads
//! the client named by `client_id` (members, viewers and administrators); a run of another
//! client is not found. The rules live in [`crate::service::insights`].

use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{ClientQuery, ClientRead};
use crate::error::ApiResult;
use crate::ids::RunId;
use crate::service::insights::{
    self as service, InsightDecisionDetail, InsightDecisionPage, InsightHistory, InsightRun,
    InsightRunOverview,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_insight_runs))
        .routes(routes!(get_insight_run))
        .routes(routes!(list_insight_decisions))
        .routes(routes!(get_insight_decision))
        .routes(routes!(get_insight_history))
        .routes(routes!(export_insight_analysis))
}

/// The client's completed processing runs (at most 100), newest first.
#[utoipa::path(get, path = "/insights/runs", params(ClientQuery),
    responses((status = 200, body = Vec<InsightRun>), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_insight_runs(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<Vec<InsightRun>>> {
    Ok(axum::Json(service::runs(&state, &scope).await?))
}

/// A run's overview: lever, rule set, reporting date, the decisions' totals and whether they add
/// up to the run's stored result, and the classifier's weighted tokens.
#[utoipa::path(get, path = "/insights/runs/{run_id}", params(("run_id" = String, Path, description = "Run id"), ClientQuery),
    responses((status = 200, body = InsightRunOverview), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody)))]
pub async fn get_insight_run(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    Path(run_id): Path<RunId>,
) -> ApiResult<axum::Json<InsightRunOverview>> {
    Ok(axum::Json(
        service::overview(&state, &scope, &run_id).await?,
    ))
}

/// The search and page of a run's decisions.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct DecisionsQuery {
    /// Text in the exposure id, counterparty, NIF or LEI, applied rule or regulatory reference
    /// (any case).
    pub q: Option<String>,
    /// `matched`, `not_matched` or `error`.
    pub status: Option<String>,
    /// The page, from 1.
    pub page: Option<u64>,
    /// 1 to 100 (default 50).
    pub page_size: Option<u64>,
}

/// A page of a run's decisions (one per exposure row), searched by the server, in file order.
#[utoipa::path(get, path = "/insights/runs/{run_id}/decisions", params(("run_id" = String, Path, description = "Run id"), ClientQuery, DecisionsQuery),
    responses((status = 200, body = InsightDecisionPage), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn list_insight_decisions(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    Path(run_id): Path<RunId>,
    Query(q): Query<DecisionsQuery>,
) -> ApiResult<axum::Json<InsightDecisionPage>> {
    Ok(axum::Json(
        service::decisions(
            &state,
            &scope,
            &run_id,
            service::DecisionQuery {
                q: q.q,
                status: q.status,
                page: q.page,
                page_size: q.page_size,
            },
        )
        .await?,
    ))
}

/// One decision: the engine's decision trace, the row's fields and the confidence's four factors.
#[utoipa::path(get, path = "/insights/runs/{run_id}/decisions/{row}", params(("run_id" = String, Path, description = "Run id"), ("row" = u64, Path, description = "Row (1 = the first row below the header)"), ClientQuery),
    responses((status = 200, body = InsightDecisionDetail), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody)))]
pub async fn get_insight_decision(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    Path((run_id, row)): Path<(RunId, u64)>,
) -> ApiResult<axum::Json<InsightDecisionDetail>> {
    Ok(axum::Json(
        service::decision(&state, &scope, &run_id, row).await?,
    ))
}

/// Similar earlier decisions of the client (the most recent earlier runs of the same lever).
#[utoipa::path(get, path = "/insights/runs/{run_id}/decisions/{row}/history", params(("run_id" = String, Path, description = "Run id"), ("row" = u64, Path, description = "Row (1 = the first row below the header)"), ClientQuery),
    responses((status = 200, body = InsightHistory), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody)))]
pub async fn get_insight_history(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    Path((run_id, row)): Path<(RunId, u64)>,
) -> ApiResult<axum::Json<InsightHistory>> {
    Ok(axum::Json(
        service::patterns(&state, &scope, &run_id, row).await?,
    ))
}

/// What the export is of.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct ExportQuery {
    /// `json` (default) or `csv`.
    pub format: Option<String>,
    /// The chosen decision's row; without it, the run.
    pub row: Option<u64>,
}

/// The analysis of a run (and of one decision) as a JSON or CSV attachment.
#[utoipa::path(get, path = "/insights/runs/{run_id}/export", params(("run_id" = String, Path, description = "Run id"), ClientQuery, ExportQuery),
    responses((status = 200, description = "The analysis as an attachment (JSON or CSV)"), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn export_insight_analysis(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    Path(run_id): Path<RunId>,
    Query(q): Query<ExportQuery>,
) -> ApiResult<Response> {
    let f = service::export::export(
        &state,
        &scope,
        &run_id,
        q.row,
        q.format.as_deref().unwrap_or("json"),
    )
    .await?;
    let mut resp = f.bytes.into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(f.content_type),
    );
    if let Ok(v) = HeaderValue::from_str(&super::files::content_disposition(&f.name)) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(resp)
}
