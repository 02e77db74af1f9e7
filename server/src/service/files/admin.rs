//! File Management (spec 001 sections 2.1 to 2.3): administrators see every client's files
//! (filtered, sorted and paged by the database), assign levers (each assignment queues a
//! processing run: a file counts as processed only once its run completes), edit a file's savings
//! (the client's savings are synced in the same transaction) and name, and delete files in bulk
//! with a result per file. Every change of a file is written to its edit history in the change's
//! transaction ([`super::history`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{ClientFile, FileType, files_topic};
use crate::access::{self, Need};
use crate::db::file_admin::{self as db, AdminFileRow, AdminFilter, Page, SortKey};
use crate::db::files as files_db;
use crate::error::{ApiError, ApiResult};
use crate::realtime::events::FileChange;
use crate::realtime::{Event, Topic};
use crate::service::runs::{self, NewRun, RunMode, RunOptions, RunSnapshot};
use crate::service::{Actor, Audit, Change, savings};
use crate::state::AppState;

/// Rows per page the list offers.
pub const PAGE_SIZES: [i64; 4] = [5, 10, 20, 50];
/// Rows per page by default.
pub const DEFAULT_PAGE_SIZE: i64 = 10;
/// Most files one bulk action takes.
pub const MAX_BULK: usize = 200;
/// Largest savings figure accepted.
const MAX_SAVINGS: f64 = 1e15;

/// A file as File Management shows it: the file with its client's name.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AdminFile {
    /// The file (lever, savings, status and latest run included).
    #[serde(flatten)]
    #[ts(flatten)]
    pub file: ClientFile,
    /// The client's name.
    pub client_name: String,
}

/// One page of the list.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AdminFilePage {
    /// The page's files.
    pub items: Vec<AdminFile>,
    /// Files matching the filters, over every page.
    #[ts(type = "number")]
    pub total: i64,
    /// The page (from 1).
    #[ts(type = "number")]
    pub page: i64,
    /// Rows per page.
    #[ts(type = "number")]
    pub page_size: i64,
}

/// The list's query parameters (every one optional).
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
pub struct AdminListQuery {
    /// Part of the file name, any case.
    pub q: Option<String>,
    /// One client's id.
    #[serde(alias = "client")]
    pub client_id: Option<String>,
    /// A lever category.
    pub category: Option<String>,
    /// A lever id, or `none` for files without a lever.
    pub lever: Option<String>,
    /// Uploaded on or after this day (`YYYY-MM-DD`).
    pub from: Option<String>,
    /// Uploaded on or before this day (`YYYY-MM-DD`, inclusive to the end of the day).
    pub to: Option<String>,
    /// `all` (default), `processed` or `unprocessed`.
    pub status: Option<String>,
    /// `uploaded_at` (default), `name`, `client`, `savings_rwas`, `savings_bps` or `status`.
    pub sort: Option<String>,
    /// `desc` (default) or `asc`.
    pub dir: Option<String>,
    /// The page, from 1.
    pub page: Option<String>,
    /// Rows per page: 5, 10 (default), 20 or 50.
    pub page_size: Option<String>,
}

fn blank(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Turns the query parameters into a checked filter and page.
pub fn parse_query(q: &AdminListQuery) -> ApiResult<(AdminFilter, Page)> {
    let processed = match blank(&q.status).as_deref() {
        None | Some("all") => None,
        Some("processed") => Some(true),
        Some("unprocessed") => Some(false),
        Some(other) => {
            return Err(ApiError::validation(format!(
                "Status must be all, processed or unprocessed, not {other}"
            )));
        }
    };
    let from = blank(&q.from)
        .map(|f| super::day_start(&f, "start"))
        .transpose()?;
    let to = blank(&q.to)
        .map(|t| super::day_start(&t, "end"))
        .transpose()?;
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        return Err(ApiError::validation(
            "The start date must be on or before the end date",
        ));
    }
    let sort = match blank(&q.sort).as_deref() {
        None | Some("uploaded_at") => SortKey::UploadedAt,
        Some("name") => SortKey::Name,
        Some("client") => SortKey::Client,
        Some("savings_rwas") => SortKey::SavingsRwas,
        Some("savings_bps") => SortKey::SavingsBps,
        Some("status") => SortKey::Status,
        Some(other) => {
            return Err(ApiError::validation(format!(
                "Unknown sort: {other} (uploaded_at, name, client, savings_rwas, savings_bps or status)"
            )));
        }
    };
    let desc = match blank(&q.dir).as_deref() {
        None | Some("desc") => true,
        Some("asc") => false,
        Some(other) => {
            return Err(ApiError::validation(format!(
                "Sort direction must be asc or desc, not {other}"
            )));
        }
    };
    let page_size = match blank(&q.page_size) {
        None => DEFAULT_PAGE_SIZE,
        Some(s) => s
            .parse::<i64>()
            .ok()
            .filter(|n| PAGE_SIZES.contains(n))
            .ok_or_else(|| ApiError::validation("Rows per page must be 5, 10, 20 or 50"))?,
    };
    let page = match blank(&q.page) {
        None => 1,
        Some(s) => s
            .parse::<i64>()
            .ok()
            .filter(|n| (1..=100_000_000).contains(n))
            .ok_or_else(|| ApiError::validation("The page must be a whole number from 1"))?,
    };
    let lever = blank(&q.lever).map(|l| {
        if l.eq_ignore_ascii_case("none") {
            None
        } else {
            Some(l)
        }
    });
    Ok((
        AdminFilter {
            q: blank(&q.q),
            client_id: blank(&q.client_id),
            category: blank(&q.category),
            lever,
            processed,
            from: from.map(super::stored_day),
            to_exclusive: to.and_then(|d| d.succ_opt()).map(super::stored_day),
        },
        Page {
            sort,
            desc,
            limit: page_size,
            offset: (page - 1) * page_size,
        },
    ))
}

/// Refuses a caller who is not an administrator (the one access decision; admins have the
/// back-office right on every client).
fn require_admin(actor: &Actor, client_id: &str) -> ApiResult<()> {
    access::require(&actor.user, client_id, Need::Admin).map(|_| ())
}

/// The views of a page's rows with their latest runs.
async fn views(state: &AppState, rows: Vec<AdminFileRow>) -> ApiResult<Vec<AdminFile>> {
    let ids: Vec<String> = rows.iter().map(|r| r.file.id.clone()).collect();
    let mut latest: HashMap<String, RunSnapshot> = db::latest_runs(&state.db.pool, &ids)
        .await?
        .iter()
        .map(|r| (r.file_id.clone(), RunSnapshot::from_row(r)))
        .collect();
    Ok(rows
        .into_iter()
        .map(|r| {
            let run = latest.remove(&r.file.id);
            AdminFile {
                file: ClientFile::from_row(r.file, run),
                client_name: r.client_name,
            }
        })
        .collect())
}

/// The ids of a page and the total. Page 1 is read first (a short first page is the total); a
/// later page is counted first, and a page in the far half of the matching files is read from
/// the other end of the sort (the opposite direction, then reversed): an index is never walked
/// over more than half of the matching files to reach a page.
async fn page_ids_and_total(
    state: &AppState,
    filter: &AdminFilter,
    page: &Page,
) -> ApiResult<(Vec<String>, i64)> {
    let (pool, backend) = (&state.db.pool, state.db.backend);
    if page.offset == 0 {
        let ids = db::page_ids(pool, backend, filter, page).await?;
        let total = if (ids.len() as i64) < page.limit {
            ids.len() as i64
        } else {
            db::count(pool, backend, filter).await?
        };
        return Ok((ids, total));
    }
    let total = db::count(pool, backend, filter).await?;
    let ids = match mirrored(page, total) {
        None => Vec::new(),
        Some((p, false)) => db::page_ids(pool, backend, filter, &p).await?,
        Some((p, true)) => {
            let mut ids = db::page_ids(pool, backend, filter, &p).await?;
            ids.reverse();
            ids
        }
    };
    Ok((ids, total))
}

/// How to read `page` of `total` matching files: `None` past the end; else the page to read and
/// whether it is the mirror image (opposite direction, rows to reverse) of the one asked for,
/// which it is when the page starts in the far half.
fn mirrored(page: &Page, total: i64) -> Option<(Page, bool)> {
    if page.offset >= total {
        return None;
    }
    if page.offset * 2 < total {
        return Some((*page, false));
    }
    let end = (page.offset + page.limit).min(total);
    Some((
        Page {
            desc: !page.desc,
            limit: end - page.offset,
            offset: total - end,
            ..*page
        },
        true,
    ))
}

/// One page of every client's files (administrators).
pub async fn list(state: &AppState, actor: &Actor, q: &AdminListQuery) -> ApiResult<AdminFilePage> {
    actor.user.require_admin()?;
    let (filter, page) = parse_query(q)?;
    let (ids, total) = page_ids_and_total(state, &filter, &page).await?;
    let mut rows = db::by_ids(&state.db.pool, &ids).await?;
    let at: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    rows.sort_by_key(|r| at.get(r.file.id.as_str()).copied().unwrap_or(usize::MAX));
    Ok(AdminFilePage {
        items: views(state, rows).await?,
        total,
        page: page.offset / page.limit + 1,
        page_size: page.limit,
    })
}

/// One file with its client's name and latest run (administrators).
pub async fn get(state: &AppState, actor: &Actor, id: &str) -> ApiResult<AdminFile> {
    actor.user.require_admin()?;
    let row = db::get(&state.db.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("File not found"))?;
    require_admin(actor, &row.file.client_id)?;
    Ok(views(state, vec![row]).await?.remove(0))
}

/// Assigns a lever to one file and queues its processing run, in one transaction (see
/// [`queue_with_lever`]). The run reads the file with the lever and the mapping options of the
/// file's previous run, if any; when that run classified the file (enhanced AI), the choice is
/// recorded as a review of its classification (`service::classification::record_review`).
pub async fn assign_lever(
    state: &AppState,
    actor: &Actor,
    file_id: &str,
    lever_id: &str,
) -> ApiResult<RunSnapshot> {
    actor.user.require_admin()?;
    let lever = crate::db::levers::get(&state.db.pool, lever_id)
        .await?
        .ok_or_else(|| ApiError::validation("Invalid lever ID"))?;
    let row = files_db::get(&state.db.pool, file_id)
        .await?
        .ok_or_else(|| ApiError::not_found("File not found"))?;
    require_admin(actor, &row.client_id)?;
    let client = row.client_id.clone();
    let mut change = Change::begin(state, files_topic(&client)).await?;
    let queued = queue_with_lever(&mut change, actor, file_id, &lever.id, None).await?;
    // An administrator choosing the lever of a file the classifier classified decides that
    // classification: a review (approved when the lever is the one proposed, corrected
    // otherwise), which the classifier reads back and the 'Continuous Learning' figures measure.
    if let (Some(run), Some(code)) = (&queued.previous, lever.code.as_deref()) {
        let run_id = queued.run.id.to_string();
        crate::service::classification::record_review(
            change.conn(),
            run,
            crate::service::classification::Decision {
                approved: true,
                lever_code: Some(code),
                by: Some(actor.user.id.as_str()),
                explanation: "",
                follow_up_run_id: Some(&run_id),
            },
        )
        .await?;
    }
    let run = queued.run;
    change
        .commit(
            actor,
            Event::FileUpdated(FileChange {
                client_id: client.clone(),
                file_id: file_id.to_string(),
            }),
            Audit {
                event_type: "file_lever_assigned",
                entity_type: "client_file",
                entity_id: file_id,
                details: serde_json::json!({
                    "client_id": client,
                    "previous_lever_id": queued.previous_lever_id,
                    "lever_id": lever.id,
                    "run_id": run.id.to_string(),
                }),
                severity: "info",
            },
        )
        .await?;
    Ok(run)
}

/// What [`queue_with_lever`] did.
#[derive(Debug)]
pub struct Queued {
    /// The run queued.
    pub run: RunSnapshot,
    /// The file's latest run before it (after cancelling a queued one), if any.
    pub previous: Option<crate::db::runs::RunRow>,
    /// The file's lever before.
    pub previous_lever_id: Option<String>,
}

/// Gives a file a lever and queues its processing run with that lever (the confidence check of a
/// classification does not apply: the lever is chosen), in `change`, which must have begun on
/// the file's client's files topic: a run still queued for the file is cancelled first, a file
/// whose run is running is refused (wait for it or cancel it); the file is no longer processed
/// until the new run completes (its savings leave the client's totals, synced in the same
/// transaction); the history records the lever and processed changes; `admin:files` and the
/// runs' topics are told after the commit (the caller gives the files topic's event). The run
/// reads the file with `options`, or those of the file's previous run.
pub async fn queue_with_lever(
    change: &mut Change<'_>,
    actor: &Actor,
    file_id: &str,
    lever_id: &str,
    options: Option<RunOptions>,
) -> ApiResult<Queued> {
    // Read again under the change's lock on the client's files topic.
    let before = files_db::get(change.conn(), file_id)
        .await?
        .ok_or_else(|| ApiError::not_found("File not found"))?;
    if !FileType::from_extension(&before.file_type).is_some_and(FileType::is_table) {
        return Err(ApiError::validation(
            "This file cannot be processed: processing needs a CSV or Excel file.",
        ));
    }
    let client = before.client_id.clone();
    let now = crate::db::now();
    let mut cancelled = Vec::new();
    for (run_id, run_state) in db::open_runs(change.conn(), file_id).await? {
        // A queued run claimed meanwhile is running: refused like one found running.
        if run_state != "queued"
            || !crate::db::runs::cancel_queued(change.conn(), &run_id, &now).await?
        {
            return Err(ApiError::Conflict {
                code: "run_in_progress",
                message: "The file is being processed: wait for its run to end or cancel it".into(),
            });
        }
        cancelled.push(runs::snapshot_in(change.conn(), &run_id.clone().into()).await?);
    }
    let previous = match runs::latest_for_file(change.conn(), file_id).await? {
        Some(p) => crate::db::runs::get(change.conn(), &p.id).await?,
        None => None,
    };
    let options: RunOptions = match options {
        Some(o) => o,
        None => previous
            .as_ref()
            .and_then(|r| serde_json::from_str(&r.options).ok())
            .unwrap_or_default(),
    };
    db::set_lever_queued(change.conn(), file_id, lever_id).await?;
    let run_id = runs::enqueue(
        change.conn(),
        NewRun {
            client_id: client.clone().into(),
            file_id: file_id.to_string(),
            user_id: actor.user.id.clone(),
            mode: RunMode::Manual,
            lever_id: Some(lever_id.to_string()),
            mapping: options.mapping,
            risk_weight_format: options.risk_weight_format,
            maturity_unit: options.maturity_unit,
        },
    )
    .await?;
    let after = files_db::get(change.conn(), file_id)
        .await?
        .ok_or_else(|| ApiError::not_found("File not found"))?;
    super::history::record_diff(change.conn(), &before, &after, Some(&actor.user.id)).await?;
    if before.processed != 0 {
        savings::resync_and_announce(change, &client).await?;
    }
    let run = runs::snapshot_in(change.conn(), &run_id).await?;
    change
        .also(
            Topic::Admin { area: "files" },
            Event::FileUpdated(FileChange {
                client_id: client,
                file_id: file_id.to_string(),
            }),
        )
        .await?;
    for snap in cancelled {
        change.also_run_progress(snap);
    }
    change.also_run_progress(run.clone());
    Ok(Queued {
        run,
        previous,
        previous_lever_id: before.lever_id,
    })
}

/// The outcome of a bulk action on one file.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FileOutcome {
    /// The file.
    pub file_id: String,
    /// Whether the action succeeded on it.
    pub success: bool,
    /// Why not.
    pub error: Option<String>,
    /// The run queued for it (lever assignment).
    pub run_id: Option<String>,
}

/// The outcome of a bulk action.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct BulkOutcome {
    /// Files the action succeeded on.
    pub succeeded: u32,
    /// Files it failed on.
    pub failed: u32,
    /// One result per file, in the order asked.
    pub results: Vec<FileOutcome>,
}

/// The message a bulk result gives for an error (server errors are logged, not disclosed).
fn outcome_message(e: &ApiError) -> String {
    match e {
        ApiError::Database(_) | ApiError::Internal(_) => {
            tracing::error!(error = %e, "a bulk file action failed");
            "An unexpected error occurred. Please try again.".into()
        }
        other => other.to_string(),
    }
}

/// Checks a bulk action's list: 1 to [`MAX_BULK`] ids, duplicates dropped (first kept).
fn bulk_ids(ids: &[String]) -> ApiResult<Vec<String>> {
    let mut seen = std::collections::HashSet::new();
    let ids: Vec<String> = ids
        .iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && seen.insert(s.clone()))
        .collect();
    if ids.is_empty() {
        return Err(ApiError::validation("Select at least one file"));
    }
    if ids.len() > MAX_BULK {
        return Err(ApiError::validation(format!(
            "At most {MAX_BULK} files at a time"
        )));
    }
    Ok(ids)
}

/// Assigns a lever to each file (each in its own transaction, see [`assign_lever`]), with a
/// result per file. An unknown lever refuses the whole request and changes nothing.
pub async fn assign_lever_bulk(
    state: &AppState,
    actor: &Actor,
    file_ids: &[String],
    lever_id: &str,
) -> ApiResult<BulkOutcome> {
    actor.user.require_admin()?;
    let ids = bulk_ids(file_ids)?;
    let lever_id = lever_id.trim();
    if lever_id.is_empty() || lever_id == "tbd" {
        return Err(ApiError::validation("Select a lever to assign"));
    }
    if crate::db::levers::get(&state.db.pool, lever_id)
        .await?
        .is_none()
    {
        return Err(ApiError::validation("Invalid lever ID"));
    }
    let mut out = BulkOutcome {
        succeeded: 0,
        failed: 0,
        results: Vec::with_capacity(ids.len()),
    };
    for id in ids {
        match assign_lever(state, actor, &id, lever_id).await {
            Ok(run) => {
                out.succeeded += 1;
                out.results.push(FileOutcome {
                    file_id: id,
                    success: true,
                    error: None,
                    run_id: Some(run.id.to_string()),
                });
            }
            Err(e) => {
                out.failed += 1;
                out.results.push(FileOutcome {
                    file_id: id,
                    success: false,
                    error: Some(outcome_message(&e)),
                    run_id: None,
                });
            }
        }
    }
    Ok(out)
}

/// Deletes each file with the one file deletion (record, runs and their results, both stored
/// objects, the client's savings synced), with a result per file.
pub async fn delete_bulk(
    state: &AppState,
    actor: &Actor,
    file_ids: &[String],
) -> ApiResult<BulkOutcome> {
    actor.user.require_admin()?;
    let ids = bulk_ids(file_ids)?;
    let mut out = BulkOutcome {
        succeeded: 0,
        failed: 0,
        results: Vec::with_capacity(ids.len()),
    };
    for id in ids {
        let r = match files_db::get(&state.db.pool, &id).await {
            Ok(Some(row)) => match require_admin(actor, &row.client_id) {
                Ok(()) => super::delete(state, actor, &id).await,
                Err(e) => Err(e),
            },
            Ok(None) => Err(ApiError::not_found("File not found")),
            Err(e) => Err(e.into()),
        };
        match r {
            Ok(()) => {
                out.succeeded += 1;
                out.results.push(FileOutcome {
                    file_id: id,
                    success: true,
                    error: None,
                    run_id: None,
                });
            }
            Err(e) => {
                out.failed += 1;
                out.results.push(FileOutcome {
                    file_id: id,
                    success: false,
                    error: Some(outcome_message(&e)),
                    run_id: None,
                });
            }
        }
    }
    Ok(out)
}

/// An administrator's edit of a file's savings or name (each field optional, at least one).
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct FileEditInput {
    /// RWA savings (0 or more).
    #[serde(default)]
    pub savings_rwas: Option<f64>,
    /// Savings in bps (0 or more).
    #[serde(default)]
    pub savings_bps: Option<f64>,
    /// The file's display name.
    #[serde(default)]
    pub name: Option<String>,
}

fn check_savings(v: Option<f64>, what: &str) -> ApiResult<Option<f64>> {
    match v {
        None => Ok(None),
        Some(v) if v.is_finite() && (0.0..=MAX_SAVINGS).contains(&v) => Ok(Some(v)),
        Some(_) => Err(ApiError::validation(format!(
            "{what} must be a number of 0 or more"
        ))),
    }
}

/// Edits a file's savings and name in one transaction: the history records each changed field,
/// and a savings edit syncs the client's savings ([`savings::resync_and_announce`]), whose events
/// go out after the commit. Bad input changes nothing.
pub async fn edit(
    state: &AppState,
    actor: &Actor,
    file_id: &str,
    input: FileEditInput,
) -> ApiResult<AdminFile> {
    actor.user.require_admin()?;
    let rwas = check_savings(input.savings_rwas, "Savings (RWAs)")?;
    let bps = check_savings(input.savings_bps, "Savings (BPS)")?;
    let name = match input.name.as_deref() {
        None => None,
        Some(n) => {
            let n = crate::service::clean_name(n, "File", super::kind::MAX_NAME_CHARS)?;
            Some(super::kind::sanitize_name(&n))
        }
    };
    if rwas.is_none() && bps.is_none() && name.is_none() {
        return Err(ApiError::validation("Nothing to change"));
    }
    let row = files_db::get(&state.db.pool, file_id)
        .await?
        .ok_or_else(|| ApiError::not_found("File not found"))?;
    require_admin(actor, &row.client_id)?;
    let client = row.client_id.clone();
    let mut change = Change::begin(state, files_topic(&client)).await?;
    let before = files_db::get(change.conn(), file_id)
        .await?
        .ok_or_else(|| ApiError::not_found("File not found"))?;
    if let Some(v) = rwas {
        db::set_savings_rwas(change.conn(), file_id, v).await?;
    }
    if let Some(v) = bps {
        db::set_savings_bps(change.conn(), file_id, v).await?;
    }
    if let Some(n) = &name {
        db::set_name(change.conn(), file_id, n).await?;
    }
    let after = files_db::get(change.conn(), file_id)
        .await?
        .ok_or_else(|| ApiError::not_found("File not found"))?;
    super::history::record_diff(change.conn(), &before, &after, Some(&actor.user.id)).await?;
    if rwas.is_some() || bps.is_some() {
        savings::resync_and_announce(&mut change, &client).await?;
    }
    let payload = FileChange {
        client_id: client.clone(),
        file_id: file_id.to_string(),
    };
    change
        .also(
            Topic::Admin { area: "files" },
            Event::FileUpdated(payload.clone()),
        )
        .await?;
    change
        .commit(
            actor,
            Event::FileUpdated(payload),
            Audit {
                event_type: "file_edited",
                entity_type: "client_file",
                entity_id: file_id,
                details: serde_json::json!({
                    "client_id": client,
                    "savings_rwas": [before.savings_rwas, after.savings_rwas],
                    "savings_bps": [before.savings_bps, after.savings_bps],
                    "name": [before.name, after.name],
                }),
                severity: "info",
            },
        )
        .await?;
    get(state, actor, file_id).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> AdminListQuery {
        let v: serde_json::Map<String, serde_json::Value> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.to_string())))
            .collect();
        serde_json::from_value(serde_json::Value::Object(v)).unwrap()
    }

    #[test]
    fn defaults_and_end_of_day() {
        let (f, p) = parse_query(&q(&[("from", "2026-01-05"), ("to", "2026-01-05")])).unwrap();
        assert_eq!(f.from.as_deref(), Some("2026-01-05T00:00:00.000000Z"));
        assert_eq!(
            f.to_exclusive.as_deref(),
            Some("2026-01-06T00:00:00.000000Z")
        );
        assert_eq!((p.limit, p.offset, p.desc), (10, 0, true));
        assert_eq!(p.sort, SortKey::UploadedAt);
        let (_, p) = parse_query(&q(&[("page", "3"), ("page_size", "20")])).unwrap();
        assert_eq!((p.limit, p.offset), (20, 40));
    }

    #[test]
    fn pages_in_the_far_half_are_read_from_the_other_end() {
        let page = |offset, limit| Page {
            sort: SortKey::Name,
            desc: true,
            limit,
            offset,
        };
        // 23 files by 10: pages 1 and 2 read forwards, page 3 (3 rows) is the first 3 backwards.
        assert_eq!(mirrored(&page(0, 10), 23), Some((page(0, 10), false)));
        assert_eq!(mirrored(&page(10, 10), 23), Some((page(10, 10), false)));
        let (p, flipped) = mirrored(&page(20, 10), 23).unwrap();
        assert!(flipped && !p.desc);
        assert_eq!((p.offset, p.limit), (0, 3));
        // 100 by 10: page 6 (rows 50-59) is rows 40-49 backwards.
        let (p, flipped) = mirrored(&page(50, 10), 100).unwrap();
        assert!(flipped);
        assert_eq!((p.offset, p.limit), (40, 10));
        assert_eq!(mirrored(&page(30, 10), 30), None);
    }

    #[test]
    fn bad_input_is_refused_with_a_message() {
        for bad in [
            ("page_size", "15"),
            ("page", "0"),
            ("page", "x"),
            ("status", "done"),
            ("sort", "size"),
            ("dir", "up"),
            ("from", "05/01/2026"),
        ] {
            assert!(parse_query(&q(&[bad])).is_err(), "{bad:?}");
        }
        assert!(parse_query(&q(&[("from", "2026-02-01"), ("to", "2026-01-01")])).is_err());
    }

    #[test]
    fn bulk_lists_are_checked() {
        assert!(bulk_ids(&[]).is_err());
        assert!(bulk_ids(&[" ".into()]).is_err());
        assert_eq!(
            bulk_ids(&["a".into(), "b".into(), "a".into()]).unwrap(),
            ["a", "b"]
        );
        assert!(bulk_ids(&vec!["x".to_string(); 1]).is_ok());
        let many: Vec<String> = (0..=MAX_BULK).map(|i| i.to_string()).collect();
        assert!(bulk_ids(&many).is_err());
    }
}
