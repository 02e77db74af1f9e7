//! Waitlist, mail outbox, audit events and changelog.

use sqlx::{AnyExecutor, FromRow};

/// Adds an address to the waitlist. Returns false when it is already there.
pub async fn waitlist_add<'e>(
    ex: impl AnyExecutor<'e>,
    email: &str,
    name: Option<&str>,
    source: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "INSERT INTO waitlist (id, email, name, source, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO NOTHING",
    )
    .bind(super::new_id())
    .bind(email)
    .bind(name)
    .bind(source)
    .bind(super::now())
    .execute(ex)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// A mail of the outbox.
#[derive(Debug, Clone, FromRow)]
pub struct OutboxRow {
    /// Id.
    pub id: String,
    /// Recipient.
    pub to_addr: String,
    /// Subject.
    pub subject: String,
    /// Plain-text body (empty once delivered by SMTP; tokens masked for admins).
    pub body: String,
    /// When it was queued.
    pub created_at: String,
    /// When SMTP accepted it (never without SMTP).
    pub sent_at: Option<String>,
    /// Last SMTP error.
    pub error: Option<String>,
}

/// Queues a mail; returns its id.
pub async fn outbox_insert<'e>(
    ex: impl AnyExecutor<'e>,
    to: &str,
    subject: &str,
    body: &str,
) -> sqlx::Result<String> {
    let id = super::new_id();
    sqlx::query(
        "INSERT INTO outbox (id, to_addr, subject, body, created_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(&id)
    .bind(to)
    .bind(subject)
    .bind(body)
    .bind(super::now())
    .execute(ex)
    .await?;
    Ok(id)
}

/// Records the SMTP outcome of a mail; a delivered mail keeps no body (its links are secrets).
pub async fn outbox_mark<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    error: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE outbox SET sent_at = CASE WHEN $1 IS NULL THEN $2 ELSE sent_at END, body = CASE WHEN $1 IS NULL THEN '' ELSE body END, error = $1 WHERE id = $3")
        .bind(error)
        .bind(super::now())
        .bind(id)
        .execute(ex)
        .await?;
    Ok(())
}

/// The latest mails, newest first.
pub async fn outbox_latest<'e>(
    ex: impl AnyExecutor<'e>,
    limit: i64,
) -> sqlx::Result<Vec<OutboxRow>> {
    sqlx::query_as("SELECT id, to_addr, subject, body, created_at, sent_at, error FROM outbox ORDER BY created_at DESC LIMIT $1")
        .bind(limit)
        .fetch_all(ex)
        .await
}

/// An audit event to record.
#[derive(Debug)]
pub struct AuditEvent<'a> {
    /// e.g. `login`, `login_failed`, `role_changed`, `invitation_created`.
    pub event_type: &'a str,
    /// e.g. `user`, `invitation`.
    pub entity_type: &'a str,
    /// The entity.
    pub entity_id: Option<&'a str>,
    /// Who did it.
    pub actor_id: Option<&'a str>,
    /// JSON details.
    pub details: serde_json::Value,
    /// info, warning or critical.
    pub severity: &'a str,
    /// Client address.
    pub ip: Option<&'a str>,
}

/// Writes an audit event.
pub async fn audit_insert<'e>(ex: impl AnyExecutor<'e>, e: &AuditEvent<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO audit_events (id, event_type, entity_type, entity_id, actor_id, details, severity, ip, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(super::new_id())
    .bind(e.event_type)
    .bind(e.entity_type)
    .bind(e.entity_id)
    .bind(e.actor_id)
    .bind(e.details.to_string())
    .bind(e.severity)
    .bind(e.ip)
    .bind(super::now())
    .execute(ex)
    .await?;
    Ok(())
}

/// Count of audit events of a type (tests and admin views).
pub async fn audit_count<'e>(ex: impl AnyExecutor<'e>, event_type: &str) -> sqlx::Result<i64> {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM audit_events WHERE event_type = $1")
        .bind(event_type)
        .fetch_one(ex)
        .await?;
    Ok(n)
}
