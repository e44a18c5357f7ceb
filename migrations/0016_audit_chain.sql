-- The audit chain: one entry per decision and per reported result, in the order they were
-- written, each holding the SHA-256 of the entry before it and of what it attests (the
-- decision's row, the report), so a record changed, removed or reordered afterwards is found by
-- `countersign history verify`. Entries are written in the transaction that makes the decision.
CREATE TABLE audit_chain (
    seq         INTEGER PRIMARY KEY,
    approval_id TEXT NOT NULL,
    event       TEXT NOT NULL CHECK (event IN ('decided', 'result')),
    prev        BLOB NOT NULL CHECK (length(prev) = 32),
    hash        BLOB NOT NULL CHECK (length(hash) = 32)
) STRICT;

CREATE INDEX audit_chain_by_approval ON audit_chain (approval_id, event);

-- Decisions made before the chain existed are chained once, in the order they were decided,
-- by the first console that opens the database after this migration; this row says it has not
-- happened yet.
CREATE TABLE audit_backfill (pending INTEGER PRIMARY KEY CHECK (pending = 1)) STRICT;
INSERT INTO audit_backfill (pending) VALUES (1);
