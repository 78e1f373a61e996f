/* glTF meshes for skinning (pb_gltf_read_mesh): a mesh's triangle
 * primitives, concatenated: POSITION, NORMAL, JOINTS_0, WEIGHTS_0 and the
 * indices, decoded from the buffers a pb_gltf keeps after its read. */
#include <stdlib.h>
#include <string.h>

#include "gltf_reader.h"

#define F32 (1u << (5126 - 5120))
#define U8 (1u << (5121 - 5120))
#define U16 (1u << (5123 - 5120))
#define U32 (1u << (5125 - 5120))

void pb_gltf_mesh_free(pb_gltf_mesh *m)
{
    if (!m)
        return;
    free(m->positions), free(m->normals), free(m->joints), free(m->weights), free(m->triangles);
    memset(m, 0, sizeof *m);
}

/* one attribute of primitive p (accessor index, -2 absent) decoded, or NULL
 * (*cnt 0) when absent; error: NULL with *bad set */
static float *attr(reader *r, json_t *attrs, const char *key, const char *pp, unsigned allowed,
                   size_t comps, size_t *cnt, int *bad)
{
    long long a;
    char path[96];
    snprintf(path, sizeof path, "%s.attributes", pp);
    *cnt = 0;
    if (gltf_get_int(r, attrs, key, path, 0, (long long)r->num_accessors - 1, -2, &a)) {
        *bad = 1;
        return NULL;
    }
    if (a < 0)
        return NULL;
    snprintf(path, sizeof path, "%s.attributes.%s", pp, key);
    float *v = gltf_decode_accessor(r, a, path, allowed, comps, cnt);
    if (!v)
        *bad = 1;
    return v;
}

/* grows *p (of `have` elements of `size` bytes) to have + more */
static int grow(void *p, size_t have, size_t more, size_t size)
{
    void *q = realloc(*(void **)p, (have + more) * size + 1);
    if (!q)
        return -1;
    *(void **)p = q;
    return 0;
}

static int read_prims(reader *r, json_t *prims, size_t mesh, pb_gltf_mesh *m)
{
    const size_t np = json_array_size(prims);
    int normals = 1, skinned = -1;
    for (size_t p = 0; p < np; p++) {
        char pp[64];
        snprintf(pp, sizeof pp, "meshes[%zu].primitives[%zu]", mesh, p);
        json_t *jp = json_array_get(prims, p), *attrs = json_object_get(jp, "attributes");
        if (!json_is_object(jp) || !json_is_object(attrs))
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, pp, "not an object with 'attributes'"), -1;
        long long mode, ia;
        if (gltf_get_int(r, jp, "mode", pp, 0, 6, 4, &mode) ||
            gltf_get_int(r, jp, "indices", pp, 0, (long long)r->num_accessors - 1, -2, &ia))
            return -1;
        if (mode != 4)
            return gltf_err(r->err, PB_IO_ERR_VALUE, pp,
                            "mode %lld: only triangles (mode 4) are read", mode),
                   -1;
        int bad = 0;
        size_t nv, nn, nj, nw, ni = 0;
        float *pos = attr(r, attrs, "POSITION", pp, F32, 3, &nv, &bad);
        float *nrm = bad ? NULL : attr(r, attrs, "NORMAL", pp, F32, 3, &nn, &bad);
        float *jt =
            bad ? NULL : attr(r, attrs, "JOINTS_0", pp, U8 | U16 | GLTF_ACC_INT, 4, &nj, &bad);
        float *wt = bad ? NULL : attr(r, attrs, "WEIGHTS_0", pp, F32 | U8 | U16, 4, &nw, &bad);
        float *ix = NULL;
        if (!bad && ia >= 0) {
            char ip[96];
            snprintf(ip, sizeof ip, "%s.indices", pp);
            ix = gltf_decode_accessor(r, ia, ip, U8 | U16 | U32 | GLTF_ACC_INT, 1, &ni);
            bad = !ix;
        }
        int rc = -1;
        if (bad)
            goto done;
        if (!pos) {
            gltf_err(r->err, PB_IO_ERR_VALUE, pp, "no POSITION attribute");
            goto done;
        }
        if ((nrm && nn != nv) || (jt && nj != nv) || (wt && nw != nv)) {
            gltf_err(r->err, PB_IO_ERR_VALUE, pp,
                     "attributes of different counts (POSITION has %zu)", nv);
            goto done;
        }
        if (!jt != !wt || (skinned >= 0 && skinned != !!jt)) {
            gltf_err(r->err, PB_IO_ERR_VALUE, pp,
                     "JOINTS_0 and WEIGHTS_0 must come together, on every primitive or none");
            goto done;
        }
        skinned = !!jt;
        if (!ix)
            ni = nv;
        if (ni % 3 != 0 || m->num_vertices + nv > ((size_t)1 << 24)) {
            gltf_err(r->err, PB_IO_ERR_VALUE, pp,
                     ni % 3 ? "%zu indices: not whole triangles"
                            : "more than 2^24 vertices in the mesh (%zu)",
                     ni % 3 ? ni : m->num_vertices + nv);
            goto done;
        }
        const size_t v0 = m->num_vertices, t0 = m->num_triangles;
        if (grow(&m->positions, v0 * 3, nv * 3, sizeof(float)) ||
            grow(&m->normals, v0 * 3, nv * 3, sizeof(float)) ||
            grow(&m->joints, v0 * 4, nv * 4, sizeof(uint16_t)) ||
            grow(&m->weights, v0 * 4, nv * 4, sizeof(float)) ||
            grow(&m->triangles, t0 * 3, ni, sizeof(uint32_t))) {
            io_nomem(r->err);
            goto done;
        }
        memcpy(m->positions + v0 * 3, pos, nv * 3 * sizeof(float));
        normals = normals && nrm;
        if (nrm)
            memcpy(m->normals + v0 * 3, nrm, nv * 3 * sizeof(float));
        for (size_t i = 0; jt && i < nv * 4; i++) {
            m->joints[v0 * 4 + i] = (uint16_t)jt[i];
            m->weights[v0 * 4 + i] = wt[i];
        }
        for (size_t i = 0; i < ni; i++) {
            const float x = ix ? ix[i] : (float)i;
            if (!(x >= 0 && x < (float)nv)) {
                gltf_err(r->err, PB_IO_ERR_VALUE, pp, "index %zu is %.0f, past %zu vertices", i,
                         (double)x, nv);
                goto done;
            }
            m->triangles[t0 * 3 + i] = (uint32_t)(v0 + (size_t)x);
        }
        m->num_vertices += nv;
        m->num_triangles += ni / 3;
        rc = 0;
    done:
        free(pos), free(nrm), free(jt), free(wt), free(ix);
        if (rc)
            return -1;
    }
    if (!normals)
        free(m->normals), m->normals = NULL;
    if (skinned != 1)
        free(m->joints), free(m->weights), m->joints = NULL, m->weights = NULL;
    return 0;
}

pb_io_code pb_gltf_read_mesh(const pb_gltf *g, size_t mesh, pb_gltf_mesh *out, pb_io_error *err)
{
    io_clear_err(err);
    if (!out)
        return gltf_err(err, PB_IO_ERR_ARG, NULL, "out is NULL");
    memset(out, 0, sizeof *out);
    if (!g || !g->priv_)
        return gltf_err(err, PB_IO_ERR_ARG, NULL, "g is NULL or not read from a file");
    gltf_priv *pv = g->priv_;
    json_t *meshes = json_object_get(pv->root, "meshes");
    if (mesh >= json_array_size(meshes))
        return gltf_err(err, PB_IO_ERR_ARG, NULL, "mesh %zu does not exist (%zu meshes)", mesh,
                        json_array_size(meshes));
    reader r = {0};
    r.g = (pb_gltf *)g;
    r.pv = pv;
    r.root = pv->root;
    r.err = err;
    r.num_accessors = json_array_size(json_object_get(pv->root, "accessors"));
    r.num_views = json_array_size(json_object_get(pv->root, "bufferViews"));
    r.values_left = gltf_value_budget;
    r.zeros_left = GLTF_ZEROS_BASE;
    char mp[48];
    snprintf(mp, sizeof mp, "meshes[%zu]", mesh);
    json_t *prims = json_object_get(json_array_get(meshes, mesh), "primitives");
    if (!json_is_array(prims) || json_array_size(prims) == 0)
        return gltf_err(err, PB_IO_ERR_SYNTAX, mp, "'primitives' missing or empty");
    pb_gltf_mesh m = {0};
    if (read_prims(&r, prims, mesh, &m)) {
        pb_gltf_mesh_free(&m);
        return err && err->code ? err->code : PB_IO_ERR_VALUE;
    }
    *out = m;
    return PB_IO_OK;
}
