#!/usr/bin/env bash
# The plain release build against the profile-guided one
# (`tools/pgo-build.sh`), side by side, on the benchmarks' modules (none of
# which the profile was trained on):
#
# - counted work (cachegrind `I refs`, as `benches/instructions.sh` counts
#   it): one in-process call on dispatch-chain and on the 40 KB module whose
#   every kernel is predicated ((101 calls - 1 call) / 100), one target and
#   all 61 on the 1 MB "calls" module (process start included), the CLI on
#   the 10 MB module (pinned to one core) and on dispatch-chain;
# - the latency benchmark (`cargo bench --bench specialize -- latency`),
#   the two builds in turn, three times: medians;
# - the CLI's wall time on the 10 and 100 MB modules, tmpfs: median of 5
#   runs after a warm-up, the two builds in turn.
#
# Usage: bash benches/pgo.sh      (about 2 minutes on 2 cores, and 3 more
# for the two PGO builds when they are not built yet)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5
tmp=$(mktemp -d /dev/shm/rspv-pgo-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

bash tools/pgo-build.sh
cargo build --release --quiet --bin rspv-specialize --example gen_module --example specialize_file
bench_of() { # the latency benchmark's executable of a build ($@: cargo's environment)
    env "$@" cargo bench --bench specialize --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\/deps\/specialize-[^"]*\)".*/\1/p' | tail -1
}
plain_bench=$(bench_of)
pgo_bench=$(bench_of RUSTFLAGS="$(bash tools/pgo-build.sh --use-flags)" CARGO_TARGET_DIR=target/pgo/use)
builds=(plain PGO)
dir_of() { if [ "$1" = plain ]; then echo target/release; else echo target/pgo/use/release; fi; }

gen=target/release/examples/gen_module
"$gen" --mb 0.04 --every 1 -o "$tmp/e40.spv" 2>/dev/null
"$gen" --mb 1 -o "$tmp/g1.spv" 2>/dev/null
"$gen" --mb 10 -o "$tmp/g10.spv" 2>/dev/null
"$gen" --mb 100 -o "$tmp/g100.spv" 2>/dev/null
dc=tests/golden/dispatch-chain/input.spv

# (irefs, timed_median_s)
source benches/common/measure.sh
# (Pinned to one core: a large module's helper thread would count too.)
irefs_pinned() { pin="taskset -c 1" irefs "$@"; }
per_call() { # $1: build, $2: module
    local sf once many
    sf=$(dir_of "$1")/examples/specialize_file
    once=$(irefs "$sf" gfx950 "$2" 1)
    many=$(irefs "$sf" gfx950 "$2" 101)
    echo $(((many - once) / 100))
}

echo
echo "Counted work (cachegrind I refs):"
echo
echo "| build | dispatch-chain, per call | 40 KB, per call | 1 MB, one target | 1 MB, 61 targets | CLI 10 MB (pinned) | CLI dispatch-chain |"
echo "|---|---|---|---|---|---|---|"
for b in "${builds[@]}"; do
    d=$(dir_of "$b")
    printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$b" \
        "$(per_call "$b" "$dc")" "$(per_call "$b" "$tmp/e40.spv")" \
        "$(irefs "$d/examples/specialize_file" gfx950 "$tmp/g1.spv")" \
        "$(irefs "$d/examples/specialize_file" all "$tmp/g1.spv")" \
        "$(irefs_pinned "$d/rspv-specialize" --target gfx950 "$tmp/g10.spv" -o "$tmp/out.spv" --report none)" \
        "$(irefs "$d/rspv-specialize" --target gfx950 "$dc" -o "$tmp/out.spv" --report none)"
done

echo
echo "Latency (divan medians, gfx950 / gfx1100), the builds in turn:"
echo
echo "| round | build | dispatch-chain | 40 KB, every kernel predicated |"
echo "|---|---|---|---|"
for round in 1 2 3; do
    for b in "${builds[@]}"; do
        exe=$plain_bench
        [ "$b" = PGO ] && exe=$pgo_bench
        # (The median is the third column of divan's table.)
        "$exe" --bench latency 2>&1 | grep -E '(gfx950|gfx1100) ' | sed -E 's/^[│ ]+//' |
            awk -F'│' -v r=$round -v b="$b" '{ gsub(/^ +| +$/, "", $3); m[NR] = $3 }
                END { printf "| %s | %s | %s / %s | %s / %s |\n", r, b, m[1], m[2], m[3], m[4] }'
    done
done

# Median wall time in ms, after a warm-up run.
median_ms() {
    "$@" >/dev/null 2>&1 || true
    timed_median_s "$@" | awk '{ printf "%.1f", $1 * 1e3 }'
}
echo
echo "CLI wall time on tmpfs (median of $runs after a warm-up, ms), the builds in turn:"
echo
echo "| module | plain | PGO |"
echo "|---|---|---|"
for mb in 10 100; do
    row="| calls, $mb MB"
    for b in "${builds[@]}"; do
        row+=" | $(median_ms "$(dir_of "$b")/rspv-specialize" --target gfx950 "$tmp/g$mb.spv" -o "$tmp/out.spv" --report none)"
    done
    echo "$row |"
done
