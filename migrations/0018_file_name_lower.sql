-- The administrators' free-text search and name sort read a lower-cased copy of each file's name
-- (`name_lower`, written as the database's own `lower(name)` with every name), so a search is a
-- plain `LIKE` of `lower(pattern)` on both back-ends (no `ILIKE` or `lower()` per row) and the
-- sort indexes hold the column the search tests.
ALTER TABLE client_files ADD COLUMN name_lower TEXT NOT NULL DEFAULT '';
UPDATE client_files SET name_lower = lower(name);

DROP INDEX client_files_by_date;
DROP INDEX client_files_by_client;
DROP INDEX client_files_by_status;
DROP INDEX client_files_by_lever;
DROP INDEX client_files_by_savings_rwas;
DROP INDEX client_files_by_savings_bps;
DROP INDEX client_files_by_name;
CREATE INDEX client_files_by_date ON client_files(uploaded_at, id, client_id, lever_id, processed, name_lower);
CREATE INDEX client_files_by_client ON client_files(client_id, uploaded_at, id, lever_id, processed, name_lower);
CREATE INDEX client_files_by_status ON client_files(processed, uploaded_at, id, client_id, lever_id, name_lower);
CREATE INDEX client_files_by_lever ON client_files(lever_id, uploaded_at, id, client_id, processed, name_lower);
CREATE INDEX client_files_by_savings_rwas ON client_files(savings_rwas, id, uploaded_at, client_id, lever_id, processed, name_lower);
CREATE INDEX client_files_by_savings_bps ON client_files(savings_bps, id, uploaded_at, client_id, lever_id, processed, name_lower);
CREATE INDEX client_files_by_name ON client_files(name_lower, id, uploaded_at, client_id, lever_id, processed);
