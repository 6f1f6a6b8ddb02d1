#!/bin/sh
# The demo: upgrade the example ticket database with `steward migrate`, prove it with
# `steward verify` and its search contract, inspect it, back it up into a bundle with
# `steward backup`, and bring the bundle back with `steward restore`. Then adopt a
# database that another runner (dbmate) built, keeping its ledger.
set -eu
steward=$1
demo=$2

rm -rf "$demo"
mkdir -p "$demo"
db="$demo/tickets.sqlite"

echo "==> steward migrate --create --to 1: a ticket table, as a client had it before search" >&2
"$steward" migrate --db "$db" --migrations migrations --create --to 1
sqlite3 -bail "$db" < demo/tickets-seed.sql
echo "    added $(sqlite3 "$db" 'SELECT count(*) FROM ticket') example tickets" >&2

echo >&2
echo "==> steward migrate --status" >&2
"$steward" migrate --db "$db" --migrations migrations --status

echo >&2
echo "==> steward lint: the pending migration on a copy of this database, for SQLite 3.34.1 (Debian 11), with the plan contract" >&2
"$steward" lint --migrations migrations --sample "$db" --min-sqlite 3.34.1 --plans migrations/ticket.plans.json --quiet

echo >&2
echo "==> steward migrate: adds search to the table that already has rows, rebuilds and checks it" >&2
"$steward" migrate --db "$db" --migrations migrations --plans migrations/ticket.plans.json

echo >&2
echo "==> search for 'cafe' finds the existing ticket 'Café …' (ids):" >&2
sqlite3 "$db" "SELECT rowid FROM ticket_fts WHERE ticket_fts MATCH 'cafe' ORDER BY rank, rowid" >&2

echo >&2
echo "==> steward verify: integrity, foreign keys, FTS5 sync and triggers, version, search contract" >&2
handover="$demo/handover"
mkdir -p "$handover"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
"$steward" verify --db "$db" --migrations migrations --contract migrations/ticket-search.contract.json \
    --assert demo/handover-assertions.sql --quiet --source-commit "$commit" \
    --report "$handover/verify-report.json" --junit "$handover/verify.junit.xml" --summary "$handover/summary.md"
echo "    (handover folder $handover: summary.md for people, verify.junit.xml for CI, verify-report.json)" >&2

echo >&2
echo "==> steward inspect $db" >&2
"$steward" inspect "$db"

echo >&2
echo "==> steward backup: a pinned snapshot of $db, checked, into a bundle in $demo/bundles" >&2
mkdir -p "$demo/bundles"
"$steward" backup --db "$db" --out "$demo/bundles"

echo >&2
echo "==> steward restore: the bundle, checked entry by entry, into $demo/restored, proven before it appears" >&2
bundle=$(ls "$demo"/bundles/*.tar.zst | head -n 1)
"$steward" restore "$bundle" --into "$demo/restored" --junit "$handover/restore.junit.xml" --summary "$handover/restore-summary.md"
echo "    (restore's record added to the handover folder: restore.junit.xml, restore-summary.md)" >&2

echo >&2
echo "==> a database built by dbmate: two of three migrations applied, recorded in schema_migrations" >&2
adopted="$demo/customers.sqlite"
held="$demo/held-back"
mkdir -p "$held"
cp demo/dbmate-migrations/*.sql "$held/"
rm "$held"/20240320080000_unique_email.sql
if command -v dbmate >/dev/null 2>&1; then
    dbmate --url "sqlite:$adopted" --migrations-dir "$held" --no-dump-schema up >&2
else
    # What dbmate does, for machines without it: the up parts, and its ledger rows.
    sqlite3 -bail "$adopted" "
      CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
      ALTER TABLE customer ADD COLUMN email TEXT;
      create table if not exists \"schema_migrations\" (version varchar(128) primary key);
      insert into \"schema_migrations\" (version) values ('20240105093000'), ('20240212141500');"
fi
echo "    user_version $(sqlite3 "$adopted" 'PRAGMA user_version'); schema_migrations: $(sqlite3 "$adopted" "SELECT group_concat(version, ', ') FROM schema_migrations")" >&2

echo >&2
echo "==> steward migrate on it: dbmate's layout detected, only up parts run, its ledger kept" >&2
"$steward" migrate --db "$adopted" --migrations demo/dbmate-migrations
echo "    schema_migrations now: $(sqlite3 "$adopted" "SELECT group_concat(version, ', ') FROM schema_migrations")" >&2
if command -v dbmate >/dev/null 2>&1; then
    echo "==> dbmate status: the application's own runner finds nothing to do" >&2
    dbmate --url "sqlite:$adopted" --migrations-dir demo/dbmate-migrations --no-dump-schema status --exit-code >&2
fi
