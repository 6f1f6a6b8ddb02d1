#!/bin/sh
# Writes the commit of the checkout into Sources/StewardCore/BuildStamp.generated.swift
# (ignored by git) for `steward --version`. Rewrites the file only when its text changes,
# so an unchanged commit rebuilds nothing; removes it when there is no git metadata, so a
# build from a tarball never claims a commit.
set -eu
cd "$(dirname "$0")/.."
stamp=Sources/StewardCore/BuildStamp.generated.swift

# No git metadata at all (a source tarball): no commit to claim.
if [ ! -e .git ]; then
    rm -f "$stamp"
    exit 0
fi
# Git metadata that cannot be read here (git missing, or `sudo make install` in a
# checkout git calls unsafe): keep the stamp of the build that could, so installing
# does not force a rebuild.
commit=$(git rev-parse --short=12 HEAD 2>/dev/null) || exit 0
[ -n "$commit" ] || exit 0
# Generated and ignored files do not count: only tracked changes make the build differ.
if ! git diff --quiet HEAD -- 2>/dev/null; then
    commit="$commit, modified"
fi

text="// Written by scripts/stamp-build.sh; not in git.
extension StewardVersion {
    public static var commit: String? { \"$commit\" }
}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$text" ]; then
    exit 0
fi
printf '%s\n' "$text" > "$stamp.tmp"
mv "$stamp.tmp" "$stamp"
