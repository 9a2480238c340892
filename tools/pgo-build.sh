#!/usr/bin/env bash
# A profile-guided release build (PGO) of the CLI, the C library and the
# examples, for packagers: the same source, compiled a second time with the
# branch and call counts of a training run, so that the compiler lays out
# and inlines for the paths real runs take. Same outputs, byte for byte
# (checked below); less time on small modules (README, "A faster build:
# PGO"; `benches/pgo.sh` measures both builds side by side).
#
# 1. builds everything instrumented (`-Cprofile-generate`) in
#    target/pgo/generate;
# 2. trains it: the CLI (one target, six targets in turn, `--all-targets`,
#    `inspect`) and the in-process path (`examples/specialize_file`, one
#    target and all) on the repository's compiler-made modules
#    (tests/golden/*/input.spv, tests/corpus/*/*.spv; the containers of
#    tests/data/containers/ through `extract` and one target) and on three generated
#    modules of sizes and densities the benchmarks do not use (12 MB, every
#    7th kernel predicated; 2 MB "no calls", every 5th; 60 kernels, every
#    2nd). The benchmarks' own modules are left out, dispatch-chain among
#    them, so that what `benches/pgo.sh` measures is a module the profile
#    did not see;
# 3. merges the counts with the `llvm-profdata` of rustc's LLVM version
#    (rustup's llvm-tools, or Debian's llvm-NN package) into
#    target/pgo/rspv-HASH.profdata, named by its contents so that cargo
#    builds again when the counts change (it does not look at the file);
# 4. builds again with `-Cprofile-use` in target/pgo/use
#    (target/pgo/use/release/rspv-specialize,
#    target/pgo/use/release/librspv_specialize.{so,a});
# 5. runs every CLI command of the training again with that build and
#    fails unless each exits as it did and writes the same bytes.
#
# Usage: bash tools/pgo-build.sh      (about 3 minutes on 2 cores)
# Then:  target/pgo/use/release/rspv-specialize --target gfx950 in.spv -o out.spv
# Cargo arguments for the optimized build of other targets (the benches):
#        RUSTFLAGS="$(bash tools/pgo-build.sh --use-flags)" CARGO_TARGET_DIR=target/pgo/use cargo …
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
pgo=${CARGO_TARGET_DIR:-$root/target}/pgo
# (The path of the last profile merged.)
current=$pgo/profile
if [ "${1:-}" = "--use-flags" ]; then
    if [ ! -f "$current" ]; then
        echo "pgo-build: no profile yet: run bash tools/pgo-build.sh first" >&2
        exit 1
    fi
    echo "-Cprofile-use=$(cat "$current")"
    exit 0
fi

# The llvm-profdata that reads what this rustc's LLVM writes: the same
# major version.
major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
profdata=""
for candidate in "$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata" \
    "llvm-profdata-$major" llvm-profdata; do
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" --version 2>/dev/null | grep -q "LLVM version $major\."; then
        profdata=$candidate
        break
    fi
done
if [ -z "$profdata" ]; then
    echo "pgo-build: no llvm-profdata of LLVM $major (rustc's) found: install rustup's" \
        "llvm-tools component or Debian's llvm-$major package" >&2
    exit 1
fi

what=(--release --workspace --lib --bins --examples)
raw=$pgo/raw
rm -rf "$raw"
mkdir -p "$raw"
echo "== instrumented build (target/pgo/generate)"
RUSTFLAGS="-Cprofile-generate=$raw" CARGO_TARGET_DIR=$pgo/generate \
    cargo build --quiet "${what[@]}"

work=$(mktemp -d "$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/rspv-pgo.XXXXXX")
trap 'rm -rf "$work"' EXIT
bin=$pgo/generate/release
"$bin/examples/gen_module" --mb 12 --every 7 -o "$work/gen-12mb.spv" >/dev/null 2>&1
"$bin/examples/gen_module" --mb 2 --every 5 --no-calls -o "$work/gen-2mb.spv" >/dev/null 2>&1
"$bin/examples/gen_module" --kernels 60 --every 2 -o "$work/gen-60.spv" >/dev/null 2>&1
modules=()
for f in tests/golden/*/input.spv tests/corpus/*/*.spv "$work"/gen-*.spv; do
    case $f in tests/golden/dispatch-chain/*) continue ;; esac
    modules+=("$f")
done

# The CLI commands whose outputs are compared (one per line: output name,
# then arguments); the in-process runs train only.
commands=$work/commands
: >"$commands"
k=0
for f in "${modules[@]}"; do
    for t in gfx950 gfx1100 gfx90a gfx1201 gfx942 gfx803; do
        echo "out$k.spv --target $t $f --report none" >>"$commands"
        k=$((k + 1))
    done
    echo "out$k --all-targets $f --report none" >>"$commands"
    k=$((k + 1))
done
# The containers (offload bundles, compressed bundles, ELF files) whose
# modules are not dispatch-chain's: each module extracted, and the
# container specialized (a container of several modules fails, asking
# for --module: that failure is compared too).
for c in tests/data/containers/*.ccob tests/data/containers/*.hipfb \
    tests/data/containers/*.o tests/data/containers/*.so; do
    case $c in */dispatch*) continue ;; esac
    echo "out$k extract $c" >>"$commands"
    echo "out$((k + 1)).spv --target gfx950 $c --report none" >>"$commands"
    k=$((k + 2))
done

# Runs every command of $commands with the CLI of build $1 into $work/$1:
# each one's exit status, then its output, as files.
run_commands() {
    local dir=$work/$1 cli=$pgo/$1/release/rspv-specialize out args status
    mkdir -p "$dir"
    while read -r out args; do
        status=0
        # shellcheck disable=SC2086 # (the arguments are words, no spaces)
        if [[ $out == *.spv ]]; then
            "$cli" $args -o "$dir/$out" >/dev/null 2>&1 || status=$?
        else
            "$cli" $args --out-dir "$dir/$out" >/dev/null 2>&1 || status=$?
        fi
        echo "$out $status" >>"$dir/status"
    done <"$commands"
}

echo "== training: ${#modules[@]} modules"
run_commands generate
for f in "${modules[@]}"; do
    "$bin/rspv-specialize" inspect "$f" --all-targets >/dev/null 2>&1 || true
    "$bin/examples/specialize_file" gfx950 "$f" 20 >/dev/null 2>&1 || true
    "$bin/examples/specialize_file" all "$f" >/dev/null 2>&1 || true
done
"$bin/examples/specialize_file" gfx1100 "$work/gen-60.spv" 200 >/dev/null

echo "== merging the counts ($profdata)"
"$profdata" merge -o "$pgo/merged.profdata" "$raw"/*.profraw
profile=$pgo/rspv-$(sha256sum "$pgo/merged.profdata" | cut -c1-16).profdata
find "$pgo" -maxdepth 1 -name 'rspv-*.profdata' ! -path "$profile" -delete
mv "$pgo/merged.profdata" "$profile"
echo "$profile" >"$current"

echo "== optimized build (target/pgo/use)"
RUSTFLAGS="-Cprofile-use=$profile" CARGO_TARGET_DIR=$pgo/use \
    cargo build --quiet "${what[@]}"

echo "== the optimized CLI against the instrumented one: $(wc -l <"$commands") commands"
run_commands use
if ! cmp -s "$work/generate/status" "$work/use/status"; then
    echo "pgo-build: the builds' exit statuses differ:" >&2
    diff "$work/generate/status" "$work/use/status" >&2 || true
    exit 1
fi
if ! diff -r -q "$work/generate" "$work/use" >&2; then
    echo "pgo-build: the builds' outputs differ" >&2
    exit 1
fi
echo "pgo-build: same exit statuses and outputs ($(grep -c ' 0$' "$work/use/status") succeeded);" \
    "the CLI is target/pgo/use/release/rspv-specialize"
