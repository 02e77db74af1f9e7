-- A user's role within one client (spec 001 section 6): 'member', or 'approver' / 'admin', which
-- give approval rights on that client's validations whatever the user's global role.
ALTER TABLE client_users ADD COLUMN role TEXT NOT NULL DEFAULT 'member';

-- Every board has its default columns from the client's creation on (a read never creates them):
-- the boards of existing clients that have none get them here.
INSERT INTO kanban_columns (id, client_id, name, position, created_at, updated_at)
SELECT c.id || '-column-' || d.slug, c.id, d.name, d.position,
       '2026-11-25T00:00:00.000000Z', '2026-11-25T00:00:00.000000Z'
FROM clients c
CROSS JOIN (
    SELECT 'todo' AS slug, 'To Do' AS name, 'a0' AS position
    UNION ALL SELECT 'in-progress', 'In Progress', 'a1'
    UNION ALL SELECT 'review', 'Review', 'a2'
    UNION ALL SELECT 'done', 'Done', 'a3'
) d
WHERE NOT EXISTS (SELECT 1 FROM kanban_columns k WHERE k.client_id = c.id);
