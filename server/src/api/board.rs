//! The task board of a client: columns, tasks and categories, with live updates.
//!
//! Every call works on one client's board: the signed-in user's client, or for members of several
//! clients and admins the `client_id` query parameter. Reads need membership (or admin); changes
//! also refuse viewers. Each change runs in one transaction that starts by taking the next number
//! of the client's board topic (serialising the client's board writes), and its event is published
//! after the commit as a [`BoardPatch`] that every open board applies. The event's sequence number
//! is also returned in the `x-event-seq` response header.

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use serde::{Deserialize, Serialize};

use crate::auth::AuthUser;
use crate::db::board::{self as db, Category, Column, MoveOutcome, Placement, Task, TaskFields};
use crate::db::clients;
use crate::error::{ApiError, ApiResult, AppJson};
use crate::realtime::{self, Topic};
use crate::state::AppState;

/// Longest task title.
pub const MAX_TITLE: usize = 200;
/// Longest task description.
pub const MAX_DESCRIPTION: usize = 5000;
/// Longest column or category name.
pub const MAX_NAME: usize = 100;
/// Response header carrying the board topic's sequence number of the change.
pub const SEQ_HEADER: &str = "x-event-seq";

/// Routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/board", get(get_board))
        .route("/board/columns", post(create_column))
        .route("/board/columns/{id}", axum::routing::patch(rename_column))
        .route("/board/columns/{id}/move", post(move_column))
        .route("/board/tasks", post(create_task))
        .route(
            "/board/tasks/{id}",
            axum::routing::put(update_task).delete(delete_task),
        )
        .route("/board/tasks/{id}/move", post(move_task))
        .route("/board/categories", post(create_category))
        .route("/board/categories/{id}", delete(delete_category))
}

/// Which client's board (optional: the caller's own client by default).
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct BoardQuery {
    /// The client whose board to use; required only for users of several clients and admins who
    /// work on another client than their first.
    pub client_id: Option<String>,
}

/// A whole board.
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct Board {
    /// The client.
    pub client_id: String,
    /// The client's name.
    pub client_name: String,
    /// The board topic's sequence number when the board was read: events up to it are included.
    #[ts(type = "number")]
    pub seq: i64,
    /// Columns in board order.
    pub columns: Vec<Column>,
    /// Tasks, in order within each column.
    pub tasks: Vec<Task>,
    /// Visible categories (default ones and the client's own), by name.
    pub categories: Vec<Category>,
}

/// The payload of every board event: rows to insert or replace, and ids to remove.
#[derive(Debug, Default, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct BoardPatch {
    /// Columns created or changed.
    pub columns: Vec<Column>,
    /// Tasks created or changed.
    pub tasks: Vec<Task>,
    /// Categories created.
    pub categories: Vec<Category>,
    /// Ids of deleted tasks.
    pub deleted_task_ids: Vec<String>,
    /// Ids of deleted categories.
    pub deleted_category_ids: Vec<String>,
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
    pub column_id: String,
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
    pub column_id: String,
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

/// Resolves the client whose board a call works on.
async fn board_client(
    state: &AppState,
    user: &AuthUser,
    q: &BoardQuery,
) -> ApiResult<(String, String)> {
    match q
        .client_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(id) => {
            user.require_client_read(id)?;
            if let Some(c) = user.clients.iter().find(|(cid, _)| cid == id) {
                return Ok(c.clone());
            }
            let name = clients::exists(&state.db.pool, id)
                .await?
                .ok_or_else(|| ApiError::not_found("Client not found"))?;
            Ok((id.to_string(), name))
        }
        None => user
            .home_client()
            .cloned()
            .ok_or_else(|| ApiError::not_found("No client is linked to your account")),
    }
}

async fn writable_client(state: &AppState, user: &AuthUser, q: &BoardQuery) -> ApiResult<String> {
    let (id, _) = board_client(state, user, q).await?;
    user.require_client_write(&id)?;
    Ok(id)
}

fn with_seq<T: IntoResponse>(seq: i64, status: StatusCode, body: T) -> Response {
    let mut headers = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(&seq.to_string()) {
        headers.insert(SEQ_HEADER, v);
    }
    (status, headers, body).into_response()
}

fn clean_name(name: &str, what: &str) -> ApiResult<String> {
    let n = name.trim();
    if n.is_empty() {
        return Err(ApiError::validation(format!("{what} name is required")));
    }
    if n.chars().count() > MAX_NAME {
        return Err(ApiError::validation(format!(
            "{what} name must be at most {MAX_NAME} characters"
        )));
    }
    Ok(n.to_string())
}

/// Validated task fields (owned).
struct Fields {
    title: String,
    description: String,
    category_id: Option<String>,
    priority: Option<String>,
    due_date: Option<String>,
}

impl Fields {
    fn as_db(&self) -> TaskFields<'_> {
        TaskFields {
            title: &self.title,
            description: &self.description,
            category_id: self.category_id.as_deref(),
            priority: self.priority.as_deref(),
            due_date: self.due_date.as_deref(),
        }
    }
}

fn validate_task(
    title: &str,
    description: Option<&str>,
    category_id: Option<&str>,
    priority: Option<&str>,
    due_date: Option<&str>,
) -> ApiResult<Fields> {
    let title = title.trim();
    if title.is_empty() {
        return Err(ApiError::validation("Title is required"));
    }
    if title.chars().count() > MAX_TITLE {
        return Err(ApiError::validation(format!(
            "Title must be at most {MAX_TITLE} characters"
        )));
    }
    let description = description.unwrap_or("").trim().to_string();
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(ApiError::validation(format!(
            "Description must be at most {MAX_DESCRIPTION} characters"
        )));
    }
    let priority = match priority.map(|p| p.trim().to_ascii_lowercase()) {
        None => None,
        Some(p) if p.is_empty() || p == "none" => None,
        Some(p) if ["low", "medium", "high"].contains(&p.as_str()) => Some(p),
        Some(_) => return Err(ApiError::validation("Priority must be low, medium or high")),
    };
    let due_date = match due_date.map(str::trim).filter(|d| !d.is_empty()) {
        None => None,
        Some(d) => {
            let date = chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d")
                .ok()
                .or_else(|| {
                    chrono::DateTime::parse_from_rfc3339(d)
                        .ok()
                        .map(|t| t.date_naive())
                })
                .ok_or_else(|| ApiError::validation("Invalid due date"))?;
            Some(date.format("%Y-%m-%d").to_string())
        }
    };
    let category_id = category_id
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    Ok(Fields {
        title: title.to_string(),
        description,
        category_id,
        priority,
        due_date,
    })
}

/// Reads a client's board, creating its default columns when it has none.
#[utoipa::path(get, path = "/api/board", params(BoardQuery),
    responses((status = 200, body = Board), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_board(
    State(state): State<AppState>,
    user: AuthUser,
    Query(q): Query<BoardQuery>,
) -> ApiResult<axum::Json<Board>> {
    let (client_id, client_name) = board_client(&state, &user, &q).await?;
    let pool = &state.db.pool;
    let topic = Topic::board(&client_id);
    if db::columns(pool, &client_id).await?.is_empty() {
        // The spec's create_default_columns_for_client: done by the server for any reader, under
        // the board's write lock so that two first readers create them once.
        let mut tx = pool.begin().await?;
        let seq = realtime::next_seq(&mut tx, &topic).await?;
        let created = db::create_default_columns(&mut tx, &client_id).await?;
        if created.is_empty() {
            tx.rollback().await?;
        } else {
            tx.commit().await?;
            state.hub.publish(
                &topic,
                seq,
                "columns.created",
                &BoardPatch {
                    columns: created,
                    ..Default::default()
                },
            );
        }
    }
    // The sequence is read before the rows: an event committed in between is both in the rows and
    // above `seq`, which clients apply idempotently; the reverse order could hide one.
    let seq = realtime::current_seq(pool, &topic.to_string()).await?;
    let columns = db::columns(pool, &client_id).await?;
    let tasks = db::tasks(pool, &client_id).await?;
    let categories = db::categories(pool, &client_id).await?;
    Ok(axum::Json(Board {
        client_id,
        client_name,
        seq,
        columns,
        tasks,
        categories,
    }))
}

/// Adds a column at the end of the board.
#[utoipa::path(post, path = "/api/board/columns", params(BoardQuery), request_body = ColumnRequest,
    responses((status = 201, body = Column), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_column(
    State(state): State<AppState>,
    user: AuthUser,
    Query(q): Query<BoardQuery>,
    AppJson(req): AppJson<ColumnRequest>,
) -> ApiResult<Response> {
    let client_id = writable_client(&state, &user, &q).await?;
    let name = clean_name(&req.name, "Column")?;
    let topic = Topic::board(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    let col = db::insert_column(&mut tx, &client_id, &name).await?;
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "column.created",
        &BoardPatch {
            columns: vec![col.clone()],
            ..Default::default()
        },
    );
    Ok(with_seq(seq, StatusCode::CREATED, axum::Json(col)))
}

/// Renames a column.
#[utoipa::path(patch, path = "/api/board/columns/{id}", params(BoardQuery, ("id" = String, Path)), request_body = ColumnRequest,
    responses((status = 200, body = Column), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn rename_column(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Query(q): Query<BoardQuery>,
    AppJson(req): AppJson<ColumnRequest>,
) -> ApiResult<Response> {
    let client_id = writable_client(&state, &user, &q).await?;
    let name = clean_name(&req.name, "Column")?;
    let topic = Topic::board(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    let col = db::rename_column(&mut tx, &client_id, &id, &name)
        .await?
        .ok_or_else(|| ApiError::not_found("Column not found"))?;
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "column.updated",
        &BoardPatch {
            columns: vec![col.clone()],
            ..Default::default()
        },
    );
    Ok(with_seq(seq, StatusCode::OK, axum::Json(col)))
}

/// Moves a column (drag and drop); returns the columns whose position changed.
#[utoipa::path(post, path = "/api/board/columns/{id}/move", params(BoardQuery, ("id" = String, Path)), request_body = MoveColumnRequest,
    responses((status = 200, body = [Column]), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn move_column(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Query(q): Query<BoardQuery>,
    AppJson(req): AppJson<MoveColumnRequest>,
) -> ApiResult<Response> {
    let client_id = writable_client(&state, &user, &q).await?;
    let topic = Topic::board(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    let place = Placement {
        after_id: req.after_id.as_deref(),
        before_id: req.before_id.as_deref(),
    };
    let changed = db::move_column(&mut tx, &client_id, &id, &place)
        .await?
        .ok_or_else(|| ApiError::not_found("Column not found"))?;
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "column.moved",
        &BoardPatch {
            columns: changed.clone(),
            ..Default::default()
        },
    );
    Ok(with_seq(seq, StatusCode::OK, axum::Json(changed)))
}

async fn check_category(
    conn: &mut sqlx::AnyConnection,
    client_id: &str,
    f: &Fields,
) -> ApiResult<()> {
    if let Some(cat) = &f.category_id
        && db::category(conn, client_id, cat).await?.is_none()
    {
        return Err(ApiError::validation("Category not found"));
    }
    Ok(())
}

/// Creates a task at the end of a column.
#[utoipa::path(post, path = "/api/board/tasks", params(BoardQuery), request_body = CreateTaskRequest,
    responses((status = 201, body = Task), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_task(
    State(state): State<AppState>,
    user: AuthUser,
    Query(q): Query<BoardQuery>,
    AppJson(req): AppJson<CreateTaskRequest>,
) -> ApiResult<Response> {
    let client_id = writable_client(&state, &user, &q).await?;
    let f = validate_task(
        &req.title,
        req.description.as_deref(),
        req.category_id.as_deref(),
        req.priority.as_deref(),
        req.due_date.as_deref(),
    )?;
    let topic = Topic::board(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    check_category(&mut tx, &client_id, &f).await?;
    let task = db::insert_task(&mut tx, &client_id, &req.column_id, &f.as_db(), &user.id)
        .await?
        .ok_or_else(|| ApiError::validation("Column not found"))?;
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "task.created",
        &BoardPatch {
            tasks: vec![task.clone()],
            ..Default::default()
        },
    );
    Ok(with_seq(seq, StatusCode::CREATED, axum::Json(task)))
}

/// Replaces a task's title, description, category, priority and due date.
#[utoipa::path(put, path = "/api/board/tasks/{id}", params(BoardQuery, ("id" = String, Path)), request_body = UpdateTaskRequest,
    responses((status = 200, body = Task), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_task(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Query(q): Query<BoardQuery>,
    AppJson(req): AppJson<UpdateTaskRequest>,
) -> ApiResult<Response> {
    let client_id = writable_client(&state, &user, &q).await?;
    let f = validate_task(
        &req.title,
        req.description.as_deref(),
        req.category_id.as_deref(),
        req.priority.as_deref(),
        req.due_date.as_deref(),
    )?;
    let topic = Topic::board(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    check_category(&mut tx, &client_id, &f).await?;
    let task = db::update_task(&mut tx, &client_id, &id, &f.as_db())
        .await?
        .ok_or_else(|| ApiError::not_found("Task not found"))?;
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "task.updated",
        &BoardPatch {
            tasks: vec![task.clone()],
            ..Default::default()
        },
    );
    Ok(with_seq(seq, StatusCode::OK, axum::Json(task)))
}

/// Deletes a task.
#[utoipa::path(delete, path = "/api/board/tasks/{id}", params(BoardQuery, ("id" = String, Path)),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_task(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Query(q): Query<BoardQuery>,
) -> ApiResult<Response> {
    let client_id = writable_client(&state, &user, &q).await?;
    let topic = Topic::board(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    if !db::delete_task(&mut tx, &client_id, &id).await? {
        return Err(ApiError::not_found("Task not found"));
    }
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "task.deleted",
        &BoardPatch {
            deleted_task_ids: vec![id],
            ..Default::default()
        },
    );
    Ok(with_seq(seq, StatusCode::NO_CONTENT, ()))
}

/// Moves a task within its column or to another one; returns the tasks whose rows changed.
#[utoipa::path(post, path = "/api/board/tasks/{id}/move", params(BoardQuery, ("id" = String, Path)), request_body = MoveTaskRequest,
    responses((status = 200, body = [Task]), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn move_task(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Query(q): Query<BoardQuery>,
    AppJson(req): AppJson<MoveTaskRequest>,
) -> ApiResult<Response> {
    let client_id = writable_client(&state, &user, &q).await?;
    let topic = Topic::board(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    let place = Placement {
        after_id: req.after_id.as_deref(),
        before_id: req.before_id.as_deref(),
    };
    let changed = match db::move_task(&mut tx, &client_id, &id, &req.column_id, &place).await? {
        MoveOutcome::NoTask => return Err(ApiError::not_found("Task not found")),
        MoveOutcome::NoColumn => return Err(ApiError::validation("Column not found")),
        MoveOutcome::Moved(changed) => changed,
    };
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "task.moved",
        &BoardPatch {
            tasks: changed.clone(),
            ..Default::default()
        },
    );
    Ok(with_seq(seq, StatusCode::OK, axum::Json(changed)))
}

/// Creates one of the client's own categories.
#[utoipa::path(post, path = "/api/board/categories", params(BoardQuery), request_body = CategoryRequest,
    responses((status = 201, body = Category), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_category(
    State(state): State<AppState>,
    user: AuthUser,
    Query(q): Query<BoardQuery>,
    AppJson(req): AppJson<CategoryRequest>,
) -> ApiResult<Response> {
    let client_id = writable_client(&state, &user, &q).await?;
    let name = clean_name(&req.name, "Category")?;
    let topic = Topic::board(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    let cat = db::insert_category(&mut tx, &client_id, &name, &user.id).await?;
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "category.created",
        &BoardPatch {
            categories: vec![cat.clone()],
            ..Default::default()
        },
    );
    Ok(with_seq(seq, StatusCode::CREATED, axum::Json(cat)))
}

/// Deletes one of the client's own categories; default ones cannot be deleted. Tasks in it keep no
/// category (they are sent in the event).
#[utoipa::path(delete, path = "/api/board/categories/{id}", params(BoardQuery, ("id" = String, Path)),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody)))]
pub async fn delete_category(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Query(q): Query<BoardQuery>,
) -> ApiResult<Response> {
    let client_id = writable_client(&state, &user, &q).await?;
    let topic = Topic::board(&client_id);
    let mut tx = state.db.pool.begin().await?;
    let seq = realtime::next_seq(&mut tx, &topic).await?;
    let cat = db::category(&mut *tx, &client_id, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("Category not found"))?;
    if cat.is_default != 0 {
        return Err(ApiError::Conflict {
            code: "cannot_delete",
            message: "Default categories cannot be deleted".into(),
        });
    }
    let affected: Vec<String> = db::tasks(&mut *tx, &client_id)
        .await?
        .into_iter()
        .filter(|t| t.category_id.as_deref() == Some(id.as_str()))
        .map(|t| t.id)
        .collect();
    db::delete_category(&mut tx, &client_id, &id).await?;
    let mut tasks = Vec::with_capacity(affected.len());
    for tid in &affected {
        if let Some(t) = db::task(&mut *tx, &client_id, tid).await? {
            tasks.push(t);
        }
    }
    tx.commit().await?;
    state.hub.publish(
        &topic,
        seq,
        "category.deleted",
        &BoardPatch {
            tasks,
            deleted_category_ids: vec![id],
            ..Default::default()
        },
    );
    Ok(with_seq(seq, StatusCode::NO_CONTENT, ()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_fields_are_validated_with_the_spec_messages() {
        let e = validate_task("  ", None, None, None, None).err().unwrap();
        assert_eq!(e.to_string(), "Title is required");
        assert!(validate_task("T", None, None, Some("urgent"), None).is_err());
        assert!(validate_task("T", None, None, None, Some("31/12/2026")).is_err());
        let f = validate_task(
            " T ",
            Some(" d "),
            Some(""),
            Some("HIGH"),
            Some("2026-12-31T10:00:00Z"),
        )
        .unwrap();
        assert_eq!(
            (
                f.title.as_str(),
                f.description.as_str(),
                f.category_id,
                f.priority.as_deref(),
                f.due_date.as_deref()
            ),
            ("T", "d", None, Some("high"), Some("2026-12-31"))
        );
        assert_eq!(
            validate_task("T", None, None, Some("none"), None)
                .unwrap()
                .priority,
            None
        );
        assert_eq!(
            clean_name("  ", "Column").err().unwrap().to_string(),
            "Column name is required"
        );
    }
}
