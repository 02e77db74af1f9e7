//! Receiving an uploaded multipart field, shared by every upload route (exposure files, a lever's
//! analysis files, avatars): the field streams into a temporary file of the storage while its
//! content is noted ([`Seen`]: size, head, NUL bytes), and is refused with 413 as soon as it
//! passes its bound, without reading more.

use axum::extract::multipart::{Field, MultipartError};
use axum::http::{HeaderMap, header};
use tokio::io::AsyncWriteExt;

use crate::error::{ApiError, ApiResult};
use crate::service::files::kind::Seen;
use crate::state::AppState;
use crate::storage::TempPath;

/// A malformed multipart body, as a 400 naming what the parser found.
pub fn multipart_error(e: MultipartError) -> ApiError {
    ApiError::bad_request(
        "invalid_multipart",
        format!("Invalid upload: {}", e.body_text()),
    )
}

/// Room for the multipart framing (and small text fields) beyond the files themselves.
pub const MULTIPART_SLACK: u64 = 1024 * 1024;

/// Refuses at once, with `ApiError::TooLarge(too_large)`, a request whose declared length is
/// over `bound` (a body without a declared length is bounded while received).
pub fn refuse_declared_size(headers: &HeaderMap, bound: u64, too_large: &str) -> ApiResult<()> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > bound) {
        return Err(ApiError::TooLarge(too_large.into()));
    }
    Ok(())
}

/// A multipart field the route does not take, as a 400 naming it.
pub fn unexpected_field(name: Option<&str>) -> ApiError {
    ApiError::bad_request(
        "invalid_multipart",
        format!("Unexpected upload field: {}", name.unwrap_or("(unnamed)")),
    )
}

/// Streams `field` into a new temporary file; more than `max_bytes` is refused with
/// `ApiError::TooLarge(too_large)` (the temporary file is removed with the returned path or on
/// refusal).
pub async fn receive_field(
    state: &AppState,
    field: &mut Field<'_>,
    max_bytes: u64,
    too_large: &str,
) -> ApiResult<(TempPath, Seen)> {
    let (file, path) = state
        .storage
        .temp_file()
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    let mut file = tokio::fs::File::from_std(file);
    let mut seen = Seen::default();
    while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
        seen.feed(&chunk);
        if seen.size > max_bytes {
            return Err(ApiError::TooLarge(too_large.into()));
        }
        file.write_all(&chunk)
            .await
            .map_err(|e| ApiError::Internal(e.into()))?;
    }
    file.flush()
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    Ok((path, seen))
}

/// A short text field of a form (`which` names it in the refusals): at most `max` bytes, UTF-8,
/// no control characters.
pub async fn text_field(field: &mut Field<'_>, which: &str, max: usize) -> ApiResult<String> {
    let mut value = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
        value.extend_from_slice(&chunk);
        if value.len() > max {
            return Err(ApiError::validation(format!("{which} is too long.")));
        }
    }
    let value = String::from_utf8(value)
        .map_err(|_| ApiError::validation(format!("{which} must be text.")))?;
    if value.chars().any(char::is_control) {
        return Err(ApiError::validation(format!(
            "{which} must not contain control characters."
        )));
    }
    Ok(value)
}
