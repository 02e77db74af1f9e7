-- Report generator: folders, reports, monthly draft counts, and the collaborative document store
-- (an append-only update log per document, a per-document head row and a compacted snapshot).

CREATE TABLE report_folders (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    parent_folder_id TEXT REFERENCES report_folders(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX report_folders_client ON report_folders(client_id);

-- One row per report; its content (sections and their text) lives in the collaborative document
-- whose id is the report id. `section_count` caches the number of sections of that document as of
-- log sequence `section_count_seq`, so the list does not have to open every document.
CREATE TABLE reports (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    folder_id TEXT REFERENCES report_folders(id) ON DELETE SET NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
    template_id TEXT,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    last_edited_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    last_saved_at TEXT,
    section_count BIGINT NOT NULL DEFAULT 0,
    section_count_seq BIGINT NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX reports_client ON reports(client_id, updated_at);

-- Drafts created per user, company (client) and month (`YYYY-MM`), for the monthly limit.
CREATE TABLE report_draft_counts (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    month_year TEXT NOT NULL,
    draft_count BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, client_id, month_year)
);

-- Collaborative documents. The head row serialises appends per document: every append updates
-- `last_seq` in the same transaction as it inserts its batch, so sequence numbers are gap-free
-- and ordered on both back-ends. `snapshot_seq` is the `upto_seq` of the stored snapshot (0 when
-- there is none).
CREATE TABLE doc_heads (
    doc_id TEXT PRIMARY KEY,
    last_seq BIGINT NOT NULL,
    snapshot_seq BIGINT NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- One row per appended batch: the v1 updates with sequence numbers `seq_from..=seq_to`, each
-- prefixed by its length (lib0 varint), so the row overhead is paid once per group commit.
CREATE TABLE doc_updates (
    doc_id TEXT NOT NULL REFERENCES doc_heads(doc_id) ON DELETE CASCADE,
    seq_from BIGINT NOT NULL,
    seq_to BIGINT NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (doc_id, seq_from)
);

-- The compacted state of a document (its full state as one v1 update) standing for every log
-- entry with `seq <= upto_seq`.
CREATE TABLE doc_snapshots (
    doc_id TEXT PRIMARY KEY REFERENCES doc_heads(doc_id) ON DELETE CASCADE,
    upto_seq BIGINT NOT NULL,
    state BYTEA NOT NULL,
    created_at TEXT NOT NULL
);
