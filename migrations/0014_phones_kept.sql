-- A redeemed pairing code proposes a phone (decision 0025): it decides nothing until the person
-- keeps it in the window, which shows the address it paired from and its browser. Each phone
-- also holds a secret the phone page keeps for its own origin, without which its cookie decides
-- nothing (browsers send a cookie to every port of the host). Phones paired before these existed
-- are unpaired here: nobody at the desk kept them, and they hold no such secret.
DELETE FROM push_subscriptions;
DELETE FROM phones;
-- When the person kept the phone; NULL while it is only proposed.
ALTER TABLE phones ADD COLUMN kept_at INTEGER;
-- The address the code was redeemed from, and the browser's own description of itself.
ALTER TABLE phones ADD COLUMN paired_from TEXT NOT NULL DEFAULT ''
    CHECK (length(paired_from) <= 64);
ALTER TABLE phones ADD COLUMN browser TEXT NOT NULL DEFAULT '' CHECK (length(browser) <= 300);
-- Six digits the phone page shows after pairing and the window shows beside Keep: the phone in
-- the person's hand is the one proposed only if they match.
ALTER TABLE phones ADD COLUMN check_code TEXT NOT NULL DEFAULT ''
    CHECK (check_code = '' OR (length(check_code) = 6 AND check_code NOT GLOB '*[^0-9]*'));
-- SHA-256 of the secret the page keeps; every decision carries the secret.
ALTER TABLE phones ADD COLUMN secret_sha256 BLOB
    CHECK (secret_sha256 IS NULL OR length(secret_sha256) = 32);
-- The address the phone was last seen from, and the one before when it changed.
ALTER TABLE phones ADD COLUMN last_source TEXT
    CHECK (last_source IS NULL OR length(last_source) BETWEEN 1 AND 64);
ALTER TABLE phones ADD COLUMN previous_source TEXT
    CHECK (previous_source IS NULL OR length(previous_source) BETWEEN 1 AND 64);
ALTER TABLE phones ADD COLUMN source_changed_at INTEGER;

-- The address a decision made on a phone came from, kept with it.
ALTER TABLE approvals ADD COLUMN decided_from TEXT
    CHECK (decided_from IS NULL OR length(decided_from) BETWEEN 1 AND 64);
