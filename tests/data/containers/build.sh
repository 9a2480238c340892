#!/usr/bin/env bash
# Rebuilds the container fixtures of this folder from src/ and two golden
# modules, with Debian's LLVM 22 tools (packages clang-22, clang-tools-22,
# llvm-22, lld-22 not needed). Tests never run this: they read what it
# committed. Run from anywhere:
#
#   tests/data/containers/build.sh
#
# Then writes expected.tsv, one line per SPIR-V module the tools find in each
# fixture, from clang-offload-bundler -unbundle and llvm-objdump --offloading
# (never from this project's reader):
#
#   fixture  index  entry-id  compression  size  expected-module-file
#
# and checks each such module against expected/ byte for byte.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$here"
BIN=$(llvm-config-22 --bindir)
BUNDLER=$BIN/clang-offload-bundler
OBJDUMP=llvm-objdump-22
OBJCOPY=llvm-objcopy-22
CLANG=clang-22
HIP=(-x hip --offload-arch=amdgcnspirv -use-spirv-backend -nogpulib -nogpuinc -O2)
HOST=host-x86_64-unknown-linux-gnu
SPV=hip-spirv64-amd-amdhsa--amdgcnspirv
SPV4=hipv4-spirv64-amd-amdhsa-unknown-amdgcnspirv
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

rm -rf expected && mkdir expected
cp "$root/tests/golden/dispatch-chain/input.spv" expected/dispatch-chain.spv
cp "$root/tests/golden/select-pred/input.spv" expected/select-pred.spv

bundle() { # OUT ID MODULE [bundler flags...]: host entry + one device entry
    local out=$1 id=$2 m=$3; shift 3
    "$BUNDLER" -type=o -bundle-align=4096 "$@" -targets=$HOST,"$id" \
        -input=/dev/null -input="$m" -output="$out"
}

# 1. Real HIP host objects from clang-22, without and with --offload-compress.
$CLANG "${HIP[@]}" -c src/kernel_a.hip -o hip-a.o
$CLANG "${HIP[@]}" --offload-compress -c src/kernel_a.hip -o hip-a-compressed.o
$CLANG "${HIP[@]}" -c src/kernel_b.hip -o "$T/hip-b.o"
$CLANG "${HIP[@]}" --offload-compress -c src/kernel_b.hip -o "$T/hip-b-compressed.o"

# 2. Bundles of predicated golden modules: uncompressed, zstd (format 3 and,
#    with the bundler's environment variable, 2), zlib (bundles.py, 2 and 3),
#    a ROCm-style hipv4 id with the module at an unaligned offset, and a
#    bundle with only a native entry (no SPIR-V).
bundle dispatch.hipfb $SPV expected/dispatch-chain.spv
bundle dispatch.ccob $SPV expected/dispatch-chain.spv -compress
COMPRESSED_BUNDLE_FORMAT_VERSION=2 bundle dispatch-v2.ccob $SPV expected/dispatch-chain.spv -compress
python3 src/bundles.py ccob --version 3 dispatch.hipfb dispatch-zlib.ccob
python3 src/bundles.py ccob --version 2 dispatch.hipfb dispatch-zlib-v2.ccob
python3 src/bundles.py bundle --align 1 select-unaligned.hipfb \
    $HOST=/dev/null $SPV4=expected/select-pred.spv
bundle select.ccob $SPV expected/select-pred.spv -compress
bundle native.hipfb hipv4-amdgcn-amd-amdhsa--gfx950 src/kernel_a.hip

# 3. Host objects carrying those bundles in .hip_fatbin.
$OBJCOPY --update-section .hip_fatbin=dispatch.hipfb hip-a.o dispatch.o
$OBJCOPY --update-section .hip_fatbin=select.ccob "$T/hip-b.o" select.o
$OBJCOPY --update-section .hip_fatbin=dispatch.ccob "$T/hip-b-compressed.o" "$T/dispatch-z.o"

# 4. A two-object executable (one uncompressed, one compressed bundle) and a
#    shared library of two compressed objects; stubs stand in for the runtime.
$CLANG -O1 -c src/stubs.c -o stubs.o
$CLANG -O1 -c src/main.c -o "$T/main.o"
$CLANG dispatch.o select.o stubs.o "$T/main.o" -o app
$CLANG -shared hip-a-compressed.o "$T/dispatch-z.o" stubs.o -o libkernels.so

# 5. clang's new offload driver with -fgpu-rdc: .llvm.offloading, LLVM IR.
$CLANG "${HIP[@]}" --offload-new-driver -fgpu-rdc -c src/kernel_a.hip -o rdc.o

# The SPIR-V of the clang-built objects, as the bundler extracts it.
fatbin() { $OBJCOPY --dump-section .hip_fatbin="$2" "$1" "$T/discard"; }
unbundle() { # IN ID OUT
    "$BUNDLER" -unbundle -type=o -targets="$2" -input="$1" -output="$3"
}
fatbin hip-a.o "$T/a.fb"; unbundle "$T/a.fb" $SPV expected/kernel-a.spv
fatbin hip-a-compressed.o "$T/az.fb"; unbundle "$T/az.fb" $SPV expected/kernel-a-compressed.spv

# expected.tsv, from the tools. check FIXTURE INDEX ID COMPRESSION FILE EXPECTED
rows=()
check() {
    cmp "$5" "expected/$6" || { echo "$1 #$2: $5 differs from expected/$6" >&2; exit 1; }
    rows+=("$1	$2	$3	$4	$(stat -c %s "$5")	$6")
}
n=0
one() { # FIXTURE BUNDLE-FILE ID COMPRESSION EXPECTED: the bundler's view
    "$BUNDLER" -list -type=o -input="$2" | grep -qx -- "$3" \
        || { echo "$1: the bundler lists no entry $3" >&2; exit 1; }
    unbundle "$2" "$3" "$T/u$n.spv"
    check "$1" 0 "$3" "$4" "$T/u$n.spv" "$5"
    n=$((n + 1))
}
one dispatch.hipfb dispatch.hipfb $SPV - dispatch-chain.spv
one dispatch.ccob dispatch.ccob $SPV zstd dispatch-chain.spv
one dispatch-v2.ccob dispatch-v2.ccob $SPV zstd dispatch-chain.spv
one dispatch-zlib.ccob dispatch-zlib.ccob $SPV zlib dispatch-chain.spv
one dispatch-zlib-v2.ccob dispatch-zlib-v2.ccob $SPV zlib dispatch-chain.spv
one select-unaligned.hipfb select-unaligned.hipfb $SPV4 - select-pred.spv
one select.ccob select.ccob $SPV zstd select-pred.spv
for o in hip-a.o hip-a-compressed.o dispatch.o select.o; do
    fatbin $o "$T/$o.fb"
done
one hip-a.o "$T/hip-a.o.fb" $SPV - kernel-a.spv
one hip-a-compressed.o "$T/hip-a-compressed.o.fb" $SPV zstd kernel-a-compressed.spv
one dispatch.o "$T/dispatch.o.fb" $SPV - dispatch-chain.spv
one select.o "$T/select.o.fb" $SPV zstd select-pred.spv

# Linked files hold several bundles: the bundler reads only the first, so
# each bundle is cut out of .hip_fatbin where the linker put its object's
# section (link order, each at the next 4096-byte boundary) and unbundled
# alone; cmp checks the cut against the object's own section first.
linked() { # FILE INDEX OFFSET SIZE ID COMPRESSION EXPECTED OBJECT-SECTION
    fatbin "$1" "$T/$1.fb"
    dd if="$T/$1.fb" of="$T/$1.$2" bs=1 skip="$3" count="$4" status=none
    cmp "$T/$1.$2" "$8"
    unbundle "$T/$1.$2" "$5" "$T/$1.$2.spv"
    check "$1" "$2" "$5" "$6" "$T/$1.$2.spv" "$7"
}
size() { stat -c %s "$1"; }
align() { echo $(( ($1 + 4095) / 4096 * 4096 )); }
fatbin dispatch.o "$T/d.fb"; fatbin select.o "$T/s.fb"
linked app 0 0 "$(size "$T/d.fb")" $SPV - dispatch-chain.spv "$T/d.fb"
linked app 1 "$(align "$(size "$T/d.fb")")" "$(size "$T/s.fb")" $SPV zstd select-pred.spv "$T/s.fb"
fatbin "$T/dispatch-z.o" "$T/dz.fb"
linked libkernels.so 0 0 "$(size "$T/az.fb")" $SPV zstd kernel-a-compressed.spv "$T/az.fb"
linked libkernels.so 1 "$(align "$(size "$T/az.fb")")" "$(size "$T/dz.fb")" $SPV zstd dispatch-chain.spv "$T/dz.fb"

# llvm-objdump --offloading extracts the bundles of ELF files
# (FILE.INDEX.ID next to FILE). Its LLVM 22 writes the compressed bytes for a
# compressed bundle, not the entry, so only uncompressed bundles are compared.
for f in hip-a.o dispatch.o app; do
    cp $f "$T/$f"
    (cd "$T" && $OBJDUMP --offloading "$f" >/dev/null)
done
cmp "$T/hip-a.o.0.$SPV" expected/kernel-a.spv
cmp "$T/dispatch.o.0.$SPV" expected/dispatch-chain.spv
cmp "$T/app.0.$SPV" expected/dispatch-chain.spv
echo "llvm-objdump --offloading agrees on hip-a.o, dispatch.o, app (bundle 0)"

printf '%s\n' "# fixture	index	entry	compression	size	expected module (expected/)" "${rows[@]}" >expected.tsv
echo "wrote expected.tsv ($((${#rows[@]})) modules)"
