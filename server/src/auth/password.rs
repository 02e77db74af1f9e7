//! Argon2id password hashing (on the blocking pool: hashing is deliberately slow) and the spec's
//! password rules.

use argon2::{Argon2, PasswordHasher, PasswordVerifier};

use crate::error::{ApiError, ApiResult};

/// Hashes a password with Argon2id (default parameters: 19 MiB, 2 passes) and a random salt.
pub async fn hash(password: &str) -> ApiResult<String> {
    let pw = password.to_owned();
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(pw.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| anyhow::anyhow!("password hashing failed: {e}"))
    })
    .await
    .map_err(|e| anyhow::anyhow!(e))?
    .map_err(ApiError::from)
}

/// Verifies a password against a stored PHC string. A malformed hash counts as a mismatch.
pub async fn verify(password: &str, phc: &str) -> bool {
    let pw = password.to_owned();
    let phc = phc.to_owned();
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .verify_password(pw.as_bytes(), phc.as_str())
            .is_ok()
    })
    .await
    .unwrap_or(false)
}

/// A hash of a random password, verified against when the account does not exist, so that a login
/// for an unknown address costs the same time as one for a known address.
pub fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| {
        let random: [u8; 16] = rand::random();
        Argon2::default()
            .hash_password(&random)
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}

/// The one password policy (reset, invitation, change, create-admin; spec 000 section 5): at least 8
/// characters, one uppercase, one lowercase and one number.
pub fn check_strong(password: &str) -> ApiResult<()> {
    if password.chars().count() < 8 {
        return Err(ApiError::validation(
            "Password must be at least 8 characters",
        ));
    }
    if !password.chars().any(|c| c.is_uppercase()) {
        return Err(ApiError::validation(
            "Password must contain at least one uppercase letter",
        ));
    }
    if !password.chars().any(|c| c.is_lowercase()) {
        return Err(ApiError::validation(
            "Password must contain at least one lowercase letter",
        ));
    }
    if !password.chars().any(|c| c.is_ascii_digit()) {
        return Err(ApiError::validation(
            "Password must contain at least one number",
        ));
    }
    if password.len() > 1024 {
        return Err(ApiError::validation("Password is too long"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_give_the_spec_messages() {
        let msg = |p: &str| check_strong(p).err().map(|e| e.to_string());
        assert_eq!(
            msg("Ab1"),
            Some("Password must be at least 8 characters".into())
        );
        assert_eq!(
            msg("abcdefg1"),
            Some("Password must contain at least one uppercase letter".into())
        );
        assert_eq!(
            msg("ABCDEFG1"),
            Some("Password must contain at least one lowercase letter".into())
        );
        assert_eq!(
            msg("Abcdefgh"),
            Some("Password must contain at least one number".into())
        );
        assert_eq!(msg("Abcdefg1"), None);
    }

    #[tokio::test]
    async fn hash_is_argon2id_and_verifies() {
        let h = hash("Secret-pass-1").await.unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify("Secret-pass-1", &h).await);
        assert!(!verify("Secret-pass-2", &h).await);
        assert!(!verify("x", "not a hash").await);
    }
}
