//! The edit history of client files (spec 001 section 2.2): every change of a file's lever,
//! savings, processed state and name, with who made it and when, written in the transaction of
//! the change (an administrator's edit, or the completion of a run, by the user the run acts
//! for).

use serde::Serialize;
use sqlx::AnyConnection;

use crate::access::Need;
use crate::db::file_admin::{self as db, NewEdit};
use crate::db::files::FileRow;
use crate::error::ApiResult;
use crate::service::Actor;
use crate::state::AppState;

/// The fields the history follows.
pub const FIELDS: [&str; 5] = ["lever", "savings_rwas", "savings_bps", "processed", "name"];

/// One recorded change as the history tab shows it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FileEdit {
    /// Id.
    pub id: String,
    /// When (RFC 3339).
    pub edited_at: String,
    /// The editor's id (`None`: unknown, or the user was deleted).
    pub edited_by: Option<String>,
    /// The editor's name (`None`: unknown; screens show 'Unknown User').
    pub editor_name: Option<String>,
    /// The editor's avatar, if any.
    pub editor_avatar: Option<String>,
    /// `lever`, `savings_rwas`, `savings_bps`, `processed` or `name`.
    pub field: String,
    /// The value before (lever values by name; `None`: not set).
    pub old_value: Option<String>,
    /// The value after (lever values by name; `None`: not set).
    pub new_value: Option<String>,
}

/// A number as the history keeps it (no float noise: at most six decimals, trailing zeros cut).
pub fn number_text(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// Records a change of one field, unless the value did not change.
pub async fn record(
    conn: &mut AnyConnection,
    file_id: &str,
    editor: Option<&str>,
    field: &str,
    previous: Option<&str>,
    new: Option<&str>,
) -> ApiResult<()> {
    if previous == new {
        return Ok(());
    }
    db::insert_edit(
        conn,
        &NewEdit {
            file_id,
            edited_by: editor,
            field,
            previous,
            new,
            now: &crate::db::now(),
        },
    )
    .await?;
    Ok(())
}

/// Records every followed field that differs between two readings of a file row.
pub async fn record_diff(
    conn: &mut AnyConnection,
    before: &FileRow,
    after: &FileRow,
    editor: Option<&str>,
) -> ApiResult<()> {
    let id = after.id.as_str();
    record(
        conn,
        id,
        editor,
        "lever",
        before.lever_id.as_deref(),
        after.lever_id.as_deref(),
    )
    .await?;
    for (field, b, a) in [
        ("savings_rwas", before.savings_rwas, after.savings_rwas),
        ("savings_bps", before.savings_bps, after.savings_bps),
    ] {
        let (b, a) = (number_text(b), number_text(a));
        record(conn, id, editor, field, Some(&b), Some(&a)).await?;
    }
    let flag = |p: i64| if p != 0 { "true" } else { "false" };
    record(
        conn,
        id,
        editor,
        "processed",
        Some(flag(before.processed)),
        Some(flag(after.processed)),
    )
    .await?;
    record(
        conn,
        id,
        editor,
        "name",
        Some(&before.name),
        Some(&after.name),
    )
    .await?;
    Ok(())
}

/// A file's history, newest first, for an administrator; lever values are given by the lever's
/// name (its stored value when the lever is gone).
pub async fn list(state: &AppState, actor: &Actor, file_id: &str) -> ApiResult<Vec<FileEdit>> {
    super::file_for(state, actor, file_id, Need::Admin).await?;
    let rows = db::history(&state.db.pool, file_id).await?;
    let levers: std::collections::HashMap<String, String> =
        crate::db::clients::levers(&state.db.pool)
            .await?
            .into_iter()
            .map(|l| (l.id, l.lever_name))
            .collect();
    let lever_name = |v: Option<String>| v.map(|id| levers.get(&id).cloned().unwrap_or(id));
    Ok(rows
        .into_iter()
        .map(|r| {
            let is_lever = r.field_name == "lever";
            let name = [r.editor_name, r.editor_last_name]
                .into_iter()
                .flatten()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            FileEdit {
                id: r.id,
                edited_at: r.edited_at,
                edited_by: r.edited_by,
                editor_name: Some(name).filter(|n| !n.is_empty()),
                editor_avatar: r.editor_avatar.filter(|a| !a.is_empty()),
                field: r.field_name,
                old_value: if is_lever {
                    lever_name(r.previous_value)
                } else {
                    r.previous_value
                },
                new_value: if is_lever {
                    lever_name(r.new_value)
                } else {
                    r.new_value
                },
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::number_text;

    #[test]
    fn numbers_without_noise() {
        assert_eq!(number_text(1250000.0), "1250000");
        assert_eq!(number_text(12.34), "12.34");
        assert_eq!(number_text(0.1 + 0.2), "0.3");
        assert_eq!(number_text(-0.0), "0");
    }
}
