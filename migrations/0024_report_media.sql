-- A report's data and media (spec 002: the report generator's Data & Charts panel and image
-- upload): the spreadsheets, CSV files and images uploaded to a report, shared by everyone
-- editing it. The bytes are in object storage under a key the server generated
-- (`reports/{report_id}/{uuid}.{ext}`); the user's file name is kept here only. A table's shape
-- (headers as a JSON array, row and column counts, the sheet read) is measured when it is
-- uploaded; its rows are read again from the stored original when asked for, a page at a time.
-- Deleting the report deletes its media rows (the objects are removed by the service, or by the
-- orphan sweeper after a crash).
CREATE TABLE report_media (
    id TEXT PRIMARY KEY,
    report_id TEXT NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('excel', 'csv', 'image')),
    file_type TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    object_key TEXT NOT NULL UNIQUE,
    sheet TEXT,
    headers TEXT,
    row_count BIGINT NOT NULL DEFAULT 0,
    column_count BIGINT NOT NULL DEFAULT 0,
    uploaded_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX report_media_report ON report_media(report_id, created_at);
