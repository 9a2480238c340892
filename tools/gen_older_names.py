#!/usr/bin/env python3
"""Prints the names SPIRV-Tools 2023.1 gives where 2025.5 gives another.

Usage: tools/gen_older_names.py OLD_HEADERS NEW_HEADERS

Both arguments are checkouts of https://github.com/KhronosGroup/SPIRV-Headers:
OLD_HEADERS at d13b52222c39a7e9a401b44646f0ca3a640fbd47 (SPIRV-Tools v2023.1's
DEPS, Debian 12's spirv-tools), NEW_HEADERS at
b824a462d4256d720bebb40e78b9eb8f78bbb305 (SPIRV-Tools v2025.5's). For every
opcode and enumerant value both grammars have, spirv-dis prints the first
name listed; where that name changed (the old one became an alias), this
prints `("new", "old"),`: the body of `OLDER_NAMES` in tests/disasm.rs.
"""
import json
import pathlib
import sys


def grammar(root):
    path = pathlib.Path(root) / "include/spirv/unified1/spirv.core.grammar.json"
    return json.load(open(path))


def first_names(kind):
    names = {}
    for e in kind.get("enumerants", []):
        v = e["value"]
        names.setdefault(int(v, 0) if isinstance(v, str) else v, e["enumerant"])
    return names


old, new = grammar(sys.argv[1]), grammar(sys.argv[2])
pairs = []
old_ops = {i["opcode"]: i["opname"] for i in old["instructions"]}
for i in new["instructions"]:
    if old_ops.get(i["opcode"], i["opname"]) != i["opname"]:
        pairs.append((i["opname"], old_ops[i["opcode"]]))
old_kinds = {k["kind"]: first_names(k) for k in old["operand_kinds"]}
for k in new["operand_kinds"]:
    before = old_kinds.get(k["kind"], {})
    for v, name in first_names(k).items():
        if before.get(v, name) != name:
            pairs.append((name, before[v]))
for ours, theirs in dict.fromkeys(pairs):
    print(f'    ("{ours}", "{theirs}"),')
