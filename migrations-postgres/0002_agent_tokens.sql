-- As SQLite's 0018: tokens of agents on other machines, only their SHA-256 kept, and the
-- token each call was asked with.
CREATE TABLE agent_tokens (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    token_sha256 BYTEA NOT NULL UNIQUE CHECK (octet_length(token_sha256) = 32),
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);

ALTER TABLE approvals ADD COLUMN agent_token_id TEXT REFERENCES agent_tokens (id);
