-- Classification training (issue 13): administrators review the lever an enhanced-AI run
-- classified (spec 001 sections 2.10, 3, 4 and 7: ai_human_feedback and the runs'
-- validation_status). A review is the run's one classification_feedback row (migration 0010);
-- no row: not reviewed yet.
--   feedback_type     approval | rejection. An approval decides the file's lever (the one
--                     proposed, or a correction) and queues the file's processing under it; a
--                     rejection refuses the classification and processes nothing. The
--                     classifier and the learning figures read approvals only.
--   confidence_delta  the specification's figure: -0.2 when the reviewer chose another lever
--                     than the one proposed, else 0.1.
--   follow_up_run_id  the processing run an approval queued (NULL for a rejection and for
--                     reviews made before this migration).
--   reviewed_lever    (0010) for a rejection: the lever selected when rejecting, or ''.
-- Reviews are read per client (the reviews of the file's own client count fully, the other
-- clients' less), newest first: an index on (client_id, created_at).
ALTER TABLE classification_feedback ADD COLUMN feedback_type TEXT NOT NULL DEFAULT 'approval';
ALTER TABLE classification_feedback ADD COLUMN confidence_delta DOUBLE PRECISION NOT NULL DEFAULT 0.1;
ALTER TABLE classification_feedback ADD COLUMN follow_up_run_id TEXT;
UPDATE classification_feedback SET confidence_delta = -0.2
WHERE proposed_lever IS NULL OR proposed_lever <> reviewed_lever;
CREATE INDEX classification_feedback_client ON classification_feedback(client_id, created_at);

-- The training lists read each file's latest ended enhanced-AI run.
CREATE INDEX processing_runs_mode_created ON processing_runs(mode, created_at);
CREATE INDEX processing_runs_file_mode ON processing_runs(file_id, mode, created_at);
