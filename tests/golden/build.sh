#!/usr/bin/env bash
# Rebuilds every tests/golden/<case>/input.spv from its source and validates it.
#
#   <case>/input.ll      -> llc-22 -O0 -mtriple=spirv64-amd-amdhsa -filetype=obj input.ll -o input.spv
#                           spirv-val input.spv                      (default/universal env)
#   <case>/input.llvm15.ll -> (the SPIRV-LLVM-Translator as producer) LLVM 15 IR with typed pointers:
#                           llvm-as-15 input.llvm15.ll -o - |
#                           llvm-spirv-15 --spirv-allow-unknown-intrinsics=llvm.amdgcn. - -o input.spv
#                           spirv-val input.spv   (SPIR-V 1.1; `OpConstant %uchar 0` for the zero bytes)
#   <case>/table.txt     -> (structured-loops) input.comp compiled by glslangValidator, the
#                           table of table.txt added by add_table.py, assembled by spirv-as
#   <case>/input.spvasm  -> (structured-glsl) input.spvasm was derived BY HAND from the
#                           glslang output of input.comp (see its header).  This script
#                           recompiles input.comp with glslangValidator into a temp file,
#                           checks that the hand-edited assembly still matches it apart from
#                           the added table, then
#                           spirv-as --target-env spv1.0 --preserve-numeric-ids input.spvasm -o input.spv
#                           spirv-val --target-env vulkan1.2 input.spv   (Shader module: vulkan1.2;
#                           the default env accepts it too)
#
# Tools: llc-22 (Debian llvm-22), llvm-as-15 (Debian llvm-15) and llvm-spirv-15 (Debian
#        llvm-spirv-15), glslangValidator (glslang-tools),
#        spirv-as / spirv-dis / spirv-val (Debian spirv-tools 2023.1).
# Exits non-zero if any step fails.
set -u
cd "$(dirname "$0")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0

check_shape() {   # sanity: table, SpecId and OpSpecConstantFalse present (cases with a table)
  local c=$1 dis=$TMP/$1.dis
  spirv-dis "$c/input.spv" -o "$dis" || return 1
  if [ "$c" = no-table ]; then
    if grep -qE 'SpecId|llvm.amdgcn.feature.predicate.ids' "$dis"; then echo "$c: unexpected predicate"; return 1; fi
    return 0
  fi
  grep -q 'OpName %llvm_amdgcn_feature_predicate_ids "llvm.amdgcn.feature.predicate.ids"' "$dis" \
    && grep -q 'SpecId' "$dis" && grep -q 'OpSpecConstantFalse' "$dis" \
    && grep -qE 'OpConstantNull %uchar|OpConstant %uchar 0$' "$dis" \
    || { echo "$c: table / SpecId / OpSpecConstantFalse / zero byte (OpConstantNull or OpConstant %uchar 0) missing"; return 1; }
}

for dir in */; do
  c=${dir%/}
  if [ -f "$c/input.ll" ]; then
    if llc-22 -O0 -mtriple=spirv64-amd-amdhsa -filetype=obj "$c/input.ll" -o "$c/input.spv" \
       && spirv-val "$c/input.spv" && check_shape "$c"; then
      echo "$c: ok (llc-22 -O0, spirv-val)"
    else
      echo "$c: FAILED"; fail=1
    fi
  elif [ -f "$c/input.llvm15.ll" ]; then
    if llvm-as-15 "$c/input.llvm15.ll" -o "$TMP/$c.bc" \
       && llvm-spirv-15 --spirv-allow-unknown-intrinsics=llvm.amdgcn. "$TMP/$c.bc" -o "$c/input.spv" \
       && spirv-val "$c/input.spv" && check_shape "$c"; then
      echo "$c: ok (llvm-as-15 + llvm-spirv-15, spirv-val)"
    else
      echo "$c: FAILED"; fail=1
    fi
  elif [ -f "$c/table.txt" ]; then
    # GLSL with constant_id booleans; add_table.py adds the predicate table
    # (one "<name> <SpecId>" entry per line of table.txt) to glslang's output.
    mapfile -t entries <"$c/table.txt"
    if glslangValidator -V "$c/input.comp" -o "$TMP/$c.glslang.spv" >/dev/null \
       && spirv-dis --raw-id "$TMP/$c.glslang.spv" -o "$TMP/$c.raw.spvasm" \
       && python3 add_table.py "$TMP/$c.raw.spvasm" "$c/input.spvasm" "${entries[@]}" \
       && spirv-as --target-env spv1.0 "$c/input.spvasm" -o "$c/input.spv" \
       && spirv-val --target-env vulkan1.2 "$c/input.spv" && check_shape "$c"; then
      echo "$c: ok (glslangValidator + add_table.py + spirv-as, spirv-val --target-env vulkan1.2)"
    else
      echo "$c: FAILED"; fail=1
    fi
  elif [ -f "$c/input.spvasm" ]; then
    ok=1
    if [ -f "$c/input.comp" ]; then
      glslangValidator -V "$c/input.comp" -o "$TMP/$c.glslang.spv" >/dev/null || ok=0
      if [ $ok = 1 ]; then
        # the hand-edited assembly minus the added lines must equal glslang's output
        spirv-dis "$TMP/$c.glslang.spv" | grep -v '^;' >"$TMP/$c.glslang.txt"
        sed '/^; ---- added by hand/,/^; ---- end of the added table/d' "$c/input.spvasm" \
          | grep -v '^;' | grep -v 'OpCapability Int8' \
          | grep -v 'OpName %llvm_amdgcn_feature_predicate_ids' >"$TMP/$c.edited.txt"
        if ! diff -q "$TMP/$c.glslang.txt" "$TMP/$c.edited.txt" >/dev/null; then
          echo "$c: WARNING: input.spvasm no longer matches glslangValidator's output of input.comp"
          diff "$TMP/$c.glslang.txt" "$TMP/$c.edited.txt" | head -20
        fi
      fi
    fi
    if [ $ok = 1 ] \
       && spirv-as --target-env spv1.0 --preserve-numeric-ids "$c/input.spvasm" -o "$c/input.spv" \
       && spirv-val --target-env vulkan1.2 "$c/input.spv" && spirv-val "$c/input.spv" \
       && check_shape "$c"; then
      echo "$c: ok (glslangValidator + spirv-as, spirv-val --target-env vulkan1.2)"
    else
      echo "$c: FAILED"; fail=1
    fi
  fi
done

if [ $fail = 0 ]; then echo "all golden inputs built and valid"; else echo "SOME GOLDEN INPUTS FAILED"; fi
exit $fail
