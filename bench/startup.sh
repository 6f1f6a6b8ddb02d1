#!/bin/bash
# Start-up plus a no-op `migrate` on a current database (issue 14: under 10 ms; it is a
# fleet run's floor per database). N runs (default 100) in a shell loop, timed with
# date +%s%N, of the binary as `make release` builds it (Swift's standard library linked
# in, full RELRO; built into .build/bench-shipped, stripped) and of the plain release
# build the other benchmarks use (shared Swift libraries: about 4 ms more to load).
# Prints the mean and the fastest run, and the same loop around /bin/true; then, when
# `perf` and `strace` are there, the CPU time (task-clock, 50 runs: less sensitive to
# other load than wall time) and the system calls of one no-op migrate.
# Recorded 2026-12-01 under load (bench/README.md, "Start-up and a no-op migrate"):
# no-op migrate task-clock median 10.0 -> 8.0 ms (--version 5.2 ms), 590 -> 330 system
# calls, 89 -> 12 fcntl, no thread. libarchive and libcrypto loaded on first use
# (15:26 UTC, load 9-11): no-op migrate task-clock median 9.2 -> 5.3 ms, --version
# 7.9 -> 3.8 ms, fastest of 100 wall 11.3-13.6 -> 7.3-7.4 ms, 329 -> 207 system calls.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-100}
. bench/common.sh
work=bench/work/startup
rm -rf "$work"
mkdir -p "$work/set"
echo steward > "$work/set/.steward-dialect"  # sqlx reads these names too: declared Steward's own
cp migrations/0001_create_ticket.sql migrations/0002_ticket_search.sql "$work/set/"
"$steward" migrate --create --quiet --db "$work/current.db" --migrations "$work/set" > /dev/null
swift build -c release --static-swift-stdlib --disable-local-rpath --product steward --scratch-path .build/bench-shipped \
    -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now >&2
shipped="$work/steward-shipped"
strip --strip-unneeded --remove-section=.comment --remove-section=.note -o "$shipped" .build/bench-shipped/release/steward

loop() {
    local best=999999999 start end t total=0
    for _ in $(seq 1 "$N"); do
        start=$(date +%s%N)
        "$@" > /dev/null
        end=$(date +%s%N)
        t=$((end - start)); total=$((total + t))
        [ "$t" -lt "$best" ] && best=$t
    done
    python3 -c "print(f'mean {$total / $N / 1e6:.2f} ms, fastest {$best / 1e6:.2f} ms')"
}
echo "shipped build, migrate on a current database ($N runs): $(loop "$shipped" migrate --quiet --db "$work/current.db" --migrations "$work/set")  (target < 10 ms)"
echo "shipped build, --version ($N runs):                      $(loop "$shipped" --version)"
echo "plain release build, migrate on a current database:      $(loop "$steward" migrate --quiet --db "$work/current.db" --migrations "$work/set")"
echo "plain release build, --version:                          $(loop "$steward" --version)"
echo "/bin/true ($N runs, the loop's own cost):                 $(loop /bin/true)"
if command -v perf > /dev/null; then
    for args in "migrate --quiet --db $work/current.db --migrations $work/set" "--version"; do
        # shellcheck disable=SC2086
        echo "shipped build, $args: task-clock $(perf stat -r 50 "$shipped" $args 2>&1 > /dev/null | awk '/task-clock/ {print $1 " ms"}')"
    done
fi
if command -v strace > /dev/null; then
    strace -f -c -o "$work/strace.txt" "$shipped" migrate --quiet --db "$work/current.db" --migrations "$work/set" > /dev/null
    echo "shipped build, no-op migrate: $(awk '$NF == "total" {t = $(NF-2)} $NF == "fcntl" {f = $4} $NF == "clone3" {c = $4}
        END {print t " system calls (fcntl " f + 0 ", clone3 " c + 0 ")"}' "$work/strace.txt")"
fi
[ "$(sqlite3 "$work/current.db" 'PRAGMA user_version')" = 2 ]
