"""Fixtures of the posebatch Python suite (run: python3 -m pytest tests/python)."""
import glob
import os
import shutil

import numpy as np
import pytest

import posebatch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = sorted(glob.glob(os.path.join(ROOT, "data", "*.bvh")))
# the optional clips: ../shared/data beside the clone, or PB_SHARED_DATA_DIR
# (as for the C and CLI tests); tests that need them skip where absent
SHARED_DIR = os.environ.get("PB_SHARED_DATA_DIR") or os.path.join(ROOT, "..", "shared", "data")
SHARED = sorted(glob.glob(os.path.join(SHARED_DIR, "mocap", "*.bvh")))
CLIP = os.path.join(ROOT, "data", "cmu_01_03.bvh")


def unit_quats(rng, shape):
    q = rng.normal(size=shape + (4,))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return q.astype(np.float32)


def track(rng, frames, joints, step=0.3):
    """Smooth-ish random tracks: each frame a small random turn of the previous, random signs."""
    q = np.empty((frames, joints, 4))
    q[0] = unit_quats(rng, (joints,))
    for f in range(1, frames):
        v = rng.normal(size=(joints, 3)) * step / 2
        a = np.linalg.norm(v, axis=-1, keepdims=True)
        d = np.concatenate([np.cos(a), np.sin(a) * v / np.maximum(a, 1e-300)], axis=-1)
        q[f] = ref_mul(d, q[f - 1])
    q *= rng.choice([-1.0, 1.0], size=(frames, joints, 1))
    return q.astype(np.float32)


# ---- a float64 reference of the formulas (the reference texts), not the kernels ----
def ref_mul(a, b):
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def ref_conj(q):
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def ref_abs(q):
    return np.where(q[..., :1] < 0, -q, q)


def ref_log(q):
    v = q[..., 1:]
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    ang = np.arctan2(n, q[..., :1])
    return np.where(n > 0, v / np.where(n > 0, n, 1) * ang, 0.0)


def ref_exp(v):
    a = np.linalg.norm(v, axis=-1, keepdims=True)
    s = np.where(a > 0, np.sin(a) / np.where(a > 0, a, 1), 1.0)
    return np.concatenate([np.cos(a), s * v], axis=-1)


def ref_hermite(x, r0, r1, v0, v1):
    w1 = 3 * x * x - 2 * x ** 3
    w2 = x ** 3 - 2 * x * x + x
    w3 = x ** 3 - x * x
    q1 = 6 * x - 6 * x * x
    q2 = 3 * x * x - 4 * x + 1
    q3 = 3 * x * x - 2 * x
    d = 2 * ref_log(ref_abs(ref_mul(r1, ref_conj(r0))))
    rot = ref_mul(ref_exp((w1 * d + w2 * v0 + w3 * v1) / 2), r0)
    return rot, q1 * d + q2 * v0 + q3 * v1


def ref_catmull_rom(x, r0, r1, r2, r3):
    def off(a, b):
        return 2 * ref_log(ref_abs(ref_mul(b, ref_conj(a))))
    d01, d12, d23 = off(r0, r1), off(r1, r2), off(r2, r3)
    return ref_hermite(x, r1, r2, (d01 + d12) / 2, (d12 + d23) / 2)


def ref_angle(a, b):
    """Angle (rad) of a^-1 b, sign-insensitive."""
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    d = ref_mul(ref_conj(a), b)
    return 2 * np.arctan2(np.linalg.norm(d[..., 1:], axis=-1), np.abs(d[..., 0]))


@pytest.fixture
def rng():
    return np.random.default_rng(20240516)


@pytest.fixture
def restore_backend():
    before = posebatch.backend()
    yield
    posebatch.force_backend(before)


def cli_path():
    """The posebatch CLI built from this tree: $POSEBATCH_CLI (scripts/test.sh sets it)."""
    p = os.environ.get("POSEBATCH_CLI")
    if p:
        return p
    for cand in sorted(glob.glob(os.path.join(ROOT, "build*", "src", "cli", "posebatch")),
                       key=os.path.getmtime, reverse=True):
        if os.access(cand, os.X_OK):
            return cand
    return shutil.which("posebatch")


@pytest.fixture
def cli():
    p = cli_path()
    if not p:
        pytest.skip("no posebatch CLI: set POSEBATCH_CLI (scripts/test.sh does)")
    return p
