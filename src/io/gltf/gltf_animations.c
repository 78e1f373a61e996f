/* glTF animations: samplers (key times strictly increasing from 0,
 * LINEAR / STEP / CUBICSPLINE outputs, rotation keys of unit length) and
 * channels. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "gltf_reader.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const path_names[] = {"translation", "rotation", "scale", "weights"};

/* A sampler's input (shared between samplers of one accessor). */
static float *sampler_input(reader *r, long long acc, const char *path, size_t *count)
{
    if (acc >= 0 && (size_t)acc < r->num_accessors && r->acc_cache[acc]) {
        *count = r->acc_count[acc];
        return r->acc_cache[acc];
    }
    float *in = gltf_decode_accessor(r, acc, path, 1u << (5126 - 5120), 1, count);
    if (!in)
        return NULL;
    if (*count > 0 && !(in[0] >= 0.0f)) {
        gltf_err(r->err, PB_IO_ERR_VALUE, path, "accessor %lld: key time %.9g is negative", acc,
                 (double)in[0]);
        free(in);
        return NULL;
    }
    for (size_t k = 1; k < *count; k++)
        if (!(in[k] > in[k - 1])) {
            gltf_err(r->err, PB_IO_ERR_VALUE, path,
                     "accessor %lld: key times are not strictly increasing (key %zu: %.9g after "
                     "%.9g)",
                     acc, k, (double)in[k], (double)in[k - 1]);
            free(in);
            return NULL;
        }
    if (!gltf_keep(r->pv, in)) {
        io_nomem(r->err);
        return NULL;
    }
    r->acc_cache[acc] = in;
    r->acc_count[acc] = *count;
    return in;
}

static int read_animation(reader *r, size_t ai, json_t *o)
{
    char path[96];
    snprintf(path, sizeof path, "animations[%zu]", ai);
    if (!json_is_object(o))
        return gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "not an object"), -1;
    pb_gltf_animation *a = &r->g->animations[ai];
    a->name = gltf_get_name(o);
    json_t *jc = json_object_get(o, "channels"), *js = json_object_get(o, "samplers");
    if (!json_is_array(jc) || json_array_size(jc) == 0)
        return gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "'channels' is missing or empty"), -1;
    if (!json_is_array(js) || json_array_size(js) == 0)
        return gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "'samplers' is missing or empty"), -1;
    size_t ns = json_array_size(js), nc = json_array_size(jc);
    a->samplers = calloc(ns, sizeof *a->samplers);
    a->channels = calloc(nc, sizeof *a->channels);
    r->pv->in_acc[ai] = calloc(ns, sizeof(int32_t));
    r->pv->out_acc[ai] = calloc(ns, sizeof(int32_t));
    if (!a->samplers || !a->channels || !r->pv->in_acc[ai] || !r->pv->out_acc[ai])
        return io_nomem(r->err), -1;
    a->num_samplers = ns;
    /* the path each sampler serves (from its first channel): -1 none yet */
    int *spath = malloc(ns * sizeof *spath);
    if (!spath)
        return io_nomem(r->err), -1;
    for (size_t s = 0; s < ns; s++)
        spath[s] = -1;
    size_t used = 0;
    for (size_t c = 0; c < nc; c++) {
        char cp[128];
        snprintf(cp, sizeof cp, "animations[%zu].channels[%zu]", ai, c);
        json_t *ch = json_array_get(jc, c), *tg = json_object_get(ch, "target");
        long long smp, node;
        if (!json_is_object(ch) || !json_is_object(tg)) {
            free(spath);
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, cp, "not an object with a 'target'"), -1;
        }
        char tp[160];
        snprintf(tp, sizeof tp, "%s.target", cp);
        if (gltf_get_int(r, ch, "sampler", cp, 0, (long long)ns - 1, -1, &smp) ||
            gltf_get_int(r, tg, "node", tp, -1, (long long)r->g->num_nodes - 1, -1, &node)) {
            free(spath);
            return -1;
        }
        const char *ps = json_string_value(json_object_get(tg, "path"));
        int p = -1;
        for (int k = 0; k < 4 && ps; k++)
            if (strcmp(ps, path_names[k]) == 0)
                p = k;
        if (p < 0) {
            free(spath);
            return gltf_err(r->err, PB_IO_ERR_VALUE, tp,
                            "'path' %s%s%s is not translation, rotation, scale or weights",
                            ps ? "'" : "", ps ? ps : "(missing)", ps ? "'" : ""),
                   -1;
        }
        if (node < 0) /* glTF: a channel without a node is ignored */
            continue;
        if (spath[smp] >= 0 && spath[smp] != p &&
            (spath[smp] == 1 || p == 1 || spath[smp] == 3 || p == 3)) {
            int other = spath[smp];
            free(spath);
            return gltf_err(r->err, PB_IO_ERR_VALUE, cp, "sampler %lld also animates %s, not %s",
                            smp, path_names[other], path_names[p]),
                   -1;
        }
        spath[smp] = p;
        a->channels[used].node = (int32_t)node;
        a->channels[used].path = (pb_gltf_path)p;
        a->channels[used].sampler = (uint32_t)smp;
        used++;
    }
    a->num_channels = used;
    for (size_t s = 0; s < ns; s++) {
        char sp[128], ip[160], op[160];
        snprintf(sp, sizeof sp, "animations[%zu].samplers[%zu]", ai, s);
        snprintf(ip, sizeof ip, "%s.input", sp);
        snprintf(op, sizeof op, "%s.output", sp);
        json_t *so = json_array_get(js, s);
        pb_gltf_sampler *sm = &a->samplers[s];
        long long in, out;
        if (!json_is_object(so)) {
            free(spath);
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, sp, "not an object"), -1;
        }
        if (gltf_get_int(r, so, "input", sp, 0, INT32_MAX, -1, &in) ||
            gltf_get_int(r, so, "output", sp, 0, INT32_MAX, -1, &out)) {
            free(spath);
            return -1;
        }
        json_t *ji = json_object_get(so, "interpolation");
        const char *is = ji ? json_string_value(ji) : "LINEAR";
        if (is && strcmp(is, "LINEAR") == 0)
            sm->interpolation = PB_GLTF_LINEAR;
        else if (is && strcmp(is, "STEP") == 0)
            sm->interpolation = PB_GLTF_STEP;
        else if (is && strcmp(is, "CUBICSPLINE") == 0)
            sm->interpolation = PB_GLTF_CUBICSPLINE;
        else {
            free(spath);
            return gltf_err(r->err, PB_IO_ERR_VALUE, sp,
                            "'interpolation' is not LINEAR, STEP or CUBICSPLINE"),
                   -1;
        }
        sm->input = sampler_input(r, in, ip, &sm->count);
        if (!sm->input) {
            free(spath);
            return -1;
        }
        r->pv->in_acc[ai][s] = (int32_t)in;
        r->pv->out_acc[ai][s] = (int32_t)out;
        /* output: by the path it serves; an unused sampler by its type */
        int p = spath[s];
        if (p < 0) {
            json_t *ja = json_array_get(json_object_get(r->root, "accessors"), (size_t)out);
            size_t tc = gltf_type_comps(json_string_value(json_object_get(ja, "type")));
            p = tc == 4 ? 1 : tc == 1 ? 3 : 0;
        }
        size_t want = p == 1 ? 4 : p == 3 ? 1 : 3;
        unsigned allowed = 1u << (5126 - 5120);
        if (p == 1 || p == 3)
            allowed |= 0xFu; /* normalized (u)byte, (u)short */
        size_t oc;
        float *ov = gltf_decode_accessor(r, out, op, allowed, want, &oc);
        if (!ov || !gltf_keep(r->pv, ov)) {
            free(spath);
            return ov ? io_nomem(r->err), -1 : -1;
        }
        size_t per = sm->count * gltf_stride(sm);
        if (p == 3) {
            if (oc % per != 0) {
                free(spath);
                return gltf_err(r->err, PB_IO_ERR_VALUE, op,
                                "accessor %lld has %zu values, not a multiple of %zu keys%s", out,
                                oc, sm->count, gltf_stride(sm) == 3 ? " x 3 (CUBICSPLINE)" : ""),
                       -1;
            }
            sm->components = oc / per;
        } else {
            if (oc != per) {
                free(spath);
                return gltf_err(r->err, PB_IO_ERR_VALUE, op,
                                "accessor %lld has %zu elements for %zu keys (%zu expected%s)", out,
                                oc, sm->count, per,
                                gltf_stride(sm) == 3 ? ": CUBICSPLINE stores 3 per key" : ""),
                       -1;
            }
            sm->components = want;
        }
        if (spath[s] == 1) /* rotation keys: renormalised (not the tangents); an
                              unused VEC4 keeps its values */
            for (size_t k = 0; k < sm->count; k++) {
                float *q = ov + (k * gltf_stride(sm) + (gltf_stride(sm) == 3)) * 4;
                double n2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                            (double)q[3] * q[3];
                /* a key of (near) zero length or not finite has no rotation:
                 * refused like a node's, not written back as (0,0,0,0) */
                if (!(n2 > 1e-12 && n2 < 1e12)) {
                    free(spath);
                    return gltf_err(r->err, PB_IO_ERR_VALUE, op,
                                    "accessor %lld, key %zu: a rotation of length %g, not a "
                                    "unit quaternion",
                                    out, k, sqrt(n2)),
                           -1;
                }
                if (fabs(n2 - 1.0) > 2e-6 && n2 > 0)
                    for (int j = 0; j < 4; j++)
                        q[j] = (float)(q[j] / sqrt(n2));
            }
        sm->output = ov;
    }
    free(spath);
    gltf_anim_finish(a);
    return 0;
}

int gltf_read_animations(reader *r)
{
    json_t *ja;
    if (gltf_opt_array(r, r->root, "animations", "animations", &ja))
        return -1;
    size_t n = ja ? json_array_size(ja) : 0;
    pb_gltf *g = r->g;
    g->animations = calloc(n ? n : 1, sizeof *g->animations);
    r->pv->in_acc = calloc(n ? n : 1, sizeof *r->pv->in_acc);
    r->pv->out_acc = calloc(n ? n : 1, sizeof *r->pv->out_acc);
    if (!g->animations || !r->pv->in_acc || !r->pv->out_acc)
        return io_nomem(r->err), -1;
    g->num_animations = n;
    for (size_t i = 0; i < n; i++)
        if (read_animation(r, i, json_array_get(ja, i)))
            return -1;
    return 0;
}
