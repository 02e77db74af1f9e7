//! Receiving an uploaded multipart field, shared by every upload route (exposure files, a lever's
//! analysis files, avatars): the field streams into a temporary file of the storage while its
//! content is noted ([`Seen`]: size, head, NUL bytes), and is refused with 413 as soon as it
//! passes its bound, without reading more.

use axum::extract::multipart::{Field, MultipartError};
use tempfile::TempPath;
use tokio::io::AsyncWriteExt;

use crate::error::{ApiError, ApiResult};
use crate::service::files::kind::Seen;
use crate::state::AppState;

/// A malformed multipart body, as a 400 naming what the parser found.
pub fn multipart_error(e: MultipartError) -> ApiError {
    ApiError::bad_request(
        "invalid_multipart",
        format!("Invalid upload: {}", e.body_text()),
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
    let temp = state
        .storage
        .temp_file()
        .map_err(|e| ApiError::Internal(e.into()))?;
    let (file, path) = temp.into_parts();
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
