-- Countersign's schema on PostgreSQL, as SQLite's migrations 0001-0017 leave it
-- (migrations/). The same tables, columns and checks; the differences, each in one place:
-- times are BIGINT (UTC unix milliseconds, as SQLite's INTEGER), flags BOOLEAN, bytes BYTEA,
-- JSON kept as the text it was written as (TEXT, checked with `::jsonb` where SQLite uses
-- json_valid), and History's full-text index a tsvector column kept by a trigger where SQLite
-- has an FTS5 table.

-- Text as the words SQLite's tokenizer keeps: each run of letters and digits, the rest
-- spaces, so that paths, addresses and `a.b` split into their words as they do there (the
-- parser of `to_tsvector` would keep `/home/me/app` whole). Accents are kept.
CREATE FUNCTION countersign_runs(t TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT regexp_replace(coalesce(t, ''), '[^[:alnum:]]+', ' ', 'g')
$$;

CREATE TABLE artifacts (
    id          TEXT PRIMARY KEY,
    owner       TEXT NOT NULL DEFAULT 'user' CHECK (owner IN ('user', 'org')),
    subject     TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    code        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    version     BIGINT NOT NULL DEFAULT 1,
    -- The title's words weighted A, so a search finds matches in the title first.
    search      TSVECTOR GENERATED ALWAYS AS
        (setweight(to_tsvector('simple', countersign_runs(title)), 'A')
            || to_tsvector('simple', countersign_runs(description)))
        STORED
);
CREATE INDEX artifacts_recent ON artifacts (updated_at DESC, id DESC);
CREATE INDEX artifacts_search ON artifacts USING GIN (search);

CREATE TABLE artifact_versions (
    artifact_id   TEXT NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
    version       BIGINT NOT NULL,
    code          TEXT NOT NULL,
    saved_at      BIGINT NOT NULL,
    saved_by      TEXT NOT NULL CHECK (saved_by IN ('agent', 'person')),
    restored_from BIGINT,
    compiled      TEXT,
    compiled_by   TEXT,
    PRIMARY KEY (artifact_id, version)
);

CREATE TABLE approvals (
    id                      TEXT PRIMARY KEY,
    tool                    TEXT NOT NULL,
    artifact_id             TEXT,
    requester_name          TEXT NOT NULL,
    requester_session       TEXT,
    call_view               TEXT NOT NULL,
    raw_input               TEXT,
    digest                  TEXT NOT NULL,
    hidden_marks            BIGINT NOT NULL,
    status                  TEXT NOT NULL
        CHECK (status IN ('pending', 'approved', 'declined', 'expired', 'cancelled')),
    decided_by              TEXT,
    reason                  TEXT,
    created_at              BIGINT NOT NULL,
    expires_at              BIGINT NOT NULL,
    decided_at              BIGINT,
    result_view             TEXT,
    result_at               BIGINT,
    requester_cwd           TEXT,
    call_id                 TEXT,
    parent_id               TEXT REFERENCES approvals (id),
    artifact_version        BIGINT,
    result_reporter_name    TEXT,
    result_reporter_session TEXT,
    result_door             TEXT CHECK (result_door IN ('hook', 'api', 'mcp', 'acp')),
    decided_on              TEXT CHECK (length(decided_on) BETWEEN 1 AND 100),
    decided_from            TEXT
        CHECK (decided_from IS NULL OR length(decided_from) BETWEEN 1 AND 64),
    given                   TEXT
        CHECK (given IS NULL OR (length(given) <= 262144 AND given::jsonb IS NOT NULL)),
    watched_by              TEXT,
    watched                 TEXT CHECK (watched IN ('approve', 'deny')),
    -- What History's search reads, kept by `approvals_search_kept` once a call is decided.
    search                  TSVECTOR,
    CHECK ((status = 'pending') = (decided_at IS NULL))
);
CREATE INDEX approvals_pending ON approvals (created_at DESC, id DESC) WHERE status = 'pending';
CREATE INDEX approvals_expiry ON approvals (expires_at) WHERE status = 'pending';
CREATE INDEX approvals_history ON approvals (decided_at DESC, id DESC) WHERE status <> 'pending';
CREATE INDEX approvals_artifact ON approvals (artifact_id) WHERE artifact_id IS NOT NULL;
CREATE INDEX approvals_tool ON approvals (tool, created_at DESC);
CREATE INDEX approvals_by_call ON approvals (requester_session, call_id)
    WHERE call_id IS NOT NULL;
CREATE INDEX approvals_by_parent ON approvals (parent_id, created_at)
    WHERE parent_id IS NOT NULL;
CREATE INDEX approvals_history_top ON approvals (decided_at DESC, id DESC)
    WHERE status <> 'pending' AND parent_id IS NULL;
CREATE INDEX approvals_history_by_agent ON approvals (requester_name, decided_at DESC, id DESC)
    WHERE status <> 'pending';
CREATE INDEX approvals_search ON approvals USING GIN (search);

-- The words of a card or a result, as SQLite's FTS5 triggers read them: every string in the
-- JSON, without the card's kind and without the type, data and MIME type of its content items
-- (an image's bytes are no words); at most 64 KiB of them.
CREATE FUNCTION countersign_words(doc TEXT) RETURNS TEXT
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    j JSONB;
BEGIN
    IF doc IS NULL THEN
        RETURN '';
    END IF;
    BEGIN
        j := doc::jsonb;
    EXCEPTION WHEN others THEN
        RETURN '';
    END;
    IF jsonb_typeof(j) = 'object' THEN
        j := j - 'card';
        IF jsonb_typeof(j -> 'content') = 'array' THEN
            j := jsonb_set(j, '{content}', (
                SELECT coalesce(jsonb_agg(item - 'type' - 'data' - 'mime_type'), '[]'::jsonb)
                FROM jsonb_array_elements(j -> 'content') AS item
                WHERE jsonb_typeof(item) = 'object'
            ));
        END IF;
    END IF;
    RETURN coalesce(substr((
        SELECT string_agg(v #>> '{}', ' ')
        FROM jsonb_path_query(j, 'strict $.** ? (@.type() == "string")') AS v
    ), 1, 65536), '');
END;
$$;

CREATE FUNCTION approvals_search_kept() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
    IF new.status = 'pending' THEN
        new.search := NULL;
    ELSE
        new.search :=
            setweight(to_tsvector('simple', countersign_runs(new.tool || ' '
                || new.requester_name || ' ' || countersign_words(new.call_view))), 'A')
            || setweight(to_tsvector('simple',
                countersign_runs(countersign_words(new.raw_input))), 'B')
            || setweight(to_tsvector('simple', countersign_runs(new.reason)), 'C')
            || setweight(to_tsvector('simple',
                countersign_runs(countersign_words(new.result_view))), 'D');
    END IF;
    RETURN new;
END;
$$;
CREATE TRIGGER approvals_search_kept BEFORE INSERT OR UPDATE OF status, reason, result_view
    ON approvals FOR EACH ROW EXECUTE FUNCTION approvals_search_kept();

-- `rowid`: the order reports were kept in, which SQLite's table has without naming it.
CREATE TABLE result_reports (
    rowid            BIGINT GENERATED ALWAYS AS IDENTITY,
    approval_id      TEXT NOT NULL REFERENCES approvals (id),
    reported_at      BIGINT NOT NULL,
    reporter_name    TEXT,
    reporter_session TEXT,
    door             TEXT NOT NULL CHECK (door IN ('hook', 'api', 'mcp', 'acp')),
    result_view      TEXT NOT NULL
);
CREATE INDEX result_reports_by_approval ON result_reports (approval_id, reported_at);

CREATE TABLE integration_records (
    approval_id TEXT PRIMARY KEY NOT NULL REFERENCES approvals (id),
    integration TEXT NOT NULL,
    payload     TEXT NOT NULL
);
CREATE INDEX integration_records_by_integration ON integration_records (integration);

CREATE TABLE phones (
    id                TEXT PRIMARY KEY,
    name              TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    credential_sha256 BYTEA NOT NULL UNIQUE CHECK (length(credential_sha256) = 32),
    paired_at         BIGINT NOT NULL,
    last_used_at      BIGINT,
    passkey           TEXT CHECK (passkey IS NULL OR passkey::jsonb IS NOT NULL),
    kept_at           BIGINT,
    paired_from       TEXT NOT NULL DEFAULT '' CHECK (length(paired_from) <= 64),
    browser           TEXT NOT NULL DEFAULT '' CHECK (length(browser) <= 300),
    check_code        TEXT NOT NULL DEFAULT ''
        CHECK (check_code = '' OR check_code ~ '^[0-9]{6}$'),
    secret_sha256     BYTEA CHECK (secret_sha256 IS NULL OR length(secret_sha256) = 32),
    last_source       TEXT CHECK (last_source IS NULL OR length(last_source) BETWEEN 1 AND 64),
    previous_source   TEXT
        CHECK (previous_source IS NULL OR length(previous_source) BETWEEN 1 AND 64),
    source_changed_at BIGINT
);

CREATE TABLE push_subscriptions (
    phone_id   TEXT PRIMARY KEY REFERENCES phones (id) ON DELETE CASCADE,
    endpoint   TEXT NOT NULL CHECK (length(endpoint) BETWEEN 1 AND 2048),
    p256dh     BYTEA NOT NULL CHECK (length(p256dh) = 65),
    auth       BYTEA NOT NULL CHECK (length(auth) = 16),
    created_at BIGINT NOT NULL
);

CREATE TABLE audit_chain (
    seq         BIGINT PRIMARY KEY,
    approval_id TEXT NOT NULL,
    event       TEXT NOT NULL CHECK (event IN ('decided', 'result')),
    prev        BYTEA NOT NULL CHECK (length(prev) = 32),
    hash        BYTEA NOT NULL CHECK (length(hash) = 32)
);
CREATE INDEX audit_chain_by_approval ON audit_chain (approval_id, event);

-- Nothing to chain from before the chain: a database made here starts with it.
CREATE TABLE audit_backfill (pending BIGINT PRIMARY KEY CHECK (pending = 1));

CREATE TABLE rule_imports (
    id           TEXT PRIMARY KEY,
    format       TEXT NOT NULL,
    file         TEXT NOT NULL CHECK (length(file) BETWEEN 1 AND 4096),
    digest       TEXT NOT NULL CHECK (length(digest) = 64),
    project      TEXT,
    proposal     TEXT NOT NULL,
    requested_by TEXT NOT NULL CHECK (length(requested_by) BETWEEN 1 AND 200),
    created_at   BIGINT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'superseded')),
    decided_at   BIGINT,
    watch        BOOLEAN,
    CHECK ((status = 'pending') = (decided_at IS NULL))
);
CREATE INDEX rule_imports_pending ON rule_imports (created_at) WHERE status = 'pending';
CREATE INDEX rule_imports_by_file ON rule_imports (file, digest);

CREATE TABLE grants (
    id               TEXT PRIMARY KEY,
    artifact_id      TEXT,
    tool             TEXT NOT NULL,
    approval_id      TEXT UNIQUE REFERENCES approvals (id),
    created_at       BIGINT NOT NULL,
    uses             BIGINT NOT NULL DEFAULT 0,
    last_used_at     BIGINT,
    revoked_at       BIGINT,
    effect           TEXT NOT NULL DEFAULT 'approve' CHECK (effect IN ('approve', 'deny')),
    reach            TEXT NOT NULL DEFAULT '{"kind":"any"}',
    reach_kind       TEXT NOT NULL DEFAULT 'any'
        CHECK (reach_kind IN ('any', 'exact', 'command', 'path')),
    reach_key        TEXT,
    project          TEXT,
    expires_at       BIGINT,
    reason           TEXT,
    artifact_version BIGINT,
    import_id        TEXT REFERENCES rule_imports (id),
    source           TEXT,
    watch            BOOLEAN NOT NULL DEFAULT FALSE,
    CHECK ((approval_id IS NULL) = (import_id IS NOT NULL)),
    CHECK ((import_id IS NULL) = (source IS NULL))
);
CREATE INDEX grants_revoked ON grants (revoked_at DESC, id DESC) WHERE revoked_at IS NOT NULL;
CREATE INDEX grants_artifact ON grants (artifact_id) WHERE artifact_id IS NOT NULL;
CREATE INDEX grants_live_lookup ON grants (tool, coalesce(artifact_id, ''), reach_kind, reach_key)
    WHERE revoked_at IS NULL;
CREATE INDEX grants_live_deny ON grants (tool, coalesce(artifact_id, ''))
    WHERE revoked_at IS NULL AND effect = 'deny';
CREATE INDEX grants_by_import ON grants (import_id) WHERE import_id IS NOT NULL;
