//! The signed-in user's profile (names, avatar), users' avatars, a client's project settings and
//! the configuration administrators see. The rules live in [`crate::service::profile`].

use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{AdminActor, ClientQuery, ClientRead, ClientWrite};
use super::upload::{multipart_error, receive_field, refuse_declared_size};
use crate::error::{ApiError, ApiResult, AppJson};
use crate::service::Actor;
use crate::service::profile::{
    self as service, AVATAR_MAX_BYTES, AVATAR_TOO_BIG, AdminConfiguration, Profile, ProfileInput,
    ProjectInput, ProjectSettings, ReceivedImage,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    let uploads = OpenApiRouter::new()
        .routes(routes!(set_avatar, remove_avatar))
        .layer(DefaultBodyLimit::disable());
    OpenApiRouter::new()
        .merge(uploads)
        .routes(routes!(get_profile, update_profile))
        .routes(routes!(user_avatar))
        .routes(routes!(get_project_settings, update_project_settings))
        .routes(routes!(admin_configuration))
}

/// The caller's profile.
#[utoipa::path(get, path = "/profile",
    responses((status = 200, body = Profile), (status = 401, body = crate::error::ErrorBody)))]
pub async fn get_profile(
    State(state): State<AppState>,
    actor: Actor,
) -> ApiResult<axum::Json<Profile>> {
    Ok(axum::Json(service::get(&state, &actor).await?))
}

/// Changes the caller's first and last name.
#[utoipa::path(put, path = "/profile", request_body = ProfileInput,
    responses((status = 200, body = Profile), (status = 401, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_profile(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(input): AppJson<ProfileInput>,
) -> ApiResult<axum::Json<Profile>> {
    Ok(axum::Json(service::update(&state, &actor, input).await?))
}

/// Replaces the caller's avatar: one `avatar` field, a PNG, JPEG, GIF or WebP image of at most
/// 2 MB (checked by content while received).
#[utoipa::path(put, path = "/profile/avatar",
    request_body(content_type = "multipart/form-data", description = "`avatar`: the image"),
    responses((status = 200, body = Profile), (status = 400, body = crate::error::ErrorBody), (status = 401, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn set_avatar(
    State(state): State<AppState>,
    actor: Actor,
    headers: HeaderMap,
    mut multipart: Multipart,
) -> ApiResult<axum::Json<Profile>> {
    refuse_declared_size(&headers, AVATAR_MAX_BYTES + 64 * 1024, AVATAR_TOO_BIG)?;
    let mut image: Option<ReceivedImage> = None;
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        if field.name() != Some("avatar") || image.is_some() {
            return Err(ApiError::bad_request(
                "invalid_multipart",
                "Send one image in the `avatar` field",
            ));
        }
        let (path, seen) =
            receive_field(&state, &mut field, AVATAR_MAX_BYTES, AVATAR_TOO_BIG).await?;
        image = Some(ReceivedImage { path, seen });
    }
    let image = image.ok_or_else(|| ApiError::validation("Please select an image to upload."))?;
    Ok(axum::Json(
        service::set_avatar(&state, &actor, image).await?,
    ))
}

/// Removes the caller's avatar.
#[utoipa::path(delete, path = "/profile/avatar",
    responses((status = 200, body = Profile), (status = 401, body = crate::error::ErrorBody)))]
pub async fn remove_avatar(
    State(state): State<AppState>,
    actor: Actor,
) -> ApiResult<axum::Json<Profile>> {
    Ok(axum::Json(service::remove_avatar(&state, &actor).await?))
}

/// A user's avatar image (to the user, administrators and members of a client the user belongs
/// to; 404 otherwise or without one).
#[utoipa::path(get, path = "/users/{user_id}/avatar", params(("user_id" = String, Path, description = "User id")),
    responses((status = 200, description = "The image"), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn user_avatar(
    State(state): State<AppState>,
    actor: Actor,
    Path(user_id): Path<String>,
) -> ApiResult<Response> {
    let d = service::open_avatar(&state, &actor, &user_id).await?;
    let mut resp = super::files::streamed(d, false);
    let h = resp.headers_mut();
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=86400"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    Ok(resp)
}

/// The 'Project Settings' of the client (its members, viewers included, and administrators).
#[utoipa::path(get, path = "/project-settings", params(ClientQuery),
    responses((status = 200, body = ProjectSettings), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_project_settings(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<ProjectSettings>> {
    Ok(axum::Json(service::project(&state, &scope).await?))
}

/// Changes the client's name and description (members who may write the client, and
/// administrators).
#[utoipa::path(put, path = "/project-settings", params(ClientQuery), request_body = ProjectInput,
    responses((status = 200, body = ProjectSettings), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_project_settings(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    AppJson(input): AppJson<ProjectInput>,
) -> ApiResult<axum::Json<ProjectSettings>> {
    Ok(axum::Json(
        service::update_project(&state, &scope, input).await?,
    ))
}

/// The configuration administrators see read-only (mail sender, upload limits).
#[utoipa::path(get, path = "/admin/configuration",
    responses((status = 200, body = AdminConfiguration), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn admin_configuration(
    State(state): State<AppState>,
    _admin: AdminActor,
) -> ApiResult<axum::Json<AdminConfiguration>> {
    Ok(axum::Json(service::configuration(&state)))
}
