#!/bin/bash
# Benchmark for `steward verify` (no contract) against the sqlite3 CLI, measured in the
# same run: a generated database of about 1 GiB with an FTS5 table of ROWS rows (default
# 1,500,000); Steward's verify vs `PRAGMA integrity_check`, `PRAGMA foreign_key_check`
# and FTS5's rank-1 integrity-check run by sqlite3 one after another.
# RUNS (default 7) pairs, alternating which side goes first, each pair printed; the paired
# median is the figure (issue 33; COMPONENTS=0 leaves out the components timed alone).
# Prints wall times (best of RUNS, warm cache), the peer's three parts (the longest one
# alone is the floor of any run on one core per check), the ratio, Steward / peer in each
# iteration, the FTS5 check's share of each peer run (the lowest ratio two cores allow)
# and Steward's checks.
# Target (issue 33): the paired median <= 0.55 (issue 14: 0.7). Then the limit of two cores from the checks timed alone
# (bench/common.sh, `limit`) and Steward / limit.
set -euo pipefail
cd "$(dirname "$0")/.."

ROWS=${ROWS:-1500000}
RUNS=${RUNS:-7}
. bench/common.sh
work=bench/work/verify
mkdir -p "$work"
db="$work/tickets-$ROWS.sqlite"


if [ ! -f "$db" ]; then
    echo "generating $db ($ROWS rows; a few minutes, kept for later runs)" >&2
    rm -f "$db.partial"
    "$steward" migrate --create --quiet --db "$db.partial" --migrations migrations > /dev/null
    sqlite3 -bail "$db.partial" "
      PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144;
      BEGIN;
      INSERT INTO ticket (title, body, status)
      WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < $ROWS)
      SELECT printf('Ticket %d: printer %d on floor %d is jammed again', x, x % 977, x % 13),
             printf('Customer %d reports error %d in module %d after update %d.%d. ', x % 5003, x % 211, x % 97, x % 7, x % 31)
             || printf('The queue %d stalls when job %d prints page %d of report %d. ', x % 61, x % 4099, x % 500, x % 1223)
             || printf('Restarting service %d on host %d clears it for %d minutes. ', x % 17, x % 389, x % 90)
             || printf('Reference case %d, contract %d, region %d, build %d.', x % 100003, x % 7919, x % 23, x % 1009),
             CASE x % 3 WHEN 0 THEN 'open' WHEN 1 THEN 'pending' ELSE 'closed' END
      FROM n;
      COMMIT;"
    mv "$db.partial" "$db"
fi
echo "database: $(du -h "$db" | cut -f1), $ROWS rows" >&2
cat "$db" > /dev/null  # warm the page cache for both sides

components="$work/components.txt"; : > "$components"
peer_times=(); steward_times=(); parts=(); fts_shares=()
peer_run() {
    local t0 ta tb t1
    t0=$(now)
    sqlite3 -bail "$db" "PRAGMA integrity_check;" > /dev/null
    ta=$(now)
    sqlite3 -bail "$db" "PRAGMA foreign_key_check;" > /dev/null
    tb=$(now)
    sqlite3 -bail "$db" "INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1);"
    t1=$(now)
    peer_times+=("$(elapsed "$t0" "$t1")")
    parts+=("integrity_check $(elapsed "$t0" "$ta")s, foreign_key_check $(elapsed "$ta" "$tb")s, FTS5 check $(elapsed "$tb" "$t1")s")
    fts_shares+=("$(python3 -c "print(f'{($t1 - $tb) / ($t1 - $t0):.3f}')")")
}
steward_run() {
    local t0 t1
    t0=$(now)
    "$steward" verify --quiet --json --db "$db" --migrations migrations > "$work/report.json"
    t1=$(now)
    steward_times+=("$(elapsed "$t0" "$t1")")
}
# Paired (issue 33): the two back to back, alternating which goes first; each pair printed.
for run in $(seq 1 "$RUNS"); do
    if [ $((run % 2)) -eq 1 ]; then first=sqlite3; peer_run; steward_run; else first=steward; steward_run; peer_run; fi
    echo "  pair $run ($first first): steward ${steward_times[-1]}s, sqlite3 ${peer_times[-1]}s, ratio $(ratio "${steward_times[-1]}" "${peer_times[-1]}")" >&2
    [ "${COMPONENTS:-1}" = 1 ] || continue

    # The mandatory components alone (the limit below): each check on its own.
    component integrity "sqlite3 -bail '$db' 'PRAGMA integrity_check;'"
    component foreign_keys "sqlite3 -bail '$db' 'PRAGMA foreign_key_check;'"
    component fts5 "sqlite3 -bail '$db' \"BEGIN; INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1); ROLLBACK;\""
    component together_checks "(sqlite3 -bail '$db' \"BEGIN; INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1); ROLLBACK;\" > /dev/null) &
        (sqlite3 -bail '$db' 'PRAGMA integrity_check; PRAGMA foreign_key_check;' > /dev/null) & wait"
    # FTS5's check is an INSERT: Steward runs it on a rollback-journal database read in
    # place, its writes kept in memory (nothing is copied; a WAL database is still copied first),
    # so the bench database's chain has no copy in it.
done
python3 -c "
import json; r = json.load(open('$work/report.json'))
assert r['passed'], r['failedChecks']
print('  steward checks: ' + ', '.join(f\"{c['name']} {c['durationSeconds']}s\" for c in r['checks'] if c['status'] != 'skipped'))" >&2
peer=$(printf "%s\n" "${peer_times[@]}" | best)
mine=$(printf "%s\n" "${steward_times[@]}" | best)
echo "verify, $ROWS rows: sqlite3 ${peer}s (runs: ${peer_times[*]})   steward ${mine}s (runs: ${steward_times[*]})   ratio $(ratio "$mine" "$peer")  (target, paired median: <= 0.55)"
printf '  sqlite3 parts, run %s\n' "${parts[@]}"
paired_ratio "${steward_times[*]}" "${peer_times[*]}"
# The FTS5 check is one statement on one thread: at the same host speed no run on two
# cores can take less than it, so its share of the peer's own run is the lowest ratio
# two cores allow (a host that drifts between the two runs can show less).
per_iteration "FTS5 check / the peer's whole run, per iteration (the lowest ratio two cores allow)" "${fts_shares[*]}"
# The checks are independent: each may run on its own connection at the same time.
if [ "${COMPONENTS:-1}" = 1 ]; then
    PAIRED="${steward_times[*]}" limit "max(integrity, foreign_keys, fts5)" "$mine" "max(together_checks, fts5, integrity + foreign_keys)"
fi
