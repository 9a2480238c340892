#!/usr/bin/env bash
# Work and end-to-end throughput of the CLI, for issue 10's targets, in a form
# the machine's load does not change: instruction counts.
#
# - cachegrind `I refs` (`valgrind --tool=cachegrind --cache-sim=no`) of
#   `rspv-specialize --target gfx950 IN -o OUT` on generated "calls" modules
#   of 1, 10 and 100 MB (every 10th kernel predicated), as a total and per
#   input word (linear in size when the per-word figure stays flat), and on
#   every golden input (small modules: the fixed cost of a run);
# - the batch: `examples/specialize_file all` (`specialize_many` for all 61
#   processors, every output materialized, in-process) against the same
#   program for one target on the 1 MB module, process start subtracted
#   from both (issue 10's "61 targets in one call" as counted work: both
#   of the batch's threads are counted);
# - the latency of one in-process call (`specialize`) in instructions:
#   `examples/specialize_file TARGET IN 101` minus the same with 1, over
#   100, on dispatch-chain and on the 40 KB module whose every kernel is
#   predicated;
# - the same count for `cp IN OUT`, the floor of any tool that writes a file;
# - wall time on tmpfs (/dev/shm, so the disk does not hide the code):
#   median of 5 runs of the CLI and of `cp`, and their ratio.
#
# Usage: bash benches/instructions.sh        (about 3 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5
tmp=$(mktemp -d /dev/shm/rspv-instr.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cargo build --release --quiet --bin rspv-specialize --example gen_module --example specialize_file
cli=$PWD/target/release/rspv-specialize
gen=$PWD/target/release/examples/gen_module
one_file=$PWD/target/release/examples/specialize_file

# (irefs, timed_median_s)
source benches/common/measure.sh


echo "| module | words | CLI I refs | per word | cp I refs | CLI median | cp median | CLI MB/s | cp / CLI time |"
echo "|---|---|---|---|---|---|---|---|---|"
for mb in 1 10 100; do
    in=$tmp/calls_${mb}mb.spv
    "$gen" --mb "$mb" -o "$in" 2>/dev/null
    bytes=$(stat -c %s "$in")
    words=$((bytes / 4))
    cli_i=$(irefs "$cli" --target gfx950 "$in" -o "$tmp/out.spv" --report none)
    cp_i=$(irefs cp "$in" "$tmp/copy.spv")
    cli_t=$(timed_median_s "$cli" --target gfx950 "$in" -o "$tmp/out.spv" --report none)
    cp_t=$(timed_median_s cp "$in" "$tmp/copy.spv")
    awk -v m="calls, $mb MB" -v w="$words" -v ci="$cli_i" -v pi="$cp_i" -v ct="$cli_t" -v pt="$cp_t" -v b="$bytes" 'BEGIN {
        printf "| %s | %d | %.1f M | %.1f | %.2f M | %.1f ms | %.1f ms | %.0f | %.2f |\n",
            m, w, ci / 1e6, ci / w, pi / 1e6, ct * 1e3, pt * 1e3, b / ct / 1e6, pt / ct }'
    rm -f "$in" "$tmp/out.spv" "$tmp/copy.spv"
done

echo
echo "Small modules (every tests/golden/*/input.spv), CLI --target gfx950:"
max=0
maxname=
for in in tests/golden/*/input.spv; do
    i=$(irefs "$cli" --target gfx950 "$in" -o "$tmp/out.spv" --report none)
    if ((i > max)); then
        max=$i
        maxname=$in
    fi
done
dc=$(irefs "$cli" --target gfx950 tests/golden/dispatch-chain/input.spv -o "$tmp/out.spv" --report none)
nop=$(irefs "$cli" --version)
awk -v dc="$dc" -v max="$max" -v name="$maxname" -v nop="$nop" 'BEGIN {
    printf "dispatch-chain: %.2f M I refs; largest of the golden inputs: %.2f M (%s); `rspv-specialize --version` (process start): %.2f M\n",
        dc / 1e6, max / 1e6, name, nop / 1e6 }'
echo
in=$tmp/calls_1mb.spv
"$gen" --mb 1 -o "$in" 2>/dev/null
all=$(irefs "$one_file" all "$in")
one=$(irefs "$one_file" gfx950 "$in")
start=$(irefs "$one_file")
awk -v all="$all" -v one="$one" -v s="$start" 'BEGIN {
    printf "61 targets in one call (specialize_many, in-process, calls 1 MB): %.1f M I refs; one target: %.1f M; process start: %.2f M; batch / one: %.2f\n",
        all / 1e6, one / 1e6, s / 1e6, (all - s) / (one - s) }'
echo
g40=$tmp/every_kernel_40kb.spv
"$gen" --mb 0.04 --every 1 -o "$g40" 2>/dev/null
for pair in "dispatch-chain:tests/golden/dispatch-chain/input.spv" "every kernel predicated, 40 KB:$g40"; do
    name=${pair%%:*}
    in=${pair#*:}
    once=$(irefs "$one_file" gfx950 "$in" 1)
    many=$(irefs "$one_file" gfx950 "$in" 101)
    awk -v once="$once" -v many="$many" -v name="$name" 'BEGIN {
        printf "in-process call (specialize, gfx950) on %s: %.0f k I refs\n", name, (many - once) / 100 / 1e3 }'
done
