#!/usr/bin/env bash
# Records the differential baseline tests/differential.rs compares against:
# the outcome of COMMIT's library (default: the tag pre-lean-core) on every
# test module x target, written to tests/data/differential/NAME.tsv (NAME:
# the second argument, default pre-lean-core; the test reads
# pre-lean-core.tsv, change BASELINE there for another name).
#
#   tools/gen_differential.sh [COMMIT] [NAME]
#
# It checks COMMIT out in a temporary worktree, copies this checkout's
# tests/differential.rs there (and the sha2 dev-dependency it needs, if the
# old Cargo.toml lacks it), and runs the test with RSPV_DIFFERENTIAL_WRITE,
# so the old library computes the table with today's list of modules and
# targets. The modules are this checkout's files at the same paths: run it
# from a checkout whose tests/ holds the modules you want compared (the
# worktree's own tests/ is replaced by this checkout's).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
commit="${1:-pre-lean-core}"
name="${2:-pre-lean-core}"
out="$here/tests/data/differential/$name.tsv"
tmp="$(mktemp -d)"
tree="$tmp/base"
cleanup() {
    git -C "$here" worktree remove --force "$tree" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

rev="$(git -C "$here" rev-parse --verify "$commit^{commit}")"
git -C "$here" worktree add --detach "$tree" "$rev" >/dev/null
# Today's modules, generator and test file on the old library.
rm -rf "$tree/tests"
cp -r "$here/tests" "$tree/tests"
mkdir -p "$tree/benches/common"
cp "$here/benches/common/gen.rs" "$tree/benches/common/gen.rs"
if ! grep -q '^sha2 = ' <(sed -n '/^\[dev-dependencies\]/,/^\[/p' "$tree/Cargo.toml"); then
    sed -i '/^\[dev-dependencies\]/a sha2 = "0.11.1"' "$tree/Cargo.toml"
fi
mkdir -p "$(dirname "$out")"
# A target directory of its own: build scripts compiled in the temporary
# worktree carry its path, which must not end up in this checkout's builds.
(
    cd "$tree"
    RSPV_DIFFERENTIAL_WRITE="$out" \
        RSPV_DIFFERENTIAL_BASE="$commit ($rev)" \
        CARGO_TARGET_DIR="$here/target/differential-base" \
        cargo test --release --test differential -- --nocapture
)
echo "wrote $out ($(grep -vc '^#' "$out") lines) from $commit ($rev)"
