/* The core of posebatch.Bvh that every file making or checking a Bvh uses:
 * the type object (its life: new, dealloc, repr; bvh.c adds the methods and
 * attributes and readies it), posebatch.BvhError, the Python exception
 * of a pb_io_error and the checks after a library call that raise it. */
#define PY_SSIZE_T_CLEAN
#include "_posebatch.h"

#include <string.h>

PyObject *BvhError;

int pbpy_new_bvh_error(void)
{
    BvhError = PyErr_NewExceptionWithDoc(
        "posebatch.BvhError",
        "A BVH file the reader refuses or the writer cannot write (a ValueError; .code: the\n"
        "kind, .line: the 1-based line or 0).",
        PyExc_ValueError, NULL);
    return BvhError ? 0 : -1;
}

PyObject *bvh_raise(const pb_io_error *err, const char *path)
{
    if (err->code == PB_IO_ERR_NOMEM)
        return PyErr_NoMemory();
    if (err->code == PB_IO_ERR_IO) {
        PyErr_SetString(PyExc_OSError, err->message);
        return NULL;
    }
    PyObject *msg = path ? PyUnicode_FromFormat("%s: %s", path, err->message)
                         : PyUnicode_FromString(err->message);
    if (!msg)
        return NULL;
    PyObject *e = PyObject_CallOneArg(BvhError, msg);
    Py_DECREF(msg);
    if (!e)
        return NULL;
    PyObject *code = PyUnicode_FromString(pb_io_code_str(err->code));
    PyObject *line = PyLong_FromLong(err->line);
    if (code)
        PyObject_SetAttrString(e, "code", code);
    if (line)
        PyObject_SetAttrString(e, "line", line);
    Py_XDECREF(code);
    Py_XDECREF(line);
    PyErr_SetObject(BvhError, e);
    Py_DECREF(e);
    return NULL;
}

int io_path_done(pb_io_code code, const pb_io_error *err, PyObject *path)
{
    if (code != PB_IO_OK)
        bvh_raise(err, PyBytes_AS_STRING(path));
    Py_DECREF(path);
    return code == PB_IO_OK ? 0 : -1;
}

PyObject *io_result(pb_io_code code, const pb_io_error *err, PyObject *r)
{
    if (code == PB_IO_OK)
        return r;
    Py_DECREF(r);
    return bvh_raise(err, NULL);
}

static void Bvh_dealloc(BvhObject *self)
{
    pb_bvh_free(&self->b);
    Py_XDECREF(self->warnings);
    Py_XDECREF(self->motion);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Bvh_repr(BvhObject *self)
{
    char ft[64];
    snprintf(ft, sizeof ft, "%g", 1.0 / self->b.frame_time);
    return PyUnicode_FromFormat("<posebatch.Bvh: %zu joints, %zu frames at %s fps>",
                                self->b.num_joints, self->b.num_frames, ft);
}

PyTypeObject BvhType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "posebatch.Bvh",
    .tp_basicsize = sizeof(BvhObject),
    .tp_dealloc = (destructor)Bvh_dealloc,
    .tp_repr = (reprfunc)Bvh_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A BVH clip (skeleton and motion) read by posebatch.read_bvh / parse_bvh.",
};

BvhObject *bvh_new(void)
{
    BvhObject *o = PyObject_New(BvhObject, &BvhType);
    if (!o)
        return NULL;
    memset(&o->b, 0, sizeof o->b);
    o->motion = NULL;
    o->warnings = PyList_New(0);
    if (!o->warnings) {
        Py_DECREF(o);
        return NULL;
    }
    return o;
}

BvhObject *bvh_like(const pb_bvh *b, size_t frames, double frame_time)
{
    BvhObject *r = bvh_new();
    if (!r)
        return NULL;
    pb_io_error err;
    pb_io_code code = pb_bvh_new_motion(b, frames, frame_time, &r->b, &err);
    return (BvhObject *)io_result(code, &err, (PyObject *)r);
}
