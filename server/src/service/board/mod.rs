//! The task board of a client: columns, tasks and categories, with live updates.
//!
//! Reads need read access to the client, changes write access ([`crate::access`]). Each change is
//! one [`Change`] on the client's board topic, announced after its commit as a [`BoardPatch`] that
//! every open board applies. Rules kept here: task fields and their messages, the order of columns
//! and tasks ([`order`]), the default columns of a new board, the "Done" column setting and
//! clearing a task's completion time, and default categories never being deleted.

pub mod order;
mod view;

pub use view::{Board, BoardPatch, Category, Column, Task, TaskPriority};

use serde_json::json;
use sqlx::AnyConnection;

use self::order::{Keyed, Placement, key_after, keys, place_key, rebalanced};
use self::view::all;
use super::{Audit, Change, Committed, Scope, clean_name};
use crate::db::board::{self as db, CategoryRow, ColumnRow, NewTask, TaskFields};
use crate::error::{ApiError, ApiResult};
use crate::ids::{CategoryId, ColumnId, TaskId};
use crate::realtime::{self, Event, Topic};
use crate::state::AppState;

/// Longest task title.
pub const MAX_TITLE: usize = 200;
/// Longest task description.
pub const MAX_DESCRIPTION: usize = 5000;
/// Longest column or category name.
pub const MAX_NAME: usize = 100;
/// The columns every board starts with.
pub const DEFAULT_COLUMNS: [&str; 4] = ["To Do", "In Progress", "Review", "Done"];

/// Task fields as a caller sends them, before validation.
#[derive(Debug, Clone, Copy, Default)]
pub struct TaskInput<'a> {
    /// Title (required).
    pub title: &'a str,
    /// Description.
    pub description: Option<&'a str>,
    /// Category.
    pub category_id: Option<&'a str>,
    /// `low`, `medium`, `high`, `none` or nothing.
    pub priority: Option<&'a str>,
    /// `YYYY-MM-DD` or an RFC 3339 date-time.
    pub due_date: Option<&'a str>,
}

/// Validated task fields (owned).
#[derive(Debug)]
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

fn validate_task(input: &TaskInput<'_>) -> ApiResult<Fields> {
    let title = input.title.trim();
    if title.is_empty() {
        return Err(ApiError::validation("Title is required"));
    }
    if title.chars().count() > MAX_TITLE {
        return Err(ApiError::validation(format!(
            "Title must be at most {MAX_TITLE} characters"
        )));
    }
    if title.chars().any(char::is_control) {
        return Err(ApiError::validation(
            "Title must not contain control characters",
        ));
    }
    let description = input.description.unwrap_or("").trim().to_string();
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(ApiError::validation(format!(
            "Description must be at most {MAX_DESCRIPTION} characters"
        )));
    }
    if description
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(ApiError::validation(
            "Description must not contain control characters",
        ));
    }
    let priority = match input.priority.map(str::trim) {
        None => None,
        Some(p) if p.is_empty() || p.eq_ignore_ascii_case("none") => None,
        Some(p) => Some(
            TaskPriority::parse(p)
                .ok_or_else(|| ApiError::validation("Priority must be low, medium or high"))?
                .as_str()
                .to_string(),
        ),
    };
    let due_date = match input.due_date.map(str::trim).filter(|d| !d.is_empty()) {
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
    let category_id = input
        .category_id
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

/// Whether a column is the board's "Done" column, where tasks carry a completion time.
fn is_done_column(name: &str) -> bool {
    name.trim().eq_ignore_ascii_case("done")
}

/// The completion time of a task placed in `column`: kept (or set now) in "Done", cleared
/// elsewhere.
fn completion(column: &ColumnRow, current: Option<&str>) -> Option<String> {
    is_done_column(&column.name).then(|| current.map_or_else(crate::db::now, str::to_owned))
}

fn column_not_found() -> ApiError {
    ApiError::not_found("Column not found")
}

fn task_not_found() -> ApiError {
    ApiError::not_found("Task not found")
}

/// Creates the default columns of a new client's board (inside the client's creation).
pub async fn create_default_columns(
    conn: &mut AnyConnection,
    client_id: &str,
) -> ApiResult<Vec<Column>> {
    let mut out = Vec::new();
    for (name, position) in DEFAULT_COLUMNS
        .iter()
        .zip(keys::sequence(DEFAULT_COLUMNS.len()))
    {
        let col = ColumnRow {
            id: crate::db::new_id(),
            client_id: client_id.to_string(),
            name: name.to_string(),
            position,
        };
        db::insert_column(conn, &col).await?;
        out.push(col.into());
    }
    Ok(out)
}

/// Reads a client's board. Never writes.
pub async fn board(state: &AppState, scope: &Scope) -> ApiResult<Board> {
    let pool = &state.db.pool;
    let client_id = &scope.client_id;
    // The sequence is read before the rows: an event committed in between is both in the rows and
    // above `seq`, which clients apply idempotently; the reverse order could hide one.
    let seq = realtime::current_seq(pool, &Topic::board(client_id).to_string()).await?;
    Ok(Board {
        client_id: client_id.clone(),
        client_name: scope.client_name.clone(),
        seq,
        columns: all(db::columns(pool, client_id).await?),
        tasks: all(db::tasks(pool, client_id).await?),
        categories: all(db::categories(pool, client_id).await?),
    })
}

async fn begin<'s>(state: &'s AppState, scope: &Scope) -> ApiResult<Change<'s>> {
    Change::begin(state, Topic::board(&scope.client_id)).await
}

/// Adds a column at the end of the board.
pub async fn create_column(
    state: &AppState,
    scope: &Scope,
    name: &str,
) -> ApiResult<Committed<Column>> {
    let name = clean_name(name, "Column", MAX_NAME)?;
    let mut ch = begin(state, scope).await?;
    let cols = db::columns(ch.conn(), &scope.client_id).await?;
    let col = ColumnRow {
        id: crate::db::new_id(),
        client_id: scope.client_id.to_string(),
        name,
        position: key_after(cols.last().map(|c| c.position.as_str())),
    };
    db::insert_column(ch.conn(), &col).await?;
    let col = Column::from(col);
    let patch = BoardPatch {
        columns: vec![col.clone()],
        ..Default::default()
    };
    let seq = ch
        .commit(
            &scope.actor,
            Event::ColumnCreated(patch),
            audit(
                "column_created",
                "column",
                &col.id,
                json!({"name": col.name}),
            ),
        )
        .await?;
    Ok(Committed { value: col, seq })
}

fn audit<'a>(
    event_type: &'a str,
    entity_type: &'a str,
    entity_id: &'a str,
    details: serde_json::Value,
) -> Audit<'a> {
    Audit {
        event_type,
        entity_type,
        entity_id,
        details,
        severity: "info",
    }
}

/// Renames a column.
pub async fn rename_column(
    state: &AppState,
    scope: &Scope,
    id: &ColumnId,
    name: &str,
) -> ApiResult<Committed<Column>> {
    let name = clean_name(name, "Column", MAX_NAME)?;
    let mut ch = begin(state, scope).await?;
    let col = Column::from(
        db::rename_column(ch.conn(), &scope.client_id, id, &name)
            .await?
            .ok_or_else(column_not_found)?,
    );
    let patch = BoardPatch {
        columns: vec![col.clone()],
        ..Default::default()
    };
    let seq = ch
        .commit(
            &scope.actor,
            Event::ColumnUpdated(patch),
            audit("column_renamed", "column", id, json!({"name": col.name})),
        )
        .await?;
    Ok(Committed { value: col, seq })
}

/// New keys for an item moved in a list (the list without it): one key, or the whole list
/// rewritten when its keys are unusable around the spot.
fn new_keys(others: &Keyed<'_>, place: &Placement<'_>, moved: &str) -> Vec<(String, String)> {
    match place_key(others, place) {
        Some(k) => vec![(moved.to_string(), k)],
        None => rebalanced(others, place, moved),
    }
}

/// Moves a column; returns the columns whose position changed.
pub async fn move_column(
    state: &AppState,
    scope: &Scope,
    id: &ColumnId,
    place: &Placement<'_>,
) -> ApiResult<Committed<Vec<Column>>> {
    let client_id = &scope.client_id;
    let mut ch = begin(state, scope).await?;
    let cols = db::columns(ch.conn(), client_id).await?;
    if !cols.iter().any(|c| c.id == id) {
        return Err(column_not_found());
    }
    let others: Keyed<'_> = cols
        .iter()
        .filter(|c| c.id != id)
        .map(|c| (c.id.as_str(), c.position.as_str()))
        .collect();
    let updates = new_keys(&others, place, id);
    let mut changed = Vec::with_capacity(updates.len());
    for (cid, key) in &updates {
        db::set_column_position(ch.conn(), client_id, cid, key).await?;
        if let Some(c) = db::column(ch.conn(), client_id, cid).await? {
            changed.push(Column::from(c));
        }
    }
    let patch = BoardPatch {
        columns: changed.clone(),
        ..Default::default()
    };
    let seq = ch
        .commit(
            &scope.actor,
            Event::ColumnMoved(patch),
            audit("column_moved", "column", id, json!({})),
        )
        .await?;
    Ok(Committed {
        value: changed,
        seq,
    })
}

async fn check_category(conn: &mut AnyConnection, client_id: &str, f: &Fields) -> ApiResult<()> {
    if let Some(cat) = &f.category_id
        && db::category(conn, client_id, cat).await?.is_none()
    {
        return Err(ApiError::validation("Category not found"));
    }
    Ok(())
}

/// Creates a task at the end of a column.
pub async fn create_task(
    state: &AppState,
    scope: &Scope,
    column_id: &ColumnId,
    input: &TaskInput<'_>,
) -> ApiResult<Committed<Task>> {
    let f = validate_task(input)?;
    let client_id = &scope.client_id;
    let mut ch = begin(state, scope).await?;
    check_category(ch.conn(), client_id, &f).await?;
    let col = db::column(ch.conn(), client_id, column_id)
        .await?
        .ok_or_else(|| ApiError::validation("Column not found"))?;
    let existing = db::column_task_keys(ch.conn(), column_id).await?;
    let position = key_after(existing.last().map(|(_, k)| k.as_str()));
    let id = crate::db::new_id();
    let completed_at = completion(&col, None);
    db::insert_task(
        ch.conn(),
        &NewTask {
            id: &id,
            client_id,
            column_id,
            position: &position,
            completed_at: completed_at.as_deref(),
            created_by: &scope.user().id,
        },
        &f.as_db(),
    )
    .await?;
    let task = Task::from(
        db::task(ch.conn(), client_id, &id)
            .await?
            .ok_or_else(task_not_found)?,
    );
    let patch = BoardPatch {
        tasks: vec![task.clone()],
        ..Default::default()
    };
    let seq = ch
        .commit(
            &scope.actor,
            Event::TaskCreated(patch),
            audit("task_created", "task", &id, json!({"title": task.title})),
        )
        .await?;
    Ok(Committed { value: task, seq })
}

/// Replaces a task's title, description, category, priority and due date.
pub async fn update_task(
    state: &AppState,
    scope: &Scope,
    id: &TaskId,
    input: &TaskInput<'_>,
) -> ApiResult<Committed<Task>> {
    let f = validate_task(input)?;
    let client_id = &scope.client_id;
    let mut ch = begin(state, scope).await?;
    check_category(ch.conn(), client_id, &f).await?;
    let task = Task::from(
        db::update_task(ch.conn(), client_id, id, &f.as_db())
            .await?
            .ok_or_else(task_not_found)?,
    );
    let patch = BoardPatch {
        tasks: vec![task.clone()],
        ..Default::default()
    };
    let seq = ch
        .commit(
            &scope.actor,
            Event::TaskUpdated(patch),
            audit("task_updated", "task", id, json!({"title": task.title})),
        )
        .await?;
    Ok(Committed { value: task, seq })
}

/// Deletes a task.
pub async fn delete_task(state: &AppState, scope: &Scope, id: &TaskId) -> ApiResult<Committed<()>> {
    let mut ch = begin(state, scope).await?;
    let task = db::task(ch.conn(), &scope.client_id, id)
        .await?
        .ok_or_else(task_not_found)?;
    if !db::delete_task(ch.conn(), &scope.client_id, id).await? {
        return Err(task_not_found());
    }
    let patch = BoardPatch {
        deleted_task_ids: vec![id.clone()],
        ..Default::default()
    };
    let seq = ch
        .commit(
            &scope.actor,
            Event::TaskDeleted(patch),
            audit("task_deleted", "task", id, json!({"title": task.title})),
        )
        .await?;
    Ok(Committed { value: (), seq })
}

/// Moves a task within its column or to another one; returns the tasks whose rows changed (the
/// moved one, plus the whole column on a rebalance).
pub async fn move_task(
    state: &AppState,
    scope: &Scope,
    id: &TaskId,
    column_id: &ColumnId,
    place: &Placement<'_>,
) -> ApiResult<Committed<Vec<Task>>> {
    let client_id = &scope.client_id;
    let mut ch = begin(state, scope).await?;
    let current = db::task(ch.conn(), client_id, id)
        .await?
        .ok_or_else(task_not_found)?;
    let col = db::column(ch.conn(), client_id, column_id)
        .await?
        .ok_or_else(|| ApiError::validation("Column not found"))?;
    let rows = db::column_task_keys(ch.conn(), column_id).await?;
    let others: Keyed<'_> = rows
        .iter()
        .filter(|(tid, _)| *tid != id)
        .map(|(tid, k)| (tid.as_str(), k.as_str()))
        .collect();
    let updates = new_keys(&others, place, id);
    let completed_at = completion(&col, current.completed_at.as_deref());
    for (tid, key) in &updates {
        if *tid == id {
            db::place_task(
                ch.conn(),
                client_id,
                tid,
                column_id,
                key,
                completed_at.as_deref(),
            )
            .await?;
        } else {
            db::set_task_position(ch.conn(), client_id, tid, key).await?;
        }
    }
    let mut changed = Vec::with_capacity(updates.len());
    for (tid, _) in &updates {
        if let Some(t) = db::task(ch.conn(), client_id, tid).await? {
            changed.push(Task::from(t));
        }
    }
    let patch = BoardPatch {
        tasks: changed.clone(),
        ..Default::default()
    };
    let seq = ch
        .commit(
            &scope.actor,
            Event::TaskMoved(patch),
            audit(
                "task_moved",
                "task",
                id,
                json!({"from": current.column_id, "to": column_id}),
            ),
        )
        .await?;
    Ok(Committed {
        value: changed,
        seq,
    })
}

/// Creates one of the client's own categories.
pub async fn create_category(
    state: &AppState,
    scope: &Scope,
    name: &str,
) -> ApiResult<Committed<Category>> {
    let name = clean_name(name, "Category", MAX_NAME)?;
    let cat = CategoryRow {
        id: crate::db::new_id(),
        name,
        client_id: Some(scope.client_id.to_string()),
        is_default: 0,
        created_by: Some(scope.user().id.to_string()),
    };
    let mut ch = begin(state, scope).await?;
    db::insert_category(ch.conn(), &cat).await?;
    let cat = Category::from(cat);
    let patch = BoardPatch {
        categories: vec![cat.clone()],
        ..Default::default()
    };
    let seq = ch
        .commit(
            &scope.actor,
            Event::CategoryCreated(patch),
            audit(
                "category_created",
                "category",
                &cat.id,
                json!({"name": cat.name}),
            ),
        )
        .await?;
    Ok(Committed { value: cat, seq })
}

/// Deletes one of the client's own categories; default ones cannot be deleted. Tasks in it keep
/// no category (they are sent in the event).
pub async fn delete_category(
    state: &AppState,
    scope: &Scope,
    id: &CategoryId,
) -> ApiResult<Committed<()>> {
    let client_id = &scope.client_id;
    let mut ch = begin(state, scope).await?;
    let cat = db::category(ch.conn(), client_id, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Category not found"))?;
    if cat.is_default != 0 {
        return Err(ApiError::Conflict {
            code: "cannot_delete",
            message: "Default categories cannot be deleted".into(),
        });
    }
    let affected = db::task_ids_in_category(ch.conn(), client_id, id).await?;
    db::delete_category(ch.conn(), client_id, id).await?;
    let mut tasks = Vec::with_capacity(affected.len());
    for tid in &affected {
        if let Some(t) = db::task(ch.conn(), client_id, tid).await? {
            tasks.push(Task::from(t));
        }
    }
    let patch = BoardPatch {
        tasks,
        deleted_category_ids: vec![id.clone()],
        ..Default::default()
    };
    let seq = ch
        .commit(
            &scope.actor,
            Event::CategoryDeleted(patch),
            audit(
                "category_deleted",
                "category",
                id,
                json!({"name": cat.name}),
            ),
        )
        .await?;
    Ok(Committed { value: (), seq })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(title: &'a str) -> TaskInput<'a> {
        TaskInput {
            title,
            ..Default::default()
        }
    }

    #[test]
    fn task_fields_are_validated_with_the_spec_messages() {
        let e = validate_task(&input("  ")).err().unwrap();
        assert_eq!(e.to_string(), "Title is required");
        assert!(
            validate_task(&TaskInput {
                priority: Some("urgent"),
                ..input("T")
            })
            .is_err()
        );
        assert!(
            validate_task(&TaskInput {
                due_date: Some("31/12/2026"),
                ..input("T")
            })
            .is_err()
        );
        assert!(validate_task(&input("a\0b")).is_err());
        let f = validate_task(&TaskInput {
            title: " T ",
            description: Some(" d "),
            category_id: Some(""),
            priority: Some("HIGH"),
            due_date: Some("2026-12-31T10:00:00Z"),
        })
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
            validate_task(&TaskInput {
                priority: Some("none"),
                ..input("T")
            })
            .unwrap()
            .priority,
            None
        );
        assert_eq!(
            clean_name("  ", "Column", MAX_NAME)
                .err()
                .unwrap()
                .to_string(),
            "Column name is required"
        );
    }

    #[test]
    fn the_done_column_sets_and_keeps_the_completion_time() {
        let col = |name: &str| ColumnRow {
            id: "c".into(),
            client_id: "x".into(),
            name: name.into(),
            position: "a0".into(),
        };
        assert!(completion(&col(" done "), None).is_some());
        assert_eq!(
            completion(&col("Done"), Some("2026-01-01T00:00:00.000000Z")).as_deref(),
            Some("2026-01-01T00:00:00.000000Z")
        );
        assert_eq!(completion(&col("Review"), Some("t")), None);
    }
}
