#!/bin/sh
# Installs the Debian packages Steward needs to build, test and run its demo, when
# any is missing. Uses sudo when not run as root.
# `install-deps.sh packaging` installs what `make deb` and the packaging acceptance test
# (scripts/package-test.sh) need instead: strip, dpkg-deb and dpkg-shlibdeps, lintian,
# man, and the shells whose completion scripts are checked.
set -eu

case "${1:-}" in
    "") packages="libsqlite3-dev libarchive-dev libssl-dev pkg-config mandoc sqlite3 zstd util-linux age python3" ;;
    packaging) packages="binutils dpkg-dev lintian man-db zsh fish" ;;
    *) echo "Usage: install-deps.sh [packaging]" >&2; exit 64 ;;
esac

missing=""
for package in $packages; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $package" ;;
    esac
done

[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "Error: missing packages:$missing (and no apt-get to install them)" >&2
    exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "Error: missing packages:$missing; run as root or install sudo" >&2
    exit 1
fi

echo "Installing:$missing" >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
