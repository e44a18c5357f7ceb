-- Web Push subscriptions of paired phones (decision 0023): where the phone's browser receives
-- "N calls waiting", and the keys its messages are encrypted to (RFC 8291). A phone's
-- subscription goes with the phone.
CREATE TABLE push_subscriptions (
    phone_id   TEXT PRIMARY KEY REFERENCES phones (id) ON DELETE CASCADE,
    endpoint   TEXT NOT NULL CHECK (length(endpoint) BETWEEN 1 AND 2048),
    p256dh     BLOB NOT NULL CHECK (length(p256dh) = 65),
    auth       BLOB NOT NULL CHECK (length(auth) = 16),
    created_at INTEGER NOT NULL
) STRICT;
