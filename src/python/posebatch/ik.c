/* Inverse kinematics from Python: ik_two_bone() and ik_aim()
 * (pb_ik_two_bone_solve / pb_ik_aim_solve over numpy arrays). The arrays
 * are split into one structure-of-arrays buffer, the solve runs without
 * the GIL (in place on the buffer's copy of the local rotations), and the
 * rotations are joined back into a new array. */
#include "_posebatch.h"

#include <string.h>

/* a sequence of 3 numbers (None / absent: dflt) */
static int get_axis(const char *fn, const char *arg, PyObject *o, const float dflt[3], float out[3])
{
    memcpy(out, dflt, 3 * sizeof(float));
    if (!o || o == Py_None)
        return 0;
    PyObject *s = PySequence_Fast(o, "");
    if (!s || PySequence_Fast_GET_SIZE(s) != 3) {
        Py_XDECREF(s);
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s(): %s must be 3 numbers", fn, arg);
        return -1;
    }
    for (int k = 0; k < 3; k++) {
        double v = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(s, k));
        if (v == -1.0 && PyErr_Occurred()) {
            Py_DECREF(s);
            return -1;
        }
        out[k] = (float)v;
    }
    Py_DECREF(s);
    return 0;
}
/* a joint index in 0 .. J-1 */
static int get_joint(const char *fn, const char *arg, PyObject *o, size_t J, size_t *out)
{
    Py_ssize_t v = PyNumber_AsSsize_t(o, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || (size_t)v >= J) {
        PyErr_Format(PyExc_ValueError, "%s(): %s = %zd is not a joint (0 .. %zu)", fn, arg, v,
                     J - 1);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}
/* An optional per-pose array: P floats (any shape of P elements) */
static int opt_per_pose(const char *fn, const char *arg, PyObject *o, size_t P, PyArrayObject **out)
{
    *out = NULL;
    if (!o || o == Py_None)
        return 0;
    if (!(*out = get_f32(fn, arg, o, 0, 0)))
        return -1;
    if ((size_t)PyArray_SIZE(*out) != P) {
        PyErr_Format(PyExc_ValueError, "%s(): %s must have one value per pose (%zu)", fn, arg, P);
        return -1;
    }
    return 0;
}

/* The arrays both solvers take: local and model rotations (..., J, 4),
 * model positions (..., J, 3), targets and poles (..., 3) */
typedef struct {
    PyArrayObject *rot, *mrot, *mpos, *tgt, *pole, *w, *w2, *out;
    size_t P, J, n;
    int xyzw;
} ik_arrays;

static void ik_release(ik_arrays *a)
{
    Py_XDECREF(a->rot);
    Py_XDECREF(a->mrot);
    Py_XDECREF(a->mpos);
    Py_XDECREF(a->tgt);
    Py_XDECREF(a->pole);
    Py_XDECREF(a->w);
    Py_XDECREF(a->w2);
    Py_XDECREF(a->out);
}

static int ik_get(const char *fn, PyObject *const *o, PyObject *order, ik_arrays *a)
{
    memset(a, 0, sizeof *a);
    if (opt_order(fn, order, &a->xyzw))
        return -1;
    if (!(a->rot = get_f32(fn, "rotations", o[0], 4, 2)) ||
        !(a->mrot = get_f32(fn, "model_rotations", o[1], 4, 2)) ||
        !(a->mpos = get_f32(fn, "model_positions", o[2], 3, 2)))
        return -1;
    const int nd = PyArray_NDIM(a->rot);
    if (PyArray_NDIM(a->mrot) != nd || !same_lead(a->mrot, 0, a->rot, 0))
        return shape_error(fn, "model_rotations", a->mrot, "(..., J, 4) like rotations", a->rot);
    if (PyArray_NDIM(a->mpos) != nd || !same_lead(a->mpos, 0, a->rot, 0))
        return shape_error(fn, "model_positions", a->mpos, "(..., J, 3) like rotations", a->rot);
    a->J = (size_t)PyArray_DIM(a->rot, nd - 2);
    a->n = (size_t)(PyArray_SIZE(a->rot) / 4);
    a->P = a->J ? a->n / a->J : 0;
    if (!(a->tgt = get_f32(fn, "targets", o[3], 3, 1)) ||
        !(a->pole = get_f32(fn, "poles", o[4], 3, 1)))
        return -1;
    if ((size_t)(PyArray_SIZE(a->tgt) / 3) != a->P)
        return shape_error(fn, "targets", a->tgt, "(..., 3), one per pose", a->rot);
    if ((size_t)(PyArray_SIZE(a->pole) / 3) != a->P)
        return shape_error(fn, "poles", a->pole, "(..., 3), one per pose", a->rot);
    if (!(a->out = new_like(a->rot, 0, 1, 4)))
        return -1;
    if (a->n > PB_MAX_COUNT) {
        raise_status(fn, PB_ERR_SIZE);
        return -1;
    }
    return 0;
}

/* the buffer's layout: local (out, solved in place) 4n, model rotations
 * 4n, model positions 3n, targets 3P, poles 3P, weights P, w2 P */
static float *ik_split(const ik_arrays *a, pb_quats *lq, pb_cpose *m, pb_cvec3s *t, pb_cvec3s *pl,
                       const float **w, const float **w2)
{
    const size_t n = a->n, P = a->P;
    float *buf = PyMem_RawMalloc((11 * n + 8 * P + 1) * sizeof(float));
    if (!buf)
        return NULL;
    float *p = buf;
    *lq = q_take(a->rot, n, a->xyzw, &p);
    memset(m, 0, sizeof *m);
    m->rot = pb_cq(q_take(a->mrot, n, a->xyzw, &p));
    m->pos = pb_cv(v_take(a->mpos, n, &p));
    *t = pb_cv(v_take(a->tgt, P, &p));
    *pl = pb_cv(v_take(a->pole, P, &p));
    *w = NULL, *w2 = NULL;
    if (a->w) {
        memcpy(p, F32(a->w), P * sizeof(float));
        *w = p;
        p += P;
    }
    if (a->w2) {
        memcpy(p, F32(a->w2), P * sizeof(float));
        *w2 = p;
    }
    return buf;
}

PyObject *py_ik_two_bone(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *fn = "ik_two_bone";
    static const char *names[] = {
        "rotations", "model_rotations", "model_positions", "start",   "mid",    "end",
        "targets",   "poles",           "mid_axis",        "weights", "soften", "order"};
    PyObject *o[12];
    if (parse_args(fn, args, nargs, kwnames, names, 12, 8, 8, o))
        return NULL;
    PyObject *in[5] = {o[0], o[1], o[2], o[6], o[7]};
    ik_arrays a;
    PyObject *ret = NULL;
    PyArrayObject *reached = NULL;
    float *buf = NULL;
    uint8_t *re = NULL;
    pb_ik_two_bone ik;
    memset(&ik, 0, sizeof ik);
    static const float z[3] = {0.0f, 0.0f, 1.0f};
    if (ik_get(fn, in, o[11], &a) || get_axis(fn, "mid_axis", o[8], z, ik.mid_axis) ||
        opt_per_pose(fn, "weights", o[9], a.P, &a.w) ||
        opt_per_pose(fn, "soften", o[10], a.P, &a.w2))
        goto done;
    if (a.J == 0 || a.P == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): no joints or no poses", fn);
        goto done;
    }
    if (get_joint(fn, "start", o[3], a.J, &ik.start) || get_joint(fn, "mid", o[4], a.J, &ik.mid) ||
        get_joint(fn, "end", o[5], a.J, &ik.end))
        goto done;
    {
        npy_intp rd[NPY_MAXDIMS];
        const int nd = PyArray_NDIM(a.rot) - 2;
        for (int k = 0; k < nd; k++)
            rd[k] = PyArray_DIM(a.rot, k);
        if (!(reached = (PyArrayObject *)PyArray_SimpleNew(nd, rd, NPY_BOOL)))
            goto done;
    }
    pb_quats lq;
    pb_cpose m;
    pb_status st = PB_OK;
    Py_BEGIN_ALLOW_THREADS buf =
        ik_split(&a, &lq, &m, &ik.target, &ik.pole, &ik.weight, &ik.soften);
    re = buf ? PyMem_RawMalloc(a.P) : NULL;
    if (buf && re) {
        st = pb_ik_two_bone_solve(a.P, a.J, &ik, &m, pb_cq(lq), lq, re);
        if (st == PB_OK) {
            q_join(F32(a.out), a.n, a.xyzw, lq.w, lq.x, lq.y, lq.z);
            npy_bool *r = (npy_bool *)PyArray_DATA(reached);
            for (size_t p = 0; p < a.P; p++)
                r[p] = re[p] != 0;
        }
    }
    Py_END_ALLOW_THREADS if (!buf || !re) PyErr_NoMemory();
    else if (st != PB_OK) raise_status(fn, st);
    else ret = Py_BuildValue("(OO)", a.out, reached);
done:
    PyMem_RawFree(buf);
    PyMem_RawFree(re);
    Py_XDECREF(reached);
    ik_release(&a);
    return ret;
}

PyObject *py_ik_aim(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *fn = "ik_aim";
    static const char *names[] = {
        "rotations", "model_rotations", "model_positions", "chain", "targets", "poles", "forward",
        "up",        "weights",         "joint_weights",   "order"};
    PyObject *o[11];
    if (parse_args(fn, args, nargs, kwnames, names, 11, 6, 6, o))
        return NULL;
    PyObject *in[5] = {o[0], o[1], o[2], o[4], o[5]};
    ik_arrays a;
    PyObject *ret = NULL, *seq = NULL;
    float *buf = NULL;
    size_t *chain = NULL;
    float *jw = NULL;
    pb_ik_aim ik;
    memset(&ik, 0, sizeof ik);
    static const float fz[3] = {0.0f, 0.0f, 1.0f}, uy[3] = {0.0f, 1.0f, 0.0f};
    if (ik_get(fn, in, o[10], &a) || get_axis(fn, "forward", o[6], fz, ik.forward) ||
        get_axis(fn, "up", o[7], uy, ik.up) || opt_per_pose(fn, "weights", o[8], a.P, &a.w))
        goto done;
    if (a.J == 0 || a.P == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): no joints or no poses", fn);
        goto done;
    }
    if (PyLong_Check(o[3]))
        seq = Py_BuildValue("(O)", o[3]);
    else
        seq = PySequence_Fast(o[3], "ik_aim(): chain must be a joint index or a sequence of them");
    if (!seq)
        goto done;
    ik.count = (size_t)PySequence_Fast_GET_SIZE(seq);
    if (ik.count == 0 || ik.count > a.J) {
        PyErr_Format(PyExc_ValueError, "%s(): chain must have 1 .. %zu joints", fn, a.J);
        goto done;
    }
    if (!(chain = PyMem_RawMalloc(ik.count * sizeof *chain))) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < ik.count; i++)
        if (get_joint(fn, "chain", PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), a.J, &chain[i]))
            goto done;
    ik.chain = chain;
    if (o[9] && o[9] != Py_None) {
        PyArrayObject *j = get_f32(fn, "joint_weights", o[9], 0, 0);
        if (!j)
            goto done;
        if ((size_t)PyArray_SIZE(j) != ik.count) {
            Py_DECREF(j);
            PyErr_Format(PyExc_ValueError,
                         "%s(): joint_weights must have one value per chain joint", fn);
            goto done;
        }
        if (!(jw = PyMem_RawMalloc(ik.count * sizeof *jw))) {
            Py_DECREF(j);
            PyErr_NoMemory();
            goto done;
        }
        memcpy(jw, F32(j), ik.count * sizeof *jw);
        Py_DECREF(j);
        ik.joint_weight = jw;
    }
    pb_quats lq;
    pb_cpose m;
    pb_status st = PB_OK;
    const float *unused;
    Py_BEGIN_ALLOW_THREADS buf = ik_split(&a, &lq, &m, &ik.target, &ik.pole, &ik.weight, &unused);
    if (buf) {
        st = pb_ik_aim_solve(a.P, a.J, &ik, &m, pb_cq(lq), lq);
        if (st == PB_OK)
            q_join(F32(a.out), a.n, a.xyzw, lq.w, lq.x, lq.y, lq.z);
    }
    Py_END_ALLOW_THREADS if (!buf) PyErr_NoMemory();
    else if (st != PB_OK) raise_status(fn, st);
    else
    {
        ret = (PyObject *)a.out;
        Py_INCREF(ret);
    }
done:
    PyMem_RawFree(buf);
    PyMem_RawFree(chain);
    PyMem_RawFree(jw);
    Py_XDECREF(seq);
    ik_release(&a);
    return ret;
}
