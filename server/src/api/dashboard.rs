//! The dashboards over HTTP: the admin dashboard's metric cards, evolution chart, overview
//! charts, Client and Lever Performance and export (administrators only), and the client
//! dashboard and its export (the client's readers). The figures are computed in
//! [`crate::service::dashboard`].

use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{ClientQuery, ClientRead};
use crate::auth::AdminUser;
use crate::error::ApiResult;
use crate::service::dashboard::client::{self as client_service, ClientDashboard};
use crate::service::dashboard::export::{self, ExportFile, ExportFormat};
use crate::service::dashboard::{
    self as service, ClientPerformance, DashboardMetrics, Evolution, EvolutionView, LeverSummary,
    LeverValue, OverviewBreakdown, OverviewWindow, Period,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_metrics))
        .routes(routes!(get_evolution))
        .routes(routes!(get_overview))
        .routes(routes!(get_lever_performance))
        .routes(routes!(get_client_performance))
        .routes(routes!(get_client_levers))
        .routes(routes!(export_admin_dashboard))
        .routes(routes!(get_client_dashboard))
        .routes(routes!(export_client_dashboard))
}

/// The period of the metric cards.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct PeriodQuery {
    /// `all` (default), `year`, `quarter` or `month`.
    #[param(value_type = Option<String>)]
    pub period: Option<Period>,
}

/// The admin dashboard's four metric cards for a period, with the previous period's values.
#[utoipa::path(get, path = "/admin/dashboard/metrics", params(PeriodQuery),
    responses((status = 200, body = DashboardMetrics), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody)))]
pub async fn get_metrics(
    State(state): State<AppState>,
    _admin: AdminUser,
    Query(q): Query<PeriodQuery>,
) -> ApiResult<axum::Json<DashboardMetrics>> {
    Ok(axum::Json(
        service::metrics(&state, q.period.unwrap_or_default()).await?,
    ))
}

/// The evolution chart's view and year.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct EvolutionQuery {
    /// `yearly`, `monthly` (default) or `weekly`.
    #[param(value_type = Option<String>)]
    pub view: Option<EvolutionView>,
    /// The selected year (default the current one).
    pub year: Option<i32>,
}

/// 'Capital Optimization Evolution': savings by year, month or week, cumulative and gained.
#[utoipa::path(get, path = "/admin/dashboard/evolution", params(EvolutionQuery),
    responses((status = 200, body = Evolution), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn get_evolution(
    State(state): State<AppState>,
    _admin: AdminUser,
    Query(q): Query<EvolutionQuery>,
) -> ApiResult<axum::Json<Evolution>> {
    Ok(axum::Json(
        service::evolution(&state, q.view.unwrap_or_default(), q.year).await?,
    ))
}

/// The overview's window.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct WindowQuery {
    /// `last30Days` (default), `last90Days`, `last12Months` or `allTime`.
    #[param(value_type = Option<String>)]
    pub window: Option<OverviewWindow>,
}

/// 'Optimization by Category' and 'Optimization Levers by Value': savings gained in a window.
#[utoipa::path(get, path = "/admin/dashboard/overview", params(WindowQuery),
    responses((status = 200, body = OverviewBreakdown), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody)))]
pub async fn get_overview(
    State(state): State<AppState>,
    _admin: AdminUser,
    Query(q): Query<WindowQuery>,
) -> ApiResult<axum::Json<OverviewBreakdown>> {
    Ok(axum::Json(
        service::breakdown(&state, q.window.unwrap_or_default()).await?,
    ))
}

/// Lever Performance: every lever's savings over all clients now and a month ago.
#[utoipa::path(get, path = "/admin/dashboard/levers",
    responses((status = 200, body = Vec<LeverSummary>), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody)))]
pub async fn get_lever_performance(
    State(state): State<AppState>,
    _admin: AdminUser,
) -> ApiResult<axum::Json<Vec<LeverSummary>>> {
    Ok(axum::Json(service::lever_performance(&state).await?))
}

/// The Client Performance search.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct SearchQuery {
    /// Part of the client's name (any case).
    pub search: Option<String>,
}

/// Client Performance: every client's figures and savings, by name.
#[utoipa::path(get, path = "/admin/dashboard/clients", params(SearchQuery),
    responses((status = 200, body = Vec<ClientPerformance>), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn get_client_performance(
    State(state): State<AppState>,
    _admin: AdminUser,
    Query(q): Query<SearchQuery>,
) -> ApiResult<axum::Json<Vec<ClientPerformance>>> {
    Ok(axum::Json(
        service::client_performance(&state, q.search.as_deref()).await?,
    ))
}

/// The Optimization Levers Breakdown of one client.
#[utoipa::path(get, path = "/admin/dashboard/clients/{client_id}/levers",
    params(("client_id" = String, Path, description = "Client id")),
    responses((status = 200, body = Vec<LeverValue>), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_client_levers(
    State(state): State<AppState>,
    _admin: AdminUser,
    Path(client_id): Path<String>,
) -> ApiResult<axum::Json<Vec<LeverValue>>> {
    Ok(axum::Json(
        service::client_levers(&state, &client_id).await?,
    ))
}

/// The export's format.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct FormatQuery {
    /// `xlsx` (default), `csv` or `pdf`.
    pub format: Option<String>,
}

/// A file as an attachment to download (never cached).
pub(crate) fn attachment(f: ExportFile) -> Response {
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
    resp
}

/// Export: the admin dashboard's figures and tables for a period as XLSX, CSV or PDF.
#[utoipa::path(get, path = "/admin/dashboard/export", params(PeriodQuery, FormatQuery),
    responses((status = 200, description = "The figures as an attachment (XLSX, CSV or PDF)"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn export_admin_dashboard(
    State(state): State<AppState>,
    _admin: AdminUser,
    Query(p): Query<PeriodQuery>,
    Query(f): Query<FormatQuery>,
) -> ApiResult<Response> {
    let format = ExportFormat::parse(f.format.as_deref())?;
    let file = export::admin_export(
        &state,
        p.period.unwrap_or_default(),
        format,
        chrono::Utc::now().date_naive(),
    )
    .await?;
    Ok(attachment(file))
}

/// 'Capital Optimization Dashboard' of a client: totals, monthly history, levers.
#[utoipa::path(get, path = "/dashboard", params(ClientQuery),
    responses((status = 200, body = ClientDashboard), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_client_dashboard(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<ClientDashboard>> {
    Ok(axum::Json(client_service::dashboard(&state, &scope).await?))
}

/// The client dashboard's figures as XLSX, CSV or PDF ('Capital Optimization Dashboard').
#[utoipa::path(get, path = "/dashboard/export", params(ClientQuery, FormatQuery),
    responses((status = 200, description = "The figures as an attachment (XLSX, CSV or PDF)"),
        (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn export_client_dashboard(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    Query(f): Query<FormatQuery>,
) -> ApiResult<Response> {
    let format = ExportFormat::parse(f.format.as_deref())?;
    let file =
        export::client_export(&state, &scope, format, chrono::Utc::now().date_naive()).await?;
    Ok(attachment(file))
}
