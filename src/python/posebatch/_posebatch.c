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
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define PBPY_MAIN /* this file imports numpy's C API (import_array) */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <posebatch.h>
#include <posebatch/io.h>

#include "_posebatch.h" /* numpy's arrayobject.h too */

PyObject *BvhError;

/* ------------------------------------------------------------------------ */
/* Argument helpers                                                         */
/* ------------------------------------------------------------------------ */

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
            int found = -1;
            for (int i = 0; i < count; i++)
                if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0) {
                    found = i;
                    break;
                }
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
    *xyzw = 0;
    if (!o)
        return 0;
    if (PyUnicode_Check(o)) {
        if (PyUnicode_CompareWithASCIIString(o, "wxyz") == 0)
            return 0;
        if (PyUnicode_CompareWithASCIIString(o, "xyzw") == 0) {
            *xyzw = 1;
            return 0;
        }
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
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be an array of numbers, not %.100s",
                         fn, arg, Py_TYPE(o)->tp_name);
            return NULL;
        }
    }
    int t = PyArray_TYPE(a);
    if (!PyArray_IS_C_CONTIGUOUS(a)) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): argument '%s' must be C-contiguous (pass np.ascontiguousarray(...))", fn,
                     arg);
        Py_DECREF(a);
        return NULL;
    }
    if (t != NPY_FLOAT32) {
        if (!(PyTypeNum_ISFLOAT(t) || PyTypeNum_ISINTEGER(t))) {
            PyErr_Format(PyExc_TypeError,
                         "%s(): argument '%s' must be a real array (float32, or float64/int "
                         "converted), not dtype %R",
                         fn, arg, (PyObject *)PyArray_DESCR(a));
            Py_DECREF(a);
            return NULL;
        }
        PyArrayObject *c = (PyArrayObject *)PyArray_FromArray(
            a, PyArray_DescrFromType(NPY_FLOAT32), NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_FORCECAST);
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

PyObject *raise_status(const char *fn, pb_status st)
{
    if (st == PB_ERR_NOMEM)
        return PyErr_NoMemory();
    static const char *names[] = {"PB_OK", "PB_ERR_NULL", "PB_ERR_SIZE", "PB_ERR_ARG",
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

/* Scratch memory: small calls use the caller's stack buffer. */
#define STACK_FLOATS 2048
#define KCHUNK 1024 /* elements per chunk of the element-wise kernels */
static float *scratch(float *stack, size_t count)
{
    if (count <= STACK_FLOATS)
        return stack;
    if (count > ((size_t)-1) / sizeof(float) / 2)
        return NULL;
    return PyMem_RawMalloc(count * sizeof(float));
}
static void scratch_free(float *stack, float *p)
{
    if (p != stack)
        PyMem_RawFree(p);
}


/* ------------------------------------------------------------------------ */
/* Element-wise kernels (one table, one generic caller)                     */
/* ------------------------------------------------------------------------ */

typedef struct kc {
    size_t n;
    float x;
    unsigned flags;
    pb_cquats qi[4];
    pb_cvec3s vi[4];
    pb_quats qo[2];
    pb_vec3s vo[2];
    float *so;
} kc;

enum { OPT_VEL = 1, OPT_EXACT = 2, OPT_LONG = 4 };

typedef struct kspec {
    const char *name;
    pb_status (*fn)(kc *);
    const char *in;        /* input kinds: q (quaternion) or v (vec3) */
    const char *names[6];  /* input names */
    const char *xname;     /* the float parameter, or NULL */
    unsigned opts;
    const char *out;       /* output kinds: q, v or s (scalar) */
    int nout_req;          /* outputs always returned; the rest with velocity=True */
    const char *doc;
    /* filled at module init */
    const char *pnames[12];
    int np, npos;
} kspec;

#define K4Q c->qi[0], c->qi[1], c->qi[2], c->qi[3]
static pb_status k_catmull_rom(kc *c) { return pb_quat_catmull_rom(c->n, c->x, K4Q, c->flags, c->qo[0], c->vo[0]); }
static pb_status k_hermite(kc *c) { return pb_quat_hermite(c->n, c->x, c->qi[0], c->qi[1], c->vi[0], c->vi[1], c->flags, c->qo[0], c->vo[0]); }
static pb_status k_raw_cubic(kc *c) { return pb_quat_raw_cubic(c->n, c->x, K4Q, c->flags, c->qo[0], c->qo[1]); }
static pb_status k_slerp(kc *c) { return pb_quat_slerp(c->n, c->x, c->qi[0], c->qi[1], c->flags, c->qo[0]); }
static pb_status k_nlerp(kc *c) { return pb_quat_nlerp(c->n, c->x, c->qi[0], c->qi[1], c->flags, c->qo[0]); }
static pb_status k_v_hermite(kc *c) { return pb_vec3_hermite(c->n, c->x, c->vi[0], c->vi[1], c->vi[2], c->vi[3], c->vo[0], c->vo[1]); }
static pb_status k_v_catmull_rom(kc *c) { return pb_vec3_catmull_rom(c->n, c->x, c->vi[0], c->vi[1], c->vi[2], c->vi[3], c->vo[0], c->vo[1]); }
static pb_status k_s_hermite(kc *c) { return pb_scale_hermite(c->n, c->x, c->vi[0], c->vi[1], c->vi[2], c->vi[3], c->vo[0], c->vo[1]); }
static pb_status k_s_catmull_rom(kc *c) { return pb_scale_catmull_rom(c->n, c->x, c->vi[0], c->vi[1], c->vi[2], c->vi[3], c->vo[0], c->vo[1]); }
static pb_status k_mul(kc *c) { return pb_quat_mul(c->n, c->qi[0], c->qi[1], c->qo[0]); }
static pb_status k_mul_inv(kc *c) { return pb_quat_mul_inv(c->n, c->qi[0], c->qi[1], c->qo[0]); }
static pb_status k_inv_mul(kc *c) { return pb_quat_inv_mul(c->n, c->qi[0], c->qi[1], c->qo[0]); }
static pb_status k_abs(kc *c) { return pb_quat_abs(c->n, c->qi[0], c->qo[0]); }
static pb_status k_normalize(kc *c) { return pb_quat_normalize(c->n, c->qi[0], c->qo[0]); }
static pb_status k_log(kc *c) { return pb_quat_log(c->n, c->qi[0], c->vo[0]); }
static pb_status k_exp(kc *c) { return pb_quat_exp(c->n, c->vi[0], c->qo[0]); }
static pb_status k_to_saa(kc *c) { return pb_quat_to_scaled_angle_axis(c->n, c->qi[0], c->vo[0]); }
static pb_status k_from_saa(kc *c) { return pb_quat_from_scaled_angle_axis(c->n, c->vi[0], c->qo[0]); }
static pb_status k_d2av(kc *c) { return pb_quat_delta_to_angular_velocity(c->n, c->qi[0], c->qi[1], c->vo[0]); }
static pb_status k_sha(kc *c) { return pb_quat_sin_half_angle(c->n, c->qi[0], c->qi[1], c->so); }
static pb_status k_tangent(kc *c) { return pb_quat_tangent_offset(c->n, c->qi[0], c->qi[1], c->qi[2], c->qo[0]); }
static pb_status k_bezier(kc *c) { return pb_quat_bezier_controls(c->n, c->qi[0], c->qi[1], c->qi[2], c->qo[0], c->qo[1]); }
static pb_status k_decast(kc *c) { return pb_quat_de_casteljau(c->n, c->x, K4Q, c->qo[0]); }
static pb_status k_shoemake(kc *c) { return pb_quat_shoemake_controls(c->n, c->qi[0], c->qi[1], c->qi[2], c->qo[0], c->qo[1]); }

#define ORDER_DOC "order: 'wxyz' (default) or 'xyzw', the component order of every quaternion in and out.\n"
#define ARRAYS_DOC                                                                                 \
    "Quaternion arguments are arrays of shape (..., 4), vec3 (..., 3), all with the same batch\n" \
    "shape; float32 is used as is, other real dtypes are converted; arrays must be C-contiguous.\n"

static kspec kspecs[] = {
    {"quat_catmull_rom", k_catmull_rom, "qqqq", {"r0", "r1", "r2", "r3"}, "x", OPT_VEL | OPT_EXACT, "qv", 1,
     "quat_catmull_rom(r0, r1, r2, r3, x, *, velocity=False, exact=False, order='wxyz')\n--\n\n"
     "Quaternion Catmull-Rom between r1 (x = 0) and r2 (x = 1) of a whole batch (pb_quat_catmull_rom):\n"
     "Hermite with tangents (d01 + d12)/2 and (d12 + d23)/2, dij = 2 log(abs(rj ri^-1)).\n"
     "Returns the rotations (..., 4), or (rotations, angular_velocity (..., 3)) with velocity=True:\n"
     "scaled angle-axis per unit x (divide by the frame time for rad/s); exact=True gives the\n"
     "exact angular velocity J_l(u) du/dx (PB_EXACT_VELOCITY).\n" ARRAYS_DOC ORDER_DOC},
    {"quat_hermite", k_hermite, "qqvv", {"r0", "r1", "v0", "v1"}, "x", OPT_VEL | OPT_EXACT, "qv", 1,
     "quat_hermite(r0, r1, v0, v1, x, *, velocity=False, exact=False, order='wxyz')\n--\n\n"
     "Quaternion Hermite (pb_quat_hermite): rot(0) = r0, rot(1) = +-r1, angular velocities v0, v1\n"
     "(..., 3, scaled angle-axis per unit x) at the ends. Returns rotations, or (rotations,\n"
     "angular_velocity) with velocity=True.\n" ARRAYS_DOC ORDER_DOC},
    {"quat_raw_cubic", k_raw_cubic, "qqqq", {"r0", "r1", "r2", "r3"}, "x", OPT_VEL | OPT_EXACT, "qq", 1,
     "quat_raw_cubic(r0, r1, r2, r3, x, *, velocity=False, exact=False, order='wxyz')\n--\n\n"
     "Raw 4D Catmull-Rom of quaternions as 4-vectors, renormalised (pb_quat_raw_cubic).\n"
     "velocity=True also returns the 4D velocity (..., 4) of the cubic (exact=True: of the\n"
     "normalised curve).\n" ARRAYS_DOC ORDER_DOC},
    {"quat_slerp", k_slerp, "qq", {"a", "b"}, "t", OPT_LONG, "q", 1,
     "quat_slerp(a, b, t, *, long_path=False, order='wxyz')\n--\n\n"
     "Spherical linear interpolation (pb_quat_slerp), shortest path unless long_path.\n" ARRAYS_DOC ORDER_DOC},
    {"quat_nlerp", k_nlerp, "qq", {"a", "b"}, "t", OPT_LONG, "q", 1,
     "quat_nlerp(a, b, t, *, long_path=False, order='wxyz')\n--\n\n"
     "Normalised linear interpolation (pb_quat_nlerp).\n" ARRAYS_DOC ORDER_DOC},
    {"vec3_hermite", k_v_hermite, "vvvv", {"p0", "p1", "v0", "v1"}, "x", OPT_VEL, "vv", 1,
     "vec3_hermite(p0, p1, v0, v1, x, *, velocity=False)\n--\n\n"
     "Cubic Hermite of vec3 (..., 3) (pb_vec3_hermite); velocity=True: (positions, velocity).\n"},
    {"vec3_catmull_rom", k_v_catmull_rom, "vvvv", {"p0", "p1", "p2", "p3"}, "x", OPT_VEL, "vv", 1,
     "vec3_catmull_rom(p0, p1, p2, p3, x, *, velocity=False)\n--\n\n"
     "Uniform Catmull-Rom of vec3 between p1 and p2 (pb_vec3_catmull_rom).\n"},
    {"scale_hermite", k_s_hermite, "vvvv", {"s0", "s1", "v0", "v1"}, "x", OPT_VEL, "vv", 1,
     "scale_hermite(s0, s1, v0, v1, x, *, velocity=False)\n--\n\n"
     "Log-space Hermite of positive scales (pb_scale_hermite); velocity: d ln(s)/dx.\n"},
    {"scale_catmull_rom", k_s_catmull_rom, "vvvv", {"s0", "s1", "s2", "s3"}, "x", OPT_VEL, "vv", 1,
     "scale_catmull_rom(s0, s1, s2, s3, x, *, velocity=False)\n--\n\n"
     "Log-space Catmull-Rom of positive scales (pb_scale_catmull_rom).\n"},
    {"quat_mul", k_mul, "qq", {"a", "b"}, NULL, 0, "q", 1,
     "quat_mul(a, b, *, order='wxyz')\n--\n\nHamilton product a b (pb_quat_mul).\n"},
    {"quat_mul_inv", k_mul_inv, "qq", {"a", "b"}, NULL, 0, "q", 1,
     "quat_mul_inv(a, b, *, order='wxyz')\n--\n\na b^-1 (pb_quat_mul_inv).\n"},
    {"quat_inv_mul", k_inv_mul, "qq", {"a", "b"}, NULL, 0, "q", 1,
     "quat_inv_mul(a, b, *, order='wxyz')\n--\n\na^-1 b (pb_quat_inv_mul).\n"},
    {"quat_abs", k_abs, "q", {"q"}, NULL, 0, "q", 1,
     "quat_abs(q, *, order='wxyz')\n--\n\nq with w >= 0 (pb_quat_abs).\n"},
    {"quat_normalize", k_normalize, "q", {"q"}, NULL, 0, "q", 1,
     "quat_normalize(q, *, order='wxyz')\n--\n\nq / |q|; zero gives the identity (pb_quat_normalize).\n"},
    {"quat_log", k_log, "q", {"q"}, NULL, 0, "v", 1,
     "quat_log(q, *, order='wxyz')\n--\n\nlog(q) = half-angle * axis, (..., 3) (pb_quat_log).\n"},
    {"quat_exp", k_exp, "v", {"v"}, NULL, 0, "q", 1,
     "quat_exp(v, *, order='wxyz')\n--\n\nexp(v) = (cos|v|, sin|v| v/|v|) (pb_quat_exp).\n"},
    {"quat_to_scaled_angle_axis", k_to_saa, "q", {"q"}, NULL, 0, "v", 1,
     "quat_to_scaled_angle_axis(q, *, order='wxyz')\n--\n\n2 log(q) (pb_quat_to_scaled_angle_axis).\n"},
    {"quat_from_scaled_angle_axis", k_from_saa, "v", {"v"}, NULL, 0, "q", 1,
     "quat_from_scaled_angle_axis(v, *, order='wxyz')\n--\n\nexp(v / 2) (pb_quat_from_scaled_angle_axis).\n"},
    {"quat_delta_to_angular_velocity", k_d2av, "qq", {"ref", "delta"}, NULL, 0, "v", 1,
     "quat_delta_to_angular_velocity(ref, delta, *, order='wxyz')\n--\n\n"
     "2 vec(delta conj(ref)) (pb_quat_delta_to_angular_velocity).\n"},
    {"quat_sin_half_angle", k_sha, "qq", {"a", "b"}, NULL, 0, "s", 1,
     "quat_sin_half_angle(a, b, *, order='wxyz')\n--\n\n"
     "sin(half the angle between a and b), shape (...) (pb_quat_sin_half_angle).\n"},
    {"quat_tangent_offset", k_tangent, "qqq", {"prev", "cur", "next"}, NULL, 0, "q", 1,
     "quat_tangent_offset(prev, cur, next, *, order='wxyz')\n--\n\n"
     "exp((ln abs(cur prev^-1) + ln abs(next cur^-1)) / 2) (pb_quat_tangent_offset).\n"},
    {"quat_bezier_controls", k_bezier, "qqq", {"prev", "cur", "next"}, NULL, 0, "qq", 2,
     "quat_bezier_controls(prev, cur, next, *, order='wxyz')\n--\n\n"
     "(before, after) Bezier controls around cur (pb_quat_bezier_controls).\n"},
    {"quat_de_casteljau", k_decast, "qqqq", {"q0", "q1", "q2", "q3"}, "t", 0, "q", 1,
     "quat_de_casteljau(q0, q1, q2, q3, t, *, order='wxyz')\n--\n\n"
     "Cubic Bezier-like curve by De Casteljau with slerp (pb_quat_de_casteljau).\n"},
    {"quat_shoemake_controls", k_shoemake, "qqq", {"prev", "cur", "next"}, NULL, 0, "qq", 2,
     "quat_shoemake_controls(prev, cur, next, *, order='wxyz')\n--\n\n"
     "Shoemake's (b, a) controls: incoming and outgoing (pb_quat_shoemake_controls).\n"},
};
#define NKSPECS (sizeof kspecs / sizeof kspecs[0])
static PyMethodDef kdefs[NKSPECS];

static int kind_dim(char k) { return k == 'q' ? 4 : k == 'v' ? 3 : 1; }

static PyObject *kcall(kspec *s, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    const char *fn = s->name;
    PyObject *o[12];
    int nin = (int)strlen(s->in), nout = (int)strlen(s->out);
    if (parse_args(fn, args, nargs, kwnames, s->pnames, s->np, s->npos, s->npos, o))
        return NULL;
    int vel = 0, exact = 0, lng = 0, xyzw = 0;
    float x = 0.0f;
    int k = s->npos;
    for (int i = k; i < s->np; i++) {
        const char *nm = s->pnames[i];
        if (!strcmp(nm, "velocity") && opt_bool(fn, nm, o[i], &vel))
            return NULL;
        if (!strcmp(nm, "exact") && opt_bool(fn, nm, o[i], &exact))
            return NULL;
        if (!strcmp(nm, "long_path") && opt_bool(fn, nm, o[i], &lng))
            return NULL;
        if (!strcmp(nm, "order") && opt_order(fn, o[i], &xyzw))
            return NULL;
    }
    if (s->xname) {
        double d;
        if (opt_double(fn, s->xname, o[nin], &d))
            return NULL;
        x = (float)d;
    }
    PyArrayObject *in[6] = {NULL}, *out[2] = {NULL};
    PyObject *ret = NULL;
    size_t comps = 0, n = 0;
    for (int i = 0; i < nin; i++) {
        in[i] = get_f32(fn, s->names[i], o[i], kind_dim(s->in[i]), 1);
        if (!in[i])
            goto done;
        if (i > 0 && !same_lead(in[0], 0, in[i], 0)) {
            PyErr_Format(PyExc_ValueError, "%s(): argument '%s' and argument '%s' must have the same batch shape (all but the last dimension)", fn, s->names[i], s->names[0]);
            goto done;
        }
        comps += (size_t)kind_dim(s->in[i]);
    }
    n = (size_t)(PyArray_SIZE(in[0]) / kind_dim(s->in[0]));
    int nret = vel ? nout : s->nout_req;
    for (int i = 0; i < nret; i++) {
        out[i] = new_like(in[0], 0, 1, s->out[i] == 's' ? 0 : kind_dim(s->out[i]));
        if (!out[i])
            goto done;
        if (s->out[i] != 's')
            comps += (size_t)kind_dim(s->out[i]);
    }
    if (n > PB_MAX_COUNT) {
        raise_status(fn, PB_ERR_SIZE);
        goto done;
    }
    /* The kernels are element-wise: the batch goes through in chunks of
     * KCHUNK elements (a multiple of every lane count, so each element sees
     * the same code as in one call over the whole batch), split into a small
     * cache-resident structure-of-arrays buffer. */
    float stackbuf[STACK_FLOATS];
    size_t chunk = n < KCHUNK ? n : KCHUNK;
    float *buf = scratch(stackbuf, comps * chunk);
    if (!buf) {
        PyErr_NoMemory();
        goto done;
    }
    kc c;
    memset(&c, 0, sizeof c);
    c.x = x;
    c.flags = (exact ? PB_EXACT_VELOCITY : 0u) | (lng ? PB_LONG_PATH : 0u);
    pb_status st = PB_OK;
    Py_BEGIN_ALLOW_THREADS
    for (size_t off = 0; off < n && st == PB_OK; off += chunk) {
        size_t m = n - off < chunk ? n - off : chunk;
        c.n = m;
        float *p = buf;
        int nq = 0, nv = 0;
        for (int i = 0; i < nin; i++) {
            if (s->in[i] == 'q') {
                q_split(F32(in[i]) + 4 * off, m, xyzw, p, p + m, p + 2 * m, p + 3 * m);
                c.qi[nq++] = cq_at(p, m);
                p += 4 * m;
            } else {
                v_split(F32(in[i]) + 3 * off, m, p, p + m, p + 2 * m);
                c.vi[nv++] = cv_at(p, m);
                p += 3 * m;
            }
        }
        float *outp = p;
        nq = nv = 0;
        for (int i = 0; i < nout; i++) {
            if (i >= nret) { /* not asked: NULL batch */
                if (s->out[i] == 'q')
                    nq++;
                else if (s->out[i] == 'v')
                    nv++;
                continue;
            }
            if (s->out[i] == 'q') {
                c.qo[nq++] = q_at(p, m);
                p += 4 * m;
            } else if (s->out[i] == 'v') {
                c.vo[nv++] = v_at(p, m);
                p += 3 * m;
            } else {
                c.so = F32(out[i]) + off;
            }
        }
        st = s->fn(&c);
        if (st == PB_OK) {
            p = outp;
            for (int i = 0; i < nret; i++) {
                if (s->out[i] == 'q') {
                    q_join(F32(out[i]) + 4 * off, m, xyzw, p, p + m, p + 2 * m, p + 3 * m);
                    p += 4 * m;
                } else if (s->out[i] == 'v') {
                    v_join(F32(out[i]) + 3 * off, m, p, p + m, p + 2 * m);
                    p += 3 * m;
                }
            }
        }
    }
    Py_END_ALLOW_THREADS
    scratch_free(stackbuf, buf);
    if (st != PB_OK) {
        raise_status(fn, st);
        goto done;
    }
    if (nret == 1) {
        ret = (PyObject *)out[0];
        out[0] = NULL;
    } else {
        ret = PyTuple_Pack(2, out[0], out[1]);
    }
done:
    for (int i = 0; i < 6; i++)
        Py_XDECREF(in[i]);
    Py_XDECREF(out[0]);
    Py_XDECREF(out[1]);
    return ret;
}

/* One module-level function per table entry (help() then shows a plain function). */
#define KW(i) static PyObject *kw_##i(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k) { (void)m; return kcall(&kspecs[i], a, n, k); }
KW(0) KW(1) KW(2) KW(3) KW(4) KW(5) KW(6) KW(7) KW(8) KW(9) KW(10) KW(11) KW(12) KW(13) KW(14) KW(15) KW(16) KW(17) KW(18) KW(19) KW(20) KW(21) KW(22) KW(23)
typedef PyObject *(*kw_fn)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);
static const kw_fn kw_fns[] = {kw_0, kw_1, kw_2, kw_3, kw_4, kw_5, kw_6, kw_7, kw_8, kw_9, kw_10, kw_11, kw_12, kw_13, kw_14, kw_15, kw_16, kw_17, kw_18, kw_19, kw_20, kw_21, kw_22, kw_23};

/* ------------------------------------------------------------------------ */
/* Averages, tracks                                                         */
/* ------------------------------------------------------------------------ */

static const char *avg_methods[] = {"raw", "log", "raw_ref", "log_ref", "accurate", "basic"};

static PyObject *py_quat_average(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    (void)self;
    const char *fn = "quat_average";
    static const char *names[] = {"samples", "weights", "method", "ref", "order"};
    PyObject *o[5];
    if (parse_args(fn, args, nargs, kwnames, names, 5, 4, 2, o))
        return NULL;
    int xyzw, method = 0;
    if (opt_order(fn, o[4], &xyzw))
        return NULL;
    if (o[2]) {
        method = -1;
        for (int i = 0; i < 6; i++)
            if (PyUnicode_Check(o[2]) && PyUnicode_CompareWithASCIIString(o[2], avg_methods[i]) == 0)
                method = i;
        if (method < 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s(): argument 'method' must be one of 'raw', 'log', 'raw_ref', "
                         "'log_ref', 'accurate', 'basic', got %R", fn, o[2]);
            return NULL;
        }
    }
    int need_ref = method == 2 || method == 3;
    PyArrayObject *smp = NULL, *wt = NULL, *ref = NULL, *out = NULL;
    PyObject *ret = NULL;
    float *buf = NULL;
    pb_cquats *sq = NULL;
    smp = get_f32(fn, "samples", o[0], 4, 2);
    if (!smp)
        goto done;
    wt = get_f32(fn, "weights", o[1], 0, 1);
    if (!wt)
        goto done;
    size_t k = (size_t)PyArray_DIM(smp, 0);
    if (PyArray_NDIM(wt) != 1 || (size_t)PyArray_DIM(wt, 0) != k) {
        shape_error(fn, "weights", wt, "it must be (K,) with K = samples.shape[0]", smp);
        goto done;
    }
    if (k == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'samples' holds no sample (K == 0)", fn);
        goto done;
    }
    if (need_ref) {
        if (!o[3] || o[3] == Py_None) {
            PyErr_Format(PyExc_ValueError, "%s(): method '%s' needs argument 'ref'", fn,
                         avg_methods[method]);
            goto done;
        }
        ref = get_f32(fn, "ref", o[3], 4, 1);
        if (!ref)
            goto done;
        if (!same_lead(smp, 1, ref, 0)) {
            shape_error(fn, "ref", ref, "it must be samples.shape[1:]", smp);
            goto done;
        }
    }
    out = new_like(smp, 1, 1, 4);
    if (!out)
        goto done;
    size_t n = (size_t)(PyArray_SIZE(out) / 4);
    if (n > PB_MAX_COUNT || k > PB_MAX_COUNT) {
        raise_status(fn, PB_ERR_SIZE);
        goto done;
    }
    buf = PyMem_RawMalloc(((k + 2) * 4 * n + 1) * sizeof(float));
    sq = PyMem_RawMalloc(k * sizeof *sq);
    if (!buf || !sq) {
        PyErr_NoMemory();
        goto done;
    }
    pb_status st;
    const float *w = F32(wt);
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < k; i++) {
        float *p = buf + 4 * n * i;
        q_split(F32(smp) + 4 * n * i, n, xyzw, p, p + n, p + 2 * n, p + 3 * n);
        sq[i] = cq_at(p, n);
    }
    float *rp = buf + 4 * n * k, *op = rp + 4 * n;
    if (ref)
        q_split(F32(ref), n, xyzw, rp, rp + n, rp + 2 * n, rp + 3 * n);
    pb_quats oq = q_at(op, n);
    switch (method) {
    case 0: st = pb_quat_average_raw(n, k, sq, w, oq); break;
    case 1: st = pb_quat_average_log(n, k, sq, w, oq); break;
    case 2: st = pb_quat_average_raw_ref(n, k, cq_at(rp, n), sq, w, oq); break;
    case 3: st = pb_quat_average_log_ref(n, k, cq_at(rp, n), sq, w, oq); break;
    case 4: st = pb_quat_average_accurate(n, k, sq, w, oq); break;
    default: st = pb_quat_average_basic(n, k, sq, w, oq); break;
    }
    if (st == PB_OK)
        q_join(F32(out), n, xyzw, op, op + n, op + 2 * n, op + 3 * n);
    Py_END_ALLOW_THREADS
    if (st != PB_OK) {
        raise_status(fn, st);
        goto done;
    }
    ret = (PyObject *)out;
    out = NULL;
done:
    PyMem_RawFree(buf);
    PyMem_RawFree(sq);
    Py_XDECREF(smp);
    Py_XDECREF(wt);
    Py_XDECREF(ref);
    Py_XDECREF(out);
    return ret;
}

/* Frame-major tracks (F, ..., 4): unroll -> (F, ..., 4), reference_extract ->
 * (..., 4), spline_eval(t) -> (..., 4). */
static PyObject *track_call(const char *fn, int which, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    static const char *n_unroll[] = {"track", "order"};
    static const char *n_ref[] = {"poses", "order"};
    static const char *n_eval[] = {"keys", "t", "closed", "order"};
    PyObject *o[4];
    int xyzw = 0, closed = 0;
    double t = 0.0;
    if (which == 0 ? parse_args(fn, args, nargs, kwnames, n_unroll, 2, 1, 1, o)
        : which == 1 ? parse_args(fn, args, nargs, kwnames, n_ref, 2, 1, 1, o)
                     : parse_args(fn, args, nargs, kwnames, n_eval, 4, 2, 2, o))
        return NULL;
    if (opt_order(fn, which == 2 ? o[3] : o[1], &xyzw))
        return NULL;
    if (which == 2 && (opt_double(fn, "t", o[1], &t) || opt_bool(fn, "closed", o[2], &closed)))
        return NULL;
    const char *argname = which == 0 ? "track" : which == 1 ? "poses" : "keys";
    PyArrayObject *a = get_f32(fn, argname, o[0], 4, 2), *out = NULL;
    if (!a)
        return NULL;
    size_t f = (size_t)PyArray_DIM(a, 0);
    out = which == 0 ? new_like(a, 0, 1, 4) : new_like(a, 1, 1, 4);
    if (!out) {
        Py_DECREF(a);
        return NULL;
    }
    size_t total = (size_t)(PyArray_SIZE(a) / 4);
    size_t n = f ? total / f : 0;
    float *buf = PyMem_RawMalloc((4 * total + 4 * n + 1) * sizeof(float));
    if (!buf) {
        Py_DECREF(a);
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    pb_status st;
    Py_BEGIN_ALLOW_THREADS
    q_split(F32(a), total, xyzw, buf, buf + total, buf + 2 * total, buf + 3 * total);
    float *op = which == 0 ? buf : buf + 4 * total;
    size_t on = which == 0 ? total : n;
    if (which == 0)
        st = pb_quat_unroll(f, n, cq_at(buf, total), q_at(buf, total));
    else if (which == 1)
        st = pb_quat_reference_extract(f, n, cq_at(buf, total), q_at(op, n));
    else
        st = pb_quat_spline_eval(f, n, cq_at(buf, total), (float)t, closed ? PB_CLOSED : 0u,
                                 q_at(op, n));
    if (st == PB_OK)
        q_join(F32(out), on, xyzw, op, op + on, op + 2 * on, op + 3 * on);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(buf);
    Py_DECREF(a);
    if (st != PB_OK) {
        Py_DECREF(out);
        return raise_status(fn, st);
    }
    return (PyObject *)out;
}

static PyObject *py_unroll(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return track_call("quat_unroll", 0, a, n, k);
}
static PyObject *py_reference_extract(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return track_call("quat_reference_extract", 1, a, n, k);
}
static PyObject *py_spline_eval(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return track_call("quat_spline_eval", 2, a, n, k);
}

/* ------------------------------------------------------------------------ */
/* Clips                                                                    */
/* ------------------------------------------------------------------------ */

static PyTypeObject ClipType, PoseType;
static PyStructSequence_Field clip_fields[] = {
    {"rotations", "(F, J, 4) float32"},
    {"positions", "(F, J, 3) float32 or None"},
    {"scales", "(F, J, 3) float32 or None"},
    {"frame_time", "seconds between frames (None for sample())"},
    {"angular_velocity", "(F, J, 3) rad/s or None (velocity=False)"},
    {"linear_velocity", "(F, J, 3) units/s or None"},
    {"scale_velocity", "(F, J, 3) d ln(scale)/dt or None"},
    {NULL, NULL}};
static PyStructSequence_Desc clip_desc = {
    "posebatch.Clip", "A resampled or sampled clip (a named tuple).", clip_fields, 7};
static PyStructSequence_Field pose_fields[] = {
    {"rotations", "(J, 4) float32"},
    {"positions", "(J, 3) float32 or None"},
    {"scales", "(J, 3) float32 or None"},
    {NULL, NULL}};
static PyStructSequence_Desc pose_desc = {"posebatch.Pose", "A blended pose (a named tuple).",
                                          pose_fields, 3};

PyObject *pose_new(PyObject *rot, PyObject *pos, PyObject *scl)
{
    PyObject *ret = PyStructSequence_New(&PoseType);
    if (!ret)
        return NULL;
    PyObject *items[3] = {rot, pos, scl};
    for (int i = 0; i < 3; i++) {
        PyObject *v = items[i] ? items[i] : Py_None;
        Py_INCREF(v);
        PyStructSequence_SET_ITEM(ret, i, v);
    }
    return ret;
}

/* sample (times != NULL) or resample (fps). */
static PyObject *clip_call(const char *fn, int resample, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    static const char *names[] = {"rotations", "frame_time", "fps_or_times", "positions",
                                  "scales",    "loop",       "velocity",     "exact",
                                  "order"};
    const char *pn[9];
    memcpy(pn, names, sizeof pn);
    pn[2] = resample ? "fps" : "times";
    PyObject *o[9];
    if (parse_args(fn, args, nargs, kwnames, pn, 9, 5, 3, o))
        return NULL;
    int loop = 0, vel = 0, exact = 0, xyzw = 0;
    double frame_time, fps = 0.0;
    if (opt_double(fn, "frame_time", o[1], &frame_time) || opt_bool(fn, "loop", o[5], &loop) ||
        opt_bool(fn, "velocity", o[6], &vel) || opt_bool(fn, "exact", o[7], &exact) ||
        opt_order(fn, o[8], &xyzw))
        return NULL;
    if (resample && opt_double(fn, "fps", o[2], &fps))
        return NULL;
    unsigned flags = (loop ? PB_CLIP_LOOP : 0u) | (exact ? PB_EXACT_VELOCITY : 0u);
    PyArrayObject *rot = NULL, *pos = NULL, *scl = NULL, *times = NULL;
    PyArrayObject *orot = NULL, *opos = NULL, *oscl = NULL, *vr = NULL, *vp = NULL, *vs = NULL;
    PyObject *ret = NULL;
    float *buf = NULL;
    rot = get_f32(fn, "rotations", o[0], 4, 2);
    if (!rot)
        goto done;
    if (PyArray_NDIM(rot) != 3) {
        shape_error(fn, "rotations", rot, "it must be (frames, joints, 4)", NULL);
        goto done;
    }
    if (o[3] && o[3] != Py_None) {
        if (!(pos = get_f32(fn, "positions", o[3], 3, 2)))
            goto done;
        if (!same_lead(rot, 0, pos, 0)) {
            shape_error(fn, "positions", pos, "it must be (frames, joints, 3) like rotations", rot);
            goto done;
        }
    }
    if (o[4] && o[4] != Py_None) {
        if (!(scl = get_f32(fn, "scales", o[4], 3, 2)))
            goto done;
        if (!same_lead(rot, 0, scl, 0)) {
            shape_error(fn, "scales", scl, "it must be (frames, joints, 3) like rotations", rot);
            goto done;
        }
    }
    size_t f = (size_t)PyArray_DIM(rot, 0), j = (size_t)PyArray_DIM(rot, 1), fj = f * j;
    if (f == 0 || j == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'rotations' must hold at least one frame and one joint", fn);
        goto done;
    }
    if (!(frame_time > 0.0 && isfinite(frame_time))) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'frame_time' must be finite and > 0, got %R", fn, o[1]);
        goto done;
    }
    pb_clip src;
    memset(&src, 0, sizeof src);
    src.frames = f;
    src.joints = j;
    src.frame_time = frame_time;
    size_t fo;
    if (resample) {
        if (!(fps > 0.0 && isfinite(fps))) {
            PyErr_Format(PyExc_ValueError, "%s(): argument 'fps' must be finite and > 0, got %R", fn, o[2]);
            goto done;
        }
        fo = pb_clip_resample_frames(&src, fps, flags);
        if (fo == 0) {
            PyErr_Format(PyExc_ValueError, "%s(): cannot resample %zu frames of %g s to %g fps (too many frames)", fn, f, frame_time, fps);
            goto done;
        }
    } else {
        PyArrayObject *tt = (PyArrayObject *)PyArray_FromAny(
            o[2], PyArray_DescrFromType(NPY_FLOAT64), 1, 1,
            NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
        if (!tt) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s(): argument 'times' must be a 1-D array of real numbers (seconds)", fn);
            goto done;
        }
        times = tt;
        fo = (size_t)PyArray_DIM(times, 0);
        if (fo == 0) {
            PyErr_Format(PyExc_ValueError, "%s(): argument 'times' is empty", fn);
            goto done;
        }
    }
    size_t m = fo * j;
    if (fj > PB_MAX_COUNT || m > PB_MAX_COUNT || m / j != fo) {
        raise_status(fn, PB_ERR_SIZE);
        goto done;
    }
    npy_intp d4[3] = {(npy_intp)fo, (npy_intp)j, 4}, d3[3] = {(npy_intp)fo, (npy_intp)j, 3};
    orot = (PyArrayObject *)PyArray_SimpleNew(3, d4, NPY_FLOAT32);
    if (!orot)
        goto done;
    if (pos && !(opos = (PyArrayObject *)PyArray_SimpleNew(3, d3, NPY_FLOAT32)))
        goto done;
    if (scl && !(oscl = (PyArrayObject *)PyArray_SimpleNew(3, d3, NPY_FLOAT32)))
        goto done;
    if (vel) {
        if (!(vr = (PyArrayObject *)PyArray_SimpleNew(3, d3, NPY_FLOAT32)))
            goto done;
        if (pos && !(vp = (PyArrayObject *)PyArray_SimpleNew(3, d3, NPY_FLOAT32)))
            goto done;
        if (scl && !(vs = (PyArrayObject *)PyArray_SimpleNew(3, d3, NPY_FLOAT32)))
            goto done;
    }
    /* exactly the tracks asked for: the layout below skips absent ones */
    size_t tr = 1 + (pos ? 1 : 0) + (scl ? 1 : 0);
    size_t need = 4 * fj + 3 * (tr - 1) * fj + 4 * m + 3 * (tr - 1) * m + (vel ? 3 * tr * m : 0) + 1;
    buf = PyMem_RawMalloc(need * sizeof(float));
    if (!buf) {
        PyErr_NoMemory();
        goto done;
    }
    pb_status st;
    double out_ft = 0.0;
    Py_BEGIN_ALLOW_THREADS
    float *p = buf;
    src.rot = q_at(p, fj);
    q_split(F32(rot), fj, xyzw, p, p + fj, p + 2 * fj, p + 3 * fj);
    p += 4 * fj;
    if (pos) {
        src.pos = v_at(p, fj);
        v_split(F32(pos), fj, p, p + fj, p + 2 * fj);
        p += 3 * fj;
    }
    if (scl) {
        src.scale = v_at(p, fj);
        v_split(F32(scl), fj, p, p + fj, p + 2 * fj);
        p += 3 * fj;
    }
    pb_clip dst;
    memset(&dst, 0, sizeof dst);
    dst.frames = fo;
    dst.joints = j;
    dst.rot = q_at(p, m);
    p += 4 * m;
    if (pos) {
        dst.pos = v_at(p, m);
        p += 3 * m;
    }
    if (scl) {
        dst.scale = v_at(p, m);
        p += 3 * m;
    }
    pb_clip_vel cv;
    memset(&cv, 0, sizeof cv);
    if (vel) {
        cv.rot = v_at(p, m);
        p += 3 * m;
        if (pos) {
            cv.pos = v_at(p, m);
            p += 3 * m;
        }
        if (scl)
            cv.scale = v_at(p, m);
    }
    st = resample ? pb_clip_resample(&src, fps, flags, &dst, vel ? &cv : NULL)
                  : pb_clip_sample(&src, fo, (const double *)PyArray_DATA(times), flags, &dst,
                                   vel ? &cv : NULL);
    if (st == PB_OK) {
        out_ft = dst.frame_time;
        q_join(F32(orot), m, xyzw, dst.rot.w, dst.rot.x, dst.rot.y, dst.rot.z);
        if (pos)
            v_join(F32(opos), m, dst.pos.x, dst.pos.y, dst.pos.z);
        if (scl)
            v_join(F32(oscl), m, dst.scale.x, dst.scale.y, dst.scale.z);
        if (vel) {
            v_join(F32(vr), m, cv.rot.x, cv.rot.y, cv.rot.z);
            if (pos)
                v_join(F32(vp), m, cv.pos.x, cv.pos.y, cv.pos.z);
            if (scl)
                v_join(F32(vs), m, cv.scale.x, cv.scale.y, cv.scale.z);
        }
    }
    Py_END_ALLOW_THREADS
    if (st != PB_OK) {
        raise_status(fn, st);
        goto done;
    }
    ret = PyStructSequence_New(&ClipType);
    if (!ret)
        goto done;
    PyObject *items[7] = {(PyObject *)orot, (PyObject *)opos, (PyObject *)oscl, NULL,
                          (PyObject *)vr,   (PyObject *)vp,   (PyObject *)vs};
    for (int i = 0; i < 7; i++) {
        PyObject *v = items[i];
        if (i == 3)
            v = resample ? PyFloat_FromDouble(out_ft) : (Py_INCREF(Py_None), Py_None);
        else if (!v)
            v = (Py_INCREF(Py_None), Py_None);
        else
            Py_INCREF(v);
        if (!v) {
            Py_CLEAR(ret);
            goto done;
        }
        PyStructSequence_SET_ITEM(ret, i, v);
    }
done:
    PyMem_RawFree(buf);
    Py_XDECREF(rot);
    Py_XDECREF(pos);
    Py_XDECREF(scl);
    Py_XDECREF(times);
    Py_XDECREF(orot);
    Py_XDECREF(opos);
    Py_XDECREF(oscl);
    Py_XDECREF(vr);
    Py_XDECREF(vp);
    Py_XDECREF(vs);
    return ret;
}

static PyObject *py_resample(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return clip_call("resample", 1, a, n, k);
}
static PyObject *py_sample(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return clip_call("sample", 0, a, n, k);
}

static PyObject *py_resample_frames(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames)
{
    (void)self;
    const char *fn = "resample_frames";
    static const char *names[] = {"frames", "frame_time", "fps", "loop"};
    PyObject *o[4];
    if (parse_args(fn, args, nargs, kwnames, names, 4, 3, 3, o))
        return NULL;
    double ft, fps;
    int loop = 0;
    Py_ssize_t f = PyNumber_AsSsize_t(o[0], PyExc_OverflowError);
    if (f == -1 && PyErr_Occurred())
        return NULL;
    if (opt_double(fn, "frame_time", o[1], &ft) || opt_double(fn, "fps", o[2], &fps) ||
        opt_bool(fn, "loop", o[3], &loop))
        return NULL;
    if (f < 1) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'frames' must be >= 1", fn);
        return NULL;
    }
    pb_clip c;
    memset(&c, 0, sizeof c);
    c.frames = (size_t)f;
    c.joints = 1;
    c.frame_time = ft;
    size_t r = pb_clip_resample_frames(&c, fps, loop ? PB_CLIP_LOOP : 0u);
    if (r == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): invalid frame_time or fps, or too many frames", fn);
        return NULL;
    }
    return PyLong_FromSize_t(r);
}

/* ------------------------------------------------------------------------ */
/* Backends                                                                 */
/* ------------------------------------------------------------------------ */

static int backend_arg(const char *fn, PyObject *o, pb_backend *b)
{
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'name' must be a str", fn);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(o);
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
     "'accurate'. The reference defaults to identity rotations (the rest pose); positions\n"
     "blend as ref + sum w (p - ref) with ref_positions, else sum w p. Returns a posebatch.Pose\n"
     "named tuple (rotations, positions, scales)."},
    {"blend_layers", FC(py_blend_layers), FK, py_blend_layers_doc},
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
    {"read_gltf", FC(pbpy_read_gltf), FK,
     "read_gltf(path)\n--\n\n"
     "Reads a .glb or .gltf file (with .bin or data: buffers) with the library's reader (the\n"
     "CLI's): returns a posebatch.Gltf. Raises OSError or posebatch.BvhError, whose message\n"
     "names the JSON path of the problem."},
    {"parse_bvh", FC(py_parse_bvh), FK,
     "parse_bvh(text, *, strict=False)\n--\n\nReads a BVH text (str or bytes); see read_bvh."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "posebatch._posebatch",
    "posebatch C extension: the posebatch C API over numpy arrays.", -1, methods,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__posebatch(void);
PyMODINIT_FUNC PyInit__posebatch(void)
{
    import_array();
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    if (NKSPECS != sizeof kw_fns / sizeof kw_fns[0]) {
        PyErr_SetString(PyExc_SystemError, "posebatch: kernel table and wrappers disagree");
        return NULL;
    }
    for (size_t i = 0; i < NKSPECS; i++) {
        kspec *s = &kspecs[i];
        int nin = (int)strlen(s->in), np = 0;
        for (int k = 0; k < nin; k++)
            s->pnames[np++] = s->names[k];
        if (s->xname)
            s->pnames[np++] = s->xname;
        s->npos = np;
        if (s->opts & OPT_VEL)
            s->pnames[np++] = "velocity";
        if (s->opts & OPT_EXACT)
            s->pnames[np++] = "exact";
        if (s->opts & OPT_LONG)
            s->pnames[np++] = "long_path";
        if (strchr(s->in, 'q') || strchr(s->out, 'q'))
            s->pnames[np++] = "order";
        s->np = np;
        kdefs[i].ml_name = s->name;
        kdefs[i].ml_meth = FC(kw_fns[i]);
        kdefs[i].ml_flags = FK;
        kdefs[i].ml_doc = s->doc;
        PyObject *mn = PyModule_GetNameObject(m);
        PyObject *f = mn ? PyCFunction_NewEx(&kdefs[i], m, mn) : NULL;
        Py_XDECREF(mn);
        if (!f || PyModule_AddObject(m, s->name, f)) {
            Py_XDECREF(f);
            Py_DECREF(m);
            return NULL;
        }
    }
    if (PyStructSequence_InitType2(&ClipType, &clip_desc) ||
        PyStructSequence_InitType2(&PoseType, &pose_desc) || PyType_Ready(&BvhType) || PyType_Ready(&GltfType)) {
        Py_DECREF(m);
        return NULL;
    }
    BvhError = PyErr_NewExceptionWithDoc(
        "posebatch.BvhError",
        "A BVH file the reader refuses or the writer cannot write (a ValueError; .code: the\n"
        "kind, .line: the 1-based line or 0).",
        PyExc_ValueError, NULL);
    Py_INCREF(&ClipType);
    Py_INCREF(&PoseType);
    Py_INCREF(&BvhType);
    if (!BvhError || PyModule_AddObject(m, "Clip", (PyObject *)&ClipType) ||
        PyModule_AddObject(m, "Pose", (PyObject *)&PoseType) ||
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
