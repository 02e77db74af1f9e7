//! Outgoing mail. Every mail is written to the `outbox` table (the log only says that it was
//! queued: bodies carry reset and invitation links); when `SMTP_URL` is set it is also sent by
//! SMTP in the background, the outcome recorded on the outbox row and, once delivered, the body
//! removed from it. Admins read the outbox with the links' tokens masked ([`mask_secrets`]).

use std::sync::Arc;

use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::db::{self, Db};

/// The mail sender.
#[derive(Clone)]
pub struct Mailer {
    smtp: Option<Arc<AsyncSmtpTransport<Tokio1Executor>>>,
    from: Option<Mailbox>,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("smtp", &self.smtp.is_some())
            .finish()
    }
}

impl Mailer {
    /// Builds the sender from the configuration.
    pub fn new(smtp_url: Option<&str>, from: &str) -> anyhow::Result<Mailer> {
        let smtp = match smtp_url {
            Some(url) if !url.trim().is_empty() => Some(Arc::new(
                AsyncSmtpTransport::<Tokio1Executor>::from_url(url)?.build(),
            )),
            _ => None,
        };
        let from = if smtp.is_some() {
            Some(from.parse()?)
        } else {
            None
        };
        Ok(Mailer { smtp, from })
    }

    /// Queues a mail in the outbox (and sends it when SMTP is configured). Returns the outbox id.
    pub async fn send(&self, db: &Db, to: &str, subject: &str, body: &str) -> sqlx::Result<String> {
        let id = db::misc::outbox_insert(&db.pool, to, subject, body).await?;
        // The body carries reset and invitation links: it never goes to the log.
        tracing::info!(to, subject, outbox_id = %id, "mail queued");
        if let (Some(smtp), Some(from)) = (self.smtp.clone(), self.from.clone()) {
            let db = db.clone();
            let (to, subject, body, id2) = (
                to.to_string(),
                subject.to_string(),
                body.to_string(),
                id.clone(),
            );
            tokio::spawn(async move {
                let outcome = deliver(&smtp, from, &to, &subject, &body).await;
                record(&db, &id2, outcome.err()).await;
            });
        }
        Ok(id)
    }

    /// Queues a mail in the outbox and, with SMTP, delivers it before answering (within 15 s):
    /// `Err` when it could not be delivered, the outcome recorded on the outbox row either way.
    /// Without SMTP the outbox is the delivery. For mail whose failure changes what happens next
    /// (an invitation: a temporary password is shown instead).
    pub async fn send_now(
        &self,
        db: &Db,
        to: &str,
        subject: &str,
        body: &str,
    ) -> anyhow::Result<String> {
        let id = db::misc::outbox_insert(&db.pool, to, subject, body).await?;
        tracing::info!(to, subject, outbox_id = %id, "mail queued");
        let (Some(smtp), Some(from)) = (self.smtp.clone(), self.from.clone()) else {
            return Ok(id);
        };
        let outcome = tokio::time::timeout(
            std::time::Duration::from_secs(15),
            deliver(&smtp, from, to, subject, body),
        )
        .await
        .unwrap_or_else(|_| Err(anyhow::anyhow!("SMTP delivery timed out")));
        let err = outcome.as_ref().err().map(|e| anyhow::anyhow!("{e}"));
        record(db, &id, err).await;
        outcome.map(|()| id)
    }
}

/// Sends one mail by SMTP.
async fn deliver(
    smtp: &AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    to: &str,
    subject: &str,
    body: &str,
) -> anyhow::Result<()> {
    let msg = Message::builder()
        .from(from)
        .to(to.parse()?)
        .subject(subject)
        .body(body.to_string())?;
    smtp.send(msg).await?;
    Ok(())
}

/// Records a delivery's outcome on its outbox row (the body removed once delivered).
async fn record(db: &Db, id: &str, err: Option<anyhow::Error>) {
    let err = err.map(|e| e.to_string());
    if let Some(e) = &err {
        tracing::warn!(outbox_id = %id, error = %e, "SMTP delivery failed");
    }
    if let Err(e) = db::misc::outbox_mark(&db.pool, id, err.as_deref()).await {
        tracing::warn!(error = %e, "could not record mail outcome");
    }
}

/// The outbox body as admins may read it: every run of 20 or more token characters
/// (`A-Z a-z 0-9 - _`, the alphabet of reset and invitation tokens) replaced by `[hidden]`, so that
/// reading the outbox never lets an admin take over somebody's account.
pub fn mask_secrets(body: &str) -> String {
    const MIN: usize = 20;
    let is_token = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut out = String::with_capacity(body.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.len() >= MIN {
            out.push_str("[hidden]");
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in body.chars() {
        if is_token(c) {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::mask_secrets;

    #[test]
    fn tokens_are_masked_and_words_kept() {
        let token = crate::auth::tokens::random_token();
        let body = format!(
            "Hello Ana-María,\n\nhttps://capopt.example/reset-password?token={token}\nhttps://x.example/signup/{token}\n"
        );
        assert_eq!(
            mask_secrets(&body),
            "Hello Ana-María,\n\nhttps://capopt.example/reset-password?token=[hidden]\nhttps://x.example/signup/[hidden]\n"
        );
    }
}
