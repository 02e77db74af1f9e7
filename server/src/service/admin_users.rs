//! User Management (spec 000 section 2.7): the users listed, searched, filtered by role and paged
//! by the database; the same query exported as CSV; profile edits (role, email and clients
//! included); deletion, which ends the user's sessions and open sockets at once and keeps their
//! audit trail; new users by invitation mail, or with a temporary password shown once when the
//! mail cannot be delivered; a message to every listed user through the mail outbox; and bulk
//! client membership.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::admin_clients::{clients_topic, users_topic};
use super::{Actor, Audit, Change};
use crate::auth::{Role, password};
use crate::db::admin_users::{self as db, AdminUserRow, ProfileEdit, UserFilter};
use crate::db::{clients, sessions, users};
use crate::error::{ApiError, ApiResult, ResultExt};
use crate::realtime::Event;
use crate::realtime::events::{ClientChange, UserChange};
use crate::state::AppState;

/// The page sizes the list offers (spec 000 section 9).
pub const PAGE_SIZES: [i64; 4] = [5, 10, 20, 50];
/// How long the web app shows a temporary password (spec 000 section 8: 10 seconds).
pub const TEMP_PASSWORD_SHOWN_SECS: i64 = 10;
/// A temporary password's `password_changed_at`: long past, so the password-age rule makes its
/// owner choose a new password at the first sign-in.
pub const TEMP_PASSWORD_CHANGED_AT: &str = "1970-01-01T00:00:00.000000Z";

/// A client membership as User Management shows it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UserClient {
    /// The client.
    pub client_id: String,
    /// Its name.
    pub client_name: String,
    /// The role within it: member or approver (or admin, the client's own).
    pub role: String,
}

/// A user as User Management lists them.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ManagedUser {
    /// Id.
    pub id: String,
    /// Email.
    pub email: String,
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Company.
    pub company: Option<String>,
    /// Role (an unknown stored role counts as user).
    pub role: Role,
    /// Avatar, if any.
    pub avatar: Option<String>,
    /// Approves validations: an approver, or an approver of at least one client.
    pub is_approver: bool,
    /// The user's client memberships, by client name.
    pub clients: Vec<UserClient>,
    /// Since when.
    pub created_at: String,
}

/// One page of the list.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UserPage {
    /// The page's users.
    pub items: Vec<ManagedUser>,
    /// Users matching over all pages (the total badge).
    #[ts(type = "number")]
    pub total: i64,
    /// The page (from 1).
    #[ts(type = "number")]
    pub page: i64,
    /// Users per page.
    #[ts(type = "number")]
    pub page_size: i64,
}

/// Reads the role filter: `admin`, `approver`, `user`, `viewer` (plural forms accepted), or all.
pub fn parse_role_filter(role: Option<&str>) -> ApiResult<Option<String>> {
    let r = role
        .map(|r| r.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let r = r.strip_suffix('s').unwrap_or(&r).to_string();
    match r.as_str() {
        "" | "all" | "all role" => Ok(None),
        "admin" | "approver" | "user" | "viewer" => Ok(Some(r)),
        _ => Err(ApiError::bad_request(
            "invalid_role",
            "Role must be one of admin, approver, user, viewer",
        )),
    }
}

/// The filter of a list request.
pub fn filter(search: Option<&str>, role: Option<&str>) -> ApiResult<UserFilter> {
    Ok(UserFilter {
        search: search.unwrap_or("").trim().to_string(),
        role: parse_role_filter(role)?,
    })
}

fn view(row: AdminUserRow, clients: Vec<UserClient>) -> ManagedUser {
    let role = Role::parse(&row.role);
    ManagedUser {
        is_approver: role == Role::Approver || row.client_approver != 0,
        id: row.id,
        email: row.email,
        name: row.name,
        last_name: row.last_name,
        company: row.company,
        role,
        avatar: row.avatar,
        clients,
        created_at: row.created_at,
    }
}

async fn with_clients(
    conn: &mut sqlx::AnyConnection,
    rows: Vec<AdminUserRow>,
) -> ApiResult<Vec<ManagedUser>> {
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let mut by_user: BTreeMap<String, Vec<UserClient>> = BTreeMap::new();
    for m in db::memberships_of(conn, &ids).await? {
        by_user.entry(m.user_id).or_default().push(UserClient {
            client_id: m.client_id,
            client_name: m.client_name,
            role: m.role,
        });
    }
    Ok(rows
        .into_iter()
        .map(|r| {
            let clients = by_user.remove(&r.id).unwrap_or_default();
            view(r, clients)
        })
        .collect())
}

/// One page of the users matching `f` (page from 1; 5, 10, 20 or 50 a page).
pub async fn list(
    state: &AppState,
    f: &UserFilter,
    page: i64,
    page_size: i64,
) -> ApiResult<UserPage> {
    if !PAGE_SIZES.contains(&page_size) {
        return Err(ApiError::bad_request(
            "invalid_page_size",
            "Page size must be 5, 10, 20 or 50",
        ));
    }
    let page = page.max(1);
    let mut conn = state.db.pool.acquire().await?;
    let (rows, total) = db::page(&mut conn, f, (page - 1) * page_size, page_size).await?;
    let items = with_clients(&mut conn, rows).await?;
    Ok(UserPage {
        items,
        total,
        page,
        page_size,
    })
}

/// One user.
pub async fn get(state: &AppState, id: &str) -> ApiResult<ManagedUser> {
    let mut conn = state.db.pool.acquire().await?;
    let row = db::get(&mut *conn, id).await?.ok_or_else(user_not_found)?;
    Ok(with_clients(&mut conn, vec![row]).await?.remove(0))
}

fn user_not_found() -> ApiError {
    ApiError::not_found("User not found")
}

/// Every user matching `f` as CSV (Export Users): the list's query, unpaged; cells a spreadsheet
/// would read as formulas are neutralised.
pub async fn export_csv(state: &AppState, f: &UserFilter) -> ApiResult<Vec<u8>> {
    let mut conn = state.db.pool.acquire().await?;
    let rows = db::all(&mut *conn, f).await?;
    let users = with_clients(&mut conn, rows).await?;
    let mut out = Vec::new();
    let mut line = |cells: &[&str]| {
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            analysis::output::write_csv_cell(&mut out, c.as_bytes(), b',', true);
        }
        out.push(b'\n');
    };
    line(&[
        "Name",
        "Last Name",
        "Email",
        "Company",
        "Role",
        "Approver",
        "Clients",
        "Created At",
    ]);
    for u in &users {
        let clients = if u.role == Role::Admin {
            "All".to_string()
        } else {
            u.clients
                .iter()
                .map(|c| {
                    if c.role == "member" {
                        c.client_name.clone()
                    } else {
                        format!("{} ({})", c.client_name, c.role)
                    }
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        line(&[
            &u.name,
            &u.last_name,
            &u.email,
            u.company.as_deref().unwrap_or(""),
            u.role.as_str(),
            if u.is_approver { "yes" } else { "no" },
            &clients,
            &u.created_at,
        ]);
    }
    Ok(out)
}

/// A profile as the Edit User Details dialog sends it.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UserEdit {
    /// First name.
    pub name: String,
    /// Last name.
    #[serde(default)]
    pub last_name: String,
    /// Email.
    pub email: String,
    /// Company.
    #[serde(default)]
    pub company: Option<String>,
    /// Role: admin, approver, user or viewer.
    pub role: String,
    /// The clients the user belongs to, all of them (absent: unchanged; ignored for admins,
    /// who see every client).
    #[serde(default)]
    #[ts(optional)]
    pub client_ids: Option<Vec<String>>,
}

fn check_text(value: &str, what: &str, max: usize) -> ApiResult<()> {
    if value.chars().any(char::is_control) {
        return Err(ApiError::validation(format!(
            "{what} must not contain control characters"
        )));
    }
    if value.chars().count() > max {
        return Err(ApiError::validation(format!(
            "{what} must be at most {max} characters"
        )));
    }
    Ok(())
}

/// Edits a user's profile, role and clients (one transaction). An administrator cannot change
/// their own role. The user's open screens learn a new role or clients at once.
pub async fn update(
    state: &AppState,
    admin: &Actor,
    id: &str,
    edit: &UserEdit,
) -> ApiResult<ManagedUser> {
    let name = edit.name.trim();
    if name.is_empty() {
        return Err(ApiError::validation("First name is required"));
    }
    check_text(name, "First name", 100)?;
    let last_name = edit.last_name.trim();
    check_text(last_name, "Last name", 100)?;
    let email = edit.email.trim().to_lowercase();
    if email.is_empty() {
        return Err(ApiError::validation("Email is required"));
    }
    if !crate::api::valid_email(&email) {
        return Err(ApiError::validation("Email is invalid"));
    }
    let company = edit
        .company
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    if let Some(c) = company {
        check_text(c, "Company", 200)?;
    }
    let role = Role::parse_strict(&edit.role)
        .ok_or_else(|| ApiError::validation("Role must be one of admin, approver, user, viewer"))?;
    let mut ch = Change::begin(state, clients_topic()).await?;
    let before = users::by_id(ch.conn(), id)
        .await?
        .ok_or_else(user_not_found)?;
    let before_role = Role::parse(&before.role);
    if admin.user.id == id && role != before_role {
        return Err(ApiError::validation("You cannot change your own role"));
    }
    db::update_profile(
        ch.conn(),
        id,
        &ProfileEdit {
            name,
            last_name,
            email: &email,
            company,
            role: role.as_str(),
        },
    )
    .await
    .on_unique("email_taken", "A user with this email already exists")?;
    let mut added = Vec::new();
    let mut removed = Vec::new();
    if let Some(wanted) = &edit.client_ids
        && role != Role::Admin
    {
        let wanted: BTreeSet<&str> = wanted
            .iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .collect();
        let current: BTreeSet<String> = users::client_memberships(ch.conn(), id)
            .await?
            .into_iter()
            .map(|m| m.client_id)
            .collect();
        for c in &wanted {
            if !current.contains(*c) {
                clients::exists(ch.conn(), c)
                    .await?
                    .ok_or_else(|| ApiError::validation("Client not found"))?;
                users::add_to_client(ch.conn(), c, id, Some(&admin.user.id)).await?;
                added.push(c.to_string());
            }
        }
        for c in &current {
            if !wanted.contains(c.as_str()) {
                crate::db::admin_clients::remove_member(ch.conn(), c, id).await?;
                removed.push(c.clone());
            }
        }
    }
    ch.also(
        users_topic(),
        Event::UserChanged(UserChange {
            user_ids: vec![id.to_string()],
            what: "updated",
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
            event_type: "user_updated",
            entity_type: "user",
            entity_id: id,
            details: json!({
                "name": {"from": before.name, "to": name},
                "last_name": {"from": before.last_name, "to": last_name},
                "email": {"from": before.email, "to": email},
                "company": {"from": before.company, "to": company},
                "role": {"from": before_role.as_str(), "to": role.as_str()},
                "clients_added": added,
                "clients_removed": removed,
            }),
            severity: if role != before_role || before.email != email {
                "warning"
            } else {
                "info"
            },
        },
    )
    .await?;
    state.recheck_user(id).await;
    get(state, id).await
}

/// Deletes a user (not oneself): their sessions and refresh tokens go with them, so their open
/// sockets are closed at once and their next request is refused; their audit trail stays (it
/// names them by id, and the deletion's record keeps who they were).
pub async fn delete(state: &AppState, admin: &Actor, id: &str) -> ApiResult<()> {
    if admin.user.id == id {
        return Err(ApiError::validation("You cannot remove your own account"));
    }
    let mut ch = Change::begin(state, clients_topic()).await?;
    let before = users::by_id(ch.conn(), id)
        .await?
        .ok_or_else(user_not_found)?;
    let memberships = users::client_memberships(ch.conn(), id).await?;
    if !db::delete(ch.conn(), id).await? {
        return Err(user_not_found());
    }
    ch.also(
        users_topic(),
        Event::UserChanged(UserChange {
            user_ids: vec![id.to_string()],
            what: "deleted",
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
            event_type: "user_deleted",
            entity_type: "user",
            entity_id: id,
            details: json!({
                "email": before.email,
                "name": before.name,
                "last_name": before.last_name,
                "role": before.role,
                "clients": memberships.iter().map(|m| &m.client_id).collect::<Vec<_>>(),
            }),
            severity: "critical",
        },
    )
    .await?;
    // No session is left: every open socket of the user closes now.
    state.recheck_user(id).await;
    Ok(())
}

/// What the Create New User dialog sends.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct NewUser {
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Email.
    pub email: String,
    /// Role: admin, approver, user or viewer.
    pub role: String,
    /// The client to join.
    pub client_id: Option<String>,
}

/// A created user: invited by mail, or, when the mail could not be delivered, created at once
/// with a temporary password shown once.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CreatedUser {
    /// The invitation mail was delivered (the person signs up from its link).
    pub invite_sent: bool,
    /// The invitation.
    pub invitation_id: String,
    /// The account, when it was created with a temporary password.
    pub user_id: Option<String>,
    /// The temporary password, only when the mail could not be delivered: shown once for
    /// `temp_password_seconds`, never stored in clear; its owner must change it at first sign-in.
    pub temp_password: Option<String>,
    /// How long to show the temporary password, in seconds.
    #[ts(type = "number")]
    pub temp_password_seconds: i64,
}

/// A temporary password that meets the password policy (upper and lower case, a digit; 80
/// random bits).
fn temporary_password() -> String {
    let u = uuid::Uuid::new_v4().simple().to_string();
    format!("Tmp-{}-{}-7q", &u[..10], u[10..20].to_uppercase())
}

/// Creates a user (spec 000: the create-user-invitation function): an invitation mailed with
/// its link; when the mail cannot be delivered, the account is created at once with a temporary
/// password (the invitation used up), returned once.
pub async fn create(state: &AppState, admin: &Actor, req: &NewUser) -> ApiResult<CreatedUser> {
    let client_id = req
        .client_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let invited = super::invitations::create(
        state,
        admin,
        super::invitations::InvitationRequest {
            name: &req.name,
            last_name: &req.last_name,
            email: &req.email,
            role: &req.role,
            client_id,
        },
    )
    .await?;
    if invited.invite_sent {
        return Ok(CreatedUser {
            invite_sent: true,
            invitation_id: invited.id,
            user_id: None,
            temp_password: None,
            temp_password_seconds: TEMP_PASSWORD_SHOWN_SECS,
        });
    }
    // The invitation checked the role.
    let role = Role::parse(&req.role);
    let temp = temporary_password();
    password::check_strong(&temp)?;
    let hash = password::hash(&temp).await?;
    let email = req.email.trim().to_lowercase();
    let mut ch = Change::begin(state, users_topic()).await?;
    if !sessions::use_invitation(ch.conn(), &invited.id).await? {
        return Err(ApiError::Conflict {
            code: "invitation_used",
            message: "The invitation was used meanwhile".into(),
        });
    }
    let company = match client_id {
        Some(c) => clients::exists(ch.conn(), c).await?,
        None => None,
    };
    let user_id = users::insert(
        ch.conn(),
        &users::NewUser {
            email: &email,
            password_hash: Some(&hash),
            name: req.name.trim(),
            last_name: req.last_name.trim(),
            role: role.as_str(),
            company: company.as_deref(),
            terms_accepted_at: None,
            password_changed_at: Some(TEMP_PASSWORD_CHANGED_AT),
        },
    )
    .await
    .on_unique("email_taken", "A user with this email already exists")?;
    if role == Role::Admin {
        for c in clients::list(ch.conn()).await? {
            users::add_to_client(ch.conn(), &c.id, &user_id, Some(&admin.user.id)).await?;
        }
    } else if let Some(c) = client_id {
        users::add_to_client(ch.conn(), c, &user_id, Some(&admin.user.id)).await?;
    }
    ch.commit(
        admin,
        Event::UserChanged(UserChange {
            user_ids: vec![user_id.clone()],
            what: "created",
        }),
        Audit {
            event_type: "user_created_with_temporary_password",
            entity_type: "user",
            entity_id: &user_id,
            details: json!({"email": email, "role": role.as_str(), "client_id": client_id, "invitation_id": invited.id}),
            severity: "warning",
        },
    )
    .await?;
    Ok(CreatedUser {
        invite_sent: false,
        invitation_id: invited.id,
        user_id: Some(user_id),
        temp_password: Some(temp),
        temp_password_seconds: TEMP_PASSWORD_SHOWN_SECS,
    })
}

/// Email All: a message to every user the list shows (its search and role filter).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EmailAll {
    /// Subject.
    pub subject: String,
    /// Message.
    pub message: String,
    /// The list's search.
    #[serde(default)]
    #[ts(optional)]
    pub q: Option<String>,
    /// The list's role filter.
    #[serde(default)]
    #[ts(optional)]
    pub role: Option<String>,
}

/// How many mails were queued.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EmailAllOutcome {
    /// Mails queued (one per user).
    #[ts(type = "number")]
    pub sent: i64,
    /// Mails that could not be queued.
    #[ts(type = "number")]
    pub failed: i64,
}

/// Sends a message to every user matching the list's filter, one mail each through the outbox
/// (and SMTP when configured), audited.
pub async fn email_all(
    state: &AppState,
    admin: &Actor,
    req: &EmailAll,
) -> ApiResult<EmailAllOutcome> {
    let subject = req.subject.trim();
    if subject.is_empty() {
        return Err(ApiError::validation("Subject is required"));
    }
    check_text(subject, "Subject", 200)?;
    let message = req.message.trim();
    if message.is_empty() {
        return Err(ApiError::validation("Message is required"));
    }
    if message.chars().count() > 10_000 {
        return Err(ApiError::validation(
            "Message must be at most 10000 characters",
        ));
    }
    let f = filter(req.q.as_deref(), req.role.as_deref())?;
    let emails = db::emails(&state.db.pool, &f).await?;
    let (mut sent, mut failed) = (0, 0);
    for to in &emails {
        match state.mailer.send(&state.db, to, subject, message).await {
            Ok(_) => sent += 1,
            Err(e) => {
                tracing::warn!(error = %e, "a message of Email All could not be queued");
                failed += 1;
            }
        }
    }
    let ch = Change::begin_unannounced(state).await?;
    ch.commit_unannounced(
        admin.audited(),
        Audit {
            event_type: "users_emailed",
            entity_type: "user",
            entity_id: "*",
            details: json!({"subject": subject, "sent": sent, "failed": failed, "search": f.search, "role": f.role}),
            severity: "info",
        },
    )
    .await?;
    Ok(EmailAllOutcome { sent, failed })
}

/// Assign to Client: several users join one client with one client role.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AssignToClient {
    /// The users.
    pub user_ids: Vec<String>,
    /// The client.
    pub client_id: String,
    /// Their role there: member (default) or approver.
    #[serde(default)]
    #[ts(optional)]
    pub role: Option<String>,
}

/// How many users joined (the others were members already and got the role).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AssignOutcome {
    /// Users who joined the client.
    #[ts(type = "number")]
    pub added: i64,
    /// Users given the role (all of them).
    #[ts(type = "number")]
    pub updated: i64,
}

/// Adds several users to one client with a client role, in one transaction.
pub async fn assign_to_client(
    state: &AppState,
    admin: &Actor,
    req: &AssignToClient,
) -> ApiResult<AssignOutcome> {
    let role = super::admin_clients::parse_client_role(req.role.as_deref().unwrap_or("member"))?;
    let ids: BTreeSet<&str> = req
        .user_ids
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    if ids.is_empty() {
        return Err(ApiError::validation("Select at least one user"));
    }
    if ids.len() > 500 {
        return Err(ApiError::validation("Assign at most 500 users at once"));
    }
    let mut ch = Change::begin(state, clients_topic()).await?;
    clients::exists(ch.conn(), &req.client_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Client not found"))?;
    let mut added = 0;
    for id in &ids {
        users::by_id(ch.conn(), id)
            .await?
            .ok_or_else(user_not_found)?;
        let member = users::client_memberships(ch.conn(), id)
            .await?
            .iter()
            .any(|m| m.client_id == req.client_id);
        if !member {
            users::add_to_client(ch.conn(), &req.client_id, id, Some(&admin.user.id)).await?;
            added += 1;
        }
        users::set_member_role(ch.conn(), &req.client_id, id, role).await?;
    }
    let user_ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    ch.also(
        users_topic(),
        Event::UserChanged(UserChange {
            user_ids: user_ids.clone(),
            what: "memberships",
        }),
    )
    .await?;
    ch.commit(
        admin,
        Event::ClientChanged(ClientChange {
            client_id: req.client_id.clone(),
            what: "members",
        }),
        Audit {
            event_type: "users_assigned_to_client",
            entity_type: "client",
            entity_id: &req.client_id,
            details: json!({"user_ids": user_ids, "client_role": role, "added": added}),
            severity: "warning",
        },
    )
    .await?;
    for id in &user_ids {
        state.recheck_user(id).await;
    }
    Ok(AssignOutcome {
        added,
        updated: user_ids.len() as i64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_password_meets_the_policy() {
        for _ in 0..50 {
            let p = temporary_password();
            assert!(password::check_strong(&p).is_ok(), "{p}");
            assert_ne!(p, temporary_password());
        }
    }

    #[test]
    fn role_filters() {
        assert_eq!(parse_role_filter(None).unwrap(), None);
        assert_eq!(parse_role_filter(Some("all")).unwrap(), None);
        assert_eq!(
            parse_role_filter(Some("Admins")).unwrap().as_deref(),
            Some("admin")
        );
        assert_eq!(
            parse_role_filter(Some("viewer")).unwrap().as_deref(),
            Some("viewer")
        );
        assert!(parse_role_filter(Some("owner")).is_err());
    }
}
