//! Collaborative report documents on the server side: the SQL `DocStore` ([`store`]), the Redis
//! `Fanout` between instances ([`redis_fanout`]) and the construction of the `collab::Hub` that
//! serves `/api/collab/{reportId}`.

pub mod redis_fanout;
pub mod sessions;
pub mod store;

use std::sync::Arc;

pub use sessions::DocSessions;
pub use store::SqlDocStore;

use crate::config::Config;
use crate::db::Db;

/// The document hub: the SQL store, and Redis fan-out when `REDIS_URL` is set.
pub async fn build_hub(config: &Config, db: &Db) -> anyhow::Result<collab::Hub> {
    let store = Arc::new(SqlDocStore::new(db));
    let hub_config = collab::HubConfig {
        relay_frames_per_sec: config.collab_relay_frames_per_sec,
        ..collab::HubConfig::default()
    };
    Ok(
        match config
            .redis_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty())
        {
            Some(url) => {
                let fanout = redis_fanout::RedisFanout::connect(url).await?;
                collab::Hub::with_fanout(store, Arc::new(fanout), hub_config)
            }
            None => collab::Hub::new(store, hub_config),
        },
    )
}
