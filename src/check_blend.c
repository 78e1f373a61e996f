/* The argument checks of the pose blends (pb_pose_blend,
 * pb_pose_blend_layers: src/blend.c calls them first), over check.h's two
 * passes. pb_pose_blend_layers' glance hands a blended layer's pose
 * pointers to the kernels' vectorised layers_glance (simd/kernels_glance.h,
 * the one part of the checks compiled per instruction set, static
 * assertions on the layouts it reads); everything else is here. */
#include "check.h"
#include "internal.h"

/* ------------------------------------------------- the reference, the output */

/* ref's tracks as inputs: those the output uses */
static int partial_cv(pb_cvec3s v) { return !absent_cv(v) && (!v.x || !v.y || !v.z); }
static int partial_cq(pb_cquats q)
{
    return (q.w || q.x || q.y || q.z) && (!q.w || !q.x || !q.y || !q.z);
}
#define TRK_POS 1u /* track bits, as the kernels' layers_glance takes them */
#define TRK_SCALE 2u
#define TRK_ROT 4u
/* the tracks of ref (not NULL) the output uses */
static unsigned ref_use(const pb_cpose *ref, pb_blend_method method, const pb_pose *out)
{
    return (blend_by_ref(method) ? TRK_ROT : 0u) |
           (!absent_cv(ref->pos) && !absent_v(out->pos) ? TRK_POS : 0u) |
           (!absent_cv(ref->scale) && !absent_v(out->scale) ? TRK_SCALE : 0u);
}
/* a track given with some of its pointers NULL is malformed, used or not
 * (never silently taken as absent): whether one outside `tested` is (a
 * glance needs no such test of the tracks it tests: a NULL among their
 * pointers fails it) */
static PB_IN_LINE int ref_partial(const pb_cpose *ref, unsigned tested)
{
    return (!(tested & TRK_POS) && partial_cv(ref->pos)) ||
           (!(tested & TRK_SCALE) && partial_cv(ref->scale)) ||
           (!(tested & TRK_ROT) && partial_cq(ref->rot));
}
static PB_IN_LINE void in_ref(chk *c, const pb_cpose *ref, pb_blend_method method,
                              const pb_pose *out, size_t n)
{
    if (!ref)
        return;
    const unsigned use = ref_use(ref, method, out);
    if (ref_partial(ref, c->pass == CHK_GLANCE ? use : 0u)) {
        chk_fail(c, PB_ERR_NULL);
        return;
    }
    if (use & TRK_ROT)
        in_q_strict(c, ref->rot, n);
    if (use & TRK_POS)
        in_v_strict(c, ref->pos, n);
    if (use & TRK_SCALE)
        in_v_strict(c, ref->scale, n);
}

/* the output's tracks, listed first */
static PB_IN_LINE void out_pose(chk *c, const pb_pose *out, size_t n)
{
    out_q(c, out->rot, n);
    opt_out_v(c, out->pos, n);
    opt_out_v(c, out->scale, n);
}

/* ------------------------------------------------------------ pb_pose_blend */

static PB_IN_LINE void in_v_list(chk *c, const pb_cvec3s *v, size_t k, size_t n)
{
    for (size_t i = 0; i < k && c->st == PB_OK; i++)
        in_v_strict(c, v[i], n);
}

static PB_IN_LINE void blend_arrays_list(chk *c, size_t n, size_t k, const pb_cquats *rot,
                                         const pb_cvec3s *pos, const pb_cvec3s *scale,
                                         const float *weights, pb_blend_method method,
                                         const pb_cpose *ref, const pb_pose *out)
{
    out_pose(c, out, n);
    for (size_t i = 0; i < k && c->st == PB_OK; i++)
        in_q_strict(c, rot[i], n);
    if (!absent_v(out->pos))
        in_v_list(c, pos, k, n);
    if (!absent_v(out->scale))
        in_v_list(c, scale, k, n);
    in_ref(c, ref, method, out, n);
    in_f(c, weights, k, 0);
}
PB_CHECKED(blend_arrays,
           (size_t n, size_t k, const pb_cquats *rot, const pb_cvec3s *pos, const pb_cvec3s *scale,
            const float *weights, pb_blend_method method, const pb_cpose *ref, const pb_pose *out),
           (n, k, rot, pos, scale, weights, method, ref, out))

pb_status pb_check_pose_blend(size_t n, size_t k, const pb_cquats *rot, const pb_cvec3s *pos,
                              const pb_cvec3s *scale, const float *weights, pb_blend_method method,
                              const pb_cpose *ref, const pb_pose *out)
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
    if ((blend_by_ref(method) && !ref) || (!absent_v(out->pos) && !pos) ||
        (!absent_v(out->scale) && !scale))
        return PB_ERR_NULL;
    return blend_arrays_check(n, k, rot, pos, scale, weights, method, ref, out);
}

/* ----------------------------------------------------- pb_pose_blend_layers */

/* a layer's inputs: rotation always, the tracks the output has (required in
 * a blended layer, optional in an additive one), its joint weights */
static PB_IN_LINE void layer_list(chk *c, const pb_blend_layer *l, int additive, const pb_pose *out,
                                  size_t n)
{
    int want_pos = !absent_v(out->pos), want_scale = !absent_v(out->scale);
    if (!additive &&
        ((want_pos && absent_cv(l->pose.pos)) || (want_scale && absent_cv(l->pose.scale)))) {
        chk_fail(c, PB_ERR_NULL);
        return;
    }
    in_q_strict(c, l->pose.rot, n);
    if (want_pos && !absent_cv(l->pose.pos))
        in_v_strict(c, l->pose.pos, n);
    if (want_scale && !absent_cv(l->pose.scale))
        in_v_strict(c, l->pose.scale, n);
    if (l->joint_weights)
        in_f(c, l->joint_weights, n, 0);
}
static PB_IN_LINE void layers_arrays_list(chk *c, const pb_blend_desc *d, const pb_pose *out)
{
    size_t n = d->joints;
    out_pose(c, out, n);
    for (size_t i = 0; i < d->layer_count && c->st == PB_OK; i++)
        layer_list(c, &d->layers[i], 0, out, n);
    for (size_t i = 0; i < d->additive_count && c->st == PB_OK; i++)
        layer_list(c, &d->additive[i], 1, out, n);
    if (c->st == PB_OK)
        in_ref(c, d->ref, d->method, out, n);
}
PB_CHECKED_EACH(layers_arrays, (const pb_blend_desc *d, const pb_pose *out), (d, out))

/* The glance (CHK_GLANCE) by hand: the blended layers and the reference
 * through the kernels' layers_glance (a layer's pointers in vector
 * registers; an absent track of a blended layer, or a partial one of the
 * reference, has a NULL that fails it, and the array-by-array pass names
 * the error); the rest as layers_arrays_list. */
static PB_IN_LINE int layers_glance(const pb_kernels *K, const pb_blend_desc *d, const pb_pose *out)
{
    chk c;
    const size_t n = d->joints, bytes = n * sizeof(float);
    const unsigned tracks =
        (absent_v(out->pos) ? 0u : TRK_POS) | (absent_v(out->scale) ? 0u : TRK_SCALE);
    const pb_cpose *ref = d->ref;
    const unsigned rtracks = ref ? ref_use(ref, d->method, out) : 0u; /* as in_ref */
    if (ref && ref_partial(ref, rtracks))
        return 0;
    uintptr_t hull[2];
    if (!K->layers_glance(d->layer_count, d->layers, ref, rtracks, out, bytes, tracks, hull))
        return 0;
    if (!d->additive_count)
        return 1;
    chk_glance(&c); /* the additive layers against the same hull */
    c.g_lo = hull[0];
    c.g_end = hull[1];
    for (size_t i = 0; i < d->additive_count; i++)
        layer_list(&c, &d->additive[i], 1, out, n);
    return chk_clear(&c);
}

/* the checks, and the kernels for the batch in *K when they pass */
pb_status pb_check_blend_layers(const pb_blend_desc *d, const pb_pose *out, const pb_kernels **K)
{
    if (!d || !out)
        return PB_ERR_NULL;
    if ((unsigned)d->method >= PB_BLEND_METHOD_COUNT || d->method == PB_BLEND_ACCURATE ||
        flags_ok(d->flags, PB_BLEND_LINEAR_SCALE) != PB_OK || d->layer_count == 0)
        return PB_ERR_ARG;
    if (d->joints > PB_MAX_COUNT || d->layer_count > PB_MAX_COUNT ||
        d->additive_count > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    if (d->joints == 0)
        return PB_OK;
    if (!d->layers || (d->additive_count && !d->additive))
        return PB_ERR_NULL;
    *K = pb_kernels_for_blend(d->joints);
    return layers_glance(*K, d, out) ? PB_OK : layers_arrays_each(d, out);
}
