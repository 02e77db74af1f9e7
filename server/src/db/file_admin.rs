//! The administrators' file list across clients (filters, sort and page done in SQL over the
//! indexes of migration 0008), the lever and savings writes of File Management, and the files'
//! edit history (`file_edit_history`).

use sqlx::{AnyConnection, AnyExecutor, FromRow};

use super::Backend;
use super::files::{FileRow, like_pattern};

/// A file with its client's name.
#[derive(Debug, Clone, FromRow)]
pub struct AdminFileRow {
    /// The file.
    #[sqlx(flatten)]
    pub file: FileRow,
    /// The client's name.
    pub client_name: String,
}

/// The filters of the administrators' list; every one optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AdminFilter {
    /// Part of the file name, any case.
    pub q: Option<String>,
    /// One client.
    pub client_id: Option<String>,
    /// The lever's category.
    pub category: Option<String>,
    /// One lever (its id), or files without a lever (`None` inside).
    pub lever: Option<Option<String>>,
    /// Processed or not.
    pub processed: Option<bool>,
    /// Uploaded at or after (stored time format).
    pub from: Option<String>,
    /// Uploaded before (stored time format, exclusive).
    pub to_exclusive: Option<String>,
}

/// What the list is sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// Upload time (the default, newest first).
    UploadedAt,
    /// File name, any case.
    Name,
    /// Client name.
    Client,
    /// RWA savings.
    SavingsRwas,
    /// Savings in bps.
    SavingsBps,
    /// Processed or not.
    Status,
}

/// One page of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Sort key.
    pub sort: SortKey,
    /// Descending.
    pub desc: bool,
    /// Rows per page.
    pub limit: i64,
    /// Rows skipped.
    pub offset: i64,
}

/// The `WHERE` of a filter over `client_files f` (fixed fragments only; every value is bound,
/// numbered from `$1` in the order of `binds`).
fn where_clause(
    f: &AdminFilter,
    backend: Backend,
    sort: Option<SortKey>,
    binds: &mut Vec<String>,
) -> String {
    // SQLite: a filter on a column the sort's index also holds is checked in that index (the
    // unary `+` keeps the planner from reading the filter's own index and then fetching every
    // row to sort it), unless the filter's index is itself in the sort's order. A client's
    // files are few: its index serves any sort. Counting (no sort) may use any index.
    let indexable = |used_by: &[SortKey]| {
        backend == Backend::Postgres || sort.is_none_or(|s| used_by.contains(&s))
    };
    let col = |name: &str, used_by: &[SortKey]| {
        if indexable(used_by) {
            name.to_string()
        } else {
            format!("+{name}")
        }
    };
    let processed = col("f.processed", &[SortKey::UploadedAt, SortKey::Status]);
    let lever = col("f.lever_id", &[SortKey::UploadedAt]);
    let uploaded = col("f.uploaded_at", &[SortKey::UploadedAt]);
    let mut sql = String::from(" WHERE 1 = 1");
    let mut bind = |sql: &mut String, fragment: &str, value: String| {
        binds.push(value);
        sql.push_str(&fragment.replace("$?", &format!("${}", binds.len())));
    };
    if let Some(q) = f.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
        // Any case: the pattern lower-cased by the database's own `lower()` against the copy of
        // the name that the same function lower-cased when it was written, which the sort
        // indexes hold (migration 0018); a plain `LIKE` on both back-ends.
        bind(
            &mut sql,
            " AND f.name_lower LIKE lower($?) ESCAPE '\\'",
            like_pattern(q),
        );
    }
    if let Some(c) = &f.client_id {
        bind(&mut sql, " AND f.client_id = $?", c.clone());
    }
    if let Some(cat) = &f.category {
        // On SQLite the unary `+` keeps a category's few levers from being read as ranges of the
        // lever index (then sorted): the sort's own index holds the lever.
        let frag = match backend {
            Backend::Sqlite => {
                " AND +f.lever_id IN (SELECT id FROM levers WHERE lever_category = $?)"
            }
            Backend::Postgres => {
                " AND f.lever_id IN (SELECT id FROM levers WHERE lever_category = $?)"
            }
        };
        bind(&mut sql, frag, cat.clone());
    }
    match &f.lever {
        Some(Some(l)) => bind(&mut sql, &format!(" AND {lever} = $?"), l.clone()),
        Some(None) => sql.push_str(&format!(" AND {lever} IS NULL")),
        None => {}
    }
    match f.processed {
        Some(true) => sql.push_str(&format!(" AND {processed} = 1")),
        Some(false) => sql.push_str(&format!(" AND {processed} = 0")),
        None => {}
    }
    if let Some(from) = &f.from {
        bind(&mut sql, &format!(" AND {uploaded} >= $?"), from.clone());
    }
    if let Some(to) = &f.to_exclusive {
        bind(&mut sql, &format!(" AND {uploaded} < $?"), to.clone());
    }
    sql
}

/// The `ORDER BY` of a page: every key in one direction (ties broken by the id), so that the
/// page is read in the order of the sort's index (migration 0008).
fn order_by(p: &Page) -> String {
    let d = if p.desc { "DESC" } else { "ASC" };
    match p.sort {
        SortKey::UploadedAt => format!("f.uploaded_at {d}, f.id {d}"),
        SortKey::Name => format!("f.name_lower {d}, f.id {d}"),
        SortKey::Client => format!("c.name {d}, c.id {d}, f.uploaded_at {d}, f.id {d}"),
        SortKey::SavingsRwas => format!("f.savings_rwas {d}, f.id {d}"),
        SortKey::SavingsBps => format!("f.savings_bps {d}, f.id {d}"),
        SortKey::Status => format!("f.processed {d}, f.uploaded_at {d}, f.id {d}"),
    }
}

const COLS: &str = "f.id, f.client_id, f.name, f.file_type, f.content_type, f.size_bytes, f.uploaded_at, f.uploaded_by, f.lever_id, l.lever_name, l.lever_category, f.processed, f.savings_rwas, f.savings_bps, f.processing_status, f.processing_error, f.object_key, f.processed_object_key, c.name AS client_name";

/// How many files match a filter.
#[tracing::instrument(skip(ex), err)]
pub async fn count<'e>(
    ex: impl AnyExecutor<'e>,
    backend: Backend,
    filter: &AdminFilter,
) -> sqlx::Result<i64> {
    let mut binds = Vec::new();
    let sql = format!(
        "SELECT COUNT(*) FROM client_files f{}",
        where_clause(filter, backend, None, &mut binds)
    );
    let mut query = sqlx::query_as::<_, (i64,)>(sqlx::AssertSqlSafe(sql));
    for b in binds {
        query = query.bind(b);
    }
    Ok(query.fetch_one(ex).await?.0)
}

/// The ids of one page of the files matching a filter, read in the sort's order from its index,
/// which holds every filtered column (no row is fetched to be checked).
#[tracing::instrument(skip(ex), err)]
pub async fn page_ids<'e>(
    ex: impl AnyExecutor<'e>,
    backend: Backend,
    filter: &AdminFilter,
    page: &Page,
) -> sqlx::Result<Vec<String>> {
    let mut binds = Vec::new();
    let wh = where_clause(filter, backend, Some(page.sort), &mut binds);
    let n = binds.len();
    let join = match page.sort {
        SortKey::Client => " JOIN clients c ON c.id = f.client_id",
        _ => "",
    };
    let sql = format!(
        "SELECT f.id FROM client_files f{join}{wh} ORDER BY {} LIMIT ${} OFFSET ${}",
        order_by(page),
        n + 1,
        n + 2
    );
    let mut query = sqlx::query_as::<_, (String,)>(sqlx::AssertSqlSafe(sql));
    for b in binds {
        query = query.bind(b);
    }
    Ok(query
        .bind(page.limit)
        .bind(page.offset)
        .fetch_all(ex)
        .await?
        .into_iter()
        .map(|r| r.0)
        .collect())
}

/// Files by id with their clients' names and levers (in no particular order).
#[tracing::instrument(skip(ex, ids), err)]
pub async fn by_ids<'e>(
    ex: impl AnyExecutor<'e>,
    ids: &[String],
) -> sqlx::Result<Vec<AdminFileRow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks: Vec<String> = (1..=ids.len()).map(|i| format!("${i}")).collect();
    let sql = format!(
        "SELECT {COLS} FROM client_files f JOIN clients c ON c.id = f.client_id
         LEFT JOIN levers l ON l.id = f.lever_id WHERE f.id IN ({})",
        marks.join(", ")
    );
    let mut query = sqlx::query_as::<_, AdminFileRow>(sqlx::AssertSqlSafe(sql));
    for id in ids {
        query = query.bind(id.clone());
    }
    query.fetch_all(ex).await
}

/// One file with its client's name.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<AdminFileRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM client_files f JOIN clients c ON c.id = f.client_id
         LEFT JOIN levers l ON l.id = f.lever_id WHERE f.id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// Sets a file's lever and queues it for processing: not processed (its savings stop counting
/// until the run completes), status `queued`, no error.
#[tracing::instrument(skip(conn), err)]
pub async fn set_lever_queued(
    conn: &mut AnyConnection,
    id: &str,
    lever_id: &str,
) -> sqlx::Result<bool> {
    let n = sqlx::query(
        "UPDATE client_files SET lever_id = $2, processed = 0, processing_status = 'queued',
            processing_error = NULL
         WHERE id = $1",
    )
    .bind(id)
    .bind(lever_id)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Sets a file's RWA savings.
#[tracing::instrument(skip(conn), err)]
pub async fn set_savings_rwas(conn: &mut AnyConnection, id: &str, v: f64) -> sqlx::Result<()> {
    sqlx::query("UPDATE client_files SET savings_rwas = $2 WHERE id = $1")
        .bind(id)
        .bind(v)
        .execute(conn)
        .await?;
    Ok(())
}

/// Sets a file's savings in bps.
#[tracing::instrument(skip(conn), err)]
pub async fn set_savings_bps(conn: &mut AnyConnection, id: &str, v: f64) -> sqlx::Result<()> {
    sqlx::query("UPDATE client_files SET savings_bps = $2 WHERE id = $1")
        .bind(id)
        .bind(v)
        .execute(conn)
        .await?;
    Ok(())
}

/// Renames a file (the display name; the stored object keeps its key).
#[tracing::instrument(skip(conn), err)]
pub async fn set_name(conn: &mut AnyConnection, id: &str, name: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE client_files SET name = $2, name_lower = lower($2) WHERE id = $1")
        .bind(id)
        .bind(name)
        .execute(conn)
        .await?;
    Ok(())
}

/// The runs of a file still queued or running, oldest first: `(id, state)`.
#[tracing::instrument(skip(ex), err)]
pub async fn open_runs<'e>(
    ex: impl AnyExecutor<'e>,
    file_id: &str,
) -> sqlx::Result<Vec<(String, String)>> {
    sqlx::query_as(
        "SELECT id, state FROM processing_runs
         WHERE file_id = $1 AND state IN ('queued', 'running') ORDER BY created_at",
    )
    .bind(file_id)
    .fetch_all(ex)
    .await
}

/// The columns of `super::runs::RunRow`, in its order.
const RUN_COLS: &str = "r.id, r.client_id, r.file_id, r.user_id, r.mode, r.lever_id, r.options, \
    r.state, r.stage, r.rows_read, r.rows_total, r.rows_done, r.rows_matched, r.seq, r.attempts, \
    r.max_attempts, r.owner, r.lease_until, r.cancel_requested, r.error, r.result, r.created_at, \
    r.started_at, r.finished_at, r.heartbeat_at";

/// The latest run of each of `file_ids` (for a page of the list).
#[tracing::instrument(skip(ex, file_ids), err)]
pub async fn latest_runs<'e>(
    ex: impl AnyExecutor<'e>,
    file_ids: &[String],
) -> sqlx::Result<Vec<super::runs::RunRow>> {
    if file_ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks: Vec<String> = (1..=file_ids.len()).map(|i| format!("${i}")).collect();
    let sql = format!(
        "SELECT {RUN_COLS} FROM processing_runs r WHERE r.file_id IN ({}) AND r.id = (
            SELECT r2.id FROM processing_runs r2 WHERE r2.file_id = r.file_id
            ORDER BY r2.created_at DESC, r2.id DESC LIMIT 1)",
        marks.join(", ")
    );
    let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
    for id in file_ids {
        query = query.bind(id.clone());
    }
    query.fetch_all(ex).await
}

/// A change of one field of a file, for its history.
#[derive(Debug)]
pub struct NewEdit<'a> {
    /// The file.
    pub file_id: &'a str,
    /// Who changed it.
    pub edited_by: Option<&'a str>,
    /// `lever`, `savings_rwas`, `savings_bps`, `processed` or `name`.
    pub field: &'a str,
    /// The value before, as text (`None`: empty).
    pub previous: Option<&'a str>,
    /// The value after.
    pub new: Option<&'a str>,
    /// When.
    pub now: &'a str,
}

/// Records a change of a file (in the change's transaction).
#[tracing::instrument(skip(conn), err)]
pub async fn insert_edit(conn: &mut AnyConnection, e: &NewEdit<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO file_edit_history (id, file_id, edited_at, edited_by, field_name, previous_value, new_value)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(super::new_id())
    .bind(e.file_id)
    .bind(e.now)
    .bind(e.edited_by)
    .bind(e.field)
    .bind(e.previous)
    .bind(e.new)
    .execute(conn)
    .await?;
    Ok(())
}

/// A recorded change with its editor's name.
#[derive(Debug, Clone, FromRow)]
pub struct EditRow {
    /// Id.
    pub id: String,
    /// When.
    pub edited_at: String,
    /// Who (`None` when unknown or deleted).
    pub edited_by: Option<String>,
    /// The editor's first name.
    pub editor_name: Option<String>,
    /// The editor's last name.
    pub editor_last_name: Option<String>,
    /// The editor's avatar.
    pub editor_avatar: Option<String>,
    /// The field.
    pub field_name: String,
    /// Before.
    pub previous_value: Option<String>,
    /// After.
    pub new_value: Option<String>,
}

/// A file's history, newest first.
#[tracing::instrument(skip(ex), err)]
pub async fn history<'e>(ex: impl AnyExecutor<'e>, file_id: &str) -> sqlx::Result<Vec<EditRow>> {
    sqlx::query_as(
        "SELECT h.id, h.edited_at, h.edited_by, u.name AS editor_name,
            u.last_name AS editor_last_name, u.avatar AS editor_avatar, h.field_name,
            h.previous_value, h.new_value
         FROM file_edit_history h LEFT JOIN users u ON u.id = h.edited_by
         WHERE h.file_id = $1 ORDER BY h.edited_at DESC, h.id DESC",
    )
    .bind(file_id)
    .fetch_all(ex)
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_is_bound_in_order() {
        let mut binds = Vec::new();
        let f = AdminFilter {
            q: Some(" 50%_off ".into()),
            client_id: Some("c".into()),
            category: Some("Assets".into()),
            lever: Some(Some("l".into())),
            processed: Some(false),
            from: Some("2026-01-01T00:00:00.000000Z".into()),
            to_exclusive: Some("2026-02-01T00:00:00.000000Z".into()),
        };
        let sql = where_clause(&f, Backend::Postgres, None, &mut binds);
        assert_eq!(
            binds,
            [
                "%50\\%\\_off%",
                "c",
                "Assets",
                "l",
                "2026-01-01T00:00:00.000000Z",
                "2026-02-01T00:00:00.000000Z"
            ]
        );
        for i in 1..=6 {
            assert!(sql.contains(&format!("${i}")), "{sql}");
        }
        assert!(sql.contains("f.processed = 0"));
        assert!(!sql.contains("50"), "values are bound, not written: {sql}");
    }

    #[test]
    fn sqlite_checks_a_filter_in_the_sort_index_unless_its_own_index_is_in_order() {
        let f = AdminFilter {
            processed: Some(true),
            lever: Some(Some("l".into())),
            from: Some("2026-01-01T00:00:00.000000Z".into()),
            category: Some("Assets".into()),
            ..AdminFilter::default()
        };
        let sql = |backend, sort| where_clause(&f, backend, sort, &mut Vec::new());
        let by_rwas = sql(Backend::Sqlite, Some(SortKey::SavingsRwas));
        assert!(by_rwas.contains("+f.processed = 1"), "{by_rwas}");
        assert!(by_rwas.contains("+f.lever_id = $"), "{by_rwas}");
        assert!(by_rwas.contains("+f.uploaded_at >= $"), "{by_rwas}");
        let by_date = sql(Backend::Sqlite, Some(SortKey::UploadedAt));
        assert!(by_date.contains(" f.processed = 1") && by_date.contains(" f.lever_id = $"));
        assert!(
            by_date.contains("+f.lever_id IN"),
            "a category never: {by_date}"
        );
        let by_status = sql(Backend::Sqlite, Some(SortKey::Status));
        assert!(by_status.contains(" f.processed = 1") && by_status.contains("+f.lever_id = $"));
        for (backend, sort) in [
            (Backend::Sqlite, None),
            (Backend::Postgres, Some(SortKey::Name)),
        ] {
            let s = sql(backend, sort);
            assert!(
                !s.contains("+f.processed") && !s.contains("+f.uploaded_at"),
                "{s}"
            );
        }
    }
}
