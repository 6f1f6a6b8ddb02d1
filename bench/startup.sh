#!/bin/bash
# Start-up plus a no-op `migrate` on a current database (issue 14: under 10 ms; it is a
# fleet run's floor per database). N runs (default 100) of the release build in a shell
# loop, timed with date +%s%N; prints the mean and the fastest run, and the same loop
# around /bin/true for the loop's own cost.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-100}
. bench/common.sh
work=bench/work/startup
rm -rf "$work"
mkdir -p "$work/set"
cp migrations/0001_create_ticket.sql migrations/0002_ticket_search.sql "$work/set/"
"$steward" migrate --create --quiet --db "$work/current.db" --migrations "$work/set" > /dev/null

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
echo "steward migrate on a current database ($N runs): $(loop "$steward" migrate --quiet --db "$work/current.db" --migrations "$work/set")  (target < 10 ms)"
echo "steward --version ($N runs):                      $(loop "$steward" --version)"
echo "/bin/true ($N runs, the loop's own cost):          $(loop /bin/true)"
[ "$(sqlite3 "$work/current.db" 'PRAGMA user_version')" = 2 ]
