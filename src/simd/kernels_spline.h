/* The pieces of pb_quat_spline_eval (src/spline.c), written once over the
 * lane layer: tangent offsets, Bezier and Shoemake control points, De
 * Casteljau by slerps from the nearer end. Include after a
 * lanes_<isa>.h. */
#ifndef PB_KERNELS_SPLINE_H
#define PB_KERNELS_SPLINE_H

#include "internal.h"
#include "lanes_math.h"
#include "kernels_common.h"
#include "kernels_slerp.h"

/* ------------------------------------------------- splines notebook */

/* (ln abs(cur prev^-1) + ln abs(next cur^-1)) / 2: the log of the offset */
PB_INLINE v3 tangent_log(pb_cquats prev, pb_cquats cur, pb_cquats next, pb_blk blk, vq *qc)
{
    vq c = q_ld(cur, blk);
    v3 lin = q_log_abs(q_mul_inv(c, q_ld(prev, blk)));
    v3 lout = q_log_abs(q_mul_inv(q_ld(next, blk), c));
    *qc = c;
    return v3_scale(v3_add(lin, lout), vf_set(0.5f));
}
static void k_tangent_offset(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                             pb_quats offset)
{
    PB_BLOCKS(n, blk, {
        vq c;
        q_st(offset, q_exp(tangent_log(prev, cur, next, blk, &c)), blk);
    });
}
static void k_bezier_controls(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                              pb_quats before, pb_quats after)
{
    PB_BLOCKS(n, blk, {
        vq c;
        v3 m = v3_scale(tangent_log(prev, cur, next, blk, &c), vf_set(1.0f / 3.0f));
        vq qa = q_mul(q_exp(m), c);
        vq qb = q_mul(q_exp(v3_scale(m, vf_set(-1.0f))), c);
        q_st(before, qb, blk);
        q_st(after, qa, blk);
    });
}
/* Shortest-path slerp evaluated from the nearer end: slerp's rounding grows
 * with the angle t th it turns away from its start, so for t > 1/2 it runs
 * from b' (b in a's hemisphere) back to a with 1 - t (exact in float there).
 * The same arc and the same sign as slerp(a, b, t); exactly b' at t = 1. */
PB_INLINE vq slerp_short(vq a, vq b, float t)
{
    if (t > 0.5f)
        return q_slerp_path(q_align(a, b), a, 1.0f - t, 0);
    return q_slerp_path(a, b, t, 0);
}
PB_INLINE void b_de_casteljau(float t, pb_cquats q0, pb_cquats q1, pb_cquats q2, pb_cquats q3,
                              pb_quats out, pb_blk blk)
{
    vq a = q_ld(q0, blk), b = q_ld(q1, blk), c = q_ld(q2, blk), d = q_ld(q3, blk);
    vq ab = slerp_short(a, b, t), bc = slerp_short(b, c, t), cd = slerp_short(c, d, t);
    vq abc = slerp_short(ab, bc, t), bcd = slerp_short(bc, cd, t);
    q_st(out, slerp_short(abc, bcd, t), blk);
}
static void k_de_casteljau(size_t n, float t, pb_cquats q0, pb_cquats q1, pb_cquats q2,
                           pb_cquats q3, pb_quats out)
{
    PB_BLOCKS(n, blk, b_de_casteljau(t, q0, q1, q2, q3, out, blk));
}
/* Shoemake: Double(p, q) = 2 (p.q) q - p, Bisect(p, q) = (p + q)/|p + q| */
PB_INLINE vq q_double(vq p, vq q)
{
    return q_sub(q_scale(q, vf_mul(vf_set(2.0f), q_dot(p, q))), p);
}
static void k_shoemake_controls(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next, pb_quats b,
                                pb_quats a)
{
    PB_BLOCKS(n, blk, {
        vq c = q_ld(cur, blk);
        vq qa = q_normalize(q_add(q_double(q_ld(prev, blk), c), q_ld(next, blk)));
        vq qb = q_normalize(q_double(qa, c));
        q_st(b, qb, blk);
        q_st(a, qa, blk);
    });
}

/* this family's rows of the kernel table (kernels.h) */
#define PB_SPLINE_KERNELS                                                                          \
    .tangent_offset = k_tangent_offset, .bezier_controls = k_bezier_controls,                      \
    .de_casteljau = k_de_casteljau, .shoemake_controls = k_shoemake_controls,

#endif
