//! The open document sockets of this instance, with the session and report behind each, so that
//! what a caller may do with a document follows their session and role while the socket is open:
//! a sign-out or an ended session closes it (4401), a lost membership closes it (4403), a demotion
//! to viewer makes it read-only from the next message, a promotion makes it writable again.
//!
//! The decision itself is [`rights_for`], the same function that authorises the socket before
//! the upgrade; the caller is re-established through [`crate::realtime::reauthenticate`], the
//! same path as the event sockets. [`crate::state::AppState::recheck_user`] runs it at once after
//! a sign-out, a password reset or a role change; the realtime re-check loop runs it for every
//! socket periodically.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use collab::{Access, CloseReason, Rights};
use dashmap::DashMap;
use tokio::sync::watch;

use crate::auth::{AuthUser, Role};
use crate::state::AppState;

/// What a caller may do with a document of `client_id`: members of the client and admins write,
/// viewers among them read, everybody else is refused.
pub fn rights_for(user: &AuthUser, client_id: &str) -> Rights {
    if !user.can_read_client(client_id) {
        Err(CloseReason::FORBIDDEN)
    } else if user.role == Role::Viewer {
        Ok(Access::ReadOnly)
    } else {
        Ok(Access::ReadWrite)
    }
}

#[derive(Debug)]
struct Entry {
    user_id: String,
    session_id: String,
    client_id: String,
    rights: watch::Sender<Rights>,
}

#[derive(Debug, Default)]
struct Inner {
    open: DashMap<u64, Entry>,
    next: AtomicU64,
}

/// The registry of open document sockets. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct DocSessions {
    inner: Arc<Inner>,
}

/// An open socket's place in the registry; leaving it (on drop) forgets the socket.
#[derive(Debug)]
pub struct Registration {
    inner: Arc<Inner>,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.inner.open.remove(&self.id);
    }
}

impl DocSessions {
    /// Records an authorised socket of `user` on a document of `client_id`, returning its
    /// registration and the rights to hand to [`collab::Hub::serve_connection_with`].
    pub fn register(
        &self,
        user: &AuthUser,
        client_id: &str,
        initial: Rights,
    ) -> (Registration, watch::Receiver<Rights>) {
        let (tx, rx) = watch::channel(initial);
        let id = self.inner.next.fetch_add(1, Ordering::Relaxed);
        self.inner.open.insert(
            id,
            Entry {
                user_id: user.id.clone(),
                session_id: user.session_id.clone(),
                client_id: client_id.to_owned(),
                rights: tx,
            },
        );
        (
            Registration {
                inner: self.inner.clone(),
                id,
            },
            rx,
        )
    }

    /// Open document sockets on this instance.
    pub fn len(&self) -> usize {
        self.inner.open.len()
    }

    /// Whether no document socket is open on this instance.
    pub fn is_empty(&self) -> bool {
        self.inner.open.is_empty()
    }

    /// Re-establishes the caller behind every open socket (each session once) and updates the
    /// sockets' rights.
    pub async fn recheck(&self, state: &AppState) {
        self.recheck_where(state, |_| true).await;
    }

    /// The same for the sockets of one user.
    pub async fn recheck_user(&self, state: &AppState, user_id: &str) {
        self.recheck_where(state, |u| u == user_id).await;
    }

    async fn recheck_where(&self, state: &AppState, select: impl Fn(&str) -> bool) {
        let mut sessions: HashMap<(String, String), Vec<u64>> = HashMap::new();
        for e in self.inner.open.iter() {
            if select(&e.user_id) {
                sessions
                    .entry((e.user_id.clone(), e.session_id.clone()))
                    .or_default()
                    .push(*e.key());
            }
        }
        for ((user_id, session_id), ids) in sessions {
            let fresh = match crate::realtime::reauthenticate(state, &user_id, &session_id).await {
                Ok(fresh) => fresh,
                Err(e) => {
                    // A database hiccup must not cut everyone off: keep the rights until the next check.
                    tracing::warn!(error = %e, "document session re-check failed");
                    continue;
                }
            };
            for id in ids {
                if let Some(e) = self.inner.open.get(&id) {
                    let now = match &fresh {
                        None => Err(CloseReason::UNAUTHENTICATED),
                        Some(user) => rights_for(user, &e.client_id),
                    };
                    e.rights.send_if_modified(|r| {
                        let changed = *r != now;
                        *r = now;
                        changed
                    });
                }
            }
        }
    }
}
