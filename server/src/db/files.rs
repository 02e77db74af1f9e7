//! Client files: the stored uploads, their objects and where their processing stands.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A client file with its lever's name and category.
#[derive(Debug, Clone, FromRow)]
pub struct FileRow {
    /// Id.
    pub id: String,
    /// The client.
    pub client_id: String,
    /// The user's file name, sanitised.
    pub name: String,
    /// `csv`, `txt`, `xlsx`, `xls`, `ods` or `pdf`.
    pub file_type: String,
    /// The content type the file is served with.
    pub content_type: String,
    /// Size in bytes.
    pub size_bytes: i64,
    /// Upload time.
    pub uploaded_at: String,
    /// Who uploaded it.
    pub uploaded_by: Option<String>,
    /// The lever, once known.
    pub lever_id: Option<String>,
    /// The lever's name.
    pub lever_name: Option<String>,
    /// The lever's category.
    pub lever_category: Option<String>,
    /// 1 once processed.
    pub processed: i64,
    /// RWA savings of the processed file.
    pub savings_rwas: f64,
    /// Savings in bps of CET1 ratio.
    pub savings_bps: f64,
    /// `uploaded`, `queued`, `processing`, `processed`, `pending_review` or `failed`.
    pub processing_status: String,
    /// The message of a failed run.
    pub processing_error: Option<String>,
    /// Key of the original in object storage.
    pub object_key: Option<String>,
    /// Key of the processed output in object storage.
    pub processed_object_key: Option<String>,
}

const COLS: &str = "f.id, f.client_id, f.name, f.file_type, f.content_type, f.size_bytes, f.uploaded_at, f.uploaded_by, f.lever_id, l.lever_name, l.lever_category, f.processed, f.savings_rwas, f.savings_bps, f.processing_status, f.processing_error, f.object_key, f.processed_object_key";

/// A file to record.
#[derive(Debug)]
pub struct NewFile<'a> {
    /// Id.
    pub id: &'a str,
    /// The client.
    pub client_id: &'a str,
    /// The sanitised user's file name.
    pub name: &'a str,
    /// The file type.
    pub file_type: &'a str,
    /// The content type.
    pub content_type: &'a str,
    /// Size in bytes.
    pub size_bytes: i64,
    /// Who uploaded it.
    pub uploaded_by: &'a str,
    /// The lever chosen at upload.
    pub lever_id: Option<&'a str>,
    /// The object's key.
    pub object_key: &'a str,
    /// The initial status (`uploaded` or `queued`).
    pub processing_status: &'a str,
    /// Upload time.
    pub now: &'a str,
}

/// Records a stored file.
#[tracing::instrument(skip(conn), err)]
pub async fn insert(conn: &mut AnyConnection, f: &NewFile<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO client_files (id, client_id, name, name_lower, original_name, file_path, file_type, content_type, size_bytes, uploaded_by, uploaded_at, lever_id, processed, object_key, processing_status)
         VALUES ($1, $2, $3, lower($3), $3, $4, $5, $6, $7, $8, $9, $10, 0, $4, $11)",
    )
    .bind(f.id)
    .bind(f.client_id)
    .bind(f.name)
    .bind(f.object_key)
    .bind(f.file_type)
    .bind(f.content_type)
    .bind(f.size_bytes)
    .bind(f.uploaded_by)
    .bind(f.now)
    .bind(f.lever_id)
    .bind(f.processing_status)
    .execute(conn)
    .await?;
    Ok(())
}

/// Sets a file's processing status and error.
#[tracing::instrument(skip(conn), err)]
pub async fn set_status(
    conn: &mut AnyConnection,
    id: &str,
    status: &str,
    error: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE client_files SET processing_status = $2, processing_error = $3 WHERE id = $1",
    )
    .bind(id)
    .bind(status)
    .bind(error)
    .execute(conn)
    .await?;
    Ok(())
}

/// One file.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<FileRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM client_files f LEFT JOIN levers l ON l.id = f.lever_id WHERE f.id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// Which lever a list is filtered on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeverFilter {
    /// Files without a lever.
    None,
    /// Files with this lever (its id or its code).
    Is(String),
}

/// The filters of a file list; every one optional.
#[derive(Debug, Clone, Default)]
pub struct FileFilter {
    /// Part of the name, any case.
    pub q: Option<String>,
    /// The lever.
    pub lever: Option<LeverFilter>,
    /// The file type (`csv`, `xlsx`, ...).
    pub file_type: Option<String>,
    /// Processed or not.
    pub processed: Option<bool>,
    /// Uploaded at or after (stored time format).
    pub from: Option<String>,
    /// Uploaded before (stored time format, exclusive).
    pub to_exclusive: Option<String>,
}

/// A "contains" pattern for `name_lower LIKE lower($n) ESCAPE '\'` (migration 0018): `%`, `_` and
/// `\` escaped; the database lower-cases it with the same `lower()` that wrote `name_lower`.
pub(crate) fn like_pattern(q: &str) -> String {
    let mut out = String::with_capacity(q.len() + 2);
    out.push('%');
    for c in q.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// A client's files, newest first, filtered in SQL.
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    filter: &FileFilter,
) -> sqlx::Result<Vec<FileRow>> {
    // Only fixed fragments go into the text; every value is bound.
    let mut sql = format!(
        "SELECT {COLS} FROM client_files f LEFT JOIN levers l ON l.id = f.lever_id WHERE f.client_id = $1"
    );
    let mut text_binds: Vec<String> = Vec::new();
    let mut n = 1;
    let mut next = |sql: &mut String, fragment: &str| {
        n += 1;
        sql.push_str(&fragment.replace("$?", &format!("${n}")));
    };
    if let Some(q) = filter.q.as_deref().filter(|q| !q.trim().is_empty()) {
        next(&mut sql, " AND f.name_lower LIKE lower($?) ESCAPE '\\'");
        text_binds.push(like_pattern(q.trim()));
    }
    match &filter.lever {
        Some(LeverFilter::None) => sql.push_str(" AND f.lever_id IS NULL"),
        Some(LeverFilter::Is(lever)) => {
            next(&mut sql, " AND (f.lever_id = $? OR l.code = $?)");
            text_binds.push(lever.clone());
        }
        None => {}
    }
    if let Some(t) = &filter.file_type {
        next(&mut sql, " AND f.file_type = $?");
        text_binds.push(t.clone());
    }
    if let Some(p) = filter.processed {
        sql.push_str(if p {
            " AND f.processed = 1"
        } else {
            " AND f.processed = 0"
        });
    }
    if let Some(from) = &filter.from {
        next(&mut sql, " AND f.uploaded_at >= $?");
        text_binds.push(from.clone());
    }
    if let Some(to) = &filter.to_exclusive {
        next(&mut sql, " AND f.uploaded_at < $?");
        text_binds.push(to.clone());
    }
    sql.push_str(" ORDER BY f.uploaded_at DESC, f.id DESC");
    let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(client_id.to_owned());
    for b in text_binds {
        query = query.bind(b);
    }
    query.fetch_all(ex).await
}

/// Removes a file's row (its runs go with it: `processing_runs.file_id` cascades).
#[tracing::instrument(skip(conn), err)]
pub async fn delete(conn: &mut AnyConnection, id: &str) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM client_files WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// The keys among `keys` that a file row names (as original or processed output).
#[tracing::instrument(skip(ex, keys), err)]
pub async fn referenced_keys<'e>(
    ex: impl AnyExecutor<'e>,
    keys: &[String],
) -> sqlx::Result<Vec<String>> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    // Placeholders only ($1..$n); the keys are bound.
    let marks: Vec<String> = (1..=keys.len()).map(|i| format!("${i}")).collect();
    let marks = marks.join(", ");
    let sql = format!(
        "SELECT object_key FROM client_files WHERE object_key IN ({marks})
         UNION SELECT processed_object_key FROM client_files WHERE processed_object_key IN ({marks})"
    );
    let mut query = sqlx::query_as::<_, (Option<String>,)>(sqlx::AssertSqlSafe(sql));
    for k in keys {
        query = query.bind(k.clone());
    }
    Ok(query
        .fetch_all(ex)
        .await?
        .into_iter()
        .filter_map(|(k,)| k)
        .collect())
}
