//! The service layer: the product's rules, whoever calls them (a request handler today, a job
//! tomorrow). Validation, the access decision on rows, one transaction per change, the topic's
//! sequence number, the audit record and the event published after commit all happen here; HTTP
//! does not (`api/` maps requests to these functions and their results to responses) and SQL does
//! not either (`db/`).
//!
//! Every change goes through [`Change`]: begin, take the topic's next sequence number (which also
//! serialises the writers of that topic), write, then [`Change::commit`] with the event and the
//! audit record. The audit record is written in the same transaction and the event is published
//! only after the commit succeeded, so no area can announce a change that did not happen, or make
//! one without its audit trail.

pub mod admin_clients;
pub mod admin_users;
pub mod auth;
pub mod board;
pub mod calculator;
pub mod classification;
pub mod clients;
pub mod dashboard;
pub mod files;
pub mod insights;
pub mod invitations;
pub mod justifications;
pub mod knowledge;
pub mod knowledge_rules;
pub mod lever_dictionary;
pub mod levers;
pub mod mappings;
pub mod pdf;
pub mod profile;
pub mod qa;
pub mod report_assistant;
pub mod report_media;
pub mod report_templates;
pub mod report_versions;
pub mod reports;
pub mod runs;
pub mod savings;
pub mod support;
pub mod template_import;
pub mod users;
pub mod validations;
pub mod waitlist;

use sqlx::AnyConnection;

use crate::access::{self, Need, Rights};
use crate::auth::AuthUser;
use crate::db::misc::{self as audit_db, AuditEvent};
use crate::error::{ApiError, ApiResult};
use crate::ids::ClientId;
use crate::realtime::{self, Event, Topic};
use crate::state::AppState;

/// Checks that the database answers (the health probe).
pub async fn health(state: &AppState) -> ApiResult<()> {
    Ok(state.db.ping().await?)
}

/// Who asks for a change, and from where.
#[derive(Debug, Clone)]
pub struct Actor {
    /// The signed-in caller.
    pub user: AuthUser,
    /// Their address (for the audit trail).
    pub ip: String,
}

/// A caller working on one client's data, with what they may do with it.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The caller.
    pub actor: Actor,
    /// The client.
    pub client_id: ClientId,
    /// The client's name.
    pub client_name: String,
    /// The caller's rights on it.
    pub rights: Rights,
}

impl Scope {
    /// The caller.
    pub fn user(&self) -> &AuthUser {
        &self.actor.user
    }
}

/// Resolves the client a request works on (the one it names, else the caller's first client) and
/// checks that the caller may do `need` with it ([`access::require`]). The one way a client is
/// chosen for every area.
pub async fn scope(
    state: &AppState,
    actor: Actor,
    requested: Option<&str>,
    need: Need,
) -> ApiResult<Scope> {
    let client_id = access::target_client(&actor.user, requested)?;
    scope_of(state, actor, &client_id, need).await
}

/// The same for a client known from a row (a report's, a folder's).
pub async fn scope_of(
    state: &AppState,
    actor: Actor,
    client_id: &str,
    need: Need,
) -> ApiResult<Scope> {
    let rights = access::require(&actor.user, client_id, need)?;
    let client_name = match actor.user.clients.iter().find(|m| m.client_id == client_id) {
        Some(m) => m.client_name.clone(),
        // Admins reach clients they are not members of: the client must exist.
        None => crate::db::clients::exists(&state.db.pool, client_id)
            .await?
            .ok_or_else(|| ApiError::not_found("Client not found"))?,
    };
    Ok(Scope {
        actor,
        client_id: client_id.into(),
        client_name,
        rights,
    })
}

/// The audit record of a change, written in its transaction.
#[derive(Debug)]
pub struct Audit<'a> {
    /// e.g. `task_created`.
    pub event_type: &'a str,
    /// e.g. `task`.
    pub entity_type: &'a str,
    /// The entity.
    pub entity_id: &'a str,
    /// JSON details.
    pub details: serde_json::Value,
    /// `info`, `warning` or `critical`.
    pub severity: &'static str,
}

/// Who a change's audit record names: the signed-in caller, or nobody yet (a sign-up), and the
/// address the request came from.
#[derive(Debug, Clone, Copy)]
pub struct AuditActor<'a> {
    /// The user, if known.
    pub user_id: Option<&'a str>,
    /// The client address.
    pub ip: &'a str,
}

impl Actor {
    /// This caller as an audit record names them.
    pub fn audited(&self) -> AuditActor<'_> {
        AuditActor {
            user_id: Some(&self.user.id),
            ip: &self.ip,
        }
    }
}

/// One change of the product's data (see the module docs).
pub struct Change<'s> {
    state: &'s AppState,
    tx: sqlx::Transaction<'static, sqlx::Any>,
    /// The topic and the event's sequence number, for changes that screens watch.
    topic: Option<(Topic, i64)>,
    /// Further events of the change, on other topics, published after the commit.
    extra: Vec<(Topic, i64, Event)>,
}

impl<'s> Change<'s> {
    /// Opens the transaction of a change to `topic`'s data and takes the topic's next sequence
    /// number first, so that concurrent changes of the topic run one after the other.
    pub async fn begin(state: &'s AppState, topic: Topic) -> ApiResult<Change<'s>> {
        let mut tx = state.db.begin_write().await?;
        let seq = realtime::next_seq(&mut tx, &topic).await?;
        Ok(Change {
            state,
            tx,
            topic: Some((topic, seq)),
            extra: Vec::new(),
        })
    }

    /// Opens the transaction of a change no screen watches live (an account, an invitation): it
    /// ends with [`Change::commit_unannounced`].
    pub async fn begin_unannounced(state: &'s AppState) -> ApiResult<Change<'s>> {
        Ok(Change {
            state,
            tx: state.db.begin_write().await?,
            topic: None,
            extra: Vec::new(),
        })
    }

    /// The transaction's connection, for the `db` functions.
    pub fn conn(&mut self) -> &mut AnyConnection {
        &mut self.tx
    }

    /// Adds an event on a further topic (a file's completion also moves the client's savings),
    /// published after the commit with that topic's next sequence number, taken now in the
    /// transaction. Changes take their topics in one order (the change's own, then the client's
    /// validations, `admin:validations`, `admin:files`, the client's savings, `admin:dashboard`,
    /// `admin:classification`), so two changes never wait on each other's topics.
    pub async fn also(&mut self, topic: Topic, event: Event) -> ApiResult<()> {
        let seq = realtime::next_seq(&mut self.tx, &topic).await?;
        self.extra.push((topic, seq, event));
        Ok(())
    }

    /// Takes `topic`'s next sequence number now, for an event given later with
    /// [`Change::announce`] (published after the commit like [`Change::also`]'s). A change that
    /// locks rows other writers of `topic` also lock takes the topic first, so every writer
    /// waits in the same order (the topic, then the rows) and none deadlocks, even when the
    /// event's payload is only known after the writes. Every reservation must be announced.
    pub async fn reserve(&mut self, topic: Topic) -> ApiResult<Reserved> {
        let seq = realtime::next_seq(&mut self.tx, &topic).await?;
        Ok(Reserved { topic, seq })
    }

    /// Gives the event of a [`Change::reserve`]d sequence number.
    pub fn announce(&mut self, reserved: Reserved, event: Event) {
        self.extra.push((reserved.topic, reserved.seq, event));
    }

    /// Adds a processing run's `run.progress` (its final state) on the run's topic and
    /// `admin:runs`, published after the commit with the run's own sequence number (see
    /// [`publish_run_progress`]).
    pub fn also_run_progress(&mut self, snapshot: runs::RunSnapshot) {
        let seq = snapshot.seq;
        let run = runs::run_topic(&snapshot.client_id, &snapshot.id);
        let event = Event::RunProgress(Box::new(snapshot));
        self.extra
            .push((Topic::Admin { area: "runs" }, seq, event.clone()));
        self.extra.push((run, seq, event));
    }

    /// Commits: the audit record is written in the transaction, then it commits, then `event` is
    /// published on the topic. Returns the event's sequence number. Dropping a
    /// `Change` without committing rolls everything back and publishes nothing.
    pub async fn commit(self, actor: &Actor, event: Event, audit: Audit<'_>) -> ApiResult<i64> {
        self.commit_by(actor.audited(), event, audit).await
    }

    /// [`Change::commit`] for a change made by the server itself (a processing run's worker),
    /// audited with the user it acts for, if any.
    pub async fn commit_by(
        mut self,
        actor: AuditActor<'_>,
        event: Event,
        audit: Audit<'_>,
    ) -> ApiResult<i64> {
        let Some((topic, seq)) = self.topic.take() else {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "an unannounced change cannot publish {}",
                event.name()
            )));
        };
        self.write_audit(actor, audit).await?;
        self.tx.commit().await?;
        self.state.hub.publish(&topic, seq, &event);
        for (topic, seq, event) in &self.extra {
            self.state.hub.publish(topic, *seq, event);
        }
        Ok(seq)
    }

    /// Commits a change opened with [`Change::begin_unannounced`], its audit record written in
    /// the transaction.
    pub async fn commit_unannounced(
        mut self,
        actor: AuditActor<'_>,
        audit: Audit<'_>,
    ) -> ApiResult<()> {
        if let Some((topic, _)) = &self.topic {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "a change of {topic} must publish its event"
            )));
        }
        self.write_audit(actor, audit).await?;
        self.tx.commit().await?;
        Ok(())
    }

    async fn write_audit(&mut self, actor: AuditActor<'_>, audit: Audit<'_>) -> ApiResult<()> {
        audit_db::audit_insert(
            &mut *self.tx,
            &AuditEvent {
                event_type: audit.event_type,
                entity_type: audit.entity_type,
                entity_id: Some(audit.entity_id),
                actor_id: actor.user_id,
                details: audit.details,
                severity: audit.severity,
                ip: Some(actor.ip),
            },
        )
        .await?;
        Ok(())
    }
}

/// A topic sequence number taken by [`Change::reserve`], waiting for its event.
#[derive(Debug)]
#[must_use = "a reserved sequence number must be announced, or screens see a gap"]
pub struct Reserved {
    topic: Topic,
    seq: i64,
}

/// Publishes a processing run's progress (`run.progress`, the run's snapshot) on the run's topic
/// and `admin:runs`. Progress is not a change of the product's data: its sequence is the run's
/// own (`processing_runs.seq`, counted by the worker that holds the run, stored with the progress
/// at most once a second and at each stage boundary, and started afresh above every earlier one
/// at each claim), so the worker publishes it outside a [`Change`], throttled. A run's ends
/// (completion, failure, cancel) go through a `Change` ([`Change::also_run_progress`]). Viewers
/// subscribe, read the snapshot (`GET /api/runs/{id}`) and apply events with a greater `seq`.
pub fn publish_run_progress(state: &AppState, snapshot: &runs::RunSnapshot) {
    let seq = snapshot.seq;
    let event = Event::RunProgress(Box::new(snapshot.clone()));
    state.hub.publish(
        &runs::run_topic(&snapshot.client_id, &snapshot.id),
        seq,
        &event,
    );
    state
        .hub
        .publish(&Topic::Admin { area: "runs" }, seq, &event);
}

/// A change's result and the sequence number of the event that announced it.
#[derive(Debug)]
pub struct Committed<T> {
    /// The changed rows.
    pub value: T,
    /// The topic sequence number of the change's event.
    pub seq: i64,
}

/// Refuses names with control characters or outside `1..=max` characters after trimming.
pub fn clean_name(name: &str, what: &str, max: usize) -> ApiResult<String> {
    let n = name.trim();
    if n.is_empty() {
        return Err(ApiError::validation(format!("{what} name is required")));
    }
    if n.chars().count() > max {
        return Err(ApiError::validation(format!(
            "{what} name must be at most {max} characters"
        )));
    }
    if n.chars().any(char::is_control) {
        return Err(ApiError::validation(format!(
            "{what} name must not contain control characters"
        )));
    }
    Ok(n.to_string())
}
