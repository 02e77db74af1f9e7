//! File validations (migration 0011): an approver's decision on a processed file's result, and
//! the client's count of pending ones (`clients.pending_validations`), which every function here
//! that moves a validation into or out of `pending` adjusts in the same statement sequence by the
//! rows it changed.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A validation with its file's and lever's names and the decider's name.
#[derive(Debug, Clone, FromRow)]
pub struct ValidationRow {
    /// Id.
    pub id: String,
    /// The client.
    pub client_id: String,
    /// The file.
    pub file_id: String,
    /// The run whose result it validates.
    pub run_id: String,
    /// `pending`, `approved`, `rejected` or `superseded`.
    pub status: String,
    /// The lever of the result.
    pub lever_id: Option<String>,
    /// Its name.
    pub lever_name: Option<String>,
    /// Its category.
    pub lever_category: Option<String>,
    /// RWA savings of the result.
    pub savings_rwas: f64,
    /// Its bps.
    pub savings_bps: f64,
    /// When it was decided.
    pub validated_at: Option<String>,
    /// Who decided.
    pub validated_by: Option<String>,
    /// The decider's name (name and last name, else email).
    pub validated_by_name: Option<String>,
    /// Why it was rejected.
    pub rejection_reason: Option<String>,
    /// The newer validation that superseded it.
    pub superseded_by: Option<String>,
    /// Created (the result landed).
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
    /// The file's name.
    pub file_name: String,
    /// The file's type.
    pub file_type: String,
    /// The file's size.
    pub file_size: i64,
    /// When the file was uploaded.
    pub uploaded_at: String,
    /// The file's processing status now.
    pub file_status: String,
}

const COLS: &str = "v.id, v.client_id, v.file_id, v.run_id, v.status, v.lever_id, l.lever_name, l.lever_category, v.savings_rwas, v.savings_bps, v.validated_at, v.validated_by, CASE WHEN u.id IS NULL THEN NULL WHEN trim(u.name || ' ' || u.last_name) = '' THEN u.email ELSE trim(u.name || ' ' || u.last_name) END AS validated_by_name, v.rejection_reason, v.superseded_by, v.created_at, v.updated_at, f.name AS file_name, f.file_type, f.size_bytes AS file_size, f.uploaded_at, f.processing_status AS file_status";

const FROM: &str = " FROM file_validations v JOIN client_files f ON f.id = v.file_id LEFT JOIN levers l ON l.id = v.lever_id LEFT JOIN users u ON u.id = v.validated_by";

/// Which validations a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// Pending ones.
    Pending,
    /// Every other one (decided or superseded).
    History,
}

/// The filters of a client's validation list (`None`: any).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// One status.
    pub status: Option<String>,
    /// Created on or after (stored form).
    pub from: Option<String>,
    /// Created before (stored form).
    pub to_exclusive: Option<String>,
    /// RWA savings at least.
    pub min_rwas: Option<f64>,
    /// RWA savings at most.
    pub max_rwas: Option<f64>,
    /// Bps at least.
    pub min_bps: Option<f64>,
    /// Bps at most.
    pub max_bps: Option<f64>,
}

enum Bind {
    Text(String),
    Num(f64),
}

fn where_clause(client_id: &str, tab: Tab, f: &Filter, binds: &mut Vec<Bind>) -> String {
    binds.push(Bind::Text(client_id.to_string()));
    let mut sql = String::from(" WHERE v.client_id = $1");
    sql.push_str(match tab {
        Tab::Pending => " AND v.status = 'pending'",
        Tab::History => " AND v.status <> 'pending'",
    });
    let mut bind = |sql: &mut String, fragment: &str, value: Bind| {
        binds.push(value);
        sql.push_str(&fragment.replace("$?", &format!("${}", binds.len())));
    };
    if let Some(s) = &f.status {
        bind(&mut sql, " AND v.status = $?", Bind::Text(s.clone()));
    }
    if let Some(from) = &f.from {
        bind(
            &mut sql,
            " AND v.created_at >= $?",
            Bind::Text(from.clone()),
        );
    }
    if let Some(to) = &f.to_exclusive {
        bind(&mut sql, " AND v.created_at < $?", Bind::Text(to.clone()));
    }
    if let Some(x) = f.min_rwas {
        bind(&mut sql, " AND v.savings_rwas >= $?", Bind::Num(x));
    }
    if let Some(x) = f.max_rwas {
        bind(&mut sql, " AND v.savings_rwas <= $?", Bind::Num(x));
    }
    if let Some(x) = f.min_bps {
        bind(&mut sql, " AND v.savings_bps >= $?", Bind::Num(x));
    }
    if let Some(x) = f.max_bps {
        bind(&mut sql, " AND v.savings_bps <= $?", Bind::Num(x));
    }
    sql
}

/// One page of a client's validations, newest first.
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    tab: Tab,
    f: &Filter,
    limit: i64,
    offset: i64,
) -> sqlx::Result<Vec<ValidationRow>> {
    let mut binds = Vec::new();
    let w = where_clause(client_id, tab, f, &mut binds);
    let n = binds.len();
    let sql = format!(
        "SELECT {COLS}{FROM}{w} ORDER BY v.created_at DESC, v.id DESC LIMIT ${} OFFSET ${}",
        n + 1,
        n + 2
    );
    let mut q = sqlx::query_as::<_, ValidationRow>(sqlx::AssertSqlSafe(sql));
    for b in binds {
        q = match b {
            Bind::Text(s) => q.bind(s),
            Bind::Num(x) => q.bind(x),
        };
    }
    q.bind(limit).bind(offset).fetch_all(ex).await
}

/// How many validations of a client a list's filters match.
#[tracing::instrument(skip(ex), err)]
pub async fn count<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    tab: Tab,
    f: &Filter,
) -> sqlx::Result<i64> {
    let mut binds = Vec::new();
    let w = where_clause(client_id, tab, f, &mut binds);
    let sql = format!("SELECT COUNT(*){FROM}{w}");
    let mut q = sqlx::query_as::<_, (i64,)>(sqlx::AssertSqlSafe(sql));
    for b in binds {
        q = match b {
            Bind::Text(s) => q.bind(s),
            Bind::Num(x) => q.bind(x),
        };
    }
    Ok(q.fetch_one(ex).await?.0)
}

/// One validation.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<ValidationRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS}{FROM} WHERE v.id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// A client's stored count of pending validations (`None`: no such client).
#[tracing::instrument(skip(ex), err)]
pub async fn pending_count<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Option<i64>> {
    let row: Option<(i64,)> =
        sqlx::query_as("SELECT pending_validations FROM clients WHERE id = $1")
            .bind(client_id)
            .fetch_optional(ex)
            .await?;
    Ok(row.map(|r| r.0))
}

/// Adds `delta` to a client's count of pending validations (the rows a statement moved into or
/// out of `pending`); returns the new count.
async fn adjust(conn: &mut AnyConnection, client_id: &str, delta: i64) -> sqlx::Result<i64> {
    let (n,): (i64,) = sqlx::query_as(
        "UPDATE clients SET pending_validations = pending_validations + $2 WHERE id = $1 RETURNING pending_validations",
    )
    .bind(client_id)
    .bind(delta)
    .fetch_one(conn)
    .await?;
    Ok(n)
}

/// A landed result to validate.
#[derive(Debug)]
pub struct NewValidation<'a> {
    /// Id.
    pub id: &'a str,
    /// The client.
    pub client_id: &'a str,
    /// The file.
    pub file_id: &'a str,
    /// The run.
    pub run_id: &'a str,
    /// The result's lever.
    pub lever_id: Option<&'a str>,
    /// Its RWA savings.
    pub savings_rwas: f64,
    /// Its bps.
    pub savings_bps: f64,
    /// Now.
    pub now: &'a str,
}

/// What opening a validation did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Opened {
    /// Whether the new pending validation was written (false: the run had one already).
    pub created: bool,
    /// The earlier pending validations of the file it superseded.
    pub superseded: Vec<String>,
    /// The client's pending count afterwards.
    pub pending: i64,
}

/// Whether a run has its validation already.
#[tracing::instrument(skip(ex), err)]
pub async fn exists_for_run<'e>(ex: impl AnyExecutor<'e>, run_id: &str) -> sqlx::Result<bool> {
    let row: Option<(i64,)> = sqlx::query_as("SELECT 1 FROM file_validations WHERE run_id = $1")
        .bind(run_id)
        .fetch_optional(ex)
        .await?;
    Ok(row.is_some())
}

/// Whether a file has a pending validation.
#[tracing::instrument(skip(ex), err)]
pub async fn file_has_pending<'e>(ex: impl AnyExecutor<'e>, file_id: &str) -> sqlx::Result<bool> {
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT 1 FROM file_validations WHERE file_id = $1 AND status = 'pending' LIMIT 1",
    )
    .bind(file_id)
    .fetch_optional(ex)
    .await?;
    Ok(row.is_some())
}

/// Opens the pending validation of a landed result: the file's earlier pending validations
/// become `superseded` (pointing at the new one), the new one is written once per run, and the
/// client's count moves by the difference. In the caller's transaction (the completion's).
#[tracing::instrument(skip(conn), err)]
pub async fn open(conn: &mut AnyConnection, v: &NewValidation<'_>) -> sqlx::Result<Opened> {
    let exists: Option<(String,)> =
        sqlx::query_as("SELECT id FROM file_validations WHERE run_id = $1")
            .bind(v.run_id)
            .fetch_optional(&mut *conn)
            .await?;
    if exists.is_some() {
        let pending = pending_count(&mut *conn, v.client_id).await?.unwrap_or(0);
        return Ok(Opened {
            created: false,
            superseded: Vec::new(),
            pending,
        });
    }
    let superseded: Vec<(String,)> = sqlx::query_as(
        "UPDATE file_validations SET status = 'superseded', superseded_by = $2, updated_at = $3
         WHERE file_id = $1 AND status = 'pending' RETURNING id",
    )
    .bind(v.file_id)
    .bind(v.id)
    .bind(v.now)
    .fetch_all(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT INTO file_validations (id, client_id, file_id, run_id, status, lever_id, savings_rwas, savings_bps, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $8)",
    )
    .bind(v.id)
    .bind(v.client_id)
    .bind(v.file_id)
    .bind(v.run_id)
    .bind(v.lever_id)
    .bind(v.savings_rwas)
    .bind(v.savings_bps)
    .bind(v.now)
    .execute(&mut *conn)
    .await?;
    let pending = adjust(conn, v.client_id, 1 - superseded.len() as i64).await?;
    Ok(Opened {
        created: true,
        superseded: superseded.into_iter().map(|r| r.0).collect(),
        pending,
    })
}

/// A decision to write.
#[derive(Debug)]
pub struct Decision<'a> {
    /// The validation.
    pub id: &'a str,
    /// Its client (for the count).
    pub client_id: &'a str,
    /// The status it must have now (the guard).
    pub from: &'a str,
    /// The new status.
    pub to: &'a str,
    /// Who decides (`None` when going back to pending).
    pub by: Option<&'a str>,
    /// The rejection reason (rejected only).
    pub reason: Option<&'a str>,
    /// Now.
    pub now: &'a str,
}

/// Moves a validation from `from` to `to` with ONE guarded statement (`WHERE status = from`), so
/// of two concurrent decisions only one changes the row; adjusts the client's count when the
/// move leaves or enters `pending`. Returns the new pending count, or `None` when the row was not
/// in `from` any more (nothing written).
#[tracing::instrument(skip(conn), err)]
pub async fn transition(conn: &mut AnyConnection, d: &Decision<'_>) -> sqlx::Result<Option<i64>> {
    let decided = d.to != "pending";
    let r = sqlx::query(
        "UPDATE file_validations SET status = $3, validated_at = $4, validated_by = $5,
                rejection_reason = $6, updated_at = $7
         WHERE id = $1 AND status = $2",
    )
    .bind(d.id)
    .bind(d.from)
    .bind(d.to)
    .bind(if decided { Some(d.now) } else { None })
    .bind(if decided { d.by } else { None })
    .bind(d.reason)
    .bind(d.now)
    .execute(&mut *conn)
    .await?;
    if r.rows_affected() == 0 {
        return Ok(None);
    }
    let delta = match (d.from == "pending", d.to == "pending") {
        (true, false) => -1,
        (false, true) => 1,
        _ => 0,
    };
    let n = if delta == 0 {
        pending_count(&mut *conn, d.client_id).await?.unwrap_or(0)
    } else {
        adjust(conn, d.client_id, delta).await?
    };
    Ok(Some(n))
}

/// Whether a newer validation of the same file exists (only a file's latest validation may
/// change status).
#[tracing::instrument(skip(ex), err)]
pub async fn has_newer<'e>(
    ex: impl AnyExecutor<'e>,
    file_id: &str,
    created_at: &str,
    id: &str,
) -> sqlx::Result<bool> {
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT 1 FROM file_validations WHERE file_id = $1 AND (created_at > $2 OR (created_at = $2 AND id > $3)) LIMIT 1",
    )
    .bind(file_id)
    .bind(created_at)
    .bind(id)
    .fetch_optional(ex)
    .await?;
    Ok(row.is_some())
}

/// Removes a file's pending validations before the file itself is deleted (the rest go with it
/// by cascade) and lowers the client's count by the rows removed; returns that number.
#[tracing::instrument(skip(conn), err)]
pub async fn remove_pending_of_file(
    conn: &mut AnyConnection,
    client_id: &str,
    file_id: &str,
) -> sqlx::Result<u64> {
    let r = sqlx::query("DELETE FROM file_validations WHERE file_id = $1 AND status = 'pending'")
        .bind(file_id)
        .execute(&mut *conn)
        .await?;
    let n = r.rows_affected();
    if n > 0 {
        adjust(conn, client_id, -(n as i64)).await?;
    }
    Ok(n)
}

/// A run's mode, stored result (JSON) and end.
pub type StoredResult = (String, Option<String>, Option<String>);

/// The run's stored result (JSON) and mode, for the analysis text.
#[tracing::instrument(skip(ex), err)]
pub async fn run_result<'e>(
    ex: impl AnyExecutor<'e>,
    run_id: &str,
) -> sqlx::Result<Option<StoredResult>> {
    sqlx::query_as("SELECT mode, result, finished_at FROM processing_runs WHERE id = $1")
        .bind(run_id)
        .fetch_optional(ex)
        .await
}
