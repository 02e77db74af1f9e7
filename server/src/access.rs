//! The one access decision: what a caller may do with one client's data.
//!
//! [`decide`] is the only function that answers it. The REST extractors (`ClientRead`,
//! `ClientWrite`), the row checks of the services through [`require`] and [`require_decision`], the
//! event-topic check (`realtime::Topic::allows`) and the document sockets (`docs::sessions`) all
//! ask it, so a rule changes in one place.
//!
//! | caller | read | write | approve | admin |
//! |---|---|---|---|---|
//! | global admin | every client | every client | every client | yes |
//! | member, global role user | yes | yes | if the membership role is approver or admin | no |
//! | member, global role approver | yes | yes | yes | no |
//! | member, global role viewer | yes | no | no | no |
//! | anyone else | no (404, the client's ids are not disclosed) | no | no | no |

use crate::auth::{AuthUser, Role};
use crate::error::{ApiError, ApiResult};
use crate::ids::ClientId;

/// A user's role within one client (`client_users.role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberRole {
    /// An ordinary member: rights follow the global role.
    Member,
    /// Approves the client's validations whatever the global role (viewers excepted).
    Approver,
    /// The client's own administrator: approval rights on that client (not the back office).
    Admin,
}

impl MemberRole {
    /// Reads a stored membership role; unknown values count as `member`.
    pub fn parse(s: &str) -> MemberRole {
        match s.trim().to_ascii_lowercase().as_str() {
            "approver" => MemberRole::Approver,
            "admin" => MemberRole::Admin,
            _ => MemberRole::Member,
        }
    }
}

/// A client the caller belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    /// The client.
    pub client_id: ClientId,
    /// Its name.
    pub client_name: String,
    /// The caller's role within it.
    pub role: MemberRole,
}

/// What a caller may do with one client's data. A caller with no right at all gets `None` from
/// [`decide`] instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rights {
    /// Change the client's rows (tasks, reports, files).
    pub write: bool,
    /// Approve or reject the client's validations.
    pub approve: bool,
    /// Back-office rights (global admins only).
    pub admin: bool,
}

/// The level an operation needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// See the client's rows.
    Read,
    /// Change them.
    Write,
    /// Decide its validations.
    Approve,
    /// Back office.
    Admin,
}

impl Rights {
    /// Whether these rights cover `need`.
    pub fn allow(self, need: Need) -> bool {
        match need {
            Need::Read => true,
            Need::Write => self.write,
            Need::Approve => self.approve,
            Need::Admin => self.admin,
        }
    }
}

/// What `user` may do with the data of `client_id`: `None` when they may not even see it.
pub fn decide(user: &AuthUser, client_id: &str) -> Option<Rights> {
    if user.role == Role::Admin {
        return Some(Rights {
            write: true,
            approve: true,
            admin: true,
        });
    }
    let m = user.clients.iter().find(|m| m.client_id == client_id)?;
    let viewer = user.role == Role::Viewer;
    Some(Rights {
        write: !viewer,
        approve: !viewer
            && (user.role == Role::Approver
                || matches!(m.role, MemberRole::Approver | MemberRole::Admin)),
        admin: false,
    })
}

/// Refuses an operation on `client_id` that `user` may not do: 404 when the client is not theirs
/// (as if it did not exist), 403 with the read-only message for a viewer's change, 403 otherwise.
pub fn require(user: &AuthUser, client_id: &str, need: Need) -> ApiResult<Rights> {
    let Some(rights) = decide(user, client_id) else {
        return Err(ApiError::not_found("Client not found"));
    };
    if rights.allow(need) {
        return Ok(rights);
    }
    Err(match need {
        Need::Write if user.role == Role::Viewer => ApiError::read_only(),
        Need::Approve => {
            ApiError::Forbidden("Only administrators and approvers can approve validations.".into())
        }
        _ => ApiError::Forbidden("Access denied".into()),
    })
}

/// A decision on a validation, for the refusal's wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Approve a pending validation.
    Approve,
    /// Reject a pending validation.
    Reject,
    /// Change a validation's status (spec 2.9, 'Change Validation Status').
    ChangeStatus,
}

/// Refuses a decision on `client_id`'s validations to a caller without the approver right
/// ([`decide`]: global admins and approvers, and members whose membership role is approver or
/// admin; never viewers): 404 when the client is not theirs, 403 with the specification's
/// message otherwise.
pub fn require_decision(user: &AuthUser, client_id: &str, what: Decision) -> ApiResult<Rights> {
    require(user, client_id, Need::Approve).map_err(|e| match (e, what) {
        (ApiError::Forbidden(_), Decision::Reject) => {
            ApiError::Forbidden("Only administrators and approvers can reject validations.".into())
        }
        (ApiError::Forbidden(_), Decision::ChangeStatus) => ApiError::Forbidden(
            "Only administrators and approvers can change the status of validations.".into(),
        ),
        (e, _) => e,
    })
}

/// The client a request works on: the `client_id` it names, or else the caller's first client.
/// The same answer for every area.
pub fn target_client(user: &AuthUser, requested: Option<&str>) -> ApiResult<String> {
    match requested.map(str::trim).filter(|s| !s.is_empty()) {
        Some(id) => Ok(id.to_owned()),
        None => user
            .clients
            .first()
            .map(|m| m.client_id.to_string())
            .ok_or_else(|| ApiError::Validation {
                code: "no_company",
                message: "Unable to assign user to a company".into(),
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(role: Role, clients: &[(&str, MemberRole)]) -> AuthUser {
        AuthUser {
            id: "u".into(),
            email: "u@x.example".into(),
            role,
            session_id: "s".into(),
            clients: clients
                .iter()
                .map(|(c, r)| Membership {
                    client_id: (*c).into(),
                    client_name: c.to_string(),
                    role: *r,
                })
                .collect(),
        }
    }

    #[test]
    fn the_table_of_the_module_docs() {
        use MemberRole::*;
        let r = |u: &AuthUser| decide(u, "a").map(|r| (r.write, r.approve, r.admin));
        assert_eq!(r(&user(Role::Admin, &[])), Some((true, true, true)));
        assert_eq!(
            r(&user(Role::User, &[("a", Member)])),
            Some((true, false, false))
        );
        assert_eq!(
            r(&user(Role::User, &[("a", Approver)])),
            Some((true, true, false))
        );
        assert_eq!(
            r(&user(Role::User, &[("a", Admin)])),
            Some((true, true, false))
        );
        assert_eq!(
            r(&user(Role::Approver, &[("a", Member)])),
            Some((true, true, false))
        );
        assert_eq!(
            r(&user(Role::Viewer, &[("a", Approver)])),
            Some((false, false, false))
        );
        assert_eq!(r(&user(Role::Approver, &[("b", Member)])), None);
        assert_eq!(r(&user(Role::User, &[])), None);
    }

    #[test]
    fn refusals_hide_other_clients_and_say_why_to_members() {
        let viewer = user(Role::Viewer, &[("a", MemberRole::Member)]);
        assert!(matches!(
            require(&viewer, "b", Need::Read),
            Err(ApiError::NotFound { .. })
        ));
        assert!(require(&viewer, "a", Need::Read).is_ok());
        assert_eq!(
            require(&viewer, "a", Need::Write)
                .err()
                .unwrap()
                .to_string(),
            ApiError::read_only().to_string()
        );
        let member = user(Role::User, &[("a", MemberRole::Member)]);
        assert!(matches!(
            require(&member, "a", Need::Approve),
            Err(ApiError::Forbidden(_))
        ));
        assert!(matches!(
            require(&member, "a", Need::Admin),
            Err(ApiError::Forbidden(_))
        ));
    }

    #[test]
    fn decisions_need_an_approver_of_the_client_and_say_which_decision() {
        let member = user(Role::User, &[("a", MemberRole::Member)]);
        let message = |d| {
            require_decision(&member, "a", d)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(message(Decision::Approve).contains("can approve validations"));
        assert!(message(Decision::Reject).contains("can reject validations"));
        let own_approver = user(Role::User, &[("a", MemberRole::Approver)]);
        assert!(require_decision(&own_approver, "a", Decision::Reject).is_ok());
        assert!(matches!(
            require_decision(&own_approver, "b", Decision::Approve),
            Err(ApiError::NotFound { .. })
        ));
        let viewer_approver = user(Role::Viewer, &[("a", MemberRole::Approver)]);
        assert!(require_decision(&viewer_approver, "a", Decision::Approve).is_err());
    }
}
