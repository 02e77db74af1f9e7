//! The capopt application server: configuration, database, authentication and authorisation, the
//! REST API, static web app, mail and demo data. The only crate that knows HTTP, JSON, tokens and
//! SQL; analysis and document collaboration live in their own crates.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderValue, header};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

pub mod access;
pub mod api;
pub mod audit;
pub mod auth;
pub mod config;
pub mod db;
pub mod docs;
pub mod error;
pub mod ids;
pub mod mail;
pub mod realtime;
pub mod seed;
pub mod service;
pub mod state;
pub mod validate;
#[cfg(test)]
mod tidy;

use config::Config;
use state::AppState;

/// Largest JSON body accepted by the API (uploads have their own limits).
pub const MAX_JSON_BODY: usize = 1024 * 1024;

/// Connects the database, applies migrations, loads keys and builds the shared state.
pub async fn build_state(config: Config) -> anyhow::Result<AppState> {
    std::fs::create_dir_all(&config.data_dir)?;
    auth::client_ip::parse_trusted(&config.trusted_proxies)?;
    let db = db::Db::connect(&config.database_url()).await?;
    let secret = match &config.jwt_secret {
        Some(s) if s.len() >= 32 => s.as_bytes().to_vec(),
        Some(_) => anyhow::bail!("JWT_SECRET must be at least 32 characters"),
        None => load_or_create_secret(&config.data_dir)?,
    };
    let mailer = mail::Mailer::new(config.smtp_url.as_deref(), &config.mail_from)?;
    let collab = docs::build_hub(&config, &db).await?;
    let state = AppState {
        db,
        keys: Arc::new(auth::tokens::Keys::new(&secret)),
        limits: auth::ratelimit::RateLimits::default(),
        mailer,
        collab,
        config: Arc::new(config),
        hub: realtime::Hub::new(),
        doc_sessions: docs::DocSessions::default(),
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
    let spa = ServeDir::new(&dist).fallback(ServeFile::new(dist.join("index.html")));
    Router::new()
        .nest(
            "/api",
            api::router(state.clone())
                .layer(axum::middleware::from_fn(validate::refuse_control_characters)),
        )
        .fallback_service(spa)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_JSON_BODY))
        .layer(SetResponseHeaderLayer::overriding(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")))
        .layer(SetResponseHeaderLayer::overriding(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")))
        .layer(SetResponseHeaderLayer::overriding(header::REFERRER_POLICY, HeaderValue::from_static("same-origin")))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'self'"),
        ))
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .with_state(state)
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
