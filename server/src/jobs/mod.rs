//! Background work done outside a request: processing runs ([`runs`]), the knowledge base's
//! documents ([`knowledge`]: read, chunked and indexed after upload) and the recovery of lever
//! renames cut short ([`crate::service::lever_dictionary::start_recovery`]). Jobs call `service/`
//! (the same rules, transactions and events as the API) and know no HTTP.
//!
//! `serve` starts the workers with [`start`]; commands that only build the state (such as
//! `create-admin`) start none, so they never claim a run they would abandon.

pub mod knowledge;
pub mod runs;

use crate::state::AppState;

/// Starts this instance's background workers (none when `RUN_CONCURRENCY` is 0).
pub fn start(state: &AppState) {
    runs::start(state);
    // Knowledge documents left processing by a crash are claimed again when their lease expires.
    knowledge::start(state);
    // Lever renames cut short by a crash are undone or finished (lever dictionary).
    crate::service::lever_dictionary::start_recovery(state);
}
