-- An Agent Client Protocol request's permission options, beside its approval rather than in
-- it: the approval is Countersign's own record, the options are what ACP answers with.
CREATE TABLE acp_options (
    approval_id TEXT PRIMARY KEY NOT NULL REFERENCES approvals (id),
    options     TEXT NOT NULL
) WITHOUT ROWID;

INSERT INTO acp_options (approval_id, options)
    SELECT id, acp_options FROM approvals WHERE acp_options IS NOT NULL;

ALTER TABLE approvals DROP COLUMN acp_options;
