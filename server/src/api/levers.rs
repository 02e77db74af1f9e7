//! Levers and their standard columns over HTTP (reading needs a session). The rules live in
//! [`crate::service::levers`].

use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, AppJson};
use crate::service::Actor;
use crate::service::levers::{
    self as service, ColumnDefinition, ColumnDefinitionInput, ColumnOrder, Lever, StandardColumn,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_levers))
        .routes(routes!(list_lever_columns))
        .routes(routes!(list_column_definitions, create_column_definition))
        .routes(routes!(update_column_definition, delete_column_definition))
        .routes(routes!(reorder_column_definitions))
}

/// Every lever, by name.
#[utoipa::path(get, path = "/levers",
    responses((status = 200, body = Vec<Lever>), (status = 401, body = crate::error::ErrorBody)))]
pub async fn list_levers(
    State(state): State<AppState>,
    _actor: Actor,
) -> ApiResult<axum::Json<Vec<Lever>>> {
    Ok(axum::Json(service::list(&state).await?))
}

/// A lever's standard columns: its definitions, or the fallback columns of the specification.
#[utoipa::path(get, path = "/levers/{lever_id}/columns", params(("lever_id" = String, Path, description = "Lever id")),
    responses((status = 200, body = Vec<StandardColumn>), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_lever_columns(
    State(state): State<AppState>,
    _actor: Actor,
    Path(lever_id): Path<String>,
) -> ApiResult<axum::Json<Vec<StandardColumn>>> {
    Ok(axum::Json(service::columns(&state, &lever_id).await?))
}

/// A lever's column definitions with their ids, in display order (any signed-in user).
#[utoipa::path(get, path = "/levers/{lever_id}/column-definitions", params(("lever_id" = String, Path, description = "Lever id")),
    responses((status = 200, body = Vec<ColumnDefinition>), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_column_definitions(
    State(state): State<AppState>,
    actor: Actor,
    Path(lever_id): Path<String>,
) -> ApiResult<axum::Json<Vec<ColumnDefinition>>> {
    Ok(axum::Json(
        service::definitions(&state, &actor, &lever_id).await?,
    ))
}

/// Adds a column definition to a lever (administrators).
#[utoipa::path(post, path = "/levers/{lever_id}/column-definitions", params(("lever_id" = String, Path, description = "Lever id")), request_body = ColumnDefinitionInput,
    responses((status = 201, body = ColumnDefinition), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_column_definition(
    State(state): State<AppState>,
    actor: Actor,
    Path(lever_id): Path<String>,
    AppJson(input): AppJson<ColumnDefinitionInput>,
) -> ApiResult<(StatusCode, axum::Json<ColumnDefinition>)> {
    let d = service::create_definition(&state, &actor, &lever_id, input).await?;
    Ok((StatusCode::CREATED, axum::Json(d)))
}

/// Changes a column definition (administrators).
#[utoipa::path(put, path = "/lever-column-definitions/{definition_id}", params(("definition_id" = String, Path, description = "Definition id")), request_body = ColumnDefinitionInput,
    responses((status = 200, body = ColumnDefinition), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_column_definition(
    State(state): State<AppState>,
    actor: Actor,
    Path(definition_id): Path<String>,
    AppJson(input): AppJson<ColumnDefinitionInput>,
) -> ApiResult<axum::Json<ColumnDefinition>> {
    Ok(axum::Json(
        service::update_definition(&state, &actor, &definition_id, input).await?,
    ))
}

/// Removes a column definition (administrators).
#[utoipa::path(delete, path = "/lever-column-definitions/{definition_id}", params(("definition_id" = String, Path, description = "Definition id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_column_definition(
    State(state): State<AppState>,
    actor: Actor,
    Path(definition_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete_definition(&state, &actor, &definition_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Reorders a lever's column definitions in one transaction: the body lists every one of its
/// definitions' ids once, first to last (administrators).
#[utoipa::path(put, path = "/levers/{lever_id}/column-definitions/order", params(("lever_id" = String, Path, description = "Lever id")), request_body = ColumnOrder,
    responses((status = 200, body = Vec<ColumnDefinition>), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn reorder_column_definitions(
    State(state): State<AppState>,
    actor: Actor,
    Path(lever_id): Path<String>,
    AppJson(order): AppJson<ColumnOrder>,
) -> ApiResult<axum::Json<Vec<ColumnDefinition>>> {
    Ok(axum::Json(
        service::reorder_definitions(&state, &actor, &lever_id, order).await?,
    ))
}
