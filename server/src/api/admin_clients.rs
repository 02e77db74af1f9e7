//! The Clients page and the client data room over HTTP (administrators only). The rules live in
//! [`crate::service::admin_clients`].

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use crate::error::{ApiResult, AppJson};
use crate::service::admin_clients::{
    self as service, AdminClient, ClientInput, ClientOverview, CreatedClient, SavingsEdit,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_admin_clients, create_admin_client))
        .routes(routes!(get_client_overview, update_admin_client))
        .routes(routes!(edit_client_savings))
        .routes(routes!(set_client_member, remove_client_member))
        .routes(routes!(sync_admins))
}

/// The list's search and filter.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct ClientListQuery {
    /// Free text over the name and description.
    pub q: Option<String>,
    /// `all` (default), `mine` (created by the caller or including them), `shared` (created by
    /// another administrator, including the caller) or `recent` (changed in the last 30 days).
    pub filter: Option<String>,
}

/// The clients matching the search and filter, most recently updated first.
#[utoipa::path(get, path = "/admin/clients", params(ClientListQuery),
    responses((status = 200, body = Vec<AdminClient>), (status = 400, body = crate::error::ErrorBody),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_admin_clients(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Query(q): Query<ClientListQuery>,
) -> ApiResult<axum::Json<Vec<AdminClient>>> {
    let filter = service::parse_filter(q.filter.as_deref())?;
    Ok(axum::Json(
        service::list(&state, &admin, filter, q.q.as_deref().unwrap_or("")).await?,
    ))
}

/// Adds a client (the Add New Client dialog); every administrator becomes a member.
#[utoipa::path(post, path = "/admin/clients", request_body = ClientInput,
    responses((status = 201, body = CreatedClient), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_admin_client(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    AppJson(req): AppJson<ClientInput>,
) -> ApiResult<(StatusCode, axum::Json<CreatedClient>)> {
    Ok((
        StatusCode::CREATED,
        axum::Json(service::create(&state, &admin, &req).await?),
    ))
}

/// The client data room: the client, its savings history, latest files, members, counts and
/// recent activity.
#[utoipa::path(get, path = "/admin/clients/{client_id}",
    params(("client_id" = String, Path, description = "Client id")),
    responses((status = 200, body = ClientOverview), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_client_overview(
    State(state): State<AppState>,
    AdminActor(_admin): AdminActor,
    Path(client_id): Path<String>,
) -> ApiResult<axum::Json<ClientOverview>> {
    Ok(axum::Json(service::overview(&state, &client_id).await?))
}

/// Edits a client's details and official figures (CET1 capital, total RWAs, ratio).
#[utoipa::path(put, path = "/admin/clients/{client_id}", request_body = ClientInput,
    params(("client_id" = String, Path, description = "Client id")),
    responses((status = 200, body = AdminClient), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_admin_client(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(client_id): Path<String>,
    AppJson(req): AppJson<ClientInput>,
) -> ApiResult<axum::Json<AdminClient>> {
    Ok(axum::Json(
        service::update(&state, &admin, &client_id, &req).await?,
    ))
}

/// The inline savings edit.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SavingsInput {
    /// CET Savings (RWAs).
    pub cet1_savings_rwas: f64,
}

/// The Clients page's inline RWA savings edit: the typed figure, then the savings sync (the
/// processed files' sum stays the total when above 0). One at a time per client: another edit
/// meanwhile gets 409 `update_in_progress` and changes nothing.
#[utoipa::path(put, path = "/admin/clients/{client_id}/savings", request_body = SavingsInput,
    params(("client_id" = String, Path, description = "Client id")),
    responses((status = 200, body = SavingsEdit), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn edit_client_savings(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(client_id): Path<String>,
    AppJson(req): AppJson<SavingsInput>,
) -> ApiResult<axum::Json<SavingsEdit>> {
    Ok(axum::Json(
        service::edit_savings(&state, &admin, &client_id, req.cet1_savings_rwas).await?,
    ))
}

/// A client role.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct MemberInput {
    /// `member` or `approver`.
    pub role: String,
}

/// Adds a user to a client with a client role, or changes their role there.
#[utoipa::path(put, path = "/admin/clients/{client_id}/members/{user_id}", request_body = MemberInput,
    params(("client_id" = String, Path, description = "Client id"), ("user_id" = String, Path, description = "User id")),
    responses((status = 204), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn set_client_member(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path((client_id, user_id)): Path<(String, String)>,
    AppJson(req): AppJson<MemberInput>,
) -> ApiResult<StatusCode> {
    service::set_member(&state, &admin, &client_id, &user_id, &req.role).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Removes a user from a client.
#[utoipa::path(delete, path = "/admin/clients/{client_id}/members/{user_id}",
    params(("client_id" = String, Path, description = "Client id"), ("user_id" = String, Path, description = "User id")),
    responses((status = 204), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn remove_client_member(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path((client_id, user_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    service::remove_member(&state, &admin, &client_id, &user_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The admin sync's outcome.
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SyncOutcome {
    /// Memberships added.
    #[ts(type = "number")]
    pub added: u64,
}

/// The admin sync: every administrator becomes a member of every client.
#[utoipa::path(post, path = "/admin/clients/sync-admins",
    responses((status = 200, body = SyncOutcome), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody)))]
pub async fn sync_admins(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
) -> ApiResult<axum::Json<SyncOutcome>> {
    Ok(axum::Json(SyncOutcome {
        added: service::sync_admins(&state, &admin).await?,
    }))
}
