//! The report generator's REST API: the reports of the caller's client (list with section counts,
//! create, read, rename, status, move, delete), report folders and the monthly draft limit.
//!
//! A report's content is a collaborative document (`/api/collab/{reportId}`); its initial content
//! is built here, on the server, and stored in the same transaction as the report row, so no
//! browser ever seeds it. Members of the report's client and admins may change reports; viewers
//! read only (403 on changes); reports of other clients are 404.

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{delete, get};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::auth::{AuthUser, ClientIp};
use crate::db::misc::AuditEvent;
use crate::db::reports::{self, FolderRow, MONTHLY_DRAFT_LIMIT, ReportRow};
use crate::docs::store as collab_store;
use crate::error::{ApiError, ApiResult, AppJson};
use crate::realtime::{self, Topic};
use crate::state::AppState;

/// Longest report or folder name accepted.
pub const MAX_NAME_CHARS: usize = 200;

/// Routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/reports", get(list_reports).post(create_report))
        .route("/reports/draft-limit", get(get_draft_limit))
        .route("/reports/folders", get(list_folders).post(create_folder))
        .route("/reports/folders/{folder_id}", delete(delete_folder))
        .route(
            "/reports/{report_id}",
            get(get_report).patch(update_report).delete(delete_report),
        )
}

/// A report's status.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum ReportStatus {
    /// Being written (every report starts as a draft).
    Draft,
    /// Published.
    Published,
}

impl ReportStatus {
    fn parse(s: &str) -> ReportStatus {
        if s == "published" {
            ReportStatus::Published
        } else {
            ReportStatus::Draft
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            ReportStatus::Draft => "draft",
            ReportStatus::Published => "published",
        }
    }
}

/// A report as listed and as shown in the editor's header.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ReportSummary {
    /// Id (also the id of its collaborative document).
    pub id: String,
    /// Owning client.
    pub client_id: String,
    /// Folder, if any.
    pub folder_id: Option<String>,
    /// Name.
    pub name: String,
    /// Status.
    pub status: ReportStatus,
    /// Template it was created from (`None` for a custom report).
    pub template_id: Option<String>,
    /// Number of sections of its document.
    pub section_count: u32,
    /// Creator's user id.
    pub created_by: Option<String>,
    /// User who last saved the name or status.
    pub last_edited_by: Option<String>,
    /// That user's display name.
    pub last_edited_by_name: Option<String>,
    /// Last save of the name or status (RFC 3339).
    pub last_saved_at: Option<String>,
    /// Creation time (RFC 3339).
    pub created_at: String,
    /// Last change of the metadata or the content (RFC 3339).
    pub updated_at: String,
}

/// A report opened in the editor: its summary and what the caller may do with it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ReportDetail {
    /// The report.
    pub report: ReportSummary,
    /// Whether the caller may edit it (false for viewers).
    pub can_edit: bool,
}

/// A report folder.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ReportFolder {
    /// Id.
    pub id: String,
    /// Owning client.
    pub client_id: String,
    /// Parent folder (`None` at the top level).
    pub parent_folder_id: Option<String>,
    /// Name.
    pub name: String,
    /// Creator.
    pub created_by: Option<String>,
    /// Creation time.
    pub created_at: String,
}

/// The caller's monthly draft counter for a client.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct DraftLimit {
    /// Drafts created by the caller for the client this month.
    pub draft_count: u32,
    /// Drafts allowed per user, company and month.
    pub limit: u32,
    /// The month counted (`YYYY-MM`, UTC).
    pub month_year: String,
}

/// The client a request works on: `client_id` when given (it must be one of the caller's), else
/// the caller's own client.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct ClientQuery {
    /// Client id; defaults to the caller's client.
    pub client_id: Option<String>,
}

/// A new report.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct CreateReportRequest {
    /// Name (non-empty after trimming).
    pub name: String,
    /// Template to start from (must be an active template).
    #[serde(default)]
    #[ts(optional)]
    pub template_id: Option<String>,
    /// Folder to file it in.
    #[serde(default)]
    #[ts(optional)]
    pub folder_id: Option<String>,
    /// Client; defaults to the caller's client.
    #[serde(default)]
    #[ts(optional)]
    pub client_id: Option<String>,
}

/// A change of a report's metadata. Absent fields stay as they are.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct UpdateReportRequest {
    /// New name (non-empty after trimming).
    #[serde(default)]
    #[ts(optional)]
    pub name: Option<String>,
    /// New status.
    #[serde(default)]
    #[ts(optional)]
    pub status: Option<ReportStatus>,
    /// Move to this folder; `""` moves the report out of any folder.
    #[serde(default)]
    #[ts(optional)]
    pub folder_id: Option<String>,
}

/// A new folder.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct CreateFolderRequest {
    /// Name (non-empty after trimming).
    pub name: String,
    /// Parent folder.
    #[serde(default)]
    #[ts(optional)]
    pub parent_folder_id: Option<String>,
    /// Client; defaults to the caller's client.
    #[serde(default)]
    #[ts(optional)]
    pub client_id: Option<String>,
}

/// The realtime topic on which open report lists of a client hear about changes.
pub fn reports_topic(client_id: &str) -> Topic {
    Topic::Client {
        client_id: client_id.to_owned(),
        area: "reports",
    }
}

/// The payload of a report-list event (`report.created`, `report.updated`, `report.deleted`,
/// `folder.created`, `folder.deleted`): the id of what changed; lists refetch.
#[derive(Debug, Serialize)]
struct ListChange<'a> {
    id: &'a str,
}

fn report_not_found() -> ApiError {
    ApiError::NotFound {
        code: "report_not_found",
        message: "Report not found".into(),
    }
}

fn folder_not_found() -> ApiError {
    ApiError::NotFound {
        code: "folder_not_found",
        message: "Folder not found".into(),
    }
}

fn limit_reached() -> ApiError {
    ApiError::Conflict {
        code: "draft_limit_reached",
        message: "Monthly draft limit reached (100 drafts per month)".into(),
    }
}

/// The client a request works on (see [`ClientQuery`]).
fn resolve_client(user: &AuthUser, requested: Option<&str>) -> ApiResult<String> {
    match requested.map(str::trim).filter(|s| !s.is_empty()) {
        Some(id) => {
            user.require_client_read(id)?;
            Ok(id.to_owned())
        }
        None => user
            .home_client()
            .map(|(id, _)| id.clone())
            .ok_or_else(|| ApiError::Validation {
                code: "no_company",
                message: "Unable to assign user to a company".into(),
            }),
    }
}

/// Checks a report or folder name: trimmed, non-empty, not too long.
fn clean_name<'a>(name: &'a str, what: &str) -> ApiResult<&'a str> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ApiError::validation(format!("{what} name is required")));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::validation(format!(
            "{what} name must be at most {MAX_NAME_CHARS} characters"
        )));
    }
    Ok(name)
}

fn summary(row: ReportRow) -> ReportSummary {
    let updated_at = row.last_change().to_owned();
    ReportSummary {
        id: row.id,
        client_id: row.client_id,
        folder_id: row.folder_id,
        name: row.name,
        status: ReportStatus::parse(&row.status),
        template_id: row.template_id,
        section_count: row.section_count.clamp(0, u32::MAX as i64) as u32,
        created_by: row.created_by,
        last_edited_by: row.last_edited_by,
        last_edited_by_name: row.last_edited_by_name.filter(|n| !n.is_empty()),
        last_saved_at: row.last_saved_at,
        created_at: row.created_at,
        updated_at,
    }
}

fn folder(row: FolderRow) -> ReportFolder {
    ReportFolder {
        id: row.id,
        client_id: row.client_id,
        parent_folder_id: row.parent_folder_id,
        name: row.name,
        created_by: row.created_by,
        created_at: row.created_at,
    }
}

/// Brings the cached section count of a report up to date with its document when the document
/// changed since it was computed. A document that cannot be read keeps the cached count (and the
/// failure is logged): the list still loads.
async fn refresh_section_count(state: &AppState, row: &mut ReportRow) {
    if row.doc_seq == 0 || row.doc_seq == row.section_count_seq {
        return;
    }
    let store = collab_store::SqlDocStore::new(&state.db);
    let counted = match store.load(&row.id).await {
        Ok(Some(stored)) => collab::report::section_count(&stored)
            .map(|n| (n, stored.last_seq() as i64))
            .map_err(|e| e.to_string()),
        Ok(None) => return,
        Err(e) => Err(e.to_string()),
    };
    match counted {
        Ok((n, seq)) => {
            row.section_count = n as i64;
            row.section_count_seq = seq;
            if let Err(e) = reports::set_section_count(&state.db.pool, &row.id, n as i64, seq).await
            {
                tracing::warn!(error = %e, report = %row.id, "could not cache the section count");
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, report = %row.id, "could not read the report document")
        }
    }
}

async fn load_report(state: &AppState, user: &AuthUser, id: &str) -> ApiResult<ReportRow> {
    let row = reports::get(&state.db.pool, id)
        .await?
        .ok_or_else(report_not_found)?;
    if !user.can_read_client(&row.client_id) {
        return Err(report_not_found());
    }
    Ok(row)
}

/// Lists the reports of the caller's client, most recently changed first, with section counts.
#[utoipa::path(get, path = "/api/reports", params(ClientQuery),
    responses((status = 200, body = Vec<ReportSummary>), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_reports(
    State(state): State<AppState>,
    user: AuthUser,
    Query(q): Query<ClientQuery>,
) -> ApiResult<axum::Json<Vec<ReportSummary>>> {
    let client_id = resolve_client(&user, q.client_id.as_deref())?;
    let mut rows = reports::list(&state.db.pool, &client_id).await?;
    for row in &mut rows {
        refresh_section_count(&state, row).await;
    }
    Ok(axum::Json(rows.into_iter().map(summary).collect()))
}

/// Reads one report.
#[utoipa::path(get, path = "/api/reports/{report_id}", params(("report_id" = String, Path, description = "Report id")),
    responses((status = 200, body = ReportDetail), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_report(
    State(state): State<AppState>,
    user: AuthUser,
    Path(report_id): Path<String>,
) -> ApiResult<axum::Json<ReportDetail>> {
    let mut row = load_report(&state, &user, &report_id).await?;
    refresh_section_count(&state, &mut row).await;
    let can_edit = user.require_writer().is_ok();
    Ok(axum::Json(ReportDetail {
        report: summary(row),
        can_edit,
    }))
}

/// Creates a draft report with its initial sections (built on the server) and counts it against
/// the caller's monthly draft limit.
#[utoipa::path(post, path = "/api/reports", request_body = CreateReportRequest,
    responses((status = 201, body = ReportSummary), (status = 403, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_report(
    State(state): State<AppState>,
    user: AuthUser,
    ClientIp(ip): ClientIp,
    AppJson(req): AppJson<CreateReportRequest>,
) -> ApiResult<(StatusCode, axum::Json<ReportSummary>)> {
    let client_id = resolve_client(&user, req.client_id.as_deref())?;
    user.require_client_write(&client_id)?;
    let name = clean_name(&req.name, "Report")?;
    let folder_id = req
        .folder_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    if let Some(f) = folder_id {
        match reports::get_folder(&state.db.pool, f).await? {
            Some(row) if row.client_id == client_id => {}
            _ => {
                return Err(ApiError::Validation {
                    code: "folder_not_found",
                    message: "Folder not found".into(),
                });
            }
        }
    }
    if req
        .template_id
        .as_deref()
        .is_some_and(|t| !t.trim().is_empty())
    {
        // No report template is stored in this version, so no id can name an active template.
        return Err(ApiError::Validation {
            code: "template_not_found",
            message: "Failed to fetch template".into(),
        });
    }
    let sections = vec![collab::report::SectionInit {
        id: crate::db::new_id(),
        title: "Introduction".into(),
    }];
    let initial = collab::report::initial_update(&sections);

    let id = crate::db::new_id();
    let month = reports::month_key(chrono::Utc::now());
    let topic = reports_topic(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    if reports::take_draft_slot(&mut *tx, &user.id, &client_id, &month, MONTHLY_DRAFT_LIMIT)
        .await?
        .is_none()
    {
        return Err(limit_reached());
    }
    reports::insert(
        &mut *tx,
        &reports::NewReport {
            id: &id,
            client_id: &client_id,
            folder_id,
            name,
            template_id: None,
            created_by: &user.id,
            section_count: sections.len() as i64,
        },
    )
    .await?;
    collab_store::create_in(&mut tx, &id, &initial)
        .await
        .map_err(store_error)?;
    tx.commit().await?;
    state
        .hub
        .publish(&topic, seq, "report.created", &ListChange { id: &id });

    crate::audit::record(
        &state,
        AuditEvent {
            event_type: "report_created",
            entity_type: "report",
            entity_id: Some(&id),
            actor_id: Some(&user.id),
            details: json!({"client_id": client_id, "name": name}),
            severity: "info",
            ip: Some(&ip),
        },
    )
    .await;
    let row = reports::get(&state.db.pool, &id)
        .await?
        .ok_or_else(report_not_found)?;
    Ok((StatusCode::CREATED, axum::Json(summary(row))))
}

fn store_error(e: collab_store::DocStoreError) -> ApiError {
    match e {
        collab_store::DocStoreError::Database(e) => ApiError::Database(e),
        other => ApiError::Internal(anyhow::anyhow!(other)),
    }
}

/// Renames a report, changes its status or moves it to a folder; records who saved it and when.
#[utoipa::path(patch, path = "/api/reports/{report_id}", params(("report_id" = String, Path, description = "Report id")), request_body = UpdateReportRequest,
    responses((status = 200, body = ReportSummary), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_report(
    State(state): State<AppState>,
    user: AuthUser,
    Path(report_id): Path<String>,
    AppJson(req): AppJson<UpdateReportRequest>,
) -> ApiResult<axum::Json<ReportSummary>> {
    let row = load_report(&state, &user, &report_id).await?;
    user.require_writer()?;
    let name = req
        .name
        .as_deref()
        .map(|n| clean_name(n, "Report"))
        .transpose()?;
    let folder = match req.folder_id.as_deref().map(str::trim) {
        None => None,
        Some("") => Some(None),
        Some(f) => match reports::get_folder(&state.db.pool, f).await? {
            Some(fr) if fr.client_id == row.client_id => Some(Some(f)),
            _ => {
                return Err(ApiError::Validation {
                    code: "folder_not_found",
                    message: "Folder not found".into(),
                });
            }
        },
    };
    if name.is_none() && req.status.is_none() && folder.is_none() {
        return Err(ApiError::validation("Nothing to change"));
    }
    let change = reports::ReportChange {
        name,
        status: req.status.map(ReportStatus::as_str),
        folder_id: folder,
    };
    let topic = reports_topic(&row.client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    if !reports::update(&mut *tx, &report_id, &change, &user.id).await? {
        return Err(report_not_found());
    }
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "report.updated",
        &ListChange { id: &report_id },
    );
    let mut row = reports::get(&state.db.pool, &report_id)
        .await?
        .ok_or_else(report_not_found)?;
    refresh_section_count(&state, &mut row).await;
    Ok(axum::Json(summary(row)))
}

/// Deletes a report and its document.
#[utoipa::path(delete, path = "/api/reports/{report_id}", params(("report_id" = String, Path, description = "Report id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_report(
    State(state): State<AppState>,
    user: AuthUser,
    ClientIp(ip): ClientIp,
    Path(report_id): Path<String>,
) -> ApiResult<StatusCode> {
    let row = load_report(&state, &user, &report_id).await?;
    user.require_writer()?;
    let topic = reports_topic(&row.client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    if !reports::delete(&mut *tx, &report_id).await? {
        return Err(report_not_found());
    }
    collab_store::delete_in(&mut *tx, &report_id).await?;
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "report.deleted",
        &ListChange { id: &report_id },
    );
    crate::audit::record(
        &state,
        AuditEvent {
            event_type: "report_deleted",
            entity_type: "report",
            entity_id: Some(&report_id),
            actor_id: Some(&user.id),
            details: json!({"client_id": row.client_id, "name": row.name}),
            severity: "info",
            ip: Some(&ip),
        },
    )
    .await;
    Ok(StatusCode::NO_CONTENT)
}

/// The caller's monthly draft counter for a client.
#[utoipa::path(get, path = "/api/reports/draft-limit", params(ClientQuery), responses((status = 200, body = DraftLimit)))]
pub async fn get_draft_limit(
    State(state): State<AppState>,
    user: AuthUser,
    Query(q): Query<ClientQuery>,
) -> ApiResult<axum::Json<DraftLimit>> {
    let client_id = resolve_client(&user, q.client_id.as_deref())?;
    let month_year = reports::month_key(chrono::Utc::now());
    let n = reports::draft_count(&state.db.pool, &user.id, &client_id, &month_year).await?;
    Ok(axum::Json(DraftLimit {
        draft_count: n.clamp(0, u32::MAX as i64) as u32,
        limit: MONTHLY_DRAFT_LIMIT as u32,
        month_year,
    }))
}

/// The report folders of a client by name.
#[utoipa::path(get, path = "/api/reports/folders", params(ClientQuery), responses((status = 200, body = Vec<ReportFolder>)))]
pub async fn list_folders(
    State(state): State<AppState>,
    user: AuthUser,
    Query(q): Query<ClientQuery>,
) -> ApiResult<axum::Json<Vec<ReportFolder>>> {
    let client_id = resolve_client(&user, q.client_id.as_deref())?;
    Ok(axum::Json(
        reports::list_folders(&state.db.pool, &client_id)
            .await?
            .into_iter()
            .map(folder)
            .collect(),
    ))
}

/// Creates a folder.
#[utoipa::path(post, path = "/api/reports/folders", request_body = CreateFolderRequest,
    responses((status = 201, body = ReportFolder), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_folder(
    State(state): State<AppState>,
    user: AuthUser,
    AppJson(req): AppJson<CreateFolderRequest>,
) -> ApiResult<(StatusCode, axum::Json<ReportFolder>)> {
    let client_id = resolve_client(&user, req.client_id.as_deref())?;
    user.require_client_write(&client_id)?;
    let name = clean_name(&req.name, "Folder")?;
    let parent = req
        .parent_folder_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    if let Some(p) = parent {
        match reports::get_folder(&state.db.pool, p).await? {
            Some(row) if row.client_id == client_id => {}
            _ => {
                return Err(ApiError::Validation {
                    code: "folder_not_found",
                    message: "Folder not found".into(),
                });
            }
        }
    }
    let topic = reports_topic(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    let row = reports::insert_folder(&mut *tx, &client_id, parent, name, &user.id).await?;
    tx.commit().await?;
    state
        .hub
        .publish(&topic, seq, "folder.created", &ListChange { id: &row.id });
    Ok((StatusCode::CREATED, axum::Json(folder(row))))
}

/// Deletes a folder and its sub-folders; their reports move out of any folder.
#[utoipa::path(delete, path = "/api/reports/folders/{folder_id}", params(("folder_id" = String, Path, description = "Folder id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_folder(
    State(state): State<AppState>,
    user: AuthUser,
    Path(folder_id): Path<String>,
) -> ApiResult<StatusCode> {
    let row = reports::get_folder(&state.db.pool, &folder_id)
        .await?
        .ok_or_else(folder_not_found)?;
    if !user.can_read_client(&row.client_id) {
        return Err(folder_not_found());
    }
    user.require_writer()?;
    let topic = reports_topic(&row.client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    if !reports::delete_folder(&mut *tx, &folder_id).await? {
        return Err(folder_not_found());
    }
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "folder.deleted",
        &ListChange { id: &folder_id },
    );
    Ok(StatusCode::NO_CONTENT)
}
