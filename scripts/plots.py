#!/usr/bin/env python3
"""Draws the figures of docs/performance.md (SVG, in docs/) from one run on this machine.

    /usr/bin/python3 scripts/plots.py [--build BUILD] [--out docs] [--bench-json FILE]

Needs Debian's python3-numpy and python3-matplotlib (`bash scripts/setup.sh
--plots` installs them; run this with /usr/bin/python3, which sees them) and
a build with the CLI and the benchmark:

    meson setup build-rel -Dbench=enabled && ninja -C build-rel

(--build defaults to build-rel). With --bench-json FILE (e.g. the shipped
docs/bench.json) the benchmark is not run and only the CLI is needed.
Anything missing is one line on stderr and exit status 1.

1. docs/angular_speed.svg: the angular speed of three joints of the shipped clip
   resampled 120 -> 480 fps, by posebatch (quaternion Catmull-Rom, the CLI's
   --velocity-csv) next to linear interpolation of the Euler channels (speed from
   consecutive output frames): the spikes users see at +-180 wraps and keys.
2. docs/backends_1024.svg: ns per unit at 1024 joints for every kernel and
   backend, with the naive and scalar baselines (posebatch-bench JSON).
3. docs/joints_scaling.svg: ns per unit against the number of joints (16 .. 16384)
   for the main kernels, dispatch's backend and scalar: the small-skeleton cost.
4. docs/img/retarget_feet.svg: the feet's height over time of the shipped clip
   (CMU skeleton) and of `posebatch retarget` of it onto the pymo skeleton of
   ../shared/data/mocap (the source scaled by the ratio of the hip heights);
   skipped with a line on stderr when the shared clip is absent. `--only
   retarget` draws this figure alone (needs only the CLI).
With --bench-json the benchmark is not run (its JSON is read instead).
"""
import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    """One line on stderr, exit status 1 (no traceback)."""
    print(f"plots: {msg}", file=sys.stderr)
    sys.exit(1)


try:
    import numpy as np
except ImportError:
    fail("numpy is missing: apt-get install python3-numpy (or bash scripts/setup.sh --plots), "
         "and run this with /usr/bin/python3")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    fail("matplotlib is missing: apt-get install python3-matplotlib (or bash scripts/setup.sh "
         "--plots), and run this with /usr/bin/python3")

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CLIP = os.path.join(TOP, "data", "cmu_01_03.bvh")


# ---------------------------------------------------------------- BVH text
def read_bvh(path):
    """Joints (name, rotation axes in channel order, rotation columns) and the
    data lines as an array (frames x channels), the frame time."""
    joints, col = [], 0
    with open(path) as f:
        lines = f.read().splitlines()
    i = 0
    name = None
    while i < len(lines):
        t = lines[i].split()
        if t and t[0] in ("ROOT", "JOINT"):
            name = " ".join(t[1:])
        elif t and t[0] == "CHANNELS":
            chans = t[2:]
            axes = [c[0].lower() for c in chans if c.lower().endswith("rotation")]
            cols = [col + k for k, c in enumerate(chans) if c.lower().endswith("rotation")]
            joints.append((name, axes, cols))
            col += len(chans)
        elif t and t[0] == "MOTION":
            break
        i += 1
    frame_time = float(lines[i + 2].split(":")[1])
    data = np.array([[float(v) for v in ln.split()] for ln in lines[i + 3:] if ln.strip()])
    return joints, data, frame_time


def euler_quat(axes, deg):
    """q = q_a0(deg0) q_a1(deg1) q_a2(deg2) for arrays of angles (n x 3): (n x 4) wxyz."""
    q = np.zeros((deg.shape[0], 4))
    q[:, 0] = 1.0
    for k, a in enumerate(axes):
        h = np.radians(deg[:, k]) / 2
        e = np.zeros_like(q)
        e[:, 0] = np.cos(h)
        e[:, 1 + "xyz".index(a)] = np.sin(h)
        w1, x1, y1, z1 = q.T
        w2, x2, y2, z2 = e.T
        q = np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                      w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                      w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                      w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=1)
    return q


def speed_linear_euler(axes, cols, data, frame_time, fps, frames):
    """Degrees per second between consecutive output frames of a linear
    interpolation of the Euler channels."""
    t = np.arange(frames) / fps
    s = np.clip(t / frame_time, 0, data.shape[0] - 1)
    f0 = np.minimum(np.floor(s).astype(int), data.shape[0] - 2)
    u = (s - f0)[:, None]
    ang = data[f0][:, cols] * (1 - u) + data[f0 + 1][:, cols] * u
    q = euler_quat(axes, ang)
    d = np.abs(np.sum(q[1:] * q[:-1], axis=1)).clip(0, 1)
    w = np.degrees(2 * np.arccos(d)) * fps
    return np.concatenate([[w[0]], w])


def plot_speed(build, out):
    cli = os.path.join(build, "src", "cli", "posebatch")
    fps = 480.0
    with tempfile.TemporaryDirectory() as tmp:
        csv_path = os.path.join(tmp, "v.csv")
        r = subprocess.run([cli, "resample", CLIP, "-o", os.devnull, "--fps", str(fps),
                            "--velocity-csv", csv_path], stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["no message"])[-1]
            fail(f"{cli} resample failed (exit {r.returncode}): {last}")
        with open(csv_path) as f:
            rows = list(csv.reader(f))
    head, body = rows[0], np.array(rows[1:], dtype=float)
    joints, data, frame_time = read_bvh(CLIP)
    frames = body.shape[0]
    t = body[:, 1]
    lin = {}
    for name, axes, cols in joints:
        if len(axes) == 3:
            lin[name] = speed_linear_euler(axes, cols, data, frame_time, fps, frames)
    # the three joints whose linear-Euler speed spikes most above posebatch's
    # (after the first source frames: the clip starts with a T-pose frame)
    skip = int(2 * frame_time * fps) + 1
    # (limbs and spine: the finger and toe tracks of this clip are noise)
    limbs = [n for n in lin if not any(s in n for s in ("Finger", "Thumb", "Toe", "Hand"))]
    ratio = {n: lin[n][skip:] / (body[skip:, head.index(n)] + 10.0) for n in limbs}
    pick = sorted(ratio, key=lambda n: np.max(ratio[n]), reverse=True)[:3]
    fig, axs = plt.subplots(len(pick), 1, figsize=(9, 2.4 * len(pick)))
    for ax, n in zip(axs, pick):
        k = skip + int(np.argmax(ratio[n]))
        lo = max(skip, k - int(0.75 * fps))
        hi = min(frames, k + int(0.75 * fps))
        ax.plot(t[lo:hi], lin[n][lo:hi], color="#c44", lw=1,
                label="linear Euler channels")
        ax.plot(t[lo:hi], body[lo:hi, head.index(n)], color="#246", lw=1.4,
                label="posebatch Catmull-Rom")
        ax.set_ylabel(f"{n}\ndeg/s")
        ax.set_yscale("symlog", linthresh=100)
        ax.grid(alpha=0.3)
        ax.set_xlabel("time (s)")
    axs[0].legend(loc="upper right", fontsize=8)
    fig.suptitle("Angular speed, CMU 01_03 resampled 120 -> 480 fps", fontsize=11)
    fig.tight_layout()
    path = os.path.join(out, "angular_speed.svg")
    fig.savefig(path)
    plt.close(fig)
    return path, pick


# --------------------------------------------------------------- benchmark
def run_bench(build, json_path):
    exe = os.path.join(build, "bench", "posebatch-bench")
    cmd = [exe, "--benchmark_min_time=0.05", "--benchmark_format=json",
           f"--benchmark_out={json_path}", "--benchmark_out_format=json"]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", "1"] + cmd
    print(f"plots: running the benchmark ({exe}), a few minutes", file=sys.stderr)
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if r.returncode != 0:
        fail(f"{exe} failed (exit {r.returncode})")


def load_bench(json_path):
    """{(kernel, backend, joints): ns per unit} from items_per_second (k = 4 where
    the benchmark has a k)."""
    try:
        with open(json_path) as f:
            d = json.load(f)
    except OSError as e:
        fail(f"cannot read the benchmark JSON {json_path}: {e.strerror}")
    except ValueError as e:
        fail(f"{json_path} is not benchmark JSON: {e}")
    if not isinstance(d, dict) or not isinstance(d.get("benchmarks"), list):
        fail(f"{json_path} is not posebatch-bench JSON (no 'benchmarks' list)")
    r = {}
    for b in d["benchmarks"]:
        if b.get("run_type") != "iteration" or "items_per_second" not in b:
            continue
        parts = b["run_name"].split("/")
        if len(parts) < 3 or (len(parts) > 3 and parts[3] != "4"):
            continue  # averages and blends: k = 4 samples / poses
        r[(parts[0], parts[1], int(parts[2]))] = 1e9 / b["items_per_second"]
    return r, d.get("context", {})


BACKENDS = ["naive", "scalar", "sse41", "avx2", "avx512", "neon"]
COLORS = {"naive": "#999", "scalar": "#c84", "sse41": "#6a6", "avx2": "#36c",
          "avx512": "#825", "neon": "#3aa"}


def plot_backends(r, ctx, out):
    kernels = sorted({k for (k, b, n) in r if n == 1024})
    have = [b for b in BACKENDS if any((k, b, 1024) in r for k in kernels)]
    fig, ax = plt.subplots(figsize=(11, 4.2))
    width = 0.8 / len(have)
    for i, b in enumerate(have):
        xs = [j + i * width for j, k in enumerate(kernels) if (k, b, 1024) in r]
        ys = [r[(k, b, 1024)] for k in kernels if (k, b, 1024) in r]
        ax.bar(xs, ys, width, label=b, color=COLORS.get(b))
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(kernels))])
    ax.set_xticklabels(kernels, rotation=35, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ns per unit (log)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=len(have))
    ax.set_title(f"1024 joints (averages and blends: k = 4), one core of a "
                 f"{ctx.get('num_cpus', '?')}-CPU host ({ctx.get('mhz_per_cpu', '?')} MHz), "
                 "posebatch-bench", fontsize=10)
    fig.tight_layout()
    path = os.path.join(out, "backends_1024.svg")
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_scaling(r, out):
    main = ["quat_catmull_rom", "nlerp", "average_raw_ref", "pose_blend", "resample"]
    best = [b for b in ("avx512", "avx2", "sse41", "neon")
            if any(k[1] == b for k in r)][:1] or ["scalar"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    cmap = plt.get_cmap("tab10")
    for i, k in enumerate(main):
        for b, style in ((best[0], "-"), ("scalar", ":")):
            pts = sorted((n, v) for (kk, bb, n), v in r.items() if kk == k and bb == b)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker=".",
                        color=cmap(i), label=f"{k} ({b})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.axvspan(20, 100, color="#eee", zorder=0)
    ax.text(22, ax.get_ylim()[1] * 0.7, "real skeletons", fontsize=8, color="#666")
    ax.set_xlabel("joints per call")
    ax.set_ylabel("ns per unit (log)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path = os.path.join(out, "joints_scaling.svg")
    fig.savefig(path)
    plt.close(fig)
    return path


# ---------------------------------------------------------------- retargeting
PYMO = os.path.join(TOP, "..", "shared", "data", "mocap", "pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh")


def read_bvh_skeleton(path):
    """Joints as dicts (name, parent, offset, channels, first column) and the
    data lines (frames x channels)."""
    with open(path) as f:
        toks = f.read().split()
    joints, stack, col, i, end_site = [], [], 0, 0, False
    while i < len(toks) and toks[i].upper() != "MOTION":
        t = toks[i]
        if t.upper() in ("ROOT", "JOINT"):
            joints.append({"name": toks[i + 1], "parent": stack[-1] if stack else None,
                           "offset": np.zeros(3), "channels": [], "col": col})
            i += 2
        elif t.upper() == "END":
            end_site = True
            i += 2
        elif t == "{":
            stack.append(None if end_site else len(joints) - 1)
            i += 1
        elif t == "}":
            if stack.pop() is None:
                end_site = False
            i += 1
        elif t.upper() == "OFFSET":
            if not end_site:
                joints[-1]["offset"] = np.array([float(v) for v in toks[i + 1:i + 4]])
            i += 4
        elif t.upper() == "CHANNELS":
            n = int(toks[i + 1])
            joints[-1]["channels"] = toks[i + 2:i + 2 + n]
            col += n
            i += 2 + n
        else:
            i += 1
    frames = int(toks[i + 2])
    rest = toks[i + 6:]
    data = np.array(rest, dtype=float).reshape(frames, col)
    return joints, data


def model_height(joints, data, name):
    """Model-space y of a joint over the frames (forward kinematics in float64)."""
    chain, j = [], next(k for k, jt in enumerate(joints) if jt["name"] == name)
    while j is not None:
        chain.append(j)
        j = joints[j]["parent"]
    frames = data.shape[0]
    g = np.tile([1.0, 0.0, 0.0, 0.0], (frames, 1))
    p = np.zeros((frames, 3))
    for j in reversed(chain):
        jt = joints[j]
        t = np.tile(jt["offset"], (frames, 1))
        axes, cols = [], []
        for k, c in enumerate(jt["channels"]):
            if c.lower().endswith("position"):
                t[:, "xyz".index(c[0].lower())] = data[:, jt["col"] + k]
            else:
                axes.append(c[0].lower())
                cols.append(jt["col"] + k)
        v = np.concatenate([np.zeros((frames, 1)), t], axis=1)
        p = p + quat_mul(quat_mul(g, v), g * [1, -1, -1, -1])[:, 1:]
        g = quat_mul(g, euler_quat(axes, data[:, cols]) if axes else np.tile([1.0, 0, 0, 0], (frames, 1)))
    return p[:, 1]


def quat_mul(a, b):
    w1, x1, y1, z1 = a.T
    w2, x2, y2, z2 = b.T
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2],
                    axis=1)


def hip_height(joints):
    """Rest height of the root above the lowest rest joint (the library's rule)."""
    y = []
    for jt in joints:
        y.append(jt["offset"][1] + (y[jt["parent"]] if jt["parent"] is not None else 0.0))
    return y[0] - min(y)


def plot_retarget(build, out):
    """Feet heights, the CMU clip and its retarget onto the pymo skeleton. Returns the
    path, or None (a line on stderr) when the shared clip is absent."""
    if not os.path.isfile(PYMO):
        print(f"plots: skipping retarget_feet.svg: {PYMO} not found", file=sys.stderr)
        return None
    cli = os.path.join(build, "src", "cli", "posebatch")
    with tempfile.TemporaryDirectory() as tmp:
        dst = os.path.join(tmp, "pymo.bvh")
        r = subprocess.run([cli, "retarget", CLIP, "--to", PYMO, "-o", dst],
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["no message"])[-1]
            fail(f"{cli} retarget failed (exit {r.returncode}): {last}")
        tj, td = read_bvh_skeleton(dst)
    sj, sd = read_bvh_skeleton(CLIP)
    k = hip_height(tj) / hip_height(sj)
    _, _, frame_time = read_bvh(CLIP)
    t = np.arange(sd.shape[0]) * frame_time
    fig, axs = plt.subplots(2, 1, figsize=(9, 5), sharex=True)
    for ax, foot in zip(axs, ("LeftFoot", "RightFoot")):
        ax.plot(t, k * model_height(sj, sd, foot), color="#c44", lw=1.0,
                label=f"source (CMU skeleton) x {k:.2f}, the hip-height ratio")
        ax.plot(t, model_height(tj, td, foot), color="#246", lw=1.0, ls="--",
                label="retargeted onto the pymo skeleton")
        ax.set_ylabel(f"{foot}\nheight")
        ax.grid(alpha=0.3)
    axs[-1].set_xlabel("time (s)")
    axs[0].legend(loc="upper left", fontsize=8)
    fig.suptitle("Foot height, CMU 01_03 and `posebatch retarget` onto the pymo skeleton",
                 fontsize=11)
    fig.tight_layout()
    os.makedirs(os.path.join(out, "img"), exist_ok=True)
    path = os.path.join(out, "img", "retarget_feet.svg")
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(TOP, "build-rel"))
    ap.add_argument("--out", default=os.path.join(TOP, "docs"))
    ap.add_argument("--bench-json")
    ap.add_argument("--only", choices=["retarget"], help="draw only this figure")
    a = ap.parse_args()
    # everything this run needs, checked before anything is drawn
    cli = os.path.join(a.build, "src", "cli", "posebatch")
    bench = os.path.join(a.build, "bench", "posebatch-bench")
    setup = f"meson setup {a.build} -Dbench=enabled && ninja -C {a.build}"
    if not os.access(cli, os.X_OK):
        fail(f"{cli} not found: build it first ({setup})")
    if a.only == "retarget":
        path = plot_retarget(a.build, a.out)
        if path:
            print(path)
        return
    results = None
    if a.bench_json:
        if not os.path.isfile(a.bench_json):
            fail(f"{a.bench_json} not found (docs/bench.json is the shipped run)")
        results = load_bench(a.bench_json)
        if not results[0]:
            fail(f"no benchmark results in {a.bench_json}")
    elif not os.access(bench, os.X_OK):
        fail(f"{bench} not found: build the benchmark ({setup}; needs libbenchmark-dev), "
             "or pass --bench-json docs/bench.json")
    os.makedirs(a.out, exist_ok=True)
    path, pick = plot_speed(a.build, a.out)
    print(f"{path}: joints {', '.join(pick)}")
    if results is None:
        json_path = os.path.join(a.out, "bench.json")
        run_bench(a.build, json_path)
        results = load_bench(json_path)
        if not results[0]:
            fail(f"no benchmark results in {json_path}")
    r, ctx = results
    print(plot_backends(r, ctx, a.out))
    print(plot_scaling(r, a.out))
    path = plot_retarget(a.build, a.out)
    if path:
        print(path)

if __name__ == "__main__":
    main()
