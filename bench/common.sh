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
