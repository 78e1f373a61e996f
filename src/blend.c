/* Pose blending: pb_pose_blend (k parallel batches, weights as given: the
 * averages' and the vec3 blend's kernels) and pb_pose_blend_layers (layer
 * structs with joint weights, relative weights, additive layers, linear or
 * log-space scales: the pose_blend kernel). Both check every argument before
 * anything is written. */
#include "check.h"
#include "internal.h"

static const pb_cvec3s no_v3 = {0, 0, 0};
static const pb_cquats no_q = {0, 0, 0, 0};

static int by_ref(pb_blend_method m) { return m == PB_BLEND_LOG_REF || m == PB_BLEND_RAW_REF; }
static int by_log(pb_blend_method m) { return m == PB_BLEND_LOG_REF || m == PB_BLEND_LOG; }

/* the reference tracks the output uses (ref.rot only for the *_REF methods) */
static pb_cpose used_ref(const pb_cpose *ref, pb_blend_method method)
{
    pb_cpose r = {no_q, no_v3, no_v3};
    if (ref) {
        r.pos = ref->pos;
        r.scale = ref->scale;
        if (by_ref(method))
            r.rot = ref->rot;
    }
    return r;
}

/* ref's tracks as inputs: those the output uses */
static int partial_cv(pb_cvec3s v) { return !absent_cv(v) && (!v.x || !v.y || !v.z); }
static int partial_cq(pb_cquats q) { return (q.w || q.x || q.y || q.z) && (!q.w || !q.x || !q.y || !q.z); }
static inline void in_ref(chk *c, const pb_cpose *ref, pb_blend_method method,
                          const pb_pose *out, size_t n)
{
    if (!ref)
        return;
    /* a track given with some of its pointers NULL is malformed, used or not
     * (never silently taken as absent) */
    if (partial_cv(ref->pos) || partial_cv(ref->scale) || partial_cq(ref->rot)) {
        chk_fail(c, PB_ERR_NULL);
        return;
    }
    if (by_ref(method))
        in_q_strict(c, ref->rot, n);
    if (!absent_cv(ref->pos) && !absent_v(out->pos))
        in_v_strict(c, ref->pos, n);
    if (!absent_cv(ref->scale) && !absent_v(out->scale))
        in_v_strict(c, ref->scale, n);
}
/* the reference's arrays the output uses into s; 0 if a track is malformed */
static inline int ref_span(span *s, const pb_cpose *ref, pb_blend_method method, int want_pos,
                           int want_scale)
{
    if (!ref)
        return 1;
    if (partial_cv(ref->pos) || partial_cv(ref->scale) || partial_cq(ref->rot))
        return 0;
    if (by_ref(method))
        span_add_q(s, ref->rot);
    if (want_pos && !absent_cv(ref->pos))
        span_add_v(s, ref->pos);
    if (want_scale && !absent_cv(ref->scale))
        span_add_v(s, ref->scale);
    return 1;
}

/* the output's tracks, registered first */
static void out_pose(chk *c, const pb_pose *out, size_t n)
{
    chk_init(c);
    out_q(c, out->rot, n);
    opt_out_v(c, out->pos, n);
    opt_out_v(c, out->scale, n);
}

/* the output's tracks at a glance (out_run in check.h) */
static out_run out_pose_run(const pb_pose *out, size_t n)
{
    out_run r = out_run_start(n * sizeof(float));
    out_run_q(&r, out->rot);
    if (!absent_v(out->pos))
        out_run_v(&r, out->pos);
    if (!absent_v(out->scale))
        out_run_v(&r, out->scale);
    return r;
}

static unsigned track_opts(const pb_pose *out)
{
    return (absent_v(out->pos) ? 0u : PB_PB_POS) | (absent_v(out->scale) ? 0u : PB_PB_SCALE);
}

/* ------------------------------------------------------------ pb_pose_blend */

static void in_v_list(chk *c, const pb_cvec3s *v, size_t k, size_t n)
{
    for (size_t i = 0; i < k && c->st == PB_OK; i++)
        in_v_strict(c, v[i], n);
}

static pb_status blend_check(size_t n, size_t k, const pb_cquats *rot, const pb_cvec3s *pos,
                             const pb_cvec3s *scale, const float *weights,
                             pb_blend_method method, const pb_cpose *ref, const pb_pose *out)
{
    if (k == 0) /* as for the averages */
        return PB_ERR_ARG;
    if (n > PB_MAX_COUNT || k > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    if ((unsigned)method >= PB_BLEND_METHOD_COUNT)
        return PB_ERR_ARG;
    if (n == 0) /* nothing to read or write, as for the averages */
        return PB_OK;
    if (!rot || !weights || !out)
        return PB_ERR_NULL;
    if ((by_ref(method) && !ref) || (!absent_v(out->pos) && !pos) ||
        (!absent_v(out->scale) && !scale))
        return PB_ERR_NULL;
    /* every array at a glance (as pb_pose_blend_layers) */
    int want_pos = !absent_v(out->pos), want_scale = !absent_v(out->scale);
    out_run r = out_pose_run(out, n);
    span s = span_none();
    for (size_t i = 0; i < k; i++) {
        span_add_q(&s, rot[i]);
        if (want_pos)
            span_add_v(&s, pos[i]);
        if (want_scale)
            span_add_v(&s, scale[i]);
    }
    if (ref_span(&s, ref, method, want_pos, want_scale) && run_clear(r, s) &&
        run_clear_bytes(r, weights, k * sizeof(float)))
        return PB_OK;
    chk c;
    out_pose(&c, out, n);
    for (size_t i = 0; i < k && c.st == PB_OK; i++)
        in_q_strict(&c, rot[i], n);
    if (!absent_v(out->pos))
        in_v_list(&c, pos, k, n);
    if (!absent_v(out->scale))
        in_v_list(&c, scale, k, n);
    in_ref(&c, ref, method, out, n);
    in_f(&c, weights, k, 0);
    return c.st;
}

pb_status pb_pose_blend(size_t joints, size_t k, const pb_cquats *rot, const pb_cvec3s *pos,
                        const pb_cvec3s *scale, const float *weights, pb_blend_method method,
                        const pb_cpose *ref, const pb_pose *out)
{
    pb_status st = blend_check(joints, k, rot, pos, scale, weights, method, ref, out);
    if (st != PB_OK || joints == 0)
        return st;
    const pb_kernels *K_ = pb_active_kernels();
    pb_cpose r = used_ref(ref, method);
    pb_samples s = {rot, no_q, 0};
    if (method == PB_BLEND_ACCURATE)
        K_->average_accurate(joints, k, &s, weights, out->rot);
    else if (by_log(method))
        K_->average_log(joints, k, r.rot, &s, weights, out->rot);
    else
        K_->average_raw(joints, k, r.rot, &s, weights, out->rot);
    if (!absent_v(out->pos))
        K_->vec3_blend(joints, k, r.pos, pos, weights, 0, out->pos);
    if (!absent_v(out->scale))
        K_->vec3_blend(joints, k, r.scale, scale, weights, 1, out->scale);
    return PB_OK;
}

/* ----------------------------------------------------- pb_pose_blend_layers */

/* a layer's input arrays into s: rotation always, the tracks the output
 * has (a blended layer's whether given or not: a NULL one leaves s not
 * clear; an additive layer's when given), its joint weights */
static inline void layer_span(span *s, const pb_blend_layer *l, int additive, int want_pos,
                              int want_scale)
{
    span_add_q(s, l->pose.rot);
    if (want_pos && (!additive || !absent_cv(l->pose.pos)))
        span_add_v(s, l->pose.pos);
    if (want_scale && (!additive || !absent_cv(l->pose.scale)))
        span_add_v(s, l->pose.scale);
    if (l->joint_weights)
        span_add(s, l->joint_weights);
}
/* a layer's inputs array by array (as layer_span lists them) */
static inline pb_status layer_check(chk *c, const pb_blend_layer *l, int additive,
                                    const pb_pose *out, size_t n)
{
    int want_pos = !absent_v(out->pos), want_scale = !absent_v(out->scale);
    if (!additive &&
        ((want_pos && absent_cv(l->pose.pos)) || (want_scale && absent_cv(l->pose.scale))))
        return PB_ERR_NULL;
    in_q_strict(c, l->pose.rot, n);
    if (want_pos && !absent_cv(l->pose.pos))
        in_v_strict(c, l->pose.pos, n);
    if (want_scale && !absent_cv(l->pose.scale))
        in_v_strict(c, l->pose.scale, n);
    if (l->joint_weights)
        in_f(c, l->joint_weights, n, 0);
    return c->st;
}

/* The outputs registered one by one, then the inputs: at a glance when
 * their span s (s_ok: ref well formed) is clear of every output, else array
 * by array. Out of line: the usual layouts pass at a glance without it. */
static PB_OUT_OF_LINE pb_status layers_check_each(const pb_blend_desc *d, const pb_pose *out,
                                                  size_t n, span s, int s_ok)
{
    chk c;
    out_pose(&c, out, n);
    if (c.st == PB_OK && s_ok && span_clear(&c, s, n * sizeof(float)))
        return PB_OK;
    pb_status st = c.st;
    for (size_t i = 0; i < d->layer_count && st == PB_OK; i++)
        st = layer_check(&c, &d->layers[i], 0, out, n);
    for (size_t i = 0; i < d->additive_count && st == PB_OK; i++)
        st = layer_check(&c, &d->additive[i], 1, out, n);
    if (st != PB_OK)
        return st;
    in_ref(&c, d->ref, d->method, out, n);
    return c.st;
}

static pb_status layers_check(const pb_blend_desc *d, const pb_pose *out)
{
    if (!d || !out)
        return PB_ERR_NULL;
    if ((unsigned)d->method >= PB_BLEND_METHOD_COUNT || d->method == PB_BLEND_ACCURATE ||
        flags_ok(d->flags, PB_BLEND_LINEAR_SCALE) != PB_OK || d->layer_count == 0)
        return PB_ERR_ARG;
    if (d->joints > PB_MAX_COUNT || d->layer_count > PB_MAX_COUNT ||
        d->additive_count > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    size_t n = d->joints;
    if (n == 0)
        return PB_OK;
    if (!d->layers || (d->additive_count && !d->additive) || (by_ref(d->method) && !d->ref))
        return PB_ERR_NULL;
    /* Every array at a glance (out_run, span in check.h): a 4-layer blend
     * has 10 outputs and 44 inputs, and registering the outputs in the
     * table cost more than the rest of the check */
    int want_pos = !absent_v(out->pos), want_scale = !absent_v(out->scale);
    out_run r = out_pose_run(out, n);
    span s = span_none();
    for (size_t i = 0; i < d->layer_count; i++)
        layer_span(&s, &d->layers[i], 0, want_pos, want_scale);
    for (size_t i = 0; i < d->additive_count; i++)
        layer_span(&s, &d->additive[i], 1, want_pos, want_scale);
    int s_ok = ref_span(&s, d->ref, d->method, want_pos, want_scale);
    if (s_ok && run_clear(r, s))
        return PB_OK;
    return layers_check_each(d, out, n, s, s_ok);
}

pb_status pb_pose_blend_layers(const pb_blend_desc *desc, const pb_pose *out)
{
    pb_status st = layers_check(desc, out);
    if (st != PB_OK || desc->joints == 0)
        return st;
    pb_layer_set bl = {desc->layer_count, desc->layers};
    pb_layer_set ad = {desc->additive_count, desc->additive};
    unsigned o = track_opts(out);
    if (by_log(desc->method))
        o |= PB_PB_LOG;
    if (desc->flags & PB_BLEND_LINEAR_SCALE)
        o |= PB_PB_LINEAR_SCALE;
    pb_active_kernels()->pose_blend(desc->joints, &bl, &ad, o, used_ref(desc->ref, desc->method),
                                    out);
    return PB_OK;
}
