/* Model space from Python: local_to_model() and model_to_local()
 * (pb_pose_local_to_model / pb_pose_model_to_local over numpy arrays), and
 * Bvh.global_positions() / Bvh.global_rotations(). The arrays are split into
 * one structure-of-arrays buffer, the call runs without the GIL, and the
 * outputs are joined back into new arrays. */
#include "_posebatch.h"

#include <string.h>

/* local_to_model (forward) or model_to_local */
static PyObject *transform(const char *fn, int forward, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    static const char *names[] = {"parents", "rotations", "positions", "scales", "order"};
    PyObject *o[5];
    if (parse_args(fn, args, nargs, kwnames, names, 5, 4, 2, o))
        return NULL;
    int xyzw;
    if (opt_order(fn, o[4], &xyzw))
        return NULL;
    PyArrayObject *rot = NULL, *pos = NULL, *scl = NULL, *orot = NULL, *opos = NULL, *oscl = NULL;
    PyObject *ret = NULL;
    int32_t *parents = NULL;
    /* the split tracks of a small batch (a pose of up to 73 joints with
     * positions) on the stack: one allocation less a call */
    float small[1024], *buf = NULL;
    if (!(rot = get_f32(fn, "rotations", o[1], 4, 2)) ||
        opt_like(fn, "positions", o[2], 3, 2, rot, 0, "it must be (..., J, 3) like rotations",
                 &pos) ||
        opt_like(fn, "scales", o[3], 3, 2, rot, 0, "it must be (..., J, 3) like rotations", &scl))
        goto done;
    const size_t joints = (size_t)PyArray_DIM(rot, PyArray_NDIM(rot) - 2);
    const size_t n = (size_t)(PyArray_SIZE(rot) / 4);
    const size_t poses = joints ? n / joints : 0;
    if (!(parents = get_joint_ints(fn, "parents", o[0], joints, PBPY_PARENTS)))
        goto done;
    if (!(orot = new_like(rot, 0, 1, 4)) || (pos && !(opos = new_like(rot, 0, 1, 3))) ||
        (scl && !(oscl = new_like(rot, 0, 1, 3))))
        goto done;
    if (n == 0) { /* no pose or no joint: nothing to compute */
        ret = pose_new((PyObject *)orot, (PyObject *)opos, (PyObject *)oscl);
        goto done;
    }
    if (n > PB_MAX_COUNT) {
        raise_status(fn, PB_ERR_SIZE);
        goto done;
    }
    /* input w x y z [px py pz] [sx sy sz], then the output's */
    const size_t tracks = 4 + (pos ? 3 : 0) + (scl ? 3 : 0);
    if (2 * tracks * n <= sizeof small / sizeof *small)
        buf = small;
    else if (!(buf = PyMem_RawMalloc(2 * tracks * n * sizeof *buf))) {
        PyErr_NoMemory();
        goto done;
    }
    pb_status st;
    Py_BEGIN_ALLOW_THREADS float *p = buf, *q = buf + tracks * n;
    pb_cpose in;
    pb_pose out;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    in.rot = pb_cq(q_take(rot, n, xyzw, &p));
    out.rot = q_at(q, n);
    q += 4 * n;
    if (pos) {
        in.pos = pb_cv(v_take(pos, n, &p));
        out.pos = v_at(q, n);
        q += 3 * n;
    }
    if (scl) {
        in.scale = pb_cv(v_take(scl, n, &p));
        out.scale = v_at(q, n);
    }
    st = forward ? pb_pose_local_to_model(poses, joints, parents, &in, &out)
                 : pb_pose_model_to_local(poses, joints, parents, &in, &out);
    if (st == PB_OK) {
        q_join(F32(orot), n, xyzw, out.rot.w, out.rot.x, out.rot.y, out.rot.z);
        if (opos)
            v_join(F32(opos), n, out.pos.x, out.pos.y, out.pos.z);
        if (oscl)
            v_join(F32(oscl), n, out.scale.x, out.scale.y, out.scale.z);
    }
    Py_END_ALLOW_THREADS if (st != PB_OK) raise_status(fn, st);
    else ret = pose_new((PyObject *)orot, (PyObject *)opos, (PyObject *)oscl);
done:
    if (buf != small)
        PyMem_RawFree(buf);
    PyMem_RawFree(parents);
    Py_XDECREF(rot);
    Py_XDECREF(pos);
    Py_XDECREF(scl);
    Py_XDECREF(orot);
    Py_XDECREF(opos);
    Py_XDECREF(oscl);
    return ret;
}

PyObject *py_local_to_model(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return transform("local_to_model", 1, a, n, k);
}

PyObject *py_model_to_local(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return transform("model_to_local", 0, a, n, k);
}

/* The clip's model-space positions (want_pos) or rotations, (F, J, 3) or
 * (F, J, 4); three: a position channel's value is added to the OFFSET (as
 * three.js's BVHLoader reads BVH) instead of replacing it. */
static PyObject *bvh_global(const char *fn, BvhObject *self, int want_pos, int three, int xyzw)
{
    const pb_bvh *b = &self->b;
    const size_t F = b->num_frames, J = b->num_joints, n = F * J;
    npy_intp dims[3] = {(npy_intp)F, (npy_intp)J, want_pos ? 3 : 4};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(3, dims, NPY_FLOAT32);
    if (!out || n == 0)
        return (PyObject *)out;
    if (!b->rot_w) {
        Py_DECREF(out);
        PyErr_Format(PyExc_ValueError, "Bvh.%s(): the clip has no motion", fn);
        return NULL;
    }
    int32_t *parents = PyMem_RawMalloc(J * sizeof *parents);
    float *buf = PyMem_RawMalloc((want_pos ? 10 + (three ? 3 : 0) : 4) * n * sizeof *buf);
    if (!parents || !buf) {
        PyMem_RawFree(parents);
        PyMem_RawFree(buf);
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    pb_status st;
    Py_BEGIN_ALLOW_THREADS for (size_t j = 0; j < J; j++) parents[j] = b->joints[j].parent;
    pb_cpose in;
    pb_pose mo;
    memset(&in, 0, sizeof in);
    memset(&mo, 0, sizeof mo);
    in.rot = (pb_cquats){b->rot_w, b->rot_x, b->rot_y, b->rot_z};
    mo.rot = q_at(buf, n);
    if (want_pos) {
        in.pos = (pb_cvec3s){b->pos_x, b->pos_y, b->pos_z};
        mo.pos = v_at(buf + 4 * n, n);
        if (three) { /* three.js: a position channel's value added to the OFFSET */
            pb_vec3s t = v_at(buf + 7 * n, n);
            /* cannot fail: the clip has motion (checked above: its arrays
             * come together) and t is new memory */
            (void)pb_bvh_three_translations(b, t, NULL);
            in.pos = (pb_cvec3s){t.x, t.y, t.z};
        }
    }
    st = pb_pose_local_to_model(F, J, parents, &in, &mo);
    if (st == PB_OK) {
        if (want_pos)
            v_join(F32(out), n, mo.pos.x, mo.pos.y, mo.pos.z);
        else
            q_join(F32(out), n, xyzw, mo.rot.w, mo.rot.x, mo.rot.y, mo.rot.z);
    }
    Py_END_ALLOW_THREADS PyMem_RawFree(parents);
    PyMem_RawFree(buf);
    if (st != PB_OK) {
        Py_DECREF(out);
        char name[64];
        snprintf(name, sizeof name, "Bvh.%s", fn);
        return raise_status(name, st);
    }
    return (PyObject *)out;
}

PyObject *Bvh_global_positions(BvhObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    static const char *names[] = {"three"};
    PyObject *o[1];
    int three = 0;
    if (parse_args("global_positions", args, nargs, kwnames, names, 1, 0, 0, o) ||
        opt_bool("global_positions", "three", o[0], &three))
        return NULL;
    return bvh_global("global_positions", self, 1, three, 0);
}

PyObject *Bvh_global_rotations(BvhObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    static const char *names[] = {"order"};
    PyObject *o[1];
    int xyzw = 0;
    if (parse_args("global_rotations", args, nargs, kwnames, names, 1, 0, 0, o) ||
        opt_order("global_rotations", o[0], &xyzw))
        return NULL;
    return bvh_global("global_rotations", self, 0, 0, xyzw);
}
