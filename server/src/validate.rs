//! The text rule every input obeys: no control characters (NUL above all, which PostgreSQL
//! cannot store in text) in names, titles, ids, emails or any other field, in JSON bodies, paths
//! and query strings alike. Line breaks and tabs are allowed only in the long-text fields
//! ([`MULTILINE_FIELDS`]). [`crate::error::AppJson`] applies it to every JSON body and
//! [`refuse_control_characters`] to every request's path and query, so each input type gets it
//! without a line of its own.

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::error::{ApiError, ApiResult};

/// JSON fields whose text may hold line breaks and tabs (free text written by people).
pub const MULTILINE_FIELDS: &[&str] = &[
    "description",
    "content",
    "body",
    "notes",
    "comment",
    "reason",
    "templateContent",
    "prompt",
];

fn refused(field: &str) -> ApiError {
    ApiError::Validation {
        code: "invalid_characters",
        message: if field.is_empty() {
            "The request must not contain control characters".into()
        } else {
            format!("{field} must not contain control characters")
        },
    }
}

/// Whether `c` is refused: every Unicode control character (`Cc`: U+0000-U+001F, U+007F-U+009F),
/// except line breaks and tabs when `multiline`.
pub fn is_refused(c: char, multiline: bool) -> bool {
    c.is_control() && !(multiline && matches!(c, '\n' | '\r' | '\t'))
}

/// Checks one text value; `field` names it in the message.
pub fn check_text(field: &str, text: &str, multiline: bool) -> ApiResult<()> {
    if text.chars().any(|c| is_refused(c, multiline)) {
        Err(refused(field))
    } else {
        Ok(())
    }
}

/// Checks every key and string of a JSON value (a request body).
pub fn check_json(value: &Value) -> ApiResult<()> {
    fn walk(field: &str, v: &Value) -> ApiResult<()> {
        match v {
            Value::String(s) => check_text(field, s, MULTILINE_FIELDS.contains(&field)),
            Value::Array(items) => items.iter().try_for_each(|i| walk(field, i)),
            Value::Object(map) => map.iter().try_for_each(|(k, v)| {
                check_text(k, k, false)?;
                walk(k, v)
            }),
            _ => Ok(()),
        }
    }
    walk("", value)
}

/// Percent-decodes `s` (and `+` as a space in query strings) into bytes.
fn percent_decode(s: &str, plus_is_space: bool) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' if plus_is_space => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// Whether a decoded path or query holds a control character.
fn uri_part_refused(part: &str, plus_is_space: bool) -> bool {
    String::from_utf8_lossy(&percent_decode(part, plus_is_space))
        .chars()
        .any(|c| is_refused(c, false))
}

/// Middleware: refuses with 422 a request whose path or query string, once decoded, holds a
/// control character (ids in paths, filters in query strings).
pub async fn refuse_control_characters(req: Request<Body>, next: Next) -> Response {
    let uri = req.uri();
    if uri_part_refused(uri.path(), false) || uri.query().is_some_and(|q| uri_part_refused(q, true))
    {
        return refused("").into_response();
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn control_characters_are_refused_except_breaks_in_long_text() {
        assert!(check_json(&json!({"name": "Ana López", "n": 3})).is_ok());
        assert!(check_json(&json!({"name": "Ana\u{0}"})).is_err());
        assert!(check_json(&json!({"name": "Ana\nLópez"})).is_err());
        assert!(check_json(&json!({"tags": ["a", "b\u{85}"]})).is_err());
        assert!(check_json(&json!({"x\u{1}": 1})).is_err());
        assert!(check_json(&json!({"description": "line 1\r\n\tline 2"})).is_ok());
        assert!(check_json(&json!({"description": "a\u{0}b"})).is_err());
        let e = check_json(&json!({"title": "a\u{7f}"})).unwrap_err();
        assert_eq!(e.to_string(), "title must not contain control characters");
    }

    #[test]
    fn decoded_paths_and_queries_are_checked() {
        assert!(uri_part_refused("/api/reports/abc%00def", false));
        assert!(uri_part_refused("/api/reports/%c2%85", false));
        assert!(uri_part_refused("client_id=a%0Ab", true));
        assert!(!uri_part_refused("/api/reports/abc-1%20x%", false));
        assert!(!uri_part_refused("q=a+b%2B", true));
    }
}
