"""Mirroring and root motion from Python: mirror_table, mirror, root_motion_extract /
root_motion_apply over numpy arrays, and Bvh.mirror / root_motion / apply_root_motion,
against a float64 numpy reference (forward kinematics, reflections, yaw) and the CLI."""
import os
import subprocess

import numpy as np
import pytest

import posebatch as pb
from conftest import CLIP, SHARED, ref_angle, ref_conj, ref_mul, unit_quats


# ---- float64 references ----
def ref_rotate(q, v):
    """v rotated by unit q: q v q*."""
    qv = np.concatenate([np.zeros(v.shape[:-1] + (1,)), v], axis=-1)
    return ref_mul(ref_mul(q, qv), ref_conj(q))[..., 1:]


def ref_fk(parents, rot, pos):
    """Model-space rotations and positions of (F, J) local ones."""
    rot = rot.astype(np.float64)
    pos = pos.astype(np.float64)
    R = np.empty_like(rot)
    T = np.empty_like(pos)
    for j, p in enumerate(parents):
        if p is None or p < 0:
            R[:, j], T[:, j] = rot[:, j], pos[:, j]
        else:
            R[:, j] = ref_mul(R[:, p], rot[:, j])
            T[:, j] = T[:, p] + ref_rotate(R[:, p], pos[:, j])
    return R, T


def ref_matrix(q):
    w, x, y, z = np.moveaxis(q.astype(np.float64), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


PLANES = {"yz": 0, "xz": 1, "xy": 2}


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


# ---- mirror_table ----
def test_mirror_table_families_and_pairs():
    names = ["Hips", "LeftUpLeg", "RightUpLeg", "Hand_L", "hand_r", "lhip", "rhip",
             "lowerback", "L_Toe", "R_Toe"]
    t = pb.mirror_table(names)
    want = {"Hips": "Hips", "LeftUpLeg": "RightUpLeg", "Hand_L": "hand_r", "lhip": "rhip",
            "lowerback": "lowerback", "L_Toe": "R_Toe"}
    for a, b in want.items():
        assert names[t[names.index(a)]] == b
        assert names[t[names.index(b)]] == a
    # explicit pairs override: as a dict or as pairs
    t2 = pb.mirror_table(names, {"LeftUpLeg": "R_Toe", "RightUpLeg": "L_Toe"})
    assert names[t2[1]] == "R_Toe" and names[t2[2]] == "L_Toe"
    t3 = pb.mirror_table(names, [("LeftUpLeg", "R_Toe"), ("RightUpLeg", "L_Toe")])
    assert t2 == t3


def test_mirror_table_errors():
    with pytest.raises(pb.BvhError, match="'LeftArm' has no counterpart 'RightArm'"):
        pb.mirror_table(["Hips", "LeftArm"])
    assert pb.mirror_table(["Hips", "LeftArm"], {"LeftArm": "LeftArm"}) == [0, 1]
    with pytest.raises(pb.BvhError, match="no joint named 'Nope'"):
        pb.mirror_table(["Hips"], {"Nope": "Hips"})
    with pytest.raises(TypeError):
        pb.mirror_table(["Hips", 3])
    with pytest.raises(TypeError):
        pb.mirror_table(["Hips"], [("Hips",)])


# ---- mirror over arrays ----
@pytest.mark.parametrize("plane", ["yz", "xz", "xy"])
def test_mirror_arrays_rule_and_twice(rng, plane):
    F, J = 9, 5
    table = [0, 3, 4, 1, 2]
    rot = unit_quats(rng, (F, J))
    pos = rng.normal(size=(F, J, 3)).astype(np.float32) * 10
    r1, p1 = pb.mirror(rot, table, pos, plane)
    # the reflection M R M of the counterpart's rotation, as matrices
    M = np.eye(3)
    M[PLANES[plane], PLANES[plane]] = -1
    src = rot[:, table]
    np.testing.assert_allclose(ref_matrix(r1), M @ ref_matrix(src) @ M, atol=1e-6)
    np.testing.assert_array_equal(p1, pos[:, table] @ M.astype(np.float32))
    # twice: bit for bit
    r2, p2 = pb.mirror(r1, table, p1, plane)
    assert np.array_equal(bits(r2), bits(rot)) and np.array_equal(bits(p2), bits(pos))
    # xyzw order and no positions
    r3, p3 = pb.mirror(np.ascontiguousarray(rot[..., [1, 2, 3, 0]]), table, plane=plane,
                       order="xyzw")
    assert p3 is None
    np.testing.assert_array_equal(r3[..., [3, 0, 1, 2]], r1)


def test_mirror_arrays_errors(rng):
    rot = unit_quats(rng, (2, 3))
    with pytest.raises(ValueError, match="plane"):
        pb.mirror(rot, [0, 2, 1], plane="zz")
    with pytest.raises(ValueError, match="plane"):  # the whole str, not its prefix
        pb.mirror(rot, [0, 2, 1], plane="yz\0xy")
    with pytest.raises(ValueError, match="'table' has 2 entries; the arrays have 3 joints"):
        pb.mirror(rot, [0, 1])
    with pytest.raises(ValueError):  # not an involution
        pb.mirror(rot, [1, 2, 0])
    with pytest.raises(ValueError):  # out of range
        pb.mirror(rot, [0, 1, 5])


# ---- Bvh.mirror ----
def feet_reflect(path, left, right):
    src = pb.read_bvh(path)
    m = src.mirror()
    par = src.parents
    _, Ts = ref_fk(par, *src.motion())
    _, Tm = ref_fk(par, *m.motion())
    names = src.joint_names
    li, ri = names.index(left), names.index(right)
    height = np.ptp(Ts[0, :, 1])
    flip = np.array([-1.0, 1.0, 1.0])
    assert np.max(np.abs(Tm[:, li] - Ts[:, ri] * flip)) <= 1e-4 * height
    assert np.max(np.abs(Tm[:, ri] - Ts[:, li] * flip)) <= 1e-4 * height
    # and it is not the identity
    assert np.max(np.abs(Tm[:, li] - Ts[:, li])) > 1e-2 * height
    # offsets reflected and swapped
    t = pb.mirror_table(names)
    np.testing.assert_array_equal(m.offsets, src.offsets[t] * flip.astype(np.float32))
    return src, m


def test_bvh_mirror_cmu():
    src, m = feet_reflect(CLIP, "LeftFoot", "RightFoot")
    twice = m.mirror()
    r0, p0 = src.motion()
    r2, p2 = twice.motion()
    assert np.array_equal(bits(r0), bits(r2)) and np.array_equal(bits(p0), bits(p2))
    assert twice.to_bytes() == src.to_bytes()


@pytest.mark.parametrize("name", [os.path.basename(p) for p in SHARED if "bandai" in p])
def test_bvh_mirror_bandai(name):
    feet_reflect([p for p in SHARED if p.endswith(name)][0], "Foot_L", "Foot_R")


def test_bvh_mirror_pairs_and_errors(tmp_path):
    text = open(CLIP).read().replace("JOINT LHipJoint", "JOINT LHipJointX")
    b = pb.parse_bvh(text)
    with pytest.raises(pb.BvhError, match="parents 'LHipJointX' and 'RHipJoint'"):
        b.mirror()
    m = b.mirror(pairs={"LHipJointX": "RHipJoint"})
    assert m.num_frames == b.num_frames
    with pytest.raises(ValueError, match="plane"):
        b.mirror("ab")


def test_bvh_mirror_matches_cli(cli, tmp_path):
    out = tmp_path / "m.bvh"
    subprocess.run([cli, "mirror", CLIP, "-o", str(out), "--plane", "xy"], check=True)
    assert pb.read_bvh(CLIP).mirror("xy").to_bytes() == out.read_bytes()


# ---- root motion over arrays ----
@pytest.mark.parametrize("up", ["x", "y", "z"])
def test_root_motion_arrays(rng, up):
    F, J = 30, 4
    parents = [None, 0, 1, 1]
    rot = unit_quats(rng, (F, J))
    pos = (rng.normal(size=(F, J, 3)) * 50).astype(np.float32)
    r, p, gp, gr = pb.root_motion_extract(rot, pos, parents, up=up)
    u = "xyz".index(up)
    fw, sd = (u + 1) % 3, (u + 2) % 3
    # the track: ground translation (the root's position less its up part) and the
    # yaw of the root's forward axis projected on the ground
    want_g = pos[:, 0].astype(np.float64)
    want_g[:, u] = 0
    np.testing.assert_allclose(gp, want_g, atol=1e-5)
    f = np.zeros(3)
    f[fw] = 1
    v = ref_rotate(rot[:, 0].astype(np.float64), np.broadcast_to(f, (F, 3)))
    yaw = np.arctan2(v[:, sd], v[:, fw])
    h = np.zeros((F, 4))
    h[:, 0] = np.cos(yaw / 2)
    h[:, 1 + u] = np.sin(yaw / 2)
    assert np.max(ref_angle(gr, h)) < 2e-6
    # in place: the root at the ground origin, facing forward
    assert np.all(np.abs(p[:, 0, fw]) < 1e-4) and np.all(np.abs(p[:, 0, sd]) < 1e-4)
    v2 = ref_rotate(r[:, 0].astype(np.float64), np.broadcast_to(f, (F, 3)))
    assert np.all(np.abs(v2[:, sd]) < 1e-5) and np.all(v2[:, fw] > 0)
    # other joints untouched, and back again
    np.testing.assert_array_equal(r[:, 1:], rot[:, 1:])
    r2, p2 = pb.root_motion_apply(r, p, gp, gr, parents, up=up)
    assert np.max(ref_angle(r2, rot)) < 1e-6
    np.testing.assert_allclose(p2, pos, atol=1e-4)


def test_root_motion_components_and_errors(rng):
    rot = unit_quats(rng, (4, 2))
    pos = rng.normal(size=(4, 2, 3)).astype(np.float32)
    _, _, gp, gr = pb.root_motion_extract(rot, pos, components="ground")
    np.testing.assert_array_equal(gr, np.tile([1, 0, 0, 0], (4, 1)))
    _, _, gp, gr = pb.root_motion_extract(rot, pos, components="heading")
    np.testing.assert_array_equal(gp, np.zeros((4, 3)))
    with pytest.raises(ValueError, match="up"):
        pb.root_motion_extract(rot, pos, up="w")
    with pytest.raises(ValueError, match="components"):
        pb.root_motion_extract(rot, pos, components="both")
    with pytest.raises(ValueError):
        pb.root_motion_extract(rot, pos, joint=2)
    with pytest.raises(ValueError):  # a parent after its child
        pb.root_motion_extract(rot, pos, [1, None])
    with pytest.raises(TypeError, match="positions"):
        pb.root_motion_extract(rot, None)
    with pytest.raises(ValueError, match=r"\(4, 3\)"):
        pb.root_motion_apply(rot, pos, np.zeros((3, 3)), np.zeros((4, 4)))


# ---- root motion on Bvh ----
def test_bvh_root_motion_round_trip_and_cli(cli, tmp_path):
    b = pb.read_bvh(CLIP)
    ip, gp, gr = b.root_motion()
    r, p = ip.motion()
    assert np.all(p[:, 0, 0] == 0) and np.all(p[:, 0, 2] == 0)
    back = ip.apply_root_motion(gp, gr)
    r0, p0 = b.motion()
    r1, p1 = back.motion()
    assert np.max(ref_angle(r1, r0)) < 1e-6
    np.testing.assert_allclose(p1, p0, atol=1e-4)
    # the CLI's in-place clip, byte for byte, and its CSV track
    out, csv = tmp_path / "ip.bvh", tmp_path / "r.csv"
    subprocess.run([cli, "root-motion", CLIP, "-o", str(out), "--root-csv", str(csv)],
                   check=True)
    assert ip.to_bytes() == out.read_bytes()
    t = np.loadtxt(csv, delimiter=",", skiprows=1)
    np.testing.assert_array_equal(t[:, 2:5].astype(np.float32), gp)
    np.testing.assert_array_equal(t[:, 5:9].astype(np.float32), gr)
    # a joint by name, below the root
    ip2, _, _ = b.root_motion("LowerBack", up="y", components="heading")
    assert ip2.num_frames == b.num_frames
    with pytest.raises(ValueError, match="no joint named 'Nope'"):
        b.root_motion("Nope")


def test_root_motion_apply_refuses_non_unit_headings(rng):
    """pb_clip_root_apply: a heading more than 1e-4 from unit length is refused
    (ValueError) and nothing is written; within 1e-4 it is applied as given."""
    rot = unit_quats(rng, (3, 2))
    pos = rng.normal(size=(3, 2, 3)).astype(np.float32)
    gp = np.zeros((3, 3), np.float32)
    for bad in ([0, 0, 0, 0], [1.001, 0, 0, 0], [np.nan, 0, 0, 0]):
        gr = np.tile(np.array([1, 0, 0, 0], np.float32), (3, 1))
        gr[1] = bad
        r0, p0 = rot.copy(), pos.copy()
        with pytest.raises(ValueError):
            pb.root_motion_apply(rot, pos, gp, gr)
        np.testing.assert_array_equal(rot, r0)
        np.testing.assert_array_equal(pos, p0)
    gr = np.tile(np.array([1.00005, 0, 0, 0], np.float32), (3, 1))
    r, _ = pb.root_motion_apply(rot, pos, gp, gr)
    assert np.all(np.isfinite(r))
