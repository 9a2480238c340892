#!/usr/bin/env python3
"""Adds a feature-predicate table to a Shader module's disassembly.

Usage: add_table.py IN.spvasm OUT.spvasm "has.mai-insts 0" "is.gfx1100 1" ...

GLSL cannot declare `llvm.amdgcn.feature.predicate.ids`, so the structured
golden cases get it here: `OpCapability Int8`, an OpName, a uchar array with
the entries' bytes (zero bytes as OpConstantNull %uchar, as llc-22 writes
them) and a Private OpVariable initialised with it, placed before the first
OpFunction. The spec constants' SpecIds come from glslang's constant_id.
"""
import sys

src, dst, *entries = sys.argv[1:]
data = b"".join(e.encode() + b"\0" for e in entries)
lines = open(src).read().splitlines()
# Reuse the module's 32-bit unsigned int type: types may not be declared twice.
u32 = next((l.split("=")[0].strip() for l in lines if l.strip().endswith("= OpTypeInt 32 0")
            or l.split("=")[-1].strip() == "OpTypeInt 32 0"), None)
out = []
done_cap = done_name = done_decl = False
for line in lines:
    s = line.strip()
    if not done_cap and s.startswith("OpCapability"):
        out.append(line)
        out.append("               OpCapability Int8")
        done_cap = True
        continue
    if not done_name and s.startswith("OpName"):
        out.append('               OpName %ids "llvm.amdgcn.feature.predicate.ids"')
        done_name = True
    if not done_decl and "OpFunction " in s:
        out.append("%t_uchar = OpTypeInt 8 0")
        if u32 is None:
            out.append("%t_u32 = OpTypeInt 32 0")
        out.append("%%t_len = OpConstant %s %d" % (u32 or "%t_u32", len(data)))
        out.append("%t_arr = OpTypeArray %t_uchar %t_len")
        out.append("%t_ptr = OpTypePointer Private %t_arr")
        out.append("%t_b0 = OpConstantNull %t_uchar")
        for b in sorted(set(data) - {0}):
            out.append("%%t_b%d = OpConstant %%t_uchar %d" % (b, b))
        out.append("%t_init = OpConstantComposite %t_arr " + " ".join("%%t_b%d" % b for b in data))
        out.append("%ids = OpVariable %t_ptr Private %t_init")
        done_decl = True
    out.append(line)
open(dst, "w").write("\n".join(out) + "\n")
