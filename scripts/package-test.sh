#!/bin/sh
# Acceptance test of the shipped Steward, run by `make test` after the Swift tests:
# builds the Debian package, checks it with lintian and against what the binary links,
# unpacks it and runs the example job with the unpacked binary where no Swift toolchain
# can be reached, reads every page, checks the completion scripts in bash, zsh and fish,
# and checks that `make uninstall` undoes `make install`. Prints PASS/FAIL per check, a
# summary, and measurements; exits 1 when any check failed.
set -u
cd "$(dirname "$0")/.." || exit 1
repo=$(pwd)
make=${MAKE:-make}

work=$(mktemp -d "${TMPDIR:-/tmp}/steward-package-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
failures=""

pass() {
    passed=$((passed + 1))
    echo "PASS: $1"
}

fail() {
    failed=$((failed + 1))
    failures="$failures
  - $1"
    echo "FAIL: $1"
}

# check NAME COMMAND...: runs COMMAND, and on failure shows the end of its output.
check() {
    name=$1
    shift
    if "$@" > "$work/check.log" 2>&1; then
        pass "$name"
    else
        fail "$name"
        tail -n 25 "$work/check.log" | sed 's/^/    | /'
    fi
}

summary() {
    echo
    echo "package-test: $passed passed, $failed failed"
    if [ "$failed" -gt 0 ]; then
        printf 'Failed:%s\n' "$failures"
        echo "package-test: FAIL"
        exit 1
    fi
    echo "package-test: PASS"
    exit 0
}

now_ms() {
    echo $(( $(date +%s%N) / 1000000 ))
}

# MARK: - Build the package

version=$(sed -n 's/^ *public static let current = "\([^"]*\)"$/\1/p' Sources/StewardCore/StewardVersion.swift)
arch=$(dpkg --print-architecture)
deb="steward_${version}_${arch}.deb"
echo "==> make deb (release build with the static Swift standard library)"
start=$(now_ms)
if "$make" --no-print-directory deb > "$work/deb.log" 2>&1 && [ -f "$deb" ]; then
    pass "make deb builds $deb"
else
    fail "make deb builds $deb"
    tail -n 40 "$work/deb.log" | sed 's/^/    | /'
    summary
fi
build_ms=$(( $(now_ms) - start ))

echo "==> the package"
check "lintian reports no errors" lintian --fail-on error "$deb"
lintian "$deb" 2>/dev/null | sed 's/^/    lintian: /'

field() {
    dpkg-deb -f "$deb" "$1"
}
check "the package's Version is StewardVersion.current ($version)" test "$(field Version)" = "$version"
check "the package's Architecture is $arch" test "$(field Architecture)" = "$arch"

root=$work/root
check "dpkg-deb -x unpacks it" dpkg-deb -x "$deb" "$root"
steward=$root/usr/bin/steward

expect_files() {
    status=0
    for path in usr/bin/steward usr/share/doc/steward/copyright usr/share/doc/steward/changelog.gz \
        usr/share/bash-completion/completions/steward usr/share/zsh/vendor-completions/_steward \
        usr/share/fish/vendor_completions.d/steward.fish; do
        [ -f "$root/$path" ] || { echo "missing: /$path"; status=1; }
    done
    for page in man/*.1; do
        [ -f "$root/usr/share/man/man1/$(basename "$page").gz" ] || { echo "missing page: $page"; status=1; }
    done
    return "$status"
}
check "binary, every man page, completions, copyright and changelog are in Debian's paths" expect_files

# Every library the binary asks for must come from a package that Depends names: the
# check that dpkg-shlibdeps' answer is complete. libarchive and libcrypto are not NEEDED
# but loaded with dlopen on first use (build-deb.sh adds them), so they are named here.
depends_cover_needs() {
    depends=$(field Depends)
    echo "Depends: $depends"
    [ -n "$depends" ] || return 1
    names=$(printf '%s\n' "$depends" | tr ',|' '\n\n' | sed 's/(.*//; s/ //g' | sort -u)
    status=0
    for soname in $(readelf -d "$steward" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') libarchive.so.13 libcrypto.so.3; do
        path=$(ldd "$steward" | awk -v so="$soname" '$1 == so && $2 == "=>" { print $3 } $1 ~ so && $2 ~ /^\(/ { print $1 }' | head -n 1)
        [ -n "$path" ] || path=$(/sbin/ldconfig -p | awk -v so="$soname" '$1 == so { print $NF; exit }')
        package=""
        for candidate in "$path" "/usr$path" "${path#/usr}"; do
            package=$(dpkg -S "$candidate" 2>/dev/null | head -n 1 | cut -d: -f1) && [ -n "$package" ] && break
        done
        if [ -z "$package" ]; then
            echo "$soname ($path): no package owns it"
            status=1
        elif printf '%s\n' "$names" | grep -qx "$package"; then
            echo "$soname: $package, in Depends"
        else
            echo "$soname: $package, NOT in Depends"
            status=1
        fi
    done
    return "$status"
}
check "Depends covers every shared library the binary needs (dpkg-shlibdeps)" depends_cover_needs

no_swift_libraries() {
    ldd "$steward"
    ! ldd "$steward" | grep -qi swift || return 1
    ! ldd "$steward" | grep -q "not found" || return 1
    ! readelf -d "$steward" | grep -Eq '\((RPATH|RUNPATH)\)'
}
check "ldd shows no Swift library, none missing, and no run path" no_swift_libraries

# MARK: - The unpacked binary where there is no Swift

# Outside the toolchain's own directory when it is not a system one, that directory is
# hidden altogether (a private mount namespace, when permitted); the environment is
# always emptied, so neither PATH nor LD_LIBRARY_PATH leads to Swift.
toolchain=""
if swift=$(command -v swift 2>/dev/null); then
    toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$swift")")")")
    case "$toolchain" in
        / | /usr | /usr/local) toolchain="" ;;
    esac
fi
hide=""
if [ -n "$toolchain" ] && unshare -m sh -c 'mount -t tmpfs none "$1"' sh "$toolchain" 2>/dev/null; then
    hide=$toolchain
    echo "    (the toolchain at $toolchain is hidden by an empty mount for these runs)"
else
    echo "    (no private mount namespace here: the toolchain is kept out by PATH only)"
fi
mkdir -p "$work/home"

clean() {
    if [ -n "$hide" ]; then
        unshare -m sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' sh "$hide" \
            env -i PATH=/usr/bin:/bin HOME="$work/home" LANG=C.UTF-8 "$@"
    else
        env -i PATH=/usr/bin:/bin HOME="$work/home" LANG=C.UTF-8 "$@"
    fi
}

check "no swift on the clean environment's PATH" clean sh -c '! command -v swift'

expected_version=$version
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    expected_version="$version (commit $(git rev-parse --short=12 HEAD)"
fi
version_matches() {
    output=$(clean "$steward" --version) || return 1
    echo "steward --version: $output"
    case "$output" in
        "$expected_version" | "$expected_version)" | "$expected_version, modified)") return 0 ;;
        *) echo "expected: $expected_version…"; return 1 ;;
    esac
}
check "steward --version says $expected_version…" version_matches

job=$work/job
mkdir -p "$job/bundles"
db=$job/tickets.sqlite
migrate_create() {
    clean "$steward" migrate --db "$db" --migrations "$repo/migrations" --create --to 1 &&
        sqlite3 -bail "$db" < demo/tickets-seed.sql
}
check "migrate --create --to 1, then the example rows" migrate_create
check "migrate: the example migrations" clean "$steward" migrate --db "$db" --migrations "$repo/migrations" --quiet
check "verify: the example contract and assertions" clean "$steward" verify --db "$db" \
    --migrations "$repo/migrations" --contract "$repo/migrations/ticket-search.contract.json" \
    --assert "$repo/demo/handover-assertions.sql" --quiet
check "inspect: the example database" clean "$steward" inspect "$db"
check "backup: the example database into a bundle" clean "$steward" backup --db "$db" --out "$job/bundles" --quiet
bundle=$(ls "$job"/bundles/*.tar.zst 2>/dev/null | head -n 1)
check "restore: the bundle into a new directory" clean "$steward" restore "${bundle:-missing}" --into "$job/restored" --quiet
check "inspect --json: the restored database" clean "$steward" inspect --json "$job/restored/data/tickets.sqlite"

# MARK: - Manual pages

read_page() {
    page=$1
    first=$(zcat "$page" | head -n 1)
    case "$first" in
        *"\"Steward $version\""*) ;;
        *) echo "the .TH line does not carry the version: $first"; return 1 ;;
    esac
    MANWIDTH=80 man --warnings -l "$page" > "$work/page.txt" 2> "$work/page.err" || return 1
    cat "$work/page.err"
    [ ! -s "$work/page.err" ] && grep -q "^NAME" "$work/page.txt"
}
for page in "$root"/usr/share/man/man1/*.1.gz; do
    check "man -l $(basename "$page"): reads without warnings, version $version" read_page "$page"
done

# MARK: - Completions

bash_script=$root/usr/share/bash-completion/completions/steward
zsh_script=$root/usr/share/zsh/vendor-completions/_steward
fish_script=$root/usr/share/fish/vendor_completions.d/steward.fish
check "bash -n accepts the bash completion" bash -n "$bash_script"
check "zsh -n accepts the zsh completion" zsh -n "$zsh_script"
check "fish -n accepts the fish completion" fish -n "$fish_script"

# The subcommands `steward --help` lists, in its order.
subcommands=$("$steward" --help | sed -n '/^SUBCOMMANDS:/,$p' | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p' | tr '\n' ' ' | sed 's/ $//')
echo "    (steward --help lists: $subcommands)"

# complete_bash WORD...: what the bash completion offers for the command line WORD...,
# the last word being the one under the cursor.
complete_bash() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _steward; printf "%s\n" "${COMPREPLY[@]}"' \
        sh "$bash_script" "$@" 2>/dev/null | sort | tr '\n' ' '
}
same_words() {
    got=$(printf '%s\n' $1 | sort | tr '\n' ' ')
    want=$(printf '%s\n' $2 | sort | tr '\n' ' ')
    echo "got: $got"
    echo "want: $want"
    [ -n "$want" ] && [ "$got" = "$want" ]
}
check "bash completion lists the subcommands" same_words "$(complete_bash steward '')" "$subcommands"
check "bash completion lists migrate's options from its help" same_words "$(complete_bash steward migrate --)" \
    "$("$steward" migrate --help | sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p' | tr '\n' ' ')"
mkdir -p "$work/files/a-directory"
touch "$work/files/a-file.sql"
complete_bash_in_files() {
    (cd "$work/files" && complete_bash "$@")
}
check "bash completion offers directories after migrate --migrations" same_words \
    "$(complete_bash_in_files steward migrate --migrations '')" "a-directory"
check "bash completion offers files after verify --assert" same_words \
    "$(complete_bash_in_files steward verify --assert '')" "a-directory a-file.sql"

check "fish completion lists the subcommands" same_words \
    "$(fish -c 'source $argv[1]; complete -C "steward "' "$fish_script" | cut -f1 | tr '\n' ' ')" "$subcommands"

# zsh completes only inside its line editor: drive an interactive zsh in a pseudo-terminal.
zsh_lists_subcommands() {
    mkdir -p "$work/zsh-functions"
    cp "$zsh_script" "$work/zsh-functions/_steward"
    cat > "$work/zsh-complete.zsh" <<'EOF'
zmodload zsh/zpty
zpty completion 'zsh -f -i'
zpty -w completion "PS1='> '; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; LISTMAX=1000; print COMPINIT-DONE"
zpty -r completion line '*COMPINIT-DONE*'
zpty -r completion line '*COMPINIT-DONE*'
zpty -w -n completion $'steward \t'
output=
integer deadline=$(( SECONDS + 15 ))
while (( SECONDS < deadline )); do
    zpty -r -t completion chunk && output+=$chunk || sleep 0.2
    missing=0
    for word in ${=2}; do [[ $output == *"$word"* ]] || missing=1; done
    (( missing )) || break
done
print -r -- "$output"
zpty -d completion
EOF
    # A zsh that never answers must fail the check, not hang the build.
    output=$(timeout 60 zsh -f "$work/zsh-complete.zsh" "$work/zsh-functions" "$subcommands" |
        sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g')
    status=0
    for command in $subcommands; do
        printf '%s\n' "$output" | grep -q -- "$command *-- " || { echo "zsh did not offer $command"; status=1; }
    done
    [ $status -eq 0 ] || printf '%s\n' "$output" | tail -n 15
    return "$status"
}
check "zsh completion lists the subcommands" zsh_lists_subcommands

# MARK: - make install and make uninstall

destdir=$work/destdir
mkdir -p "$destdir"
install_runs() {
    "$make" --no-print-directory install DESTDIR="$destdir" || return 1
    find "$destdir" -type f | sort
    "$destdir/usr/local/bin/steward" --version
}
check "make install DESTDIR=… installs under /usr/local, and the binary runs" install_runs
uninstall_empties() {
    "$make" --no-print-directory uninstall DESTDIR="$destdir" || return 1
    left=$(find "$destdir" -mindepth 1)
    [ -z "$left" ] || { echo "left behind:"; echo "$left"; return 1; }
}
check "make uninstall DESTDIR=… leaves the directory empty" uninstall_empties

# MARK: - Measurements

size=$(stat -c %s "$steward")
deb_size=$(stat -c %s "$deb")
runs=20
start=$(now_ms)
i=0
while [ $i -lt $runs ]; do
    "$steward" --version > /dev/null
    i=$((i + 1))
done
startup_ms=$(( ($(now_ms) - start) / runs ))
echo
echo "Measurements ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)):"
echo "  binary (stripped): $size bytes ($((size / 1048576)) MiB); package: $deb_size bytes ($((deb_size / 1048576)) MiB)"
echo "  start-up: steward --version takes $startup_ms ms (mean of $runs runs)"
echo "  make deb: $((build_ms / 1000)) s (includes the release build when sources changed)"

summary
