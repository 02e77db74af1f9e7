//! The calculators over HTTP (spec 002): the admin calculator on figures the administrator
//! types, the client calculator on the client's official figures, and a client's saved
//! scenarios compared with its real portfolio. The rules live in [`crate::service::calculator`].

use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{ClientQuery, ClientRead};
use crate::access::Need;
use crate::auth::AdminUser;
use crate::error::{ApiResult, AppJson};
use crate::service::calculator::{
    self as service, AdminCalculation, Calculation, CalculatorClient, NewScenario, SavedScenario,
    ScenarioInputs, ScenarioList,
};
use crate::service::{self as services, Actor};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(admin_calculate))
        .routes(routes!(get_calculator_client, client_calculate))
        .routes(routes!(list_scenarios, save_scenario))
        .routes(routes!(delete_scenario))
}

/// The admin calculator: the Optimization Summary and Scenarios A and B for the figures given.
#[utoipa::path(post, path = "/admin/calculator", request_body = AdminCalculation,
    responses((status = 200, body = Calculation), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn admin_calculate(
    _admin: AdminUser,
    AppJson(req): AppJson<AdminCalculation>,
) -> ApiResult<axum::Json<Calculation>> {
    Ok(axum::Json(service::calculate(&req)?))
}

/// The client calculator's figures: the client's official CET1 capital and total RWAs, the
/// ratio and conversion factor from them (or why there are none), and the portfolio's savings.
#[utoipa::path(get, path = "/calculator", params(ClientQuery),
    responses((status = 200, body = CalculatorClient), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_calculator_client(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<CalculatorClient>> {
    Ok(axum::Json(service::client(&state, &scope).await?))
}

/// The client calculator: the Optimization Summary and Scenarios A and B on the client's
/// official figures (422 `figures_not_set` without them). Changes nothing, so viewers may call it.
#[utoipa::path(post, path = "/calculator", params(ClientQuery), request_body = ScenarioInputs,
    responses((status = 200, body = Calculation), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn client_calculate(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    AppJson(req): AppJson<ScenarioInputs>,
) -> ApiResult<axum::Json<Calculation>> {
    Ok(axum::Json(
        service::calculate_for_client(&state, &scope, &req).await?,
    ))
}

/// The client's saved scenarios, newest first, each computed now, beside its real portfolio.
#[utoipa::path(get, path = "/calculator/scenarios", params(ClientQuery),
    responses((status = 200, body = ScenarioList), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_scenarios(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<ScenarioList>> {
    Ok(axum::Json(service::list(&state, &scope).await?))
}

/// Saves a named scenario for the client (members who may write, and admins).
#[utoipa::path(post, path = "/calculator/scenarios", request_body = NewScenario,
    responses((status = 201, body = SavedScenario), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn save_scenario(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(req): AppJson<NewScenario>,
) -> ApiResult<(StatusCode, axum::Json<SavedScenario>)> {
    let scope = services::scope(&state, actor, req.client_id.as_deref(), Need::Write).await?;
    let scenario = service::save(&state, &scope, &req).await?;
    Ok((StatusCode::CREATED, axum::Json(scenario)))
}

/// Deletes a saved scenario.
#[utoipa::path(delete, path = "/calculator/scenarios/{scenario_id}",
    params(("scenario_id" = String, Path, description = "Scenario id")),
    responses((status = 204), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_scenario(
    State(state): State<AppState>,
    actor: Actor,
    Path(scenario_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &scenario_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
