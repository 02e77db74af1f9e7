//! Background work done outside a request: processing runs ([`runs`]). Jobs call `service/`
//! (the same rules, transactions and events as the API) and know no HTTP.
//!
//! `serve` starts the workers with [`start`]; commands that only build the state (such as
//! `create-admin`) start none, so they never claim a run they would abandon.

pub mod runs;

use crate::state::AppState;

/// Starts this instance's background workers (none when `RUN_CONCURRENCY` is 0).
pub fn start(state: &AppState) {
    runs::start(state);
}
