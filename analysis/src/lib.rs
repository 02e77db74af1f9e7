//! The analysis engine: turns an uploaded exposure file into proposed risk weights and capital
//! savings. Pure library: bytes and tables in, results and diagnostics out. It never does HTTP or
//! SQL, knows nothing of users, and never panics on input.

pub mod classify;
pub mod cli;
pub mod columns;
pub mod engine;
pub mod error;
pub mod generate;
pub mod ingest;
pub mod mapping;
pub mod model;
pub mod output;
pub mod pipeline;
pub mod refdata;
pub mod rules;
pub mod savings;
