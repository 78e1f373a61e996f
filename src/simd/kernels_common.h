/* What the kernel fragments share, written once over the lane layer: the
 * weights and their scale 2^-E, the compensated block sums, hemisphere
 * flips, batch offsets, whole-vector loads and stores of internal scratch,
 * and small quaternion and vec3 helpers (q_add, q_sub, q_sub_log, v3_exp).
 * Include after a lanes_<isa>.h. */
#ifndef PB_KERNELS_COMMON_H
#define PB_KERNELS_COMMON_H

#include <math.h>
#include <stdint.h>
#include <string.h>

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
/* quaternion sum and difference, component by component */
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
/* a batch from its element o on */
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
PB_INLINE pb_cvec3s cv3_offset(pb_cvec3s v, size_t o)
{
    pb_cvec3s r = {v.x + o, v.y + o, v.z + o};
    return r;
}
PB_INLINE pb_vec3s v3_offset(pb_vec3s v, size_t o)
{
    pb_vec3s r = {v.x + o, v.y + o, v.z + o};
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

#endif
