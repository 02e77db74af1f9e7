//! Mapping templates over HTTP, shared by a client's team. The rules live in
//! [`crate::service::mappings`].

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{AdminActor, ClientQuery, ClientRead, ClientWrite};
use crate::error::{ApiResult, AppJson};
use crate::service::Actor;
use crate::service::mappings::{
    self as service, GlobalLearning, MappingTemplate, NewMappingTemplate, NewSuggestion,
    SuggestionEnabled, UniversalSuggestion, UniversalSuggestions,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_templates, create_template))
        .routes(routes!(delete_template))
        .routes(routes!(get_universal_suggestions, add_universal_suggestion))
        .routes(routes!(
            set_universal_suggestion,
            delete_universal_suggestion
        ))
        .routes(routes!(set_global_learning))
}

/// The lever filter of the template list.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct TemplateQuery {
    /// Only the templates of this lever.
    pub lever: Option<String>,
}

/// The client's templates, newest first.
#[utoipa::path(get, path = "/mapping-templates", params(ClientQuery, TemplateQuery),
    responses((status = 200, body = Vec<MappingTemplate>), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_templates(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    Query(q): Query<TemplateQuery>,
) -> ApiResult<axum::Json<Vec<MappingTemplate>>> {
    Ok(axum::Json(
        service::list(&state, &scope, q.lever.as_deref()).await?,
    ))
}

/// Saves a template for the client's team.
#[utoipa::path(post, path = "/mapping-templates", params(ClientQuery), request_body = NewMappingTemplate,
    responses((status = 201, body = MappingTemplate), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_template(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    AppJson(req): AppJson<NewMappingTemplate>,
) -> ApiResult<(StatusCode, axum::Json<MappingTemplate>)> {
    let t = service::create(&state, &scope, req).await?;
    Ok((StatusCode::CREATED, axum::Json(t)))
}

/// Deletes a template.
#[utoipa::path(delete, path = "/mapping-templates/{template_id}", params(("template_id" = String, Path, description = "Template id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_template(
    State(state): State<AppState>,
    actor: Actor,
    Path(template_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &template_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The Universal Column Mappings screen: the global-learning setting, the figures and every
/// suggestion, most confident first (administrators).
#[utoipa::path(get, path = "/admin/universal-suggestions",
    responses((status = 200, body = UniversalSuggestions), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn get_universal_suggestions(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
) -> ApiResult<axum::Json<UniversalSuggestions>> {
    Ok(axum::Json(service::universal(&state, &actor).await?))
}

/// Adds a suggestion with confidence 0.8 and usage 1 (administrators).
#[utoipa::path(post, path = "/admin/universal-suggestions", request_body = NewSuggestion,
    responses((status = 201, body = UniversalSuggestion), (status = 403, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn add_universal_suggestion(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    AppJson(input): AppJson<NewSuggestion>,
) -> ApiResult<(StatusCode, axum::Json<UniversalSuggestion>)> {
    let s = service::add_suggestion(&state, &actor, input).await?;
    Ok((StatusCode::CREATED, axum::Json(s)))
}

/// Enables or disables a suggestion (administrators).
#[utoipa::path(patch, path = "/admin/universal-suggestions/{suggestion_id}", params(("suggestion_id" = String, Path, description = "Suggestion id")), request_body = SuggestionEnabled,
    responses((status = 200, body = UniversalSuggestion), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn set_universal_suggestion(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(suggestion_id): Path<String>,
    AppJson(input): AppJson<SuggestionEnabled>,
) -> ApiResult<axum::Json<UniversalSuggestion>> {
    Ok(axum::Json(
        service::set_suggestion_enabled(&state, &actor, &suggestion_id, input.enabled).await?,
    ))
}

/// Removes a suggestion (administrators).
#[utoipa::path(delete, path = "/admin/universal-suggestions/{suggestion_id}", params(("suggestion_id" = String, Path, description = "Suggestion id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_universal_suggestion(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(suggestion_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete_suggestion(&state, &actor, &suggestion_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Turns global learning on or off: off, confirmed mappings stop feeding the suggestions and
/// auto-mapping ignores them (administrators).
#[utoipa::path(put, path = "/admin/universal-suggestions/learning", request_body = GlobalLearning,
    responses((status = 200, body = GlobalLearning), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn set_global_learning(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    AppJson(input): AppJson<GlobalLearning>,
) -> ApiResult<axum::Json<GlobalLearning>> {
    Ok(axum::Json(
        service::set_global_learning(&state, &actor, input.enabled).await?,
    ))
}
