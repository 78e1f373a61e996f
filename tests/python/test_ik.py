"""Inverse kinematics from Python: ik_two_bone / ik_aim over numpy arrays, checked by
forward kinematics in float64 of the corrected pose (the end joint on a reachable target,
an aimed joint's forward axis on its target), weights, the xyzw order, errors."""
import threading

import numpy as np
import pytest

import posebatch as pb
from conftest import ref_conj, ref_mul

PARENTS = [-1, 0, 1, 2, 3]  # root, hip, knee, foot, toe


def ref_rotate(q, v):
    p = np.concatenate([np.zeros(v.shape[:-1] + (1,)), v], axis=-1)
    return ref_mul(ref_mul(q, p), ref_conj(q))[..., 1:]


def ref_fk(rot, pos):
    rot = rot.astype(np.float64)
    rot = rot / np.linalg.norm(rot, axis=-1, keepdims=True)
    R, T = np.empty_like(rot), np.empty(pos.shape)
    for j, a in enumerate(PARENTS):
        if a < 0:
            R[..., j, :], T[..., j, :] = rot[..., j, :], pos[..., j, :]
        else:
            R[..., j, :] = ref_mul(R[..., a, :], rot[..., j, :])
            T[..., j, :] = T[..., a, :] + ref_rotate(R[..., a, :], pos[..., j, :].astype(np.float64))
    return R, T


def limb(rng, P):
    """P poses of a leg whose knee (joint 2) is a hinge about z (its bones in the xy
    planes of the hip and knee frames)."""
    rot = rng.normal(size=(P, 5, 4))
    knee = rng.uniform(-3.0, 3.0, size=P)
    rot[:, 2] = np.stack([np.cos(knee / 2), 0 * knee, 0 * knee, np.sin(knee / 2)], axis=-1)
    rot /= np.linalg.norm(rot, axis=-1, keepdims=True)
    pos = rng.uniform(-20, 20, size=(P, 5, 3))
    for j in (2, 3):
        ang = rng.uniform(0, 2 * np.pi, size=P)
        pos[:, j] = np.stack([np.cos(ang), np.sin(ang), 0 * ang], axis=-1) * rng.uniform(5, 40, size=(P, 1))
    return rot.astype(np.float32), pos.astype(np.float32)


def targets(rng, mpos, reach=True):
    a = np.linalg.norm(mpos[:, 2] - mpos[:, 1], axis=-1)
    b = np.linalg.norm(mpos[:, 3] - mpos[:, 2], axis=-1)
    lo, hi = np.abs(a - b) + 1e-2 * (a + b), 0.99 * (a + b)
    d = rng.uniform(lo, hi) if reach else 1.5 * (a + b)
    u = rng.normal(size=(len(a), 3))
    u /= np.linalg.norm(u, axis=-1, keepdims=True)
    return (mpos[:, 1] + u * d[:, None]).astype(np.float32), a + b


def test_two_bone_reaches():
    rng = np.random.default_rng(1)
    rot, pos = limb(rng, 37)
    m = pb.local_to_model(PARENTS, rot, pos)
    t, length = targets(rng, m.positions)
    poles = rng.normal(size=(37, 3)).astype(np.float32)
    out, reached = pb.ik_two_bone(rot, m.rotations, m.positions, 1, 2, 3, t, poles)
    assert out.shape == rot.shape and out.dtype == np.float32 and reached.dtype == bool
    assert reached.all()
    # only the hip and knee changed
    np.testing.assert_array_equal(np.delete(out, [1, 2], axis=1), np.delete(rot, [1, 2], axis=1))
    _, T = ref_fk(out, pos)
    err = np.linalg.norm(T[:, 3] - t, axis=-1) / length
    assert err.max() <= 1e-5, err.max()


def test_two_bone_unreachable_straight_and_weights():
    rng = np.random.default_rng(2)
    rot, pos = limb(rng, 9)
    m = pb.local_to_model(PARENTS, rot, pos)
    t, length = targets(rng, m.positions, reach=False)
    poles = np.tile(np.float32([0, 0, 1]), (9, 1))
    out, reached = pb.ik_two_bone(rot, m.rotations, m.positions, 1, 2, 3, t, poles)
    assert not reached.any()
    _, T = ref_fk(out, pos)
    d = (t - T[:, 1]) / np.linalg.norm(t - T[:, 1], axis=-1, keepdims=True)
    want = T[:, 1] + d * length[:, None]
    assert (np.linalg.norm(T[:, 3] - want, axis=-1) / length).max() <= 1e-5
    out0, reached0 = pb.ik_two_bone(rot, m.rotations, m.positions, 1, 2, 3, t, poles,
                                     weights=np.zeros(9, np.float32))
    np.testing.assert_array_equal(out0, rot)
    assert not reached0.any()


def test_two_bone_order_and_one_pose():
    rng = np.random.default_rng(3)
    rot, pos = limb(rng, 4)
    m = pb.local_to_model(PARENTS, rot, pos)
    t, _ = targets(rng, m.positions)
    poles = rng.normal(size=(4, 3)).astype(np.float32)
    out, _ = pb.ik_two_bone(rot, m.rotations, m.positions, 1, 2, 3, t, poles, soften=np.full(4, 0.9, np.float32))
    xyzw = lambda q: np.roll(q, -1, axis=-1)
    out2, _ = pb.ik_two_bone(xyzw(rot), xyzw(m.rotations), m.positions, 1, 2, 3, t, poles,
                             soften=np.full(4, 0.9, np.float32), order="xyzw")
    np.testing.assert_array_equal(xyzw(out), out2)
    # one pose, no pose axis: the same as that pose of the batch (every backend's one-lane
    # path gives the bits its block gives)
    one, r1 = pb.ik_two_bone(rot[0], m.rotations[0], m.positions[0], 1, 2, 3, t[0], poles[0],
                             soften=np.float32([0.9]))
    assert one.shape == (5, 4) and r1.shape == ()
    np.testing.assert_allclose(one, out[0], atol=2e-6)


def test_aim_points_at_target():
    rng = np.random.default_rng(4)
    rot, pos = limb(rng, 21)
    m = pb.local_to_model(PARENTS, rot, pos)
    t = (m.positions[:, 4] + rng.normal(size=(21, 3)) * 50).astype(np.float32)
    poles = np.tile(np.float32([0, 1, 0]), (21, 1))
    fwd = np.array([0.0, 0.0, 1.0])
    out = pb.ik_aim(rot, m.rotations, m.positions, 4, t, poles, forward=fwd, up=(0, 1, 0))
    R, T = ref_fk(out, pos)
    f = ref_rotate(R[:, 4], np.tile(fwd, (21, 1)))
    d = (t - T[:, 4]) / np.linalg.norm(t - T[:, 4], axis=-1, keepdims=True)
    ang = np.arccos(np.clip((f * d).sum(-1), -1, 1))
    assert ang.max() <= 1e-5, ang.max()
    # a chain: its last joint (weight 1) aimed too
    far = (m.positions[:, 4] + rng.normal(size=(21, 3)) * 2000).astype(np.float32)
    out3 = pb.ik_aim(rot, m.rotations, m.positions, [2, 3, 4], far, poles, forward=fwd,
                     joint_weights=[0.3, 0.6, 1.0])
    R, T = ref_fk(out3, pos)
    f = ref_rotate(R[:, 4], np.tile(fwd, (21, 1)))
    d = (far - T[:, 4]) / np.linalg.norm(far - T[:, 4], axis=-1, keepdims=True)
    assert np.arccos(np.clip((f * d).sum(-1), -1, 1)).max() <= 1e-5


def test_errors():
    rng = np.random.default_rng(5)
    rot, pos = limb(rng, 3)
    m = pb.local_to_model(PARENTS, rot, pos)
    t = np.zeros((3, 3), np.float32)
    with pytest.raises(ValueError, match="start"):
        pb.ik_two_bone(rot, m.rotations, m.positions, 7, 2, 3, t, t)
    with pytest.raises(ValueError, match="targets"):
        pb.ik_two_bone(rot, m.rotations, m.positions, 1, 2, 3, t[:2], t)
    with pytest.raises(ValueError, match="model_positions"):
        pb.ik_two_bone(rot, m.rotations, m.positions[:2], 1, 2, 3, t, t)
    with pytest.raises(ValueError):
        pb.ik_two_bone(rot, m.rotations, m.positions, 1, 1, 3, t, t)  # not distinct
    with pytest.raises(ValueError, match="mid_axis"):
        pb.ik_two_bone(rot, m.rotations, m.positions, 1, 2, 3, t, t, mid_axis=(1, 2))
    with pytest.raises(ValueError, match="weights"):
        pb.ik_two_bone(rot, m.rotations, m.positions, 1, 2, 3, t, t, weights=[1, 1])
    with pytest.raises(ValueError, match="chain"):
        pb.ik_aim(rot, m.rotations, m.positions, [], t, t)
    with pytest.raises(ValueError):
        pb.ik_aim(rot, m.rotations, m.positions, 2, t, t, forward=(0, 1, 0), up=(0, 2, 0))


def test_threads_run_together():
    """The solve runs without the GIL: calls from threads give each its own result."""
    rng = np.random.default_rng(6)
    rot, pos = limb(rng, 2000)
    m = pb.local_to_model(PARENTS, rot, pos)
    t, _ = targets(rng, m.positions)
    poles = rng.normal(size=(2000, 3)).astype(np.float32)
    want, _ = pb.ik_two_bone(rot, m.rotations, m.positions, 1, 2, 3, t, poles)
    got = [None] * 4

    def run(i):
        got[i] = pb.ik_two_bone(rot, m.rotations, m.positions, 1, 2, 3, t, poles)[0]

    th = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for x in th:
        x.start()
    for x in th:
        x.join()
    for g in got:
        np.testing.assert_array_equal(g, want)
