-- Rules brought in from the agents' own files: a grant comes either from an approval's
-- decision or from an import the person confirmed, which keeps where each rule was read
-- (`source`: the agent's format, the file, the line, the rule as written). Any rule may watch
-- rather than act: it decides nothing, and each call records what it would have done.
CREATE TABLE rule_imports (
    id           TEXT PRIMARY KEY,
    format       TEXT NOT NULL,
    file         TEXT NOT NULL CHECK (length(file) BETWEEN 1 AND 4096),
    -- SHA-256 of the file's text as read: a repository's rules hold for that file only.
    digest       TEXT NOT NULL CHECK (length(digest) = 64),
    project      TEXT,
    -- The proposal as the person saw it: each foreign rule beside what it becomes.
    proposal     TEXT NOT NULL,
    requested_by TEXT NOT NULL CHECK (length(requested_by) BETWEEN 1 AND 200),
    created_at   INTEGER NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'superseded')),
    decided_at   INTEGER,
    watch        INTEGER CHECK (watch IN (0, 1)),
    CHECK ((status = 'pending') = (decided_at IS NULL))
) STRICT;

CREATE INDEX rule_imports_pending ON rule_imports (created_at) WHERE status = 'pending';
CREATE INDEX rule_imports_by_file ON rule_imports (file, digest);

CREATE TABLE grants_new (
    id               TEXT PRIMARY KEY,
    artifact_id      TEXT,
    tool             TEXT NOT NULL,
    approval_id      TEXT UNIQUE REFERENCES approvals (id),
    created_at       INTEGER NOT NULL,
    uses             INTEGER NOT NULL DEFAULT 0,
    last_used_at     INTEGER,
    revoked_at       INTEGER,
    effect           TEXT NOT NULL DEFAULT 'approve' CHECK (effect IN ('approve', 'deny')),
    reach            TEXT NOT NULL DEFAULT '{"kind":"any"}',
    reach_kind       TEXT NOT NULL DEFAULT 'any'
        CHECK (reach_kind IN ('any', 'exact', 'command', 'path')),
    reach_key        TEXT,
    project          TEXT,
    expires_at       INTEGER,
    reason           TEXT,
    artifact_version INTEGER,
    import_id        TEXT REFERENCES rule_imports (id),
    source           TEXT,
    watch            INTEGER NOT NULL DEFAULT 0 CHECK (watch IN (0, 1)),
    CHECK ((approval_id IS NULL) = (import_id IS NOT NULL)),
    CHECK ((import_id IS NULL) = (source IS NULL))
) STRICT;

INSERT INTO grants_new (id, artifact_id, tool, approval_id, created_at, uses, last_used_at,
        revoked_at, effect, reach, reach_kind, reach_key, project, expires_at, reason,
        artifact_version)
    SELECT id, artifact_id, tool, approval_id, created_at, uses, last_used_at, revoked_at,
        effect, reach, reach_kind, reach_key, project, expires_at, reason, artifact_version
    FROM grants;

DROP TABLE grants;
ALTER TABLE grants_new RENAME TO grants;

CREATE INDEX grants_revoked ON grants (revoked_at DESC, id DESC) WHERE revoked_at IS NOT NULL;
CREATE INDEX grants_artifact ON grants (artifact_id) WHERE artifact_id IS NOT NULL;
CREATE INDEX grants_live_lookup ON grants (tool, ifnull(artifact_id, ''), reach_kind, reach_key)
    WHERE revoked_at IS NULL;
CREATE INDEX grants_live_deny ON grants (tool, ifnull(artifact_id, ''))
    WHERE revoked_at IS NULL AND effect = 'deny';
CREATE INDEX grants_by_import ON grants (import_id) WHERE import_id IS NOT NULL;

-- What a watching rule would have done with a call when it came.
ALTER TABLE approvals ADD COLUMN watched_by TEXT;
ALTER TABLE approvals ADD COLUMN watched TEXT CHECK (watched IN ('approve', 'deny'));
