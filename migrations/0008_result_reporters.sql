-- Who reported a call's result (the name and session it gave) and through which door; a
-- result reported before this was recorded has none. Reports after the first are kept beside
-- it as conflicting reports, never dropped.
ALTER TABLE approvals ADD COLUMN result_reporter_name TEXT;
ALTER TABLE approvals ADD COLUMN result_reporter_session TEXT;
ALTER TABLE approvals ADD COLUMN result_door TEXT
    CHECK (result_door IN ('hook', 'api', 'mcp', 'acp'));

CREATE TABLE result_reports (
    approval_id      TEXT NOT NULL REFERENCES approvals (id),
    reported_at      INTEGER NOT NULL,
    reporter_name    TEXT,
    reporter_session TEXT,
    door             TEXT NOT NULL CHECK (door IN ('hook', 'api', 'mcp', 'acp')),
    result_view      TEXT NOT NULL
) STRICT;
CREATE INDEX result_reports_by_approval ON result_reports (approval_id, reported_at);
