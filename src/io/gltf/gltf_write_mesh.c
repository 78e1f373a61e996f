/* A posed mesh as a static glTF (pb_gltf_mesh_write_file): one triangle
 * primitive (POSITION, NORMAL, indices), one node, one scene; .glb or .gltf
 * by the path's name, through the writer's tail (gltf_emit) and file_write.c's
 * atomic output. */
#define PB_GLTF_JSON 1
#include "gltf_internal.h"
#include "io_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct mesh_ctx {
    const pb_gltf_mesh *m;
    int binary;
} mesh_ctx;

/* the unit normals of m into out (3 per vertex); 0 when one is zero or not
 * finite (then no NORMAL is written) */
static int unit_normals(const pb_gltf_mesh *m, float *out)
{
    for (size_t v = 0; v < m->num_vertices; v++) {
        const double x = m->normals[3 * v], y = m->normals[3 * v + 1], z = m->normals[3 * v + 2];
        const double n = sqrt(x * x + y * y + z * z);
        if (!(n > 0) || !isfinite(n))
            return 0;
        out[3 * v] = (float)(x / n), out[3 * v + 1] = (float)(y / n),
                out[3 * v + 2] = (float)(z / n);
    }
    return 1;
}

static json_t *min_max(const float *p, size_t n, int max)
{
    float e[3] = {p[0], p[1], p[2]};
    for (size_t v = 1; v < n; v++)
        for (int k = 0; k < 3; k++)
            e[k] = max ? fmaxf(e[k], p[3 * v + k]) : fminf(e[k], p[3 * v + k]);
    return json_pack("[f,f,f]", (double)e[0], (double)e[1], (double)e[2]);
}

static pb_io_code write_mesh(FILE *f, void *vctx, pb_io_error *err)
{
    const mesh_ctx *c = vctx;
    const pb_gltf_mesh *m = c->m;
    const size_t nv = m->num_vertices, nt = m->num_triangles;
    const size_t pos_b = 12 * nv, idx_b = 12 * nt;
    unsigned char *bin = malloc(2 * pos_b + idx_b);
    if (!bin)
        return io_nomem(err);
    memcpy(bin, m->positions, pos_b);
    const int nrm = m->normals && unit_normals(m, (float *)(void *)(bin + pos_b));
    const size_t nrm_b = nrm ? pos_b : 0;
    memcpy(bin + pos_b + nrm_b, m->triangles, idx_b);
    /* bufferViews: positions, (normals,) indices */
    json_t *attrs = json_pack("{s:i}", "POSITION", 0);
    json_t *views = json_pack("[{s:i,s:i,s:I,s:i}]", "buffer", 0, "byteOffset", 0, "byteLength",
                              (json_int_t)pos_b, "target", 34962);
    json_t *accs = json_pack("[{s:i,s:i,s:I,s:s,s:o,s:o}]", "bufferView", 0, "componentType", 5126,
                             "count", (json_int_t)nv, "type", "VEC3", "min",
                             min_max(m->positions, nv, 0), "max", min_max(m->positions, nv, 1));
    int bad = !attrs || !views || !accs;
    if (!bad && nrm)
        bad = json_array_append_new(views, json_pack("{s:i,s:I,s:I,s:i}", "buffer", 0, "byteOffset",
                                                     (json_int_t)pos_b, "byteLength",
                                                     (json_int_t)pos_b, "target", 34962)) ||
              json_array_append_new(accs,
                                    json_pack("{s:i,s:i,s:I,s:s}", "bufferView", 1, "componentType",
                                              5126, "count", (json_int_t)nv, "type", "VEC3")) ||
              json_object_set_new(attrs, "NORMAL", json_integer(1));
    bad = bad ||
          json_array_append_new(views, json_pack("{s:i,s:I,s:I,s:i}", "buffer", 0, "byteOffset",
                                                 (json_int_t)(pos_b + nrm_b), "byteLength",
                                                 (json_int_t)idx_b, "target", 34963)) ||
          json_array_append_new(accs, json_pack("{s:i,s:i,s:I,s:s}", "bufferView", nrm ? 2 : 1,
                                                "componentType", 5125, "count",
                                                (json_int_t)(3 * nt), "type", "SCALAR"));
    json_t *root =
        bad ? NULL
            : json_pack("{s:{s:s,s:s},s:i,s:[{s:[i]}],s:[{s:s,s:i}],s:[{s:[{s:o,s:i,s:i}]}],s:o,"
                        "s:o}",
                        "asset", "version", "2.0", "generator", "posebatch", "scene", 0, "scenes",
                        "nodes", 0, "nodes", "name", "mesh", "mesh", 0, "meshes", "primitives",
                        "attributes", attrs, "indices", nrm ? 2 : 1, "mode", 4, "bufferViews",
                        views, "accessors", accs);
    if (!root) { /* json_pack released what it was given ("o") on failure */
        if (bad) {
            json_decref(attrs);
            json_decref(views);
            json_decref(accs);
        }
        free(bin);
        return io_nomem(err);
    }
    pb_io_code rc = gltf_emit(f, root, bin, pos_b + nrm_b + idx_b, c->binary, err);
    json_decref(root);
    free(bin);
    return rc;
}

pb_io_code pb_gltf_mesh_write_file(const char *path, const pb_gltf_mesh *m, pb_io_error *err)
{
    io_clear_err(err);
    if (!path || !path[0] || !m)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "path or mesh is NULL or empty");
    if (m->num_vertices == 0 || !m->positions || m->num_triangles == 0 || !m->triangles)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "the mesh has no %s",
                          m->num_vertices && m->positions ? "triangles" : "vertices");
    if (m->num_vertices > (size_t)1 << 24 || m->num_triangles > (size_t)1 << 26)
        return io_set_err(err, PB_IO_ERR_LIMIT, 0,
                          "%zu vertices, %zu triangles: at most 2^24 and 2^26", m->num_vertices,
                          m->num_triangles);
    for (size_t k = 0; k < 3 * m->num_vertices; k++)
        if (!isfinite(m->positions[k]))
            return io_set_err(err, PB_IO_ERR_VALUE, 0, "vertex %zu: a position is not finite",
                              k / 3);
    for (size_t k = 0; k < 3 * m->num_triangles; k++)
        if (m->triangles[k] >= m->num_vertices)
            return io_set_err(err, PB_IO_ERR_VALUE, 0, "triangle %zu: vertex %lu of %zu vertices",
                              k / 3, (unsigned long)m->triangles[k], m->num_vertices);
    const size_t n = strlen(path);
    mesh_ctx c = {m, n >= 4 && strcasecmp(path + n - 4, ".glb") == 0};
    return pb_io_write_file_cb(path, write_mesh, &c, err);
}
