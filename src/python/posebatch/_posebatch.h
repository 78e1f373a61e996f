/* What the extension's source files share, lowest first (a file calls only
 * files listed above it): argument and array helpers and numpy's C API
 * (args.c), the element-wise kernels, averages and tracks (kernels.c), the
 * rotation representations (rotrep.c), the
 * Clip and Pose types and the clip calls (clip.c), the core of the Bvh type
 * and BvhError (bvh_object.c), the Gltf type (gltf.c), the pose blends
 * (blend.c), skeletons (skeleton.c, skeleton_ops.c), retargeting
 * (retarget.c), motion features and AMASS input (features.c), the Bvh methods and method table (bvh.c), and the module:
 * the backend functions, its method table and init (_posebatch.c). */
#ifndef PBPY_POSEBATCH_H
#define PBPY_POSEBATCH_H

#include <Python.h>
/* numpy's C API: one table, defined in args.c (PBPY_MAIN) and imported there
 * by pbpy_import_numpy, shared by the other files through one symbol */
#define PY_ARRAY_UNIQUE_SYMBOL pbpy_ARRAY_API
#ifndef PBPY_MAIN
#define NO_IMPORT_ARRAY
#endif
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <posebatch/io.h>

/* method table entries of METH_FASTCALL | METH_KEYWORDS functions */
#define FK (METH_FASTCALL | METH_KEYWORDS)
#define FC(f) ((PyCFunction)(void (*)(void))(f))

/* args.c: numpy's C API (imported by pbpy_import_numpy: 0, or -1 with
 * ImportError set) and the argument and array helpers */
int pbpy_import_numpy(void);

/* Parses FASTCALL arguments against names[0..count): the first npos may be
 * positional, the first nreq are required; out[i] borrowed or NULL. */
int parse_args(const char *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
               const char *const *names, int count, int npos, int nreq, PyObject **out);
/* the index of the str o in names[0..count), or -1 (o not a str or none of
 * them; no exception set) */
int str_index(PyObject *o, const char *const *names, int count);
int opt_bool(const char *fn, const char *name, PyObject *o, int *v);
int opt_double(const char *fn, const char *name, PyObject *o, double *v);
/* An optional non-negative index argument (None or absent: dflt). */
int opt_index(const char *fn, const char *name, PyObject *o, long dflt, long *v);
/* order= argument: "wxyz" (default, *xyzw = 0) or "xyzw" (1) */
int opt_order(const char *fn, PyObject *o, int *xyzw);
/* o as a C-contiguous float32 array whose last axis has `last` entries (0:
 * any) and at least min_ndim axes (new reference; NULL with TypeError /
 * ValueError naming fn and arg) */
PyArrayObject *get_f32(const char *fn, const char *arg, PyObject *o, int last, int min_ndim);
/* the leading axes of a (from afrom) and b (from bfrom) agree */
int same_lead(PyArrayObject *a, int afrom, PyArrayObject *b, int bfrom);
/* ValueError: arg's shape is not `want` (ref: the array it must match) */
int shape_error(const char *fn, const char *arg, PyArrayObject *a, const char *want,
                PyArrayObject *ref);
/* An optional array argument o (absent or None: *out NULL, 0): as get_f32
 * (last, min_ndim), its leading axes those of ref from axis ref_from, else
 * shape_error with want; -1 with the error set (*out, when not NULL, is the
 * caller's to release either way) */
int opt_like(const char *fn, const char *arg, PyObject *o, int last, int min_ndim,
             PyArrayObject *ref, int ref_from, const char *want, PyArrayObject **out);
/* (n, 4) interleaved quaternions <-> four component arrays (xyzw: (x, y, z,
 * w) order), (n, 3) vectors <-> three */
void q_split(const float *a, size_t n, int xyzw, float *w, float *x, float *y, float *z);
void q_join(float *a, size_t n, int xyzw, const float *w, const float *x, const float *y,
            const float *z);
void v_split(const float *a, size_t n, float *x, float *y, float *z);
void v_join(float *a, size_t n, const float *x, const float *y, const float *z);
#define F32(a) ((float *)PyArray_DATA(a))
/* ValueError for a pb_status (MemoryError for PB_ERR_NOMEM); returns NULL */
PyObject *raise_status(const char *fn, pb_status st);
/* new float32 array of shape a.shape[from:] (without its last axis when
 * drop_last) + (last,) (last 0: none) */
PyArrayObject *new_like(PyArrayObject *a, int from, int drop_last, int last);
/* the batches of n elements whose component arrays follow one another at p */
pb_cquats cq_at(const float *p, size_t n);
pb_quats q_at(float *p, size_t n);
pb_cvec3s cv_at(const float *p, size_t n);
pb_vec3s v_at(float *p, size_t n);
/* a's n quaternions (xyzw: (x, y, z, w) order) / vectors split into the
 * component arrays at *p, *p moved past them; the batch over them */
pb_quats q_take(PyArrayObject *a, size_t n, int xyzw, float **p);
pb_vec3s v_take(PyArrayObject *a, size_t n, float **p);
/* a C string as str (UTF-8, undecodable bytes replaced), NULL as None; new
 * reference */
PyObject *str_or_none(const char *s);
/* a new list of item(ctx, 0 .. n-1) (new references); NULL with the error
 * set when the list or an item cannot be made */
PyObject *list_of(size_t n, PyObject *(*item)(const void *ctx, size_t i), const void *ctx);
/* One int per joint: parents (entry j in -1 .. j-1, None for -1) or joint
 * indices (a mirror table: entries in 0 .. n-1). */
typedef enum { PBPY_PARENTS, PBPY_JOINTS } pbpy_ints;
/* o (a 1-D integer array or a sequence of ints) as n int32 checked as kind
 * says, in new PyMem_Raw memory (the caller frees); NULL with TypeError /
 * ValueError naming fn, arg and the entry. A list or tuple of ints and None
 * is read in place (no Python code runs meanwhile); any other sequence, or
 * one holding other objects, is copied to a tuple first, so that an item's
 * __index__ that changes it cannot pull items from under the conversion. */
int32_t *get_joint_ints(const char *fn, const char *arg, PyObject *o, size_t n, pbpy_ints kind);
/* str o as UTF-8 (valid while o lives); NULL with ValueError naming fn and
 * what when it holds a NUL (C would see only the part before it) */
const char *utf8_arg(const char *fn, const char *what, PyObject *o);

/* kernels.c: one module function per element-wise kernel (added by
 * pbpy_add_kernels; -1 with the error set), quat_average and the tracks */
int pbpy_add_kernels(PyObject *m);
PyObject *py_quat_average(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames);
PyObject *py_unroll(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);
PyObject *py_reference_extract(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);
PyObject *py_spline_eval(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);

/* rotrep.c: the rotation representations' conversions (quat_to_matrix,
 * ...), added by pbpy_add_rotrep (-1 with the error set) */
int pbpy_add_rotrep(PyObject *m);

/* clip.c: posebatch.Clip and posebatch.Pose (ready after
 * pbpy_ready_clip_types; -1 with the error set), resample(), sample() and
 * resample_frames() */
extern PyTypeObject pbpy_ClipType, pbpy_PoseType;
int pbpy_ready_clip_types(void);
/* a posebatch.Pose of the three arrays (NULL: None); new reference */
PyObject *pose_new(PyObject *rot, PyObject *pos, PyObject *scl);
PyObject *py_resample(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);
PyObject *py_sample(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);
PyObject *py_resample_frames(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames);

/* bvh_object.c: the core of posebatch.Bvh (its methods and attributes are
 * bvh.c's) and posebatch.BvhError */
typedef struct {
    PyObject_HEAD pb_bvh b;
    PyObject *warnings; /* list of str */
    PyObject *motion;   /* (rotations, positions) read-only, made on first access */
} BvhObject;
extern PyTypeObject BvhType;
BvhObject *bvh_new(void);
/* A Bvh with a copy of b's skeleton and `frames` rest-pose frames
 * (pb_bvh_new_motion; NULL with bvh_raise's exception). */
BvhObject *bvh_like(const pb_bvh *b, size_t frames, double frame_time);
/* posebatch.BvhError: a ValueError with .code and .line (made by
 * pbpy_new_bvh_error: 0, or -1 with the error set) */
extern PyObject *BvhError;
int pbpy_new_bvh_error(void);
/* Raises the Python exception for a pb_io_error (OSError, MemoryError or
 * BvhError; path, when not NULL, prefixes text errors). Returns NULL. */
PyObject *bvh_raise(const pb_io_error *err, const char *path);
/* After a library call on the file named by path (bytes, as
 * PyUnicode_FSConverter makes them; released here): 0, or -1 with
 * bvh_raise's exception (path prefixing text errors). */
int io_path_done(pb_io_code code, const pb_io_error *err, PyObject *path);
/* After a library call that filled the new object r: r, or NULL with r
 * released and bvh_raise's exception (no path). */
PyObject *io_result(pb_io_code code, const pb_io_error *err, PyObject *r);

/* gltf.c */
extern PyTypeObject GltfType;
PyObject *pbpy_file_format(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames);
PyObject *pbpy_read_gltf(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames);
PyObject *pbpy_bvh_to_gltf(PyObject *self, PyObject *unused);

/* blend.c: blend() and blend_layers() */
PyObject *py_blend(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *py_blend_layers(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames);
extern const char py_blend_layers_doc[];

/* skeleton.c: local_to_model() and model_to_local(), and the Bvh methods
 * global_positions() and global_rotations() */
PyObject *py_local_to_model(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);
/* ik.c */
PyObject *py_ik_two_bone(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames);
PyObject *py_ik_aim(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *py_model_to_local(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);
PyObject *Bvh_global_positions(BvhObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames);
PyObject *Bvh_global_rotations(BvhObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames);
/* skin.c: skinning_matrices() and skin() (linear blend skinning) */
PyObject *py_skinning_matrices(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames);
PyObject *py_skin(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
/* skeleton_ops.c: mirroring and root motion (module functions and Bvh
 * methods) */
#define PBPY_FN(f) PyObject *f(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
PBPY_FN(pbpy_mirror_table);
PBPY_FN(pbpy_mirror);
PBPY_FN(pbpy_root_motion_extract);
PBPY_FN(pbpy_root_motion_apply);
PBPY_FN(pbpy_bvh_mirror);
PBPY_FN(pbpy_bvh_root_motion);
PBPY_FN(pbpy_bvh_apply_root_motion);
#undef PBPY_FN

/* retarget.c: the map argument of retarget() and features(): a dict, a
 * sequence of (source, target) pairs or a map file's path, as a
 * pb_retarget_map whose strings point into `keep` (a list holding the str
 * objects; a name holding a NUL is refused) or into a parsed map file
 * (*parsed); absent or None: an empty map. 0, or -1 with the error set;
 * pbpy_put_map releases it. */
int pbpy_get_map(const char *fn, PyObject *o, pb_retarget_map *map, int *parsed, PyObject **keep,
                 const char ***names);
void pbpy_put_map(pb_retarget_map *map, int parsed, PyObject *keep, const char **names);

/* features.c: features(), humanml3d_features(), read_amass() */
PyObject *pbpy_features(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *pbpy_humanml3d_features(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames);
PyObject *pbpy_read_amass(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames);

/* bvh.c: read_bvh(), parse_bvh(), the Bvh methods and attributes, and
 * pbpy_ready_bvh_type (the method table in, PyType_Ready; -1 with the error
 * set) */
int pbpy_ready_bvh_type(void);
PyObject *py_read_bvh(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);
PyObject *py_parse_bvh(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k);

#endif /* PBPY_POSEBATCH_H */
