//! Invitations: an admin invites a user (role, company, client, expiry); the invited person
//! registers at `/signup/{token}`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::tokens::{self, hash_token, random_token};
use crate::auth::{AdminUser, ClientIp, Role, password};
use crate::db::misc::AuditEvent;
use crate::db::{self, clients, sessions, users};
use crate::error::{ApiError, ApiResult, AppJson, ResultExt};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_invitation))
        .routes(routes!(get_invitation))
        .routes(routes!(accept_invitation))
}

/// An admin's invitation request.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct CreateInvitationRequest {
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Email.
    pub email: String,
    /// Role: admin, approver, user or viewer.
    pub role: String,
    /// Client to join (required except for admins, who see every client).
    pub client_id: Option<String>,
}

/// The created invitation.
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct CreateInvitationResponse {
    /// Invitation id.
    pub invitation_id: String,
    /// The invitation mail was queued.
    pub invite_sent: bool,
    /// Expiry.
    pub expires_at: String,
}

/// Creates an invitation and mails its link.
#[utoipa::path(post, path = "/admin/invitations", request_body = CreateInvitationRequest,
    responses((status = 201, body = CreateInvitationResponse), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_invitation(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    ClientIp(ip): ClientIp,
    AppJson(req): AppJson<CreateInvitationRequest>,
) -> ApiResult<(StatusCode, axum::Json<CreateInvitationResponse>)> {
    let email = req.email.trim().to_lowercase();
    if req.name.trim().is_empty() {
        return Err(ApiError::validation("Name is required"));
    }
    if req.last_name.trim().is_empty() {
        return Err(ApiError::validation("Last name is required"));
    }
    if !crate::api::valid_email(&email) {
        return Err(ApiError::validation("Invalid email address"));
    }
    let role = Role::parse_strict(&req.role)
        .ok_or_else(|| ApiError::validation("Role must be one of admin, approver, user, viewer"))?;
    let client_id = req
        .client_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
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
    let id = sessions::insert_invitation(
        &state.db.pool,
        &sessions::NewInvitation {
            token_hash: &hash_token(&token),
            email: &email,
            name: req.name.trim(),
            last_name: req.last_name.trim(),
            role: role.as_str(),
            company: company.as_deref(),
            client_id,
            created_by: &admin.id,
            expires_at: &expires_at,
        },
    )
    .await?;
    let link = format!("{}/signup/{}", state.config.public_url(), token);
    let body = format!(
        "Hello {},\n\nYou have been invited to the Capital Optimization Portal{} as {}. Open this link to create your account (valid for 7 days, once):\n\n{link}\n",
        req.name.trim(),
        company
            .as_deref()
            .map(|c| format!(" for {c}"))
            .unwrap_or_default(),
        role.as_str()
    );
    let invite_sent = state
        .mailer
        .send(
            &state.db,
            &email,
            "You are invited to the Capital Optimization Portal",
            &body,
        )
        .await
        .is_ok();
    crate::audit::record(
        &state,
        AuditEvent {
            event_type: "invitation_created",
            entity_type: "invitation",
            entity_id: Some(&id),
            actor_id: Some(&admin.id),
            details: json!({"email": email, "role": role.as_str(), "client_id": client_id}),
            severity: "info",
            ip: Some(&ip),
        },
    )
    .await;
    Ok((
        StatusCode::CREATED,
        axum::Json(CreateInvitationResponse {
            invitation_id: id,
            invite_sent,
            expires_at,
        }),
    ))
}

/// What the sign-up page shows of an invitation.
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct InvitationInfo {
    /// Invited address.
    pub email: String,
    /// Role to be granted.
    pub role: Role,
    /// Company.
    pub company: Option<String>,
    /// First name given by the admin.
    pub name: String,
    /// Last name given by the admin.
    pub last_name: String,
    /// Expiry.
    pub expires_at: String,
}

fn invalid_invitation() -> ApiError {
    ApiError::NotFound {
        code: "invalid_invitation",
        message: "Invalid or expired invitation link".into(),
    }
}

/// Reads a live invitation.
#[utoipa::path(get, path = "/invitations/{token}", responses((status = 200, body = InvitationInfo), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_invitation(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> ApiResult<axum::Json<InvitationInfo>> {
    let inv = sessions::live_invitation(&state.db.pool, &hash_token(token.trim()))
        .await?
        .ok_or_else(invalid_invitation)?;
    Ok(axum::Json(InvitationInfo {
        email: inv.email,
        role: Role::parse(&inv.role),
        company: inv.company,
        name: inv.name,
        last_name: inv.last_name,
        expires_at: inv.expires_at,
    }))
}

/// Registration from an invitation.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct AcceptInvitationRequest {
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Password.
    pub password: String,
}

/// Creates the account of an invitation and marks it used (once).
#[utoipa::path(post, path = "/invitations/{token}/accept", request_body = AcceptInvitationRequest,
    responses((status = 201, body = crate::api::auth::MessageResponse), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn accept_invitation(
    State(state): State<AppState>,
    Path(token): Path<String>,
    ClientIp(ip): ClientIp,
    AppJson(req): AppJson<AcceptInvitationRequest>,
) -> ApiResult<(StatusCode, axum::Json<crate::api::auth::MessageResponse>)> {
    if req.name.trim().is_empty() || req.last_name.trim().is_empty() {
        return Err(ApiError::validation(
            "Please enter your first and last name",
        ));
    }
    password::check_strong(&req.password)?;
    let hash = password::hash(&req.password).await?;
    let mut tx = state.db.pool.begin().await?;
    let inv = sessions::live_invitation(&mut *tx, &hash_token(token.trim()))
        .await?
        .ok_or_else(invalid_invitation)?;
    if !sessions::use_invitation(&mut *tx, &inv.id).await? {
        return Err(invalid_invitation());
    }
    let now = db::now();
    let user_id = users::insert(
        &mut *tx,
        &users::NewUser {
            email: &inv.email,
            password_hash: Some(&hash),
            name: req.name.trim(),
            last_name: req.last_name.trim(),
            role: &inv.role,
            company: inv.company.as_deref(),
            terms_accepted_at: None,
            password_changed_at: Some(&now),
        },
    )
    .await
    .on_unique("email_taken", "A user with this email already exists")?;
    if Role::parse(&inv.role) == Role::Admin {
        for (cid, _) in crate::db::clients::list(&mut *tx)
            .await?
            .into_iter()
            .map(|c| (c.id, c.name))
        {
            users::add_to_client(&mut *tx, &cid, &user_id, None).await?;
        }
    } else if let Some(cid) = inv.client_id.as_deref() {
        users::add_to_client(&mut *tx, cid, &user_id, None).await?;
    }
    tx.commit().await?;
    crate::audit::record(
        &state,
        AuditEvent {
            event_type: "invitation_accepted",
            entity_type: "user",
            entity_id: Some(&user_id),
            actor_id: Some(&user_id),
            details: json!({"invitation_id": inv.id}),
            severity: "info",
            ip: Some(&ip),
        },
    )
    .await;
    Ok((
        StatusCode::CREATED,
        axum::Json(crate::api::auth::MessageResponse {
            message: "Account created successfully!".into(),
        }),
    ))
}
