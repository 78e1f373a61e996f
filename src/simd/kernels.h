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
typedef struct { float a, b; } pb_wscale;
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
PB_INLINE pb_cquats cq_offset(pb_cquats q, size_t o) { pb_cquats r = {q.w + o, q.x + o, q.y + o, q.z + o}; return r; }
PB_INLINE pb_quats q_offset(pb_quats q, size_t o) { pb_quats r = {q.w + o, q.x + o, q.y + o, q.z + o}; return r; }
/* Internal scratch (padded to a multiple of every lane count: the chunk sums
 * of the averages, the resampler's previous frame): whole vectors even in
 * the tail block, so a value stored is read back by a load of the same
 * width (a masked store cannot forward to a later load). A tail takes the
 * slot after the last whole block's, i + lo, as a block of its own (a back
 * tail's lanes as they are: the slot is its alone, and no load meets a
 * store of the block before's slot). */
PB_INLINE vf ldb(const float *p, pb_blk b) { return vf_load(p + b.i + b.lo); }
PB_INLINE void stb(float *p, vf v, pb_blk b) { vf_store(p + b.i + b.lo, v); }
PB_INLINE vq q_ldb(pb_quats q, pb_blk b) { vq r = {ldb(q.w, b), ldb(q.x, b), ldb(q.y, b), ldb(q.z, b)}; return r; }
PB_INLINE void q_stb(pb_quats q, vq v, pb_blk b) { stb(q.w, v.w, b); stb(q.x, v.x, b); stb(q.y, v.y, b); stb(q.z, v.z, b); }
PB_INLINE v3 v3_ldb(pb_vec3s v, pb_blk b) { v3 r = {ldb(v.x, b), ldb(v.y, b), ldb(v.z, b)}; return r; }
PB_INLINE void v3_stb(pb_vec3s v, v3 a, pb_blk b) { stb(v.x, a.x, b); stb(v.y, a.y, b); stb(v.z, a.z, b); }
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
    PB_BLOCKS(n, blk, b_vec3_hermite(h, v3_ld(p0, blk), v3_ld(p1, blk), v3_ld(v0, blk),
                                     v3_ld(v1, blk), pos, vel, blk));
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
PB_INLINE v3 hermite_velocity(pb_hermite_basis h, v3 uh, v3 l, v3 v0, v3 v1, unsigned flags,
                              vq e, vf sinc)
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
PB_INLINE vq q_add(vq a, vq b) { vq r = {vf_add(a.w, b.w), vf_add(a.x, b.x), vf_add(a.y, b.y), vf_add(a.z, b.z)}; return r; }
PB_INLINE vq q_sub(vq a, vq b) { vq r = {vf_sub(a.w, b.w), vf_sub(a.x, b.x), vf_sub(a.y, b.y), vf_sub(a.z, b.z)}; return r; }

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

PB_INLINE v3 v3_exp(v3 a)
{
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
    vm opposite = vm_and(vm_lt(s2, vf_set(PB_SLERP_OPPOSITE * PB_SLERP_OPPOSITE)),
                         vm_lt(d, vf_zero()));
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

/* ------------------------------------------------------------ averages */

/* Weighted sums over k samples run sample-major over chunks of PB_CHUNK
 * joints, the running sums kept in a small buffer: each block's work for one
 * sample (a log, a ln) is then independent of the next block's, so the
 * out-of-order core overlaps many of them. Block-major, a block's k logs and
 * its final exp form one long chain the core cannot see past. The sums are
 * formed in the same order either way (same results). */
#define PB_CHUNK 64
PB_INLINE size_t chunk_len(size_t n, size_t c) { return n - c < PB_CHUNK ? n - c : PB_CHUNK; }
PB_INLINE pb_cvec3s cv3_offset(pb_cvec3s v, size_t o) { pb_cvec3s r = {v.x + o, v.y + o, v.z + o}; return r; }
PB_INLINE pb_vec3s v3_offset(pb_vec3s v, size_t o) { pb_vec3s r = {v.x + o, v.y + o, v.z + o}; return r; }
/* Whether a chunk of m elements sums k terms in registers, block by block,
 * rather than sample-major through scratch: on the 16-lane backends (32
 * registers), a chunk of at most two blocks and at most PB_SUM_BLOCK terms
 * (one plain sum: the same operations in the same order, the same
 * results). Sample-major, each term's sums go to scratch and come back for
 * the next; at two blocks there is little for that to overlap, and where
 * the scratch's addresses meet an input's in their low 12 bits (the
 * stack's offset within its page varies per process) the input's load
 * waited on the store: pb_pose_blend_layers (log_ref, 4 layers, AVX-512) at
 * 24 joints took 438-511 ns per call over stack offsets 128 bytes apart
 * (AVX2 473-498), in registers 445-459 ns. On AVX2 (16 registers) the sums
 * in registers were 1.03-1.07x slower there (16-31 joints). */
#define PB_SUMS_IN_REGS (PB_LANES >= 16)
PB_INLINE int sums_in_regs(size_t m, size_t k, size_t blocks)
{
    return PB_SUMS_IN_REGS && k <= PB_SUM_BLOCK && m <= blocks * PB_LANES;
}
/* The sample-major loop of a weighted v3 sum: per chunk (elements c ..
 * c+m), PREP once, then for every sample i (weight wi) and block TERM,
 * which sets v3 d, summed as v3_sum_step does; then for every block
 * FINISH, with the block's sum in v3 total. A chunk that sums_in_regs
 * takes the same sums in registers, block by block. */
#define PB_SAMPLE_MAJOR_SUM(n, k, w, PREP, TERM, ...)                          \
    do {                                                                       \
        float pb_buf_[9][PB_CHUNK];                                            \
        const pb_vec3s pb_acc_ = {pb_buf_[0], pb_buf_[1], pb_buf_[2]},         \
                       pb_S_ = {pb_buf_[3], pb_buf_[4], pb_buf_[5]},           \
                       pb_C_ = {pb_buf_[6], pb_buf_[7], pb_buf_[8]};           \
        for (size_t c = 0; c < (n); c += PB_CHUNK) {                           \
            size_t m = chunk_len((n), c);                                      \
            PREP;                                                              \
            if (sums_in_regs(m, (k), 1)) {                                     \
                PB_BLOCKS(m, blk, {                                            \
                    v3 total = v3_splat(0.0f);                                 \
                    for (size_t i = 0; i < (k); i++) {                         \
                        vf wi = weight_at((w), i);                             \
                        v3 d;                                                  \
                        TERM;                                                  \
                        total = v3_fma(d, wi, total);                          \
                    }                                                          \
                    __VA_ARGS__;                                               \
                });                                                            \
                continue;                                                      \
            }                                                                  \
            for (size_t i = 0; i < (k); i++) {                                 \
                vf wi = weight_at((w), i);                                     \
                PB_BLOCKS(m, blk, {                                            \
                    v3 d;                                                      \
                    TERM;                                                      \
                    v3_sum_step(pb_acc_, pb_S_, pb_C_, d, wi, i, (k), blk);    \
                });                                                            \
            }                                                                  \
            PB_BLOCKS(m, blk, {                                                \
                v3 total = v3_sum_total(pb_acc_, pb_S_, pb_C_, (k), blk);      \
                __VA_ARGS__;                                                   \
            });                                                                \
        }                                                                      \
    } while (0)

/* acc + w s with the product rounded before the sum, not fused: samples that
 * cancel (w and -w on equal samples) then sum to exactly zero on FMA and
 * non-FMA backends alike, and zero has a documented result. */
PB_INLINE vq q_add_weighted(vq acc, vq s, vf w) { return q_add(acc, q_scale(s, w)); }

/* sample i of the averages in the chunk at c */
PB_INLINE vq sample_ld(const pb_samples *smp, size_t i, size_t c, pb_blk blk)
{
    return q_ld(cq_offset(pb_sample_at(smp, i), c), blk);
}
/* and relative to the chunk's reference rc when there is one: rc^-1 s_i */
PB_INLINE vq sample_rel(pb_cquats rc, const pb_samples *smp, size_t i, size_t c, pb_blk blk)
{
    vq q = sample_ld(smp, i, c, blk);
    return rc.w ? q_inv_mul(q_ld(rc, blk), q) : q;
}
/* and back: abs(rc m) stored to the chunk at c, or m without a reference */
PB_INLINE void store_rel(pb_quats out, size_t c, pb_cquats rc, vq m, pb_blk blk)
{
    q_st(q_offset(out, c), rc.w ? q_abs(q_mul(q_ld(rc, blk), m)) : m, blk);
}
#define PB_CHUNK_REF pb_cquats rc = ref.w ? cq_offset(ref, c) : ref

/* raw and raw_ref: abs(ref normalize(sum w_i abs(ref^-1 s_i))). The rotation
 * by a unit ref commutes with the sum and the normalisation, so this is
 * abs(normalize(sum w_i sigma_i s_i)) with sigma_i the sign of
 * (ref^-1 s_i).w = ref.s_i: no quaternion product per sample or per joint,
 * and two fewer roundings. A zero sum gives the reference, as documented. */
PB_INLINE vq raw_finish(vq a, pb_cquats rc, pb_blk blk)
{
    vq m = q_normalize(a);
    if (!rc.w)
        return m;
    vq r = q_ld(rc, blk);
    /* the reference enters the sum only through signs: a NaN or Inf in it
     * must still reach the output, as the formula's products would carry it */
    vf poison = vf_mul(q_dot(r, r), vf_zero());
    m = q_sel(vm_eq(q_dot(a, a), vf_zero()), r, m);
    vq p = {vf_add(m.w, poison), vf_add(m.x, poison), vf_add(m.y, poison), vf_add(m.z, poison)};
    return q_abs(p);
}
/* Block-major, the sum in registers: nothing slow per sample to overlap
 * (the same sums in the same order as sample-major); blocks of PB_SUM_BLOCK
 * samples compensated (two_sum), weights scaled (wscale_of). */
PB_INLINE vq q_zero(void) { vq z = {vf_zero(), vf_zero(), vf_zero(), vf_zero()}; return z; }
PB_INLINE void q_two_sum(vq *s, vq *c, vq x)
{
    two_sum(&s->w, &c->w, x.w);
    two_sum(&s->x, &c->x, x.x);
    two_sum(&s->y, &c->y, x.y);
    two_sum(&s->z, &c->z, x.z);
}
static void k_average_raw(size_t n, size_t k, pb_cquats ref, const pb_samples *s, const float *w,
                          pb_quats out)
{
    const pb_wscale ws = wscale_of(k, w);
    if (k <= PB_SUM_BLOCK) { /* one block: the plain sum, weights scaled once */
        float wb[PB_SUM_BLOCK];
        for (size_t i = 0; i < k; i++)
            wb[i] = w[i] * ws.a * ws.b;
        PB_BLOCKS(n, blk, {
            vq a = q_zero();
            vq r = ref.w ? q_ld(ref, blk) : q_identity();
            for (size_t i = 0; i < k; i++) {
                vq q = sample_ld(s, i, 0, blk);
                /* w sigma_i as w with the sign of sigma_i's argument folded in */
                vf side = ref.w ? q_dot(r, q) : q.w;
                a = q_add_weighted(a, q, vf_xorsign(vf_set(wb[i]), side));
            }
            q_st(out, raw_finish(a, ref, blk), blk);
        });
        return;
    }
    PB_BLOCKS(n, blk, {
        vq r = ref.w ? q_ld(ref, blk) : q_identity();
        vq S = q_zero(), C = q_zero();
        for (size_t i0 = 0; i0 < k; i0 += PB_SUM_BLOCK) {
            size_t i1 = k - i0 > PB_SUM_BLOCK ? i0 + PB_SUM_BLOCK : k;
            vq a = q_zero();
            for (size_t i = i0; i < i1; i++) {
                vq q = sample_ld(s, i, 0, blk);
                vf side = ref.w ? q_dot(r, q) : q.w;
                a = q_add_weighted(a, q, vf_xorsign(weight_scaled(w, i, ws), side));
            }
            if (i0 == 0)
                S = a;
            else
                q_two_sum(&S, &C, a);
        }
        q_st(out, raw_finish(q_add(S, C), ref, blk), blk);
    });
}
/* log and log_ref: abs(ref exp(sum w_i log(abs(ref^-1 s_i)))); no abs without
 * ref. The running sum restarts every PB_SUM_BLOCK samples; block sums go
 * into the compensated (S, C) buffers (sums of more than one block only). */
PB_INLINE void v3_two_sum_b(pb_vec3s S, pb_vec3s C, v3 a, int first, pb_blk blk)
{
    if (first) {
        v3_stb(S, a, blk);
        v3_stb(C, v3_splat(0.0f), blk);
        return;
    }
    v3 s = v3_ldb(S, blk), c = v3_ldb(C, blk);
    two_sum(&s.x, &c.x, a.x);
    two_sum(&s.y, &c.y, a.y);
    two_sum(&s.z, &c.z, a.z);
    v3_stb(S, s, blk);
    v3_stb(C, c, blk);
}
/* the running sum's step for sample i: acc <- acc + d wi (from zero at a
 * block start), folded into (S, C) at a block end */
PB_INLINE void v3_sum_step(pb_vec3s acc, pb_vec3s S, pb_vec3s C, v3 d, vf wi, size_t i, size_t k,
                           pb_blk blk)
{
    v3 a = v3_fma(d, wi, (i % PB_SUM_BLOCK) ? v3_ldb(acc, blk) : v3_splat(0.0f));
    if (sum_block_end(i, k))
        v3_two_sum_b(S, C, a, i < PB_SUM_BLOCK, blk);
    else
        v3_stb(acc, a, blk);
}
/* the whole sum at the finish */
PB_INLINE v3 v3_sum_total(pb_vec3s acc, pb_vec3s S, pb_vec3s C, size_t k, pb_blk blk)
{
    return k > PB_SUM_BLOCK ? v3_add(v3_ldb(S, blk), v3_ldb(C, blk)) : v3_ldb(acc, blk);
}
static void k_average_log(size_t n, size_t k, pb_cquats ref, const pb_samples *s, const float *w,
                          pb_quats out)
{
    PB_SAMPLE_MAJOR_SUM(n, k, w, PB_CHUNK_REF, d = q_log_abs(sample_rel(rc, s, i, c, blk)),
                        store_rel(out, c, rc, q_exp(total), blk));
}

PB_INLINE void b_average_basic(size_t k, const pb_samples *smp, const float *w, pb_wscale ws,
                               pb_quats out, pb_blk blk)
{
    /* the hemisphere of the running sum S + a (S = 0 in the first block) */
    vq S = q_zero(), C = q_zero();
    for (size_t i0 = 0; i0 < k; i0 += PB_SUM_BLOCK) {
        size_t i1 = k - i0 > PB_SUM_BLOCK ? i0 + PB_SUM_BLOCK : k;
        vq a = q_zero();
        for (size_t i = i0; i < i1; i++) {
            vq s = q_align(i0 ? q_add(S, a) : a, q_ld(pb_sample_at(smp, i), blk));
            a = q_add_weighted(a, s, weight_scaled(w, i, ws));
        }
        if (i0 == 0)
            S = a;
        else
            q_two_sum(&S, &C, a);
    }
    q_st(out, q_normalize(q_abs(k > PB_SUM_BLOCK ? q_add(S, C) : S)), blk);
}
static void k_average_basic(size_t n, size_t k, const pb_samples *s, const float *w, pb_quats out)
{
    const pb_wscale ws = wscale_of(k, w);
    PB_BLOCKS(n, blk, b_average_basic(k, s, w, ws, out, blk));
}

/* Symmetric 4x4 eigen-solve, one matrix per lane, by cyclic Jacobi with a fixed
 * number of sweeps: branch-free across lanes and the same operation sequence
 * in every backend. Six sweeps take float matrices to convergence (Jacobi is
 * quadratic once the off-diagonal is small). */
#define PB_JACOBI_SWEEPS 6

typedef struct { vf a[4][4]; vf v[4][4]; } pb_sym4;

PB_INLINE void jacobi_rotate(pb_sym4 *m, int p, int q)
{
    vf apq = m->a[p][q];
    vm skip = vm_eq(apq, vf_zero());
    vf apq1 = vf_sel(skip, vf_set(1.0f), apq);
    vf theta = vf_div(vf_sub(m->a[q][q], m->a[p][p]), vf_add(apq1, apq1));
    /* t = sign(theta) / (|theta| + sqrt(theta^2 + 1)); when theta^2 overflows
     * the sum is Inf and t = 0, the right limit */
    vf at = vf_abs(theta);
    vf t = vf_div(vf_set(1.0f), vf_add(at, vf_sqrt(vf_fma(at, at, vf_set(1.0f)))));
    t = vf_xorsign(t, theta);
    t = vf_sel(skip, vf_zero(), t);
    vf c = vf_div(vf_set(1.0f), vf_sqrt(vf_fma(t, t, vf_set(1.0f))));
    vf s = vf_mul(t, c);
    vf tapq = vf_mul(t, apq);
    m->a[p][p] = vf_sub(m->a[p][p], tapq);
    m->a[q][q] = vf_add(m->a[q][q], tapq);
    m->a[p][q] = m->a[q][p] = vf_zero();
    for (int r = 0; r < 4; r++) {
        if (r != p && r != q) {
            vf arp = m->a[r][p], arq = m->a[r][q];
            m->a[r][p] = m->a[p][r] = vf_fnma(s, arq, vf_mul(c, arp));
            m->a[r][q] = m->a[q][r] = vf_fma(s, arp, vf_mul(c, arq));
        }
        vf vrp = m->v[r][p], vrq = m->v[r][q];
        m->v[r][p] = vf_fnma(s, vrq, vf_mul(c, vrp));
        m->v[r][q] = vf_fma(s, vrp, vf_mul(c, vrq));
    }
}

PB_INLINE vq dominant_eigenvector(pb_sym4 *m)
{
    for (int sweep = 0; sweep < PB_JACOBI_SWEEPS; sweep++)
        for (int p = 0; p < 3; p++)
            for (int q = p + 1; q < 4; q++)
                jacobi_rotate(m, p, q);
    vf best = m->a[0][0];
    vq r = {m->v[0][0], m->v[1][0], m->v[2][0], m->v[3][0]};
    for (int j = 1; j < 4; j++) {
        vm better = vm_gt(m->a[j][j], best);
        best = vf_sel(better, m->a[j][j], best);
        vq c = {m->v[0][j], m->v[1][j], m->v[2][j], m->v[3][j]};
        r = q_sel(better, c, r);
    }
    return r;
}

PB_INLINE void b_average_accurate(size_t k, const pb_samples *smp, const float *w, pb_wscale ws,
                                  pb_quats out, pb_blk blk)
{
    pb_sym4 m;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            m.a[i][j] = vf_zero();
            m.v[i][j] = vf_set(i == j ? 1.0f : 0.0f);
        }
    /* blocks of PB_SUM_BLOCK samples, compensated across blocks (S: m.a,
     * C: cm) */
    vf cm[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            cm[i][j] = vf_zero();
    for (size_t i0 = 0; i0 < k; i0 += PB_SUM_BLOCK) {
        size_t i1 = k - i0 > PB_SUM_BLOCK ? i0 + PB_SUM_BLOCK : k;
        vf b[4][4];
        for (int r = 0; r < 4; r++)
            for (int col = r; col < 4; col++)
                b[r][col] = vf_zero();
        for (size_t i = i0; i < i1; i++) {
            vq s = q_ld(pb_sample_at(smp, i), blk);
            vf c[4] = {s.w, s.x, s.y, s.z};
            vf wi = weight_scaled(w, i, ws);
            /* each term rounded on its own (no FMA into the sum): equal samples
             * with weights +w and -w then cancel exactly, on every backend */
            for (int r = 0; r < 4; r++)
                for (int col = r; col < 4; col++)
                    b[r][col] = vf_add(b[r][col], vf_mul(wi, vf_mul(c[r], c[col])));
        }
        for (int r = 0; r < 4; r++)
            for (int col = r; col < 4; col++) {
                if (i0 == 0)
                    m.a[r][col] = b[r][col];
                else
                    two_sum(&m.a[r][col], &cm[r][col], b[r][col]);
            }
    }
    if (k > PB_SUM_BLOCK)
        for (int r = 0; r < 4; r++)
            for (int col = r; col < 4; col++)
                m.a[r][col] = vf_add(m.a[r][col], cm[r][col]);
    /* Scale to unit trace so tiny or huge weights neither underflow nor
     * overflow in the rotations; a zero matrix keeps the identity basis, whose
     * first column (the identity quaternion) is then the answer. */
    vf tr = vf_add(vf_add(m.a[0][0], m.a[1][1]), vf_add(m.a[2][2], m.a[3][3]));
    vf atr = vf_abs(tr);
    vf inv = vf_div(vf_set(1.0f), vf_sel(vm_eq(atr, vf_zero()), vf_set(1.0f), atr));
    for (int r = 0; r < 4; r++)
        for (int col = r; col < 4; col++)
            m.a[col][r] = m.a[r][col] = vf_mul(m.a[r][col], inv);
    q_st(out, q_abs(dominant_eigenvector(&m)), blk);
}
static void k_average_accurate(size_t n, size_t k, const pb_samples *s, const float *w,
                               pb_quats out)
{
    const pb_wscale ws = wscale_of(k, w);
    PB_BLOCKS(n, blk, b_average_accurate(k, s, w, ws, out, blk));
}

/* Pose blend of translations (sum w_i (p_i - ref) + ref) or scales in log
 * space (ref exp(sum w_i ln(s_i / ref))); ref absent: zero / one. */
/* Translations block-major: with nothing slow per sample to overlap, the sums
 * stay in registers. */
PB_INLINE void b_vec3_blend_linear(size_t k, pb_cvec3s ref, const pb_cvec3s *s, const float *w,
                                   pb_vec3s out, pb_blk blk)
{
    /* blocks of PB_SUM_BLOCK samples, compensated across blocks */
    v3 r = ref.x ? v3_ld(ref, blk) : v3_splat(0.0f);
    v3 S = v3_splat(0.0f), C = v3_splat(0.0f);
    for (size_t i0 = 0; i0 < k; i0 += PB_SUM_BLOCK) {
        size_t i1 = k - i0 > PB_SUM_BLOCK ? i0 + PB_SUM_BLOCK : k;
        v3 a = v3_splat(0.0f);
        if (!ref.x)
            for (size_t i = i0; i < i1; i++)
                a = v3_fma(v3_ld(s[i], blk), weight_at(w, i), a);
        else
            for (size_t i = i0; i < i1; i++)
                a = v3_fma(v3_sub(v3_ld(s[i], blk), r), weight_at(w, i), a);
        if (i0 == 0) {
            S = a;
        } else {
            two_sum(&S.x, &C.x, a.x);
            two_sum(&S.y, &C.y, a.y);
            two_sum(&S.z, &C.z, a.z);
        }
    }
    if (k > PB_SUM_BLOCK)
        S = v3_add(S, C);
    v3_st(out, ref.x ? v3_add(S, r) : S, blk);
}
/* Scales sample-major (PB_SAMPLE_MAJOR_SUM), so that the logs of
 * neighbouring blocks overlap; ln(s_i / ref) as v3_ln_ratio (no rounded
 * ratio). */
static void k_vec3_blend(size_t n, size_t k, pb_cvec3s ref, const pb_cvec3s *s, const float *w,
                         int log_space, pb_vec3s out)
{
    if (!log_space) {
        PB_BLOCKS(n, blk, b_vec3_blend_linear(k, ref, s, w, out, blk));
        return;
    }
    PB_SAMPLE_MAJOR_SUM(n, k, w, pb_cvec3s rc = ref.x ? cv3_offset(ref, c) : ref, {
            v3 p = v3_ld(cv3_offset(s[i], c), blk);
            d = rc.x ? v3_ln_ratio(p, v3_ld(rc, blk)) : v3_ln(p);
        }, {
            v3 e = v3_exp(total);
            v3_st(v3_offset(out, c), rc.x ? v3_mul(e, v3_ld(rc, blk)) : e, blk);
        });
}

PB_INLINE void b_sin_half_angle(pb_cquats a, pb_cquats b, float *out, pb_blk blk)
{
    vq d = q_inv_mul(q_ld(a, blk), q_ld(b, blk));
    v3 v = q_vec(d);
    st(out, vf_sqrt(vf_div(v3_dot(v, v), q_dot(d, d))), blk);
}
static void k_sin_half_angle(size_t n, pb_cquats a, pb_cquats b, float *out)
{
    PB_BLOCKS(n, blk, b_sin_half_angle(a, b, out, blk));
}

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
PB_INLINE vq q_double(vq p, vq q) { return q_sub(q_scale(q, vf_mul(vf_set(2.0f), q_dot(p, q))), p); }
static void k_shoemake_controls(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                                pb_quats b, pb_quats a)
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

/* --------------------------------------------------------------- table */

#define PB_DEFINE_KERNEL_TABLE(name)                                           \
    const pb_kernels name = {                                                  \
        k_quat_mul, k_quat_mul_inv, k_quat_inv_mul, k_quat_abs,                \
        k_quat_normalize, k_quat_log, k_quat_exp, k_quat_unroll,               \
        k_quat_delta_to_angular_velocity,                                      \
        k_vec3_hermite, k_vec3_catmull_rom, k_quat_hermite,                    \
        k_quat_catmull_rom, k_quat_raw_cubic, k_scale_hermite,                 \
        k_scale_catmull_rom, k_quat_slerp, k_quat_nlerp,                       \
        k_average_raw, k_average_log, k_average_accurate, k_average_basic,     \
        k_sin_half_angle,                                                      \
        k_tangent_offset, k_bezier_controls, k_de_casteljau,                   \
        k_shoemake_controls,                                                   \
        k_quat_offset, k_quat_cr_run, k_vec3_cr_run, k_scale_cr_run,           \
        k_vec3_blend, k_pose_blend, k_layers_glance,                           \
        PB_LAYOUT_KERNELS                                                      \
    }

#endif
