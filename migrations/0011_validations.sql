-- Validations (issue 13): an approver's decision on the result of a processed file (spec 001
-- sections 2.9, 3 and 4, file_validations).
--
-- One row per landed result: a processing run that completes with results creates its file's
-- pending validation in the completion's transaction (service::runs::finish); run_id is unique,
-- so a result is validated once. A run that ends pending_review (enhanced AI below 0.7
-- confidence, zero savings, processed false) creates none: it waits for the classification
-- review, and the file gets its validation when a run with results lands.
--   status    pending | approved | rejected | superseded
--             superseded: a newer result of the same file landed while this one was still
--             pending; superseded_by names the newer validation. A superseded validation is
--             history: it can no longer be decided.
--   lever_id, savings_rwas, savings_bps: the result as it landed (what the approver decides on;
--             later edits of the file do not rewrite a decision's figures).
--   validated_at, validated_by: who decided and when (approved or rejected); rejection_reason
--             the reason of a rejection (required).
--
-- clients.pending_validations: the number of the client's validations whose status is pending,
-- kept equal to them by every transaction that creates, decides, supersedes or deletes one (a
-- delta of the rows it changed, so concurrent changes add up); never repaired on a read.
CREATE TABLE file_validations (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    file_id TEXT NOT NULL REFERENCES client_files(id) ON DELETE CASCADE,
    run_id TEXT NOT NULL REFERENCES processing_runs(id) ON DELETE CASCADE,
    status TEXT NOT NULL DEFAULT 'pending',
    lever_id TEXT REFERENCES levers(id) ON DELETE SET NULL,
    savings_rwas DOUBLE PRECISION NOT NULL DEFAULT 0,
    savings_bps DOUBLE PRECISION NOT NULL DEFAULT 0,
    validated_at TEXT,
    validated_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    rejection_reason TEXT,
    superseded_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX file_validations_run ON file_validations(run_id);
-- The Alerts lists: a client's validations of one status (or the decided ones), newest first.
CREATE INDEX file_validations_client_status ON file_validations(client_id, status, created_at, id);
CREATE INDEX file_validations_client_created ON file_validations(client_id, created_at, id);
CREATE INDEX file_validations_file ON file_validations(file_id, status);

ALTER TABLE clients ADD COLUMN pending_validations BIGINT NOT NULL DEFAULT 0;

-- Files processed before this migration: the latest completed run of each processed file gets
-- its pending validation, and the counts start equal to the records.
INSERT INTO file_validations (id, client_id, file_id, run_id, status, lever_id, savings_rwas,
                              savings_bps, created_at, updated_at)
SELECT 'validation-' || r.id, r.client_id, r.file_id, r.id, 'pending', f.lever_id,
       f.savings_rwas, f.savings_bps, COALESCE(r.finished_at, r.created_at),
       COALESCE(r.finished_at, r.created_at)
FROM processing_runs r
JOIN client_files f ON f.id = r.file_id
WHERE r.state = 'completed' AND f.processed = 1
  AND NOT EXISTS (
      SELECT 1 FROM processing_runs r2
      WHERE r2.file_id = r.file_id AND r2.state = 'completed'
        AND (r2.created_at > r.created_at OR (r2.created_at = r.created_at AND r2.id > r.id))
  );

UPDATE clients SET pending_validations = (
    SELECT COUNT(*) FROM file_validations v WHERE v.client_id = clients.id AND v.status = 'pending'
);
