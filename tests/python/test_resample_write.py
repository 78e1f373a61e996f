"""Bvh.resample_write: the CLI's streamed resample job from Python (issue 34):
the same bytes as resample().write() and as `posebatch resample`, threads and
loop included, and errors that replace nothing."""
import subprocess

import pytest

import posebatch as pb
from conftest import CLIP


@pytest.mark.parametrize("fps", [24, 120, 480])
@pytest.mark.parametrize("euler", ["source", "continuous", "principal"])
@pytest.mark.parametrize("threads", [1, 3])
def test_same_bytes_as_resample_then_write(tmp_path, fps, euler, threads):
    b = pb.read_bvh(CLIP)
    a, s = tmp_path / "a.bvh", tmp_path / "s.bvh"
    b.resample(fps).write(a, euler=euler)
    n = b.resample_write(fps, s, euler=euler, threads=threads)
    assert n == b.resample(fps).num_frames
    assert a.read_bytes() == s.read_bytes()


def test_same_bytes_as_the_cli(tmp_path, cli):
    s, c = tmp_path / "s.bvh", tmp_path / "c.bvh"
    pb.read_bvh(CLIP).resample_write(480, s, threads=2)
    subprocess.run([cli, "resample", CLIP, "--fps", "480", "-o", str(c)], check=True)
    assert s.read_bytes() == c.read_bytes()


def test_loop_is_the_cli_loop(tmp_path, cli):
    s, c = tmp_path / "s.bvh", tmp_path / "c.bvh"
    pb.read_bvh(CLIP).resample_write(60, s, loop=True)
    subprocess.run([cli, "resample", CLIP, "--fps", "60", "--loop", "-o", str(c)], check=True)
    assert s.read_bytes() == c.read_bytes()


def test_errors_replace_nothing(tmp_path):
    b = pb.read_bvh(CLIP)
    out = tmp_path / "keep.bvh"
    out.write_text("keep me\n")
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="fps"):
            b.resample_write(bad, out)
    with pytest.raises(ValueError, match="threads"):
        b.resample_write(60, out, threads=-1)
    with pytest.raises(ValueError, match="threads"):
        b.resample_write(60, out, threads=1.5)
    with pytest.raises(OSError):
        b.resample_write(60, tmp_path / "missing" / "x.bvh")
    with pytest.raises(pb.BvhError):
        b.resample_write(1e300, out)
    assert out.read_text() == "keep me\n"
