//! The knowledge base over HTTP (administrators only): upload documents (multipart, each file
//! bounded while received), list, get and delete them, search them and read the stat cards'
//! figures. The rules live in [`crate::service::knowledge`].

use axum::extract::{DefaultBodyLimit, Multipart, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use super::upload::{
    MULTIPART_SLACK, multipart_error, receive_field, refuse_declared_size, text_field,
    unexpected_field,
};
use crate::error::{ApiError, ApiResult, AppJson};
use crate::service::knowledge::{
    self as service, KnowledgeDocument, KnowledgeHit, KnowledgeSettings, KnowledgeSettingsInput,
    KnowledgeStats, MAX_FILE_BYTES, MAX_FILES_PER_UPLOAD, ReindexResult, SearchQuery, TOO_BIG,
    UploadInput,
};
use crate::service::knowledge_rules::{
    self as rules, LeverExtraction, RegulatoryRule, RulesQuery, SaveLeversInput, SaveLeversResult,
};
use crate::service::lever_dictionary::ReceivedFile;
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    // Uploads have their own bound (each file counted while received), not the JSON body limit.
    let uploads = OpenApiRouter::new()
        .routes(routes!(list_documents, upload_documents))
        .layer(DefaultBodyLimit::disable());
    OpenApiRouter::new()
        .merge(uploads)
        .routes(routes!(get_document, delete_document))
        .routes(routes!(search_knowledge))
        .routes(routes!(knowledge_stats))
        .routes(routes!(knowledge_settings, update_knowledge_settings))
        .routes(routes!(reindex_knowledge))
        .routes(routes!(extract_levers))
        .routes(routes!(save_levers))
        .routes(routes!(list_rules))
}

/// Longest text field (category, lever id).
const MAX_TEXT_FIELD: usize = 200;

/// The documents, newest first (at most 1000).
#[utoipa::path(get, path = "/admin/knowledge/documents",
    responses((status = 200, body = Vec<KnowledgeDocument>), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_documents(
    State(state): State<AppState>,
    _admin: AdminActor,
) -> ApiResult<axum::Json<Vec<KnowledgeDocument>>> {
    Ok(axum::Json(service::list(&state).await?))
}

/// Uploads documents: one or more `files` fields (PDF, DOCX or TXT, at most 25 MB each, at most
/// 20 at once) and a `category` (Assets, CET1 deductions, CRMT or Other) or a `leverId`. Each
/// document is created `processing` and read, chunked and indexed in the background.
#[utoipa::path(post, path = "/admin/knowledge/documents",
    request_body(content_type = "multipart/form-data", description = "`files`: one field per file; `category`; `leverId`"),
    responses((status = 201, body = Vec<KnowledgeDocument>), (status = 400, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn upload_documents(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    headers: HeaderMap,
    mut multipart: Multipart,
) -> ApiResult<(StatusCode, axum::Json<Vec<KnowledgeDocument>>)> {
    refuse_declared_size(
        &headers,
        MAX_FILE_BYTES * MAX_FILES_PER_UPLOAD as u64 + MULTIPART_SLACK,
        TOO_BIG,
    )?;
    let mut input = UploadInput {
        files: Vec::new(),
        category: None,
        lever_id: None,
    };
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        match field.name() {
            Some("files" | "file") => {
                if input.files.len() >= MAX_FILES_PER_UPLOAD {
                    return Err(ApiError::validation(format!(
                        "Upload at most {MAX_FILES_PER_UPLOAD} files at once."
                    )));
                }
                let name = field.file_name().unwrap_or_default().to_owned();
                let (path, seen) =
                    receive_field(&state, &mut field, MAX_FILE_BYTES, TOO_BIG).await?;
                input.files.push(ReceivedFile { path, name, seen });
            }
            Some(which @ ("category" | "leverId" | "lever_id")) => {
                let which = which.to_owned();
                let value = text_field(&mut field, &which, MAX_TEXT_FIELD).await?;
                if which == "category" {
                    input.category = Some(value);
                } else {
                    input.lever_id = Some(value);
                }
            }
            other => return Err(unexpected_field(other)),
        }
    }
    let docs = service::upload(&state, &actor, input).await?;
    Ok((StatusCode::CREATED, axum::Json(docs)))
}

/// One document, with its status, stage and progress.
#[utoipa::path(get, path = "/admin/knowledge/documents/{document_id}", params(("document_id" = String, Path, description = "Document id")),
    responses((status = 200, body = KnowledgeDocument), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_document(
    State(state): State<AppState>,
    _admin: AdminActor,
    Path(document_id): Path<String>,
) -> ApiResult<axum::Json<KnowledgeDocument>> {
    Ok(axum::Json(service::get(&state, &document_id).await?))
}

/// Deletes a document with its chunks and its original.
#[utoipa::path(delete, path = "/admin/knowledge/documents/{document_id}", params(("document_id" = String, Path, description = "Document id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_document(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(document_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &document_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Full-text search over the chunks of indexed documents: every word of `q` must match
/// (punctuation is ignored; a query without words finds nothing), best first.
#[utoipa::path(get, path = "/admin/knowledge/search", params(SearchQuery),
    responses((status = 200, body = Vec<KnowledgeHit>), (status = 400, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn search_knowledge(
    State(state): State<AppState>,
    _admin: AdminActor,
    Query(q): Query<SearchQuery>,
) -> ApiResult<axum::Json<Vec<KnowledgeHit>>> {
    Ok(axum::Json(service::search(&state, &q).await?))
}

/// The stat cards: total documents, chunks and uploads, the categories.
#[utoipa::path(get, path = "/admin/knowledge/stats",
    responses((status = 200, body = KnowledgeStats), (status = 403, body = crate::error::ErrorBody)))]
pub async fn knowledge_stats(
    State(state): State<AppState>,
    _admin: AdminActor,
) -> ApiResult<axum::Json<KnowledgeStats>> {
    Ok(axum::Json(service::stats(&state).await?))
}

/// The Settings tab: the chunk size, the search language, the documents a re-index would change.
#[utoipa::path(get, path = "/admin/knowledge/settings",
    responses((status = 200, body = KnowledgeSettings), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn knowledge_settings(
    State(state): State<AppState>,
    _admin: AdminActor,
) -> ApiResult<axum::Json<KnowledgeSettings>> {
    Ok(axum::Json(service::settings(&state).await?))
}

/// Saves the chunk size (50 to 1000 words).
#[utoipa::path(put, path = "/admin/knowledge/settings", request_body = KnowledgeSettingsInput,
    responses((status = 200, body = KnowledgeSettings), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_knowledge_settings(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    AppJson(input): AppJson<KnowledgeSettingsInput>,
) -> ApiResult<axum::Json<KnowledgeSettings>> {
    Ok(axum::Json(
        service::update_settings(&state, &actor, input).await?,
    ))
}

/// Re-indexes every completed or failed document with the current settings.
#[utoipa::path(post, path = "/admin/knowledge/reindex",
    responses((status = 200, body = ReindexResult), (status = 403, body = crate::error::ErrorBody)))]
pub async fn reindex_knowledge(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
) -> ApiResult<axum::Json<ReindexResult>> {
    Ok(axum::Json(service::reindex(&state, &actor).await?))
}

/// Proposes levers and rules from an indexed document (the AI provider: the built-in extractor
/// or the configured model, checked against the schema). Changes nothing.
#[utoipa::path(post, path = "/admin/knowledge/documents/{document_id}/extract", params(("document_id" = String, Path, description = "Document id")),
    responses((status = 200, body = LeverExtraction), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody), (status = 429, body = crate::error::ErrorBody)))]
pub async fn extract_levers(
    State(state): State<AppState>,
    _admin: AdminActor,
    Path(document_id): Path<String>,
) -> ApiResult<axum::Json<LeverExtraction>> {
    Ok(axum::Json(rules::extract(&state, &document_id).await?))
}

/// 'Save to Knowledge Base': the reviewed levers and their rules, all or nothing (422 with the
/// specification's validation messages).
#[utoipa::path(post, path = "/admin/knowledge/levers", request_body = SaveLeversInput,
    responses((status = 201, body = SaveLeversResult), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn save_levers(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    AppJson(input): AppJson<SaveLeversInput>,
) -> ApiResult<(StatusCode, axum::Json<SaveLeversResult>)> {
    Ok((
        StatusCode::CREATED,
        axum::Json(rules::save(&state, &actor, input).await?),
    ))
}

/// The Rules tab: regulatory rules, priority descending then newest first (`all`: with the
/// versions out of force).
#[utoipa::path(get, path = "/admin/knowledge/rules", params(RulesQuery),
    responses((status = 200, body = Vec<RegulatoryRule>), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_rules(
    State(state): State<AppState>,
    _admin: AdminActor,
    Query(q): Query<RulesQuery>,
) -> ApiResult<axum::Json<Vec<RegulatoryRule>>> {
    Ok(axum::Json(rules::list(&state, &q).await?))
}
