#!/usr/bin/env python3
"""The library's floors (docs/architecture.md, "The floors"), checked.

  python3 scripts/check_layers.py [BUILD_DIR]

Without BUILD_DIR: the include graph of src/ (every #include "..."). With
it: also the call graph of the objects that BUILD_DIR compiled from src/
(nm: which file's object defines each symbol another one uses). Fails
(exit 1, one line per finding) on
  - a cycle: files that include, or call, each other round a circle;
  - an upward edge: a file that includes or calls one on a higher floor;
  - a sideways edge between rooms that must not know each other (the
    format folders bvh/ and gltf/; the CLI and the Python extension).
Floors, lowest first (a file may use its own floor and those below):
  0 contract  src/internal.h, src/quat64.h: the kernel table and the
              internal types both sides of it share
  1 kernels   src/simd/
  2 core      src/*.c, src/*.h: entry points, checks, dispatch; and the
              skeleton room's work over arrays (src/skeleton/: model space,
              skinning, root motion, mirroring, features)
  3 io base   src/io/*: errors, file rules, temporaries, number text, Euler
  4 formats   src/io/bvh/, src/io/gltf/ (sideways: neither uses the other)
  5 io top    src/io/convert/, formats.c: the table of formats; and the
              skeleton room's work over whole clips (src/skeleton/:
              retarget*, joint_names, mirror.c), which reads the formats
  6 clients   src/cli/, src/python/ (sideways: neither uses the other)
"""
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
IO_TOP = {"formats.c"}
# src/skeleton/: the files over whole clips (pb_bvh), on floor 5; the rest
# of the room, over arrays, on floor 2
SKELETON_CLIPS = {"mirror.c", "retarget.c", "retarget_map.c", "retarget_names.c",
                  "retarget_names.h", "joint_names.c", "joint_names.h"}


def floor(rel):
    """(floor, room) of a path relative to src/."""
    parts = rel.split("/")
    if rel in ("internal.h", "quat64.h"):
        return 0, "contract"
    if parts[0] == "simd":
        return 1, "kernels"
    if len(parts) == 1:
        return 2, "core"
    if parts[0] == "skeleton" and len(parts) == 2:
        return (5, "skeleton clips") if parts[1] in SKELETON_CLIPS else (2, "skeleton")
    if parts[0] == "io":
        if len(parts) == 2:
            return (5, "io top") if parts[1] in IO_TOP else (3, "io base")
        if parts[1] in ("bvh", "gltf"):
            return 4, parts[1]
        if parts[1] == "convert":
            return 5, "io top"
    if parts[0] in ("cli", "python"):
        return 6, parts[0]
    return None


def sources():
    out = []
    for d, _, files in os.walk(SRC):
        for f in files:
            if f.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(d, f), SRC))
    return sorted(out)


def include_graph(files):
    """file -> {included file}: a name resolves beside the includer first,
    then by its file name anywhere under src/ (the build's include paths
    are flat per room)."""
    by_name = collections.defaultdict(list)
    for f in files:
        by_name[os.path.basename(f)].append(f)
    g = {}
    for f in files:
        edges = set()
        with open(os.path.join(SRC, f), encoding="utf-8") as fh:
            for line in fh:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                name = m.group(1)
                near = os.path.normpath(os.path.join(os.path.dirname(f), name))
                if near in files:
                    edges.add(near)
                elif len(by_name.get(os.path.basename(name), [])) == 1:
                    edges.add(by_name[os.path.basename(name)][0])
                elif not name.startswith("posebatch"):
                    edges.add("?" + name)
        g[f] = edges
    return g


def call_graph(build, files):
    """src file -> {(src file, symbol)} over the objects BUILD compiled from
    src/: the shared library's, the kernel libraries', the CLI's and the
    Python extension's (a file compiled into several targets is read once).
    meson puts a target's objects in BUILD/src/<dir>/<target>.p/, named
    after the source's path below <dir> with '/' as '_'."""
    top = os.path.join(build, "src")
    defs, uses, seen = {}, collections.defaultdict(set), set()
    for d, _, names in sorted(os.walk(top)):
        target = os.path.basename(d)
        if not (target.startswith(("libposebatch.so", "libpb_kernels_", "posebatch.p",
                                   "_posebatch", "_cref"))):
            continue
        rel = os.path.relpath(os.path.dirname(d), top)
        rel = "" if rel == "." else rel + "/"
        for n in sorted(names):
            src = next((f for f in files if f.startswith(rel) and
                        f[len(rel):].replace("/", "_") == n[:-2]), None)
            if not n.endswith(".c.o") or src is None or src in seen:
                continue
            seen.add(src)
            nm = subprocess.run(["nm", os.path.join(d, n)], capture_output=True, text=True,
                                check=True).stdout
            for line in nm.splitlines():
                p = line.split()
                if len(p) == 3 and p[1] in "TDBRC":
                    defs[(program(src), p[2])] = src
                elif len(p) == 2 and p[0] == "U":
                    uses[src].add(p[1])
    g = collections.defaultdict(set)
    for src, syms in uses.items():
        for s in syms:
            # within the client's own program first, then in the library
            d = defs.get((program(src), s)) or defs.get(("lib", s))
            if d and d != src:
                g[src].add((d, s))
    return g, len(seen)


def program(src):
    """the program a file is linked into: a client's own, or the library"""
    room = src.split("/")[0]
    return room if room in ("cli", "python") else "lib"


def cycles(g):
    """the strongly connected components of more than one node"""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def bad_edge(a, b):
    """why a may not use b, or None"""
    fa, fb = floor(a), floor(b)
    if fa is None or fb is None:
        return None
    if fb[0] > fa[0]:
        return "upward (%s, floor %d -> %s, floor %d)" % (fa[1], fa[0], fb[1], fb[0])
    if fa[0] == fb[0] and fa[1] != fb[1] and fa[0] in (4, 6):
        return "sideways (%s -> %s)" % (fa[1], fb[1])
    return None


def main():
    files = sources()
    problems = []
    inc = include_graph(files)
    for f, edges in sorted(inc.items()):
        for e in sorted(edges):
            if e.startswith("?"):
                problems.append("%s: includes %s, which is ambiguous or missing" % (f, e[1:]))
            elif bad_edge(f, e):
                problems.append("%s includes %s: %s" % (f, e, bad_edge(f, e)))
    for comp in cycles({f: {e for e in es if not e.startswith("?")} for f, es in inc.items()}):
        problems.append("include cycle: " + " <-> ".join(comp))
    report = "%d files' includes" % len(files)
    if len(sys.argv) > 1:
        calls, nobj = call_graph(sys.argv[1], set(files))
        if nobj == 0:
            print("check_layers: no objects under %s/src" % sys.argv[1], file=sys.stderr)
            return 2
        for f, edges in sorted(calls.items()):
            for e, sym in sorted(edges):
                if bad_edge(f, e):
                    problems.append("%s calls %s (%s): %s" % (f, e, sym, bad_edge(f, e)))
        plain = {f: {e for e, _ in es} for f, es in calls.items()}
        for comp in cycles(plain):
            why = ["%s -> %s (%s)" % (a, b, s) for a in comp for b, s in sorted(calls[a]) if b in comp]
            problems.append("call cycle: " + "; ".join(why))
        report += " and %d objects' calls" % nobj
    for p in problems:
        print(p)
    print("check_layers: %s: %d problem(s)" % (report, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
