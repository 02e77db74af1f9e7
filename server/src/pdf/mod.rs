//! PDF export with typst embedded as a library: a report (read from its shared document, or
//! built by the server for a dashboard or a template's preview) becomes typst markup
//! ([`markup`], every user text escaped), its charts SVG drawn here ([`chart`]), its images
//! asked of an [`AssetResolver`] ([`assets`]), and typst lays it out with the fonts embedded in
//! the binary ([`fonts`]) and writes the PDF: the chosen orientation on 794 by 1123 px pages
//! with 20 mm margins, the branded header band, 'Page n of m', and the sections and headings
//! as the PDF's outline.
//!
//! Pure: no SQL, no HTTP, no file or network access (typst's package downloads are not built
//! in, and the compilation sees only the files this module hands it). [`render`] is CPU-bound:
//! call it on a blocking thread.

pub mod assets;
pub mod chart;
pub mod fixture;
pub mod fonts;
pub mod markup;
pub mod model;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::LazyLock;

use typst::text::Font;
use typst_as_lib::TypstEngine;
use typst_layout::PagedDocument;

pub use assets::{
    AssetError, AssetResolver, ImageAsset, MemoryAssets, NoAssets, Resolved, resolve,
};
pub use model::Report;

/// Why a PDF could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    /// typst refused the markup (a defect of this module: user text cannot cause it).
    #[error("layout failed: {0}")]
    Layout(String),
    /// The PDF writer failed.
    #[error("PDF writing failed: {0}")]
    Write(String),
    /// typst panicked.
    #[error("the PDF engine failed")]
    Panicked,
}

/// The embedded fonts, parsed once: ours and typst's own (never the system's).
static FONTS: LazyLock<Vec<Font>> = LazyLock::new(|| {
    let mut fonts: Vec<Font> = fonts::FONT_FILES
        .iter()
        .flat_map(|bytes| Font::iter(typst::foundations::Bytes::new(*bytes)))
        .collect();
    fonts.extend(typst_kit::fonts::embedded().map(|(font, _)| font));
    fonts
});

/// Compiles typst `markup` with `files` (name, bytes) into a PDF.
pub fn compile(markup: String, files: Vec<(String, Vec<u8>)>) -> Result<Vec<u8>, PdfError> {
    let run = move || -> Result<Vec<u8>, PdfError> {
        let (names, blobs): (Vec<String>, Vec<Vec<u8>>) = files.into_iter().unzip();
        let engine = TypstEngine::builder()
            .main_file(("main.typ", markup))
            .fonts(FONTS.iter().cloned())
            .with_static_file_resolver(names.iter().map(String::as_str).zip(blobs))
            // Keep typst's memoisation cache from growing across exports.
            .comemo_evict_max_age(Some(0))
            .build();
        let doc: PagedDocument = engine
            .compile()
            .output
            .map_err(|e| PdfError::Layout(format!("{e:?}")))?;
        typst_pdf::pdf(&doc, &typst_pdf::PdfOptions::default())
            .map_err(|e| PdfError::Write(format!("{e:?}")))
    };
    catch_unwind(AssertUnwindSafe(run)).unwrap_or(Err(PdfError::Panicked))
}

/// The PDF of a report whose assets were resolved (see [`resolve`]).
pub fn render(report: &Report, resolved: &Resolved) -> Result<Vec<u8>, PdfError> {
    // An image whose body does not decode is shown as unavailable, like a missing one.
    let mut usable = resolved.clone();
    usable.images.retain(|_, img| assets::decodes(img));
    let source = markup::source(report, &usable);
    compile(source.markup, source.files)
}

#[cfg(test)]
pub(crate) mod tests;
