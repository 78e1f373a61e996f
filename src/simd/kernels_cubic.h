/* The one-frame cubics, written once over the lane layer: vec3 Hermite and
 * Catmull-Rom, quaternion Hermite and Catmull-Rom in the half offset form,
 * the raw (normalised) quaternion cubic, log-space scale Hermite and
 * Catmull-Rom. Their per-block steps (cr_tangents, quat_hermite_eval,
 * scale_hermite_finish) are the resampler's too (kernels_clip.h). Include
 * after a lanes_<isa>.h. */
#ifndef PB_KERNELS_CUBIC_H
#define PB_KERNELS_CUBIC_H

#include "internal.h"
#include "lanes_math.h"
#include "kernels_common.h"

/* ---------------------------------------------------------- vec3 cubics */

PB_INLINE void b_vec3_hermite(pb_hermite_basis h, v3 p0, v3 p1, v3 v0, v3 v1, pb_vec3s pos,
                              pb_vec3s vel, pb_blk blk)
{
    v3 d = v3_sub(p1, p0);
    v3_st(pos, v3_add(hermite_value(h, d, v0, v1), p0), blk);
    if (vel.x)
        v3_st(vel, hermite_deriv(h, d, v0, v1), blk);
}
static void k_vec3_hermite(size_t n, float x, pb_cvec3s p0, pb_cvec3s p1, pb_cvec3s v0,
                           pb_cvec3s v1, pb_vec3s pos, pb_vec3s vel)
{
    pb_hermite_basis h = hermite_basis(x);
    PB_BLOCKS(n, blk,
              b_vec3_hermite(h, v3_ld(p0, blk), v3_ld(p1, blk), v3_ld(v0, blk), v3_ld(v1, blk), pos,
                             vel, blk));
}
/* Catmull-Rom's central-difference tangents from the differences of four
 * keys: (d01 + d12)/2 and (d12 + d23)/2 */
PB_INLINE void cr_tangents(v3 d01, v3 d12, v3 d23, v3 *t1, v3 *t2)
{
    vf half = vf_set(0.5f);
    *t1 = v3_scale(v3_add(d01, d12), half);
    *t2 = v3_scale(v3_add(d12, d23), half);
}
PB_INLINE void b_vec3_catmull_rom(pb_hermite_basis h, pb_cvec3s p0, pb_cvec3s p1, pb_cvec3s p2,
                                  pb_cvec3s p3, pb_vec3s pos, pb_vec3s vel, pb_blk blk)
{
    v3 a = v3_ld(p0, blk), b = v3_ld(p1, blk), c = v3_ld(p2, blk), d = v3_ld(p3, blk);
    v3 d12 = v3_sub(c, b), t1, t2;
    cr_tangents(v3_sub(b, a), d12, v3_sub(d, c), &t1, &t2);
    v3_st(pos, v3_add(hermite_value(h, d12, t1, t2), b), blk);
    if (vel.x)
        v3_st(vel, hermite_deriv(h, d12, t1, t2), blk);
}
static void k_vec3_catmull_rom(size_t n, float x, float vscale, pb_cvec3s p0, pb_cvec3s p1,
                               pb_cvec3s p2, pb_cvec3s p3, pb_vec3s pos, pb_vec3s vel)
{
    pb_hermite_basis h = hermite_basis_scaled(x, vscale);
    PB_BLOCKS(n, blk, b_vec3_catmull_rom(h, p0, p1, p2, p3, pos, vel, blk));
}

/* ---------------------------------------------------- quaternion cubics */

/* The offset-form Hermite shared by quat_hermite and quat_catmull_rom:
 * u = w1 d + w2 v0 + w3 v1, rot = exp(u/2) r0, vel = u' or J_l(u) u'. Taken
 * in the half form (hermite_basis_half): the offset as its log l = d/2, and
 * u/2 formed directly. */
/* u' (or J_l(u) u' with PB_EXACT_VELOCITY); e = exp(u/2), sinc = sinc(|u|/2) */
PB_INLINE v3 hermite_velocity(pb_hermite_basis h, v3 uh, v3 l, v3 v0, v3 v1, unsigned flags, vq e,
                              vf sinc)
{
    v3 du = hermite_deriv(h, l, v0, v1);
    return (flags & PB_EXACT_VELOCITY) ? jacobian_left_apply(v3_add(uh, uh), du, sinc, e.w) : du;
}
/* The rotation exp(u/2) r0; the velocity is stored (when wanted) here. */
PB_INLINE vq quat_hermite_eval(pb_hermite_basis h, vq r0, v3 l, v3 v0, v3 v1, unsigned flags,
                               pb_vec3s vel, pb_blk blk)
{
    v3 uh = hermite_value(h, l, v0, v1);
    vf sinc;
    vq e = q_exp_sc(uh, &sinc);
    if (vel.x)
        v3_st(vel, hermite_velocity(h, uh, l, v0, v1, flags, e, sinc), blk);
    return q_mul(e, r0);
}
PB_INLINE void quat_hermite_finish(pb_hermite_basis h, vq r0, v3 l, v3 v0, v3 v1, unsigned flags,
                                   pb_quats rot, pb_vec3s vel, pb_blk blk)
{
    q_st(rot, quat_hermite_eval(h, r0, l, v0, v1, flags, vel, blk), blk);
}
static void k_quat_hermite(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cvec3s v0,
                           pb_cvec3s v1, unsigned flags, pb_quats rot, pb_vec3s vel)
{
    pb_hermite_basis h = hermite_basis_half(x, 1.0);
    PB_BLOCKS(n, blk, {
        vq a = q_ld(r0, blk);
        quat_hermite_finish(h, a, q_sub_log(q_ld(r1, blk), a), v3_ld(v0, blk), v3_ld(v1, blk),
                            flags, rot, vel, blk);
    });
}
/* Catmull-Rom of r0..r3 in the half offset form: l12 the log of the offset
 * r1 -> r2 and the central-difference tangents t1, t2 (scaled angle-axis,
 * shortest arcs): (d01 + d12)/2 = l01 + l12. */
PB_INLINE void cr_offsets(vq a, vq b, vq c, vq d, v3 *l12, v3 *t1, v3 *t2)
{
    v3 l01 = q_sub_log(b, a), l23 = q_sub_log(d, c);
    *l12 = q_sub_log(c, b);
    *t1 = v3_add(l01, *l12);
    *t2 = v3_add(*l12, l23);
}
PB_INLINE void b_quat_catmull_rom(pb_hermite_basis h, pb_cquats r0, pb_cquats r1, pb_cquats r2,
                                  pb_cquats r3, unsigned flags, pb_quats rot, pb_vec3s vel,
                                  pb_blk blk)
{
    vq b = q_ld(r1, blk);
    v3 d12, t1, t2;
    cr_offsets(q_ld(r0, blk), b, q_ld(r2, blk), q_ld(r3, blk), &d12, &t1, &t2);
    quat_hermite_finish(h, b, d12, t1, t2, flags, rot, vel, blk);
}
static void k_quat_catmull_rom(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cquats r2,
                               pb_cquats r3, unsigned flags, pb_quats rot, pb_vec3s vel)
{
    pb_hermite_basis h = hermite_basis_half(x, 1.0);
    PB_BLOCKS(n, blk, b_quat_catmull_rom(h, r0, r1, r2, r3, flags, rot, vel, blk));
}

PB_INLINE void b_quat_raw_cubic(pb_hermite_basis h, pb_cquats r0, pb_cquats r1, pb_cquats r2,
                                pb_cquats r3, unsigned flags, pb_quats rot, pb_quats vel4,
                                pb_blk blk)
{
    vq b = q_ld(r1, blk);
    vq a = q_align(b, q_ld(r0, blk));
    vq c = q_align(b, q_ld(r2, blk));
    vq d = q_align(c, q_ld(r3, blk));
    vf half = vf_set(0.5f);
    vq d12 = q_sub(c, b);
    vq t1 = q_scale(q_sub(c, a), half), t2 = q_scale(q_sub(d, b), half);
    vq cv = q_add(b, q_fma(t2, h.w3, q_fma(t1, h.w2, q_scale(d12, h.w1))));
    vf n2 = q_dot(cv, cv);
    vm zero = vm_eq(n2, vf_zero());
    vf inv = vf_div(vf_set(1.0f), vf_sqrt(vf_sel(zero, vf_set(1.0f), n2)));
    inv = vf_sel(zero, vf_zero(), inv);
    vq r = q_sel(zero, q_identity(), q_scale(cv, inv));
    q_st(rot, r, blk);
    if (vel4.w) {
        vq dv = q_fma(t2, h.q3, q_fma(t1, h.q2, q_scale(d12, h.q1)));
        if (flags & PB_EXACT_VELOCITY) /* tangent part of c' over |c| */
            dv = q_scale(q_fma(r, vf_neg(q_dot(r, dv)), dv), inv);
        q_st(vel4, dv, blk);
    }
}
static void k_quat_raw_cubic(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cquats r2,
                             pb_cquats r3, unsigned flags, pb_quats rot, pb_quats vel4)
{
    pb_hermite_basis h = hermite_basis(x);
    PB_BLOCKS(n, blk, b_quat_raw_cubic(h, r0, r1, r2, r3, flags, rot, vel4, blk));
}

/* ---------------------------------------------------------- scale cubics */

PB_INLINE void scale_hermite_finish(pb_hermite_basis h, v3 s0, v3 d, v3 v0, v3 v1, pb_vec3s scale,
                                    pb_vec3s svel, pb_blk blk)
{
    v3 u = hermite_value(h, d, v0, v1);
    v3_st(scale, v3_mul(v3_exp(u), s0), blk);
    if (svel.x)
        v3_st(svel, hermite_deriv(h, d, v0, v1), blk);
}
static void k_scale_hermite(size_t n, float x, pb_cvec3s s0, pb_cvec3s s1, pb_cvec3s v0,
                            pb_cvec3s v1, pb_vec3s scale, pb_vec3s svel)
{
    pb_hermite_basis h = hermite_basis(x);
    PB_BLOCKS(n, blk, {
        v3 a = v3_ld(s0, blk);
        scale_hermite_finish(h, a, v3_ln_ratio(v3_ld(s1, blk), a), v3_ld(v0, blk), v3_ld(v1, blk),
                             scale, svel, blk);
    });
}
PB_INLINE void b_scale_catmull_rom(pb_hermite_basis h, pb_cvec3s s0, pb_cvec3s s1, pb_cvec3s s2,
                                   pb_cvec3s s3, pb_vec3s scale, pb_vec3s svel, pb_blk blk)
{
    v3 a = v3_ld(s0, blk), b = v3_ld(s1, blk), c = v3_ld(s2, blk), d = v3_ld(s3, blk);
    v3 d12 = v3_ln_ratio(c, b), t1, t2;
    cr_tangents(v3_ln_ratio(b, a), d12, v3_ln_ratio(d, c), &t1, &t2);
    scale_hermite_finish(h, b, d12, t1, t2, scale, svel, blk);
}
static void k_scale_catmull_rom(size_t n, float x, float vscale, pb_cvec3s s0, pb_cvec3s s1,
                                pb_cvec3s s2, pb_cvec3s s3, pb_vec3s scale, pb_vec3s svel)
{
    pb_hermite_basis h = hermite_basis_scaled(x, vscale);
    PB_BLOCKS(n, blk, b_scale_catmull_rom(h, s0, s1, s2, s3, scale, svel, blk));
}

/* this family's rows of the kernel table (kernels.h) */
#define PB_CUBIC_KERNELS                                                                           \
    .vec3_hermite = k_vec3_hermite, .vec3_catmull_rom = k_vec3_catmull_rom,                        \
    .quat_hermite = k_quat_hermite, .quat_catmull_rom = k_quat_catmull_rom,                        \
    .quat_raw_cubic = k_quat_raw_cubic, .scale_hermite = k_scale_hermite,                          \
    .scale_catmull_rom = k_scale_catmull_rom,

#endif
