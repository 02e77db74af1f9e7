//! Report templates over HTTP: administrators list, create, read, edit and delete them; any
//! signed-in user lists the active ones to start a report from. The rules live in
//! [`crate::service::report_templates`].

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use super::upload::{
    MULTIPART_SLACK, multipart_error, receive_field, refuse_declared_size, text_field,
    unexpected_field,
};
use crate::error::{ApiError, ApiResult, AppJson};
use crate::service::Actor;
use crate::service::report_templates::{
    self as service, NewTemplate, ReportTemplate, TemplateEdit,
};
use crate::service::template_import::{self as import, ImportEvent, PdfUpload};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    // The PDF upload has its own bound (50 MB, counted while received), not the JSON limit.
    let uploads = OpenApiRouter::new()
        .routes(routes!(import_template_pdf))
        .layer(DefaultBodyLimit::disable());
    OpenApiRouter::new()
        .merge(uploads)
        .routes(routes!(list_templates, create_template))
        .routes(routes!(get_template, update_template, delete_template))
        .routes(routes!(list_active_templates))
        .routes(routes!(export_template_preview))
}

/// 'Export Preview': the template's preview as a PDF, laid out by the report export.
#[utoipa::path(get, path = "/admin/report-templates/{template_id}/export",
    params(("template_id" = String, Path, description = "Template id")),
    responses((status = 200, description = "The preview as a PDF attachment", content_type = "application/pdf"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn export_template_preview(
    State(state): State<AppState>,
    _admin: AdminActor,
    Path(template_id): Path<String>,
) -> ApiResult<axum::response::Response> {
    let file = service::preview_pdf(&state, &template_id).await?;
    Ok(super::dashboard::attachment(file))
}

/// Every template, active or not, by name.
#[utoipa::path(get, path = "/admin/report-templates",
    responses((status = 200, body = Vec<ReportTemplate>), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_templates(
    State(state): State<AppState>,
    _admin: AdminActor,
) -> ApiResult<axum::Json<Vec<ReportTemplate>>> {
    Ok(axum::Json(service::list(&state, false).await?))
}

/// Creates a template (name and type required) with its type's default sections and the default
/// branding.
#[utoipa::path(post, path = "/admin/report-templates", request_body = NewTemplate,
    responses((status = 201, body = ReportTemplate), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_template(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    AppJson(input): AppJson<NewTemplate>,
) -> ApiResult<(StatusCode, axum::Json<ReportTemplate>)> {
    let t = service::create(&state, &actor, input).await?;
    Ok((StatusCode::CREATED, axum::Json(t)))
}

/// One template.
#[utoipa::path(get, path = "/admin/report-templates/{template_id}", params(("template_id" = String, Path, description = "Template id")),
    responses((status = 200, body = ReportTemplate), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_template(
    State(state): State<AppState>,
    _admin: AdminActor,
    Path(template_id): Path<String>,
) -> ApiResult<axum::Json<ReportTemplate>> {
    Ok(axum::Json(service::get(&state, &template_id).await?))
}

/// Saves a template: name, description, sections, branding, active flag (the type stays).
#[utoipa::path(put, path = "/admin/report-templates/{template_id}", params(("template_id" = String, Path, description = "Template id")), request_body = TemplateEdit,
    responses((status = 200, body = ReportTemplate), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_template(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(template_id): Path<String>,
    AppJson(input): AppJson<TemplateEdit>,
) -> ApiResult<axum::Json<ReportTemplate>> {
    Ok(axum::Json(
        service::update(&state, &actor, &template_id, input).await?,
    ))
}

/// Deletes a template; reports created from it keep their content.
#[utoipa::path(delete, path = "/admin/report-templates/{template_id}", params(("template_id" = String, Path, description = "Template id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_template(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(template_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &template_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The active templates a report can start from, by name.
#[utoipa::path(get, path = "/report-templates",
    responses((status = 200, body = Vec<ReportTemplate>), (status = 401, body = crate::error::ErrorBody)))]
pub async fn list_active_templates(
    State(state): State<AppState>,
    _actor: Actor,
) -> ApiResult<axum::Json<Vec<ReportTemplate>>> {
    Ok(axum::Json(service::list(&state, true).await?))
}

fn import_event_name(e: &ImportEvent) -> &'static str {
    match e {
        ImportEvent::Step { .. } => "step",
        ImportEvent::Done { .. } => "done",
        ImportEvent::Failed { .. } => "failed",
    }
}

/// Longest text field of the import form.
const MAX_FORM_FIELD: usize = 1000;

/// 'Create template from PDF': one `file` field (a PDF of at most 50 MB), optional `name` and
/// `templateType`. A file that is not a PDF, or too large, is refused before anything runs; then
/// the steps stream as Server-Sent Events (`step` with each step's state and progress, then
/// `done` with the new template or `failed` with the step and the reason, nothing created).
#[utoipa::path(post, path = "/admin/report-templates/import",
    request_body(content_type = "multipart/form-data", description = "`file`: the PDF; `name`; `templateType`"),
    responses((status = 200, description = "The steps as Server-Sent Events (ImportEvent)", content_type = "text/event-stream"),
        (status = 400, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody),
        (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn import_template_pdf(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    headers: HeaderMap,
    mut multipart: Multipart,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let max = crate::pdf_import::MAX_BYTES;
    refuse_declared_size(&headers, max + MULTIPART_SLACK, import::TOO_LARGE)?;
    let mut file = None;
    let (mut name, mut template_type) = (String::new(), String::new());
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        match field.name() {
            Some("file" | "files") => {
                if file.is_some() {
                    return Err(ApiError::validation("Upload one PDF at a time."));
                }
                let file_name = field.file_name().unwrap_or_default().to_owned();
                let (path, seen) =
                    receive_field(&state, &mut field, max, import::TOO_LARGE).await?;
                file = Some((path, file_name, seen));
            }
            Some(which @ ("name" | "templateType")) => {
                let which = which.to_owned();
                let value = text_field(&mut field, &which, MAX_FORM_FIELD).await?;
                if which == "name" {
                    name = value;
                } else {
                    template_type = value;
                }
            }
            other => return Err(unexpected_field(other)),
        }
    }
    let (path, file_name, seen) = file.ok_or_else(|| ApiError::validation(import::NOT_A_PDF))?;
    let upload = import::check(PdfUpload {
        path,
        file_name,
        seen,
        name,
        template_type,
    })?;
    let rx = import::run(state, actor, upload);
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        let e = rx.recv().await?;
        let event = Event::default()
            .event(import_event_name(&e))
            .json_data(&e)
            .unwrap_or_else(|_| Event::default().event("error"));
        Some((Ok(event), rx))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
