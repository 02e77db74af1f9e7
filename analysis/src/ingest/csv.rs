//! Streaming CSV reader: encoding and delimiter sniffed from the first megabyte, one reused
//! `ByteRecord`, rows copied into flat chunks.

use std::io::{BufReader, Read};

use super::FileKind;
use super::chunk::{CellKind, RowChunk};
use super::sniff::{
    NotText, SNIFF_BYTES, TextEncoding, implausible_latin1, sniff_delimiter, sniff_encoding,
};
use super::{IngestError, Limits, ReadStats, RowSink, SourceInfo, clean_headers, read_up_to};

/// The error a [`Latin1Reader`] reports for bytes no text file holds.
#[derive(Debug)]
struct NotTextError;

impl std::fmt::Display for NotTextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not text")
    }
}

impl std::error::Error for NotTextError {}

/// Decodes Windows-1252 (a superset of Latin-1's printable range) to UTF-8 on the fly.
struct Latin1Reader<R> {
    inner: R,
    decoder: encoding_rs::Decoder,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    eof: bool,
    done: bool,
}

impl<R: Read> Latin1Reader<R> {
    fn new(inner: R) -> Self {
        Latin1Reader {
            inner,
            decoder: encoding_rs::WINDOWS_1252.new_decoder_without_bom_handling(),
            buf: vec![0u8; 64 * 1024].into_boxed_slice(),
            pos: 0,
            len: 0,
            eof: false,
            done: false,
        }
    }
}

impl<R: Read> Read for Latin1Reader<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if out.len() < 4 {
            // Every Windows-1252 byte is at most three UTF-8 bytes; ask for room.
            let mut tmp = [0u8; 4];
            let n = self.read(&mut tmp)?;
            let k = n.min(out.len());
            out[..k].copy_from_slice(&tmp[..k]);
            if k < n {
                return Err(std::io::Error::other("read buffer too small"));
            }
            return Ok(k);
        }
        loop {
            // The decoder must not be called again once it has seen the end of the input.
            if self.done {
                return Ok(0);
            }
            if self.pos == self.len && !self.eof {
                let n = self.inner.read(&mut self.buf)?;
                if self.buf[..n].iter().any(|b| implausible_latin1(*b)) {
                    // Binary content after a sample that looked like text.
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        NotTextError,
                    ));
                }
                self.pos = 0;
                self.len = n;
                self.eof = n == 0;
            }
            let (result, read, written, _) =
                self.decoder
                    .decode_to_utf8(&self.buf[self.pos..self.len], out, self.eof);
            self.pos += read;
            if self.eof && self.pos == self.len && result == encoding_rs::CoderResult::InputEmpty {
                self.done = true;
            }
            if written > 0 || self.done {
                return Ok(written);
            }
        }
    }
}

/// Reads a CSV stream.
pub(super) fn read_csv<R, E, S>(
    mut reader: R,
    limits: &Limits,
    chunk_rows: usize,
    sink: &mut S,
) -> Result<ReadStats, E>
where
    R: Read,
    E: From<IngestError>,
    S: RowSink<E> + ?Sized,
{
    let io = |e: std::io::Error| IngestError::CsvFailed(e.to_string());
    let mut head = vec![0u8; SNIFF_BYTES];
    let n = read_up_to(&mut reader, &mut head).map_err(io)?;
    head.truncate(n);
    let encoding = match sniff_encoding(&head, n < SNIFF_BYTES) {
        Ok(e) => e,
        Err(NotText::Utf16) => return Err(IngestError::Utf16.into()),
        Err(NotText::Binary) => return Err(IngestError::NotText.into()),
    };
    let skip = if encoding == TextEncoding::Utf8Bom {
        3
    } else {
        0
    };
    if head[skip..].iter().all(|b| b.is_ascii_whitespace()) {
        return Err(IngestError::Empty.into());
    }
    // Sniff the delimiter on decoded text so Latin-1 bytes do not confuse it (they cannot be
    // delimiters anyway, but keep one code path).
    let delimiter = sniff_delimiter(&head[skip..]);
    let head_len = head.len() as u64;
    let stream = std::io::Cursor::new(head).chain(reader);
    match encoding {
        TextEncoding::Latin1 => parse_stream(
            BufReader::with_capacity(256 * 1024, Latin1Reader::new(stream)),
            encoding,
            delimiter,
            head_len,
            limits,
            chunk_rows,
            sink,
        ),
        _ => {
            let mut s = stream;
            if skip > 0 {
                let mut bom = [0u8; 3];
                s.read_exact(&mut bom).map_err(io)?;
            }
            parse_stream(s, encoding, delimiter, head_len, limits, chunk_rows, sink)
        }
    }
}

fn parse_stream<R, E, S>(
    source: R,
    encoding: TextEncoding,
    delimiter: u8,
    head_len: u64,
    limits: &Limits,
    chunk_rows: usize,
    sink: &mut S,
) -> Result<ReadStats, E>
where
    R: Read,
    E: From<IngestError>,
    S: RowSink<E> + ?Sized,
{
    let mut rdr = ::csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(256 * 1024)
        .from_reader(source);

    let mut rec = ::csv::ByteRecord::new();
    // Header row: the first record with a non-blank cell.
    let headers = loop {
        match rdr.read_byte_record(&mut rec) {
            Ok(false) => return Err(IngestError::Empty.into()),
            Ok(true) => {
                if rec.iter().all(|f| f.trim_ascii().is_empty()) {
                    continue;
                }
                if rec.len() > limits.max_columns {
                    return Err(IngestError::TooManyColumns {
                        found: rec.len(),
                        limit: limits.max_columns,
                    }
                    .into());
                }
                let mut raw = Vec::with_capacity(rec.len());
                for f in rec.iter() {
                    if f.len() > limits.max_cell_bytes {
                        return Err(IngestError::CsvErrors(format!(
                            "Row 1: a header is longer than {} bytes",
                            limits.max_cell_bytes
                        ))
                        .into());
                    }
                    match std::str::from_utf8(f) {
                        Ok(s) => raw.push(s),
                        Err(_) => {
                            return Err(IngestError::CsvErrors(
                                "Row 1: the header row is not valid UTF-8 text".into(),
                            )
                            .into());
                        }
                    }
                }
                // Trailing blank headers from trailing delimiters are dropped.
                while raw.len() > 1 && raw.last().is_some_and(|h| h.trim().is_empty()) {
                    raw.pop();
                }
                break clean_headers(raw);
            }
            Err(e) => return Err(csv_error(e, 1).into()),
        }
    };
    let ncols = headers.len();
    let info = SourceInfo {
        kind: FileKind::Csv,
        headers,
        encoding: Some(encoding),
        delimiter: Some(delimiter as char),
        sheet: None,
    };
    sink.start(&info)?;

    let mut chunk = RowChunk::new(ncols);
    chunk.reset(ncols, 1);
    let mut rows: u64 = 0;
    let mut stats = ReadStats::default();
    loop {
        let more = match rdr.read_byte_record(&mut rec) {
            Ok(m) => m,
            Err(e) => return Err(csv_error(e, rows + 1).into()),
        };
        if !more {
            break;
        }
        let line_no = rows + 1;
        let slice = rec.as_slice();
        // A blank line or a row of empty (or whitespace) cells; only short rows can be blank.
        if slice.len() <= 4 * ncols + 64 && slice.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        if rec.len() != ncols {
            let extra_blank =
                rec.len() > ncols && rec.iter().skip(ncols).all(|f| f.trim_ascii().is_empty());
            if !extra_blank {
                let kind = if rec.len() < ncols {
                    "Too few"
                } else {
                    "Too many"
                };
                return Err(IngestError::CsvErrors(format!(
                    "Row {line_no}: {kind} fields: expected {ncols} fields but parsed {}",
                    rec.len()
                ))
                .into());
            }
        }
        if slice.len() > limits.max_cell_bytes
            && rec.iter().any(|f| f.len() > limits.max_cell_bytes)
        {
            return Err(IngestError::CsvErrors(format!(
                "Row {line_no}: a field is longer than {} bytes",
                limits.max_cell_bytes
            ))
            .into());
        }
        if memchr::memchr(0, slice).is_some() {
            return Err(IngestError::NotText.into());
        }
        if !slice.is_ascii() && rec.iter().any(|f| std::str::from_utf8(f).is_err()) {
            return Err(IngestError::CsvErrors(format!(
                "Row {line_no}: the text is not valid UTF-8 (save the file as CSV UTF-8)"
            ))
            .into());
        }
        rows += 1;
        if rows > limits.max_rows {
            return Err(IngestError::TooManyRows {
                limit: limits.max_rows,
            }
            .into());
        }
        for f in rec.iter().take(ncols) {
            chunk.push_cell(f, CellKind::Text);
        }
        chunk.end_row();
        if chunk.len() >= chunk_rows {
            let full = std::mem::replace(&mut chunk, RowChunk::new(ncols));
            match sink.chunk(full)? {
                Some(mut next) => {
                    next.reset(ncols, rows + 1);
                    chunk = next;
                }
                None => {
                    stats.rows = rows;
                    stats.bytes = rdr.position().byte();
                    stats.stopped_early = true;
                    return Ok(stats);
                }
            }
        }
    }
    if rows == 0 {
        return Err(IngestError::NoCsvData.into());
    }
    if !chunk.is_empty() {
        sink.chunk(chunk)?;
    }
    stats.rows = rows;
    stats.bytes = rdr
        .position()
        .byte()
        .max(head_len.min(rdr.position().byte()));
    Ok(stats)
}

fn csv_error(e: ::csv::Error, row: u64) -> IngestError {
    match e.kind() {
        ::csv::ErrorKind::Io(io)
            if io
                .get_ref()
                .is_some_and(|e| e.downcast_ref::<NotTextError>().is_some()) =>
        {
            IngestError::NotText
        }
        ::csv::ErrorKind::Io(io) => IngestError::CsvFailed(io.to_string()),
        _ => IngestError::CsvErrors(format!("Row {row}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Input, preview};
    use super::*;

    fn read(data: &[u8]) -> Result<super::super::Preview, IngestError> {
        preview(
            Input::Bytes {
                name: "f.csv",
                data,
            },
            &Limits::default(),
            100,
        )
    }

    #[test]
    fn basic_and_semicolon() {
        let p = read(b"A,B\n1,2\n\n3,4\n").unwrap();
        assert_eq!(p.info.headers, vec!["A", "B"]);
        assert_eq!(p.rows, vec![vec!["1", "2"], vec!["3", "4"]]);
        let p = read("\u{feff}Importe;Ponderación\r\n1.234,5;20%\r\n".as_bytes()).unwrap();
        assert_eq!(p.info.headers, vec!["Importe", "Ponderación"]);
        assert_eq!(p.info.delimiter, Some(';'));
        assert_eq!(p.info.encoding, Some(TextEncoding::Utf8Bom));
        assert_eq!(p.rows, vec![vec!["1.234,5", "20%"]]);
    }

    #[test]
    fn latin1_without_final_newline() {
        // Found by fuzzing: the decoder was called again after the end of the input.
        let p =
            read(b"Exposure_ID,rospeEux_Amount,uCrrent_`isk_Weigh\xe3osure_Amout_`is").unwrap_err();
        assert_eq!(p, IngestError::NoCsvData);
        let p = read(b"A,B\n1,\xe3").unwrap();
        assert_eq!(p.rows, vec![vec!["1", "ã"]]);
    }

    #[test]
    fn latin1() {
        let p = read(b"Ponderaci\xf3n\tA\n20\tEntidad p\xfablica\n").unwrap();
        assert_eq!(p.info.encoding, Some(TextEncoding::Latin1));
        assert_eq!(p.info.headers, vec!["Ponderación", "A"]);
        assert_eq!(p.rows[0][1], "Entidad pública");
    }

    #[test]
    fn errors() {
        assert_eq!(read(b"").unwrap_err(), IngestError::Empty);
        assert_eq!(read(b"  \n\n").unwrap_err(), IngestError::Empty);
        assert_eq!(read(b"A,B\n").unwrap_err(), IngestError::NoCsvData);
        assert_eq!(
            read(b"A,B\n1,2\n3\n").unwrap_err().to_string(),
            "CSV parsing errors: Row 2: Too few fields: expected 2 fields but parsed 1"
        );
        // Trailing blank cells are tolerated.
        assert!(read(b"A,B\n1,2,\n").is_ok());
        // Invalid UTF-8 after a valid sample.
        let mut data = b"A,B\n".to_vec();
        for _ in 0..SNIFF_BYTES / 4 {
            data.extend_from_slice(b"1,2\n");
        }
        data.extend_from_slice(b"\xff\xfe,2\n");
        let err = read_all(&data).unwrap_err().to_string();
        assert!(err.starts_with("CSV parsing errors: Row"), "{err}");
        assert!(err.contains("not valid UTF-8"), "{err}");
    }

    fn read_all(data: &[u8]) -> Result<u64, IngestError> {
        struct Count(u64);
        impl RowSink<IngestError> for Count {
            fn start(&mut self, _: &SourceInfo) -> Result<(), IngestError> {
                Ok(())
            }
            fn chunk(&mut self, c: RowChunk) -> Result<Option<RowChunk>, IngestError> {
                self.0 += c.len() as u64;
                Ok(Some(c))
            }
        }
        let mut s = Count(0);
        super::super::read_rows(
            Input::Bytes {
                name: "f.csv",
                data,
            },
            &Limits::default(),
            1000,
            &mut s,
        )?;
        Ok(s.0)
    }

    #[test]
    fn limits() {
        let lim = Limits {
            max_rows: 2,
            ..Limits::default()
        };
        let r = super::super::read_rows::<IngestError, _>(
            Input::Bytes {
                name: "f.csv",
                data: b"A\n1\n2\n3\n",
            },
            &lim,
            10,
            &mut NullSink,
        );
        assert_eq!(r.unwrap_err(), IngestError::TooManyRows { limit: 2 });
        let lim = Limits {
            max_columns: 2,
            ..Limits::default()
        };
        let r = super::super::read_rows::<IngestError, _>(
            Input::Bytes {
                name: "f.csv",
                data: b"A,B,C\n1,2,3\n",
            },
            &lim,
            10,
            &mut NullSink,
        );
        assert!(matches!(
            r,
            Err(IngestError::TooManyColumns { found: 3, .. })
        ));
        // An unterminated quote swallowing the file is caught by the cell limit.
        let lim = Limits {
            max_cell_bytes: 10,
            ..Limits::default()
        };
        let r = super::super::read_rows::<IngestError, _>(
            Input::Bytes {
                name: "f.csv",
                data: b"A,B\n1,\"2\n3,4\n5,6\n7,8\n",
            },
            &lim,
            10,
            &mut NullSink,
        );
        assert!(matches!(r, Err(IngestError::CsvErrors(_))), "{r:?}");
        assert_eq!(read_all(b"A\n1\n2\n").unwrap(), 2);
    }

    struct NullSink;
    impl RowSink<IngestError> for NullSink {
        fn start(&mut self, _: &SourceInfo) -> Result<(), IngestError> {
            Ok(())
        }
        fn chunk(&mut self, c: RowChunk) -> Result<Option<RowChunk>, IngestError> {
            Ok(Some(c))
        }
    }
}
