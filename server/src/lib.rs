//! The capopt application server: configuration, database, authentication and authorisation, the
//! REST API, static web app, mail and demo data. The only crate that knows HTTP, JSON, tokens and
//! SQL; analysis and document collaboration live in their own crates.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, header};
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

pub mod access;
pub mod ai;
pub mod api;
pub mod audit;
pub mod auth;
pub mod config;
pub mod db;
pub mod docs;
pub mod error;
pub mod ids;
pub mod jobs;
pub mod knowledge;
pub mod mail;
pub mod pdf;
pub mod pdf_import;
pub mod realtime;
pub mod seed;
pub mod service;
pub mod state;
pub mod storage;
#[cfg(test)]
mod tidy;
pub mod validate;

use config::Config;
use state::AppState;

/// Largest JSON body accepted by the API (uploads have their own limits).
pub const MAX_JSON_BODY: usize = 1024 * 1024;

/// Connects the database, applies migrations, loads keys and builds the shared state.
pub async fn build_state(config: Config) -> anyhow::Result<AppState> {
    std::fs::create_dir_all(&config.data_dir)?;
    restrict_data_dir(&config.data_dir);
    auth::client_ip::parse_trusted(&config.trusted_proxies)?;
    let db = db::Db::connect(&config.database_url()).await?;
    let secret = match &config.jwt_secret {
        Some(s) if s.len() >= 32 => s.as_bytes().to_vec(),
        Some(_) => anyhow::bail!("JWT_SECRET must be at least 32 characters"),
        None => load_or_create_secret(&config.data_dir)?,
    };
    let mailer = mail::Mailer::new(config.smtp_url.as_deref(), &config.mail_from)?;
    let collab = docs::build_hub(&config, &db).await?;
    let storage = storage::Storage::from_config(&config)?;
    let ai = ai::provider(&config)?;
    let state = AppState {
        db,
        keys: Arc::new(auth::tokens::Keys::new(&secret)),
        limits: auth::ratelimit::RateLimits::default(),
        mailer,
        collab,
        config: Arc::new(config),
        hub: realtime::Hub::new(),
        doc_sessions: docs::DocSessions::default(),
        storage,
        ai,
    };
    realtime::start(&state).await?;
    let limits = state.limits.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(300));
        loop {
            tick.tick().await;
            limits.retain_recent();
        }
    });
    Ok(state)
}

/// The data directory (database, signing key, uploads) is the server's user's alone (0700). A
/// directory the server cannot change (not its own) is left as it is, with a warning.
fn restrict_data_dir(dir: &std::path::Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Err(e) = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)) {
            tracing::warn!(dir = %dir.display(), error = %e, "could not make the data directory private (0700)");
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

fn load_or_create_secret(dir: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    let path = dir.join("jwt_secret");
    if let Ok(s) = std::fs::read_to_string(&path)
        && s.trim().len() >= 32
    {
        return Ok(s.trim().as_bytes().to_vec());
    }
    let secret = auth::tokens::random_token();
    std::fs::write(&path, &secret)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(secret.into_bytes())
}

/// The whole application: `/api/*` and the web app (with its client-side routes).
pub fn app(state: AppState) -> Router {
    let dist = state.config.web_dist.clone();
    // Hashed bundles (`/assets/*`, a new name for every build): cached for good, compressed. A
    // missing bundle is a plain 404 (never the app's index.html) and is not cached.
    let assets: Router = Router::new()
        .fallback_service(
            ServeDir::new(dist.join("assets"))
                .precompressed_br()
                .precompressed_gzip(),
        )
        .layer(CompressionLayer::new())
        .layer(axum::middleware::map_response(immutable_when_found));
    // Everything else (index.html, client-side routes, the few unhashed files): revalidated on
    // every load, so a new deployment is picked up at once.
    let spa: Router = Router::new()
        .fallback_service(
            ServeDir::new(&dist)
                .precompressed_br()
                .precompressed_gzip()
                .fallback(ServeFile::new(dist.join("index.html")).precompressed_gzip()),
        )
        .layer(CompressionLayer::new())
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-cache"),
        ));
    Router::new()
        .nest_service("/assets", assets)
        .nest(
            "/api",
            api::router(state.clone())
                .layer(axum::middleware::from_fn(
                    validate::refuse_control_characters,
                ))
                // API answers carry personal and session data: never cached.
                .layer(SetResponseHeaderLayer::overriding(
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("no-store"),
                )),
        )
        .fallback_service(spa)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_JSON_BODY))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("DENY"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            security_headers,
        ))
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .with_state(state)
}

/// `Cache-Control` of a hashed bundle: its name changes with its content.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Marks a found (or unchanged) bundle immutable; anything else (a 404) is left to revalidate.
async fn immutable_when_found(mut resp: axum::response::Response) -> axum::response::Response {
    let status = resp.status();
    let value = if status.is_success() || status == axum::http::StatusCode::NOT_MODIFIED {
        IMMUTABLE
    } else {
        "no-cache"
    };
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
    resp
}

/// `Strict-Transport-Security` sent when the server is reached over HTTPS (`COOKIE_SECURE=1`).
const HSTS: &str = "max-age=31536000; includeSubDomains";

/// The content security policy for a page served to `host`: scripts, styles and connections
/// only to this origin (its `ws:`/`wss:` form included, for the event and document sockets).
fn content_security_policy(host: Option<&str>) -> String {
    let sockets = host
        .filter(|h| {
            !h.is_empty()
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
        })
        .map(|h| format!(" ws://{h} wss://{h}"))
        .unwrap_or_default();
    format!(
        "default-src 'self'; connect-src 'self'{sockets}; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
    )
}

/// Sets the content security policy (unless the answer has its own) and, behind HTTPS, HSTS.
async fn security_headers(
    axum::extract::State(state): axum::extract::State<AppState>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut resp = next.run(req).await;
    let headers = resp.headers_mut();
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY)
        && let Ok(v) = HeaderValue::from_str(&content_security_policy(host.as_deref()))
    {
        headers.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    if state.config.cookie_secure {
        headers.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(HSTS),
        );
    }
    resp
}

/// The span of a request in the log: method and path, never the query string, and never the
/// token of an invitation path (`/signup/{token}`, `/api/invitations/{token}`).
fn request_span(req: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    tracing::debug_span!(
        "request",
        method = %req.method(),
        path = %loggable_path(req.uri().path()),
    )
}

/// A request path as it may be logged: the segment after `signup` or `invitations` (a token)
/// is replaced by `{token}`.
fn loggable_path(path: &str) -> String {
    let mut out = Vec::new();
    let mut secret_next = false;
    for segment in path.split('/') {
        if secret_next && !segment.is_empty() {
            out.push("{token}");
        } else {
            out.push(segment);
        }
        secret_next = matches!(segment, "signup" | "invitations");
    }
    out.join("/")
}

/// Binds the listener and serves until Ctrl-C or SIGTERM.
pub async fn serve(state: AppState) -> anyhow::Result<()> {
    let addr = SocketAddr::new(state.config.bind, state.config.port);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    // Small realtime frames must not wait for Nagle's algorithm.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let hub = state.hub.clone();
    let collab = state.collab.clone();
    service::files::start_sweeper(&state);
    jobs::start(&state);
    tracing::info!("listening on http://{local}");
    println!("Capital Optimization Portal listening on http://{local}");
    axum::serve(
        listener,
        app(state).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown_signal().await;
        // Close document connections and flush their pending writes before the server stops.
        collab.shutdown().await;
        hub.shutdown();
    })
    .await?;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}
