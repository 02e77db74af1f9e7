//! The report editor's AI text assistant over HTTP. The rules live in
//! [`crate::service::report_assistant`].

use axum::extract::{Path, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, AppJson};
use crate::ids::ReportId;
use crate::service::Actor;
use crate::service::report_assistant as service;

pub use crate::service::report_assistant::{GenerateSectionRequest, GeneratedSection};

use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(generate_section))
}

/// Writes a section's text from the report's client's own figures (its editors): the editor
/// replaces the section's content with it and marks the section AI-generated. 422 with code
/// `no_content` for an empty text, `generation_failed` with the reason, `ai_unavailable` when
/// the model's service cannot be reached; 429 with the quoted wait for its rate limit.
#[utoipa::path(post, path = "/reports/{report_id}/sections/generate",
    params(("report_id" = String, Path, description = "Report id")), request_body = GenerateSectionRequest,
    responses((status = 200, body = GeneratedSection), (status = 403, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody),
        (status = 429, body = crate::error::ErrorBody)))]
pub async fn generate_section(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<ReportId>,
    AppJson(req): AppJson<GenerateSectionRequest>,
) -> ApiResult<axum::Json<GeneratedSection>> {
    Ok(axum::Json(
        service::generate(&state, &actor, &report_id, req).await?,
    ))
}
