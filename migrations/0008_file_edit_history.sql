-- Admin file management (issue 12): the edit history of client files and the indexes of the
-- administrators' file list across clients.
--
-- file_edit_history: one row per changed field of a file, written in the change's transaction.
--   field_name: lever | savings_rwas | savings_bps | processed | name.
--   previous_value / new_value: the values as text (lever ids, resolved to names when read;
--   numbers as written by the server; processed as true/false); NULL when empty.
--   edited_by: the user who made the change (the user a processing run acts for when a run's
--   completion changed the file); NULL once that user is deleted.
CREATE TABLE file_edit_history (
    id TEXT PRIMARY KEY,
    file_id TEXT NOT NULL REFERENCES client_files(id) ON DELETE CASCADE,
    edited_at TEXT NOT NULL,
    edited_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    field_name TEXT NOT NULL,
    previous_value TEXT,
    new_value TEXT
);
CREATE INDEX file_edit_history_file ON file_edit_history(file_id, edited_at);

-- The administrators' list over every client. Each sort has an index that starts with its
-- order and then holds every filtered column (client, lever, processed flag, name), so a page in
-- any order under any combination of filters is read from the index alone: no row is fetched
-- to be checked, and the page's rows are then read by id.
CREATE INDEX client_files_by_date ON client_files(uploaded_at, id, client_id, lever_id, processed, name);
CREATE INDEX client_files_by_client ON client_files(client_id, uploaded_at, id, lever_id, processed, name);
CREATE INDEX client_files_by_status ON client_files(processed, uploaded_at, id, client_id, lever_id, name);
CREATE INDEX client_files_by_lever ON client_files(lever_id, uploaded_at, id, client_id, processed, name);
CREATE INDEX client_files_by_savings_rwas ON client_files(savings_rwas, id, uploaded_at, client_id, lever_id, processed, name);
CREATE INDEX client_files_by_savings_bps ON client_files(savings_bps, id, uploaded_at, client_id, lever_id, processed, name);
CREATE INDEX client_files_by_name ON client_files(lower(name), id, uploaded_at, client_id, lever_id, processed, name);
CREATE INDEX clients_name ON clients(name, id);
