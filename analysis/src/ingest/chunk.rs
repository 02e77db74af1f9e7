//! A block of parsed rows stored flat: one byte buffer and one end offset per cell, so a chunk
//! of tens of thousands of rows costs a handful of allocations, reused from chunk to chunk.
//!
//! Each cell is followed by one separator byte: NUL for cells pushed one by one, the file's
//! delimiter for the rows of an unquoted CSV block, which are copied line by line as they stand
//! ([`RowChunk::push_joined_row`]) and can be written back the same way.

/// The kind of a cell as the source file stored it. CSV cells are all [`CellKind::Text`];
/// spreadsheet cells keep their type so a processed spreadsheet writes numbers as numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CellKind {
    /// Text (or any CSV cell).
    #[default]
    Text,
    /// A number; the text is its shortest decimal form.
    Number,
    /// A boolean; the text is `TRUE` or `FALSE`.
    Bool,
    /// A date; the text is `YYYY-MM-DD` (or `YYYY-MM-DDTHH:MM:SS` when it has a time).
    Date,
    /// A spreadsheet error value such as `#N/A`; the text is the error.
    Error,
}

/// Rows of a fixed number of columns, stored flat.
#[derive(Debug, Clone, Default)]
pub struct RowChunk {
    data: Vec<u8>,
    /// The bytes of `data`, moved here once checked as UTF-8 by [`RowChunk::seal`], so reading a
    /// cell as text needs no further check.
    text: String,
    ends: Vec<u32>,
    kinds: Vec<CellKind>,
    ncols: usize,
    rows: usize,
    first_row: u64,
    typed: bool,
    /// Every row was pushed by [`RowChunk::push_joined_row`] with this delimiter.
    joined: Option<u8>,
}

impl RowChunk {
    /// An empty chunk for rows of `ncols` cells.
    pub fn new(ncols: usize) -> RowChunk {
        RowChunk {
            ncols,
            ..RowChunk::default()
        }
    }

    /// Empties the chunk, keeping its allocations, for rows of `ncols` cells whose first row
    /// has the 1-based data row number `first_row`.
    pub fn reset(&mut self, ncols: usize, first_row: u64) {
        self.unseal();
        self.data.clear();
        self.ends.clear();
        self.kinds.clear();
        self.ncols = ncols;
        self.rows = 0;
        self.first_row = first_row;
        self.typed = false;
        self.joined = None;
    }

    /// Number of complete rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// True when the chunk holds no row.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Number of columns of every row.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// 1-based data row number (header excluded) of the first row.
    pub fn first_row(&self) -> u64 {
        self.first_row
    }

    /// Bytes of the cells held (separators excluded), for memory accounting.
    pub fn byte_len(&self) -> usize {
        self.all_bytes().len() - self.ends.len()
    }

    /// Appends one cell to the row being built.
    #[inline]
    pub fn push_cell(&mut self, bytes: &[u8], kind: CellKind) {
        self.unseal();
        self.joined = None;
        self.data.extend_from_slice(bytes);
        self.ends.push(self.data.len() as u32);
        self.data.push(0);
        if kind != CellKind::Text && !self.typed {
            self.typed = true;
            self.kinds.resize(self.ends.len() - 1, CellKind::Text);
        }
        if self.typed {
            self.kinds.push(kind);
        }
    }

    /// Appends the bytes of a cell being built piecewise; finish it with [`RowChunk::end_cell`].
    #[inline]
    pub fn extend_cell(&mut self, bytes: &[u8]) {
        self.unseal();
        self.data.extend_from_slice(bytes);
    }

    /// Finishes a cell started with [`RowChunk::extend_cell`].
    #[inline]
    pub fn end_cell(&mut self, kind: CellKind) {
        self.push_cell(&[], kind);
    }

    /// Starts rows pushed with [`RowChunk::push_joined_row`]: when the chunk is empty, it is
    /// then known to hold only such rows until another cell is pushed.
    pub fn begin_joined(&mut self, delimiter: u8) {
        if self.ends.is_empty() {
            self.joined = Some(delimiter);
        }
    }

    /// The delimiter separating the cells of every row, when every row was pushed whole from an
    /// unquoted CSV line by [`RowChunk::push_joined_row`] (so no cell holds the delimiter, a
    /// double quote, a line feed or a carriage return) since [`RowChunk::begin_joined`].
    #[inline]
    pub fn joined(&self) -> Option<u8> {
        self.joined
    }

    /// Appends a whole row from an unquoted CSV `line` whose first `ends.len()` fields end at
    /// `ends` (offsets in `line`, each followed by the delimiter but the last): one copy of the
    /// line instead of one per cell. `ends` must hold [`RowChunk::ncols`] increasing offsets
    /// within `line`, and no row may be open.
    #[inline]
    pub fn push_joined_row(&mut self, line: &[u8], ends: &[u32], delimiter: u8) {
        self.unseal();
        if ends.is_empty() {
            self.rows += 1;
            return;
        }
        let base = self.data.len() as u32;
        let last = ends.last().map_or(0, |e| *e as usize);
        self.data.extend_from_slice(&line[..last]);
        self.data.push(delimiter);
        self.ends.extend(ends.iter().map(|e| base + e));
        if self.typed {
            self.kinds.resize(self.ends.len(), CellKind::Text);
        }
        self.rows += 1;
    }

    /// Closes the row being built: pads missing cells with blanks.
    #[inline]
    pub fn end_row(&mut self) {
        let want = (self.rows + 1) * self.ncols;
        while self.ends.len() < want {
            self.push_cell(&[], CellKind::Text);
        }
        self.rows += 1;
    }

    /// Drops the cells of the row being built.
    pub fn discard_open_row(&mut self) {
        self.unseal();
        let keep = self.rows * self.ncols;
        self.ends.truncate(keep);
        if self.typed {
            self.kinds.truncate(keep);
        }
        // The last complete cell and its separator stay.
        let end = self.ends.last().map_or(0, |e| *e as usize + 1);
        self.data.truncate(end);
    }

    /// Keeps the first `rows` rows (fewer than held) and drops the rest and any open row.
    pub fn truncate_rows(&mut self, rows: usize) {
        if rows < self.rows {
            self.rows = rows;
        }
        self.discard_open_row();
    }

    /// Number of cells already pushed for the row being built.
    #[inline]
    pub fn cells_in_open_row(&self) -> usize {
        self.ends.len() - self.rows * self.ncols
    }

    /// Row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> RowRef<'_> {
        RowRef {
            chunk: self,
            base: i * self.ncols,
        }
    }

    /// Total capacity held by the chunk's buffers, in bytes.
    pub fn capacity_bytes(&self) -> usize {
        self.data.capacity()
            + self.text.capacity()
            + self.ends.capacity() * 4
            + self.kinds.capacity()
    }

    /// Checks the cells as UTF-8 once, so [`RowRef::text`] then reads them without checking
    /// each. Cells that are not valid UTF-8 stay readable as bytes.
    pub fn seal(&mut self) {
        if self.text.is_empty() && !self.data.is_empty() {
            match String::from_utf8(std::mem::take(&mut self.data)) {
                Ok(t) => self.text = t,
                Err(e) => self.data = e.into_bytes(),
            }
        }
    }

    /// Seals the chunk ([`RowChunk::seal`]) and tells whether all its cells are valid UTF-8.
    pub fn seal_checked(&mut self) -> bool {
        self.seal();
        self.sealed() || self.all_bytes().is_empty()
    }

    /// True when [`RowChunk::seal`] found the cells valid UTF-8.
    #[inline]
    fn sealed(&self) -> bool {
        !self.text.is_empty()
    }

    #[inline]
    fn unseal(&mut self) {
        if self.sealed() {
            self.data = std::mem::take(&mut self.text).into_bytes();
        }
    }

    #[inline]
    fn all_bytes(&self) -> &[u8] {
        if self.sealed() {
            self.text.as_bytes()
        } else {
            &self.data
        }
    }
}

/// A borrowed row of a [`RowChunk`].
#[derive(Debug, Clone, Copy)]
pub struct RowRef<'a> {
    chunk: &'a RowChunk,
    base: usize,
}

impl<'a> RowRef<'a> {
    /// Number of cells.
    #[inline]
    pub fn len(&self) -> usize {
        self.chunk.ncols
    }

    /// True when the row has no cell.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.chunk.ncols == 0
    }

    /// The bytes of cell `c` (blank when out of range).
    #[inline]
    pub fn get(&self, c: usize) -> &'a [u8] {
        if c >= self.chunk.ncols {
            return &[];
        }
        let idx = self.base + c;
        let start = if idx == 0 {
            0
        } else {
            self.chunk.ends[idx - 1] as usize + 1
        };
        &self.chunk.all_bytes()[start..self.chunk.ends[idx] as usize]
    }

    /// The bytes of all the row's cells, each but the last followed by its separator (NUL, or
    /// the delimiter in a [`RowChunk::joined`] chunk: then they are the row's CSV line).
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        if self.chunk.ncols == 0 {
            return &[];
        }
        let start = if self.base == 0 {
            0
        } else {
            self.chunk.ends[self.base - 1] as usize + 1
        };
        &self.chunk.all_bytes()[start..self.chunk.ends[self.base + self.chunk.ncols - 1] as usize]
    }

    /// The kind of cell `c`.
    #[inline]
    pub fn kind(&self, c: usize) -> CellKind {
        if self.chunk.typed {
            self.chunk
                .kinds
                .get(self.base + c)
                .copied()
                .unwrap_or_default()
        } else {
            CellKind::Text
        }
    }

    /// The text of cell `c`, when it is valid UTF-8 (ingest guarantees it is).
    #[inline]
    pub fn text(&self, c: usize) -> &'a str {
        if self.chunk.sealed() && c < self.chunk.ncols {
            let idx = self.base + c;
            let start = if idx == 0 {
                0
            } else {
                self.chunk.ends[idx - 1] as usize + 1
            };
            return self
                .chunk
                .text
                .get(start..self.chunk.ends[idx] as usize)
                .unwrap_or("");
        }
        std::str::from_utf8(self.get(c)).unwrap_or("")
    }

    /// All cells, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        (0..self.chunk.ncols).map(move |c| self.get(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_chunks_read_the_same() {
        let mut c = RowChunk::new(2);
        c.reset(2, 1);
        for cell in ["a", "Ponderación", "", "x"] {
            c.push_cell(cell.as_bytes(), CellKind::Text);
        }
        c.end_row();
        c.end_row();
        let before: Vec<String> = (0..2)
            .flat_map(|r| (0..2).map(move |k| (r, k)))
            .map(|(r, k)| c.row(r).text(k).to_string())
            .collect();
        c.seal();
        let after: Vec<String> = (0..2)
            .flat_map(|r| (0..2).map(move |k| (r, k)))
            .map(|(r, k)| c.row(r).text(k).to_string())
            .collect();
        assert_eq!(before, after);
        assert_eq!(c.row(0).bytes(), "a\0Ponderación".as_bytes());
        // Writing after sealing works on the bytes again.
        c.push_cell(b"\xff", CellKind::Text);
        c.end_row();
        c.seal();
        assert_eq!(c.row(2).get(0), b"\xff");
        assert_eq!(c.row(2).text(0), "");
        assert_eq!(c.row(1).text(0), "");
        assert_eq!(c.row(0).text(1), "Ponderación");
    }

    #[test]
    fn rows_and_kinds() {
        let mut c = RowChunk::new(3);
        c.push_cell(b"a", CellKind::Text);
        c.push_cell(b"1", CellKind::Number);
        c.end_row();
        c.push_cell(b"bb", CellKind::Text);
        c.end_row();
        assert_eq!(c.len(), 2);
        assert_eq!(c.row(0).get(0), b"a");
        assert_eq!(c.row(0).get(1), b"1");
        assert_eq!(c.row(0).kind(1), CellKind::Number);
        assert_eq!(c.row(0).get(2), b"");
        assert_eq!(c.row(1).get(0), b"bb");
        assert_eq!(c.row(1).get(1), b"");
        assert_eq!(c.row(1).kind(0), CellKind::Text);
        c.reset(2, 10);
        assert!(c.is_empty());
        assert_eq!(c.first_row(), 10);
    }
}
