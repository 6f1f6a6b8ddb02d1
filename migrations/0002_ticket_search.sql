-- Full-text search over tickets: an external-content FTS5 table that only names
-- its source, kept in sync by three triggers (field notes, section 1).
--
-- unicode61 with remove_diacritics 2 folds Latin accents ('Café' matches 'cafe');
-- a run of Chinese characters without spaces is one token.
CREATE VIRTUAL TABLE ticket_fts USING fts5(
    title,
    body,
    content='ticket',
    content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);

CREATE TRIGGER ticket_fts_after_insert AFTER INSERT ON ticket BEGIN
    INSERT INTO ticket_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;

-- Deleting an index entry needs the old text, so the delete command carries it.
CREATE TRIGGER ticket_fts_after_delete AFTER DELETE ON ticket BEGIN
    INSERT INTO ticket_fts(ticket_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;

-- An update removes the old entry first, then adds the new one.
CREATE TRIGGER ticket_fts_after_update AFTER UPDATE ON ticket BEGIN
    INSERT INTO ticket_fts(ticket_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
    INSERT INTO ticket_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;

-- The table already has rows when this runs on an existing database, and neither
-- the new table nor its triggers index them: rebuild, inside this migration's
-- transaction, so that any runner (not only Steward) leaves a complete index.
INSERT INTO ticket_fts(ticket_fts) VALUES ('rebuild');
