/* Helpers of the glTF tests (test_gltf.c, test_gltf_errors.c,
 * test_gltf_write.c, test_gltf_convert.c): the shared sample models,
 * temporary directories, a small document builder read back through a
 * data: URI, a valid two-key document, the angle between two rotations, a
 * read that must succeed. The sample models are read from
 * PB_SHARED_DATA_DIR/gltf, never copied. */
#ifndef PB_TESTS_GLTF_UTIL_H
#define PB_TESTS_GLTF_UTIL_H

#include <criterion/criterion.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "posebatch/io.h"
#include "clipdata.h"

static inline const char *gltf_sample_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/gltf/%s", data_dir(), name);
    struct stat st;
    if (stat(buf, &st) != 0) {
        fprintf(stderr, "SKIP: %s not found (PB_SHARED_DATA_DIR=%s)\n", buf, data_dir());
        return NULL;
    }
    return buf;
}

static inline char *tmpdir(void)
{
    static char path[256];
    const char *t = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/pb_gltf_test.XXXXXX", t && *t ? t : "/tmp");
    cr_assert_not_null(mkdtemp(path), "mkdtemp: %s", strerror(errno));
    return path;
}

static inline void rmtree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static inline char *b64(const unsigned char *p, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc((n + 2) / 3 * 4 + 1), *w = o;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0u) |
                     (i + 2 < n ? p[i + 2] : 0u);
        *w++ = t[v >> 18 & 63];
        *w++ = t[v >> 12 & 63];
        *w++ = i + 1 < n ? t[v >> 6 & 63] : '=';
        *w++ = i + 2 < n ? t[v & 63] : '=';
    }
    *w = 0;
    return o;
}

/* A small document builder: bytes appended to one buffer, one bufferView and
 * accessor per array. */
typedef struct doc {
    unsigned char bin[65536];
    size_t len;
    json_t *root, *views, *accs;
} doc;

static inline void doc_init(doc *d)
{
    memset(d, 0, sizeof *d);
    json_error_t je;
    d->root = json_loads("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\","
                         "\"children\":[1]},{\"name\":\"b\",\"translation\":[0,1,0]}],"
                         "\"scene\":0,\"scenes\":[{\"nodes\":[0]}]}",
                         0, &je);
    cr_assert_not_null(d->root);
    d->views = json_array();
    d->accs = json_array();
    json_object_set_new(d->root, "bufferViews", d->views);
    json_object_set_new(d->root, "accessors", d->accs);
}

/* Appends bytes as a bufferView; returns its index. */
static inline int doc_view(doc *d, const void *p, size_t n)
{
    d->len = (d->len + 3) & ~(size_t)3;
    cr_assert(d->len + n <= sizeof d->bin);
    memcpy(d->bin + d->len, p, n);
    json_array_append_new(d->views, json_pack("{s:i,s:i,s:i}", "buffer", 0, "byteOffset",
                                              (int)d->len, "byteLength", (int)n));
    d->len += n;
    return (int)json_array_size(d->views) - 1;
}

/* Appends an accessor over new bytes; returns its index. */
static inline int doc_acc(doc *d, const void *p, size_t count, int ctype, size_t csize,
                          const char *type, int normalized)
{
    size_t comps = strcmp(type, "SCALAR") == 0 ? 1 : strcmp(type, "VEC3") == 0 ? 3 : 4;
    int v = doc_view(d, p, count * comps * csize);
    json_t *a = json_pack("{s:i,s:i,s:i,s:s}", "bufferView", v, "componentType", ctype, "count",
                          (int)count, "type", type);
    if (normalized)
        json_object_set_new(a, "normalized", json_true());
    json_array_append_new(d->accs, a);
    return (int)json_array_size(d->accs) - 1;
}

static inline int doc_floats(doc *d, const float *p, size_t count, const char *type)
{
    return doc_acc(d, p, count, 5126, 4, type, 0);
}

/* One animation of the given channels (node, path, input, output, interp). */
static inline void doc_anim(doc *d, int nch, const int *node, const char *const *path,
                            const int *in, const int *out, const char *const *interp)
{
    json_t *ch = json_array(), *sm = json_array();
    for (int i = 0; i < nch; i++) {
        json_array_append_new(ch, json_pack("{s:i,s:{s:i,s:s}}", "sampler", i, "target", "node",
                                            node[i], "path", path[i]));
        json_array_append_new(sm, json_pack("{s:i,s:i,s:s}", "input", in[i], "output", out[i],
                                            "interpolation", interp[i]));
    }
    json_object_set_new(
        d->root, "animations",
        json_pack("[{s:s,s:o,s:o}]", "name", "test", "channels", ch, "samplers", sm));
}

/* Serialises with the buffer as a data: URI and reads it back. */
static inline pb_bvh_code doc_read(doc *d, pb_gltf *g, pb_bvh_error *err)
{
    char *enc = b64(d->bin, d->len), *uri = malloc(strlen(enc) + 64);
    sprintf(uri, "data:application/octet-stream;base64,%s", enc);
    json_object_set_new(
        d->root, "buffers",
        json_pack("[{s:i,s:s}]", "byteLength", (int)(d->len ? d->len : 1), "uri", uri));
    char *text = json_dumps(d->root, JSON_COMPACT);
    pb_bvh_code rc = pb_gltf_read_memory(text, strlen(text), NULL, g, err);
    free(text);
    free(enc);
    free(uri);
    return rc;
}

/* The angle (rad) between the rotations of two quaternions (any norm, either
 * sign): 4 asin(|a - s b| / 2) of the normalised ones, s the sign of their
 * dot product (acos of the dot product loses everything below 1e-4 rad). */
static inline double rot_angle(const double a[4], const double b[4])
{
    double na = 0, nb = 0, d = 0, e = 0;
    for (int j = 0; j < 4; j++)
        na += a[j] * a[j], nb += b[j] * b[j], d += a[j] * b[j];
    double s = d < 0 ? -1 : 1;
    na = sqrt(na), nb = sqrt(nb);
    for (int j = 0; j < 4; j++) {
        double x = a[j] / na - s * b[j] / nb;
        e += x * x;
    }
    return 4 * asin(fmin(1.0, sqrt(e) / 2));
}

/* A valid two-key document (the malformed-input tests add one defect at a
 * time). */
static inline doc base_doc(int *tin, int *rout)
{
    doc d;
    doc_init(&d);
    float t[2] = {0, 1}, q[8] = {0, 0, 0, 1, 0, 0, 1, 0};
    *tin = doc_floats(&d, t, 2, "SCALAR");
    *rout = doc_floats(&d, q, 2, "VEC4");
    int node[] = {1};
    const char *path[] = {"rotation"};
    const char *interp[] = {"LINEAR"};
    doc_anim(&d, 1, node, path, tin, rout, interp);
    return d;
}

static inline pb_gltf read_ok(const char *p)
{
    pb_gltf g;
    pb_bvh_error err;
    cr_assert_eq(pb_gltf_read_file(p, &g, &err), PB_BVH_OK, "%s: %s", p, err.message);
    return g;
}

/* The shared sample model `name` (read_ok); the test is skipped where it is
 * missing. */
static inline pb_gltf read_sample_or_skip(const char *name)
{
    const char *p = gltf_sample_path(name);
    if (!p)
        cr_skip_test("no %s", name);
    return read_ok(p);
}

#endif /* PB_TESTS_GLTF_UTIL_H */
