//! Regulatory rules (migration 0027): the rules saved from the knowledge base's lever extraction,
//! versioned per lever and rule name.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A stored rule with its lever's name.
#[derive(Debug, Clone, FromRow)]
pub struct RuleRow {
    /// Id.
    pub id: String,
    /// The lever.
    pub lever_id: String,
    /// Its name.
    pub lever_name: String,
    /// Assets, CRMT or CET1 Deductions.
    pub lever_category: String,
    /// condition, calculation or classification.
    pub rule_type: String,
    /// Name.
    pub rule_name: String,
    /// Description.
    pub rule_description: String,
    /// JSON object.
    pub conditions: String,
    /// JSON object.
    pub actions: String,
    /// At least 1.
    pub priority: i64,
    /// 1 when in force.
    pub is_active: i64,
    /// 1, 2, ...
    pub version: i64,
    /// Article, paragraph, table.
    pub article_reference: String,
    /// 0 to 1.
    pub confidence_score: f64,
    /// JSON list of the lever's variables.
    pub variables: String,
    /// The document it was extracted from, while it exists.
    pub source_document_id: Option<String>,
    /// That document's name.
    pub source_document_name: Option<String>,
    /// `builtin` or `openai`.
    pub engine: String,
    /// Who saved it (name and last name), while the user exists.
    pub created_by_name: Option<String>,
    /// When.
    pub created_at: String,
}

/// What a new rule version is written with.
#[derive(Debug)]
pub struct RuleWrite<'a> {
    /// The lever.
    pub lever_id: &'a str,
    /// Its category.
    pub lever_category: &'a str,
    /// Type.
    pub rule_type: &'a str,
    /// Name.
    pub rule_name: &'a str,
    /// Description.
    pub rule_description: &'a str,
    /// JSON.
    pub conditions: &'a str,
    /// JSON.
    pub actions: &'a str,
    /// Priority.
    pub priority: i64,
    /// 0 or 1.
    pub is_active: i64,
    /// Version.
    pub version: i64,
    /// Reference.
    pub article_reference: &'a str,
    /// Confidence.
    pub confidence_score: f64,
    /// JSON.
    pub variables: &'a str,
    /// Source document.
    pub source_document_id: Option<&'a str>,
    /// Its name.
    pub source_document_name: Option<&'a str>,
    /// Engine.
    pub engine: &'a str,
    /// Saved by.
    pub created_by: &'a str,
    /// When.
    pub now: &'a str,
}

const COLUMNS: &str = "SELECT r.id, r.lever_id, l.lever_name, r.lever_category, r.rule_type, r.rule_name, \
    r.rule_description, r.conditions, r.actions, r.priority, r.is_active, r.version, r.article_reference, \
    r.confidence_score, r.variables, r.source_document_id, r.source_document_name, r.engine, \
    CASE WHEN u.id IS NULL THEN NULL ELSE TRIM(u.name || ' ' || u.last_name) END AS created_by_name, \
    r.created_at FROM regulatory_rules r JOIN levers l ON l.id = r.lever_id \
    LEFT JOIN users u ON u.id = r.created_by";

/// The rules, priority descending then newest first (spec 002), at most `limit`; only those in
/// force unless `all`.
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(
    ex: impl AnyExecutor<'e>,
    all: bool,
    limit: i64,
) -> sqlx::Result<Vec<RuleRow>> {
    let filter = if all { "" } else { "WHERE r.is_active = 1" };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{COLUMNS} {filter} ORDER BY r.priority DESC, r.created_at DESC, r.id LIMIT $1"
    )))
    .bind(limit)
    .fetch_all(ex)
    .await
}

/// Rules in force.
#[tracing::instrument(skip(ex), err)]
pub async fn count_active<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT COUNT(*) FROM regulatory_rules WHERE is_active = 1")
        .fetch_one(ex)
        .await
}

/// The highest version of a lever's rule of that name (0: none).
#[tracing::instrument(skip(conn), err)]
pub async fn latest_version(
    conn: &mut AnyConnection,
    lever_id: &str,
    rule_name: &str,
) -> sqlx::Result<i64> {
    let v: Option<i64> = sqlx::query_scalar(
        "SELECT MAX(version) FROM regulatory_rules WHERE lever_id = $1 AND rule_name = $2",
    )
    .bind(lever_id)
    .bind(rule_name)
    .fetch_one(conn)
    .await?;
    Ok(v.unwrap_or(0))
}

/// Takes the earlier versions of a lever's rule out of force.
#[tracing::instrument(skip(conn), err)]
pub async fn deactivate(
    conn: &mut AnyConnection,
    lever_id: &str,
    rule_name: &str,
    now: &str,
) -> sqlx::Result<u64> {
    let done = sqlx::query(
        "UPDATE regulatory_rules SET is_active = 0, updated_at = $3 \
         WHERE lever_id = $1 AND rule_name = $2 AND is_active = 1",
    )
    .bind(lever_id)
    .bind(rule_name)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected())
}

/// Writes a rule version.
#[tracing::instrument(skip(conn, w), err)]
pub async fn insert(conn: &mut AnyConnection, id: &str, w: &RuleWrite<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO regulatory_rules (id, lever_id, lever_category, rule_type, rule_name, \
         rule_description, conditions, actions, priority, is_active, version, article_reference, \
         confidence_score, variables, source_document_id, source_document_name, engine, created_by, \
         created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19)",
    )
    .bind(id)
    .bind(w.lever_id)
    .bind(w.lever_category)
    .bind(w.rule_type)
    .bind(w.rule_name)
    .bind(w.rule_description)
    .bind(w.conditions)
    .bind(w.actions)
    .bind(w.priority)
    .bind(w.is_active)
    .bind(w.version)
    .bind(w.article_reference)
    .bind(w.confidence_score)
    .bind(w.variables)
    .bind(w.source_document_id)
    .bind(w.source_document_name)
    .bind(w.engine)
    .bind(w.created_by)
    .bind(w.now)
    .execute(conn)
    .await?;
    Ok(())
}
