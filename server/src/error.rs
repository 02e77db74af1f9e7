//! The server's one error type and the JSON error body `{code, message}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// The body of every error response.
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ErrorBody {
    /// Stable snake_case code the web client switches on.
    pub code: String,
    /// Human-readable message (from the spec's catalogue where it has one).
    pub message: String,
}

/// Every error an API call can end with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: the request is malformed or refers to something invalid.
    #[error("{message}")]
    BadRequest {
        /// Stable code.
        code: &'static str,
        /// Message.
        message: String,
    },
    /// 401: no valid session.
    #[error("Authentication required")]
    Unauthenticated,
    /// 401 with a specific code and message (e.g. wrong credentials).
    #[error("{message}")]
    Unauthorized {
        /// Stable code.
        code: &'static str,
        /// Message.
        message: String,
    },
    /// 403: signed in but not allowed.
    #[error("{0}")]
    Forbidden(String),
    /// 404.
    #[error("{message}")]
    NotFound {
        /// Stable code.
        code: &'static str,
        /// Message.
        message: String,
    },
    /// 409: conflicts with the current state.
    #[error("{message}")]
    Conflict {
        /// Stable code.
        code: &'static str,
        /// Message.
        message: String,
    },
    /// 422: the input fails validation.
    #[error("{message}")]
    Validation {
        /// Stable code.
        code: &'static str,
        /// Message.
        message: String,
    },
    /// 413: the request body is too large.
    #[error("{0}")]
    TooLarge(String),
    /// 429: rate limited.
    #[error("{0}")]
    RateLimited(String),
    /// 500: database failure (details logged, never returned).
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// 500: anything else (details logged, never returned).
    #[error("internal error: {0}")]
    Internal(#[from] anyhow::Error),
}

/// `Result` with [`ApiError`] as the default error.
pub type ApiResult<T, E = ApiError> = Result<T, E>;

impl ApiError {
    /// A 422 with the given message.
    pub fn validation(message: impl Into<String>) -> Self {
        ApiError::Validation {
            code: "validation_failed",
            message: message.into(),
        }
    }
    /// A 404 with the given message.
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::NotFound {
            code: "not_found",
            message: message.into(),
        }
    }
    /// A 400 with the given code and message.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::BadRequest {
            code,
            message: message.into(),
        }
    }
    /// The 403 a viewer gets for any change.
    pub fn read_only() -> Self {
        ApiError::Forbidden("Read-only access: viewers cannot make changes".into())
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Unauthenticated | ApiError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound { .. } => StatusCode::NOT_FOUND,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Validation { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Database(_) | ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The stable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest { code, .. }
            | ApiError::Unauthorized { code, .. }
            | ApiError::NotFound { code, .. }
            | ApiError::Conflict { code, .. }
            | ApiError::Validation { code, .. } => code,
            ApiError::Unauthenticated => "unauthenticated",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::TooLarge(_) => "too_large",
            ApiError::RateLimited(_) => "rate_limited",
            ApiError::Database(_) | ApiError::Internal(_) => "internal",
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let message = match &self {
            ApiError::Database(e) => {
                tracing::error!(error = %e, "database error");
                "An unexpected error occurred. Please try again.".to_string()
            }
            ApiError::Internal(e) => {
                tracing::error!(error = ?e, "internal error");
                "An unexpected error occurred. Please try again.".to_string()
            }
            other => other.to_string(),
        };
        (
            status,
            axum::Json(ErrorBody {
                code: self.code().to_string(),
                message,
            }),
        )
            .into_response()
    }
}

/// Maps a unique-constraint violation to a 409 with the given code and message.
pub trait ResultExt<T> {
    /// Turns a unique violation into [`ApiError::Conflict`].
    fn on_unique(self, code: &'static str, message: &str) -> ApiResult<T>;
}

impl<T> ResultExt<T> for Result<T, sqlx::Error> {
    fn on_unique(self, code: &'static str, message: &str) -> ApiResult<T> {
        self.map_err(|e| match &e {
            sqlx::Error::Database(db) if db.is_unique_violation() => ApiError::Conflict {
                code,
                message: message.to_string(),
            },
            _ => ApiError::Database(e),
        })
    }
}

/// `Json` extractor whose rejections use the API's error body, and which refuses control
/// characters in any string of the body ([`crate::validate::check_json`]) before the body is
/// read into its type: every input type gets the rule.
#[derive(Debug, Clone, Copy, Default)]
pub struct AppJson<T>(pub T);

impl<T, S> axum::extract::FromRequest<S> for AppJson<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        let (parts, body) = req.into_parts();
        let bytes = {
            let req = axum::extract::Request::from_parts(parts.clone(), body);
            bytes::Bytes::from_request(req, state)
                .await
                .map_err(|r| match r.status() {
                    StatusCode::PAYLOAD_TOO_LARGE => {
                        ApiError::TooLarge("Request body too large".into())
                    }
                    _ => ApiError::BadRequest {
                        code: "invalid_body",
                        message: r.body_text(),
                    },
                })?
        };
        // A body that is not JSON at all is reported by the Json extractor below.
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes) {
            crate::validate::check_json(&value)?;
        }
        let req = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
        let axum::Json(value) = axum::Json::<T>::from_request(req, state).await?;
        Ok(AppJson(value))
    }
}

impl From<axum::extract::rejection::JsonRejection> for ApiError {
    fn from(r: axum::extract::rejection::JsonRejection) -> Self {
        use axum::extract::rejection::JsonRejection as J;
        match r {
            J::BytesRejection(b) if b.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                ApiError::TooLarge("Request body too large".into())
            }
            J::JsonDataError(e) => ApiError::Validation {
                code: "invalid_body",
                message: e.body_text(),
            },
            other => ApiError::BadRequest {
                code: "invalid_body",
                message: other.body_text(),
            },
        }
    }
}

impl<T: Serialize> IntoResponse for AppJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}
