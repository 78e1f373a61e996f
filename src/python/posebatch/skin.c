/* Skinning from Python: skinning_matrices() (pb_pose_skinning_matrices) and
 * skin() (pb_skin_vertices, linear blend skinning) over numpy arrays, the
 * C calls run without the GIL. Matrices in numpy's convention, m[..., r, c]
 * (row r, column c: m @ [x, y, z, 1] transforms a point); the C layouts
 * (column-major 4x4, row-major 3x4) are converted here. */
#include "_posebatch.h"

#include <stdint.h>
#include <string.h>

/* skinning_matrices(rotations, positions=None, scales=None,
 * inverse_bind=None, *, order='wxyz') -> (..., J, 4, 4) */
PyObject *py_skinning_matrices(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    (void)self;
    static const char *fn = "skinning_matrices";
    static const char *names[] = {"rotations", "positions", "scales", "inverse_bind", "order"};
    PyObject *o[5];
    if (parse_args(fn, args, nargs, kwnames, names, 5, 4, 1, o))
        return NULL;
    int xyzw;
    if (opt_order(fn, o[4], &xyzw))
        return NULL;
    PyArrayObject *rot = NULL, *pos = NULL, *scl = NULL, *ib = NULL, *out = NULL;
    PyObject *ret = NULL;
    float *buf = NULL;
    if (!(rot = get_f32(fn, "rotations", o[0], 4, 2)) ||
        opt_like(fn, "positions", o[1], 3, 2, rot, 0, "it must be (..., J, 3) like rotations",
                 &pos) ||
        opt_like(fn, "scales", o[2], 3, 2, rot, 0, "it must be (..., J, 3) like rotations", &scl))
        goto done;
    const size_t joints = (size_t)PyArray_DIM(rot, PyArray_NDIM(rot) - 2);
    const size_t n = (size_t)(PyArray_SIZE(rot) / 4), poses = joints ? n / joints : 0;
    if (o[3] && o[3] != Py_None) {
        if (!(ib = get_f32(fn, "inverse_bind", o[3], 4, 3)))
            goto done;
        if (PyArray_NDIM(ib) != 3 || (size_t)PyArray_DIM(ib, 0) != joints ||
            PyArray_DIM(ib, 1) != 4) {
            shape_error(fn, "inverse_bind", ib, "it must be (J, 4, 4), J of rotations", rot);
            goto done;
        }
    }
    {
        npy_intp dims[NPY_MAXDIMS + 1];
        const int nd = PyArray_NDIM(rot);
        for (int d = 0; d < nd - 1; d++)
            dims[d] = PyArray_DIM(rot, d);
        dims[nd - 1] = 4, dims[nd] = 4;
        if (!(out = (PyArrayObject *)PyArray_SimpleNew(nd + 1, dims, NPY_FLOAT32)))
            goto done;
    }
    if (n == 0) {
        ret = (PyObject *)out, out = NULL;
        goto done;
    }
    if (n > PB_MAX_COUNT) {
        raise_status(fn, PB_ERR_SIZE);
        goto done;
    }
    const size_t tracks = 4 + (pos ? 3 : 0) + (scl ? 3 : 0);
    if (!(buf = PyMem_RawMalloc((tracks * n + 16 * n + 16 * joints) * sizeof *buf))) {
        PyErr_NoMemory();
        goto done;
    }
    pb_status st;
    Py_BEGIN_ALLOW_THREADS float *p = buf, *m = buf + tracks * n, *b = m + 16 * n;
    pb_cpose in;
    memset(&in, 0, sizeof in);
    in.rot = pb_cq(q_take(rot, n, xyzw, &p));
    if (pos)
        in.pos = pb_cv(v_take(pos, n, &p));
    if (scl)
        in.scale = pb_cv(v_take(scl, n, &p));
    if (ib) /* numpy's (r, c) to column-major */
        for (size_t j = 0; j < joints; j++)
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++)
                    b[j * 16 + c * 4 + r] = F32(ib)[j * 16 + r * 4 + c];
    st = pb_pose_skinning_matrices(poses, joints, &in, ib ? b : NULL, PB_MATRIX_4X4, m);
    if (st == PB_OK)
        for (size_t i = 0; i < n; i++)
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++)
                    F32(out)[i * 16 + r * 4 + c] = m[i * 16 + c * 4 + r];
    Py_END_ALLOW_THREADS if (st != PB_OK) raise_status(fn, st);
    else ret = (PyObject *)out, out = NULL;
done:
    PyMem_RawFree(buf);
    Py_XDECREF(rot);
    Py_XDECREF(pos);
    Py_XDECREF(scl);
    Py_XDECREF(ib);
    Py_XDECREF(out);
    return ret;
}

/* skin(matrices, joints, weights, positions, normals=None) -> positions or
 * (positions, normals) */
PyObject *py_skin(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    static const char *fn = "skin";
    static const char *names[] = {"matrices", "joints", "weights", "positions", "normals"};
    PyObject *o[5];
    if (parse_args(fn, args, nargs, kwnames, names, 5, 5, 4, o))
        return NULL;
    PyArrayObject *mat = NULL, *jt = NULL, *wt = NULL, *pos = NULL, *nrm = NULL, *op = NULL,
                  *on = NULL;
    PyObject *ret = NULL;
    float *m3 = NULL;
    uint16_t *j16 = NULL;
    if (!(mat = get_f32(fn, "matrices", o[0], 4, 3)) ||
        !(pos = get_f32(fn, "positions", o[3], 3, 2)) || !(wt = get_f32(fn, "weights", o[2], 0, 2)))
        goto done;
    if (PyArray_NDIM(mat) != 3 || (PyArray_DIM(mat, 1) != 4 && PyArray_DIM(mat, 1) != 3)) {
        shape_error(fn, "matrices", mat, "it must be (J, 4, 4) or (J, 3, 4)", NULL);
        goto done;
    }
    if (PyArray_NDIM(pos) != 2) {
        shape_error(fn, "positions", pos, "it must be (V, 3)", NULL);
        goto done;
    }
    const size_t V = (size_t)PyArray_DIM(pos, 0), J = (size_t)PyArray_DIM(mat, 0);
    if (PyArray_NDIM(wt) != 2 || (size_t)PyArray_DIM(wt, 0) != V || PyArray_DIM(wt, 1) < 1 ||
        PyArray_DIM(wt, 1) > 8) {
        shape_error(fn, "weights", wt, "it must be (V, K), K in 1..8, V of positions", pos);
        goto done;
    }
    const int K = (int)PyArray_DIM(wt, 1);
    if (opt_like(fn, "normals", o[4], 3, 2, pos, 0, "it must be (V, 3) like positions", &nrm))
        goto done;
    jt = (PyArrayObject *)PyArray_FROMANY(o[1], NPY_INT64, 2, 2, NPY_ARRAY_IN_ARRAY);
    if (!jt) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): joints must be a (V, K) array of integers", fn);
        goto done;
    }
    if ((size_t)PyArray_DIM(jt, 0) != V || PyArray_DIM(jt, 1) != K) {
        shape_error(fn, "joints", jt, "it must be (V, K) like weights", wt);
        goto done;
    }
    if (!(op = new_like(pos, 0, 0, 0)) || (nrm && !(on = new_like(pos, 0, 0, 0))))
        goto done;
    if (V == 0) {
        ret = on ? PyTuple_Pack(2, op, on) : (Py_INCREF(op), (PyObject *)op);
        goto done;
    }
    const int64_t *ji = (const int64_t *)PyArray_DATA(jt);
    size_t bad = SIZE_MAX;
    if (!(m3 = PyMem_RawMalloc((J * 12 + 1) * sizeof *m3)) ||
        !(j16 = PyMem_RawMalloc((V * (size_t)K + 1) * sizeof *j16))) {
        PyErr_NoMemory();
        goto done;
    }
    pb_status st;
    Py_BEGIN_ALLOW_THREADS const size_t rows = (size_t)PyArray_DIM(mat, 1);
    for (size_t j = 0; j < J; j++) /* rows 0..2, row-major: the 3x4 layout */
        memcpy(m3 + j * 12, F32(mat) + j * rows * 4, 12 * sizeof *m3);
    for (size_t i = 0; i < V * (size_t)K && bad == SIZE_MAX; i++) {
        if (ji[i] < 0 || (size_t)ji[i] >= J)
            bad = i;
        j16[i] = (uint16_t)ji[i];
    }
    st = bad != SIZE_MAX ? PB_ERR_ARG
                         : pb_skin_vertices(V, K, j16, F32(wt), J, m3, PB_MATRIX_3X4, F32(pos),
                                            F32(op), nrm ? F32(nrm) : NULL, on ? F32(on) : NULL);
    Py_END_ALLOW_THREADS if (bad != SIZE_MAX)
        PyErr_Format(PyExc_ValueError, "%s(): joints[%zu, %zu] is %lld, not in 0 .. %zu", fn,
                     bad / (size_t)K, bad % (size_t)K, (long long)ji[bad], J ? J - 1 : 0);
    else if (st != PB_OK) raise_status(fn, st);
    else ret = on ? PyTuple_Pack(2, op, on) : (Py_INCREF(op), (PyObject *)op);
done:
    PyMem_RawFree(m3);
    PyMem_RawFree(j16);
    Py_XDECREF(mat);
    Py_XDECREF(jt);
    Py_XDECREF(wt);
    Py_XDECREF(pos);
    Py_XDECREF(nrm);
    Py_XDECREF(op);
    Py_XDECREF(on);
    return ret;
}
