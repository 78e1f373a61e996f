#!/usr/bin/env python3
"""Speed of posebatch from Python against scipy (issue 16's goals; a benchmark,
not a test).

  1. Resampling the shipped CMU clip (4511 frames, 31 joints) from 120 to 480
     fps, rotations only, ns per output joint-sample: scipy's RotationSpline
     (cubic, evaluated with its angular rate) and Slerp, joint by joint, against
     posebatch.resample (Python overhead included; with and without angular
     velocity). Goal: >= 100x faster than RotationSpline.
  2. One small call: posebatch.quat_catmull_rom with velocity on a 31-joint pose
     from Python against the same C call (timed in C by posebatch/_cref). Goal:
     at most 1 us more than the C call.

Needs the package installed (README, Python) and python3-scipy
(bash scripts/setup.sh --python-bench). Usage:
  /tmp/venv/bin/python bench/python_resample.py [--quick] [--json FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import time
import timeit

import numpy as np

import posebatch as pb

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def best_of(fn, repeat, number=1):
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--json", help="write the numbers here")
    ap.add_argument("--clip", default=os.path.join(ROOT, "data", "cmu_01_03.bvh"))
    ap.add_argument("--fps", type=float, default=480.0)
    a = ap.parse_args()
    rep = 2 if a.quick else 5

    clip = pb.read_bvh(a.clip)
    rot = clip.rotations
    f, j = rot.shape[:2]
    ft = clip.frame_time
    fo = pb.resample_frames(f, ft, a.fps)
    samples = fo * j
    res = {"clip": os.path.basename(a.clip), "frames": f, "joints": j, "src_fps": 1 / ft,
           "fps": a.fps, "out_frames": fo, "backend": pb.backend(), "cpu_count": os.cpu_count()}
    print(f"{res['clip']}: {f} frames x {j} joints, {1 / ft:g} -> {a.fps:g} fps: {fo} frames, "
          f"{samples} joint-samples; backend {pb.backend()}")

    t = best_of(lambda: pb.resample(rot, ft, a.fps), rep)
    res["posebatch_ns"] = t / samples * 1e9
    t = best_of(lambda: pb.resample(rot, ft, a.fps, velocity=True), rep)
    res["posebatch_vel_ns"] = t / samples * 1e9
    print(f"posebatch.resample                 {res['posebatch_ns']:8.2f} ns per joint-sample")
    print(f"posebatch.resample, velocity=True  {res['posebatch_vel_ns']:8.2f} ns per joint-sample")

    try:
        from scipy.spatial.transform import Rotation, RotationSpline, Slerp
        import scipy
    except ImportError:
        print("scipy missing (bash scripts/setup.sh --python-bench): competitor skipped")
    else:
        res["scipy"] = scipy.__version__
        times = np.arange(f) * ft
        tout = np.minimum(np.arange(fo) / a.fps, times[-1])
        xyzw = rot[..., [1, 2, 3, 0]].astype(np.float64)

        def spline():
            for k in range(j):
                s = RotationSpline(times, Rotation.from_quat(xyzw[:, k]))
                s(tout)
                s(tout, 1)

        def slerp():
            for k in range(j):
                Slerp(times, Rotation.from_quat(xyzw[:, k]))(tout)

        srep = 1 if a.quick else 3
        res["rotationspline_ns"] = best_of(spline, srep) / samples * 1e9
        res["slerp_ns"] = best_of(slerp, srep) / samples * 1e9
        print(f"scipy {scipy.__version__} RotationSpline (+rate)  {res['rotationspline_ns']:8.1f} ns "
              f"per joint-sample: posebatch (velocity=True) is "
              f"{res['rotationspline_ns'] / res['posebatch_vel_ns']:.0f}x faster (goal >= 100x)")
        print(f"scipy {scipy.__version__} Slerp                   {res['slerp_ns']:8.1f} ns "
              f"per joint-sample: posebatch is {res['slerp_ns'] / res['posebatch_ns']:.0f}x faster")

    # one small call: Python vs C
    rng = np.random.default_rng(1)
    q = rng.normal(size=(4, 31, 4)).astype(np.float32)
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    r0, r1, r2, r3 = q
    n = 20000 if a.quick else 200000
    py_ns = best_of(lambda: pb.quat_catmull_rom(r0, r1, r2, r3, 0.3, velocity=True), rep, n) * 1e9
    cref = os.path.join(os.path.dirname(pb.__file__), "_cref")
    c_ns = float(subprocess.run([cref, pb.backend(), "time", "31", str(n)], check=True,
                                capture_output=True, text=True).stdout)
    res.update(py_call_ns=py_ns, c_call_ns=c_ns)
    print(f"quat_catmull_rom, 31 joints, with velocity: Python {py_ns:.0f} ns, C {c_ns:.0f} ns: "
          f"+{py_ns - c_ns:.0f} ns (goal <= 1000)")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
