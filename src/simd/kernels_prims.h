/* The element-wise quaternion primitives (products, abs, normalize, log,
 * exp, unroll, delta to angular velocity), written once over the lane
 * layer. Include after a lanes_<isa>.h. */
#ifndef PB_KERNELS_PRIMS_H
#define PB_KERNELS_PRIMS_H

#include "internal.h"
#include "lanes_math.h"
#include "kernels_common.h"

/* ------------------------------------------------------------ primitives */

static void k_quat_mul(size_t n, pb_cquats a, pb_cquats b, pb_quats out)
{
    PB_BLOCKS(n, blk, q_st(out, q_mul(q_ld(a, blk), q_ld(b, blk)), blk));
}
static void k_quat_mul_inv(size_t n, pb_cquats a, pb_cquats b, pb_quats out)
{
    PB_BLOCKS(n, blk, q_st(out, q_mul_inv(q_ld(a, blk), q_ld(b, blk)), blk));
}
static void k_quat_inv_mul(size_t n, pb_cquats a, pb_cquats b, pb_quats out)
{
    PB_BLOCKS(n, blk, q_st(out, q_inv_mul(q_ld(a, blk), q_ld(b, blk)), blk));
}
static void k_quat_abs(size_t n, pb_cquats q, pb_quats out)
{
    PB_BLOCKS(n, blk, q_st(out, q_abs(q_ld(q, blk)), blk));
}
static void k_quat_normalize(size_t n, pb_cquats q, pb_quats out)
{
    PB_BLOCKS(n, blk, q_st(out, q_normalize(q_ld(q, blk)), blk));
}
/* out = scale * log(q): scale 1 is log, 2 the scaled angle-axis */
static void k_quat_log(size_t n, pb_cquats q, float scale, pb_vec3s out)
{
    PB_BLOCKS(n, blk, v3_st(out, q_log_k(q_ld(q, blk), scale, 0), blk));
}
/* out = exp(scale * v): scale 1 is exp, 1/2 from the scaled angle-axis */
static void k_quat_exp(size_t n, pb_cvec3s v, float scale, pb_quats out)
{
    PB_BLOCKS(n, blk, q_st(out, q_exp(v3_scale(v3_ld(v, blk), vf_set(scale))), blk));
}

PB_INLINE void b_unroll(size_t frames, size_t tracks, pb_cquats in, pb_quats out, pb_blk blk)
{
    vq prev = q_ld(in, blk);
    q_st(out, prev, blk);
    for (size_t f = 1; f < frames; f++) {
        size_t o = f * tracks;
        vq q = q_align(prev, q_ld(cq_offset(in, o), blk));
        q_st(q_offset(out, o), q, blk);
        prev = q;
    }
}
static void k_quat_unroll(size_t frames, size_t tracks, pb_cquats in, pb_quats out)
{
    if (frames == 0)
        return;
    PB_BLOCKS(tracks, blk, b_unroll(frames, tracks, in, out, blk));
}

PB_INLINE void b_delta_av(pb_cquats ref, pb_cquats delta, pb_vec3s out, pb_blk blk)
{
    vq a = q_mul_inv(q_ld(delta, blk), q_ld(ref, blk));
    v3_st(out, v3_scale(q_vec(a), vf_set(2.0f)), blk);
}
static void k_quat_delta_to_angular_velocity(size_t n, pb_cquats ref, pb_cquats delta, pb_vec3s out)
{
    PB_BLOCKS(n, blk, b_delta_av(ref, delta, out, blk));
}

/* this family's rows of the kernel table (kernels.h) */
#define PB_PRIMS_KERNELS                                                                           \
    .quat_mul = k_quat_mul, .quat_mul_inv = k_quat_mul_inv, .quat_inv_mul = k_quat_inv_mul,        \
    .quat_abs = k_quat_abs, .quat_normalize = k_quat_normalize, .quat_log = k_quat_log,            \
    .quat_exp = k_quat_exp, .quat_unroll = k_quat_unroll,                                          \
    .quat_delta_to_angular_velocity = k_quat_delta_to_angular_velocity,

#endif
