//! Version history of a report: named versions of its collaborative document (who, when), a
//! read-only view of one, and restore.
//!
//! A version is the document's whole state when it was taken. Restoring one never rewinds the
//! document: the server computes the edit that makes the content equal the version's
//! ([`collab::versions::restore_update`]) and applies it like any co-editor's edit, so everyone
//! with the report open receives it live and a concurrent edit merges with it. The state just
//! before is kept first as an automatic version ("Before restoring …"), so a restore can itself
//! be undone by restoring that one. A report keeps at most [`MAX_VERSIONS`]; its editors delete
//! the ones they no longer need. Readers of the report (viewers included) list and view
//! versions; only its editors take, restore or delete them. Each change is announced on the client's
//! reports topic (`report.versions.changed`).

use serde::Serialize;
use serde_json::json;

use super::reports::{document_state, load, reports_topic};
use super::{Actor, Audit, Change, clean_name};
use crate::access::Need;
use crate::db::report_versions::{self as db, NewVersion, VersionRow};
use crate::error::{ApiError, ApiResult};
use crate::ids::ReportId;
use crate::realtime::Event;
use crate::state::AppState;

/// Longest version name accepted.
pub const MAX_VERSION_NAME_CHARS: usize = 120;
/// Versions a report keeps at most (each holds a whole state).
pub const MAX_VERSIONS: i64 = 200;

/// Which report's versions changed (`report.versions.changed`, on the client's reports topic):
/// the report's open version lists refetch.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReportVersionChange {
    /// The report.
    pub report_id: String,
    /// The version taken.
    pub version_id: String,
}

fn version_not_found() -> ApiError {
    ApiError::NotFound {
        code: "version_not_found",
        message: "Version not found".into(),
    }
}

fn too_many() -> ApiError {
    ApiError::Conflict {
        code: "too_many_versions",
        message: format!(
            "A report keeps at most {MAX_VERSIONS} versions. Delete one to save another."
        ),
    }
}

fn section_count(update_v1: &[u8]) -> ApiResult<i64> {
    let sections = collab::report::read_sections_v1(update_v1)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("report state: {e}")))?;
    Ok(i64::try_from(sections.len()).unwrap_or(i64::MAX))
}

/// The versions of a report, newest first (its readers).
pub async fn list(state: &AppState, actor: &Actor, id: &ReportId) -> ApiResult<Vec<VersionRow>> {
    load(state, actor, id, Need::Read).await?;
    Ok(db::list(&state.db.pool, id).await?)
}

/// One version with its state (a v1 update), for a read-only view (its readers).
pub async fn get(
    state: &AppState,
    actor: &Actor,
    id: &ReportId,
    version_id: &str,
) -> ApiResult<(VersionRow, Vec<u8>)> {
    load(state, actor, id, Need::Read).await?;
    db::get(&state.db.pool, id, version_id)
        .await?
        .ok_or_else(version_not_found)
}

/// Stores `update_v1` as a version of the report in one transaction, announced to its readers.
async fn insert(
    state: &AppState,
    scope: &super::Scope,
    id: &ReportId,
    name: &str,
    kind: &'static str,
    update_v1: &[u8],
) -> ApiResult<VersionRow> {
    let version_id = crate::db::new_id();
    let sections = section_count(update_v1)?;
    let mut ch = Change::begin(state, reports_topic(&scope.client_id)).await?;
    if db::count(ch.conn(), id).await? >= MAX_VERSIONS {
        return Err(too_many());
    }
    db::insert(
        ch.conn(),
        &NewVersion {
            id: &version_id,
            report_id: id,
            name,
            kind,
            state: update_v1,
            section_count: sections,
            created_by: &scope.user().id,
            created_at: &crate::db::now(),
        },
    )
    .await?;
    ch.commit(
        &scope.actor,
        Event::ReportVersionsChanged(ReportVersionChange {
            report_id: id.to_string(),
            version_id: version_id.clone(),
        }),
        Audit {
            event_type: "report_version_created",
            entity_type: "report",
            entity_id: id,
            details: json!({"client_id": scope.client_id, "version_id": version_id, "name": name, "kind": kind}),
            severity: "info",
        },
    )
    .await?;
    db::get(&state.db.pool, id, &version_id)
        .await?
        .map(|(row, _)| row)
        .ok_or_else(version_not_found)
}

/// Takes a named version of the report as it is now, every co-editor's latest edits included
/// (its editors).
pub async fn create(
    state: &AppState,
    actor: &Actor,
    id: &ReportId,
    name: &str,
) -> ApiResult<VersionRow> {
    let (_, scope) = load(state, actor, id, Need::Write).await?;
    let name = clean_name(name, "Version", MAX_VERSION_NAME_CHARS)?;
    let current = document_state(state, id).await?;
    insert(state, &scope, id, &name, "manual", &current).await
}

/// Restores a version (its editors): first keeps the current state as the automatic version
/// "Before restoring “{name}”", then applies the edit that brings the version's content back,
/// received live by every co-editor. Returns the automatic version.
pub async fn restore(
    state: &AppState,
    actor: &Actor,
    id: &ReportId,
    version_id: &str,
) -> ApiResult<VersionRow> {
    let (_, scope) = load(state, actor, id, Need::Write).await?;
    let (version, old) = db::get(&state.db.pool, id, version_id)
        .await?
        .ok_or_else(version_not_found)?;
    let current = document_state(state, id).await?;
    let update = collab::versions::restore_update(&current, &old)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("version {version_id}: {e}")))?;
    let name = format!("Before restoring “{}”", version.name);
    let what = format!("the restore of version {version_id}");
    keep_then_apply(
        state,
        &scope,
        id,
        (&name, "before_restore"),
        &current,
        update,
        &what,
    )
    .await
}

/// Stores `current` as the automatic version `name` of `kind`, then applies `update` (`what`,
/// for the log) to the live document through the hub, so every connection receives it.
async fn keep_then_apply(
    state: &AppState,
    scope: &super::Scope,
    id: &ReportId,
    (name, kind): (&str, &'static str),
    current: &[u8],
    update: Vec<u8>,
    what: &str,
) -> ApiResult<VersionRow> {
    let name: String = name.chars().take(MAX_VERSION_NAME_CHARS).collect();
    let before = insert(state, scope, id, &name, kind, current).await?;
    state
        .collab
        .apply_update(id, update)
        .await
        .map_err(|reason| {
            ApiError::Internal(anyhow::anyhow!(
                "could not apply {what} to report {id}: {reason:?}"
            ))
        })?;
    Ok(before)
}

/// Imports an active template's sections into a report (its editors): first keeps the current
/// state as the automatic version "Before importing “{template}”", then appends the template's
/// sections (text, tables and charts) after the report's last, received live by every
/// co-editor. Restoring the automatic version undoes the import. Returns that version and the
/// number of sections added.
pub async fn import_template(
    state: &AppState,
    actor: &Actor,
    id: &ReportId,
    template_id: &str,
) -> ApiResult<(VersionRow, u32)> {
    let (_, scope) = load(state, actor, id, Need::Write).await?;
    let template = super::report_templates::active(state, template_id.trim()).await?;
    let sections = super::report_templates::section_inits(&template, |_, _| crate::db::new_id());
    let current = document_state(state, id).await?;
    let existing = section_count(&current)?;
    let room = super::report_templates::MAX_SECTIONS as i64 - existing;
    if (sections.len() as i64) > room {
        return Err(ApiError::validation(format!(
            "A report holds at most {} sections: this one has {existing}, the template adds {}.",
            super::report_templates::MAX_SECTIONS,
            sections.len()
        )));
    }
    let update = collab::report::append_sections_update(&current, &sections)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("import into report {id}: {e}")))?;
    let name = format!("Before importing “{}”", template.name);
    let what = format!("the import of template {template_id}");
    let version = keep_then_apply(
        state,
        &scope,
        id,
        (&name, "before_import"),
        &current,
        update,
        &what,
    )
    .await?;
    Ok((version, u32::try_from(sections.len()).unwrap_or(u32::MAX)))
}

/// Deletes a version (its editors); the document is not touched.
pub async fn delete(
    state: &AppState,
    actor: &Actor,
    id: &ReportId,
    version_id: &str,
) -> ApiResult<()> {
    let (_, scope) = load(state, actor, id, Need::Write).await?;
    let mut ch = Change::begin(state, reports_topic(&scope.client_id)).await?;
    if !db::delete(ch.conn(), id, version_id).await? {
        return Err(version_not_found());
    }
    ch.commit(
        &scope.actor,
        Event::ReportVersionsChanged(ReportVersionChange {
            report_id: id.to_string(),
            version_id: version_id.to_owned(),
        }),
        Audit {
            event_type: "report_version_deleted",
            entity_type: "report",
            entity_id: id,
            details: json!({"client_id": scope.client_id, "version_id": version_id}),
            severity: "info",
        },
    )
    .await?;
    Ok(())
}
