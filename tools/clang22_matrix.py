#!/usr/bin/env python3
"""Regenerates the clang-22 cross-check of the arch tables (tests/data/clang22/).

For about a hundred `__builtin_amdgcn_*` builtins spread over the feature
families of arch-tables/builtins.yaml, clang-22 compiles a call to each for
every processor it shares with our tables (and again with -mwavefrontsize64
on the dual-wave ones):

    clang-22 --target=amdgcn-amd-amdhsa -mcpu=<cpu> [-mwavefrontsize64] -x c \
        -S -emit-llvm -o /dev/null -ferror-limit=0 -D B_<builtin> builtins.c

clang checks a builtin's required features when it generates code (so
-fsyntax-only would accept everything): the call is accepted (1) or rejected
with "needs target feature" (0). tests/clang22_matrix.rs compares each cell
with our value of `has.<requirement>` and needs no clang.

Writes:
  tests/data/clang22/builtins.c   one function per builtin, each under #ifdef B_<name>
  tests/data/clang22/matrix.tsv   builtin, requirement, then one column per target:
                                  1 accepted, 0 rejected, - clang-22 lacks the builtin

Choosing the builtins: per distinct requirement string, the first builtins
(in table order) whose prototype clang-22 knows and whose call passes Sema
(-fsyntax-only on gfx950 and gfx1250; "needs target feature" there counts as
passing, since clang checks image builtins in Sema already); a requirement none of whose builtins clang-22
knows keeps its first builtin, marked `-`. Arguments: integer and bool
parameters get the literal 0 (constant arguments must be constants; CONSTANTS
below where 0 is out of range), others
are the function's own parameters.

Usage: tools/clang22_matrix.py [--jobs N]   (needs clang-22; about 2 minutes on 2 cores)
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "clang22")
CLANG = "clang-22"
BASE = [CLANG, "--target=amdgcn-amd-amdhsa", "-x", "c", "-ferror-limit=0"]

# How many builtins to take per requirement string (default 1): the big
# families get more, so that about a hundred builtins are compared.
PER_REQUIREMENT = {
    "": 3,
    "mai-insts": 4,
    "gfx950-insts": 4,
    "gfx1250-insts": 4,
    "gfx1250-insts,wavefrontsize32": 3,
    "image-insts": 2,
    "extended-image-insts": 2,
    "wmma-128b-insts,wavefrontsize32": 3,
    "wmma-128b-insts,wavefrontsize64": 3,
    "wmma-256b-insts,wavefrontsize32": 2,
    "wmma-256b-insts,wavefrontsize64": 2,
    "gfx12-insts": 2,
    "fp8-insts": 2,
    "gfx11-insts": 2,
    "16-bit-insts": 2,
    "flat-global-insts": 2,
    "gfx90a-insts": 2,
    "gfx10-insts": 2,
    "fp8-conversion-insts": 2,
}


def builtins():
    """(name, requirement) in table order."""
    text = open(os.path.join(ROOT, "arch-tables", "builtins.yaml")).read()
    main = text.split("\nr600_builtins:")[0].split("\npost_snapshot_changes:")[0]
    return re.findall(r'- \{name: (__builtin_amdgcn_\w+), requires: "([^"]*)"\}', main)


def processors():
    """(name, dual_wave) for every processor of our tables, in name order."""
    out = []
    for f in sorted(os.listdir(os.path.join(ROOT, "arch-tables"))):
        if not f.startswith("gfx"):
            continue
        text = open(os.path.join(ROOT, "arch-tables", f)).read()
        name = re.search(r"^name: (\S+)", text, re.M).group(1)
        sizes = re.search(r"^wavefront_sizes: \[([^\]]*)\]", text, re.M).group(1)
        out.append((name, "32" in sizes and "64" in sizes))
    return out


def clang_cpus():
    """The processors clang-22 lists (it prints them to stderr, tab-indented)."""
    r = subprocess.run([CLANG, "--target=amdgcn-amd-amdhsa", "--print-supported-cpus"],
                       capture_output=True, text=True)
    return {line.split()[0] for line in (r.stdout + r.stderr).splitlines() if line.startswith("\t")}


def prototypes(names):
    """Each builtin's type as clang-22 declares it (absent: clang-22 lacks it)."""
    src = "void f(void) {\n" + "".join(f"  {n};\n" for n in names) + "}\n"
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write(src)
    dump = subprocess.run(BASE + ["-mcpu=gfx950", "-Xclang", "-ast-dump", "-fsyntax-only", f.name],
                          capture_output=True, text=True).stdout
    os.unlink(f.name)
    found = {}
    for m in re.finditer(r"implicit used (__builtin_amdgcn_\w+) '(.*)' extern", dump):
        found[m.group(1)] = m.group(2)
    return found


def split_top(s, sep=","):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_type(t):
    """'RET (A, B)' -> (RET, [A, B]); None for variadic / unparsable types.
    clang prints a vector return type's attribute after the parameters:
    'short (float, float) __attribute__((ext_vector_type(2)))'."""
    trailing = re.match(r"^(.*\)) (__attribute__\(\(.*\)\))$", t)
    if trailing:
        parsed = parse_type(trailing.group(1))
        return parsed and (f"{parsed[0]} {trailing.group(2)}", parsed[1])
    if t.endswith("...)"):
        return None
    depth = 0
    for i in range(len(t) - 1, -1, -1):
        if t[i] == ")":
            depth += 1
        elif t[i] == "(":
            depth -= 1
            if depth == 0:
                ret, args = t[:i].strip(), t[i + 1:-1]
                params = [] if args.strip() in ("", "void") else split_top(args)
                return ret, params
    return None


# Constant arguments for which 0 is out of range (Sema: "invalid size value"):
# builtin -> {parameter index: argument}.
CONSTANTS = {
    "__builtin_amdgcn_raw_ptr_buffer_load_lds": {2: "4"},
    "__builtin_amdgcn_struct_ptr_buffer_load_lds": {2: "4"},
    "__builtin_amdgcn_load_to_lds": {2: "4"},
    "__builtin_amdgcn_global_load_lds": {2: "4"},
}

INTEGER = re.compile(r"^(const )?(unsigned |signed )?(_Bool|char|short|int|long|long long|unsigned int|unsigned)$")


def function(name, proto):
    """The C function calling `name`, or None when the prototype is unusable."""
    parsed = parse_type(proto)
    if parsed is None:
        return None
    ret, params = parsed
    decls, args = ["void *out"], []
    for i, p in enumerate(params):
        if INTEGER.match(p):
            args.append(CONSTANTS.get(name, {}).get(i, "0"))
        else:
            decls.append(f"{p} p{i}")
            args.append(f"p{i}")
    call = f"{name}({', '.join(args)})"
    body = f"{call};" if ret == "void" else f"__auto_type r = {call}; *(__typeof__(r) *)out = r;"
    return f"void k_{name}({', '.join(decls)}) {{ {body} }}"


def compile_one(src, name, cpu, wave64, syntax_only=False):
    cmd = BASE + [f"-mcpu={cpu}", f"-DB_{name}", src]
    if wave64:
        cmd.append("-mwavefrontsize64")
    cmd += ["-fsyntax-only"] if syntax_only else ["-S", "-emit-llvm", "-o", "/dev/null"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    errors = [l for l in r.stderr.splitlines() if ": error: " in l]
    return r.returncode, errors


def write_source(path, functions):
    with open(path, "w") as f:
        f.write("// Generated by tools/clang22_matrix.py: one call per builtin, each compiled alone\n"
                "// with -D B_<builtin> (see the script and tests/data/clang22/matrix.tsv).\n")
        for name, text in functions:
            f.write(f"#ifdef B_{name}\n{text}\n#endif\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()

    table = builtins()
    ours = processors()
    known_cpus = clang_cpus()
    columns = []
    for name, dual in ours:
        if name in known_cpus:
            columns.append((name, False))
            if dual:
                columns.append((name, True))
    print(f"{len(columns)} columns ({sum(1 for c in columns if not c[1])} processors clang-22 knows)")
    if len(columns) < 50:
        sys.exit(f"{CLANG} lists only {len(columns)} of our processors: is it clang-22 with the AMDGPU target?")

    protos = prototypes([n for n, _ in table])
    # Sema check of every usable candidate on every processor (cheap; -fsyntax-only).
    candidates = [(n, r, function(n, protos[n])) for n, r in table if n in protos]
    candidates = [(n, r, f) for n, r, f in candidates if f]
    os.makedirs(OUT, exist_ok=True)
    src = os.path.join(OUT, "builtins.c")
    write_source(src, [(n, f) for n, _, f in candidates])
    sema_ok = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = {pool.submit(compile_one, src, n, "gfx950", False, True): n for n, _, _ in candidates}
        futures.update({pool.submit(compile_one, src, n, "gfx1250", False, True): n for n, _, _ in candidates})
        for fut in concurrent.futures.as_completed(futures):
            n = futures[fut]
            rc, errors = fut.result()
            # Image builtins are checked in Sema already: "'k_…' needs target feature".
            fine = rc == 0 or (errors and all("needs target feature" in e for e in errors))
            sema_ok[n] = sema_ok.get(n, True) and bool(fine)

    # Choose per requirement string.
    chosen, taken = [], {}
    text_of = {n: f for n, _, f in candidates}
    for n, r in table:
        want = PER_REQUIREMENT.get(r, 1)
        if taken.get(r, 0) >= want:
            continue
        if n in text_of and sema_ok.get(n):
            chosen.append((n, r))
            taken[r] = taken.get(r, 0) + 1
    for n, r in table:  # requirements clang-22 knows no builtin of: keep one, marked '-'
        if r not in taken and n not in protos:
            chosen.append((n, r))
            taken[r] = 1
    for r in sorted({r for _, r in table} - set(taken)):
        print(f"no builtin requiring `{r}` compiles here; not compared")
    chosen.sort(key=lambda nr: [n for n, _ in table].index(nr[0]))
    print(f"{len(chosen)} builtins over {len(taken)} requirement strings")

    write_source(src, [(n, text_of[n]) for n, _ in chosen if n in text_of])

    jobs = [(n, cpu, w) for n, _ in chosen if n in text_of for cpu, w in columns]
    cells, problems = {}, []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = {pool.submit(compile_one, src, n, cpu, w): (n, cpu, w) for n, cpu, w in jobs}
        for fut in concurrent.futures.as_completed(futures):
            n, cpu, w = futures[fut]
            rc, errors = fut.result()
            if rc == 0:
                cells[(n, cpu, w)] = "1"
            elif errors and all("needs target feature" in e for e in errors):
                cells[(n, cpu, w)] = "0"
            else:
                problems.append(f"{n} on {cpu}{'+wave64' if w else ''}: {errors[:2]}")
    if problems:
        sys.exit(f"{len(problems)} unexpected clang-22 errors, the first:\n" + "\n".join(sorted(problems)[:20]))

    version = subprocess.run([CLANG, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    with open(os.path.join(OUT, "matrix.tsv"), "w") as f:
        f.write(f"# {version}; generated by tools/clang22_matrix.py from tests/data/clang22/builtins.c:\n"
                "#   clang-22 --target=amdgcn-amd-amdhsa -mcpu=<cpu> [-mwavefrontsize64] -x c -ferror-limit=0 \\\n"
                "#            -S -emit-llvm -o /dev/null -D B_<builtin> builtins.c\n"
                "# 1 = accepted, 0 = rejected (\"needs target feature\"), - = clang-22 lacks the builtin.\n")
        f.write("builtin\trequires\t" + "\t".join(c + ("+wave64" if w else "") for c, w in columns) + "\n")
        for n, r in chosen:
            row = [cells.get((n, c, w), "-") if n in text_of else "-" for c, w in columns]
            f.write(f"{n}\t{r}\t" + "\t".join(row) + "\n")
    print(f"wrote {os.path.relpath(OUT, ROOT)}/matrix.tsv: {len(chosen)} x {len(columns)}")


if __name__ == "__main__":
    main()
