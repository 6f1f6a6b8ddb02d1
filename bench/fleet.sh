#!/bin/bash
# Benchmark for fleet runs (issue 12), as the issue states it: COUNT (default 1000) small
# ticket databases of about SIZE_KIB KiB (default 100) each, with the external-content FTS5
# table and its triggers, upgraded from version 1 to 2 with `migrate --dbs-from
# --jobs <cores>`, against a shell loop that runs the same SQL in one transaction with the
# sqlite3 CLI per file and the same checks (integrity_check, foreign_key_check, FTS5's
# rank-1 integrity-check). Version 2 makes the search index cover the status: FTS5 cannot
# add a column, so the table and its triggers are made again and rebuilt, and Steward's
# checks of a redefined FTS5 table run (quick_check, foreign keys, drift, FTS5 rank 1).
# Targets: Steward at most 0.7x the loop; with --backup-dir at most 1.5x.
#
# The runs are interleaved (loop, steward, steward --backup-dir; ROUNDS times, default 3),
# each on fresh copies, so that load from elsewhere hits all of them; a ratio is only
# computed within one round. Prints every run, then each round's ratios.
#
# RSS=1 measures instead peak RSS (GNU time) of the upgrade at RSS_COUNTS (default
# "100 10000") databases, and the ratio to the smallest: memory must not grow with the
# number of databases (target within 10%).
# Not a test: the numbers depend on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

COUNT=${COUNT:-1000}
SIZE_KIB=${SIZE_KIB:-100}
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-$(nproc)}
RSS_COUNTS=${RSS_COUNTS:-"100 10000"}
. bench/common.sh
work=bench/work/fleet
rm -rf "$work"
mkdir -p "$work/set"
echo steward > "$work/set/.steward-dialect"  # sqlx reads these names too: declared Steward's own
cat migrations/0001_create_ticket.sql migrations/0002_ticket_search.sql > "$work/set/0001_ticket_and_search.sql"
cat > "$work/set/0002_search_status.sql" <<'SQL'
-- Search v2: the status becomes searchable. An FTS5 table cannot gain a column, so the
-- index and its triggers are made again, and rebuilt from the tickets here.
DROP TRIGGER ticket_fts_after_insert;
DROP TRIGGER ticket_fts_after_delete;
DROP TRIGGER ticket_fts_after_update;
DROP TABLE ticket_fts;
CREATE VIRTUAL TABLE ticket_fts USING fts5(
    title, body, status, content='ticket', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER ticket_fts_after_insert AFTER INSERT ON ticket BEGIN
    INSERT INTO ticket_fts(rowid, title, body, status) VALUES (new.id, new.title, new.body, new.status);
END;
CREATE TRIGGER ticket_fts_after_delete AFTER DELETE ON ticket BEGIN
    INSERT INTO ticket_fts(ticket_fts, rowid, title, body, status) VALUES ('delete', old.id, old.title, old.body, old.status);
END;
CREATE TRIGGER ticket_fts_after_update AFTER UPDATE ON ticket BEGIN
    INSERT INTO ticket_fts(ticket_fts, rowid, title, body, status) VALUES ('delete', old.id, old.title, old.body, old.status);
    INSERT INTO ticket_fts(rowid, title, body, status) VALUES (new.id, new.title, new.body, new.status);
END;
CREATE INDEX ticket_updated ON ticket(updated_at);
INSERT INTO ticket_fts(ticket_fts) VALUES ('rebuild');
SQL

# One template at version 1, copied: the run, not the setup, is what is measured. Tickets
# are added (the triggers index them) until the file is about SIZE_KIB KiB.
template="$work/template.db"
"$steward" migrate --create --quiet --db "$template" --migrations "$work/set" --to 1 > /dev/null
rows=0
while [ "$(stat -c %s "$template")" -lt $((SIZE_KIB * 1024)) ]; do
    sqlite3 "$template" "WITH RECURSIVE n(i) AS (SELECT $rows + 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows + 20)
      INSERT INTO ticket(title, body, status) SELECT printf('ticket %d: printer jammed on floor %d', i, i % 7),
      printf('body %d: the printer on floor %d is jammed again after the update, error %d', i, i % 7, i % 211),
      CASE i % 3 WHEN 0 THEN 'open' WHEN 1 THEN 'pending' ELSE 'closed' END FROM n;"
    rows=$((rows + 20))
done
sqlite3 "$template" "PRAGMA integrity_check; INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1);" > /dev/null
echo "template: $(stat -c %s "$template") bytes ($(( $(stat -c %s "$template") / 1024 )) KiB), $rows tickets, FTS5 table at version 1; jobs $JOBS; $(nproc) cores" >&2

rss_of() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }

# Fresh copies of the template, and their list.
prepare() {
    local count=$1 dir="$work/dbs" list="$work/list"
    rm -rf "$dir" "$work/bundles"
    mkdir -p "$dir" "$work/bundles"
    : > "$list"
    for i in $(seq 1 "$count"); do
        cp "$template" "$dir/$i.db"
        echo "$dir/$i.db" >> "$list"
    done
    sync
}

run_steward() {
    local name=$1 count=$2; shift 2
    /usr/bin/time -v -o "$work/time-$name" "$steward" migrate --migrations "$work/set" \
        --dbs-from "$work/list" --jobs "$JOBS" --json "$@" > "$work/out-$name.ndjson"
    tail -1 "$work/out-$name.ndjson" | python3 -c "
import json, sys
s = json.load(sys.stdin)
assert s['exitCode'] == 0 and s['outcomes'] == {'migrated': $count}, s"
}

run_loop() {
    while read -r db; do
        { echo "BEGIN IMMEDIATE;"; cat "$work/set/0002_search_status.sql"
          echo "PRAGMA user_version = 2; COMMIT;"
          echo "PRAGMA integrity_check; PRAGMA foreign_key_check;"
          echo "INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1);"
        } | sqlite3 -bail "$db" > /dev/null
    done < "$work/list"
    [ "$(sqlite3 "$(tail -1 "$work/list")" 'PRAGMA user_version')" = 2 ]
}

timed() {
    local start end
    start=$(now)
    "$@"
    end=$(now)
    elapsed "$start" "$end"
}

if [ "${RSS:-0}" = 1 ]; then
    first=""
    printf '%-8s %12s %12s %14s %8s\n' count wall_s per_db_ms peak_rss_kib ratio
    for count in $RSS_COUNTS; do
        prepare "$count"
        wall=$(timed run_steward "rss-$count" "$count")
        rss=$(rss_of "$work/time-rss-$count")
        [ -z "$first" ] && first=$rss
        printf '%-8s %12s %12s %14s %8s\n' "$count" "$wall" "$(python3 -c "print(f'{$wall * 1000 / $count:.2f}')")" \
            "$rss" "$(ratio "$rss" "$first")"
    done
    rm -rf "$work/dbs" "$work/bundles"
    exit 0
fi

printf '%-6s %-12s %10s %12s %14s\n' round run wall_s per_db_ms peak_rss_kib
for round in $(seq 1 "$ROUNDS"); do
    prepare "$COUNT"
    loop=$(timed run_loop)
    printf '%-6s %-12s %10s %12s %14s\n' "$round" loop "$loop" "$(python3 -c "print(f'{$loop * 1000 / $COUNT:.2f}')")" -
    prepare "$COUNT"
    plain=$(timed run_steward "plain-$round" "$COUNT")
    printf '%-6s %-12s %10s %12s %14s\n' "$round" steward "$plain" "$(python3 -c "print(f'{$plain * 1000 / $COUNT:.2f}')")" \
        "$(rss_of "$work/time-plain-$round")"
    prepare "$COUNT"
    backup=$(timed run_steward "backup-$round" "$COUNT" --backup-dir "$work/bundles")
    [ "$(ls "$work/bundles" | wc -l)" = "$COUNT" ]
    printf '%-6s %-12s %10s %12s %14s\n' "$round" backup-dir "$backup" "$(python3 -c "print(f'{$backup * 1000 / $COUNT:.2f}')")" \
        "$(rss_of "$work/time-backup-$round")"
    echo "$round $loop $plain $backup" >> "$work/rounds"
done
echo
printf '%-6s %18s %22s\n' round steward/loop backup-dir/loop
while read -r round loop plain backup; do
    printf '%-6s %18s %22s\n' "$round" "$(ratio "$plain" "$loop")" "$(ratio "$backup" "$loop")"
done < "$work/rounds"
rm -rf "$work/dbs" "$work/bundles"
