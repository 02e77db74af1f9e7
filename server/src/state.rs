//! The application state shared by every handler.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::auth::ratelimit::RateLimits;
use crate::auth::tokens::Keys;
use crate::config::Config;
use crate::db::Db;
use crate::mail::Mailer;
use crate::realtime::Hub;

/// Everything a handler may need. Cheap to clone.
#[derive(Clone, Debug)]
pub struct AppState {
    /// The database.
    pub db: Db,
    /// The configuration in force.
    pub config: Arc<Config>,
    /// Token signing keys.
    pub keys: Arc<Keys>,
    /// Rate limiters.
    pub limits: RateLimits,
    /// Outgoing mail.
    pub mailer: Mailer,
    /// Live collaborative documents (`/api/collab/{reportId}`).
    pub collab: collab::Hub,
    /// The realtime event hub (`/api/ws`).
    pub hub: Hub,
    /// The open document sockets and the sessions behind them.
    pub doc_sessions: crate::docs::DocSessions,
    /// Stored originals and processed outputs.
    pub storage: crate::storage::Storage,
    /// The Q&A agent's AI provider (`crate::ai::provider`).
    pub ai: Arc<dyn crate::ai::AiProvider>,
}

impl AppState {
    /// Re-checks at once every socket of a user on this instance, event and document sockets
    /// alike (after a sign-out, a password reset or a role change); other instances catch up at
    /// their next periodic re-check.
    pub async fn recheck_user(&self, user_id: &str) {
        self.recheck(Some(user_id)).await;
    }

    /// Re-checks every open socket on this instance (the periodic check).
    pub async fn recheck_all(&self) {
        self.recheck(None).await;
    }

    /// Authenticates again, once each, the sessions behind open sockets and hands the result to
    /// both kinds of socket.
    async fn recheck(&self, user_id: Option<&str>) {
        let mut sessions: BTreeSet<(String, String)> =
            self.hub.sessions(user_id).into_iter().collect();
        sessions.extend(self.doc_sessions.sessions(user_id));
        for (user, session) in sessions {
            let fresh = match crate::realtime::reauthenticate(self, &user, &session).await {
                Ok(fresh) => fresh,
                Err(e) => {
                    // A database hiccup must not sign everyone out: keep the sockets until the
                    // next check.
                    tracing::warn!(error = %e, "session re-check failed");
                    continue;
                }
            };
            self.hub.apply_session(&user, &session, fresh.as_ref());
            self.doc_sessions
                .apply_session(&user, &session, fresh.as_ref());
        }
    }
}
