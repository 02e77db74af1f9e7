//! The lever dictionary: levers with their analysis-file counts, the analysis files
//! (`lever_files`, migration 0016) and the marks of a rename that moves them (see the migration
//! for the protocol).

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A lever as the dictionary lists it.
#[derive(Debug, Clone, FromRow)]
pub struct EntryRow {
    /// Id.
    pub id: String,
    /// Analysis code of the engine's levers (`pse`, ...), else `None`.
    pub code: Option<String>,
    /// Name.
    pub lever_name: String,
    /// Description.
    pub description: String,
    /// Assets, CET1 deductions, CRMT or Other.
    pub lever_category: String,
    /// How many analysis files it has.
    pub file_count: i64,
    /// The token of a rename moving its files, if one is under way.
    pub move_token: Option<String>,
}

const ENTRY: &str = "SELECT l.id, l.code, l.lever_name, l.description, l.lever_category,
    CAST((SELECT COUNT(*) FROM lever_files f WHERE f.lever_id = l.id) AS BIGINT) AS file_count,
    l.move_token FROM levers l";

/// Every lever with its file count, by name.
#[tracing::instrument(skip(ex), err)]
pub async fn entries<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<EntryRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{ENTRY} ORDER BY lower(l.lever_name), l.id"
    )))
    .fetch_all(ex)
    .await
}

/// One lever with its file count.
#[tracing::instrument(skip(ex), err)]
pub async fn entry<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<EntryRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{ENTRY} WHERE l.id = $1")))
        .bind(id)
        .fetch_optional(ex)
        .await
}

/// Every lever's id and name (the folder-uniqueness check).
#[tracing::instrument(skip(ex), err)]
pub async fn names<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<(String, String)>> {
    sqlx::query_as("SELECT id, lever_name FROM levers")
        .fetch_all(ex)
        .await
}

/// Inserts a lever.
#[tracing::instrument(skip(conn), err)]
pub async fn insert_lever(
    conn: &mut AnyConnection,
    id: &str,
    name: &str,
    description: &str,
    category: &str,
    now: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO levers (id, code, lever_name, description, lever_category, created_at, updated_at)
         VALUES ($1, NULL, $2, $3, $4, $5, $5)",
    )
    .bind(id)
    .bind(name)
    .bind(description)
    .bind(category)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// Changes a lever's name, description and category, unless a move is under way (then `false`).
#[tracing::instrument(skip(conn), err)]
pub async fn update_lever(
    conn: &mut AnyConnection,
    id: &str,
    name: &str,
    description: &str,
    category: &str,
    now: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE levers SET lever_name = $2, description = $3, lever_category = $4, updated_at = $5
         WHERE id = $1 AND move_token IS NULL",
    )
    .bind(id)
    .bind(name)
    .bind(description)
    .bind(category)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(r.rows_affected() > 0)
}

/// Changes a lever's category only.
#[tracing::instrument(skip(conn), err)]
pub async fn set_category(
    conn: &mut AnyConnection,
    id: &str,
    category: &str,
    now: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query("UPDATE levers SET lever_category = $2, updated_at = $3 WHERE id = $1")
        .bind(id)
        .bind(category)
        .bind(now)
        .execute(conn)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// How many client files, processing runs and validations name the lever.
#[tracing::instrument(skip(ex), err)]
pub async fn usage<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<(i64, i64)> {
    sqlx::query_as(
        "SELECT CAST((SELECT COUNT(*) FROM client_files WHERE lever_id = $1) AS BIGINT),
                CAST((SELECT COUNT(*) FROM processing_runs WHERE lever_id = $1) AS BIGINT)",
    )
    .bind(id)
    .fetch_one(ex)
    .await
}

/// Deletes a lever that no move holds (its analysis-file rows go with it); returns the keys of
/// its files' objects, for deletion after the commit. `None` when nothing was deleted.
#[tracing::instrument(skip(conn), err)]
pub async fn delete_lever(conn: &mut AnyConnection, id: &str) -> sqlx::Result<Option<Vec<String>>> {
    let keys: Vec<(String,)> =
        sqlx::query_as("SELECT object_key FROM lever_files WHERE lever_id = $1")
            .bind(id)
            .fetch_all(&mut *conn)
            .await?;
    sqlx::query("DELETE FROM lever_files WHERE lever_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    let r = sqlx::query("DELETE FROM levers WHERE id = $1 AND move_token IS NULL")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    Ok((r.rows_affected() > 0).then(|| keys.into_iter().map(|(k,)| k).collect()))
}

/// An analysis file of a lever.
#[derive(Debug, Clone, FromRow)]
pub struct LeverFileRow {
    /// Id.
    pub id: String,
    /// The lever.
    pub lever_id: String,
    /// The name it was uploaded with.
    pub name: String,
    /// Where the object is.
    pub object_key: String,
    /// Size in bytes.
    pub size_bytes: i64,
    /// Who uploaded it.
    pub uploaded_by: Option<String>,
    /// When.
    pub uploaded_at: String,
    /// The key a rename under way copies it to.
    pub moving_to: Option<String>,
    /// The key a finished rename still has to delete.
    pub moved_from: Option<String>,
}

const FILE_COLS: &str =
    "id, lever_id, name, object_key, size_bytes, uploaded_by, uploaded_at, moving_to, moved_from";

/// A lever's analysis files, newest first.
#[tracing::instrument(skip(ex), err)]
pub async fn files<'e>(
    ex: impl AnyExecutor<'e>,
    lever_id: &str,
) -> sqlx::Result<Vec<LeverFileRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FILE_COLS} FROM lever_files WHERE lever_id = $1 ORDER BY uploaded_at DESC, name"
    )))
    .bind(lever_id)
    .fetch_all(ex)
    .await
}

/// One analysis file.
#[tracing::instrument(skip(ex), err)]
pub async fn file<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<LeverFileRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FILE_COLS} FROM lever_files WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// Records an analysis file.
#[tracing::instrument(skip(conn), err)]
pub async fn insert_file(conn: &mut AnyConnection, f: &LeverFileRow) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO lever_files (id, lever_id, name, object_key, size_bytes, uploaded_by, uploaded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(&f.id)
    .bind(&f.lever_id)
    .bind(&f.name)
    .bind(&f.object_key)
    .bind(f.size_bytes)
    .bind(&f.uploaded_by)
    .bind(&f.uploaded_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// Removes an analysis file's row unless a move holds it; returns whether it was removed.
#[tracing::instrument(skip(conn), err)]
pub async fn delete_file(conn: &mut AnyConnection, id: &str) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM lever_files WHERE id = $1 AND moving_to IS NULL")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// Marks a lever as moving its files to the folder of `new_name` (step 1); `false` when another
/// move holds it.
#[tracing::instrument(skip(conn), err)]
pub async fn start_move(
    conn: &mut AnyConnection,
    lever_id: &str,
    token: &str,
    new_name: &str,
    now: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE levers SET move_token = $2, move_name = $3, move_heartbeat = $4
         WHERE id = $1 AND move_token IS NULL",
    )
    .bind(lever_id)
    .bind(token)
    .bind(new_name)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(r.rows_affected() > 0)
}

/// Names the key a file is being copied to (step 1).
#[tracing::instrument(skip(conn), err)]
pub async fn set_moving_to(conn: &mut AnyConnection, file_id: &str, key: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE lever_files SET moving_to = $2 WHERE id = $1")
        .bind(file_id)
        .bind(key)
        .execute(conn)
        .await?;
    Ok(())
}

/// Refreshes a move's heartbeat (step 2); `false` when the move is no longer this one (a recovery
/// undid it).
#[tracing::instrument(skip(ex), err)]
pub async fn heartbeat<'e>(
    ex: impl AnyExecutor<'e>,
    lever_id: &str,
    token: &str,
    now: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query("UPDATE levers SET move_heartbeat = $3 WHERE id = $1 AND move_token = $2")
        .bind(lever_id)
        .bind(token)
        .bind(now)
        .execute(ex)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// Step 3: renames the lever and points its files at their new keys (the old ones kept in
/// `moved_from`), clearing the marks. `false` when the move is no longer this one.
#[tracing::instrument(skip(conn), err)]
pub async fn finish_move(
    conn: &mut AnyConnection,
    lever_id: &str,
    token: &str,
    name: &str,
    description: &str,
    category: &str,
    now: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE levers SET lever_name = $3, description = $4, lever_category = $5, updated_at = $6,
             move_token = NULL, move_name = NULL, move_heartbeat = NULL
         WHERE id = $1 AND move_token = $2",
    )
    .bind(lever_id)
    .bind(token)
    .bind(name)
    .bind(description)
    .bind(category)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    if r.rows_affected() == 0 {
        return Ok(false);
    }
    sqlx::query(
        "UPDATE lever_files SET moved_from = object_key, object_key = moving_to, moving_to = NULL
         WHERE lever_id = $1 AND moving_to IS NOT NULL",
    )
    .bind(lever_id)
    .execute(&mut *conn)
    .await?;
    Ok(true)
}

/// Undoes a move before its step 3: clears the marks of the move `token` and returns the keys
/// its copies were written to (for deletion after the commit). `None` when the move is no longer
/// this one.
#[tracing::instrument(skip(conn), err)]
pub async fn abort_move(
    conn: &mut AnyConnection,
    lever_id: &str,
    token: &str,
) -> sqlx::Result<Option<Vec<String>>> {
    let r = sqlx::query(
        "UPDATE levers SET move_token = NULL, move_name = NULL, move_heartbeat = NULL
         WHERE id = $1 AND move_token = $2",
    )
    .bind(lever_id)
    .bind(token)
    .execute(&mut *conn)
    .await?;
    if r.rows_affected() == 0 {
        return Ok(None);
    }
    let keys: Vec<(String,)> = sqlx::query_as(
        "SELECT moving_to FROM lever_files WHERE lever_id = $1 AND moving_to IS NOT NULL",
    )
    .bind(lever_id)
    .fetch_all(&mut *conn)
    .await?;
    sqlx::query("UPDATE lever_files SET moving_to = NULL WHERE lever_id = $1")
        .bind(lever_id)
        .execute(&mut *conn)
        .await?;
    Ok(Some(keys.into_iter().map(|(k,)| k).collect()))
}

/// Moves whose heartbeat is older than `cutoff`: (lever, token).
#[tracing::instrument(skip(ex), err)]
pub async fn stale_moves<'e>(
    ex: impl AnyExecutor<'e>,
    cutoff: &str,
) -> sqlx::Result<Vec<(String, String)>> {
    sqlx::query_as(
        "SELECT id, move_token FROM levers
         WHERE move_token IS NOT NULL AND (move_heartbeat IS NULL OR move_heartbeat < $1)",
    )
    .bind(cutoff)
    .fetch_all(ex)
    .await
}

/// Files whose old object a finished move still has to delete: (file, old key).
#[tracing::instrument(skip(ex), err)]
pub async fn pending_deletes<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<(String, String)>> {
    sqlx::query_as("SELECT id, moved_from FROM lever_files WHERE moved_from IS NOT NULL")
        .fetch_all(ex)
        .await
}

/// Clears a file's `moved_from` once its old object is gone (step 4).
#[tracing::instrument(skip(ex), err)]
pub async fn clear_moved_from<'e>(
    ex: impl AnyExecutor<'e>,
    file_id: &str,
    old_key: &str,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE lever_files SET moved_from = NULL WHERE id = $1 AND moved_from = $2")
        .bind(file_id)
        .bind(old_key)
        .execute(ex)
        .await?;
    Ok(())
}

/// The keys among `keys` that a lever file's row names (as its object, its copy under way or
/// the old object of a finished move), for the orphan sweeper.
#[tracing::instrument(skip(ex, keys), err)]
pub async fn referenced_keys<'e>(
    ex: impl AnyExecutor<'e>,
    keys: &[String],
) -> sqlx::Result<Vec<String>> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    // Placeholders only ($1..$n); the keys are bound.
    let marks: Vec<String> = (1..=keys.len()).map(|i| format!("${i}")).collect();
    let marks = marks.join(", ");
    let sql = format!(
        "SELECT object_key FROM lever_files WHERE object_key IN ({marks})
         UNION SELECT moving_to FROM lever_files WHERE moving_to IN ({marks})
         UNION SELECT moved_from FROM lever_files WHERE moved_from IN ({marks})"
    );
    let mut query = sqlx::query_as::<_, (Option<String>,)>(sqlx::AssertSqlSafe(sql));
    for k in keys {
        query = query.bind(k.clone());
    }
    Ok(query
        .fetch_all(ex)
        .await?
        .into_iter()
        .filter_map(|(k,)| k)
        .collect())
}
