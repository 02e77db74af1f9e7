-- Lever justification templates (spec 002: regulatory_templates): the audit memos administrators
-- keep to justify a lever's proposed risk weights. The content is a template with placeholders
-- filled from a completed processing run when a memo is generated. At most one template is the
-- default (is_default = 1); the service keeps that rule in the transaction that sets it.
CREATE TABLE justification_templates (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    template_content TEXT NOT NULL,
    is_default BIGINT NOT NULL,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX justification_templates_created ON justification_templates(created_at);
