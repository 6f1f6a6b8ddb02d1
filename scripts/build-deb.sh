#!/bin/sh
# `make deb`: build-deb.sh VERSION OUTDIR
# Builds OUTDIR/steward_VERSION_ARCH.deb with dpkg-deb from `make install` into a staging
# root with Debian's paths, the copyright file and changelog from packaging/debian/, and
# Depends worked out by dpkg-shlibdeps from what the binary actually links.
set -eu
cd "$(dirname "$0")/.."
version=$1
outdir=$2
make=${MAKE:-make}
arch=$(dpkg --print-architecture)

fail() {
    echo "Error: $*" >&2
    exit 1
}

# The changelog is written by hand per release; the version comes from StewardVersion.swift.
newest=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
[ "$newest" = "$version" ] || fail "packaging/debian/changelog's newest entry is $newest but the version is $version (Sources/StewardCore/StewardVersion.swift): add an entry for $version"

mkdir -p .build
stage=$(mktemp -d .build/deb.XXXXXX)
trap 'rm -rf "$stage"' EXIT INT TERM
# dpkg-shlibdeps wants a source tree with the package staged in debian/PACKAGE.
root=$stage/source/debian/steward
mkdir -p "$root"
printf 'Source: steward\n\nPackage: steward\nArchitecture: any\n' > "$stage/source/debian/control"

"$make" --no-print-directory install DESTDIR="$PWD/$root" PREFIX=/usr \
    ZSHCOMPDIR=/usr/share/zsh/vendor-completions >&2

doc=$root/usr/share/doc/steward
install -d "$doc"
install -m 0644 packaging/debian/copyright "$doc/copyright"
# A native package (no Debian revision): its changelog is changelog.gz.
gzip -9n < packaging/debian/changelog > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

depends=$(cd "$stage/source" && dpkg-shlibdeps -O -edebian/steward/usr/bin/steward | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || fail "dpkg-shlibdeps found no dependencies for usr/bin/steward"

# libarchive and libcrypto are loaded with dlopen on first use (issue 14), so the binary
# does not name them and dpkg-shlibdeps cannot see them. Each is added the way
# dpkg-shlibdeps would add it: its package, at the newest version that the package's
# symbols file gives among the functions the forwarders resolve.
dlopened() { # PACKAGE FORWARDERS.c
    names=$(sed -n 's/^    "\([A-Za-z0-9_]*\)",$/\1/p' "$2")
    [ -n "$names" ] || fail "no function names in $2"
    symbols=$(dpkg-query --control-show "$1:$arch" symbols) || fail "$1 has no symbols file"
    versions=$(printf '%s\n' "$symbols" | awk -v names="$names" '
        BEGIN { n = split(names, list, "\n"); for (i = 1; i <= n; i++) wanted[list[i]] = 1 }
        /^ / { split($1, symbol, "@"); if (symbol[1] in wanted) { print $2; found[symbol[1]] = 1 } }
        END { for (name in wanted) if (!(name in found)) { print "missing " name > "/dev/stderr"; exit 1 } }') \
        || fail "the symbols file of $1 lacks a function that $2 resolves"
    echo "$1 (>= $(printf '%s\n' "$versions" | sort -V | tail -n 1))"
}
archive=$(dlopened libarchive13 Sources/CArchive/CArchive.c)
crypto=$(dlopened libssl3 Sources/CCrypto/CCrypto.c)
depends=$(printf '%s\n' "$depends" "$archive" "$crypto" | tr ',' '\n' | sed 's/^ *//' | grep -v '^$' |
    LC_ALL=C sort -u | paste -sd, - | sed 's/,/, /g')

find "$root" -type d -exec chmod 0755 {} +
size=$(du -s -k --apparent-size "$root" | cut -f1)
install -d "$root/DEBIAN"
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@INSTALLED_SIZE@/$size/" \
    -e "s/@DEPENDS@/$depends/" packaging/debian/control.in > "$root/DEBIAN/control"
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

deb=$outdir/steward_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb.tmp" >&2
mv "$deb.tmp" "$deb"
echo "$deb"
