/* posebatch.Gltf: a glTF 2.0 file read, resampled, converted and written by
 * the library (include/posebatch/io.h), as the CLI does it. */
#define PY_SSIZE_T_CLEAN
#include "_posebatch.h"

#include <string.h>

typedef struct {
    PyObject_HEAD pb_gltf g;
} GltfObject;

static GltfObject *gltf_new(void)
{
    GltfObject *o = PyObject_New(GltfObject, &GltfType);
    if (o)
        memset(&o->g, 0, sizeof o->g);
    return o;
}

static void Gltf_dealloc(GltfObject *self)
{
    pb_gltf_free(&self->g);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* fn's one argument, path, as bytes (filesystem encoding); NULL with an
 * exception set */
static PyObject *path_arg(const char *fn, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    static const char *names[] = {"path"};
    PyObject *o[1], *bytes = NULL;
    if (parse_args(fn, args, nargs, kwnames, names, 1, 1, 1, o))
        return NULL;
    return PyUnicode_FSConverter(o[0], &bytes) ? bytes : NULL;
}

PyObject *pbpy_file_format(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    (void)self;
    PyObject *bytes = path_arg("file_format", args, nargs, kwnames);
    if (!bytes)
        return NULL;
    pb_io_format f;
    Py_BEGIN_ALLOW_THREADS f = pb_io_format_of_file(PyBytes_AS_STRING(bytes));
    Py_END_ALLOW_THREADS Py_DECREF(bytes);
    return PyUnicode_FromString(pb_io_format_name(f));
}

PyObject *pbpy_read_gltf(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)self;
    PyObject *bytes = path_arg("read_gltf", args, nargs, kwnames);
    if (!bytes)
        return NULL;
    GltfObject *r = gltf_new();
    if (!r) {
        Py_DECREF(bytes);
        return NULL;
    }
    const char *path = PyBytes_AS_STRING(bytes);
    pb_io_error err;
    pb_io_code code;
    Py_BEGIN_ALLOW_THREADS code = pb_gltf_read_file(path, &r->g, &err);
    Py_END_ALLOW_THREADS if (io_path_done(code, &err, bytes))
    {
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

static PyObject *Gltf_resample(GltfObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    const char *fn = "Gltf.resample";
    static const char *names[] = {"fps", "cubic"};
    PyObject *o[2];
    double fps;
    int cubic = 0;
    if (parse_args(fn, args, nargs, kwnames, names, 2, 1, 1, o) ||
        opt_double(fn, "fps", o[0], &fps) || opt_bool(fn, "cubic", o[1], &cubic))
        return NULL;
    GltfObject *r = gltf_new();
    if (!r)
        return NULL;
    pb_io_error err;
    pb_io_code code;
    Py_BEGIN_ALLOW_THREADS code =
        pb_gltf_resample(&self->g, fps, cubic ? PB_GLTF_RESAMPLE_CUBIC : 0u, &r->g, &err);
    Py_END_ALLOW_THREADS return io_result(code, &err, (PyObject *)r);
}

static PyObject *Gltf_write(GltfObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    PyObject *bytes = path_arg("Gltf.write", args, nargs, kwnames);
    if (!bytes)
        return NULL;
    const char *path = PyBytes_AS_STRING(bytes);
    pb_io_error err;
    pb_io_code code;
    Py_BEGIN_ALLOW_THREADS code = pb_gltf_write_file(path, &self->g, &err);
    Py_END_ALLOW_THREADS if (io_path_done(code, &err, bytes)) return NULL;
    Py_RETURN_NONE;
}

static PyObject *Gltf_to_bvh(GltfObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    const char *fn = "Gltf.to_bvh";
    static const char *names[] = {"skin", "animation", "fps"};
    PyObject *o[3];
    long skin, anim;
    double fps = 0.0;
    if (parse_args(fn, args, nargs, kwnames, names, 3, 0, 0, o) ||
        opt_index(fn, "skin", o[0], pb_gltf_default_skin(&self->g), &skin) ||
        opt_index(fn, "animation", o[1], 0, &anim) ||
        (o[2] && o[2] != Py_None && opt_double(fn, "fps", o[2], &fps)))
        return NULL;
    if (!(o[0] && o[0] != Py_None) && self->g.num_skins > 1) {
        PyErr_Format(PyExc_ValueError, "%s(): the file has %zu skins: pass skin=N", fn,
                     self->g.num_skins);
        return NULL;
    }
    if (o[2] && o[2] != Py_None && !(fps > 0.0)) {
        PyErr_Format(PyExc_ValueError, "%s(): argument 'fps' must be > 0", fn);
        return NULL;
    }
    BvhObject *r = bvh_new();
    if (!r)
        return NULL;
    pb_io_error err;
    pb_io_code code;
    Py_BEGIN_ALLOW_THREADS code =
        pb_gltf_to_bvh(&self->g, skin, (size_t)anim, fps > 0.0 ? 1.0 / fps : 0.0, &r->b, &err);
    Py_END_ALLOW_THREADS return io_result(code, &err, (PyObject *)r);
}

PyObject *pbpy_bvh_to_gltf(PyObject *self, PyObject *unused)
{
    (void)unused;
    GltfObject *r = gltf_new();
    if (!r)
        return NULL;
    pb_io_error err;
    pb_io_code code;
    Py_BEGIN_ALLOW_THREADS code = pb_gltf_from_bvh(&((BvhObject *)self)->b, &r->g, &err);
    Py_END_ALLOW_THREADS return io_result(code, &err, (PyObject *)r);
}

/* node i's name (None when unnamed), for list_of over the pb_gltf */
static PyObject *node_name(const void *g, size_t i)
{
    return str_or_none(((const pb_gltf *)g)->nodes[i].name);
}

static PyObject *Gltf_get_node_names(GltfObject *self, void *c)
{
    (void)c;
    return list_of(self->g.num_nodes, node_name, &self->g);
}

static PyObject *Gltf_get_num_animations(GltfObject *self, void *c)
{
    (void)c;
    return PyLong_FromSize_t(self->g.num_animations);
}

static PyObject *Gltf_get_num_skins(GltfObject *self, void *c)
{
    (void)c;
    return PyLong_FromSize_t(self->g.num_skins);
}

static PyObject *Gltf_repr(GltfObject *self)
{
    return PyUnicode_FromFormat("<posebatch.Gltf: %zu nodes, %zu skins, %zu animations>",
                                self->g.num_nodes, self->g.num_skins, self->g.num_animations);
}

static PyMethodDef Gltf_methods[] = {
    {"resample", FC(Gltf_resample), FK,
     "resample(fps, *, cubic=False)\n--\n\n"
     "A new Gltf with every animation resampled at fps as `posebatch resample IN.glb --fps N`\n"
     "does it: LINEAR keys, or CUBICSPLINE keys with Catmull-Rom tangents (cubic=True);\n"
     "everything that is not animation kept."},
    {"write", FC(Gltf_write), FK,
     "write(path)\n--\n\n"
     "Writes the file atomically (GLB for a path ending in .glb, else .gltf with the buffer\n"
     "as a data: URI) with the CLI's output-path rules. Raises OSError or BvhError."},
    {"to_bvh", FC(Gltf_to_bvh), FK,
     "to_bvh(skin=None, animation=0, fps=None)\n--\n\n"
     "A posebatch.Bvh as `posebatch convert IN.glb OUT.bvh` makes it: the joints of the\n"
     "file's one skin (or skin=N; with no skin every node), animation N sampled at 1/fps\n"
     "(default: the frame time kept in extras, else the median key interval)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Gltf_getset[] = {
    {"node_names", (getter)Gltf_get_node_names, NULL, "node names ('' when unnamed)", NULL},
    {"num_animations", (getter)Gltf_get_num_animations, NULL, "number of animations", NULL},
    {"num_skins", (getter)Gltf_get_num_skins, NULL, "number of skins", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject GltfType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "posebatch.Gltf",
    .tp_basicsize = sizeof(GltfObject),
    .tp_dealloc = (destructor)Gltf_dealloc,
    .tp_repr = (reprfunc)Gltf_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A glTF 2.0 file read by posebatch.read_gltf (or made by Bvh.to_gltf).",
    .tp_methods = Gltf_methods,
    .tp_getset = Gltf_getset,
};
