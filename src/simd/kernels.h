/* Every batch kernel, written once over the lane layer. A backend translation
 * unit includes its lanes_<isa>.h, then this file, then instantiates
 * PB_DEFINE_KERNEL_TABLE(name). Arguments arrive validated (internal.h). */
#ifndef PB_KERNELS_H
#define PB_KERNELS_H

#include "internal.h"
#include "lanes_math.h"

PB_INLINE vf weight_at(const float *w, size_t i) { return vf_set(w ? w[i] : 1.0f); }

/* Weight scale: the scale-free averages (raw, raw_ref, basic, accurate)
 * multiply every weight by 2^-E, E the exponent of the largest finite |w_i|,
 * so the largest is in [1, 2) whatever the units: weights w and 2^e w give
 * the same scaled weights, hence the same bits, wherever 2^e w is exact, and
 * sums neither overflow (1e20 weights) nor underflow (denormal weights). The
 * factor is a power of two (exact), as two factors when 2^-E is outside the
 * float range. Weights all zero or not finite: no scaling. */
typedef struct {
    float a, b;
} pb_wscale;
/* the running largest finite |w| */
PB_INLINE float wscale_max(float mx, float w)
{
    float a = fabsf(w);
    return a > mx && a <= 3.4028235e38f ? a : mx;
}
/* the scale for the largest finite |w_i| mx */
PB_INLINE pb_wscale wscale_for(float mx)
{
    pb_wscale r = {1.0f, 1.0f};
    if (mx == 0.0f)
        return r;
    /* E from the bits (no libm call: this runs once per call) */
    uint32_t u;
    memcpy(&u, &mx, 4);
    int e = (int)(u >> 23) - 127;
    if (u >> 23 == 0) /* denormal: 2^-149 times the integer u */
        e = 31 - __builtin_clz(u) - 149;
    /* 2^-E as a, or a b when it is outside the normal range */
    int f = -e, fa = f, fb = 0;
    if (f > 127) {
        fa = 100;
        fb = f - 100;
    } else if (f < -126) {
        fa = -126;
        fb = f + 126;
    }
    uint32_t ua = (uint32_t)(fa + 127) << 23, ub = (uint32_t)(fb + 127) << 23;
    memcpy(&r.a, &ua, 4);
    memcpy(&r.b, &ub, 4);
    return r;
}
static pb_wscale wscale_of(size_t k, const float *w)
{
    float mx = 0.0f;
    for (size_t i = 0; w && i < k; i++)
        mx = wscale_max(mx, w[i]);
    return wscale_for(mx);
}
PB_INLINE vf weight_scaled(const float *w, size_t i, pb_wscale s)
{
    return vf_set(w ? w[i] * s.a * s.b : 1.0f);
}

/* Sums that do not degrade with k: each block of PB_SUM_BLOCK terms is
 * summed plainly (k <= PB_SUM_BLOCK: exactly the plain sum), and the block
 * sums are accumulated with Neumaier's compensated summation (TwoSum: adds
 * and subtracts only, so every backend and the deterministic build form the
 * same bits). The rounding error is then that of one block plus a few ulps,
 * at any k: relative 2e-7 per component at k = 16 identical terms against
 * 6e-6 at k = 1000 and 6e-3 at k = 1e6 for the plain running sum. */
#define PB_SUM_BLOCK 16
/* s + x into (s, c): s the rounded sum, c the accumulated rounding errors */
PB_INLINE void two_sum(vf *s, vf *c, vf x)
{
    vf t = vf_add(*s, x);
    vf bp = vf_sub(t, *s);
    vf e = vf_add(vf_sub(*s, vf_sub(t, bp)), vf_sub(x, bp));
    *s = t;
    *c = vf_add(*c, e);
}
/* end of a block of the sum over i = 0 .. k-1 (sums of more than one block
 * only) */
PB_INLINE int sum_block_end(size_t i, size_t k)
{
    return k > PB_SUM_BLOCK && ((i + 1) % PB_SUM_BLOCK == 0 || i + 1 == k);
}
/* -0 where m is set, +0 elsewhere: xorsign by it flips exactly those lanes */
PB_INLINE vf flip_sign(vm m) { return vf_sel(m, vf_set(-0.0f), vf_zero()); }
PB_INLINE vq q_flip_if(vm m, vq q) { return q_xorsign(q, flip_sign(m)); }
/* b brought into a's hemisphere */
PB_INLINE vq q_align(vq a, vq b) { return q_flip_if(vm_lt(q_dot(a, b), vf_zero()), b); }
PB_INLINE pb_cquats cq_offset(pb_cquats q, size_t o)
{
    pb_cquats r = {q.w + o, q.x + o, q.y + o, q.z + o};
    return r;
}
PB_INLINE pb_quats q_offset(pb_quats q, size_t o)
{
    pb_quats r = {q.w + o, q.x + o, q.y + o, q.z + o};
    return r;
}
/* Internal scratch (padded to a multiple of every lane count: the chunk sums
 * of the averages, the resampler's previous frame): whole vectors even in
 * the tail block, so a value stored is read back by a load of the same
 * width (a masked store cannot forward to a later load). A tail takes the
 * slot after the last whole block's, i + lo, as a block of its own (a back
 * tail's lanes as they are: the slot is its alone, and no load meets a
 * store of the block before's slot). */
PB_INLINE vf ldb(const float *p, pb_blk b) { return vf_load(p + b.i + b.lo); }
PB_INLINE void stb(float *p, vf v, pb_blk b) { vf_store(p + b.i + b.lo, v); }
PB_INLINE vq q_ldb(pb_quats q, pb_blk b)
{
    vq r = {ldb(q.w, b), ldb(q.x, b), ldb(q.y, b), ldb(q.z, b)};
    return r;
}
PB_INLINE void q_stb(pb_quats q, vq v, pb_blk b)
{
    stb(q.w, v.w, b);
    stb(q.x, v.x, b);
    stb(q.y, v.y, b);
    stb(q.z, v.z, b);
}
PB_INLINE v3 v3_ldb(pb_vec3s v, pb_blk b)
{
    v3 r = {ldb(v.x, b), ldb(v.y, b), ldb(v.z, b)};
    return r;
}
PB_INLINE void v3_stb(pb_vec3s v, v3 a, pb_blk b)
{
    stb(v.x, a.x, b);
    stb(v.y, a.y, b);
    stb(v.z, a.z, b);
}
/* log of the shortest rotation from a to b, log(abs(b a^-1)): half its scaled
 * angle-axis */
PB_INLINE v3 q_sub_log(vq b, vq a) { return q_log_abs(q_mul_inv(b, a)); }

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

/* The Catmull-Rom of pb_quat_catmull_rom from the offset logs l01, l12, l23
 * of its four keys (same operations, same results). prev (absent: w NULL)
 * is the previous output frame: rot is put in its hemisphere, so output
 * tracks come out unrolled in the same pass. The tail block reads prev from
 * keep, scratch padded to whole blocks where each frame's tail is also kept:
 * a masked tail store cannot forward to the next frame's load. */
PB_INLINE vq q_add(vq a, vq b)
{
    vq r = {vf_add(a.w, b.w), vf_add(a.x, b.x), vf_add(a.y, b.y), vf_add(a.z, b.z)};
    return r;
}
PB_INLINE vq q_sub(vq a, vq b)
{
    vq r = {vf_sub(a.w, b.w), vf_sub(a.x, b.x), vf_sub(a.y, b.y), vf_sub(a.z, b.z)};
    return r;
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

/* vf_exp per component. Log-space scales' sums sit near zero: where every
 * lane's |a| < 0.34, vf_exp's reduction gives k = 0 (|a| log2(e) < 0.4905
 * rounds to 0), r = a exactly and 2^k = 1, so its result is exp_poly(a),
 * bit for bit, which the first test takes without the reduction, its test
 * and the scaling (a NaN lane, which v3_amax may drop, gives NaN either
 * way). */
PB_INLINE v3 v3_exp(v3 a)
{
    if (vm_all(vm_lt(v3_amax(a), vf_set(0.34f)))) {
        v3 r = {exp_poly(a.x), exp_poly(a.y), exp_poly(a.z)};
        return r;
    }
    v3 r = {vf_exp(a.x), vf_exp(a.y), vf_exp(a.z)};
    return r;
}
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

#include "kernels_average.h"

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

#include "kernels_blend.h"
#include "kernels_glance.h"
#include "kernels_clip.h"
#include "kernels_layout.h"
#include "kernels_euler.h"
#include "kernels_skeleton.h"

/* --------------------------------------------------------------- table */

#define PB_DEFINE_KERNEL_TABLE(name)                                                               \
    const pb_kernels name = {.quat_mul = k_quat_mul,                                               \
                             .quat_mul_inv = k_quat_mul_inv,                                       \
                             .quat_inv_mul = k_quat_inv_mul,                                       \
                             .quat_abs = k_quat_abs,                                               \
                             .quat_normalize = k_quat_normalize,                                   \
                             .quat_log = k_quat_log,                                               \
                             .quat_exp = k_quat_exp,                                               \
                             .quat_unroll = k_quat_unroll,                                         \
                             .quat_delta_to_angular_velocity = k_quat_delta_to_angular_velocity,   \
                             .vec3_hermite = k_vec3_hermite,                                       \
                             .vec3_catmull_rom = k_vec3_catmull_rom,                               \
                             .quat_hermite = k_quat_hermite,                                       \
                             .quat_catmull_rom = k_quat_catmull_rom,                               \
                             .quat_raw_cubic = k_quat_raw_cubic,                                   \
                             .scale_hermite = k_scale_hermite,                                     \
                             .scale_catmull_rom = k_scale_catmull_rom,                             \
                             .quat_slerp = k_quat_slerp,                                           \
                             .quat_nlerp = k_quat_nlerp,                                           \
                             .average_raw = k_average_raw,                                         \
                             .average_log = k_average_log,                                         \
                             .average_accurate = k_average_accurate,                               \
                             .average_basic = k_average_basic,                                     \
                             .sin_half_angle = k_sin_half_angle,                                   \
                             .tangent_offset = k_tangent_offset,                                   \
                             .bezier_controls = k_bezier_controls,                                 \
                             .de_casteljau = k_de_casteljau,                                       \
                             .shoemake_controls = k_shoemake_controls,                             \
                             .quat_offset = k_quat_offset,                                         \
                             .quat_cr_run = k_quat_cr_run,                                         \
                             .vec3_cr_run = k_vec3_cr_run,                                         \
                             .scale_cr_run = k_scale_cr_run,                                       \
                             .vec3_blend = k_vec3_blend,                                           \
                             .pose_blend = k_pose_blend,                                           \
                             .layers_glance = k_layers_glance,                                     \
                             .euler_choose = k_euler_choose,                                       \
                             .euler_to_quat = k_euler_to_quat,                                     \
                             .angles_lerp = k_angles_lerp,                                         \
                             PB_LAYOUT_KERNELS PB_SKELETON_KERNELS}

#endif
