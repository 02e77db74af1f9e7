//! The signed-in user's own profile (first and last name, avatar), a client's project settings
//! (the 'Project Settings' card: name and description, changed by the client's members who may
//! write it, announced on `client:{id}:settings`) and the configuration administrators see
//! read-only. Password changes go through [`super::auth::change_password`] (the one policy).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::files::kind::{Seen, sanitize_name};
use super::{Actor, Audit, Change, Scope};
use crate::db::profile as db;
use crate::error::{ApiError, ApiResult};
use crate::realtime::events::ProjectChange;
use crate::realtime::{Event, Topic};
use crate::state::AppState;
use crate::storage::{ObjectKey, Storage};

/// Largest avatar image.
pub const AVATAR_MAX_BYTES: u64 = 2 * 1024 * 1024;
/// The avatar's accepted types.
pub const AVATAR_TYPES: [&str; 4] = ["PNG", "JPEG", "GIF", "WebP"];
/// An avatar that is not one of [`AVATAR_TYPES`].
pub const AVATAR_WRONG_TYPE: &str = "Please upload only PNG, JPEG, GIF or WebP images.";
/// An avatar over [`AVATAR_MAX_BYTES`].
pub const AVATAR_TOO_BIG: &str = "Images must be smaller than 2MB";
/// 'Project settings updated successfully' is the web app's; the refusal of a blank name.
pub const CLIENT_NAME_REQUIRED: &str = "Client name is required";

/// The user's own profile.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Profile {
    /// Id.
    pub id: String,
    /// Email (changed by administrators only).
    pub email: String,
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Role.
    pub role: String,
    /// Company.
    pub company: Option<String>,
    /// Where the avatar is shown from, if there is one.
    pub avatar_url: Option<String>,
    /// When the password was last changed.
    pub password_changed_at: Option<String>,
}

impl From<db::ProfileRow> for Profile {
    fn from(r: db::ProfileRow) -> Profile {
        Profile {
            id: r.id,
            email: r.email,
            name: r.name,
            last_name: r.last_name,
            role: crate::auth::Role::parse(&r.role).as_str().to_owned(),
            company: r.company,
            avatar_url: r.avatar.filter(|a| !a.is_empty()),
            password_changed_at: r.password_changed_at,
        }
    }
}

/// A change of the user's names.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct ProfileInput {
    /// First name (required).
    pub name: String,
    /// Last name (required).
    pub last_name: String,
}

/// A received avatar image.
#[derive(Debug)]
pub struct ReceivedImage {
    /// The temporary file.
    pub path: crate::storage::TempPath,
    /// What was seen of it.
    pub seen: Seen,
}

/// The caller's profile.
pub async fn get(state: &AppState, actor: &Actor) -> ApiResult<Profile> {
    Ok(db::get(&state.db.pool, &actor.user.id)
        .await?
        .ok_or(ApiError::Unauthenticated)?
        .into())
}

fn person_name(raw: &str, required: &str) -> ApiResult<String> {
    let n = raw.trim();
    if n.is_empty() {
        return Err(ApiError::validation(required));
    }
    if n.chars().count() > 100 {
        return Err(ApiError::validation("Names must be at most 100 characters"));
    }
    Ok(n.to_owned())
}

/// Changes the caller's first and last name.
pub async fn update(state: &AppState, actor: &Actor, input: ProfileInput) -> ApiResult<Profile> {
    let name = person_name(&input.name, "First name is required")?;
    let last_name = person_name(&input.last_name, "Last name is required")?;
    let mut change = Change::begin_unannounced(state).await?;
    let before = db::get(change.conn(), &actor.user.id)
        .await?
        .ok_or(ApiError::Unauthenticated)?;
    db::set_names(
        change.conn(),
        &actor.user.id,
        &name,
        &last_name,
        &crate::db::now(),
    )
    .await?;
    let after = db::get(change.conn(), &actor.user.id)
        .await?
        .ok_or(ApiError::Unauthenticated)?;
    change
        .commit_unannounced(
            actor.audited(),
            Audit {
                event_type: "profile_updated",
                entity_type: "user",
                entity_id: &actor.user.id,
                details: json!({
                    "from": {"name": before.name, "last_name": before.last_name},
                    "to": {"name": name, "last_name": last_name},
                }),
                severity: "info",
            },
        )
        .await?;
    Ok(after.into())
}

/// The image type of an avatar from its first bytes: (extension, content type).
pub fn image_type(head: &[u8]) -> Option<(&'static str, &'static str)> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(("png", "image/png"))
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(("jpg", "image/jpeg"))
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some(("gif", "image/gif"))
    } else if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        Some(("webp", "image/webp"))
    } else {
        None
    }
}

fn content_type_of(key: &str) -> &'static str {
    match crate::storage::key_extension(key).as_str() {
        "png" => "image/png",
        "jpg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => "application/octet-stream",
    }
}

/// Replaces the caller's avatar: an image (PNG, JPEG, GIF or WebP by content) of at most
/// [`AVATAR_MAX_BYTES`], stored under `avatars/{user}/`; the old object is deleted after the
/// commit (an orphan the sweeper removes if that fails).
pub async fn set_avatar(
    state: &AppState,
    actor: &Actor,
    image: ReceivedImage,
) -> ApiResult<Profile> {
    if image.seen.size == 0 {
        return Err(ApiError::validation("Please select an image to upload."));
    }
    if image.seen.size > AVATAR_MAX_BYTES {
        return Err(ApiError::TooLarge(AVATAR_TOO_BIG.into()));
    }
    let (ext, content_type) = image_type(&image.seen.head).ok_or_else(|| ApiError::Validation {
        code: "unsupported_file_type",
        message: AVATAR_WRONG_TYPE.into(),
    })?;
    let key = Storage::avatar_key(&actor.user.id, ext);
    state
        .storage
        .put_file(&key, &image.path, content_type)
        .await?;
    let result = record_avatar(state, actor, Some(&key)).await;
    if result.is_err() {
        let _ = state.storage.delete(&key).await;
    }
    result
}

/// Removes the caller's avatar.
pub async fn remove_avatar(state: &AppState, actor: &Actor) -> ApiResult<Profile> {
    record_avatar(state, actor, None).await
}

async fn record_avatar(
    state: &AppState,
    actor: &Actor,
    key: Option<&ObjectKey>,
) -> ApiResult<Profile> {
    let user_id: &str = &actor.user.id;
    let mut change = Change::begin_unannounced(state).await?;
    let old = db::avatar_key(change.conn(), user_id).await?;
    let url = key.map(|k| {
        let version = k
            .as_str()
            .rsplit('/')
            .next()
            .and_then(|n| n.split('.').next())
            .unwrap_or_default()
            .chars()
            .take(8)
            .collect::<String>();
        format!("/api/users/{user_id}/avatar?v={version}")
    });
    db::set_avatar(
        change.conn(),
        user_id,
        url.as_deref(),
        key.map(ObjectKey::as_str),
        &crate::db::now(),
    )
    .await?;
    let after = db::get(change.conn(), user_id)
        .await?
        .ok_or(ApiError::Unauthenticated)?;
    change
        .commit_unannounced(
            actor.audited(),
            Audit {
                event_type: if key.is_some() {
                    "avatar_changed"
                } else {
                    "avatar_removed"
                },
                entity_type: "user",
                entity_id: user_id,
                details: json!({}),
                severity: "info",
            },
        )
        .await?;
    if let Some(old) = old
        && let Ok(old) = ObjectKey::parse(&old)
        && let Err(e) = state.storage.delete(&old).await
    {
        tracing::warn!(key = %old, error = %e, "could not delete a replaced avatar (the sweeper will)");
    }
    Ok(after.into())
}

/// A user's avatar for display: to the user, administrators and members of a client the user
/// belongs to (404 for anyone else and when there is none).
pub async fn open_avatar(
    state: &AppState,
    actor: &Actor,
    user_id: &str,
) -> ApiResult<super::files::Download> {
    let none = || ApiError::not_found("No avatar");
    let caller = &actor.user;
    let visible = caller.is_admin()
        || caller.id.as_str() == user_id
        || crate::db::users::client_memberships(&state.db.pool, user_id)
            .await?
            .iter()
            .any(|m| {
                caller
                    .clients
                    .iter()
                    .any(|c| c.client_id.as_str() == m.client_id)
            });
    if !visible {
        return Err(none());
    }
    let key = db::avatar_key(&state.db.pool, user_id)
        .await?
        .ok_or_else(none)?;
    let key = ObjectKey::parse(&key).map_err(|_| none())?;
    let (size, stream) = state.storage.get_stream(&key).await?;
    Ok(super::files::Download {
        name: sanitize_name(&format!(
            "avatar.{}",
            crate::storage::key_extension(key.as_str())
        )),
        content_type: content_type_of(key.as_str()).to_owned(),
        size,
        stream,
    })
}

/// A client's project settings as the 'Project Settings' card shows them.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ProjectSettings {
    /// The client.
    pub client_id: String,
    /// Client Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// When the client last changed.
    pub last_updated: String,
    /// Whether the caller may change them (members who are not viewers, administrators).
    pub can_edit: bool,
}

/// A change of the project settings.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct ProjectInput {
    /// Client Name (required).
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: String,
}

/// The topic of a client's project settings.
pub fn settings_topic(client_id: &str) -> Topic {
    Topic::Client {
        client_id: client_id.to_owned(),
        area: "settings",
    }
}

fn settings_view(r: db::ProjectRow, can_edit: bool) -> ProjectSettings {
    ProjectSettings {
        client_id: r.id,
        name: r.name,
        description: r.description,
        last_updated: r.last_updated,
        can_edit,
    }
}

/// The project settings of the scope's client.
pub async fn project(state: &AppState, scope: &Scope) -> ApiResult<ProjectSettings> {
    let row = db::project(&state.db.pool, &scope.client_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Client not found"))?;
    Ok(settings_view(row, scope.rights.write))
}

/// Changes the scope's client's name and description (the scope has the write right).
pub async fn update_project(
    state: &AppState,
    scope: &Scope,
    input: ProjectInput,
) -> ApiResult<ProjectSettings> {
    let name = input.name.trim();
    if name.is_empty() {
        return Err(ApiError::validation(CLIENT_NAME_REQUIRED));
    }
    if name.chars().count() > 200 {
        return Err(ApiError::validation(
            "Client name must be at most 200 characters",
        ));
    }
    let description = input.description.trim();
    if description.chars().count() > 5000 {
        return Err(ApiError::validation(
            "Description must be at most 5000 characters",
        ));
    }
    let client_id: &str = &scope.client_id;
    let mut change = Change::begin(state, settings_topic(client_id)).await?;
    let before = db::project(change.conn(), client_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Client not found"))?;
    db::set_project(
        change.conn(),
        client_id,
        name,
        description,
        &crate::db::now(),
    )
    .await?;
    let after = db::project(change.conn(), client_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Client not found"))?;
    change
        .commit(
            &scope.actor,
            Event::ProjectUpdated(ProjectChange {
                client_id: client_id.to_owned(),
            }),
            Audit {
                event_type: "project_settings_updated",
                entity_type: "client",
                entity_id: client_id,
                details: json!({
                    "from": {"name": before.name, "description": before.description},
                    "to": {"name": name, "description": description},
                }),
                severity: "info",
            },
        )
        .await?;
    Ok(settings_view(after, true))
}

/// The configuration administrators see on their settings page (read-only: it comes from the
/// server's environment).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AdminConfiguration {
    /// The sender of the product's mail (`MAIL_FROM`).
    pub mail_from: String,
    /// Whether mail is delivered by SMTP (`SMTP_URL`); otherwise it stays in the outbox.
    pub smtp_configured: bool,
    /// The support address shown in FAQ & Support (`SUPPORT_EMAIL`).
    pub support_email: String,
    /// Largest client file upload in MiB (`MAX_UPLOAD_MB`).
    #[ts(type = "number")]
    pub max_upload_mb: u64,
    /// Largest lever analysis file in MB.
    #[ts(type = "number")]
    pub lever_file_max_mb: u64,
    /// Most lever analysis files in one upload.
    #[ts(type = "number")]
    pub lever_files_per_upload: u64,
    /// The lever analysis files' types.
    pub lever_file_types: Vec<String>,
    /// Largest avatar image in MB.
    #[ts(type = "number")]
    pub avatar_max_mb: u64,
    /// Where files are kept: `local` or `s3`.
    pub storage: String,
}

/// The configuration administrators see.
pub fn configuration(state: &AppState) -> AdminConfiguration {
    use super::lever_dictionary as levers;
    let c = &state.config;
    AdminConfiguration {
        mail_from: c.mail_from.clone(),
        smtp_configured: c.smtp_url.as_deref().is_some_and(|u| !u.trim().is_empty()),
        support_email: c.support_email.clone(),
        max_upload_mb: c.max_upload_mb,
        lever_file_max_mb: levers::MAX_FILE_BYTES / (1024 * 1024),
        lever_files_per_upload: levers::MAX_FILES_PER_UPLOAD as u64,
        lever_file_types: levers::FILE_TYPES.iter().map(|t| (*t).to_owned()).collect(),
        avatar_max_mb: AVATAR_MAX_BYTES / (1024 * 1024),
        storage: match state.storage.backend() {
            crate::storage::Backend::Local(_) => "local".into(),
            crate::storage::Backend::S3 { .. } => "s3".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::image_type;

    #[test]
    fn images_are_recognised_by_content() {
        assert_eq!(image_type(b"\x89PNG\r\n\x1a\nrest").unwrap().0, "png");
        assert_eq!(image_type(&[0xFF, 0xD8, 0xFF, 0xE0]).unwrap().0, "jpg");
        assert_eq!(image_type(b"GIF89a...").unwrap().0, "gif");
        assert_eq!(image_type(b"RIFF\0\0\0\0WEBPVP8 ").unwrap().0, "webp");
        assert!(image_type(b"<svg xmlns=").is_none());
        assert!(image_type(b"MZ\x90\0").is_none());
    }
}
