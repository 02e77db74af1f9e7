//! The Clients page and the client data room (spec 000 sections 2.6 and 4): the administrators'
//! list with its filters, a new client with every administrator as a member, the inline RWA
//! savings edit (one at a time per client; a second edit meanwhile is ignored), a client's
//! details and official figures, one client's overview, and client memberships.
//!
//! Savings always go through the savings sync ([`super::savings::resync_client`]): a client's
//! total is its processed files' sum when that is above 0 (the spec's automatic sync, done by
//! the server whenever files change instead of by a page load), else the figure an administrator
//! typed; basis points come from the one bps function with the client's official figures.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Actor, Audit, Change};
use crate::db::admin_clients::{self as db, AdminClientRow, ClientDetails, ClientFilter};
use crate::db::clients::NewClient;
use crate::db::users;
use crate::error::{ApiError, ApiResult};
use crate::realtime::events::{ClientChange, UserChange};
use crate::realtime::{Event, Topic};
use crate::state::AppState;

/// The earliest selectable From Date (spec 000 section 9).
pub const EARLIEST_FROM_DATE: &str = "2024-01-01";
/// How far back 'Recently modified' looks, in days.
pub const RECENT_DAYS: i64 = 30;
/// The automatic sync's tolerance: a typed figure within it of the files' sum is the same.
pub const SYNC_TOLERANCE: f64 = 0.01;
/// How long an inline savings edit holds its client at most (a holder that died lets go then).
pub const SAVINGS_HOLD_SECS: i64 = 30;
/// A reported CET1 ratio further than this from capital / RWAs (5 bps) is pointed out.
pub const RATIO_WARNING: f64 = 0.0005;

/// The topic of the Clients page.
pub fn clients_topic() -> Topic {
    Topic::Admin { area: "clients" }
}

/// The topic of User Management.
pub fn users_topic() -> Topic {
    Topic::Admin { area: "users" }
}

/// A client as the Clients page and the data room show it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AdminClient {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// From date (YYYY-MM-DD).
    pub from_date: Option<String>,
    /// The administrator who created it, if still there.
    pub created_by: Option<String>,
    /// Their name.
    pub created_by_name: Option<String>,
    /// Creation time.
    pub created_at: String,
    /// Last change of the client or its savings.
    pub last_updated: String,
    /// Total RWA savings (CET Savings (RWAs)).
    pub cet1_savings_rwas: f64,
    /// The same in basis points of CET1 ratio, from the one bps function (read-only).
    pub cet1_savings_bps: f64,
    /// The figure an administrator typed (used while no processed file has savings).
    pub manual_savings_rwas: Option<f64>,
    /// The processed files' RWA savings; above 0 it is the client's total.
    pub file_sum_rwas: f64,
    /// Files.
    #[ts(type = "number")]
    pub file_count: i64,
    /// Team members.
    #[ts(type = "number")]
    pub member_count: i64,
    /// Official CET1 capital.
    pub official_cet1_capital: Option<f64>,
    /// Official total RWAs.
    pub official_total_rwas: Option<f64>,
    /// Official CET1 ratio as reported (fraction).
    pub official_cet1_ratio: Option<f64>,
    /// CET1 capital / total RWAs (fraction), when both are set.
    pub computed_cet1_ratio: Option<f64>,
    /// Set when the reported ratio differs from capital / RWAs by more than 5 bps.
    pub ratio_warning: Option<String>,
}

fn computed_ratio(capital: Option<f64>, rwas: Option<f64>) -> Option<f64> {
    match (capital, rwas) {
        (Some(c), Some(r)) if c > 0.0 && r > 0.0 => Some(c / r),
        _ => None,
    }
}

/// The warning for a reported ratio that is not capital / RWAs (transitional against fully
/// loaded figures, or another consolidation scope).
pub fn ratio_warning(
    capital: Option<f64>,
    rwas: Option<f64>,
    ratio: Option<f64>,
) -> Option<String> {
    let computed = computed_ratio(capital, rwas)?;
    let reported = ratio?;
    ((reported - computed).abs() > RATIO_WARNING).then(|| {
        format!(
            "The reported CET1 ratio ({:.2} %) differs from CET1 capital / total RWAs ({:.2} %) by more than 5 bps",
            reported * 100.0,
            computed * 100.0
        )
    })
}

impl From<AdminClientRow> for AdminClient {
    fn from(r: AdminClientRow) -> AdminClient {
        AdminClient {
            computed_cet1_ratio: computed_ratio(r.official_cet1_capital, r.official_total_rwas),
            ratio_warning: ratio_warning(
                r.official_cet1_capital,
                r.official_total_rwas,
                r.official_cet1_ratio,
            ),
            id: r.id,
            name: r.name,
            description: r.description,
            from_date: r.from_date,
            created_by: r.created_by,
            created_by_name: r.created_by_name,
            created_at: r.created_at,
            last_updated: r.last_updated,
            cet1_savings_rwas: r.cet1_savings_rwas,
            cet1_savings_bps: r.cet1_savings_bps,
            manual_savings_rwas: r.manual_savings_rwas,
            file_sum_rwas: r.file_sum_rwas,
            file_count: r.file_count,
            member_count: r.member_count,
            official_cet1_capital: r.official_cet1_capital,
            official_total_rwas: r.official_total_rwas,
            official_cet1_ratio: r.official_cet1_ratio,
        }
    }
}

/// Reads the Filter menu's choice: `all`, `mine`, `shared` or `recent` (absent: all).
pub fn parse_filter(s: Option<&str>) -> ApiResult<ClientFilter> {
    match s.map(str::trim).unwrap_or("all") {
        "" | "all" => Ok(ClientFilter::All),
        "mine" => Ok(ClientFilter::Mine),
        "shared" => Ok(ClientFilter::Shared),
        "recent" => Ok(ClientFilter::Recent),
        other => Err(ApiError::bad_request(
            "invalid_filter",
            format!("Unknown filter '{other}': use all, mine, shared or recent"),
        )),
    }
}

/// The clients matching a search and a filter, most recently updated first.
pub async fn list(
    state: &AppState,
    admin: &Actor,
    filter: ClientFilter,
    search: &str,
) -> ApiResult<Vec<AdminClient>> {
    let since = crate::db::ts(chrono::Utc::now() - chrono::Duration::days(RECENT_DAYS));
    Ok(
        db::list(&state.db.pool, &admin.user.id, filter, search, &since)
            .await?
            .into_iter()
            .map(AdminClient::from)
            .collect(),
    )
}

/// One client.
pub async fn get(state: &AppState, id: &str) -> ApiResult<AdminClient> {
    db::get(&state.db.pool, id)
        .await?
        .map(AdminClient::from)
        .ok_or_else(client_not_found)
}

fn client_not_found() -> ApiError {
    ApiError::not_found("Client not found")
}

/// A client's details and official figures as the Add New Client dialog and the data room's
/// edit send them.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ClientInput {
    /// Client Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// From Date (YYYY-MM-DD, 2024-01-01 to today).
    pub from_date: Option<String>,
    /// CET1 Savings (RWAs), optional (a new client only; the inline edit changes it later).
    #[serde(default)]
    #[ts(optional)]
    pub cet1_savings_rwas: Option<f64>,
    /// Official CET1 capital.
    #[serde(default)]
    pub official_cet1_capital: Option<f64>,
    /// Official total RWAs.
    #[serde(default)]
    pub official_total_rwas: Option<f64>,
    /// Official CET1 ratio as reported (fraction; capital / RWAs when absent).
    #[serde(default)]
    pub official_cet1_ratio: Option<f64>,
}

/// The checked fields of a [`ClientInput`].
struct Checked {
    name: String,
    description: String,
    from_date: String,
    capital: Option<f64>,
    rwas: Option<f64>,
    ratio: Option<f64>,
    savings: Option<f64>,
}

fn check_amount(v: Option<f64>, what: &str) -> ApiResult<Option<f64>> {
    match v {
        None => Ok(None),
        Some(x) if !x.is_finite() || x < 0.0 => Err(ApiError::validation(format!(
            "{what} must be a positive amount"
        ))),
        Some(x) => Ok(Some(x)),
    }
}

fn check(input: &ClientInput, today: NaiveDate) -> ApiResult<Checked> {
    let name = input.name.trim();
    if name.is_empty() {
        return Err(ApiError::validation("Client name is required"));
    }
    let name = super::clean_name(name, "Client", 200)?;
    let description = input.description.trim();
    if description.is_empty() {
        return Err(ApiError::validation("Description is required"));
    }
    if description.chars().count() > 2000 {
        return Err(ApiError::validation(
            "Description must be at most 2000 characters",
        ));
    }
    let from = input.from_date.as_deref().map(str::trim).unwrap_or("");
    if from.is_empty() {
        return Err(ApiError::validation("From date is required"));
    }
    let date = NaiveDate::parse_from_str(from, "%Y-%m-%d")
        .map_err(|_| ApiError::validation("From date must be a date (YYYY-MM-DD)"))?;
    let earliest = NaiveDate::parse_from_str(EARLIEST_FROM_DATE, "%Y-%m-%d").expect("a date");
    if date < earliest || date > today {
        return Err(ApiError::validation(
            "From date must be between 1 January 2024 and today",
        ));
    }
    let savings = check_amount(input.cet1_savings_rwas, "CET1 Savings (RWAs)")?;
    let capital = check_amount(input.official_cet1_capital, "CET1 capital")?.filter(|c| *c > 0.0);
    let rwas = check_amount(input.official_total_rwas, "Total RWAs")?.filter(|r| *r > 0.0);
    if capital.is_some() != rwas.is_some() {
        return Err(ApiError::validation(
            "Enter both the official CET1 capital and total RWAs, or neither",
        ));
    }
    if let (Some(c), Some(r)) = (capital, rwas)
        && c >= r
    {
        return Err(ApiError::validation(
            "The CET1 capital must be smaller than the total RWAs",
        ));
    }
    let ratio = match input.official_cet1_ratio {
        None => computed_ratio(capital, rwas),
        Some(x) if !x.is_finite() || x <= 0.0 || x >= 1.0 => {
            return Err(ApiError::validation(
                "The CET1 ratio must be a percentage between 0 and 100",
            ));
        }
        Some(_) if capital.is_none() => {
            return Err(ApiError::validation(
                "Enter the CET1 capital and total RWAs with the ratio",
            ));
        }
        Some(x) => Some(x),
    };
    if let (Some(s), Some(r)) = (savings, rwas)
        && s >= r
    {
        return Err(ApiError::validation(
            "CET1 Savings (RWAs) must be smaller than the total RWAs",
        ));
    }
    Ok(Checked {
        name,
        description: description.to_string(),
        from_date: date.format("%Y-%m-%d").to_string(),
        capital,
        rwas,
        ratio,
        savings,
    })
}

/// A created client and how many administrators joined it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CreatedClient {
    /// The client.
    pub client: AdminClient,
    /// The administrators added as members (every one).
    #[ts(type = "number")]
    pub admins_added: i64,
}

/// Creates a client (spec 000 section 4: every administrator is added to it), with its board's
/// default columns and, when a savings figure was given, its savings synced, in one transaction.
pub async fn create(
    state: &AppState,
    admin: &Actor,
    input: &ClientInput,
) -> ApiResult<CreatedClient> {
    let c = check(input, chrono::Utc::now().date_naive())?;
    let mut ch = Change::begin(state, clients_topic()).await?;
    let id = super::clients::create(
        ch.conn(),
        &NewClient {
            name: &c.name,
            description: &c.description,
            from_date: Some(&c.from_date),
            created_by: Some(&admin.user.id),
            official_cet1_capital: c.capital,
            official_total_rwas: c.rwas,
            official_cet1_ratio: c.ratio,
        },
    )
    .await?;
    let admins = db::admin_ids(ch.conn()).await?;
    for a in &admins {
        users::add_to_client(ch.conn(), &id, a, Some(&admin.user.id)).await?;
    }
    if let Some(s) = c.savings {
        db::set_manual_savings(ch.conn(), &id, Some(s)).await?;
        super::savings::resync_and_announce(&mut ch, &id).await?;
    }
    ch.commit(
        admin,
        Event::ClientChanged(ClientChange {
            client_id: id.clone(),
            what: "created",
        }),
        Audit {
            event_type: "client_created",
            entity_type: "client",
            entity_id: &id,
            details: json!({"name": c.name, "admins_added": admins.len(), "cet1_savings_rwas": c.savings}),
            severity: "info",
        },
    )
    .await?;
    Ok(CreatedClient {
        client: get(state, &id).await?,
        admins_added: admins.len() as i64,
    })
}

/// Edits a client's details and official figures; its savings are synced again (bps depend on
/// the figures).
pub async fn update(
    state: &AppState,
    admin: &Actor,
    id: &str,
    input: &ClientInput,
) -> ApiResult<AdminClient> {
    let c = check(input, chrono::Utc::now().date_naive())?;
    let mut ch = Change::begin(state, clients_topic()).await?;
    let before = db::get(ch.conn(), id).await?.ok_or_else(client_not_found)?;
    db::update_details(
        ch.conn(),
        id,
        &ClientDetails {
            name: &c.name,
            description: &c.description,
            from_date: Some(&c.from_date),
            official_cet1_capital: c.capital,
            official_total_rwas: c.rwas,
            official_cet1_ratio: c.ratio,
        },
    )
    .await?;
    super::savings::resync_and_announce(&mut ch, id).await?;
    ch.commit(
        admin,
        Event::ClientChanged(ClientChange {
            client_id: id.to_string(),
            what: "updated",
        }),
        Audit {
            event_type: "client_updated",
            entity_type: "client",
            entity_id: id,
            details: json!({
                "name": {"from": before.name, "to": c.name},
                "official_cet1_capital": {"from": before.official_cet1_capital, "to": c.capital},
                "official_total_rwas": {"from": before.official_total_rwas, "to": c.rwas},
                "official_cet1_ratio": {"from": before.official_cet1_ratio, "to": c.ratio},
            }),
            severity: "info",
        },
    )
    .await?;
    get(state, id).await
}

/// The outcome of an inline savings edit.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SavingsEdit {
    /// The client after the edit and the sync.
    pub client: AdminClient,
    /// The client's processed files have savings that differ from the typed figure by more
    /// than 0.01: their sum stays the client's total (the automatic sync).
    pub synced_from_files: bool,
}

/// The inline RWA savings edit of the Clients page: stores the typed figure, then syncs the
/// client's savings (spec 000 section 4: "Save writes the RWAs value, then resyncs savings").
/// Only one runs at a time per client: while one holds the client, another is refused with 409
/// `update_in_progress` and changes nothing.
pub async fn edit_savings(
    state: &AppState,
    admin: &Actor,
    id: &str,
    rwas: f64,
) -> ApiResult<SavingsEdit> {
    let rwas = check_amount(Some(rwas), "CET1 Savings (RWAs)")?.unwrap_or(0.0);
    let now = chrono::Utc::now();
    let until = crate::db::ts(now + chrono::Duration::seconds(SAVINGS_HOLD_SECS));
    if !db::claim_savings_update(&state.db.pool, id, &crate::db::ts(now), &until).await? {
        // Not found, or held by another edit.
        db::get(&state.db.pool, id)
            .await?
            .ok_or_else(client_not_found)?;
        return Err(ApiError::Conflict {
            code: "update_in_progress",
            message: "An update of this client's savings is already running".into(),
        });
    }
    let outcome = edit_savings_held(state, admin, id, rwas).await;
    if let Err(e) = db::release_savings_update(&state.db.pool, id, &until).await {
        // The hold expires by itself.
        tracing::warn!(error = %e, client = id, "could not release the savings hold");
    }
    outcome
}

async fn edit_savings_held(
    state: &AppState,
    admin: &Actor,
    id: &str,
    rwas: f64,
) -> ApiResult<SavingsEdit> {
    let mut ch = Change::begin(state, clients_topic()).await?;
    let before = db::get(ch.conn(), id).await?.ok_or_else(client_not_found)?;
    if let Some(r) = before.official_total_rwas
        && rwas >= r
    {
        return Err(ApiError::validation(
            "CET1 Savings (RWAs) must be smaller than the total RWAs",
        ));
    }
    db::set_manual_savings(ch.conn(), id, Some(rwas)).await?;
    let synced = super::savings::resync_and_announce(&mut ch, id).await?;
    let synced_from_files =
        before.file_sum_rwas > 0.0 && (before.file_sum_rwas - rwas).abs() > SYNC_TOLERANCE;
    ch.commit(
        admin,
        Event::ClientChanged(ClientChange {
            client_id: id.to_string(),
            what: "savings",
        }),
        Audit {
            event_type: "client_savings_edited",
            entity_type: "client",
            entity_id: id,
            details: json!({
                "typed_rwas": rwas,
                "from_rwas": before.cet1_savings_rwas,
                "to_rwas": synced.cet1_savings_rwas,
                "to_bps": synced.cet1_savings_bps,
                "synced_from_files": synced_from_files,
            }),
            severity: "info",
        },
    )
    .await?;
    Ok(SavingsEdit {
        client: get(state, id).await?,
        synced_from_files,
    })
}

/// A client role within one client, as User Management sets it.
pub fn parse_client_role(role: &str) -> ApiResult<&'static str> {
    match role.trim() {
        "member" => Ok("member"),
        "approver" => Ok("approver"),
        _ => Err(ApiError::validation(
            "Client role must be member or approver",
        )),
    }
}

/// Adds a user to a client with a client role, or changes their role there (User-Client
/// Management). The user's open screens learn it at once.
pub async fn set_member(
    state: &AppState,
    admin: &Actor,
    client_id: &str,
    user_id: &str,
    role: &str,
) -> ApiResult<()> {
    let role = parse_client_role(role)?;
    let mut ch = Change::begin(state, clients_topic()).await?;
    db::get(ch.conn(), client_id)
        .await?
        .ok_or_else(client_not_found)?;
    users::by_id(ch.conn(), user_id)
        .await?
        .ok_or_else(|| ApiError::not_found("User not found"))?;
    users::add_to_client(ch.conn(), client_id, user_id, Some(&admin.user.id)).await?;
    users::set_member_role(ch.conn(), client_id, user_id, role).await?;
    ch.also(
        users_topic(),
        Event::UserChanged(UserChange {
            user_ids: vec![user_id.to_string()],
            what: "memberships",
        }),
    )
    .await?;
    ch.commit(
        admin,
        Event::ClientChanged(ClientChange {
            client_id: client_id.to_string(),
            what: "members",
        }),
        Audit {
            event_type: "client_member_set",
            entity_type: "client",
            entity_id: client_id,
            details: json!({"user_id": user_id, "client_role": role}),
            severity: "warning",
        },
    )
    .await?;
    state.recheck_user(user_id).await;
    Ok(())
}

/// Removes a user from a client.
pub async fn remove_member(
    state: &AppState,
    admin: &Actor,
    client_id: &str,
    user_id: &str,
) -> ApiResult<()> {
    let mut ch = Change::begin(state, clients_topic()).await?;
    if !db::remove_member(ch.conn(), client_id, user_id).await? {
        return Err(ApiError::not_found("Membership not found"));
    }
    ch.also(
        users_topic(),
        Event::UserChanged(UserChange {
            user_ids: vec![user_id.to_string()],
            what: "memberships",
        }),
    )
    .await?;
    ch.commit(
        admin,
        Event::ClientChanged(ClientChange {
            client_id: client_id.to_string(),
            what: "members",
        }),
        Audit {
            event_type: "client_member_removed",
            entity_type: "client",
            entity_id: client_id,
            details: json!({"user_id": user_id}),
            severity: "warning",
        },
    )
    .await?;
    state.recheck_user(user_id).await;
    Ok(())
}

/// The admin sync: every administrator becomes a member of every client. Returns how many
/// memberships were added.
pub async fn sync_admins(state: &AppState, admin: &Actor) -> ApiResult<u64> {
    let mut ch = Change::begin(state, clients_topic()).await?;
    let added = db::add_admins_everywhere(ch.conn(), &admin.user.id).await?;
    ch.also(
        users_topic(),
        Event::UserChanged(UserChange {
            user_ids: Vec::new(),
            what: "memberships",
        }),
    )
    .await?;
    ch.commit(
        admin,
        Event::ClientChanged(ClientChange {
            client_id: String::new(),
            what: "members",
        }),
        Audit {
            event_type: "admins_synced",
            entity_type: "client",
            entity_id: "*",
            details: json!({"memberships_added": added}),
            severity: "info",
        },
    )
    .await?;
    Ok(added)
}

/// One month of a client's savings history (the data room's chart).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct HistoryPoint {
    /// Year.
    #[ts(type = "number")]
    pub year: i64,
    /// Month 1..=12.
    #[ts(type = "number")]
    pub month: i64,
    /// RWA savings at the end of the month.
    pub total_rwas: f64,
    /// The same in bps.
    pub total_bps: f64,
    /// Growth against the previous month, percent.
    pub monthly_growth_rate: f64,
}

/// A file of the client (the data room's latest files).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RoomFile {
    /// Id.
    pub id: String,
    /// The user's file name.
    pub name: String,
    /// Upload time.
    pub uploaded_at: String,
    /// Lever, if assigned.
    pub lever_name: Option<String>,
    /// Processed.
    pub processed: bool,
    /// Processing status.
    pub processing_status: String,
    /// RWA savings.
    pub savings_rwas: f64,
}

/// A member of the client with their client role.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RoomMember {
    /// The user.
    pub user_id: String,
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Email.
    pub email: String,
    /// Global role.
    pub role: String,
    /// Role within the client: member, approver (or admin, the client's own).
    pub client_role: String,
    /// Since when.
    pub joined_at: String,
}

/// One line of the client's recent activity (its audit trail).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RoomActivity {
    /// When.
    pub at: String,
    /// What happened (`file_uploaded`, `run_completed`, `client_savings_edited`, ...).
    pub event_type: String,
    /// On what (`client_file`, `processing_run`, `client`, `report`, `task`).
    pub entity_type: String,
    /// Who, when known.
    pub actor_name: Option<String>,
    /// The audit record's details (JSON).
    #[ts(type = "Record<string, unknown>")]
    pub details: serde_json::Value,
}

/// Everything the client data room shows.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ClientOverview {
    /// The client, its official figures and savings.
    pub client: AdminClient,
    /// Its savings history, oldest month first.
    pub history: Vec<HistoryPoint>,
    /// Its latest files (at most 10).
    pub files: Vec<RoomFile>,
    /// Its members.
    pub members: Vec<RoomMember>,
    /// Files.
    #[ts(type = "number")]
    pub file_count: i64,
    /// Processed files.
    #[ts(type = "number")]
    pub processed_file_count: i64,
    /// Task board tasks.
    #[ts(type = "number")]
    pub task_count: i64,
    /// Reports.
    #[ts(type = "number")]
    pub report_count: i64,
    /// Pending validations.
    #[ts(type = "number")]
    pub pending_validation_count: i64,
    /// Recent activity, newest first (at most 20).
    pub activity: Vec<RoomActivity>,
}

/// The client data room of one client.
pub async fn overview(state: &AppState, id: &str) -> ApiResult<ClientOverview> {
    let pool = &state.db.pool;
    let client = get(state, id).await?;
    let history = db::history(pool, id)
        .await?
        .into_iter()
        .map(|h| HistoryPoint {
            year: h.year,
            month: h.month,
            total_rwas: h.total_rwas,
            total_bps: h.total_bps,
            monthly_growth_rate: h.monthly_growth_rate,
        })
        .collect();
    let files = db::recent_files(pool, id, 10)
        .await?
        .into_iter()
        .map(|f| RoomFile {
            id: f.id,
            name: f.name,
            uploaded_at: f.uploaded_at,
            lever_name: f.lever_name,
            processed: f.processed != 0,
            processing_status: f.processing_status,
            savings_rwas: f.savings_rwas,
        })
        .collect();
    let members = db::members(pool, id)
        .await?
        .into_iter()
        .map(|m| RoomMember {
            user_id: m.user_id,
            name: m.name,
            last_name: m.last_name,
            email: m.email,
            role: crate::auth::Role::parse(&m.role).as_str().to_string(),
            client_role: m.client_role,
            joined_at: m.created_at,
        })
        .collect();
    let counts = db::counts(pool, id).await?;
    let activity = db::activity(pool, id, 20)
        .await?
        .into_iter()
        .map(|a| RoomActivity {
            at: a.created_at,
            event_type: a.event_type,
            entity_type: a.entity_type,
            actor_name: a.actor_name,
            details: serde_json::from_str(&a.details).unwrap_or(serde_json::Value::Null),
        })
        .collect();
    Ok(ClientOverview {
        client,
        history,
        files,
        members,
        file_count: counts.files,
        processed_file_count: counts.processed_files,
        task_count: counts.tasks,
        report_count: counts.reports,
        pending_validation_count: counts.pending_validations,
        activity,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> ClientInput {
        ClientInput {
            name: " Bank C ".into(),
            description: "A bank".into(),
            from_date: Some("2024-03-01".into()),
            cet1_savings_rwas: Some(1_000_000.0),
            official_cet1_capital: Some(13e9),
            official_total_rwas: Some(100e9),
            official_cet1_ratio: None,
        }
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 25).unwrap()
    }

    fn message(r: ApiResult<Checked>) -> String {
        match r {
            Err(e) => e.to_string(),
            Ok(_) => "accepted".into(),
        }
    }

    #[test]
    fn the_dialog_rules_and_their_messages() {
        let ok = check(&input(), today()).unwrap();
        assert_eq!(ok.name, "Bank C");
        assert_eq!(
            ok.ratio,
            Some(0.13),
            "capital / RWAs when no ratio is given"
        );
        let mut i = input();
        i.name = "  ".into();
        assert_eq!(message(check(&i, today())), "Client name is required");
        let mut i = input();
        i.description = String::new();
        assert_eq!(message(check(&i, today())), "Description is required");
        let mut i = input();
        i.from_date = None;
        assert_eq!(message(check(&i, today())), "From date is required");
        for bad in ["2023-12-31", "2026-11-26"] {
            let mut i = input();
            i.from_date = Some(bad.into());
            assert_eq!(
                message(check(&i, today())),
                "From date must be between 1 January 2024 and today",
                "{bad}"
            );
        }
        for good in ["2024-01-01", "2026-11-25"] {
            let mut i = input();
            i.from_date = Some(good.into());
            assert!(check(&i, today()).is_ok(), "{good}");
        }
        let mut i = input();
        i.official_total_rwas = None;
        assert_eq!(
            message(check(&i, today())),
            "Enter both the official CET1 capital and total RWAs, or neither"
        );
        let mut i = input();
        i.cet1_savings_rwas = Some(-1.0);
        assert_eq!(
            message(check(&i, today())),
            "CET1 Savings (RWAs) must be a positive amount"
        );
        let mut i = input();
        i.official_cet1_ratio = Some(13.0);
        assert_eq!(
            message(check(&i, today())),
            "The CET1 ratio must be a percentage between 0 and 100"
        );
    }

    #[test]
    fn a_reported_ratio_far_from_capital_over_rwas_is_pointed_out() {
        // 13 / 100 = 13 %: 13.04 % is within 5 bps, 13.10 % is not.
        assert_eq!(ratio_warning(Some(13e9), Some(100e9), Some(0.1304)), None);
        assert_eq!(
            ratio_warning(Some(13e9), Some(100e9), Some(0.1310)).as_deref(),
            Some(
                "The reported CET1 ratio (13.10 %) differs from CET1 capital / total RWAs (13.00 %) by more than 5 bps"
            )
        );
        assert_eq!(ratio_warning(None, None, Some(0.13)), None);
    }
}
