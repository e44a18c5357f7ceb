-- Tokens of agents on other machines (decision 0033): each 256 random bits, shown once when it
-- is made; only its SHA-256 is kept. A revoked token keeps its row, so the calls it asked still
-- name it, and matches nothing.
CREATE TABLE agent_tokens (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    token_sha256 BLOB NOT NULL UNIQUE CHECK (length(token_sha256) = 32),
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT;

-- The agent token a call was asked with; none when the console's own token asked it.
ALTER TABLE approvals ADD COLUMN agent_token_id TEXT REFERENCES agent_tokens (id);
