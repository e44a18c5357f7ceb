-- The requester's own id for a call (Claude Code's tool_use_id), so the call's result finds
-- its approval again; and the outer run a nested call belongs to (a code-mode run).
ALTER TABLE approvals ADD COLUMN call_id TEXT;
ALTER TABLE approvals ADD COLUMN parent_id TEXT REFERENCES approvals (id);

CREATE INDEX approvals_by_call ON approvals (requester_session, call_id)
    WHERE call_id IS NOT NULL;
CREATE INDEX approvals_by_parent ON approvals (parent_id, created_at)
    WHERE parent_id IS NOT NULL;
-- History lists runs and single calls; a run's nested calls show inside its card.
CREATE INDEX approvals_history_top ON approvals (decided_at DESC, id DESC)
    WHERE status <> 'pending' AND parent_id IS NULL;
-- Every live deny rule of a (tool, artifact) is a candidate for each call, whatever its reach.
CREATE INDEX grants_live_deny ON grants (tool, ifnull(artifact_id, ''))
    WHERE revoked_at IS NULL AND effect = 'deny';
