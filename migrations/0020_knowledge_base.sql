-- The regulatory knowledge base (spec 002, AI Knowledge Base Management): uploaded documents
-- (PDF, DOCX, TXT; the original kept in object storage under `knowledge/documents/{uuid}.{ext}`)
-- and the chunks their text is cut into for full-text search.
--
-- A document is created 'processing' when uploaded; a worker claims it (lease_until, attempts),
-- extracts, chunks and indexes it, and ends it 'completed' (pages, chunk_count) or 'failed'
-- (error). The chunks are written in the same transaction as the completion. A worker that dies
-- leaves a lease that expires: the document is claimed again, and failed once its attempts are
-- used up (`service::knowledge`).
--
-- The full-text index is not portable DDL: the server creates it at start-up for its database
-- (`db::knowledge::set_up_search`): an FTS5 table with its insert trigger on SQLite, an
-- expression GIN index over to_tsvector('english', ...) on PostgreSQL.
CREATE TABLE knowledge_documents (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    file_type TEXT NOT NULL CHECK (file_type IN ('pdf', 'docx', 'txt')),
    content_type TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    storage_key TEXT NOT NULL UNIQUE,
    category TEXT,
    lever_id TEXT REFERENCES levers(id) ON DELETE SET NULL,
    status TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'failed')),
    stage TEXT NOT NULL,
    progress BIGINT NOT NULL DEFAULT 0,
    error TEXT,
    pages BIGINT,
    chunk_count BIGINT NOT NULL DEFAULT 0,
    attempts BIGINT NOT NULL DEFAULT 0,
    lease_until TEXT,
    uploaded_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    completed_at TEXT
);
CREATE INDEX knowledge_documents_created ON knowledge_documents(created_at);
CREATE INDEX knowledge_documents_status ON knowledge_documents(status, created_at);

CREATE TABLE knowledge_chunks (
    id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES knowledge_documents(id) ON DELETE CASCADE,
    ord BIGINT NOT NULL,
    heading TEXT,
    page_from BIGINT,
    page_to BIGINT,
    article TEXT,
    text TEXT NOT NULL,
    UNIQUE (document_id, ord)
);
