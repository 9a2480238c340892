#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ with every .spv module under tests/ (golden
# inputs and the real-producer corpus). Safe to re-run: files are named by
# content hash, so nothing is duplicated and what the fuzzer added stays.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(read inspect specialize)
mapfile -t seeds < <(find "$root/tests" -name '*.spv' -type f | sort)
for t in "${targets[@]}"; do
    mkdir -p "$here/corpus/$t"
    for f in "${seeds[@]}"; do
        cp -f "$f" "$here/corpus/$t/seed-$(sha1sum "$f" | cut -c1-16).spv"
    done
done
echo "seeded ${targets[*]} with ${#seeds[@]} module(s) from tests/"
