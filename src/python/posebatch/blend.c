/* posebatch.blend_layers(): pb_pose_blend_layers from Python (blended
 * layers with per-joint weights, additive layers, linear or log-space
 * scales). The arrays are split into one structure-of-arrays buffer, the
 * call runs without the GIL, and the outputs are joined back. */
#include "_posebatch.h"

#include <string.h>

const char py_blend_layers_doc[] =
    "blend_layers(rotations, weights, positions=None, scales=None, *, joint_weights=None,\n"
    "             additive_rotations=None, additive_weights=None, additive_positions=None,\n"
    "             additive_scales=None, additive_joint_weights=None, method='log_ref',\n"
    "             linear_scales=False, ref_rotations=None, ref_positions=None,\n"
    "             ref_scales=None, order='wxyz')\n--\n\n"
    "Layered pose blend (pb_pose_blend_layers): K blended layers, rotations (K, J, 4),\n"
    "weights (K,), positions / scales (K, J, 3) (the output has the tracks given), and\n"
    "joint_weights (K, J) (masks: layer i weighs weights[i] * joint_weights[i, j] at\n"
    "joint j). The weights are relative: divided by their sum at each joint; where\n"
    "that sum is not > 0 the joint takes the reference. Then A additive layers\n"
    "(additive_rotations (A, J, 4), additive_weights (A,) as given, default 1,\n"
    "additive_positions / additive_scales (A, J, 3) optional, additive_joint_weights\n"
    "(A, J)) apply in order: q <- exp(a log d) q, p <- p + a d, s <- s d^a. method:\n"
    "'log_ref' (default), 'raw_ref', 'log', 'raw'; linear_scales=True blends scales\n"
    "linearly (ozz-animation's semantics) instead of in log space. The reference (rest\n"
    "pose) defaults to identity rotations, zero positions and unit scales. J may be\n"
    "several axes (characters x joints: one call). Returns a posebatch.Pose named tuple\n"
    "(rotations, positions, scales); the C API's results bit for bit.";

/* w's shape is a's without its last axis */
static int weights_shape(const char *fn, const char *arg, PyArrayObject *w, PyArrayObject *a,
                         const char *of)
{
    int ok = PyArray_NDIM(w) == PyArray_NDIM(a) - 1;
    for (int i = 0; ok && i < PyArray_NDIM(w); i++)
        ok = PyArray_DIM(w, i) == PyArray_DIM(a, i);
    if (ok)
        return 0;
    char want[96];
    snprintf(want, sizeof want, "it must be %s.shape[:-1]", of);
    return shape_error(fn, arg, w, want, a);
}

/* optional (K, ..., 3) track of a layer set whose rotations are rot */
static int opt_track(const char *fn, const char *arg, PyObject *o, PyArrayObject *rot,
                     const char *of, PyArrayObject **out)
{
    *out = NULL;
    if (!o || o == Py_None)
        return 0;
    if (!(*out = get_f32(fn, arg, o, 3, 2)))
        return -1;
    if (!same_lead(rot, 0, *out, 0)) {
        char want[96];
        snprintf(want, sizeof want, "it must be (K, ..., 3) like %s", of);
        return shape_error(fn, arg, *out, want, rot);
    }
    return 0;
}

/* The layers of one set (k of them, J joints) into buf from p on: the
 * pb_blend_layer structs in l; returns where the buffer continues. */
static float *split_layers(float *p, size_t k, size_t j, int xyzw, PyArrayObject *rot,
                           PyArrayObject *wt, PyArrayObject *pos, PyArrayObject *scl,
                           PyArrayObject *jw, pb_blend_layer *l)
{
    for (size_t i = 0; i < k; i++) {
        memset(&l[i], 0, sizeof l[i]);
        l[i].weight = wt ? F32(wt)[i] : 1.0f;
        q_split(F32(rot) + 4 * j * i, j, xyzw, p, p + j, p + 2 * j, p + 3 * j);
        l[i].pose.rot = cq_at(p, j);
        p += 4 * j;
        if (pos) {
            v_split(F32(pos) + 3 * j * i, j, p, p + j, p + 2 * j);
            l[i].pose.pos = cv_at(p, j);
            p += 3 * j;
        }
        if (scl) {
            v_split(F32(scl) + 3 * j * i, j, p, p + j, p + 2 * j);
            l[i].pose.scale = cv_at(p, j);
            p += 3 * j;
        }
        if (jw) {
            memcpy(p, F32(jw) + j * i, j * sizeof *p);
            l[i].joint_weights = p;
            p += j;
        }
    }
    return p;
}

PyObject *py_blend_layers(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    (void)self;
    const char *fn = "blend_layers";
    enum { ROT, WT, POS, SCL, JW, AROT, AWT, APOS, ASCL, AJW, METHOD, LIN, RROT, RPOS, RSCL, ORDER, NARG };
    static const char *names[NARG] = {
        "rotations", "weights", "positions", "scales", "joint_weights", "additive_rotations",
        "additive_weights", "additive_positions", "additive_scales", "additive_joint_weights",
        "method", "linear_scales", "ref_rotations", "ref_positions", "ref_scales", "order"};
    PyObject *o[NARG];
    if (parse_args(fn, args, nargs, kwnames, names, NARG, 4, 2, o))
        return NULL;
    int method, lin = 0, xyzw;
    if (parse_blend_method(fn, o[METHOD], &method) || opt_bool(fn, "linear_scales", o[LIN], &lin) ||
        opt_order(fn, o[ORDER], &xyzw))
        return NULL;
    if (method == PB_BLEND_ACCURATE) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): method 'accurate' is not a layered blend method (use blend())", fn);
        return NULL;
    }
    PyArrayObject *a[NARG] = {NULL};
    PyArrayObject *orot = NULL, *opos = NULL, *oscl = NULL;
    PyObject *ret = NULL;
    pb_blend_layer *layers = NULL;
    if (!(a[ROT] = get_f32(fn, "rotations", o[ROT], 4, 2)) ||
        !(a[WT] = get_f32(fn, "weights", o[WT], 0, 1)))
        goto done;
    const size_t k = (size_t)PyArray_DIM(a[ROT], 0);
    if (PyArray_NDIM(a[WT]) != 1 || (size_t)PyArray_DIM(a[WT], 0) != k) {
        shape_error(fn, "weights", a[WT], "it must be (K,) with K = rotations.shape[0]", a[ROT]);
        goto done;
    }
    if (k == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'rotations' holds no pose (K == 0)", fn);
        goto done;
    }
    if (opt_track(fn, "positions", o[POS], a[ROT], "rotations", &a[POS]) ||
        opt_track(fn, "scales", o[SCL], a[ROT], "rotations", &a[SCL]))
        goto done;
    if (o[JW] && o[JW] != Py_None) {
        if (!(a[JW] = get_f32(fn, "joint_weights", o[JW], 0, 2)) ||
            weights_shape(fn, "joint_weights", a[JW], a[ROT], "rotations"))
            goto done;
    }
    size_t ka = 0;
    if (o[AROT] && o[AROT] != Py_None) {
        if (!(a[AROT] = get_f32(fn, "additive_rotations", o[AROT], 4, 2)))
            goto done;
        if (!same_lead(a[ROT], 1, a[AROT], 1)) {
            shape_error(fn, "additive_rotations", a[AROT],
                        "it must be (A,) + rotations.shape[1:]", a[ROT]);
            goto done;
        }
        ka = (size_t)PyArray_DIM(a[AROT], 0);
        if (o[AWT] && o[AWT] != Py_None) {
            if (!(a[AWT] = get_f32(fn, "additive_weights", o[AWT], 0, 1)))
                goto done;
            if (PyArray_NDIM(a[AWT]) != 1 || (size_t)PyArray_DIM(a[AWT], 0) != ka) {
                shape_error(fn, "additive_weights", a[AWT],
                            "it must be (A,) with A = additive_rotations.shape[0]", a[AROT]);
                goto done;
            }
        }
        if (opt_track(fn, "additive_positions", o[APOS], a[AROT], "additive_rotations",
                      &a[APOS]) ||
            opt_track(fn, "additive_scales", o[ASCL], a[AROT], "additive_rotations", &a[ASCL]))
            goto done;
        if (o[AJW] && o[AJW] != Py_None) {
            if (!(a[AJW] = get_f32(fn, "additive_joint_weights", o[AJW], 0, 2)) ||
                weights_shape(fn, "additive_joint_weights", a[AJW], a[AROT],
                              "additive_rotations"))
                goto done;
        }
    } else {
        for (int i = AWT; i <= AJW; i++)
            if (o[i] && o[i] != Py_None) {
                PyErr_Format(PyExc_ValueError, "%s(): %s given without additive_rotations", fn,
                             names[i]);
                goto done;
            }
    }
    if (o[RROT] && o[RROT] != Py_None) {
        if (!(a[RROT] = get_f32(fn, "ref_rotations", o[RROT], 4, 1)))
            goto done;
        if (!same_lead(a[ROT], 1, a[RROT], 0)) {
            shape_error(fn, "ref_rotations", a[RROT], "it must be rotations.shape[1:]", a[ROT]);
            goto done;
        }
    }
    for (int i = RPOS; i <= RSCL; i++) {
        if (!o[i] || o[i] == Py_None)
            continue;
        if (!(a[i] = get_f32(fn, names[i], o[i], 3, 1)))
            goto done;
        if (!same_lead(a[ROT], 1, a[i], 0)) {
            shape_error(fn, names[i], a[i], "it must be rotations.shape[1:-1] + (3,)", a[ROT]);
            goto done;
        }
    }
    /* a track the output lacks, given elsewhere */
    const char *stray = NULL;
    if (!a[POS])
        stray = a[APOS] ? "additive_positions" : a[RPOS] ? "ref_positions" : NULL;
    if (!stray && !a[SCL])
        stray = a[ASCL] ? "additive_scales" : a[RSCL] ? "ref_scales" : NULL;
    if (stray) {
        PyErr_Format(PyExc_ValueError, "%s(): %s given without %s", fn, stray,
                     strstr(stray, "positions") ? "positions" : "scales");
        goto done;
    }
    const size_t j = (size_t)(PyArray_SIZE(a[ROT]) / 4) / k;
    if (j > PB_MAX_COUNT || k > PB_MAX_COUNT || ka > PB_MAX_COUNT) {
        raise_status(fn, PB_ERR_SIZE);
        goto done;
    }
    if (!(orot = new_like(a[ROT], 1, 1, 4)) || (a[POS] && !(opos = new_like(a[ROT], 1, 1, 3))) ||
        (a[SCL] && !(oscl = new_like(a[ROT], 1, 1, 3))))
        goto done;
    /* floats per layer: rotations, the tracks, joint weights */
    const size_t per = 4 + (a[POS] ? 3 : 0) + (a[SCL] ? 3 : 0);
    const size_t per_b = per + (a[JW] ? 1 : 0), per_a = 4 + (a[APOS] ? 3 : 0) +
                                                    (a[ASCL] ? 3 : 0) + (a[AJW] ? 1 : 0);
    /* (no overflow: every size below PB_MAX_COUNT, which is far below 2^64 / 20) */
    /* one block: the layer structs, then the floats */
    layers = PyMem_RawMalloc((k + ka) * sizeof *layers +
                             ((per_b * k + per_a * ka + 20) * j + 1) * sizeof(float));
    if (!layers) {
        PyErr_NoMemory();
        goto done;
    }
    float *buf = (float *)(layers + k + ka);
    pb_status st;
    Py_BEGIN_ALLOW_THREADS
    float *p = split_layers(buf, k, j, xyzw, a[ROT], a[WT], a[POS], a[SCL], a[JW], layers);
    if (ka)
        p = split_layers(p, ka, j, xyzw, a[AROT], a[AWT], a[APOS], a[ASCL], a[AJW], layers + k);
    pb_cpose ref;
    pb_pose out;
    blend_io_at(p, j, xyzw, a[RROT], a[RPOS], a[RSCL], a[POS] != NULL, a[SCL] != NULL, &ref, &out);
    pb_blend_desc d = {j, layers, k, ka ? layers + k : NULL, ka, (pb_blend_method)method,
                       lin ? PB_BLEND_LINEAR_SCALE : 0u, &ref};
    st = pb_pose_blend_layers(&d, &out);
    if (st == PB_OK)
        pose_join(&out, j, xyzw, orot, opos, oscl);
    Py_END_ALLOW_THREADS
    ret = pose_result(fn, st, orot, opos, oscl);
done:
    PyMem_RawFree(layers);
    for (int i = 0; i < NARG; i++)
        Py_XDECREF(a[i]);
    Py_XDECREF(orot);
    Py_XDECREF(opos);
    Py_XDECREF(oscl);
    return ret;
}
