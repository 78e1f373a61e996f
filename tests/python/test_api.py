"""posebatch from Python: bit-for-bit equal to the C API (the _cref program calls
it directly on the same inputs and backend), against a float64 reference of the
formulas for a sample of cases, error paths, and threads."""
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import posebatch as pb
from conftest import (ref_abs, ref_angle, ref_catmull_rom, ref_conj, ref_exp, ref_hermite,
                      ref_log, ref_mul, track, unit_quats)

CREF = os.path.join(os.path.dirname(pb.__file__), "_cref")
BACKENDS = pb.supported_backends()


def soa(a):
    """(..., C) -> the C component arrays one after another (the C API's layout)."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    return np.ascontiguousarray(np.moveaxis(a.reshape(-1, a.shape[-1]), -1, 0)).tobytes()


def cref(backend, args, payload, count):
    r = subprocess.run([CREF, backend] + [str(a) for a in args], input=payload,
                       capture_output=True, check=True)
    out = np.frombuffer(r.stdout, dtype=np.float32)
    assert out.size == count, r.stderr
    return out


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def from_soa(flat, n, c):
    return np.ascontiguousarray(flat[: n * c].reshape(c, n).T)


N = 2085  # not a multiple of any lane count; crosses the extension's 1024-element chunks


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("flags", [0, 1])
def test_kernels_bitwise(backend, flags, rng, restore_backend):
    pb.force_backend(backend)
    exact = bool(flags)
    r = [unit_quats(rng, (N,)) for _ in range(4)]
    v = [rng.normal(size=(N, 3)).astype(np.float32) for _ in range(2)]
    x = 0.3125
    # catmull-rom: rotation and velocity
    rot, vel = pb.quat_catmull_rom(*r, x, velocity=True, exact=exact)
    c = cref(backend, ["kernel", "catmull_rom", N, x, flags], b"".join(soa(q) for q in r), 7 * N)
    assert np.array_equal(bits(rot), bits(from_soa(c, N, 4)))
    assert np.array_equal(bits(vel), bits(from_soa(c[4 * N:], N, 3)))
    # hermite
    rot, vel = pb.quat_hermite(r[0], r[1], v[0], v[1], x, velocity=True, exact=exact)
    c = cref(backend, ["kernel", "hermite", N, x, flags],
             soa(r[0]) + soa(r[1]) + soa(v[0]) + soa(v[1]), 7 * N)
    assert np.array_equal(bits(rot), bits(from_soa(c, N, 4)))
    assert np.array_equal(bits(vel), bits(from_soa(c[4 * N:], N, 3)))
    # raw cubic with its 4D velocity
    rot, vel4 = pb.quat_raw_cubic(*r, x, velocity=True, exact=exact)
    c = cref(backend, ["kernel", "raw_cubic", N, x, flags], b"".join(soa(q) for q in r), 8 * N)
    assert np.array_equal(bits(rot), bits(from_soa(c, N, 4)))
    assert np.array_equal(bits(vel4), bits(from_soa(c[4 * N:], N, 4)))
    # slerp / nlerp (flags 2: long path)
    for name, fn in (("slerp", pb.quat_slerp), ("nlerp", pb.quat_nlerp)):
        out = fn(r[0], r[1], x, long_path=exact)
        c = cref(backend, ["kernel", name, N, x, 2 if exact else 0], soa(r[0]) + soa(r[1]), 4 * N)
        assert np.array_equal(bits(out), bits(from_soa(c, N, 4))), name
    # vec3
    p = [rng.normal(size=(N, 3)).astype(np.float32) for _ in range(4)]
    for name, fn in (("vec3_catmull_rom", pb.vec3_catmull_rom), ("vec3_hermite", pb.vec3_hermite)):
        pos, pv = fn(*p, x, velocity=True)
        c = cref(backend, ["kernel", name, N, x, 0], b"".join(soa(a) for a in p), 6 * N)
        assert np.array_equal(bits(pos), bits(from_soa(c, N, 3))), name
        assert np.array_equal(bits(pv), bits(from_soa(c[3 * N:], N, 3))), name


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("method", ["raw", "log", "raw_ref", "log_ref", "accurate", "basic"])
def test_averages_bitwise(backend, method, rng, restore_backend):
    pb.force_backend(backend)
    k = 5
    samples = unit_quats(rng, (k, N))
    ref = unit_quats(rng, (N,))
    w = rng.uniform(0.1, 1.0, size=k).astype(np.float32)
    w /= w.sum()
    out = pb.quat_average(samples, w, method, ref=ref if method.endswith("_ref") else None)
    c = cref(backend, ["average", method, N, k],
             w.tobytes() + soa(ref) + b"".join(soa(s) for s in samples), 4 * N)
    assert np.array_equal(bits(out), bits(from_soa(c, N, 4)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_resample_bitwise(backend, rng, restore_backend):
    pb.force_backend(backend)
    f, j, ft, fps = 23, 7, 1 / 30, 97.0
    rot = track(rng, f, j)
    pos = rng.normal(size=(f, j, 3)).astype(np.float32)
    res = pb.resample(rot, ft, fps, pos, velocity=True)
    fo = pb.resample_frames(f, ft, fps)
    assert res.rotations.shape == (fo, j, 4) and res.positions.shape == (fo, j, 3)
    m = fo * j
    c = cref(backend, ["resample", f, j, repr(ft), repr(fps), 0], soa(rot) + soa(pos), 13 * m)
    assert np.array_equal(bits(res.rotations.reshape(m, 4)), bits(from_soa(c, m, 4)))
    assert np.array_equal(bits(res.positions.reshape(m, 3)), bits(from_soa(c[4 * m:], m, 3)))
    assert np.array_equal(bits(res.angular_velocity.reshape(m, 3)), bits(from_soa(c[7 * m:], m, 3)))
    assert np.array_equal(bits(res.linear_velocity.reshape(m, 3)), bits(from_soa(c[10 * m:], m, 3)))
    assert res.frame_time == pytest.approx(1 / fps)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("method", range(5))
def test_blend_bitwise(backend, method, rng, restore_backend):
    pb.force_backend(backend)
    k, j = 3, 31
    rot = unit_quats(rng, (k, j))
    pos = rng.normal(size=(k, j, 3)).astype(np.float32)
    rr = unit_quats(rng, (j,))
    rp = rng.normal(size=(j, 3)).astype(np.float32)
    w = np.array([0.5, 0.3, 0.2], np.float32)
    names = ["log_ref", "raw_ref", "log", "raw", "accurate"]
    out = pb.blend(rot, w, pos, method=names[method], ref_rotations=rr, ref_positions=rp)
    c = cref(backend, ["blend", method, j, k],
             w.tobytes() + b"".join(soa(a) for a in rot) + b"".join(soa(a) for a in pos)
             + soa(rr) + soa(rp), 7 * j)
    assert np.array_equal(bits(out.rotations), bits(from_soa(c, j, 4)))
    assert np.array_equal(bits(out.positions), bits(from_soa(c[4 * j:], j, 3)))
    assert out.scales is None


def test_order_xyzw_is_a_permutation(rng):
    r = [unit_quats(rng, (5, 7)) for _ in range(4)]
    to_xyzw = lambda q: np.ascontiguousarray(q[..., [1, 2, 3, 0]])
    a, va = pb.quat_catmull_rom(*r, 0.4, velocity=True)
    b, vb = pb.quat_catmull_rom(*[to_xyzw(q) for q in r], 0.4, velocity=True, order="xyzw")
    assert np.array_equal(bits(to_xyzw(a)), bits(b)) and np.array_equal(bits(va), bits(vb))
    s = np.stack(r)
    assert np.array_equal(bits(to_xyzw(pb.quat_average(s, [.25] * 4, "log_ref", ref=r[0]))),
                          bits(pb.quat_average(to_xyzw(s), [.25] * 4, "log_ref", ref=to_xyzw(r[0]),
                                               order="xyzw")))
    assert pb.quat_catmull_rom(*r, 0.4).shape == (5, 7, 4)


def test_float64_is_converted(rng):
    r = [unit_quats(rng, (9,)) for _ in range(4)]
    a = pb.quat_catmull_rom(*r, 0.7)
    b = pb.quat_catmull_rom(*[q.astype(np.float64) for q in r], 0.7)
    assert b.dtype == np.float32 and np.array_equal(bits(a), bits(b))
    assert pb.quat_slerp([1, 0, 0, 0], [0, 1, 0, 0], 0.5).dtype == np.float32  # lists of ints


# ---- against the float64 reference (the text's formulas) ----

@pytest.mark.parametrize("backend", BACKENDS)
def test_catmull_rom_hermite_against_double(backend, rng, restore_backend):
    pb.force_backend(backend)
    tr = track(rng, 4, 200, step=0.5)
    for x in (0.0, 0.25, 0.5, 0.9, 1.0):
        rot, vel = pb.quat_catmull_rom(*tr, x, velocity=True)
        rr, rv = ref_catmull_rom(x, *tr.astype(np.float64))
        assert ref_angle(rot, rr).max() <= 2e-6
        err = np.linalg.norm(vel - rv, axis=-1)
        assert (err <= 1e-5 * np.linalg.norm(rv, axis=-1) + 1e-6).all()
    v0, v1 = rng.normal(size=(2, 200, 3)) * 0.5
    rot, vel = pb.quat_hermite(tr[0], tr[1], v0, v1, 0.6, velocity=True)
    rr, rv = ref_hermite(0.6, tr[0].astype(np.float64), tr[1].astype(np.float64), v0, v1)
    assert ref_angle(rot, rr).max() <= 2e-6
    assert (np.linalg.norm(vel - rv, axis=-1) <= 1e-5 * np.linalg.norm(rv, axis=-1) + 1e-6).all()


def test_slerp_and_averages_against_double(rng):
    a, b = unit_quats(rng, (2, 300)).astype(np.float64)
    t = 0.35
    bb = np.where((a * b).sum(-1, keepdims=True) < 0, -b, b)
    rs = ref_mul(ref_exp(t * ref_log(ref_mul(bb, ref_conj(a)))), a)
    assert ref_angle(pb.quat_slerp(a, b, t), rs).max() <= 2e-6
    k = 4
    s = track(rng, k, 300, step=0.4).astype(np.float64)
    w = np.array([0.1, 0.2, 0.3, 0.4])
    ref = s[0]
    # log_ref: abs(ref exp(sum w log(abs(ref^-1 s))))
    acc = sum(w[i] * ref_log(ref_abs(ref_mul(ref_conj(ref), s[i]))) for i in range(k))
    want = ref_abs(ref_mul(ref, ref_exp(acc)))
    assert ref_angle(pb.quat_average(s, w, "log_ref", ref=ref), want).max() <= 2e-6
    # raw: normalize(sum w abs(s))
    acc = sum(w[i] * ref_abs(s[i]) for i in range(k))
    assert ref_angle(pb.quat_average(s, w, "raw"), acc).max() <= 2e-6
    # accurate: top eigenvector of sum w s s^T
    m = np.einsum("k,kni,knj->nij", w, s, s)
    vals, vecs = np.linalg.eigh(m)
    assert ref_angle(pb.quat_average(s, w, "accurate"), vecs[..., -1]).max() <= 2e-6


def test_resample_against_double(rng):
    f, j, ft, fps = 12, 9, 0.1, 25.0  # source position i * 0.4
    rot = track(rng, f, j, step=0.4)
    pos = rng.normal(size=(f, j, 3)).astype(np.float32)
    res = pb.resample(rot, ft, fps, pos, velocity=True)
    r64, p64 = rot.astype(np.float64), pos.astype(np.float64)
    for i in range(res.rotations.shape[0]):
        s = i * 0.4
        g = min(int(np.floor(s + 1e-9)), f - 1)
        x = s - g
        idx = [max(g - 1, 0), g, min(g + 1, f - 1), min(g + 2, f - 1)]
        rr, rv = ref_catmull_rom(x, *[r64[k] for k in idx])
        assert ref_angle(res.rotations[i], rr).max() <= 2e-6, i
        rv = rv / ft
        assert (np.linalg.norm(res.angular_velocity[i] - rv, axis=-1)
                <= 1e-5 * np.linalg.norm(rv, axis=-1) + 1e-6 / ft).all(), i
        p0, p1, p2, p3 = [p64[k] for k in idx]
        pc = p1 + x * ((p2 - p0) / 2) + x * x * (p0 - 2.5 * p1 + 2 * p2 - 0.5 * p3) \
            + x ** 3 * (-0.5 * p0 + 1.5 * p1 - 1.5 * p2 + 0.5 * p3)
        assert np.abs(res.positions[i] - pc).max() <= 1e-5 * (1 + np.abs(pc).max()), i


def test_sample_at_frame_times_reproduces_frames(rng):
    rot = track(rng, 10, 5)
    out = pb.sample(rot, 0.05, np.arange(10) * 0.05)
    same = (out.rotations == rot).all(-1) | (out.rotations == -rot).all(-1)  # up to the sign
    assert same.all()
    assert out.frame_time is None


def test_primitives_and_splines(rng):
    q = unit_quats(rng, (50,))
    assert ref_angle(pb.quat_exp(pb.quat_log(q)), q).max() <= 2e-6
    assert np.abs(pb.quat_log(q) - ref_log(q.astype(np.float64))).max() <= 1e-6
    assert ref_angle(pb.quat_mul(q, pb.quat_mul_inv(q, q)), q).max() <= 2e-6
    assert (pb.quat_abs(q)[:, 0] >= 0).all()
    assert pb.quat_sin_half_angle(q, q).shape == (50,)
    tr = track(rng, 6, 8)
    un = pb.quat_unroll(tr)
    assert ((un[1:] * un[:-1]).sum(-1) >= 0).all()
    ref = pb.quat_reference_extract(tr)
    assert ref.shape == (8, 4)
    assert ref_angle(pb.quat_spline_eval(tr, 2.0), tr[2]).max() <= 2e-6
    before, after = pb.quat_bezier_controls(tr[0], tr[1], tr[2])
    assert ref_angle(pb.quat_de_casteljau(tr[1], after, before, tr[2], 0.0), tr[1]).max() <= 1e-7
    b, a = pb.quat_shoemake_controls(un[0], un[1], un[2])
    assert b.shape == a.shape == (8, 4)
    assert pb.quat_tangent_offset(tr[0], tr[1], tr[2]).shape == (8, 4)


# ---- errors ----

def test_errors_name_the_argument(rng):
    q = unit_quats(rng, (8,))
    with pytest.raises(ValueError, match=r"'r2' must have shape \(\.\.\., 4\)"):
        pb.quat_catmull_rom(q, q, np.zeros((8, 3)), q, 0.5)
    with pytest.raises(ValueError, match="'r3' and argument 'r0' must have the same batch shape"):
        pb.quat_catmull_rom(q, q, q, q[:4], 0.5)
    with pytest.raises(TypeError, match="'r1' must be a real array"):
        pb.quat_catmull_rom(q, q.astype(np.complex64), q, q, 0.5)
    with pytest.raises(TypeError, match="'a' must be a real array"):
        pb.quat_slerp(object(), q, 0.5)
    with pytest.raises(ValueError, match="'b' must be C-contiguous"):
        pb.quat_slerp(q, np.asfortranarray(np.stack([q, q], 1))[:, 0], 0.5)
    with pytest.raises(TypeError, match="'x' must be a real number"):
        pb.quat_catmull_rom(q, q, q, q, "half")
    with pytest.raises(TypeError, match="missing required argument 'x'"):
        pb.quat_catmull_rom(q, q, q, q)
    with pytest.raises(TypeError, match="unexpected keyword argument 'speed'"):
        pb.quat_catmull_rom(q, q, q, q, 0.5, speed=True)
    with pytest.raises(ValueError, match="'order' must be 'wxyz' or 'xyzw'"):
        pb.quat_nlerp(q, q, 0.5, order="zyxw")
    with pytest.raises(ValueError, match="'method' must be one of"):
        pb.quat_average(q[None], [1.0], "median")
    with pytest.raises(ValueError, match="needs argument 'ref'"):
        pb.quat_average(q[None], [1.0], "log_ref")
    with pytest.raises(ValueError, match="'weights' has shape"):
        pb.quat_average(np.stack([q, q]), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="'fps' must be finite and > 0"):
        pb.resample(q.reshape(2, 4, 4), 0.1, 0.0)
    with pytest.raises(ValueError, match="'frame_time' must be finite"):
        pb.resample(q.reshape(2, 4, 4), -1.0, 30.0)
    with pytest.raises(ValueError, match="'positions' has shape"):
        pb.resample(q.reshape(2, 4, 4), 0.1, 30.0, np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match="'rotations' has shape"):
        pb.resample(q, 0.1, 30.0)
    with pytest.raises(ValueError, match="'weights' has shape"):
        pb.blend(q.reshape(2, 4, 4), [1.0])
    with pytest.raises(ValueError, match="unknown backend 'mmx'"):
        pb.force_backend("mmx")
    if "neon" not in pb.supported_backends():
        with pytest.raises(ValueError, match="not supported"):
            pb.force_backend("neon")


def test_bvh_errors(tmp_path):
    with pytest.raises(OSError):
        pb.read_bvh(tmp_path / "missing.bvh")
    with pytest.raises(pb.BvhError) as e:
        pb.parse_bvh("HIERARCHY\nROOT Hips\n{\n OFFSET 0 0\n}\n")
    assert e.value.line > 0 and isinstance(e.value, ValueError)
    (tmp_path / "x.glb").write_bytes(b"glTF\x02\x00\x00\x00" + b"\x00" * 64)
    with pytest.raises(pb.BvhError, match="glTF"):
        pb.read_bvh(tmp_path / "x.glb")


# ---- threads: the GIL is released around the C work ----

def _speedup(work, calls):
    def timed(threads):
        best = float("inf")
        for _ in range(3):
            ts = [threading.Thread(target=work, args=(calls // threads,)) for _ in range(threads)]
            t0 = time.perf_counter()
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            best = min(best, time.perf_counter() - t0)
        return best
    t1, t4 = timed(1), timed(4)
    return t1, t4, t1 / t4


def test_threads_speed_up(rng):
    """4 threads on a large batch against 1 thread doing the same calls: > 1.3x
    (the CI machine has 2 cores). numpy's own GIL-free np.sort is measured
    just before each try, to tell a host without a spare core at that moment
    (np.sort below 1.4x too) from a held GIL. Up to three tries: the spare
    core of a shared host comes and goes within a second, so one
    calibration may not hold for the measurement after it. Fails when a try
    had the spare core (np.sort 1.4x or more) and no try reached 1.3x;
    skipped, saying so, when no try had it."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one CPU")
    n = 1 << 18
    r = [unit_quats(rng, (n,)) for _ in range(4)]
    big = rng.random(1 << 20)

    def np_work(k):
        for _ in range(k):
            np.sort(big)

    def pb_work(k):
        for _ in range(k):
            pb.quat_catmull_rom(*r, 0.37, velocity=True)

    msgs, spare = [], False
    for _ in range(3):
        _, _, np_s = _speedup(np_work, 8)
        t1, t4, s = _speedup(pb_work, 16)
        msgs.append(f"posebatch: 1 thread {t1:.3f} s, 4 threads {t4:.3f} s: {s:.2f}x "
                    f"(numpy sort: {np_s:.2f}x)")
        print(msgs[-1])
        if s > 1.3:
            return
        spare = spare or np_s >= 1.4
    if not spare:
        pytest.skip("host saturated, no spare core: " + "; ".join(msgs))
    assert False, "; ".join(msgs)


def test_gil_released_during_call(rng):
    """Another Python thread runs while one long batch call is in C."""
    n = 1 << 21
    r = [unit_quats(rng, (n,)) for _ in range(4)]
    state = {"in_call": False, "ticks": 0, "done": False}

    def ticker():
        while not state["done"]:
            if state["in_call"]:
                state["ticks"] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.05)  # held GIL: the ticker would wait out the whole call
    th = threading.Thread(target=ticker)
    th.start()
    try:
        time.sleep(0.01)
        state["in_call"] = True
        t0 = time.perf_counter()
        pb.quat_catmull_rom(*r, 0.37, velocity=True)
        dt = time.perf_counter() - t0
        state["in_call"] = False
    finally:
        state["done"] = True
        th.join()
        sys.setswitchinterval(old)
    # holding the GIL for the call would let the ticker run only at its edges
    assert state["ticks"] > 1000, (state["ticks"], dt)
