#!/usr/bin/env python3
"""Lines of Rust per op, median over every registered op (issue 29's measure).

Each op is charged the code lines (not blank, not comments) of the source file that defines
it, divided by the number of ops that file defines, so helpers shared by a file's ops count
too. An op is defined by the first file (in path order) that registers or declares ops
(`register(`, `#[op(`) and names its id as a string literal; ops whose ids are built at run time (`math.sin` from a table of `sin`)
are left out, and the count of those found is printed.

    python3 scripts/lines-per-op.py [REV]      # REV: a git revision (default: the work tree)

The op ids come from `kiln ops` (target/release/kiln, or KILN=path).
"""
import os
import re
import statistics
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
rev = sys.argv[1] if len(sys.argv) > 1 else None
kiln = os.environ.get("KILN", os.path.join(root, "target/release/kiln"))
ids = [
    l.split()[0]
    for l in subprocess.run([kiln, "ops"], capture_output=True, text=True, check=True).stdout.splitlines()
    if l and not l[0].isspace() and not l.startswith("@")
]


def files():
    if rev:
        out = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "crates"], cwd=root,
                             capture_output=True, text=True, check=True).stdout.split()
    else:
        out = subprocess.run(["git", "ls-files", "crates"], cwd=root, capture_output=True,
                             text=True, check=True).stdout.split()
    return [f for f in out if f.endswith(".rs") and "/src/" in f and "/tests/" not in f]


def text(path):
    if rev:
        return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, capture_output=True,
                              text=True, check=True).stdout
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def code_lines(src):
    n = 0
    for line in src.splitlines():
        s = line.strip()
        if s and not s.startswith("//"):
            n += 1
    return n


defines = {}
taken = set()
for path in sorted(files()):
    src = text(path)
    if "register(" not in src and "op(" not in src:
        continue
    lines = src.splitlines()
    here = []
    for op in ids:
        if op in taken:
            continue
        lit = '"%s"' % op
        for i, line in enumerate(lines):
            if lit not in line:
                continue
            here.append(op)
            break
    if here:
        taken.update(here)
        defines[path] = (code_lines(src), here)

per_op = {}
for path, (n, ops) in defines.items():
    for op in ops:
        per_op.setdefault(op, n / len(ops))
missing = [op for op in ids if op not in per_op]
values = sorted(per_op.values())
print(f"{len(per_op)} of {len(ids)} ops found in {len(defines)} files"
      + (f" (not found: {', '.join(missing)})" if missing else ""))
print(f"lines per op: median {statistics.median(values):.1f}, mean {statistics.mean(values):.1f}")
