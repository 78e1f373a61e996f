"""posebatch.features, humanml3d_features, read_amass and dataset.features against
independent float64 numpy computations: the facing frame from the root's model rotation
(Bvh.global_rotations), positions and velocities by finite differences at the clip's fps,
the 6D from rotation matrices; AMASS clips by Rodrigues' formula; the .npz bytes the CLI's."""
import json
import os
import subprocess

import numpy as np
import pytest

import posebatch as pb
from conftest import CLIP, SHARED, ref_conj, ref_mul

FT = 1.0 / 120.00048000192001


def yaw_of(q):
    """the heading of rotations q (w, x, y, z): the angle about +y from +z to R (0, 0, 1)"""
    w, x, y, z = np.moveaxis(q, -1, 0)
    fx, fz = 2 * (x * z + w * y), 1 - 2 * (x * x + y * y)
    return np.arctan2(fx, fz)


def unyaw(v, a):
    c, s = np.cos(a), np.sin(a)
    return np.stack([c * v[..., 0] - s * v[..., 2], v[..., 1], s * v[..., 0] + c * v[..., 2]], -1)


def matrix(q):
    """rotation matrices (float64) of quaternions, columns q e_c q*"""
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    cols = []
    for c in range(3):
        e = np.zeros(q.shape[:-1] + (4,))
        e[..., 1 + c] = 1
        cols.append(ref_mul(ref_mul(q, e), ref_conj(q))[..., 1:])
    return np.stack(cols, -1)


@pytest.fixture(scope="module")
def clip():
    return pb.read_bvh(CLIP)


def test_posebatch_layout_against_float64(clip):
    z = pb.features(clip)
    F, J = clip.num_frames, clip.num_joints
    fps = 1 / clip.frame_time
    P = clip.global_positions().astype(np.float64)
    R = clip.global_rotations().astype(np.float64)
    yaw = yaw_of(R[:, 0])
    g = P[:, 0].copy()
    g[:, 1] = 0
    a = np.minimum(np.arange(F), F - 2)
    b = a + 1
    size = np.abs(P).max()
    assert np.abs(z["positions"] - unyaw(P - g[:, None], yaw[:, None])).max() <= 1e-5 * size
    vel = unyaw(P[b] - P[a], yaw[:, None]) * fps
    assert np.abs(z["velocities"] - vel).max() <= 4e-5 * size * fps
    assert np.abs(z["root_yaw_vel"] - ((yaw[b] - yaw[a] + np.pi) % (2 * np.pi) - np.pi) * fps).max() \
        <= 1e-4 * fps
    assert np.abs(z["root_vel"] - unyaw(g[b] - g[a], yaw)[:, [0, 2]] * fps).max() <= 4e-5 * size * fps
    assert np.abs(z["root_height"] - P[:, 0, 1]).max() <= 1e-5 * size
    # 6D: the local rotations' matrices, the root's heading taken out
    loc = clip.rotations.astype(np.float64).copy()
    h = np.stack([np.cos(yaw / 2), np.zeros(F), np.sin(yaw / 2), np.zeros(F)], -1)
    loc[:, 0] = ref_mul(ref_conj(h), loc[:, 0])
    m = matrix(loc)
    want = np.concatenate([m[..., :, 0], m[..., :, 1]], -1)
    assert np.abs(z["rot6d"] - want).max() <= 1e-6
    assert z["joint_names"].tolist() == clip.joint_names
    assert z["parents"].tolist() == [-1 if p is None else p for p in clip.parents]
    assert z["contacts"].shape == (F, 4) and json.loads(str(z["options"]))["source"] is None


def test_out_is_the_cli_bytes(cli, tmp_path):
    z = pb.features(CLIP, tmp_path / "py.npz", fps=30, mirror=True)
    subprocess.run([cli, "features", CLIP, "-o", str(tmp_path / "cli.npz"), "--fps", "30",
                    "--mirror"], check=True)
    assert (tmp_path / "py.npz").read_bytes() == (tmp_path / "cli_mirror.npz").read_bytes()
    back = np.load(tmp_path / "py.npz")
    assert sorted(back.files) == sorted(z)
    for k in z:
        assert np.array_equal(back[k], z[k]), k
    h = pb.features(CLIP, tmp_path / "h.npz", layout="humanml3d", scale=0.056444)
    subprocess.run([cli, "features", CLIP, "-o", str(tmp_path / "hc.npz"), "--layout",
                    "humanml3d", "--scale", "0.056444"], check=True)
    assert (tmp_path / "h.npz").read_bytes() == (tmp_path / "hc.npz").read_bytes()
    assert h["features"].shape[1] == 263


def test_options_and_errors(clip):
    z = pb.features(clip, feet=["LeftToeBase"], contact_speed=0, root="Hips")
    assert z["feet"].tolist() == ["LeftToeBase"] and z["contacts"].max() == 0
    s = pb.features(clip, scale=0.5)
    base = pb.features(clip)
    assert np.abs(s["positions"] - 0.5 * base["positions"]).max() < 1e-5
    with pytest.raises(pb.BvhError, match="NoSuchJoint"):
        pb.features(clip, feet=["NoSuchJoint"])
    with pytest.raises(ValueError):
        pb.features(clip, layout="other")
    with pytest.raises(ValueError):
        pb.features(clip, up="w")
    with pytest.raises(TypeError):
        pb.features(42)
    m = pb.features(clip, layout="humanml3d", scale=0.056444,
                    map={"LowerBack": "spine1", "Spine": "spine2", "Spine1": "spine3"})
    src = dict(zip(m["joint_names"], m["source_joints"]))
    assert (src["spine1"], src["spine2"], src["spine3"]) == ("LowerBack", "Spine", "Spine1")
    with pytest.raises(pb.BvhError, match="not one of the 22 SMPL"):
        pb.features(clip, layout="humanml3d", map={"Hips": "hips"})


def test_humanml3d_properties():
    """a T-pose gliding along +z at 1 m/s (20 fps), facing +z: every step 0.05 m forward,
    no turn, the 6D of the rest directions (identity but the bones whose rest direction is
    not their direction)"""
    rest = np.array([[0, 1, 0], [.1, .9, 0], [-.1, .9, 0], [0, 1.1, 0], [.1, .5, 0], [-.1, .5, 0],
                     [0, 1.2, 0], [.1, .1, 0], [-.1, .1, 0], [0, 1.3, 0], [.1, 0, .1], [-.1, 0, .1],
                     [0, 1.5, 0], [.1, 1.4, 0], [-.1, 1.4, 0], [0, 1.6, 0], [.2, 1.4, 0],
                     [-.2, 1.4, 0], [.5, 1.4, 0], [-.5, 1.4, 0], [.8, 1.4, 0], [-.8, 1.4, 0]])
    F = 30
    j = (rest[None] + np.arange(F)[:, None, None] * np.array([0, 0, 0.05])).astype(np.float32)
    f = pb.humanml3d_features(j)
    assert f.shape == (F - 1, 263)
    assert np.abs(f[:, 0]).max() < 1e-7           # no turn
    assert np.abs(f[:, 1]).max() < 1e-7 and np.abs(f[:, 2] - 0.05).max() < 1e-7
    assert np.abs(f[:, 3] - 1.0).max() < 1e-6     # the pelvis 1 m above the floor (y 0)
    ric = f[:, 4:67].reshape(-1, 21, 3)
    assert np.abs(ric - (rest[1:] - [0, 0, 0])).max() < 1e-6
    vel = f[:, 193:259].reshape(-1, 22, 3)
    assert np.abs(vel - [0, 0, 0.05]).max() < 1e-7
    assert (f[:, 259:] == 0).all()                # 0.05^2 > 0.002? no: 0.0025 > 0.002
    g = pb.humanml3d_features(j, feet_threshold=0.003)
    assert (g[:, 259:] == 1).all()
    # the target's bone lengths: twice the size, the steps scaled with the legs
    t = (rest * 2).astype(np.float32)
    h = pb.humanml3d_features(j, target=t)
    assert np.abs(h[:, 2] - 0.1).max() < 1e-6
    with pytest.raises(ValueError):
        pb.humanml3d_features(j[:1])
    with pytest.raises(ValueError):
        pb.humanml3d_features(j[:, :21])


@pytest.mark.skipif(not os.environ.get("HUMANML3D_DIR"),
                    reason="set HUMANML3D_DIR to a checkout of EricGuo5513/HumanML3D")
def test_humanml3d_against_its_script():
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
    import humanml3d_compare
    theirs = humanml3d_compare.load_theirs(os.environ["HUMANML3D_DIR"])
    j = np.load(os.path.join(os.environ["HUMANML3D_DIR"], "HumanML3D", "new_joints",
                             "012314.npy")).astype(np.float32)
    ref64 = theirs(j, j[0], double=True)
    ours = pb.humanml3d_features(j)
    assert np.abs(ours - ref64).max() <= 1.2e-7 * max(1.0, np.abs(ref64).max())
    assert np.abs(ours - theirs(j, j[0])).max() <= 5e-5


def rodrigues(v):
    a = np.linalg.norm(v, axis=-1, keepdims=True)
    k = np.where(a > 0, v / np.where(a > 0, a, 1), 0)
    K = np.zeros(v.shape[:-1] + (3, 3))
    K[..., 0, 1], K[..., 0, 2], K[..., 1, 2] = -k[..., 2], k[..., 1], -k[..., 0]
    K = K - np.swapaxes(K, -1, -2)
    a = a[..., None]
    return np.eye(3) + np.sin(a) * K + (1 - np.cos(a)) * K @ K


def test_read_amass(tmp_path, rng):
    F, J = 12, 52
    rest = rng.normal(size=(J, 3)) * 0.2
    poses = rng.normal(size=(F, 3 * J)) * 0.5
    trans = rng.normal(size=(F, 3))
    np.save(tmp_path / "rest.npy", rest)
    np.savez(tmp_path / "a.npz", poses=poses, trans=trans, mocap_framerate=np.array(120.0),
             gender=np.array("female"), betas=np.zeros(16))
    np.savez_compressed(tmp_path / "c.npz", poses=poses.astype(np.float32), trans=trans,
                        mocap_frame_rate=120)
    b = pb.read_amass(tmp_path / "a.npz", tmp_path / "rest.npy")
    c = pb.read_amass(str(tmp_path / "c.npz"), rest.astype(np.float32))
    assert b.num_frames == F and b.num_joints == J and abs(b.frame_time - 1 / 120) < 1e-12
    # SMPL-H's names and tree (its index order), the clip's joints depth-first
    body = ["pelvis", "left_hip", "right_hip", "spine1", "left_knee", "right_knee", "spine2",
            "left_ankle", "right_ankle", "spine3", "left_foot", "right_foot", "neck",
            "left_collar", "right_collar", "head", "left_shoulder", "right_shoulder",
            "left_elbow", "right_elbow", "left_wrist", "right_wrist"]
    fingers = [f"{s}_{f}{k}" for s in ("left", "right")
               for f in ("index", "middle", "pinky", "ring", "thumb") for k in (1, 2, 3)]
    names = body + fingers
    smpl_par = [-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19] + [
        (20 if s == 0 else 21) if k == 0 else 22 + 15 * s + 3 * f + k - 1
        for s in range(2) for f in range(5) for k in range(3)]
    assert sorted(b.joint_names) == sorted(names)
    assert b.joint_names[:5] == ["pelvis", "left_hip", "left_knee", "left_ankle", "left_foot"]
    perm = [names.index(n) for n in b.joint_names]  # clip joint k is SMPL-H joint perm[k]
    cpar = [-1 if p is None else p for p in b.parents]
    assert [-1 if p < 0 else perm[p] for p in cpar] == [smpl_par[j] for j in perm]
    par = smpl_par
    # forward kinematics in float64: G_j = G_p R_j, P_j = P_p + G_p (rest_j - rest_p)
    Rm = rodrigues(poses.reshape(F, J, 3))
    G = np.zeros((F, J, 3, 3))
    P = np.zeros((F, J, 3))
    for j in range(J):
        p = par[j]
        if p < 0:
            G[:, j] = Rm[:, j]
            P[:, j] = rest[0] + trans
        else:
            G[:, j] = G[:, p] @ Rm[:, j]
            P[:, j] = P[:, p] + np.einsum("fij,j->fi", G[:, p], rest[j] - rest[p])
    P = P[:, perm]
    assert np.abs(b.global_positions() - P).max() < 2e-5
    assert np.abs(c.global_positions() - P).max() < 2e-5
    # to BVH and glTF and back: the same motion
    b.write(tmp_path / "a.bvh")
    back = pb.read_bvh(tmp_path / "a.bvh")
    assert np.abs(back.global_positions() - P).max() < 1e-3
    b.to_gltf().write(tmp_path / "a.glb")
    assert np.abs(pb.read_gltf(tmp_path / "a.glb").to_bvh().global_positions() - P).max() < 1e-4
    z = pb.features(tmp_path / "a.npz", rest=tmp_path / "rest.npy", up="z")
    assert z["positions"].shape == (F, J, 3)
    with pytest.raises(ValueError, match="rest"):
        pb.features(tmp_path / "a.npz")
    np.savez(tmp_path / "bad.npz", poses=poses[:, :150], trans=trans, mocap_framerate=120.0)
    with pytest.raises(pb.BvhError, match="poses"):
        pb.read_amass(tmp_path / "bad.npz", rest)
    with pytest.raises(pb.BvhError, match="rest"):
        pb.read_amass(tmp_path / "a.npz", rest[:20])


def test_dataset_features(cli, tmp_path):
    distributed = pytest.importorskip("distributed")
    from distributed import Client, LocalCluster
    from posebatch import dataset
    clips = [CLIP] + SHARED[:2]
    broken = tmp_path / "broken.bvh"
    broken.write_text("HIERARCHY\nROOT Hips\n{\n")
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0")
    client = Client(cluster)
    try:
        s = dataset.features(clips + [str(broken)], tmp_path / "py", client=client, fps=30,
                             mirror=True)
    finally:
        client.close()
        cluster.close()
    assert s.clips == len(clips) and len(s.failures) == 1 and "broken" in s.failures[0][0]
    assert "features of" in str(s)
    # "DIR/": a folder even for one clip (no ../shared: the shipped clip alone)
    subprocess.run([cli, "features", *clips, "-o", str(tmp_path / "cli") + "/", "--fps", "30",
                    "--mirror"], check=True)
    for c in clips:
        stem = os.path.splitext(os.path.basename(c))[0]
        for n in (stem + ".npz", stem + "_mirror.npz"):
            assert (tmp_path / "py" / n).read_bytes() == (tmp_path / "cli" / n).read_bytes(), n
    assert distributed
