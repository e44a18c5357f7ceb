-- History's full-text index: the words of what was asked (the tool address, who asked, every
-- text value of the card) and of its raw input, the reason given, and what came back. Only
-- decided calls are in it (History searches those); it is written by these triggers, so it
-- changes in the same transaction as the row it indexes. Contentless: the text stays in
-- `approvals` only, and the index is keyed by the row's rowid (nothing here runs VACUUM, the
-- one statement that may renumber a rowid table). JSON is indexed by its text values only,
-- never its keys, so searching "title" finds calls that say "title", not every card.
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
            (SELECT group_concat(value, ' ') FROM json_tree(new.call_view) WHERE type = 'text'),
            ''),
        ifnull(
            (SELECT group_concat(value, ' ') FROM json_tree(new.raw_input) WHERE type = 'text'),
            ''),
        ifnull(new.reason, ''),
        ifnull(
            (SELECT group_concat(value, ' ') FROM json_tree(new.result_view) WHERE type = 'text'),
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
            (SELECT group_concat(value, ' ') FROM json_tree(new.call_view) WHERE type = 'text'),
            ''),
        ifnull(
            (SELECT group_concat(value, ' ') FROM json_tree(new.raw_input) WHERE type = 'text'),
            ''),
        ifnull(new.reason, ''),
        ifnull(
            (SELECT group_concat(value, ' ') FROM json_tree(new.result_view) WHERE type = 'text'),
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
        (SELECT group_concat(value, ' ') FROM json_tree(approvals.call_view) WHERE type = 'text'),
        ''),
    ifnull(
        (SELECT group_concat(value, ' ') FROM json_tree(approvals.raw_input) WHERE type = 'text'),
        ''),
    ifnull(reason, ''),
    ifnull(
        (SELECT group_concat(value, ' ') FROM json_tree(approvals.result_view) WHERE type = 'text'),
        '')
FROM approvals WHERE status <> 'pending';

-- Filters History offers besides words: who asked, where, and when it was decided.
CREATE INDEX approvals_history_by_agent ON approvals (requester_name, decided_at DESC, id DESC)
    WHERE status <> 'pending';
