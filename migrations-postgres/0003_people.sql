-- As SQLite's 0019: people of a team console, their sessions, the team's policy, who an agent
-- token belongs to and which project it counts as, and the people who decided a call.
CREATE TABLE people (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
    role          TEXT NOT NULL CHECK (role IN ('approver', 'viewer')),
    invite_sha256 BYTEA UNIQUE CHECK (invite_sha256 IS NULL OR octet_length(invite_sha256) = 32),
    invite_until  BIGINT,
    passkey       TEXT CHECK (passkey IS NULL OR passkey::jsonb IS NOT NULL),
    created_at    BIGINT NOT NULL,
    joined_at     BIGINT,
    removed_at    BIGINT
);

CREATE TABLE person_sessions (
    session_sha256 BYTEA PRIMARY KEY CHECK (octet_length(session_sha256) = 32),
    person_id      TEXT NOT NULL REFERENCES people (id),
    created_at     BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    reads_only     BOOLEAN NOT NULL DEFAULT false
);

CREATE TABLE team_flags (
    name TEXT PRIMARY KEY CHECK (name IN ('prevent_self_review'))
);

CREATE TABLE two_approval_projects (
    project TEXT PRIMARY KEY CHECK (length(project) BETWEEN 1 AND 100)
);

ALTER TABLE agent_tokens ADD COLUMN owner_id TEXT REFERENCES people (id);
ALTER TABLE agent_tokens ADD COLUMN project TEXT CHECK (project IS NULL OR length(project) BETWEEN 1 AND 100);

ALTER TABLE approvals ADD COLUMN people TEXT CHECK (people IS NULL OR people::jsonb IS NOT NULL);
