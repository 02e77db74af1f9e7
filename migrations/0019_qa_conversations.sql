-- The Q&A agent (spec 001 section 2.8): each user's conversation about one client's files, and
-- the figures a run's analysis found, kept with the run so answers are read, not recomputed.
--
-- qa_messages: one question or answer; a conversation is a user's messages for one client, in
-- the order they were written (seq breaks ties of equal timestamps). file_id is the file the
-- question focused on (NULL: all the client's files). role is 'user' or 'assistant'; provider
-- is the engine that answered ('builtin' or 'openai'), NULL for questions.
CREATE TABLE qa_messages (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    file_id TEXT REFERENCES client_files(id) ON DELETE SET NULL,
    seq BIGINT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    provider TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX qa_messages_conversation ON qa_messages(client_id, user_id, seq);

-- processing_runs.facts: the totals and breakdowns of a completed run's analysis (JSON of
-- service::qa::facts::RunFacts: totals, by asset class, rule, status, article, CQS, country,
-- maturity bucket, the top savings and exposures, rows by reason, data quality, flags), written
-- by the run's completion; NULL for runs completed before it was kept.
ALTER TABLE processing_runs ADD COLUMN facts TEXT;
