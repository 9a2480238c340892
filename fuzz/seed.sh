#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ with every .spv module under tests/ (golden
# inputs and the real-producer corpus), and the container target with the
# container fixtures too. Safe to re-run: files are named by
# content hash, so nothing is duplicated and what the fuzzer added stays.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(read inspect specialize container)
mapfile -t seeds < <(find "$root/tests" -name '*.spv' -type f | sort)
# The container target also starts from the container fixtures (bundles,
# compressed bundles, ELF files).
mapfile -t containers < <(find "$root/tests/data/containers" -maxdepth 1 -type f \
    \( -name '*.hipfb' -o -name '*.ccob' -o -name '*.o' -o -name '*.so' -o -name app \) | sort)
for t in "${targets[@]}"; do
    mkdir -p "$here/corpus/$t"
    extra=()
    [ "$t" = container ] && extra=("${containers[@]}")
    for f in "${seeds[@]}" "${extra[@]}"; do
        cp -f "$f" "$here/corpus/$t/seed-$(sha1sum "$f" | cut -c1-16).spv"
    done
done
echo "seeded ${targets[*]} with ${#seeds[@]} module(s) from tests/ (container: also ${#containers[@]} container fixture(s))"
