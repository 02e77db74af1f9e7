//! The server's use of the PDF engine ([`crate::pdf`]): at most [`MAX_CONCURRENT_EXPORTS`]
//! layouts at once on this instance (each on a blocking thread, so requests keep being served
//! meanwhile), and the assets of a report.

use tokio::sync::Semaphore;

use crate::error::{ApiError, ApiResult};
use crate::pdf::{self, AssetResolver, Report};
use crate::service::dashboard::export::ExportFile;

/// Layouts running at once on one instance (each takes a core and some tens of MB).
pub const MAX_CONCURRENT_EXPORTS: usize = 2;

static EXPORTS: Semaphore = Semaphore::const_new(MAX_CONCURRENT_EXPORTS);

/// The media type of a PDF.
pub const PDF: &str = "application/pdf";

fn failed(e: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(anyhow::anyhow!("PDF export failed: {e}"))
}

/// The PDF of `report`: its assets asked of `assets`, then laid out on a blocking thread.
pub async fn render(report: Report, assets: &dyn AssetResolver) -> ApiResult<Vec<u8>> {
    let resolved = pdf::resolve(&report, assets).await.map_err(failed)?;
    let _permit = EXPORTS.acquire().await.map_err(failed)?;
    let started = std::time::Instant::now();
    let bytes = tokio::task::spawn_blocking(move || pdf::render(&report, &resolved))
        .await
        .map_err(failed)?
        .map_err(failed)?;
    tracing::debug!(
        bytes = bytes.len(),
        ms = started.elapsed().as_millis() as u64,
        "PDF exported"
    );
    Ok(bytes)
}

/// A file name for a PDF from a report's or client's name: letters, digits, spaces, dots,
/// hyphens and underscores kept, the rest as underscores.
pub fn file_name(name: &str) -> String {
    let s: String = name
        .trim()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    let s = s.trim_matches(['.', ' ']).to_owned();
    if s.is_empty() { "report".into() } else { s }
}

/// `bytes` as a PDF file to download.
pub fn file(name: &str, bytes: Vec<u8>) -> ExportFile {
    ExportFile {
        name: format!("{}.pdf", file_name(name)),
        content_type: PDF,
        bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(file_name("Q3 Report"), "Q3 Report");
        assert_eq!(file_name("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(file_name("a\"b\r\nc"), "a_b__c");
        assert_eq!(file_name("  ..  "), "report");
    }
}
