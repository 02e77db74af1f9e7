//! Reports of a client (the report generator's list, metadata and folders) and the monthly draft
//! limit.
//!
//! A report's content is a collaborative document (`/api/collab/{reportId}`); its initial content
//! is built here and stored in the same transaction as the report row, so no browser ever seeds
//! it. Members of the report's client and admins may change reports; viewers read only; reports
//! of other clients do not exist for the caller (404). Every change is announced on the client's
//! reports topic with the id of what changed; open lists refetch.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Actor, Audit, Change, Scope, clean_name, scope_of};
use crate::access::Need;
use crate::db::reports::{self as db, FolderRow, MONTHLY_DRAFT_LIMIT, ReportRow};
use crate::docs::store as collab_store;
use crate::error::{ApiError, ApiResult};
use crate::ids::{FolderId, ReportId};
use crate::realtime::{Event, Topic};
use crate::state::AppState;

/// Longest report or folder name accepted.
pub const MAX_NAME_CHARS: usize = 200;

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
    /// Reads a stored status (anything unknown is a draft).
    pub fn parse(s: &str) -> ReportStatus {
        if s == "published" {
            ReportStatus::Published
        } else {
            ReportStatus::Draft
        }
    }
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportStatus::Draft => "draft",
            ReportStatus::Published => "published",
        }
    }
}

/// The realtime topic on which open report lists of a client hear about changes.
pub fn reports_topic(client_id: &str) -> Topic {
    Topic::Client {
        client_id: client_id.to_owned(),
        area: "reports",
    }
}

/// The payload of a report-list event (`report.created`, `report.updated`, `report.deleted`,
/// `folder.created`, `folder.deleted`): the id of what changed; open lists refetch.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ReportListChange {
    /// The report or folder.
    pub id: String,
}

fn changed(id: &str) -> ReportListChange {
    ReportListChange { id: id.to_owned() }
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

fn unknown_folder() -> ApiError {
    ApiError::Validation {
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

fn store_error(e: collab_store::DocStoreError) -> ApiError {
    match e {
        collab_store::DocStoreError::Database(e) => ApiError::Database(e),
        other => ApiError::Internal(anyhow::anyhow!(other)),
    }
}

fn blank_to_none(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

/// Brings the section count of a report up to date with its document when the document changed
/// since the cached count (which the document store writes with every snapshot). Reads only: a
/// document that cannot be read keeps the cached count (and the failure is logged), so the list
/// still loads.
async fn refresh_section_count(state: &AppState, row: &mut ReportRow) {
    if row.doc_seq == 0 || row.doc_seq == row.section_count_seq {
        return;
    }
    let store = collab_store::SqlDocStore::new(&state.db);
    match store.load(&row.id).await {
        Ok(Some(stored)) => match collab::report::section_count(&stored) {
            Ok(n) => {
                row.section_count = n as i64;
                row.section_count_seq = stored.last_seq() as i64;
            }
            Err(e) => {
                tracing::warn!(error = %e, report = %row.id, "could not read the report document")
            }
        },
        Ok(None) => {}
        Err(e) => {
            tracing::warn!(error = %e, report = %row.id, "could not read the report document")
        }
    }
}

/// A report and the caller's rights on its client, or 404 for a report of another client.
pub(crate) async fn load(
    state: &AppState,
    actor: &Actor,
    id: &str,
    need: Need,
) -> ApiResult<(ReportRow, Scope)> {
    let row = db::get(&state.db.pool, id)
        .await?
        .ok_or_else(report_not_found)?;
    let scope = match scope_of(state, actor.clone(), &row.client_id, need).await {
        Ok(s) => s,
        Err(ApiError::NotFound { .. }) => return Err(report_not_found()),
        Err(e) => return Err(e),
    };
    Ok((row, scope))
}

/// The client a report belongs to (`None` when there is no such report); the document socket
/// decides with it before it opens the document.
pub async fn client_of(state: &AppState, id: &str) -> ApiResult<Option<String>> {
    Ok(db::client_of(&state.db.pool, id).await?)
}

/// The reports of a client, most recently changed first, with section counts.
pub async fn list(state: &AppState, scope: &Scope) -> ApiResult<Vec<ReportRow>> {
    let mut rows = db::list(&state.db.pool, &scope.client_id).await?;
    for row in &mut rows {
        refresh_section_count(state, row).await;
    }
    Ok(rows)
}

/// One report, and whether the caller may edit it.
pub async fn get(state: &AppState, actor: &Actor, id: &ReportId) -> ApiResult<(ReportRow, bool)> {
    let (mut row, scope) = load(state, actor, id, Need::Read).await?;
    refresh_section_count(state, &mut row).await;
    Ok((row, scope.rights.write))
}

async fn check_folder(state: &AppState, client_id: &str, folder: Option<&str>) -> ApiResult<()> {
    if let Some(f) = folder {
        match db::get_folder(&state.db.pool, f).await? {
            Some(row) if row.client_id == client_id => {}
            _ => return Err(unknown_folder()),
        }
    }
    Ok(())
}

/// The report as a PDF (its readers, viewers included): the document as it is now, every
/// co-editor's latest edits included.
pub async fn export_pdf(
    state: &AppState,
    actor: &Actor,
    id: &ReportId,
) -> ApiResult<crate::service::dashboard::export::ExportFile> {
    let (row, scope) = load(state, actor, id, Need::Read).await?;
    let update = document_state(state, id).await?;
    let report = crate::pdf::model::read_report_v1(&update, &row.name)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("report {id}: {e}")))?;
    let assets = super::report_media::assets::ReportAssets::new(
        state,
        &scope,
        row.id.as_str(),
        row.client_id.as_str(),
    );
    let bytes = super::pdf::render(report, &assets).await?;
    Ok(super::pdf::file(&row.name, bytes))
}

/// The report's document as it is now, every co-editor's latest edits included (one v1 update).
pub(crate) async fn document_state(state: &AppState, id: &ReportId) -> ApiResult<Vec<u8>> {
    state.collab.document_state_v1(id).await.map_err(|reason| {
        ApiError::Internal(anyhow::anyhow!(
            "could not read the document of report {id}: {reason:?}"
        ))
    })
}

/// A new report as asked for.
#[derive(Debug, Clone, Copy)]
pub struct NewReport<'a> {
    /// Name.
    pub name: &'a str,
    /// Template to start from.
    pub template_id: Option<&'a str>,
    /// Folder.
    pub folder_id: Option<&'a str>,
}

/// Creates a draft report with its initial sections (built on the server) and counts it against
/// the caller's monthly draft limit.
pub async fn create(state: &AppState, scope: &Scope, req: NewReport<'_>) -> ApiResult<ReportRow> {
    let client_id = &scope.client_id;
    let name = clean_name(req.name, "Report", MAX_NAME_CHARS)?;
    let folder_id = blank_to_none(req.folder_id);
    check_folder(state, client_id, folder_id).await?;
    // A template's sections (titles and starting text) become the document's; without one the
    // report starts with an empty Introduction.
    // The template's branding becomes the document's (shared live from then on).
    let template_id = blank_to_none(req.template_id);
    let (sections, branding) = match template_id {
        Some(t) => {
            let template = super::report_templates::active(state, t).await?;
            let sections =
                super::report_templates::section_inits(&template, |_, _| crate::db::new_id());
            (
                sections,
                super::report_templates::branding_entries(&template.branding),
            )
        }
        None => (
            vec![collab::report::SectionInit {
                nodes: Vec::new(),
                id: crate::db::new_id(),
                title: "Introduction".into(),
                paragraphs: Vec::new(),
            }],
            Vec::new(),
        ),
    };
    let initial = collab::report::initial_update_branded(&sections, &branding);
    let id = crate::db::new_id();
    let month = db::month_key(chrono::Utc::now());
    let user_id = &scope.user().id;
    let mut ch = Change::begin(state, reports_topic(client_id)).await?;
    if db::take_draft_slot(ch.conn(), user_id, client_id, &month, MONTHLY_DRAFT_LIMIT)
        .await?
        .is_none()
    {
        return Err(limit_reached());
    }
    db::insert(
        ch.conn(),
        &db::NewReport {
            id: &id,
            client_id,
            folder_id,
            name: &name,
            template_id,
            created_by: user_id,
            section_count: sections.len() as i64,
        },
    )
    .await?;
    collab_store::create_in(ch.conn(), &id, &initial)
        .await
        .map_err(store_error)?;
    ch.commit(
        &scope.actor,
        Event::ReportCreated(changed(&id)),
        Audit {
            event_type: "report_created",
            entity_type: "report",
            entity_id: &id,
            details: json!({"client_id": client_id, "name": name}),
            severity: "info",
        },
    )
    .await?;
    db::get(&state.db.pool, &id)
        .await?
        .ok_or_else(report_not_found)
}

/// A change of a report's metadata; absent fields stay as they are.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReportEdit<'a> {
    /// New name.
    pub name: Option<&'a str>,
    /// New status.
    pub status: Option<ReportStatus>,
    /// Move to this folder; `""` moves the report out of any folder.
    pub folder_id: Option<&'a str>,
}

/// Renames a report, changes its status or moves it to a folder; records who saved it and when.
pub async fn update(
    state: &AppState,
    actor: &Actor,
    id: &ReportId,
    edit: ReportEdit<'_>,
) -> ApiResult<ReportRow> {
    let (row, scope) = load(state, actor, id, Need::Write).await?;
    let name = edit
        .name
        .map(|n| clean_name(n, "Report", MAX_NAME_CHARS))
        .transpose()?;
    let folder = match edit.folder_id.map(str::trim) {
        None => None,
        Some("") => Some(None),
        Some(f) => {
            check_folder(state, &row.client_id, Some(f)).await?;
            Some(Some(f))
        }
    };
    if name.is_none() && edit.status.is_none() && folder.is_none() {
        return Err(ApiError::validation("Nothing to change"));
    }
    let change = db::ReportChange {
        name: name.as_deref(),
        status: edit.status.map(ReportStatus::as_str),
        folder_id: folder,
    };
    let mut ch = Change::begin(state, reports_topic(&row.client_id)).await?;
    if !db::update(ch.conn(), id, &change, &scope.user().id).await? {
        return Err(report_not_found());
    }
    ch.commit(
        &scope.actor,
        Event::ReportUpdated(changed(id)),
        Audit {
            event_type: "report_updated",
            entity_type: "report",
            entity_id: id,
            details: json!({
                "client_id": row.client_id,
                "name": name,
                "status": edit.status.map(ReportStatus::as_str),
                "folder_id": folder,
            }),
            severity: "info",
        },
    )
    .await?;
    let mut row = db::get(&state.db.pool, id)
        .await?
        .ok_or_else(report_not_found)?;
    refresh_section_count(state, &mut row).await;
    Ok(row)
}

/// Deletes a report and its document.
pub async fn delete(state: &AppState, actor: &Actor, id: &ReportId) -> ApiResult<()> {
    let (row, scope) = load(state, actor, id, Need::Write).await?;
    let mut ch = Change::begin(state, reports_topic(&row.client_id)).await?;
    // The media rows go with the report (cascade); their objects are removed after the commit.
    let media_keys = crate::db::report_media::keys_of_report(ch.conn(), id).await?;
    if !db::delete(ch.conn(), id).await? {
        return Err(report_not_found());
    }
    collab_store::delete_in(ch.conn(), id).await?;
    ch.commit(
        &scope.actor,
        Event::ReportDeleted(changed(id)),
        Audit {
            event_type: "report_deleted",
            entity_type: "report",
            entity_id: id,
            details: json!({"client_id": row.client_id, "name": row.name}),
            severity: "info",
        },
    )
    .await?;
    super::report_media::remove_objects(state, media_keys).await;
    Ok(())
}

/// The caller's monthly draft counter for a client: (drafts this month, the month `YYYY-MM`).
pub async fn draft_count(state: &AppState, scope: &Scope) -> ApiResult<(i64, String)> {
    let month = db::month_key(chrono::Utc::now());
    let n = db::draft_count(&state.db.pool, &scope.user().id, &scope.client_id, &month).await?;
    Ok((n, month))
}

/// The report folders of a client by name.
pub async fn folders(state: &AppState, scope: &Scope) -> ApiResult<Vec<FolderRow>> {
    Ok(db::list_folders(&state.db.pool, &scope.client_id).await?)
}

/// Creates a folder.
pub async fn create_folder(
    state: &AppState,
    scope: &Scope,
    name: &str,
    parent_folder_id: Option<&str>,
) -> ApiResult<FolderRow> {
    let name = clean_name(name, "Folder", MAX_NAME_CHARS)?;
    let parent = blank_to_none(parent_folder_id);
    check_folder(state, &scope.client_id, parent).await?;
    let mut ch = Change::begin(state, reports_topic(&scope.client_id)).await?;
    let row =
        db::insert_folder(ch.conn(), &scope.client_id, parent, &name, &scope.user().id).await?;
    ch.commit(
        &scope.actor,
        Event::FolderCreated(changed(&row.id)),
        Audit {
            event_type: "folder_created",
            entity_type: "report_folder",
            entity_id: &row.id,
            details: json!({"client_id": scope.client_id, "name": name}),
            severity: "info",
        },
    )
    .await?;
    Ok(row)
}

/// Deletes a folder and its sub-folders; their reports move out of any folder.
pub async fn delete_folder(state: &AppState, actor: &Actor, id: &FolderId) -> ApiResult<()> {
    let row = db::get_folder(&state.db.pool, id)
        .await?
        .ok_or_else(folder_not_found)?;
    let scope = match scope_of(state, actor.clone(), &row.client_id, Need::Write).await {
        Ok(s) => s,
        Err(ApiError::NotFound { .. }) => return Err(folder_not_found()),
        Err(e) => return Err(e),
    };
    let mut ch = Change::begin(state, reports_topic(&row.client_id)).await?;
    if !db::delete_folder(ch.conn(), id).await? {
        return Err(folder_not_found());
    }
    ch.commit(
        &scope.actor,
        Event::FolderDeleted(changed(id)),
        Audit {
            event_type: "folder_deleted",
            entity_type: "report_folder",
            entity_id: id,
            details: json!({"client_id": row.client_id, "name": row.name}),
            severity: "info",
        },
    )
    .await?;
    Ok(())
}
