#!/usr/bin/env bash
# CI fuzz step: a short seeded run of every fuzz target (fuzz/run.sh 20,
# about a minute of fuzzing plus the build). Needs a nightly toolchain (for
# the sanitizer flags cargo-fuzz uses) and cargo-fuzz, which it installs
# from crates.io if missing. Without nightly, or if cargo-fuzz cannot be
# installed, it says why and exits 0: fuzzing is extra, the test suite
# (tests/fuzz_regressions.rs) re-checks every saved crash on stable.
#
#   fuzz/ci.sh [SECONDS]      (default 20 per target)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
secs="${1:-20}"
tc="${FUZZ_TOOLCHAIN:-nightly}"

skip() { echo "== fuzz: skipped: $*"; exit 0; }

command -v rustup >/dev/null 2>&1 || skip "rustup is not installed"
rustup toolchain list 2>/dev/null | grep -q "^$tc" \
    || skip "no '$tc' toolchain (rustup toolchain list: $(rustup toolchain list 2>/dev/null | tr '\n' ' '))"
cargo "+$tc" --version >/dev/null 2>&1 || skip "cargo +$tc does not run"

if ! cargo "+$tc" fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    start=$SECONDS
    if ! cargo install cargo-fuzz --locked; then
        echo "cargo install cargo-fuzz --locked failed; trying without --locked"
        cargo install cargo-fuzz || skip "cargo-fuzz could not be installed"
    fi
    echo "installed cargo-fuzz in $((SECONDS - start)) s"
fi
cargo "+$tc" fuzz --version

start=$SECONDS
# run.sh adds the LeakSanitizer suppressions of lsan.supp (glibc's and std's
# thread-exit records only) to LSAN_OPTIONS: real leaks still fail this step.
# A fixed seed and run count make the CI run repeatable: the same commit
# mutates the same inputs in the same order, so a green run here is green in
# CI, and a red one names a real, reproducible crash. The time limit only
# caps a slow machine (it then runs a prefix of the same sequence).
FUZZ_TOOLCHAIN="$tc" FUZZ_ARGS="-seed=1 -runs=${FUZZ_RUNS:-30000} ${FUZZ_ARGS:-}" "$here/run.sh" "$secs"
rc=$?
echo "== fuzz step took $((SECONDS - start)) s (build included)"
# run.sh exits 2 when the fuzz build itself fails: that is the toolchain
# (nightly, sanitizer runtime), not a finding, since the same checks
# (fuzz/checks.rs) also compile and run in `cargo test`.
[ "$rc" -eq 2 ] && skip "the fuzz targets did not build with $tc (see above)"
exit "$rc"
