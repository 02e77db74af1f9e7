//! Checks of an XLS workbook made before calamine opens it.
//!
//! An XLS file is a compound file (sectors chained by an allocation table) holding a BIFF
//! record stream. calamine reads it whole: it follows sector chains until their end (a chain
//! that loops grows without bound), builds the allocation table from every sector the header
//! lists (repeats included), reserves room for the cells a sheet's DIMENSIONS record declares,
//! copies a shared string into every cell that references it, writes out every formula as
//! text, and turns each sheet into a dense rectangle from its top-left to its bottom-right
//! cell (two cells far apart make billions). It also indexes some records without checking
//! their length.
//!
//! So the file is walked here first, as calamine will walk it, keeping only counters: chains
//! must end without looping and stay inside the file and the allocation table; records that
//! calamine would index past their end, DIMENSIONS that would underflow, cells beyond the
//! BIFF8 grid (IV65536) and runs of more than [`MAX_CONTINUES`] CONTINUE records are refused;
//! and the memory calamine will hold (file copies, allocation tables, shared strings, cells,
//! their copies of shared strings, formula text, the dense ranges) is estimated and held to
//! [`Limits::max_workbook_bytes`]. Where calamine refuses a file by itself, with its own message,
//! the walk stops and leaves it to calamine.

use super::{IngestError, Limits};

const SIGNATURE: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";
const ENDOFCHAIN: u32 = 0xFFFF_FFFE;
const RESERVED: u32 = 0xFFFF_FFFA;
const DIFSECT: u32 = 0xFFFF_FFFC;
/// A cell in calamine's list of a sheet's cells (position and value).
const CELL_COST: u64 = 40;
/// A cell of the dense value range.
const DENSE_COST: u64 = 32;
/// A formula in calamine's list (position and text) and in the dense formula range.
const FORMULA_COST: u64 = 32;
const FORMULA_DENSE_COST: u64 = 24;
/// A shared string besides its text.
const STRING_COST: u64 = 32;
/// Most CONTINUE records after one record (calamine takes them one by one from the front of
/// a list, which costs the square of their number).
const MAX_CONTINUES: usize = 20_000;
/// The BIFF8 grid: columns A to IV.
const BIFF_COLS: u64 = 256;

fn broken(what: &str) -> IngestError {
    IngestError::ExcelParse(format!("broken XLS workbook: {what}"))
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

fn u32s(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4).map(|c| u32_at(c, 0))
}

/// `Ok(None)`: calamine refuses the file by itself; nothing more to check.
type Step<T> = Result<Option<T>, IngestError>;

/// The memory calamine will hold, as estimated so far.
struct Budget {
    used: u64,
    limit: u64,
}

impl Budget {
    fn charge(&mut self, bytes: u64, cells: u64) -> Result<(), IngestError> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            return Err(IngestError::ExcelParse(format!(
                "the workbook needs more than {} bytes of memory to load ({cells} cells so far)",
                self.limit
            )));
        }
        Ok(())
    }
}

/// Checks an XLS workbook before calamine opens it.
pub(super) fn check_xls(data: &[u8], limits: &Limits) -> Result<(), IngestError> {
    let mut budget = Budget {
        used: 0,
        limit: limits.max_workbook_bytes,
    };
    let Some(stream) = workbook_stream(data, &mut budget)? else {
        return Ok(());
    };
    check_biff(&stream, &mut budget)
}

/// The sectors of the compound file, as calamine addresses them.
struct Cfb<'a> {
    body: &'a [u8],
    size: usize,
    maxid: u64,
}

impl<'a> Cfb<'a> {
    fn sector(&self, id: u32) -> Step<&'a [u8]> {
        if u64::from(id) > self.maxid {
            return Ok(None);
        }
        let start = id as usize * self.size;
        if start > self.body.len() {
            return Err(broken("a sector lies past the end of the file"));
        }
        Ok(Some(
            &self.body[start..(start + self.size).min(self.body.len())],
        ))
    }

    /// calamine's `get_chain`: the chain from `start`, up to `len` bytes.
    fn chain(&self, start: u32, fat: &[u32], len: usize) -> Step<Vec<u8>> {
        let mut out = Vec::new();
        let mut id = start;
        let mut steps = 0u64;
        while id != ENDOFCHAIN {
            steps += 1;
            if steps > self.maxid + 1 {
                return Err(broken("a sector chain loops"));
            }
            let Some(s) = self.sector(id)? else {
                return Ok(None);
            };
            let take = s.len().min(len - out.len());
            out.extend_from_slice(&s[..take]);
            if out.len() >= len {
                break;
            }
            id = *fat
                .get(id as usize)
                .ok_or_else(|| broken("a sector chain leaves the allocation table"))?;
        }
        Ok(Some(out))
    }
}

/// calamine's mini-stream `get_chain`.
fn mini_chain(
    start: u32,
    minifat: &[u32],
    ministream: &[u8],
    maxid: u64,
    len: usize,
) -> Step<Vec<u8>> {
    let mut out = Vec::new();
    let mut id = start;
    let mut steps = 0u64;
    while id != ENDOFCHAIN {
        steps += 1;
        if steps > maxid + 1 {
            return Err(broken("a sector chain loops"));
        }
        if u64::from(id) > maxid {
            return Ok(None);
        }
        let at = id as usize * 64;
        let Some(s) = ministream.get(at..at + 64) else {
            return Err(broken("a mini sector lies outside the mini stream"));
        };
        let take = s.len().min(len - out.len());
        out.extend_from_slice(&s[..take]);
        if out.len() >= len {
            break;
        }
        id = *minifat
            .get(id as usize)
            .ok_or_else(|| broken("a sector chain leaves the allocation table"))?;
    }
    Ok(Some(out))
}

/// The workbook stream, read as calamine reads it.
fn workbook_stream(data: &[u8], budget: &mut Budget) -> Step<Vec<u8>> {
    if data.len() < 512 || &data[..8] != SIGNATURE {
        return Ok(None);
    }
    let version = u16_at(data, 26);
    let size = match u16_at(data, 30) {
        9 => 512,
        12 => 4096,
        _ => return Ok(None),
    };
    if u16_at(data, 32) != 6 || data.len() < size {
        return Ok(None);
    }
    let cfb = Cfb {
        body: &data[size..],
        size,
        maxid: (data.len() / size) as u64,
    };
    // calamine keeps a copy of the sectors it reads.
    budget.charge(data.len() as u64, 0)?;
    // The sectors listing the allocation table: 109 in the header, then a chain.
    let mut difat: Vec<u32> = u32s(&data[76..512]).collect();
    let mut sid = u32_at(data, 68);
    let mut n = 0u64;
    while sid < RESERVED {
        n += 1;
        if n > cfb.maxid + 1 {
            return Ok(None);
        }
        let Some(s) = cfb.sector(sid)? else {
            return Ok(None);
        };
        if s.len() % 4 != 0 {
            return Err(broken("a truncated sector"));
        }
        difat.extend(u32s(s));
        let Some(next) = difat.pop() else {
            return Ok(None);
        };
        sid = next;
    }
    // The allocation table: every listed sector, repeats included.
    let mut fat_bytes = 0u64;
    for &id in difat.iter().filter(|id| **id < DIFSECT) {
        let Some(s) = cfb.sector(id)? else {
            return Ok(None);
        };
        if s.len() % 4 != 0 {
            return Err(broken("a truncated sector"));
        }
        fat_bytes += s.len() as u64;
    }
    budget.charge(fat_bytes, 0)?;
    let mut fat: Vec<u32> = Vec::with_capacity((fat_bytes / 4) as usize);
    for &id in difat.iter().filter(|id| **id < DIFSECT) {
        if let Some(s) = cfb.sector(id)? {
            fat.extend(u32s(s));
        }
    }
    drop(difat);
    // The directory.
    let Some(dirs) = cfb.chain(u32_at(data, 48), &fat, usize::MAX)? else {
        return Ok(None);
    };
    budget.charge(dirs.len() as u64, 0)?;
    let entries: Vec<&[u8]> = dirs.chunks(128).filter(|c| c.len() == 128).collect();
    let Some(root) = entries.first() else {
        return Ok(None);
    };
    if version != 3 && u32_at(root, 116) == ENDOFCHAIN {
        return Ok(None);
    }
    let entry_len = |e: &[u8]| -> usize {
        if size == 512 {
            u32_at(e, 120) as usize
        } else {
            u64::from_le_bytes(e[120..128].try_into().unwrap_or([0; 8])) as usize
        }
    };
    // The mini stream, for streams under 4096 bytes.
    let mini_fat_sectors = u32_at(data, 64) as usize;
    let (minifat, ministream) = if mini_fat_sectors > 0 {
        let Some(ms) = cfb.chain(u32_at(root, 116), &fat, entry_len(root))? else {
            return Ok(None);
        };
        let Some(mf) = cfb.chain(u32_at(data, 60), &fat, mini_fat_sectors * size)? else {
            return Ok(None);
        };
        if mf.len() % 4 != 0 {
            return Err(broken("a truncated sector"));
        }
        budget.charge((ms.len() + mf.len()) as u64, 0)?;
        (u32s(&mf).collect::<Vec<u32>>(), ms)
    } else {
        (Vec::new(), Vec::new())
    };
    let named = |name: &str| {
        entries.iter().find(|e| {
            let units: Vec<u16> = e[..64]
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .take_while(|u| *u != 0)
                .collect();
            String::from_utf16_lossy(&units).eq_ignore_ascii_case(name)
        })
    };
    for name in ["Workbook", "Book"] {
        let Some(e) = named(name) else {
            continue;
        };
        let (start, len) = (u32_at(e, 116), entry_len(e));
        let stream = if len < 4096 {
            mini_chain(start, &minifat, &ministream, cfb.maxid * 8, len)?
        } else {
            cfb.chain(start, &fat, len)?
        };
        if let Some(s) = stream {
            budget.charge(s.len() as u64, 0)?;
            return Ok(Some(s));
        }
    }
    Ok(None)
}

/// One BIFF record with the CONTINUE records after it.
struct Record<'a> {
    typ: u16,
    data: &'a [u8],
    cont: Vec<&'a [u8]>,
}

/// calamine's record iterator; `Ok(None)` at the end or where calamine stops with an error.
struct Records<'a> {
    stream: &'a [u8],
}

impl<'a> Records<'a> {
    fn next(&mut self) -> Step<Record<'a>> {
        let s = self.stream;
        if s.len() < 4 {
            return Ok(None);
        }
        let typ = u16_at(s, 0);
        let len = u16_at(s, 2) as usize;
        if s.len() < len + 4 {
            return Ok(None);
        }
        let data = &s[4..4 + len];
        self.stream = &s[4 + len..];
        let mut cont = Vec::new();
        while self.stream.len() > 4 && u16_at(self.stream, 0) == 0x003C {
            let l = u16_at(self.stream, 2) as usize;
            if self.stream.len() < l + 4 {
                return Ok(None);
            }
            if cont.len() == MAX_CONTINUES {
                return Err(broken(&format!(
                    "a record is followed by more than {MAX_CONTINUES} CONTINUE records"
                )));
            }
            cont.push(&self.stream[4..4 + l]);
            self.stream = &self.stream[4 + l..];
        }
        Ok(Some(Record { typ, data, cont }))
    }
}

/// The most bytes each shared string takes once decoded (`per_char` per character: 3 from
/// UTF-16, 6 when a CodePage record makes calamine decode the UTF-16 bytes with a legacy code
/// page), following calamine's `parse_sst`; `Ok(None)` where calamine stops with an error.
fn shared_string_sizes(r: &Record<'_>, per_char: u32) -> Step<Vec<u32>> {
    if r.data.len() < 8 {
        return Ok(None);
    }
    let mut data = &r.data[8..];
    let mut next_cont = 0;
    let mut sizes = Vec::new();
    loop {
        if data.is_empty() {
            match r.cont.get(next_cont) {
                Some(c) => {
                    data = c;
                    next_cont += 1;
                }
                None => break,
            }
            if data.is_empty() {
                sizes.push(0);
                continue;
            }
        }
        if data.len() < 3 {
            return Ok(None);
        }
        let cch = u16_at(data, 0) as usize;
        let flags = data[2];
        data = &data[3..];
        let mut high = flags & 1 != 0;
        let mut runs = 0usize;
        let mut ext = 0usize;
        if flags & 0x8 != 0 {
            if data.len() < 2 {
                return Err(broken("a shared string is cut short"));
            }
            runs = u16_at(data, 0) as usize;
            data = &data[2..];
        }
        if flags & 0x4 != 0 {
            if data.len() < 4 {
                return Err(broken("a shared string is cut short"));
            }
            ext = u32_at(data, 0) as i32 as usize;
            data = &data[4..];
        }
        let mut left = cch;
        while left > 0 {
            let (chars, bytes) = if high {
                let l = (data.len() / 2).min(left);
                (l, 2 * l)
            } else {
                let l = data.len().min(left);
                (l, l)
            };
            data = &data[bytes..];
            left -= chars;
            if left > 0 {
                let Some(c) = r.cont.get(next_cont) else {
                    return Ok(None);
                };
                next_cont += 1;
                let Some((&f, rest)) = c.split_first() else {
                    return Err(broken("an empty CONTINUE record inside a shared string"));
                };
                high = f & 1 != 0;
                data = rest;
            }
        }
        sizes.push(per_char * cch as u32);
        // Formatting runs and phonetic data, skipped across CONTINUE records.
        let mut skip = runs.saturating_mul(4).saturating_add(ext);
        while skip > 0 {
            if data.is_empty() {
                let Some(c) = r.cont.get(next_cont) else {
                    return Ok(None);
                };
                next_cont += 1;
                data = c;
                continue;
            }
            let l = skip.min(data.len());
            data = &data[l..];
            skip -= l;
        }
    }
    Ok(Some(sizes))
}

/// A sheet's cells as calamine will hold them.
#[derive(Default)]
struct Sheet {
    cells: u64,
    formulas: u64,
    value_box: Option<(u64, u64, u64, u64)>,
    formula_box: Option<(u64, u64, u64, u64)>,
}

fn grow(b: &mut Option<(u64, u64, u64, u64)>, row: u64, col: u64) {
    *b = Some(match *b {
        None => (row, row, col, col),
        Some((r0, r1, c0, c1)) => (r0.min(row), r1.max(row), c0.min(col), c1.max(col)),
    });
}

fn area(b: Option<(u64, u64, u64, u64)>) -> u64 {
    b.map_or(0, |(r0, r1, c0, c1)| (r1 - r0 + 1) * (c1 - c0 + 1))
}

fn check_biff(stream: &[u8], budget: &mut Budget) -> Result<(), IngestError> {
    // Workbook globals, up to their EOF.
    let mut records = Records { stream };
    let mut sheets: Vec<usize> = Vec::new();
    let mut strings: Vec<u32> = Vec::new();
    // Longest name a formula may write out (sheet and defined names), in bytes.
    let mut longest_name = 5u64;
    let mut utf16 = true;
    while let Some(r) = records.next()? {
        match r.typ {
            // BOF, CodePage, FilePass, DateMode, ExternSheet: calamine reads a number first.
            0x0809 | 0x0042 | 0x002F | 0x0022 | 0x0017 if r.data.len() < 2 => {
                return Err(broken("a workbook record is cut short"));
            }
            0x0042 => utf16 = u16_at(r.data, 0) == 1200,
            0x0085 => {
                if r.data.len() < 6 {
                    return Err(broken("a sheet record is cut short"));
                }
                sheets.push(u32_at(r.data, 0) as usize);
                longest_name = longest_name.max(3 * r.data.len() as u64);
            }
            0x0018 => {
                if r.data.len() < 14 || u16_at(r.data, 4) as usize > r.data.len() {
                    return Err(broken("a defined name record is cut short"));
                }
                longest_name = longest_name.max(3 * r.data.len() as u64);
            }
            0x00FC => {
                let Some(sizes) = shared_string_sizes(&r, if utf16 { 3 } else { 6 })? else {
                    return Ok(());
                };
                let text: u64 = sizes.iter().map(|s| u64::from(*s)).sum();
                budget.charge(sizes.len() as u64 * STRING_COST + text, 0)?;
                strings = sizes;
            }
            0x000A => break,
            _ => {}
        }
    }
    let mut total_cells = 0u64;
    for pos in sheets {
        let Some(sub) = stream.get(pos..) else {
            return Err(broken("a sheet starts past the end of the workbook stream"));
        };
        let mut records = Records { stream: sub };
        let mut sheet = Sheet::default();
        let mut seen_bof = false;
        let mut depth = 0usize;
        let mut formula_pos = (0u64, 0u64);
        while let Some(r) = records.next()? {
            if depth > 0 {
                match r.typ {
                    0x0809 => depth += 1,
                    0x000A => depth -= 1,
                    _ => {}
                }
                continue;
            }
            let d = r.data;
            // Cell records start with the row and the column.
            let at = |min: usize| -> Step<(u64, u64)> {
                if d.len() < min {
                    return Ok(None);
                }
                let (row, col) = (u64::from(u16_at(d, 0)), u64::from(u16_at(d, 2)));
                if col >= BIFF_COLS {
                    return Err(broken("a cell lies beyond the last column (IV)"));
                }
                Ok(Some((row, col)))
            };
            let mut value = |sheet: &mut Sheet, (row, col): (u64, u64), text: u64| {
                sheet.cells += 1;
                grow(&mut sheet.value_box, row, col);
                budget.charge(CELL_COST + text, total_cells + sheet.cells)
            };
            match r.typ {
                0x0809 => {
                    if seen_bof {
                        depth += 1;
                    } else {
                        seen_bof = true;
                    }
                }
                0x0200 => {
                    let (rf, rl, cf, cl) = match d.len() {
                        10 => (
                            u64::from(u16_at(d, 0)),
                            u64::from(u16_at(d, 2)),
                            u64::from(u16_at(d, 4)),
                            u64::from(u16_at(d, 6)),
                        ),
                        14 | 16 => (
                            u64::from(u32_at(d, 0)),
                            u64::from(u32_at(d, 4)),
                            u64::from(u16_at(d, 8)),
                            u64::from(u16_at(d, 10)),
                        ),
                        _ => return Ok(()),
                    };
                    let cf = if cf > 0xFF || cl < cf { 0 } else { cf };
                    let (rows, cols) = if rl >= 1 && cl >= 1 {
                        if rl - 1 < rf || cl - 1 < cf {
                            return Err(broken("a sheet's DIMENSIONS end before they start"));
                        }
                        (rl - rf, cl - cf)
                    } else {
                        (1, 1)
                    };
                    budget.charge(
                        rows.saturating_mul(cols).saturating_mul(CELL_COST),
                        total_cells + sheet.cells,
                    )?;
                }
                0x0203 | 0x0205 | 0x027E => {
                    let min = match r.typ {
                        0x0203 => 14,
                        0x0205 => 8,
                        _ => 10,
                    };
                    let Some(p) = at(min)? else { return Ok(()) };
                    value(&mut sheet, p, 0)?;
                }
                0x0204 | 0x00D6 => {
                    let Some(p) = at(6)? else { return Ok(()) };
                    value(&mut sheet, p, 3 * d.len() as u64)?;
                }
                0x00FD => {
                    let Some(p) = at(10)? else { return Ok(()) };
                    if let Some(s) = strings.get(u32_at(d, 6) as usize) {
                        value(&mut sheet, p, u64::from(*s))?;
                    }
                }
                0x0207 => {
                    value(&mut sheet, formula_pos, 3 * d.len() as u64)?;
                }
                0x00BD => {
                    if d.len() < 6 {
                        return Ok(());
                    }
                    let row = u64::from(u16_at(d, 0));
                    let first = u64::from(u16_at(d, 2));
                    let last = u64::from(u16_at(d, d.len() - 2));
                    if last < first {
                        return Err(broken("a MULRK record ends before it starts"));
                    }
                    if d.len() as u64 != 6 + 6 * (last - first + 1) {
                        return Ok(());
                    }
                    if last >= BIFF_COLS {
                        return Err(broken("a cell lies beyond the last column (IV)"));
                    }
                    for col in first..=last {
                        value(&mut sheet, (row, col), 0)?;
                    }
                }
                0x0006 => {
                    let Some(p) = at(20)? else { return Ok(()) };
                    formula_pos = p;
                    // Usually a value cell too (a string value follows in a STRING record).
                    value(&mut sheet, p, 0)?;
                    sheet.formulas += 1;
                    grow(&mut sheet.formula_box, p.0, p.1);
                    budget.charge(
                        FORMULA_COST + formula_text(&d[20..], longest_name),
                        total_cells + sheet.cells,
                    )?;
                }
                0x000A => break,
                _ => {}
            }
        }
        // The dense ranges built from the lists.
        budget.charge(
            area(sheet.value_box)
                .saturating_mul(DENSE_COST)
                .saturating_add(area(sheet.formula_box).saturating_mul(FORMULA_DENSE_COST)),
            total_cells + sheet.cells,
        )?;
        total_cells += sheet.cells + sheet.formulas;
    }
    Ok(())
}

/// The most text calamine may write out for a formula's tokens: 8 bytes per token byte, the
/// spaces of space attributes (`PtgAttrSpace`, up to 255 from 4 bytes), and a name for every
/// byte that may be a name or 3-D reference token.
fn formula_text(rgce: &[u8], longest_name: u64) -> u64 {
    let mut text = 8 * rgce.len() as u64;
    for (i, b) in rgce.iter().enumerate() {
        match b {
            0x19 if matches!(rgce.get(i + 1), Some(0x40 | 0x41)) => {
                text += u64::from(rgce.get(i + 3).copied().unwrap_or(0));
            }
            0x23 | 0x43 | 0x63 | 0x39 | 0x59 | 0x79 | 0x3a | 0x5a | 0x7a | 0x3b | 0x5b | 0x7b
            | 0x3c | 0x5c | 0x7c | 0x3d | 0x5d | 0x7d => text += longest_name,
            _ => {}
        }
    }
    text
}
