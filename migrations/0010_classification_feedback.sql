-- Reviewed classifications (issues 11 and 13): a person's decision on the lever the classifier
-- proposed for a file in an enhanced-AI run, approved (the same lever) or corrected. The
-- classifier reads them back (analysis::classify::classify_with_feedback: files with similar
-- headers lean towards the reviewed lever) and the 'Continuous Learning' figures are measured on
-- them. One review per run; a later review of the same run replaces it.
--   headers: JSON array of the file's column names (what the classifier compares).
--   proposed_lever, reviewed_lever: the engine's lever codes (pse, rlg, mdb, institutions,
--   corporates, sovereigns); proposed_lever is NULL when the classifier found none.
-- run_id is kept without a foreign key: a review is knowledge the classifier keeps after the
-- file and its runs are deleted; it goes with its client.
CREATE TABLE classification_feedback (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    headers TEXT NOT NULL,
    proposed_lever TEXT,
    reviewed_lever TEXT NOT NULL,
    explanation TEXT NOT NULL DEFAULT '',
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX classification_feedback_run ON classification_feedback(run_id);
CREATE INDEX classification_feedback_created ON classification_feedback(created_at);
