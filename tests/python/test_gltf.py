"""glTF from Python: the library's reader, resampler, converter and writer,
byte-identical to the CLI's output; errors name the JSON path."""
import os
import subprocess

import numpy as np
import pytest

import posebatch as pb
from conftest import CLIP, SHARED_DIR

GLTF_DIR = os.path.join(SHARED_DIR, "gltf")
FOX = os.path.join(GLTF_DIR, "Fox.glb")


def need_fox():
    if not os.path.exists(FOX):
        pytest.skip(f"{FOX} not found (../shared data)")


def test_read_resample_write_equals_cli(cli, tmp_path):
    need_fox()
    g = pb.read_gltf(FOX)
    assert g.num_animations == 3 and g.num_skins == 1 and len(g.node_names) > 20
    for cubic, extra in ((False, []), (True, ["--cubic"])):
        out = tmp_path / f"py{int(cubic)}.glb"
        g.resample(60, cubic=cubic).write(out)
        ref = tmp_path / f"cli{int(cubic)}.glb"
        subprocess.run([cli, "resample", FOX, "--fps", "60", "-o", str(ref)] + extra, check=True)
        assert out.read_bytes() == ref.read_bytes()


def test_convert_both_ways_equals_cli(cli, tmp_path):
    need_fox()
    b = pb.read_gltf(FOX).to_bvh()
    b.write(tmp_path / "py.bvh")
    subprocess.run([cli, "convert", FOX, str(tmp_path / "cli.bvh")], check=True)
    assert (tmp_path / "py.bvh").read_bytes() == (tmp_path / "cli.bvh").read_bytes()
    pb.read_bvh(CLIP).to_gltf().write(tmp_path / "py.glb")
    subprocess.run([cli, "convert", CLIP, str(tmp_path / "cli.glb")], check=True)
    assert (tmp_path / "py.glb").read_bytes() == (tmp_path / "cli.glb").read_bytes()


def test_round_trip_keeps_rotations():
    b = pb.read_bvh(CLIP)
    g = b.to_gltf()
    assert g.num_skins == 1  # the skin importers read as an armature
    back = g.to_bvh()
    assert back.num_frames == b.num_frames and back.joint_names == b.joint_names
    a, c = b.rotations.astype(np.float64), back.rotations.astype(np.float64)
    chord = np.minimum(np.linalg.norm(a - c, axis=-1), np.linalg.norm(a + c, axis=-1))
    assert np.degrees(4 * np.arcsin(chord / 2)).max() < 1e-3  # the round-trip bound


def test_errors(tmp_path):
    bad = tmp_path / "bad.gltf"
    bad.write_text('{"asset": {"version": "2.0"}, "nodes": [{"children": [7]}]}')
    with pytest.raises(pb.BvhError, match=r"nodes\[0\]\.children"):
        pb.read_gltf(bad)
    with pytest.raises(OSError):
        pb.read_gltf(tmp_path / "missing.glb")
    need_fox()
    g = pb.read_gltf(FOX)
    with pytest.raises(ValueError, match="fps"):
        g.resample(-1)
    with pytest.raises(ValueError, match="animation"):
        g.to_bvh(animation=-1)
    with pytest.raises(TypeError):
        g.resample("60")


def test_files_outside_the_asset_are_not_read(tmp_path):
    """A buffer uri is a regular file inside the asset's directory: '..',
    its percent escapes, links leaving the directory and FIFOs are refused
    naming the uri; a device named directly fails on its first bytes."""
    (tmp_path / "secret.bin").write_bytes(bytes(range(8)))
    asset = tmp_path / "asset"
    asset.mkdir()
    (asset / "out.bin").symlink_to("../secret.bin")
    os.mkfifo(asset / "fifo.bin")
    for uri, why in [("../secret.bin", "outside"), ("%2e%2e/secret.bin", "outside"),
                     ("out.bin", "outside"), ("fifo.bin", "not a regular file")]:
        f = asset / "a.gltf"
        f.write_text('{"asset": {"version": "2.0"}, '
                     f'"buffers": [{{"uri": "{uri}", "byteLength": 8}}]}}')
        with pytest.raises(pb.BvhError, match=why) as e:
            pb.read_gltf(f)
        assert uri in str(e.value)
    with pytest.raises(pb.BvhError, match="not glTF"):
        pb.read_gltf("/dev/zero")


def test_file_format(tmp_path):
    """What a clip file is, as the CLI decides: by content, a stream by name."""
    assert pb.file_format(CLIP) == "bvh"
    b = tmp_path / "looks.glb"
    b.write_bytes(open(CLIP, "rb").read()[:200])  # BVH text under a .glb name
    assert pb.file_format(b) == "bvh"
    j = tmp_path / "x.bin"
    j.write_text('\ufeff  {"asset": {"version": "2.0"}}')
    assert pb.file_format(j) == "gltf"
    if os.path.exists(FOX):
        assert pb.file_format(FOX) == "glb"
    fifo = tmp_path / "p.glb"
    os.mkfifo(fifo)
    assert pb.file_format(fifo) == "glb"  # not opened: by its name
    assert pb.file_format(tmp_path / "missing.gltf") == "gltf"
