-- Report templates (spec 002: report templates, admin): what a new report starts from. The
-- sections (JSON array of {id, title, kind, content}) are written into the report's collaborative
-- document when a client creates a report from the template; the branding (JSON object of
-- colours, fonts, scale, orientation and subtitle) is the report's starting look. Only active
-- templates are offered to clients. A report keeps the id of the template it came from
-- (reports.template_id) even after the template is deleted: it is then still a template-based
-- report, whose content no longer depends on the template.
CREATE TABLE report_templates (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    template_type TEXT NOT NULL,
    sections TEXT NOT NULL,
    branding TEXT NOT NULL,
    is_active BIGINT NOT NULL,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX report_templates_name ON report_templates(is_active, name);
