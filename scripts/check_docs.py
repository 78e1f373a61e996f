#!/usr/bin/env python3
"""The documentation's two promises, checked (CI stage 0).

  python3 scripts/check_docs.py

- docs/api.md lists every PB_API function of include/posebatch.h and
  include/posebatch/*.h, each as `name(args)` with the header's number of
  arguments, and names nothing the headers lack.
- Every relative link of README.md and docs/*.md leads to a file that
  exists and, with a #fragment into a Markdown file, to one of its headings
  (GitHub's anchor rule: lower case, punctuation dropped, blanks as '-').
Exit 1 with one line per finding."""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def count_args(text):
    text = text.strip()
    return 0 if text in ("", "void") else text.count(",") + 1


def api_problems():
    headers = read("include/posebatch.h") + "".join(
        read(os.path.relpath(p, ROOT))
        for p in sorted(glob.glob(os.path.join(ROOT, "include", "posebatch", "*.h"))))
    decl = {m.group(1): count_args(m.group(2))
            for m in re.finditer(r"PB_API[^;]*?\b(pb_[a-z0-9_]+)\s*\(([^)]*)\)\s*;", headers,
                                 re.S)}
    listed, out = set(), []
    for m in re.finditer(r"`(pb_[a-z0-9_]+)\(([^)`]*)\)`", read("docs/api.md")):
        name, n = m.group(1), count_args(m.group(2))
        listed.add(name)
        if name not in decl:
            out.append("docs/api.md: %s is not in the headers" % name)
        elif decl[name] != n:
            out.append("docs/api.md: %s with %d arguments, %d in the header" % (name, n, decl[name]))
    out += ["docs/api.md: %s (in the headers) is not listed" % name
            for name in sorted(decl) if name not in listed]
    return out, len(decl)


def anchors(rel):
    out, seen, code = set(), {}, False
    for line in read(rel).splitlines():
        if line.startswith("```"):
            code = not code
            continue
        m = None if code else re.match(r"#{1,6}\s+(.*)", line)
        if not m:
            continue
        a = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        out.add(a if a not in seen else "%s-%d" % (a, seen[a]))
        seen[a] = seen.get(a, 0) + 1
    return out


def link_problems():
    files = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                                   for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    out, n = [], 0
    for f in files:
        text = re.sub(r"```.*?```", "", read(f), flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            n += 1
            path, _, frag = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(os.path.join(ROOT, full)):
                out.append("%s: %s does not exist" % (f, target))
            elif frag and full.endswith(".md") and frag not in anchors(full):
                out.append("%s: %s has no such heading" % (f, target))
    return out, n


def main():
    api, nfun = api_problems()
    links, nlinks = link_problems()
    for p in api + links:
        print(p)
    print("check_docs: %d public functions, %d relative links: %d problem(s)"
          % (nfun, nlinks, len(api) + len(links)))
    return 1 if api or links else 0


if __name__ == "__main__":
    sys.exit(main())
