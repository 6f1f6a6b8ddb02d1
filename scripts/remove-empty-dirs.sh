#!/bin/sh
# `make uninstall` helper: remove-empty-dirs.sh DESTDIR FILE...
# Under a staging DESTDIR every directory on the way to an installed file was made by the
# install, so those left empty are removed, up to DESTDIR itself (which stays). Without
# a DESTDIR nothing is removed: /usr/local/bin and friends belong to the system.
set -eu
destdir=$1
shift
[ -n "$destdir" ] || exit 0
[ -d "$destdir" ] || exit 0
top=$(cd "$destdir" && pwd -P)

for file in "$@"; do
    dir=$(dirname "$file")
    while [ -d "$dir" ]; do
        dir=$(cd "$dir" && pwd -P)
        case "$dir" in
            "$top"/*) ;;
            *) break ;;
        esac
        rmdir "$dir" 2>/dev/null || break
        dir=$(dirname "$dir")
    done
done
