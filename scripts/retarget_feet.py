#!/usr/bin/env python3
"""Retargeting between different skeletons: do the feet stay on the ground,
and does the torso bend? (issue 47, part 6; a measurement tool, not a test).

For every ordered pair of shared clips from different skeletons (CMU, CMU
3ds Max, Bandai, PyMO) it runs

    posebatch retarget SRC --to TARGET_CLIP -o out.bvh -v
    posebatch positions out.bvh --rotations -o out.npy

and compares the result with the target skeleton's own clips (all clips of
its family: cmu_*, cmu3dsmax_*, bandai_*, pymo_*), in % of the target's leg
length (hip-to-ankle chain of its rest pose, the mean of both sides):

- low: the lowest foot point (foot/ankle and toe joints, both sides) over
  the whole clip, retargeted minus own;
- contact: the 5th percentile over frames of the per-frame lowest foot
  point, retargeted minus own (where the feet are when they are down);
- ankle: the 5th-95th percentile range of the ankle joints' heights,
  retargeted and own (% of leg length);
- stiff: the target's torso and neck joints (spine, chest, neck, lower
  back names, below the matched hips, with a matched joint below them): how
  many of them never leave their rest pose (local rotation under 0.01
  degrees in every frame), out of how many (a joint whose part of the
  source has no joint, e.g. a neck onto PyMO's Spine -> Head, rightly
  stays);
- torso, neck: the 95th percentile over frames of the angle (degrees)
  between the source's and the retargeted clip's direction from the hips
  to the shoulders (the midpoint of the upper-arm joints), and from the
  shoulders to the head: how much of the torso's and the neck's bend
  reaches the shoulders' and the head's positions.

Usage: scripts/retarget_feet.py [--cli build/src/cli/posebatch]
                                [--data ../shared/data] [--markdown]
Needs numpy. The clips are read from DATA/mocap and this repository's
data/ (cmu_01_03.bvh, which is also the shared one).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

FAMILIES = [("cmu3dsmax", "cmu3dsmax_"), ("cmu", "cmu_"), ("bandai", "bandai_"), ("pymo", "pymo_")]


# the upper-arm joints (the shoulder joints proper) of each family
ARMS = {
    "cmu": ("LeftArm", "RightArm"),
    "cmu3dsmax": ("LeftShoulder", "RightShoulder"),
    "bandai": ("UpperArm_L", "UpperArm_R"),
    "pymo": ("LeftArm", "RightArm"),
}


def family_of(name):
    for fam, prefix in FAMILIES:
        if name.startswith(prefix):
            return fam
    return None


def hierarchy(path):
    """names, parents, offsets (J x 3) of a BVH file's HIERARCHY"""
    names, parents, offsets, stack = [], [], [], []
    pending, in_end = None, False
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] in ("ROOT", "JOINT"):
                names.append(" ".join(w[1:]))
                parents.append(stack[-1] if stack else -1)
                pending = len(names) - 1
            elif w[0] == "End":
                in_end = True
            elif w[0] == "{":
                stack.append(("end", stack[-1]) if in_end else pending)
            elif w[0] == "}":
                top = stack.pop()
                if isinstance(top, tuple):
                    in_end = False
            elif w[0] == "OFFSET" and not in_end:
                offsets.append([float(x) for x in w[1:4]])
            elif w[0] == "MOTION":
                break
    return names, parents, np.array(offsets)


def side(name):
    if re.search(r"(^Left|^L(?=[A-Z])|_L$|\.L$)", name):
        return "L"
    if re.search(r"(^Right|^R(?=[A-Z])|_R$|\.R$)", name):
        return "R"
    return None


def kind(name):
    n = name.lower()
    if "toe" in n:
        return "toe"
    if "foot" in n or "ankle" in n:
        return "foot"
    if "joint" not in n and re.search(r"(upleg|upperleg|thigh|hip)", n) and side(name):
        return "upleg"
    return None


def legs(names, parents, offsets):
    """per side (upleg, foot) indices and the mean hip-to-ankle chain length"""
    lengths = []
    for s in "LR":
        up = [j for j, n in enumerate(names) if kind(n) == "upleg" and side(n) == s]
        ft = [j for j, n in enumerate(names) if kind(n) == "foot" and side(n) == s]
        if not up or not ft:
            continue
        length, j = 0.0, ft[0]
        while j >= 0 and j != up[0]:
            length += float(np.linalg.norm(offsets[j]))
            j = parents[j]
        if j == up[0]:
            lengths.append(length)
    return float(np.mean(lengths)) if lengths else float("nan")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return r.stderr


def positions(cli, path, tmp):
    out = os.path.join(tmp, "p.npy")
    run([cli, "positions", path, "--rotations", "-o", out])
    return np.load(out).astype(np.float64)


def qmul(a, b):
    w1, x1, y1, z1 = np.moveaxis(a, -1, 0)
    w2, x2, y2, z2 = np.moveaxis(b, -1, 0)
    return np.stack(
        [
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        ],
        -1,
    )


def local_angles(X, parents):
    """per frame and joint: the angle (degrees) of the local rotation"""
    q = X[..., 3:7]
    loc = q.copy()
    for j, p in enumerate(parents):
        if p >= 0:
            inv = q[:, p] * np.array([1, -1, -1, -1])
            loc[:, j] = qmul(inv, q[:, j])
    w = np.clip(np.abs(loc[..., 0]) / np.linalg.norm(loc, axis=-1), 0, 1)
    return np.degrees(2 * np.arccos(w))


def foot_stats(X, names):
    feet = [j for j, n in enumerate(names) if kind(n) in ("foot", "toe")]
    ankles = [j for j, n in enumerate(names) if kind(n) == "foot"]
    low = X[:, feet, 1].min(axis=1)
    return low.min(), np.percentile(low, 5), X[:, ankles, 1].ravel()


def matching(stderr, names):
    """target joint -> source joint name or None, from retarget -v"""
    m = {}
    for line in stderr.splitlines():
        g = re.match(r"posebatch:\s+(\S.*?)\s+<- (.*)$", line)
        if g and g.group(1) in names:
            m[g.group(1)] = None if g.group(2) == "(rest)" else g.group(2)
    return m


SPINE = re.compile(r"^(spine\d*|chest\d*|upperchest|neck\d*|lowerneck|lowerback|back)$", re.I)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "src", "cli", "posebatch"))
    ap.add_argument("--data", default=os.environ.get("PB_SHARED_DATA_DIR", os.path.join(REPO, "..", "shared", "data")))
    ap.add_argument("--markdown", action="store_true", help="a Markdown table")
    a = ap.parse_args()
    mocap = os.path.join(a.data, "mocap")
    clips = {}
    for d in (os.path.join(REPO, "data"), mocap):
        if os.path.isdir(d):
            for f in sorted(os.listdir(d)):
                if f.endswith(".bvh") and family_of(f) and f not in clips:
                    clips[f] = os.path.join(d, f)
    fams = {}
    for f, p in clips.items():
        fams.setdefault(family_of(f), []).append(p)
    with tempfile.TemporaryDirectory() as tmp:
        own = {}
        for fam, paths in fams.items():
            names, parents, offsets = hierarchy(paths[0])
            lows, contacts, ank = [], [], []
            for p in paths:
                lo, co, an = foot_stats(positions(a.cli, p, tmp), names)
                lows.append(lo), contacts.append(co), ank.append(an)
            an = np.concatenate(ank)
            own[fam] = dict(
                leg=legs(names, parents, offsets),
                low=min(lows),
                contact=min(contacts),
                ankle=(np.percentile(an, 5), np.percentile(an, 95)),
            )
        rows = []
        for sname, spath in clips.items():
            sf = family_of(sname)
            sn, sp, _ = hierarchy(spath)
            S = None
            for tf, tpaths in fams.items():
                if tf == sf:
                    continue
                tpath = tpaths[0]
                out = os.path.join(tmp, "out.bvh")
                err = run([a.cli, "retarget", spath, "--to", tpath, "-o", out, "-v"])
                tn, tp, _ = hierarchy(tpath)
                m = matching(err, tn)
                X = positions(a.cli, out, tmp)
                if S is None:
                    S = positions(a.cli, spath, tmp)
                o = own[tf]
                L = o["leg"]
                lo, co, an = foot_stats(X, tn)
                # torso and neck joints: below the matched hips, with a
                # matched joint below them
                root = next(j for j, n in enumerate(tn) if m.get(n))
                below = [False] * len(tn)
                for j in range(len(tn)):
                    below[j] = j == root or (tp[j] >= 0 and below[tp[j]])
                has_matched_below = [False] * len(tn)
                for j in range(len(tn) - 1, 0, -1):
                    if m.get(tn[j]) or has_matched_below[j]:
                        if tp[j] >= 0:
                            has_matched_below[tp[j]] = True
                chain = [
                    j
                    for j in range(len(tn))
                    if below[j] and j != root and has_matched_below[j] and SPINE.match(tn[j])
                ]
                ang = local_angles(X, tp)
                stiff = sum(1 for j in chain if ang[:, j].max() < 0.01)
                # hips -> shoulders -> head directions
                def angle(a, b):
                    c = np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
                    return np.percentile(np.degrees(np.arccos(np.clip(c, -1, 1))), 95)

                def points(P, names, fam, hips):
                    arms = [names.index(n) for n in ARMS[fam]]
                    mid = P[:, arms, :3].mean(axis=1)
                    return P[:, hips, :3], mid, P[:, names.index("Head"), :3]

                th, tm, tH = points(X, tn, tf, root)
                sh, sm, sH = points(S, sn, sf, sn.index(m[tn[root]]))
                torso, neck = angle(tm - th, sm - sh), angle(tH - tm, sH - sm)
                rows.append(
                    (
                        "%s -> %s" % (sname.replace(".bvh", "").replace("dataset-1_", ""), tf),
                        100 * (lo - o["low"]) / L,
                        100 * (co - o["contact"]) / L,
                        "%.0f-%.0f" % (100 * np.percentile(an, 5) / L, 100 * np.percentile(an, 95) / L),
                        "%.0f-%.0f" % (100 * o["ankle"][0] / L, 100 * o["ankle"][1] / L),
                        "%d/%d" % (stiff, len(chain)),
                        torso,
                        neck,
                    )
                )
    head = ("pair", "low %", "contact %", "ankle %", "own ankle %", "stiff", "torso deg", "neck deg")
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| %s | %+.1f | %+.1f | %s | %s | %s | %.1f | %.1f |" % r)
    else:
        print("%-50s %6s %9s %8s %11s %5s %9s %8s" % head)
        for r in rows:
            print("%-50s %+6.1f %+9.1f %8s %11s %5s %9.1f %8.1f" % r)
    print("legs (hip-to-ankle, rest):", ", ".join("%s %.3f" % (f, own[f]["leg"]) for f in own))


if __name__ == "__main__":
    main()
