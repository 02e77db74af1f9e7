//! The landing page's waitlist: one address once, from one of the two forms, rate-limited per
//! address.

use crate::db::misc;
use crate::error::ApiResult;
use crate::state::AppState;

/// What became of a sign-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joined {
    /// Added.
    Added,
    /// Already on the list (nothing changed).
    AlreadyRegistered,
    /// Not an email address.
    InvalidEmail,
    /// Neither the hero nor the call-to-action form.
    UnknownForm,
    /// Too many sign-ups from this address.
    RateLimited,
}

/// Adds an address to the waitlist.
pub async fn join(
    state: &AppState,
    email: &str,
    name: Option<&str>,
    source: &str,
    ip: &str,
) -> ApiResult<Joined> {
    let email = email.trim().to_lowercase();
    if !crate::api::valid_email(&email) || email.len() > 254 {
        return Ok(Joined::InvalidEmail);
    }
    if source != "hero" && source != "cta" {
        return Ok(Joined::UnknownForm);
    }
    if !state.limits.waitlist(ip) {
        return Ok(Joined::RateLimited);
    }
    let name = name
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| n.chars().take(200).collect::<String>());
    Ok(
        if misc::waitlist_add(&state.db.pool, &email, name.as_deref(), source).await? {
            Joined::Added
        } else {
            Joined::AlreadyRegistered
        },
    )
}
