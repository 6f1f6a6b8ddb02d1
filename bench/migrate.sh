#!/bin/bash
# Benchmark for `steward migrate` against the sqlite3 CLI, measured in the same run:
#   1. 200 generated migrations: Steward vs the same SQL in one transaction in sqlite3.
#   2. Adding FTS5 to a table of 1,000,000 rows: Steward (migration 0002, which rebuilds
#      the index itself, then Steward's rank-1 integrity-check, foreign_key_check before
#      and after, quick_check before COMMIT) vs the same SQL in sqlite3, in one
#      transaction: the migration, the same checks.
# Prints wall times (best of RUNS) and the ratios. Targets: 1. within 1.1x; 2. within
# 1.05x (issue 14).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
ROWS=${ROWS:-1000000}
. bench/common.sh
work=bench/work/migrate
rm -rf "$work"
mkdir -p "$work/set"
echo steward > "$work/set/.steward-dialect"  # sqlx reads these names too: declared Steward's own


# --- 1. 200 generated migrations --------------------------------------------------
for i in $(seq 1 200); do
    file=$(printf "%s/set/%04d_table_%d.sql" "$work" "$i" "$i")
    cat > "$file" <<SQL
CREATE TABLE item_$i (id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount REAL, parent INTEGER);
CREATE INDEX item_${i}_name ON item_$i(name);
INSERT INTO item_$i (name, amount, parent)
  WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000)
  SELECT printf('item %d of $i', x), x * 0.5, x / 10 FROM n;
UPDATE item_$i SET amount = amount * 2 WHERE id % 3 = 0;
SQL
done
{
    echo "BEGIN IMMEDIATE;"
    for file in "$work"/set/*.sql; do
        cat "$file"
        version=$(basename "$file" | sed 's/_.*//; s/^0*//')
        echo "PRAGMA user_version = $version;"
    done
    echo "COMMIT;"
} > "$work/all.sql"

peer_times=(); steward_times=()
for run in $(seq 1 "$RUNS"); do
    rm -f "$work/peer.db" "$work/steward.db"
    t0=$(now); sqlite3 -bail "$work/peer.db" < "$work/all.sql"; t1=$(now)
    peer_times+=("$(elapsed "$t0" "$t1")")
    t0=$(now); "$steward" migrate --create --quiet --db "$work/steward.db" --migrations "$work/set" > /dev/null; t1=$(now)
    steward_times+=("$(elapsed "$t0" "$t1")")
done
peer=$(printf "%s\n" "${peer_times[@]}" | best)
mine=$(printf "%s\n" "${steward_times[@]}" | best)
[ "$(sqlite3 "$work/steward.db" 'PRAGMA user_version')" = 200 ] || { echo "steward did not reach version 200" >&2; exit 1; }
echo "200 migrations:   sqlite3 ${peer}s   steward ${mine}s   ratio $(ratio "$mine" "$peer")"

# --- 2. FTS5 over 1,000,000 existing rows -------------------------------------------
mkdir -p "$work/fts"
echo steward > "$work/fts/.steward-dialect"  # sqlx reads these names too: declared Steward's own
cp migrations/0001_create_ticket.sql migrations/0002_ticket_search.sql "$work/fts/"
rm -f "$work/base.db"
"$steward" migrate --create --quiet --db "$work/base.db" --migrations "$work/fts" --to 1 > /dev/null
sqlite3 -bail "$work/base.db" "
  INSERT INTO ticket (title, body, status)
  WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < $ROWS)
  SELECT printf('Ticket %d: printer %d on floor %d is jammed', x, x % 977, x % 13),
         printf('Customer %d reports error %d after the update to version %d.%d', x % 5003, x % 211, x % 7, x % 31),
         'open' FROM n;"
echo "base database: $(du -h "$work/base.db" | cut -f1), $ROWS rows" >&2

# Steward's default checks (issue 9 put the last two in): foreign_key_check before and
# after (violations are compared), FTS5's rank-1 check of the rebuilt table, and
# quick_check before COMMIT.
{
    echo "BEGIN IMMEDIATE;"
    echo "PRAGMA foreign_key_check;"
    cat migrations/0002_ticket_search.sql
    echo "PRAGMA user_version = 2;"
    echo "INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1);"
    echo "PRAGMA foreign_key_check;"
    echo "PRAGMA quick_check;"
    echo "COMMIT;"
} > "$work/fts.sql"

peer_times=(); steward_times=()
for run in $(seq 1 "$RUNS"); do
    cp "$work/base.db" "$work/peer-fts.db"; cp "$work/base.db" "$work/steward-fts.db"
    t0=$(now); sqlite3 -bail "$work/peer-fts.db" < "$work/fts.sql" > /dev/null; t1=$(now)
    peer_times+=("$(elapsed "$t0" "$t1")")
    t0=$(now); "$steward" migrate --quiet --json --db "$work/steward-fts.db" --migrations "$work/fts" > "$work/fts-report.json"; t1=$(now)
    steward_times+=("$(elapsed "$t0" "$t1")")
done
peer=$(printf "%s\n" "${peer_times[@]}" | best)
mine=$(printf "%s\n" "${steward_times[@]}" | best)
# The migration's own duration holds its 'rebuild'; Steward's check comes on top.
rebuild=$(python3 -c "import json; r = json.load(open('$work/fts-report.json')); print(r['applied'][0]['durationSeconds'])")
check=$(python3 -c "import json; r = json.load(open('$work/fts-report.json')); print(r['ftsRebuilt'][0]['checkSeconds'])")
echo "FTS5 over $ROWS rows, rebuild + checks: sqlite3 ${peer}s (runs: ${peer_times[*]})   steward ${mine}s (runs: ${steward_times[*]})   ratio $(ratio "$mine" "$peer")  (target <= 1.05)"
echo "  steward phases (last run): the migration with its rebuild ${rebuild}s, the rank-1 integrity-check ${check}s"
