-- Named versions of a report's collaborative document: the whole state (one Yjs v1 update) at
-- the moment it was taken, who took it and when. `kind` says why: `manual` (a user named it),
-- `before_restore` (taken automatically before another version was restored). Restoring never
-- rewinds the document: it applies a new edit that makes the content equal the version's, so
-- versions stay valid whatever happens after them. Deleting the report deletes its versions.
CREATE TABLE report_versions (
    id TEXT PRIMARY KEY,
    report_id TEXT NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('manual', 'before_restore')),
    state BYTEA NOT NULL,
    size_bytes BIGINT NOT NULL,
    section_count BIGINT NOT NULL,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX report_versions_report ON report_versions(report_id, created_at);
