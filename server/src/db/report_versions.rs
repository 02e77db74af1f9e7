//! Named versions of a report's document (`report_versions`): the whole state at a moment, who
//! took it and why. SQL only; the rules are in `crate::service::report_versions`.

use sqlx::{AnyExecutor, FromRow};

/// A version as listed (without its state).
#[derive(Debug, Clone, FromRow)]
pub struct VersionRow {
    /// Id.
    pub id: String,
    /// Report.
    pub report_id: String,
    /// Name.
    pub name: String,
    /// `manual`, `before_restore` or `before_import`.
    pub kind: String,
    /// Size of the stored state in bytes.
    pub size_bytes: i64,
    /// Sections of the report at that moment.
    pub section_count: i64,
    /// Who took it (`None` once that user is deleted).
    pub created_by: Option<String>,
    /// That user's display name.
    pub created_by_name: Option<String>,
    /// When (RFC 3339).
    pub created_at: String,
}

const COLUMNS: &str = "v.id, v.report_id, v.name, v.kind, v.size_bytes, v.section_count, v.created_by,
        TRIM(COALESCE(u.name, '') || ' ' || COALESCE(u.last_name, '')) AS created_by_name, v.created_at";
const FROM: &str = "FROM report_versions v LEFT JOIN users u ON u.id = v.created_by";

/// A new version.
#[derive(Debug)]
pub struct NewVersion<'a> {
    /// Id.
    pub id: &'a str,
    /// Report.
    pub report_id: &'a str,
    /// Name.
    pub name: &'a str,
    /// `manual`, `before_restore` or `before_import`.
    pub kind: &'a str,
    /// The document's whole state (v1 update).
    pub state: &'a [u8],
    /// Its number of sections.
    pub section_count: i64,
    /// Who takes it.
    pub created_by: &'a str,
    /// When.
    pub created_at: &'a str,
}

/// Inserts a version.
#[tracing::instrument(skip(ex, v), fields(id = v.id, report_id = v.report_id), err)]
pub async fn insert<'e>(ex: impl AnyExecutor<'e>, v: &NewVersion<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO report_versions (id, report_id, name, kind, state, size_bytes, section_count,
            created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(v.id)
    .bind(v.report_id)
    .bind(v.name)
    .bind(v.kind)
    .bind(v.state)
    .bind(i64::try_from(v.state.len()).unwrap_or(i64::MAX))
    .bind(v.section_count)
    .bind(v.created_by)
    .bind(v.created_at)
    .execute(ex)
    .await?;
    Ok(())
}

/// The versions of a report, newest first.
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(ex: impl AnyExecutor<'e>, report_id: &str) -> sqlx::Result<Vec<VersionRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} {FROM} WHERE v.report_id = $1 ORDER BY v.created_at DESC, v.id DESC"
    )))
    .bind(report_id)
    .fetch_all(ex)
    .await
}

/// One version of a report with its state.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(
    ex: impl AnyExecutor<'e>,
    report_id: &str,
    id: &str,
) -> sqlx::Result<Option<(VersionRow, Vec<u8>)>> {
    #[derive(FromRow)]
    struct Full {
        #[sqlx(flatten)]
        row: VersionRow,
        state: Vec<u8>,
    }
    let full: Option<Full> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS}, v.state {FROM} WHERE v.report_id = $1 AND v.id = $2"
    )))
    .bind(report_id)
    .bind(id)
    .fetch_optional(ex)
    .await?;
    Ok(full.map(|f| (f.row, f.state)))
}

/// Number of versions of a report.
#[tracing::instrument(skip(ex), err)]
pub async fn count<'e>(ex: impl AnyExecutor<'e>, report_id: &str) -> sqlx::Result<i64> {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM report_versions WHERE report_id = $1")
        .bind(report_id)
        .fetch_one(ex)
        .await?;
    Ok(n)
}

/// Deletes a version of a report; false when there was none.
#[tracing::instrument(skip(ex), err)]
pub async fn delete<'e>(ex: impl AnyExecutor<'e>, report_id: &str, id: &str) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM report_versions WHERE report_id = $1 AND id = $2")
        .bind(report_id)
        .bind(id)
        .execute(ex)
        .await?;
    Ok(r.rows_affected() == 1)
}
