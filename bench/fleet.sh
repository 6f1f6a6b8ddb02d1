#!/bin/bash
# Benchmark for fleet runs (issue 12): COUNTS (default "100 1000 10000") small ticket
# databases (the ticket table with rows, and after the run its external-content FTS5
# index) upgraded from version 1 to 2 with `migrate --dbs-from --jobs <cores>`, and the
# same list again when every database is current. Prints, per count, wall time and peak
# RSS (GNU time's "Maximum resident set size"), and the RSS ratio to the smallest count:
# memory must not grow with the number of databases (target within 10%).
# With LOOP=1, each count's upgrade is also run as a shell loop over the same copies that
# applies the same SQL with the sqlite3 CLI per file, in one transaction, with the same
# checks (integrity_check, foreign_key_check, FTS5's rank-1 integrity-check), and the
# ratio Steward/loop is printed (issue 12's target: at most 0.7).
# With BACKUP=1, the upgrade is run again with --backup-dir (target: at most 1.5x the loop).
# Not a test: the numbers depend on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

COUNTS=${COUNTS:-"100 1000 10000"}
ROWS=${ROWS:-200}
JOBS=${JOBS:-$(nproc)}
. bench/common.sh
work=bench/work/fleet
rm -rf "$work"
mkdir -p "$work/set"
cp migrations/0001_create_ticket.sql migrations/0002_ticket_search.sql "$work/set/"

# One template at version 1, copied: the run, not the setup, is what is measured.
template="$work/template.db"
"$steward" migrate --create --quiet --db "$template" --migrations "$work/set" --to 1 > /dev/null
sqlite3 "$template" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $ROWS)
  INSERT INTO ticket(title, body) SELECT printf('ticket %d: printer jammed', i),
  printf('body %d: the printer on floor %d is jammed again after the update', i, i % 7) FROM n;"
echo "template: $(stat -c %s "$template") bytes, $ROWS tickets; jobs $JOBS" >&2

rss_of() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }

first_rss=""
printf '%-8s %-10s %12s %12s %14s %10s\n' count run wall_s per_db_ms peak_rss_kib ratio
for count in $COUNTS; do
    dir="$work/dbs-$count"
    mkdir -p "$dir"
    list="$work/list-$count"
    : > "$list"
    for i in $(seq 1 "$count"); do
        cp "$template" "$dir/$i.db"
        echo "$dir/$i.db" >> "$list"
    done
    for run in upgrade current; do
        start=$(now)
        /usr/bin/time -v -o "$work/time-$count-$run" "$steward" migrate --migrations "$work/set" \
            --dbs-from "$list" --jobs "$JOBS" --json > "$work/out-$count-$run.ndjson"
        end=$(now)
        wall=$(elapsed "$start" "$end")
        rss=$(rss_of "$work/time-$count-$run")
        [ "$run" = upgrade ] && [ -z "$first_rss" ] && first_rss=$rss
        per=$(python3 -c "print(f'{$wall * 1000 / $count:.2f}')")
        printf '%-8s %-10s %12s %12s %14s %10s\n' "$count" "$run" "$wall" "$per" "$rss" "$(ratio "$rss" "$first_rss")"
        [ "$run" = upgrade ] && echo "$count upgrade $wall" >> "$work/walls"
        tail -1 "$work/out-$count-$run.ndjson" | python3 -c "
import json, sys
s = json.load(sys.stdin)
assert s['exitCode'] == 0 and s['succeeded'] == $count, s
assert s['outcomes'] == {'$( [ "$run" = upgrade ] && echo migrated || echo current )': $count}, s['outcomes']"
    done
    if [ "${BACKUP:-0}" = 1 ]; then
        for i in $(seq 1 "$count"); do cp "$template" "$dir/$i.db"; done
        rm -rf "$work/bundles"; mkdir -p "$work/bundles"
        start=$(now)
        /usr/bin/time -v -o "$work/time-$count-backup" "$steward" migrate --migrations "$work/set" \
            --dbs-from "$list" --jobs "$JOBS" --json --backup-dir "$work/bundles" > "$work/out-$count-backup.ndjson"
        end=$(now)
        wall=$(elapsed "$start" "$end")
        printf '%-8s %-10s %12s %12s %14s   (%s bundles)\n' "$count" backup-dir "$wall" \
            "$(python3 -c "print(f'{$wall * 1000 / $count:.2f}')")" "$(rss_of "$work/time-$count-backup")" "$(ls "$work/bundles" | wc -l)"
        echo "$count backup $wall" >> "$work/walls"
        rm -rf "$work/bundles"
    fi
    if [ "${LOOP:-0}" = 1 ]; then
        for i in $(seq 1 "$count"); do cp "$template" "$dir/$i.db"; done
        start=$(now)
        while read -r db; do
            { echo "BEGIN IMMEDIATE;"; cat "$work/set/0002_ticket_search.sql"
              echo "PRAGMA user_version = 2; COMMIT;"
              echo "PRAGMA integrity_check; PRAGMA foreign_key_check;"
              echo "INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1);"
            } | sqlite3 -bail "$db" > /dev/null
        done < "$list"
        end=$(now)
        loop=$(elapsed "$start" "$end")
        for kind in upgrade backup; do
            steward_wall=$(python3 -c "print([l.split()[2] for l in open('$work/walls') if l.split()[:2] == ['$count', '$kind']][0])" 2>/dev/null || true)
            [ -n "$steward_wall" ] && printf '%-8s %-10s %12s   (steward %s/loop %s)\n' "$count" loop "$loop" "$kind" "$(ratio "$steward_wall" "$loop")"
        done
    fi
    rm -rf "$dir"
done
