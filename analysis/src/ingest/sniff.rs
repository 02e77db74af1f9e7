//! Sniffing a CSV file's encoding and delimiter from its first bytes.

use serde::{Deserialize, Serialize};

/// Text encoding of a CSV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextEncoding {
    /// UTF-8 without byte-order mark.
    Utf8,
    /// UTF-8 with a byte-order mark (as Excel writes "CSV UTF-8").
    Utf8Bom,
    /// Latin-1 / Windows-1252 (as older Excel versions write CSV in Spain).
    Latin1,
}

/// How many bytes are looked at to sniff encoding and delimiter.
pub const SNIFF_BYTES: usize = 1 << 20;

/// Detects the encoding: a UTF-8 BOM means UTF-8; otherwise the sample is UTF-8 if it decodes as
/// UTF-8 (a multi-byte character cut at the end of the sample is allowed unless the sample is
/// the whole file), else Latin-1. `UTF-16` byte-order marks are reported as unsupported by
/// returning `None`.
pub fn sniff_encoding(sample: &[u8], whole_file: bool) -> Option<TextEncoding> {
    if sample.starts_with(b"\xEF\xBB\xBF") {
        return Some(TextEncoding::Utf8Bom);
    }
    if sample.starts_with(b"\xFF\xFE") || sample.starts_with(b"\xFE\xFF") {
        return None;
    }
    match std::str::from_utf8(sample) {
        Ok(_) => Some(TextEncoding::Utf8),
        Err(e) if e.error_len().is_none() && !whole_file => Some(TextEncoding::Utf8),
        Err(_) => Some(TextEncoding::Latin1),
    }
}

/// Candidate delimiters, in order of preference on a tie.
pub const DELIMITERS: [u8; 4] = [b',', b';', b'\t', b'|'];

/// Counts each candidate delimiter per line, outside double quotes, over the first lines.
fn counts_per_line(sample: &[u8], max_lines: usize) -> Vec<[usize; 4]> {
    let mut lines = Vec::new();
    let mut cur = [0usize; 4];
    let mut in_quotes = false;
    let mut any = false;
    let mut i = 0;
    while i < sample.len() && lines.len() < max_lines {
        let b = sample[i];
        if b == b'"' {
            in_quotes = !in_quotes;
        } else if !in_quotes && (b == b'\n' || b == b'\r') {
            if any {
                lines.push(cur);
            }
            cur = [0; 4];
            any = false;
            if b == b'\r' && sample.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
        } else if !in_quotes {
            if let Some(k) = DELIMITERS.iter().position(|d| *d == b) {
                cur[k] += 1;
            }
            if !b.is_ascii_whitespace() {
                any = true;
            }
        }
        i += 1;
    }
    // The last line counts only when the sample holds the whole file, or it is the only line.
    if any && (lines.is_empty() || sample.len() < SNIFF_BYTES) && lines.len() < max_lines {
        lines.push(cur);
    }
    lines
}

/// Detects the delimiter: the candidate that appears in the header line and whose count per line
/// matches the header's in the most lines (then the larger header count, then the order of
/// [`DELIMITERS`]). Comma when nothing tells (a one-column file).
pub fn sniff_delimiter(sample: &[u8]) -> u8 {
    let lines = counts_per_line(sample, 50);
    let Some(header) = lines.first() else {
        return b',';
    };
    let mut best: Option<(usize, usize, usize)> = None; // (agreeing lines, header count, index)
    for k in 0..DELIMITERS.len() {
        if header[k] == 0 {
            continue;
        }
        let agree = lines.iter().filter(|l| l[k] == header[k]).count();
        let cand = (agree, header[k], k);
        best = match best {
            None => Some(cand),
            Some(b) if (cand.0, cand.1) > (b.0, b.1) => Some(cand),
            other => other,
        };
    }
    best.map_or(b',', |(_, _, k)| DELIMITERS[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings() {
        let e = |s: &[u8], whole: bool| sniff_encoding(s, whole);
        assert_eq!(e(b"a,b\n1,2\n", true), Some(TextEncoding::Utf8));
        assert_eq!(e(b"\xEF\xBB\xBFa,b\n", true), Some(TextEncoding::Utf8Bom));
        assert_eq!(e(b"Ponderaci\xf3n;b\n", true), Some(TextEncoding::Latin1));
        assert_eq!(e("Ponderación".as_bytes(), true), Some(TextEncoding::Utf8));
        // A character cut by the end of a partial sample is still UTF-8; at the end of the
        // whole file it is Latin-1.
        assert_eq!(e(b"ab\xc3", false), Some(TextEncoding::Utf8));
        assert_eq!(e(b"ab\xc3", true), Some(TextEncoding::Latin1));
        assert_eq!(e(b"\xFF\xFEa\x00", true), None);
    }

    #[test]
    fn delimiters() {
        assert_eq!(sniff_delimiter(b"a,b,c\n1,2,3\n"), b',');
        assert_eq!(sniff_delimiter(b"a;b;c\n1,5;2,5;3\n4;5;6\n"), b';');
        assert_eq!(sniff_delimiter(b"a\tb\n1,5\t2\n"), b'\t');
        assert_eq!(sniff_delimiter(b"a;b\n\"x;y\";2\n"), b';');
        assert_eq!(sniff_delimiter(b"\"name, full\",b\n\"x, y\",2\n"), b',');
        assert_eq!(sniff_delimiter(b"only\n1\n"), b',');
        assert_eq!(sniff_delimiter(b""), b',');
    }
}
