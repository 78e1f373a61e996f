/* Slerp and nlerp with the path rule (shortest or long), written once over
 * the lane layer; the splines' De Casteljau runs q_slerp_path too
 * (kernels_spline.h). Include after a lanes_<isa>.h. */
#ifndef PB_KERNELS_SLERP_H
#define PB_KERNELS_SLERP_H

#include "internal.h"
#include "lanes_math.h"
#include "kernels_common.h"

/* ------------------------------------------------------- slerp / nlerp */

/* Where b must flip for the path rule: shortest (flip when a.b < 0) or long
 * (flip when a.b > 0); *d = a.b. Flipping b negates a.b exactly, so callers
 * flip d along with b instead of forming the dot product again. */
PB_INLINE vm path_flip(vq a, vq b, unsigned flags, vf *d)
{
    *d = q_dot(a, b);
    /* a.b > 0 as -(a.b) < 0 (NaN and zeros flip neither way): one compare
     * whatever the rule, the rule a sign chosen once per call. Choosing
     * between two compares instead put the choice on every block's path (on
     * AVX-512 the masks went through general registers and a cmov). */
    vf rule = vf_set((flags & PB_LONG_PATH) ? -0.0f : 0.0f);
    return vm_lt(vf_bxor(*d, rule), vf_zero());
}
/* b - a, or b + a when b is on a's far hemisphere (d = a.b < 0): whichever of
 * the two nearly cancels is then exact, so the part of b orthogonal to a keeps
 * full relative accuracy even when b is within 1e-4 of a or of -a. */
PB_INLINE vq q_chord(vq a, vq b, vf d) { return q_sub(b, q_xorsign(a, d)); }
/* Slerp as cos(t th) a + sin(t th) e, e the unit direction of b in the plane
 * of a and b orthogonal to a, th = atan2(|e_raw|, a.b): no acos, and no
 * division by a vanishing sine (sin(t th)/|e_raw| = t sinc(t th) th/|e_raw|).
 * e is taken from the chord c = b -+ a (as q_chord), not from b - (a.b) a:
 * near the long-path antipode b ~ -a the latter cancels to a vector ~1e4
 * times smaller than its rounding allows, while b + a is exact there
 * (Sterbenz). When b is -a to rounding (the long path of equal rotations) e
 * is a's local x axis, a i, and th = pi.
 * The flip, the chord and a.c all come straight from the loads: both chords
 * b - a and b + a and their dots with a are formed, and the flip picks one
 * (negated when b is flipped: -b -+ a = -(b +- a) exactly). One dot product
 * on the dependency chain instead of three, and that chain bounds slerp's
 * speed. */
#define PB_SLERP_OPPOSITE 1e-6f
PB_INLINE vq q_slerp_path(vq a, vq b, float tf, unsigned flags)
{
    int lng = (flags & PB_LONG_PATH) != 0;
    vf d;
    vm flip = path_flip(a, b, flags, &d);
    vf fs = flip_sign(flip);
    if (tf == 1.0f) /* exact end point: b on its path (t = 0 already gives a) */
        return q_xorsign(b, fs);
    vf t = vf_set(tf);
    vq kept = lng ? q_add(b, a) : q_sub(b, a);    /* the chord when b is kept */
    vq flipped = lng ? q_sub(b, a) : q_add(b, a); /* minus it when b is flipped */
    vq c = q_xorsign(q_sel(flip, flipped, kept), fs);
    vf ac = vf_xorsign(vf_sel(flip, q_dot(a, flipped), q_dot(a, kept)), fs);
    d = vf_xorsign(d, fs);
    vq e = q_fma(a, vf_neg(ac), c);
    vf s2 = q_dot(e, e);
    vf th, th2;
    vf ratio = atan2_ratio(s2, d, &th, &th2);
    vm opposite =
        vm_and(vm_lt(s2, vf_set(PB_SLERP_OPPOSITE * PB_SLERP_OPPOSITE)), vm_lt(d, vf_zero()));
    if (vm_any(opposite)) {
        vq perp = {vf_neg(a.x), a.w, a.z, vf_neg(a.y)};
        e = q_sel(opposite, perp, e);
        th = vf_sel(opposite, vf_set(PB_PI_F), th);
        th2 = vf_sel(opposite, vf_set(PB_PI_F * PB_PI_F), th2);
        ratio = vf_sel(opposite, th, ratio);
    }
    vf sinc, cs;
    PB_SINCOS_SQ(vf_mul(vf_mul(t, t), th2), vf_mul(t, th), sinc, cs);
    return q_fma(e, vf_mul(vf_mul(t, sinc), ratio), q_scale(a, cs));
}
static void k_quat_slerp(size_t n, float t, pb_cquats a, pb_cquats b, unsigned flags, pb_quats out)
{
    PB_BLOCKS(n, blk, q_st(out, q_slerp_path(q_ld(a, blk), q_ld(b, blk), t, flags), blk));
}
static void k_quat_nlerp(size_t n, float t, pb_cquats a, pb_cquats b, unsigned flags, pb_quats out)
{
    /* (1-t) a + t b as k a + t c with c = q_chord(a, b): k = 1 when c = b - a,
     * 1 - 2t when c = b + a, so the near-cancelling sum of the long path of
     * b ~ -a at t ~ 1/2 is formed from the exact chord. */
    vf tv = vf_set(t), one = vf_set(1.0f), k_far = vf_set(1.0f - 2.0f * t);
    PB_BLOCKS(n, blk, {
        vq qa = q_ld(a, blk), qb = q_ld(b, blk);
        vf d;
        vf fs = flip_sign(path_flip(qa, qb, flags, &d));
        qb = q_xorsign(qb, fs);
        d = vf_xorsign(d, fs);
        vf k = vf_sel(vm_lt(d, vf_zero()), k_far, one);
        q_st(out, q_normalize(q_fma(q_chord(qa, qb, d), tv, q_scale(qa, k))), blk);
    });
}

/* this family's rows of the kernel table (kernels.h) */
#define PB_SLERP_KERNELS .quat_slerp = k_quat_slerp, .quat_nlerp = k_quat_nlerp,

#endif
