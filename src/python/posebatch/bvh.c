/* posebatch.Bvh and read_bvh / parse_bvh: BVH files through the library's
 * reader and writer (include/posebatch/io.h), as the CLI uses them. The
 * type's core is in bvh_object.c; this file holds its methods and
 * attributes and the method table, which also names the Bvh methods of
 * gltf.c, skeleton.c and skeleton_ops.c, and readies the type. */
#define PY_SSIZE_T_CLEAN
#include "_posebatch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Warnings collected without the GIL. */
typedef struct wlist {
    char **msg;
    size_t n, cap;
} wlist;
static void wl_add(void *ctx, const char *m)
{
    wlist *w = ctx;
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 4;
        char **p = realloc(w->msg, cap * sizeof *p);
        if (!p)
            return;
        w->msg = p;
        w->cap = cap;
    }
    char *c = strdup(m);
    if (c)
        w->msg[w->n++] = c;
}
static PyObject *wl_take(wlist *w)
{
    PyObject *l = PyList_New(0);
    for (size_t i = 0; i < w->n; i++) {
        if (l) {
            PyObject *s = str_or_none(w->msg[i]);
            if (!s || PyList_Append(l, s))
                Py_CLEAR(l);
            Py_XDECREF(s);
        }
        free(w->msg[i]);
    }
    free(w->msg);
    w->msg = NULL;
    w->n = w->cap = 0;
    return l;
}

static PyObject *bvh_read(const char *fn, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames, int from_text)
{
    static const char *n_file[] = {"path", "strict"};
    static const char *n_text[] = {"text", "strict"};
    PyObject *o[2];
    if (parse_args(fn, args, nargs, kwnames, from_text ? n_text : n_file, 2, 1, 1, o))
        return NULL;
    int strict = 0;
    if (opt_bool(fn, "strict", o[1], &strict))
        return NULL;
    PyObject *bytes = NULL;
    if (from_text) {
        if (PyUnicode_Check(o[0]))
            bytes = PyUnicode_AsUTF8String(o[0]);
        else if (PyBytes_Check(o[0]))
            bytes = (Py_INCREF(o[0]), o[0]);
        else {
            PyErr_Format(PyExc_TypeError, "%s(): argument 'text' must be str or bytes", fn);
            return NULL;
        }
    } else if (!PyUnicode_FSConverter(o[0], &bytes)) {
        return NULL;
    }
    if (!bytes)
        return NULL;
    BvhObject *r = bvh_new();
    if (!r) {
        Py_DECREF(bytes);
        return NULL;
    }
    wlist wl = {NULL, 0, 0};
    pb_bvh_read_opts ro = {strict ? PB_BVH_READ_STRICT : 0u, 0, wl_add, &wl};
    pb_io_error err;
    pb_io_code code;
    const char *data = PyBytes_AS_STRING(bytes);
    size_t size = (size_t)PyBytes_GET_SIZE(bytes);
    Py_BEGIN_ALLOW_THREADS code = from_text ? pb_bvh_read_memory_with(data, size, &ro, &r->b, &err)
                                            : pb_bvh_read_file_with(data, &ro, &r->b, &err);
    Py_END_ALLOW_THREADS PyObject *w = wl_take(&wl);
    if (code != PB_IO_OK) {
        Py_XDECREF(w);
        Py_DECREF(r);
        bvh_raise(&err, from_text ? NULL : data);
        Py_DECREF(bytes);
        return NULL;
    }
    Py_DECREF(bytes);
    if (!w) {
        Py_DECREF(r);
        return NULL;
    }
    Py_SETREF(r->warnings, w);
    return (PyObject *)r;
}

PyObject *py_read_bvh(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return bvh_read("read_bvh", a, n, k, 0);
}
PyObject *py_parse_bvh(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return bvh_read("parse_bvh", a, n, k, 1);
}

static int euler_arg(const char *fn, PyObject *o, pb_bvh_euler_mode *m)
{
    *m = PB_BVH_EULER_SOURCE;
    if (!o)
        return 0;
    static const char *const names[] = {"source", "continuous", "principal"};
    int i = str_index(o, names, 3);
    if (i >= 0) {
        *m = (pb_bvh_euler_mode)i;
        return 0;
    }
    PyErr_Format(PyExc_ValueError,
                 "%s(): argument 'euler' must be 'source', 'continuous' or 'principal', got %R", fn,
                 o);
    return -1;
}

static PyObject *Bvh_write(BvhObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    const char *fn = "Bvh.write";
    static const char *names[] = {"path", "euler"};
    PyObject *o[2];
    if (parse_args(fn, args, nargs, kwnames, names, 2, 1, 1, o))
        return NULL;
    pb_bvh_write_opts wo;
    memset(&wo, 0, sizeof wo);
    if (euler_arg(fn, o[1], &wo.euler))
        return NULL;
    PyObject *bytes;
    if (!PyUnicode_FSConverter(o[0], &bytes))
        return NULL;
    pb_io_error err;
    pb_io_code code;
    const char *path = PyBytes_AS_STRING(bytes);
    Py_BEGIN_ALLOW_THREADS code = pb_bvh_write_file_with(path, &self->b, &wo, &err);
    Py_END_ALLOW_THREADS if (io_path_done(code, &err, bytes)) return NULL;
    Py_RETURN_NONE;
}

static PyObject *Bvh_to_bytes(BvhObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    const char *fn = "Bvh.to_bytes";
    static const char *names[] = {"euler"};
    PyObject *o[1];
    if (parse_args(fn, args, nargs, kwnames, names, 1, 0, 0, o))
        return NULL;
    pb_bvh_write_opts wo;
    memset(&wo, 0, sizeof wo);
    if (euler_arg(fn, o[0], &wo.euler))
        return NULL;
    char *text = NULL;
    size_t size = 0;
    pb_io_error err;
    pb_io_code code = PB_IO_ERR_NOMEM;
    int ok_close = 0;
    Py_BEGIN_ALLOW_THREADS FILE *f = open_memstream(&text, &size);
    if (f) {
        code = pb_bvh_write_stream_with(f, &self->b, &wo, &err);
        ok_close = fclose(f) == 0;
    }
    Py_END_ALLOW_THREADS if (code != PB_IO_OK || !ok_close)
    {
        free(text);
        if (code == PB_IO_OK || code == PB_IO_ERR_NOMEM)
            return PyErr_NoMemory();
        return bvh_raise(&err, NULL);
    }
    PyObject *r = PyBytes_FromStringAndSize(text, (Py_ssize_t)size);
    free(text);
    return r;
}

/* A resample of self at fps can be made: 0, or -1 with ValueError. */
static int resample_check(const char *fn, const BvhObject *self, double fps)
{
    if (self->b.num_frames == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): the clip has no frames", fn);
        return -1;
    }
    if (!(fps > 0.0 && isfinite(fps))) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'fps' must be finite and > 0", fn);
        return -1;
    }
    return 0;
}

static PyObject *Bvh_resample(BvhObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    const char *fn = "Bvh.resample";
    static const char *names[] = {"fps"};
    PyObject *o[1];
    double fps;
    if (parse_args(fn, args, nargs, kwnames, names, 1, 1, 1, o) ||
        opt_double(fn, "fps", o[0], &fps))
        return NULL;
    if (resample_check(fn, self, fps))
        return NULL;
    /* What `posebatch resample` does (pb_bvh_resample: the clip, its source
     * angles and decimals), so that writing gives the CLI's bytes. */
    BvhObject *r = bvh_new();
    if (!r)
        return NULL;
    pb_io_code code;
    pb_io_error err;
    Py_BEGIN_ALLOW_THREADS code = pb_bvh_resample(&self->b, fps, 0, &r->b, &err);
    Py_END_ALLOW_THREADS return io_result(code, &err, (PyObject *)r);
}

/* threads: None or an int 1..256 (0: as 1) */
static int threads_arg(const char *fn, PyObject *o, unsigned *t)
{
    *t = 1;
    if (!o || o == Py_None)
        return 0;
    long v = PyLong_Check(o) && !PyBool_Check(o) ? PyLong_AsLong(o) : -2;
    if (v == -1 && PyErr_Occurred())
        PyErr_Clear();
    if (v < 0 || v > 256) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'threads' must be an int 0..256, got %R", fn,
                     o);
        return -1;
    }
    *t = (unsigned)v;
    return 0;
}

static PyObject *Bvh_resample_write(BvhObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames)
{
    const char *fn = "Bvh.resample_write";
    static const char *names[] = {"fps", "path", "euler", "loop", "threads"};
    PyObject *o[5];
    double fps;
    int loop = 0;
    pb_bvh_write_opts wo;
    memset(&wo, 0, sizeof wo);
    if (parse_args(fn, args, nargs, kwnames, names, 5, 2, 2, o) ||
        opt_double(fn, "fps", o[0], &fps) || euler_arg(fn, o[2], &wo.euler) ||
        (o[3] && opt_bool(fn, "loop", o[3], &loop)) || threads_arg(fn, o[4], &wo.threads))
        return NULL;
    if (resample_check(fn, self, fps))
        return NULL;
    PyObject *bytes;
    if (!PyUnicode_FSConverter(o[1], &bytes))
        return NULL;
    const unsigned flags = loop ? (PB_CLIP_LOOP | PB_BVH_LOOP_TRAVEL) : 0u;
    pb_clip c = pb_bvh_clip(&self->b);
    size_t frames = pb_clip_resample_frames(&c, fps, flags & PB_CLIP_LOOP);
    pb_io_error err;
    pb_io_code code;
    const char *path = PyBytes_AS_STRING(bytes);
    Py_BEGIN_ALLOW_THREADS code = pb_bvh_resample_write_file(&self->b, fps, flags, path, &wo, &err);
    Py_END_ALLOW_THREADS if (io_path_done(code, &err, bytes)) return NULL;
    return PyLong_FromSize_t(frames);
}

static PyObject *Bvh_with_motion(BvhObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    const char *fn = "Bvh.with_motion";
    static const char *names[] = {"rotations", "positions", "frame_time", "order"};
    PyObject *o[4];
    if (parse_args(fn, args, nargs, kwnames, names, 4, 3, 1, o))
        return NULL;
    int xyzw;
    double ft = self->b.frame_time;
    if (opt_order(fn, o[3], &xyzw) ||
        (o[2] && o[2] != Py_None && opt_double(fn, "frame_time", o[2], &ft)))
        return NULL;
    if (!(ft > 0.0 && isfinite(ft))) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'frame_time' must be finite and > 0", fn);
        return NULL;
    }
    PyArrayObject *rot = get_f32(fn, "rotations", o[0], 4, 2), *pos = NULL;
    if (!rot)
        return NULL;
    size_t j = self->b.num_joints;
    if (PyArray_NDIM(rot) != 3 || (size_t)PyArray_DIM(rot, 1) != j) {
        Py_DECREF(rot);
        PyErr_Format(PyExc_ValueError, "%s(): argument 'rotations' must be (frames, %zu, 4)", fn,
                     j);
        return NULL;
    }
    if (opt_like(fn, "positions", o[1], 3, 2, rot, 0,
                 "it must be (frames, joints, 3) like rotations", &pos)) {
        Py_XDECREF(pos);
        Py_DECREF(rot);
        return NULL;
    }
    size_t f = (size_t)PyArray_DIM(rot, 0);
    BvhObject *r = bvh_like(&self->b, f, ft);
    if (r) {
        size_t m = f * j;
        q_split(F32(rot), m, xyzw, r->b.rot_w, r->b.rot_x, r->b.rot_y, r->b.rot_z);
        if (pos)
            v_split(F32(pos), m, r->b.pos_x, r->b.pos_y, r->b.pos_z);
    }
    Py_DECREF(rot);
    Py_XDECREF(pos);
    return (PyObject *)r;
}

static PyObject *Bvh_motion(BvhObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    const char *fn = "Bvh.motion";
    static const char *names[] = {"order"};
    PyObject *o[1];
    int xyzw;
    if (parse_args(fn, args, nargs, kwnames, names, 1, 0, 0, o) || opt_order(fn, o[0], &xyzw))
        return NULL;
    size_t f = self->b.num_frames, j = self->b.num_joints, m = f * j;
    npy_intp d4[3] = {(npy_intp)f, (npy_intp)j, 4}, d3[3] = {(npy_intp)f, (npy_intp)j, 3};
    PyArrayObject *r = (PyArrayObject *)PyArray_SimpleNew(3, d4, NPY_FLOAT32);
    PyArrayObject *p = (PyArrayObject *)PyArray_SimpleNew(3, d3, NPY_FLOAT32);
    if (!r || !p) {
        Py_XDECREF(r);
        Py_XDECREF(p);
        return NULL;
    }
    if (m && self->b.rot_w) {
        q_join(F32(r), m, xyzw, self->b.rot_w, self->b.rot_x, self->b.rot_y, self->b.rot_z);
        v_join(F32(p), m, self->b.pos_x, self->b.pos_y, self->b.pos_z);
    }
    PyObject *t = PyTuple_Pack(2, r, p);
    Py_DECREF(r);
    Py_DECREF(p);
    return t;
}

/* item i of motion(): the rotations (0) or the positions (1), made once
 * (a Bvh's motion never changes) and read-only, so that every access is the
 * same array and costs nothing */
static PyObject *Bvh_motion_item(BvhObject *self, Py_ssize_t i)
{
    if (!self->motion) {
        PyObject *t = Bvh_motion(self, NULL, 0, NULL);
        if (!t)
            return NULL;
        for (Py_ssize_t k = 0; k < 2; k++)
            PyArray_CLEARFLAGS((PyArrayObject *)PyTuple_GET_ITEM(t, k), NPY_ARRAY_WRITEABLE);
        self->motion = t;
    }
    PyObject *r = PyTuple_GET_ITEM(self->motion, i);
    Py_INCREF(r);
    return r;
}
static PyObject *Bvh_get_rotations(BvhObject *self, void *c)
{
    (void)c;
    return Bvh_motion_item(self, 0);
}
static PyObject *Bvh_get_positions(BvhObject *self, void *c)
{
    (void)c;
    return Bvh_motion_item(self, 1);
}
static PyObject *Bvh_get_num_frames(BvhObject *self, void *c)
{
    (void)c;
    return PyLong_FromSize_t(self->b.num_frames);
}
static PyObject *Bvh_get_num_joints(BvhObject *self, void *c)
{
    (void)c;
    return PyLong_FromSize_t(self->b.num_joints);
}
static PyObject *Bvh_get_frame_time(BvhObject *self, void *c)
{
    (void)c;
    return PyFloat_FromDouble(self->b.frame_time);
}
static PyObject *Bvh_get_fps(BvhObject *self, void *c)
{
    (void)c;
    return PyFloat_FromDouble(1.0 / self->b.frame_time);
}
static PyObject *Bvh_get_warnings(BvhObject *self, void *c)
{
    (void)c;
    return PyList_GetSlice(self->warnings, 0, PY_SSIZE_T_MAX);
}
/* joint i's name, parent (None for a root) and channel names, for list_of
 * over the pb_bvh */
static PyObject *joint_name(const void *b, size_t i)
{
    return str_or_none(((const pb_bvh *)b)->joints[i].name);
}
static PyObject *joint_parent(const void *b, size_t i)
{
    int32_t p = ((const pb_bvh *)b)->joints[i].parent;
    return p < 0 ? (Py_INCREF(Py_None), Py_None) : PyLong_FromLong(p);
}
static PyObject *joint_channels(const void *b, size_t i)
{
    const pb_bvh_joint *jt = &((const pb_bvh *)b)->joints[i];
    PyObject *t = PyTuple_New(jt->num_channels);
    for (int k = 0; t && k < jt->num_channels; k++) {
        const char *nm = pb_bvh_channel_name((pb_bvh_channel)jt->channels[k]);
        PyObject *s = PyUnicode_FromString(nm ? nm : "?");
        if (!s) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, k, s);
    }
    return t;
}
static PyObject *Bvh_get_joint_names(BvhObject *self, void *c)
{
    (void)c;
    return list_of(self->b.num_joints, joint_name, &self->b);
}
static PyObject *Bvh_get_parents(BvhObject *self, void *c)
{
    (void)c;
    return list_of(self->b.num_joints, joint_parent, &self->b);
}
static PyObject *Bvh_get_offsets(BvhObject *self, void *c)
{
    (void)c;
    npy_intp d[2] = {(npy_intp)self->b.num_joints, 3};
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(2, d, NPY_FLOAT32);
    if (!a)
        return NULL;
    for (size_t i = 0; i < self->b.num_joints; i++)
        memcpy(F32(a) + 3 * i, self->b.joints[i].offset, 3 * sizeof(float));
    return (PyObject *)a;
}
static PyObject *Bvh_get_channels(BvhObject *self, void *c)
{
    (void)c;
    return list_of(self->b.num_joints, joint_channels, &self->b);
}

static PyMethodDef Bvh_methods[] = {
    {"write", (PyCFunction)(void (*)(void))Bvh_write, METH_FASTCALL | METH_KEYWORDS,
     "write(path, *, euler='source')\n--\n\n"
     "Writes the clip atomically with the library's BVH writer (the posebatch CLI's): Euler\n"
     "angles follow the source ('source'), or 'continuous' / 'principal'. Raises OSError or\n"
     "posebatch.BvhError."},
    {"to_bytes", (PyCFunction)(void (*)(void))Bvh_to_bytes, METH_FASTCALL | METH_KEYWORDS,
     "to_bytes(*, euler='source')\n--\n\nThe BVH text the writer produces, as bytes."},
    {"resample", (PyCFunction)(void (*)(void))Bvh_resample, METH_FASTCALL | METH_KEYWORDS,
     "resample(fps)\n--\n\n"
     "A new Bvh resampled to fps exactly as `posebatch resample --fps N` does it (rotations by\n"
     "quaternion Catmull-Rom, positions by vec3 Catmull-Rom, floor((F-1) T fps) + 1 frames,\n"
     "source Euler angles carried for the writer), so write() gives the CLI's bytes."},
    {"resample_write", (PyCFunction)(void (*)(void))Bvh_resample_write,
     METH_FASTCALL | METH_KEYWORDS,
     "resample_write(fps, path, *, euler='source', loop=False, threads=1)\n--\n\n"
     "resample(fps).write(path, euler=euler) without the resampled clip in memory (the\n"
     "`posebatch resample` job: frames resampled, converted and written a block at a time;\n"
     "the same bytes). loop: as `resample --loop` (cyclic, the root's travel kept). threads:\n"
     "frames formatted on that many threads (source or principal angles). Returns the\n"
     "number of frames written. Raises OSError or posebatch.BvhError (nothing replaced)."},
    {"to_gltf", (PyCFunction)(void (*)(void))pbpy_bvh_to_gltf, METH_NOARGS,
     "to_gltf()\n--\n\n"
     "A posebatch.Gltf of this clip as `posebatch convert IN.bvh OUT.glb` makes it: one node\n"
     "per joint, a skin of every node (rest-pose inverse bind matrices: importers see an\n"
     "armature), one LINEAR animation at the frame times, the BVH layout kept in extras."},
    {"with_motion", (PyCFunction)(void (*)(void))Bvh_with_motion, METH_FASTCALL | METH_KEYWORDS,
     "with_motion(rotations, positions=None, frame_time=None, *, order='wxyz')\n--\n\n"
     "A new Bvh with this skeleton and the given motion: rotations (F, J, 4), positions\n"
     "(F, J, 3) (default: the OFFSETs), frame_time (default: this clip's)."},
    {"motion", (PyCFunction)(void (*)(void))Bvh_motion, METH_FASTCALL | METH_KEYWORDS,
     "motion(*, order='wxyz')\n--\n\n(rotations (F, J, 4), positions (F, J, 3)) float32 copies."},
    {"global_positions", FC(Bvh_global_positions), FK,
     "global_positions(*, three=False)\n--\n\n"
     "Model-space (global) joint positions (F, J, 3) float32 (pb_pose_local_to_model). A\n"
     "position channel replaces the OFFSET (the root is at its channels); three=True adds it\n"
     "to the OFFSET as three.js's BVHLoader reads BVH files (every joint shifted by the root\n"
     "OFFSET; not meant for clips made from glTF, whose OFFSETs are rest translations)."},
    {"global_rotations", FC(Bvh_global_rotations), FK,
     "global_rotations(*, order='wxyz')\n--\n\n"
     "Model-space (global) joint rotations (F, J, 4) float32 (pb_pose_local_to_model)."},
    /* skeleton_ops.c */
    {"mirror", FC(pbpy_bvh_mirror), FK,
     "mirror(plane='yz', pairs=None)\n--\n\nA new Bvh mirrored as `posebatch mirror` does it."},
    {"root_motion", FC(pbpy_bvh_root_motion), FK,
     "root_motion(joint=None, up='y', components='ground,heading', *, order='wxyz')\n--\n\n"
     "(in-place Bvh, root_positions (F, 3), root_rotations (F, 4)) as `posebatch root-motion`."},
    {"apply_root_motion", FC(pbpy_bvh_apply_root_motion), FK,
     "apply_root_motion(root_positions, root_rotations, joint=None, up='y',\n"
     "                  components='ground,heading', *, order='wxyz')\n--\n\n"
     "A new Bvh with the root track put back (the inverse of root_motion)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Bvh_getset[] = {
    {"num_frames", (getter)Bvh_get_num_frames, NULL, "number of frames", NULL},
    {"num_joints", (getter)Bvh_get_num_joints, NULL, "number of joints (End Sites excluded)", NULL},
    {"frame_time", (getter)Bvh_get_frame_time, NULL, "seconds per frame", NULL},
    {"fps", (getter)Bvh_get_fps, NULL, "frames per second (1 / frame_time)", NULL},
    {"rotations", (getter)Bvh_get_rotations, NULL,
     "(F, J, 4) float32 (w, x, y, z), read-only, made once (motion() gives writable copies)", NULL},
    {"positions", (getter)Bvh_get_positions, NULL,
     "(F, J, 3) float32, read-only, made once (OFFSET where a joint has no position channels)",
     NULL},
    {"joint_names", (getter)Bvh_get_joint_names, NULL, "list of joint names", NULL},
    {"parents", (getter)Bvh_get_parents, NULL, "parent index per joint (None for a ROOT)", NULL},
    {"offsets", (getter)Bvh_get_offsets, NULL, "(J, 3) float32 OFFSETs", NULL},
    {"channels", (getter)Bvh_get_channels, NULL, "channel names per joint, in file order", NULL},
    {"warnings", (getter)Bvh_get_warnings, NULL, "the reader's warnings (list of str)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

int pbpy_ready_bvh_type(void)
{
    BvhType.tp_methods = Bvh_methods;
    BvhType.tp_getset = Bvh_getset;
    return PyType_Ready(&BvhType);
}
