//! The application state shared by every handler.

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
}
