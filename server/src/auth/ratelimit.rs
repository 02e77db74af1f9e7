//! Rate limits (in-process, per instance). Sign-in counts failures only ([`LoginGuard`]);
//! password-reset mail, waitlist and password-change requests use keyed GCRA limiters from
//! `governor`.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use dashmap::DashMap;
use governor::{DefaultKeyedRateLimiter, Quota};
use tokio::time::Instant;

/// The limiters kept in the application state.
#[derive(Debug, Clone)]
pub struct RateLimits {
    login: Arc<LoginGuard>,
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
            login: Arc::new(LoginGuard::default()),
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
    /// Waits for a sign-in attempt's turn ([`LoginGuard::admit`]); `Err` when it is refused.
    pub async fn login(&self, email: &str, ip: &str) -> Result<(), Refused> {
        self.login.admit(email, ip).await
    }
    /// Records a failed sign-in of `email` from `ip`.
    pub fn login_failed(&self, email: &str, ip: &str) {
        self.login.failed(email, ip);
    }
    /// Records a successful sign-in: the pair's failures are forgotten.
    pub fn login_succeeded(&self, email: &str, ip: &str) {
        self.login.succeeded(email, ip);
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
        self.login.retain_recent();
        self.mail_ip.retain_recent();
        self.waitlist_ip.retain_recent();
        self.password_change_user.retain_recent();
    }
}

/// Failures of one account from one address.
#[derive(Debug, Clone, Copy)]
struct PairState {
    failures: u32,
    last_failure: Instant,
    /// The earliest time the next attempt may be checked.
    next_slot: Instant,
}

/// Failures from one address, in a fixed window.
#[derive(Debug, Clone, Copy)]
struct Window {
    failures: u32,
    started: Instant,
}

/// A refused sign-in attempt: try again after `retry_after`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// When another attempt may succeed.
    pub retry_after: Duration,
}

/// Sign-in limits that never lock the owner out of an account.
///
/// - Only failures count, per account **and** address: wrong guesses from elsewhere never touch
///   the owner's sign-in, and successful sign-ins never count at all.
/// - After [`LoginGuard::FREE_FAILURES`] failures of a pair, each further attempt of that pair
///   waits its turn: the pause doubles with each failure up to [`LoginGuard::MAX_PAUSE`], and
///   attempts are served one at a time. The attempt is then checked as usual, so a correct
///   password passes the back-off (late, never refused); an attempt that would wait longer than
///   [`LoginGuard::MAX_WAIT`] (a flood of parallel guesses) is refused with 429.
/// - An address with more than [`LoginGuard::ADDRESS_FAILURES`] failures in
///   [`LoginGuard::WINDOW`] is refused for accounts that have not signed in from it before, so a
///   bank behind one proxy keeps signing in while someone there guesses at other accounts.
#[derive(Debug, Default)]
pub struct LoginGuard {
    pairs: DashMap<(String, String), PairState>,
    addresses: DashMap<String, Window>,
    /// Pairs that signed in successfully, and when.
    known: DashMap<(String, String), Instant>,
}

impl LoginGuard {
    /// Failures of a pair before the back-off starts.
    pub const FREE_FAILURES: u32 = 5;
    /// Longest pause between two attempts of a pair.
    pub const MAX_PAUSE: Duration = Duration::from_secs(16);
    /// Longest time an attempt waits for its turn before it is refused.
    pub const MAX_WAIT: Duration = Duration::from_secs(10);
    /// Failures of one address (over all accounts) before unknown pairs are refused.
    pub const ADDRESS_FAILURES: u32 = 100;
    /// How long failures are remembered.
    pub const WINDOW: Duration = Duration::from_secs(15 * 60);
    /// How long a successful pair is remembered.
    pub const KNOWN_FOR: Duration = Duration::from_secs(30 * 24 * 3600);

    fn key(email: &str, ip: &str) -> (String, String) {
        (email.trim().to_lowercase(), ip.to_owned())
    }

    fn pause(failures: u32) -> Duration {
        let over = failures.saturating_sub(Self::FREE_FAILURES).min(16);
        Duration::from_secs(1u64 << over).min(Self::MAX_PAUSE)
    }

    /// Admits an attempt of `email` from `ip`, waiting for its turn when the pair is in
    /// back-off.
    pub async fn admit(&self, email: &str, ip: &str) -> Result<(), Refused> {
        let key = Self::key(email, ip);
        let now = Instant::now();
        if !self.known.contains_key(&key)
            && let Some(w) = self.addresses.get(ip)
            && now.duration_since(w.started) < Self::WINDOW
            && w.failures >= Self::ADDRESS_FAILURES
        {
            return Err(Refused {
                retry_after: Self::WINDOW.saturating_sub(now.duration_since(w.started)),
            });
        }
        let slot = {
            let Some(mut pair) = self.pairs.get_mut(&key) else {
                return Ok(());
            };
            if now.duration_since(pair.last_failure) >= Self::WINDOW {
                drop(pair);
                self.pairs.remove(&key);
                return Ok(());
            }
            if pair.failures < Self::FREE_FAILURES {
                return Ok(());
            }
            let slot = pair.next_slot.max(now);
            if slot.duration_since(now) > Self::MAX_WAIT {
                return Err(Refused {
                    retry_after: slot.duration_since(now),
                });
            }
            // Reserve the slot: parallel attempts queue behind each other, each counted as a
            // failure until it succeeds (so a flood backs off as fast as a sequence would).
            pair.next_slot = slot + Self::pause(pair.failures);
            pair.failures += 1;
            slot
        };
        tokio::time::sleep_until(slot).await;
        Ok(())
    }

    /// Records a failed attempt.
    pub fn failed(&self, email: &str, ip: &str) {
        let now = Instant::now();
        let key = Self::key(email, ip);
        self.pairs
            .entry(key)
            .and_modify(|p| {
                if now.duration_since(p.last_failure) >= Self::WINDOW {
                    *p = PairState {
                        failures: 0,
                        last_failure: now,
                        next_slot: now,
                    };
                }
                p.failures += 1;
                p.last_failure = now;
            })
            .or_insert(PairState {
                failures: 1,
                last_failure: now,
                next_slot: now,
            });
        let mut w = self.addresses.entry(ip.to_owned()).or_insert(Window {
            failures: 0,
            started: now,
        });
        if now.duration_since(w.started) >= Self::WINDOW {
            *w = Window {
                failures: 0,
                started: now,
            };
        }
        w.failures += 1;
    }

    /// Records a successful sign-in: the pair's failures are forgotten and the pair is known.
    pub fn succeeded(&self, email: &str, ip: &str) {
        let key = Self::key(email, ip);
        self.pairs.remove(&key);
        self.known.insert(key, Instant::now());
    }

    /// Forgets what no longer matters.
    pub fn retain_recent(&self) {
        let now = Instant::now();
        self.pairs
            .retain(|_, p| now.duration_since(p.last_failure) < Self::WINDOW || p.next_slot > now);
        self.addresses
            .retain(|_, w| now.duration_since(w.started) < Self::WINDOW);
        self.known
            .retain(|_, t| now.duration_since(*t) < Self::KNOWN_FOR);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn failures_count_per_account_and_address_and_the_owner_gets_through() {
        let g = LoginGuard::default();
        for _ in 0..LoginGuard::FREE_FAILURES {
            assert_eq!(g.admit("a@x.io", "10.0.0.9").await, Ok(()));
            g.failed("A@x.io ", "10.0.0.9");
        }
        // The owner at another address is untouched, and no wait applies there.
        let t = Instant::now();
        assert_eq!(g.admit("a@x.io", "10.0.0.1").await, Ok(()));
        assert!(t.elapsed() < Duration::from_millis(100));
        // At the guessing address, attempts queue with doubling pauses; a flood is refused.
        let mut admitted = 0;
        let mut refused = 0;
        for _ in 0..10 {
            match tokio::time::timeout(Duration::ZERO, g.admit("a@x.io", "10.0.0.9")).await {
                Ok(Ok(())) => admitted += 1,
                Ok(Err(_)) => refused += 1,
                Err(_) => admitted += 1, // waiting for its turn
            }
        }
        assert!(admitted >= 2 && refused >= 1, "{admitted} {refused}");
        // A success forgets the failures of that pair.
        g.succeeded("a@x.io", "10.0.0.9");
        let t = Instant::now();
        assert_eq!(g.admit("a@x.io", "10.0.0.9").await, Ok(()));
        assert!(t.elapsed() < Duration::from_millis(100));
    }

    #[tokio::test]
    async fn a_guessing_address_keeps_its_known_accounts() {
        let g = LoginGuard::default();
        g.succeeded("owner@x.io", "192.0.2.1");
        for i in 0..LoginGuard::ADDRESS_FAILURES {
            g.failed(&format!("u{i}@x.io"), "192.0.2.1");
        }
        assert!(g.admit("new@x.io", "192.0.2.1").await.is_err());
        assert_eq!(g.admit("owner@x.io", "192.0.2.1").await, Ok(()));
        assert_eq!(g.admit("new@x.io", "192.0.2.2").await, Ok(()));
    }
}
