/* The element-wise kernels from Python: one table (kspecs) of the library's
 * quaternion / vec3 / scale kernels and one generic caller (kcall) that
 * checks the arguments and runs the batch in chunks; the averages
 * (quat_average) and the frame-major tracks (quat_unroll,
 * quat_reference_extract, quat_spline_eval). */
#define PY_SSIZE_T_CLEAN
#include "_posebatch.h"

#include <string.h>

#include <posebatch.h>

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
    const char *in;       /* input kinds: q (quaternion) or v (vec3) */
    const char *names[6]; /* input names */
    const char *xname;    /* the float parameter, or NULL */
    unsigned opts;
    const char *out; /* output kinds: q, v or s (scalar) */
    int nout_req;    /* outputs always returned; the rest with velocity=True */
    const char *doc;
    /* filled at module init */
    const char *pnames[12];
    int np, npos;
} kspec;

#define K4Q c->qi[0], c->qi[1], c->qi[2], c->qi[3]
static pb_status k_catmull_rom(kc *c)
{
    return pb_quat_catmull_rom(c->n, c->x, K4Q, c->flags, c->qo[0], c->vo[0]);
}
static pb_status k_hermite(kc *c)
{
    return pb_quat_hermite(c->n, c->x, c->qi[0], c->qi[1], c->vi[0], c->vi[1], c->flags, c->qo[0],
                           c->vo[0]);
}
static pb_status k_raw_cubic(kc *c)
{
    return pb_quat_raw_cubic(c->n, c->x, K4Q, c->flags, c->qo[0], c->qo[1]);
}
static pb_status k_slerp(kc *c)
{
    return pb_quat_slerp(c->n, c->x, c->qi[0], c->qi[1], c->flags, c->qo[0]);
}
static pb_status k_nlerp(kc *c)
{
    return pb_quat_nlerp(c->n, c->x, c->qi[0], c->qi[1], c->flags, c->qo[0]);
}
static pb_status k_v_hermite(kc *c)
{
    return pb_vec3_hermite(c->n, c->x, c->vi[0], c->vi[1], c->vi[2], c->vi[3], c->vo[0], c->vo[1]);
}
static pb_status k_v_catmull_rom(kc *c)
{
    return pb_vec3_catmull_rom(c->n, c->x, c->vi[0], c->vi[1], c->vi[2], c->vi[3], c->vo[0],
                               c->vo[1]);
}
static pb_status k_s_hermite(kc *c)
{
    return pb_scale_hermite(c->n, c->x, c->vi[0], c->vi[1], c->vi[2], c->vi[3], c->vo[0], c->vo[1]);
}
static pb_status k_s_catmull_rom(kc *c)
{
    return pb_scale_catmull_rom(c->n, c->x, c->vi[0], c->vi[1], c->vi[2], c->vi[3], c->vo[0],
                                c->vo[1]);
}
static pb_status k_mul(kc *c) { return pb_quat_mul(c->n, c->qi[0], c->qi[1], c->qo[0]); }
static pb_status k_mul_inv(kc *c) { return pb_quat_mul_inv(c->n, c->qi[0], c->qi[1], c->qo[0]); }
static pb_status k_inv_mul(kc *c) { return pb_quat_inv_mul(c->n, c->qi[0], c->qi[1], c->qo[0]); }
static pb_status k_abs(kc *c) { return pb_quat_abs(c->n, c->qi[0], c->qo[0]); }
static pb_status k_normalize(kc *c) { return pb_quat_normalize(c->n, c->qi[0], c->qo[0]); }
static pb_status k_log(kc *c) { return pb_quat_log(c->n, c->qi[0], c->vo[0]); }
static pb_status k_exp(kc *c) { return pb_quat_exp(c->n, c->vi[0], c->qo[0]); }
static pb_status k_to_saa(kc *c) { return pb_quat_to_scaled_angle_axis(c->n, c->qi[0], c->vo[0]); }
static pb_status k_from_saa(kc *c)
{
    return pb_quat_from_scaled_angle_axis(c->n, c->vi[0], c->qo[0]);
}
static pb_status k_d2av(kc *c)
{
    return pb_quat_delta_to_angular_velocity(c->n, c->qi[0], c->qi[1], c->vo[0]);
}
static pb_status k_sha(kc *c) { return pb_quat_sin_half_angle(c->n, c->qi[0], c->qi[1], c->so); }
static pb_status k_tangent(kc *c)
{
    return pb_quat_tangent_offset(c->n, c->qi[0], c->qi[1], c->qi[2], c->qo[0]);
}
static pb_status k_bezier(kc *c)
{
    return pb_quat_bezier_controls(c->n, c->qi[0], c->qi[1], c->qi[2], c->qo[0], c->qo[1]);
}
static pb_status k_decast(kc *c) { return pb_quat_de_casteljau(c->n, c->x, K4Q, c->qo[0]); }
static pb_status k_shoemake(kc *c)
{
    return pb_quat_shoemake_controls(c->n, c->qi[0], c->qi[1], c->qi[2], c->qo[0], c->qo[1]);
}

#define ORDER_DOC                                                                                  \
    "order: 'wxyz' (default) or 'xyzw', the component order of every quaternion in and out.\n"
#define ARRAYS_DOC                                                                                 \
    "Quaternion arguments are arrays of shape (..., 4), vec3 (..., 3), all with the same batch\n"  \
    "shape; float32 is used as is, other real dtypes are converted; arrays must be "               \
    "C-contiguous.\n"

static kspec kspecs[] = {
    {"quat_catmull_rom",
     k_catmull_rom,
     "qqqq",
     {"r0", "r1", "r2", "r3"},
     "x",
     OPT_VEL | OPT_EXACT,
     "qv",
     1,
     "quat_catmull_rom(r0, r1, r2, r3, x, *, velocity=False, exact=False, order='wxyz')\n--\n\n"
     "Quaternion Catmull-Rom between r1 (x = 0) and r2 (x = 1) of a whole batch "
     "(pb_quat_catmull_rom):\n"
     "Hermite with tangents (d01 + d12)/2 and (d12 + d23)/2, dij = 2 log(abs(rj ri^-1)).\n"
     "Returns the rotations (..., 4), or (rotations, angular_velocity (..., 3)) with "
     "velocity=True:\n"
     "scaled angle-axis per unit x (divide by the frame time for rad/s); exact=True gives the\n"
     "exact angular velocity J_l(u) du/dx (PB_EXACT_VELOCITY).\n" ARRAYS_DOC ORDER_DOC},
    {"quat_hermite",
     k_hermite,
     "qqvv",
     {"r0", "r1", "v0", "v1"},
     "x",
     OPT_VEL | OPT_EXACT,
     "qv",
     1,
     "quat_hermite(r0, r1, v0, v1, x, *, velocity=False, exact=False, order='wxyz')\n--\n\n"
     "Quaternion Hermite (pb_quat_hermite): rot(0) = r0, rot(1) = +-r1, angular velocities v0, v1\n"
     "(..., 3, scaled angle-axis per unit x) at the ends. Returns rotations, or (rotations,\n"
     "angular_velocity) with velocity=True.\n" ARRAYS_DOC ORDER_DOC},
    {"quat_raw_cubic",
     k_raw_cubic,
     "qqqq",
     {"r0", "r1", "r2", "r3"},
     "x",
     OPT_VEL | OPT_EXACT,
     "qq",
     1,
     "quat_raw_cubic(r0, r1, r2, r3, x, *, velocity=False, exact=False, order='wxyz')\n--\n\n"
     "Raw 4D Catmull-Rom of quaternions as 4-vectors, renormalised (pb_quat_raw_cubic).\n"
     "velocity=True also returns the 4D velocity (..., 4) of the cubic (exact=True: of the\n"
     "normalised curve).\n" ARRAYS_DOC ORDER_DOC},
    {"quat_slerp",
     k_slerp,
     "qq",
     {"a", "b"},
     "t",
     OPT_LONG,
     "q",
     1,
     "quat_slerp(a, b, t, *, long_path=False, order='wxyz')\n--\n\n"
     "Spherical linear interpolation (pb_quat_slerp), shortest path unless long_path.\n" ARRAYS_DOC
         ORDER_DOC},
    {"quat_nlerp",
     k_nlerp,
     "qq",
     {"a", "b"},
     "t",
     OPT_LONG,
     "q",
     1,
     "quat_nlerp(a, b, t, *, long_path=False, order='wxyz')\n--\n\n"
     "Normalised linear interpolation (pb_quat_nlerp).\n" ARRAYS_DOC ORDER_DOC},
    {"vec3_hermite",
     k_v_hermite,
     "vvvv",
     {"p0", "p1", "v0", "v1"},
     "x",
     OPT_VEL,
     "vv",
     1,
     "vec3_hermite(p0, p1, v0, v1, x, *, velocity=False)\n--\n\n"
     "Cubic Hermite of vec3 (..., 3) (pb_vec3_hermite); velocity=True: (positions, velocity).\n"},
    {"vec3_catmull_rom",
     k_v_catmull_rom,
     "vvvv",
     {"p0", "p1", "p2", "p3"},
     "x",
     OPT_VEL,
     "vv",
     1,
     "vec3_catmull_rom(p0, p1, p2, p3, x, *, velocity=False)\n--\n\n"
     "Uniform Catmull-Rom of vec3 between p1 and p2 (pb_vec3_catmull_rom).\n"},
    {"scale_hermite",
     k_s_hermite,
     "vvvv",
     {"s0", "s1", "v0", "v1"},
     "x",
     OPT_VEL,
     "vv",
     1,
     "scale_hermite(s0, s1, v0, v1, x, *, velocity=False)\n--\n\n"
     "Log-space Hermite of positive scales (pb_scale_hermite); velocity: d ln(s)/dx.\n"},
    {"scale_catmull_rom",
     k_s_catmull_rom,
     "vvvv",
     {"s0", "s1", "s2", "s3"},
     "x",
     OPT_VEL,
     "vv",
     1,
     "scale_catmull_rom(s0, s1, s2, s3, x, *, velocity=False)\n--\n\n"
     "Log-space Catmull-Rom of positive scales (pb_scale_catmull_rom).\n"},
    {"quat_mul",
     k_mul,
     "qq",
     {"a", "b"},
     NULL,
     0,
     "q",
     1,
     "quat_mul(a, b, *, order='wxyz')\n--\n\nHamilton product a b (pb_quat_mul).\n"},
    {"quat_mul_inv",
     k_mul_inv,
     "qq",
     {"a", "b"},
     NULL,
     0,
     "q",
     1,
     "quat_mul_inv(a, b, *, order='wxyz')\n--\n\na b^-1 (pb_quat_mul_inv).\n"},
    {"quat_inv_mul",
     k_inv_mul,
     "qq",
     {"a", "b"},
     NULL,
     0,
     "q",
     1,
     "quat_inv_mul(a, b, *, order='wxyz')\n--\n\na^-1 b (pb_quat_inv_mul).\n"},
    {"quat_abs",
     k_abs,
     "q",
     {"q"},
     NULL,
     0,
     "q",
     1,
     "quat_abs(q, *, order='wxyz')\n--\n\nq with w >= 0 (pb_quat_abs).\n"},
    {"quat_normalize",
     k_normalize,
     "q",
     {"q"},
     NULL,
     0,
     "q",
     1,
     "quat_normalize(q, *, order='wxyz')\n--\n\nq / |q|; zero gives the identity "
     "(pb_quat_normalize).\n"},
    {"quat_log",
     k_log,
     "q",
     {"q"},
     NULL,
     0,
     "v",
     1,
     "quat_log(q, *, order='wxyz')\n--\n\nlog(q) = half-angle * axis, (..., 3) (pb_quat_log).\n"},
    {"quat_exp",
     k_exp,
     "v",
     {"v"},
     NULL,
     0,
     "q",
     1,
     "quat_exp(v, *, order='wxyz')\n--\n\nexp(v) = (cos|v|, sin|v| v/|v|) (pb_quat_exp).\n"},
    {"quat_to_scaled_angle_axis",
     k_to_saa,
     "q",
     {"q"},
     NULL,
     0,
     "v",
     1,
     "quat_to_scaled_angle_axis(q, *, order='wxyz')\n--\n\n2 log(q) "
     "(pb_quat_to_scaled_angle_axis).\n"},
    {"quat_from_scaled_angle_axis",
     k_from_saa,
     "v",
     {"v"},
     NULL,
     0,
     "q",
     1,
     "quat_from_scaled_angle_axis(v, *, order='wxyz')\n--\n\nexp(v / 2) "
     "(pb_quat_from_scaled_angle_axis).\n"},
    {"quat_delta_to_angular_velocity",
     k_d2av,
     "qq",
     {"ref", "delta"},
     NULL,
     0,
     "v",
     1,
     "quat_delta_to_angular_velocity(ref, delta, *, order='wxyz')\n--\n\n"
     "2 vec(delta conj(ref)) (pb_quat_delta_to_angular_velocity).\n"},
    {"quat_sin_half_angle",
     k_sha,
     "qq",
     {"a", "b"},
     NULL,
     0,
     "s",
     1,
     "quat_sin_half_angle(a, b, *, order='wxyz')\n--\n\n"
     "sin(half the angle between a and b), shape (...) (pb_quat_sin_half_angle).\n"},
    {"quat_tangent_offset",
     k_tangent,
     "qqq",
     {"prev", "cur", "next"},
     NULL,
     0,
     "q",
     1,
     "quat_tangent_offset(prev, cur, next, *, order='wxyz')\n--\n\n"
     "exp((ln abs(cur prev^-1) + ln abs(next cur^-1)) / 2) (pb_quat_tangent_offset).\n"},
    {"quat_bezier_controls",
     k_bezier,
     "qqq",
     {"prev", "cur", "next"},
     NULL,
     0,
     "qq",
     2,
     "quat_bezier_controls(prev, cur, next, *, order='wxyz')\n--\n\n"
     "(before, after) Bezier controls around cur (pb_quat_bezier_controls).\n"},
    {"quat_de_casteljau",
     k_decast,
     "qqqq",
     {"q0", "q1", "q2", "q3"},
     "t",
     0,
     "q",
     1,
     "quat_de_casteljau(q0, q1, q2, q3, t, *, order='wxyz')\n--\n\n"
     "Cubic Bezier-like curve by De Casteljau with slerp (pb_quat_de_casteljau).\n"},
    {"quat_shoemake_controls",
     k_shoemake,
     "qqq",
     {"prev", "cur", "next"},
     NULL,
     0,
     "qq",
     2,
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
            PyErr_Format(PyExc_ValueError,
                         "%s(): argument '%s' and argument '%s' must have the same batch shape "
                         "(all but the last dimension)",
                         fn, s->names[i], s->names[0]);
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
    Py_BEGIN_ALLOW_THREADS for (size_t off = 0; off < n && st == PB_OK; off += chunk)
    {
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
    Py_END_ALLOW_THREADS scratch_free(stackbuf, buf);
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
#define KW(i)                                                                                      \
    static PyObject *kw_##i(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *k)            \
    {                                                                                              \
        (void)m;                                                                                   \
        return kcall(&kspecs[i], a, n, k);                                                         \
    }
typedef PyObject *(*kw_fn)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);
/* clang-format off */
KW(0) KW(1) KW(2) KW(3) KW(4) KW(5) KW(6) KW(7) KW(8) KW(9) KW(10) KW(11)
KW(12) KW(13) KW(14) KW(15) KW(16) KW(17) KW(18) KW(19) KW(20) KW(21) KW(22) KW(23)
static const kw_fn kw_fns[] = {kw_0,  kw_1,  kw_2,  kw_3,  kw_4,  kw_5,  kw_6,  kw_7,
                               kw_8,  kw_9,  kw_10, kw_11, kw_12, kw_13, kw_14, kw_15,
                               kw_16, kw_17, kw_18, kw_19, kw_20, kw_21, kw_22, kw_23};
/* clang-format on */

/* ------------------------------------------------------------------------ */
/* Averages, tracks                                                         */
/* ------------------------------------------------------------------------ */

static const char *avg_methods[] = {"raw", "log", "raw_ref", "log_ref", "accurate", "basic"};

PyObject *py_quat_average(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
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
        method = str_index(o[2], avg_methods, 6);
        if (method < 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s(): argument 'method' must be one of 'raw', 'log', 'raw_ref', "
                         "'log_ref', 'accurate', 'basic', got %R",
                         fn, o[2]);
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
        if (opt_like(fn, "ref", o[3], 4, 1, smp, 1, "it must be samples.shape[1:]", &ref))
            goto done;
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
    Py_BEGIN_ALLOW_THREADS for (size_t i = 0; i < k; i++)
    {
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
    Py_END_ALLOW_THREADS if (st != PB_OK)
    {
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
    if (which == 0   ? parse_args(fn, args, nargs, kwnames, n_unroll, 2, 1, 1, o)
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
    Py_BEGIN_ALLOW_THREADS q_split(F32(a), total, xyzw, buf, buf + total, buf + 2 * total,
                                   buf + 3 * total);
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
    Py_END_ALLOW_THREADS PyMem_RawFree(buf);
    Py_DECREF(a);
    if (st != PB_OK) {
        Py_DECREF(out);
        return raise_status(fn, st);
    }
    return (PyObject *)out;
}

PyObject *py_unroll(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return track_call("quat_unroll", 0, a, n, k);
}
PyObject *py_reference_extract(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return track_call("quat_reference_extract", 1, a, n, k);
}
PyObject *py_spline_eval(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return track_call("quat_spline_eval", 2, a, n, k);
}

/* Adds one module function per kernel table entry (its parameter names
 * filled in from the table). */
int pbpy_add_kernels(PyObject *m)
{
    if (NKSPECS != sizeof kw_fns / sizeof kw_fns[0]) {
        PyErr_SetString(PyExc_SystemError, "posebatch: kernel table and wrappers disagree");
        return -1;
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
            return -1;
        }
    }
    return 0;
}
