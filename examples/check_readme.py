#!/usr/bin/env python3
"""The README's C code is the code CI builds: every ```c block of README.md
must be a run of whole lines of one examples/*.c file (that run's common
indentation removed), and examples/quickstart.c must be quoted whole.
Prints which file and lines each block is; exits 1 naming a block that is
in no file. Usage: python3 examples/check_readme.py [README.md]"""
import glob
import os
import re
import sys
import textwrap

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
readme = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "README.md")
blocks = re.findall(r"^```c\n(.*?)^```$", open(readme).read(), re.S | re.M)
files = {os.path.relpath(p, root): open(p).read().splitlines()
         for p in sorted(glob.glob(os.path.join(root, "examples", "*.c")))}


def find(block):
    want = block.splitlines()
    for name, lines in files.items():
        for i in range(len(lines) - len(want) + 1):
            run = "\n".join(lines[i:i + len(want)])
            if textwrap.dedent(run).splitlines() == want:
                return name, i + 1, i + len(want)
    return None


bad = 0
whole = set()
if not blocks:
    print(f"{readme}: no ```c block")
    bad = 1
for n, block in enumerate(blocks, 1):
    where = find(block)
    if where is None:
        first = block.splitlines()[0] if block.strip() else ""
        print(f"FAIL README C block {n} ('{first}' ...) is in no examples/*.c file "
              "(copy the file's lines, or change the file and quote it again)")
        bad = 1
        continue
    name, a, b = where
    if a == 1 and b == len(files[name]):
        whole.add(name)
    print(f"ok   README C block {n} = {name} lines {a}-{b}")
if "examples/quickstart.c" not in whole:
    print("FAIL examples/quickstart.c is not quoted whole in the README")
    bad = 1
sys.exit(bad)
