-- Business invariants of the example ticket database, checked by
-- `steward verify --assert`. A SELECT passes when its first column is 1 in every
-- row; an INSERT into the TEMP table fails where its CHECK does (field notes, §1).

CREATE TEMP TABLE assertion(ok INTEGER NOT NULL CHECK (ok = 1));

-- name: every ticket has a title
INSERT INTO assertion SELECT count(*) = 0 FROM ticket WHERE trim(title) = '';

-- name: statuses are the known ones
INSERT INTO assertion SELECT count(*) = 0 FROM ticket WHERE status NOT IN ('open', 'pending', 'closed');

-- name: search finds the café ticket without its accent
INSERT INTO assertion SELECT count(*) = 1 FROM ticket_fts WHERE ticket_fts MATCH '"cafe"';

-- name: every ticket is in the search index
SELECT (SELECT count(*) FROM ticket_fts_docsize) = (SELECT count(*) FROM ticket);
