//! Any bytes given as a CSV upload: the reader returns rows or a clear error, never panics, and
//! stays within its limits.
#![no_main]

use analysis::ingest::{IngestError, Input, Limits, RowChunk, RowSink, SourceInfo, read_rows};
use libfuzzer_sys::fuzz_target;

struct Check {
    ncols: usize,
}

impl RowSink<IngestError> for Check {
    fn start(&mut self, info: &SourceInfo) -> Result<(), IngestError> {
        assert!(!info.headers.is_empty());
        self.ncols = info.headers.len();
        Ok(())
    }
    fn chunk(&mut self, c: RowChunk) -> Result<Option<RowChunk>, IngestError> {
        assert_eq!(c.ncols(), self.ncols);
        for i in 0..c.len() {
            let r = c.row(i);
            for k in 0..r.len() {
                // Every cell is valid UTF-8 once read.
                assert!(std::str::from_utf8(r.get(k)).is_ok());
            }
        }
        Ok(Some(c))
    }
}

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_rows: 10_000,
        max_columns: 200,
        max_cell_bytes: 64 * 1024,
        ..Limits::upload()
    };
    let mut sink = Check { ncols: 0 };
    let _ = read_rows(
        Input::Bytes {
            name: "fuzz.csv",
            data,
        },
        &limits,
        7,
        &mut sink,
    );
});
