//! Layer rules checked as a test, so that they hold without a reviewer:
//!
//! - `api/` does HTTP only: no `sqlx` and no database handle (SQL lives in `db/`, transactions in
//!   `service/`; `api/` may name row types to map them to wire types);
//! - `service/` and `db/` know nothing of HTTP: no `axum`;
//! - events are sequenced and published only by `service::Change` (after its commit): no
//!   `next_seq(` or `.publish(` outside `service/mod.rs` and the event hub itself.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of the files under `src/<dir>` that contain `needle` outside comments, as
/// `path:line: text`.
fn offending(dir: &str, needle: &str, allowed: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root.join(dir), &mut files);
    let mut found = Vec::new();
    for f in files {
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if allowed.contains(&rel.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if code.contains(needle) {
                found.push(format!("src/{rel}:{}: {}", i + 1, code));
            }
        }
    }
    found
}

#[test]
fn api_does_no_sql() {
    let mut bad = offending("api", "sqlx", &[]);
    bad.extend(offending("api", "state.db", &[]));
    bad.extend(offending("api", ".pool", &[]));
    assert!(
        bad.is_empty(),
        "SQL belongs in db/ and service/:\n{}",
        bad.join("\n")
    );
}

#[test]
fn services_and_sql_know_no_http() {
    let mut bad = offending("service", "axum", &[]);
    bad.extend(offending("db", "axum", &[]));
    assert!(bad.is_empty(), "HTTP belongs in api/:\n{}", bad.join("\n"));
}

#[test]
fn only_a_committed_change_publishes() {
    let mut bad = Vec::new();
    for dir in ["api", "service", "db", "docs", "auth", "jobs"] {
        if !Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src")
            .join(dir)
            .exists()
        {
            continue;
        }
        for needle in ["next_seq(", ".publish("] {
            bad.extend(offending(dir, needle, &["service/mod.rs"]));
        }
    }
    assert!(
        bad.is_empty(),
        "events are sequenced and published by service::Change only:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_rules_catch_what_they_forbid() {
    // A rule that never finds anything proves nothing: each needle exists where it is allowed.
    assert!(!offending("db", "sqlx", &[]).is_empty());
    assert!(!offending("api", "axum", &[]).is_empty());
    assert!(!offending("service", "next_seq(", &[]).is_empty());
}
