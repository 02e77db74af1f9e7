//! The analysis engine: turns an uploaded exposure file into proposed risk weights and capital
//! savings. Pure library: bytes and tables in, results and diagnostics out. It never does HTTP or
//! SQL, knows nothing of users, and never panics on input.

pub mod model;
pub mod ingest;
pub mod columns;
pub mod mapping;
pub mod output;
pub mod error;
pub mod refdata;
pub mod rules;
pub mod engine;
pub mod savings;
pub mod pipeline;
pub mod generate;
pub mod cli;
pub mod classify;
