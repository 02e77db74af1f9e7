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

/// Why a file is not read as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotText {
    /// A UTF-16 byte-order mark, or the NUL bytes UTF-16 puts between ASCII letters.
    Utf16,
    /// Neither valid UTF-8 nor plausible Latin-1/Windows-1252 text (NUL or control bytes, bytes
    /// Windows-1252 leaves undefined).
    Binary,
}

/// True for a byte no Latin-1/Windows-1252 text file holds: NUL and the C0 controls other than
/// tab, line feed, form feed, carriage return and the old end-of-file mark (0x1A), and the five
/// bytes Windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D).
#[inline]
pub fn implausible_latin1(b: u8) -> bool {
    matches!(
        b,
        0x00..=0x08 | 0x0B | 0x0E..=0x19 | 0x1B..=0x1F | 0x81 | 0x8D | 0x8F | 0x90 | 0x9D
    )
}

/// Detects the encoding: a UTF-8 BOM means UTF-8; otherwise the sample is UTF-8 if it decodes as
/// UTF-8 (a multi-byte character cut at the end of the sample is allowed unless the sample is
/// the whole file), else Latin-1 when every byte is plausible in Windows-1252 text. UTF-16 (a
/// byte-order mark, or NUL bytes between ASCII letters) and binary content (NUL bytes, control
/// bytes, bytes Windows-1252 leaves undefined) are refused.
pub fn sniff_encoding(sample: &[u8], whole_file: bool) -> Result<TextEncoding, NotText> {
    if sample.starts_with(b"\xFF\xFE") || sample.starts_with(b"\xFE\xFF") {
        return Err(NotText::Utf16);
    }
    if memchr::memchr(0, sample).is_some() {
        // UTF-16 without a byte-order mark: ASCII text with a NUL at every other byte.
        let n = sample.len().min(4096);
        let (mut even, mut odd) = (0usize, 0usize);
        for (i, b) in sample[..n].iter().enumerate() {
            if *b == 0 {
                if i % 2 == 0 {
                    even += 1;
                } else {
                    odd += 1;
                }
            }
        }
        return Err(if even.max(odd) * 3 >= n {
            NotText::Utf16
        } else {
            NotText::Binary
        });
    }
    if sample.starts_with(b"\xEF\xBB\xBF") {
        return Ok(TextEncoding::Utf8Bom);
    }
    match std::str::from_utf8(sample) {
        Ok(_) => Ok(TextEncoding::Utf8),
        Err(e) if e.error_len().is_none() && !whole_file => Ok(TextEncoding::Utf8),
        Err(_) if sample.iter().any(|b| implausible_latin1(*b)) => Err(NotText::Binary),
        Err(_) => Ok(TextEncoding::Latin1),
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
        assert_eq!(e(b"a,b\n1,2\n", true), Ok(TextEncoding::Utf8));
        assert_eq!(e(b"\xEF\xBB\xBFa,b\n", true), Ok(TextEncoding::Utf8Bom));
        assert_eq!(e(b"Ponderaci\xf3n;b\n", true), Ok(TextEncoding::Latin1));
        assert_eq!(e("Ponderación".as_bytes(), true), Ok(TextEncoding::Utf8));
        // A character cut by the end of a partial sample is still UTF-8; at the end of the
        // whole file it is Latin-1.
        assert_eq!(e(b"ab\xc3", false), Ok(TextEncoding::Utf8));
        assert_eq!(e(b"ab\xc3", true), Ok(TextEncoding::Latin1));
        assert_eq!(e(b"\xFF\xFEa\x00", true), Err(NotText::Utf16));
        assert_eq!(e(b"\xFE\xFF\x00a", true), Err(NotText::Utf16));
        // UTF-16 without a byte-order mark.
        assert_eq!(
            e(b"a\x00,\x00b\x00\n\x001\x00,\x002\x00", true),
            Err(NotText::Utf16)
        );
        // Binary content: NUL bytes, control bytes, bytes Windows-1252 leaves undefined.
        assert_eq!(
            e(b"a,b\n1,\x002\n3,4\n5,6\n7,8\n", true),
            Err(NotText::Binary)
        );
        assert_eq!(e(b"a,b\n1,\x81\xe9\n", true), Err(NotText::Binary));
        assert_eq!(e(b"a,b\n1,\x9d\n", true), Err(NotText::Binary));
        assert_eq!(e(b"a,b\n\x01\x02\xff,\xe9\n", true), Err(NotText::Binary));
        // Spanish Latin-1 text: a, e, n with accents and the ordinal marks.
        assert_eq!(
            e(
                b"Denominaci\xf3n;Pa\xeds\nCompa\xf1\xeda 1\xba;2\xaa Fase \x80\n",
                true
            ),
            Ok(TextEncoding::Latin1)
        );
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
