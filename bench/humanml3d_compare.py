#!/usr/bin/env python3
"""posebatch's HumanML3D layout side by side with HumanML3D's own script.

    /usr/bin/python3 bench/humanml3d_compare.py --humanml3d DIR [--cli build/src/cli/posebatch]
        [--runs N] [CASE.npy ...]

DIR is a checkout of https://github.com/EricGuo5513/HumanML3D (measurement only: it is
never copied into this project). Its motion_representation.ipynb defines process_file and
uniform_skeleton; this script executes those notebook cells from DIR (with DIR on sys.path for
its common/ and paramUtil modules) and sets the configuration its __main__ cell sets (the
t2m chain and rest directions, face_joint_indx = [2, 1, 17, 16], fid_l = [7, 10], fid_r =
[8, 11], l_idx1, l_idx2 = 5, 8, feet threshold 0.002). Its target skeleton (tgt_offsets) is
the case's own first frame, which is posebatch's default (--target unset).

Cases: the shipped CMU clip through `posebatch features --layout humanml3d --scale 0.056444`
(its 'joints' array, the 22 positions at 20 fps in metres, goes to both); HumanML3D's own
sample new_joints/012314.npy from DIR; any CASE.npy given ((frames, 22, 3) positions).
Needs python3-torch, python3-scipy, python3-numpy (Debian) and the posebatch package
(PYTHONPATH or a venv) for posebatch.humanml3d_features.

Prints, per case, the largest absolute difference per feature group between posebatch and
the script as shipped, between posebatch and the script with its float32 (torch) steps run in
float64, and between those two runs of the script (its own float32 rounding); the foot
contacts that differ; and the median time per clip of process_file and of posebatch (the C
function from Python, and the whole CLI command).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

GROUPS = [("root angular velocity", 0, 1), ("root linear velocity", 1, 3),
          ("root height", 3, 4), ("root-relative positions (ric)", 4, 67),
          ("6D rotations", 67, 193), ("local velocities", 193, 259),
          ("foot contacts", 259, 263)]


def load_theirs(d):
    """process_file from DIR's notebook, configured as its __main__ cell does."""
    np.float = float  # the notebook's common/quaternion.py uses np.float (removed in numpy 1.24)
    sys.path.insert(0, d)
    import torch
    with open(os.path.join(d, "motion_representation.ipynb"), encoding="utf-8") as f:
        nb = json.load(f)
    ns = {"__name__": "humanml3d_notebook"}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        # the imports cell and the two function definitions; not __main__ or checks
        if src.lstrip().startswith(("from os.path", "def uniform_skeleton", "def process_file")):
            exec(compile(src, "motion_representation.ipynb", "exec"), ns)
    paramutil = __import__("paramUtil")
    ns["n_raw_offsets"] = torch.from_numpy(paramutil.t2m_raw_offsets)
    ns["kinematic_chain"] = paramutil.t2m_kinematic_chain
    ns["face_joint_indx"] = [2, 1, 17, 16]
    ns["fid_r"], ns["fid_l"] = [8, 11], [7, 10]
    ns["l_idx1"], ns["l_idx2"] = 5, 8
    skel = ns["Skeleton"]

    def run(joints, target, double=False):
        """process_file as shipped, or (double=True) with its float32 torch steps run in
        float64 (Tensor.float made Tensor.double for the call): the same algorithm without
        its float32 rounding"""
        old = torch.Tensor.float
        if double:
            torch.Tensor.float = torch.Tensor.double
            joints, target = joints.astype(np.float64), target.astype(np.float64)
        try:
            tgt = skel(ns["n_raw_offsets"], ns["kinematic_chain"], "cpu")
            ns["tgt_offsets"] = tgt.get_offsets_joints(torch.from_numpy(target))
            data, _, _, _ = ns["process_file"](joints.copy(), 0.002)
        finally:
            torch.Tensor.float = old
        return data
    return run


def median_time(fn, runs):
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def compare(name, joints, theirs, ours_fn, runs, cli_time=None):
    ref = theirs(joints, joints[0]).astype(np.float64)
    ref64 = theirs(joints, joints[0], double=True).astype(np.float64)
    got = ours_fn(joints).astype(np.float64)
    print(f"\n### {name}: {joints.shape[0]} frames\n")
    if ref.shape != got.shape:
        print(f"shapes differ: HumanML3D {ref.shape}, posebatch {got.shape}")
        return
    print("| feature group | columns | largest value | posebatch - script | posebatch - script "
          "in float64 | script - script in float64 |")
    print("|---|---|---|---|---|---|")
    for g, a, b in GROUPS:
        d = [np.abs(x[:, a:b] - y[:, a:b]) for x, y in ((got, ref), (got, ref64), (ref, ref64))]
        if g == "foot contacts":
            cells = [f"{int((e > 0).sum())} of {e.size} differ" for e in d]
            print(f"| {g} | {a}..{b - 1} | 1 | " + " | ".join(cells) + " |")
        else:
            print(f"| {g} | {a}..{b - 1} | {np.abs(ref[:, a:b]).max():.3g} | "
                  + " | ".join(f"{e.max():.2e}" for e in d) + " |")
    t_theirs = median_time(lambda: theirs(joints, joints[0]), runs)
    t_ours = median_time(lambda: ours_fn(joints), max(runs, 50))
    print(f"\ntime per clip (median of {runs}): process_file {t_theirs * 1e3:.2f} ms, "
          f"posebatch.humanml3d_features {t_ours * 1e3:.3f} ms "
          f"({t_theirs / t_ours:.0f}x)" + (f"; the whole `posebatch features` command "
                                             f"{cli_time * 1e3:.1f} ms" if cli_time else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--humanml3d", required=True, help="a checkout of EricGuo5513/HumanML3D")
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                  "src", "cli", "posebatch"))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    import posebatch
    theirs = load_theirs(os.path.abspath(a.humanml3d))

    def ours(j):
        return posebatch.humanml3d_features(j)

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    clip = os.path.join(root, "data", "cmu_01_03.bvh")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cmu.npz")
        cmd = [a.cli, "features", clip, "--layout", "humanml3d", "--scale", "0.056444", "-o", out]
        ts = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True)
            ts.append(time.perf_counter() - t0)
        z = np.load(out)
        joints = z["joints"]
        assert np.array_equal(ours(joints), z["features"]), "CLI and Python differ"
        print("command: " + " ".join(["posebatch"] + cmd[1:3] + cmd[3:7] + ["-o", "cmu.npz"]))
        compare("data/cmu_01_03.bvh (CMU, 120 fps, resampled to 20)", joints, theirs, ours,
                a.runs, float(np.median(ts)))
    sample = os.path.join(a.humanml3d, "HumanML3D", "new_joints", "012314.npy")
    cases = ([sample] if os.path.exists(sample) else []) + a.cases
    for c in cases:
        j = np.load(c).astype(np.float32)[:, :22]
        compare(os.path.relpath(c, a.humanml3d) if c == sample else c, j, theirs, ours, a.runs)


if __name__ == "__main__":
    main()
