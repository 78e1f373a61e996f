/* Rotation representations from Python (posebatch/rotrep.h): quaternions
 * (..., 4), matrices (..., 3, 3), continuous 6D (..., 6) and rotation
 * vectors (..., 3), each to each, over any leading shape: one table of the
 * twelve conversions and one caller that runs the batch in chunks through
 * the C functions (via the quaternion where there is no direct one). */
#define PY_SSIZE_T_CLEAN
#include "_posebatch.h"

#include <string.h>

#include <posebatch.h>

#define RCHUNK 1024 /* elements per chunk: a multiple of every lane count */

/* the representations: q quaternion, m matrix, 6 the 6D, v rotation vector */
static int rep_dim(char k) { return k == 'q' ? 4 : k == 'm' ? 9 : k == '6' ? 6 : 3; }

typedef struct rspec {
    const char *name;
    char from, to;
    const char *doc;
} rspec;

#define RDOC_TAIL                                                                                  \
    "Any leading shape; float32 used as is, other real dtypes converted; C-contiguous.\n"          \
    "order: 'wxyz' (default) or 'xyzw' for quaternions. Accuracy: posebatch/rotrep.h.\n"
static const rspec rspecs[] = {
    {"quat_to_matrix", 'q', 'm',
     "quat_to_matrix(q, *, order='wxyz')\n--\n\n"
     "Rotation matrices (..., 3, 3) of quaternions (..., 4) (pb_quat_to_mat3): the matrix of\n"
     "q/|q|, acting on column vectors (R @ v rotates v as q v q*); zero q gives the "
     "identity.\n" RDOC_TAIL},
    {"matrix_to_quat", 'm', 'q',
     "matrix_to_quat(m, *, order='wxyz')\n--\n\n"
     "Unit quaternions (..., 4), w >= 0, of rotation matrices (..., 3, 3) (pb_mat3_to_quat,\n"
     "Shepperd's method: exact near 180 degrees).\n" RDOC_TAIL},
    {"quat_to_rot6d", 'q', '6',
     "quat_to_rot6d(q, *, order='wxyz')\n--\n\n"
     "Continuous 6D (Zhou et al. 2019) of quaternions: the matrix's first two columns,\n"
     "(..., 6) = (R[..., :, 0], R[..., :, 1]) concatenated (pb_quat_to_rot6d).\n" RDOC_TAIL},
    {"rot6d_to_quat", '6', 'q',
     "rot6d_to_quat(r6, *, order='wxyz')\n--\n\n"
     "Unit quaternions (w >= 0) of 6D rotations (..., 6) by Gram-Schmidt "
     "(pb_rot6d_to_quat).\n" RDOC_TAIL},
    {"matrix_to_rot6d", 'm', '6',
     "matrix_to_rot6d(m)\n--\n\n"
     "The 6D of matrices (..., 3, 3): their first two columns, (..., 6) (a copy).\n" RDOC_TAIL},
    {"rot6d_to_matrix", '6', 'm',
     "rot6d_to_matrix(r6)\n--\n\n"
     "Rotation matrices (..., 3, 3) of 6D rotations by Gram-Schmidt (pb_rot6d_to_mat3):\n"
     "column 0 = a/|a|, column 1 = b - (column 0 . b) column 0 normalised, column 2 their\n"
     "cross product (a, b the halves).\n" RDOC_TAIL},
    {"quat_to_axis_angle", 'q', 'v',
     "quat_to_axis_angle(q, *, order='wxyz')\n--\n\n"
     "Rotation vectors (..., 3): angle in [0, pi] times the unit axis "
     "(pb_quat_to_rotvec).\n" RDOC_TAIL},
    {"axis_angle_to_quat", 'v', 'q',
     "axis_angle_to_quat(v, *, order='wxyz')\n--\n\n"
     "Unit quaternions of rotation vectors (..., 3), any length (pb_quat_from_scaled_angle_axis)"
     ".\n" RDOC_TAIL},
    {"matrix_to_axis_angle", 'm', 'v',
     "matrix_to_axis_angle(m)\n--\n\n"
     "Rotation vectors (..., 3), angle in [0, pi], of rotation matrices (via the "
     "quaternion).\n" RDOC_TAIL},
    {"axis_angle_to_matrix", 'v', 'm',
     "axis_angle_to_matrix(v)\n--\n\n"
     "Rotation matrices (..., 3, 3) of rotation vectors (via the quaternion).\n" RDOC_TAIL},
    {"rot6d_to_axis_angle", '6', 'v',
     "rot6d_to_axis_angle(r6)\n--\n\n"
     "Rotation vectors (..., 3), angle in [0, pi], of 6D rotations (via the "
     "quaternion).\n" RDOC_TAIL},
    {"axis_angle_to_rot6d", 'v', '6',
     "axis_angle_to_rot6d(v)\n--\n\n"
     "6D rotations (..., 6) of rotation vectors (via the quaternion).\n" RDOC_TAIL},
};
#define NRSPECS (sizeof rspecs / sizeof rspecs[0])

/* (n, d) interleaved <-> d component arrays of n (quaternions in `order`) */
static void split(const float *a, size_t n, char k, int xyzw, float *p)
{
    const int d = rep_dim(k);
    if (k == 'q') {
        q_split(a, n, xyzw, p, p + n, p + 2 * n, p + 3 * n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < d; c++)
            p[(size_t)c * n + i] = a[i * (size_t)d + (size_t)c];
}
static void join(float *a, size_t n, char k, int xyzw, const float *p)
{
    const int d = rep_dim(k);
    if (k == 'q') {
        q_join(a, n, xyzw, p, p + n, p + 2 * n, p + 3 * n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < d; c++)
            a[i * (size_t)d + (size_t)c] = p[(size_t)c * n + i];
}
static pb_mat3s mat_at(float *p, size_t n)
{
    pb_mat3s m;
    for (int k = 0; k < 9; k++)
        m.m[k] = p + (size_t)k * n;
    return m;
}
static pb_cmat3s cmat_at(const float *p, size_t n)
{
    pb_cmat3s m;
    for (int k = 0; k < 9; k++)
        m.m[k] = p + (size_t)k * n;
    return m;
}
static pb_rot6ds r6_at(float *p, size_t n)
{
    pb_rot6ds r;
    for (int k = 0; k < 6; k++)
        r.c[k] = p + (size_t)k * n;
    return r;
}
static pb_crot6ds cr6_at(const float *p, size_t n)
{
    pb_crot6ds r;
    for (int k = 0; k < 6; k++)
        r.c[k] = p + (size_t)k * n;
    return r;
}

/* m elements from the component arrays at in (kind from) to those at out
 * (kind to), through the quaternion at qb where no function goes directly */
static pb_status convert(const rspec *s, size_t m, const float *in, float *qb, float *out)
{
    pb_status st = PB_OK;
    const float *q = in;
    if (s->from == 'm' && s->to == '6') {
        static const int cols[6] = {0, 3, 6, 1, 4, 7};
        for (int k = 0; k < 6; k++)
            memcpy(out + (size_t)k * m, in + (size_t)cols[k] * m, m * sizeof(float));
        return PB_OK;
    }
    if (s->from == '6' && s->to == 'm')
        return pb_rot6d_to_mat3(m, cr6_at(in, m), mat_at(out, m));
    if (s->from != 'q') {
        pb_quats t = q_at(qb, m);
        if (s->from == 'm')
            st = pb_mat3_to_quat(m, cmat_at(in, m), t);
        else if (s->from == '6')
            st = pb_rot6d_to_quat(m, cr6_at(in, m), t);
        else
            st = pb_quat_from_scaled_angle_axis(m, cv_at(in, m), t);
        q = qb;
    }
    if (st != PB_OK)
        return st;
    if (s->to == 'm')
        return pb_quat_to_mat3(m, cq_at(q, m), mat_at(out, m));
    if (s->to == '6')
        return pb_quat_to_rot6d(m, cq_at(q, m), r6_at(out, m));
    if (s->to == 'v')
        return pb_quat_to_rotvec(m, cq_at(q, m), v_at(out, m));
    memcpy(out, q, 4 * m * sizeof(float)); /* to 'q' */
    return PB_OK;
}

static PyObject *rcall(const rspec *s, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    const char *fn = s->name;
    static const char *const names[] = {"x", "order"};
    PyObject *o[2];
    if (parse_args(fn, args, nargs, kwnames, names, 2, 1, 1, o))
        return NULL;
    int xyzw = 0;
    if (opt_order(fn, o[1], &xyzw))
        return NULL;
    const int mat_in = s->from == 'm';
    PyArrayObject *in = get_f32(fn, "x", o[0], mat_in ? 3 : rep_dim(s->from), mat_in ? 2 : 1);
    if (!in)
        return NULL;
    if (mat_in && PyArray_DIM(in, PyArray_NDIM(in) - 2) != 3) {
        shape_error(fn, "x", in, "it must be (..., 3, 3)", NULL);
        Py_DECREF(in);
        return NULL;
    }
    /* the output: the batch shape, then the target's axes */
    npy_intp dims[NPY_MAXDIMS];
    int nd = 0, lead = PyArray_NDIM(in) - (mat_in ? 2 : 1);
    for (int i = 0; i < lead; i++)
        dims[nd++] = PyArray_DIM(in, i);
    if (s->to == 'm') {
        if (nd + 2 > NPY_MAXDIMS) {
            PyErr_Format(PyExc_ValueError, "%s(): argument 'x' has too many axes", fn);
            Py_DECREF(in);
            return NULL;
        }
        dims[nd++] = 3;
        dims[nd++] = 3;
    } else {
        dims[nd++] = rep_dim(s->to);
    }
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(nd, dims, NPY_FLOAT32);
    if (!out) {
        Py_DECREF(in);
        return NULL;
    }
    const size_t din = (size_t)rep_dim(s->from), dout = (size_t)rep_dim(s->to);
    const size_t n = (size_t)PyArray_SIZE(in) / din;
    if (n > PB_MAX_COUNT) {
        Py_DECREF(in);
        Py_DECREF(out);
        return raise_status(fn, PB_ERR_SIZE);
    }
    const size_t chunk = n < RCHUNK ? n : RCHUNK;
    float *buf = PyMem_RawMalloc(((din + 4 + dout) * chunk + 1) * sizeof(float));
    if (!buf) {
        Py_DECREF(in);
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    pb_status st = PB_OK;
    Py_BEGIN_ALLOW_THREADS for (size_t off = 0; off < n && st == PB_OK; off += chunk)
    {
        const size_t m = n - off < chunk ? n - off : chunk;
        float *pi = buf, *pq = buf + din * m, *po = pq + 4 * m;
        split(F32(in) + din * off, m, s->from, xyzw, pi);
        st = convert(s, m, pi, pq, po);
        if (st == PB_OK)
            join(F32(out) + dout * off, m, s->to, xyzw, po);
    }
    Py_END_ALLOW_THREADS PyMem_RawFree(buf);
    Py_DECREF(in);
    if (st != PB_OK) {
        Py_DECREF(out);
        return raise_status(fn, st);
    }
    return (PyObject *)out;
}

/* One module-level function per table entry. */
#define RW(i)                                                                                      \
    static PyObject *rw_##i(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k)            \
    {                                                                                              \
        (void)m;                                                                                   \
        return rcall(&rspecs[i], a, n, k);                                                         \
    }
typedef PyObject *(*rw_fn)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);
/* clang-format off */
RW(0) RW(1) RW(2) RW(3) RW(4) RW(5) RW(6) RW(7) RW(8) RW(9) RW(10) RW(11)
static const rw_fn rw_fns[] = {rw_0, rw_1, rw_2, rw_3, rw_4, rw_5, rw_6, rw_7, rw_8, rw_9, rw_10,
                               rw_11};
/* clang-format on */
_Static_assert(sizeof rw_fns / sizeof rw_fns[0] == NRSPECS, "one wrapper per conversion");
static PyMethodDef rdefs[NRSPECS + 1];

int pbpy_add_rotrep(PyObject *m)
{
    for (size_t i = 0; i < NRSPECS; i++) {
        rdefs[i].ml_name = rspecs[i].name;
        rdefs[i].ml_meth = FC(rw_fns[i]);
        rdefs[i].ml_flags = FK;
        rdefs[i].ml_doc = rspecs[i].doc;
    }
    return PyModule_AddFunctions(m, rdefs);
}
