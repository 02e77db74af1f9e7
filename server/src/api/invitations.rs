//! Invitations: an admin invites a user (role, company, client, expiry); the invited person
//! registers at `/signup/{token}`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use crate::auth::{ClientIp, Role};
use crate::error::{ApiResult, AppJson};
use crate::service::invitations::{self as service, Acceptance, InvitationRequest};
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
    AdminActor(admin): AdminActor,
    AppJson(req): AppJson<CreateInvitationRequest>,
) -> ApiResult<(StatusCode, axum::Json<CreateInvitationResponse>)> {
    let invited = service::create(
        &state,
        &admin,
        InvitationRequest {
            name: &req.name,
            last_name: &req.last_name,
            email: &req.email,
            role: &req.role,
            client_id: req.client_id.as_deref(),
        },
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(CreateInvitationResponse {
            invitation_id: invited.id,
            invite_sent: invited.invite_sent,
            expires_at: invited.expires_at,
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

/// Reads a live invitation.
#[utoipa::path(get, path = "/invitations/{token}", responses((status = 200, body = InvitationInfo), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_invitation(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> ApiResult<axum::Json<InvitationInfo>> {
    let inv = service::live(&state, &token).await?;
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
    service::accept(
        &state,
        &token,
        &ip,
        Acceptance {
            name: &req.name,
            last_name: &req.last_name,
            password: &req.password,
        },
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(crate::api::auth::MessageResponse {
            message: "Account created successfully!".into(),
        }),
    ))
}
