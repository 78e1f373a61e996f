/* The argument and array helpers every function of the extension uses:
 * FASTCALL argument parsing, a str's index in a table of names, optional
 * bool / real / order= arguments, arrays as C-contiguous float32, shape
 * checks and errors, pb_status as an exception, the split / join between
 * interleaved (..., 4) / (..., 3) arrays and the library's
 * structure-of-arrays batches, C strings and lists as Python objects, per
 * joint int lists (parents, mirror tables) and str arguments as C strings;
 * and numpy's C API, imported once (pbpy_import_numpy, called by the
 * module's init). */
#define PY_SSIZE_T_CLEAN
#define PBPY_MAIN /* this file holds numpy's C API table (pbpy_ARRAY_API) */
#include "_posebatch.h"

#include <posebatch.h>

#include <string.h>

int pbpy_import_numpy(void)
{
    import_array1(-1);
    return 0;
}

int str_index(PyObject *o, const char *const *names, int count)
{
    if (PyUnicode_Check(o))
        for (int i = 0; i < count; i++)
            if (PyUnicode_CompareWithASCIIString(o, names[i]) == 0)
                return i;
    return -1;
}

/* Parses FASTCALL arguments against names[0..count): the first npos may be
 * positional, the first nreq are required. out[i] is a borrowed reference or
 * NULL when not given. */
int parse_args(const char *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
               const char *const *names, int count, int npos, int nreq, PyObject **out)
{
    for (int i = 0; i < count; i++)
        out[i] = NULL;
    if (nargs > npos) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)", fn,
                     npos, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        out[i] = args[i];
    if (kwnames) {
        Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t k = 0; k < nk; k++) {
            PyObject *key = PyTuple_GET_ITEM(kwnames, k);
            int found = str_index(key, names, count);
            if (found < 0) {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fn,
                             key);
                return -1;
            }
            if (out[found]) {
                PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fn,
                             names[found]);
                return -1;
            }
            out[found] = args[nargs + k];
        }
    }
    for (int i = 0; i < nreq; i++)
        if (!out[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fn, names[i]);
            return -1;
        }
    return 0;
}

int opt_bool(const char *fn, const char *name, PyObject *o, int *v)
{
    if (!o)
        return 0;
    int r = PyObject_IsTrue(o);
    if (r < 0) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a bool", fn, name);
        return -1;
    }
    *v = r;
    return 0;
}

int opt_double(const char *fn, const char *name, PyObject *o, double *v)
{
    if (!o || o == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a real number", fn, name);
        return -1;
    }
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a real number, not %.100s", fn,
                     name, Py_TYPE(o)->tp_name);
        return -1;
    }
    *v = d;
    return 0;
}

/* order="wxyz" (0) or "xyzw" (1). */
int opt_order(const char *fn, PyObject *o, int *xyzw)
{
    static const char *const names[] = {"wxyz", "xyzw"};
    *xyzw = 0;
    if (!o)
        return 0;
    int i = str_index(o, names, 2);
    if (i >= 0) {
        *xyzw = i;
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "%s(): argument 'order' must be 'wxyz' or 'xyzw', got %R", fn,
                 o);
    return -1;
}

/* A new reference to a C-contiguous float32 array made from o; last > 0:
 * its last dimension must be `last`; min_ndim: at least that many dims. */
PyArrayObject *get_f32(const char *fn, const char *arg, PyObject *o, int last, int min_ndim)
{
    PyArrayObject *a;
    if (o == NULL || o == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be an array, not None", fn, arg);
        return NULL;
    }
    if (PyArray_Check(o)) {
        a = (PyArrayObject *)o;
        Py_INCREF(a);
    } else {
        a = (PyArrayObject *)PyArray_FromAny(o, NULL, 0, 0, 0, NULL);
        if (!a) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%s(): argument '%s' must be an array of numbers, not %.100s", fn, arg,
                         Py_TYPE(o)->tp_name);
            return NULL;
        }
    }
    int t = PyArray_TYPE(a);
    if (!PyArray_IS_C_CONTIGUOUS(a)) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): argument '%s' must be C-contiguous (pass np.ascontiguousarray(...))",
                     fn, arg);
        Py_DECREF(a);
        return NULL;
    }
    /* float32 in another byte order ('>f4' here) is converted like float64,
     * and a misaligned one (a view at an odd offset into a buffer) copied:
     * the kernels read native, aligned floats */
    if (t != NPY_FLOAT32 || !PyArray_ISNOTSWAPPED(a) || !PyArray_ISALIGNED(a)) {
        if (!(PyTypeNum_ISFLOAT(t) || PyTypeNum_ISINTEGER(t))) {
            PyErr_Format(PyExc_TypeError,
                         "%s(): argument '%s' must be a real array (float32, or float64/int "
                         "converted), not dtype %R",
                         fn, arg, (PyObject *)PyArray_DESCR(a));
            Py_DECREF(a);
            return NULL;
        }
        PyArrayObject *c = (PyArrayObject *)PyArray_FromArray(
            a, PyArray_DescrFromType(NPY_FLOAT32),
            NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST);
        Py_DECREF(a);
        if (!c)
            return NULL;
        a = c;
    }
    int nd = PyArray_NDIM(a);
    if (nd < (min_ndim > 1 ? min_ndim : 1) || (last > 0 && PyArray_DIM(a, nd - 1) != last)) {
        PyObject *shape = PyObject_GetAttrString((PyObject *)a, "shape");
        if (last > 0)
            PyErr_Format(PyExc_ValueError,
                         "%s(): argument '%s' must have shape (%s..., %d), got shape %R", fn, arg,
                         min_ndim > 1 ? "K, " : "", last, shape);
        else
            PyErr_Format(PyExc_ValueError, "%s(): argument '%s' has the wrong shape %R", fn, arg,
                         shape);
        Py_XDECREF(shape);
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* 1 if b's dims [bfrom, bnd-1) equal a's dims [afrom, and-1) (the batch
 * shape, last dimension excluded). */
int same_lead(PyArrayObject *a, int afrom, PyArrayObject *b, int bfrom)
{
    int na = PyArray_NDIM(a) - 1 - afrom, nb = PyArray_NDIM(b) - 1 - bfrom;
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (PyArray_DIM(a, afrom + i) != PyArray_DIM(b, bfrom + i))
            return 0;
    return 1;
}

int shape_error(const char *fn, const char *arg, PyArrayObject *a, const char *want,
                PyArrayObject *ref)
{
    PyObject *s = PyObject_GetAttrString((PyObject *)a, "shape");
    PyObject *r = ref ? PyObject_GetAttrString((PyObject *)ref, "shape") : NULL;
    if (r)
        PyErr_Format(PyExc_ValueError, "%s(): argument '%s' has shape %R; %s (%R)", fn, arg, s,
                     want, r);
    else
        PyErr_Format(PyExc_ValueError, "%s(): argument '%s' has shape %R; %s", fn, arg, s, want);
    Py_XDECREF(s);
    Py_XDECREF(r);
    return -1;
}

int opt_like(const char *fn, const char *arg, PyObject *o, int last, int min_ndim,
             PyArrayObject *ref, int ref_from, const char *want, PyArrayObject **out)
{
    *out = NULL;
    if (!o || o == Py_None)
        return 0;
    if (!(*out = get_f32(fn, arg, o, last, min_ndim)))
        return -1;
    if (!same_lead(ref, ref_from, *out, 0))
        return shape_error(fn, arg, *out, want, ref);
    return 0;
}

PyObject *raise_status(const char *fn, pb_status st)
{
    if (st == PB_ERR_NOMEM)
        return PyErr_NoMemory();
    static const char *names[] = {"PB_OK",        "PB_ERR_NULL",        "PB_ERR_SIZE", "PB_ERR_ARG",
                                  "PB_ERR_ALIAS", "PB_ERR_UNSUPPORTED", "PB_ERR_NOMEM"};
    PyErr_Format(PyExc_ValueError, "%s(): %s (%s)", fn, pb_status_str(st),
                 (unsigned)st < 7 ? names[st] : "?");
    return NULL;
}

/* New float32 array of shape lead-dims-of(a, from) + (last,) (last 0: none). */
PyArrayObject *new_like(PyArrayObject *a, int from, int drop_last, int last)
{
    npy_intp dims[NPY_MAXDIMS];
    int nd = 0;
    int end = PyArray_NDIM(a) - (drop_last ? 1 : 0);
    for (int i = from; i < end; i++)
        dims[nd++] = PyArray_DIM(a, i);
    if (last > 0)
        dims[nd++] = last;
    return (PyArrayObject *)PyArray_SimpleNew(nd, dims, NPY_FLOAT32);
}

/* Structure of arrays <-> interleaved. q: 4 component arrays w, x, y, z. */
void q_split(const float *a, size_t n, int xyzw, float *w, float *x, float *y, float *z)
{
    const int iw = xyzw ? 3 : 0, o = xyzw ? 0 : 1;
    for (size_t i = 0; i < n; i++) {
        const float *p = a + 4 * i;
        w[i] = p[iw];
        x[i] = p[o];
        y[i] = p[o + 1];
        z[i] = p[o + 2];
    }
}
void q_join(float *a, size_t n, int xyzw, const float *w, const float *x, const float *y,
            const float *z)
{
    const int iw = xyzw ? 3 : 0, o = xyzw ? 0 : 1;
    for (size_t i = 0; i < n; i++) {
        float *p = a + 4 * i;
        p[iw] = w[i];
        p[o] = x[i];
        p[o + 1] = y[i];
        p[o + 2] = z[i];
    }
}
void v_split(const float *a, size_t n, float *x, float *y, float *z)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = a[3 * i];
        y[i] = a[3 * i + 1];
        z[i] = a[3 * i + 2];
    }
}
void v_join(float *a, size_t n, const float *x, const float *y, const float *z)
{
    for (size_t i = 0; i < n; i++) {
        a[3 * i] = x[i];
        a[3 * i + 1] = y[i];
        a[3 * i + 2] = z[i];
    }
}

pb_cquats cq_at(const float *p, size_t n)
{
    pb_cquats q = {p, p + n, p + 2 * n, p + 3 * n};
    return q;
}
pb_quats q_at(float *p, size_t n)
{
    pb_quats q = {p, p + n, p + 2 * n, p + 3 * n};
    return q;
}
pb_cvec3s cv_at(const float *p, size_t n)
{
    pb_cvec3s v = {p, p + n, p + 2 * n};
    return v;
}
pb_vec3s v_at(float *p, size_t n)
{
    pb_vec3s v = {p, p + n, p + 2 * n};
    return v;
}

/* An optional non-negative index argument (None or absent: dflt). */
int opt_index(const char *fn, const char *name, PyObject *o, long dflt, long *v)
{
    *v = dflt;
    if (!o || o == Py_None)
        return 0;
    long x = PyLong_AsLong(o);
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be an int", fn, name);
        return -1;
    }
    if (x < 0) {
        PyErr_Format(PyExc_ValueError, "%s(): argument '%s' must be >= 0", fn, name);
        return -1;
    }
    *v = x;
    return 0;
}

PyObject *str_or_none(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

PyObject *list_of(size_t n, PyObject *(*item)(const void *ctx, size_t i), const void *ctx)
{
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        PyObject *v = item(ctx, i);
        if (!v) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, v);
    }
    return l;
}

pb_quats q_take(PyArrayObject *a, size_t n, int xyzw, float **p)
{
    pb_quats q = q_at(*p, n);
    q_split(F32(a), n, xyzw, q.w, q.x, q.y, q.z);
    *p += 4 * n;
    return q;
}
pb_vec3s v_take(PyArrayObject *a, size_t n, float **p)
{
    pb_vec3s v = v_at(*p, n);
    v_split(F32(a), n, v.x, v.y, v.z);
    *p += 3 * n;
    return v;
}

/* entry j of a kind list is v: 0, or -1 with ValueError */
static int joint_int_ok(const char *fn, const char *arg, size_t j, long long v, size_t n,
                        pbpy_ints kind)
{
    if (kind == PBPY_PARENTS && (v < -1 || v >= (long long)j)) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): %s[%zu] is %lld: a joint's parent must come before it "
                     "(-1 or None for a root, else 0 .. j-1)",
                     fn, arg, j, v);
        return -1;
    }
    if (kind == PBPY_JOINTS && (v < 0 || v >= (long long)n)) {
        PyErr_Format(PyExc_ValueError, "%s(): %s[%zu] is %lld: not a joint index (0 .. %zu)", fn,
                     arg, j, v, n - 1);
        return -1;
    }
    return 0;
}

/* item j of a sequence as an int (None: -1 for parents): 0, -1 with
 * TypeError / ValueError, or (plain set) 1 without reading an item that is
 * neither an int nor None (its __index__ is Python code). */
static int joint_int_item(const char *fn, const char *arg, size_t j, PyObject *it, size_t n,
                          pbpy_ints kind, int plain, long long *v)
{
    if (it == Py_None && kind == PBPY_PARENTS) {
        *v = -1;
        return 0;
    }
    PyObject *ix = it;
    if (PyLong_CheckExact(it))
        Py_INCREF(ix);
    else if (plain)
        return 1;
    else if (!(ix = PyNumber_Index(it))) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): %s[%zu] is %R, not an int%s", fn, arg, j, it,
                     kind == PBPY_PARENTS ? " (or None for a root)" : "");
        return -1;
    }
    int overflow;
    *v = PyLong_AsLongLongAndOverflow(ix, &overflow);
    Py_DECREF(ix);
    if (overflow || (*v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s(): %s[%zu] is %R: out of range", fn, arg, j, it);
        return -1;
    }
    return joint_int_ok(fn, arg, j, *v, n, kind);
}

/* ValueError when a list of len entries is not one per joint of n: -1, or 0 */
static int len_error(const char *fn, const char *arg, size_t len, size_t n)
{
    if (len == n)
        return 0;
    PyErr_Format(PyExc_ValueError,
                 "%s(): argument '%s' has %zu entries; the arrays have %zu joints (one entry per "
                 "joint)",
                 fn, arg, len, n);
    return -1;
}

/* p[0 .. n) from the list or tuple seq (joint_int_item's plain: 1 at the
 * first item that is neither an int nor None, nothing read past it); 0, or
 * -1 with the error set */
static int ints_of_seq(const char *fn, const char *arg, PyObject *seq, size_t n, pbpy_ints kind,
                       int plain, int32_t *p)
{
    size_t len = (size_t)PySequence_Fast_GET_SIZE(seq);
    if (len_error(fn, arg, len, n))
        return -1;
    for (size_t j = 0; j < n; j++) {
        long long v;
        int rc = joint_int_item(fn, arg, j, PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)j), n, kind,
                                plain, &v);
        if (rc)
            return rc;
        p[j] = (int32_t)v;
    }
    return 0;
}

/* p[0 .. n) from the 1-D integer array a; 0, or -1 with the error set */
static int ints_of_array(const char *fn, const char *arg, PyArrayObject *a, size_t n,
                         pbpy_ints kind, int32_t *p)
{
    if (PyArray_NDIM(a) != 1 || !PyTypeNum_ISINTEGER(PyArray_TYPE(a))) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): argument '%s' must be a 1-D integer array or a sequence of ints", fn,
                     arg);
        return -1;
    }
    size_t len = (size_t)PyArray_DIM(a, 0);
    if (len_error(fn, arg, len, n))
        return -1;
    /* native signed 32- or 64-bit ints are read where they are, others
     * through an int64 copy */
    int size = (int)PyArray_ITEMSIZE(a);
    PyArrayObject *c = NULL;
    if (!(PyTypeNum_ISSIGNED(PyArray_TYPE(a)) && (size == 4 || size == 8) && PyArray_ISALIGNED(a) &&
          PyArray_ISNOTSWAPPED(a))) {
        c = (PyArrayObject *)PyArray_FROMANY((PyObject *)a, NPY_INT64, 1, 1, NPY_ARRAY_CARRAY_RO);
        if (!c)
            return -1;
        a = c;
        size = 8;
    }
    const char *d = PyArray_BYTES(a);
    const npy_intp stride = PyArray_STRIDE(a, 0);
    int rc = 0;
    for (size_t j = 0; j < n && !rc; j++, d += stride) {
        long long v =
            size == 4 ? *(const int32_t *)(const void *)d : *(const int64_t *)(const void *)d;
        if (!(rc = joint_int_ok(fn, arg, j, v, n, kind)))
            p[j] = (int32_t)v;
    }
    Py_XDECREF(c);
    return rc;
}

int32_t *get_joint_ints(const char *fn, const char *arg, PyObject *o, size_t n, pbpy_ints kind)
{
    int32_t *p = PyMem_RawMalloc((n ? n : 1) * sizeof *p);
    if (!p) {
        PyErr_NoMemory();
        return NULL;
    }
    int rc = 1;
    if (PyArray_Check(o))
        rc = ints_of_array(fn, arg, (PyArrayObject *)o, n, kind, p);
    else if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) /* ints and None: read in place */
        rc = ints_of_seq(fn, arg, o, n, kind, 1, p);
    if (rc > 0) { /* anything else: a tuple copy first */
        PyObject *tup = PySequence_Tuple(o);
        if (!tup) {
            PyErr_Clear();
            PyErr_Format(
                PyExc_TypeError, "%s(): argument '%s' must be a sequence of ints%s, not %.100s", fn,
                arg, kind == PBPY_PARENTS ? " (None or -1 for a root)" : "", Py_TYPE(o)->tp_name);
            rc = -1;
        } else {
            rc = ints_of_seq(fn, arg, tup, n, kind, 0, p);
            Py_DECREF(tup);
        }
    }
    if (rc) {
        PyMem_RawFree(p);
        return NULL;
    }
    return p;
}

const char *utf8_arg(const char *fn, const char *what, PyObject *o)
{
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(o, &len);
    if (s && strlen(s) != (size_t)len) {
        PyErr_Format(PyExc_ValueError, "%s(): %s %R holds a NUL character", fn, what, o);
        return NULL;
    }
    return s;
}
