-- Task board (kanban) per client, and the per-topic sequence of realtime events.
--
-- Ordering: columns and tasks carry a fractional index key (`position`, base-62 text as produced
-- by the `fractional-indexing` algorithm) so that a move rewrites exactly one row. Rows are ordered
-- by `(position, id)` compared byte-wise. The server sorts in Rust rather than with ORDER BY,
-- because PostgreSQL's collation for text may not be byte order (the keys mix upper and lower case).

CREATE TABLE kanban_columns (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    position TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX kanban_columns_client ON kanban_columns(client_id, position);

-- Categories: the default ones (client_id NULL, is_default 1) are visible to every client and can
-- never be deleted; a client's own ones belong to it.
CREATE TABLE kanban_categories (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    client_id TEXT REFERENCES clients(id) ON DELETE CASCADE,
    is_default BIGINT NOT NULL DEFAULT 0,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX kanban_categories_client ON kanban_categories(client_id);

INSERT INTO kanban_categories (id, name, client_id, is_default, created_by, created_at) VALUES
    ('default-analysis', 'Analysis', NULL, 1, NULL, '2026-01-01T00:00:00.000000Z'),
    ('default-data-quality', 'Data Quality', NULL, 1, NULL, '2026-01-01T00:00:00.000000Z'),
    ('default-documentation', 'Documentation', NULL, 1, NULL, '2026-01-01T00:00:00.000000Z'),
    ('default-regulatory', 'Regulatory', NULL, 1, NULL, '2026-01-01T00:00:00.000000Z'),
    ('default-reporting', 'Reporting', NULL, 1, NULL, '2026-01-01T00:00:00.000000Z');

CREATE TABLE kanban_tasks (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    column_id TEXT NOT NULL REFERENCES kanban_columns(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    category_id TEXT REFERENCES kanban_categories(id) ON DELETE SET NULL,
    priority TEXT,
    due_date TEXT,
    completed_at TEXT,
    position TEXT NOT NULL,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX kanban_tasks_client ON kanban_tasks(client_id);
CREATE INDEX kanban_tasks_column ON kanban_tasks(column_id, position);

-- The last sequence number of each realtime topic, incremented in the same transaction as the
-- change an event describes, so that the sequence is global across server instances.
CREATE TABLE realtime_topics (
    topic TEXT PRIMARY KEY,
    seq BIGINT NOT NULL
);
