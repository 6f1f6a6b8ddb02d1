#!/bin/bash
# The FTS5 check alone (issue 33): Steward's parallel check against sqlite3's statement,
# FTS5's rank-1 integrity-check, on the ticket database of bench/make-tickets-db.sh
# (TARGET_MIB, default 1 GiB; its external-content ticket_fts, detail=full).
#
# Steward's side is steward-fts5-bench: the library code verify, restore, backup and
# migrate run (FTS5IntegrityCheck.check with Steward's parallel check), on the database
# and nothing else (no integrity_check, no copy), each worker with its own read-only
# connection. The peer: sqlite3 -bail DB "BEGIN; INSERT INTO ticket_fts(ticket_fts, rank)
# VALUES ('integrity-check', 1); ROLLBACK;".
#
# Paired medians (issue 33, "Measuring"): PAIRS pairs (default 7), the two run back to
# back, alternating which goes first; every pair is printed, and the figure is the median
# of the per-pair ratios. Then the same with each worker count of WORKERS (default
# "1 2"): the scaling table of the design notes. Warm page cache.
# Target: <= 0.6 with the number of cores.
set -euo pipefail
cd "$(dirname "$0")/.."

. bench/common.sh
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product steward-fts5-bench >&2
checker=.build/release/steward-fts5-bench
PAIRS=${PAIRS:-7}
WORKERS=${WORKERS:-"1 2"}
db=$(tickets_db)
echo "database: $(size_mib "$db") MiB, $(sqlite3 "$db" 'SELECT count(*) FROM ticket') rows, $(nproc) cores" >&2
cat "$db" > /dev/null  # warm the page cache for both sides

peer_run() { sqlite3 -bail "$db" "BEGIN; INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1); ROLLBACK;"; }
steward_run() { "$checker" "$db" parallel "$1" | grep -q "passed (digest(workers: $1))" || { echo "the parallel check did not prove ticket_fts" >&2; exit 1; }; }
timed() { local t0 t1; t0=$(now); "$@" > /dev/null; t1=$(now); elapsed "$t0" "$t1"; }

# pairs WORKERS: PAIRS alternating pairs, each printed; then the median ratio.
pairs() {
    local workers=$1 mine=() peer=() first s p
    for pair in $(seq 1 "$PAIRS"); do
        if [ $((pair % 2)) -eq 1 ]; then
            first=steward; s=$(timed steward_run "$workers"); p=$(timed peer_run)
        else
            first=sqlite3; p=$(timed peer_run); s=$(timed steward_run "$workers")
        fi
        mine+=("$s"); peer+=("$p")
        echo "  pair $pair ($first first): steward ${s}s, sqlite3 ${p}s, ratio $(ratio "$s" "$p")"
    done
    paired_ratio "${mine[*]}" "${peer[*]}"
}

echo "FTS5 check alone, $(nproc) workers (the default: the number of cores):"
pairs "$(nproc)"
for w in $WORKERS; do
    [ "$w" = "$(nproc)" ] && continue
    echo "FTS5 check alone, $w worker(s):"
    pairs "$w"
done
