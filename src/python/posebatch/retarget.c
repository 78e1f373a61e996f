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

/* The map argument as a pb_retarget_map: its strings point into `keep` (a
 * list holding the bytes objects) or into a parsed map file (*parsed). 0, or
 * -1 with the error set. */
static int get_map(const char *fn, PyObject *o, pb_retarget_map *map, int *parsed, PyObject **keep,
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
        Py_END_ALLOW_THREADS if (code != PB_IO_OK)
        {
            bvh_raise(&err, err.code == PB_IO_ERR_IO ? NULL : path);
            Py_DECREF(b);
            return -1;
        }
        Py_DECREF(b);
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
            PyObject *u = PyUnicode_AsUTF8String(s);
            if (!u || PyList_Append(*keep, u)) {
                Py_XDECREF(u);
                Py_DECREF(seq);
                Py_DECREF(items);
                return -1;
            }
            (*names)[2 * i + k] = PyBytes_AS_STRING(u);
            Py_DECREF(u); /* *keep holds it */
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

static void put_map(pb_retarget_map *map, int parsed, PyObject *keep, const char **names)
{
    if (parsed)
        pb_retarget_map_free(map);
    Py_XDECREF(keep);
    free(names);
}

/* parses (clip, target, map=None, *, map_only=False) */
static int parse(const char *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                 BvhObject **src, BvhObject **tgt, PyObject **map_arg, int *map_only)
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
    *src = (BvhObject *)o[0];
    *tgt = (BvhObject *)o[1];
    *map_arg = o[2];
    *map_only = 0;
    return opt_bool(fn, "map_only", o[3], map_only);
}

PyObject *py_retarget(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    const char *fn = "retarget";
    BvhObject *src, *tgt;
    PyObject *map_arg, *keep;
    int map_only, parsed;
    const char **names;
    pb_retarget_map map;
    if (parse(fn, args, nargs, kwnames, &src, &tgt, &map_arg, &map_only))
        return NULL;
    if (get_map(fn, map_arg, &map, &parsed, &keep, &names)) {
        put_map(&map, parsed, keep, names);
        return NULL;
    }
    BvhObject *r = bvh_new();
    if (!r) {
        put_map(&map, parsed, keep, names);
        return NULL;
    }
    pb_retarget_opts ro = {map_arg && map_arg != Py_None ? &map : NULL,
                           map_only ? PB_RETARGET_MAP_ONLY : 0u};
    pb_io_code code;
    pb_io_error err;
    /* the Bvh objects are not changed by anyone while we hold references:
     * their data are immutable from Python */
    Py_BEGIN_ALLOW_THREADS code = pb_bvh_retarget(&src->b, &tgt->b, &ro, &r->b, &err);
    Py_END_ALLOW_THREADS put_map(&map, parsed, keep, names);
    if (code != PB_IO_OK) {
        Py_DECREF(r);
        return bvh_raise(&err, NULL);
    }
    return (PyObject *)r;
}

PyObject *py_retarget_match(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    (void)self;
    const char *fn = "retarget_match";
    BvhObject *src, *tgt;
    PyObject *map_arg, *keep;
    int map_only, parsed;
    const char **names;
    pb_retarget_map map;
    if (parse(fn, args, nargs, kwnames, &src, &tgt, &map_arg, &map_only))
        return NULL;
    if (get_map(fn, map_arg, &map, &parsed, &keep, &names)) {
        put_map(&map, parsed, keep, names);
        return NULL;
    }
    size_t J = tgt->b.num_joints;
    long *match = malloc((J ? J : 1) * sizeof *match);
    if (!match) {
        put_map(&map, parsed, keep, names);
        return PyErr_NoMemory();
    }
    pb_retarget_opts ro = {map_arg && map_arg != Py_None ? &map : NULL,
                           map_only ? PB_RETARGET_MAP_ONLY : 0u};
    pb_io_code code;
    pb_io_error err;
    Py_BEGIN_ALLOW_THREADS code = pb_bvh_retarget_match(&src->b, &tgt->b, &ro, match, &err);
    Py_END_ALLOW_THREADS put_map(&map, parsed, keep, names);
    if (code != PB_IO_OK) {
        free(match);
        return bvh_raise(&err, NULL);
    }
    PyObject *d = PyDict_New();
    for (size_t t = 0; d && t < J; t++) {
        const char *sn = match[t] >= 0 ? src->b.joints[match[t]].name : NULL;
        PyObject *v = sn ? PyUnicode_DecodeUTF8(sn, (Py_ssize_t)strlen(sn), "replace")
                         : (Py_INCREF(Py_None), Py_None);
        PyObject *k = PyUnicode_DecodeUTF8(tgt->b.joints[t].name,
                                           (Py_ssize_t)strlen(tgt->b.joints[t].name), "replace");
        if (!v || !k || PyDict_SetItem(d, k, v))
            Py_CLEAR(d);
        Py_XDECREF(v);
        Py_XDECREF(k);
    }
    free(match);
    return d;
}
