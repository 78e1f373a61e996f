/* Vector math over the lane layer, written once for every backend.
 * Include after a lanes_<isa>.h. No libm calls: every function here is plain
 * lane arithmetic, so all backends share one polynomial and one operation
 * order (bit-identical in deterministic builds). */
#ifndef PB_LANES_MATH_H
#define PB_LANES_MATH_H

#ifndef PB_LANES
#error "include a lanes_<isa>.h first"
#endif

typedef struct {
    vf w, x, y, z;
} vq;
typedef struct {
    vf x, y, z;
} v3;

/* -------------------------------------------------------------- blocks */
/* A block is PB_LANES consecutive elements starting at i; kernels are
 * written per block and run by PB_BLOCKS, which instantiates the whole-block
 * path (cnt PB_LANES and lo 0: constants) and the tail's. The elements past
 * the last whole block, where there is one, run as a whole block ending at n
 * (the back tail, lo > 0): its lanes 0 .. lo-1 hold elements of the block
 * before (their inputs, or in place its results), computed and never
 * stored; lanes lo .. PB_LANES-1 are the tail's, the only ones stored. Every
 * lane's result comes from its own inputs alone, so those are what a block
 * of their own gives, and the tail's loads are whole (a masked load costs
 * twice a whole one on Zen 4, a lane permutation as much). Only n <
 * PB_LANES takes partial loads (cnt < PB_LANES elements at i = 0, lo 0). */
typedef struct {
    size_t i, cnt, lo;
} pb_blk;

PB_INLINE vf ld(const float *p, pb_blk b)
{
    if (PB_LANES == 1 || b.cnt == PB_LANES)
        return vf_load(p + b.i);
    return vf_load_part(p + b.i, b.cnt);
}
PB_INLINE void st(float *p, vf v, pb_blk b)
{
    if (PB_LANES == 1 || (b.cnt == PB_LANES && b.lo == 0))
        vf_store(p + b.i, v);
    else if (b.cnt == PB_LANES)
        vf_store_high(p + b.i, v, b.lo);
    else
        vf_store_part(p + b.i, v, b.cnt);
}
/* whether blk is a tail (back or partial): its stores are not whole */
PB_INLINE int blk_tail(pb_blk b) { return PB_LANES > 1 && (b.cnt < PB_LANES || b.lo); }
/* Where a kernel whose outputs overlap none of its inputs, nor each other,
 * stores a block: a back tail whole. Its lanes 0 .. lo-1 compute the block
 * before's elements from the same inputs, what that block stored (a NaN's
 * sign aside: the whole-block and tail instances of a kernel may order a
 * sum's operands differently), and one store writes them again in place of
 * the tail's pieces (on AVX2 up to five per array). Not for a pass that
 * reads what it writes. A partial block (n < PB_LANES) stays partial. */
PB_INLINE pb_blk whole_out(pb_blk b)
{
    if (b.cnt == PB_LANES)
        b.lo = 0;
    return b;
}
#define PB_BLOCKS(n, blk, ...)                                                                     \
    do {                                                                                           \
        size_t pb_i_ = 0, pb_n_ = (n);                                                             \
        for (; pb_i_ + PB_LANES <= pb_n_; pb_i_ += PB_LANES) {                                     \
            const pb_blk blk = {pb_i_, PB_LANES, 0};                                               \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
        if (PB_LANES > 1 && pb_i_ < pb_n_) { /* the back or partial tail */                        \
            const size_t pb_c_ = pb_n_ - pb_i_;                                                    \
            const pb_blk blk = {pb_i_ ? pb_n_ - PB_LANES : 0, pb_i_ ? PB_LANES : pb_c_,            \
                                pb_i_ ? PB_LANES - pb_c_ : 0};                                     \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
    } while (0)

PB_INLINE vq q_ld(pb_cquats q, pb_blk b)
{
    vq r = {ld(q.w, b), ld(q.x, b), ld(q.y, b), ld(q.z, b)};
    return r;
}
PB_INLINE void q_st(pb_quats q, vq v, pb_blk b)
{
    st(q.w, v.w, b);
    st(q.x, v.x, b);
    st(q.y, v.y, b);
    st(q.z, v.z, b);
}
PB_INLINE v3 v3_ld(pb_cvec3s v, pb_blk b)
{
    v3 r = {ld(v.x, b), ld(v.y, b), ld(v.z, b)};
    return r;
}
PB_INLINE void v3_st(pb_vec3s v, v3 a, pb_blk b)
{
    st(v.x, a.x, b);
    st(v.y, a.y, b);
    st(v.z, a.z, b);
}

/* ------------------------------------------------------------- helpers */
PB_INLINE vf vf_zero(void) { return vf_set(0.0f); }
/* Horner step: acc*z + c */
PB_INLINE vf hs(vf acc, vf z, float c) { return vf_fma(acc, z, vf_set(c)); }

PB_INLINE v3 v3_add(v3 a, v3 b)
{
    v3 r = {vf_add(a.x, b.x), vf_add(a.y, b.y), vf_add(a.z, b.z)};
    return r;
}
PB_INLINE v3 v3_sub(v3 a, v3 b)
{
    v3 r = {vf_sub(a.x, b.x), vf_sub(a.y, b.y), vf_sub(a.z, b.z)};
    return r;
}
PB_INLINE v3 v3_splat(float f)
{
    vf v = vf_set(f);
    v3 r = {v, v, v};
    return r;
}
PB_INLINE v3 v3_mul(v3 a, v3 b)
{
    v3 r = {vf_mul(a.x, b.x), vf_mul(a.y, b.y), vf_mul(a.z, b.z)};
    return r;
}
PB_INLINE v3 v3_scale(v3 a, vf s)
{
    v3 r = {vf_mul(a.x, s), vf_mul(a.y, s), vf_mul(a.z, s)};
    return r;
}
/* a*s + c */
PB_INLINE v3 v3_fma(v3 a, vf s, v3 c)
{
    v3 r = {vf_fma(a.x, s, c.x), vf_fma(a.y, s, c.y), vf_fma(a.z, s, c.z)};
    return r;
}
PB_INLINE vf v3_dot(v3 a, v3 b) { return vf_fma(a.x, b.x, vf_fma(a.y, b.y, vf_mul(a.z, b.z))); }
PB_INLINE v3 v3_cross(v3 a, v3 b)
{
    v3 r = {vf_fnma(a.z, b.y, vf_mul(a.y, b.z)), vf_fnma(a.x, b.z, vf_mul(a.z, b.x)),
            vf_fnma(a.y, b.x, vf_mul(a.x, b.y))};
    return r;
}
PB_INLINE v3 v3_sel(vm m, v3 a, v3 b)
{
    v3 r = {vf_sel(m, a.x, b.x), vf_sel(m, a.y, b.y), vf_sel(m, a.z, b.z)};
    return r;
}
/* the largest |component| per lane (vf_max: a NaN component may be dropped) */
PB_INLINE vf v3_amax(v3 a) { return vf_max(vf_abs(a.x), vf_max(vf_abs(a.y), vf_abs(a.z))); }

PB_INLINE vf q_dot(vq a, vq b)
{
    return vf_fma(a.w, b.w, vf_fma(a.x, b.x, vf_fma(a.y, b.y, vf_mul(a.z, b.z))));
}
PB_INLINE vq q_scale(vq a, vf s)
{
    vq r = {vf_mul(a.w, s), vf_mul(a.x, s), vf_mul(a.y, s), vf_mul(a.z, s)};
    return r;
}
/* a*s + c */
PB_INLINE vq q_fma(vq a, vf s, vq c)
{
    vq r = {vf_fma(a.w, s, c.w), vf_fma(a.x, s, c.x), vf_fma(a.y, s, c.y), vf_fma(a.z, s, c.z)};
    return r;
}
PB_INLINE vq q_sel(vm m, vq a, vq b)
{
    vq r = {vf_sel(m, a.w, b.w), vf_sel(m, a.x, b.x), vf_sel(m, a.y, b.y), vf_sel(m, a.z, b.z)};
    return r;
}
/* every component's sign flipped where s is negative (s = -0 included) */
PB_INLINE vq q_xorsign(vq a, vf s)
{
    vq r = {vf_xorsign(a.w, s), vf_xorsign(a.x, s), vf_xorsign(a.y, s), vf_xorsign(a.z, s)};
    return r;
}
PB_INLINE vq q_abs(vq a) { return q_xorsign(a, a.w); }
PB_INLINE vq q_conj(vq a)
{
    vq r = {a.w, vf_neg(a.x), vf_neg(a.y), vf_neg(a.z)};
    return r;
}
PB_INLINE v3 q_vec(vq a)
{
    v3 r = {a.x, a.y, a.z};
    return r;
}
PB_INLINE vq q_identity(void)
{
    vq r = {vf_set(1.0f), vf_zero(), vf_zero(), vf_zero()};
    return r;
}

/* Hamilton product a b */
PB_INLINE vq q_mul(vq a, vq b)
{
    vq r;
    r.w = vf_fnma(a.z, b.z, vf_fnma(a.y, b.y, vf_fnma(a.x, b.x, vf_mul(a.w, b.w))));
    r.x = vf_fnma(a.z, b.y, vf_fma(a.y, b.z, vf_fma(a.x, b.w, vf_mul(a.w, b.x))));
    r.y = vf_fnma(a.x, b.z, vf_fma(a.z, b.x, vf_fma(a.y, b.w, vf_mul(a.w, b.y))));
    r.z = vf_fnma(a.y, b.x, vf_fma(a.x, b.y, vf_fma(a.z, b.w, vf_mul(a.w, b.z))));
    return r;
}
/* a conj(b) */
PB_INLINE vq q_mul_inv(vq a, vq b) { return q_mul(a, q_conj(b)); }
/* conj(a) b */
PB_INLINE vq q_inv_mul(vq a, vq b) { return q_mul(q_conj(a), b); }

/* q / |q|; zero becomes identity; NaN/Inf give NaN. Scaled so that norms from
 * 1e-18 to 1e18 square without overflow or underflow. */
PB_INLINE vq q_normalize(vq q)
{
    vf n2 = q_dot(q, q);
    vf inv = vf_div(vf_set(1.0f), vf_sqrt(n2));
    vm zero = vm_eq(n2, vf_zero());
    return q_sel(zero, q_identity(), q_scale(q, inv));
}

/* Estrin's scheme squares z (and z^2): for z below about 1e-19 (1e-10 for
 * z^4) that underflows, and on x86 every underflowing product costs a
 * microcode assist of about a hundred cycles (real clips have joints whose
 * offsets are rounding noise, 1e-10 rad, in every frame: that doubled the
 * AVX2 resample of the CMU clip). sq_normal keeps z^2, z^4 and their
 * products with the coefficients normal:
 * - with a fused multiply-add (PB_FUSED: AVX2, AVX-512, native NEON),
 *   z*z + 2^-62 in one rounding, no latency added: the addend is below half
 *   an ulp of z^2 from z^2 = 2^-38 up, and below that z^2 times any
 *   coefficient is under 2^-38, far below the constant term it is added to;
 * - without one (SSE4.1, scalar, the SIMDe-emulated NEON and AVX-512,
 *   deterministic builds), z raised to 2^-28 first: below that z^2 and z^4 times any
 *   coefficient are under 2^-56.
 * Either way the results are the same floats as from z*z (bitwise on the
 * CMU clip, every backend), unless an exact value falls within 2^-62 of a
 * rounding midpoint; the deterministic build takes the second form on every
 * backend. */
#if defined(PB_FUSED)
PB_INLINE vf sq_normal(vf z) { return vf_fma(z, z, vf_set(0x1p-62f)); }
#else
PB_INLINE vf sq_normal(vf z)
{
    vf zf = vf_max(z, vf_set(0x1p-28f));
    return vf_mul(zf, zf);
}
#endif

/* ------------------------------------------------------------- atan */
/* atan(t)/t for t in [0, 1] as 1 + z P(z), z = t^2: Chebyshev fit of
 * (atan(sqrt z)/sqrt z - 1)/z (degree 8, 1.1e-8 relative), so that the ratio is
 * exactly 1 at t = 0 and needs no division for small angles. P is evaluated
 * in Estrin's scheme: it sits on the critical path of every log, and five
 * dependent operations instead of nine let more blocks overlap in flight. */
PB_INLINE vf atan_ratio(vf z)
{
    vf z2 = sq_normal(z), z4 = vf_mul(z2, z2);
    vf p01 = hs(vf_set(1.999973933e-01f), z, -3.333333173e-01f);
    vf p23 = hs(vf_set(1.103376412e-01f), z, -1.427856875e-01f);
    vf p45 = hs(vf_set(6.250169445e-02f), z, -8.656880430e-02f);
    vf p67 = hs(vf_set(1.350777143e-02f), z, -3.587153898e-02f);
    vf p48 = vf_fma(z2, p67, p45);
    p48 = vf_fma(z4, vf_set(-2.386997317e-03f), p48);
    vf p = vf_fma(z4, p48, vf_fma(z2, p23, p01));
    return vf_fma(p, z, vf_set(1.0f));
}

#define PB_PI_F 3.14159265358979f
#define PB_PI_2_F 1.57079632679490f

/* For s2 = s^2 (s >= 0 a vector-part norm) and c (a scalar part), with
 * c^2 finite: the angle h = atan2(s, c) in [0, pi] (in *angle unless NULL,
 * and h^2 in *angle2 unless NULL: z r^2 where |c| >= s, needing no square
 * root), returned as the ratio h/s (finite when s == 0: 1/|c| for c > 0, and
 * 0 for c <= 0, so that v*ratio is 0 there). atan(t)/t takes z = t^2 as
 * s2/c^2 (or c^2/s2), so the common case needs no square root and keeps the
 * sqrt's latency off the critical path. Where |c| >= s it takes 1/|c| once,
 * early (c is known before s2), so z and the ratio are products: no division
 * on the path from s2 to the result. */
PB_INLINE vf atan2_ratio(vf s2, vf c, vf *angle, vf *angle2)
{
    vf a2 = vf_mul(c, c);
    vm swap = vm_gt(s2, a2);
    /* plain: no swap, c > 0 and c^2 > 0, so h = t r with t = s/|c| and
     * h/s = r/|c|, without a 0/0 at s == 0 */
    vm plain = vm_andnot(vm_and(vm_gt(c, vf_zero()), vm_gt(a2, vf_zero())), swap);
    if (vm_all(plain)) {
        /* every lane plain (angle within pi/4), as for offsets between nearby
         * keys: the operations the general path below performs for these
         * lanes (c = |c| there), without its selects, square root and
         * divisions */
        vf ia = vf_div(vf_set(1.0f), c);
        vf z = vf_mul(vf_mul(s2, ia), ia);
        vf r = atan_ratio(z);
        if (angle)
            *angle = vf_mul(vf_mul(vf_sqrt(s2), ia), r);
        if (angle2)
            *angle2 = vf_mul(z, vf_mul(r, r));
        return vf_mul(r, ia);
    }
    /* 1/|c|, kept finite where c^2 underflows (there s2 <= c^2 is 0 too, or
     * the lane swaps) */
    vf a = vf_abs(c);
    vf ia = vf_div(vf_set(1.0f), vf_sel(vm_eq(a2, vf_zero()), vf_set(1.0f), a));
    vf s = vf_sqrt(s2);
    /* atan(t) with t = num/den <= 1: s/|c| as above, or |c|/s when swapped
     * (s > 0 there) */
    vf sd = vf_sel(swap, s, vf_set(1.0f)), s2d = vf_sel(swap, s2, vf_set(1.0f));
    vf t = vf_sel(swap, vf_div(a, sd), vf_mul(s, ia));
    vf z = vf_sel(swap, vf_div(a2, s2d), vf_mul(vf_mul(s2, ia), ia));
    vf r = atan_ratio(z); /* atan(t)/t */
    vf at = vf_mul(t, r); /* atan(num/den) */
    vf h = vf_sel(swap, vf_sub(vf_set(PB_PI_2_F), at), at);
    vm neg = vm_lt(c, vf_zero());
    h = vf_sel(neg, vf_sub(vf_set(PB_PI_F), h), h);
    /* h/s: r/|c| in the plain case; otherwise s > 0.7 |q| or c <= 0: divide */
    vf s1 = vf_sel(vm_eq(s, vf_zero()), vf_set(1.0f), s);
    vf ratio_div = vf_div(h, s1);
    ratio_div = vf_sel(vm_eq(s, vf_zero()), vf_zero(), ratio_div);
    if (angle)
        *angle = h;
    if (angle2)
        *angle2 = vf_sel(plain, vf_mul(z, vf_mul(r, r)), vf_mul(h, h));
    return vf_sel(plain, vf_mul(r, ia), ratio_div);
}

/* k log(q), or k log(abs(q)) with fold_abs: log(q) = atan2(|v|, w) v/|v|
 * (half-angle * axis), scale-invariant. abs(q) = sign(w) q is folded in as
 * atan2 of |w| and the sign of w on the ratio, and k on the ratio too: the
 * same floats as abs, log and scale by k (k a power of two) in fewer steps. */
PB_INLINE v3 q_log_k(vq q, float k, int fold_abs)
{
    v3 v = q_vec(q);
    vf c = fold_abs ? vf_abs(q.w) : q.w;
    vf n2 = v3_dot(v, v);
    /* |v|^2 underflows below |v| ~ 1e-19, where w < 0 still means a half-angle
     * near pi: scale v and w together by 2^100 (atan2 is unchanged). w^2
     * overflows above |w| ~ 1.8e19: scale both by 2^-70 there. */
    vm tiny = vm_lt(n2, vf_set(7.8886091e-31f));
    vm huge = vm_gt(vf_abs(q.w), vf_set(1.0e18f));
    vf ratio;
    if (!vm_any(vm_or(tiny, huge))) { /* the general path with sc = 1, which is exact */
        ratio = atan2_ratio(n2, c, NULL, NULL);
    } else {
        vf sc = vf_sel(tiny, vf_set(1.2676506e30f), vf_sel(huge, vf_set(0x1p-70f), vf_set(1.0f)));
        v = v3_scale(v, sc);
        ratio = atan2_ratio(v3_dot(v, v), vf_mul(c, sc), NULL, NULL);
    }
    if (k != 1.0f)
        ratio = vf_mul(ratio, vf_set(k));
    return v3_scale(v, fold_abs ? vf_xorsign(ratio, q.w) : ratio);
}
/* log(abs(q)) */
PB_INLINE v3 q_log_abs(vq q) { return q_log_k(q, 1.0f, 1); }

/* ------------------------------------------------------ ln / exp of scalars */
#define PB_LN2_HI 0.693145751953125f /* 16 significant bits: k*hi exact */
#define PB_LN2_LO 1.428606765330187e-06f

/* 2 atanh(s) for |s| <= 3 - 2 sqrt 2 = 0.1716 (PB_ATANH2_MAX; m in
 * [sqrt(1/2), sqrt 2) for s = (m - 1)/(m + 1)): 2s (1 + z p(z)), z = s^2,
 * p a quadratic fitted to (atanh(s)/s - 1)/z over z in [0, 0.02944] for the
 * least largest relative error of the result (iterated weighted least
 * squares, Lawson's): 8.1e-10, where the series to s^9 (a cubic p, one
 * more FMA) left 2.1e-9. In float, ln_mant over every m of its range: at
 * most 1.97 ulp either way (the division's rounding), 0.7% of results one
 * ulp apart. */
#define PB_ATANH2_MAX 0.171572875f
PB_INLINE vf atanh2_series(vf s)
{
    vf z = vf_mul(s, s);
    vf p = vf_set(0.14935865707775264f);
    p = hs(p, z, 0.19988770706763762f);
    p = hs(p, z, 0.33333388191649005f);
    vf s2 = vf_add(s, s);
    return vf_fma(vf_mul(s2, z), p, s2);
}
/* ln m of m in [sqrt(1/2), sqrt 2): 2 atanh(s), s = (m - 1)/(m + 1). m - 1
 * is exact (Sterbenz); m + 1 is formed from m, not from m - 1, to keep it
 * off the subtraction's latency. */
PB_INLINE vf ln_mant(vf m)
{
    vf one = vf_set(1.0f);
    return atanh2_series(vf_div(vf_sub(m, one), vf_add(m, one)));
}
/* For normal x > 0: x = m 2^e with m in [sqrt(1/2), sqrt 2), returns ln m and
 * sets *e. Integer arithmetic on the bits: adding 1's bits less sqrt(1/2)'s
 * leaves e + 127 in the exponent field (positive for every normal x) and m's
 * offset from sqrt(1/2) in the mantissa field, so no compare, select or
 * halving is needed to fold m. */
#define PB_SQRT1_2_BITS 0x3f3504f3u
PB_INLINE vf ln_split(vf x, vf *e)
{
    vf ix = vf_iadd(x, pb__bitconst(0x3f800000u - PB_SQRT1_2_BITS));
    /* e + 127 OR-ed into 2^23's mantissa: a float without a conversion */
    *e = vf_sub(vf_bor(vf_shr23(ix), pb__bitconst(0x4b000000u)), vf_set(8388735.0f));
    vf m = vf_iadd(vf_band(ix, pb__bitconst(0x007fffffu)), pb__bitconst(PB_SQRT1_2_BITS));
    return ln_mant(m);
}
PB_INLINE vf ln_join(vf e, vf lnm)
{
    return vf_fma(e, vf_set(PB_LN2_HI), vf_fma(e, vf_set(PB_LN2_LO), lnm));
}
PB_INLINE vm ln_plain(vf x)
{
    return vm_and(vm_ge(x, vf_set(1.17549435e-38f)), vm_lt(x, vf_set(HUGE_VALF)));
}
/* ln x of x a positive finite normal */
PB_INLINE vf ln_normal(vf x)
{
    vf e;
    vf lnm = ln_split(x, &e);
    return ln_join(e, lnm);
}
/* Natural log for x > 0 (scales). ln(m 2^e) with m in [sqrt(1/2), sqrt 2) and
 * ln m = 2 atanh((m - 1)/(m + 1)) (ln_mant). 0 -> -Inf, negative or NaN -> NaN,
 * +Inf -> +Inf; denormals handled. */
PB_INLINE vf vf_ln(vf x)
{
    if (vm_all(ln_plain(x))) /* the usual case: no denormal scaling, no specials */
        return ln_normal(x);
    vf e;
    vm denorm = vm_lt(x, vf_set(1.17549435e-38f));
    vf lnm = ln_split(vf_sel(denorm, vf_mul(x, vf_set(16777216.0f)), x), &e);
    vf r = ln_join(vf_sub(e, vf_sel(denorm, vf_set(24.0f), vf_zero())), lnm);
    /* specials: the bit tricks above only see finite positive normals */
    r = vf_sel(vm_eq(x, vf_zero()), vf_set(-HUGE_VALF), r);
    r = vf_sel(vm_eq(x, vf_set(HUGE_VALF)), x, r);
    r = vf_sel(vm_lt(x, vf_zero()), vf_set(NAN), r);
    r = vf_sel(vm_eq(x, x), r, x); /* NaN stays NaN */
    return r;
}
/* All three in [sqrt(1/2), sqrt 2): exactly the x for which ln_split gives
 * e = 0 and m = x, so ln_mant(x) alone is bit-identical to ln_normal
 * there. As integers, x - sqrt(1/2)'s bits is below 2^23 there and only
 * there (NaN and negatives included), so one shift of the OR tests all three. */
PB_INLINE int v3_near_one(v3 a)
{
    vf lo = pb__bitconst(0u - PB_SQRT1_2_BITS);
    vf t = vf_bor(vf_iadd(a.x, lo), vf_bor(vf_iadd(a.y, lo), vf_iadd(a.z, lo)));
    /* the high 9 bits, added to 1's bits: 1 exactly where they are zero */
    return vm_all(vm_eq(vf_iadd(vf_shr23(t), pb__bitconst(0x3f800000u)), vf_set(1.0f)));
}
/* vf_ln per component. Scales relative to a reference sit near one, so the
 * first test skips the exponent split and join; the second is the usual
 * case of three normals. */
PB_INLINE v3 v3_ln(v3 a)
{
    if (v3_near_one(a)) {
        v3 r = {ln_mant(a.x), ln_mant(a.y), ln_mant(a.z)};
        return r;
    }
    if (vm_all(vm_and(ln_plain(a.x), vm_and(ln_plain(a.y), ln_plain(a.z))))) {
        v3 r = {ln_normal(a.x), ln_normal(a.y), ln_normal(a.z)};
        return r;
    }
    v3 r = {vf_ln(a.x), vf_ln(a.y), vf_ln(a.z)};
    return r;
}

/* ln(a / b) per component: where the ratio lies in [sqrt(1/2), sqrt 2) (the
 * usual case of neighbouring keys' or layers' scales) and a + b is finite,
 * 2 atanh((a - b)/(a + b)), one division and no rounded ratio (a - b exact;
 * a ratio 1 + 2^-23 gives its log to an ulp of it, where ln of the rounded
 * ratio erred by up to 65% of it for keys 1-64 ulps apart); anything else (NaN, Inf, 0, signs that
 * differ, ratios further apart) as vf_ln(a / b). Each lane's result is its
 * own, whatever the other lanes hold (a block with any other lane computes
 * both and selects). Equal a and b give +-0. */
PB_INLINE vm ln_ratio_near(vf t, vf d)
{
    return vm_and(vm_lt(vf_abs(t), vf_set(PB_ATANH2_MAX)), vm_lt(vf_abs(d), vf_set(HUGE_VALF)));
}
PB_INLINE v3 v3_ln_ratio(v3 a, v3 b)
{
    v3 d = {vf_add(a.x, b.x), vf_add(a.y, b.y), vf_add(a.z, b.z)};
    v3 t = {vf_div(vf_sub(a.x, b.x), d.x), vf_div(vf_sub(a.y, b.y), d.y),
            vf_div(vf_sub(a.z, b.z), d.z)};
    /* all near, with max over the components (which may drop a NaN: with
     * every a + b finite, t is NaN only where a or b is, or a = b = 0, and
     * its series gives NaN, as ln(a / b) does; where a + b is NaN, so is t) */
    vm ok = vm_and(vm_lt(v3_amax(t), vf_set(PB_ATANH2_MAX)), vm_lt(v3_amax(d), vf_set(HUGE_VALF)));
    v3 r = {atanh2_series(t.x), atanh2_series(t.y), atanh2_series(t.z)};
    if (vm_all(ok))
        return r;
    v3 q = {vf_div(a.x, b.x), vf_div(a.y, b.y), vf_div(a.z, b.z)};
    v3 l = v3_ln(q);
    v3 m = {vf_sel(ln_ratio_near(t.x, d.x), r.x, l.x), vf_sel(ln_ratio_near(t.y, d.y), r.y, l.y),
            vf_sel(ln_ratio_near(t.z, d.z), r.z, l.z)};
    return m;
}

/* e^r for |r| <= ln2/2: 1 + r + r^2 q(r), q a quartic fitted to
 * (e^r - 1 - r)/r^2 for the least largest relative error of the result
 * (as atanh2_series'): 3.1e-9, where Taylor to r^7 (one more FMA) left
 * 7.1e-9. The two leading coefficients exactly 1: e^0 = 1 exactly. In
 * float (every third float with |r| <= 0.3466): at most 0.72 ulp, Taylor's
 * 0.77. */
PB_INLINE vf exp_poly(vf r)
{
    vf p = vf_set(0.0013814539141733904f);
    p = hs(p, r, 0.008368745227513153f);
    p = hs(p, r, 0.04166839080619685f);
    p = hs(p, r, 0.16666520397766252f);
    p = hs(p, r, 0.49999993432011186f);
    p = hs(p, r, 1.0f);
    return hs(p, r, 1.0f);
}
/* u log2(e) + 1.5 2^23 + 127 rounds to an integer whose low mantissa bits
 * are k + 127, k = round(u / ln2): shifted into the exponent field they are
 * 2^k, with no conversion instruction. */
#define PB_EXP_SHIFT 12583039.0f
/* k = round(u / ln2) (in *k, and shifted in *t) and r = u - k ln2 (two-part
 * ln2) */
PB_INLINE vf exp_reduce(vf u, vf *t, vf *k)
{
    *t = vf_fma(u, vf_set(1.44269504f), vf_set(PB_EXP_SHIFT));
    *k = vf_sub(*t, vf_set(PB_EXP_SHIFT));
    return vf_fnma(*k, vf_set(PB_LN2_LO), vf_fnma(*k, vf_set(PB_LN2_HI), u));
}
/* e^u = 2^k e^r. u > 88.73 -> +Inf, u < -104 -> 0, NaN -> NaN; subnormal
 * results are scaled by 2^k in two steps so that they round once. */
PB_INLINE vf vf_exp(vf u)
{
    vf t, k;
    if (vm_all(vm_lt(vf_abs(u), vf_set(87.0f)))) {
        /* the usual case: 2^k a normal number, one scaling; the general path
         * below gives bit-identical results for these lanes */
        vf r = exp_reduce(u, &t, &k);
        return vf_mul(exp_poly(r), vf_shl23(t));
    }
    vf r = exp_reduce(vf_max(vf_set(-104.0f), vf_min(vf_set(89.0f), u)), &t, &k);
    k = vf_sel(vm_eq(k, k), k, vf_zero()); /* NaN (r carries it): keep 2^k defined */
    vf k1 = vf_round(vf_mul(k, vf_set(0.5f)));
    vf k2 = vf_sub(k, k1);
    vf y = vf_mul(vf_mul(exp_poly(r), vf_pow2i(k1)), vf_pow2i(k2));
    y = vf_sel(vm_gt(u, vf_set(88.7228394f)), vf_set(HUGE_VALF), y);
    y = vf_sel(vm_lt(u, vf_set(-104.0f)), vf_zero(), y);
    return y;
}

/* --------------------------------------------------------- sin / cos */
/* Cody-Waite split of pi/2. A has 12 significant bits and k is split as
 * kh + kl, kh a multiple of 2^10: for |k| < 2^20 both kh*A and kl*A are exact
 * without FMA, so the reduction stays within 0.27 ulp(x) up to PB_ANGLE_MAX
 * (an 11-bit A times the whole k lost up to 1 ulp(x) beyond k = 2^13). */
#define PB_PIO2_A 0x1.922p+0f
#define PB_PIO2_B -0x1.2aeef4p-18f
#define PB_PIO2_C -0x1.73dcbp-43f
#define PB_2_PI_F 0.636619746685028f
/* Beyond this no float angle is meaningful (ulp >= 1/8 rad): clamp so the
 * result stays a valid unit rotation. */
#define PB_ANGLE_MAX 1048576.0f

typedef struct {
    vf c, sinc;
} pb_sincos;

/* sin(r)/r and cos(r) of z = r^2 for |r| <= pi/4: Taylor polynomials
 * (remainder below 2e-9) */
PB_INLINE void sincos_poly_z(vf z, vf *sinc, vf *c)
{
    /* Estrin's scheme in z (three dependent steps instead of five) */
    vf z2 = sq_normal(z);
    vf s01 = hs(vf_set(8.3333333333e-03f), z, -1.6666666667e-01f);
    vf s23 = hs(vf_set(2.7557319224e-06f), z, -1.9841269841e-04f);
    *sinc = vf_fma(vf_fma(z2, s23, s01), z, vf_set(1.0f));
    vf c01 = hs(vf_set(4.1666666667e-02f), z, -0.5f);
    vf c23 = hs(vf_set(-2.7557319224e-07f), z, 2.4801587302e-05f);
    c23 = hs(c23, z, -1.3888888889e-03f);
    *c = vf_fma(vf_fma(z2, c23, c01), z, vf_set(1.0f));
}
PB_INLINE void sincos_poly(vf r, vf *sinc, vf *c) { sincos_poly_z(vf_mul(r, r), sinc, c); }

/* cos and sin(x)/x of x (any sign; |x| > 2^20 is clamped). The sinc needs no
 * division while |x| <= pi/4. */
PB_INLINE pb_sincos sincos_sinc(vf x)
{
    vf xc = vf_max(vf_set(-PB_ANGLE_MAX), vf_min(vf_set(PB_ANGLE_MAX), x));
    vf k = vf_round(vf_mul(xc, vf_set(PB_2_PI_F)));
    pb_sincos out;
    if (vm_all(vm_eq(k, vf_zero()))) {
        /* every lane within pi/4: no reduction, no quadrant, no division; the
         * general path below gives bit-identical results for these lanes */
        sincos_poly(xc, &out.sinc, &out.c);
        return out;
    }
    vf kh = vf_mul(vf_round(vf_mul(k, vf_set(0x1p-10f))), vf_set(0x1p10f));
    vf r = vf_fnma(kh, vf_set(PB_PIO2_A), xc);
    r = vf_fnma(vf_sub(k, kh), vf_set(PB_PIO2_A), r);
    r = vf_fnma(k, vf_set(PB_PIO2_B), r);
    r = vf_fnma(k, vf_set(PB_PIO2_C), r);
    vf sr_r, cr;
    sincos_poly(r, &sr_r, &cr);
    vf sr = vf_mul(r, sr_r);
    /* quadrant k mod 4, with float ops only (k is an exact small integer) */
    vf half = vf_round(vf_mul(k, vf_set(0.5f)));
    vm odd = vm_eq(vf_sub(k, vf_add(half, half)), vf_zero());
    odd = vm_not(odd);
    vf q4 = vf_mul(k, vf_set(0.25f));
    vf fl = vf_round(q4);
    fl = vf_sel(vm_gt(fl, q4), vf_sub(fl, vf_set(1.0f)), fl);
    vf m4 = vf_fnma(fl, vf_set(4.0f), k); /* 0, 1, 2 or 3 */
    vf s = vf_sel(odd, cr, sr);
    vf c = vf_sel(odd, sr, cr);
    s = vf_sel(vm_ge(m4, vf_set(2.0f)), vf_neg(s), s);
    vm cneg = vm_and(vm_ge(m4, vf_set(1.0f)), vm_le(m4, vf_set(2.0f)));
    c = vf_sel(cneg, vf_neg(c), c);
    out.c = c;
    vm small = vm_eq(k, vf_zero());
    vf x1 = vf_sel(small, vf_set(1.0f), x);
    out.sinc = vf_sel(small, sr_r, vf_div(s, x1));
    return out;
}

/* Below this x^2 (pi/4 squared, rounded down) sincos_poly_z applies */
#define PB_SINCOS_Z_MAX 0.6168f
/* sinc and cos of x given X2 = x^2, into SINC and COS: while X2 is below
 * PB_SINCOS_Z_MAX the polynomials take X2 itself (no square root, no
 * reduction, no rounding of x to square again); lanes beyond take
 * sincos_sinc(X), X an expression for x that is evaluated only when some lane
 * needs it. Each lane's path depends on its own X2 only. */
#define PB_SINCOS_SQ(X2, X, SINC, COS)                                                             \
    do {                                                                                           \
        vf pb_x2_ = (X2);                                                                          \
        sincos_poly_z(pb_x2_, &(SINC), &(COS));                                                    \
        vm pb_near_ = vm_lt(pb_x2_, vf_set(PB_SINCOS_Z_MAX));                                      \
        if (!vm_all(pb_near_)) {                                                                   \
            pb_sincos pb_sc_ = sincos_sinc(X);                                                     \
            (SINC) = vf_sel(pb_near_, (SINC), pb_sc_.sinc);                                        \
            (COS) = vf_sel(pb_near_, (COS), pb_sc_.c);                                             \
        }                                                                                          \
    } while (0)
/* exp(v) = (cos|v|, sin|v| v/|v|); exp(0) = identity. sin|v|/|v| in *sinc
 * unless NULL. */
PB_INLINE vq q_exp_sc(v3 v, vf *sinc_out)
{
    vf n2 = v3_dot(v, v);
    vf sinc, c;
    PB_SINCOS_SQ(n2, vf_sqrt(n2), sinc, c);
    if (sinc_out)
        *sinc_out = sinc;
    vq r = {c, vf_mul(v.x, sinc), vf_mul(v.y, sinc), vf_mul(v.z, sinc)};
    return r;
}
PB_INLINE vq q_exp(v3 v) { return q_exp_sc(v, 0); }

/* Exact angular velocity J_l(u) du for rot = exp(u/2) r0, u the scaled
 * angle-axis offset, given sinc and cos of the half angle |u|/2 (q_exp_sc):
 * J_l = I + a [u]x + b [u]x^2 with a = (1 - cos t)/t^2 = sinc(t/2)^2 / 2 and
 * b = (t - sin t)/t^3 (a series below t = 1, where the difference cancels). */
PB_INLINE v3 jacobian_left_apply(v3 u, v3 du, vf half_sinc, vf half_c)
{
    vf t2 = v3_dot(u, u);
    vf t = vf_sqrt(t2);
    vf a = vf_mul(vf_set(0.5f), vf_mul(half_sinc, half_sinc));
    vf bs = vf_set(2.5052108385e-08f); /* 1/11! */
    bs = hs(bs, t2, -2.7557319224e-06f);
    bs = hs(bs, t2, 1.9841269841e-04f);
    bs = hs(bs, t2, -8.3333333333e-03f);
    bs = hs(bs, t2, 1.6666666667e-01f);
    /* sin t = 2 sin(t/2) cos(t/2) = t sinc(t/2) cos(t/2) */
    vf sin_t = vf_mul(vf_mul(t, half_sinc), half_c);
    vm big = vm_ge(t, vf_set(1.0f));
    vf t3 = vf_sel(big, vf_mul(t2, t), vf_set(1.0f));
    vf bd = vf_div(vf_sub(t, sin_t), t3);
    vf b = vf_sel(big, bd, bs);
    v3 c1 = v3_cross(u, du);
    v3 c2 = v3_cross(u, c1);
    return v3_fma(c2, b, v3_fma(c1, a, du));
}

/* ----------------------------------------------------- cubic bases */
/* Hermite bases of the offset form (p0 = 0): value weights w1..w3 and their
 * derivatives q1..q3 at x. */
typedef struct {
    vf w1, w2, w3, q1, q2, q3;
} pb_hermite_basis;

/* the basis broadcast from its floats */
PB_INLINE pb_hermite_basis hermite_of(const pb_hermite_w *w)
{
    pb_hermite_basis h = {vf_set(w->w1), vf_set(w->w2), vf_set(w->w3),
                          vf_set(w->q1), vf_set(w->q2), vf_set(w->q3)};
    return h;
}
PB_INLINE pb_hermite_basis hermite_basis_k(float xs, double dscale, double k)
{
    pb_hermite_w w = hermite_w_k(xs, dscale, k);
    return hermite_of(&w);
}
PB_INLINE pb_hermite_basis hermite_basis_scaled(float xs, double dscale)
{
    return hermite_basis_k(xs, dscale, 1.0);
}
PB_INLINE pb_hermite_basis hermite_basis(float xs) { return hermite_basis_scaled(xs, 1.0); }
/* The bases of the rotation cubics' half form: the offset enters as its log
 * l = d/2 (the scaled angle-axis halved), the tangents whole, and the value
 * comes out as u/2, which is what exp takes: w2 and w3 halved, q1 doubled.
 * Powers of two, so u/2 and u' are the floats the whole form gives, without
 * the doublings and halvings on the path of every rotation. */
PB_INLINE pb_hermite_basis hermite_basis_half(float xs, double dscale)
{
    return hermite_basis_k(xs, dscale, 0.5);
}
PB_INLINE v3 hermite_value(pb_hermite_basis h, v3 d, v3 v0, v3 v1)
{
    return v3_fma(v1, h.w3, v3_fma(v0, h.w2, v3_scale(d, h.w1)));
}
PB_INLINE v3 hermite_deriv(pb_hermite_basis h, v3 d, v3 v0, v3 v1)
{
    return v3_fma(v1, h.q3, v3_fma(v0, h.q2, v3_scale(d, h.q1)));
}

#endif
