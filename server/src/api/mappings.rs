//! Mapping templates over HTTP, shared by a client's team. The rules live in
//! [`crate::service::mappings`].

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{ClientQuery, ClientRead, ClientWrite};
use crate::error::{ApiResult, AppJson};
use crate::service::Actor;
use crate::service::mappings::{self as service, MappingTemplate, NewMappingTemplate};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_templates, create_template))
        .routes(routes!(delete_template))
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
