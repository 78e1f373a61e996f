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


def misaligned(a):
    """a copy of float32 array a at byte offset 1 of a bytearray"""
    a = np.ascontiguousarray(a, np.float32)
    buf = bytearray(a.nbytes + 1)
    m = np.frombuffer(buf, np.float32, count=a.size, offset=1).reshape(a.shape)
    m[...] = a
    assert not m.flags.aligned and m.flags.c_contiguous
    return m


def test_misaligned_views_give_the_aligned_results(rng):
    """A float32 view at an odd byte offset is copied before the kernels read it
    (issue 47 part 4: UBSan saw misaligned loads in args.c; x86 does not fault
    on them, so a plain build passes either way: run it on a UBSan build)."""
    F, J = 6, 4
    rot = unit_quats(rng, (F, J))
    pos = rng.normal(size=(F, J, 3)).astype(np.float32)
    parents = [None, 0, 1, 1]
    mr, mp = misaligned(rot), misaligned(pos)

    def same(a, b):
        if isinstance(a, tuple):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                same(x, y)
        elif a is None or isinstance(a, bytes):
            assert a == b
        else:
            assert np.array_equal(a, b)

    same(pb.local_to_model(parents, mr, mp), pb.local_to_model(parents, rot, pos))
    same(pb.model_to_local(parents, mr, mp, mp), pb.model_to_local(parents, rot, pos, pos))
    same(pb.mirror(mr, [0, 1, 3, 2], mp), pb.mirror(rot, [0, 1, 3, 2], pos))
    same(pb.root_motion_extract(mr, mp, parents), pb.root_motion_extract(rot, pos, parents))
    gp, gr = np.ascontiguousarray(pos[:, 0]), np.ascontiguousarray(rot[:, 0])
    same(pb.root_motion_apply(mr, mp, misaligned(gp), misaligned(gr), parents),
         pb.root_motion_apply(rot, pos, gp, gr, parents))
    same(pb.quat_slerp(mr[0], mr[1], 0.3), pb.quat_slerp(rot[0], rot[1], 0.3))
    same(pb.resample(mr, 1 / 30, 60, mp), pb.resample(rot, 1 / 30, 60, pos))
    w = np.float32([0.25, 0.75])
    same(pb.blend(mr[:2], misaligned(w)), pb.blend(rot[:2], w))
    b = pb.read_bvh(CLIP)
    r, p = b.motion()
    same(b.with_motion(misaligned(r), misaligned(p)).to_bytes(), b.with_motion(r, p).to_bytes())
