//! Configuration, parsed once from the command line and the environment.

use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;

/// Settings of the `serve` command. Every field can be set by an environment variable.
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// TCP port to listen on.
    #[arg(long, env = "PORT", default_value_t = 8080)]
    pub port: u16,
    /// Address to bind.
    #[arg(long, env = "BIND", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Directory for the SQLite database, uploaded files and the generated signing key.
    #[arg(long, env = "DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// Database URL: `sqlite://...` or `postgres://...`. Defaults to `DATA_DIR/capopt.db`.
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// Redis URL for cross-instance events and document fan-out. In-process when absent.
    #[arg(long, env = "REDIS_URL")]
    pub redis_url: Option<String>,
    /// Directory of the built web app (`web/dist`), served at `/`.
    #[arg(long, env = "WEB_DIST", default_value = "web/dist")]
    pub web_dist: PathBuf,
    /// Public base URL used in links sent by mail (reset and invitation links).
    #[arg(long, env = "PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Seed the demo accounts and data when the database is empty (`1`/`0`). Off unless set: a
    /// deployment that does not ask for demo data has no account with a known password.
    #[arg(long, env = "SEED_DEMO", default_value = "0", value_parser = parse_flag)]
    pub seed_demo: bool,
    /// Password of the demo accounts (only used with `SEED_DEMO=1`).
    #[arg(long, env = "DEMO_PASSWORD", default_value = "Demo-Password-1")]
    pub demo_password: String,
    /// Secret used to sign access tokens. Generated once and kept in `DATA_DIR` when absent.
    #[arg(long, env = "JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,
    /// Mark cookies `Secure` (set when served over HTTPS).
    #[arg(long, env = "COOKIE_SECURE", default_value = "0", value_parser = parse_flag)]
    pub cookie_secure: bool,
    /// SMTP URL (`smtps://user:pass@host:465`, `smtp://host:25?tls=required`). Mail only goes to
    /// the outbox table and the log when absent.
    #[arg(long, env = "SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,
    /// Sender address for mail.
    #[arg(
        long,
        env = "MAIL_FROM",
        default_value = "Capital Optimization <no-reply@capopt.local>"
    )]
    pub mail_from: String,
    /// The support address shown on FAQ & Support, where users write for help.
    #[arg(long, env = "SUPPORT_EMAIL", default_value = "support@capopt.local")]
    pub support_email: String,
    /// Extra origins allowed for WebSockets and state-changing requests (comma separated), for a
    /// web app served from another origin during development.
    #[arg(long, env = "ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,
    /// Behind a reverse proxy: take the client address from the forwarding headers the proxy
    /// sets. The client is the rightmost `X-Forwarded-For` hop that is not a trusted proxy (the
    /// address the proxy itself saw), never a value the client wrote.
    #[arg(long, env = "TRUST_PROXY", default_value = "0", value_parser = parse_flag)]
    pub trust_proxy: bool,
    /// With `TRUST_PROXY=1`, the addresses of the proxies (IPs or CIDR blocks, comma separated).
    /// Forwarding headers are then honoured only from these peers, and hops from these addresses
    /// are skipped from the right. Empty: the one proxy in front of the server is trusted.
    #[arg(long, env = "TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<String>,
    /// With `TRUST_PROXY=1`, a header the proxy sets to the client address (`X-Real-IP`,
    /// `CF-Connecting-IP`), used instead of `X-Forwarded-For`.
    #[arg(long, env = "CLIENT_IP_HEADER")]
    pub client_ip_header: Option<String>,
    /// Log as JSON lines.
    #[arg(long, env = "LOG_JSON", default_value = "0", value_parser = parse_flag)]
    pub log_json: bool,
    /// Largest accepted upload, in mebibytes (MiB).
    #[arg(long, env = "MAX_UPLOAD_MB", default_value_t = 20)]
    pub max_upload_mb: u64,
    /// S3 bucket for uploaded and processed files. Files are kept under `DATA_DIR/objects` when
    /// absent.
    #[arg(long, env = "S3_BUCKET")]
    pub s3_bucket: Option<String>,
    /// Endpoint of an S3-compatible service (`http://127.0.0.1:9000`); AWS when absent.
    #[arg(long, env = "S3_ENDPOINT")]
    pub s3_endpoint: Option<String>,
    /// S3 region (`us-east-1` when absent).
    #[arg(long, env = "S3_REGION")]
    pub s3_region: Option<String>,
    /// S3 access key id.
    #[arg(long, env = "S3_ACCESS_KEY_ID", hide_env_values = true)]
    pub s3_access_key_id: Option<String>,
    /// S3 secret access key.
    #[arg(long, env = "S3_SECRET_ACCESS_KEY", hide_env_values = true)]
    pub s3_secret_access_key: Option<String>,
    /// Processing runs this instance works on at once (0: this instance runs none).
    #[arg(long, env = "RUN_CONCURRENCY", default_value_t = 2)]
    pub run_concurrency: usize,
    /// Engine worker threads per run (0: the cores divided among the concurrent runs).
    #[arg(long, env = "RUN_THREADS", default_value_t = 0)]
    pub run_threads: usize,
    /// How much lower than the web requests' the engine threads of a run are scheduled (a nice
    /// increment, 0 to 19; Linux), so runs use the cores the requests leave.
    #[arg(long, env = "RUN_NICE", default_value_t = 10, value_parser = clap::value_parser!(u8).range(0..=19))]
    pub run_nice: u8,
    /// Whether the engine threads of a run are also scheduled as idle work (Linux `SCHED_IDLE`):
    /// a web worker that wakes up then takes the core from them at once, rather than when the
    /// scheduler's fairness says, so the sockets and requests keep their latency while runs use
    /// what is left. `false` keeps them as normal threads at `RUN_NICE`.
    #[arg(long, env = "RUN_IDLE", default_value_t = true, action = clap::ArgAction::Set)]
    pub run_idle: bool,
    /// Seconds a claimed run's lease lasts without a heartbeat; a run whose lease expired is
    /// claimed again by any instance.
    #[arg(long, env = "RUN_LEASE_SECS", default_value_t = 15)]
    pub run_lease_secs: u64,
    /// The Q&A agent's OpenAI-compatible endpoint (`https://host/v1`); with `LLM_MODEL` and
    /// `LLM_API_KEY` it replaces the built-in engine.
    #[arg(long, env = "LLM_BASE_URL")]
    pub llm_base_url: Option<String>,
    /// The model asked at `LLM_BASE_URL`.
    #[arg(long, env = "LLM_MODEL")]
    pub llm_model: Option<String>,
    /// The key sent to `LLM_BASE_URL` (never logged).
    #[arg(long, env = "LLM_API_KEY", hide_env_values = true)]
    pub llm_api_key: Option<Secret>,
    /// Seconds one request to the model may take, its streamed answer included.
    #[arg(long, env = "LLM_TIMEOUT_SECS", default_value_t = 60)]
    pub llm_timeout_secs: u64,
    /// Retries of a request the model's service refused for a passing reason (unreachable, 5xx,
    /// a 429 quoting a wait of 2 s or less).
    #[arg(long, env = "LLM_MAX_RETRIES", default_value_t = 2)]
    pub llm_max_retries: u32,
    /// Frames a second one collaborative document may write to its connections for relayed
    /// updates (a relay to n connections spends n): within it each update goes out at once,
    /// past it the updates that arrive meanwhile go out merged, after 15 ms at most. 0: every
    /// update at once.
    #[arg(long, env = "COLLAB_RELAY_FRAMES_PER_SEC", default_value_t = collab::HubConfig::default().relay_frames_per_sec)]
    pub collab_relay_frames_per_sec: u32,
}

/// A setting never printed: its `Debug` shows `<redacted>` (the configuration and the state
/// derive `Debug`).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Secret, Self::Err> {
        Ok(Secret(s.to_string()))
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Secret {
        Secret(s.to_string())
    }
}

fn parse_flag(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        other => Err(format!("expected 1 or 0, got {other:?}")),
    }
}

impl Config {
    /// The database URL in force (the SQLite file under `data_dir` by default).
    pub fn database_url(&self) -> String {
        match &self.database_url {
            Some(url) if !url.trim().is_empty() => url.clone(),
            _ => format!(
                "sqlite://{}?mode=rwc",
                self.data_dir.join("capopt.db").display()
            ),
        }
    }

    /// The base URL for links in mail.
    pub fn public_url(&self) -> String {
        match &self.public_url {
            Some(u) if !u.trim().is_empty() => u.trim_end_matches('/').to_string(),
            _ => format!("http://127.0.0.1:{}", self.port),
        }
    }

    /// A configuration for tests: a throwaway data directory, no demo data, port 0.
    pub fn for_tests(data_dir: PathBuf, database_url: Option<String>) -> Config {
        Config {
            port: 0,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            data_dir,
            database_url,
            redis_url: None,
            web_dist: PathBuf::from("web/dist"),
            public_url: Some("http://127.0.0.1".into()),
            seed_demo: false,
            demo_password: String::new(),
            jwt_secret: Some("test-secret-test-secret-test-secret".into()),
            cookie_secure: false,
            smtp_url: None,
            mail_from: "test@capopt.local".into(),
            support_email: "support@capopt.local".into(),
            allowed_origins: vec![],
            trust_proxy: false,
            trusted_proxies: vec![],
            client_ip_header: None,
            log_json: false,
            max_upload_mb: 20,
            s3_bucket: None,
            s3_endpoint: None,
            s3_region: None,
            s3_access_key_id: None,
            s3_secret_access_key: None,
            run_concurrency: 2,
            run_threads: 0,
            run_nice: 10,
            // Tests share the cores with each other: idle-policy engine threads would wait for
            // every other test's threads.
            run_idle: false,
            run_lease_secs: 15,
            llm_base_url: None,
            llm_model: None,
            llm_api_key: None,
            llm_timeout_secs: 60,
            llm_max_retries: 2,
            collab_relay_frames_per_sec: collab::HubConfig::default().relay_frames_per_sec,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        config: Config,
    }

    #[test]
    fn the_model_settings_parse_and_the_key_is_not_printed() {
        let cli = Cli::try_parse_from([
            "capopt",
            "--llm-base-url",
            "http://127.0.0.1:9/v1",
            "--llm-model",
            "m",
            "--llm-api-key",
            "sk-parsed-key",
            "--llm-timeout-secs",
            "5",
        ])
        .unwrap();
        let c = cli.config;
        assert_eq!(
            c.llm_api_key.as_ref().map(Secret::expose),
            Some("sk-parsed-key")
        );
        assert_eq!(c.llm_timeout_secs, 5);
        assert_eq!(c.llm_max_retries, 2);
        assert!(!format!("{c:?}").contains("sk-parsed-key"));
    }
}
