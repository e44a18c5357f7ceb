-- Every save of an artifact's source is kept as an immutable version; the artifact row holds
-- the current one and its number. Versions go with their artifact.
ALTER TABLE artifacts ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

CREATE TABLE artifact_versions (
    artifact_id   TEXT NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
    version       INTEGER NOT NULL,
    code          TEXT NOT NULL,
    saved_at      INTEGER NOT NULL,
    saved_by      TEXT NOT NULL CHECK (saved_by IN ('agent', 'person')),
    -- A person's restore: the version whose source this one brought back.
    restored_from INTEGER,
    -- The source as the first-render check compiled it, which the preview runs as is, and
    -- which check script compiled it (the preview ignores what another one compiled); NULL
    -- when the check did not run (the preview then compiles the source itself).
    compiled      TEXT,
    compiled_by   TEXT,
    PRIMARY KEY (artifact_id, version)
) STRICT;

INSERT INTO artifact_versions (artifact_id, version, code, saved_at, saved_by)
    SELECT id, 1, code, updated_at, 'agent' FROM artifacts;
