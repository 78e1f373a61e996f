/* Mirroring and root motion from Python: over numpy arrays (mirror_table,
 * mirror, root_motion_extract, root_motion_apply) and over Bvh (the
 * Bvh.mirror, Bvh.root_motion and Bvh.apply_root_motion methods). The GIL
 * is released around the library calls. */
#define PY_SSIZE_T_CLEAN
#include "_posebatch.h"

#include <stdlib.h>
#include <string.h>

#include <posebatch.h>

/* ------------------------------------------------------------ arguments */

/* An optional str argument arg as its index in names[0..count) (absent or
 * None: dflt); -1 with ValueError "argument 'arg' must be <want>" for
 * anything else (the whole str compared: "yz\0x" is not "yz"). */
static int opt_choice(const char *fn, const char *arg, PyObject *o, const char *const *names,
                      int count, int dflt, const char *want, int *i)
{
    *i = dflt;
    if (!o || o == Py_None)
        return 0;
    *i = str_index(o, names, count);
    if (*i >= 0)
        return 0;
    PyErr_Format(PyExc_ValueError, "%s(): argument '%s' must be %s", fn, arg, want);
    return -1;
}

static int opt_plane(const char *fn, PyObject *o, pb_mirror_plane *out)
{
    static const char *const names[] = {"yz", "xz", "xy"};
    static const pb_mirror_plane planes[] = {PB_MIRROR_YZ, PB_MIRROR_XZ, PB_MIRROR_XY};
    int i;
    if (opt_choice(fn, "plane", o, names, 3, 0, "'yz', 'xz' or 'xy'", &i))
        return -1;
    *out = planes[i];
    return 0;
}

static int opt_up(const char *fn, PyObject *o, pb_axis *out)
{
    static const char *const names[] = {"x", "X", "y", "Y", "z", "Z"};
    static const pb_axis axes[] = {PB_AXIS_X, PB_AXIS_Y, PB_AXIS_Z};
    int i;
    if (opt_choice(fn, "up", o, names, 6, 2, "'x', 'y' or 'z'", &i))
        return -1;
    *out = axes[i / 2];
    return 0;
}

/* "ground", "heading" or "ground,heading" (either order) */
static int opt_components(const char *fn, PyObject *o, unsigned *out)
{
    static const char *const names[] = {"ground", "heading", "ground,heading", "heading,ground"};
    static const unsigned comps[] = {PB_ROOT_GROUND, PB_ROOT_HEADING, PB_ROOT_ALL, PB_ROOT_ALL};
    int i;
    if (opt_choice(fn, "components", o, names, 4, 2, "'ground', 'heading' or 'ground,heading'", &i))
        return -1;
    *out = comps[i];
    return 0;
}

/* mirror as a table of n joints (get_joint_ints) that pairs them
 * (table[table[j]] == j); PyMem_Raw, the caller frees; NULL with ValueError
 * / TypeError */
static int32_t *mirror_arg(const char *fn, PyObject *o, size_t n)
{
    int32_t *t = get_joint_ints(fn, "table", o, n, PBPY_JOINTS);
    for (size_t j = 0; t && j < n; j++)
        if ((size_t)t[t[j]] != j) {
            PyErr_Format(PyExc_ValueError,
                         "%s(): table[%zu] is %d but table[%d] is %d: the table must pair "
                         "joints (table[table[j]] == j)",
                         fn, j, (int)t[j], (int)t[j], (int)t[t[j]]);
            PyMem_RawFree(t);
            t = NULL;
        }
    return t;
}

/* pairs: None, a dict {a: b}, or a sequence of (a, b) string pairs; the
 * strings stay alive with `keep` (a new list the caller releases). */
static pb_joint_pair *pair_list(const char *fn, PyObject *o, size_t *num, PyObject **keep)
{
    *num = 0;
    *keep = NULL;
    if (!o || o == Py_None)
        return NULL;
    PyObject *items = PyDict_Check(o) ? PyDict_Items(o) : PySequence_List(o);
    if (!items) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "%s(): argument 'pairs' must be a dict or a sequence of "
                     "(name, name) pairs",
                     fn);
        return NULL;
    }
    size_t n = (size_t)PyList_GET_SIZE(items);
    pb_joint_pair *p = malloc((n ? n : 1) * sizeof *p);
    if (!p) {
        Py_DECREF(items);
        PyErr_NoMemory();
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        PyObject *it = PyList_GET_ITEM(items, (Py_ssize_t)i);
        PyObject *a = NULL, *b = NULL;
        if (PySequence_Check(it) && !PyUnicode_Check(it) && PySequence_Size(it) == 2) {
            a = PySequence_GetItem(it, 0);
            b = PySequence_GetItem(it, 1);
        }
        const char *sa = NULL, *sb = NULL;
        int named = a && b && PyUnicode_Check(a) && PyUnicode_Check(b);
        if (named && (sa = utf8_arg(fn, "joint name", a)))
            sb = utf8_arg(fn, "joint name", b);
        /* the strings stay alive in the items list (after its first n) */
        if (sb && (PyList_Append(items, a) || PyList_Append(items, b)))
            sb = NULL;
        Py_XDECREF(a);
        Py_XDECREF(b);
        if (!sa || !sb) {
            if (!named) { /* else utf8_arg's error (a NUL) or PyList_Append's */
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError,
                             "%s(): argument 'pairs': entry %zu is not a pair of "
                             "joint names",
                             fn, i);
            }
            free(p);
            Py_DECREF(items);
            return NULL;
        }
        p[i].a = sa;
        p[i].b = sb;
    }
    *num = n;
    *keep = items;
    return p;
}

/* A (F, J, 4) rotations array and an optional (F, J, 3) positions array. */
typedef struct {
    PyArrayObject *rot, *pos;
    size_t F, J;
    int xyzw;
} motion_args;

static int get_motion(const char *fn, PyObject *r, PyObject *p, PyObject *order, int need_pos,
                      motion_args *m)
{
    memset(m, 0, sizeof *m);
    if (opt_order(fn, order, &m->xyzw))
        return -1;
    m->rot = get_f32(fn, "rotations", r, 4, 3);
    if (!m->rot)
        return -1;
    if (PyArray_NDIM(m->rot) != 3) {
        shape_error(fn, "rotations", m->rot, "it must be (frames, joints, 4)", NULL);
        return -1;
    }
    if (need_pos && (!p || p == Py_None)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'positions' is required", fn);
        return -1;
    }
    if (opt_like(fn, "positions", p, 3, 3, m->rot, 0,
                 "it must be (frames, joints, 3) like rotations", &m->pos))
        return -1;
    m->F = (size_t)PyArray_DIM(m->rot, 0);
    m->J = (size_t)PyArray_DIM(m->rot, 1);
    if (m->F == 0 || m->J == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): no frames or no joints", fn);
        return -1;
    }
    return 0;
}
static void drop_motion(motion_args *m)
{
    Py_XDECREF(m->rot);
    Py_XDECREF(m->pos);
}

/* SoA workspace of 7 F*J arrays filled from m; a clip over it. */
static float *soa_in(const motion_args *m, pb_clip *c)
{
    size_t n = m->F * m->J;
    float *w = malloc(7 * n * sizeof *w);
    if (!w) {
        PyErr_NoMemory();
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->frames = m->F;
    c->joints = m->J;
    c->frame_time = 1.0;
    c->rot = q_at(w, n);
    c->pos = v_at(w + 4 * n, n);
    q_split(F32(m->rot), n, m->xyzw, c->rot.w, c->rot.x, c->rot.y, c->rot.z);
    if (m->pos)
        v_split(F32(m->pos), n, c->pos.x, c->pos.y, c->pos.z);
    else
        memset(w + 4 * n, 0, 3 * n * sizeof *w);
    return w;
}

/* (rotations, positions) arrays of the clip (positions None when m has
 * none) */
static PyObject *soa_out(const motion_args *m, const pb_clip *c)
{
    size_t n = m->F * m->J;
    PyArrayObject *r = new_like(m->rot, 0, 0, 0);
    PyArrayObject *p = m->pos ? new_like(m->pos, 0, 0, 0) : NULL;
    if (!r || (m->pos && !p)) {
        Py_XDECREF(r);
        Py_XDECREF(p);
        return NULL;
    }
    q_join(F32(r), n, m->xyzw, c->rot.w, c->rot.x, c->rot.y, c->rot.z);
    if (p)
        v_join(F32(p), n, c->pos.x, c->pos.y, c->pos.z);
    PyObject *t = PyTuple_Pack(2, (PyObject *)r, p ? (PyObject *)p : Py_None);
    Py_DECREF(r);
    Py_XDECREF(p);
    return t;
}

/* ------------------------------------------------------------ arrays */

PyObject *pbpy_mirror_table(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    (void)self;
    const char *fn = "mirror_table";
    static const char *names[] = {"names", "pairs"};
    PyObject *o[2];
    if (parse_args(fn, args, nargs, kwnames, names, 2, 2, 1, o))
        return NULL;
    /* a tuple: the names' strings stay alive while pairs (user code) are read */
    PyObject *seq = PySequence_Tuple(o[0]);
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): argument 'names' must be a sequence of str", fn);
        return NULL;
    }
    size_t n = (size_t)PyTuple_GET_SIZE(seq);
    const char **nm = malloc((n ? n : 1) * sizeof *nm);
    int32_t *tab = malloc((n ? n : 1) * sizeof *tab);
    size_t np = 0;
    PyObject *keep = NULL, *res = NULL;
    pb_joint_pair *pairs = NULL;
    if (!nm || !tab) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        PyObject *it = PyTuple_GET_ITEM(seq, (Py_ssize_t)i);
        if (!PyUnicode_Check(it)) {
            PyErr_Format(PyExc_TypeError, "%s(): argument 'names': entry %zu is not a str", fn, i);
            goto done;
        }
        if (!(nm[i] = utf8_arg(fn, "joint name", it)))
            goto done;
    }
    pairs = pair_list(fn, o[1], &np, &keep);
    if (PyErr_Occurred())
        goto done;
    pb_io_error err;
    if (pb_joint_mirror_table(n, nm, pairs, np, tab, &err) != PB_IO_OK) {
        bvh_raise(&err, NULL);
        goto done;
    }
    res = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; res && i < n; i++)
        PyList_SET_ITEM(res, (Py_ssize_t)i, PyLong_FromLong(tab[i]));
done:
    free(pairs);
    Py_XDECREF(keep);
    free(nm);
    free(tab);
    Py_DECREF(seq);
    return res;
}

PyObject *pbpy_mirror(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    const char *fn = "mirror";
    static const char *names[] = {"rotations", "table", "positions", "plane", "order"};
    PyObject *o[5];
    if (parse_args(fn, args, nargs, kwnames, names, 5, 4, 2, o))
        return NULL;
    pb_mirror_plane plane;
    motion_args m;
    memset(&m, 0, sizeof m);
    if (opt_plane(fn, o[3], &plane) || get_motion(fn, o[0], o[2], o[4], 0, &m)) {
        drop_motion(&m);
        return NULL;
    }
    PyObject *res = NULL;
    int32_t *tab = mirror_arg(fn, o[1], m.J);
    pb_clip c;
    float *w = tab ? soa_in(&m, &c) : NULL;
    if (w) {
        pb_status st;
        Py_BEGIN_ALLOW_THREADS st = pb_clip_mirror(&c, tab, plane, &c);
        Py_END_ALLOW_THREADS res = st == PB_OK ? soa_out(&m, &c) : raise_status(fn, st);
    }
    free(w);
    PyMem_RawFree(tab);
    drop_motion(&m);
    return res;
}

/* the track of F frames as (positions (F, 3), rotations (F, 4)) arrays */
static PyObject *track_out(size_t F, int xyzw, const float *mem)
{
    npy_intp d3[2] = {(npy_intp)F, 3}, d4[2] = {(npy_intp)F, 4};
    PyArrayObject *p = (PyArrayObject *)PyArray_SimpleNew(2, d3, NPY_FLOAT32);
    PyArrayObject *r = (PyArrayObject *)PyArray_SimpleNew(2, d4, NPY_FLOAT32);
    if (!p || !r) {
        Py_XDECREF(p);
        Py_XDECREF(r);
        return NULL;
    }
    v_join(F32(p), F, mem, mem + F, mem + 2 * F);
    q_join(F32(r), F, xyzw, mem + 3 * F, mem + 4 * F, mem + 5 * F, mem + 6 * F);
    PyObject *t = PyTuple_Pack(2, (PyObject *)p, (PyObject *)r);
    Py_DECREF(p);
    Py_DECREF(r);
    return t;
}

/* root track arrays (F, 3) and (F, 4) into mem (7 F floats) */
static int track_in(const char *fn, PyObject *po, PyObject *ro, size_t F, int xyzw, float *mem)
{
    PyArrayObject *p = get_f32(fn, "root_positions", po, 3, 2);
    if (!p)
        return -1;
    PyArrayObject *r = get_f32(fn, "root_rotations", ro, 4, 2);
    if (!r) {
        Py_DECREF(p);
        return -1;
    }
    int bad = PyArray_NDIM(p) != 2 || (size_t)PyArray_DIM(p, 0) != F || PyArray_NDIM(r) != 2 ||
              (size_t)PyArray_DIM(r, 0) != F;
    if (bad)
        PyErr_Format(PyExc_ValueError,
                     "%s(): root_positions must be (%zu, 3) and root_rotations (%zu, 4)", fn, F, F);
    else {
        v_split(F32(p), F, mem, mem + F, mem + 2 * F);
        q_split(F32(r), F, xyzw, mem + 3 * F, mem + 4 * F, mem + 5 * F, mem + 6 * F);
    }
    Py_DECREF(p);
    Py_DECREF(r);
    return bad ? -1 : 0;
}

static pb_root_track track_at(float *mem, size_t F)
{
    pb_root_track t = {{mem, mem + F, mem + 2 * F},
                       {mem + 3 * F, mem + 4 * F, mem + 5 * F, mem + 6 * F}};
    return t;
}

/* extract (apply == 0) or apply over arrays */
static PyObject *root_arrays(const char *fn, int apply, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    static const char *n_ex[] = {"rotations", "positions",  "parents", "joint",
                                 "up",        "components", "order"};
    static const char *n_ap[] = {
        "rotations", "positions", "root_positions", "root_rotations", "parents",
        "joint",     "up",        "components",     "order"};
    PyObject *o[9];
    int cnt = apply ? 9 : 7, base = apply ? 2 : 0;
    if (parse_args(fn, args, nargs, kwnames, apply ? n_ap : n_ex, cnt, apply ? 5 : 3, apply ? 4 : 2,
                   o))
        return NULL;
    pb_root_opts ro = PB_ROOT_OPTS_DEFAULT;
    motion_args m;
    memset(&m, 0, sizeof m);
    long joint = (long)ro.joint;
    if (opt_index(fn, "joint", o[base + 3], joint, &joint) || opt_up(fn, o[base + 4], &ro.up) ||
        opt_components(fn, o[base + 5], &ro.components) ||
        get_motion(fn, o[0], o[1], o[base + 6], 1, &m)) {
        drop_motion(&m);
        return NULL;
    }
    ro.joint = (size_t)joint;
    PyObject *res = NULL;
    int32_t *par = NULL;
    float *w = NULL, *tm = NULL;
    pb_clip c;
    PyObject *po = o[base + 2];
    if (ro.joint >= m.J) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'joint' is %zu; the arrays have %zu joints",
                     fn, ro.joint, m.J);
        goto done;
    }
    if (po && po != Py_None && !(par = get_joint_ints(fn, "parents", po, m.J, PBPY_PARENTS)))
        goto done;
    if (!(w = soa_in(&m, &c)))
        goto done;
    if (!(tm = malloc(7 * m.F * sizeof *tm))) {
        PyErr_NoMemory();
        goto done;
    }
    if (apply && track_in(fn, o[2], o[3], m.F, m.xyzw, tm))
        goto done;
    pb_root_track t = track_at(tm, m.F);
    pb_croot_track ct = {pb_cv(t.pos), pb_cq(t.rot)};
    pb_status st;
    Py_BEGIN_ALLOW_THREADS st =
        apply ? pb_clip_root_apply(&c, par, &ro, &ct) : pb_clip_root_extract(&c, par, &ro, &t);
    Py_END_ALLOW_THREADS if (st != PB_OK)
    {
        raise_status(fn, st);
        goto done;
    }
    PyObject *clip = soa_out(&m, &c);
    if (!clip || apply) {
        res = clip;
        goto done;
    }
    PyObject *tr = track_out(m.F, m.xyzw, tm);
    if (tr)
        res = PyTuple_Pack(4, PyTuple_GET_ITEM(clip, 0), PyTuple_GET_ITEM(clip, 1),
                           PyTuple_GET_ITEM(tr, 0), PyTuple_GET_ITEM(tr, 1));
    Py_DECREF(clip);
    Py_XDECREF(tr);
done:
    free(tm);
    free(w);
    PyMem_RawFree(par);
    drop_motion(&m);
    return res;
}

PyObject *pbpy_root_motion_extract(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
    (void)self;
    return root_arrays("root_motion_extract", 0, args, nargs, kwnames);
}

PyObject *pbpy_root_motion_apply(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    (void)self;
    return root_arrays("root_motion_apply", 1, args, nargs, kwnames);
}

/* ------------------------------------------------------------ Bvh */

PyObject *pbpy_bvh_mirror(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    const char *fn = "Bvh.mirror";
    static const char *names[] = {"plane", "pairs"};
    PyObject *o[2];
    pb_mirror_plane plane;
    if (parse_args(fn, args, nargs, kwnames, names, 2, 1, 0, o) || opt_plane(fn, o[0], &plane))
        return NULL;
    BvhObject *src = (BvhObject *)self;
    size_t np;
    PyObject *keep;
    pb_joint_pair *pairs = pair_list(fn, o[1], &np, &keep);
    if (PyErr_Occurred())
        return NULL;
    size_t J = src->b.num_joints;
    int32_t *tab = malloc((J ? J : 1) * sizeof *tab);
    BvhObject *r = tab ? bvh_new() : NULL;
    PyObject *res = NULL;
    if (!tab)
        PyErr_NoMemory();
    if (r) {
        pb_io_error err;
        pb_io_code code;
        Py_BEGIN_ALLOW_THREADS code = pb_bvh_mirror_table(&src->b, pairs, np, tab, &err);
        if (code == PB_IO_OK)
            code = pb_bvh_mirror(&src->b, tab, plane, &r->b, &err);
        Py_END_ALLOW_THREADS res = io_result(code, &err, (PyObject *)r);
    }
    free(tab);
    free(pairs);
    Py_XDECREF(keep);
    return res;
}

/* a copy of src's skeleton and motion (source angles and decimals too) */
static BvhObject *bvh_copy(const pb_bvh *src)
{
    BvhObject *r = bvh_like(src, src->num_frames, src->frame_time);
    if (!r)
        return NULL;
    size_t n = src->num_frames * src->num_joints;
    const float *s[7] = {src->rot_w, src->rot_x, src->rot_y, src->rot_z,
                         src->pos_x, src->pos_y, src->pos_z};
    float *d[7] = {r->b.rot_w, r->b.rot_x, r->b.rot_y, r->b.rot_z,
                   r->b.pos_x, r->b.pos_y, r->b.pos_z};
    for (int k = 0; k < 7 && n; k++)
        memcpy(d[k], s[k], n * sizeof(float));
    if (n && src->euler_deg && (r->b.euler_deg = malloc(3 * n * sizeof(double))))
        memcpy(r->b.euler_deg, src->euler_deg, 3 * n * sizeof(double));
    size_t nd = src->num_frames * src->num_channels;
    if (nd && src->decimals && (r->b.decimals = malloc(nd)))
        memcpy(r->b.decimals, src->decimals, nd);
    return r;
}

static PyObject *bvh_root(const char *fn, int apply, PyObject *self, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *n_ex[] = {"joint", "up", "components", "order"};
    static const char *n_ap[] = {"root_positions", "root_rotations", "joint", "up",
                                 "components",     "order"};
    PyObject *o[6];
    int base = apply ? 2 : 0;
    if (parse_args(fn, args, nargs, kwnames, apply ? n_ap : n_ex, apply ? 6 : 4, apply ? 3 : 1,
                   apply ? 2 : 0, o))
        return NULL;
    BvhObject *src = (BvhObject *)self;
    pb_root_opts ro = PB_ROOT_OPTS_DEFAULT;
    int xyzw;
    PyObject *jo = o[base];
    if (opt_up(fn, o[base + 1], &ro.up) || opt_components(fn, o[base + 2], &ro.components) ||
        opt_order(fn, o[base + 3], &xyzw))
        return NULL;
    if (jo && jo != Py_None) {
        if (PyUnicode_Check(jo)) {
            const char *nm = utf8_arg(fn, "joint name", jo);
            long j = nm ? pb_bvh_find_joint(&src->b, nm) : -1;
            if (j < 0) {
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "%s(): no joint named '%s'", fn, nm);
                return NULL;
            }
            ro.joint = (size_t)j;
        } else {
            long j;
            if (opt_index(fn, "joint", jo, 0, &j))
                return NULL;
            ro.joint = (size_t)j;
        }
    }
    const size_t F = src->b.num_frames, J = src->b.num_joints;
    if (F == 0) {
        PyErr_Format(PyExc_ValueError, "%s(): the clip has no frames", fn);
        return NULL;
    }
    if (ro.joint >= J) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'joint' is %zu; the clip has %zu joints", fn,
                     ro.joint, J);
        return NULL;
    }
    float *tm = malloc(7 * F * sizeof *tm);
    int32_t *par = malloc(J * sizeof *par);
    BvhObject *r = NULL;
    PyObject *res = NULL;
    if (!tm || !par) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t j = 0; j < J; j++)
        par[j] = src->b.joints[j].parent;
    if (apply && track_in(fn, o[0], o[1], F, xyzw, tm))
        goto done;
    if (!(r = bvh_copy(&src->b)))
        goto done;
    pb_clip c = pb_bvh_clip(&r->b);
    pb_root_track t = track_at(tm, F);
    pb_croot_track ct = {pb_cv(t.pos), pb_cq(t.rot)};
    pb_status st;
    Py_BEGIN_ALLOW_THREADS st =
        apply ? pb_clip_root_apply(&c, par, &ro, &ct) : pb_clip_root_extract(&c, par, &ro, &t);
    Py_END_ALLOW_THREADS if (st != PB_OK)
    {
        raise_status(fn, st);
        goto done;
    }
    if (apply) {
        res = (PyObject *)r;
        r = NULL;
        goto done;
    }
    PyObject *tr = track_out(F, xyzw, tm);
    if (tr) {
        res = PyTuple_Pack(3, (PyObject *)r, PyTuple_GET_ITEM(tr, 0), PyTuple_GET_ITEM(tr, 1));
        Py_DECREF(tr);
    }
done:
    Py_XDECREF(r);
    free(tm);
    free(par);
    return res;
}

PyObject *pbpy_bvh_root_motion(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    return bvh_root("Bvh.root_motion", 0, self, args, nargs, kwnames);
}

PyObject *pbpy_bvh_apply_root_motion(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames)
{
    return bvh_root("Bvh.apply_root_motion", 1, self, args, nargs, kwnames);
}
