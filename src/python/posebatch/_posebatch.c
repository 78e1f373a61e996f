/* posebatch._posebatch: the posebatch C API over numpy arrays.
 *
 * Arrays in, arrays out: quaternions are (..., 4) float32 in (w, x, y, z)
 * order (order="xyzw": (x, y, z, w)), vec3 (..., 3), clips (F, J, 4) /
 * (F, J, 3). Other real dtypes (float64, ints) are converted to float32;
 * non-contiguous arrays, wrong shapes or dtypes raise TypeError / ValueError
 * naming the argument. The library takes structure-of-arrays batches, so each
 * call splits its inputs into component arrays and interleaves its outputs
 * again (one pass, cheap next to the maths); the GIL is released around all
 * of that and the C call, so threads scale.
 *
 * This file is the module itself: the backend functions, the method table
 * and PyInit__posebatch, which imports numpy's C API (args.c), readies the
 * types and adds them and posebatch.BvhError (bvh_object.c). The rest is in
 * the files _posebatch.h lists; none of them calls this one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <posebatch.h>
#include <posebatch/io.h>

#include "_posebatch.h"

/* ------------------------------------------------------------------------ */
/* Backends                                                                 */
/* ------------------------------------------------------------------------ */

static int backend_arg(const char *fn, PyObject *o, pb_backend *b)
{
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'name' must be a str", fn);
        return -1;
    }
    const char *s = utf8_arg(fn, "backend name", o); /* "avx2\0x" is not "avx2" */
    if (!s)
        return -1;
    if (pb_backend_from_name(s, b) != PB_OK) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): unknown backend %R (scalar, sse41, avx2, avx512, neon)", fn, o);
        return -1;
    }
    return 0;
}

static PyObject *py_backend(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(pb_backend_name(pb_backend_active()));
}

static PyObject *py_supported_backends(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (int b = 0; l && b < PB_BACKEND_COUNT; b++)
        if (pb_backend_supported((pb_backend)b)) {
            PyObject *s = PyUnicode_FromString(pb_backend_name((pb_backend)b));
            if (!s || PyList_Append(l, s)) {
                Py_XDECREF(s);
                Py_CLEAR(l);
                break;
            }
            Py_DECREF(s);
        }
    return l;
}

static PyObject *py_force_backend(PyObject *self, PyObject *name)
{
    (void)self;
    pb_backend b;
    if (backend_arg("force_backend", name, &b))
        return NULL;
    if (pb_backend_force(b) != PB_OK) {
        PyErr_Format(PyExc_ValueError,
                     "force_backend(): backend %R is not supported by this CPU or build", name);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *py_backend_lanes(PyObject *self, PyObject *name)
{
    (void)self;
    pb_backend b;
    if (backend_arg("backend_lanes", name, &b))
        return NULL;
    return PyLong_FromLong(pb_backend_lanes(b));
}

static PyObject *py_backend_emulated(PyObject *self, PyObject *name)
{
    (void)self;
    pb_backend b;
    if (backend_arg("backend_emulated", name, &b))
        return NULL;
    return PyBool_FromLong(pb_backend_emulated(b));
}

/* ------------------------------------------------------------------------ */
/* Module                                                                   */
/* ------------------------------------------------------------------------ */

/* retarget.c */
PyObject *py_retarget(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);
PyObject *py_retarget_match(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);

static PyMethodDef methods[] = {
    {"quat_average", FC(py_quat_average), FK,
     "quat_average(samples, weights, method='raw', ref=None, *, order='wxyz')\n--\n\n"
     "Weighted average of K poses: samples (K, ..., 4), weights (K,), ref (..., 4) for the\n"
     "_ref methods. method: 'raw', 'log', 'raw_ref', 'log_ref', 'accurate' (eigenvector),\n"
     "'basic' (running hemisphere); see pb_quat_average_* for each formula. Returns (..., 4)."},
    {"quat_unroll", FC(py_unroll), FK,
     "quat_unroll(track, *, order='wxyz')\n--\n\n"
     "Hemisphere unrolling of frame-major tracks (F, ..., 4) (pb_quat_unroll)."},
    {"quat_reference_extract", FC(py_reference_extract), FK,
     "quat_reference_extract(poses, *, order='wxyz')\n--\n\n"
     "Eigenvector average of F poses (F, ..., 4) -> (..., 4) (pb_quat_reference_extract)."},
    {"quat_spline_eval", FC(py_spline_eval), FK,
     "quat_spline_eval(keys, t, closed=False, *, order='wxyz')\n--\n\n"
     "Tangent-space Bezier spline through keys (K, ..., 4) at time t (key units): returns\n"
     "(..., 4) (pb_quat_spline_eval; closed=True loops)."},
    {"resample", FC(py_resample), FK,
     "resample(rotations, frame_time, fps, positions=None, scales=None, *, loop=False,\n"
     "         velocity=False, exact=False, order='wxyz')\n--\n\n"
     "Resamples a clip to fps frames per second (pb_clip_resample): rotations (F, J, 4) by\n"
     "quaternion Catmull-Rom, positions (F, J, 3) by vec3 Catmull-Rom, scales (F, J, 3) in\n"
     "log space. Output frames: floor((F-1) frame_time fps) + 1, or round(F frame_time fps)\n"
     "with loop=True (cyclic clip). Returns a posebatch.Clip named tuple (rotations,\n"
     "positions, scales, frame_time, angular_velocity, linear_velocity, scale_velocity);\n"
     "velocities (per second) only with velocity=True, absent tracks None."},
    {"sample", FC(py_sample), FK,
     "sample(rotations, frame_time, times, positions=None, scales=None, *, loop=False,\n"
     "       velocity=False, exact=False, order='wxyz')\n--\n\n"
     "Samples a clip at arbitrary times (seconds, 1-D) (pb_clip_sample); returns a\n"
     "posebatch.Clip with len(times) frames (frame_time None)."},
    {"resample_frames", FC(py_resample_frames), FK,
     "resample_frames(frames, frame_time, fps, loop=False)\n--\n\n"
     "Output frame count of resample() (pb_clip_resample_frames)."},
    {"blend", FC(py_blend), FK,
     "blend(rotations, weights, positions=None, scales=None, method='log_ref', *,\n"
     "      ref_rotations=None, ref_positions=None, ref_scales=None, order='wxyz')\n--\n\n"
     "Weighted blend of K poses (pb_pose_blend): rotations (K, J, 4), weights (K,) used as\n"
     "given, positions/scales (K, J, 3). method: 'log_ref' (default), 'raw_ref', 'log', 'raw',\n"
     "'accurate'. The reference rotations default to those of the heaviest pose (largest\n"
     "weight; identity if none > 0): a rest pose of identities puts joints near 180 degrees\n"
     "from rest, which real clips have, at the log map's cut. Positions\n"
     "blend as ref + sum w (p - ref) with ref_positions, else sum w p. Returns a posebatch.Pose\n"
     "named tuple (rotations, positions, scales)."},
    {"blend_layers", FC(py_blend_layers), FK, py_blend_layers_doc},
    {"local_to_model", FC(py_local_to_model), FK,
     "local_to_model(parents, rotations, positions=None, scales=None, *, order='wxyz')\n--\n\n"
     "Forward kinematics (pb_pose_local_to_model): local rotations (..., J, 4), positions and\n"
     "scales (..., J, 3) of poses of one skeleton -> a posebatch.Pose of new model-space arrays\n"
     "(absent tracks None). parents: J ints, parents[j] < j, -1 or None for a root\n"
     "(Bvh.parents fits). Model positions need local positions."},
    {"model_to_local", FC(py_model_to_local), FK,
     "model_to_local(parents, rotations, positions=None, scales=None, *, order='wxyz')\n--\n\n"
     "The inverse of local_to_model (pb_pose_model_to_local): model-space arrays -> a\n"
     "posebatch.Pose of local ones."},
    {"ik_two_bone", FC(py_ik_two_bone), FK,
     "ik_two_bone(rotations, model_rotations, model_positions, start, mid, end, targets, poles,\n"
     "            *, mid_axis=(0, 0, 1), weights=None, soften=None, order='wxyz')\n--\n\n"
     "Two-bone IK (pb_ik_two_bone_solve, ozz-animation's IKTwoBoneJob): local rotations\n"
     "(..., J, 4), the model pose (model_rotations (..., J, 4), model_positions (..., J, 3):\n"
     "local_to_model's), joint indices start, mid, end, targets and poles (..., 3) in model\n"
     "space, mid_axis the bend axis in the middle joint's frame, weights and soften (...) per\n"
     "pose. Returns (rotations, reached): new local rotations with the start and middle\n"
     "joints corrected, and a bool array (...). Runs without the GIL."},
    {"ik_aim", FC(py_ik_aim), FK,
     "ik_aim(rotations, model_rotations, model_positions, chain, targets, poles, *,\n"
     "       forward=(0, 0, 1), up=(0, 1, 0), weights=None, joint_weights=None, order='wxyz')\n"
     "--\n\n"
     "Aim IK (pb_ik_aim_solve, ozz's IKAimJob): the joint (an index) or chain of joints (parent\n"
     "to child) turned so that forward (their frames' axis) points at targets (..., 3), up\n"
     "towards poles (..., 3); joint_weights per chain joint, weights per pose. Returns new\n"
     "local rotations. Runs without the GIL."},
    {"skinning_matrices", FC(py_skinning_matrices), FK,
     "skinning_matrices(rotations, positions=None, scales=None, inverse_bind=None, *, "
     "order='wxyz')\n--\n\n"
     "Skinning matrices (pb_pose_skinning_matrices): for model-space rotations (..., J, 4),\n"
     "positions and scales (..., J, 3) (local_to_model's output), M @ B per joint, as\n"
     "(..., J, 4, 4) float32 in numpy's convention (m[..., r, c]: m @ [x, y, z, 1] moves a\n"
     "point). inverse_bind: (J, 4, 4) in the same convention (glTF's column-major\n"
     "inverseBindMatrices as (J, 16): .reshape(J, 4, 4).transpose(0, 2, 1)); None: identities.\n"
     "The call runs without the GIL."},
    {"skin", FC(py_skin), FK,
     "skin(matrices, joints, weights, positions, normals=None)\n--\n\n"
     "Linear blend skinning (pb_skin_vertices): positions (V, 3) by sum_k w[v, k] M[j[v, k]],\n"
     "matrices (J, 4, 4) or (J, 3, 4) in numpy's convention (skinning_matrices' output for one\n"
     "pose), joints (V, K) integers in 0 .. J-1 and weights (V, K), K in 1..8 (used as given).\n"
     "Returns the new positions (V, 3), or (positions, normals) when normals (V, 3) are given\n"
     "(transformed by the same blended matrix, not renormalised: right for rotations and\n"
     "uniform scale). float32; the call runs without the GIL."},
    {"backend", py_backend, METH_NOARGS,
     "backend()\n--\n\nThe active backend: 'scalar', 'sse41', 'avx2', 'avx512' or 'neon'."},
    {"supported_backends", py_supported_backends, METH_NOARGS,
     "supported_backends()\n--\n\nBackends built in and supported by this CPU."},
    {"force_backend", py_force_backend, METH_O,
     "force_backend(name)\n--\n\nMakes every later call use this backend, process-wide\n"
     "(pb_backend_force); ValueError if unknown or unsupported."},
    {"backend_lanes", py_backend_lanes, METH_O,
     "backend_lanes(name)\n--\n\nFloats per SIMD step of a backend (1 for scalar)."},
    {"backend_emulated", py_backend_emulated, METH_O,
     "backend_emulated(name)\n--\n\nTrue if the backend runs through SIMDe emulation."},
    {"read_bvh", FC(py_read_bvh), FK,
     "read_bvh(path, *, strict=False)\n--\n\n"
     "Reads a BVH file with the library's reader (the CLI's): returns a posebatch.Bvh; its\n"
     "warnings (e.g. a 'Frames:' count that disagrees) are in .warnings (strict=True: an\n"
     "error). Raises OSError or posebatch.BvhError (a ValueError with .code and .line)."},
    {"file_format", FC(pbpy_file_format), FK,
     "file_format(path)\n--\n\n"
     "'bvh', 'gltf' or 'glb': what a clip file is, by its first bytes (a regular file) or\n"
     "its name (a stream, or a file that cannot be read), as the CLI decides\n"
     "(pb_io_format_of_file)."},
    {"read_gltf", FC(pbpy_read_gltf), FK,
     "read_gltf(path)\n--\n\n"
     "Reads a .glb or .gltf file (with .bin or data: buffers) with the library's reader (the\n"
     "CLI's): returns a posebatch.Gltf. Raises OSError or posebatch.BvhError, whose message\n"
     "names the JSON path of the problem."},
    {"parse_bvh", FC(py_parse_bvh), FK,
     "parse_bvh(text, *, strict=False)\n--\n\nReads a BVH text (str or bytes); see read_bvh."},
    {"retarget", FC(py_retarget), FK,
     "retarget(clip, target, map=None, *, map_only=False)\n--\n\n"
     "clip's motion on target's skeleton (pb_bvh_retarget; what `posebatch retarget IN --to\n"
     "SKELETON` does): a new Bvh with target's joints, offsets and channels and clip's\n"
     "frames and frame time. Joints matched by name (prefixes, sides, case, families such as\n"
     "LeftUpLeg / LeftThigh / LHip / l_hip), after the map: a dict {source: target}, a\n"
     "sequence of (source, target) pairs or the path of a map file ('source = target' lines);\n"
     "map_only=True matches only those. Rotations through the two rest poses (T-pose and\n"
     "A-pose skeletons), root translation scaled by the hip heights, unmatched target joints\n"
     "at rest. Raises posebatch.BvhError (no root match, too few matches, a map naming an\n"
     "unknown joint or one twice) or OSError (map file)."},
    {"retarget_match", FC(py_retarget_match), FK,
     "retarget_match(clip, target, map=None, *, map_only=False)\n--\n\n"
     "The matching retarget() uses: a dict {target joint: source joint or None}, in the\n"
     "target's joint order (pb_bvh_retarget_match)."},
    {"mirror_table", FC(pbpy_mirror_table), FK,
     "mirror_table(names, pairs=None)\n--\n\n"
     "The left/right table of joint names (pb_joint_mirror_table): a list, entry j the index\n"
     "of joint j's counterpart (j on the centre line). Families: Left/Right anywhere, _L/_R\n"
     "or .L/.R endings, L_/R_ starts, a bare l/r first letter where the other name exists;\n"
     "pairs ({a: b} or [(a, b)]) override. Raises posebatch.BvhError."},
    {"mirror", FC(pbpy_mirror), FK,
     "mirror(rotations, table, positions=None, plane='yz', *, order='wxyz')\n--\n\n"
     "A clip reflected in plane ('yz': x -> -x, 'xz', 'xy') with joint j taking joint\n"
     "table[j]'s values (pb_clip_mirror): rotations (F, J, 4), positions (F, J, 3). Bit-exact;\n"
     "twice gives the input back. Returns (rotations, positions or None)."},
    {"root_motion_extract", FC(pbpy_root_motion_extract), FK,
     "root_motion_extract(rotations, positions, parents=None, joint=0, up='y',\n"
     "                    components='ground,heading', *, order='wxyz')\n--\n\n"
     "Takes the ground translation and heading of `joint` out of the clip\n"
     "(pb_clip_root_extract). parents: one per joint (None or -1 for a root); without them\n"
     "`joint` is taken to be the root. Returns (rotations, positions, root_positions (F, 3),\n"
     "root_rotations (F, 4))."},
    {"root_motion_apply", FC(pbpy_root_motion_apply), FK,
     "root_motion_apply(rotations, positions, root_positions, root_rotations, parents=None,\n"
     "                  joint=0, up='y', components='ground,heading', *, order='wxyz')\n--\n\n"
     "Puts a root track back (pb_clip_root_apply); returns (rotations, positions)."},
    {"features", FC(pbpy_features), FK,
     "features(clip, out=None, *, layout='posebatch', fps=None, mirror=False, up='y', scale=1.0,\n"
     "         root=None, feet=None, contact_speed=None, contact_height=None, map=None,\n"
     "         target=None, feet_threshold=None, rest=None, source=None)\n--\n\n"
     "The motion features of a clip (a Bvh, or a BVH, glTF or AMASS .npz path; AMASS needs\n"
     "rest=, an .npy path or a (J, 3) array) as a dict of numpy arrays, what `posebatch\n"
     "features` writes (pb_bvh_features; layouts: docs/formats.md). out=PATH also writes the\n"
     "CLI's .npz bytes. mirror=True: the mirrored clip's features. posebatch layout: root\n"
     "(facing joint), feet (joint names), contact_speed / contact_height (units); humanml3d:\n"
     "map (as retarget's), target (22, 3), feet_threshold (m^2 per frame). source: the name\n"
     "kept in the options (default: a path's base name)."},
    {"humanml3d_features", FC(pbpy_humanml3d_features), FK,
     "humanml3d_features(joints, target=None, feet_threshold=0.002)\n--\n\n"
     "HumanML3D's 263-dimensional vectors (frames - 1, 263) from the positions of the 22 SMPL\n"
     "joints (frames, 22, 3), metres, y up, 20 fps (pb_humanml3d_features); target: the\n"
     "(22, 3) joints whose bone lengths the clip takes (default its first frame)."},
    {"read_amass", FC(pbpy_read_amass), FK,
     "read_amass(path, rest)\n--\n\n"
     "An AMASS .npz (poses, trans, mocap_framerate; SMPL-H, 52 or 22 joints) as a Bvh\n"
     "(pb_amass_to_bvh): rest is the rest joint positions, an .npy path or a (J, 3) array\n"
     "(body models are licensed and not shipped). .write() / .to_gltf() convert it."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "posebatch._posebatch",
    "posebatch C extension: the posebatch C API over numpy arrays.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL};

PyMODINIT_FUNC PyInit__posebatch(void);
PyMODINIT_FUNC PyInit__posebatch(void)
{
    if (pbpy_import_numpy())
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    if (pbpy_add_kernels(m) || pbpy_add_rotrep(m)) {
        Py_DECREF(m);
        return NULL;
    }
    if (pbpy_ready_clip_types() || pbpy_ready_bvh_type() || PyType_Ready(&GltfType) ||
        pbpy_new_bvh_error()) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&pbpy_ClipType);
    Py_INCREF(&pbpy_PoseType);
    Py_INCREF(&BvhType);
    if (PyModule_AddObject(m, "Clip", (PyObject *)&pbpy_ClipType) ||
        PyModule_AddObject(m, "Pose", (PyObject *)&pbpy_PoseType) ||
        PyModule_AddObject(m, "Bvh", (PyObject *)&BvhType) ||
        PyModule_AddObject(m, "Gltf", (Py_INCREF(&GltfType), (PyObject *)&GltfType)) ||
        PyModule_AddObject(m, "BvhError", (Py_INCREF(BvhError), BvhError)) ||
        PyModule_AddStringConstant(m, "c_version", pb_version_string()) ||
        PyModule_AddIntConstant(m, "MAX_COUNT", (long)PB_MAX_COUNT)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
