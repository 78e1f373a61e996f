/* posebatch.Clip and posebatch.Pose (named tuples) and the clip calls:
 * resample() (pb_clip_resample), sample() (pb_clip_sample) and
 * resample_frames() (pb_clip_resample_frames). */
#define PY_SSIZE_T_CLEAN
#include "_posebatch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <posebatch.h>

PyTypeObject pbpy_ClipType, pbpy_PoseType;
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
static PyStructSequence_Field pose_fields[] = {{"rotations", "(J, 4) float32"},
                                               {"positions", "(J, 3) float32 or None"},
                                               {"scales", "(J, 3) float32 or None"},
                                               {NULL, NULL}};
static PyStructSequence_Desc pose_desc = {"posebatch.Pose", "A blended pose (a named tuple).",
                                          pose_fields, 3};

PyObject *pose_new(PyObject *rot, PyObject *pos, PyObject *scl)
{
    PyObject *ret = PyStructSequence_New(&pbpy_PoseType);
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
    static const char *names[] = {"rotations", "frame_time", "fps_or_times", "positions", "scales",
                                  "loop",      "velocity",   "exact",        "order"};
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
    if (opt_like(fn, "positions", o[3], 3, 2, rot, 0,
                 "it must be (frames, joints, 3) like rotations", &pos) ||
        opt_like(fn, "scales", o[4], 3, 2, rot, 0, "it must be (frames, joints, 3) like rotations",
                 &scl))
        goto done;
    size_t f = (size_t)PyArray_DIM(rot, 0), j = (size_t)PyArray_DIM(rot, 1), fj = f * j;
    if (f == 0 || j == 0) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): argument 'rotations' must hold at least one frame and one joint", fn);
        goto done;
    }
    if (!(frame_time > 0.0 && isfinite(frame_time))) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'frame_time' must be finite and > 0, got %R",
                     fn, o[1]);
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
            PyErr_Format(PyExc_ValueError, "%s(): argument 'fps' must be finite and > 0, got %R",
                         fn, o[2]);
            goto done;
        }
        fo = pb_clip_resample_frames(&src, fps, flags);
        if (fo == 0) {
            char msg[256]; /* PyErr_Format has no %g */
            snprintf(msg, sizeof msg,
                     "%s(): cannot resample %zu frames of %g s to %g fps (too many frames)", fn, f,
                     frame_time, fps);
            PyErr_SetString(PyExc_ValueError, msg);
            goto done;
        }
    } else {
        PyArrayObject *tt = (PyArrayObject *)PyArray_FromAny(
            o[2], PyArray_DescrFromType(NPY_FLOAT64), 1, 1,
            NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST, NULL);
        if (!tt) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%s(): argument 'times' must be a 1-D array of real numbers (seconds)",
                         fn);
            goto done;
        }
        times = tt;
        fo = (size_t)PyArray_DIM(times, 0);
        if (fo == 0) {
            PyErr_Format(PyExc_ValueError, "%s(): argument 'times' is empty", fn);
            goto done;
        }
        const double *tv = (const double *)PyArray_DATA(times);
        for (size_t i = 0; i < fo; i++)
            if (!isfinite(tv[i])) {
                PyErr_Format(PyExc_ValueError,
                             "%s(): argument 'times' must be finite: element %zu is %s", fn, i,
                             isnan(tv[i]) ? "NaN"
                             : tv[i] > 0  ? "inf"
                                          : "-inf");
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
    size_t need =
        4 * fj + 3 * (tr - 1) * fj + 4 * m + 3 * (tr - 1) * m + (vel ? 3 * tr * m : 0) + 1;
    buf = PyMem_RawMalloc(need * sizeof(float));
    if (!buf) {
        PyErr_NoMemory();
        goto done;
    }
    pb_status st;
    double out_ft = 0.0;
    Py_BEGIN_ALLOW_THREADS float *p = buf;
    src.rot = q_take(rot, fj, xyzw, &p);
    if (pos)
        src.pos = v_take(pos, fj, &p);
    if (scl)
        src.scale = v_take(scl, fj, &p);
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
    Py_END_ALLOW_THREADS if (st != PB_OK)
    {
        raise_status(fn, st);
        goto done;
    }
    ret = PyStructSequence_New(&pbpy_ClipType);
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

PyObject *py_resample(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return clip_call("resample", 1, a, n, k);
}
PyObject *py_sample(PyObject *self, PyObject *const *a, Py_ssize_t n, PyObject *k)
{
    (void)self;
    return clip_call("sample", 0, a, n, k);
}

PyObject *py_resample_frames(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
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

int pbpy_ready_clip_types(void)
{
    if (PyStructSequence_InitType2(&pbpy_ClipType, &clip_desc) ||
        PyStructSequence_InitType2(&pbpy_PoseType, &pose_desc))
        return -1;
    return 0;
}
