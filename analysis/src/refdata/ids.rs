//! Identifier normalisation and check characters: Spanish NIF (legal entities, DNI, NIE) and
//! ISO 17442 LEI, plus the name folding used for name-based matching.
//!
//! Everything here works on the stack: a NIF is 9 bytes, a LEI 20, and both pack into an integer
//! key for the hash indexes, so the per-row path allocates nothing.

use std::fmt;

/// Organisation keys whose control character must be a letter (Orden EHA/451/2008).
const LETTER_CONTROL_KEYS: &[u8] = b"NPQRSW";
/// Organisation keys whose control character must be a digit.
const DIGIT_CONTROL_KEYS: &[u8] = b"ABEH";
/// Organisation keys that accept either a letter or a digit.
const EITHER_CONTROL_KEYS: &[u8] = b"CDFGJUV";
/// Control letters of legal-entity NIFs, indexed by the control digit.
const ENTITY_CONTROL_LETTERS: &[u8; 10] = b"JABCDEFGHI";
/// Control letters of DNI/NIE numbers, indexed by the number modulo 23.
const DNI_LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";

/// A normalised, check-character-valid Spanish NIF (9 ASCII characters, upper case).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Nif([u8; 9]);

/// Why a NIF was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NifError {
    /// Nothing left after removing spaces, dots and hyphens.
    Empty,
    /// Not 9 characters of the shape letter/digits/control.
    Format,
    /// Well formed, but the control character is not the computed one.
    CheckCharacter {
        /// The control character(s) the number should carry (a letter, a digit, or either).
        expected: [u8; 2],
    },
}

impl fmt::Display for NifError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NifError::Empty => f.write_str("empty"),
            NifError::Format => {
                f.write_str("not a NIF (expected a key letter, 7 digits and a control character)")
            }
            NifError::CheckCharacter { expected } => {
                let a = expected[0] as char;
                if expected[1] != 0 {
                    write!(
                        f,
                        "invalid check character (expected {} or {})",
                        a, expected[1] as char
                    )
                } else {
                    write!(f, "invalid check character (expected {a})")
                }
            }
        }
    }
}

impl Nif {
    /// Normalises and validates a NIF as written in a file: upper-cases, drops spaces, dots,
    /// hyphens and slashes, accepts an `ES` VAT prefix, then checks the control character.
    pub fn parse(raw: &str) -> Result<Nif, NifError> {
        // Already normalised (nine upper-case letters or digits): nothing to strip or fold.
        if let Ok(b) = <[u8; 9]>::try_from(raw.as_bytes())
            && b.iter()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        {
            validate(&b)?;
            return Ok(Nif(b));
        }
        let mut buf = [0u8; 9];
        let mut n = 0usize;
        let mut seen = 0usize;
        // Collect up to 11 significant characters (ES + 9).
        let mut tmp = [0u8; 11];
        for &b in raw.as_bytes() {
            match b {
                b' ' | b'.' | b'-' | b'/' | b'\t' | b'\r' | b'\n' => continue,
                _ => {}
            }
            if seen == tmp.len() {
                return Err(NifError::Format);
            }
            tmp[seen] = b.to_ascii_uppercase();
            seen += 1;
        }
        if seen == 0 {
            return Err(NifError::Empty);
        }
        let mut start = 0;
        if seen == 11 && tmp[0] == b'E' && tmp[1] == b'S' {
            start = 2;
        }
        if seen - start != 9 {
            return Err(NifError::Format);
        }
        for &b in &tmp[start..seen] {
            if !b.is_ascii_alphanumeric() {
                return Err(NifError::Format);
            }
            buf[n] = b;
            n += 1;
        }
        validate(&buf)?;
        Ok(Nif(buf))
    }

    /// The normalised text (always 9 ASCII characters).
    pub fn as_str(&self) -> &str {
        // The bytes are ASCII alphanumerics by construction.
        std::str::from_utf8(&self.0).unwrap_or("")
    }

    /// The organisation key letter (or the first digit of a DNI).
    pub fn key_letter(&self) -> u8 {
        self.0[0]
    }

    /// The 63-bit packed key used by the indexes.
    pub fn key(&self) -> u64 {
        pack7(&self.0)
    }

    /// Builds a legal-entity NIF from its key letter and 7 digits, computing the control character
    /// (a letter for keys N, P, Q, R, S, W, a digit otherwise). Used by the synthetic generators.
    pub fn from_parts(key: u8, digits: u32) -> Option<Nif> {
        if digits > 9_999_999 || !key.is_ascii_uppercase() {
            return None;
        }
        let mut buf = [0u8; 9];
        buf[0] = key;
        let mut d = digits;
        for i in (1..=7).rev() {
            buf[i] = b'0' + (d % 10) as u8;
            d /= 10;
        }
        let c = entity_control_digit(&buf[1..8]);
        buf[8] = if LETTER_CONTROL_KEYS.contains(&key) || EITHER_CONTROL_KEYS.contains(&key) {
            ENTITY_CONTROL_LETTERS[c as usize]
        } else {
            b'0' + c
        };
        validate(&buf).ok()?;
        Some(Nif(buf))
    }
}

impl fmt::Debug for Nif {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Nif({})", self.as_str())
    }
}

impl fmt::Display for Nif {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

fn entity_control_digit(digits: &[u8]) -> u8 {
    let mut total = 0u32;
    for (i, &b) in digits.iter().enumerate() {
        let d = (b - b'0') as u32;
        if i % 2 == 1 {
            total += d;
        } else {
            let dd = d * 2;
            total += dd / 10 + dd % 10;
        }
    }
    ((10 - total % 10) % 10) as u8
}

fn all_digits(b: &[u8]) -> bool {
    b.iter().all(u8::is_ascii_digit)
}

fn dni_letter(number: u32) -> u8 {
    DNI_LETTERS[(number % 23) as usize]
}

fn parse_digits(b: &[u8]) -> u32 {
    b.iter().fold(0u32, |acc, &c| acc * 10 + (c - b'0') as u32)
}

fn validate(b: &[u8; 9]) -> Result<(), NifError> {
    let first = b[0];
    let ctl = b[8];
    if first.is_ascii_digit() {
        // DNI: 8 digits and a letter.
        if !all_digits(&b[..8]) || !ctl.is_ascii_uppercase() {
            return Err(NifError::Format);
        }
        let exp = dni_letter(parse_digits(&b[..8]));
        return if ctl == exp {
            Ok(())
        } else {
            Err(NifError::CheckCharacter { expected: [exp, 0] })
        };
    }
    if !all_digits(&b[1..8]) {
        return Err(NifError::Format);
    }
    match first {
        b'X' | b'Y' | b'Z' => {
            // NIE: the letter stands for 0, 1, 2 in front of the 7 digits.
            let lead = (first - b'X') as u32;
            let exp = dni_letter(lead * 10_000_000 + parse_digits(&b[1..8]));
            if ctl == exp {
                Ok(())
            } else {
                Err(NifError::CheckCharacter { expected: [exp, 0] })
            }
        }
        b'K' | b'L' | b'M' => {
            let exp = dni_letter(parse_digits(&b[1..8]));
            if ctl == exp {
                Ok(())
            } else {
                Err(NifError::CheckCharacter { expected: [exp, 0] })
            }
        }
        _ => {
            let c = entity_control_digit(&b[1..8]);
            let letter = ENTITY_CONTROL_LETTERS[c as usize];
            let digit = b'0' + c;
            if LETTER_CONTROL_KEYS.contains(&first) {
                if ctl == letter {
                    Ok(())
                } else {
                    Err(NifError::CheckCharacter {
                        expected: [letter, 0],
                    })
                }
            } else if DIGIT_CONTROL_KEYS.contains(&first) {
                if ctl == digit {
                    Ok(())
                } else {
                    Err(NifError::CheckCharacter {
                        expected: [digit, 0],
                    })
                }
            } else if EITHER_CONTROL_KEYS.contains(&first) {
                if ctl == letter || ctl == digit {
                    Ok(())
                } else {
                    Err(NifError::CheckCharacter {
                        expected: [letter, digit],
                    })
                }
            } else {
                Err(NifError::Format)
            }
        }
    }
}

fn pack7(b: &[u8]) -> u64 {
    b.iter()
        .fold(0u64, |acc, &c| (acc << 7) | (c & 0x7f) as u64)
}

/// A normalised ISO 17442 Legal Entity Identifier whose check digits are valid.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lei([u8; 20]);

/// Why a LEI was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeiError {
    /// Nothing left after removing spaces and hyphens.
    Empty,
    /// Not 20 characters from A-Z and 0-9 ending in two digits.
    Format,
    /// Well formed, but the ISO 7064 MOD 97-10 check fails.
    CheckDigits,
}

impl fmt::Display for LeiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LeiError::Empty => "empty",
            LeiError::Format => "not a LEI (expected 20 letters and digits)",
            LeiError::CheckDigits => "invalid check digits (ISO 17442 MOD 97-10)",
        })
    }
}

fn base36(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some((c - b'0') as u32),
        b'A'..=b'Z' => Some((c - b'A') as u32 + 10),
        _ => None,
    }
}

/// ISO 7064 MOD 97-10 remainder of an alphanumeric string (letters count as two digits).
fn mod97(chars: &[u8]) -> Option<u32> {
    let mut r = 0u32;
    for &c in chars {
        let v = base36(c)?;
        r = if v >= 10 {
            (r * 100 + v) % 97
        } else {
            (r * 10 + v) % 97
        };
    }
    Some(r)
}

impl Lei {
    /// Normalises (upper-case, no spaces or hyphens) and validates a LEI.
    pub fn parse(raw: &str) -> Result<Lei, LeiError> {
        let mut buf = [0u8; 20];
        let mut n = 0usize;
        for &b in raw.as_bytes() {
            if matches!(b, b' ' | b'-' | b'\t' | b'\r' | b'\n') {
                continue;
            }
            if n == 20 {
                return Err(LeiError::Format);
            }
            let u = b.to_ascii_uppercase();
            if !u.is_ascii_alphanumeric() {
                return Err(LeiError::Format);
            }
            buf[n] = u;
            n += 1;
        }
        if n == 0 {
            return Err(LeiError::Empty);
        }
        if n != 20 || !buf[18].is_ascii_digit() || !buf[19].is_ascii_digit() {
            return Err(LeiError::Format);
        }
        if mod97(&buf) != Some(1) {
            return Err(LeiError::CheckDigits);
        }
        Ok(Lei(buf))
    }

    /// Completes an 18-character base with its two check digits. Used by the synthetic generators.
    pub fn with_check_digits(base18: &str) -> Option<Lei> {
        let b = base18.as_bytes();
        if b.len() != 18 {
            return None;
        }
        let mut buf = [0u8; 20];
        for (i, &c) in b.iter().enumerate() {
            let u = c.to_ascii_uppercase();
            base36(u)?;
            buf[i] = u;
        }
        buf[18] = b'0';
        buf[19] = b'0';
        let r = mod97(&buf)?;
        let check = 98 - r;
        buf[18] = b'0' + (check / 10) as u8;
        buf[19] = b'0' + (check % 10) as u8;
        Lei::parse(std::str::from_utf8(&buf).ok()?).ok()
    }

    /// The normalised text (20 characters).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or("")
    }

    /// The packed key used by the indexes (base 36, fits in 104 bits).
    pub fn key(&self) -> u128 {
        self.0
            .iter()
            .fold(0u128, |acc, &c| acc * 36 + base36(c).unwrap_or(0) as u128)
    }
}

impl fmt::Debug for Lei {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Lei({})", self.as_str())
    }
}

impl fmt::Display for Lei {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Maximum length of a folded name kept on the stack; longer names fall back to a heap string.
pub const NAME_BUF: usize = 192;

/// Folds one character for name matching: lower-case ASCII, Latin accents removed, anything that
/// is not a letter or digit becomes a separator (`None`).
fn fold_char(c: char) -> Option<char> {
    if c.is_ascii_alphanumeric() {
        return Some(c.to_ascii_lowercase());
    }
    let folded = match c {
        'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' | 'Á' | 'À' | 'Â' | 'Ä' | 'Ã' | 'Å' => 'a',
        'é' | 'è' | 'ê' | 'ë' | 'É' | 'È' | 'Ê' | 'Ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' | 'Í' | 'Ì' | 'Î' | 'Ï' => 'i',
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ø' | 'Ó' | 'Ò' | 'Ô' | 'Ö' | 'Õ' | 'Ø' => 'o',
        'ú' | 'ù' | 'û' | 'ü' | 'Ú' | 'Ù' | 'Û' | 'Ü' => 'u',
        'ñ' | 'Ñ' => 'n',
        'ç' | 'Ç' => 'c',
        'ý' | 'ÿ' | 'Ý' => 'y',
        c if c.is_alphanumeric() => return c.to_lowercase().next(),
        _ => return None,
    };
    Some(folded)
}

/// Folds a name into `buf` (trimmed, case-folded, accents removed, punctuation and runs of spaces
/// collapsed to one space). Returns `None` when the folded form does not fit the buffer.
pub fn fold_name_into<'b>(name: &str, buf: &'b mut [u8; NAME_BUF]) -> Option<&'b str> {
    let mut n = 0usize;
    let mut pending_space = false;
    for c in name.chars() {
        match fold_char(c) {
            Some(f) => {
                if pending_space && n > 0 {
                    if n >= NAME_BUF {
                        return None;
                    }
                    buf[n] = b' ';
                    n += 1;
                }
                pending_space = false;
                let mut tmp = [0u8; 4];
                let s = f.encode_utf8(&mut tmp);
                if n + s.len() > NAME_BUF {
                    return None;
                }
                buf[n..n + s.len()].copy_from_slice(s.as_bytes());
                n += s.len();
            }
            None => pending_space = true,
        }
    }
    std::str::from_utf8(&buf[..n]).ok()
}

/// Folds a name into a new string (used when building indexes).
pub fn fold_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut pending_space = false;
    for c in name.chars() {
        match fold_char(c) {
            Some(f) => {
                if pending_space && !out.is_empty() {
                    out.push(' ');
                }
                pending_space = false;
                out.push(f);
            }
            None => pending_space = true,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_public_nifs_validate() {
        for s in [
            "P2807900B",
            "P0801900B",
            "S7800001E",
            "S0811001G",
            "S4111001F",
            "S4611001A",
            "Q2826000H",
            "Q2801660H",
        ] {
            assert_eq!(
                Nif::parse(s).map(|n| n.to_string()),
                Ok(s.to_string()),
                "{s}"
            );
        }
    }

    #[test]
    fn nif_normalisation() {
        assert_eq!(
            Nif::parse(" es-p28.079.00 b ").unwrap().as_str(),
            "P2807900B"
        );
        assert_eq!(Nif::parse("ESQ2826000H").unwrap().as_str(), "Q2826000H");
        assert_eq!(Nif::parse(""), Err(NifError::Empty));
        assert_eq!(Nif::parse("   "), Err(NifError::Empty));
        assert_eq!(Nif::parse("P280790"), Err(NifError::Format));
        assert_eq!(Nif::parse("P28079000B"), Err(NifError::Format));
        assert_eq!(Nif::parse("PÑ807900B"), Err(NifError::Format));
    }

    #[test]
    fn nif_check_characters() {
        assert_eq!(Nif::parse("Q9900001J").unwrap().as_str(), "Q9900001J");
        assert_eq!(
            Nif::parse("Q9900001A"),
            Err(NifError::CheckCharacter {
                expected: [b'J', 0]
            })
        );
        assert_eq!(Nif::parse("P9900005A").unwrap().as_str(), "P9900005A");
        assert_eq!(Nif::parse("S9900007G").unwrap().as_str(), "S9900007G");
        // Company with a digit control; a letter is refused for key A.
        assert!(Nif::parse("A28015865").is_ok());
        assert!(Nif::parse("A2801586F").is_err());
        // DNI and NIE.
        assert!(Nif::parse("12345678Z").is_ok());
        assert!(Nif::parse("12345678A").is_err());
        assert!(Nif::parse("X1234567L").is_ok());
    }

    #[test]
    fn nif_from_parts_round_trips() {
        for (k, d) in [
            (b'Q', 9900001u32),
            (b'P', 9900005),
            (b'S', 9900007),
            (b'A', 2801586),
        ] {
            let n = Nif::from_parts(k, d).unwrap();
            assert_eq!(Nif::parse(n.as_str()), Ok(n));
        }
    }

    #[test]
    fn public_leis_validate() {
        for s in [
            "ZTMSNXROF84AHWJNKQ93",
            "P41R60HC414IWQA1XW02",
            "QKL54NQY28TCDAI75F60",
            "5493006YXS1U5GIHE750",
            "549300DTUYXVMJXZNY75",
        ] {
            assert!(Lei::parse(s).is_ok(), "{s}");
        }
        assert_eq!(
            Lei::parse("ZTMSNXROF84AHWJNKQ94"),
            Err(LeiError::CheckDigits)
        );
        assert_eq!(
            Lei::parse("ztms nxro-f84ahwjnkq93").unwrap().as_str(),
            "ZTMSNXROF84AHWJNKQ93"
        );
        assert_eq!(Lei::parse("ZTMSNXROF84AHWJNKQ9"), Err(LeiError::Format));
        assert_eq!(Lei::parse(""), Err(LeiError::Empty));
        let l = Lei::with_check_digits("999900ABCDEFGHIJ12").unwrap();
        assert!(Lei::parse(l.as_str()).is_ok());
    }

    #[test]
    fn names_fold() {
        assert_eq!(
            fold_name("  Banco Europeo de Inversiones (BEI) "),
            "banco europeo de inversiones bei"
        );
        assert_eq!(
            fold_name("Banco Asiático de Desarrollo"),
            "banco asiatico de desarrollo"
        );
        let mut buf = [0u8; NAME_BUF];
        assert_eq!(
            fold_name_into("EUROPEAN   Investment-Bank", &mut buf),
            Some("european investment bank")
        );
    }
}
