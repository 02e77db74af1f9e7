//! Any bytes given as a spreadsheet upload (XLSX, XLS or ODS by content): a clear error or rows,
//! never a panic, with archive expansion bounded.
#![no_main]

use analysis::ingest::{Input, Limits, preview};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_rows: 10_000,
        max_columns: 200,
        max_cell_bytes: 64 * 1024,
        max_decompressed_bytes: 64 * 1024 * 1024,
        ..Limits::upload()
    };
    for name in ["fuzz.xlsx", "fuzz.xls", "fuzz.ods"] {
        let _ = preview(Input::Bytes { name, data }, &limits, 20);
    }
});
