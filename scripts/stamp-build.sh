#!/bin/sh
# Writes the commit of the checkout into Sources/StewardCore/BuildStamp.generated.swift
# (ignored by git) for `steward --version`. Rewrites the file only when its text changes,
# so an unchanged commit rebuilds nothing; removes it when there is no git metadata, so a
# build from a tarball never claims a commit.
set -eu
cd "$(dirname "$0")/.."
stamp=Sources/StewardCore/BuildStamp.generated.swift

commit=""
if command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    commit=$(git rev-parse --short=12 HEAD 2>/dev/null || true)
    # Generated and ignored files do not count: only tracked changes make the build differ.
    if [ -n "$commit" ] && ! git diff --quiet HEAD -- 2>/dev/null; then
        commit="$commit, modified"
    fi
fi

if [ -z "$commit" ]; then
    rm -f "$stamp"
    exit 0
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
