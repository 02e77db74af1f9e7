//! The task board's HTTP API: every call works on one client's board (the caller's own client, or
//! the `client_id` query parameter for members of several clients and admins); the rules live in
//! [`crate::service::board`]. A change's event sequence number is also returned in the
//! `x-event-seq` response header.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{ClientQuery, ClientRead, ClientWrite};
use crate::error::{ApiResult, AppJson};
use crate::ids::{CategoryId, ColumnId, TaskId};
use crate::service::Committed;
use crate::service::board::order::Placement;
use crate::service::board::{self as service, Board, Category, Column, Task, TaskInput};
use crate::state::AppState;

/// Response header carrying the board topic's sequence number of the change.
pub const SEQ_HEADER: &str = "x-event-seq";

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_board))
        .routes(routes!(create_column))
        .routes(routes!(rename_column))
        .routes(routes!(move_column))
        .routes(routes!(create_task))
        .routes(routes!(update_task, delete_task))
        .routes(routes!(move_task))
        .routes(routes!(create_category))
        .routes(routes!(delete_category))
}

/// Name of a new or renamed column.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ColumnRequest {
    /// Name (non-blank after trimming).
    pub name: String,
}

/// Where a moved column or task goes: right after `after_id`, or else right before `before_id`
/// (the neighbours the mover saw); neither means the end.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct MoveColumnRequest {
    /// The column that should precede it.
    #[ts(optional)]
    pub after_id: Option<String>,
    /// The column that should follow it.
    #[ts(optional)]
    pub before_id: Option<String>,
}

/// Fields of a new task.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct CreateTaskRequest {
    /// The column to add it to (at the end).
    pub column_id: ColumnId,
    /// Title (required).
    pub title: String,
    /// Description.
    #[serde(default)]
    #[ts(optional)]
    pub description: Option<String>,
    /// Category.
    #[ts(optional)]
    pub category_id: Option<String>,
    /// `low`, `medium` or `high`.
    #[ts(optional)]
    pub priority: Option<String>,
    /// Due date (`YYYY-MM-DD` or an ISO date-time).
    #[ts(optional)]
    pub due_date: Option<String>,
}

/// The editable fields of a task (all replaced).
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct UpdateTaskRequest {
    /// Title (required).
    pub title: String,
    /// Description.
    #[serde(default)]
    #[ts(optional)]
    pub description: Option<String>,
    /// Category (none to clear).
    #[ts(optional)]
    pub category_id: Option<String>,
    /// `low`, `medium`, `high`, or none.
    #[ts(optional)]
    pub priority: Option<String>,
    /// Due date, or none.
    #[ts(optional)]
    pub due_date: Option<String>,
}

/// A task move.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct MoveTaskRequest {
    /// The target column (the task's own for a reorder).
    pub column_id: ColumnId,
    /// The task that should precede it.
    #[ts(optional)]
    pub after_id: Option<String>,
    /// The task that should follow it.
    #[ts(optional)]
    pub before_id: Option<String>,
}

/// A new category.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct CategoryRequest {
    /// Name (non-blank).
    pub name: String,
}

fn with_seq<T: IntoResponse>(status: StatusCode, c: Committed<T>) -> Response {
    let mut headers = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(&c.seq.to_string()) {
        headers.insert(SEQ_HEADER, v);
    }
    (status, headers, c.value).into_response()
}

fn json<T>(c: Committed<T>) -> Committed<axum::Json<T>> {
    Committed {
        value: axum::Json(c.value),
        seq: c.seq,
    }
}

/// Reads a client's board.
#[utoipa::path(get, path = "/board", params(ClientQuery),
    responses((status = 200, body = Board), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_board(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<Board>> {
    Ok(axum::Json(service::board(&state, &scope).await?))
}

/// Adds a column at the end of the board.
#[utoipa::path(post, path = "/board/columns", params(ClientQuery), request_body = ColumnRequest,
    responses((status = 201, body = Column), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_column(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    AppJson(req): AppJson<ColumnRequest>,
) -> ApiResult<Response> {
    let c = service::create_column(&state, &scope, &req.name).await?;
    Ok(with_seq(StatusCode::CREATED, json(c)))
}

/// Renames a column.
#[utoipa::path(patch, path = "/board/columns/{id}", params(ClientQuery, ("id" = String, Path)), request_body = ColumnRequest,
    responses((status = 200, body = Column), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn rename_column(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    Path(id): Path<ColumnId>,
    AppJson(req): AppJson<ColumnRequest>,
) -> ApiResult<Response> {
    let c = service::rename_column(&state, &scope, &id, &req.name).await?;
    Ok(with_seq(StatusCode::OK, json(c)))
}

/// Moves a column (drag and drop); returns the columns whose position changed.
#[utoipa::path(post, path = "/board/columns/{id}/move", params(ClientQuery, ("id" = String, Path)), request_body = MoveColumnRequest,
    responses((status = 200, body = [Column]), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn move_column(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    Path(id): Path<ColumnId>,
    AppJson(req): AppJson<MoveColumnRequest>,
) -> ApiResult<Response> {
    let place = Placement {
        after_id: req.after_id.as_deref(),
        before_id: req.before_id.as_deref(),
    };
    let c = service::move_column(&state, &scope, &id, &place).await?;
    Ok(with_seq(StatusCode::OK, json(c)))
}

/// Creates a task at the end of a column.
#[utoipa::path(post, path = "/board/tasks", params(ClientQuery), request_body = CreateTaskRequest,
    responses((status = 201, body = Task), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_task(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    AppJson(req): AppJson<CreateTaskRequest>,
) -> ApiResult<Response> {
    let input = TaskInput {
        title: &req.title,
        description: req.description.as_deref(),
        category_id: req.category_id.as_deref(),
        priority: req.priority.as_deref(),
        due_date: req.due_date.as_deref(),
    };
    let c = service::create_task(&state, &scope, &req.column_id, &input).await?;
    Ok(with_seq(StatusCode::CREATED, json(c)))
}

/// Replaces a task's title, description, category, priority and due date.
#[utoipa::path(put, path = "/board/tasks/{id}", params(ClientQuery, ("id" = String, Path)), request_body = UpdateTaskRequest,
    responses((status = 200, body = Task), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_task(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    Path(id): Path<TaskId>,
    AppJson(req): AppJson<UpdateTaskRequest>,
) -> ApiResult<Response> {
    let input = TaskInput {
        title: &req.title,
        description: req.description.as_deref(),
        category_id: req.category_id.as_deref(),
        priority: req.priority.as_deref(),
        due_date: req.due_date.as_deref(),
    };
    let c = service::update_task(&state, &scope, &id, &input).await?;
    Ok(with_seq(StatusCode::OK, json(c)))
}

/// Deletes a task.
#[utoipa::path(delete, path = "/board/tasks/{id}", params(ClientQuery, ("id" = String, Path)),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_task(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    Path(id): Path<TaskId>,
) -> ApiResult<Response> {
    let c = service::delete_task(&state, &scope, &id).await?;
    Ok(with_seq(StatusCode::NO_CONTENT, c))
}

/// Moves a task within its column or to another one; returns the tasks whose rows changed.
#[utoipa::path(post, path = "/board/tasks/{id}/move", params(ClientQuery, ("id" = String, Path)), request_body = MoveTaskRequest,
    responses((status = 200, body = [Task]), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn move_task(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    Path(id): Path<TaskId>,
    AppJson(req): AppJson<MoveTaskRequest>,
) -> ApiResult<Response> {
    let place = Placement {
        after_id: req.after_id.as_deref(),
        before_id: req.before_id.as_deref(),
    };
    let c = service::move_task(&state, &scope, &id, &req.column_id, &place).await?;
    Ok(with_seq(StatusCode::OK, json(c)))
}

/// Creates one of the client's own categories.
#[utoipa::path(post, path = "/board/categories", params(ClientQuery), request_body = CategoryRequest,
    responses((status = 201, body = Category), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_category(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    AppJson(req): AppJson<CategoryRequest>,
) -> ApiResult<Response> {
    let c = service::create_category(&state, &scope, &req.name).await?;
    Ok(with_seq(StatusCode::CREATED, json(c)))
}

/// Deletes one of the client's own categories; default ones cannot be deleted (409).
#[utoipa::path(delete, path = "/board/categories/{id}", params(ClientQuery, ("id" = String, Path)),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody)))]
pub async fn delete_category(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    Path(id): Path<CategoryId>,
) -> ApiResult<Response> {
    let c = service::delete_category(&state, &scope, &id).await?;
    Ok(with_seq(StatusCode::NO_CONTENT, c))
}
