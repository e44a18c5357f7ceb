-- People of a team console (decision 0034): invited by whoever runs the console, each joins
-- with a passkey on the team's page. Only an invitation's SHA-256 is kept, and it is spent when
-- the passkey is registered. A removed person keeps their row (decisions name them) and can
-- neither sign in nor decide.
CREATE TABLE people (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
    role          TEXT NOT NULL CHECK (role IN ('approver', 'viewer')),
    invite_sha256 BLOB UNIQUE CHECK (invite_sha256 IS NULL OR length(invite_sha256) = 32),
    invite_until  INTEGER,
    passkey       TEXT CHECK (passkey IS NULL OR json_valid(passkey)),
    created_at    INTEGER NOT NULL,
    joined_at     INTEGER,
    removed_at    INTEGER
) STRICT;

-- A signed-in person's session on the team's page, or a desktop window they linked (which
-- reads and decides nothing): only its SHA-256 is kept.
CREATE TABLE person_sessions (
    session_sha256 BLOB PRIMARY KEY CHECK (length(session_sha256) = 32),
    person_id      TEXT NOT NULL REFERENCES people (id),
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    reads_only     INTEGER NOT NULL DEFAULT 0 CHECK (reads_only IN (0, 1))
) STRICT;

-- The team's policy: a flag is on while its row is there.
CREATE TABLE team_flags (
    name TEXT PRIMARY KEY CHECK (name IN ('prevent_self_review'))
) STRICT;

-- Projects whose calls wait for two people's approvals; '*' is every call.
CREATE TABLE two_approval_projects (
    project TEXT PRIMARY KEY CHECK (length(project) BETWEEN 1 AND 100)
) STRICT;

-- The person an agent token belongs to, and the project its calls count as (set by whoever
-- made the token: never what the agent says).
ALTER TABLE agent_tokens ADD COLUMN owner_id TEXT REFERENCES people (id);
ALTER TABLE agent_tokens ADD COLUMN project TEXT CHECK (project IS NULL OR length(project) BETWEEN 1 AND 100);

-- The people whose word decided a call (JSON: each one's id, name and vote, in order); a
-- call waiting for a second approval holds the first here.
ALTER TABLE approvals ADD COLUMN people TEXT CHECK (people IS NULL OR json_valid(people));
