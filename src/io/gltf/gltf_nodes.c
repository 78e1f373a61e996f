/* glTF nodes (TRS, matrices decomposed, children) and skins. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "gltf_reader.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void mat_to_trs(const double m[16], pb_gltf_node *nd)
{
    /* column-major: columns m[0..2], m[4..6], m[8..10]; translation m[12..14] */
    double c[3][3], s[3];
    for (int k = 0; k < 3; k++) {
        s[k] =
            sqrt(m[4 * k] * m[4 * k] + m[4 * k + 1] * m[4 * k + 1] + m[4 * k + 2] * m[4 * k + 2]);
        for (int i = 0; i < 3; i++)
            c[k][i] = s[k] > 0 ? m[4 * k + i] / s[k] : (i == k);
        nd->translation[k] = (float)m[12 + k];
    }
    double det = c[0][0] * (c[1][1] * c[2][2] - c[2][1] * c[1][2]) -
                 c[1][0] * (c[0][1] * c[2][2] - c[2][1] * c[0][2]) +
                 c[2][0] * (c[0][1] * c[1][2] - c[1][1] * c[0][2]);
    if (det < 0) {
        s[0] = -s[0];
        for (int i = 0; i < 3; i++)
            c[0][i] = -c[0][i];
    }
    for (int k = 0; k < 3; k++)
        nd->scale[k] = (float)s[k];
    /* R(i, j) = c[j][i] */
    double r00 = c[0][0], r11 = c[1][1], r22 = c[2][2], tr = r00 + r11 + r22, q[4];
    if (tr > 0) {
        double t = sqrt(tr + 1.0) * 2;
        q[0] = 0.25 * t;
        q[1] = (c[1][2] - c[2][1]) / t;
        q[2] = (c[2][0] - c[0][2]) / t;
        q[3] = (c[0][1] - c[1][0]) / t;
    } else if (r00 > r11 && r00 > r22) {
        double t = sqrt(1.0 + r00 - r11 - r22) * 2;
        q[0] = (c[1][2] - c[2][1]) / t;
        q[1] = 0.25 * t;
        q[2] = (c[1][0] + c[0][1]) / t;
        q[3] = (c[2][0] + c[0][2]) / t;
    } else if (r11 > r22) {
        double t = sqrt(1.0 + r11 - r00 - r22) * 2;
        q[0] = (c[2][0] - c[0][2]) / t;
        q[1] = (c[1][0] + c[0][1]) / t;
        q[2] = 0.25 * t;
        q[3] = (c[2][1] + c[1][2]) / t;
    } else {
        double t = sqrt(1.0 + r22 - r00 - r11) * 2;
        q[0] = (c[0][1] - c[1][0]) / t;
        q[1] = (c[2][0] + c[0][2]) / t;
        q[2] = (c[2][1] + c[1][2]) / t;
        q[3] = 0.25 * t;
    }
    for (int k = 0; k < 4; k++)
        nd->rotation[k] = (float)q[k];
}

int gltf_read_nodes(reader *r)
{
    json_t *jn;
    if (gltf_opt_array(r, r->root, "nodes", "nodes", &jn))
        return -1;
    pb_gltf *g = r->g;
    size_t n = jn ? json_array_size(jn) : 0;
    g->nodes = calloc(n ? n : 1, sizeof *g->nodes);
    if (!g->nodes)
        return io_nomem(r->err), -1;
    g->num_nodes = n;
    for (size_t i = 0; i < n; i++)
        g->nodes[i].parent = -1;
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "nodes[%zu]", i);
        json_t *o = json_array_get(jn, i);
        pb_gltf_node *nd = &g->nodes[i];
        if (!json_is_object(o))
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "not an object"), -1;
        nd->name = gltf_get_name(o);
        long long mesh, skin;
        if (gltf_get_int(r, o, "mesh", path, -1, INT32_MAX, -1, &mesh) ||
            gltf_get_int(r, o, "skin", path, -1, INT32_MAX, -1, &skin))
            return -1;
        nd->mesh = (int32_t)mesh;
        nd->skin = (int32_t)skin;
        double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1}, m[16];
        int ht = gltf_get_floats(r, o, "translation", path, 3, t);
        int hr = gltf_get_floats(r, o, "rotation", path, 4, q);
        int hs = gltf_get_floats(r, o, "scale", path, 3, s);
        int hm = gltf_get_floats(r, o, "matrix", path, 16, m);
        if (ht < 0 || hr < 0 || hs < 0 || hm < 0)
            return -1;
        if (hm && (ht || hr || hs))
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, path,
                            "has both 'matrix' and translation/rotation/scale"),
                   -1;
        if (hm)
            mat_to_trs(m, nd);
        else {
            double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(fabs(qn - 1.0) < 1e-3))
                return gltf_err(r->err, PB_IO_ERR_VALUE, path,
                                "'rotation' is not a unit quaternion (norm %g)", qn),
                       -1;
            for (int k = 0; k < 3; k++) {
                nd->translation[k] = (float)t[k];
                nd->scale[k] = (float)s[k];
            }
            nd->rotation[0] = (float)(q[3] / qn);
            for (int k = 0; k < 3; k++)
                nd->rotation[k + 1] = (float)(q[k] / qn);
        }
        /* as float (a JSON number or a matrix's decomposition may pass
         * float range: every consumer would see an infinity) */
        const float *trs[3] = {nd->translation, nd->rotation, nd->scale};
        static const char *const trs_name[3] = {"translation", "rotation", "scale"};
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < (k == 1 ? 4 : 3); c++)
                if (!isfinite(trs[k][c]))
                    return gltf_err(r->err, PB_IO_ERR_VALUE, path,
                                    hm ? "'matrix': its %s is beyond float range"
                                       : "'%s' is beyond float range",
                                    trs_name[k]),
                           -1;
        json_t *jc;
        snprintf(path, sizeof path, "nodes[%zu].children", i);
        if (gltf_opt_array(r, o, "children", path, &jc))
            return -1;
        size_t nc = jc ? json_array_size(jc) : 0;
        int32_t *ch = calloc(nc ? nc : 1, sizeof *ch);
        if (!ch)
            return io_nomem(r->err), -1;
        nd->children = ch;
        nd->num_children = nc;
        for (size_t k = 0; k < nc; k++) {
            json_t *e = json_array_get(jc, k);
            if (!json_is_integer(e) || json_integer_value(e) < 0 ||
                (size_t)json_integer_value(e) >= n)
                return gltf_err(r->err, PB_IO_ERR_VALUE, path, "[%zu] is not a node index", k), -1;
            ch[k] = (int32_t)json_integer_value(e);
        }
    }
    /* parents, then no cycles */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < g->nodes[i].num_children; k++) {
            int32_t c = g->nodes[i].children[k];
            if (g->nodes[c].parent >= 0 || (size_t)c == i)
                return gltf_err(r->err, PB_IO_ERR_VALUE, NULL,
                                "nodes[%zu].children[%zu]: node %d is already a child of node %d",
                                i, k, c, (size_t)c == i ? (int)i : g->nodes[c].parent),
                       -1;
            g->nodes[c].parent = (int32_t)i;
        }
    for (size_t i = 0; i < n; i++) {
        int32_t p = g->nodes[i].parent;
        for (size_t steps = 0; p >= 0; steps++, p = g->nodes[p].parent)
            if (steps > n || (size_t)p == i)
                return gltf_err(r->err, PB_IO_ERR_VALUE, NULL,
                                "nodes[%zu]: the node hierarchy has a cycle through it", i),
                       -1;
    }
    for (size_t i = 0; i < n; i++)
        if (g->nodes[i].skin >= 0) {
            json_t *js = json_object_get(r->root, "skins");
            if ((size_t)g->nodes[i].skin >= json_array_size(js))
                return gltf_err(r->err, PB_IO_ERR_VALUE, NULL,
                                "nodes[%zu].skin: skin %d does not exist", i, g->nodes[i].skin),
                       -1;
        }
    return 0;
}

int gltf_read_skins(reader *r)
{
    json_t *js;
    if (gltf_opt_array(r, r->root, "skins", "skins", &js))
        return -1;
    pb_gltf *g = r->g;
    size_t n = js ? json_array_size(js) : 0;
    g->skins = calloc(n ? n : 1, sizeof *g->skins);
    if (!g->skins)
        return io_nomem(r->err), -1;
    g->num_skins = n;
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "skins[%zu].joints", i);
        json_t *o = json_array_get(js, i), *jj = json_object_get(o, "joints");
        if (!json_is_object(o) || !json_is_array(jj) || json_array_size(jj) == 0)
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "missing or not a non-empty array"), -1;
        size_t nj = json_array_size(jj);
        int32_t *j = calloc(nj, sizeof *j);
        if (!j)
            return io_nomem(r->err), -1;
        g->skins[i].joints = j;
        g->skins[i].num_joints = nj;
        g->skins[i].name = gltf_get_name(o);
        for (size_t k = 0; k < nj; k++) {
            json_t *e = json_array_get(jj, k);
            if (!json_is_integer(e) || json_integer_value(e) < 0 ||
                (size_t)json_integer_value(e) >= g->num_nodes)
                return gltf_err(r->err, PB_IO_ERR_VALUE, path, "[%zu] is not a node index", k), -1;
            j[k] = (int32_t)json_integer_value(e);
        }
        long long ibm;
        snprintf(path, sizeof path, "skins[%zu]", i);
        if (gltf_get_int(r, o, "inverseBindMatrices", path, 0, (long long)r->num_accessors - 1, -2,
                         &ibm))
            return -1;
        if (ibm >= 0) {
            snprintf(path, sizeof path, "skins[%zu].inverseBindMatrices", i);
            size_t cnt;
            float *m = gltf_decode_accessor(r, ibm, path, 1u << (5126 - 5120), 16, &cnt);
            if (!m)
                return -1;
            g->skins[i].inverse_bind = m;
            if (cnt < nj)
                return gltf_err(r->err, PB_IO_ERR_VALUE, path,
                                "accessor %lld has %zu matrices for %zu joints", ibm, cnt, nj),
                       -1;
        }
    }
    return 0;
}
