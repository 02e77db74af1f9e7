-- Report versions gain a third kind: `before_import`, taken automatically before a template's
-- sections are imported into a report. The CHECK constraint cannot be altered in place on
-- SQLite, so the table is rebuilt with its rows (the same SQL on both back-ends).
CREATE TABLE report_versions_next (
    id TEXT PRIMARY KEY,
    report_id TEXT NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('manual', 'before_restore', 'before_import')),
    state BYTEA NOT NULL,
    size_bytes BIGINT NOT NULL,
    section_count BIGINT NOT NULL,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL
);
INSERT INTO report_versions_next (id, report_id, name, kind, state, size_bytes, section_count, created_by, created_at)
    SELECT id, report_id, name, kind, state, size_bytes, section_count, created_by, created_at FROM report_versions;
DROP TABLE report_versions;
ALTER TABLE report_versions_next RENAME TO report_versions;
CREATE INDEX report_versions_report ON report_versions(report_id, created_at);
