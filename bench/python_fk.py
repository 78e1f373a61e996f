#!/usr/bin/env python3
"""Speed of forward kinematics from Python (issue 36; a benchmark, not a test).

Global (model-space) positions of every joint at every frame of the shipped CMU
clip (4511 frames x 31 joints), medians of repeats on one CPU:

  1. posebatch.local_to_model(parents, rotations, positions) (Python overhead,
     the split into and join from structure of arrays included), and
     Bvh.global_positions();
  2. what fairmotion / PyMO users write: for each frame, for each joint, the
     parent's global rotation matrix @ the local one, position = parent's +
     parent's matrix @ local offset (numpy 3x3 matrices, float64; the local
     matrices made from the quaternions once, vectorised, inside the timing);
  3. the same composition vectorised over frames (a loop over joints only), what
     a numpy user who knows broadcasting writes.

Goal: posebatch at least 100x faster than (2). The results agree to 1e-5 of the
skeleton's size (checked here before timing).

Needs the package (README, Python). Usage:
  taskset -c 1 build-venv/bin/python bench/python_fk.py [--quick] [--cpu N] [--json FILE]
(--cpu pins the process itself; default: the first CPU it may run on).
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import posebatch as pb

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def median_time(fn, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def quat_matrices(q):
    """(..., 4) w x y z -> (..., 3, 3) rotation matrices, float64."""
    w, x, y, z = np.moveaxis(q.astype(np.float64), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def fk_loop(parents, rot, pos):
    """Per frame, per joint (the loop users write)."""
    local = quat_matrices(rot)
    pos = pos.astype(np.float64)
    f, j = rot.shape[:2]
    out = np.empty((f, j, 3))
    for i in range(f):
        g = [None] * j
        for k, a in enumerate(parents):
            if a < 0:
                g[k] = local[i, k]
                out[i, k] = pos[i, k]
            else:
                g[k] = g[a] @ local[i, k]
                out[i, k] = out[i, a] + g[a] @ pos[i, k]
    return out


def fk_joints(parents, rot, pos):
    """Vectorised over frames, a loop over joints."""
    local = quat_matrices(rot)
    pos = pos.astype(np.float64)
    g = np.empty_like(local)
    out = np.empty(pos.shape)
    for k, a in enumerate(parents):
        if a < 0:
            g[:, k] = local[:, k]
            out[:, k] = pos[:, k]
        else:
            g[:, k] = g[:, a] @ local[:, k]
            out[:, k] = out[:, a] + np.einsum("fij,fj->fi", g[:, a], pos[:, k])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--json", help="write the numbers here")
    ap.add_argument("--cpu", type=int, help="pin to this CPU (default: the first allowed)")
    ap.add_argument("--clip", default=os.path.join(ROOT, "data", "cmu_01_03.bvh"))
    a = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        cpu = a.cpu if a.cpu is not None else min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    else:
        cpu = None
    rep_pb, rep_np, rep_loop = (5, 3, 1) if a.quick else (51, 11, 3)

    clip = pb.read_bvh(a.clip)
    rot, pos = clip.motion()
    parents = [-1 if p is None else p for p in clip.parents]
    f, j = rot.shape[:2]
    n = f * j
    res = {"clip": os.path.basename(a.clip), "frames": f, "joints": j, "backend": pb.backend(),
           "cpu": cpu, "numpy": np.__version__, "repeats": [rep_pb, rep_np, rep_loop]}
    print(f"{res['clip']}: {f} frames x {j} joints = {n} joint-poses; backend {pb.backend()}, "
          f"CPU {cpu}, numpy {np.__version__}")

    # the same answer first
    ours = pb.local_to_model(parents, rot, pos).positions
    ref = fk_loop(parents, rot, pos)
    size = np.ptp(ref[0], axis=0).max()
    err = np.abs(ours - ref).max() / size
    assert err <= 1e-5 and np.abs(fk_joints(parents, rot, pos) - ref).max() <= 1e-9 * size, err
    assert np.array_equal(clip.global_positions(), ours)
    res["max_error_relative"] = float(err)

    t_pb = median_time(lambda: pb.local_to_model(parents, rot, pos), rep_pb)
    t_bvh = median_time(clip.global_positions, rep_pb)
    t_joints = median_time(lambda: fk_joints(parents, rot, pos), rep_np)
    t_loop = median_time(lambda: fk_loop(parents, rot, pos), rep_loop)
    res.update(posebatch_s=t_pb, bvh_global_positions_s=t_bvh, numpy_joints_s=t_joints,
               numpy_loop_s=t_loop)
    rows = [("posebatch.local_to_model", t_pb), ("Bvh.global_positions()", t_bvh),
            ("numpy, loop over joints (frames vectorised)", t_joints),
            ("numpy, loop over frames and joints", t_loop)]
    for name, t in rows:
        print(f"{name:46s} {t * 1e3:10.2f} ms  {t / n * 1e9:9.1f} ns per joint-pose  "
              f"{t / t_pb:8.1f}x posebatch")
    print(f"posebatch is {t_loop / t_pb:.0f}x faster than the per-frame loop (goal >= 100x), "
          f"{t_joints / t_pb:.0f}x faster than the frame-vectorised numpy")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
