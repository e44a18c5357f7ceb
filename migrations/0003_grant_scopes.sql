-- Grants say how far they reach: what (any call, this exact call, a command prefix, a path
-- prefix), where (a project, for calls that name no artifact) and how long; deny rules have
-- the same shape. Existing grants keep exactly their meaning: any call to the address, for
-- their artifact or none, everywhere, until revoked.
ALTER TABLE grants ADD COLUMN effect TEXT NOT NULL DEFAULT 'approve'
    CHECK (effect IN ('approve', 'deny'));
ALTER TABLE grants ADD COLUMN reach TEXT NOT NULL DEFAULT '{"kind":"any"}';
-- The reach's kind and the value lookups go by: an exact call's digest, a command prefix's
-- first word.
ALTER TABLE grants ADD COLUMN reach_kind TEXT NOT NULL DEFAULT 'any'
    CHECK (reach_kind IN ('any', 'exact', 'command', 'path'));
ALTER TABLE grants ADD COLUMN reach_key TEXT;
ALTER TABLE grants ADD COLUMN project TEXT;
ALTER TABLE grants ADD COLUMN expires_at INTEGER;
ALTER TABLE grants ADD COLUMN reason TEXT;

-- Several grants may now share an (artifact or none, tool) key, each narrowed differently.
DROP INDEX grants_live_key;
CREATE INDEX grants_live_lookup ON grants (tool, ifnull(artifact_id, ''), reach_kind, reach_key)
    WHERE revoked_at IS NULL;

-- The requester's working directory: the project a grant can be scoped to.
ALTER TABLE approvals ADD COLUMN requester_cwd TEXT;

-- A grant's preview looks through the earlier calls to its address, newest first.
CREATE INDEX approvals_tool ON approvals (tool, created_at DESC);
