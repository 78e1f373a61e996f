# Blender as an independent judge of the skin `posebatch convert X.bvh
# Y.glb` writes: Blender's own glTF importer (headless) must make one
# armature with every node of the file as a bone (no empties), an action
# whose frame range is the clip's length at the scene's frame rate, and bone
# heads, posed at up to 12 frames spread over the clip, where a `posebatch
# positions` CSV of the source puts its joints (glTF's +Y up is Blender's
# +Z: (x, y, z) -> (x, -z, y)), within 1e-5 of the skeleton's size.
# Prints "blender-skin: FILE: B bones, frames A..B, N poses, position max P
# (relative Q)" and FAIL beyond.
# Usage: blender -b --factory-startup --python skin_blender.py -- FILE.glb POSITIONS.csv
import json
import math
import os
import sys

import bpy

path, csv_path = sys.argv[sys.argv.index("--") + 1:][:2]
name = os.path.basename(path)


def done(msg, bad):
    print(f"blender-skin: {name}: {msg}{' FAIL' if bad else ''}")
    sys.stdout.flush()
    os._exit(1 if bad else 0)  # Blender's own exit status is always 0


bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=path)
with open(path, "rb") as f:  # the GLB's JSON chunk: the node names
    head = f.read(20)
    doc = json.loads(f.read(int.from_bytes(head[12:16], "little")))
nodes = [n["name"] for n in doc["nodes"]]
arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
others = [o.name for o in bpy.data.objects if o.type != "ARMATURE"]
if len(arms) != 1 or others:
    done(f"{len(arms)} armatures, other objects {others}", True)
arm = arms[0]
bones = [b.name for b in arm.data.bones]
if sorted(bones) != sorted(nodes):
    done(f"bones {bones} are not the nodes {nodes}", True)
act = arm.animation_data.action if arm.animation_data else None
if act is None:
    done("no action", True)
scene = bpy.context.scene
fps = scene.render.fps / scene.render.fps_base

rows = [[float(x) for x in line.split(",")] for line in open(csv_path).read().split("\n")[1:] if line]
cols = open(csv_path).readline().strip().split(",")[2::3]
joints = [c[:-2] for c in cols]
ft = rows[1][1] - rows[0][1] if len(rows) > 1 else 0.0
length = rows[-1][1] * fps
f0, f1 = act.frame_range
if abs(f0) > 1e-3 or abs(f1 - length) > 1e-2:
    done(f"frames {f0}..{f1}, the clip's {len(rows)} frames are 0..{length:.3f}", True)
# rows at whole Blender frames, up to 12 spread over the clip
whole = [i for i, r in enumerate(rows) if abs(r[1] * fps - round(r[1] * fps)) < 1e-4]
pick = [whole[k * (len(whole) - 1) // 11] for k in range(12)] if len(whole) >= 12 else whole
size = 0.0
r0 = rows[0]
for j in range(len(joints)):
    size = max(size, math.dist(r0[2 + 3 * j:5 + 3 * j], r0[2:5]))
pmax = 0.0
for i in pick:
    scene.frame_set(round(rows[i][1] * fps))
    for j, jn in enumerate(joints):
        p = arm.matrix_world @ arm.pose.bones[jn].head
        x, y, z = rows[i][2 + 3 * j:5 + 3 * j]
        pmax = max(pmax, math.dist((p.x, p.y, p.z), (x, -z, y)))
rel = pmax / size if size > 0 else math.inf
done(f"{len(bones)} bones, frames {f0:g}..{f1:g}, {len(pick)} poses, position max {pmax:.2e} "
     f"(relative {rel:.2e})", not (rel <= 1e-5) or not pick)
