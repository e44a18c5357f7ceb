-- Artifacts agents generate. `rowid` backs the full-text index.
CREATE TABLE artifacts (
    id          TEXT PRIMARY KEY,
    owner       TEXT NOT NULL DEFAULT 'user' CHECK (owner IN ('user', 'org')),
    subject     TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    code        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE INDEX artifacts_recent ON artifacts (updated_at DESC, id DESC);

CREATE VIRTUAL TABLE artifacts_fts USING fts5 (
    title, description, content = 'artifacts', content_rowid = 'rowid'
);

CREATE TRIGGER artifacts_fts_insert AFTER INSERT ON artifacts BEGIN
    INSERT INTO artifacts_fts (rowid, title, description)
    VALUES (new.rowid, new.title, new.description);
END;

CREATE TRIGGER artifacts_fts_delete AFTER DELETE ON artifacts BEGIN
    INSERT INTO artifacts_fts (artifacts_fts, rowid, title, description)
    VALUES ('delete', old.rowid, old.title, old.description);
END;

CREATE TRIGGER artifacts_fts_update AFTER UPDATE OF title, description ON artifacts BEGIN
    INSERT INTO artifacts_fts (artifacts_fts, rowid, title, description)
    VALUES ('delete', old.rowid, old.title, old.description);
    INSERT INTO artifacts_fts (rowid, title, description)
    VALUES (new.rowid, new.title, new.description);
END;

-- Approval requests. `artifact_id` is a plain column, not a foreign key: the history is an
-- audit record and outlives a deleted artifact.
CREATE TABLE approvals (
    id                TEXT PRIMARY KEY,
    tool              TEXT NOT NULL,
    artifact_id       TEXT,
    requester_name    TEXT NOT NULL,
    requester_session TEXT,
    call_view         TEXT NOT NULL,
    raw_input         TEXT,
    digest            TEXT NOT NULL,
    hidden_marks      INTEGER NOT NULL,
    status            TEXT NOT NULL
        CHECK (status IN ('pending', 'approved', 'declined', 'expired', 'cancelled')),
    decided_by        TEXT,
    reason            TEXT,
    created_at        INTEGER NOT NULL,
    expires_at        INTEGER NOT NULL,
    decided_at        INTEGER,
    result_view       TEXT,
    result_at         INTEGER,
    CHECK ((status = 'pending') = (decided_at IS NULL))
) STRICT;

CREATE INDEX approvals_pending ON approvals (created_at DESC, id DESC) WHERE status = 'pending';
CREATE INDEX approvals_expiry ON approvals (expires_at) WHERE status = 'pending';
CREATE INDEX approvals_history ON approvals (decided_at DESC, id DESC) WHERE status <> 'pending';
CREATE INDEX approvals_artifact ON approvals (artifact_id) WHERE artifact_id IS NOT NULL;

-- "Don't ask again" grants, each made by one approval. Revoked rows stay for the revoke list.
CREATE TABLE grants (
    id           TEXT PRIMARY KEY,
    artifact_id  TEXT,
    tool         TEXT NOT NULL,
    approval_id  TEXT NOT NULL UNIQUE REFERENCES approvals (id),
    created_at   INTEGER NOT NULL,
    uses         INTEGER NOT NULL DEFAULT 0,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT;

-- At most one live grant per (artifact or none, tool address).
CREATE UNIQUE INDEX grants_live_key ON grants (ifnull(artifact_id, ''), tool)
    WHERE revoked_at IS NULL;
CREATE INDEX grants_revoked ON grants (revoked_at DESC, id DESC) WHERE revoked_at IS NOT NULL;
CREATE INDEX grants_artifact ON grants (artifact_id) WHERE artifact_id IS NOT NULL;
