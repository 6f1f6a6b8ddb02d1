# Shared by the benchmark scripts: build Steward in release mode and time commands.
# Sourced with the repository root as the working directory. Every script prints the
# ratio of one run (best of RUNS, default 3, warm cache, each side after a `sync`) and
# Steward's phase breakdown (issue 14).
sh scripts/install-deps.sh
[ -n "${SKIP_BUILD:-}" ] || swift build -c release --product steward >&2
steward=.build/release/steward
RUNS=${RUNS:-3}

now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }
best() { sort -g | head -1; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
size_mib() { python3 -c "import os; print(f'{os.path.getsize(\"$1\") / 1048576:.0f}')"; }
size_bytes() { stat -c %s "$1"; }

# The ticket database of bench/make-tickets-db.sh, TARGET_MIB MiB (default 1024), shared
# by the backup, restore and verify benchmarks and kept between runs.
tickets_db() {
    local db="bench/work/tickets-${TARGET_MIB:-1024}.sqlite"
    TARGET_MIB=${TARGET_MIB:-1024} bash bench/make-tickets-db.sh "$steward" "$db"
    echo "$db"
}

# --- The limit (issue 14's acceptance fallback) --------------------------------------
# Each script also times the components Steward cannot avoid, each alone, in the same
# run (`component NAME 'shell command'`: wall time and CPU time, user + sys, of the
# command and its children), and prints a limit computed from them (`limit`):
#   limit = max(longest chain, total CPU / cores)
# where a chain is the components that must run one after another (the formula each
# script passes, from the best wall time of each component over the runs), and the total
# CPU is the sum of each component's lowest CPU time. Steward's best time / limit is the
# ratio the issue's fallback asks to be within 5% of (docs/design-notes.md, "Performance
# (issue 14)").
component() {
    local name=$1 command=$2 out
    out=$(mktemp)
    /usr/bin/time -f "%e %U %S" -o "$out" bash -c "$command" > /dev/null
    echo "$name $(cat "$out")" >> "$components"
    rm -f "$out"
}

# limit FORMULA STEWARD_SECONDS: FORMULA is a Python expression over component names
# (max(), +), the longest chain.
limit() {
    python3 - "$components" "$1" "$2" "$(nproc)" <<'PY'
import sys
path, formula, mine, cores = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
wall, cpu = {}, {}
for line in open(path):
    name, e, u, s = line.split()
    wall[name] = min(wall.get(name, float("inf")), float(e))
    cpu[name] = min(cpu.get(name, float("inf")), float(u) + float(s))
chain = eval(formula, {"__builtins__": {}, "max": max}, wall)
total = sum(cpu.values())
limit = max(chain, total / cores)
print("components alone (best wall / lowest CPU): " + ", ".join(f"{n} {wall[n]:.2f}s/{cpu[n]:.2f}s" for n in wall))
print(f"limit: {limit:.2f}s = max(longest chain {formula} = {chain:.2f}s, total CPU {total:.2f}s / {cores} cores = {total / cores:.2f}s)")
ratio = mine / limit
print(f"steward / limit: {ratio:.2f}  ({'within' if ratio <= 1.05 else 'NOT within'} 5% of the limit)")
PY
}
