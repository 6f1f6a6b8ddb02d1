#!/bin/bash
# Benchmark for `steward restore` against the peer pair measured in the same run:
#   tar --zstd -xf BUNDLE  followed by  sqlite3 DB "PRAGMA integrity_check; PRAGMA foreign_key_check"
#   and FTS5's integrity-check (rank 1), which `steward restore` runs by default
# on the bundle of a generated database of about 1 GiB (bench/backup.sh's database: the
# ticket table of migrations/ with its external-content FTS5 index), made with
# `steward backup`. Steward does more than the pair (hashes, header and manifest checks,
# every table counted, a read-write probe on a copy, fsync before publishing); it hashes
# while extracting instead of reading twice, and overlaps its work on two cores.
# Prints wall times (best of RUNS, warm cache), the ratio, Steward's phases and peak
# memory. Both sides start after a sync, with no output of an earlier run left.
# Target: ratio <= 1.0.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
TARGET_MIB=${TARGET_MIB:-1024}
. bench/common.sh
work=bench/work/restore
mkdir -p "$work"
db="$work/tickets.db"
bundle="$work/tickets.tar.zst"


# --- The database and its bundle: kept between runs --------------------------------
TARGET_MIB=$TARGET_MIB bash bench/make-tickets-db.sh "$steward" "$db"
if [ ! -f "$bundle" ] || [ "$db" -nt "$bundle" ]; then
    rm -f "$bundle"
    echo "bundling $db ..." >&2
    "$steward" backup --quiet --db "$db" --out "$work" --name "$(basename "$bundle")" > /dev/null
fi
echo "bundle: $(size_mib "$bundle") MiB holding a $(size_mib "$db") MiB database" >&2

# --- Runs: the peer pair and Steward, alternating, each into a fresh directory -------
clean() {
    rm -rf "$work/peer" "$work/restored"
    # Write-back of what was just removed or written stays out of the next timing.
    sync
}

peer_times=(); steward_times=(); peaks=()
for run in $(seq 1 "$RUNS"); do
    clean
    mkdir -p "$work/peer"
    t0=$(now)
    tar --zstd -xf "$bundle" -C "$work/peer"
    checks=$(sqlite3 "$work/peer/data/tickets.sqlite" "PRAGMA integrity_check; PRAGMA foreign_key_check;
        BEGIN; INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1); ROLLBACK;")
    t1=$(now)
    [ "$checks" = "ok" ] || { echo "peer checks failed: $checks" >&2; exit 1; }
    peer_times+=("$(elapsed "$t0" "$t1")")

    clean
    t0=$(now)
    /usr/bin/time -f %M -o "$work/peak.txt" \
        "$steward" restore --quiet --json "$bundle" --into "$work/restored" > "$work/report.json"
    t1=$(now)
    steward_times+=("$(elapsed "$t0" "$t1")")
    peaks+=("$(cat "$work/peak.txt")")
done

peer=$(printf "%s\n" "${peer_times[@]}" | best)
mine=$(printf "%s\n" "${steward_times[@]}" | best)
peak_kib=$(printf "%s\n" "${peaks[@]}" | sort -g | tail -1)
echo "peer pair (tar --zstd -xf + sqlite3 integrity_check, foreign_key_check, FTS5 check): ${peer}s  (runs: ${peer_times[*]})"
echo "steward restore:                                                     ${mine}s  (runs: ${steward_times[*]})"
echo "ratio:                                                               $(ratio "$mine" "$peer")  (target <= 1.0)"
echo "steward peak memory:                                                 $((peak_kib / 1024)) MiB"
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
checks = ", ".join(f"{c['name']} {c['durationSeconds']}s" for c in r["checks"] if c["durationSeconds"] >= 0.01)
print(f"steward phases (last run): extract+hash {r['extractSeconds']}s, checks {r['checkSeconds']}s "
      f"({checks}), total {r['totalSeconds']}s; published {r['published']}")
PY
clean
