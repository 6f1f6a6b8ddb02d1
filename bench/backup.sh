#!/bin/bash
# Benchmark for `steward backup` (issue 14) against the peer doing the same work durably,
# measured in the same run:
#   sqlite3 DB ".backup COPY"; tar -I 'zstd -1 -T2' -cf COPY.tar.zst COPY (Steward's
#   default level and threads); rm COPY; sync -f COPY.tar.zst
# on the ticket database of bench/make-tickets-db.sh (TARGET_MIB, default 1 GiB, its
# external-content FTS5 index). The peer's intermediate copy is removed before its sync,
# as Steward removes its own: neither writes the copy back to disk. A second peer keeps
# its copy, and its sync -f writes the copy back too (as the issue's first numbers did).
# Prints wall times (best of RUNS, warm cache, each side after a `sync`), the ratio,
# the sizes of both bundles, Steward's phases and peak memory (/usr/bin/time -f %M).
# Targets: ratio <= 0.6; bundle at most 0.1% larger than the peer's; peak RSS <= 64 MiB.
# Then the limit of two cores from the mandatory components timed alone (snapshot,
# integrity and foreign-key checks, content digests, zstd, SHA-256, fsync; bench/common.sh,
# `limit`) and Steward / limit.
set -euo pipefail
cd "$(dirname "$0")/.."

. bench/common.sh
work=bench/work/backup
mkdir -p "$work"
db=$(tickets_db)
echo "database: $(size_mib "$db") MiB, $(sqlite3 "$db" 'SELECT count(*) FROM ticket') tickets, FTS5 index ticket_fts" >&2
cat "$db" > /dev/null  # warm the page cache for both sides
threads=$(nproc)

components="$work/components.txt"; : > "$components"
peer_times=(); kept_times=(); steward_times=(); peaks=()
for run in $(seq 1 "$RUNS"); do
    rm -rf "$work/peer" "$work/steward"
    mkdir -p "$work/peer" "$work/steward"

    # Each side starts with no dirty pages of the other waiting to be written back.
    sync
    t0=$(now)
    sqlite3 "$db" ".backup $work/peer/copy.db"
    tar -I "zstd -1 -T$threads" -cf "$work/peer/copy.tar.zst" -C "$work/peer" copy.db
    rm "$work/peer/copy.db"
    sync -f "$work/peer/copy.tar.zst"
    t1=$(now)
    peer_times+=("$(elapsed "$t0" "$t1")")

    rm -rf "$work/peer"; mkdir -p "$work/peer"
    sync
    t0=$(now)
    sqlite3 "$db" ".backup $work/peer/copy.db"
    tar -I "zstd -1 -T$threads" -cf "$work/peer/copy.tar.zst" -C "$work/peer" copy.db
    sync -f "$work/peer/copy.tar.zst"
    t1=$(now)
    kept_times+=("$(elapsed "$t0" "$t1")")
    rm -f "$work/peer/copy.db"

    sync
    t0=$(now)
    /usr/bin/time -f %M -o "$work/peak.txt" \
        "$steward" backup --quiet --json --db "$db" --out "$work/steward" --name bundle.tar.zst > "$work/report.json"
    t1=$(now)
    steward_times+=("$(elapsed "$t0" "$t1")")
    peaks+=("$(cat "$work/peak.txt")")

    # The mandatory components alone (the limit below), on a snapshot like Steward's.
    copy="$work/component-copy.db"
    rm -f "$copy" "$work/component.zst"
    sync
    # Steward copies a rollback-journal database in the kernel (cp uses copy_file_range).
    component snapshot "cp '$db' '$copy'"
    component integrity "sqlite3 -bail '$copy' 'PRAGMA integrity_check;'"
    component foreign_keys "sqlite3 -bail '$copy' 'PRAGMA foreign_key_check;'"
    component digests "'$steward' inspect --digest '$copy' --json"
    component zstd "zstd -q -1 -T$threads -o '$work/component.zst' '$copy'"
    component sha256 "openssl dgst -sha256 '$copy'"
    component fsync "sync -f '$work/component.zst'"
    rm -f "$work/component.zst"; sync
    # The same work on two cores, after the copy: the checks and digests one after
    # another beside compression (its threads) and the hash, then the bundle's write-back.
    component together_bundle "(sqlite3 -bail '$copy' 'PRAGMA integrity_check; PRAGMA foreign_key_check;' > /dev/null; '$steward' inspect --digest '$copy' --json > /dev/null) &
        (zstd -q -1 -T$threads -o '$work/component.zst' '$copy' && sync -f '$work/component.zst') & (openssl dgst -sha256 '$copy' > /dev/null) & wait"
    rm -f "$copy" "$work/component.zst"
done

peer=$(printf "%s\n" "${peer_times[@]}" | best)
mine=$(printf "%s\n" "${steward_times[@]}" | best)
kept=$(printf "%s\n" "${kept_times[@]}" | best)
peak_kib=$(printf "%s\n" "${peaks[@]}" | sort -g | tail -1)
peer_size=$(size_bytes "$work/peer/copy.tar.zst")
my_size=$(size_bytes "$work/steward/bundle.tar.zst")
echo "peer (sqlite3 .backup + tar -I 'zstd -1 -T$threads' + sync -f): ${peer}s  (runs: ${peer_times[*]})"
echo "steward backup:                                         ${mine}s  (runs: ${steward_times[*]})"
echo "ratio:                                                  $(ratio "$mine" "$peer")  (target <= 0.6)"
paired_ratio "${steward_times[*]}" "${peer_times[*]}"
echo "peer keeping its copy (its sync -f writes it back too):  ${kept}s  (runs: ${kept_times[*]}); ratio $(ratio "$mine" "$kept")"
echo "bundle size: steward $my_size bytes, peer $peer_size bytes, $(python3 -c "print(f'{($my_size / $peer_size - 1) * 100:+.3f}')")%  (target <= +0.1%)"
echo "steward peak memory:                                    $((peak_kib / 1024)) MiB  (target <= 64 MiB)"
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s, c, b = r["manifest"]["snapshot"], r["manifest"]["checks"], r["bundle"]
print(f"steward phases (last run): snapshot {s['durationSeconds']}s (source held {s['sourceHeldSeconds']}s, "
      f"{s['restarts']} restarts); checks, hash, digests and compression side by side {c['durationSeconds']}s "
      f"(checks); bundle phase {b['durationSeconds']}s in all, zstd level {b['compressionLevel']} with {b['threads']} threads; "
      f"total {r['totalSeconds']}s")
PY
# The checks and digests read the finished snapshot, so they come after it; compression
# and the SHA-256 follow the kernel copy as it is written (they cannot end before it), and
# the compressed bundle is synced once written.
PAIRED="${steward_times[*]}" limit "max(snapshot + max(integrity, foreign_keys, digests), max(snapshot, zstd, sha256) + fsync)" "$mine" \
    "snapshot + max(together_bundle, integrity + foreign_keys + digests, zstd + fsync, sha256)"
