"""Blends are right by default on real clips (issue 35): two frames 1 and 4
apart of every clip, weights 0.7 / 0.3, against the float64 slerp of the two
at 0.3, wherever the two rotations are within 30 degrees of each other. Every
clip has joints near 180 degrees from the rest pose; a rest-pose reference
put such blends up to 54 degrees off. The methods measured against identity
by definition ('log', 'raw') are not defaults and are left out; the rest pose
as an explicit reference shows the failure the defaults avoid."""
import os
import subprocess

import numpy as np
import pytest

import posebatch as pb
from conftest import DATA, SHARED

# each clip once (the shipped one is in ../shared too)
CLIPS = DATA + [p for p in SHARED if os.path.basename(p) not in {os.path.basename(d) for d in DATA}]
BOUND_DEG = 0.5


def slerp64(a, b, t):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    d = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(d < 0, -b, b)
    d = np.abs(d).clip(max=1.0)
    th = np.arccos(d)
    s = np.sin(th)
    small = s < 1e-9
    wa = np.where(small, 1 - t, np.sin((1 - t) * th) / np.where(small, 1, s))
    wb = np.where(small, t, np.sin(t * th) / np.where(small, 1, s))
    q = wa * a + wb * b
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def angle_deg(a, b):
    d = np.abs(np.sum(a.astype(np.float64) * b.astype(np.float64), axis=-1))
    n = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return np.degrees(2 * np.arccos(np.clip(d / n, 0, 1)))


def pairs(path, gap):
    """Frames f and f + gap of a clip (every 3rd f), where the two are within 30 degrees."""
    r = pb.read_bvh(path).rotations
    a, b = r[:-gap:3], r[gap::3]
    return a, b, angle_deg(a, b) <= 30.0


def worst(out, a, b, near):
    return angle_deg(out, slerp64(a, b, 0.3))[near].max()


@pytest.mark.parametrize("path", CLIPS, ids=os.path.basename)
@pytest.mark.parametrize("gap", [1, 4])
def test_default_blends_follow_the_slerp(path, gap):
    a, b, near = pairs(path, gap)
    assert near.sum() > 1000
    rot = np.stack([a, b])
    w = np.array([0.7, 0.3], np.float32)
    cases = {
        "blend()": pb.blend(rot, w),
        "blend(raw_ref)": pb.blend(rot, w, method="raw_ref"),
        "blend(accurate)": pb.blend(rot, w, method="accurate"),
        "blend_layers()": pb.blend_layers(rot, w),
        "blend_layers(raw_ref)": pb.blend_layers(rot, w, method="raw_ref"),
        "blend_layers(raw_ref, linear_scales)": pb.blend_layers(rot, w, method="raw_ref",
                                                                linear_scales=True),
        # the lighter layer first: the reference is still the heaviest's
        "blend_layers(lighter first)": pb.blend_layers(rot[::-1].copy(), w[::-1].copy()),
    }
    for name, out in cases.items():
        err = worst(out.rotations, a, b, near)
        assert err < BOUND_DEG, f"{name}: {err:.3f} degrees from the slerp"


@pytest.mark.parametrize("path", CLIPS[:1] + [p for p in SHARED if "bandai" in p][:1],
                         ids=os.path.basename)
def test_rest_reference_is_the_documented_failure(path):
    """The rest pose as an explicit reference still does what it says, and is
    far off on these clips: why it is no longer the default."""
    a, b, near = pairs(path, 1)
    rot = np.stack([a, b])
    w = np.array([0.7, 0.3], np.float32)
    ident = np.zeros(a.shape, np.float32)
    ident[..., 0] = 1
    rest = pb.blend(rot, w, ref_rotations=ident)
    assert worst(rest.rotations, a, b, near) > 5.0


def test_cli_blend_default_follows_the_slerp(cli, tmp_path):
    """posebatch blend of a clip with itself one frame later, 0.7,0.3, default --ref."""
    src = pb.read_bvh(CLIPS[0])
    f = src.rotations.shape[0]
    shifted = tmp_path / "shifted.bvh"
    base = tmp_path / "base.bvh"
    src.with_motion(src.rotations[:-1], src.positions[:-1]).write(str(base))
    src.with_motion(src.rotations[1:], src.positions[1:]).write(str(shifted))
    out = tmp_path / "out.bvh"
    subprocess.run([cli, "blend", str(base), str(shifted), "--weights", "0.7,0.3", "-o", str(out)],
                   check=True)
    got = pb.read_bvh(str(out)).rotations
    a, b = src.rotations[:-1], src.rotations[1:]
    near = angle_deg(a, b) <= 30.0
    assert near.sum() > 1000 and f > 1000
    assert worst(got, a, b, near) < BOUND_DEG
