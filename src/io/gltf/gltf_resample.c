/* pb_gltf_resample: every animation sampled at a uniform rate (glTF
 * evaluation, gltf_eval.c), written as LINEAR keys or as CUBICSPLINE keys
 * with Catmull-Rom tangents computed by the batch kernels; what the
 * document says of an animation's rate (extras "bvh_frame_time") follows
 * it. */
#include "gltf_reader.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VALUES ((size_t)1 << 28) /* keys x values of one animation */

/* Copy of src's nodes and skins (names point into the output's own copy of
 * the JSON document, which the resample edits) and of its buffers;
 * animations left empty. */
static pb_io_code copy_base(const pb_gltf *src, pb_gltf *out, pb_io_error *err)
{
    const gltf_priv *sp = src->priv_;
    gltf_priv *pv = gltf_priv_new(out);
    if (!pv)
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    pv->root = json_deep_copy(sp->root);
    if (!pv->root)
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    json_t *jnodes = json_object_get(pv->root, "nodes"),
           *jskins = json_object_get(pv->root, "skins");
    out->nodes = calloc(src->num_nodes ? src->num_nodes : 1, sizeof *out->nodes);
    out->skins = calloc(src->num_skins ? src->num_skins : 1, sizeof *out->skins);
    pv->buf = calloc(sp->num_buffers ? sp->num_buffers : 1, sizeof *pv->buf);
    pv->buf_len = calloc(sp->num_buffers ? sp->num_buffers : 1, sizeof *pv->buf_len);
    if (!out->nodes || !out->skins || !pv->buf || !pv->buf_len)
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    pv->num_buffers = sp->num_buffers;
    for (size_t b = 0; b < sp->num_buffers; b++) {
        pv->buf[b] = malloc(sp->buf_len[b] ? sp->buf_len[b] : 1);
        if (!pv->buf[b])
            return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
        memcpy(pv->buf[b], sp->buf[b], sp->buf_len[b]);
        pv->buf_len[b] = sp->buf_len[b];
    }
    out->num_nodes = src->num_nodes;
    for (size_t i = 0; i < src->num_nodes; i++) {
        out->nodes[i] = src->nodes[i];
        size_t nc = src->nodes[i].num_children;
        int32_t *ch = malloc((nc ? nc : 1) * sizeof *ch);
        if (!ch) {
            out->nodes[i].children = NULL;
            out->nodes[i].num_children = 0;
            for (size_t k = i + 1; k < src->num_nodes; k++)
                out->nodes[k].children = NULL;
            return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
        }
        memcpy(ch, src->nodes[i].children, nc * sizeof *ch);
        out->nodes[i].children = ch;
        out->nodes[i].name = gltf_get_name(json_array_get(jnodes, i));
    }
    out->num_skins = src->num_skins;
    for (size_t i = 0; i < src->num_skins; i++) {
        out->skins[i] = src->skins[i];
        int32_t *j = malloc(src->skins[i].num_joints * sizeof *j + 1);
        out->skins[i].joints = j;
        if (!j) {
            for (size_t k = i; k < src->num_skins; k++)
                out->skins[k].joints = NULL, out->skins[k].inverse_bind = NULL;
            return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
        }
        memcpy(j, src->skins[i].joints, src->skins[i].num_joints * sizeof *j);
        out->skins[i].inverse_bind = NULL;
        if (src->skins[i].inverse_bind) {
            const size_t b = src->skins[i].num_joints * 16 * sizeof(float);
            float *ib = malloc(b);
            if (!ib) {
                for (size_t k = i + 1; k < src->num_skins; k++)
                    out->skins[k].joints = NULL, out->skins[k].inverse_bind = NULL;
                return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
            }
            memcpy(ib, src->skins[i].inverse_bind, b);
            out->skins[i].inverse_bind = ib;
        }
        out->skins[i].name = gltf_get_name(json_array_get(jskins, i));
    }
    return PB_IO_OK;
}

/* An animation of the document that says its frame time (extras
 * "bvh_frame_time": written by pb_gltf_from_bvh, read by pb_gltf_to_bvh as
 * the rate to sample at) says the new one, 1 / fps: a BVH made of the
 * resampled file has the resample's rate, not the source's. */
static pb_io_code set_frame_time(json_t *janim, double fps, pb_io_error *err)
{
    json_t *extras = json_object_get(janim, "extras");
    if (!json_is_number(json_object_get(extras, "bvh_frame_time")))
        return PB_IO_OK;
    if (json_object_set_new(extras, "bvh_frame_time", json_real(1.0 / fps)))
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    return PB_IO_OK;
}

/* The rotation samples of one sampler (n keys, xyzw) unrolled to one
 * hemisphere, and with cubic != NULL their Catmull-Rom tangents per second
 * (pb_quat_raw_cubic's raw 4D velocity at x = 0, end keys repeated). */
static pb_status rot_keys(size_t n, float *xyzw, double fps, float *tan)
{
    float *b = malloc(n * 4 * 5 * sizeof *b + 1);
    if (!b)
        return PB_ERR_NOMEM;
    pb_quats q = {b, b + n, b + 2 * n, b + 3 * n};
    pb_status st = pb_quats_from_xyzw(n, xyzw, q);
    if (st == PB_OK)
        st = pb_quat_unroll(n, 1, (pb_cquats){q.w, q.x, q.y, q.z}, q);
    if (st == PB_OK)
        st = pb_quats_to_xyzw(n, (pb_cquats){q.w, q.x, q.y, q.z}, xyzw);
    if (st == PB_OK && tan) {
        /* neighbours as batches: prev, next, next2 (clamped at the ends) */
        float *p = b + 4 * n, *nx = b + 8 * n, *n2 = b + 12 * n, *v = b + 16 * n;
        float *src[4] = {q.w, q.x, q.y, q.z};
        for (int c = 0; c < 4; c++)
            for (size_t i = 0; i < n; i++) {
                p[c * n + i] = src[c][i ? i - 1 : 0];
                nx[c * n + i] = src[c][i + 1 < n ? i + 1 : n - 1];
                n2[c * n + i] = src[c][i + 2 < n ? i + 2 : n - 1];
            }
        pb_cquats R0 = {p, p + n, p + 2 * n, p + 3 * n};
        pb_cquats R1 = {q.w, q.x, q.y, q.z};
        pb_cquats R2 = {nx, nx + n, nx + 2 * n, nx + 3 * n};
        pb_cquats R3 = {n2, n2 + n, n2 + 2 * n, n2 + 3 * n};
        float *ow = malloc(4 * n * sizeof *ow + 1);
        if (!ow) {
            free(b);
            return PB_ERR_NOMEM;
        }
        pb_quats rot = {ow, ow + n, ow + 2 * n, ow + 3 * n};
        pb_quats vel = {v, v + n, v + 2 * n, v + 3 * n};
        st = pb_quat_raw_cubic(n, 0.0f, R0, R1, R2, R3, 0, rot, vel);
        free(ow);
        if (st == PB_OK) {
            for (size_t i = 0; i < n; i++) {
                tan[4 * i + 0] = (float)(vel.x[i] * fps);
                tan[4 * i + 1] = (float)(vel.y[i] * fps);
                tan[4 * i + 2] = (float)(vel.z[i] * fps);
                tan[4 * i + 3] = (float)(vel.w[i] * fps);
            }
        }
    }
    free(b);
    return st;
}

/* Catmull-Rom tangents per second of n keys of c components (interleaved):
 * pb_vec3_catmull_rom's velocity at x = 0 for vec3 tracks, central
 * differences otherwise; end keys repeated. */
static pb_status vec_tangents(size_t n, size_t c, const float *val, double fps, float *tan)
{
    if (c != 3) {
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < c; j++) {
                float a = val[(i ? i - 1 : 0) * c + j],
                      b = val[(i + 1 < n ? i + 1 : n - 1) * c + j];
                tan[i * c + j] = (float)((double)(b - a) * 0.5 * fps);
            }
        return PB_OK;
    }
    float *b = malloc(n * 3 * 5 * sizeof *b + 1);
    if (!b)
        return PB_ERR_NOMEM;
    float *vel = b + 9 * n, *pos = b + 12 * n;
    /* p0 = prev, p1 = cur, p2 = next: only p0 and p2 matter at x = 0 */
    float *p0 = b, *p1 = b + 3 * n, *p2 = b + 6 * n;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            p0[(size_t)k * n + i] = val[(i ? i - 1 : 0) * 3 + (size_t)k];
            p1[(size_t)k * n + i] = val[i * 3 + (size_t)k];
            p2[(size_t)k * n + i] = val[(i + 1 < n ? i + 1 : n - 1) * 3 + (size_t)k];
        }
    pb_cvec3s A = {p0, p0 + n, p0 + 2 * n}, B = {p1, p1 + n, p1 + 2 * n},
              C = {p2, p2 + n, p2 + 2 * n};
    pb_vec3s O = {pos, pos + n, pos + 2 * n}, V = {vel, vel + n, vel + 2 * n};
    /* p3 only weighs in at x > 0: pass p2 */
    pb_status st = pb_vec3_catmull_rom(n, 0.0f, A, B, C, C, O, V);
    if (st == PB_OK)
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                tan[i * 3 + (size_t)k] = (float)(vel[(size_t)k * n + i] * fps);
    free(b);
    return st;
}

/* Tangents of the last two keys where the last step is shorter (the end
 * key): the differences were taken over uniform steps of 1/fps; each is
 * rescaled to the time its neighbours really span. */
static void end_tangents(const pb_gltf_animation *sa, size_t n, size_t c, double fps, float *tan)
{
    for (size_t i = n >= 2 ? n - 2 : 0; i < n; i++) {
        size_t lo = i ? i - 1 : 0, hi = i + 1 < n ? i + 1 : n - 1;
        double t_hi = hi == n - 1 ? (double)sa->t_max : (double)sa->t_min + (double)hi / fps;
        double t_lo = (double)sa->t_min + (double)lo / fps;
        double f = ((double)(hi - lo) / fps) / (t_hi - t_lo);
        for (size_t j = 0; j < c; j++)
            tan[i * c + j] = (float)(tan[i * c + j] * f);
    }
}

static pb_io_code resample_anim(const pb_gltf_animation *sa, double fps, int cubic, gltf_priv *pv,
                                pb_gltf_animation *da, pb_io_error *err)
{
    double span = (double)sa->t_max - (double)sa->t_min;
    double nk = floor(span * fps + 1e-3) + 1;
    /* the end between two steps: a last key at t_max, so the clip keeps its
     * length (a looping clip would pop otherwise) */
    int end_key =
        span * fps - (nk - 1) > 1e-3 && (float)((double)sa->t_min + (nk - 1) / fps) < sa->t_max;
    size_t *soff = malloc((sa->num_samplers + 1) * sizeof *soff);
    if (!soff)
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    size_t total = gltf_sampler_offsets(sa, soff);
    if (!(nk * (double)(total ? total : 1) * 3 <= (double)MAX_VALUES)) {
        free(soff);
        return io_set_err(err, PB_IO_ERR_LIMIT, 0,
                          "animation '%s': %.3g keys at %g fps over %g s are too many", sa->name,
                          nk, fps, span);
    }
    size_t n = (size_t)nk + (size_t)end_key;
    float *times = gltf_keep(pv, malloc(n * sizeof *times));
    float *vals = malloc(n * (total ? total : 1) * sizeof *vals);
    unsigned char *is_rot = malloc(sa->num_samplers + 1);
    da->samplers = calloc(sa->num_samplers, sizeof *da->samplers);
    da->channels = malloc(sa->num_channels * sizeof *da->channels + 1);
    if (!times || !vals || !is_rot || !da->samplers || !da->channels) {
        free(soff);
        free(vals);
        free(is_rot);
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
    }
    gltf_rotation_samplers(sa, is_rot);
    da->name = sa->name;
    da->num_samplers = sa->num_samplers;
    da->num_channels = sa->num_channels;
    memcpy(da->channels, sa->channels, sa->num_channels * sizeof *da->channels);
    for (size_t i = 0; i < n; i++)
        times[i] = end_key && i == n - 1 ? sa->t_max : (float)((double)sa->t_min + (double)i / fps);
    pb_io_code rc = PB_IO_OK;
    for (size_t i = 1; i < n && !rc; i++)
        if (!(times[i] > times[i - 1])) /* a reader refuses keys that do not increase */
            rc = io_set_err(err, PB_IO_ERR_VALUE, 0,
                            "animation '%s': keys 1/%g s apart near %g s are not distinct in "
                            "float (resample at a lower rate)",
                            sa->name ? sa->name : "", fps, (double)times[i]);
    if (!rc)
        rc = gltf_eval_samplers(sa, n, times, soff, total, vals, err);
    for (size_t s = 0; s < sa->num_samplers && !rc; s++) {
        const pb_gltf_sampler *ss = &sa->samplers[s];
        pb_gltf_sampler *ds = &da->samplers[s];
        size_t c = ss->components;
        ds->interpolation = cubic ? PB_GLTF_CUBICSPLINE : PB_GLTF_LINEAR;
        ds->count = n;
        ds->input = times;
        ds->components = c;
        float *v = malloc(n * c * sizeof *v + 1);
        float *tan = cubic ? malloc(n * c * sizeof *tan + 1) : NULL;
        float *o = gltf_keep(pv, malloc(n * c * (cubic ? 3 : 1) * sizeof *o + 1));
        if (!v || (cubic && !tan) || !o) {
            free(v);
            free(tan);
            rc = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
            break;
        }
        for (size_t i = 0; i < n; i++)
            memcpy(v + i * c, vals + i * total + soff[s], c * sizeof *v);
        pb_status st = is_rot[s] ? rot_keys(n, v, fps, tan)
                       : cubic   ? vec_tangents(n, c, v, fps, tan)
                                 : PB_OK;
        if (st != PB_OK)
            rc = io_set_err(err, st == PB_ERR_NOMEM ? PB_IO_ERR_NOMEM : PB_IO_ERR_ARG, 0,
                            "resampling: %s", pb_status_str(st));
        if (cubic && end_key)
            end_tangents(sa, n, c, fps, tan);
        if (cubic)
            for (size_t i = 0; i < n; i++) {
                memcpy(o + (3 * i) * c, tan + i * c, c * sizeof *o);
                memcpy(o + (3 * i + 1) * c, v + i * c, c * sizeof *o);
                memcpy(o + (3 * i + 2) * c, tan + i * c, c * sizeof *o);
            }
        else
            memcpy(o, v, n * c * sizeof *o);
        ds->output = o;
        free(v);
        free(tan);
    }
    free(vals);
    free(is_rot);
    free(soff);
    if (!rc)
        gltf_anim_finish(da);
    return rc;
}

pb_io_code pb_gltf_resample(const pb_gltf *src, double fps, unsigned flags, pb_gltf *out,
                            pb_io_error *err)
{
    io_clear_err(err);
    if (!src || !src->priv_ || !out || !(fps > 0) || !isfinite(fps) ||
        (flags & ~(unsigned)PB_GLTF_RESAMPLE_CUBIC))
        return io_set_err(err, PB_IO_ERR_ARG, 0,
                          "NULL glTF, fps not finite and > 0, or unknown flags");
    const gltf_priv *sp = src->priv_;
    pb_gltf g = {0};
    pb_io_code rc = copy_base(src, &g, err);
    gltf_priv *pv = g.priv_;
    size_t na = src->num_animations;
    if (!rc) {
        g.animations = calloc(na ? na : 1, sizeof *g.animations);
        pv->in_acc = calloc(na ? na : 1, sizeof *pv->in_acc);
        pv->out_acc = calloc(na ? na : 1, sizeof *pv->out_acc);
        if (!g.animations || !pv->in_acc || !pv->out_acc)
            rc = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
        else
            g.num_animations = na;
    }
    for (size_t a = 0; a < na && !rc; a++) {
        size_t ns = src->animations[a].num_samplers;
        pv->in_acc[a] = malloc((ns ? ns : 1) * sizeof(int32_t));
        pv->out_acc[a] = malloc((ns ? ns : 1) * sizeof(int32_t));
        if (!pv->in_acc[a] || !pv->out_acc[a]) {
            rc = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
            break;
        }
        for (size_t s = 0; s < ns; s++) {
            pv->in_acc[a][s] = sp->in_acc ? sp->in_acc[a][s] : -1;
            pv->out_acc[a][s] = sp->out_acc ? sp->out_acc[a][s] : -1;
        }
        rc = resample_anim(&src->animations[a], fps, (flags & PB_GLTF_RESAMPLE_CUBIC) != 0, pv,
                           &g.animations[a], err);
        json_t *janim = json_array_get(json_object_get(pv->root, "animations"), a);
        if (!rc)
            rc = set_frame_time(janim, fps, err);
        if (!rc)
            g.animations[a].name = gltf_get_name(janim);
    }
    if (rc) {
        pb_gltf_free(&g);
        return rc;
    }
    *out = g;
    return PB_IO_OK;
}
