#!/bin/bash
# Benchmark for `steward backup` against the peer pair measured in the same run:
#   sqlite3 DB ".backup COPY"  followed by  tar --zstd -cf COPY.tar.zst COPY
# on a generated database of about 1 GiB (the ticket table of migrations/ with its
# external-content FTS5 index). Prints wall times (best of RUNS, warm cache), the ratio,
# and Steward's peak memory (/usr/bin/time -f %M). Both sides start after a sync, so
# that neither pays for the other's write-back.
# Targets: ratio <= 0.6, peak memory <= 256 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
TARGET_MIB=${TARGET_MIB:-1024}
. bench/common.sh
work=bench/work/backup
mkdir -p "$work"
db="$work/tickets.db"


# --- The database: kept between runs, it takes a minute to make ---------------------
TARGET_MIB=$TARGET_MIB bash bench/make-tickets-db.sh "$steward" "$db"
echo "database: $(size_mib "$db") MiB, $(sqlite3 "$db" 'SELECT count(*) FROM ticket') tickets, FTS5 index ticket_fts" >&2

# --- Runs: the peer pair and Steward, alternating, each into a fresh directory -------
peer_times=(); steward_times=(); peaks=()
for run in $(seq 1 "$RUNS"); do
    rm -rf "$work/peer" "$work/steward"
    mkdir -p "$work/peer" "$work/steward"

    # Each side starts with no dirty pages of the other waiting to be written back.
    sync
    t0=$(now)
    sqlite3 "$db" ".backup $work/peer/copy.db"
    tar --zstd -cf "$work/peer/copy.tar.zst" -C "$work/peer" copy.db
    t1=$(now)
    peer_times+=("$(elapsed "$t0" "$t1")")

    sync
    t0=$(now)
    /usr/bin/time -f %M -o "$work/peak.txt" \
        "$steward" backup --quiet --json --db "$db" --out "$work/steward" --name bundle.tar.zst > "$work/report.json"
    t1=$(now)
    steward_times+=("$(elapsed "$t0" "$t1")")
    peaks+=("$(cat "$work/peak.txt")")
done

peer=$(printf "%s\n" "${peer_times[@]}" | best)
mine=$(printf "%s\n" "${steward_times[@]}" | best)
peak_kib=$(printf "%s\n" "${peaks[@]}" | sort -g | tail -1)
echo "peer pair (sqlite3 .backup + tar --zstd): ${peer}s  (runs: ${peer_times[*]})"
echo "steward backup:                           ${mine}s  (runs: ${steward_times[*]})"
echo "ratio:                                    $(ratio "$mine" "$peer")  (target <= 0.6)"
echo "steward peak memory:                      $((peak_kib / 1024)) MiB  (target <= 256 MiB)"
echo "sizes: peer $(size_mib "$work/peer/copy.tar.zst") MiB, steward $(size_mib "$work/steward/bundle.tar.zst") MiB"
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s, c, b = r["snapshot"], r["checks"], r["bundle"]
print(f"steward phases (last run): snapshot {s['durationSeconds']}s (source held {s['sourceHeldSeconds']}s, "
      f"{s['restarts']} restarts), checks+hash {c['durationSeconds']}s, bundle phase {b['durationSeconds']}s "
      f"at zstd level {b['compressionLevel']} with {b['threads']} threads, total {r['totalSeconds']}s")
PY
