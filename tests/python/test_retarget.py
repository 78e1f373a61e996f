"""posebatch.retarget / retarget_match: a clip onto another skeleton (pb_bvh_retarget)."""
import os
import subprocess

import numpy as np
import pytest

import posebatch
from conftest import CLIP, SHARED_DIR

PYMO = os.path.join(SHARED_DIR, "mocap", "pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh")


@pytest.fixture(scope="module")
def cmu():
    return posebatch.read_bvh(CLIP)


@pytest.fixture(scope="module")
def pymo():
    if not os.path.exists(PYMO):
        pytest.skip("shared clip %s not found" % PYMO)
    return posebatch.read_bvh(PYMO)


def fk_y(b, joint):
    """Model-space height of a joint over the frames (float64 forward kinematics)."""
    rot = b.rotations.astype(np.float64)
    pos = b.positions.astype(np.float64)
    chain = []
    j = b.joint_names.index(joint)
    while j is not None:
        chain.append(j)
        j = b.parents[j]
    chain.reverse()
    F = b.num_frames
    g = np.tile([1.0, 0.0, 0.0, 0.0], (F, 1))
    p = np.zeros((F, 3))
    for j in chain:
        p = p + rotate(g, pos[:, j])
        g = qmul(g, rot[:, j])
    return p[:, 1]


def qmul(a, b):
    aw, ax, ay, az = a.T
    bw, bx, by, bz = b.T
    return np.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], -1)


def rotate(q, v):
    p = np.concatenate([np.zeros((len(v), 1)), v], -1)
    c = q * np.array([1.0, -1.0, -1.0, -1.0])
    return qmul(qmul(q, p), c)[:, 1:]


def test_same_skeleton_is_the_clip(cmu):
    out = posebatch.retarget(cmu, cmu)
    assert np.array_equal(out.rotations, cmu.rotations)
    assert np.array_equal(out.positions, cmu.positions)
    assert out.frame_time == cmu.frame_time
    assert out.to_bytes() == cmu.to_bytes()


def test_onto_pymo(cmu, pymo):
    out = posebatch.retarget(cmu, pymo)
    assert out.joint_names == pymo.joint_names
    assert out.parents == pymo.parents
    assert out.channels == pymo.channels
    assert out.num_frames == cmu.num_frames and out.frame_time == cmu.frame_time
    m = posebatch.retarget_match(cmu, pymo)
    assert list(m) == pymo.joint_names
    assert m["LeftUpLeg"] == "LeftUpLeg" and m["Hips"] == "Hips"
    assert m["LeftHand_End"] is None
    assert sum(v is not None for v in m.values()) == 19
    # unmatched joints keep the rest pose
    j = pymo.joint_names.index("LeftHand_End")
    assert np.array_equal(out.rotations[:, j], np.tile(np.float32([1, 0, 0, 0]), (out.num_frames, 1)))
    # the feet rise and fall with the source's
    for foot in ("LeftFoot", "RightFoot"):
        r = np.corrcoef(fk_y(cmu, foot), fk_y(out, foot))[0, 1]
        assert r > 0.95, (foot, r)


def test_bytes_are_the_clis(cmu, pymo, cli, tmp_path):
    out = tmp_path / "cli.bvh"
    subprocess.run([cli, "retarget", CLIP, "--to", PYMO, "-o", str(out)], check=True)
    assert posebatch.retarget(cmu, pymo).to_bytes() == out.read_bytes()


def test_maps_dict_pairs_and_file(cmu, tmp_path):
    plain = posebatch.retarget(cmu, cmu)
    path = tmp_path / "m.map"
    path.write_text("# names kept\nHips = Hips\nLeftUpLeg = LeftUpLeg\n")
    for m in ({"Hips": "Hips", "LeftUpLeg": "LeftUpLeg"},
              [("Hips", "Hips"), ("LeftUpLeg", "LeftUpLeg")], str(path), path):
        out = posebatch.retarget(cmu, cmu, m)
        assert np.array_equal(out.rotations, plain.rotations)
    only = posebatch.retarget_match(cmu, cmu, {"Hips": "Hips", "LeftUpLeg": "LeftUpLeg",
                                               "LeftLeg": "LeftLeg", "Spine": "Spine"},
                                    map_only=True)
    assert sum(v is not None for v in only.values()) == 4


def test_errors(cmu, tmp_path):
    with pytest.raises(posebatch.BvhError, match="source joint 'Nope' is not in the source skeleton"):
        posebatch.retarget(cmu, cmu, {"Nope": "Hips"})
    with pytest.raises(posebatch.BvhError, match="target joint 'Hips' is mapped twice"):
        posebatch.retarget(cmu, cmu, [("Hips", "Hips"), ("Spine", "Hips")])
    with pytest.raises(posebatch.BvhError, match="too few matches"):
        posebatch.retarget(cmu, cmu, {"Hips": "Hips"}, map_only=True)
    bad = tmp_path / "bad.map"
    bad.write_text("Hips = Hips\nno equals sign\n")
    with pytest.raises(posebatch.BvhError, match="line 2: expected 'source = target'") as e:
        posebatch.retarget(cmu, cmu, str(bad))
    assert e.value.line == 2
    with pytest.raises(OSError):
        posebatch.retarget(cmu, cmu, str(tmp_path / "missing.map"))
    with pytest.raises(TypeError, match="map"):
        posebatch.retarget(cmu, cmu, 42)
    with pytest.raises(ValueError, match="two names"):
        posebatch.retarget(cmu, cmu, [("Hips",)])
    with pytest.raises(TypeError, match="must be str"):
        posebatch.retarget(cmu, cmu, [("Hips", 3)])
    with pytest.raises(TypeError, match="posebatch.Bvh"):
        posebatch.retarget(cmu, "not a clip")
