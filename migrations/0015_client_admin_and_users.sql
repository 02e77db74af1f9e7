-- Clients and user management (issue 14, items 2 to 4).
--
-- clients.manual_savings_rwas: the RWA savings an administrator typed for a client (the Clients
--   page's inline edit, or the Add New Client dialog). The savings sync keeps the client's totals
--   at its processed files' sum whenever that sum is above 0, and at this figure (or 0) otherwise.
-- clients.savings_update_until: while an inline savings edit of the client runs, the time until
--   which it holds the client (RFC 3339 UTC); a second edit meanwhile is ignored. A holder that
--   died releases it by expiry.
ALTER TABLE clients ADD COLUMN manual_savings_rwas DOUBLE PRECISION;
ALTER TABLE clients ADD COLUMN savings_update_until TEXT;
-- Totals that no processed file explains stay as typed figures (the sync would otherwise reset
-- them to 0 at the client's next change).
UPDATE clients SET manual_savings_rwas = cet1_savings_rwas
WHERE cet1_savings_rwas <> 0
  AND NOT EXISTS (SELECT 1 FROM client_files f WHERE f.client_id = clients.id AND f.processed = 1 AND f.savings_rwas > 0);

-- The Clients page's filters: recently modified, created by an administrator.
CREATE INDEX clients_last_updated ON clients(last_updated);
CREATE INDEX clients_created_by ON clients(created_by);

-- The client data room's recent activity: the audit records of the client and its rows.
CREATE INDEX audit_events_entity ON audit_events(entity_id, created_at);

-- User Management's role filter.
CREATE INDEX users_role ON users(role, created_at);
