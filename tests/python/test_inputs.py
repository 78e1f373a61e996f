"""Inputs taken as a numpy user gives them, messages that say what is wrong,
and array properties that cost nothing per access (issue 35, point 5)."""
import numpy as np
import pytest

import posebatch as pb
from conftest import CLIP, unit_quats


def test_non_native_byte_order_is_converted(rng=np.random.default_rng(3)):
    q = unit_quats(rng, (64,)) * 3
    want = pb.quat_normalize(q)
    for dt in (">f4", "<f4", ">f8"):
        got = pb.quat_normalize(q.astype(dt))
        assert np.array_equal(got, want), dt
    w = np.array([0.25, 0.75])
    a = pb.blend(np.stack([q, q[::-1].copy()]).astype(">f4"), w.astype(">f4"))
    b = pb.blend(np.stack([q, q[::-1].copy()]), w.astype(np.float32))
    assert np.array_equal(a.rotations, b.rotations)


def test_messages_are_formatted():
    rot = pb.read_bvh(CLIP).rotations[:3]
    with pytest.raises(ValueError) as e:
        pb.resample(rot, 1.0 / 120, 1e300)
    assert "%" not in str(e.value) and "1e+300 fps" in str(e.value), str(e.value)


def test_nan_times_named():
    bvh = pb.read_bvh(CLIP)
    with pytest.raises(ValueError, match="NaN"):
        pb.sample(bvh.rotations, 1.0 / 120, [0.0, float("nan")])


def test_motion_properties_are_made_once():
    bvh = pb.read_bvh(CLIP)
    r = bvh.rotations
    assert bvh.rotations is r and bvh.positions is bvh.positions
    assert not r.flags.writeable
    with pytest.raises(ValueError):
        r[0, 0, 0] = 2.0
    # motion() still gives fresh, writable copies equal to them
    mr, mp = bvh.motion()
    assert mr.flags.writeable and np.array_equal(mr, r) and np.array_equal(mp, bvh.positions)
