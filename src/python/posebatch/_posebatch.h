/* What the extension's source files share: argument helpers, the BVH error
 * and the Bvh type (_posebatch.c), the Gltf type (gltf.c). */
#ifndef PBPY_POSEBATCH_H
#define PBPY_POSEBATCH_H

#include <Python.h>

#include <posebatch/io.h>

/* posebatch.BvhError: a ValueError with .code and .line */
extern PyObject *BvhError;

/* Parses FASTCALL arguments against names[0..count): the first npos may be
 * positional, the first nreq are required; out[i] borrowed or NULL. */
int parse_args(const char *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
               const char *const *names, int count, int npos, int nreq, PyObject **out);
int opt_bool(const char *fn, const char *name, PyObject *o, int *v);
int opt_double(const char *fn, const char *name, PyObject *o, double *v);

typedef struct {
    PyObject_HEAD
    pb_bvh b;
    PyObject *warnings; /* list of str */
} BvhObject;
extern PyTypeObject BvhType;
BvhObject *bvh_new(void);
/* Raises the Python exception for a pb_bvh_error (OSError, MemoryError or
 * BvhError; path, when not NULL, prefixes text errors). Returns NULL. */
PyObject *bvh_raise(const pb_bvh_error *err, const char *path);

/* gltf.c */
extern PyTypeObject GltfType;
PyObject *pbpy_read_gltf(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames);
PyObject *pbpy_bvh_to_gltf(PyObject *self, PyObject *unused);

#endif /* PBPY_POSEBATCH_H */
