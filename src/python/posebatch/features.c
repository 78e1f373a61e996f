/* posebatch.features, posebatch.humanml3d_features and posebatch.read_amass
 * (posebatch/dataset.h, posebatch/features.h): a clip's motion features as
 * a dict of numpy arrays (the arrays of the .npz `posebatch features`
 * writes, the same bytes when written with out=), HumanML3D's vectors from
 * joint positions, and AMASS clips as a Bvh. */
#define PY_SSIZE_T_CLEAN
#include "_posebatch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* a path argument as bytes (new reference), or NULL with the error set.
 * Not inlined: inlined, GCC 12 takes the bytes' address for that of the
 * local b (-Wdangling-pointer, an error under -Dwerror=true). */
static PyObject *path_bytes(PyObject *o) __attribute__((noinline));
static PyObject *path_bytes(PyObject *o)
{
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(o, &b))
        return NULL;
    return b;
}
static int is_pathlike(PyObject *o)
{
    return PyUnicode_Check(o) || PyBytes_Check(o) || PyObject_HasAttrString(o, "__fspath__");
}

/* rest joint positions: a path of an .npy or an array (J, 3); *rest
 * PyMem_Raw memory (the caller frees) */
static int get_rest(const char *fn, PyObject *o, float **rest, size_t *n)
{
    *rest = NULL;
    *n = 0;
    PyArrayObject *a = NULL;
    if (is_pathlike(o)) {
        PyObject *b = path_bytes(o);
        if (!b)
            return -1;
        pb_npz z;
        pb_io_error err;
        pb_io_code code;
        Py_BEGIN_ALLOW_THREADS code = pb_npy_read_file(PyBytes_AS_STRING(b), &z, &err);
        Py_END_ALLOW_THREADS if (io_path_done(code, &err, b)) return -1;
        const pb_npy_array *r = &z.arrays[0];
        if (r->ndim != 2 || r->shape[1] != 3 ||
            (r->dtype != PB_NPY_F32 && r->dtype != PB_NPY_F64)) {
            pb_npz_free(&z);
            PyErr_Format(PyExc_ValueError, "%s(): rest must be a (joints, 3) float array", fn);
            return -1;
        }
        *n = r->shape[0];
        *rest = PyMem_RawMalloc(*n * 3 * sizeof **rest + 1);
        for (size_t i = 0; *rest && i < *n * 3; i++)
            (*rest)[i] = r->dtype == PB_NPY_F32 ? ((const float *)r->data)[i]
                                                : (float)((const double *)r->data)[i];
        pb_npz_free(&z);
    } else {
        a = get_f32(fn, "rest", o, 3, 2);
        if (!a)
            return -1;
        if (PyArray_NDIM(a) != 2) {
            shape_error(fn, "rest", a, "it must be (joints, 3)", NULL);
            Py_DECREF(a);
            return -1;
        }
        *n = (size_t)PyArray_DIM(a, 0);
        *rest = PyMem_RawMalloc(*n * 3 * sizeof **rest + 1);
        if (*rest)
            memcpy(*rest, F32(a), *n * 3 * sizeof **rest);
        Py_DECREF(a);
    }
    if (!*rest) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* an AMASS clip read into r->b (the GIL released); 0, or -1 with the error */
static int amass_into(const char *fn, PyObject *path, PyObject *rest_o, BvhObject *r)
{
    float *rest;
    size_t nr;
    if (get_rest(fn, rest_o, &rest, &nr))
        return -1;
    PyObject *b = path_bytes(path);
    if (!b) {
        PyMem_RawFree(rest);
        return -1;
    }
    pb_npz z;
    pb_io_error err;
    pb_io_code code;
    Py_BEGIN_ALLOW_THREADS code = pb_npz_read_file(PyBytes_AS_STRING(b), &z, &err);
    if (code == PB_IO_OK) {
        code = pb_amass_to_bvh(&z, rest, nr, &r->b, &err);
        pb_npz_free(&z);
    }
    Py_END_ALLOW_THREADS PyMem_RawFree(rest);
    return io_path_done(code, &err, b);
}

PyObject *pbpy_read_amass(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    (void)self;
    const char *fn = "read_amass";
    static const char *names[] = {"path", "rest"};
    PyObject *o[2];
    if (parse_args(fn, args, nargs, kwnames, names, 2, 2, 2, o))
        return NULL;
    BvhObject *r = bvh_new();
    if (!r)
        return NULL;
    if (amass_into(fn, o[0], o[1], r)) {
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

/* a first look at a file: an .npz (zip) archive */
static int is_zip(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0; /* a FIFO is not read here: the format table judges it */
    FILE *f = fopen(path, "rb");
    unsigned char h[4] = {0};
    size_t got = f ? fread(h, 1, 4, f) : 0;
    if (f)
        fclose(f);
    return got == 4 && memcmp(h, "PK\x03\x04", 4) == 0;
}

/* the clip argument: a Bvh (new reference to it), or a file read as the
 * CLI reads it (AMASS with rest) */
static BvhObject *clip_arg(const char *fn, PyObject *o, PyObject *rest)
{
    if (PyObject_TypeCheck(o, &BvhType)) {
        Py_INCREF(o);
        return (BvhObject *)o;
    }
    if (!is_pathlike(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'clip' must be a posebatch.Bvh or a path",
                     fn);
        return NULL;
    }
    PyObject *b = path_bytes(o);
    if (!b)
        return NULL;
    BvhObject *r = bvh_new();
    if (!r) {
        Py_DECREF(b);
        return NULL;
    }
    const char *path = PyBytes_AS_STRING(b);
    int zip;
    Py_BEGIN_ALLOW_THREADS zip = is_zip(path);
    Py_END_ALLOW_THREADS if (zip)
    {
        int rc = -1;
        if (!rest || rest == Py_None)
            PyErr_Format(PyExc_ValueError,
                         "%s(): %s is an .npz (AMASS): give its rest joint positions, rest=", fn,
                         path);
        else
            rc = amass_into(fn, o, rest, r);
        Py_DECREF(b);
        if (rc) {
            Py_DECREF(r);
            return NULL;
        }
        return r;
    }
    pb_io_error err;
    pb_io_code code;
    Py_BEGIN_ALLOW_THREADS code = pb_io_read_clip(path, NULL, &r->b, &err);
    Py_END_ALLOW_THREADS if (io_path_done(code, &err, b))
    {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* one array read or built by the library as a numpy array (a copy) */
static PyObject *to_numpy(const pb_npy_array *a)
{
    npy_intp dims[PB_NPY_MAX_DIMS];
    size_t count = 1;
    for (int d = 0; d < a->ndim; d++) {
        dims[d] = (npy_intp)a->shape[d];
        count *= a->shape[d];
    }
    if (a->dtype == PB_NPY_STR) {
        PyObject *np = PyImport_ImportModule("numpy");
        if (!np)
            return NULL;
        const char *const *s = a->data;
        PyObject *v;
        if (a->ndim == 0) {
            v = PyUnicode_DecodeUTF8(s[0], (Py_ssize_t)strlen(s[0]), "replace");
        } else {
            v = PyList_New((Py_ssize_t)count);
            for (size_t i = 0; v && i < count; i++) {
                PyObject *u = PyUnicode_DecodeUTF8(s[i], (Py_ssize_t)strlen(s[i]), "replace");
                if (!u)
                    Py_CLEAR(v);
                else
                    PyList_SET_ITEM(v, (Py_ssize_t)i, u);
            }
        }
        PyObject *r = v ? PyObject_CallMethod(np, "array", "O", v) : NULL;
        Py_XDECREF(v);
        Py_DECREF(np);
        return r;
    }
    static const int types[5] = {NPY_FLOAT32, NPY_FLOAT64, NPY_INT32, NPY_INT64, NPY_UINT8};
    if (a->dtype > PB_NPY_U8)
        Py_RETURN_NONE;
    PyArrayObject *r = (PyArrayObject *)PyArray_SimpleNew(a->ndim, dims, types[a->dtype]);
    if (r && count)
        memcpy(PyArray_DATA(r), a->data, (size_t)PyArray_NBYTES(r));
    return (PyObject *)r;
}

static int opt_axis(const char *fn, PyObject *o, pb_axis *up)
{
    static const char *const names[] = {"x", "y", "z"};
    if (!o || o == Py_None)
        return 0;
    int i = str_index(o, names, 3);
    if (i < 0) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'up' must be 'x', 'y' or 'z', got %R", fn,
                     o);
        return -1;
    }
    *up = (pb_axis)i;
    return 0;
}
static int opt_num(const char *fn, const char *name, PyObject *o, double *v)
{
    if (!o || o == Py_None)
        return 0;
    if (opt_double(fn, name, o, v))
        return -1;
    if (!(*v >= 0) || !isfinite(*v)) {
        PyErr_Format(PyExc_ValueError, "%s(): argument '%s' must be finite and >= 0", fn, name);
        return -1;
    }
    return 0;
}

PyObject *pbpy_features(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    const char *fn = "features";
    static const char *names[] = {"clip",           "out",
                                  "layout",         "fps",
                                  "mirror",         "up",
                                  "scale",          "root",
                                  "feet",           "contact_speed",
                                  "contact_height", "map",
                                  "target",         "feet_threshold",
                                  "rest",           "source"};
    PyObject *o[16];
    if (parse_args(fn, args, nargs, kwnames, names, 16, 2, 1, o))
        return NULL;
    pb_feature_file_opts fo = PB_FEATURE_FILE_OPTS_DEFAULT;
    static const char *const layouts[] = {"posebatch", "humanml3d"};
    if (o[2] && o[2] != Py_None) {
        int l = str_index(o[2], layouts, 2);
        if (l < 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s(): argument 'layout' must be 'posebatch' or 'humanml3d', got %R", fn,
                         o[2]);
            return NULL;
        }
        fo.layout = (pb_feature_layout)l;
    }
    double scale = 1.0;
    if (opt_num(fn, "fps", o[3], &fo.fps) || opt_bool(fn, "mirror", o[4], &fo.mirror) ||
        opt_axis(fn, o[5], &fo.up) || opt_num(fn, "scale", o[6], &scale) ||
        opt_num(fn, "contact_speed", o[9], &fo.contact_speed) ||
        opt_num(fn, "contact_height", o[10], &fo.contact_height) ||
        opt_num(fn, "feet_threshold", o[13], &fo.feet_threshold))
        return NULL;
    if (o[6] && o[6] != Py_None && scale == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'scale' must be > 0", fn);
        return NULL;
    }
    fo.scale = scale;
    if (o[7] && o[7] != Py_None && !(fo.root = utf8_arg(fn, "root", o[7])))
        return NULL;
    if (o[15] && o[15] != Py_None && !(fo.source = utf8_arg(fn, "source", o[15])))
        return NULL;
    PyObject *feet = NULL, *outb = NULL, *ret = NULL, *srcb = NULL;
    const char **fnames = NULL;
    pb_retarget_map map;
    int parsed = 0;
    PyObject *keep = NULL;
    const char **mnames = NULL;
    PyArrayObject *target = NULL;
    BvhObject *clip = NULL;
    pb_npz z;
    memset(&z, 0, sizeof z);
    memset(&map, 0, sizeof map);
    if (o[8] && o[8] != Py_None) {
        feet = PySequence_Fast(o[8], "features(): argument 'feet' must be a sequence of names");
        if (!feet)
            goto done;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(feet);
        fnames = PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof *fnames);
        if (!fnames) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            if (!(fnames[i] = utf8_arg(fn, "feet", PySequence_Fast_GET_ITEM(feet, i))))
                goto done;
        fo.feet = fnames;
        fo.num_feet = (size_t)n;
    }
    if (pbpy_get_map(fn, o[11], &map, &parsed, &keep, &mnames))
        goto done;
    if (o[11] && o[11] != Py_None)
        fo.map = &map;
    if (o[12] && o[12] != Py_None) {
        target = get_f32(fn, "target", o[12], 3, 2);
        if (!target)
            goto done;
        if (PyArray_NDIM(target) != 2 || PyArray_DIM(target, 0) < PB_HUMANML3D_JOINTS) {
            shape_error(fn, "target", target, "it must be (22, 3)", NULL);
            goto done;
        }
        fo.target = F32(target);
    }
    if (o[1] && o[1] != Py_None && !(outb = path_bytes(o[1])))
        goto done;
    clip = clip_arg(fn, o[0], o[14]);
    if (!clip)
        goto done;
    if (!o[15] && !PyObject_TypeCheck(o[0], &BvhType)) {
        /* a path: its base name, as the CLI records it */
        srcb = path_bytes(o[0]);
        if (!srcb)
            goto done;
        const char *p = PyBytes_AS_STRING(srcb), *slash = strrchr(p, '/');
        fo.source = slash ? slash + 1 : p;
    }
    pb_io_error err;
    pb_io_code code;
    Py_BEGIN_ALLOW_THREADS code = pb_bvh_features(&clip->b, &fo, &z, &err);
    if (code == PB_IO_OK && outb)
        code = pb_npz_write_file(PyBytes_AS_STRING(outb), z.arrays, z.count, &err);
    Py_END_ALLOW_THREADS if (code != PB_IO_OK)
    {
        bvh_raise(&err, NULL);
        goto done;
    }
    ret = PyDict_New();
    for (size_t i = 0; ret && i < z.count; i++) {
        PyObject *v = to_numpy(&z.arrays[i]);
        if (!v || PyDict_SetItemString(ret, z.arrays[i].name, v))
            Py_CLEAR(ret);
        Py_XDECREF(v);
    }
done:
    pb_npz_free(&z);
    Py_XDECREF(clip);
    Py_XDECREF(target);
    Py_XDECREF(outb);
    Py_XDECREF(srcb);
    pbpy_put_map(&map, parsed, keep, mnames);
    PyMem_RawFree(fnames);
    Py_XDECREF(feet);
    return ret;
}

PyObject *pbpy_humanml3d_features(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    (void)self;
    const char *fn = "humanml3d_features";
    static const char *names[] = {"joints", "target", "feet_threshold"};
    PyObject *o[3];
    if (parse_args(fn, args, nargs, kwnames, names, 3, 3, 1, o))
        return NULL;
    double thr = 0.002;
    if (opt_num(fn, "feet_threshold", o[2], &thr))
        return NULL;
    PyArrayObject *j = get_f32(fn, "joints", o[0], 3, 3), *t = NULL, *out = NULL;
    if (!j)
        return NULL;
    if (PyArray_NDIM(j) != 3 || PyArray_DIM(j, 1) != PB_HUMANML3D_JOINTS) {
        shape_error(fn, "joints", j, "it must be (frames, 22, 3)", NULL);
        goto fail;
    }
    if (o[1] && o[1] != Py_None) {
        t = get_f32(fn, "target", o[1], 3, 2);
        if (!t)
            goto fail;
        if (PyArray_NDIM(t) != 2 || PyArray_DIM(t, 0) != PB_HUMANML3D_JOINTS) {
            shape_error(fn, "target", t, "it must be (22, 3)", NULL);
            goto fail;
        }
    }
    const size_t F = (size_t)PyArray_DIM(j, 0);
    if (F < 2) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'joints' needs 2 frames or more", fn);
        goto fail;
    }
    npy_intp dims[2] = {(npy_intp)(F - 1), PB_HUMANML3D_DIM};
    out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_FLOAT32);
    if (!out)
        goto fail;
    pb_status st;
    Py_BEGIN_ALLOW_THREADS st =
        pb_humanml3d_features(F, F32(j), t ? F32(t) : NULL, (float)thr, F32(out));
    Py_END_ALLOW_THREADS if (st != PB_OK)
    {
        raise_status(fn, st);
        goto fail;
    }
    Py_DECREF(j);
    Py_XDECREF(t);
    return (PyObject *)out;
fail:
    Py_XDECREF(j);
    Py_XDECREF(t);
    Py_XDECREF(out);
    return NULL;
}
