-- History's full-text index: the words of what was asked (the tool address, who asked, every
-- text value of the card) and of its raw input, the reason given, and what came back. Only
-- decided calls are in it (History searches those); it is written by these triggers, so it
-- changes in the same transaction as the row it indexes. Contentless: the text stays in
-- `approvals` only, and the index is keyed by the row's rowid (nothing here runs VACUUM, the
-- one statement that may renumber a rowid table). JSON is indexed by its text values only,
-- never its keys, so searching "title" finds calls that say "title", not every card; nor the
-- card's kind, nor a content block's type, image data or image type. The raw input is the
-- agent's own JSON: every text value of it is indexed, whatever its key. Each column takes the first 64 KiB of its
-- text, so a submission of megabytes costs the writer no more than that to index, and a
-- malformed JSON value (a hand-edited row) is indexed as nothing rather than failing the write.
CREATE VIRTUAL TABLE approvals_fts USING fts5 (
    asked, raw, reason, result,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER approvals_fts_decided_at_once AFTER INSERT ON approvals
WHEN new.status <> 'pending' BEGIN
    INSERT INTO approvals_fts (rowid, asked, raw, reason, result) VALUES (
        new.rowid,
        new.tool || ' ' || new.requester_name || ' ' || ifnull(
            substr((SELECT group_concat(value, ' ') FROM json_tree(CASE WHEN json_valid(new.call_view) THEN new.call_view END)
            WHERE type = 'text'
              AND NOT (path = '$' AND key = 'card')
              AND NOT (path LIKE '$.content[%' AND key IN ('type', 'data', 'mime_type'))), 1, 65536),
            ''),
        ifnull(
            substr((SELECT group_concat(value, ' ') FROM json_tree(CASE WHEN json_valid(new.raw_input) THEN new.raw_input END)
            WHERE type = 'text'), 1, 65536),
            ''),
        ifnull(new.reason, ''),
        ifnull(
            substr((SELECT group_concat(value, ' ') FROM json_tree(CASE WHEN json_valid(new.result_view) THEN new.result_view END)
            WHERE type = 'text'
              AND NOT (path = '$' AND key = 'card')
              AND NOT (path LIKE '$.content[%' AND key IN ('type', 'data', 'mime_type'))), 1, 65536),
            ''));
END;

-- Decided (by a person, a rule, expiry or its requester), or its result attached or replaced:
-- the row's entry is written again whole.
CREATE TRIGGER approvals_fts_changed AFTER UPDATE OF status, reason, result_view ON approvals
WHEN new.status <> 'pending' BEGIN
    DELETE FROM approvals_fts WHERE rowid = old.rowid;
    INSERT INTO approvals_fts (rowid, asked, raw, reason, result) VALUES (
        new.rowid,
        new.tool || ' ' || new.requester_name || ' ' || ifnull(
            substr((SELECT group_concat(value, ' ') FROM json_tree(CASE WHEN json_valid(new.call_view) THEN new.call_view END)
            WHERE type = 'text'
              AND NOT (path = '$' AND key = 'card')
              AND NOT (path LIKE '$.content[%' AND key IN ('type', 'data', 'mime_type'))), 1, 65536),
            ''),
        ifnull(
            substr((SELECT group_concat(value, ' ') FROM json_tree(CASE WHEN json_valid(new.raw_input) THEN new.raw_input END)
            WHERE type = 'text'), 1, 65536),
            ''),
        ifnull(new.reason, ''),
        ifnull(
            substr((SELECT group_concat(value, ' ') FROM json_tree(CASE WHEN json_valid(new.result_view) THEN new.result_view END)
            WHERE type = 'text'
              AND NOT (path = '$' AND key = 'card')
              AND NOT (path LIKE '$.content[%' AND key IN ('type', 'data', 'mime_type'))), 1, 65536),
            ''));
END;

CREATE TRIGGER approvals_fts_deleted AFTER DELETE ON approvals BEGIN
    DELETE FROM approvals_fts WHERE rowid = old.rowid;
END;

-- What History already holds.
INSERT INTO approvals_fts (rowid, asked, raw, reason, result)
SELECT
    rowid,
    tool || ' ' || requester_name || ' ' || ifnull(
        substr((SELECT group_concat(value, ' ') FROM json_tree(CASE WHEN json_valid(approvals.call_view) THEN approvals.call_view END)
            WHERE type = 'text'
              AND NOT (path = '$' AND key = 'card')
              AND NOT (path LIKE '$.content[%' AND key IN ('type', 'data', 'mime_type'))), 1, 65536),
        ''),
    ifnull(
        substr((SELECT group_concat(value, ' ') FROM json_tree(CASE WHEN json_valid(approvals.raw_input) THEN approvals.raw_input END)
            WHERE type = 'text'), 1, 65536),
        ''),
    ifnull(reason, ''),
    ifnull(
        substr((SELECT group_concat(value, ' ') FROM json_tree(CASE WHEN json_valid(approvals.result_view) THEN approvals.result_view END)
            WHERE type = 'text'
              AND NOT (path = '$' AND key = 'card')
              AND NOT (path LIKE '$.content[%' AND key IN ('type', 'data', 'mime_type'))), 1, 65536),
        '')
FROM approvals WHERE status <> 'pending';

-- Filters History offers besides words: who asked, where, and when it was decided.
CREATE INDEX approvals_history_by_agent ON approvals (requester_name, decided_at DESC, id DESC)
    WHERE status <> 'pending';
