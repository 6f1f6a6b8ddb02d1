#!/bin/bash
# Benchmark for `steward restore` (issue 14) against the peer doing the same work durably,
# measured in the same run:
#   tar --zstd -xf BUNDLE; sqlite3 DB "PRAGMA integrity_check; PRAGMA foreign_key_check"
#   and FTS5's integrity-check (rank 1), which `steward restore` runs by default;
#   sync -f DB
# on the bundle of the ticket database of bench/make-tickets-db.sh (TARGET_MIB, default
# 1 GiB), made with `steward backup`. Steward does more than the peer (hashes, header,
# size and manifest checks, content digests, a read-write probe on the restored file,
# fsync before publishing); it hashes while extracting, and overlaps its checks on two
# cores. RUNS (default 7) pairs, alternating which side goes first, each pair printed; the
# paired median is the figure (issue 33; COMPONENTS=0 leaves out the components timed
# alone). Prints wall times (best of RUNS, warm cache, each side after a `sync`), the
# ratio, Steward's phases and peak memory. Targets: the paired median <= 0.7 (issue 33; issue 14: 0.8); peak RSS <= 64 MiB.
# Then the limit of two cores from the mandatory components timed alone (decompression,
# SHA-256, integrity, foreign-key and FTS5 checks, content digests, fsync;
# bench/common.sh, `limit`) and Steward / limit.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-7}
. bench/common.sh
work=bench/work/restore
mkdir -p "$work"
db=$(tickets_db)
bundle="$work/tickets-${TARGET_MIB:-1024}.tar.zst"

# --- The bundle: kept between runs -------------------------------------------------
if [ ! -f "$bundle" ] || [ "$db" -nt "$bundle" ]; then
    rm -f "$bundle"
    echo "bundling $db ..." >&2
    "$steward" backup --quiet --db "$db" --out "$work" --name "$(basename "$bundle")" > /dev/null
fi
echo "bundle: $(size_mib "$bundle") MiB holding a $(size_mib "$db") MiB database" >&2
cat "$bundle" > /dev/null  # warm the page cache for both sides

clean() {
    rm -rf "$work/peer" "$work/restored"
    # Write-back of what was just removed or written stays out of the next timing.
    sync
}

payload=$(tar --zstd -tf "$bundle" | grep '^data/')
components="$work/components.txt"; : > "$components"
peer_times=(); steward_times=(); peaks=()
peer_run() {
    local t0 t1 checks
    clean
    mkdir -p "$work/peer"
    t0=$(now)
    tar --zstd -xf "$bundle" -C "$work/peer"
    checks=$(sqlite3 "$work/peer/$payload" "PRAGMA integrity_check; PRAGMA foreign_key_check;
        BEGIN; INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1); ROLLBACK;")
    sync -f "$work/peer/$payload"
    t1=$(now)
    [ "$checks" = "ok" ] || { echo "peer checks failed: $checks" >&2; exit 1; }
    peer_times+=("$(elapsed "$t0" "$t1")")
}
steward_run() {
    local t0 t1
    clean
    t0=$(now)
    /usr/bin/time -f %M -o "$work/peak.txt" \
        "$steward" restore --quiet --json "$bundle" --into "$work/restored" > "$work/report.json"
    t1=$(now)
    steward_times+=("$(elapsed "$t0" "$t1")")
    peaks+=("$(cat "$work/peak.txt")")
}
# Paired (issue 33): the two back to back, alternating which goes first; each pair printed.
for run in $(seq 1 "$RUNS"); do
    if [ $((run % 2)) -eq 1 ]; then first=sqlite3; peer_run; steward_run; else first=steward; steward_run; peer_run; fi
    echo "  pair $run ($first first): steward ${steward_times[-1]}s, peer ${peer_times[-1]}s, ratio $(ratio "${steward_times[-1]}" "${peer_times[-1]}")" >&2
    [ "${COMPONENTS:-1}" = 1 ] || continue

    # The mandatory components alone (the limit below), on the extracted payload.
    clean
    part="$work/peer/$payload"
    mkdir -p "$work/peer"
    component extract "tar --zstd -xf '$bundle' -C '$work/peer'"
    component fsync "sync -f '$part'"
    component sha256 "openssl dgst -sha256 '$part'"
    component integrity "sqlite3 -bail '$part' 'PRAGMA integrity_check;'"
    component foreign_keys "sqlite3 -bail '$part' 'PRAGMA foreign_key_check;'"
    component fts5 "sqlite3 -bail '$part' \"BEGIN; INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1); ROLLBACK;\""
    component digests "'$steward' inspect --digest '$part' --json"
    # The same checks on two cores: FTS5's on one, the others one after another on the other.
    component together_checks "(sqlite3 -bail '$part' \"BEGIN; INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('integrity-check', 1); ROLLBACK;\" > /dev/null) &
        (sqlite3 -bail '$part' 'PRAGMA integrity_check; PRAGMA foreign_key_check;' > /dev/null; '$steward' inspect --digest '$part' --json > /dev/null; sync -f '$part') & wait"
done

peer=$(printf "%s\n" "${peer_times[@]}" | best)
mine=$(printf "%s\n" "${steward_times[@]}" | best)
peak_kib=$(printf "%s\n" "${peaks[@]}" | sort -g | tail -1)
echo "peer (tar --zstd -xf + sqlite3 integrity_check, foreign_key_check, FTS5 check + sync -f): ${peer}s  (runs: ${peer_times[*]})"
echo "steward restore:                                                                ${mine}s  (runs: ${steward_times[*]})"
echo "ratio:                                                                          $(ratio "$mine" "$peer")  (target, paired median below: <= 0.7)"
paired_ratio "${steward_times[*]}" "${peer_times[*]}"
echo "steward peak memory:                                                            $((peak_kib / 1024)) MiB  (target <= 64 MiB)"
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
checks = ", ".join(f"{c['name']} {c['durationSeconds']}s" for c in r["checks"] if c["durationSeconds"] >= 0.01)
print(f"steward phases (last run): extract+hash {r['extractSeconds']}s, checks {r['checkSeconds']}s "
      f"({checks}), total {r['totalSeconds']}s; published {r['published']}")
PY
# Every check reads the extracted file; the hash can run beside the extraction, and the
# write-back beside the checks.
if [ "${COMPONENTS:-1}" = 1 ]; then
    PAIRED="${steward_times[*]}" limit "max(extract, sha256) + max(integrity, foreign_keys, fts5, digests, fsync)" "$mine" \
        "max(extract, sha256) + max(together_checks, integrity + foreign_keys + digests, fts5)"
fi
clean
