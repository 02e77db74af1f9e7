-- The lever dictionary's analysis files (spec 000 section 2.8): each file of a lever is an object
-- under the lever's folder (`levers/{folder}/{timestamp}-{uuid}.{ext}`, the folder being the
-- lever's name trimmed, lower-case, spaces as hyphens); the user's file name is kept here only.
--
-- A rename moves the files to the new folder without losing any if it stops half-way
-- (`service::lever_dictionary`):
--   1. levers.move_token / move_name / move_heartbeat mark the move and lever_files.moving_to
--      names each file's new key (committed before any copy; uploads wait for the move);
--   2. every object is copied to its moving_to key (the heartbeat is refreshed after each);
--   3. one transaction renames the lever, points each file at its new key with the old one in
--      moved_from, and clears the marks;
--   4. the old objects are deleted and moved_from cleared.
-- After a crash, recovery undoes a move whose heartbeat stopped before step 3 (deletes the
-- copies, clears the marks: the lever keeps its name and files) and finishes one after it
-- (deletes the objects still named by moved_from).
CREATE TABLE lever_files (
    id TEXT PRIMARY KEY,
    lever_id TEXT NOT NULL REFERENCES levers(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    object_key TEXT NOT NULL UNIQUE,
    size_bytes BIGINT NOT NULL,
    uploaded_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    uploaded_at TEXT NOT NULL,
    moving_to TEXT,
    moved_from TEXT
);
CREATE INDEX lever_files_lever ON lever_files(lever_id, uploaded_at);

ALTER TABLE levers ADD COLUMN move_token TEXT;
ALTER TABLE levers ADD COLUMN move_name TEXT;
ALTER TABLE levers ADD COLUMN move_heartbeat TEXT;

-- A user's avatar (the profile pages): the object under `avatars/{user}/` and, in users.avatar,
-- the address screens show it from (`/api/users/{id}/avatar?v=...`, a new address per upload).
ALTER TABLE users ADD COLUMN avatar_key TEXT;
