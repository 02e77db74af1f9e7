//! Reports, report folders and monthly draft counts. A report's content lives in the collaborative
//! document with the same id (see `crate::collab_store`); this module keeps its metadata.

use sqlx::{AnyExecutor, FromRow};

/// Drafts a user may create per company and month.
pub const MONTHLY_DRAFT_LIMIT: i64 = 100;

/// A report row with what the list needs from its document head.
#[derive(Debug, Clone, FromRow)]
pub struct ReportRow {
    /// Id (also the id of its collaborative document).
    pub id: String,
    /// Owning client (company).
    pub client_id: String,
    /// Folder, if filed in one.
    pub folder_id: Option<String>,
    /// Name.
    pub name: String,
    /// `draft` or `published`.
    pub status: String,
    /// Template it was created from, if any.
    pub template_id: Option<String>,
    /// Creator.
    pub created_by: Option<String>,
    /// Last user who saved its metadata.
    pub last_edited_by: Option<String>,
    /// Display name of that user.
    pub last_edited_by_name: Option<String>,
    /// Last explicit save of the metadata.
    pub last_saved_at: Option<String>,
    /// Cached number of sections of the document.
    pub section_count: i64,
    /// Log sequence the cached count was computed at.
    pub section_count_seq: i64,
    /// Creation time.
    pub created_at: String,
    /// Last metadata change.
    pub updated_at: String,
    /// Last sequence number of the document's log (0 when it has no document).
    pub doc_seq: i64,
    /// Last content change (append) of the document, if it has one.
    pub doc_updated_at: Option<String>,
}

impl ReportRow {
    /// The later of the metadata and the content change times.
    pub fn last_change(&self) -> &str {
        match &self.doc_updated_at {
            Some(d) if d.as_str() > self.updated_at.as_str() => d,
            _ => &self.updated_at,
        }
    }
}

const SELECT_REPORT: &str = "SELECT r.id, r.client_id, r.folder_id, r.name, r.status, r.template_id, r.created_by,
        r.last_edited_by, TRIM(COALESCE(u.name, '') || ' ' || COALESCE(u.last_name, '')) AS last_edited_by_name,
        r.last_saved_at, r.section_count, r.section_count_seq, r.created_at, r.updated_at,
        COALESCE(h.last_seq, 0) AS doc_seq, h.updated_at AS doc_updated_at
    FROM reports r
    LEFT JOIN users u ON u.id = r.last_edited_by
    LEFT JOIN doc_heads h ON h.doc_id = r.id";

/// The reports of a client, most recently changed first.
pub async fn list<'e>(ex: impl AnyExecutor<'e>, client_id: &str) -> sqlx::Result<Vec<ReportRow>> {
    let mut rows: Vec<ReportRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_REPORT} WHERE r.client_id = $1"
    )))
    .bind(client_id)
    .fetch_all(ex)
    .await?;
    rows.sort_by(|a, b| {
        b.last_change()
            .cmp(a.last_change())
            .then_with(|| a.name.cmp(&b.name))
    });
    Ok(rows)
}

/// One report by id.
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<ReportRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_REPORT} WHERE r.id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// The owning client of a report, if it exists.
pub async fn client_of<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<String>> {
    let row: Option<(String,)> = sqlx::query_as("SELECT client_id FROM reports WHERE id = $1")
        .bind(id)
        .fetch_optional(ex)
        .await?;
    Ok(row.map(|r| r.0))
}

/// Fields of a new report.
#[derive(Debug)]
pub struct NewReport<'a> {
    /// Id chosen by the caller (it is also the document id).
    pub id: &'a str,
    /// Owning client.
    pub client_id: &'a str,
    /// Folder.
    pub folder_id: Option<&'a str>,
    /// Name (trimmed, non-empty).
    pub name: &'a str,
    /// Template.
    pub template_id: Option<&'a str>,
    /// Creator.
    pub created_by: &'a str,
    /// Number of sections of the initial content.
    pub section_count: i64,
}

/// Inserts a draft report. Its initial document is created in the same transaction by the caller.
pub async fn insert<'e>(ex: impl AnyExecutor<'e>, r: &NewReport<'_>) -> sqlx::Result<()> {
    let now = super::now();
    sqlx::query(
        "INSERT INTO reports (id, client_id, folder_id, name, status, template_id, created_by, last_edited_by, last_saved_at,
                              section_count, section_count_seq, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'draft', $5, $6, $6, $7, $8, 1, $7, $7)",
    )
    .bind(r.id)
    .bind(r.client_id)
    .bind(r.folder_id)
    .bind(r.name)
    .bind(r.template_id)
    .bind(r.created_by)
    .bind(&now)
    .bind(r.section_count)
    .execute(ex)
    .await?;
    Ok(())
}

/// A change of a report's metadata; `None` fields are left as they are.
#[derive(Debug, Default)]
pub struct ReportChange<'a> {
    /// New name.
    pub name: Option<&'a str>,
    /// New status.
    pub status: Option<&'a str>,
    /// New folder (`Some(None)` moves the report out of any folder).
    pub folder_id: Option<Option<&'a str>>,
}

/// Applies a metadata change, recording who saved it and when. Returns whether the report exists.
pub async fn update<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    change: &ReportChange<'_>,
    user_id: &str,
) -> sqlx::Result<bool> {
    let now = super::now();
    let (set_folder, folder) = match change.folder_id {
        Some(f) => (1i64, f),
        None => (0i64, None),
    };
    let res = sqlx::query(
        "UPDATE reports SET
            name = COALESCE($2, name),
            status = COALESCE($3, status),
            folder_id = CASE WHEN $4 = 1 THEN $5 ELSE folder_id END,
            last_edited_by = $6, last_saved_at = $7, updated_at = $7
         WHERE id = $1",
    )
    .bind(id)
    .bind(change.name)
    .bind(change.status)
    .bind(set_folder)
    .bind(folder)
    .bind(user_id)
    .bind(&now)
    .execute(ex)
    .await?;
    Ok(res.rows_affected() > 0)
}

/// Deletes a report row. Returns whether it existed.
pub async fn delete<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<bool> {
    Ok(sqlx::query("DELETE FROM reports WHERE id = $1")
        .bind(id)
        .execute(ex)
        .await?
        .rows_affected()
        > 0)
}

/// Stores the section count of a report's document as of log sequence `seq` (never moving the
/// cache back to an older sequence).
pub async fn set_section_count<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    count: i64,
    seq: i64,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE reports SET section_count = $2, section_count_seq = $3 WHERE id = $1 AND section_count_seq <= $3")
        .bind(id)
        .bind(count)
        .bind(seq)
        .execute(ex)
        .await?;
    Ok(())
}

/// The month key of the draft counter (`YYYY-MM`, UTC).
pub fn month_key(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m").to_string()
}

/// Counts one more draft for the user, company and month, unless the limit is reached. Returns the
/// new count, or `None` when the limit was already reached (nothing changed). Atomic: two
/// concurrent creations can never both take the last slot.
pub async fn take_draft_slot<'e>(
    ex: impl AnyExecutor<'e>,
    user_id: &str,
    client_id: &str,
    month: &str,
    limit: i64,
) -> sqlx::Result<Option<i64>> {
    let row: Option<(i64,)> = sqlx::query_as(
        "INSERT INTO report_draft_counts (user_id, client_id, month_year, draft_count) VALUES ($1, $2, $3, 1)
         ON CONFLICT (user_id, client_id, month_year)
         DO UPDATE SET draft_count = report_draft_counts.draft_count + 1 WHERE report_draft_counts.draft_count < $4
         RETURNING draft_count",
    )
    .bind(user_id)
    .bind(client_id)
    .bind(month)
    .bind(limit)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|r| r.0))
}

/// Drafts created by the user for the company in the month.
pub async fn draft_count<'e>(
    ex: impl AnyExecutor<'e>,
    user_id: &str,
    client_id: &str,
    month: &str,
) -> sqlx::Result<i64> {
    let row: Option<(i64,)> = sqlx::query_as("SELECT draft_count FROM report_draft_counts WHERE user_id = $1 AND client_id = $2 AND month_year = $3")
        .bind(user_id)
        .bind(client_id)
        .bind(month)
        .fetch_optional(ex)
        .await?;
    Ok(row.map_or(0, |r| r.0))
}

/// A report folder.
#[derive(Debug, Clone, FromRow)]
pub struct FolderRow {
    /// Id.
    pub id: String,
    /// Owning client.
    pub client_id: String,
    /// Parent folder.
    pub parent_folder_id: Option<String>,
    /// Name.
    pub name: String,
    /// Creator.
    pub created_by: Option<String>,
    /// Creation time.
    pub created_at: String,
}

/// The folders of a client by name.
pub async fn list_folders<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Vec<FolderRow>> {
    sqlx::query_as(
        "SELECT id, client_id, parent_folder_id, name, created_by, created_at FROM report_folders WHERE client_id = $1 ORDER BY lower(name), created_at",
    )
    .bind(client_id)
    .fetch_all(ex)
    .await
}

/// One folder by id.
pub async fn get_folder<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<FolderRow>> {
    sqlx::query_as("SELECT id, client_id, parent_folder_id, name, created_by, created_at FROM report_folders WHERE id = $1")
        .bind(id)
        .fetch_optional(ex)
        .await
}

/// Inserts a folder and returns it.
pub async fn insert_folder<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    parent: Option<&str>,
    name: &str,
    created_by: &str,
) -> sqlx::Result<FolderRow> {
    let id = super::new_id();
    let now = super::now();
    sqlx::query_as(
        "INSERT INTO report_folders (id, client_id, parent_folder_id, name, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6)
         RETURNING id, client_id, parent_folder_id, name, created_by, created_at",
    )
    .bind(&id)
    .bind(client_id)
    .bind(parent)
    .bind(name)
    .bind(created_by)
    .bind(&now)
    .fetch_one(ex)
    .await
}

/// Deletes a folder (its sub-folders go with it; its reports move out of any folder). Returns
/// whether it existed.
pub async fn delete_folder<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<bool> {
    Ok(sqlx::query("DELETE FROM report_folders WHERE id = $1")
        .bind(id)
        .execute(ex)
        .await?
        .rows_affected()
        > 0)
}
