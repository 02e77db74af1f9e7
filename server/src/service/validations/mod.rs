//! Validations (spec 001 sections 2.9, 4 and 6): an approver's decision on a processed file's
//! result.
//!
//! - **Created with the result.** A run that lands results opens its file's pending validation in
//!   the completion's transaction ([`open_for_result`], called by `service::runs::finish`): once
//!   per run (the run id is unique among validations). A reprocessed file's new result supersedes
//!   the file's earlier pending validation (status `superseded`, pointing at the new one, no
//!   longer decidable; decided ones stay as they were). A run that ends `pending_review`
//!   (enhanced AI below 0.7 confidence: zero savings, not processed) opens none: the
//!   classification review comes first, and the run with results that follows opens it.
//! - **Counted as an invariant.** `clients.pending_validations` equals the client's pending
//!   validations: every transaction that creates, decides, supersedes or deletes one moves the
//!   count by the rows it changed (`db::validations`), so no list load repairs anything.
//! - **Decided once.** Approve and reject go from `pending` only, with one guarded statement
//!   (`UPDATE ... WHERE status = 'pending'`): of two approvers deciding at once, one writes and
//!   the other gets 'Cannot approve/reject validation that is not pending (current status: X)'.
//!   Changing the status (to pending, approved or rejected) names the status the caller saw and is
//!   guarded the same way; only a file's latest validation can change.
//! - **Announced after commit** on the client's validations topic and `admin:validations`
//!   (`validation.created`, `validation.updated`, `validation.deleted`, with the client's pending
//!   count).

use serde::{Deserialize, Serialize};

use crate::access::{self, Decision, Need};
use crate::db::runs::RunRow;
use crate::db::validations::{self as db, Tab, ValidationRow};
use crate::error::{ApiError, ApiResult};
use crate::ids::ClientId;
use crate::realtime::{Event, Topic};
use crate::service::files::{day_start, stored_day};
use crate::service::runs::{RunMode, RunResult};
use crate::service::{Actor, Audit, Change, Scope, scope_of};
use crate::state::AppState;

pub mod analysis;

pub use analysis::analysis_text;

/// The spec's message for a decision on a validation that is not pending.
pub fn not_pending(status: &str) -> ApiError {
    ApiError::Conflict {
        code: "validation_not_pending",
        message: format!(
            "Cannot approve/reject validation that is not pending (current status: {status})"
        ),
    }
}

/// The longest rejection reason accepted.
pub const MAX_REASON: usize = 2000;
/// Page sizes of the validation lists.
pub const PAGE_SIZES: [i64; 4] = [5, 10, 20, 50];

/// Where a validation stands.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ValidationStatus {
    /// Waiting for an approver.
    Pending,
    /// Approved.
    Approved,
    /// Rejected, with a reason.
    Rejected,
    /// A newer result of the file landed before this one was decided.
    Superseded,
}

impl ValidationStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            ValidationStatus::Pending => "pending",
            ValidationStatus::Approved => "approved",
            ValidationStatus::Rejected => "rejected",
            ValidationStatus::Superseded => "superseded",
        }
    }

    /// Parses a stored or requested name.
    pub fn parse(s: &str) -> Option<ValidationStatus> {
        Some(match s {
            "pending" => ValidationStatus::Pending,
            "approved" => ValidationStatus::Approved,
            "rejected" => ValidationStatus::Rejected,
            "superseded" => ValidationStatus::Superseded,
            _ => return None,
        })
    }
}

/// A validation as the Alerts lists show it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Validation {
    /// Id.
    pub id: String,
    /// The client.
    pub client_id: ClientId,
    /// The file.
    pub file_id: String,
    /// The processing run whose result it validates.
    pub run_id: String,
    /// Its status.
    pub status: ValidationStatus,
    /// The file's name.
    pub file_name: String,
    /// The file's type (`csv`, `xlsx` ...).
    pub file_type: String,
    /// When the file was uploaded.
    pub uploaded_at: String,
    /// The result's lever.
    pub lever_id: Option<String>,
    /// Its name.
    pub lever_name: Option<String>,
    /// Its category.
    pub lever_category: Option<String>,
    /// The result's RWA savings.
    pub savings_rwas: f64,
    /// The result's savings in bps of CET1 ratio.
    pub savings_bps: f64,
    /// When the result landed.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
    /// When it was approved or rejected.
    pub validated_at: Option<String>,
    /// Who decided.
    pub validated_by: Option<String>,
    /// Their name.
    pub validated_by_name: Option<String>,
    /// Why it was rejected.
    pub rejection_reason: Option<String>,
    /// The newer validation that superseded it.
    pub superseded_by: Option<String>,
}

impl Validation {
    fn from_row(r: ValidationRow) -> Validation {
        Validation {
            status: ValidationStatus::parse(&r.status).unwrap_or(ValidationStatus::Superseded),
            id: r.id,
            client_id: r.client_id.into(),
            file_id: r.file_id,
            run_id: r.run_id,
            file_name: r.file_name,
            file_type: r.file_type,
            uploaded_at: r.uploaded_at,
            lever_id: r.lever_id,
            lever_name: r.lever_name,
            lever_category: r.lever_category,
            savings_rwas: r.savings_rwas,
            savings_bps: r.savings_bps,
            created_at: r.created_at,
            updated_at: r.updated_at,
            validated_at: r.validated_at,
            validated_by: r.validated_by,
            validated_by_name: r.validated_by_name,
            rejection_reason: r.rejection_reason,
            superseded_by: r.superseded_by,
        }
    }
}

/// One page of a client's validations.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ValidationPage {
    /// The validations, newest first.
    pub items: Vec<Validation>,
    /// Validations matching the filters.
    #[ts(type = "number")]
    pub total: i64,
    /// The page (from 1).
    #[ts(type = "number")]
    pub page: i64,
    /// Validations per page.
    #[ts(type = "number")]
    pub page_size: i64,
    /// The client's pending validations (all of them, whatever the filters).
    #[ts(type = "number")]
    pub pending_validations: i64,
    /// Whether the caller may decide them.
    pub can_approve: bool,
}

/// The client's pending count and the caller's right to decide (the banner, the badges).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ValidationSummary {
    /// The client.
    pub client_id: ClientId,
    /// Its pending validations.
    #[ts(type = "number")]
    pub pending_validations: i64,
    /// Whether the caller may decide them.
    pub can_approve: bool,
}

/// How the validated result was produced (the dialog's processing info).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ValidationProcessing {
    /// Manual or enhanced AI.
    pub mode: RunMode,
    /// Classification confidence (enhanced AI).
    pub confidence: Option<f64>,
    /// Data rows.
    #[ts(type = "number")]
    pub rows: u64,
    /// Rows matched against reference data.
    #[ts(type = "number")]
    pub matched: u64,
    /// Rows not matched.
    #[ts(type = "number")]
    pub not_matched: u64,
    /// Rows in error.
    #[ts(type = "number")]
    pub errors: u64,
    /// When the run ended.
    pub finished_at: Option<String>,
}

/// One validation with its processing info and the analysis text (the 'Validation Details'
/// dialog).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ValidationDetail {
    /// The validation.
    pub validation: Validation,
    /// The run's figures, when its result is stored.
    pub processing: Option<ValidationProcessing>,
    /// What the run found, written from its result (`None`: no stored result).
    pub analysis: Option<String>,
    /// Whether the caller may decide it.
    pub can_approve: bool,
}

/// A validation that changed: the payload of `validation.created`, `validation.updated` and
/// `validation.deleted`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ValidationChange {
    /// The client.
    pub client_id: ClientId,
    /// The validation.
    pub validation_id: String,
    /// Its file.
    pub file_id: String,
    /// Its status now (`None`: deleted with its file).
    pub status: Option<ValidationStatus>,
    /// The client's pending validations after the change.
    #[ts(type = "number")]
    pub pending_validations: i64,
}

/// A rejection (the 'Rejection Reason' dialog).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct RejectValidation {
    /// Why (required, trimmed).
    pub reason: String,
}

/// A status change ('Change Validation Status').
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct ChangeValidationStatus {
    /// The new status: pending, approved or rejected.
    pub status: String,
    /// The status the caller saw (the change is refused when it is no longer that).
    pub expected_status: String,
    /// Why (required when the new status is rejected).
    #[serde(default)]
    #[ts(optional)]
    pub reason: Option<String>,
}

/// The topic of a client's validations.
pub fn validations_topic(client_id: &str) -> Topic {
    Topic::Client {
        client_id: client_id.to_string(),
        area: "validations",
    }
}

const ADMIN_TOPIC: Topic = Topic::Admin {
    area: "validations",
};

/// Opens the pending validation of a run's landed result in the completion's transaction
/// (`change` began on the client's files topic), superseding the file's earlier pending one,
/// and announces it on the client's validations topic and `admin:validations` after the commit.
/// The validations topics are taken before any validation row is written, as decisions take
/// them before the row they decide. A run that has its validation already writes nothing.
pub async fn open_for_result(
    change: &mut Change<'_>,
    run: &RunRow,
    result: &RunResult,
) -> ApiResult<()> {
    if db::exists_for_run(change.conn(), &run.id).await? {
        return Ok(());
    }
    let client_topic = change.reserve(validations_topic(&run.client_id)).await?;
    let admin_topic = change.reserve(ADMIN_TOPIC).await?;
    let id = crate::db::new_id();
    let now = crate::db::now();
    let opened = db::open(
        change.conn(),
        &db::NewValidation {
            id: &id,
            client_id: &run.client_id,
            file_id: &run.file_id,
            run_id: &run.id,
            lever_id: result.lever_id.as_deref(),
            savings_rwas: result.savings_rwas,
            savings_bps: result.savings_bps,
            now: &now,
        },
    )
    .await?;
    let payload = ValidationChange {
        client_id: run.client_id.clone().into(),
        validation_id: id,
        file_id: run.file_id.clone(),
        status: Some(ValidationStatus::Pending),
        pending_validations: opened.pending,
    };
    change.announce(client_topic, Event::ValidationCreated(payload.clone()));
    change.announce(admin_topic, Event::ValidationCreated(payload));
    Ok(())
}

/// Removes a file's pending validations in the transaction that deletes the file (`change`
/// began on the client's files topic) and announces the new count; the decided ones go with the
/// file by cascade. The validations topics are taken before the rows are deleted (the order
/// decisions follow).
pub async fn remove_for_file(
    change: &mut Change<'_>,
    client_id: &str,
    file_id: &str,
) -> ApiResult<()> {
    if !db::file_has_pending(change.conn(), file_id).await? {
        return Ok(());
    }
    let client_topic = change.reserve(validations_topic(client_id)).await?;
    let admin_topic = change.reserve(ADMIN_TOPIC).await?;
    db::remove_pending_of_file(change.conn(), client_id, file_id).await?;
    let pending = db::pending_count(change.conn(), client_id)
        .await?
        .unwrap_or(0);
    let payload = ValidationChange {
        client_id: client_id.to_string().into(),
        validation_id: String::new(),
        file_id: file_id.to_string(),
        status: None,
        pending_validations: pending,
    };
    change.announce(client_topic, Event::ValidationDeleted(payload.clone()));
    change.announce(admin_topic, Event::ValidationDeleted(payload));
    Ok(())
}

/// The raw filters and page of a validation list (query parameters).
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(rename_all = "camelCase")]
pub struct ListQuery {
    /// `pending` (default) or `history`.
    pub tab: Option<String>,
    /// `pending`, `approved`, `rejected` or `superseded` (empty or `all`: any).
    pub status: Option<String>,
    /// Created on or after this day (`YYYY-MM-DD`).
    pub from: Option<String>,
    /// Created on or before this day (`YYYY-MM-DD`, inclusive).
    pub to: Option<String>,
    /// RWA savings at least.
    pub min_rwas: Option<String>,
    /// RWA savings at most.
    pub max_rwas: Option<String>,
    /// Bps at least.
    pub min_bps: Option<String>,
    /// Bps at most.
    pub max_bps: Option<String>,
    /// The page, from 1.
    pub page: Option<String>,
    /// 5, 10, 20 or 50 (default 10).
    pub page_size: Option<String>,
}

fn blank(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

fn number(s: &Option<String>, what: &str) -> ApiResult<Option<f64>> {
    match blank(s) {
        None => Ok(None),
        Some(v) => match v.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(ApiError::validation(format!("{what} must be a number"))),
        },
    }
}

fn whole(s: &Option<String>, what: &str, default: i64) -> ApiResult<i64> {
    match blank(s) {
        None => Ok(default),
        Some(v) => v
            .parse::<i64>()
            .map_err(|_| ApiError::validation(format!("{what} must be a whole number"))),
    }
}

/// Turns the query parameters into the list's tab, checked filters, page and page size.
pub fn parse_query(q: &ListQuery) -> ApiResult<(Tab, db::Filter, i64, i64)> {
    let tab = match blank(&q.tab) {
        None | Some("pending") => Tab::Pending,
        Some("history") => Tab::History,
        Some(other) => {
            return Err(ApiError::validation(format!(
                "Tab must be pending or history, not {other}"
            )));
        }
    };
    let status = match blank(&q.status) {
        None | Some("all") => None,
        Some(s) => Some(
            ValidationStatus::parse(s)
                .ok_or_else(|| {
                    ApiError::validation(
                        "Status must be all, pending, approved, rejected or superseded",
                    )
                })?
                .as_str()
                .to_string(),
        ),
    };
    let from = blank(&q.from).map(|f| day_start(f, "start")).transpose()?;
    let to = blank(&q.to).map(|t| day_start(t, "end")).transpose()?;
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        return Err(ApiError::validation(
            "The start date must not be after the end date",
        ));
    }
    let (min_rwas, max_rwas) = (
        number(&q.min_rwas, "Min RWAs")?,
        number(&q.max_rwas, "Max RWAs")?,
    );
    let (min_bps, max_bps) = (
        number(&q.min_bps, "Min BPS")?,
        number(&q.max_bps, "Max BPS")?,
    );
    if let (Some(a), Some(b)) = (min_rwas, max_rwas)
        && a > b
    {
        return Err(ApiError::validation("Min RWAs must not be above Max RWAs"));
    }
    if let (Some(a), Some(b)) = (min_bps, max_bps)
        && a > b
    {
        return Err(ApiError::validation("Min BPS must not be above Max BPS"));
    }
    let page = whole(&q.page, "Page", 1)?;
    if !(1..=1_000_000).contains(&page) {
        return Err(ApiError::validation("Page must be 1 or more"));
    }
    let page_size = whole(&q.page_size, "Page size", 10)?;
    if !PAGE_SIZES.contains(&page_size) {
        return Err(ApiError::validation("Page size must be 5, 10, 20 or 50"));
    }
    Ok((
        tab,
        db::Filter {
            status,
            from: from.map(stored_day),
            to_exclusive: to.and_then(|d| d.succ_opt()).map(stored_day),
            min_rwas,
            max_rwas,
            min_bps,
            max_bps,
        },
        page,
        page_size,
    ))
}

/// One page of a client's pending validations or history, filtered and paged by the database.
pub async fn list(state: &AppState, scope: &Scope, q: &ListQuery) -> ApiResult<ValidationPage> {
    let (tab, filter, page, page_size) = parse_query(q)?;
    let pool = &state.db.pool;
    let total = db::count(pool, &scope.client_id, tab, &filter).await?;
    let rows = db::list(
        pool,
        &scope.client_id,
        tab,
        &filter,
        page_size,
        (page - 1) * page_size,
    )
    .await?;
    let pending = db::pending_count(pool, &scope.client_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Client not found"))?;
    Ok(ValidationPage {
        items: rows.into_iter().map(Validation::from_row).collect(),
        total,
        page,
        page_size,
        pending_validations: pending,
        can_approve: scope.rights.approve,
    })
}

/// The client's pending count and whether the caller may decide.
pub async fn summary(state: &AppState, scope: &Scope) -> ApiResult<ValidationSummary> {
    let pending = db::pending_count(&state.db.pool, &scope.client_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Client not found"))?;
    Ok(ValidationSummary {
        client_id: scope.client_id.clone(),
        pending_validations: pending,
        can_approve: scope.rights.approve,
    })
}

/// A validation row the caller may read (404 'Validation record not found' for one of a client
/// they cannot see).
async fn readable(state: &AppState, actor: &Actor, id: &str) -> ApiResult<(ValidationRow, Scope)> {
    let not_found = || ApiError::not_found("Validation record not found");
    let row = db::get(&state.db.pool, id).await?.ok_or_else(not_found)?;
    if access::decide(&actor.user, &row.client_id).is_none() {
        return Err(not_found());
    }
    let scope = scope_of(state, actor.clone(), &row.client_id, Need::Read).await?;
    Ok((row, scope))
}

/// One validation with its processing info and the analysis text of its run's result.
pub async fn get(state: &AppState, actor: &Actor, id: &str) -> ApiResult<ValidationDetail> {
    let (row, scope) = readable(state, actor, id).await?;
    let stored = db::run_result(&state.db.pool, &row.run_id).await?;
    let (processing, analysis) = match stored {
        Some((mode, Some(json), finished_at)) => match serde_json::from_str::<RunResult>(&json) {
            Ok(result) => {
                let mode = if mode == "manual" {
                    RunMode::Manual
                } else {
                    RunMode::EnhancedAi
                };
                (
                    Some(ValidationProcessing {
                        mode,
                        confidence: result.confidence,
                        rows: result.rows,
                        matched: result.matched,
                        not_matched: result.not_matched,
                        errors: result.errors,
                        finished_at,
                    }),
                    Some(analysis_text(mode, &result)),
                )
            }
            Err(e) => {
                tracing::warn!(run = %row.run_id, error = %e, "a run's stored result could not be read");
                (None, None)
            }
        },
        _ => (None, None),
    };
    Ok(ValidationDetail {
        validation: Validation::from_row(row),
        processing,
        analysis,
        can_approve: scope.rights.approve,
    })
}

fn clean_reason(reason: Option<&str>) -> ApiResult<String> {
    let r = reason.map(str::trim).unwrap_or("");
    if r.is_empty() {
        return Err(ApiError::validation(
            "Please provide a reason for rejection",
        ));
    }
    if r.chars().count() > MAX_REASON {
        return Err(ApiError::validation(format!(
            "The reason must be at most {MAX_REASON} characters"
        )));
    }
    Ok(r.to_string())
}

/// Approves a pending validation (approvers of its client).
pub async fn approve(state: &AppState, actor: &Actor, id: &str) -> ApiResult<Validation> {
    decide(state, actor, id, ValidationStatus::Approved, None, None).await
}

/// Rejects a pending validation with a reason (approvers of its client).
pub async fn reject(
    state: &AppState,
    actor: &Actor,
    id: &str,
    body: RejectValidation,
) -> ApiResult<Validation> {
    let reason = clean_reason(Some(&body.reason))?;
    decide(
        state,
        actor,
        id,
        ValidationStatus::Rejected,
        Some(reason),
        None,
    )
    .await
}

/// Changes a validation's status to pending, approved or rejected (approvers of its client), from
/// the status the caller saw; only the file's latest validation, never a superseded one.
pub async fn change_status(
    state: &AppState,
    actor: &Actor,
    id: &str,
    body: ChangeValidationStatus,
) -> ApiResult<Validation> {
    let to = match ValidationStatus::parse(body.status.trim()) {
        Some(
            s @ (ValidationStatus::Pending
            | ValidationStatus::Approved
            | ValidationStatus::Rejected),
        ) => s,
        _ => {
            return Err(ApiError::validation(
                "New status must be pending, approved or rejected",
            ));
        }
    };
    let expected = ValidationStatus::parse(body.expected_status.trim()).ok_or_else(|| {
        ApiError::validation("Expected status must be pending, approved, rejected or superseded")
    })?;
    let reason = match to {
        ValidationStatus::Rejected => Some(clean_reason(body.reason.as_deref())?),
        _ => None,
    };
    decide(state, actor, id, to, reason, Some(expected)).await
}

/// The one decision path: the approver check, then in one change on the client's validations
/// topic the guarded transition and the count, the audit record and the events after commit.
/// `expected: None` is approve/reject (from pending only); `Some(s)` a status change from `s`.
async fn decide(
    state: &AppState,
    actor: &Actor,
    id: &str,
    to: ValidationStatus,
    reason: Option<String>,
    expected: Option<ValidationStatus>,
) -> ApiResult<Validation> {
    let (row, _) = readable(state, actor, id).await?;
    let what = match (expected, to) {
        (Some(_), _) => Decision::ChangeStatus,
        (None, ValidationStatus::Rejected) => Decision::Reject,
        (None, _) => Decision::Approve,
    };
    access::require_decision(&actor.user, &row.client_id, what)?;
    let client = row.client_id.clone();
    let mut change = Change::begin(state, validations_topic(&client)).await?;
    // Both topics before any row: the order every writer of validations follows.
    let admin_topic = change.reserve(ADMIN_TOPIC).await?;
    // The row as it is now, inside the change.
    let current = db::get(change.conn(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Validation record not found"))?;
    let from = match expected {
        None => ValidationStatus::Pending,
        Some(e) => {
            if current.status == ValidationStatus::Superseded.as_str()
                || db::has_newer(change.conn(), &current.file_id, &current.created_at, id).await?
            {
                return Err(ApiError::Conflict {
                    code: "validation_superseded",
                    message: "This validation was superseded by a newer result of the file; only the latest result can change status".into(),
                });
            }
            if current.status != e.as_str() {
                return Err(ApiError::Conflict {
                    code: "validation_changed",
                    message: format!(
                        "Cannot change validation status: it is {} now, not {}",
                        current.status,
                        e.as_str()
                    ),
                });
            }
            if e == to {
                return Err(ApiError::validation(format!(
                    "The validation is already {}",
                    to.as_str()
                )));
            }
            e
        }
    };
    let now = crate::db::now();
    let pending = db::transition(
        change.conn(),
        &db::Decision {
            id,
            client_id: &client,
            from: from.as_str(),
            to: to.as_str(),
            by: Some(&actor.user.id),
            reason: reason.as_deref(),
            now: &now,
        },
    )
    .await?;
    let Some(pending) = pending else {
        // Another decision got there first (or the file went): say what it is now, change
        // nothing.
        let status = db::get(change.conn(), id)
            .await?
            .map(|r| r.status)
            .ok_or_else(|| ApiError::not_found("Validation record not found"))?;
        return Err(match expected {
            None => not_pending(&status),
            Some(e) => ApiError::Conflict {
                code: "validation_changed",
                message: format!(
                    "Cannot change validation status: it is {status} now, not {}",
                    e.as_str()
                ),
            },
        });
    };
    let updated = db::get(change.conn(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Validation record not found"))?;
    let payload = ValidationChange {
        client_id: client.clone().into(),
        validation_id: id.to_string(),
        file_id: updated.file_id.clone(),
        status: Some(to),
        pending_validations: pending,
    };
    change.announce(admin_topic, Event::ValidationUpdated(payload.clone()));
    let event_type = match what {
        Decision::Approve => "validation_approved",
        Decision::Reject => "validation_rejected",
        Decision::ChangeStatus => "validation_status_changed",
    };
    change
        .commit(
            actor,
            Event::ValidationUpdated(payload),
            Audit {
                event_type,
                entity_type: "file_validation",
                entity_id: id,
                details: serde_json::json!({
                    "clientId": client,
                    "fileId": updated.file_id,
                    "from": from.as_str(),
                    "to": to.as_str(),
                    "reason": reason,
                }),
                severity: "info",
            },
        )
        .await?;
    Ok(Validation::from_row(updated))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_filters_are_checked() {
        let q = |f: fn(&mut ListQuery)| {
            let mut q = ListQuery::default();
            f(&mut q);
            parse_query(&q)
        };
        assert!(q(|_| {}).is_ok());
        assert!(q(|q| q.tab = Some("later".into())).is_err());
        assert!(q(|q| q.status = Some("maybe".into())).is_err());
        assert!(q(|q| q.min_rwas = Some("ten".into())).is_err());
        assert!(q(|q| q.min_rwas = Some("NaN".into())).is_err());
        assert!(
            q(|q| {
                q.min_bps = Some("5".into());
                q.max_bps = Some("1".into());
            })
            .is_err()
        );
        assert!(q(|q| q.page_size = Some("7".into())).is_err());
        assert!(
            q(|q| {
                q.from = Some("2026-02-01".into());
                q.to = Some("2026-01-01".into());
            })
            .is_err()
        );
        let (_, f, ..) = q(|q| q.to = Some("2026-01-31".into())).unwrap();
        assert_eq!(
            f.to_exclusive.as_deref(),
            Some("2026-02-01T00:00:00.000000Z")
        );
    }

    #[test]
    fn reasons_are_required_and_trimmed() {
        assert!(clean_reason(Some("   ")).is_err());
        assert!(clean_reason(None).is_err());
        assert_eq!(clean_reason(Some("  wrong lever ")).unwrap(), "wrong lever");
    }
}
