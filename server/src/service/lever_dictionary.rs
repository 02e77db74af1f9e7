//! The lever dictionary (spec 000 section 2.8): administrators add, edit, re-categorise and delete
//! levers and keep each lever's analysis files in object storage under the lever's folder
//! ([`crate::storage::lever_folder`]).
//!
//! **Renames move files without losing any.** A rename that changes the folder of a lever with
//! files runs the protocol of migration 0016: mark the move and each file's new key (committed),
//! copy every object, then ONE transaction renames the lever and points the files at their
//! copies, then the old objects are deleted. A failed copy undoes the move (the copies are
//! deleted, the lever keeps its name and files). After a crash, [`recover_moves`] (at start-up
//! and every [`RECOVERY_INTERVAL`]) undoes a move whose heartbeat stopped before the rename
//! committed and finishes the deletions of one that committed. Uploads and deletions of a
//! lever's files wait for its move (409), and every change of the dictionary runs on the
//! `admin:levers` topic, which serialises them.
//!
//! Deleting a lever that client files or processing runs name is refused; the engine's own
//! levers (those with an analysis code) are never deleted.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::files::kind::{self, Seen};
use super::{Actor, Audit, AuditActor, Change};
use crate::db::lever_files::{self as db, LeverFileRow};
use crate::error::{ApiError, ApiResult};
use crate::realtime::events::LeverChange;
use crate::realtime::{Event, Topic};
use crate::state::AppState;
use crate::storage::{ObjectKey, Storage, lever_folder};

/// The categories a lever may have.
pub const CATEGORIES: [&str; 4] = ["Assets", "CET1 deductions", "CRMT", "Other"];
/// The categories offered when adding a lever ('Other' is not selectable there).
pub const NEW_CATEGORIES: [&str; 3] = ["Assets", "CET1 deductions", "CRMT"];
/// Largest analysis file (25 MB each, spec 000 section 9).
pub const MAX_FILE_BYTES: u64 = 25 * 1024 * 1024;
/// Most files in one upload.
pub const MAX_FILES_PER_UPLOAD: usize = 20;
/// The analysis files' types.
pub const FILE_TYPES: [&str; 3] = ["xlsx", "xls", "csv"];
/// A move whose heartbeat is older than this is taken for abandoned by [`recover_moves`].
pub const MOVE_STALE_AFTER: Duration = Duration::from_secs(120);
/// How often [`start_recovery`] looks for abandoned moves.
pub const RECOVERY_INTERVAL: Duration = Duration::from_secs(30);

/// 'Please select at least one file to upload.'
pub const NO_FILES: &str = "Please select at least one file to upload.";
/// 'Please upload only {types} files.'
pub const WRONG_TYPE: &str = "Please upload only xlsx, xls, csv files.";
/// 'Files must be smaller than {n}MB'
pub const TOO_BIG: &str = "Files must be smaller than 25MB";
/// A name blank after trimming.
pub const NAME_REQUIRED: &str = "Lever name is required.";
/// Two levers whose names give the same folder.
pub const DUPLICATE_NAME: &str = "A lever with this name already exists.";
/// A change while the lever's files are being moved.
pub const MOVING: &str =
    "This lever's analysis files are being moved to its new folder. Please try again in a moment.";
/// A rename whose file move failed.
pub const MOVE_FAILED: &str = "The lever's analysis files could not be moved to the new folder, so nothing was changed. Please try again.";

/// The topic of the lever dictionary.
pub fn levers_topic() -> Topic {
    Topic::Admin { area: "levers" }
}

/// A lever as the dictionary shows it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeverEntry {
    /// Id.
    pub id: String,
    /// The analysis engine's code for its own levers (they cannot be deleted).
    pub code: Option<String>,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Assets, CET1 deductions, CRMT or Other.
    pub category: String,
    /// How many analysis files it has.
    #[ts(type = "number")]
    pub file_count: i64,
    /// The folder its analysis files are kept in.
    pub folder: String,
    /// A rename is moving its files.
    pub moving: bool,
}

impl From<db::EntryRow> for LeverEntry {
    fn from(r: db::EntryRow) -> LeverEntry {
        LeverEntry {
            folder: lever_folder(&r.lever_name, &r.id),
            id: r.id,
            code: r.code,
            name: r.lever_name,
            description: r.description,
            category: r.lever_category,
            file_count: r.file_count,
            moving: r.move_token.is_some(),
        }
    }
}

/// An analysis file of a lever.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeverFile {
    /// Id.
    pub id: String,
    /// The lever.
    pub lever_id: String,
    /// The name it was uploaded with.
    pub name: String,
    /// Size in bytes.
    #[ts(type = "number")]
    pub size_bytes: i64,
    /// When it was uploaded.
    pub uploaded_at: String,
    /// Where it is kept (`levers/{folder}/...`).
    pub key: String,
}

impl From<LeverFileRow> for LeverFile {
    fn from(r: LeverFileRow) -> LeverFile {
        LeverFile {
            id: r.id,
            lever_id: r.lever_id,
            name: r.name,
            size_bytes: r.size_bytes,
            uploaded_at: r.uploaded_at,
            key: r.object_key,
        }
    }
}

/// The fields of a lever (Add Lever and Edit).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct LeverInput {
    /// Name (trimmed, required).
    pub name: String,
    /// Assets, CET1 deductions or CRMT (and Other when editing).
    pub category: String,
    /// Description (required when adding).
    #[serde(default)]
    pub description: String,
}

/// A category change (the table's inline selector).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct CategoryInput {
    /// Assets, CET1 deductions, CRMT or Other.
    pub category: String,
}

/// A received analysis file.
#[derive(Debug)]
pub struct ReceivedFile {
    /// The temporary file.
    pub path: crate::storage::TempPath,
    /// The name the browser sent.
    pub name: String,
    /// What was seen of it.
    pub seen: Seen,
}

fn category(raw: &str, allowed: &[&str]) -> ApiResult<String> {
    let c = raw.trim();
    if c.is_empty() {
        return Err(ApiError::validation("Category is required."));
    }
    allowed
        .iter()
        .find(|a| a.eq_ignore_ascii_case(c))
        .map(|a| (*a).to_owned())
        .ok_or_else(|| {
            ApiError::validation(format!("Category must be one of {}.", allowed.join(", ")))
        })
}

struct Checked {
    name: String,
    category: String,
    description: String,
}

fn check(input: &LeverInput, adding: bool) -> ApiResult<Checked> {
    let name = input.name.trim();
    if name.is_empty() {
        return Err(ApiError::validation(NAME_REQUIRED));
    }
    if name.chars().count() > 100 {
        return Err(ApiError::validation(
            "Lever name must be at most 100 characters.",
        ));
    }
    let category = category(
        &input.category,
        if adding { &NEW_CATEGORIES } else { &CATEGORIES },
    )?;
    let description = input.description.trim();
    if adding && description.is_empty() {
        return Err(ApiError::validation("Description is required."));
    }
    if description.chars().count() > 5000 {
        return Err(ApiError::validation(
            "Description must be at most 5000 characters.",
        ));
    }
    Ok(Checked {
        name: name.to_owned(),
        category,
        description: description.to_owned(),
    })
}

/// Refuses a name whose folder another lever's name already gives.
pub(crate) async fn check_unique(
    conn: &mut sqlx::AnyConnection,
    id: &str,
    name: &str,
) -> ApiResult<()> {
    let folder = lever_folder(name, id);
    let taken = db::names(&mut *conn)
        .await?
        .into_iter()
        .any(|(other, other_name)| other != id && lever_folder(&other_name, &other) == folder);
    if taken {
        return Err(ApiError::Conflict {
            code: "duplicate_lever",
            message: DUPLICATE_NAME.into(),
        });
    }
    Ok(())
}

fn moving() -> ApiError {
    ApiError::Conflict {
        code: "lever_moving",
        message: MOVING.into(),
    }
}

fn not_found() -> ApiError {
    ApiError::not_found("Lever not found")
}

pub(crate) fn changed(lever_id: &str) -> Event {
    Event::LeversChanged(LeverChange {
        lever_id: lever_id.to_owned(),
    })
}

/// Every lever with its file count, by name.
pub async fn list(state: &AppState) -> ApiResult<Vec<LeverEntry>> {
    Ok(db::entries(&state.db.pool)
        .await?
        .into_iter()
        .map(LeverEntry::from)
        .collect())
}

/// Adds a lever.
pub async fn create(state: &AppState, actor: &Actor, input: LeverInput) -> ApiResult<LeverEntry> {
    let c = check(&input, true)?;
    let id = crate::db::new_id();
    let mut change = Change::begin(state, levers_topic()).await?;
    check_unique(change.conn(), &id, &c.name).await?;
    db::insert_lever(
        change.conn(),
        &id,
        &c.name,
        &c.description,
        &c.category,
        &crate::db::now(),
    )
    .await?;
    let entry = db::entry(change.conn(), &id).await?.ok_or_else(not_found)?;
    change
        .commit(
            actor,
            changed(&id),
            Audit {
                event_type: "lever_created",
                entity_type: "lever",
                entity_id: &id,
                details: json!({"name": c.name, "category": c.category}),
                severity: "info",
            },
        )
        .await?;
    Ok(entry.into())
}

/// Changes a lever's category (the inline selector).
pub async fn set_category(
    state: &AppState,
    actor: &Actor,
    id: &str,
    input: CategoryInput,
) -> ApiResult<LeverEntry> {
    let category = category(&input.category, &CATEGORIES)?;
    let mut change = Change::begin(state, levers_topic()).await?;
    let before = db::entry(change.conn(), id).await?.ok_or_else(not_found)?;
    db::set_category(change.conn(), id, &category, &crate::db::now()).await?;
    let entry = db::entry(change.conn(), id).await?.ok_or_else(not_found)?;
    change
        .commit(
            actor,
            changed(id),
            Audit {
                event_type: "lever_category_changed",
                entity_type: "lever",
                entity_id: id,
                details: json!({"from": before.lever_category, "to": category}),
                severity: "info",
            },
        )
        .await?;
    Ok(entry.into())
}

/// Edits a lever. A new name that changes the lever's folder moves its analysis files there
/// (see the module docs); the answer comes once they are all moved.
pub async fn update(
    state: &AppState,
    actor: &Actor,
    id: &str,
    input: LeverInput,
) -> ApiResult<LeverEntry> {
    let c = check(&input, false)?;
    let now = crate::db::now();
    let mut change = Change::begin(state, levers_topic()).await?;
    let before = db::entry(change.conn(), id).await?.ok_or_else(not_found)?;
    if before.move_token.is_some() {
        return Err(moving());
    }
    check_unique(change.conn(), id, &c.name).await?;
    let old_folder = lever_folder(&before.lever_name, id);
    let new_folder = lever_folder(&c.name, id);
    let files = db::files(change.conn(), id).await?;
    let audit_details = json!({
        "from": {"name": before.lever_name, "category": before.lever_category},
        "to": {"name": c.name, "category": c.category},
        "files_moved": if old_folder == new_folder { 0 } else { files.len() },
    });
    if old_folder == new_folder || files.is_empty() {
        if !db::update_lever(
            change.conn(),
            id,
            &c.name,
            &c.description,
            &c.category,
            &now,
        )
        .await?
        {
            return Err(moving());
        }
        let entry = db::entry(change.conn(), id).await?.ok_or_else(not_found)?;
        change
            .commit(
                actor,
                changed(id),
                Audit {
                    event_type: "lever_updated",
                    entity_type: "lever",
                    entity_id: id,
                    details: audit_details,
                    severity: "info",
                },
            )
            .await?;
        return Ok(entry.into());
    }

    // 1. Mark the move and each file's new key.
    let token = crate::db::new_id();
    if !db::start_move(change.conn(), id, &token, &c.name, &now).await? {
        return Err(moving());
    }
    let mut plan: Vec<(ObjectKey, ObjectKey)> = Vec::with_capacity(files.len());
    for f in &files {
        let from = ObjectKey::parse(&f.object_key)?;
        let to = Storage::lever_key(&new_folder, &f.name);
        db::set_moving_to(change.conn(), &f.id, to.as_str()).await?;
        plan.push((from, to));
    }
    change
        .commit(
            actor,
            changed(id),
            Audit {
                event_type: "lever_files_move_started",
                entity_type: "lever",
                entity_id: id,
                details: json!({"from": old_folder, "to": new_folder, "files": files.len()}),
                severity: "info",
            },
        )
        .await?;

    // 2. Copy every object; the heartbeat tells recovery the move is alive.
    let mut copied: Vec<&ObjectKey> = Vec::new();
    let mut failure: Option<String> = None;
    for (from, to) in &plan {
        if let Err(e) = state.storage.copy(from, to).await {
            failure = Some(format!("copying {from} to {to}: {e}"));
            break;
        }
        copied.push(to);
        match db::heartbeat(&state.db.pool, id, &token, &crate::db::now()).await {
            Ok(true) => {}
            Ok(false) => {
                failure = Some("the move was undone by recovery".into());
                break;
            }
            Err(e) => {
                failure = Some(format!("heartbeat: {e}"));
                break;
            }
        }
    }
    if let Some(reason) = failure {
        tracing::warn!(lever = %id, %reason, "lever rename: moving the analysis files failed, undoing");
        undo_move(
            state,
            AuditActor {
                user_id: Some(&actor.user.id),
                ip: &actor.ip,
            },
            id,
            &token,
        )
        .await?;
        // Copies the undo did not know of (none normally) are orphans the sweeper removes.
        for key in copied {
            let _ = state.storage.delete(key).await;
        }
        return Err(ApiError::Conflict {
            code: "files_not_moved",
            message: MOVE_FAILED.into(),
        });
    }

    // 3. One transaction: the new name and the files' new keys.
    let mut change = Change::begin(state, levers_topic()).await?;
    let done = db::finish_move(
        change.conn(),
        id,
        &token,
        &c.name,
        &c.description,
        &c.category,
        &crate::db::now(),
    )
    .await?;
    if !done {
        drop(change);
        for (_, to) in &plan {
            let _ = state.storage.delete(to).await;
        }
        return Err(ApiError::Conflict {
            code: "files_not_moved",
            message: MOVE_FAILED.into(),
        });
    }
    let entry = db::entry(change.conn(), id).await?.ok_or_else(not_found)?;
    change
        .commit(
            actor,
            changed(id),
            Audit {
                event_type: "lever_updated",
                entity_type: "lever",
                entity_id: id,
                details: audit_details,
                severity: "info",
            },
        )
        .await?;

    // 4. Delete the old objects (what a crash leaves here, recovery finishes).
    finish_deletions(state).await;
    Ok(entry.into())
}

/// Undoes the move `token` of a lever: clears its marks (committed, announced) and deletes the
/// copies it had written. `false` when the move was no longer there.
async fn undo_move(
    state: &AppState,
    actor: AuditActor<'_>,
    lever_id: &str,
    token: &str,
) -> ApiResult<bool> {
    let mut change = Change::begin(state, levers_topic()).await?;
    let Some(keys) = db::abort_move(change.conn(), lever_id, token).await? else {
        return Ok(false);
    };
    change
        .commit_by(
            actor,
            changed(lever_id),
            Audit {
                event_type: "lever_files_move_undone",
                entity_type: "lever",
                entity_id: lever_id,
                details: json!({"copies": keys.len()}),
                severity: "warning",
            },
        )
        .await?;
    for key in keys {
        if let Ok(key) = ObjectKey::parse(&key)
            && let Err(e) = state.storage.delete(&key).await
        {
            tracing::warn!(key = %key, error = %e, "could not delete a copy of an undone move (the sweeper will)");
        }
    }
    Ok(true)
}

/// Deletes the old objects of finished moves and clears their marks; failures are left for the
/// next recovery.
async fn finish_deletions(state: &AppState) -> usize {
    let pending = match db::pending_deletes(&state.db.pool).await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(error = %e, "could not read the lever files still to delete");
            return 0;
        }
    };
    let mut done = 0;
    for (file_id, old) in pending {
        let deleted = match ObjectKey::parse(&old) {
            Ok(key) => state.storage.delete(&key).await.is_ok(),
            // Not a key this server writes: nothing to delete.
            Err(_) => true,
        };
        if deleted
            && db::clear_moved_from(&state.db.pool, &file_id, &old)
                .await
                .is_ok()
        {
            done += 1;
        }
    }
    done
}

/// Recovery after a crash: undoes every move whose heartbeat stopped more than
/// [`MOVE_STALE_AFTER`] ago before its rename committed (the lever keeps its name and its files
/// their objects), and deletes the old objects of moves that committed. Returns how many moves
/// were undone and how many old objects deleted.
pub async fn recover_moves(state: &AppState) -> ApiResult<(usize, usize)> {
    let cutoff = crate::db::ts(
        chrono::Utc::now()
            - chrono::Duration::from_std(MOVE_STALE_AFTER).unwrap_or(chrono::Duration::minutes(2)),
    );
    let mut undone = 0;
    for (lever_id, token) in db::stale_moves(&state.db.pool, &cutoff).await? {
        let server = AuditActor {
            user_id: None,
            ip: "server",
        };
        if undo_move(state, server, &lever_id, &token).await? {
            tracing::warn!(lever = %lever_id, "undid an abandoned move of a lever's analysis files");
            undone += 1;
        }
    }
    let deleted = finish_deletions(state).await;
    Ok((undone, deleted))
}

/// Removes objects under `levers/` and `avatars/` that no row names and that are older than
/// an hour (a crash between a put and its row, a copy of a move undone by recovery).
pub async fn sweep_orphans(state: &AppState) -> anyhow::Result<usize> {
    let pool = state.db.pool.clone();
    let levers = state
        .storage
        .sweep_orphans_under("levers", crate::storage::ORPHAN_MIN_AGE, move |keys| {
            let pool = pool.clone();
            async move {
                Ok(db::referenced_keys(&pool, &keys)
                    .await?
                    .into_iter()
                    .collect())
            }
        })
        .await?;
    let pool = state.db.pool.clone();
    let avatars = state
        .storage
        .sweep_orphans_under("avatars", crate::storage::ORPHAN_MIN_AGE, move |keys| {
            let pool = pool.clone();
            async move {
                Ok(crate::db::profile::referenced_avatar_keys(&pool, &keys)
                    .await?
                    .into_iter()
                    .collect())
            }
        })
        .await?;
    Ok(levers + avatars)
}

/// Runs [`recover_moves`] at start-up and every [`RECOVERY_INTERVAL`], and the sweep of
/// `levers/` and `avatars/` hourly.
pub fn start_recovery(state: &AppState) {
    let state = state.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(RECOVERY_INTERVAL);
        let sweep_every = (3600 / RECOVERY_INTERVAL.as_secs().max(1)).max(1);
        let mut n: u64 = 0;
        loop {
            tick.tick().await;
            match recover_moves(&state).await {
                Ok((0, 0)) => {}
                Ok((undone, deleted)) => {
                    tracing::info!(undone, deleted, "recovered lever file moves")
                }
                Err(e) => tracing::warn!(error = %e, "lever file move recovery failed"),
            }
            if n.is_multiple_of(sweep_every) {
                match sweep_orphans(&state).await {
                    Ok(0) => {}
                    Ok(removed) => {
                        tracing::info!(removed, "removed orphan lever and avatar objects")
                    }
                    Err(e) => tracing::warn!(error = %e, "lever and avatar orphan sweep failed"),
                }
            }
            n = n.wrapping_add(1);
        }
    });
}

/// Deletes a lever nothing uses (its analysis files with it). Refused for the engine's own
/// levers and for a lever that client files or processing runs name.
pub async fn delete(state: &AppState, actor: &Actor, id: &str) -> ApiResult<()> {
    let mut change = Change::begin(state, levers_topic()).await?;
    let entry = db::entry(change.conn(), id).await?.ok_or_else(not_found)?;
    if entry.code.is_some() {
        return Err(ApiError::Conflict {
            code: "lever_in_use",
            message: format!(
                "'{}' is one of the analysis engine's levers and cannot be deleted.",
                entry.lever_name
            ),
        });
    }
    if entry.move_token.is_some() {
        return Err(moving());
    }
    let (files, runs) = db::usage(change.conn(), id).await?;
    if files > 0 || runs > 0 {
        let mut uses = Vec::new();
        if files > 0 {
            uses.push(format!(
                "{files} client file{}",
                if files == 1 { "" } else { "s" }
            ));
        }
        if runs > 0 {
            uses.push(format!(
                "{runs} processing run{}",
                if runs == 1 { "" } else { "s" }
            ));
        }
        return Err(ApiError::Conflict {
            code: "lever_in_use",
            message: format!(
                "'{}' cannot be deleted because {} use{} it.",
                entry.lever_name,
                uses.join(" and "),
                if files + runs == 1 { "s" } else { "" }
            ),
        });
    }
    let keys = db::delete_lever(change.conn(), id)
        .await?
        .ok_or_else(moving)?;
    change
        .commit(
            actor,
            changed(id),
            Audit {
                event_type: "lever_deleted",
                entity_type: "lever",
                entity_id: id,
                details: json!({"name": entry.lever_name, "files": keys.len()}),
                severity: "warning",
            },
        )
        .await?;
    for key in keys {
        if let Ok(key) = ObjectKey::parse(&key)
            && let Err(e) = state.storage.delete(&key).await
        {
            tracing::warn!(key = %key, error = %e, "could not delete a deleted lever's file (the sweeper will)");
        }
    }
    Ok(())
}

/// A lever's analysis files, newest first.
pub async fn files(state: &AppState, lever_id: &str) -> ApiResult<Vec<LeverFile>> {
    db::entry(&state.db.pool, lever_id)
        .await?
        .ok_or_else(not_found)?;
    Ok(db::files(&state.db.pool, lever_id)
        .await?
        .into_iter()
        .map(LeverFile::from)
        .collect())
}

/// Checks a received analysis file: xlsx, xls or csv by name and by content, at most
/// [`MAX_FILE_BYTES`].
pub fn check_file(f: &ReceivedFile) -> ApiResult<kind::FileType> {
    let wrong = || ApiError::Validation {
        code: "unsupported_file_type",
        message: WRONG_TYPE.into(),
    };
    let claimed = kind::FileType::from_name(&f.name).ok_or_else(wrong)?;
    if !matches!(
        claimed,
        kind::FileType::Csv | kind::FileType::Xlsx | kind::FileType::Xls
    ) {
        return Err(wrong());
    }
    if f.seen.size > MAX_FILE_BYTES {
        return Err(ApiError::TooLarge(TOO_BIG.into()));
    }
    match kind::recognise(&f.name, &f.seen) {
        Ok(t) => Ok(t),
        Err(ApiError::Validation {
            code: "unsupported_file_type",
            ..
        }) => Err(wrong()),
        Err(e) => Err(e),
    }
}

/// Stores analysis files of a lever under its folder: all of them or none (every file is
/// checked first; a failed record deletes the objects it stored).
pub async fn upload(
    state: &AppState,
    actor: &Actor,
    lever_id: &str,
    received: Vec<ReceivedFile>,
) -> ApiResult<Vec<LeverFile>> {
    if received.is_empty() {
        return Err(ApiError::validation(NO_FILES));
    }
    let lever = db::entry(&state.db.pool, lever_id)
        .await?
        .ok_or_else(|| ApiError::not_found("No lever selected for file upload."))?;
    if lever.move_token.is_some() {
        return Err(moving());
    }
    let mut types = Vec::with_capacity(received.len());
    for f in &received {
        types.push(check_file(f)?);
    }
    let folder = lever_folder(&lever.lever_name, lever_id);
    let mut stored: Vec<(ObjectKey, &ReceivedFile, u64)> = Vec::new();
    for (f, t) in received.iter().zip(&types) {
        let key = Storage::lever_key(&folder, &f.name);
        match state
            .storage
            .put_file(&key, &f.path, t.content_type())
            .await
        {
            Ok(size) => stored.push((key, f, size)),
            Err(e) => {
                for (k, _, _) in &stored {
                    let _ = state.storage.delete(k).await;
                }
                return Err(e.into());
            }
        }
    }
    let result = record(state, actor, lever_id, &folder, &stored).await;
    if result.is_err() {
        for (k, _, _) in &stored {
            let _ = state.storage.delete(k).await;
        }
    }
    result
}

async fn record(
    state: &AppState,
    actor: &Actor,
    lever_id: &str,
    folder: &str,
    stored: &[(ObjectKey, &ReceivedFile, u64)],
) -> ApiResult<Vec<LeverFile>> {
    let mut change = Change::begin(state, levers_topic()).await?;
    // The lever may have been renamed or started moving while the files were stored.
    let lever = db::entry(change.conn(), lever_id)
        .await?
        .ok_or_else(|| ApiError::not_found("No lever selected for file upload."))?;
    if lever.move_token.is_some() || lever_folder(&lever.lever_name, lever_id) != folder {
        return Err(moving());
    }
    let now = crate::db::now();
    let mut rows = Vec::with_capacity(stored.len());
    for (key, f, size) in stored {
        let row = LeverFileRow {
            id: crate::db::new_id(),
            lever_id: lever_id.to_owned(),
            name: kind::sanitize_name(&f.name),
            object_key: key.as_str().to_owned(),
            size_bytes: i64::try_from(*size).unwrap_or(i64::MAX),
            uploaded_by: Some(actor.user.id.to_string()),
            uploaded_at: now.clone(),
            moving_to: None,
            moved_from: None,
        };
        db::insert_file(change.conn(), &row).await?;
        rows.push(row);
    }
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    change
        .commit(
            actor,
            changed(lever_id),
            Audit {
                event_type: "lever_files_uploaded",
                entity_type: "lever",
                entity_id: lever_id,
                details: json!({"files": names}),
                severity: "info",
            },
        )
        .await?;
    Ok(rows.into_iter().map(LeverFile::from).collect())
}

/// Deletes an analysis file (its object after the commit; a failure there leaves an orphan the
/// sweeper removes).
pub async fn delete_file(state: &AppState, actor: &Actor, file_id: &str) -> ApiResult<()> {
    let mut change = Change::begin(state, levers_topic()).await?;
    let file = db::file(change.conn(), file_id)
        .await?
        .ok_or_else(|| ApiError::not_found("File not found"))?;
    if file.moving_to.is_some() || !db::delete_file(change.conn(), file_id).await? {
        return Err(moving());
    }
    change
        .commit(
            actor,
            changed(&file.lever_id),
            Audit {
                event_type: "lever_file_deleted",
                entity_type: "lever_file",
                entity_id: file_id,
                details: json!({"lever_id": file.lever_id, "name": file.name}),
                severity: "info",
            },
        )
        .await?;
    if let Ok(key) = ObjectKey::parse(&file.object_key)
        && let Err(e) = state.storage.delete(&key).await
    {
        tracing::warn!(key = %key, error = %e, "could not delete a lever file's object (the sweeper will)");
    }
    Ok(())
}

/// An analysis file's bytes for download.
pub async fn open_file(state: &AppState, file_id: &str) -> ApiResult<super::files::Download> {
    let file = db::file(&state.db.pool, file_id)
        .await?
        .ok_or_else(|| ApiError::not_found("File not found"))?;
    let key = ObjectKey::parse(&file.object_key)?;
    let (size, stream) = state.storage.get_stream(&key).await?;
    let content_type = kind::FileType::from_name(&file.name)
        .map(|t| t.content_type())
        .unwrap_or("application/octet-stream");
    Ok(super::files::Download {
        name: kind::sanitize_name(&file.name),
        content_type: content_type.to_owned(),
        size,
        stream,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_follow_the_spec() {
        assert_eq!(
            lever_folder("  Public Sector  Entities ", "x"),
            "public-sector-entities"
        );
        assert_eq!(
            lever_folder("Public Sector Entities (PSE)", "x"),
            "public-sector-entities-(pse)"
        );
        assert_eq!(lever_folder("../../etc/passwd", "x"), "etcpasswd");
        assert_eq!(lever_folder("...", "abc"), "lever-abc");
        assert_eq!(
            lever_folder("Préstamos Hipotecarios", "x"),
            "préstamos-hipotecarios"
        );
    }

    #[test]
    fn add_needs_every_field_and_refuses_other() {
        let input = |name: &str, category: &str, description: &str| LeverInput {
            name: name.into(),
            category: category.into(),
            description: description.into(),
        };
        let msg = |r: ApiResult<Checked>| match r {
            Err(e) => e.to_string(),
            Ok(_) => "ok".into(),
        };
        assert_eq!(msg(check(&input(" ", "Assets", "d"), true)), NAME_REQUIRED);
        assert_eq!(
            msg(check(&input("L", "", "d"), true)),
            "Category is required."
        );
        assert_eq!(
            msg(check(&input("L", "Assets", " "), true)),
            "Description is required."
        );
        assert_eq!(
            msg(check(&input("L", "Other", "d"), true)),
            "Category must be one of Assets, CET1 deductions, CRMT."
        );
        assert_eq!(msg(check(&input("L", "Other", ""), false)), "ok");
        assert_eq!(msg(check(&input("L", "cet1 DEDUCTIONS", "d"), true)), "ok");
    }
}
