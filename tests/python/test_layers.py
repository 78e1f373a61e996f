"""posebatch.blend_layers (pb_pose_blend_layers): bit for bit the C API's result
(the _cref program on the same inputs and backend), against a float64
reference of the formulas, the masks' and additive layers' semantics, and
its argument errors."""
import os
import subprocess

import numpy as np
import pytest

import posebatch as pb
from conftest import ref_abs, ref_angle, ref_conj, ref_exp, ref_log, ref_mul, unit_quats

CREF = os.path.join(os.path.dirname(pb.__file__), "_cref")
BACKENDS = pb.supported_backends()
METHODS = ["log_ref", "raw_ref", "log", "raw"]
J = 37  # a tail on every backend (37 = 2 x 16 + 5 = 4 x 8 + 5 = 9 x 4 + 1)


def soa(a):
    """(..., C) -> the C component arrays one after another (the C API's layout)."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    return np.ascontiguousarray(np.moveaxis(a.reshape(-1, a.shape[-1]), -1, 0)).tobytes()


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def from_soa(flat, n, c):
    return np.ascontiguousarray(flat[: n * c].reshape(c, n).T)


def layer_set(rng, k, j, masks):
    rot = unit_quats(rng, (k, j))
    pos = rng.normal(size=(k, j, 3)).astype(np.float32)
    scl = np.exp(rng.normal(scale=0.4, size=(k, j, 3))).astype(np.float32)
    jw = rng.uniform(0.0, 1.0, size=(k, j)).astype(np.float32) if masks else None
    if masks:
        jw[0, :5] = 0.0  # a layer masked out at some joints
        if k > 1:
            jw[:, 5] = 0.0  # every layer masked out at one joint: the reference there
    return rot, pos, scl, jw


def layers_bytes(w, rot, pos, scl, jw):
    out = np.asarray(w, np.float32).tobytes()
    for i in range(len(w)):
        out += soa(rot[i]) + soa(pos[i]) + soa(scl[i])
        if jw is not None:
            out += jw[i].astype(np.float32).tobytes()
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("method", range(4))
@pytest.mark.parametrize("linear", [False, True])
@pytest.mark.parametrize("case", ["plain", "masks", "additive"])
def test_blend_layers_bitwise(backend, method, linear, case, rng, restore_backend):
    pb.force_backend(backend)
    k, a = 3, (2 if case == "additive" else 0)
    rot, pos, scl, jw = layer_set(rng, k, J, case != "plain")
    w = np.array([0.5, 0.3, 0.2], np.float32)
    rr = unit_quats(rng, (J,))
    rp = rng.normal(size=(J, 3)).astype(np.float32)
    rs = np.exp(rng.normal(scale=0.2, size=(J, 3))).astype(np.float32)
    kw = dict(joint_weights=jw, method=METHODS[method], linear_scales=linear,
              ref_rotations=rr, ref_positions=rp, ref_scales=rs)
    payload = layers_bytes(w, rot, pos, scl, jw)
    aw = np.array([0.7, -0.4], np.float32)
    if a:
        arot, apos, ascl, ajw = layer_set(rng, a, J, True)
        kw.update(additive_rotations=arot, additive_weights=aw, additive_positions=apos,
                  additive_scales=ascl, additive_joint_weights=ajw)
        payload += layers_bytes(aw, arot, apos, ascl, ajw)
    else:
        payload += layers_bytes([], rot[:0], pos[:0], scl[:0], None)
    payload += soa(rr) + soa(rp) + soa(rs)
    out = pb.blend_layers(rot, w, pos, scl, **kw)
    args = ["layers", method, int(linear), J, k, int(jw is not None), a, int(a > 0)]
    r = subprocess.run([CREF, backend] + [str(x) for x in args], input=payload,
                       capture_output=True, check=True)
    c = np.frombuffer(r.stdout, dtype=np.float32)
    assert c.size == 10 * J, r.stderr
    assert np.array_equal(bits(out.rotations), bits(from_soa(c, J, 4)))
    assert np.array_equal(bits(out.positions), bits(from_soa(c[4 * J:], J, 3)))
    assert np.array_equal(bits(out.scales), bits(from_soa(c[7 * J:], J, 3)))


def ref_blend(rot, w, pos, scl, jw, rr, rp, rs, linear, arot=None, aw=None, apos=None, ascl=None,
              ajw=None):
    """float64: log_ref rotations, positions, log-space (or linear) scales, then additive layers."""
    rot, pos, scl = (np.asarray(x, np.float64) for x in (rot, pos, scl))
    e = np.asarray(w, np.float64)[:, None] * (np.ones(rot.shape[:2]) if jw is None else jw)
    t = e.sum(axis=0)
    live = t > 0
    tt = np.where(live, t, 1.0)[..., None]
    l = ref_log(ref_abs(ref_mul(ref_conj(rr), rot)))  # (K, J, 3)
    q = ref_mul(rr, ref_exp((e[..., None] * l).sum(axis=0) / tt))
    p = (e[..., None] * pos).sum(axis=0) / tt
    if linear:
        s = (e[..., None] * scl).sum(axis=0) / tt
    else:
        s = rs * np.exp((e[..., None] * np.log(scl / rs)).sum(axis=0) / tt)
    q = np.where(live[..., None], q, rr)
    p = np.where(live[..., None], p, rp)
    s = np.where(live[..., None], s, rs)
    if arot is not None:
        for i in range(len(aw)):
            a = aw[i] * (np.ones(rot.shape[1]) if ajw is None else ajw[i])[..., None]
            q = ref_mul(ref_exp(a * ref_log(ref_abs(np.asarray(arot[i], np.float64)))), q)
            p = p + a * apos[i]
            s = s * (1 + a * (ascl[i] - 1)) if linear else s * np.asarray(ascl[i], np.float64) ** a
    return q, p, s


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("linear", [False, True])
def test_blend_layers_matches_float64(backend, linear, rng, restore_backend):
    pb.force_backend(backend)
    rot, pos, scl, jw = layer_set(rng, 4, J, True)
    arot, apos, ascl, ajw = layer_set(rng, 2, J, True)
    w = np.array([0.4, 0.3, 0.2, 0.1], np.float32)
    aw = np.array([0.6, 0.3], np.float32)
    rr = unit_quats(rng, (J,))
    rp = rng.normal(size=(J, 3)).astype(np.float32)
    rs = np.exp(rng.normal(scale=0.2, size=(J, 3))).astype(np.float32)
    out = pb.blend_layers(rot, w, pos, scl, joint_weights=jw, additive_rotations=arot,
                          additive_weights=aw, additive_positions=apos, additive_scales=ascl,
                          additive_joint_weights=ajw, linear_scales=linear, ref_rotations=rr,
                          ref_positions=rp, ref_scales=rs)
    q, p, s = ref_blend(rot, w, pos, scl, jw, rr, rp, rs, linear, arot, aw, apos, ascl, ajw)
    assert ref_angle(out.rotations.astype(np.float64), q).max() < 1e-5
    np.testing.assert_allclose(out.positions, p, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.scales, s, rtol=1e-5)
    # the joint every layer masks out: the reference's pose, exactly
    assert ref_angle(out.rotations[5:6].astype(np.float64), rr[5:6]).max() < 1e-5


def test_blend_layers_semantics(rng):
    rot, pos, scl, _ = layer_set(rng, 3, J, False)
    w = np.array([0.5, 0.3, 0.2], np.float32)
    base = pb.blend_layers(rot, w, pos, scl)
    # no reference given: the heaviest layer's rotations, zero positions, unit scales
    q, p, s = ref_blend(rot, w, pos, scl, None, rot[0].astype(np.float64), 0.0, 1.0, False)
    assert ref_angle(base.rotations.astype(np.float64), q).max() < 1e-5
    np.testing.assert_allclose(base.positions, p, rtol=1e-5, atol=1e-5)
    # weights are relative: scaling them all changes nothing
    again = pb.blend_layers(rot, w * 8, pos, scl)
    assert ref_angle(again.rotations.astype(np.float64), base.rotations).max() < 1e-6
    np.testing.assert_allclose(again.positions, base.positions, rtol=1e-6, atol=1e-6)
    # joint weights of one give the plain blend; a layer masked out everywhere drops out
    ones = pb.blend_layers(rot, w, pos, scl, joint_weights=np.ones((3, J), np.float32))
    assert ref_angle(ones.rotations.astype(np.float64), base.rotations).max() < 1e-6
    mask = np.ones((3, J), np.float32)
    mask[2] = 0
    dropped = pb.blend_layers(rot, w, pos, scl, joint_weights=mask)
    two = pb.blend_layers(rot[:2], w[:2], pos[:2], scl[:2])
    assert ref_angle(dropped.rotations.astype(np.float64), two.rotations).max() < 1e-6
    np.testing.assert_allclose(dropped.positions, two.positions, rtol=1e-5, atol=1e-6)
    # an additive identity delta, or any delta at weight 0, changes nothing
    ident = np.tile(np.array([1.0, 0, 0, 0], np.float32), (1, J, 1))
    same = pb.blend_layers(rot, w, pos, scl, additive_rotations=ident)
    assert np.array_equal(bits(same.rotations), bits(base.rotations))
    delta = unit_quats(rng, (1, J))
    zero = pb.blend_layers(rot, w, pos, scl, additive_rotations=delta, additive_weights=[0.0])
    assert ref_angle(zero.rotations.astype(np.float64), base.rotations).max() < 1e-6
    # weight 1 applies the delta: d q (up to sign)
    full = pb.blend_layers(rot, w, pos, scl, additive_rotations=delta)
    want = ref_mul(delta[0].astype(np.float64), base.rotations.astype(np.float64))
    assert ref_angle(full.rotations.astype(np.float64), want).max() < 1e-5
    # the tracks given are the tracks returned; several characters in one call
    only = pb.blend_layers(rot, w)
    assert only.positions is None and only.scales is None
    assert ref_angle(only.rotations.astype(np.float64), base.rotations).max() < 1e-6
    many = pb.blend_layers(np.stack([rot, rot], axis=1), w)
    assert many.rotations.shape == (2, J, 4)
    assert ref_angle(many.rotations[1].astype(np.float64), base.rotations).max() < 1e-6
    # (x, y, z, w) order is a permutation of the same result
    xyzw = lambda a: np.ascontiguousarray(a[..., [1, 2, 3, 0]])
    o2 = pb.blend_layers(xyzw(rot), w, order="xyzw")
    assert np.array_equal(bits(o2.rotations), bits(xyzw(only.rotations)))


def test_blend_layers_errors(rng):
    rot = unit_quats(rng, (2, 5))
    w = [0.5, 0.5]
    with pytest.raises(ValueError, match="'weights' has shape"):
        pb.blend_layers(rot, [1.0])
    with pytest.raises(ValueError, match="'joint_weights' has shape"):
        pb.blend_layers(rot, w, joint_weights=np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match="'positions' has shape"):
        pb.blend_layers(rot, w, np.zeros((2, 4, 3)))
    with pytest.raises(ValueError, match="'additive_rotations' has shape"):
        pb.blend_layers(rot, w, additive_rotations=unit_quats(rng, (1, 4)))
    with pytest.raises(ValueError, match="'additive_weights' has shape"):
        pb.blend_layers(rot, w, additive_rotations=unit_quats(rng, (1, 5)),
                        additive_weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="additive_weights given without additive_rotations"):
        pb.blend_layers(rot, w, additive_weights=[1.0])
    with pytest.raises(ValueError, match="additive_positions given without positions"):
        pb.blend_layers(rot, w, additive_rotations=unit_quats(rng, (1, 5)),
                        additive_positions=np.zeros((1, 5, 3)))
    with pytest.raises(ValueError, match="ref_scales given without scales"):
        pb.blend_layers(rot, w, ref_scales=np.ones((5, 3)))
    with pytest.raises(ValueError, match="'method' must be one of"):
        pb.blend_layers(rot, w, method="median")
    with pytest.raises(ValueError, match="'accurate' is not a layered blend method"):
        pb.blend_layers(rot, w, method="accurate")
    with pytest.raises(ValueError, match="holds no pose"):
        pb.blend_layers(rot[:0], [])
    with pytest.raises(TypeError, match="unexpected keyword argument 'mask'"):
        pb.blend_layers(rot, w, mask=None)
    with pytest.raises(TypeError, match="'rotations' must be a real array"):
        pb.blend_layers("x", w)
