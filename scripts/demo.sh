#!/bin/sh
# The demo: build the example ticket database from migrations/ and inspect it.
set -eu
steward=$1
demo=$2

rm -rf "$demo"
mkdir -p "$demo"
db="$demo/tickets.sqlite"

echo "==> Creating $db at version 1 and adding example tickets" >&2
sqlite3 -bail "$db" < migrations/0001_create_ticket.sql
sqlite3 -bail "$db" "PRAGMA user_version = 1"
sqlite3 -bail "$db" < demo/tickets-seed.sql

echo "==> Adding search (migration 0002) to the table that already has rows" >&2
sqlite3 -bail "$db" < migrations/0002_ticket_search.sql
sqlite3 -bail "$db" "INSERT INTO ticket_fts(ticket_fts) VALUES ('rebuild'); PRAGMA user_version = 2"

echo "==> steward inspect $db" >&2
"$steward" inspect "$db"
