//! Collaborative documents: Yrs documents over the y-websocket protocol, a registry of live
//! documents (one task per document), a [`DocStore`] persistence trait and cross-instance
//! fan-out ([`Fanout`]).
//!
//! What this crate owns:
//! - the y-protocols wire format ([`protocol`]), one message per outgoing frame, so the stock
//!   `y-websocket` 3.x provider with yjs 13 works unchanged;
//! - the [`Hub`], which loads each document into one task that owns its `Doc` and awareness,
//!   fans every update out as one shared frame, persists updates in small batches (group
//!   commit) and compacts the log into snapshots;
//! - the close codes shared with the server and the web app ([`close`]);
//! - the report document schema and its initial content ([`report`]), and restoring a version
//!   as a new edit ([`versions`]).
//!
//! What it must never do: know users, roles, HTTP routes, SQL or Redis. The server
//! authenticates and authorises the caller, decides [`Access`], and hands the socket's binary
//! frames to [`Hub::serve_connection`]; it implements [`DocStore`] on SQL and [`Fanout`] on
//! Redis. A failed load never serves an empty document and never writes to the store.

pub mod close;
mod doc_task;
pub mod fanout;
mod hub;
pub mod protocol;
pub mod report;
pub mod store;
#[cfg(feature = "traces")]
pub mod traces;
pub mod versions;

pub use close::CloseReason;
pub use doc_task::{apply_in_order, doc_from_stored, encode_snapshot};
pub use fanout::{Fanout, FanoutError, FanoutStream, MemoryFanout};
pub use hub::{Access, Hub, HubConfig, Rights};
pub use store::{DocStore, MemoryStore, Snapshot, SnapshotEncoding, StoreError, StoredDoc};

/// Errors of this crate's non-connection functions (reading stored documents, report content).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bytes that should hold a Yjs update, state vector or message could not be decoded.
    #[error("cannot decode: {0}")]
    Decode(#[from] yrs::encoding::read::Error),
    /// A decoded update could not be applied to a document.
    #[error("cannot apply update: {0}")]
    Apply(String),
    /// A store operation failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
