/* BVH -> glTF: a BVH skeleton as glTF nodes with one animation
 * (pb_gltf_from_bvh). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define PB_GLTF_JSON 1
#include "gltf_internal.h"
#include "bvh_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

long pb_gltf_default_skin(const pb_gltf *g) { return g && g->num_skins == 1 ? 0 : -1; }

/* ---- BVH -> glTF ---- */

static json_t *vec_json(const float *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_real((double)v[i]))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* The document: nodes (joints, then end sites), scene, empty sampler
 * objects for the writer to fill. Children of joint j: its joints and end
 * sites in file order. */
static json_t *bvh_doc(const pb_bvh *b, size_t num_channels_anim)
{
    size_t J = b->num_joints, E = b->num_end_sites;
    json_t *root = json_pack("{s:{s:s,s:s}}", "asset", "version", "2.0", "generator", "posebatch");
    json_t *nodes = json_array(), *roots = json_array();
    if (!root || !nodes || !roots || json_object_set_new(root, "nodes", nodes)) {
        json_decref(root);
        json_decref(roots);
        return NULL;
    }
    int bad = 0;
    for (size_t j = 0; j < J && !bad; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        json_t *n = json_object(), *ch = json_array(), *ex = json_object(), *kids = json_array();
        bad = !n || !ch || !ex || !kids;
        for (int c = 0; c < jt->num_channels && !bad; c++)
            bad = json_array_append_new(ch, json_string(bvh_channel_names[jt->channels[c]]));
        /* children in file order: joints k > j with parent j, end sites at
         * their child_index (before the joint child of that index) */
        size_t jc = 0;
        for (size_t k = j + 1; k <= J && !bad; k++) {
            int child = k < J && b->joints[k].parent == (int32_t)j;
            if (!child && k < J)
                continue;
            for (size_t e = 0; e < E && !bad; e++)
                if (b->end_sites[e].parent == (int32_t)j && b->end_sites[e].child_index == jc)
                    bad = json_array_append_new(kids, json_integer((json_int_t)(J + e)));
            if (child) {
                bad = bad || json_array_append_new(kids, json_integer((json_int_t)k));
                jc++;
            }
        }
        bad = bad || json_object_set_new(n, "name", json_string(jt->name)) ||
              json_object_set_new(n, "translation", vec_json(jt->offset, 3)) ||
              json_object_set_new(ex, "bvh_channels", ch) || json_object_set_new(n, "extras", ex);
        if (!bad && json_array_size(kids))
            bad = json_object_set_new(n, "children", kids);
        else
            json_decref(kids);
        bad = bad || json_array_append_new(nodes, n);
        if (!bad && jt->parent < 0)
            bad = json_array_append_new(roots, json_integer((json_int_t)j));
    }
    for (size_t e = 0; e < E && !bad; e++) {
        const pb_bvh_end_site *es = &b->end_sites[e];
        const char *pn = b->joints[es->parent].name;
        size_t len = strlen(pn);
        char *name = malloc(len + 5);
        if (!name) {
            bad = 1;
            break;
        }
        memcpy(name, pn, len);
        memcpy(name + len, "_End", 5);
        json_t *n = json_pack("{s:s,s:o,s:{s:b}}", "name", name, "translation",
                              vec_json(es->offset, 3), "extras", "bvh_end_site", 1);
        free(name);
        bad = !n || json_array_append_new(nodes, n);
    }
    /* the skin: every node a joint (End Sites too: the tips of the leaf
     * bones), its inverse bind matrices accessor 0 over bufferView 0 (the
     * writer copies buffer 0, which pb_gltf_from_bvh fills) */
    if (!bad) {
        json_t *joints = json_array();
        bad = !joints;
        for (size_t i = 0; i < J + E && !bad; i++)
            bad = json_array_append_new(joints, json_integer((json_int_t)i));
        json_t *skin = bad ? NULL
                           : json_pack("{s:s,s:o,s:i}", "name", "skeleton", "joints", joints,
                                       "inverseBindMatrices", 0);
        if (!bad && !skin)
            bad = 1;
        else if (!bad && json_array_size(roots) == 1)
            bad = json_object_set(skin, "skeleton", json_array_get(roots, 0));
        bad = bad || json_object_set_new(root, "skins", json_pack("[o]", skin)) ||
              json_object_set_new(root, "bufferViews",
                                  json_pack("[{s:i,s:i,s:I}]", "buffer", 0, "byteOffset", 0,
                                            "byteLength",
                                            (json_int_t)((J + E) * 16 * sizeof(float)))) ||
              json_object_set_new(root, "accessors",
                                  json_pack("[{s:i,s:i,s:I,s:s}]", "bufferView", 0, "componentType",
                                            5126, "count", (json_int_t)(J + E), "type", "MAT4"));
    }
    bad = bad || json_object_set_new(root, "scene", json_integer(0)) ||
          json_object_set_new(root, "scenes", json_pack("[{s:o}]", "nodes", roots));
    roots = NULL;
    if (!bad && num_channels_anim) {
        json_t *ch = json_array(), *sm = json_array();
        bad = !ch || !sm;
        size_t s = 0;
        for (size_t j = 0; j < J && !bad; j++) {
            int has_pos = 0;
            for (int c = 0; c < b->joints[j].num_channels; c++)
                has_pos |= b->joints[j].channels[c] <= PB_BVH_ZPOS;
            bad = json_array_append_new(ch,
                                        json_pack("{s:i,s:{s:i,s:s}}", "sampler", (int)s++,
                                                  "target", "node", (int)j, "path", "rotation")) ||
                  json_array_append_new(sm, json_object());
            if (has_pos && !bad)
                bad = json_array_append_new(ch, json_pack("{s:i,s:{s:i,s:s}}", "sampler", (int)s++,
                                                          "target", "node", (int)j, "path",
                                                          "translation")) ||
                      json_array_append_new(sm, json_object());
        }
        json_t *anim = bad ? NULL
                           : json_pack("{s:s,s:o,s:o,s:{s:f}}", "name", "bvh", "channels", ch,
                                       "samplers", sm, "extras", "bvh_frame_time", b->frame_time);
        if (!anim)
            bad = 1;
        else
            bad = json_object_set_new(root, "animations", json_pack("[o]", anim));
    }
    json_decref(roots);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* The skin of every node (joints, then End Sites) and its inverse bind
 * matrices: the rest pose has identity rotations, so each is the
 * translation by minus the node's rest position (its OFFSETs summed, in
 * double), column-major; also buffer 0 of the document (bvh_doc's
 * accessor 0). -1: out of memory, 1: a rest position beyond float range. */
static int skin_of(const pb_bvh *b, pb_gltf *g, gltf_priv *pv)
{
    const size_t J = b->num_joints, N = J + b->num_end_sites;
    double *at = malloc(3 * N * sizeof *at);
    int bad = 0;
    float *ibm = malloc(16 * N * sizeof *ibm), *ibm2 = malloc(16 * N * sizeof *ibm2);
    int32_t *joints = malloc(N * sizeof *joints);
    g->skins = calloc(1, sizeof *g->skins);
    pv->buf = calloc(1, sizeof *pv->buf);
    pv->buf_len = calloc(1, sizeof *pv->buf_len);
    if (!at || !ibm || !ibm2 || !joints || !g->skins || !pv->buf || !pv->buf_len) {
        free(at), free(ibm), free(ibm2), free(joints);
        return -1;
    }
    bvh_rest_positions(b, at);
    for (size_t i = 0; i < N; i++) {
        float *m = ibm + 16 * i;
        for (int k = 0; k < 16; k++)
            m[k] = k % 5 == 0 ? 1.0f : 0.0f;
        for (int k = 0; k < 3; k++) {
            m[12 + k] = (float)-at[3 * i + k];
            if (!isfinite(m[12 + k])) /* OFFSETs near float range, summed */
                bad = 1;
        }
        joints[i] = (int32_t)i;
    }
    free(at);
    memcpy(ibm2, ibm, 16 * N * sizeof *ibm);
    pv->buf[0] = (unsigned char *)ibm;
    pv->buf_len[0] = 16 * N * sizeof *ibm;
    pv->num_buffers = 1;
    g->skins[0] = (pb_gltf_skin){"skeleton", N, joints, ibm2};
    g->num_skins = 1;
    return bad;
}

pb_io_code pb_gltf_from_bvh(const pb_bvh *b, pb_gltf *out, pb_io_error *err)
{
    bvh_clear_err(err);
    if (!b || !out)
        return bvh_set_err(err, PB_IO_ERR_ARG, 0, "bvh or out is NULL");
    memset(out, 0, sizeof *out); /* what an error leaves */
    pb_io_code rc = bvh_validate(b, err);
    if (rc)
        return rc;
    size_t J = b->num_joints, F = b->num_frames, E = b->num_end_sites;
    pb_gltf g = {0};
    gltf_priv *pv = gltf_priv_new(&g);
    if (!pv)
        return io_nomem(err);
    size_t nch = 0;
    for (size_t j = 0; j < J && F; j++) {
        nch++;
        for (int c = 0; c < b->joints[j].num_channels; c++)
            if (b->joints[j].channels[c] <= PB_BVH_ZPOS) {
                nch++;
                break;
            }
    }
    pv->root = bvh_doc(b, nch);
    g.nodes = calloc(J + E + 1, sizeof *g.nodes);
    if (!pv->root || !g.nodes)
        goto oom;
    g.num_nodes = J + E;
    json_t *jn = json_object_get(pv->root, "nodes");
    for (size_t i = 0; i < J + E; i++) {
        pb_gltf_node *nd = &g.nodes[i];
        json_t *o = json_array_get(jn, i), *kids = json_object_get(o, "children");
        nd->name = json_string_value(json_object_get(o, "name"));
        nd->parent = i < J ? b->joints[i].parent : b->end_sites[i - J].parent;
        const float *off = i < J ? b->joints[i].offset : b->end_sites[i - J].offset;
        memcpy(nd->translation, off, sizeof nd->translation);
        nd->rotation[0] = 1.0f;
        nd->scale[0] = nd->scale[1] = nd->scale[2] = 1.0f;
        nd->mesh = nd->skin = -1;
        size_t nk = json_array_size(kids);
        int32_t *c = calloc(nk + 1, sizeof *c);
        if (!c)
            goto oom;
        for (size_t k = 0; k < nk; k++)
            c[k] = (int32_t)json_integer_value(json_array_get(kids, k));
        nd->children = c;
        nd->num_children = nk;
    }
    if (nch) {
        pb_gltf_animation *a = g.animations = calloc(1, sizeof *g.animations);
        pv->in_acc = calloc(1, sizeof *pv->in_acc);
        pv->out_acc = calloc(1, sizeof *pv->out_acc);
        if (!a || !pv->in_acc || !pv->out_acc)
            goto oom;
        g.num_animations = 1;
        a->name = "bvh";
        a->channels = calloc(nch, sizeof *a->channels);
        a->samplers = calloc(nch, sizeof *a->samplers);
        pv->in_acc[0] = malloc(nch * sizeof(int32_t));
        pv->out_acc[0] = malloc(nch * sizeof(int32_t));
        float *times = gltf_keep(pv, malloc(F * sizeof *times));
        if (!a->channels || !a->samplers || !pv->in_acc[0] || !pv->out_acc[0] || !times)
            goto oom;
        a->num_channels = a->num_samplers = nch;
        for (size_t f = 0; f < F; f++)
            times[f] = (float)((double)f * b->frame_time);
        size_t s = 0;
        for (size_t j = 0; j < J; j++) {
            int has_pos = 0;
            for (int c = 0; c < b->joints[j].num_channels; c++)
                has_pos |= b->joints[j].channels[c] <= PB_BVH_ZPOS;
            for (int p = 0; p < 1 + has_pos; p++, s++) {
                size_t comps = p ? 3 : 4;
                float *o = gltf_keep(pv, malloc(F * comps * sizeof *o));
                if (!o)
                    goto oom;
                for (size_t f = 0; f < F; f++) {
                    size_t e = f * J + j;
                    if (p) {
                        o[3 * f] = b->pos_x[e], o[3 * f + 1] = b->pos_y[e],
                              o[3 * f + 2] = b->pos_z[e];
                    } else {
                        double q[4] = {b->rot_w[e], b->rot_x[e], b->rot_y[e], b->rot_z[e]};
                        double nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                        if (!(nq > 0))
                            q[0] = nq = 1.0;
                        o[4 * f] = (float)(q[1] / nq), o[4 * f + 1] = (float)(q[2] / nq);
                        o[4 * f + 2] = (float)(q[3] / nq), o[4 * f + 3] = (float)(q[0] / nq);
                    }
                }
                a->channels[s] = (pb_gltf_channel){
                    (int32_t)j, p ? PB_GLTF_TRANSLATION : PB_GLTF_ROTATION, (uint32_t)s, 0};
                a->samplers[s] = (pb_gltf_sampler){PB_GLTF_LINEAR, F, times, comps, o};
                pv->in_acc[0][s] = pv->out_acc[0][s] = -1;
            }
        }
        gltf_anim_finish(a);
    } else {
        g.animations = calloc(1, sizeof *g.animations);
        if (!g.animations)
            goto oom;
    }
    int sk = skin_of(b, &g, pv);
    if (sk < 0)
        goto oom;
    if (sk) {
        pb_gltf_free(&g);
        return io_set_err(err, PB_IO_ERR_VALUE, 0,
                          "a joint's rest position (its OFFSETs summed) is beyond float range");
    }
    *out = g;
    return PB_IO_OK;
oom:
    pb_gltf_free(&g);
    return io_nomem(err);
}
