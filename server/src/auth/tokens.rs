//! Access tokens (short-lived HS256 JWTs) and opaque random tokens (refresh, reset, invitation,
//! CSRF) stored only as SHA-256 hashes.

use base64::Engine as _;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Lifetime of an access token.
pub const ACCESS_TTL_SECS: i64 = 15 * 60;
/// Lifetime of a refresh token (rotated at every use).
pub const REFRESH_TTL_SECS: i64 = 30 * 24 * 3600;
/// A refresh token presented again within this window after its rotation (two tabs refreshing at
/// once) gets a new access token instead of revoking the session.
pub const REFRESH_GRACE_SECS: i64 = 60;
/// Lifetime of a password-reset link.
pub const RESET_TTL_SECS: i64 = 3600;
/// Lifetime of an invitation.
pub const INVITATION_TTL_SECS: i64 = 7 * 24 * 3600;

/// Claims of an access token.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// User id.
    pub sub: String,
    /// Session id.
    pub sid: String,
    /// Expiry (seconds since the epoch).
    pub exp: i64,
    /// Issued at.
    pub iat: i64,
}

/// Signing keys.
#[derive(Clone)]
pub struct Keys {
    enc: EncodingKey,
    dec: DecodingKey,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(..)")
    }
}

impl Keys {
    /// Keys from a shared secret.
    pub fn new(secret: &[u8]) -> Keys {
        Keys {
            enc: EncodingKey::from_secret(secret),
            dec: DecodingKey::from_secret(secret),
        }
    }

    /// Signs an access token for a user's session.
    pub fn access_token(&self, user_id: &str, session_id: &str) -> anyhow::Result<String> {
        let now = chrono::Utc::now().timestamp();
        let claims = Claims {
            sub: user_id.into(),
            sid: session_id.into(),
            iat: now,
            exp: now + ACCESS_TTL_SECS,
        };
        Ok(jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &self.enc,
        )?)
    }

    /// Verifies an access token (signature, algorithm and expiry).
    pub fn verify(&self, token: &str) -> Option<Claims> {
        let mut v = Validation::new(Algorithm::HS256);
        v.leeway = 5;
        v.required_spec_claims = ["exp", "sub"].iter().map(|s| s.to_string()).collect();
        jsonwebtoken::decode::<Claims>(token, &self.dec, &v)
            .ok()
            .map(|d| d.claims)
    }
}

/// A new random opaque token (256 bits, URL-safe base64).
pub fn random_token() -> String {
    let bytes: [u8; 32] = rand::random();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The stored form of an opaque token.
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_token_round_trip_and_tamper() {
        let k = Keys::new(b"0123456789abcdef0123456789abcdef");
        let t = k.access_token("u1", "s1").unwrap();
        let c = k.verify(&t).unwrap();
        assert_eq!((c.sub.as_str(), c.sid.as_str()), ("u1", "s1"));
        let other = Keys::new(b"another-secret-another-secret-xx");
        assert!(other.verify(&t).is_none());
        assert!(k.verify(&format!("{t}x")).is_none());
    }

    #[test]
    fn tokens_are_random_and_hashed() {
        let a = random_token();
        assert_ne!(a, random_token());
        assert_eq!(hash_token(&a).len(), 64);
        assert_ne!(hash_token(&a), a);
    }
}
