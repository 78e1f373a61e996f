"""Model space from Python: local_to_model / model_to_local and Bvh.global_positions /
global_rotations against float64 numpy references (quaternions, and rotation matrices
frame by frame as fairmotion / PyMO users write it)."""
import os

import numpy as np
import pytest

import posebatch as pb
from conftest import CLIP, SHARED_DIR, ref_conj, ref_mul, unit_quats

PYMO = os.path.join(SHARED_DIR, "mocap", "pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh")


def ref_rotate(q, v):
    """q v q* for unit q (..., 4) and v (..., 3), float64."""
    p = np.concatenate([np.zeros(v.shape[:-1] + (1,)), v], axis=-1)
    return ref_mul(ref_mul(q, p), ref_conj(q))[..., 1:]


def ref_fk(parents, rot, pos=None, scl=None):
    """The contract's composition in float64: R_j = R_a r_j, T_j = T_a + R_a (S_a * t_j),
    S_j = S_a * s_j; roots as given."""
    rot = rot.astype(np.float64)
    R = np.empty_like(rot)
    T = None if pos is None else np.empty(pos.shape)
    S = None if scl is None else np.empty(scl.shape)
    for j, a in enumerate(parents):
        if a < 0:
            R[..., j, :] = rot[..., j, :]
            if T is not None:
                T[..., j, :] = pos[..., j, :]
            if S is not None:
                S[..., j, :] = scl[..., j, :]
            continue
        R[..., j, :] = ref_mul(R[..., a, :], rot[..., j, :])
        if T is not None:
            t = pos[..., j, :].astype(np.float64)
            if S is not None:
                t = S[..., a, :] * t
            T[..., j, :] = T[..., a, :] + ref_rotate(R[..., a, :], t)
        if S is not None:
            S[..., j, :] = S[..., a, :] * scl[..., j, :]
    return R, T, S


def random_parents(rng, joints, roots=2):
    p = [-1] * roots + [int(rng.integers(0, j)) for j in range(roots, joints)]
    return p


def same_rotations(a, b, tol):
    d = np.minimum(np.abs(a - b).max(-1), np.abs(a + b).max(-1))
    return d.max() <= tol


@pytest.mark.parametrize("with_scales", [False, True])
def test_local_to_model_matches_reference(rng, with_scales):
    parents = random_parents(rng, 31)
    rot = unit_quats(rng, (3, 5, 31))
    pos = rng.normal(size=(3, 5, 31, 3)).astype(np.float32) * 10
    scl = rng.uniform(0.5, 1.5, size=(3, 5, 31, 3)).astype(np.float32) if with_scales else None
    m = pb.local_to_model(parents, rot, pos, scl)
    R, T, S = ref_fk(parents, rot, pos, scl)
    assert m.rotations.shape == rot.shape and m.rotations.dtype == np.float32
    assert m.positions.shape == pos.shape
    assert same_rotations(m.rotations, R, 2e-6)
    assert np.abs(m.positions - T).max() <= 1e-5 * np.abs(T).max()
    if with_scales:
        assert np.abs(m.scales - S).max() <= 1e-5 * np.abs(S).max()
    else:
        assert m.scales is None


def test_model_to_local_inverts(rng):
    parents = random_parents(rng, 24, roots=1)
    rot = unit_quats(rng, (40, 24))
    pos = rng.normal(size=(40, 24, 3)).astype(np.float32) * 5
    scl = rng.uniform(0.5, 1.5, size=(40, 24, 3)).astype(np.float32)
    R, T, S = ref_fk(parents, rot, pos, scl)
    loc = pb.model_to_local(parents, R, T, S)
    assert same_rotations(loc.rotations, rot, 1e-5)
    assert np.abs(loc.positions - pos).max() <= 2e-5 * np.abs(pos).max()
    assert np.abs(loc.scales - scl).max() <= 1e-5
    back = pb.local_to_model(parents, loc.rotations, loc.positions, loc.scales)
    assert np.abs(back.positions - T).max() <= 2e-5 * np.abs(T).max()


def test_rotations_only_and_order(rng):
    parents = [-1, 0, 1, 1, 3]
    rot = unit_quats(rng, (6, 5))
    m = pb.local_to_model(parents, rot)
    assert m.positions is None and m.scales is None
    x = pb.local_to_model(parents, np.roll(rot, -1, axis=-1), order="xyzw")
    assert np.array_equal(np.roll(x.rotations, 1, axis=-1), m.rotations)
    # inputs untouched, outputs new
    before = rot.copy()
    pb.model_to_local(parents, rot)
    assert np.array_equal(rot, before) and not np.shares_memory(m.rotations, rot)


def test_parents_forms(rng):
    rot = unit_quats(rng, (2, 3))
    a = pb.local_to_model([None, 0, 1], rot).rotations
    assert np.array_equal(a, pb.local_to_model(np.array([-1, 0, 1], np.int16), rot).rotations)
    assert np.array_equal(a, pb.local_to_model((-1, 0, 1), rot).rotations)


def test_empty_batch():
    m = pb.local_to_model([-1, 0], np.zeros((0, 2, 4), np.float32), np.zeros((0, 2, 3)))
    assert m.rotations.shape == (0, 2, 4) and m.positions.shape == (0, 2, 3)


def fk_matrices(parents, rot, pos, frames):
    """Per frame, per joint: the parent's global rotation matrix @ local, as a numpy
    user writes it (float64)."""
    def mat(q):
        w, x, y, z = q
        return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    out = np.empty((len(frames), len(parents), 3))
    for i, f in enumerate(frames):
        gr = [None] * len(parents)
        for j, a in enumerate(parents):
            r = mat(rot[f, j].astype(np.float64))
            if a is None:
                gr[j], out[i, j] = r, pos[f, j]
            else:
                gr[j] = gr[a] @ r
                out[i, j] = out[i, a] + gr[a] @ pos[f, j]
    return out


def test_bvh_global_positions_match_matrices():
    b = pb.read_bvh(CLIP)
    g = b.global_positions()
    assert g.shape == (4511, 31, 3) and g.dtype == np.float32
    frames = [0, 1, 777, 2500, 4510]
    ref = fk_matrices(b.parents, b.rotations, b.positions, frames)
    size = np.ptp(ref[0], axis=0).max()
    assert np.abs(g[frames] - ref).max() <= 1e-5 * size
    # the root is at its position channels
    assert np.array_equal(g[:, 0], b.positions[:, 0])


def test_bvh_global_rotations():
    b = pb.read_bvh(CLIP)
    r = b.global_rotations()
    assert r.shape == (4511, 31, 4)
    R, _, _ = ref_fk([-1 if p is None else p for p in b.parents], b.rotations)
    assert same_rotations(r, R, 2e-6)
    x = b.global_rotations(order="xyzw")
    assert np.array_equal(np.roll(x, 1, axis=-1), r)


def test_three_convention_by_hand():
    """Root R at channels (1, 2, 3), OFFSET (10, 0, 0), turned 90 degrees about Z; child C
    at OFFSET (0, 1, 0): C = R + (-1, 0, 0). three.js adds the channels to the OFFSET."""
    text = ("HIERARCHY\nROOT R\n{\nOFFSET 10 0 0\n"
            "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
            "JOINT C\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
            "End Site\n{\nOFFSET 0 1 0\n}\n}\n}\n"
            "MOTION\nFrames: 1\nFrame Time: 0.5\n1 2 3 90 0 0 0 0 0\n")
    b = pb.parse_bvh(text)
    np.testing.assert_allclose(b.global_positions()[0], [[1, 2, 3], [0, 2, 3]], atol=1e-6)
    np.testing.assert_allclose(b.global_positions(three=True)[0], [[11, 2, 3], [10, 2, 3]],
                               atol=1e-6)


@pytest.mark.skipif(not os.path.exists(PYMO), reason="no ../shared pymo clip")
def test_three_convention_shifts_by_root_offset():
    b = pb.read_bvh(PYMO)
    d = b.global_positions(three=True).astype(np.float64) - b.global_positions()
    off = b.offsets[0].astype(np.float64)
    assert np.linalg.norm(off) > 60  # 65.8 units on this clip
    assert np.abs(d - off).max() <= 1e-4


def test_matches_cli(cli, tmp_path):
    out = tmp_path / "p.npy"
    import subprocess
    subprocess.run([cli, "positions", CLIP, "-o", str(out)], check=True)
    assert np.array_equal(np.load(out), pb.read_bvh(CLIP).global_positions())


@pytest.mark.parametrize("call, message", [
    (lambda r, p: pb.local_to_model([-1, 0], r, p), "parents' has 2 entries"),
    (lambda r, p: pb.local_to_model([-1, 0, 3], r, p), "parents[2] is 3"),
    (lambda r, p: pb.local_to_model([0, 0, 1], r, p), "parents[0] is 0"),
    (lambda r, p: pb.local_to_model([-1, 0, -2], r, p), "parents[2] is -2"),
    (lambda r, p: pb.local_to_model(np.array([-1.0, 0, 1]), r, p), "integer array"),
    (lambda r, p: pb.local_to_model([-1, 0, 1], r, p[:, :2]), "positions"),
    (lambda r, p: pb.local_to_model([-1, 0, 1], r[..., :3], p), "rotations"),
    (lambda r, p: pb.model_to_local([-1, 0, 1], r, p, p[:1]), "scales"),
])
def test_errors(rng, call, message):
    r = unit_quats(rng, (4, 3))
    p = np.zeros((4, 3, 3), np.float32)
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        call(r, p)


def test_parents_type_error(rng):
    with pytest.raises(TypeError, match="parents"):
        pb.local_to_model(5, unit_quats(rng, (1, 1)))
    with pytest.raises(TypeError, match=r"parents\[2\] is 1.5, not an int \(or None for a root\)"):
        pb.local_to_model([-1, 0, 1.5], unit_quats(rng, (4, 3)))


def test_parents_in_every_form(rng):
    """Lists and tuples of ints read in place, other sequences and items through
    a copy, integer arrays of any width, byte order or stride: the same parents."""
    rot = unit_quats(rng, (3, 5))
    pos = rng.normal(size=(3, 5, 3)).astype(np.float32)
    par = [None, 0, 1, 1, 0]
    want = pb.local_to_model(par, rot, pos)
    ints = [-1, 0, 1, 1, 0]

    class Seq(list):
        pass

    forms = [tuple(par), ints, Seq(par), iter(par), [None, False, True, True, 0],
             [None, 0, np.int64(1), 1, 0]]
    for dt in ("i1", "<i2", ">i4", "<i4", "<i8", ">i8"):
        forms.append(np.array(ints, dt))
    forms.append(np.array([-1, 9, 0, 9, 1, 9, 1, 9, 0], np.int32)[::2])  # strided
    forms.append(np.frombuffer(b"\0" + np.array(ints, np.int32).tobytes(), np.int32,
                               offset=1))  # misaligned
    for f in forms:
        got = pb.local_to_model(f, rot, pos)
        assert all(np.array_equal(a, b) for a, b in zip(got, want)), repr(f)
    # unsigned arrays have no -1: their root's parent is a joint
    for dt in ("u1", "u4"):
        with pytest.raises(ValueError, match=r"parents\[0\] is 0"):
            pb.local_to_model(np.array([0, 0, 1, 1, 0], dt), rot, pos)
