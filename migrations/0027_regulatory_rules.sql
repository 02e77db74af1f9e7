-- Regulatory rules (spec 002, AI Knowledge Base Management): the levers and rules proposed from
-- a knowledge-base document, reviewed and saved with 'Save to Knowledge Base'.
--
-- Each rule belongs to a lever of the product (`levers`): an extracted lever whose name equals
-- an existing lever's after lowercasing and stripping non-alphanumerics is saved onto that lever,
-- any other is added as a new lever. Saving a rule under a name its lever already has writes the
-- next version and deactivates the older ones, so every version stays readable. `conditions`
-- and `actions` are JSON objects; `variables` of the lever's extraction are kept with each rule
-- set's source, the document (kept as a name when the document is deleted).
CREATE TABLE regulatory_rules (
    id TEXT PRIMARY KEY,
    lever_id TEXT NOT NULL REFERENCES levers(id) ON DELETE CASCADE,
    lever_category TEXT NOT NULL,
    rule_type TEXT NOT NULL CHECK (rule_type IN ('condition', 'calculation', 'classification')),
    rule_name TEXT NOT NULL,
    rule_description TEXT NOT NULL,
    conditions TEXT NOT NULL,
    actions TEXT NOT NULL,
    priority BIGINT NOT NULL CHECK (priority >= 1),
    is_active BIGINT NOT NULL CHECK (is_active IN (0, 1)),
    version BIGINT NOT NULL CHECK (version >= 1),
    article_reference TEXT NOT NULL,
    confidence_score DOUBLE PRECISION NOT NULL,
    variables TEXT NOT NULL,
    source_document_id TEXT REFERENCES knowledge_documents(id) ON DELETE SET NULL,
    source_document_name TEXT,
    engine TEXT NOT NULL,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (lever_id, rule_name, version)
);
-- The Rules tab's order (spec 002: priority descending, then newest first).
CREATE INDEX regulatory_rules_order ON regulatory_rules(priority, created_at);
CREATE INDEX regulatory_rules_active ON regulatory_rules(is_active);
