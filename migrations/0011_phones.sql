-- Paired phones (DESIGN §14): each holds a device credential of 256 random bits, of which only
-- the SHA-256 is kept. Revoking a phone deletes its row, so its credential matches nothing.
CREATE TABLE phones (
    id                TEXT PRIMARY KEY,
    name              TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    credential_sha256 BLOB NOT NULL UNIQUE CHECK (length(credential_sha256) = 32),
    paired_at         INTEGER NOT NULL,
    last_used_at      INTEGER
) STRICT;

-- The device a person decided on, when it was not the desk: a paired phone's name, copied when
-- the decision is made, so revoking or renaming the phone never changes History.
ALTER TABLE approvals ADD COLUMN decided_on TEXT CHECK (length(decided_on) BETWEEN 1 AND 100);
