# Shared by the benchmark scripts: build Steward in release mode and time commands.
# Sourced with the repository root as the working directory.
sh scripts/install-deps.sh
swift build -c release --product steward >&2
steward=.build/release/steward

now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }
best() { sort -g | head -1; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
size_mib() { python3 -c "import os; print(f'{os.path.getsize(\"$1\") / 1048576:.0f}')"; }
