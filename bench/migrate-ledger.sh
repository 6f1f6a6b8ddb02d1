#!/bin/bash
# Benchmark for `steward migrate` on a set laid out for another runner (issue 10):
# 200 sqlx migrations with 14-digit timestamp versions, each recorded in _sqlx_migrations
# with its SHA-384 checksum. The peer is the sqlite3 CLI running the same SQL, the same
# ledger inserts (checksums precomputed with Python) and the same checks
# (foreign_key_check, quick_check) in one transaction.
# Prints wall times (best of RUNS) and the ratio. Target: Steward within 1.1x.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
. bench/common.sh
work=bench/work/migrate-ledger
rm -rf "$work"
mkdir -p "$work/set"

for i in $(seq 1 200); do
    version=$((20240101000000 + i * 100))
    cat > "$work/set/${version}_table_$i.sql" <<SQL
CREATE TABLE item_$i (id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount REAL, parent INTEGER);
CREATE INDEX item_${i}_name ON item_$i(name);
INSERT INTO item_$i (name, amount, parent)
  WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000)
  SELECT printf('item %d of $i', x), x * 0.5, x / 10 FROM n;
UPDATE item_$i SET amount = amount * 2 WHERE id % 3 = 0;
SQL
done

python3 - "$work" <<'PY'
import hashlib, os, sys
work = sys.argv[1]
names = sorted(os.listdir(f"{work}/set"))
with open(f"{work}/all.sql", "w") as out:
    out.write("BEGIN IMMEDIATE;\n")
    out.write("CREATE TABLE IF NOT EXISTS _sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL, "
              "installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, success BOOLEAN NOT NULL, "
              "checksum BLOB NOT NULL, execution_time BIGINT NOT NULL);\n")
    for count, name in enumerate(names, 1):
        data = open(f"{work}/set/{name}", "rb").read()
        out.write(data.decode())
        version, rest = name.split("_", 1)
        description = rest[:-4].replace("_", " ")
        out.write(f"INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) "
                  f"VALUES ({version}, '{description}', TRUE, x'{hashlib.sha384(data).hexdigest()}', 1000);\n")
        out.write(f"PRAGMA user_version = {count};\n")
    out.write("PRAGMA foreign_key_check;\nPRAGMA quick_check;\nCOMMIT;\n")
PY

peer_times=(); steward_times=()
for run in $(seq 1 "$RUNS"); do
    rm -f "$work/peer.db" "$work/steward.db"
    t0=$(now); sqlite3 -bail "$work/peer.db" < "$work/all.sql" > /dev/null; t1=$(now)
    peer_times+=("$(elapsed "$t0" "$t1")")
    t0=$(now); "$steward" migrate --create --quiet --dialect sqlx --db "$work/steward.db" --migrations "$work/set" > /dev/null; t1=$(now)
    steward_times+=("$(elapsed "$t0" "$t1")")
done
peer=$(printf "%s\n" "${peer_times[@]}" | best)
mine=$(printf "%s\n" "${steward_times[@]}" | best)
[ "$(sqlite3 "$work/steward.db" 'SELECT count(*) FROM _sqlx_migrations')" = 200 ] || { echo "steward did not record 200 rows" >&2; exit 1; }
[ "$(sqlite3 "$work/steward.db" 'SELECT group_concat(hex(checksum)) FROM _sqlx_migrations')" = \
  "$(sqlite3 "$work/peer.db" 'SELECT group_concat(hex(checksum)) FROM _sqlx_migrations')" ] \
    || { echo "checksums differ from Python's" >&2; exit 1; }
echo "200 sqlx migrations with ledger rows:   sqlite3 ${peer}s   steward ${mine}s   ratio $(ratio "$mine" "$peer")"
