//! The task board (kanban) of a client: columns, tasks and categories, ordered by fractional index
//! keys so that a move rewrites exactly one row.
//!
//! Ordering invariant: the columns of a client, and the tasks of a column, are ordered by
//! `(position, id)` compared byte-wise. Sorting happens in Rust ([`sort_columns`], [`sort_tasks`])
//! because a database collation may not be byte order. Every change to a client's board runs in a
//! transaction that first increments the client's board topic sequence (see
//! `crate::realtime::next_seq`); that row lock serialises concurrent board writes of one client, so a
//! new key is always computed from the committed neighbours and two moves can never produce the
//! same key.

use serde::Serialize;
use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// Fractional index keys: a Rust port of the `fractional-indexing` algorithm (base-62 digits,
/// `A`-`Z`/`a`-`z` integer heads) so that the web app, which uses the npm package of the same
/// name, produces and accepts exactly the same keys.
pub mod keys {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const ZERO: u8 = b'0';
    const LAST: u8 = b'z';
    const SMALLEST_INTEGER: &str = "A00000000000000000000000000";

    /// A key that cannot be used, or bounds given in the wrong order.
    #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
    #[error("invalid order key: {0}")]
    pub struct KeyError(pub String);

    fn digit(c: u8) -> Option<usize> {
        match c {
            b'0'..=b'9' => Some((c - b'0') as usize),
            b'A'..=b'Z' => Some((c - b'A') as usize + 10),
            b'a'..=b'z' => Some((c - b'a') as usize + 36),
            _ => None,
        }
    }

    fn integer_length(head: u8) -> Result<usize, KeyError> {
        match head {
            b'a'..=b'z' => Ok((head - b'a') as usize + 2),
            b'A'..=b'Z' => Ok((b'Z' - head) as usize + 2),
            _ => Err(KeyError(format!(
                "invalid order key head: {}",
                head as char
            ))),
        }
    }

    fn integer_part(key: &str) -> Result<&str, KeyError> {
        let first = *key
            .as_bytes()
            .first()
            .ok_or_else(|| KeyError(String::new()))?;
        let n = integer_length(first)?;
        if n > key.len() {
            return Err(KeyError(key.to_string()));
        }
        Ok(&key[..n])
    }

    /// Checks that `key` is a well-formed key.
    pub fn validate(key: &str) -> Result<(), KeyError> {
        if !key.bytes().all(|c| digit(c).is_some()) || key == SMALLEST_INTEGER {
            return Err(KeyError(key.to_string()));
        }
        let i = integer_part(key)?;
        if key[i.len()..].ends_with('0') {
            return Err(KeyError(key.to_string()));
        }
        Ok(())
    }

    fn midpoint(a: &str, b: Option<&str>) -> Result<String, KeyError> {
        if let Some(b) = b
            && a >= b
        {
            return Err(KeyError(format!("{a} >= {b}")));
        }
        if a.ends_with('0') || b.is_some_and(|b| b.ends_with('0')) {
            return Err(KeyError("trailing zero".into()));
        }
        let (ab, bb) = (a.as_bytes(), b.map(str::as_bytes));
        if let Some(bb) = bb {
            let mut n = 0;
            while n < bb.len() && ab.get(n).copied().unwrap_or(ZERO) == bb[n] {
                n += 1;
            }
            if n > 0 {
                let b = b.unwrap_or_default();
                let rest = midpoint(a.get(n..).unwrap_or(""), Some(&b[n..]))?;
                return Ok(format!("{}{}", &b[..n], rest));
            }
        }
        let digit_a = match ab.first() {
            Some(&c) => digit(c).ok_or_else(|| KeyError(a.to_string()))?,
            None => 0,
        };
        let digit_b = match bb {
            Some(bb) => digit(*bb.first().ok_or_else(|| KeyError(String::new()))?)
                .ok_or_else(|| KeyError(String::new()))?,
            None => DIGITS.len(),
        };
        if digit_b - digit_a > 1 {
            // Math.round(0.5 * (a + b)) rounds halves up, as integer (a + b + 1) / 2 does.
            let mid = (digit_a + digit_b).div_ceil(2);
            Ok((DIGITS[mid] as char).to_string())
        } else if let Some(bb) = bb.filter(|bb| bb.len() > 1) {
            Ok((bb[0] as char).to_string())
        } else {
            let rest = midpoint(a.get(1..).unwrap_or(""), None)?;
            Ok(format!("{}{}", DIGITS[digit_a] as char, rest))
        }
    }

    fn validate_integer(x: &str) -> Result<(), KeyError> {
        if x.len() != integer_length(x.as_bytes()[0])? {
            return Err(KeyError(format!("invalid integer part of order key: {x}")));
        }
        Ok(())
    }

    fn increment_integer(x: &str) -> Result<Option<String>, KeyError> {
        validate_integer(x)?;
        let b = x.as_bytes();
        let head = b[0];
        let mut trailing = String::new();
        for i in (1..b.len()).rev() {
            let d = digit(b[i]).ok_or_else(|| KeyError(x.to_string()))? + 1;
            if d == DIGITS.len() {
                trailing.insert(0, ZERO as char);
            } else {
                return Ok(Some(format!(
                    "{}{}{}{}",
                    head as char,
                    &x[1..i],
                    DIGITS[d] as char,
                    trailing
                )));
            }
        }
        if head == b'z' {
            return Ok(None);
        }
        let h = if head == b'Z' { b'a' } else { head + 1 };
        let delta = integer_length(h)? as isize - integer_length(head)? as isize;
        let digits = match delta {
            d if d > 0 => format!("{trailing}0"),
            d if d < 0 => trailing[1..].to_string(),
            _ => trailing,
        };
        Ok(Some(format!("{}{}", h as char, digits)))
    }

    fn decrement_integer(x: &str) -> Result<Option<String>, KeyError> {
        validate_integer(x)?;
        let b = x.as_bytes();
        let head = b[0];
        let mut trailing = String::new();
        for i in (1..b.len()).rev() {
            let d = digit(b[i]).ok_or_else(|| KeyError(x.to_string()))?;
            if d == 0 {
                trailing.insert(0, LAST as char);
            } else {
                return Ok(Some(format!(
                    "{}{}{}{}",
                    head as char,
                    &x[1..i],
                    DIGITS[d - 1] as char,
                    trailing
                )));
            }
        }
        if head == b'A' {
            return Ok(None);
        }
        let h = if head == b'a' { b'Z' } else { head - 1 };
        let delta = integer_length(h)? as isize - integer_length(head)? as isize;
        let digits = match delta {
            d if d > 0 => format!("{trailing}z"),
            d if d < 0 => trailing[1..].to_string(),
            _ => trailing,
        };
        Ok(Some(format!("{}{}", h as char, digits)))
    }

    /// A key that sorts strictly between `a` and `b` (`None` meaning the start or the end).
    pub fn between(a: Option<&str>, b: Option<&str>) -> Result<String, KeyError> {
        if let Some(a) = a {
            validate(a)?;
        }
        if let Some(b) = b {
            validate(b)?;
        }
        let (a, b) = match (a, b) {
            (Some(x), Some(y)) if x > y => (Some(y), Some(x)),
            (Some(x), Some(y)) if x == y => return Err(KeyError(format!("{x} >= {y}"))),
            other => other,
        };
        match (a, b) {
            (None, None) => Ok("a0".to_string()),
            (None, Some(b)) => {
                let ib = integer_part(b)?;
                let fb = &b[ib.len()..];
                if ib == SMALLEST_INTEGER {
                    return Ok(format!("{ib}{}", midpoint("", Some(fb))?));
                }
                if ib < b {
                    return Ok(ib.to_string());
                }
                decrement_integer(ib)?.ok_or_else(|| KeyError("cannot decrement any more".into()))
            }
            (Some(a), None) => {
                let ia = integer_part(a)?;
                let fa = &a[ia.len()..];
                match increment_integer(ia)? {
                    Some(i) => Ok(i),
                    None => Ok(format!("{ia}{}", midpoint(fa, None)?)),
                }
            }
            (Some(a), Some(b)) => {
                let ia = integer_part(a)?;
                let fa = &a[ia.len()..];
                let ib = integer_part(b)?;
                let fb = &b[ib.len()..];
                if ia == ib {
                    return Ok(format!("{ia}{}", midpoint(fa, Some(fb))?));
                }
                let i = increment_integer(ia)?
                    .ok_or_else(|| KeyError("cannot increment any more".into()))?;
                if i.as_str() < b {
                    Ok(i)
                } else {
                    Ok(format!("{ia}{}", midpoint(fa, None)?))
                }
            }
        }
    }

    /// `n` increasing keys from the start (`a0`, `a1`, ...), used to rebalance a list.
    pub fn sequence(n: usize) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(n);
        for _ in 0..n {
            let next =
                between(out.last().map(String::as_str), None).unwrap_or_else(|_| "a0".into());
            out.push(next);
        }
        out
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Produced by `generateKeyBetween` of the npm package `fractional-indexing` 4.0.0: fixed
        /// cases, then a seeded random walk of insertions.
        const VECTORS: &str = r#"[[null,null,"a0"],["a0",null,"a1"],[null,"a0","Zz"],["a0","a1","a0V"],["a1","a2","a1V"],["a0V","a1","a0l"],["Zz","a0","ZzV"],[null,"Zz","Zy"],["a0","a0V","a0G"],["a09","a1","a0a"],["a1","a1V","a1G"],["az",null,"b00"],["Zy","Zz","ZyV"],["zzzzzzzzzzzzzzzzzzzzzzzzzzy",null,"zzzzzzzzzzzzzzzzzzzzzzzzzzz"],["a0","a01","a00V"],["b125","b13","b12Y"],["a0",null,"a1"],[null,null,"a0"],[null,"a0","Zz"],["Zz","a0","ZzV"],["a0",null,"a1"],["a0","a1","a0V"],["a0","a0V","a0G"],["a1",null,"a2"],["a2",null,"a3"],[null,"Zz","Zy"],["a3",null,"a4"],["Zz","ZzV","ZzG"],["Zz","ZzG","Zz8"],["a4",null,"a5"],[null,"Zy","Zx"],["ZzG","ZzV","ZzO"],[null,"Zx","Zw"],["Zw","Zx","ZwV"],["a0V","a1","a0l"],["a4","a5","a4V"],["a3","a4","a3V"],["a2","a3","a2V"],["Zw","ZwV","ZwG"],["a0l","a1","a0t"],["a0","a0G","a08"],["Zy","Zz","ZyV"],["a4","a4V","a4G"],["Zw","ZwG","Zw8"],["a3","a3V","a3G"],["ZwV","Zx","Zwl"],[null,"Zw","Zv"],["a2","a2V","a2G"],["a2G","a2V","a2O"],["a3V","a4","a3l"],["a3G","a3V","a3O"],["a3V","a3l","a3d"],["a3","a3G","a38"],["Zv","Zw","ZvV"],["Zz8","ZzG","ZzC"],["ZwG","ZwV","ZwO"],["a2G","a2O","a2K"],["ZzG","ZzO","ZzK"],["Zz","Zz8","Zz4"],["a38","a3G","a3C"],["Zz4","Zz8","Zz6"],["a3d","a3l","a3h"],["a0l","a0t","a0p"],["Zx","Zy","ZxV"],["a0","a08","a04"],["a0p","a0t","a0r"],["ZzO","ZzV","ZzS"],["Zz6","Zz8","Zz7"],["a3O","a3V","a3S"],["a0r","a0t","a0s"],["ZzG","ZzK","ZzI"],["a2O","a2V","a2S"],["a0r","a0s","a0rV"],["ZzO","ZzS","ZzQ"],["a0r","a0rV","a0rG"],["Zz4","Zz6","Zz5"],["ZwG","ZwO","ZwK"],["a0rG","a0rV","a0rO"],["a0V","a0l","a0d"],["a0","a04","a02"],["Zz7","Zz8","Zz7V"],["a0","a02","a01"],["ZwG","ZwK","ZwI"],["a2S","a2V","a2U"],["Zy","ZyV","ZyG"],["ZwO","ZwV","ZwS"],["a3G","a3O","a3K"],["a0r","a0rG","a0r8"],["a0rG","a0rO","a0rK"],["a3l","a4","a3t"],["Zz4","Zz5","Zz4V"],["a04","a08","a06"],["ZzO","ZzQ","ZzP"],["a0rK","a0rO","a0rM"],["a0t","a1","a0x"],["Zz4","Zz4V","Zz4G"],["ZyG","ZyV","ZyO"],["a0rK","a0rM","a0rL"],[null,"Zv","Zu"],["Zz5","Zz6","Zz5V"],["a2S","a2U","a2T"],["a2S","a2T","a2SV"],["ZzV","a0","Zzl"],["ZzI","ZzK","ZzJ"],["a06","a08","a07"],["Zz4V","Zz5","Zz4l"],["Zz6","Zz7","Zz6V"],["a38","a3C","a3A"],["Zz6","Zz6V","Zz6G"],["a0r","a0r8","a0r4"],["Zw8","ZwG","ZwC"],["a3K","a3O","a3M"],["a0s","a0t","a0sV"],["Zzl","a0","Zzt"],["ZyG","ZyO","ZyK"],["a3","a38","a34"],["Zz6","Zz6G","Zz68"],["Zz4","Zz4G","Zz48"],["Zzl","Zzt","Zzp"],["a2S","a2SV","a2SG"]]"#;

        #[test]
        fn matches_the_npm_package() {
            let v: Vec<(Option<String>, Option<String>, String)> =
                serde_json::from_str(VECTORS).unwrap();
            for (a, b, want) in v {
                assert_eq!(
                    between(a.as_deref(), b.as_deref()).unwrap(),
                    want,
                    "between({a:?}, {b:?})"
                );
            }
        }

        #[test]
        fn random_insertions_stay_sorted_and_distinct() {
            let mut keys: Vec<String> = Vec::new();
            let mut seed: u64 = 42;
            for _ in 0..2000 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let pos = (seed >> 33) as usize % (keys.len() + 1);
                let a = pos.checked_sub(1).map(|i| keys[i].as_str());
                let b = keys.get(pos).map(String::as_str);
                let k = between(a, b).unwrap();
                if let Some(a) = a {
                    assert!(a < k.as_str());
                }
                if let Some(b) = b {
                    assert!(k.as_str() < b);
                }
                keys.insert(pos, k);
            }
            let mut sorted = keys.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted, keys);
        }

        #[test]
        fn rejects_bad_keys_and_equal_bounds() {
            assert!(between(Some("a0"), Some("a0")).is_err());
            assert!(between(Some("a00"), None).is_err());
            assert!(between(Some("!"), None).is_err());
            assert!(validate("").is_err());
            assert_eq!(sequence(3), vec!["a0", "a1", "a2"]);
        }
    }
}

/// A board column.
#[derive(Debug, Clone, FromRow, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct Column {
    /// Id.
    pub id: String,
    /// The client owning the board.
    pub client_id: String,
    /// Name.
    pub name: String,
    /// Fractional order key; columns sort by `(position, id)`.
    pub position: String,
}

/// A task card.
#[derive(Debug, Clone, FromRow, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct Task {
    /// Id.
    pub id: String,
    /// The client owning the board.
    pub client_id: String,
    /// The column holding the task.
    pub column_id: String,
    /// Title (at least one character).
    pub title: String,
    /// Description (may be empty).
    pub description: String,
    /// Category, if any.
    pub category_id: Option<String>,
    /// Name of the category, if any.
    pub category_name: Option<String>,
    /// `low`, `medium`, `high`, or none.
    pub priority: Option<String>,
    /// Due date (`YYYY-MM-DD`).
    pub due_date: Option<String>,
    /// When the task reached the board's "Done" column (RFC 3339), if it is there.
    pub completed_at: Option<String>,
    /// Fractional order key within the column; tasks sort by `(position, id)`.
    pub position: String,
    /// Creator.
    pub created_by: Option<String>,
    /// Creation time (RFC 3339).
    pub created_at: String,
    /// Last change (RFC 3339).
    pub updated_at: String,
}

/// A task category: a default one (visible to all, never deletable) or one of the client's own.
#[derive(Debug, Clone, FromRow, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct Category {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// The owning client; none for default categories.
    pub client_id: Option<String>,
    /// Whether this is a default category (1) or the client's own (0).
    #[ts(type = "number")]
    pub is_default: i64,
    /// Creator.
    pub created_by: Option<String>,
}

/// The columns created for a board that has none.
pub const DEFAULT_COLUMNS: [&str; 4] = ["To Do", "In Progress", "Review", "Done"];

/// Sorts columns by `(position, id)`, byte-wise.
pub fn sort_columns(cols: &mut [Column]) {
    cols.sort_by(|a, b| {
        a.position
            .as_bytes()
            .cmp(b.position.as_bytes())
            .then_with(|| a.id.cmp(&b.id))
    });
}

/// Sorts tasks by `(column_id, position, id)`: within each column, the board order.
pub fn sort_tasks(tasks: &mut [Task]) {
    tasks.sort_by(|a, b| {
        a.column_id
            .cmp(&b.column_id)
            .then_with(|| a.position.as_bytes().cmp(b.position.as_bytes()))
            .then_with(|| a.id.cmp(&b.id))
    });
}

const TASK_SELECT: &str = "SELECT t.id, t.client_id, t.column_id, t.title, t.description, t.category_id, c.name AS category_name,
    t.priority, t.due_date, t.completed_at, t.position, t.created_by, t.created_at, t.updated_at
    FROM kanban_tasks t LEFT JOIN kanban_categories c ON c.id = t.category_id";

/// The columns of a client's board, in board order.
pub async fn columns<'e>(ex: impl AnyExecutor<'e>, client_id: &str) -> sqlx::Result<Vec<Column>> {
    let mut cols: Vec<Column> = sqlx::query_as(
        "SELECT id, client_id, name, position FROM kanban_columns WHERE client_id = $1",
    )
    .bind(client_id)
    .fetch_all(ex)
    .await?;
    sort_columns(&mut cols);
    Ok(cols)
}

/// The tasks of a client's board, grouped by column id and in order within each column.
pub async fn tasks<'e>(ex: impl AnyExecutor<'e>, client_id: &str) -> sqlx::Result<Vec<Task>> {
    let sql = format!("{TASK_SELECT} WHERE t.client_id = $1");
    let mut tasks: Vec<Task> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(client_id)
        .fetch_all(ex)
        .await?;
    sort_tasks(&mut tasks);
    Ok(tasks)
}

/// One task of a client.
pub async fn task<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    id: &str,
) -> sqlx::Result<Option<Task>> {
    let sql = format!("{TASK_SELECT} WHERE t.client_id = $1 AND t.id = $2");
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(client_id)
        .bind(id)
        .fetch_optional(ex)
        .await
}

/// One column of a client.
pub async fn column<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    id: &str,
) -> sqlx::Result<Option<Column>> {
    sqlx::query_as(
        "SELECT id, client_id, name, position FROM kanban_columns WHERE client_id = $1 AND id = $2",
    )
    .bind(client_id)
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// The categories a client sees: the default ones and its own, by name.
pub async fn categories<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Vec<Category>> {
    sqlx::query_as(
        "SELECT id, name, client_id, is_default, created_by FROM kanban_categories
         WHERE is_default = 1 OR client_id = $1 ORDER BY name, id",
    )
    .bind(client_id)
    .fetch_all(ex)
    .await
}

/// One category visible to a client.
pub async fn category<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    id: &str,
) -> sqlx::Result<Option<Category>> {
    sqlx::query_as(
        "SELECT id, name, client_id, is_default, created_by FROM kanban_categories
         WHERE id = $1 AND (is_default = 1 OR client_id = $2)",
    )
    .bind(id)
    .bind(client_id)
    .fetch_optional(ex)
    .await
}

/// Creates the default columns for a board that has none; returns them (empty when the board
/// already had columns). Run inside the board's write transaction.
pub async fn create_default_columns(
    conn: &mut AnyConnection,
    client_id: &str,
) -> sqlx::Result<Vec<Column>> {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM kanban_columns WHERE client_id = $1")
        .bind(client_id)
        .fetch_one(&mut *conn)
        .await?;
    if n > 0 {
        return Ok(Vec::new());
    }
    let now = super::now();
    let mut out = Vec::new();
    for (name, position) in DEFAULT_COLUMNS
        .iter()
        .zip(keys::sequence(DEFAULT_COLUMNS.len()))
    {
        let col = Column {
            id: super::new_id(),
            client_id: client_id.to_string(),
            name: name.to_string(),
            position,
        };
        sqlx::query("INSERT INTO kanban_columns (id, client_id, name, position, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)")
            .bind(&col.id)
            .bind(client_id)
            .bind(&col.name)
            .bind(&col.position)
            .bind(&now)
            .execute(&mut *conn)
            .await?;
        out.push(col);
    }
    Ok(out)
}

/// Inserts a column at the end of the board.
pub async fn insert_column(
    conn: &mut AnyConnection,
    client_id: &str,
    name: &str,
) -> sqlx::Result<Column> {
    let cols = columns(&mut *conn, client_id).await?;
    let position = key_after(cols.last().map(|c| c.position.as_str()));
    let col = Column {
        id: super::new_id(),
        client_id: client_id.to_string(),
        name: name.to_string(),
        position,
    };
    let now = super::now();
    sqlx::query("INSERT INTO kanban_columns (id, client_id, name, position, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)")
        .bind(&col.id)
        .bind(client_id)
        .bind(&col.name)
        .bind(&col.position)
        .bind(&now)
        .execute(&mut *conn)
        .await?;
    Ok(col)
}

/// Renames a column; `None` when it is not on the client's board.
pub async fn rename_column(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
    name: &str,
) -> sqlx::Result<Option<Column>> {
    let r = sqlx::query(
        "UPDATE kanban_columns SET name = $1, updated_at = $2 WHERE id = $3 AND client_id = $4",
    )
    .bind(name)
    .bind(super::now())
    .bind(id)
    .bind(client_id)
    .execute(&mut *conn)
    .await?;
    if r.rows_affected() == 0 {
        return Ok(None);
    }
    column(&mut *conn, client_id, id).await
}

fn key_after(last: Option<&str>) -> String {
    keys::between(last, None).unwrap_or_else(|_| "a0".into())
}

/// Where to put a moved item: after the item `after_id` and/or before the item `before_id`
/// (the neighbours the mover saw). Both absent means the end.
#[derive(Debug, Clone, Default)]
pub struct Placement<'a> {
    /// The item that should precede the moved one.
    pub after_id: Option<&'a str>,
    /// The item that should follow the moved one.
    pub before_id: Option<&'a str>,
}

/// Position items `(id, key)` sorted in list order.
type Keyed<'a> = Vec<(&'a str, &'a str)>;

/// Computes the key for an item placed in `list` (sorted, without the moved item) as asked by
/// `place`. The neighbour the mover named is honoured as it is now: `after_id` wins when it is still
/// in the list (the item goes right after it), else `before_id` (right before it), else the end.
/// Returns `None` when the list's keys are not strictly increasing around the spot (only possible
/// after a manual edit), in which case the caller rebalances the list.
fn place_key(list: &Keyed<'_>, place: &Placement<'_>) -> Option<String> {
    let idx = if let Some(i) = place
        .after_id
        .and_then(|a| list.iter().position(|(id, _)| *id == a))
    {
        i + 1
    } else if let Some(i) = place
        .before_id
        .and_then(|b| list.iter().position(|(id, _)| *id == b))
    {
        i
    } else {
        // The named neighbours have left the list (moved concurrently): the end.
        list.len()
    };
    let a = idx.checked_sub(1).map(|i| list[i].1);
    let b = list.get(idx).map(|x| x.1);
    keys::between(a, b).ok()
}

/// Rewrites all keys of a list (rare: only when existing keys are unusable), returning the new keys
/// in list order with the moved item inserted at the placement.
fn rebalanced(list: &Keyed<'_>, place: &Placement<'_>, moved: &str) -> Vec<(String, String)> {
    let mut ids: Vec<&str> = list.iter().map(|(id, _)| *id).collect();
    let idx = place
        .after_id
        .and_then(|a| ids.iter().position(|id| *id == a).map(|i| i + 1))
        .or_else(|| {
            place
                .before_id
                .and_then(|b| ids.iter().position(|id| *id == b))
        })
        .unwrap_or(ids.len());
    ids.insert(idx, moved);
    ids.iter()
        .zip(keys::sequence(ids.len()))
        .map(|(id, k)| (id.to_string(), k))
        .collect()
}

/// Moves a column; `None` when it is not on the client's board.
pub async fn move_column(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
    place: &Placement<'_>,
) -> sqlx::Result<Option<Vec<Column>>> {
    let cols = columns(&mut *conn, client_id).await?;
    if !cols.iter().any(|c| c.id == id) {
        return Ok(None);
    }
    let others: Keyed<'_> = cols
        .iter()
        .filter(|c| c.id != id)
        .map(|c| (c.id.as_str(), c.position.as_str()))
        .collect();
    let now = super::now();
    let updates = match place_key(&others, place) {
        Some(k) => vec![(id.to_string(), k)],
        None => rebalanced(&others, place, id),
    };
    for (cid, key) in &updates {
        sqlx::query("UPDATE kanban_columns SET position = $1, updated_at = $2 WHERE id = $3 AND client_id = $4")
            .bind(key)
            .bind(&now)
            .bind(cid)
            .bind(client_id)
            .execute(&mut *conn)
            .await?;
    }
    let mut changed = Vec::new();
    for (cid, _) in &updates {
        if let Some(c) = column(&mut *conn, client_id, cid).await? {
            changed.push(c);
        }
    }
    Ok(Some(changed))
}

/// Fields of a new or edited task (validated by the caller).
#[derive(Debug, Clone)]
pub struct TaskFields<'a> {
    /// Title.
    pub title: &'a str,
    /// Description.
    pub description: &'a str,
    /// Category.
    pub category_id: Option<&'a str>,
    /// Priority.
    pub priority: Option<&'a str>,
    /// Due date.
    pub due_date: Option<&'a str>,
}

async fn column_tasks(
    conn: &mut AnyConnection,
    column_id: &str,
) -> sqlx::Result<Vec<(String, String)>> {
    let mut rows: Vec<(String, String)> =
        sqlx::query_as("SELECT id, position FROM kanban_tasks WHERE column_id = $1")
            .bind(column_id)
            .fetch_all(&mut *conn)
            .await?;
    rows.sort_by(|a, b| {
        a.1.as_bytes()
            .cmp(b.1.as_bytes())
            .then_with(|| a.0.cmp(&b.0))
    });
    Ok(rows)
}

fn is_done_column(name: &str) -> bool {
    name.trim().eq_ignore_ascii_case("done")
}

/// Inserts a task at the end of a column of the client's board; `None` when the column is not on
/// that board.
pub async fn insert_task(
    conn: &mut AnyConnection,
    client_id: &str,
    column_id: &str,
    f: &TaskFields<'_>,
    created_by: &str,
) -> sqlx::Result<Option<Task>> {
    let Some(col) = column(&mut *conn, client_id, column_id).await? else {
        return Ok(None);
    };
    let existing = column_tasks(&mut *conn, column_id).await?;
    let position = key_after(existing.last().map(|(_, k)| k.as_str()));
    let id = super::new_id();
    let now = super::now();
    let completed_at = is_done_column(&col.name).then(|| now.clone());
    sqlx::query(
        "INSERT INTO kanban_tasks (id, client_id, column_id, title, description, category_id, priority, due_date, completed_at, position, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)",
    )
    .bind(&id)
    .bind(client_id)
    .bind(column_id)
    .bind(f.title)
    .bind(f.description)
    .bind(f.category_id)
    .bind(f.priority)
    .bind(f.due_date)
    .bind(completed_at)
    .bind(&position)
    .bind(created_by)
    .bind(&now)
    .execute(&mut *conn)
    .await?;
    task(&mut *conn, client_id, &id).await
}

/// Replaces a task's editable fields; `None` when it is not on the client's board.
pub async fn update_task(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
    f: &TaskFields<'_>,
) -> sqlx::Result<Option<Task>> {
    let r = sqlx::query(
        "UPDATE kanban_tasks SET title = $1, description = $2, category_id = $3, priority = $4, due_date = $5, updated_at = $6
         WHERE id = $7 AND client_id = $8",
    )
    .bind(f.title)
    .bind(f.description)
    .bind(f.category_id)
    .bind(f.priority)
    .bind(f.due_date)
    .bind(super::now())
    .bind(id)
    .bind(client_id)
    .execute(&mut *conn)
    .await?;
    if r.rows_affected() == 0 {
        return Ok(None);
    }
    task(&mut *conn, client_id, id).await
}

/// Deletes a task; whether it existed on the client's board.
pub async fn delete_task(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM kanban_tasks WHERE id = $1 AND client_id = $2")
        .bind(id)
        .bind(client_id)
        .execute(&mut *conn)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// Outcome of a task move.
#[derive(Debug)]
pub enum MoveOutcome {
    /// The task is not on the client's board.
    NoTask,
    /// The target column is not on the client's board.
    NoColumn,
    /// Moved: the tasks whose rows changed (the moved one, plus the whole column on a rebalance).
    Moved(Vec<Task>),
}

/// Moves a task to a column (possibly its own) at the placement.
pub async fn move_task(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
    column_id: &str,
    place: &Placement<'_>,
) -> sqlx::Result<MoveOutcome> {
    let Some(current) = task(&mut *conn, client_id, id).await? else {
        return Ok(MoveOutcome::NoTask);
    };
    let Some(col) = column(&mut *conn, client_id, column_id).await? else {
        return Ok(MoveOutcome::NoColumn);
    };
    let rows = column_tasks(&mut *conn, column_id).await?;
    let others: Keyed<'_> = rows
        .iter()
        .filter(|(tid, _)| tid != id)
        .map(|(tid, k)| (tid.as_str(), k.as_str()))
        .collect();
    let updates = match place_key(&others, place) {
        Some(k) => vec![(id.to_string(), k)],
        None => rebalanced(&others, place, id),
    };
    let now = super::now();
    let completed_at = if is_done_column(&col.name) {
        current.completed_at.clone().or_else(|| Some(now.clone()))
    } else {
        None
    };
    for (tid, key) in &updates {
        if tid == id {
            sqlx::query("UPDATE kanban_tasks SET column_id = $1, position = $2, completed_at = $3, updated_at = $4 WHERE id = $5 AND client_id = $6")
                .bind(column_id)
                .bind(key)
                .bind(&completed_at)
                .bind(&now)
                .bind(tid)
                .bind(client_id)
                .execute(&mut *conn)
                .await?;
        } else {
            sqlx::query("UPDATE kanban_tasks SET position = $1, updated_at = $2 WHERE id = $3 AND client_id = $4")
                .bind(key)
                .bind(&now)
                .bind(tid)
                .bind(client_id)
                .execute(&mut *conn)
                .await?;
        }
    }
    let mut changed = Vec::new();
    for (tid, _) in &updates {
        if let Some(t) = task(&mut *conn, client_id, tid).await? {
            changed.push(t);
        }
    }
    Ok(MoveOutcome::Moved(changed))
}

/// Inserts a client category.
pub async fn insert_category(
    conn: &mut AnyConnection,
    client_id: &str,
    name: &str,
    created_by: &str,
) -> sqlx::Result<Category> {
    let c = Category {
        id: super::new_id(),
        name: name.to_string(),
        client_id: Some(client_id.to_string()),
        is_default: 0,
        created_by: Some(created_by.to_string()),
    };
    sqlx::query("INSERT INTO kanban_categories (id, name, client_id, is_default, created_by, created_at) VALUES ($1, $2, $3, 0, $4, $5)")
        .bind(&c.id)
        .bind(&c.name)
        .bind(client_id)
        .bind(created_by)
        .bind(super::now())
        .execute(&mut *conn)
        .await?;
    Ok(c)
}

/// Deletes one of the client's own categories (tasks keep no category). Whether it was deleted.
pub async fn delete_category(
    conn: &mut AnyConnection,
    client_id: &str,
    id: &str,
) -> sqlx::Result<bool> {
    sqlx::query(
        "UPDATE kanban_tasks SET category_id = NULL WHERE category_id = $1 AND client_id = $2",
    )
    .bind(id)
    .bind(client_id)
    .execute(&mut *conn)
    .await?;
    let r = sqlx::query(
        "DELETE FROM kanban_categories WHERE id = $1 AND client_id = $2 AND is_default = 0",
    )
    .bind(id)
    .bind(client_id)
    .execute(&mut *conn)
    .await?;
    Ok(r.rows_affected() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_honours_the_named_neighbour() {
        let list: Keyed<'_> = vec![("x", "a0"), ("y", "a1"), ("z", "a2")];
        let k = place_key(
            &list,
            &Placement {
                after_id: Some("x"),
                before_id: Some("y"),
            },
        )
        .unwrap();
        assert!("a0" < k.as_str() && k.as_str() < "a1");
        // After "x" even when the mover thought "z" came next: "x" wins.
        let k = place_key(
            &list,
            &Placement {
                after_id: Some("x"),
                before_id: Some("z"),
            },
        )
        .unwrap();
        assert!("a0" < k.as_str() && k.as_str() < "a1");
        // Named predecessor gone: before "z".
        let k = place_key(
            &list,
            &Placement {
                after_id: Some("gone"),
                before_id: Some("z"),
            },
        )
        .unwrap();
        assert!("a1" < k.as_str() && k.as_str() < "a2");
        // Nothing named: the end.
        let k = place_key(&list, &Placement::default()).unwrap();
        assert!(k.as_str() > "a2");
        // Start.
        let k = place_key(
            &list,
            &Placement {
                after_id: None,
                before_id: Some("x"),
            },
        )
        .unwrap();
        assert!(k.as_str() < "a0");
    }

    #[test]
    fn equal_keys_force_a_rebalance() {
        let list: Keyed<'_> = vec![("x", "a0"), ("y", "a0")];
        assert!(
            place_key(
                &list,
                &Placement {
                    after_id: Some("x"),
                    before_id: None
                }
            )
            .is_none()
        );
        let r = rebalanced(
            &list,
            &Placement {
                after_id: Some("x"),
                before_id: None,
            },
            "m",
        );
        let ids: Vec<&str> = r.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(ids, ["x", "m", "y"]);
    }
}
