"""BVH through the library's reader and writer: the CLI's bytes, round trips."""
import os
import subprocess

import numpy as np
import pytest

import posebatch as pb
from conftest import CLIP


def test_read_properties():
    b = pb.read_bvh(CLIP)
    assert (b.num_joints, b.num_frames) == (31, 4511)
    assert b.fps == pytest.approx(120, rel=1e-4)
    assert b.rotations.shape == (4511, 31, 4) and b.positions.shape == (4511, 31, 3)
    assert b.parents[0] is None and all(0 <= p < i for i, p in enumerate(b.parents) if p is not None)
    assert len(b.joint_names) == 31 and b.offsets.shape == (31, 3)
    assert b.channels[0][:3] == ("Xposition", "Yposition", "Zposition")
    r, p = b.motion(order="xyzw")
    assert np.array_equal(r[..., 3], b.rotations[..., 0])


def test_resample_write_equals_cli(cli, tmp_path):
    """Bvh.resample + write gives the CLI's bytes (same reader, sampler and writer)."""
    out_cli = tmp_path / "cli.bvh"
    subprocess.run([cli, "resample", CLIP, "-o", str(out_cli), "--fps", "200"], check=True)
    r = pb.read_bvh(CLIP).resample(200)
    r.write(tmp_path / "py.bvh")
    assert (tmp_path / "py.bvh").read_bytes() == out_cli.read_bytes()
    assert r.to_bytes() == out_cli.read_bytes()


def test_roundtrip_and_with_motion(tmp_path):
    b = pb.read_bvh(CLIP)
    text = b.to_bytes()
    assert text == open(CLIP, "rb").read().replace(b"\r\n", b"\n") or pb.parse_bvh(text).num_frames == 4511
    again = pb.parse_bvh(text)
    assert np.array_equal(again.positions, b.positions)
    # new motion on the same skeleton: the array-level resample, written back
    res = pb.resample(b.rotations, b.frame_time, 60.0, b.positions)
    m = b.with_motion(res.rotations, res.positions, res.frame_time)
    assert m.num_frames == res.rotations.shape[0] and m.fps == pytest.approx(60)
    back = pb.parse_bvh(m.to_bytes(euler="continuous"))
    d = pb.quat_sin_half_angle(back.rotations, res.rotations)
    assert np.nanmax(d) < 1e-5
    with pytest.raises(ValueError, match="'rotations' must be"):
        b.with_motion(np.zeros((3, 30, 4)))
