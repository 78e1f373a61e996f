"""posebatch: batch skeletal pose processing over numpy arrays.

A CPython extension over the posebatch C library (SSE4.1 / AVX2 / AVX-512 / NEON
kernels chosen at run time). Quaternions are arrays of shape (..., 4), float32,
(w, x, y, z) by default (``order="xyzw"`` for (x, y, z, w)); vec3 are (..., 3);
clips are (frames, joints, 4) rotations and (frames, joints, 3) positions.
float64 (and integer) input is converted to float32; non-contiguous arrays,
wrong shapes or dtypes raise TypeError / ValueError naming the argument. The
GIL is released around every batch call, so threads run in parallel.

Groups (``help(posebatch.<name>)`` documents each):

- interpolation: quat_catmull_rom, quat_hermite, quat_raw_cubic, quat_slerp,
  quat_nlerp, vec3_catmull_rom, vec3_hermite, scale_catmull_rom, scale_hermite
- primitives: quat_mul, quat_mul_inv, quat_inv_mul, quat_abs, quat_normalize,
  quat_log, quat_exp, quat_to_scaled_angle_axis, quat_from_scaled_angle_axis,
  quat_delta_to_angular_velocity, quat_sin_half_angle, quat_unroll
- rotation representations (any leading shape): quat_to_matrix, matrix_to_quat,
  quat_to_rot6d, rot6d_to_quat, matrix_to_rot6d, rot6d_to_matrix, quat_to_axis_angle,
  axis_angle_to_quat, matrix_to_axis_angle, axis_angle_to_matrix, rot6d_to_axis_angle,
  axis_angle_to_rot6d (6D: the matrix's first two columns, Zhou et al. 2019)
- averages: quat_average (raw, log, raw_ref, log_ref, accurate, basic),
  quat_reference_extract
- splines: quat_tangent_offset, quat_bezier_controls, quat_de_casteljau,
  quat_shoemake_controls, quat_spline_eval
- clips: resample, sample, resample_frames, blend, blend_layers (per-joint weights,
  additive layers, linear or log-space scales) (Clip, Pose named tuples)
- model space: local_to_model, model_to_local (forward kinematics and its inverse)
- inverse kinematics: ik_two_bone, ik_aim
- skinning: skinning_matrices (model x inverse bind), skin (linear blend skinning)
- BVH: read_bvh, parse_bvh, Bvh (resample / write / to_bytes / with_motion / to_gltf /
  global_positions / global_rotations), BvhError
- retargeting: retarget (a clip onto another skeleton), retarget_match
- glTF: read_gltf, Gltf (resample / write / to_bvh); file_format (what a clip file is)
- skeletons: mirror_table, mirror, root_motion_extract, root_motion_apply; Bvh.mirror,
  Bvh.root_motion, Bvh.apply_root_motion
- motion features: features (posebatch's layout or HumanML3D's, as a dict of arrays or
  the CLI's .npz), humanml3d_features (from 22 SMPL joint positions), read_amass (AMASS
  .npz with rest joint positions -> Bvh)
- backends: backend, supported_backends, force_backend, backend_lanes, backend_emulated
- posebatch.dataset: resample many clips, or compute their features, on a Dask cluster
"""
from ._posebatch import *  # noqa: F401,F403
from ._posebatch import (  # noqa: F401
    Bvh, BvhError, Clip, Gltf, Pose, c_version, MAX_COUNT,
)

__version__ = c_version

__all__ = [
    "quat_catmull_rom", "quat_hermite", "quat_raw_cubic", "quat_slerp", "quat_nlerp",
    "vec3_catmull_rom", "vec3_hermite", "scale_catmull_rom", "scale_hermite",
    "quat_mul", "quat_mul_inv", "quat_inv_mul", "quat_abs", "quat_normalize", "quat_log",
    "quat_exp", "quat_to_scaled_angle_axis", "quat_from_scaled_angle_axis",
    "quat_delta_to_angular_velocity", "quat_sin_half_angle", "quat_unroll",
    "quat_to_matrix", "matrix_to_quat", "quat_to_rot6d", "rot6d_to_quat", "matrix_to_rot6d",
    "rot6d_to_matrix", "quat_to_axis_angle", "axis_angle_to_quat", "matrix_to_axis_angle",
    "axis_angle_to_matrix", "rot6d_to_axis_angle", "axis_angle_to_rot6d",
    "quat_average", "quat_reference_extract",
    "quat_tangent_offset", "quat_bezier_controls", "quat_de_casteljau",
    "quat_shoemake_controls", "quat_spline_eval",
    "resample", "sample", "resample_frames", "blend", "blend_layers", "Clip", "Pose",
    "local_to_model", "model_to_local", "ik_two_bone", "ik_aim",
    "skinning_matrices", "skin",
    "read_bvh", "parse_bvh", "Bvh", "BvhError", "read_gltf", "Gltf", "file_format",
    "retarget", "retarget_match",
    "backend", "supported_backends", "force_backend", "backend_lanes", "backend_emulated",
    "c_version", "MAX_COUNT",
    "mirror_table", "mirror", "root_motion_extract", "root_motion_apply",
    "features", "humanml3d_features", "read_amass",
]
