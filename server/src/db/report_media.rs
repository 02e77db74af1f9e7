//! A report's data and media (`report_media`, migration 0024): uploaded spreadsheets, CSV files
//! and images, their stored objects and, for tables, their measured shape.

use sqlx::{AnyExecutor, FromRow};

/// One media item of a report.
#[derive(Debug, Clone, FromRow)]
pub struct MediaRow {
    /// Id.
    pub id: String,
    /// The report.
    pub report_id: String,
    /// The report's client.
    pub client_id: String,
    /// The user's file name (sanitised).
    pub name: String,
    /// `excel`, `csv` or `image`.
    pub kind: String,
    /// `xlsx`, `xls`, `csv`, `png`, `jpg`, `gif` or `webp`.
    pub file_type: String,
    /// The content type it is served with.
    pub content_type: String,
    /// Size in bytes.
    pub size_bytes: i64,
    /// The stored object.
    pub object_key: String,
    /// The sheet read (spreadsheets).
    pub sheet: Option<String>,
    /// Column names, a JSON array (tables).
    pub headers: Option<String>,
    /// Data rows (tables).
    pub row_count: i64,
    /// Columns (tables).
    pub column_count: i64,
    /// Who uploaded it.
    pub uploaded_by: Option<String>,
    /// That user's display name.
    pub uploaded_by_name: Option<String>,
    /// Upload time.
    pub created_at: String,
}

const SELECT: &str = "SELECT m.id, m.report_id, m.client_id, m.name, m.kind, m.file_type, m.content_type,
        m.size_bytes, m.object_key, m.sheet, m.headers, m.row_count, m.column_count, m.uploaded_by,
        TRIM(COALESCE(u.name, '') || ' ' || COALESCE(u.last_name, '')) AS uploaded_by_name, m.created_at
    FROM report_media m LEFT JOIN users u ON u.id = m.uploaded_by";

/// The media of a report, oldest first.
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(ex: impl AnyExecutor<'e>, report_id: &str) -> sqlx::Result<Vec<MediaRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE m.report_id = $1 ORDER BY m.created_at, m.id"
    )))
    .bind(report_id)
    .fetch_all(ex)
    .await
}

/// One media item of a report (`None` when the report has no such item).
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(
    ex: impl AnyExecutor<'e>,
    report_id: &str,
    media_id: &str,
) -> sqlx::Result<Option<MediaRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE m.report_id = $1 AND m.id = $2"
    )))
    .bind(report_id)
    .bind(media_id)
    .fetch_optional(ex)
    .await
}

/// A new media item.
#[derive(Debug)]
pub struct NewMedia<'a> {
    /// Id.
    pub id: &'a str,
    /// The report.
    pub report_id: &'a str,
    /// Its client.
    pub client_id: &'a str,
    /// File name (sanitised).
    pub name: &'a str,
    /// `excel`, `csv` or `image`.
    pub kind: &'a str,
    /// File type.
    pub file_type: &'a str,
    /// Content type.
    pub content_type: &'a str,
    /// Size in bytes.
    pub size_bytes: i64,
    /// The stored object.
    pub object_key: &'a str,
    /// Sheet read.
    pub sheet: Option<&'a str>,
    /// Column names as a JSON array.
    pub headers: Option<&'a str>,
    /// Data rows.
    pub row_count: i64,
    /// Columns.
    pub column_count: i64,
    /// Uploader.
    pub uploaded_by: &'a str,
    /// Upload time.
    pub created_at: &'a str,
}

/// Inserts a media item.
#[tracing::instrument(skip(ex), err)]
pub async fn insert<'e>(ex: impl AnyExecutor<'e>, m: &NewMedia<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO report_media (id, report_id, client_id, name, kind, file_type, content_type, size_bytes,
                                   object_key, sheet, headers, row_count, column_count, uploaded_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
    )
    .bind(m.id)
    .bind(m.report_id)
    .bind(m.client_id)
    .bind(m.name)
    .bind(m.kind)
    .bind(m.file_type)
    .bind(m.content_type)
    .bind(m.size_bytes)
    .bind(m.object_key)
    .bind(m.sheet)
    .bind(m.headers)
    .bind(m.row_count)
    .bind(m.column_count)
    .bind(m.uploaded_by)
    .bind(m.created_at)
    .execute(ex)
    .await?;
    Ok(())
}

/// Deletes a media item of a report; returns its object key when it existed.
#[tracing::instrument(skip(ex), err)]
pub async fn delete<'e>(
    ex: impl AnyExecutor<'e>,
    report_id: &str,
    media_id: &str,
) -> sqlx::Result<Option<String>> {
    let row: Option<(String,)> = sqlx::query_as(
        "DELETE FROM report_media WHERE report_id = $1 AND id = $2 RETURNING object_key",
    )
    .bind(report_id)
    .bind(media_id)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|r| r.0))
}

/// The object keys of a report's media (to remove them with the report).
#[tracing::instrument(skip(ex), err)]
pub async fn keys_of_report<'e>(
    ex: impl AnyExecutor<'e>,
    report_id: &str,
) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> =
        sqlx::query_as("SELECT object_key FROM report_media WHERE report_id = $1")
            .bind(report_id)
            .fetch_all(ex)
            .await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// Of `keys`, those a media row names (the orphan sweeper).
#[tracing::instrument(skip(ex, keys), err)]
pub async fn referenced_keys<'e>(
    ex: impl AnyExecutor<'e>,
    keys: &[String],
) -> sqlx::Result<Vec<String>> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let marks: Vec<String> = (1..=keys.len()).map(|i| format!("${i}")).collect();
    let sql = format!(
        "SELECT object_key FROM report_media WHERE object_key IN ({})",
        marks.join(", ")
    );
    let mut query = sqlx::query_as::<_, (String,)>(sqlx::AssertSqlSafe(sql));
    for k in keys {
        query = query.bind(k.clone());
    }
    Ok(query
        .fetch_all(ex)
        .await?
        .into_iter()
        .map(|(k,)| k)
        .collect())
}
