/* glTF -> BVH: a glTF skin or node hierarchy as a BVH clip sampled from
 * one animation (pb_gltf_to_bvh): the nodes taken and their order, each
 * joint's channels, the end sites, the frame time, then the frames. */
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

/* ---- glTF -> BVH ---- */

static int channel_of(const char *s)
{
    for (int c = 0; c < 6; c++)
        if (s && strcmp(s, bvh_channel_names[c]) == 0)
            return c;
    return -1;
}

/* A BVH-safe copy of a name: braces and control characters become '_',
 * leading and trailing blanks dropped, empty -> "node<i>". */
static size_t safe_name(const char *in, size_t index, char *out, size_t cap)
{
    while (*in == ' ' || *in == '\t')
        in++;
    size_t n = 0;
    for (; *in && n + 1 < cap; in++)
        out[n++] =
            (*in == '{' || *in == '}' || (unsigned char)*in < 0x20 || *in == 0x7f) ? '_' : *in;
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\t'))
        n--;
    if (n == 0)
        n = (size_t)snprintf(out, cap, "node%zu", index);
    out[n] = '\0';
    return n;
}

/* What the motion of pb_gltf_to_bvh reads: animation anim (a, NULL: none)
 * of g, nj joints in order[], each node's translation / rotation channel
 * (tch, rch; -1 none). */
typedef struct motion_src {
    const pb_gltf *g;
    size_t anim;
    const pb_gltf_animation *a;
    const size_t *order;
    const long *tch, *rch;
    size_t nj;
} motion_src;

/* Frames 0 .. b->num_frames - 1 of b: frame f is frame at[f] (at NULL: f)
 * of the motion at t_min + frame * ft; a value that is not finite is
 * PB_IO_ERR_VALUE (set: no BVH holds it). */
static pb_io_code fill_frames(const motion_src *m, double ft, const size_t *at, pb_bvh *b,
                              pb_io_error *err)
{
    const pb_gltf_animation *a = m->a;
    size_t F = b->num_frames, nj = m->nj;
    float *times = malloc(F * sizeof *times + 1);
    float *vals = a ? malloc(F * (a->num_values ? a->num_values : 1) * sizeof *vals) : NULL;
    pb_io_code rc = PB_IO_OK;
    if (!times || (a && !vals)) {
        free(times);
        free(vals);
        return io_nomem(err);
    }
    for (size_t f = 0; f < F; f++)
        times[f] = (float)((a ? a->t_min : 0.0) + (double)(at ? at[f] : f) * ft);
    if (a)
        rc = pb_gltf_sample(m->g, m->anim, F, times, vals, err);
    free(times);
    for (size_t f = 0; f < F && !rc; f++)
        for (size_t k = 0; k < nj; k++) {
            size_t n = m->order[k], e = f * nj + k;
            const pb_gltf_node *nd = &m->g->nodes[n];
            const float *t = nd->translation, *q = NULL;
            float rq[4];
            if (m->tch[n] >= 0)
                t = vals + f * a->num_values + a->channels[m->tch[n]].offset;
            if (m->rch[n] >= 0)
                q = vals + f * a->num_values + a->channels[m->rch[n]].offset;
            else {
                rq[0] = nd->rotation[1], rq[1] = nd->rotation[2], rq[2] = nd->rotation[3],
                rq[3] = nd->rotation[0];
                q = rq;
            }
            b->pos_x[e] = t[0], b->pos_y[e] = t[1], b->pos_z[e] = t[2];
            b->rot_w[e] = q[3], b->rot_x[e] = q[0], b->rot_y[e] = q[1], b->rot_z[e] = q[2];
            if (!(isfinite(t[0]) && isfinite(t[1]) && isfinite(t[2]) && isfinite(q[0]) &&
                  isfinite(q[1]) && isfinite(q[2]) && isfinite(q[3])))
                rc = bvh_set_err(err, PB_IO_ERR_VALUE, 0,
                                 "frame %zu, joint '%s': the animation's value is not finite "
                                 "(a cubic spline beyond float range?)",
                                 at ? at[f] : f, b->joints[k].name);
        }
    free(vals);
    return rc;
}

/* The bytes of the BVH text of F frames of b's skeleton, estimated from
 * 16 frames spread over them (all of them when F <= 16), sampled first: a
 * tiny file claiming a huge animation is measured without making it. */
static pb_io_code estimate_text(const motion_src *m, const pb_bvh *b, double ft, size_t F,
                                double *est, pb_io_error *err)
{
    enum { N = 16 };
    size_t at[N], n = F < N ? F : N;
    for (size_t i = 0; i < n; i++) /* F - 1 < 2^53: exact enough in double */
        at[i] = n < 2 ? 0 : (size_t)((double)i * (double)(F - 1) / (double)(n - 1));
    pb_bvh probe = *b;
    probe.rot_w = probe.rot_x = probe.rot_y = probe.rot_z = NULL;
    probe.pos_x = probe.pos_y = probe.pos_z = NULL;
    probe.euler_deg = NULL;
    probe.decimals = NULL;
    pb_io_code rc = bvh_alloc_motion(&probe, n, 0);
    probe.num_frames = n;
    if (rc)
        rc = io_nomem(err);
    else
        rc = fill_frames(m, ft, at, &probe, err);
    *est = 0.0;
    if (!rc)
        rc = pb_bvh_estimate_bytes(&probe, F, NULL, est, err);
    float *arr[7] = {probe.rot_w, probe.rot_x, probe.rot_y, probe.rot_z,
                     probe.pos_x, probe.pos_y, probe.pos_z};
    for (int k = 0; k < 7; k++)
        free(arr[k]);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The frame time that key times of float precision mean: 1/R when the
 * interval d is that of a whole rate R to float rounding (keys at 1/24 s
 * apart read back as 0.04166668...). */
static double whole_rate_time(double d)
{
    double r = 1.0 / d, R = nearbyint(r);
    return R >= 1 && fabs(r - R) <= 2e-5 * R ? 1.0 / R : d;
}

/* whether node n is an end site: an "extras.bvh_end_site" leaf */
static int is_end_site(const pb_gltf *g, json_t *jnodes, int32_t n)
{
    json_t *ex = json_object_get(json_array_get(jnodes, (size_t)n), "extras");
    return json_is_true(json_object_get(ex, "bvh_end_site")) && !g->nodes[n].num_children;
}

/* The nodes a BVH of skin (-1: every node) takes, in in[] (1 joint, 2 end
 * site: an "extras.bvh_end_site" leaf), and the joints' depth-first order
 * (order[0 .. *nj)); *ne end sites (under a joint). stack: N scratch. */
static void select_nodes(const pb_gltf *g, long skin, json_t *jnodes, signed char *in,
                         size_t *order, size_t *stack, size_t *nj, size_t *ne)
{
    const size_t N = g->num_nodes;
    for (size_t i = 0; i < N; i++)
        in[i] = skin < 0 ? (signed char)(is_end_site(g, jnodes, (int32_t)i) ? 2 : 1) : 0;
    /* a skin's joint that is an end site stays one (pb_gltf_from_bvh's skin
     * holds every node) */
    if (skin >= 0)
        for (size_t k = 0; k < g->skins[skin].num_joints; k++) {
            int32_t n = g->skins[skin].joints[k];
            if (is_end_site(g, jnodes, n)) {
                in[n] = 2;
                n = g->nodes[n].parent;
            }
            for (; n >= 0 && in[n] != 1; n = g->nodes[n].parent)
                in[n] = 1;
        }
    /* depth-first order; end sites only under a joint */
    size_t sp = 0;
    *nj = *ne = 0;
    for (size_t r = N; r-- > 0;)
        if (in[r] == 1 && (g->nodes[r].parent < 0 || !in[g->nodes[r].parent]))
            stack[sp++] = r;
    while (sp) {
        size_t n = stack[--sp];
        order[(*nj)++] = n;
        const pb_gltf_node *nd = &g->nodes[n];
        for (size_t k = nd->num_children; k-- > 0;)
            if (in[nd->children[k]] == 1)
                stack[sp++] = (size_t)nd->children[k];
    }
    for (size_t i = 0; i < N; i++)
        *ne += in[i] == 2 && g->nodes[i].parent >= 0 && in[g->nodes[i].parent] == 1;
}

/* Joint jt's channels: node n's "extras.bvh_channels" when valid, else six
 * (a root or an animated translation) or three rotations Z Y X; its Euler
 * order from the rotation channels, missing axes appended. */
static void joint_channels(json_t *jnode, int animated_pos, pb_bvh_joint *jt, size_t *first)
{
    json_t *ch = json_object_get(json_object_get(jnode, "extras"), "bvh_channels");
    int cl[6], ncl = 0, ok = json_is_array(ch) && json_array_size(ch) <= 6;
    unsigned seen = 0;
    for (size_t c = 0; ok && c < json_array_size(ch); c++) {
        int v = channel_of(json_string_value(json_array_get(ch, c)));
        ok = v >= 0 && !(seen >> v & 1u);
        if (ok) {
            seen |= 1u << v;
            cl[ncl++] = v;
        }
    }
    if (!ok) {
        static const int six[6] = {PB_BVH_XPOS, PB_BVH_YPOS, PB_BVH_ZPOS,
                                   PB_BVH_ZROT, PB_BVH_YROT, PB_BVH_XROT};
        int pos = jt->parent < 0 || animated_pos;
        ncl = pos ? 6 : 3;
        memcpy(cl, pos ? six : six + 3, (size_t)ncl * sizeof *cl);
    }
    int axes[3], nr = 0;
    for (int c = 0; c < ncl; c++) {
        jt->channels[c] = (uint8_t)cl[c];
        if (cl[c] >= PB_BVH_XROT)
            axes[nr++] = cl[c] - PB_BVH_XROT;
    }
    for (int ax = 0; ax < 3 && nr < 3; ax++) { /* missing axes appended */
        int have = 0;
        for (int c = 0; c < nr; c++)
            have |= axes[c] == ax;
        if (!have)
            axes[nr++] = ax;
    }
    jt->num_channels = (uint8_t)ncl;
    jt->num_rot = 0;
    for (int c = 0; c < ncl; c++)
        jt->num_rot = (uint8_t)(jt->num_rot + (cl[c] >= PB_BVH_XROT));
    jt->rot_order = (uint8_t)pb_euler_order_from_axes(axes[0], axes[1], axes[2]);
    jt->first_channel = (uint32_t)*first;
    *first += (size_t)ncl;
}

/* End sites into b: after their parent's joint children that come before
 * them. idx: node -> joint index. */
static void place_end_sites(const pb_gltf *g, const signed char *in, const int32_t *idx, pb_bvh *b)
{
    for (size_t i = 0, e = 0; i < g->num_nodes; i++) {
        int32_t p = g->nodes[i].parent;
        if (in[i] != 2 || p < 0 || in[p] != 1)
            continue;
        uint32_t ci = 0;
        for (size_t k = 0; k < g->nodes[p].num_children && g->nodes[p].children[k] != (int32_t)i;
             k++)
            ci += in[g->nodes[p].children[k]] == 1;
        b->end_sites[e].parent = idx[p];
        b->end_sites[e].child_index = ci;
        memcpy(b->end_sites[e].offset, g->nodes[i].translation, sizeof b->end_sites[e].offset);
        e++;
    }
}

/* The frame time of animation a (NULL: none) of g: frame_time if > 0, else
 * "extras.bvh_frame_time", else the median key interval of its longest
 * sampler as a whole rate, else 1/30; checked against what a BVH reader
 * takes. */
static pb_io_code choose_frame_time(const gltf_priv *pv, size_t anim, const pb_gltf_animation *a,
                                    double frame_time, double *out, pb_io_error *err)
{
    double ft = frame_time;
    if (!a && !(ft > 0)) /* one frame of the rest pose: the default frame time */
        ft = 1.0 / 30.0;
    if (a && !(ft > 0)) {
        json_t *x = json_object_get(
            json_object_get(json_array_get(json_object_get(pv->root, "animations"), anim),
                            "extras"),
            "bvh_frame_time");
        if (json_is_number(x) && json_number_value(x) > 0)
            ft = json_number_value(x);
        else {
            const pb_gltf_sampler *best = NULL;
            for (size_t s = 0; s < a->num_samplers; s++)
                if (!best || a->samplers[s].count > best->count)
                    best = &a->samplers[s];
            ft = 1.0 / 30.0;
            if (best && best->count > 1) { /* its median key interval */
                size_t m = best->count - 1;
                double *d = malloc(m * sizeof *d);
                if (!d)
                    return io_nomem(err);
                for (size_t k = 0; k < m; k++)
                    d[k] = (double)best->input[k + 1] - best->input[k];
                qsort(d, m, sizeof *d, cmp_double);
                ft = whole_rate_time(d[m / 2]);
                free(d);
            }
        }
    }
    /* a BVH's Frame Time as its reader takes it: 1e-5 s (100,000 fps) up to
     * float range */
    if (!(ft >= BVH_MIN_FRAME_TIME && ft <= FLT_MAX))
        return bvh_set_err(err, PB_IO_ERR_VALUE, 0,
                           "frame time %g s%s: a BVH frame time is %g s to %g s (pass one)", ft,
                           frame_time > 0 ? "" : " from the keys", BVH_MIN_FRAME_TIME,
                           (double)FLT_MAX);
    *out = ft;
    return PB_IO_OK;
}

/* pb_gltf_to_bvh up to its frames: the skeleton in p->b (no motion), the
 * frame time and count, and what fill_frames reads (p->ms). With
 * `estimate`, frame counts beyond what pb_gltf_to_bvh makes are kept (to
 * be measured, not made). Release with plan_free. */
typedef struct plan {
    pb_bvh b;
    double ft;
    size_t F;
    motion_src ms;
    signed char *in; /* 1 joint, 2 end site */
    int32_t *idx;    /* node -> joint / end site index */
    size_t *stack, *order;
    long *tch, *rch;
} plan;

static void plan_free(plan *p)
{
    free(p->tch);
    free(p->rch);
    free(p->in);
    free(p->idx);
    free(p->stack);
    free(p->order);
}

static pb_io_code plan_init(const pb_gltf *g, long skin, size_t anim, double frame_time,
                            int estimate, plan *p, pb_io_error *err)
{
    memset(p, 0, sizeof *p);
    if (!g || !g->priv_)
        return bvh_set_err(err, PB_IO_ERR_ARG, 0, "glTF or out is NULL");
    if (skin >= (long)g->num_skins)
        return bvh_set_err(err, PB_IO_ERR_ARG, 0, "skin %ld: the file has %zu skin%s", skin,
                           g->num_skins, g->num_skins == 1 ? "" : "s");
    if (g->num_animations && anim >= g->num_animations)
        return bvh_set_err(err, PB_IO_ERR_ARG, 0, "animation %zu: the file has %zu", anim,
                           g->num_animations);
    if (isnan(frame_time) || isinf(frame_time))
        return bvh_set_err(err, PB_IO_ERR_ARG, 0,
                           "frame time %g: finite, or <= 0 for the keys' own", frame_time);
    const gltf_priv *pv = g->priv_;
    json_t *jnodes = json_object_get(pv->root, "nodes");
    size_t N = g->num_nodes;
    if (N == 0)
        return bvh_set_err(err, PB_IO_ERR_ARG, 0, "the file has no nodes");
    pb_bvh *b = &p->b;
    p->in = calloc(N, 1);
    p->idx = malloc(N * sizeof *p->idx);
    p->stack = malloc(N * sizeof *p->stack);
    p->order = malloc(N * sizeof *p->order);
    p->tch = malloc(N * sizeof *p->tch);
    p->rch = malloc(N * sizeof *p->rch);
    if (!p->in || !p->idx || !p->stack || !p->order || !p->tch || !p->rch)
        return io_nomem(err);
    signed char *in = p->in;
    size_t *order = p->order;
    long *tch = p->tch, *rch = p->rch;
    size_t nj, ne;
    select_nodes(g, skin, jnodes, in, order, p->stack, &nj, &ne);
    if (nj == 0 || nj > PB_BVH_MAX_JOINTS)
        return bvh_set_err(err, PB_IO_ERR_LIMIT, 0, "%zu joints (1 to %d can be written)", nj,
                           PB_BVH_MAX_JOINTS);
    b->joints = calloc(nj, sizeof *b->joints);
    b->end_sites = calloc(ne + 1, sizeof *b->end_sites);
    size_t pool = 0;
    for (size_t k = 0; k < nj; k++)
        pool += strlen(g->nodes[order[k]].name) + 24;
    b->name_pool_ = malloc(pool + 1);
    if (!b->joints || !b->end_sites || !b->name_pool_)
        return io_nomem(err);
    b->num_joints = nj;
    const pb_gltf_animation *a = g->num_animations ? &g->animations[anim] : NULL;
    /* which nodes have an animated translation / rotation: channel index */
    for (size_t i = 0; i < N; i++)
        tch[i] = rch[i] = -1;
    for (size_t c = 0; a && c < a->num_channels; c++) {
        if (a->channels[c].path == PB_GLTF_TRANSLATION)
            tch[a->channels[c].node] = (long)c;
        if (a->channels[c].path == PB_GLTF_ROTATION)
            rch[a->channels[c].node] = (long)c;
    }
    size_t at = 0, first = 0;
    for (size_t k = 0; k < nj; k++) {
        size_t n = order[k];
        p->idx[n] = (int32_t)k;
        pb_bvh_joint *jt = &b->joints[k];
        char *name = b->name_pool_ + at;
        at += safe_name(g->nodes[n].name, n, name, pool + 1 - at) + 1;
        jt->name = name;
        int32_t par = g->nodes[n].parent;
        jt->parent = par >= 0 && in[par] == 1 ? p->idx[par] : -1;
        memcpy(jt->offset, g->nodes[n].translation, sizeof jt->offset);
        joint_channels(json_array_get(jnodes, n), tch[n] >= 0, jt, &first);
    }
    b->num_channels = first;
    place_end_sites(g, in, p->idx, b);
    b->num_end_sites = ne;
    pb_io_code rc = bvh_check_depth(b, PB_IO_ERR_LIMIT, err);
    if (rc)
        return rc;
    /* frames */
    p->F = 1;
    rc = choose_frame_time(pv, anim, a, frame_time, &p->ft, err);
    if (rc)
        return rc;
    if (a) {
        double nf = floor(((double)a->t_max - a->t_min) / p->ft + 1e-3) + 1;
        /* made: within the library's count limit; measured: counted exactly */
        if (!(estimate ? nf <= 0x1p53 : nf * (double)nj <= (double)((size_t)1 << 28)))
            return bvh_set_err(err, PB_IO_ERR_LIMIT, 0, "%.3g frames of %zu joints are too many",
                               nf, nj);
        p->F = (size_t)nf;
    }
    if (b->num_channels == 0) /* every joint's extras say no channel: a BVH */
        p->F = 0;             /* frame of no values does not read back */
    b->frame_time = p->ft;
    p->ms = (motion_src){g, anim, a, order, tch, rch, nj};
    return PB_IO_OK;
}

pb_io_code pb_gltf_to_bvh(const pb_gltf *g, long skin, size_t anim, double frame_time, pb_bvh *out,
                          pb_io_error *err)
{
    bvh_clear_err(err);
    if (!out)
        return bvh_set_err(err, PB_IO_ERR_ARG, 0, "glTF or out is NULL");
    plan p;
    pb_io_code rc = plan_init(g, skin, anim, frame_time, 0, &p, err);
    pb_bvh *b = &p.b;
    double est = 0.0;
    if (!rc && p.F > 0)
        rc = estimate_text(&p.ms, b, p.ft, p.F, &est, err);
    if (!rc && est > (double)PB_BVH_MAX_FILE_BYTES)
        rc = bvh_set_err(err, PB_IO_ERR_LIMIT, 0,
                         "%zu frames at %g s would be a BVH of about %.2f GB, more than the "
                         "%.2f GB a BVH file may have (a longer frame time?)",
                         p.F, p.ft, est / 1e9, (double)PB_BVH_MAX_FILE_BYTES / 1e9);
    if (!rc && bvh_alloc_motion(b, p.F, 0))
        rc = io_nomem(err);
    if (!rc) {
        b->num_frames = p.F;
        if (p.F)
            rc = fill_frames(&p.ms, p.ft, NULL, b, err);
    }
    plan_free(&p);
    if (rc) {
        pb_bvh_free(b);
        return rc;
    }
    *out = *b;
    return PB_IO_OK;
}

pb_io_code pb_gltf_to_bvh_estimate(const pb_gltf *g, long skin, size_t anim, double frame_time,
                                   size_t *frames, double *frame_time_out, double *bytes,
                                   pb_io_error *err)
{
    bvh_clear_err(err);
    if (!frames || !frame_time_out || !bytes)
        return bvh_set_err(err, PB_IO_ERR_ARG, 0, "an output pointer is NULL");
    plan p;
    double est = 0.0;
    pb_io_code rc = plan_init(g, skin, anim, frame_time, 1, &p, err);
    if (!rc && p.F > 0)
        rc = estimate_text(&p.ms, &p.b, p.ft, p.F, &est, err);
    if (!rc) {
        *frames = p.F;
        *frame_time_out = p.ft;
        *bytes = est;
    }
    plan_free(&p);
    pb_bvh_free(&p.b);
    return rc;
}
