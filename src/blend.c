/* Pose blending: pb_pose_blend (k parallel batches, weights as given: the
 * averages' and the vec3 blend's kernels) and pb_pose_blend_layers (layer
 * structs with joint weights, relative weights, additive layers, linear or
 * log-space scales: the pose_blend kernel). Both check every argument
 * (check_blend.c) before anything is written. */
#include "check.h"
#include "internal.h"

static const pb_cvec3s no_v3 = {0, 0, 0};
static const pb_cquats no_q = {0, 0, 0, 0};

static int by_log(pb_blend_method m) { return m == PB_BLEND_LOG_REF || m == PB_BLEND_LOG; }

/* the reference tracks the output uses (ref.rot only for the *_REF methods) */
static pb_cpose used_ref(const pb_cpose *ref, pb_blend_method method)
{
    pb_cpose r = {no_q, no_v3, no_v3};
    if (ref) {
        r.pos = ref->pos;
        r.scale = ref->scale;
        if (blend_by_ref(method))
            r.rot = ref->rot;
    }
    return r;
}

static unsigned track_opts(const pb_pose *out)
{
    return (absent_v(out->pos) ? 0u : PB_BL_POS) | (absent_v(out->scale) ? 0u : PB_BL_SCALE);
}

/* ------------------------------------------------------------ pb_pose_blend */

pb_status pb_pose_blend(size_t joints, size_t k, const pb_cquats *rot, const pb_cvec3s *pos,
                        const pb_cvec3s *scale, const float *weights, pb_blend_method method,
                        const pb_cpose *ref, const pb_pose *out)
{
    pb_status st = pb_check_pose_blend(joints, k, rot, pos, scale, weights, method, ref, out);
    if (st != PB_OK || joints == 0)
        return st;
    const pb_kernels *K_ = pb_kernels_for(joints);
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

pb_status pb_pose_blend_layers(const pb_blend_desc *desc, const pb_pose *out)
{
    const pb_kernels *K = NULL;
    pb_status st = pb_check_blend_layers(desc, out, &K);
    if (st != PB_OK || desc->joints == 0)
        return st;
    pb_layer_set bl = {desc->layer_count, desc->layers};
    pb_layer_set ad = {desc->additive_count, desc->additive};
    unsigned o = track_opts(out);
    if (by_log(desc->method))
        o |= PB_BL_LOG;
    if (desc->flags & PB_BLEND_LINEAR_SCALE)
        o |= PB_BL_LINEAR_SCALE;
    if (blend_by_ref(desc->method) && !desc->ref) /* the reference from the layers */
        o |= PB_BL_HEAVY;
    const pb_cpose ref = used_ref(desc->ref, desc->method);
    K->pose_blend(desc->joints, &bl, &ad, o, &ref, out);
    return PB_OK;
}
