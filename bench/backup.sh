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

size_mib() { python3 -c "import os; print(f'{os.path.getsize(\"$1\") / 1048576:.0f}')"; }

# --- The database: kept between runs, it takes a minute to make ---------------------
if [ ! -f "$db" ] || [ "$(size_mib "$db")" -lt $((TARGET_MIB * 9 / 10)) ]; then
    rm -f "$db" "$db"-*
    echo "generating a ~${TARGET_MIB} MiB database in $db ..." >&2
    mkdir -p "$work/set"
    cp migrations/0001_create_ticket.sql migrations/0002_ticket_search.sql "$work/set/"
    "$steward" migrate --create --quiet --db "$db" --migrations "$work/set" --to 1 > /dev/null
    # Bodies are cut from varied English text at random offsets, with an identifier in
    # each, so that the FTS5 index and zstd see something like real tickets.
    words="printer jammed again after the firmware update customer reports paper tray error \
code shown on display while scanning invoices the network share was unreachable since monday \
morning restarted the spooler service no change replaced toner cartridge issue persists \
warranty expires next month please schedule technician visit café crème spilled on keyboard \
laptop does not boot blue screen memory management driver rollback helped temporarily \
password reset requested account locked after three attempts two factor token lost vpn \
disconnects every few minutes on hotel wifi outlook search index rebuilding slow calendar \
invitations missing attendees shared mailbox permissions changed by mistake monitor flickers \
docking station usb ports dead after sleep battery swollen replaced under warranty"
    rows=$(python3 -c "print(int($TARGET_MIB * 1048576 / 780))")
    sqlite3 -bail "$db" "
      PRAGMA journal_mode = off; PRAGMA synchronous = off;
      INSERT INTO ticket (title, body, status, created_at)
      WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < $rows),
           t(text) AS (SELECT '$words $words')
      SELECT printf('Ticket %d: printer %d on floor %d is jammed', x, x % 977, x % 13),
             printf('Customer %d reports error %d (serial %s). %s', x % 50021, x % 211, hex(randomblob(6)),
                    substr(text, 1 + abs(random()) % 900, 150 + abs(random()) % 250)),
             CASE x % 3 WHEN 0 THEN 'open' WHEN 1 THEN 'pending' ELSE 'closed' END,
             strftime('%Y-%m-%dT%H:%M:%SZ', 1700000000 + x * 37, 'unixepoch')
      FROM n, t;"
    "$steward" migrate --quiet --db "$db" --migrations "$work/set" > /dev/null
    sqlite3 "$db" "PRAGMA journal_mode = delete" > /dev/null
fi
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
