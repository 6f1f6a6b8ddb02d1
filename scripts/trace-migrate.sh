#!/bin/bash
# The files of Sources/ with code executed from argv up to the first ledger write of
# `steward migrate --dialect sqlx` (docs/architecture.md, "Tracing migrate --dialect
# sqlx"): a build instrumented for coverage, stopped by gdb at the prepare of the first
# INSERT INTO _sqlx_migrations, its profile written at that moment. Needs gdb and the
# toolchain's llvm-profdata and llvm-cov.
#   sh scripts/trace-migrate.sh            # builds into .build/trace, then traces
set -e
cd "$(dirname "$0")/.."
SCRATCH=.build/trace
swift build --scratch-path "$SCRATCH" --product steward \
    -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping >/dev/null
BIN=$PWD/$SCRATCH/debug/steward
TOOLS=$(dirname "$(readlink -f "$(command -v swift)")")
W=$(mktemp -d)
mkdir -p $W/m $W/prof
printf 'CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n' > $W/m/20240101000000_notes.sql
printf 'CREATE INDEX note_body ON note(body);\n' > $W/m/20240102000000_index.sql
cat > $W/gdbcmds <<G
set pagination off
set breakpoint pending on
break sqlite3_prepare_v2 if \$_memeq(\$rsi, "INSERT INTO _sqlx_migrations", 28)
commands
silent
call (int)__llvm_profile_write_file()
kill
end
run
G
cd $W && LLVM_PROFILE_FILE=$W/prof/run.profraw gdb -batch -x gdbcmds --args $BIN migrate --dialect sqlx --db app.db --migrations m --create > gdb.out 2>&1 || true
P=$TOOLS
$P/llvm-profdata merge -o t.profdata prof/*.profraw
$P/llvm-cov export -summary-only $BIN -instr-profile t.profdata 2>/dev/null | python3 -c "
import json,sys
d=json.load(sys.stdin)
hit=sorted(f['filename'].split('/Sources/',1)[1] for f in d['data'][0]['files'] if f['summary']['lines']['covered']>0 and '/Sources/' in f['filename'])
print(len(hit),'files in all')
own=[h for h in hit if h.split('/')[0] in ('StewardCLI','StewardCore','StewardBase','StewardChecks','StewardKit','BundleFormat','steward')]
print(len(own),\"of Steward's own modules (StewardCLI, StewardCore, StewardBase, StewardChecks, BundleFormat, steward):\")
for h in own: print('  '+h)
print(len(hit)-len(own),'of the libraries (ArgumentKit, SQLiteKit, ArchiveKit, FileNames):')
for h in hit:
    if h not in own: print('  '+h)
"
rm -rf "$W"
