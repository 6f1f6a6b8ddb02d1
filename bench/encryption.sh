#!/bin/bash
# What encryption (age, X25519) adds to `steward backup` and `steward restore`, measured
# on the same generated database of about 1 GiB as bench/backup.sh: plain and encrypted
# runs alternate, each after a sync into a fresh directory; best of RUNS, warm cache.
# Also prints the CPU time (user + system) of each, which a loaded machine disturbs less
# than the wall time. Target: encrypted / plain <= 1.10 for both commands.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
TARGET_MIB=${TARGET_MIB:-1024}
. bench/common.sh
work=bench/work/encryption
mkdir -p "$work"
db="$work/tickets.db"

TARGET_MIB=$TARGET_MIB bash bench/make-tickets-db.sh "$steward" "$db"
echo "database: $(size_mib "$db") MiB" >&2
[ -f "$work/key.txt" ] || age-keygen -o "$work/key.txt" 2>/dev/null
recipient=$(age-keygen -y "$work/key.txt")

backup_plain=(); backup_age=(); restore_plain=(); restore_age=()
cpu_backup_plain=(); cpu_backup_age=(); cpu_restore_plain=(); cpu_restore_age=()
cpu() { python3 -c "u, s = open('$1').read().split(); print(f'{float(u) + float(s):.2f}')"; }
for run in $(seq 1 "$RUNS"); do
    for kind in plain age; do
        rm -rf "$work/$kind" && mkdir -p "$work/$kind"
        if [ "$kind" = age ]; then
            keys=(--recipient "$recipient"); name=bundle.tar.zst.age; open=(--identity "$work/key.txt")
        else
            keys=(); name=bundle.tar.zst; open=()
        fi
        sync
        t0=$(now)
        /usr/bin/time -f "%U %S" -o "$work/cpu-backup.txt" \
            "$steward" backup --quiet --db "$db" --out "$work/$kind" --name "$name" "${keys[@]}" > /dev/null
        t1=$(now)
        sync
        t2=$(now)
        /usr/bin/time -f "%U %S" -o "$work/cpu-restore.txt" \
            "$steward" restore --quiet "$work/$kind/$name" --into "$work/$kind/restored" "${open[@]}" > /dev/null
        t3=$(now)
        if [ "$kind" = age ]; then
            backup_age+=("$(elapsed "$t0" "$t1")"); restore_age+=("$(elapsed "$t2" "$t3")")
            cpu_backup_age+=("$(cpu "$work/cpu-backup.txt")"); cpu_restore_age+=("$(cpu "$work/cpu-restore.txt")")
        else
            backup_plain+=("$(elapsed "$t0" "$t1")"); restore_plain+=("$(elapsed "$t2" "$t3")")
            cpu_backup_plain+=("$(cpu "$work/cpu-backup.txt")"); cpu_restore_plain+=("$(cpu "$work/cpu-restore.txt")")
        fi
    done
done

bp=$(printf "%s\n" "${backup_plain[@]}" | best); ba=$(printf "%s\n" "${backup_age[@]}" | best)
rp=$(printf "%s\n" "${restore_plain[@]}" | best); ra=$(printf "%s\n" "${restore_age[@]}" | best)
echo "backup  plain ${bp}s, encrypted ${ba}s: ratio $(ratio "$ba" "$bp") (target <= 1.10)  (runs: ${backup_plain[*]} / ${backup_age[*]})"
echo "restore plain ${rp}s, encrypted ${ra}s: ratio $(ratio "$ra" "$rp") (target <= 1.10)  (runs: ${restore_plain[*]} / ${restore_age[*]})"
cbp=$(printf "%s\n" "${cpu_backup_plain[@]}" | best); cba=$(printf "%s\n" "${cpu_backup_age[@]}" | best)
crp=$(printf "%s\n" "${cpu_restore_plain[@]}" | best); cra=$(printf "%s\n" "${cpu_restore_age[@]}" | best)
echo "CPU time: backup plain ${cbp}s, encrypted ${cba}s (ratio $(ratio "$cba" "$cbp")); restore plain ${crp}s, encrypted ${cra}s (ratio $(ratio "$cra" "$crp"))"
echo "sizes: plain $(size_mib "$work/plain/bundle.tar.zst") MiB, encrypted $(size_mib "$work/age/bundle.tar.zst.age") MiB"
