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
# One value per iteration, under LABEL, and their median.
# Usage: per_iteration LABEL "VALUES".
per_iteration() {
    python3 - "$1" "$2" <<'PY'
import sys, statistics
values = [float(v) for v in sys.argv[2].split()]
print(f"{sys.argv[1]}: " + " ".join(f"{v:.2f}" for v in values) + f"; median {statistics.median(values):.2f}")
PY
}
# Steward's time over the peer's in each iteration (they ran back to back) and the
# median: on a host whose speed drifts over minutes, the bests of the two sides can come
# from different minutes. Usage: paired_ratio "STEWARD TIMES" "PEER TIMES".
paired_ratio() {
    local ratios
    ratios=$(python3 -c "import sys; print(' '.join(str(m / p) for m, p in zip(map(float, sys.argv[1].split()), map(float, sys.argv[2].split()))))" "$1" "$2")
    per_iteration "paired per iteration, steward / peer" "$ratios"
}
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
# ratio the issue's fallback asks to be within 5% of (bench/README.md, "Reading the
# output").
component() {
    local name=$1 command=$2 out
    out=$(mktemp)
    /usr/bin/time -f "%e %U %S" -o "$out" bash -c "$command" > /dev/null
    echo "$name $(cat "$out")" >> "$components"
    rm -f "$out"
}

# Components named together_* are the others run side by side, one lane per core, as
# two cores must run them (`component together_x "(A; B) & (C) & wait"`): the formula
# over components timed alone cannot see what running them at once costs (the kernel's
# write-back of the file just written, done by its own threads and counted in no
# component's CPU, page-cache misses, scheduling). They are left out of the total CPU.
#
# limit FORMULA STEWARD_SECONDS [TOGETHER_FORMULA]: FORMULA is a Python expression over
# component names (max(), +), the longest chain; TOGETHER_FORMULA the same chain with the
# side-by-side components, which gives the measured limit that the verdict is about.
#
# With PAIRED set to Steward's time of each iteration (space-separated, in order), also
# prints each iteration's Steward time over the limit from that iteration's components
# alone and their median: both sides then ran within a minute of each other, which the
# bests above, taken minutes apart on a machine whose speed drifts, are not.
limit() {
    python3 - "$components" "$1" "$2" "$(nproc)" "${3:-}" "${PAIRED:-}" <<'PY'
import sys, statistics
path, formula, mine, cores, together = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
paired = [float(t) for t in sys.argv[6].split()]
wall, cpu = {}, {}
for line in open(path):
    name, e, u, s = line.split()
    wall[name] = min(wall.get(name, float("inf")), float(e))
    cpu[name] = min(cpu.get(name, float("inf")), float(u) + float(s))
alone = {n: v for n, v in wall.items() if not n.startswith("together")}
chain = eval(formula, {"__builtins__": {}, "max": max}, wall)
total = sum(v for n, v in cpu.items() if not n.startswith("together"))
limit = max(chain, total / cores)
print("components alone (best wall / lowest CPU): " + ", ".join(f"{n} {wall[n]:.2f}s/{cpu[n]:.2f}s" for n in alone))
print(f"limit, components alone: {limit:.2f}s = max(longest chain {formula} = {chain:.2f}s, total CPU {total:.2f}s / {cores} cores = {total / cores:.2f}s)")
print(f"steward / limit of components alone: {mine / limit:.2f}")
if together:
    side = {n: v for n, v in wall.items() if n.startswith("together")}
    print("components side by side (best wall / lowest CPU): " + ", ".join(f"{n} {wall[n]:.2f}s/{cpu[n]:.2f}s" for n in side))
    measured = max(eval(together, {"__builtins__": {}, "max": max}, wall), total / cores)
    print(f"limit, measured side by side: {measured:.2f}s = max({together}, total CPU / {cores} cores)")
    limit = measured
ratio = mine / limit
print(f"steward / limit: {ratio:.2f}  ({'within' if ratio <= 1.05 else 'NOT within'} 5% of the limit)")
if paired:
    rounds = []
    for line in open(path):
        name, e, u, s = line.split()
        seen = sum(1 for r in rounds if name in r)
        if seen == len(rounds):
            rounds.append({})
        rounds[seen][name] = (float(e), float(u) + float(s))
    def bound(walls, cpus, expression):
        total = sum(v for n, v in cpus.items() if not n.startswith("together"))
        return max(eval(expression, {"__builtins__": {}, "max": max}, walls), total / cores)
    pairs = {"alone": [], "side": []}
    for t, r in zip(paired, rounds):
        walls = {n: v[0] for n, v in r.items()}
        cpus = {n: v[1] for n, v in r.items()}
        pairs["alone"].append(t / bound(walls, cpus, formula))
        if together:
            pairs["side"].append(t / bound(walls, cpus, together))
    for kind, values in pairs.items():
        if values:
            print(f"paired per iteration, steward / limit {kind}: " + " ".join(f"{v:.2f}" for v in values)
                  + f"; median {statistics.median(values):.2f}")
PY
}
