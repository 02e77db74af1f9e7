//! The board as the web app receives it: views built from the rows of `db::board`, and the
//! patch every board event carries.

use serde::Serialize;

use crate::db::board::{CategoryRow, ColumnRow, TaskRow};
use crate::ids::{CategoryId, ClientId, ColumnId, TaskId, UserId};

/// A board column.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct Column {
    /// Id.
    pub id: ColumnId,
    /// The client owning the board.
    pub client_id: ClientId,
    /// Name.
    pub name: String,
    /// Fractional order key; columns sort by `(position, id)`.
    pub position: String,
}

impl From<ColumnRow> for Column {
    fn from(r: ColumnRow) -> Column {
        Column {
            id: r.id.into(),
            client_id: r.client_id.into(),
            name: r.name,
            position: r.position,
        }
    }
}

/// A task's priority.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum TaskPriority {
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
}

impl TaskPriority {
    /// Reads a priority as a caller or the database writes it (any case); `None` for anything
    /// else.
    pub fn parse(s: &str) -> Option<TaskPriority> {
        match s.trim().to_ascii_lowercase().as_str() {
            "low" => Some(TaskPriority::Low),
            "medium" => Some(TaskPriority::Medium),
            "high" => Some(TaskPriority::High),
            _ => None,
        }
    }
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskPriority::Low => "low",
            TaskPriority::Medium => "medium",
            TaskPriority::High => "high",
        }
    }
}

/// A task card.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct Task {
    /// Id.
    pub id: TaskId,
    /// The client owning the board.
    pub client_id: ClientId,
    /// The column holding the task.
    pub column_id: ColumnId,
    /// Title (at least one character).
    pub title: String,
    /// Description (may be empty).
    pub description: String,
    /// Category, if any.
    pub category_id: Option<CategoryId>,
    /// Name of the category, if any.
    pub category_name: Option<String>,
    /// Priority, if set.
    pub priority: Option<TaskPriority>,
    /// Due date (`YYYY-MM-DD`).
    pub due_date: Option<String>,
    /// When the task reached the board's "Done" column (RFC 3339), if it is there.
    pub completed_at: Option<String>,
    /// Fractional order key within the column; tasks sort by `(position, id)`.
    pub position: String,
    /// Creator.
    pub created_by: Option<UserId>,
    /// Creation time (RFC 3339).
    pub created_at: String,
    /// Last change (RFC 3339).
    pub updated_at: String,
}

impl From<TaskRow> for Task {
    fn from(r: TaskRow) -> Task {
        Task {
            id: r.id.into(),
            client_id: r.client_id.into(),
            column_id: r.column_id.into(),
            title: r.title,
            description: r.description,
            category_id: r.category_id.map(CategoryId::from),
            category_name: r.category_name,
            priority: r.priority.as_deref().and_then(TaskPriority::parse),
            due_date: r.due_date,
            completed_at: r.completed_at,
            position: r.position,
            created_by: r.created_by.map(UserId::from),
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// A task category: a default one (visible to every client, never deletable) or one of the
/// client's own.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct Category {
    /// Id.
    pub id: CategoryId,
    /// Name.
    pub name: String,
    /// The owning client; none for default categories.
    pub client_id: Option<ClientId>,
    /// Whether this is a default category.
    pub is_default: bool,
    /// Creator.
    pub created_by: Option<UserId>,
}

impl From<CategoryRow> for Category {
    fn from(r: CategoryRow) -> Category {
        Category {
            id: r.id.into(),
            name: r.name,
            client_id: r.client_id.map(ClientId::from),
            is_default: r.is_default != 0,
            created_by: r.created_by.map(UserId::from),
        }
    }
}

pub(super) fn all<R, W: From<R>>(rows: Vec<R>) -> Vec<W> {
    rows.into_iter().map(W::from).collect()
}

/// A whole board.
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct Board {
    /// The client.
    pub client_id: ClientId,
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
#[derive(Debug, Clone, Default, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct BoardPatch {
    /// Columns created or changed.
    pub columns: Vec<Column>,
    /// Tasks created or changed.
    pub tasks: Vec<Task>,
    /// Categories created.
    pub categories: Vec<Category>,
    /// Ids of deleted tasks.
    pub deleted_task_ids: Vec<TaskId>,
    /// Ids of deleted categories.
    pub deleted_category_ids: Vec<CategoryId>,
}
