//! User Management over HTTP (administrators only). The rules live in
//! [`crate::service::admin_users`]; role changes in `api::admin`.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use crate::error::{ApiResult, AppJson};
use crate::service::admin_users::{
    self as service, AssignOutcome, AssignToClient, CreatedUser, EmailAll, EmailAllOutcome,
    ManagedUser, NewUser, UserEdit, UserPage,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_users, create_user))
        .routes(routes!(export_users))
        .routes(routes!(email_users))
        .routes(routes!(assign_users_to_client))
        .routes(routes!(get_user, update_user, delete_user))
}

/// The list's search, role filter and page.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct UserListQuery {
    /// Free text over name, last name, email and company.
    pub q: Option<String>,
    /// `admin`, `approver`, `user` or `viewer` (absent or `all`: every role).
    pub role: Option<String>,
    /// Page, from 1.
    pub page: Option<i64>,
    /// 5, 10 (default), 20 or 50.
    pub page_size: Option<i64>,
}

/// One page of the users matching the search and role filter, by name, with the total.
#[utoipa::path(get, path = "/admin/users", params(UserListQuery),
    responses((status = 200, body = UserPage), (status = 400, body = crate::error::ErrorBody),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_users(
    State(state): State<AppState>,
    AdminActor(_admin): AdminActor,
    Query(q): Query<UserListQuery>,
) -> ApiResult<axum::Json<UserPage>> {
    let f = service::filter(q.q.as_deref(), q.role.as_deref())?;
    Ok(axum::Json(
        service::list(&state, &f, q.page.unwrap_or(1), q.page_size.unwrap_or(10)).await?,
    ))
}

/// Creates a user: an invitation mailed with its link, or, when the mail cannot be delivered,
/// the account with a temporary password returned once.
#[utoipa::path(post, path = "/admin/users", request_body = NewUser,
    responses((status = 201, body = CreatedUser), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_user(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    AppJson(req): AppJson<NewUser>,
) -> ApiResult<(StatusCode, axum::Json<CreatedUser>)> {
    Ok((
        StatusCode::CREATED,
        axum::Json(service::create(&state, &admin, &req).await?),
    ))
}

/// Export Users: the users matching the search and role filter as a CSV attachment.
#[utoipa::path(get, path = "/admin/users/export", params(UserListQuery),
    responses((status = 200, description = "users.csv"), (status = 400, body = crate::error::ErrorBody),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn export_users(
    State(state): State<AppState>,
    AdminActor(_admin): AdminActor,
    Query(q): Query<UserListQuery>,
) -> ApiResult<Response> {
    let f = service::filter(q.q.as_deref(), q.role.as_deref())?;
    let bytes = service::export_csv(&state, &f).await?;
    let mut resp = bytes.into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"users.csv\""),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(resp)
}

/// Email All: one mail to each user matching the list's search and role filter.
#[utoipa::path(post, path = "/admin/users/email", request_body = EmailAll,
    responses((status = 200, body = EmailAllOutcome), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn email_users(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    AppJson(req): AppJson<EmailAll>,
) -> ApiResult<axum::Json<EmailAllOutcome>> {
    Ok(axum::Json(service::email_all(&state, &admin, &req).await?))
}

/// Assign to Client: several users join one client with a client role.
#[utoipa::path(post, path = "/admin/users/assign-client", request_body = AssignToClient,
    responses((status = 200, body = AssignOutcome), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn assign_users_to_client(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    AppJson(req): AppJson<AssignToClient>,
) -> ApiResult<axum::Json<AssignOutcome>> {
    Ok(axum::Json(
        service::assign_to_client(&state, &admin, &req).await?,
    ))
}

/// One user with their clients.
#[utoipa::path(get, path = "/admin/users/{id}", params(("id" = String, Path, description = "User id")),
    responses((status = 200, body = ManagedUser), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_user(
    State(state): State<AppState>,
    AdminActor(_admin): AdminActor,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ManagedUser>> {
    Ok(axum::Json(service::get(&state, &id).await?))
}

/// Edit User Details: name, last name, email, company, role and clients.
#[utoipa::path(patch, path = "/admin/users/{id}", request_body = UserEdit,
    params(("id" = String, Path, description = "User id")),
    responses((status = 200, body = ManagedUser), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_user(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(id): Path<String>,
    AppJson(req): AppJson<UserEdit>,
) -> ApiResult<axum::Json<ManagedUser>> {
    Ok(axum::Json(
        service::update(&state, &admin, &id, &req).await?,
    ))
}

/// Removes a user: their sessions and open sockets end at once; their audit trail stays.
#[utoipa::path(delete, path = "/admin/users/{id}", params(("id" = String, Path, description = "User id")),
    responses((status = 204), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn delete_user(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &admin, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
