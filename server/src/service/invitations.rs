//! Invitations: an admin invites a person (role, company, client, expiry) and mails a one-time
//! link; the invited person creates their account from it, joining the invitation's client (every
//! client for an admin). Each is one audited transaction.

use serde_json::json;

use super::{Actor, Audit, AuditActor, Change};
use crate::auth::tokens::{self, hash_token, random_token};
use crate::auth::{Role, password};
use crate::db::sessions::InvitationRow;
use crate::db::{self, clients, sessions, users};
use crate::error::{ApiError, ApiResult, ResultExt};
use crate::state::AppState;

/// An invitation as an admin asks for it.
#[derive(Debug, Clone, Copy)]
pub struct InvitationRequest<'a> {
    /// First name.
    pub name: &'a str,
    /// Last name.
    pub last_name: &'a str,
    /// Email.
    pub email: &'a str,
    /// Role: admin, approver, user or viewer.
    pub role: &'a str,
    /// Client to join (required except for admins).
    pub client_id: Option<&'a str>,
}

/// A created invitation.
#[derive(Debug)]
pub struct Invited {
    /// Its id.
    pub id: String,
    /// Whether its mail was queued.
    pub invite_sent: bool,
    /// Its expiry (RFC 3339).
    pub expires_at: String,
}

fn invalid_invitation() -> ApiError {
    ApiError::NotFound {
        code: "invalid_invitation",
        message: "Invalid or expired invitation link".into(),
    }
}

fn check_person(name: &str, last_name: &str) -> ApiResult<()> {
    for (value, what) in [(name, "Name"), (last_name, "Last name")] {
        if value.chars().any(char::is_control) {
            return Err(ApiError::validation(format!(
                "{what} must not contain control characters"
            )));
        }
        if value.chars().count() > 100 {
            return Err(ApiError::validation(format!(
                "{what} must be at most 100 characters"
            )));
        }
    }
    Ok(())
}

/// Creates an invitation and mails its link (the mail is queued after the commit).
pub async fn create(
    state: &AppState,
    admin: &Actor,
    req: InvitationRequest<'_>,
) -> ApiResult<Invited> {
    let email = req.email.trim().to_lowercase();
    let (name, last_name) = (req.name.trim(), req.last_name.trim());
    if name.is_empty() {
        return Err(ApiError::validation("Name is required"));
    }
    if last_name.is_empty() {
        return Err(ApiError::validation("Last name is required"));
    }
    check_person(name, last_name)?;
    if !crate::api::valid_email(&email) {
        return Err(ApiError::validation("Invalid email address"));
    }
    let role = Role::parse_strict(req.role)
        .ok_or_else(|| ApiError::validation("Role must be one of admin, approver, user, viewer"))?;
    let client_id = req.client_id.map(str::trim).filter(|s| !s.is_empty());
    let company = match client_id {
        Some(id) => Some(
            clients::exists(&state.db.pool, id)
                .await?
                .ok_or_else(|| ApiError::validation("Client not found"))?,
        ),
        None if role == Role::Admin => None,
        None => return Err(ApiError::validation("Client is required")),
    };
    if users::by_email(&state.db.pool, &email).await?.is_some() {
        return Err(ApiError::Conflict {
            code: "email_taken",
            message: "A user with this email already exists".into(),
        });
    }
    let token = random_token();
    let expires_at =
        db::ts(chrono::Utc::now() + chrono::Duration::seconds(tokens::INVITATION_TTL_SECS));
    let mut ch = Change::begin_unannounced(state).await?;
    let id = sessions::insert_invitation(
        ch.conn(),
        &sessions::NewInvitation {
            token_hash: &hash_token(&token),
            email: &email,
            name,
            last_name,
            role: role.as_str(),
            company: company.as_deref(),
            client_id,
            created_by: &admin.user.id,
            expires_at: &expires_at,
        },
    )
    .await?;
    ch.commit_unannounced(
        admin.audited(),
        Audit {
            event_type: "invitation_created",
            entity_type: "invitation",
            entity_id: &id,
            details: json!({"email": email, "role": role.as_str(), "client_id": client_id}),
            severity: "info",
        },
    )
    .await?;
    let link = format!("{}/signup/{}", state.config.public_url(), token);
    let body = format!(
        "Hello {name},\n\nYou have been invited to the Capital Optimization Portal{} as {}. Open this link to create your account (valid for 7 days, once):\n\n{link}\n",
        company
            .as_deref()
            .map(|c| format!(" for {c}"))
            .unwrap_or_default(),
        role.as_str()
    );
    // Delivered before answering when SMTP is configured, so `invite_sent` is the truth (User
    // Management then shows a temporary password instead).
    let invite_sent = state
        .mailer
        .send_now(
            &state.db,
            &email,
            "You are invited to the Capital Optimization Portal",
            &body,
        )
        .await
        .is_ok();
    Ok(Invited {
        id,
        invite_sent,
        expires_at,
    })
}

/// A live invitation, by its token.
pub async fn live(state: &AppState, token: &str) -> ApiResult<InvitationRow> {
    sessions::live_invitation(&state.db.pool, &hash_token(token.trim()))
        .await?
        .ok_or_else(invalid_invitation)
}

/// What the invited person fills in.
#[derive(Debug, Clone, Copy)]
pub struct Acceptance<'a> {
    /// First name.
    pub name: &'a str,
    /// Last name.
    pub last_name: &'a str,
    /// Password.
    pub password: &'a str,
}

/// Creates the account of an invitation and marks it used (once); returns the new user's id.
pub async fn accept(
    state: &AppState,
    token: &str,
    ip: &str,
    form: Acceptance<'_>,
) -> ApiResult<String> {
    let (name, last_name) = (form.name.trim(), form.last_name.trim());
    if name.is_empty() || last_name.is_empty() {
        return Err(ApiError::validation(
            "Please enter your first and last name",
        ));
    }
    check_person(name, last_name)?;
    password::check_strong(form.password)?;
    let hash = password::hash(form.password).await?;
    // On User Management's topic: open lists show the new user at once.
    let mut ch = Change::begin(state, super::admin_clients::users_topic()).await?;
    let inv = sessions::live_invitation(ch.conn(), &hash_token(token.trim()))
        .await?
        .ok_or_else(invalid_invitation)?;
    if !sessions::use_invitation(ch.conn(), &inv.id).await? {
        return Err(invalid_invitation());
    }
    let now = db::now();
    let user_id = users::insert(
        ch.conn(),
        &users::NewUser {
            email: &inv.email,
            password_hash: Some(&hash),
            name,
            last_name,
            role: &inv.role,
            company: inv.company.as_deref(),
            terms_accepted_at: None,
            password_changed_at: Some(&now),
        },
    )
    .await
    .on_unique("email_taken", "A user with this email already exists")?;
    if Role::parse(&inv.role) == Role::Admin {
        for c in clients::list(ch.conn()).await? {
            users::add_to_client(ch.conn(), &c.id, &user_id, None).await?;
        }
    } else if let Some(cid) = inv.client_id.as_deref() {
        users::add_to_client(ch.conn(), cid, &user_id, None).await?;
    }
    ch.commit_by(
        AuditActor {
            user_id: Some(&user_id),
            ip,
        },
        crate::realtime::Event::UserChanged(crate::realtime::events::UserChange {
            user_ids: vec![user_id.clone()],
            what: "created",
        }),
        Audit {
            event_type: "invitation_accepted",
            entity_type: "user",
            entity_id: &user_id,
            details: json!({"invitation_id": inv.id}),
            severity: "info",
        },
    )
    .await?;
    Ok(user_id)
}
