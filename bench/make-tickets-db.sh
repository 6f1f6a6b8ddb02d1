#!/bin/bash
# Makes (or keeps) the benchmark database of bench/backup.sh and bench/restore.sh: about
# TARGET_MIB MiB (default 1024) of tickets, the ticket table of migrations/ with its
# external-content FTS5 index, in rollback-journal mode.
# Usage: bench/make-tickets-db.sh STEWARD DB   (from the repository root)
# Kept between runs: it takes a minute or two to make.
set -euo pipefail

steward=$1
db=$2
TARGET_MIB=${TARGET_MIB:-1024}
work=$(dirname "$db")
size_mib() { python3 -c "import os; print(f'{os.path.getsize(\"$1\") / 1048576:.0f}')"; }

if [ -f "$db" ] && [ "$(size_mib "$db")" -ge $((TARGET_MIB * 9 / 10)) ]; then
    exit 0
fi
rm -f "$db" "$db"-*
echo "generating a ~${TARGET_MIB} MiB database in $db ..." >&2
mkdir -p "$work/set"
cp migrations/0001_create_ticket.sql migrations/0002_ticket_search.sql migrations/.steward-dialect "$work/set/"
"$steward" migrate --create --quiet --db "$db" --migrations "$work/set" --to 1 > /dev/null
# Bodies are cut from varied English text at random offsets, with an identifier in
# each, so that the FTS5 index and zstd see something like real tickets.
words="printer jammed again after the firmware update customer reports paper tray error \
code shown on display while scanning invoices the network share was unreachable since monday \
morning restarted the spooler service no change replaced toner cartridge issue persists \
warranty expires next month please schedule technician visit café crème spilled on keyboard \
laptop does not boot blue screen memory management driver rollback helped temporarily \
password reset requested account locked after three attempts two factor token lost vpn \
disconnects every few minutes on hotel wifi outlook search index rebuilding slow calendar \
invitations missing attendees shared mailbox permissions changed by mistake monitor flickers \
docking station usb ports dead after sleep battery swollen replaced under warranty"
rows=$(python3 -c "print(int($TARGET_MIB * 1048576 / 780))")
sqlite3 -bail "$db" "
  PRAGMA journal_mode = off; PRAGMA synchronous = off;
  INSERT INTO ticket (title, body, status, created_at)
  WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < $rows),
       t(text) AS (SELECT '$words $words')
  SELECT printf('Ticket %d: printer %d on floor %d is jammed', x, x % 977, x % 13),
         printf('Customer %d reports error %d (serial %s). %s', x % 50021, x % 211, hex(randomblob(6)),
                substr(text, 1 + abs(random()) % 900, 150 + abs(random()) % 250)),
         CASE x % 3 WHEN 0 THEN 'open' WHEN 1 THEN 'pending' ELSE 'closed' END,
         strftime('%Y-%m-%dT%H:%M:%SZ', 1700000000 + x * 37, 'unixepoch')
  FROM n, t;"
"$steward" migrate --quiet --db "$db" --migrations "$work/set" > /dev/null
sqlite3 "$db" "PRAGMA journal_mode = delete" > /dev/null
