#!/bin/bash
# Where FTS5's own integrity-check spends its work (issue 33, measured before any design):
# instructions counted by callgrind, which does not depend on the machine's load, for
#   - the whole check with rank 1 (index against content, as verify and restore run it),
#   - rank 0 (the index's structure and its own checksum, no content),
#   - every index entry read through fts5vocab(instance) (the index side of a digest),
#   - the content table's text read (the floor of the content side),
#   - sqlite3 doing nothing (start-up).
# Usage: bench/fts5-check-split.sh STEWARD [MIB]   (from the repository root; default 32 MiB)
set -euo pipefail
steward=$1
mib=${2:-32}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
TARGET_MIB=$mib bash bench/make-tickets-db.sh "$steward" "$work/t.db" > /dev/null 2>&1
count() {
    cp "$work/t.db" "$work/c.db"
    valgrind --tool=callgrind --callgrind-out-file="$work/cg" sqlite3 "$work/c.db" "$1" 2>&1 >/dev/null \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "database: $(du -m "$work/t.db" | cut -f1) MiB, $(sqlite3 "$work/t.db" 'SELECT count(*) FROM ticket') rows"
printf '%-44s %15s\n' "what" "instructions"
while IFS='|' read -r what statement; do
    printf '%-44s %15s\n' "$what" "$(count "$statement")"
done <<'LIST'
integrity-check, rank 1 (index and content)|INSERT INTO ticket_fts(ticket_fts, rank) VALUES('integrity-check', 1)
integrity-check, rank 0 (index alone)|INSERT INTO ticket_fts(ticket_fts, rank) VALUES('integrity-check', 0)
every entry through fts5vocab(instance)|CREATE VIRTUAL TABLE temp.vi USING fts5vocab(main, ticket_fts, instance); SELECT count(*) FROM temp.vi
the content's text read|SELECT sum(length(title) + length(body)) FROM ticket
sqlite3 start-up|SELECT 1
LIST
