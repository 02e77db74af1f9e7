//! The regulatory knowledge base's document pipeline, pure: bytes in, structured text out
//! ([`extract`]), then chunks with their heading path, page range and article references
//! ([`chunk`]). No SQL, no HTTP, no async: the service runs [`extract::extract_isolated`] on a
//! blocking thread and stores what comes out.
//!
//! **Architecture invariant:** extraction never takes the server down. A parser panic, a file
//! past the byte or page limit, or one that takes longer than the time limit ends in an
//! [`ExtractError`] whose message is shown to the administrator, never in a crash.

pub mod chunk;
pub mod extract;
pub mod levers;

pub use chunk::{Chunk, ChunkOptions, article_refs, chunk};
pub use extract::{ExtractError, Extracted, Limits, extract, extract_isolated};

/// The document types the knowledge base reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// PDF: text per page, headings from the outline or from font sizes.
    Pdf,
    /// Word 2007+ (`.docx`): paragraphs with heading levels from the styles.
    Docx,
    /// UTF-8 plain text; a form feed starts a new page (as `pdftotext` writes).
    Txt,
}

impl Format {
    /// `pdf`, `docx` or `txt`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Pdf => "pdf",
            Format::Docx => "docx",
            Format::Txt => "txt",
        }
    }

    /// The format of a stored `as_str` value.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "pdf" => Some(Format::Pdf),
            "docx" => Some(Format::Docx),
            "txt" => Some(Format::Txt),
            _ => None,
        }
    }

    /// The content type the original is stored with.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Pdf => "application/pdf",
            Format::Docx => {
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
            }
            Format::Txt => "text/plain; charset=utf-8",
        }
    }
}

/// One piece of a document in reading order.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// A heading (with its level, 1 the highest) or body text.
    pub kind: BlockKind,
    /// The text, whitespace collapsed.
    pub text: String,
    /// The 1-based page it is on, when the format knows pages.
    pub page: Option<u32>,
}

/// What a [`Block`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// A heading of the given level (1 is the highest).
    Heading(u8),
    /// Body text (a paragraph).
    Paragraph,
}

/// Collapses runs of whitespace into one space and trims.
pub fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}
