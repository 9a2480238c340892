#!/usr/bin/env bash
# Benchmark run for the README: measures rspv-specialize against the
# Performance targets in docs/design.md and side by side with spirv-opt, and
# prints ONE markdown table.
#
# - in-process time and MB/s: the divan benches (benches/specialize.rs),
#   medians, with RSPV_BENCH_BIG=1 so the 100 MB modules are included;
# - CLI time: the release `rspv-specialize --target gfx950` on the same
#   bytes, median of 5 runs after one discarded warm-up run (hyperfine
#   when installed, else a timing loop);
# - spirv-opt: Debian's spirv-opt with the closest pipeline (set the spec
#   constants to gfx950's values, freeze, fold, simplify, dead branches,
#   dead functions, dead constants), median of 5 runs after one warm-up
#   run, as ours; a crash or failure is
#   recorded instead of a time; 100 MB modules get one run, stopped after
#   SPIRV_OPT_TIMEOUT seconds (default 120);
# - peak RSS: `/usr/bin/time -v` (Maximum resident set size) of one run of
#   each tool, and of examples/specialize_file.rs (reads the file, calls
#   `specialize`: the in-process path, the caller's input counted; and with
#   `--in-place`, `specialize_in_place` on the "calls" modules), and as a
#   multiple of the module size;
# - validity: spirv-val on both outputs;
# - 61 targets: divan's one-call-per-target loop (`sequential`) and the batch
#   `specialize_many` call, each as a multiple of one target on that module.
#
# Modules come from examples/gen_module.rs (the shape of
# tools/gen_bench.py) into a temporary directory on tmpfs (/dev/shm, where
# there is one; TMPDIR overrides); "calls" modules have predicate arms
# calling imported intrinsics, "no calls" ones store values
# (spirv-opt's dead-branch pass crashes on the former). Takes about 5 minutes
# on 2 cores. Usage: bash benches/run.sh   (RSPV_BENCH_KEEP=1 keeps the
# temporary directory and prints its path.)
set -euo pipefail
cd "$(dirname "$0")/.."
# (timed_median_s)
source benches/common/measure.sh
root=$PWD
timeout_s=${SPIRV_OPT_TIMEOUT:-120}
runs=5

# (On tmpfs, so that the disk does not hide the code.)
scratch=/tmp
[[ -d /dev/shm && -w /dev/shm ]] && scratch=/dev/shm
tmp=$(mktemp -d "${TMPDIR:-$scratch}/rspv-bench.XXXXXX")
if [[ ${RSPV_BENCH_KEEP:-0} == 1 ]]; then
    echo "keeping $tmp" >&2
else
    trap 'rm -rf "$tmp"' EXIT
fi
log() { echo "== $*" >&2; }

# Tools. /usr/bin/time is required; hyperfine is optional.
if [[ ! -x /usr/bin/time ]]; then
    if [[ $(id -u) == 0 ]]; then
        apt-get install -y -qq time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
    else
        echo "run.sh: /usr/bin/time is missing (Debian package \`time\`)" >&2
        exit 1
    fi
fi
if ! command -v hyperfine >/dev/null && [[ $(id -u) == 0 ]]; then
    apt-get install -y -qq hyperfine >/dev/null 2>&1 || true
fi
have_opt=0
command -v spirv-opt >/dev/null && have_opt=1
# The validator, as for the tests: $SPIRV_VAL, else spirv-val on PATH.
spirv_val=${SPIRV_VAL:-spirv-val}
have_val=0
command -v "$spirv_val" >/dev/null && have_val=1

log "building release"
cargo build --release --quiet --bin rspv-specialize --example gen_module --example specialize_file
cli=$root/target/release/rspv-specialize
lib=$root/target/release/examples/specialize_file
gen=$root/target/release/examples/gen_module

log "generating modules in $tmp"
cp tests/golden/dispatch-chain/input.spv "$tmp/dispatch_chain.spv"
"$gen" --mb 0.04 --every 1 -o "$tmp/gen_40kb.spv" 2>/dev/null
for mb in 1 10 100; do
    "$gen" --mb "$mb" -o "$tmp/calls_${mb}mb.spv" 2>/dev/null
    "$gen" --mb "$mb" --no-calls -o "$tmp/no_calls_${mb}mb.spv" 2>/dev/null
done

log "divan benches (in-process, about 1-2 minutes)"
RSPV_BENCH_BIG=1 cargo bench --quiet --bench specialize -- --color never >"$tmp/divan.txt"

results=$tmp/results.tsv
: >"$results"
put() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results"; }

# One run under /usr/bin/time -v (and `timeout` when $2 > 0): sets
# run_status (ok | crash: ... | fail: ... | timeout), run_rss_kb, run_s.
run_once() {
    local limit=$1
    shift
    local start end rc=0
    start=$(date +%s%N)
    if ((limit > 0)); then
        /usr/bin/time -v -o "$tmp/time.txt" timeout "$limit" "$@" >/dev/null 2>"$tmp/err.txt" || rc=$?
    else
        /usr/bin/time -v -o "$tmp/time.txt" "$@" >/dev/null 2>"$tmp/err.txt" || rc=$?
    fi
    end=$(date +%s%N)
    run_s=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')
    run_rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time.txt")
    local sig
    sig=$(sed -n 's/.*terminated by signal \([0-9]*\).*/\1/p' "$tmp/time.txt")
    if [[ -n $sig ]]; then
        run_status="crash: signal $sig"
    elif ((limit > 0 && rc == 124)); then
        run_status=timeout
    elif ((rc != 0)); then
        run_status="fail: exit $rc: $(head -c 200 "$tmp/err.txt" | tr '\n\t|' '   ')"
    else
        run_status=ok
    fi
}

# Median wall time of $runs runs of a command, in seconds, after one run
# discarded: the first run of a command faults in its binary's pages and
# libraries, which a machine running it again has (here the first of five
# runs of the 2.7 ms CLI on 1 MB took 4.3 ms and moved their median by
# 0.2 ms).
median_s() {
    if command -v hyperfine >/dev/null; then
        local cmd
        cmd=$(printf '%q ' "$@")
        hyperfine -N --warmup 1 --runs "$runs" --style none --export-json "$tmp/hf.json" -- "$cmd" >/dev/null 2>&1
        python3 -c 'import json,sys; print("%.6f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/hf.json"
    else
        "$@" >/dev/null 2>&1 || true
        timed_median_s "$@"
    fi
}

valid() {
    if ((have_val == 0)); then echo "n/a"; elif ((validate == 0)); then echo skipped; elif "$spirv_val" "$1" >/dev/null 2>&1; then echo yes; else echo NO; fi
}

for key in dispatch_chain gen_40kb calls_1mb no_calls_1mb calls_10mb no_calls_10mb calls_100mb no_calls_100mb; do
    in=$tmp/$key.spv
    put "$key" size "$(stat -c %s "$in")"
    # spirv-val takes over 15 minutes on 100 MB (and its default id-bound
    # limit, the spec's universal 4,194,303, is below these modules' bound).
    validate=1
    [[ $key == *100mb ]] && validate=0
    bound=$(od -An -t u4 -j 12 -N 4 "$in" | tr -d ' ')

    log "$key: rspv-specialize CLI"
    run_once 0 "$cli" --target gfx950 "$in" -o "$tmp/rspv.spv" --report none
    put "$key" cli_rss_kb "$run_rss_kb"
    log "$key: in-process specialize (peak RSS)"
    run_once 0 "$lib" gfx950 "$in"
    put "$key" lib_rss_kb "$run_rss_kb"
    if [[ $key == calls_* ]]; then
        log "$key: in-process specialize_in_place (peak RSS)"
        run_once 0 "$lib" --in-place gfx950 "$in"
        put "$key" in_place_rss_kb "$run_rss_kb"
    fi
    if [[ $run_status == ok ]]; then
        put "$key" cli_valid "$(valid "$tmp/rspv.spv")"
        put "$key" cli_s "$(median_s "$cli" --target gfx950 "$in" -o "$tmp/rspv.spv" --report none)"
    else
        put "$key" cli_status "$run_status"
    fi

    if ((have_opt == 0)); then
        put "$key" opt_status "not installed"
        continue
    fi
    if [[ $key == calls_100mb ]]; then
        put "$key" opt_status "not run"
        continue
    fi
    values=$("$cli" inspect "$in" --target gfx950 --format json |
        python3 -c 'import json, sys
print(" ".join("%d:%s" % (p["spec_id"], "true" if p["value"] else "false") for p in json.load(sys.stdin)["predicates"]))')
    opt=(spirv-opt)
    ((bound > 4194303)) && opt+=("--max-id-bound=$bound")
    opt+=(--set-spec-const-default-value "$values" --freeze-spec-const
        --fold-spec-const-op-composite --simplify-instructions --eliminate-dead-branches
        --eliminate-dead-functions --eliminate-dead-const "$in" -o "$tmp/opt.spv")
    log "$key: spirv-opt"
    rm -f "$tmp/opt.spv"
    if [[ $key == *100mb ]]; then
        # One run: it takes minutes, if it finishes at all.
        run_once "$timeout_s" "${opt[@]}"
        put "$key" opt_rss_kb "$run_rss_kb"
        if [[ $run_status == ok ]]; then
            put "$key" opt_s "$run_s"
            put "$key" opt_runs 1
            put "$key" opt_valid "$(valid "$tmp/opt.spv")"
        elif [[ $run_status == timeout ]]; then
            put "$key" opt_status "> ${timeout_s} s (stopped)"
        else
            put "$key" opt_status "$run_status"
        fi
    else
        run_once 0 "${opt[@]}"
        put "$key" opt_rss_kb "$run_rss_kb"
        if [[ $run_status == ok ]]; then
            put "$key" opt_valid "$(valid "$tmp/opt.spv")"
            put "$key" opt_s "$(median_s "${opt[@]}")"
            put "$key" opt_runs "$runs"
        else
            put "$key" opt_status "$run_status"
        fi
    fi
done

log "table"
python3 - "$tmp/divan.txt" "$results" <<'EOF'
"""Joins divan's medians and the command-line measurements into one table."""
import re
import sys

divan_txt, results_tsv = sys.argv[1], sys.argv[2]
UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}

# divan's tree: "│  ├─ name   fastest │ slowest │ median │ mean │ samples │ iters"
medians = {}
path = []
for line in open(divan_txt, encoding="utf-8"):
    m = re.match(r"^([│ ]*)[├╰]─ (\S+)(.*)$", line.rstrip("\n"))
    if not m:
        continue
    depth = len(m.group(1)) // 3
    path = path[:depth] + [m.group(2)]
    cols = [c.strip() for c in m.group(3).split("│")]
    if len(cols) >= 3 and cols[2]:
        value, unit = cols[2].split()
        medians["/".join(path)] = float(value) * UNITS[unit]

res = {}
for line in open(results_tsv, encoding="utf-8"):
    key, field, value = line.rstrip("\n").split("\t", 2)
    res.setdefault(key, {})[field] = value

ROWS = [
    ("dispatch-chain (llc-22, 1 kernel)", "dispatch_chain", "latency/dispatch_chain/gfx950"),
    ("generated, every kernel predicated", "gen_40kb", "latency/gen_40kb/gfx950"),
    ("generated, calls", "calls_1mb", "throughput/calls/1"),
    ("generated, no calls", "no_calls_1mb", "throughput/no_calls/1"),
    ("generated, calls", "calls_10mb", "throughput/calls/10"),
    ("generated, no calls", "no_calls_10mb", "throughput/no_calls/10"),
    ("generated, calls", "calls_100mb", "throughput/calls/100"),
    ("generated, no calls", "no_calls_100mb", "throughput/no_calls/100"),
]


def t(s):
    if s is None:
        return "–"
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def size(b):
    return f"{b / 1e6:.1f} MB" if b >= 1e6 else f"{b / 1e3:.1f} KB"


def rss(r, key, module_bytes):
    kb = r.get(key)
    if not kb:
        return "–"
    b = int(kb) * 1024
    return f"{b / 2**20:.0f} MiB ({b / module_bytes:.2f}×)"


head = ["module", "size", "rspv in-process", "MB/s", "rspv CLI", "spirv-opt",
        "spirv-opt / CLI", "peak RSS rspv CLI (× size)", "peak RSS in-process (× size)", "peak RSS spirv-opt (× size)",
        "valid out (rspv / spirv-opt)", "61 targets seq. / one", "61 targets batch / one"]
print("| " + " | ".join(head) + " |")
print("|" + "|".join("---" for _ in head) + "|")
for label, key, bench in ROWS:
    r = res.get(key, {})
    n = int(r.get("size", 0))
    inproc = medians.get(bench)
    mbs = f"{n / inproc / 1e6:.0f}" if inproc else "–"
    cli = float(r["cli_s"]) if "cli_s" in r else None
    cli_cell = t(cli) if cli is not None else r.get("cli_status", "–")
    if "opt_s" in r:
        opt = float(r["opt_s"])
        opt_cell = t(opt) + (" (1 run)" if r.get("opt_runs") == "1" else "")
        ratio = f"{opt / cli:.0f}×" if cli else "–"
    else:
        opt_cell, ratio = r.get("opt_status", "–"), "–"
    valid = f"{r.get('cli_valid', '–')} / {r.get('opt_valid', '–')}"
    one = medians.get(f"all_targets/one/{key}")
    seq = medians.get(f"all_targets/sequential/{key}")
    batch = medians.get(f"all_targets/batch/{key}")
    seq_cell = f"{t(seq)} / {t(one)} = {seq / one:.0f}×" if seq and one else "–"
    batch_cell = f"{t(batch)} / {t(one)} = {batch / one:.1f}×" if batch and one else "–"
    print("| " + " | ".join([label, size(n), t(inproc), mbs, cli_cell, opt_cell, ratio,
                             rss(r, "cli_rss_kb", n), rss(r, "lib_rss_kb", n), rss(r, "opt_rss_kb", n), valid,
                             seq_cell, batch_cell]) + " |")
print()
print("Medians; in-process: divan (gfx950); CLI and spirv-opt: wall time of the "
      f"release command, median of 5 runs after a warm-up run; 100 MB spirv-opt: one run.")
print("100 MB modules: id bound above the spec's universal limit (4,194,303), "
      "so spirv-opt gets --max-id-bound; spirv-val is skipped there (over 15 min).")
tables = medians.get("phases/load_tables")
if tables:
    print(f"Parsing the arch tables at run time (`--arch-tables DIR`, `ArchTables::from_dir(arch-tables/)`): "
          f"{t(tables)}; the embedded tables are compiled into the binary and parse nothing.")
resolve = medians.get("phases/embedded_target")
if resolve:
    print(f"Resolving a target against the embedded tables and evaluating one `has.` predicate: {t(resolve)}.")
in_place = []
for key, mb in (("calls_1mb", 1), ("calls_10mb", 10), ("calls_100mb", 100)):
    r = res.get(key, {})
    n = int(r.get("size", 0))
    s = medians.get(f"throughput/calls_in_place/{mb}")
    if s and n:
        in_place.append(f"{size(n)} {t(s)} ({n / s / 1e6:.0f} MB/s, peak RSS {rss(r, 'in_place_rss_kb', n)})")
if in_place:
    print("In place (`specialize_in_place`, the module laid down in the buffer it is given; "
          "\"calls\" modules, divan medians): " + ", ".join(in_place) + ".")
prep = medians.get("phases/prepare_calls_10mb")
if prep and medians.get("throughput/calls/10"):
    print(f"Parse and scan alone (`Prepared::new`, 10 MB calls): {t(prep)} of "
          f"{t(medians['throughput/calls/10'])}.")
EOF
