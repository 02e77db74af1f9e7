-- Foundation: users and sessions, clients, levers, savings, files, invitations, waitlist, mail, audit.

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    name TEXT NOT NULL DEFAULT '',
    last_name TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL DEFAULT 'user',
    company TEXT,
    avatar TEXT,
    terms_accepted_at TEXT,
    password_changed_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE clients (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    from_date TEXT,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    last_updated TEXT NOT NULL,
    cet1_savings_rwas DOUBLE PRECISION NOT NULL DEFAULT 0,
    cet1_savings_bps DOUBLE PRECISION NOT NULL DEFAULT 0,
    official_cet1_capital DOUBLE PRECISION,
    official_total_rwas DOUBLE PRECISION,
    official_cet1_ratio DOUBLE PRECISION,
    country TEXT NOT NULL DEFAULT 'ES'
);

CREATE TABLE client_users (
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    added_by TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (client_id, user_id)
);
CREATE INDEX client_users_user ON client_users(user_id);

CREATE TABLE levers (
    id TEXT PRIMARY KEY,
    code TEXT UNIQUE,
    lever_name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    lever_category TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE savings_history (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    year BIGINT NOT NULL,
    month BIGINT NOT NULL,
    total_rwas DOUBLE PRECISION NOT NULL DEFAULT 0,
    total_bps DOUBLE PRECISION NOT NULL DEFAULT 0,
    monthly_growth_rate DOUBLE PRECISION NOT NULL DEFAULT 0,
    lever_breakdown TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (client_id, year, month)
);

CREATE TABLE client_files (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    file_path TEXT NOT NULL,
    size_bytes BIGINT NOT NULL DEFAULT 0,
    uploaded_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    uploaded_at TEXT NOT NULL,
    lever_id TEXT REFERENCES levers(id) ON DELETE SET NULL,
    processed BIGINT NOT NULL DEFAULT 0,
    savings_rwas DOUBLE PRECISION NOT NULL DEFAULT 0,
    savings_bps DOUBLE PRECISION NOT NULL DEFAULT 0
);
CREATE INDEX client_files_client ON client_files(client_id);

CREATE TABLE refresh_tokens (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT,
    replaced_by TEXT
);
CREATE INDEX refresh_tokens_session ON refresh_tokens(session_id);

CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    revoked_at TEXT,
    ip TEXT,
    user_agent TEXT
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE password_resets (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
);

CREATE TABLE invitations (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    email TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    last_name TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL,
    company TEXT,
    client_id TEXT REFERENCES clients(id) ON DELETE SET NULL,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    is_used BIGINT NOT NULL DEFAULT 0,
    used_at TEXT
);

CREATE TABLE waitlist (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    name TEXT,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE outbox (
    id TEXT PRIMARY KEY,
    to_addr TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    sent_at TEXT,
    error TEXT
);

CREATE TABLE audit_events (
    id TEXT PRIMARY KEY,
    event_type TEXT NOT NULL,
    entity_type TEXT NOT NULL,
    entity_id TEXT,
    actor_id TEXT,
    details TEXT NOT NULL DEFAULT '{}',
    severity TEXT NOT NULL DEFAULT 'info',
    ip TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX audit_events_created ON audit_events(created_at);

CREATE TABLE changelog (
    id TEXT PRIMARY KEY,
    entry_type TEXT NOT NULL,
    description TEXT NOT NULL,
    category TEXT NOT NULL,
    actor_id TEXT,
    created_at TEXT NOT NULL
);
