//! Topic names and who may subscribe to them.
//!
//! | topic | events | who may subscribe |
//! |---|---|---|
//! | `client:{client_id}:board` | task board changes | the client's members, admins |
//! | `client:{client_id}:files` | client file list changes | the client's members, admins |
//! | `client:{client_id}:validations` | validation decisions | the client's members, admins |
//! | `client:{client_id}:savings` | savings and dashboard figures | the client's members, admins |
//! | `client:{client_id}:reports` | report list changes (reports and folders) and a report's data and media (`report.media.*`) | the client's members, admins |
//! | `client:{client_id}:scenarios` | saved calculator scenarios | the client's members, admins |
//! | `client:{client_id}:settings` | the client's project settings (name, description) | the client's members, admins |
//! | `client:{client_id}:run:{run_id}` | progress of one processing run | the client's members, admins |
//! | `admin:runs`, `admin:files`, `admin:dashboard`, `admin:validations`, `admin:classification`, `admin:columns` (column definitions), `admin:mappings` (universal column-mapping suggestions and the global-learning switch), `admin:levers` (the lever dictionary and its analysis files), `admin:clients` (the Clients page: clients created, edited, their members), `admin:users` (User Management) | admin-wide views | admins |
//!
//! A processing run's topic names its client so that the subscription check needs no lookup.

use crate::auth::AuthUser;

/// The per-client areas that have a topic.
pub const CLIENT_AREAS: [&str; 7] = [
    "board",
    "files",
    "validations",
    "savings",
    "reports",
    "scenarios",
    "settings",
];
/// The admin-wide topics' areas.
pub const ADMIN_AREAS: [&str; 13] = [
    "runs",
    "files",
    "dashboard",
    "validations",
    "classification",
    "columns",
    "mappings",
    "levers",
    "clients",
    "users",
    "templates",
    "knowledge",
    "justifications",
];
/// Longest accepted topic name.
pub const MAX_TOPIC_LEN: usize = 200;

/// A parsed topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Topic {
    /// One area of one client.
    Client {
        /// The client.
        client_id: String,
        /// One of [`CLIENT_AREAS`].
        area: &'static str,
    },
    /// One processing run of a client.
    Run {
        /// The client owning the run.
        client_id: String,
        /// The run.
        run_id: String,
    },
    /// An admin-wide topic.
    Admin {
        /// One of [`ADMIN_AREAS`].
        area: &'static str,
    },
}

fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
}

impl Topic {
    /// The board topic of a client.
    pub fn board(client_id: &str) -> Topic {
        Topic::Client {
            client_id: client_id.to_string(),
            area: "board",
        }
    }

    /// Parses a topic name; `None` for anything that is not a known topic.
    pub fn parse(s: &str) -> Option<Topic> {
        if s.len() > MAX_TOPIC_LEN {
            return None;
        }
        let parts: Vec<&str> = s.split(':').collect();
        match parts.as_slice() {
            ["client", id, area] if valid_id(id) => {
                CLIENT_AREAS
                    .iter()
                    .find(|a| **a == *area)
                    .map(|a| Topic::Client {
                        client_id: id.to_string(),
                        area: a,
                    })
            }
            ["client", id, "run", run] if valid_id(id) && valid_id(run) => Some(Topic::Run {
                client_id: id.to_string(),
                run_id: run.to_string(),
            }),
            ["admin", area] => ADMIN_AREAS
                .iter()
                .find(|a| **a == *area)
                .map(|a| Topic::Admin { area: a }),
            _ => None,
        }
    }

    /// Whether `user` may receive this topic's events: a client's topics go to its members and
    /// admins, admin-wide topics to admins only.
    pub fn allows(&self, user: &AuthUser) -> bool {
        match self {
            Topic::Client { client_id, .. } | Topic::Run { client_id, .. } => {
                crate::access::decide(user, client_id).is_some()
            }
            Topic::Admin { .. } => user.is_admin(),
        }
    }
}

impl std::fmt::Display for Topic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Topic::Client { client_id, area } => write!(f, "client:{client_id}:{area}"),
            Topic::Run { client_id, run_id } => write!(f, "client:{client_id}:run:{run_id}"),
            Topic::Admin { area } => write!(f, "admin:{area}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Role;

    fn user(role: Role, clients: &[&str]) -> AuthUser {
        AuthUser {
            id: "u".into(),
            email: "u@x.example".into(),
            role,
            session_id: "s".into(),
            clients: clients
                .iter()
                .map(|c| crate::access::Membership {
                    client_id: (*c).into(),
                    client_name: c.to_string(),
                    role: crate::access::MemberRole::Member,
                })
                .collect(),
        }
    }

    #[test]
    fn parses_and_prints_round_trip() {
        for s in [
            "client:abc-1:board",
            "client:abc:run:r-9",
            "admin:runs",
            "client:x:savings",
        ] {
            assert_eq!(Topic::parse(s).unwrap().to_string(), s);
        }
        for s in [
            "client:abc:other",
            "admin:nope",
            "client::board",
            "client:a b:board",
            "board",
            "client:a:run:",
        ] {
            assert!(Topic::parse(s).is_none(), "{s}");
        }
    }

    #[test]
    fn members_see_their_client_and_admins_everything() {
        let a = Topic::parse("client:bank-a:board").unwrap();
        let admin_topic = Topic::parse("admin:dashboard").unwrap();
        assert!(a.allows(&user(Role::User, &["bank-a"])));
        assert!(a.allows(&user(Role::Viewer, &["bank-a"])));
        assert!(!a.allows(&user(Role::User, &["bank-b"])));
        assert!(!a.allows(&user(Role::Approver, &[])));
        assert!(a.allows(&user(Role::Admin, &[])));
        assert!(admin_topic.allows(&user(Role::Admin, &[])));
        assert!(!admin_topic.allows(&user(Role::Approver, &["bank-a"])));
    }
}
