/* Double-precision vector math over the double lanes (vd), written once for
 * every backend, for the Euler-angle kernels (kernels_euler.h): sin/cos and
 * atan2 to about an ulp, so that their results agree with libm's (the
 * double reference of src/io/euler.c) to a few ulps. No libm calls, one
 * polynomial and one operation order for every backend (bit-identical in
 * deterministic builds, where vd_fma does not fuse).
 *
 * The polynomials are fdlibm's (as in musl: Sun Microsystems' "Permission
 * to use, copy, modify, and distribute this software is freely granted,
 * provided that this notice is preserved"): __kernel_sin / __kernel_cos on
 * [-pi/4, pi/4] and atan's 11-term odd polynomial on [-7/16, 7/16] with its
 * argument reduction by atan(1/2) and atan(1). */
#ifndef PB_LANES_MATH64_H
#define PB_LANES_MATH64_H

#ifndef PB_DLANES
#error "include a lanes_<isa>.h first"
#endif

typedef struct {
    vd w, x, y, z;
} vqd;

/* Horner step acc*z + c */
PB_INLINE vd hsd(vd acc, vd z, double c) { return vd_fma(acc, z, vd_set(c)); }

/* ---------------------------------------------------------- sin / cos */
/* pi/2 as its first 33 bits (k * PB_PIO2_1 exact for |k| < 2^20), the
 * next 33 and the 53 after those */
#define PB_PIO2_1 1.57079632673412561417e+00  /* 0x3FF921FB, 0x54400000 */
#define PB_PIO2_2 6.07710050630396597660e-11  /* 0x3DD0B461, 0x1A600000 */
#define PB_PIO2_2T 2.02226624879595063154e-21 /* 0x3BA3198A, 0x2E037073 */
#define PB_INVPIO2 6.36619772367581382433e-01 /* 2/pi */

/* sin(x + y) and cos(x + y) for |x| <= pi/4 (plus a rounding), y the tail of
 * the reduced argument (|y| < ulp(x)); fdlibm's __kernel_sin (iy = 1) and
 * __kernel_cos, each under an ulp */
PB_INLINE void sincos_kernel_d(vd x, vd y, vd *s, vd *c)
{
    vd z = vd_mul(x, x), w = vd_mul(z, z);
    /* sin */
    vd r = vd_add(
        hsd(vd_fma(z, vd_set(2.75573137070700676789e-06), vd_set(-1.98412698298579493134e-04)), z,
            8.33333333332248946124e-03),
        vd_mul(vd_mul(z, w),
               vd_fma(z, vd_set(1.58969099521155010221e-10), vd_set(-2.50507602534068634195e-08))));
    /* the line above is S2 + z*(S3 + z*S4) + z*w*(S5 + z*S6) */
    vd v = vd_mul(z, x);
    vd half_y = vd_mul(vd_set(0.5), y);
    *s = vd_sub(x, vd_sub(vd_sub(vd_mul(z, vd_sub(half_y, vd_mul(v, r))), y),
                          vd_mul(v, vd_set(-1.66666666666666324348e-01))));
    /* cos */
    vd rc = vd_add(
        vd_mul(z, hsd(hsd(vd_set(2.48015872894767294178e-05), z, -1.38888888888741095749e-03), z,
                      4.16666666666666019037e-02)),
        vd_mul(vd_mul(w, w),
               hsd(hsd(vd_set(-1.13596475577881948265e-11), z, 2.08757232129817482790e-09), z,
                   -2.75573143513906633035e-07)));
    vd hz = vd_mul(vd_set(0.5), z);
    vd wc = vd_sub(vd_set(1.0), hz);
    *c = vd_add(wc,
                vd_add(vd_sub(vd_sub(vd_set(1.0), wc), hz), vd_sub(vd_mul(z, rc), vd_mul(x, y))));
}

/* sin h and cos h for |h| below 2^19 (the Euler kernels' half angles are
 * under 2 pi): k = round(h 2/pi), h - k pi/2 to 119 bits of pi/2 as a head
 * and a tail (fdlibm's __rem_pio2, its second round always: near a
 * multiple of pi/2 the first round's 86 bits would leave an absolute error
 * of 1e-26, many ulps of a tiny result), the kernels, the quadrant k mod 4.
 * About an ulp. */
PB_INLINE void sincos_d(vd h, vd *s, vd *c)
{
    vd k = vd_round(vd_mul(h, vd_set(PB_INVPIO2)));
    vd t = vd_sub(h, vd_mul(k, vd_set(PB_PIO2_1))); /* exact */
    vd w = vd_mul(k, vd_set(PB_PIO2_2));            /* exact */
    vd r = vd_sub(t, w);
    w = vd_sub(vd_mul(k, vd_set(PB_PIO2_2T)), vd_sub(vd_sub(t, r), w)); /* and r's rounding */
    vd y0 = vd_sub(r, w);
    vd y1 = vd_sub(vd_sub(r, y0), w);
    vd ss, cc;
    sincos_kernel_d(y0, y1, &ss, &cc);
    /* quadrant n = k mod 4 (exact in doubles) */
    vd n = vd_sub(k, vd_mul(vd_set(4.0), vd_round(vd_mul(k, vd_set(0.25)) /* k/4 to nearest */)));
    /* n in {-2, -1, 0, 1, 2} (k/4 rounds ties to even): -2 and 2 are the
     * same quadrant, -1 is 3 */
    vmd odd = vmd_or(vmd_eq(n, vd_set(1.0)), vmd_eq(n, vd_set(-1.0)));
    vmd half = vmd_or(vmd_eq(n, vd_set(2.0)), vmd_eq(n, vd_set(-2.0)));
    vmd sneg = vmd_or(half, vmd_eq(n, vd_set(-1.0))); /* quadrants 2, 3: -sin */
    vmd cneg = vmd_or(half, vmd_eq(n, vd_set(1.0)));  /* quadrants 1, 2: -cos */
    vd sv = vd_sel(odd, cc, ss), cv = vd_sel(odd, ss, cc);
    *s = vd_sel(vmd_eq(h, vd_set(0.0)), h, vd_sel(sneg, vd_neg(sv), sv)); /* sin(-0) = -0 */
    *c = vd_sel(cneg, vd_neg(cv), cv);
}

/* --------------------------------------------------------------- atan2 */
#define PB_ATAN_HALF_HI 4.63647609000806093515e-01 /* atan(1/2) */
#define PB_ATAN_HALF_LO 2.26987774529616870924e-17
#define PB_ATAN_ONE_HI 7.85398163397448278999e-01 /* atan(1) = pi/4 */
#define PB_ATAN_ONE_LO 3.06161699786838301793e-17
#define PB_PIO2_HI 1.57079632679489655800e+00 /* pi/2 */
#define PB_PIO2_LO 6.12323399573676603587e-17
#define PB_PI_HI 3.14159265358979311600e+00 /* pi */
#define PB_PI_LO 1.22464679914735317720e-16

/* atan(mn / mx) for 0 <= mn <= mx, mx > 0 (fdlibm's atan of t = mn / mx:
 * below 7/16 the polynomial itself; [7/16, 11/16) by atan(1/2) +
 * atan((2t - 1)/(2 + t)); [11/16, 1] by atan(1) + atan((t - 1)/(t + 1))),
 * with the reduced argument as one quotient of mn and mx: (2 mn - mx) /
 * (2 mx + mn), (mn - mx) / (mn + mx) or mn / mx. Under an ulp or two. */
PB_INLINE vd atan_ratio_d(vd mn, vd mx)
{
    vmd id0 =
        vmd_and(vmd_ge(mn, vd_mul(mx, vd_set(0.4375))), vmd_lt(mn, vd_mul(mx, vd_set(0.6875))));
    vmd id1 = vmd_ge(mn, vd_mul(mx, vd_set(0.6875)));
    vmd red = vmd_or(id0, id1);
    vd num = vd_sel(id0, vd_sub(vd_add(mn, mn), mx), vd_sel(id1, vd_sub(mn, mx), mn));
    vd den = vd_sel(id0, vd_add(vd_add(mx, mx), mn), vd_sel(id1, vd_add(mn, mx), mx));
    vd x = vd_div(num, den);
    vd z = vd_mul(x, x), w = vd_mul(z, z);
    vd s1 = vd_mul(
        z, hsd(hsd(hsd(hsd(hsd(vd_set(1.62858201153657823623e-02), w, 4.97687799461593236017e-02),
                           w, 6.66107313738753120669e-02),
                       w, 9.09088713343650656196e-02),
                   w, 1.42857142725034663711e-01),
               w, 3.33333333333329318027e-01));
    vd s2 = vd_mul(
        w, hsd(hsd(hsd(hsd(vd_set(-3.65315727442169155270e-02), w, -5.83357013379057348645e-02), w,
                       -7.69187620504482999495e-02),
                   w, -1.11111104054623557880e-01),
               w, -1.99999999998764832476e-01));
    vd xs = vd_mul(x, vd_add(s1, s2));
    vd hi = vd_sel(id0, vd_set(PB_ATAN_HALF_HI), vd_set(PB_ATAN_ONE_HI));
    vd lo = vd_sel(id0, vd_set(PB_ATAN_HALF_LO), vd_set(PB_ATAN_ONE_LO));
    vd reduced = vd_sub(hi, vd_sub(vd_sub(xs, lo), x));
    return vd_sel(red, reduced, vd_sub(x, xs));
}

/* atan2(y, x) for finite y, x (libm's conventions for signed zeros: +-0
 * with x = +0 or x > 0 gives +-0, with x = -0 or x < 0 gives +-pi; (0, 0)
 * is not NaN). Non-finite inputs give unspecified values: the kernels send
 * those lanes to the scalar code. About 2 ulps. */
PB_INLINE vd atan2_d(vd y, vd x)
{
    vd ax = vd_abs(x), ay = vd_abs(y);
    vmd swap = vmd_gt(ay, ax);
    vd mn = vd_sel(swap, ax, ay), mx = vd_sel(swap, ay, ax);
    vmd zero = vmd_eq(mx, vd_set(0.0));
    vd r = atan_ratio_d(mn, vd_sel(zero, vd_set(1.0), mx)); /* 0 for (0, 0) */
    /* |y| > |x|: pi/2 - r */
    r = vd_sel(swap, vd_add(vd_sub(vd_set(PB_PIO2_HI), r), vd_set(PB_PIO2_LO)), r);
    /* x negative (sign bit, -0 included): pi - r */
    vmd xneg = vmd_lt(vd_bor(vd_signbit(x), vd_set(1.0)), vd_set(0.0)); /* copysign(1, x) < 0 */
    r = vd_sel(xneg, vd_add(vd_sub(vd_set(PB_PI_HI), r), vd_set(PB_PI_LO)), r);
    return vd_copysign(r, y);
}

#endif
