//! Rate limits for login, password-reset and waitlist requests, per account and per client address
//! (in-process, per instance; keyed GCRA limiters from `governor`).

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::{DefaultKeyedRateLimiter, Quota};

/// The limiters kept in the application state.
#[derive(Debug, Clone)]
pub struct RateLimits {
    login_account: Arc<DefaultKeyedRateLimiter<String>>,
    login_ip: Arc<DefaultKeyedRateLimiter<String>>,
    mail_ip: Arc<DefaultKeyedRateLimiter<String>>,
    waitlist_ip: Arc<DefaultKeyedRateLimiter<String>>,
    password_change_user: Arc<DefaultKeyedRateLimiter<String>>,
}

fn limiter(burst: u32, per: Duration) -> Arc<DefaultKeyedRateLimiter<String>> {
    let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
    let quota = Quota::with_period(per / burst.get())
        .unwrap_or_else(|| Quota::per_second(burst))
        .allow_burst(burst);
    Arc::new(DefaultKeyedRateLimiter::keyed(quota))
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            // 5 attempts per account per 15 minutes (one more every 3 minutes).
            login_account: limiter(5, Duration::from_secs(15 * 60)),
            // 30 attempts per address per 15 minutes.
            login_ip: limiter(30, Duration::from_secs(15 * 60)),
            // 5 reset mails per address per hour.
            mail_ip: limiter(5, Duration::from_secs(3600)),
            // 5 waitlist sign-ups per address per 10 minutes.
            waitlist_ip: limiter(5, Duration::from_secs(600)),
            // 5 password changes (or wrong current passwords) per user per 15 minutes.
            password_change_user: limiter(5, Duration::from_secs(15 * 60)),
        }
    }
}

impl RateLimits {
    /// Whether a login attempt for `email` from `ip` may proceed (both limits are charged).
    pub fn login(&self, email: &str, ip: &str) -> bool {
        let ip_ok = self.login_ip.check_key(&ip.to_string()).is_ok();
        let account_ok = self
            .login_account
            .check_key(&email.trim().to_lowercase())
            .is_ok();
        ip_ok && account_ok
    }
    /// Whether a reset-mail request from `ip` may proceed.
    pub fn mail(&self, ip: &str) -> bool {
        self.mail_ip.check_key(&ip.to_string()).is_ok()
    }
    /// Whether a waitlist request from `ip` may proceed.
    pub fn waitlist(&self, ip: &str) -> bool {
        self.waitlist_ip.check_key(&ip.to_string()).is_ok()
    }
    /// Whether a password change by `user_id` may proceed (every attempt is charged: the current
    /// password it verifies must not become a guessing oracle for a stolen session).
    pub fn password_change(&self, user_id: &str) -> bool {
        self.password_change_user
            .check_key(&user_id.to_string())
            .is_ok()
    }
    /// Drops stale keys (called periodically).
    pub fn retain_recent(&self) {
        self.login_account.retain_recent();
        self.login_ip.retain_recent();
        self.mail_ip.retain_recent();
        self.waitlist_ip.retain_recent();
        self.password_change_user.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_limit_applies_across_addresses() {
        let r = RateLimits::default();
        for i in 0..5 {
            assert!(r.login("a@x.io", &format!("10.0.0.{i}")));
        }
        assert!(!r.login("A@x.io ", "10.0.0.9"));
        assert!(r.login("b@x.io", "10.0.0.9"));
    }
}
