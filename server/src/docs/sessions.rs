//! The open document sockets of this instance, with the session and report behind each, so that
//! what a caller may do with a document follows their session and role while the socket is open:
//! a sign-out or an ended session closes it (4401), a lost membership closes it (4403), a demotion
//! to viewer makes it read-only from the next message, a promotion makes it writable again.
//!
//! The decision itself is [`rights_for`], the same function that authorises the socket before
//! the upgrade. [`crate::state::AppState::recheck_user`] authenticates each session again once,
//! for event and document sockets alike, at once after a sign-out, a password reset or a role
//! change, and for every socket periodically.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use collab::{Access, CloseReason, Rights};
use dashmap::DashMap;
use tokio::sync::watch;

use crate::auth::AuthUser;

/// What a caller may do with a document of `client_id`: members of the client and admins write,
/// viewers among them read, everybody else is refused.
pub fn rights_for(user: &AuthUser, client_id: &str) -> Rights {
    match crate::access::decide(user, client_id) {
        None => Err(CloseReason::FORBIDDEN),
        Some(r) if r.write => Ok(Access::ReadWrite),
        Some(_) => Ok(Access::ReadOnly),
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
        access: Access,
    ) -> (Registration, watch::Receiver<Rights>) {
        let (tx, rx) = watch::channel(Ok(access));
        let id = self.inner.next.fetch_add(1, Ordering::Relaxed);
        self.inner.open.insert(
            id,
            Entry {
                user_id: user.id.to_string(),
                session_id: user.session_id.to_string(),
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

    /// The sessions (user id, session id) behind this instance's open document sockets, of one
    /// user or of everyone.
    pub fn sessions(&self, user_id: Option<&str>) -> Vec<(String, String)> {
        self.inner
            .open
            .iter()
            .filter(|e| user_id.is_none_or(|id| e.user_id == id))
            .map(|e| (e.user_id.clone(), e.session_id.clone()))
            .collect()
    }

    /// Applies a session's fresh authentication to its document sockets: `None` closes them with
    /// 4401, otherwise each gets the rights [`rights_for`] gives on its report's client.
    pub fn apply_session(&self, user_id: &str, session_id: &str, fresh: Option<&AuthUser>) {
        for e in self.inner.open.iter() {
            if e.user_id != user_id || e.session_id != session_id {
                continue;
            }
            let now = match fresh {
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
