-- Processing runs (issue 11): one row per run of the analysis engine over a client's file. A run
-- is domain data (stage, progress, result, cancel), claimed by the workers of every instance with
-- an expiring lease (see server/src/jobs/runs.rs):
--   state    queued | running | completed | failed | pending_review | cancelled
--   stage    queued | reading | classifying | mapping | evaluating | writing | recording | done
--   owner, lease_until, attempts: the claim. A running run whose lease_until passed is claimed
--   again by any instance; after max_attempts claims it fails with a message.
--   seq: the sequence of the run's progress events (client:{id}:run:{run_id}); each claim starts
--   a new range (attempts x 2^32), so events of a later attempt always sort after earlier ones.
--   options: JSON {mapping, riskWeightFormat, maturityUnit} given at upload.
--   result: JSON RunResult, written by the completion transaction.
CREATE TABLE processing_runs (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    file_id TEXT NOT NULL REFERENCES client_files(id) ON DELETE CASCADE,
    user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    mode TEXT NOT NULL,
    lever_id TEXT REFERENCES levers(id) ON DELETE SET NULL,
    options TEXT NOT NULL DEFAULT '{}',
    state TEXT NOT NULL DEFAULT 'queued',
    stage TEXT NOT NULL DEFAULT 'queued',
    rows_read BIGINT NOT NULL DEFAULT 0,
    rows_total BIGINT,
    rows_done BIGINT NOT NULL DEFAULT 0,
    rows_matched BIGINT NOT NULL DEFAULT 0,
    seq BIGINT NOT NULL DEFAULT 0,
    attempts BIGINT NOT NULL DEFAULT 0,
    max_attempts BIGINT NOT NULL DEFAULT 3,
    owner TEXT,
    lease_until TEXT,
    cancel_requested BIGINT NOT NULL DEFAULT 0,
    error TEXT,
    result TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    heartbeat_at TEXT
);
-- The claim: the oldest queued run, or a running one whose lease expired.
CREATE INDEX processing_runs_claim ON processing_runs(state, created_at);
CREATE INDEX processing_runs_lease ON processing_runs(state, lease_until);
CREATE INDEX processing_runs_client ON processing_runs(client_id, created_at);
CREATE INDEX processing_runs_file ON processing_runs(file_id, created_at);
