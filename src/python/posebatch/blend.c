/* The pose blends from Python: blend() (pb_pose_blend, weights as given)
 * and blend_layers() (pb_pose_blend_layers: blended layers with per-joint
 * weights, additive layers, linear or log-space scales). The arrays are
 * split into one structure-of-arrays buffer, the call runs without the GIL,
 * and the outputs are joined back. */
#include "_posebatch.h"

#include <string.h>

/* A blend's K poses: rotations (K, ..., 4) and weights (K,), K >= 1 (new
 * references in *rot, *wt, which the caller releases also on error; -1 with
 * the error set) */
static int blend_poses(const char *fn, PyObject *orot, PyObject *owt, PyArrayObject **rot,
                       PyArrayObject **wt)
{
    *wt = NULL;
    if (!(*rot = get_f32(fn, "rotations", orot, 4, 2)) ||
        !(*wt = get_f32(fn, "weights", owt, 0, 1)))
        return -1;
    const npy_intp k = PyArray_DIM(*rot, 0);
    if (PyArray_NDIM(*wt) != 1 || PyArray_DIM(*wt, 0) != k)
        return shape_error(fn, "weights", *wt, "it must be (K,) with K = rotations.shape[0]", *rot);
    if (k == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'rotations' holds no pose (K == 0)", fn);
        return -1;
    }
    return 0;
}

/* An optional track (None: *out NULL) of the poses whose rotations are rot:
 * (K, ..., 3) with rot's batch shape (`of` names rot in the error) */
static int opt_track(const char *fn, const char *arg, PyObject *o, PyArrayObject *rot,
                     const char *of, PyArrayObject **out)
{
    char want[96];
    snprintf(want, sizeof want, "it must be (K, ..., 3) like %s", of);
    return opt_like(fn, arg, o, 3, 2, rot, 0, want, out);
}

/* The default reference rotations (4 arrays of j at p): at each joint the
 * rotation of the layer that weighs most there (weight times joint weight;
 * the first of equals), identity where none weighs > 0. A rest pose of
 * identities would put joints near 180 degrees from rest, which real clips
 * have, at the log map's cut and split nearby rotations between hemispheres
 * (blends up to 54 degrees off); the heaviest layer is near every sample
 * that matters. */
static void heaviest_rotations(float *p, size_t j, size_t k, const pb_blend_layer *l)
{
    for (size_t i = 0; i < j; i++) {
        float best = 0.0f;
        const pb_cquats *q = NULL;
        for (size_t a = 0; a < k; a++) {
            float e = l[a].weight * (l[a].joint_weights ? l[a].joint_weights[i] : 1.0f);
            if (e > best) {
                best = e;
                q = &l[a].pose.rot;
            }
        }
        p[i] = q ? q->w[i] : 1.0f;
        p[j + i] = q ? q->x[i] : 0.0f;
        p[2 * j + i] = q ? q->y[i] : 0.0f;
        p[3 * j + i] = q ? q->z[i] : 0.0f;
    }
}

/* A blend's reference and output poses at p (20 arrays of j): the reference
 * split from rr (NULL: heaviest_rotations of the k layers l), rp, rs (NULL:
 * absent), then the output with the tracks asked for (pos, scl). */
static void blend_io_at(float *p, size_t j, int xyzw, PyArrayObject *rr, PyArrayObject *rp,
                        PyArrayObject *rs, size_t k, const pb_blend_layer *l, int pos, int scl,
                        pb_cpose *ref, pb_pose *out)
{
    memset(ref, 0, sizeof *ref);
    if (rr)
        q_split(F32(rr), j, xyzw, p, p + j, p + 2 * j, p + 3 * j);
    else
        heaviest_rotations(p, j, k, l);
    ref->rot = cq_at(p, j);
    p += 4 * j;
    if (rp) {
        v_split(F32(rp), j, p, p + j, p + 2 * j);
        ref->pos = cv_at(p, j);
        p += 3 * j;
    }
    if (rs) {
        v_split(F32(rs), j, p, p + j, p + 2 * j);
        ref->scale = cv_at(p, j);
        p += 3 * j;
    }
    memset(out, 0, sizeof *out);
    out->rot = q_at(p, j);
    if (pos)
        out->pos = v_at(p + 4 * j, j);
    if (scl)
        out->scale = v_at(p + 7 * j, j);
}

/* out joined into the arrays (opos, oscl NULL: the track absent) */
static void pose_join(const pb_pose *out, size_t j, int xyzw, PyArrayObject *orot,
                      PyArrayObject *opos, PyArrayObject *oscl)
{
    q_join(F32(orot), j, xyzw, out->rot.w, out->rot.x, out->rot.y, out->rot.z);
    if (opos)
        v_join(F32(opos), j, out->pos.x, out->pos.y, out->pos.z);
    if (oscl)
        v_join(F32(oscl), j, out->scale.x, out->scale.y, out->scale.z);
}

/* the blend's Pose, or (st not PB_OK) its error raised and NULL */
static PyObject *pose_result(const char *fn, pb_status st, PyArrayObject *orot, PyArrayObject *opos,
                             PyArrayObject *oscl)
{
    if (st != PB_OK)
        return raise_status(fn, st);
    return pose_new((PyObject *)orot, (PyObject *)opos, (PyObject *)oscl);
}

static const char *blend_methods[] = {"log_ref", "raw_ref", "log", "raw", "accurate"};

/* method=: 'log_ref' (0, the default when o is NULL), 'raw_ref', 'log', 'raw',
 * 'accurate' (the pb_blend_method values) */
static int parse_blend_method(const char *fn, PyObject *o, int *m)
{
    *m = 0;
    if (!o)
        return 0;
    int i = str_index(o, blend_methods, 5);
    if (i >= 0) {
        *m = i;
        return 0;
    }
    PyErr_Format(PyExc_ValueError,
                 "%s(): argument 'method' must be one of 'log_ref', 'raw_ref', 'log', 'raw', "
                 "'accurate', got %R",
                 fn, o);
    return -1;
}

PyObject *py_blend(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    const char *fn = "blend";
    static const char *names[] = {"rotations",     "weights",    "positions",
                                  "scales",        "method",     "ref_rotations",
                                  "ref_positions", "ref_scales", "order"};
    PyObject *o[9];
    if (parse_args(fn, args, nargs, kwnames, names, 9, 4, 2, o))
        return NULL;
    int method, xyzw;
    if (parse_blend_method(fn, o[4], &method) || opt_order(fn, o[8], &xyzw))
        return NULL;
    PyArrayObject *rot = NULL, *wt = NULL, *pos = NULL, *scl = NULL, *rr = NULL, *rp = NULL,
                  *rs = NULL, *orot = NULL, *opos = NULL, *oscl = NULL;
    PyObject *ret = NULL;
    float *buf = NULL;
    pb_cquats *qs = NULL;
    pb_cvec3s *ps = NULL, *ss = NULL;
    pb_blend_layer *ls = NULL; /* the samples as layers, for heaviest_rotations */
    if (blend_poses(fn, o[0], o[1], &rot, &wt) ||
        opt_track(fn, "positions", o[2], rot, "rotations", &pos) ||
        opt_track(fn, "scales", o[3], rot, "rotations", &scl))
        goto done;
    size_t k = (size_t)PyArray_DIM(rot, 0);
    if (opt_like(fn, "ref_rotations", o[5], 4, 1, rot, 1, "it must be rotations.shape[1:]", &rr) ||
        opt_like(fn, "ref_positions", o[6], 3, 1, rot, 1, "it must be positions.shape[1:]", &rp) ||
        opt_like(fn, "ref_scales", o[7], 3, 1, rot, 1, "it must be scales.shape[1:]", &rs))
        goto done;
    if ((rp && !pos) || (rs && !scl)) {
        PyErr_Format(PyExc_ValueError, "%s(): %s given without %s", fn,
                     rp && !pos ? "ref_positions" : "ref_scales",
                     rp && !pos ? "positions" : "scales");
        goto done;
    }
    size_t j = (size_t)(PyArray_SIZE(rot) / 4) / k;
    if (j > PB_MAX_COUNT || k > PB_MAX_COUNT) {
        raise_status(fn, PB_ERR_SIZE);
        goto done;
    }
    if (!(orot = new_like(rot, 1, 1, 4)))
        goto done;
    if (pos && !(opos = new_like(rot, 1, 1, 3)))
        goto done;
    if (scl && !(oscl = new_like(rot, 1, 1, 3)))
        goto done;
    buf = PyMem_RawMalloc(((10 * k + 20) * j + 1) * sizeof(float));
    qs = PyMem_RawMalloc(k * sizeof *qs);
    ps = PyMem_RawMalloc(k * sizeof *ps);
    ss = PyMem_RawMalloc(k * sizeof *ss);
    ls = PyMem_RawCalloc(k, sizeof *ls);
    if (!buf || !qs || !ps || !ss || !ls) {
        PyErr_NoMemory();
        goto done;
    }
    pb_status st;
    const float *w = F32(wt);
    Py_BEGIN_ALLOW_THREADS float *p = buf;
    for (size_t i = 0; i < k; i++) {
        q_split(F32(rot) + 4 * j * i, j, xyzw, p, p + j, p + 2 * j, p + 3 * j);
        qs[i] = cq_at(p, j);
        ls[i].weight = w[i];
        ls[i].pose.rot = qs[i];
        p += 4 * j;
        if (pos) {
            v_split(F32(pos) + 3 * j * i, j, p, p + j, p + 2 * j);
            ps[i] = cv_at(p, j);
            p += 3 * j;
        }
        if (scl) {
            v_split(F32(scl) + 3 * j * i, j, p, p + j, p + 2 * j);
            ss[i] = cv_at(p, j);
            p += 3 * j;
        }
    }
    pb_cpose ref;
    pb_pose out;
    blend_io_at(p, j, xyzw, rr, rp, rs, k, ls, pos != NULL, scl != NULL, &ref, &out);
    st = pb_pose_blend(j, k, qs, pos ? ps : NULL, scl ? ss : NULL, w, (pb_blend_method)method, &ref,
                       &out);
    if (st == PB_OK)
        pose_join(&out, j, xyzw, orot, opos, oscl);
    Py_END_ALLOW_THREADS ret = pose_result(fn, st, orot, opos, oscl);
done:
    PyMem_RawFree(buf);
    PyMem_RawFree(qs);
    PyMem_RawFree(ps);
    PyMem_RawFree(ss);
    PyMem_RawFree(ls);
    Py_XDECREF(rot);
    Py_XDECREF(wt);
    Py_XDECREF(pos);
    Py_XDECREF(scl);
    Py_XDECREF(rr);
    Py_XDECREF(rp);
    Py_XDECREF(rs);
    Py_XDECREF(orot);
    Py_XDECREF(opos);
    Py_XDECREF(oscl);
    return ret;
}

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
    "linearly (ozz-animation's semantics) instead of in log space. The reference\n"
    "rotations default to, at each joint, those of the layer that weighs most there\n"
    "(identity where none weighs > 0); positions to zero, scales to one. A rest pose\n"
    "of identities as reference puts joints near 180 degrees from rest (real clips\n"
    "have them) at the log map's cut: blends there go wrong. J may be\n"
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
    enum {
        ROT,
        WT,
        POS,
        SCL,
        JW,
        AROT,
        AWT,
        APOS,
        ASCL,
        AJW,
        METHOD,
        LIN,
        RROT,
        RPOS,
        RSCL,
        ORDER,
        NARG
    };
    static const char *names[NARG] = {"rotations",        "weights",
                                      "positions",        "scales",
                                      "joint_weights",    "additive_rotations",
                                      "additive_weights", "additive_positions",
                                      "additive_scales",  "additive_joint_weights",
                                      "method",           "linear_scales",
                                      "ref_rotations",    "ref_positions",
                                      "ref_scales",       "order"};
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
    if (blend_poses(fn, o[ROT], o[WT], &a[ROT], &a[WT]))
        goto done;
    const size_t k = (size_t)PyArray_DIM(a[ROT], 0);
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
            shape_error(fn, "additive_rotations", a[AROT], "it must be (A,) + rotations.shape[1:]",
                        a[ROT]);
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
        if (opt_track(fn, "additive_positions", o[APOS], a[AROT], "additive_rotations", &a[APOS]) ||
            opt_track(fn, "additive_scales", o[ASCL], a[AROT], "additive_rotations", &a[ASCL]))
            goto done;
        if (o[AJW] && o[AJW] != Py_None) {
            if (!(a[AJW] = get_f32(fn, "additive_joint_weights", o[AJW], 0, 2)) ||
                weights_shape(fn, "additive_joint_weights", a[AJW], a[AROT], "additive_rotations"))
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
    if (opt_like(fn, "ref_rotations", o[RROT], 4, 1, a[ROT], 1, "it must be rotations.shape[1:]",
                 &a[RROT]))
        goto done;
    for (int i = RPOS; i <= RSCL; i++)
        if (opt_like(fn, names[i], o[i], 3, 1, a[ROT], 1, "it must be rotations.shape[1:-1] + (3,)",
                     &a[i]))
            goto done;
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
    const size_t per_b = per + (a[JW] ? 1 : 0),
                 per_a = 4 + (a[APOS] ? 3 : 0) + (a[ASCL] ? 3 : 0) + (a[AJW] ? 1 : 0);
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
    Py_BEGIN_ALLOW_THREADS float *p =
        split_layers(buf, k, j, xyzw, a[ROT], a[WT], a[POS], a[SCL], a[JW], layers);
    if (ka)
        p = split_layers(p, ka, j, xyzw, a[AROT], a[AWT], a[APOS], a[ASCL], a[AJW], layers + k);
    pb_cpose ref;
    pb_pose out;
    blend_io_at(p, j, xyzw, a[RROT], a[RPOS], a[RSCL], k, layers, a[POS] != NULL, a[SCL] != NULL,
                &ref, &out);
    pb_blend_desc d = {j,
                       layers,
                       k,
                       ka ? layers + k : NULL,
                       ka,
                       (pb_blend_method)method,
                       lin ? PB_BLEND_LINEAR_SCALE : 0u,
                       &ref};
    st = pb_pose_blend_layers(&d, &out);
    if (st == PB_OK)
        pose_join(&out, j, xyzw, orot, opos, oscl);
    Py_END_ALLOW_THREADS ret = pose_result(fn, st, orot, opos, oscl);
done:
    PyMem_RawFree(layers);
    for (int i = 0; i < NARG; i++)
        Py_XDECREF(a[i]);
    Py_XDECREF(orot);
    Py_XDECREF(opos);
    Py_XDECREF(oscl);
    return ret;
}
