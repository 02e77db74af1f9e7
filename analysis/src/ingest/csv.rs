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
    let stream = std::io::Cursor::new(head).chain(reader);
    match encoding {
        TextEncoding::Latin1 => parse_stream(
            BufReader::with_capacity(256 * 1024, Latin1Reader::new(stream)),
            encoding,
            delimiter,
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
            parse_stream(s, encoding, delimiter, limits, chunk_rows, sink)
        }
    }
}

/// Bytes of complete records per block: about 8,000 rows of a typical exposure file.
const BLOCK_BYTES: usize = 1 << 20;

/// Maps a read error of the decoded stream.
fn io_error(e: &std::io::Error) -> IngestError {
    if e.get_ref()
        .is_some_and(|x| x.downcast_ref::<NotTextError>().is_some())
    {
        IngestError::NotText
    } else {
        IngestError::CsvFailed(e.to_string())
    }
}

/// Reads from `source` until `buf` holds at least `target` bytes or the stream ends. Returns
/// true at the end of the stream.
fn fill(source: &mut impl Read, buf: &mut Vec<u8>, target: usize) -> Result<bool, IngestError> {
    while buf.len() < target {
        let start = buf.len();
        let want = (target - start).max(64 * 1024);
        buf.resize(start + want, 0);
        match source.read(&mut buf[start..]) {
            Ok(0) => {
                buf.truncate(start);
                return Ok(true);
            }
            Ok(k) => buf.truncate(start + k),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => buf.truncate(start),
            Err(e) => {
                buf.truncate(start);
                return Err(io_error(&e));
            }
        }
    }
    Ok(false)
}

/// The end (after its terminator) of the record starting at `from`, or `None` when the record is
/// not complete in `buf`. Follows the CSV reader's rules: a double quote opens a quoted field
/// only at the start of a field, `""` inside quotes is a quote, and `\n`, `\r` end a record.
fn next_record_end(buf: &[u8], from: usize, delimiter: u8) -> Option<usize> {
    let mut pos = from;
    loop {
        // At the start of a field.
        if *buf.get(pos)? == b'"' {
            // Quoted: find the closing quote (a doubled quote stays inside).
            pos += 1;
            loop {
                let q = memchr::memchr(b'"', &buf[pos..])? + pos;
                pos = q + 1;
                if *buf.get(pos)? != b'"' {
                    break;
                }
                pos += 1;
            }
        }
        // Unquoted (or after the closing quote): up to the delimiter or the end of the record.
        let i = memchr::memchr3(delimiter, b'\n', b'\r', &buf[pos..])? + pos;
        if buf[i] == delimiter {
            pos = i + 1;
        } else {
            return Some(i + 1);
        }
    }
}

/// The end of the last complete record in `buf` (which starts at a record boundary), or 0.
fn last_record_end(buf: &[u8], delimiter: u8) -> usize {
    if memchr::memchr(b'"', buf).is_none() {
        return memchr::memrchr2(b'\n', b'\r', buf).map_or(0, |i| i + 1);
    }
    let mut end = 0;
    while let Some(e) = next_record_end(buf, end, delimiter) {
        end = e;
    }
    end
}

/// The positions of two bytes in a slice, in order (what `memchr::memchr2_iter` gives), found
/// eight bytes at a time: cheaper than a vector search per hit when hits are a few bytes apart,
/// as delimiters are in CSV lines.
struct Hits2<'a> {
    hay: &'a [u8],
    a: u64,
    b: u64,
    /// Start of the word `mask` describes.
    word: usize,
    /// Start of the next word to read.
    next: usize,
    /// The high bit of each byte of the current word that matches and is not yet returned.
    mask: u64,
}

impl<'a> Hits2<'a> {
    fn new(hay: &'a [u8], a: u8, b: u8) -> Hits2<'a> {
        const ONES: u64 = 0x0101_0101_0101_0101;
        Hits2 {
            hay,
            a: u64::from(a) * ONES,
            b: u64::from(b) * ONES,
            word: 0,
            next: 0,
            mask: 0,
        }
    }

    /// The high bit of each zero byte of `v` (exact: no borrow between bytes).
    #[inline]
    fn zero_bytes(v: u64) -> u64 {
        const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
        !(((v & LOW7) + LOW7) | v | LOW7)
    }
}

impl Iterator for Hits2<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            let rest = self.hay.get(self.next..)?;
            if rest.is_empty() {
                return None;
            }
            self.word = self.next;
            let (v, valid) = match rest.first_chunk::<8>() {
                Some(w) => (u64::from_le_bytes(*w), u64::MAX),
                None => {
                    let mut w = [0u8; 8];
                    w[..rest.len()].copy_from_slice(rest);
                    (u64::from_le_bytes(w), (1u64 << (8 * rest.len())) - 1)
                }
            };
            self.next += 8;
            self.mask = (Self::zero_bytes(v ^ self.a) | Self::zero_bytes(v ^ self.b)) & valid;
        }
        let bit = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.word + bit / 8)
    }
}

/// The fields of one record, as seen by [`push_row`].
trait Fields {
    fn count(&self) -> usize;
    fn field(&self, i: usize) -> &[u8];
    /// Appends the first `ncols` fields (there are at least that many) to `chunk` as a row.
    fn push_to(&self, ncols: usize, chunk: &mut RowChunk) {
        for i in 0..ncols {
            chunk.push_cell(self.field(i), CellKind::Text);
        }
        chunk.end_row();
    }
}

impl Fields for ::csv::ByteRecord {
    fn count(&self) -> usize {
        self.len()
    }
    fn field(&self, i: usize) -> &[u8] {
        self.get(i).unwrap_or_default()
    }
}

/// An unquoted line and the end offset of each of its fields.
struct Split<'a> {
    line: &'a [u8],
    ends: &'a [u32],
    delimiter: u8,
}

impl Fields for Split<'_> {
    fn count(&self) -> usize {
        self.ends.len()
    }
    fn field(&self, i: usize) -> &[u8] {
        let start = if i == 0 {
            0
        } else {
            self.ends[i - 1] as usize + 1
        };
        &self.line[start..self.ends[i] as usize]
    }
    fn push_to(&self, ncols: usize, chunk: &mut RowChunk) {
        chunk.push_joined_row(self.line, &self.ends[..ncols], self.delimiter);
    }
}

/// Which per-cell checks a block needs (each is skipped when the whole block passed it).
#[derive(Clone, Copy)]
struct Checks {
    /// The block is not valid UTF-8: find the cell that is not.
    utf8: bool,
    /// The block holds a NUL byte: find the cell that does.
    nul: bool,
}

/// Checks one record and appends it to `chunk`. Returns false for a blank record (skipped).
fn push_row<F: Fields + ?Sized>(
    rec: &F,
    ncols: usize,
    max_cell: usize,
    checks: Checks,
    chunk: &mut RowChunk,
) -> Result<bool, BlockErrorKind> {
    let n = rec.count();
    let total: usize = (0..n).map(|i| rec.field(i).len()).sum();
    // A blank line or a row of empty (or whitespace) cells; only short rows can be blank.
    if total <= 4 * ncols + 64
        && (0..n).all(|i| rec.field(i).iter().all(|b| b.is_ascii_whitespace()))
    {
        return Ok(false);
    }
    if n != ncols {
        let extra_blank = n > ncols && (ncols..n).all(|i| rec.field(i).trim_ascii().is_empty());
        if !extra_blank {
            return Err(if n < ncols {
                BlockErrorKind::TooFew(n)
            } else {
                BlockErrorKind::TooMany(n)
            });
        }
    }
    if total > max_cell && (0..n).any(|i| rec.field(i).len() > max_cell) {
        return Err(BlockErrorKind::CellTooLong(max_cell));
    }
    if checks.nul && (0..n).any(|i| memchr::memchr(0, rec.field(i)).is_some()) {
        return Err(BlockErrorKind::NotText);
    }
    if checks.utf8
        && (0..n).any(|i| {
            let f = rec.field(i);
            !f.is_ascii() && std::str::from_utf8(f).is_err()
        })
    {
        return Err(BlockErrorKind::NotUtf8);
    }
    rec.push_to(ncols, chunk);
    Ok(true)
}

/// What is wrong with a row of a [`CsvBlock`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum BlockErrorKind {
    TooFew(usize),
    TooMany(usize),
    CellTooLong(usize),
    NotText,
    NotUtf8,
    Csv(String),
}

/// A row error found while parsing a [`CsvBlock`], located within the block; the reader that
/// knows how many rows came before turns it into the product's message with
/// [`BlockError::locate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockError {
    /// 1-based data row within the block (blank lines not counted).
    row: u64,
    kind: BlockErrorKind,
    expected: usize,
}

impl BlockError {
    /// The error of the whole file, with `rows_before` data rows before the block. A row past
    /// `limits.max_rows` is reported as too many rows, as a sequential read would.
    pub fn locate(&self, rows_before: u64, limits: &Limits) -> IngestError {
        let row = rows_before + self.row;
        if row > limits.max_rows {
            return IngestError::TooManyRows {
                limit: limits.max_rows,
            };
        }
        let ncols = self.expected;
        match &self.kind {
            BlockErrorKind::TooFew(n) => IngestError::CsvErrors(format!(
                "Row {row}: Too few fields: expected {ncols} fields but parsed {n}"
            )),
            BlockErrorKind::TooMany(n) => IngestError::CsvErrors(format!(
                "Row {row}: Too many fields: expected {ncols} fields but parsed {n}"
            )),
            BlockErrorKind::CellTooLong(max) => {
                IngestError::CsvErrors(format!("Row {row}: a field is longer than {max} bytes"))
            }
            BlockErrorKind::NotText => IngestError::NotText,
            BlockErrorKind::NotUtf8 => IngestError::CsvErrors(format!(
                "Row {row}: the text is not valid UTF-8 (save the file as CSV UTF-8)"
            )),
            BlockErrorKind::Csv(e) => IngestError::CsvErrors(format!("Row {row}: {e}")),
        }
    }
}

/// Complete CSV records (decoded to UTF-8, header excluded), cut from the stream at a record
/// boundary so any thread can parse them into a [`RowChunk`] with [`CsvBlock::parse_into`].
#[derive(Debug, Default)]
pub struct CsvBlock {
    data: Vec<u8>,
    delimiter: u8,
    ncols: usize,
    max_cell_bytes: usize,
    /// The block ends inside a record longer than any valid one could be.
    truncated: bool,
}

impl CsvBlock {
    /// Number of columns of the file.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when the block holds no byte.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Gives the buffer back for reuse.
    pub fn into_buffer(self) -> Vec<u8> {
        self.data
    }

    /// Parses the records and appends the non-blank ones to `chunk` (of [`CsvBlock::ncols`]
    /// columns). Unquoted blocks are split directly; blocks with quotes go through the CSV
    /// reader. The checks and messages are those of a sequential read.
    pub fn parse_into(&self, chunk: &mut RowChunk) -> Result<(), BlockError> {
        let rows_before = chunk.len();
        // Cells are not checked as UTF-8 one by one: the chunk's bytes are checked once when
        // it is sealed (its cells are valid exactly when its bytes are: the separators are ASCII).
        match self.parse_rows(chunk, false) {
            Ok(()) if chunk.seal_checked() => return Ok(()),
            Err(e) if std::str::from_utf8(&self.data).is_ok() => return Err(e),
            _ => {}
        }
        // Some cell is not UTF-8: parse again checking each, to report the first row at fault.
        chunk.truncate_rows(rows_before);
        self.parse_rows(chunk, true)
    }

    fn parse_rows(&self, chunk: &mut RowChunk, check_utf8: bool) -> Result<(), BlockError> {
        let data = &self.data[..];
        let ncols = self.ncols;
        // One scan of the block instead of one per cell: cells are only checked for NUL bytes
        // when the block holds one.
        let check_nul = memchr::memchr(0, data).is_some();
        let mut rows = 0u64;
        let fail = |rows: u64, kind| BlockError {
            row: rows + 1,
            kind,
            expected: ncols,
        };
        let plain = memchr::memchr(b'"', data).is_none()
            && memchr::memchr_iter(b'\r', data).all(|i| data.get(i + 1) == Some(&b'\n'));
        if plain {
            let mut ends: Vec<u32> = Vec::with_capacity(ncols + 4);
            chunk.begin_joined(self.delimiter);
            // One pass over the block finds the delimiters and the line ends together.
            let mut hits = Hits2::new(data, self.delimiter, b'\n');
            let mut start = 0;
            while start < data.len() {
                ends.clear();
                let mut nl = data.len();
                for i in hits.by_ref() {
                    if data[i] == b'\n' {
                        nl = i;
                        break;
                    }
                    ends.push((i - start) as u32);
                }
                let mut line = &data[start..nl];
                start = nl + 1;
                if let Some(l) = line.strip_suffix(b"\r") {
                    line = l;
                }
                ends.push(line.len() as u32);
                let rec = Split {
                    line,
                    ends: &ends,
                    delimiter: self.delimiter,
                };
                let checks = Checks {
                    utf8: check_utf8,
                    nul: check_nul,
                };
                match push_row(&rec, ncols, self.max_cell_bytes, checks, chunk) {
                    Ok(true) => rows += 1,
                    Ok(false) => {}
                    Err(kind) => {
                        chunk.discard_open_row();
                        return Err(fail(rows, kind));
                    }
                }
            }
        } else {
            let mut rdr = ::csv::ReaderBuilder::new()
                .delimiter(self.delimiter)
                .has_headers(false)
                .flexible(true)
                .buffer_capacity(64 * 1024)
                .from_reader(data);
            let mut rec = ::csv::ByteRecord::new();
            loop {
                match rdr.read_byte_record(&mut rec) {
                    Ok(false) => break,
                    Ok(true) => match push_row(
                        &rec,
                        ncols,
                        self.max_cell_bytes,
                        Checks {
                            utf8: check_utf8,
                            nul: check_nul,
                        },
                        chunk,
                    ) {
                        Ok(true) => rows += 1,
                        Ok(false) => {}
                        Err(kind) => {
                            chunk.discard_open_row();
                            return Err(fail(rows, kind));
                        }
                    },
                    Err(e) => return Err(fail(rows, BlockErrorKind::Csv(e.to_string()))),
                }
            }
        }
        if self.truncated {
            return Err(fail(rows, BlockErrorKind::CellTooLong(self.max_cell_bytes)));
        }
        Ok(())
    }
}

/// Parses the header record, the first record with a non-blank cell.
fn parse_header(
    record: &[u8],
    delimiter: u8,
    limits: &Limits,
) -> Result<Option<Vec<String>>, IngestError> {
    let mut rdr = ::csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(record);
    let mut rec = ::csv::ByteRecord::new();
    match rdr.read_byte_record(&mut rec) {
        Ok(false) => return Ok(None),
        Ok(true) => {}
        Err(e) => return Err(IngestError::CsvErrors(format!("Row 1: {e}"))),
    }
    if rec.iter().all(|f| f.trim_ascii().is_empty()) {
        return Ok(None);
    }
    if rec.len() > limits.max_columns {
        return Err(IngestError::TooManyColumns {
            found: rec.len(),
            limit: limits.max_columns,
        });
    }
    let mut raw = Vec::with_capacity(rec.len());
    for f in rec.iter() {
        if f.len() > limits.max_cell_bytes {
            return Err(IngestError::CsvErrors(format!(
                "Row 1: a header is longer than {} bytes",
                limits.max_cell_bytes
            )));
        }
        if memchr::memchr(0, f).is_some() {
            return Err(IngestError::NotText);
        }
        match std::str::from_utf8(f) {
            Ok(s) => raw.push(s),
            Err(_) => {
                return Err(IngestError::CsvErrors(
                    "Row 1: the header row is not valid UTF-8 text".into(),
                ));
            }
        }
    }
    // Trailing blank headers from trailing delimiters are dropped.
    while raw.len() > 1 && raw.last().is_some_and(|h| h.trim().is_empty()) {
        raw.pop();
    }
    Ok(Some(clean_headers(raw)))
}

/// Reads the decoded stream in blocks of complete records. The header and the first chunk are
/// parsed here; after that, when the sink takes raw blocks ([`RowSink::wants_blocks`]), blocks
/// go to it unparsed so its workers parse them in parallel, otherwise they are parsed here.
fn parse_stream<R, E, S>(
    mut source: R,
    encoding: TextEncoding,
    delimiter: u8,
    limits: &Limits,
    chunk_rows: usize,
    sink: &mut S,
) -> Result<ReadStats, E>
where
    R: Read,
    E: From<IngestError>,
    S: RowSink<E> + ?Sized,
{
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK_BYTES + 64 * 1024);
    let mut bytes: u64 = 0;
    let mut eof = false;
    // A header record longer than this is refused.
    let header_bound = limits.max_cell_bytes.saturating_mul(4).max(16 << 20);
    let mut target = BLOCK_BYTES;
    let headers = loop {
        if !eof {
            let before = buf.len();
            eof = fill(&mut source, &mut buf, target)?;
            bytes += (buf.len() - before) as u64;
        }
        let end = match next_record_end(&buf, 0, delimiter) {
            Some(e) => e,
            None if eof => buf.len(),
            None if buf.len() > header_bound => {
                return Err(IngestError::CsvErrors(format!(
                    "Row 1: a header is longer than {} bytes",
                    limits.max_cell_bytes
                ))
                .into());
            }
            None => {
                target = buf.len() * 2;
                continue;
            }
        };
        if end == 0 {
            return Err(IngestError::Empty.into());
        }
        let found = parse_header(&buf[..end], delimiter, limits)?;
        buf.drain(..end);
        if let Some(h) = found {
            break h;
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

    // A record longer than this cannot be valid: some field would exceed the cell limit.
    let max_record = limits
        .max_cell_bytes
        .saturating_add(2)
        .saturating_mul(2)
        .saturating_mul(ncols.max(1))
        .saturating_add(64)
        .max(BLOCK_BYTES);
    let mut chunk = RowChunk::new(ncols);
    chunk.reset(ncols, 1);
    let mut rows: u64 = 0; // rows parsed here, in chunks sent or in `chunk`
    let mut first_sent = false;
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let mut target = BLOCK_BYTES;
    let mut stats = ReadStats::default();
    loop {
        if !eof {
            let before = buf.len();
            eof = fill(&mut source, &mut buf, target)?;
            bytes += (buf.len() - before) as u64;
        }
        if buf.is_empty() {
            break;
        }
        let (end, truncated) = if eof {
            (buf.len(), false)
        } else {
            match last_record_end(&buf, delimiter) {
                0 if buf.len() > max_record => (buf.len(), true),
                0 => {
                    target = buf.len() * 2;
                    continue;
                }
                e => (e, false),
            }
        };
        target = BLOCK_BYTES;
        // The block takes the buffer; the incomplete tail moves to a fresh one.
        let mut next = spare.pop().unwrap_or_default();
        next.clear();
        next.extend_from_slice(&buf[end..]);
        let mut data = std::mem::replace(&mut buf, next);
        data.truncate(end);
        let block = CsvBlock {
            data,
            delimiter,
            ncols,
            max_cell_bytes: limits.max_cell_bytes,
            truncated,
        };
        if first_sent && sink.wants_blocks() {
            match sink.block(block)? {
                Some(b) => spare.push(b),
                None => {
                    stats.stopped_early = true;
                    break;
                }
            }
        } else {
            let before = chunk.len() as u64;
            block
                .parse_into(&mut chunk)
                .map_err(|e| e.locate(rows, limits))?;
            rows += chunk.len() as u64 - before;
            if rows > limits.max_rows {
                return Err(IngestError::TooManyRows {
                    limit: limits.max_rows,
                }
                .into());
            }
            spare.push(block.into_buffer());
            if chunk.len() >= chunk_rows {
                let full = std::mem::replace(&mut chunk, RowChunk::new(ncols));
                first_sent = true;
                match sink.chunk(full)? {
                    Some(mut c) => {
                        c.reset(ncols, rows + 1);
                        chunk = c;
                    }
                    None => {
                        stats.stopped_early = true;
                        break;
                    }
                }
            }
        }
        if truncated {
            break;
        }
    }
    if stats.stopped_early {
        stats.rows = rows;
        stats.bytes = bytes;
        return Ok(stats);
    }
    if rows == 0 {
        return Err(IngestError::NoCsvData.into());
    }
    if !chunk.is_empty() {
        sink.chunk(chunk)?;
    }
    stats.rows = rows;
    stats.bytes = bytes;
    Ok(stats)
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

    /// Collects every row, through raw blocks when `blocks` is set (parsed in arrival order, as
    /// the pipeline's writer does).
    struct Collect {
        blocks: bool,
        rows: Vec<Vec<String>>,
        limits: Limits,
    }

    impl Collect {
        fn take(&mut self, c: &RowChunk) {
            for i in 0..c.len() {
                self.rows.push(
                    c.row(i)
                        .iter()
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .collect(),
                );
            }
        }
    }

    impl RowSink<IngestError> for Collect {
        fn start(&mut self, _: &SourceInfo) -> Result<(), IngestError> {
            Ok(())
        }
        fn chunk(&mut self, c: RowChunk) -> Result<Option<RowChunk>, IngestError> {
            self.take(&c);
            Ok(Some(c))
        }
        fn wants_blocks(&self) -> bool {
            self.blocks
        }
        fn block(&mut self, b: CsvBlock) -> Result<Option<Vec<u8>>, IngestError> {
            let mut c = RowChunk::new(b.ncols());
            c.reset(b.ncols(), 0);
            let before = self.rows.len() as u64;
            b.parse_into(&mut c)
                .map_err(|e| e.locate(before, &self.limits))?;
            self.take(&c);
            Ok(Some(b.into_buffer()))
        }
    }

    fn collect(data: &[u8], blocks: bool) -> Result<Vec<Vec<String>>, IngestError> {
        let mut s = Collect {
            blocks,
            rows: Vec::new(),
            limits: Limits::default(),
        };
        super::super::read_rows(
            Input::Bytes {
                name: "f.csv",
                data,
            },
            &Limits::default(),
            100,
            &mut s,
        )?;
        Ok(s.rows)
    }

    /// The rows the CSV reader gives, with the same blank-row rule.
    fn reference(data: &[u8]) -> Vec<Vec<String>> {
        let mut r = ::csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(data);
        let mut out = Vec::new();
        for (i, rec) in r.byte_records().enumerate() {
            let rec = rec.unwrap();
            if i == 0
                || rec
                    .iter()
                    .all(|f| f.iter().all(|b| b.is_ascii_whitespace()))
            {
                continue;
            }
            out.push(
                rec.iter()
                    .take(3)
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .collect(),
            );
        }
        out
    }

    #[test]
    fn blocks_cut_at_record_boundaries_whatever_the_quoting() {
        // Several megabytes so records straddle block edges: quoted fields with delimiters,
        // line breaks and doubled quotes, a quote inside an unquoted field, CRLF, lone CR, blank
        // lines and trailing delimiters.
        let mut data = b"A,B,C\r\n".to_vec();
        let mut i = 0u64;
        while data.len() < 3 * BLOCK_BYTES + 12_345 {
            let line = match i % 9 {
                0 => format!("{i},\"x, \"\"y\"\"\nz\",w\r\n"),
                1 => format!("{i},5\" pipe,plain\n"),
                2 => format!("{i},\"\",\"{}\"\n", "q".repeat((i % 300) as usize)),
                3 => "\n\r\n,,\n".to_string(),
                4 => format!("{i},a,b,\r"),
                5 => format!("\"{i}\",\"multi\r\nline\",c\n"),
                _ => format!("{i},Ayuntamiento de Sevilla,{}\n", i * 7),
            };
            data.extend_from_slice(line.as_bytes());
            i += 1;
        }
        let want = reference(&data);
        assert!(want.len() > 30_000);
        assert_eq!(collect(&data, false).unwrap(), want);
        assert_eq!(collect(&data, true).unwrap(), want);
        // Without any quote (the direct splitter), with CRLF.
        let mut plain = b"A;B;C\r\n".to_vec();
        let mut i = 0u64;
        while plain.len() < 3 * BLOCK_BYTES + 777 {
            let line = match i % 5 {
                0 => "\r\n;;\r\n".to_string(),
                1 => format!("{i};x;y;\r\n"),
                _ => format!("{i};Diputaci\u{f3}n de {};{}\r\n", i % 97, i * 3),
            };
            plain.extend_from_slice(line.as_bytes());
            i += 1;
        }
        let plain_want: Vec<Vec<String>> = {
            let mut r = ::csv::ReaderBuilder::new()
                .has_headers(true)
                .delimiter(b';')
                .flexible(true)
                .from_reader(&plain[..]);
            r.records()
                .map(|x| x.unwrap())
                .filter(|x| x.iter().any(|f| !f.is_empty()))
                .map(|x| x.iter().take(3).map(String::from).collect())
                .collect()
        };
        assert_eq!(collect(&plain, true).unwrap(), plain_want);
    }

    #[test]
    fn errors_in_blocks_name_the_row_of_the_file() {
        let mut data = b"A,B\n".to_vec();
        for i in 0..200_000 {
            data.extend_from_slice(format!("{i},x\n").as_bytes());
            if i == 150_000 {
                data.extend_from_slice(b"\n,\n");
            }
        }
        data.extend_from_slice(b"7\n");
        for blocks in [false, true] {
            assert_eq!(
                collect(&data, blocks).unwrap_err().to_string(),
                "CSV parsing errors: Row 200001: Too few fields: expected 2 fields but parsed 1"
            );
        }
    }

    #[test]
    fn hits_are_memchr2s() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for len in 0..300usize {
            for _ in 0..20 {
                let hay: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        // Mostly the two bytes searched for, their neighbours and high bytes.
                        [b',', b'\n', b'-', b'\x0b', b'\xac', b'\x8a', b'a', 0][(x % 8) as usize]
                    })
                    .collect();
                let want: Vec<usize> = memchr::memchr2_iter(b',', b'\n', &hay).collect();
                assert_eq!(Hits2::new(&hay, b',', b'\n').collect::<Vec<_>>(), want);
                let want: Vec<usize> = memchr::memchr2_iter(0, 0xAC, &hay).collect();
                assert_eq!(Hits2::new(&hay, 0, 0xAC).collect::<Vec<_>>(), want);
            }
        }
    }

    #[test]
    fn block_checks_report_the_first_row_at_fault() {
        let block = |text: &[u8]| CsvBlock {
            data: text.to_vec(),
            delimiter: b',',
            ncols: 2,
            max_cell_bytes: 1000,
            truncated: false,
        };
        let parse = |text: &[u8]| {
            let mut c = RowChunk::new(2);
            c.reset(2, 1);
            block(text).parse_into(&mut c).map(|()| c)
        };
        let err = |text: &[u8]| parse(text).err().map(|e| (e.row, e.kind));
        // Unquoted and quoted blocks alike (a quote sends a block through the CSV reader).
        for q in [&b""[..], &b"\"q\",x\n"[..]] {
            let k = q.len().min(1) as u64;
            let with = |rest: &[u8]| [q, rest].concat();
            // Not UTF-8 in row 2, too few fields in row 4: row 2 is reported, as a reader going
            // row by row would.
            assert_eq!(
                err(&with(b"a,b\n\xff,b\nc,d\ne\n")),
                Some((2 + k, BlockErrorKind::NotUtf8))
            );
            // Too few fields first.
            assert_eq!(
                err(&with(b"a,b\nc\n\xff,b\n")),
                Some((2 + k, BlockErrorKind::TooFew(1)))
            );
            // Each cell is checked, not their concatenation: the two halves of an "é" in two
            // cells are not text.
            assert_eq!(
                err(&with(b"a,b\n\xc3,\xa9\n")),
                Some((2 + k, BlockErrorKind::NotUtf8))
            );
            assert_eq!(
                err(&with(b"a,b\nc,d\x00\n")),
                Some((2 + k, BlockErrorKind::NotText))
            );
            let c = parse(&with("a,Ponderación\r\n\nc,d,\n".as_bytes())).unwrap();
            assert_eq!(c.len() as u64, 2 + k);
            assert_eq!(c.row(k as usize).text(1), "Ponderación");
            assert_eq!(c.row(1 + k as usize).text(0), "c");
            assert_eq!(c.row(1 + k as usize).get(1), b"d");
            assert_eq!(c.joined(), if k == 0 { Some(b',') } else { None });
            if k == 0 {
                assert_eq!(c.row(0).bytes(), "a,Ponderación".as_bytes());
            }
        }
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
