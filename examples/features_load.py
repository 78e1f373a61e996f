#!/usr/bin/env python3
"""Loading what `posebatch features` writes, with numpy alone (no posebatch needed).

    posebatch features data/cmu_01_03.bvh -o cmu.npz
    python3 examples/features_load.py cmu.npz

    posebatch features data/cmu_01_03.bvh --layout humanml3d --scale 0.056444 -o cmu_h.npz
    python3 examples/features_load.py cmu_h.npz

The arrays and what they hold: docs/formats.md, "Motion features (.npz)".
"""
import json
import sys

import numpy as np


def main(path):
    z = np.load(path)
    fps = float(z["fps"])
    options = json.loads(str(z["options"]))
    print(f"{path}: layout {z['layout']}, {fps:g} fps, options {options}")
    if str(z["layout"]) == "humanml3d":
        x = z["features"]  # (F - 1, 263), one row per frame
        print(f"features {x.shape}; root angular velocity x[:, 0], linear x[:, 1:3], height "
              f"x[:, 3], positions x[:, 4:67], 6D x[:, 67:193], velocities x[:, 193:259], "
              f"contacts x[:, 259:263]")
        print("joints:", dict(zip(z["joint_names"], z["source_joints"])))
        return
    F, J = z["positions"].shape[:2]
    # one training vector per frame: root track, then every joint's position, velocity and
    # 6D rotation, then the contacts
    x = np.concatenate([z["root_yaw_vel"][:, None], z["root_vel"], z["root_height"][:, None],
                        z["positions"].reshape(F, -1), z["velocities"].reshape(F, -1),
                        z["rot6d"].reshape(F, -1), z["contacts"]], axis=1)
    print(f"{F} frames of {J} joints -> vectors {x.shape} (4 + {J} x 12 + {z['contacts'].shape[1]})")
    print("joints:", list(z["joint_names"]), "parents:", z["parents"].tolist())
    print("feet:", list(z["feet"]), "contact share per foot:", z["contacts"].mean(0).round(2))
    # back to the world: integrate the root track
    yaw = np.concatenate([[0.0], np.cumsum(z["root_yaw_vel"][:-1]) / fps])
    c, s = np.cos(yaw), np.sin(yaw)
    step = z["root_vel"][:-1] / fps  # in each frame's facing frame (y up: x, z)
    world = np.stack([c[:-1] * step[:, 0] + s[:-1] * step[:, 1],
                      -s[:-1] * step[:, 0] + c[:-1] * step[:, 1]], -1)
    path_xz = np.concatenate([[[0.0, 0.0]], np.cumsum(world, axis=0)])
    print(f"root path: {np.linalg.norm(path_xz[-1]):.2f} units from the start, turned "
          f"{np.degrees(yaw[-1]):.0f} degrees")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cmu.npz")
