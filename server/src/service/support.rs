//! FAQ & Support (spec 002): the support contact the screen shows, from the configuration
//! (`SUPPORT_EMAIL`).

use serde::Serialize;

use crate::state::AppState;

/// Typical response time of support, in hours on business days (spec 002, section 9).
pub const RESPONSE_HOURS: u32 = 24;

/// The support contact.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SupportContact {
    /// The address support answers at.
    pub email: String,
    /// Typical response time, in hours on business days.
    pub response_hours: u32,
}

/// The support contact of this deployment.
pub fn contact(state: &AppState) -> SupportContact {
    SupportContact {
        email: state.config.support_email.trim().to_string(),
        response_hours: RESPONSE_HOURS,
    }
}
