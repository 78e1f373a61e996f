/* posebatch.retarget and posebatch.retarget_match: a Bvh's motion on another
 * Bvh's skeleton (pb_bvh_retarget, include/posebatch/io.h), the map given as
 * a dict, a sequence of (source, target) pairs or a map file's path. */
#define PY_SSIZE_T_CLEAN
#include "_posebatch.h"

#include <stdlib.h>
#include <string.h>

/* the module's entries (declared again in _posebatch.c's method table) */
PyObject *py_retarget(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *py_retarget_match(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames);

int pbpy_get_map(const char *fn, PyObject *o, pb_retarget_map *map, int *parsed, PyObject **keep,
                 const char ***names)
{
    memset(map, 0, sizeof *map);
    *parsed = 0;
    *keep = NULL;
    *names = NULL;
    if (!o || o == Py_None)
        return 0;
    if (PyUnicode_Check(o) || PyBytes_Check(o) || PyObject_HasAttrString(o, "__fspath__")) {
        PyObject *b = NULL;
        if (!PyUnicode_FSConverter(o, &b))
            return -1;
        pb_io_error err;
        pb_io_code code;
        const char *path = PyBytes_AS_STRING(b);
        Py_BEGIN_ALLOW_THREADS code = pb_retarget_map_read_file(path, map, &err);
        Py_END_ALLOW_THREADS if (io_path_done(code, &err, b)) return -1;
        *parsed = 1;
        return 0;
    }
    PyObject *items = PyDict_Check(o) ? PyDict_Items(o) : PySequence_List(o);
    if (!items) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "%s(): argument 'map' must be a dict, a sequence of (source, target) pairs "
                     "or a map file's path, not %.100s",
                     fn, Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(items);
    *keep = PyList_New(0);
    *names = malloc((size_t)(n ? 2 * n : 1) * sizeof **names);
    if (!*keep || !*names) {
        Py_DECREF(items);
        if (*names == NULL)
            PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyList_GET_ITEM(items, i);
        if (!PyTuple_Check(pair) && !PyList_Check(pair)) {
            PyErr_Format(PyExc_TypeError, "%s(): map entry %zd is not a (source, target) pair", fn,
                         i);
            Py_DECREF(items);
            return -1;
        }
        PyObject *seq = PySequence_Fast(pair, "pair");
        if (!seq || PySequence_Fast_GET_SIZE(seq) != 2) {
            if (seq)
                PyErr_Format(PyExc_ValueError, "%s(): map entry %zd does not have two names", fn,
                             i);
            Py_XDECREF(seq);
            Py_DECREF(items);
            return -1;
        }
        for (int k = 0; k < 2; k++) {
            PyObject *s = PySequence_Fast_GET_ITEM(seq, k);
            if (!PyUnicode_Check(s)) {
                PyErr_Format(PyExc_TypeError, "%s(): map entry %zd: joint names must be str", fn,
                             i);
                Py_DECREF(seq);
                Py_DECREF(items);
                return -1;
            }
            const char *u = utf8_arg(fn, "joint name", s);
            if (!u || PyList_Append(*keep, s)) { /* *keep holds s, and so u */
                Py_DECREF(seq);
                Py_DECREF(items);
                return -1;
            }
            (*names)[2 * i + k] = u;
        }
        Py_DECREF(seq);
    }
    Py_DECREF(items);
    /* source names then target names, as two arrays */
    const char **src = *names, **tmp = malloc((size_t)(n ? 2 * n : 1) * sizeof *tmp);
    if (!tmp) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        tmp[i] = src[2 * i];
        tmp[n + i] = src[2 * i + 1];
    }
    memcpy(src, tmp, (size_t)(2 * n) * sizeof *tmp);
    free(tmp);
    map->count = (size_t)n;
    map->source = src;
    map->target = src + n;
    return 0;
}

void pbpy_put_map(pb_retarget_map *map, int parsed, PyObject *keep, const char **names)
{
    if (parsed)
        pb_retarget_map_free(map);
    Py_XDECREF(keep);
    free(names);
}

/* The arguments (clip, target, map=None, *, map_only=False) of both calls:
 * the two clips, the map and the options over it (release with put_call). */
typedef struct {
    BvhObject *src, *tgt;
    pb_retarget_map map;
    int parsed;
    PyObject *keep;
    const char **names;
    pb_retarget_opts opts;
} call_args;

/* 0, or -1 with the error set (nothing left to release) */
static int get_call(const char *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    call_args *c)
{
    static const char *names[] = {"clip", "target", "map", "map_only"};
    PyObject *o[4];
    if (parse_args(fn, args, nargs, kwnames, names, 4, 3, 2, o))
        return -1;
    for (int k = 0; k < 2; k++)
        if (!PyObject_TypeCheck(o[k], &BvhType)) {
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a posebatch.Bvh, not %.100s",
                         fn, names[k], Py_TYPE(o[k])->tp_name);
            return -1;
        }
    c->src = (BvhObject *)o[0];
    c->tgt = (BvhObject *)o[1];
    int map_only = 0;
    if (opt_bool(fn, "map_only", o[3], &map_only))
        return -1;
    if (pbpy_get_map(fn, o[2], &c->map, &c->parsed, &c->keep, &c->names)) {
        pbpy_put_map(&c->map, c->parsed, c->keep, c->names);
        return -1;
    }
    c->opts.map = o[2] && o[2] != Py_None ? &c->map : NULL;
    c->opts.flags = map_only ? PB_RETARGET_MAP_ONLY : 0u;
    return 0;
}

static void put_call(call_args *c) { pbpy_put_map(&c->map, c->parsed, c->keep, c->names); }

PyObject *py_retarget(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    call_args c;
    if (get_call("retarget", args, nargs, kwnames, &c))
        return NULL;
    BvhObject *r = bvh_new();
    if (!r) {
        put_call(&c);
        return NULL;
    }
    pb_io_code code;
    pb_io_error err;
    /* the Bvh objects are not changed by anyone while we hold references:
     * their data are immutable from Python */
    Py_BEGIN_ALLOW_THREADS code = pb_bvh_retarget(&c.src->b, &c.tgt->b, &c.opts, &r->b, &err);
    Py_END_ALLOW_THREADS put_call(&c);
    return io_result(code, &err, (PyObject *)r);
}

PyObject *py_retarget_match(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    (void)self;
    call_args c;
    if (get_call("retarget_match", args, nargs, kwnames, &c))
        return NULL;
    const pb_bvh *src = &c.src->b, *tgt = &c.tgt->b;
    size_t J = tgt->num_joints;
    long *match = malloc((J ? J : 1) * sizeof *match);
    if (!match) {
        put_call(&c);
        return PyErr_NoMemory();
    }
    pb_io_code code;
    pb_io_error err;
    Py_BEGIN_ALLOW_THREADS code = pb_bvh_retarget_match(src, tgt, &c.opts, match, &err);
    Py_END_ALLOW_THREADS put_call(&c);
    if (code != PB_IO_OK) {
        free(match);
        return bvh_raise(&err, NULL);
    }
    PyObject *d = PyDict_New();
    for (size_t t = 0; d && t < J; t++) {
        PyObject *v = str_or_none(match[t] >= 0 ? src->joints[match[t]].name : NULL);
        PyObject *k = str_or_none(tgt->joints[t].name);
        if (!v || !k || PyDict_SetItem(d, k, v))
            Py_CLEAR(d);
        Py_XDECREF(v);
        Py_XDECREF(k);
    }
    free(match);
    return d;
}
