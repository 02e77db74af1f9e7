//! The task board's SQL: columns, tasks and categories of a client, and their row types. Rows are
//! returned in board order, `(position, id)` compared byte-wise (sorted in Rust, because a
//! database collation may not be byte order); the rules (placement, default columns, the "Done"
//! column) live in `crate::service::board`.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A board column's row.
#[derive(Debug, Clone, FromRow)]
pub struct ColumnRow {
    /// Id.
    pub id: String,
    /// The client owning the board.
    pub client_id: String,
    /// Name.
    pub name: String,
    /// Fractional order key; columns sort by `(position, id)`.
    pub position: String,
}

/// A task's row, with its category's name.
#[derive(Debug, Clone, FromRow)]
pub struct TaskRow {
    /// Id.
    pub id: String,
    /// The client owning the board.
    pub client_id: String,
    /// The column holding the task.
    pub column_id: String,
    /// Title (at least one character).
    pub title: String,
    /// Description (may be empty).
    pub description: String,
    /// Category, if any.
    pub category_id: Option<String>,
    /// Name of the category, if any.
    pub category_name: Option<String>,
    /// `low`, `medium`, `high`, or none.
    pub priority: Option<String>,
    /// Due date (`YYYY-MM-DD`).
    pub due_date: Option<String>,
    /// When the task reached the board's "Done" column (RFC 3339), if it is there.
    pub completed_at: Option<String>,
    /// Fractional order key within the column; tasks sort by `(position, id)`.
    pub position: String,
    /// Creator.
    pub created_by: Option<String>,
    /// Creation time (RFC 3339).
    pub created_at: String,
    /// Last change (RFC 3339).
    pub updated_at: String,
}

/// A task category's row: a default one (visible to all) or one of the client's own.
#[derive(Debug, Clone, FromRow)]
pub struct CategoryRow {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// The owning client; none for default categories.
    pub client_id: Option<String>,
    /// 1 for a default category, 0 for the client's own.
    pub is_default: i64,
    /// Creator.
    pub created_by: Option<String>,
}

/// Sorts columns by `(position, id)`, byte-wise.
pub fn sort_columns(cols: &mut [ColumnRow]) {
    cols.sort_by(|a, b| {
        a.position
            .as_bytes()
            .cmp(b.position.as_bytes())
            .then_with(|| a.id.cmp(&b.id))
    });
}

/// Sorts tasks by `(column_id, position, id)`: within each column, the board order.
pub fn sort_tasks(tasks: &mut [TaskRow]) {
    tasks.sort_by(|a, b| {
        a.column_id
            .cmp(&b.column_id)
            .then_with(|| a.position.as_bytes().cmp(b.position.as_bytes()))
            .then_with(|| a.id.cmp(&b.id))
    });
}

const TASK_SELECT: &str = "SELECT t.id, t.client_id, t.column_id, t.title, t.description, t.category_id, c.name AS category_name,
    t.priority, t.due_date, t.completed_at, t.position, t.created_by, t.created_at, t.updated_at
    FROM kanban_tasks t LEFT JOIN kanban_categories c ON c.id = t.category_id";

/// The columns of a client's board, in board order.
pub async fn columns<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Vec<ColumnRow>> {
    let mut cols: Vec<ColumnRow> = sqlx::query_as(
        "SELECT id, client_id, name, position FROM kanban_columns WHERE client_id = $1",
    )
    .bind(client_id)
    .fetch_all(ex)
    .await?;
    sort_columns(&mut cols);
    Ok(cols)
}

/// The tasks of a client's board, grouped by column id and in order within each column.
pub async fn tasks<'e>(ex: impl AnyExecutor<'e>, client_id: &str) -> sqlx::Result<Vec<TaskRow>> {
    let sql = format!("{TASK_SELECT} WHERE t.client_id = $1");
    let mut tasks: Vec<TaskRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(client_id)
        .fetch_all(ex)
        .await?;
    sort_tasks(&mut tasks);
    Ok(tasks)
}

/// One task of a client.
pub async fn task<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    id: &str,
) -> sqlx::Result<Option<TaskRow>> {
    let sql = format!("{TASK_SELECT} WHERE t.client_id = $1 AND t.id = $2");
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(client_id)
        .bind(id)
        .fetch_optional(ex)
        .await
}

/// One column of a client.
pub async fn column<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    id: &str,
) -> sqlx::Result<Option<ColumnRow>> {
    sqlx::query_as(
        "SELECT id, client_id, name, position FROM kanban_columns WHERE client_id = $1 AND id = $2",
    )
    .bind(client_id)
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// The categories a client sees: the default ones and its own, by name.
pub async fn categories<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Vec<CategoryRow>> {
    sqlx::query_as(
        "SELECT id, name, client_id, is_default, created_by FROM kanban_categories
         WHERE is_default = 1 OR client_id = $1 ORDER BY name, id",
    )
    .bind(client_id)
    .fetch_all(ex)
    .await
}

/// One category visible to a client.
pub async fn category<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    id: &str,
) -> sqlx::Result<Option<CategoryRow>> {
    sqlx::query_as(
        "SELECT id, name, client_id, is_default, created_by FROM kanban_categories
         WHERE id = $1 AND (is_default = 1 OR client_id = $2)",
    )
    .bind(id)
    .bind(client_id)
    .fetch_optional(ex)
    .await
}

/// Inserts a column (its key chosen by the caller).
pub async fn insert_column(conn: &mut AnyConnection, col: &ColumnRow) -> sqlx::Result<()> {
    let now = super::now();
    sqlx::query("INSERT INTO kanban_columns (id, client_id, name, position, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)")
        .bind(&col.id)
        .bind(&col.client_id)
        .bind(&col.name)
        .bind(&col.position)
        .bind(&now)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Renames a column; `None` when it is not on the client's board.
pub async fn rename_column(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
    name: &str,
) -> sqlx::Result<Option<ColumnRow>> {
    let r = sqlx::query(
        "UPDATE kanban_columns SET name = $1, updated_at = $2 WHERE id = $3 AND client_id = $4",
    )
    .bind(name)
    .bind(super::now())
    .bind(id)
    .bind(client_id)
    .execute(&mut *conn)
    .await?;
    if r.rows_affected() == 0 {
        return Ok(None);
    }
    column(&mut *conn, client_id, id).await
}

/// Sets a column's order key.
pub async fn set_column_position(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
    position: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE kanban_columns SET position = $1, updated_at = $2 WHERE id = $3 AND client_id = $4",
    )
    .bind(position)
    .bind(super::now())
    .bind(id)
    .bind(client_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The `(id, position)` of a column's tasks, in order.
pub async fn column_task_keys(
    conn: &mut AnyConnection,
    column_id: &str,
) -> sqlx::Result<Vec<(String, String)>> {
    let mut rows: Vec<(String, String)> =
        sqlx::query_as("SELECT id, position FROM kanban_tasks WHERE column_id = $1")
            .bind(column_id)
            .fetch_all(&mut *conn)
            .await?;
    rows.sort_by(|a, b| {
        a.1.as_bytes()
            .cmp(b.1.as_bytes())
            .then_with(|| a.0.cmp(&b.0))
    });
    Ok(rows)
}

/// Fields of a new or edited task (validated by the caller).
#[derive(Debug, Clone)]
pub struct TaskFields<'a> {
    /// Title.
    pub title: &'a str,
    /// Description.
    pub description: &'a str,
    /// Category.
    pub category_id: Option<&'a str>,
    /// Priority.
    pub priority: Option<&'a str>,
    /// Due date.
    pub due_date: Option<&'a str>,
}

/// Where a new task goes and what the caller decided about it.
#[derive(Debug, Clone)]
pub struct NewTask<'a> {
    /// Id.
    pub id: &'a str,
    /// The client.
    pub client_id: &'a str,
    /// Its column.
    pub column_id: &'a str,
    /// Order key within the column.
    pub position: &'a str,
    /// Completion time, when it starts in the "Done" column.
    pub completed_at: Option<&'a str>,
    /// Creator.
    pub created_by: &'a str,
}

/// Inserts a task.
pub async fn insert_task(
    conn: &mut AnyConnection,
    t: &NewTask<'_>,
    f: &TaskFields<'_>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO kanban_tasks (id, client_id, column_id, title, description, category_id, priority, due_date, completed_at, position, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)",
    )
    .bind(t.id)
    .bind(t.client_id)
    .bind(t.column_id)
    .bind(f.title)
    .bind(f.description)
    .bind(f.category_id)
    .bind(f.priority)
    .bind(f.due_date)
    .bind(t.completed_at)
    .bind(t.position)
    .bind(t.created_by)
    .bind(super::now())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Replaces a task's editable fields; `None` when it is not on the client's board.
pub async fn update_task(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
    f: &TaskFields<'_>,
) -> sqlx::Result<Option<TaskRow>> {
    let r = sqlx::query(
        "UPDATE kanban_tasks SET title = $1, description = $2, category_id = $3, priority = $4, due_date = $5, updated_at = $6
         WHERE id = $7 AND client_id = $8",
    )
    .bind(f.title)
    .bind(f.description)
    .bind(f.category_id)
    .bind(f.priority)
    .bind(f.due_date)
    .bind(super::now())
    .bind(id)
    .bind(client_id)
    .execute(&mut *conn)
    .await?;
    if r.rows_affected() == 0 {
        return Ok(None);
    }
    task(&mut *conn, client_id, id).await
}

/// Deletes a task; whether it existed on the client's board.
pub async fn delete_task(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM kanban_tasks WHERE id = $1 AND client_id = $2")
        .bind(id)
        .bind(client_id)
        .execute(&mut *conn)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// Puts a task in a column at an order key, with its completion time.
pub async fn place_task(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
    column_id: &str,
    position: &str,
    completed_at: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE kanban_tasks SET column_id = $1, position = $2, completed_at = $3, updated_at = $4 WHERE id = $5 AND client_id = $6")
        .bind(column_id)
        .bind(position)
        .bind(completed_at)
        .bind(super::now())
        .bind(id)
        .bind(client_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Sets a task's order key within its column.
pub async fn set_task_position(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
    position: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE kanban_tasks SET position = $1, updated_at = $2 WHERE id = $3 AND client_id = $4",
    )
    .bind(position)
    .bind(super::now())
    .bind(id)
    .bind(client_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Inserts one of a client's own categories.
pub async fn insert_category(conn: &mut AnyConnection, c: &CategoryRow) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO kanban_categories (id, name, client_id, is_default, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(&c.id)
        .bind(&c.name)
        .bind(&c.client_id)
        .bind(c.is_default)
        .bind(&c.created_by)
        .bind(super::now())
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The ids of a client's tasks filed under a category.
pub async fn task_ids_in_category(
    conn: &mut AnyConnection,
    client_id: &str,
    category_id: &str,
) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> =
        sqlx::query_as("SELECT id FROM kanban_tasks WHERE client_id = $1 AND category_id = $2")
            .bind(client_id)
            .bind(category_id)
            .fetch_all(&mut *conn)
            .await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// Deletes one of the client's own categories (tasks keep no category). Whether it was deleted.
pub async fn delete_category(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
) -> sqlx::Result<bool> {
    sqlx::query(
        "UPDATE kanban_tasks SET category_id = NULL WHERE category_id = $1 AND client_id = $2",
    )
    .bind(id)
    .bind(client_id)
    .execute(&mut *conn)
    .await?;
    let r = sqlx::query(
        "DELETE FROM kanban_categories WHERE id = $1 AND client_id = $2 AND is_default = 0",
    )
    .bind(id)
    .bind(client_id)
    .execute(&mut *conn)
    .await?;
    Ok(r.rows_affected() > 0)
}
