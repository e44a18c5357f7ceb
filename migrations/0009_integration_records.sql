-- What an agent integration keeps beside an approval, in a table of its own kind: the
-- integration's name and a payload only it reads. ACP's options move here from the table
-- that named the protocol.
CREATE TABLE integration_records (
    approval_id TEXT PRIMARY KEY NOT NULL REFERENCES approvals (id),
    integration TEXT NOT NULL,
    payload TEXT NOT NULL
) WITHOUT ROWID;

CREATE INDEX integration_records_by_integration ON integration_records (integration);

INSERT INTO integration_records (approval_id, integration, payload)
    SELECT approval_id, 'acp', options FROM acp_options;

DROP TABLE acp_options;
