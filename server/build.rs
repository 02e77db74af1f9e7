//! Rebuilds the server when a migration is added: `sqlx::migrate!` embeds the files of
//! `migrations/` when it expands, and cargo does not otherwise notice a new file there (a binary
//! built incrementally would run without it).

fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
