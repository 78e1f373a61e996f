/* The pb_gltf document in memory: its private part (the JSON tree, the
 * buffers, the allocations freed together), errors naming a JSON path, and
 * pb_gltf_free. Shared by the reader, evaluator, resampler and writer. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define PB_GLTF_JSON 1
#include "gltf_internal.h"
#include "io_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *gltf_keep(gltf_priv *pv, void *p)
{
    if (!p)
        return NULL;
    if (pv->num_allocs == pv->cap_allocs) {
        size_t cap = pv->cap_allocs ? 2 * pv->cap_allocs : 64;
        void **a = realloc(pv->allocs, cap * sizeof *a);
        if (!a) {
            free(p);
            return NULL;
        }
        pv->allocs = a;
        pv->cap_allocs = cap;
    }
    pv->allocs[pv->num_allocs++] = p;
    return p;
}

pb_io_code gltf_err(pb_io_error *err, pb_io_code code, const char *path, const char *fmt, ...)
{
    if (!err)
        return code;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    err->code = code;
    err->line = 0;
    if (path && path[0])
        snprintf(err->message, sizeof err->message, "%s: %s", path, msg);
    else
        snprintf(err->message, sizeof err->message, "%s", msg);
    return code;
}

gltf_priv *gltf_priv_new(pb_gltf *g)
{
    gltf_priv *pv = calloc(1, sizeof *pv);
    g->priv_ = pv;
    return pv;
}

void pb_gltf_free(pb_gltf *g)
{
    if (!g)
        return;
    gltf_priv *pv = g->priv_;
    if (pv) {
        for (size_t i = 0; i < pv->num_allocs; i++)
            free(pv->allocs[i]);
        free(pv->allocs);
        for (size_t b = 0; b < pv->num_buffers; b++)
            free(pv->buf[b]);
        free(pv->buf);
        free(pv->buf_len);
        for (size_t a = 0; a < g->num_animations; a++) {
            free(pv->in_acc ? pv->in_acc[a] : NULL);
            free(pv->out_acc ? pv->out_acc[a] : NULL);
        }
        free(pv->in_acc);
        free(pv->out_acc);
        if (pv->root)
            json_decref(pv->root);
        free(pv);
    }
    for (size_t a = 0; a < g->num_animations; a++) {
        free(g->animations[a].channels);
        free(g->animations[a].samplers);
    }
    free(g->animations);
    for (size_t n = 0; n < g->num_nodes; n++)
        free((void *)g->nodes[n].children);
    free(g->nodes);
    for (size_t s = 0; s < g->num_skins; s++)
        free((void *)g->skins[s].joints), free((void *)g->skins[s].inverse_bind);
    free(g->skins);
    memset(g, 0, sizeof *g);
}

void gltf_anim_finish(pb_gltf_animation *a)
{
    size_t off = 0;
    for (size_t c = 0; c < a->num_channels; c++) {
        a->channels[c].offset = off;
        off += a->samplers[a->channels[c].sampler].components;
    }
    a->num_values = off;
    a->t_min = INFINITY;
    a->t_max = -INFINITY;
    for (size_t s = 0; s < a->num_samplers; s++) {
        const pb_gltf_sampler *sm = &a->samplers[s];
        if (sm->count == 0)
            continue;
        if (sm->input[0] < a->t_min)
            a->t_min = sm->input[0];
        if (sm->input[sm->count - 1] > a->t_max)
            a->t_max = sm->input[sm->count - 1];
    }
    if (!(a->t_min <= a->t_max))
        a->t_min = a->t_max = 0.0f;
}
