# shellcheck shell=bash
# posebatch features: motion features as .npz (posebatch's layout and
# HumanML3D's), read back with numpy (python3 with numpy, or Debian's
# /usr/bin/python3) and checked against an independent float64 computation
# from `posebatch positions --rotations` (model-space positions and the
# root's rotation): the heading as the yaw of the root's forward axis, the
# positions in the facing frame, the velocities by finite differences at
# the clip's fps; the mirrored copy as the reflection with left and right
# swapped; options, refusals, several clips, -j, glTF and AMASS inputs.
NPY_PY=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy' 2>/dev/null; then NPY_PY=$p; break; fi
done
npcheck() { # name python-code: the code (numpy as np, T the directory) must exit 0
  local name=$1
  if [ -z "$NPY_PY" ]; then
    echo "skip $name (no python3 with numpy)"
    skip_one
    return
  fi
  if T="$T" "$NPY_PY" -c "import numpy as np, json, os, sys; T = os.environ['T']
$2" 2>"$T/err"; then ok "$name"; else no "$name"; fi
}

echo "== features: the posebatch layout"
expect "features a.bvh -o f.npz" 0 features "$T/a.bvh" -o "$T/f.npz"
expect "positions a.bvh --rotations -o p.npy" 0 positions "$T/a.bvh" -o "$T/p.npy" --rotations
npcheck "arrays, shapes and dtypes (F = $F, 31 joints, 4 feet)" '
z = np.load(T + "/f.npz"); F = '"$F"'
want = {"root_yaw_vel": (F,), "root_vel": (F, 2), "root_height": (F,), "positions": (F, 31, 3),
        "velocities": (F, 31, 3), "rot6d": (F, 31, 6), "contacts": (F, 4), "joint_names": (31,),
        "parents": (31,), "feet": (4,), "fps": (), "layout": (), "options": ()}
assert sorted(z.files) == sorted(want), z.files
for k, s in want.items():
    assert z[k].shape == s, (k, z[k].shape)
assert z["positions"].dtype == np.float32 and z["parents"].dtype == np.int32
assert list(z["feet"]) == ["LeftFoot", "LeftToeBase", "RightFoot", "RightToeBase"]
assert z["joint_names"][0] == "Hips" and z["parents"][0] == -1 and str(z["layout"]) == "posebatch"
o = json.loads(str(z["options"]))
assert o["layout"] == "posebatch" and o["root"] == "Hips" and o["source"] == "a.bvh" and not o["mirror"]
assert abs(float(z["fps"]) - 120.00048) < 1e-3 and set(np.unique(z["contacts"])) <= {0.0, 1.0}'
npcheck "positions, velocities and the root track against float64 from positions --rotations" '
z = np.load(T + "/f.npz"); p = np.load(T + "/p.npy").astype(np.float64)
fps = float(z["fps"]); P = p[..., :3]; q = p[:, 0, 3:]  # model positions; the root rotation (w, x, y, z)
w, x, y, zz = q.T
fz = np.stack([2 * (x * zz + w * y), 2 * (y * zz - w * x), 1 - 2 * (x * x + y * y)], -1)  # R (0, 0, 1)
yaw = np.arctan2(fz[:, 0], fz[:, 2])  # about +y, from +z towards +x
g = P[:, 0].copy(); g[:, 1] = 0
def unyaw(v, a):  # rotate by -a about y, v (..., 3), a broadcast
    c, s = np.cos(a), np.sin(a)
    return np.stack([c * v[..., 0] - s * v[..., 2], v[..., 1], s * v[..., 0] + c * v[..., 2]], -1)
F = len(P); a = np.minimum(np.arange(F), F - 2); b = a + 1
pos = unyaw(P - g[:, None], yaw[:, None])
vel = unyaw(P[b] - P[a], yaw[:, None]) * fps
size = np.abs(P).max()
assert np.abs(z["positions"] - pos).max() <= 1e-5 * size, np.abs(z["positions"] - pos).max()
assert np.abs(z["velocities"] - vel).max() <= 4e-5 * size * fps, np.abs(z["velocities"] - vel).max()
yv = (yaw[b] - yaw[a] + np.pi) % (2 * np.pi) - np.pi
assert np.abs(z["root_yaw_vel"] - yv * fps).max() <= 1e-4 * fps
gv = unyaw(g[b] - g[a], yaw) * fps
assert np.abs(z["root_vel"] - gv[:, [0, 2]]).max() <= 4e-5 * size * fps
assert np.abs(z["root_height"] - P[:, 0, 1]).max() <= 1e-5 * size'
npcheck "6D: unit orthogonal column pairs; contacts: slow and low feet" '
z = np.load(T + "/f.npz"); r = z["rot6d"].astype(np.float64)
a, b = r[..., :3], r[..., 3:]
assert np.abs(np.linalg.norm(a, axis=-1) - 1).max() < 1e-6 and np.abs((a * b).sum(-1)).max() < 1e-6
o = json.loads(str(z["options"])); fps = float(z["fps"])
idx = [list(z["joint_names"]).index(n) for n in z["feet"]]
sp = np.linalg.norm(z["velocities"][:, idx], axis=-1); h = z["positions"][:, idx, 1]
h = h - h.min(0)
want = (sp < o["contact_speed"]) & (h < o["contact_height"])
edge = (np.abs(sp - o["contact_speed"]) < 1e-3) | (np.abs(h - o["contact_height"]) < 1e-4)
assert ((z["contacts"] == 1) == want)[~edge].all()
assert 0.05 < z["contacts"].mean() < 0.95, z["contacts"].mean()'
pb features "$T/a.bvh" -o "$T/f2.npz"
check "the same clip, the same bytes" cmp -s "$T/f.npz" "$T/f2.npz"

echo "== features: options"
expect "--fps 30 --mirror" 0 features "$T/a.bvh" -o "$T/m.npz" --fps 30 --mirror
check "--mirror writes m_mirror.npz beside m.npz" test -s "$T/m.npz" -a -s "$T/m_mirror.npz"
npcheck "--fps 30: the resampled frame count; --mirror: reflected, left and right swapped" '
z = np.load(T + "/m.npz"); m = np.load(T + "/m_mirror.npz")
assert z["positions"].shape[0] == '"$(expected_frames "$T/a.bvh" 30)"' and abs(float(z["fps"]) - 30) < 1e-9
names = list(z["joint_names"])
def swap(n):  # the mirror name families of CMU: Left/Right, a leading L/R before a capital
    for a, b in (("Left", "Right"), ("Right", "Left")):
        if a in n:
            return n.replace(a, b)
    if len(n) > 1 and n[0] in "LR" and n[1].isupper():
        return ("R" if n[0] == "L" else "L") + n[1:]
    return n
mi = [names.index(swap(n)) for n in names]
want = z["positions"][:, mi] * np.array([-1, 1, 1])
assert np.abs(m["positions"] - want).max() < 1e-4, np.abs(m["positions"] - want).max()
assert np.abs(m["root_yaw_vel"] + z["root_yaw_vel"]).max() < 1e-3
assert json.loads(str(m["options"]))["mirror"] is True'
expect "--contact-speed 0: no contact" 0 features "$T/short.bvh" -o "$T/c0.npz" --contact-speed 0
npcheck "--contact-speed 0: every contact 0" '
assert np.load(T + "/c0.npz")["contacts"].max() == 0'
expect "--feet LeftToeBase,RightToeBase --root Hips --up y" 0 features "$T/short.bvh" -o "$T/ft.npz" \
  --feet LeftToeBase,RightToeBase --root Hips --up y
npcheck "--feet: two contacts, named" '
z = np.load(T + "/ft.npz"); assert list(z["feet"]) == ["LeftToeBase", "RightToeBase"] and z["contacts"].shape[1] == 2'
expect "--scale 0.5" 0 features "$T/short.bvh" -o "$T/s.npz" --scale 0.5
expect "the same unscaled" 0 features "$T/short.bvh" -o "$T/s1.npz"
npcheck "--scale 0.5: positions and velocities halved" '
a = np.load(T + "/s.npz"); b = np.load(T + "/s1.npz")
assert np.abs(a["positions"] - 0.5 * b["positions"]).max() < 1e-5
assert np.abs(a["velocities"] - 0.5 * b["velocities"]).max() < 1e-3'

echo "== features: the humanml3d layout"
expect "--layout humanml3d --scale 0.056444" 0 features "$T/a.bvh" -o "$T/h.npz" --layout humanml3d --scale 0.056444
npcheck "263 columns per frame at 20 fps, the 22 SMPL joints found by name" '
z = np.load(T + "/h.npz"); n = '"$(expected_frames "$T/a.bvh" 20)"'
assert z["features"].shape == (n - 1, 263) and z["joints"].shape == (n, 22, 3), z["features"].shape
assert abs(float(z["fps"]) - 20) < 1e-9 and str(z["layout"]) == "humanml3d"
src = dict(zip(z["joint_names"], z["source_joints"]))
assert src["pelvis"] == "Hips" and src["left_ankle"] == "LeftFoot" and src["left_foot"] == "LeftToeBase"
assert src["left_collar"] == "LeftShoulder" and src["left_shoulder"] == "LeftArm" and src["head"] == "Head"
assert np.isfinite(z["features"]).all()
f = z["features"]; assert set(np.unique(f[:, 259:])) <= {0.0, 1.0}
# the 6D columns are unit, orthogonal pairs; the root height is the pelvis height above the floor
r = f[:, 67:193].reshape(-1, 21, 6).astype(np.float64)
assert np.abs(np.linalg.norm(r[..., :3], axis=-1) - 1).max() < 1e-5
assert (f[:, 3] > 0.3).all() and (f[:, 3] < 2.5).all()'
printf 'LowerBack = spine1\nSpine = spine2\nSpine1 = spine3\n' >"$T/spine.map"
expect "--map FILE (the spine named)" 0 features "$T/a.bvh" -o "$T/hm.npz" --layout humanml3d \
  --scale 0.056444 --map "$T/spine.map"
npcheck "--map: the map's joints taken" '
z = np.load(T + "/hm.npz"); s = dict(zip(z["joint_names"], z["source_joints"]))
assert (s["spine1"], s["spine2"], s["spine3"]) == ("LowerBack", "Spine", "Spine1")'

echo "== features: several clips, -j, formats"
mkdir -p "$T/many"
cp "$T/short.bvh" "$T/many/one.bvh"
cp "$T/short.bvh" "$T/many/two.bvh"
expect "two clips -o DIR -j 2" 0 features "$T/many/one.bvh" "$T/many/two.bvh" -o "$T/dir/" -j 2
check "DIR/one.npz and DIR/two.npz" test -s "$T/dir/one.npz" -a -s "$T/dir/two.npz"
expect "convert a.bvh a.glb" 0 convert "$T/short.bvh" "$T/short.glb"
expect "features of the glTF" 0 features "$T/short.glb" -o "$T/g.npz"
npcheck "glTF: the BVH clip's features (1e-4)" '
a = np.load(T + "/g.npz"); b = np.load(T + "/dir/one.npz")
assert np.abs(a["positions"] - b["positions"]).max() < 1e-4, np.abs(a["positions"] - b["positions"]).max()'

echo "== features: refusals"
expect "no -o" 2 features "$T/a.bvh"
expect "-o x.txt" 2 features "$T/a.bvh" -o "$T/x.txt"
expect "--layout nope" 2 features "$T/a.bvh" -o "$T/x.npz" --layout nope
expect "--up w" 2 features "$T/a.bvh" -o "$T/x.npz" --up w
expect "--feet with an empty name" 2 features "$T/a.bvh" -o "$T/x.npz" --feet LeftFoot,,RightFoot
expect "--map with the posebatch layout" 2 features "$T/a.bvh" -o "$T/x.npz" --map "$T/spine.map"
expect "--root with humanml3d" 2 features "$T/a.bvh" -o "$T/x.npz" --layout humanml3d --root Hips
expect "--scale 0" 2 features "$T/a.bvh" -o "$T/x.npz" --scale 0
echo keep >"$T/keep.npz"
expect "--feet NoSuchJoint" 1 features "$T/a.bvh" -o "$T/keep.npz" --feet NoSuchJoint
check "the message names it" grep -q "NoSuchJoint" "$T/err"
check "an output that failed is not replaced" test "$(cat "$T/keep.npz")" = keep
{
  printf 'HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n'
  printf 'JOINT C\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\n}\n'
  printf 'MOTION\nFrames: 3\nFrame Time: 0.05\n0 0 0 0 0 0 0 0 0\n0 0 1 0 0 0 0 0 0\n0 0 2 0 0 0 0 0 0\n'
} >"$T/two.bvh"
expect "humanml3d of a skeleton without SMPL's joints" 1 features "$T/two.bvh" -o "$T/x.npz" --layout humanml3d
check "the message names the missing joints and a map" grep -q "left_hip.*map" "$T/err"
expect "two.bvh: no foot, no contacts (exit 0)" 0 features "$T/two.bvh" -o "$T/two.npz"
npcheck "no foot: contacts (F, 0)" '
z = np.load(T + "/two.npz"); assert z["contacts"].shape == (3, 0) and z["feet"].shape == (0,)'
expect "one clip fails, the other is written" 1 features "$T/nonexistent.bvh" "$T/many/one.bvh" -o "$T/out2/"
check "the good one is there" test -s "$T/out2/one.npz"
cp "$T/a.bvh" "$T/a.npz"
expect "an output that is its input" 1 features "$T/a.npz" -o "$T/a.npz"

echo "== features: AMASS input"
if [ -n "$NPY_PY" ]; then
  T="$T" "$NPY_PY" -c '
import numpy as np, os
T = os.environ["T"]; F = 30
rng = np.random.default_rng(3)
rest = rng.normal(size=(52, 3)) * 0.1
poses = rng.normal(size=(F, 156)) * 0.2
trans = np.stack([np.linspace(0, 1, F), np.zeros(F), np.full(F, 0.9)], -1)
np.save(T + "/rest.npy", rest)
np.savez(T + "/walk.npz", poses=poses, trans=trans, mocap_framerate=np.array(60.0), betas=np.zeros(16),
         gender=np.array("neutral"))
np.savez_compressed(T + "/walkc.npz", poses=poses, trans=trans, mocap_framerate=60)'
fi
expect "an AMASS .npz without --rest" 1 features "$T/walk.npz" -o "$T/am.npz"
check "the message asks for --rest" grep -q -- "--rest" "$T/err"
expect "an AMASS .npz --rest rest.npy --up z" 0 features "$T/walk.npz" -o "$T/am.npz" --rest "$T/rest.npy" --up z
expect "the same compressed (savez_compressed)" 0 features "$T/walkc.npz" -o "$T/amc.npz" --rest "$T/rest.npy" --up z
npcheck "AMASS: 52 SMPL-H joints at 60 fps; the root height is rest[0] + trans (z up)" '
z = np.load(T + "/am.npz"); c = np.load(T + "/amc.npz")
assert z["positions"].shape == (30, 52, 3) and abs(float(z["fps"]) - 60) < 1e-9
assert z["joint_names"][0] == "pelvis" and z["joint_names"][51] == "right_thumb3"
rest = np.load(T + "/rest.npy")
assert np.abs(z["root_height"] - (rest[0, 2] + 0.9)).max() < 1e-5
for k in ("positions", "velocities", "rot6d"):
    assert np.array_equal(z[k], c[k])'
expect "convert walk.npz walk.bvh --rest rest.npy" 0 convert "$T/walk.npz" "$T/walk.bvh" --rest "$T/rest.npy"
expect "convert walk.npz walk.glb --rest rest.npy" 0 convert "$T/walk.npz" "$T/walk.glb" --rest "$T/rest.npy"
expect "convert walk.npz without --rest" 1 convert "$T/walk.npz" "$T/walk2.bvh"
check "the message asks for --rest" grep -q -- "--rest" "$T/err"
expect "positions of the converted BVH" 0 positions "$T/walk.bvh" -o "$T/walk_p.npy"
expect "positions of the converted glTF" 0 positions "$T/walk.glb" -o "$T/walk_g.npy"
npcheck "AMASS -> BVH, glTF: the features' model positions (1e-4)" '
a = np.load(T + "/walk_p.npy"); b = np.load(T + "/walk_g.npy"); z = np.load(T + "/am.npz")
rest = np.load(T + "/rest.npy")
assert a.shape == (30, 52, 3) and np.abs(a - b).max() < 1e-4
assert np.abs(a[:, 0] - (rest[0] + np.stack([np.linspace(0, 1, 30), np.zeros(30), np.full(30, 0.9)], -1))).max() < 1e-5
assert np.abs(a[:, :, 2] - z["positions"][:, :, 2]).max() < 1e-4  # heights (z up) agree'
