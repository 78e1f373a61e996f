/*
 * vec3 Hermite and Catmull-Rom (pb_vec3_hermite, pb_vec3_catmull_rom)
 * against the double reference (tests/ref.c): per component 8 u of the float
 * rounding of the basis. The tolerances are those of interp_util.h.
 */
#include "interp_util.h"

#define U24 REF_U24

/* ---- vec3 ------------------------------------------------------------------ */

/* |monomial| sums of the basis (absolute rounding scale of each weight) */
static void abs_basis(double x, double W[4], double Q[4])
{
    double ax = fabs(x), x2 = x * x, ax3 = ax * x2;
    W[0] = 2 * ax3 + 3 * x2 + 1; /* w0 (full form) */
    W[1] = 3 * x2 + 2 * ax3;
    W[2] = ax3 + 2 * x2 + ax;
    W[3] = ax3 + x2;
    Q[0] = 6 * ax + 6 * x2;
    Q[1] = 6 * ax + 6 * x2;
    Q[2] = 3 * x2 + 4 * ax + 1;
    Q[3] = 3 * x2 + 2 * ax;
}

static double comp_ratio(rv3 out, rv3 ref, rv3 scale)
{
    double r = 0.0;
    double o[3] = {out.x, out.y, out.z}, f[3] = {ref.x, ref.y, ref.z};
    double s[3] = {scale.x, scale.y, scale.z};
    for (int c = 0; c < 3; c++) {
        double e = fabs(o[c] - f[c]) / (8.0 * U24 * s[c] + 1e-300);
        if (isnan(e))
            e = INFINITY;
        if (e > r)
            r = e;
    }
    return r;
}

static rv3 rv3_abs(rv3 a) { return rv3_make(fabs(a.x), fabs(a.y), fabs(a.z)); }
static rv3 lin_abs(double a, rv3 p, double b, rv3 q)
{
    return rv3_add(rv3_scale(rv3_abs(p), a), rv3_scale(rv3_abs(q), b));
}

static void vec3_test(int catmull, int wide, uint64_t seed)
{
    rng_t r = rng_seed(seed);
    size_t n = BATCH;
    pb_vec3s p[4], pos = fv_alloc(n), vel = fv_alloc(n);
    for (int j = 0; j < 4; j++)
        p[j] = fv_alloc(n);
    char name[96];
    snprintf(name, sizeof name, "vec3_%s %s", catmull ? "catmull_rom" : "hermite",
             wide ? "wide" : "realistic");
    ref_track t;
    rt_init(&t, name);
    for (int round = 0; round < ROUNDS; round++) {
        float x = (float)(wide ? rng_range(&r, -1.0, 2.0) : rng_uniform(&r));
        for (size_t i = 0; i < n; i++) {
            rv3 base = rng_vec3(&r, wide ? 1e4 : 2.0);
            for (int j = 0; j < 4; j++)
                fv_set(p[j], i,
                       catmull || j < 2 ? rv3_add(base, rng_vec3(&r, wide ? 1e3 : 0.1))
                                        : rng_vec3(&r, wide ? 1e3 : 1.0));
        }
        pb_status st = catmull ? pb_vec3_catmull_rom(n, x, pb_cv(p[0]), pb_cv(p[1]), pb_cv(p[2]),
                                                     pb_cv(p[3]), pos, vel)
                               : pb_vec3_hermite(n, x, pb_cv(p[0]), pb_cv(p[1]), pb_cv(p[2]),
                                                 pb_cv(p[3]), pos, vel);
        cr_assert_eq(st, PB_OK);
        double W[4], Q[4];
        abs_basis(x, W, Q);
        for (size_t i = 0; i < n; i++) {
            rv3 a = fv_get(p[0], i), bb = fv_get(p[1], i), c = fv_get(p[2], i), d = fv_get(p[3], i);
            rv3 rp, rv, sp, sv;
            if (catmull) {
                ref_vec3_catmull_rom(x, a, bb, c, d, &rp, &rv);
                /* tangents (c - a)/2, (d - bb)/2: scales of their operands */
                rv3 t1 = rv3_scale(rv3_add(rv3_abs(c), rv3_abs(a)), 0.5);
                rv3 t2 = rv3_scale(rv3_add(rv3_abs(d), rv3_abs(bb)), 0.5);
                rv3 pp = rv3_add(rv3_abs(bb), rv3_abs(c));
                sp = rv3_add(rv3_add(rv3_scale(pp, 1 + W[0] + W[1]), rv3_scale(t1, 2 * W[2])),
                             rv3_scale(t2, 2 * W[3]));
                sv = rv3_add(rv3_add(rv3_scale(pp, Q[0] + Q[1]), rv3_scale(t1, 2 * Q[2])),
                             rv3_scale(t2, 2 * Q[3]));
            } else {
                ref_vec3_hermite(x, a, bb, c, d, &rp, &rv);
                rv3 pp = rv3_add(rv3_abs(a), rv3_abs(bb));
                sp = rv3_add(rv3_scale(pp, 1 + W[0] + W[1]), lin_abs(W[2], c, W[3], d));
                sv = rv3_add(rv3_scale(pp, Q[0] + Q[1]), lin_abs(Q[2], c, Q[3], d));
            }
            rv3 op = fv_get(pos, i), ov = fv_get(vel, i);
            double ratio = fmax(comp_ratio(op, rp, sp), comp_ratio(ov, rv, sv));
            if (rt_add(&t, (size_t)round * n + i, fmax(rv3_dist(op, rp), rv3_dist(ov, rv)), ratio))
                rt_note(&t,
                        "x=%.9g p0=" RV_FMT " p1=" RV_FMT " p2/v0=" RV_FMT " p3/v1=" RV_FMT
                        " pos=" RV_FMT " ref=" RV_FMT " vel=" RV_FMT " ref=" RV_FMT,
                        (double)x, RV_ARG(a), RV_ARG(bb), RV_ARG(c), RV_ARG(d), RV_ARG(op),
                        RV_ARG(rp), RV_ARG(ov), RV_ARG(rv));
        }
        /* no velocity output */
        if (round % 50 == 0) {
            pb_vec3s pos2 = fv_alloc(n);
            st = catmull ? pb_vec3_catmull_rom(n, x, pb_cv(p[0]), pb_cv(p[1]), pb_cv(p[2]),
                                               pb_cv(p[3]), pos2, NOVEL)
                         : pb_vec3_hermite(n, x, pb_cv(p[0]), pb_cv(p[1]), pb_cv(p[2]), pb_cv(p[3]),
                                           pos2, NOVEL);
            cr_assert_eq(st, PB_OK);
            for (size_t i = 0; i < n; i++)
                cr_expect(rv3_dist(fv_get(pos2, i), fv_get(pos, i)) == 0.0,
                          "%s: pos without vel differs at i=%zu", name, i);
            fv_free(pos2);
        }
    }
    RT_EXPECT(t);
    for (int j = 0; j < 4; j++)
        fv_free(p[j]);
    fv_free(pos);
    fv_free(vel);
}

Test(interp, vec3_hermite_realistic) { vec3_test(0, 0, 218); }
Test(interp, vec3_hermite_wide) { vec3_test(0, 1, 219); }
Test(interp, vec3_catmull_rom_realistic) { vec3_test(1, 0, 220); }
Test(interp, vec3_catmull_rom_wide) { vec3_test(1, 1, 221); }

Test(interp, vec3_endpoints)
{
    /* pos(0) = p0, pos(1) = p1, vel(0) = v0, vel(1) = v1 (to rounding) */
    rng_t r = rng_seed(222);
    size_t n = 1001;
    pb_vec3s p[4], pos = fv_alloc(n), vel = fv_alloc(n);
    for (int j = 0; j < 4; j++) {
        p[j] = fv_alloc(n);
        for (size_t i = 0; i < n; i++)
            fv_set(p[j], i, rng_vec3(&r, 10.0));
    }
    for (int e = 0; e < 2; e++) {
        cr_assert_eq(pb_vec3_hermite(n, (float)e, pb_cv(p[0]), pb_cv(p[1]), pb_cv(p[2]),
                                     pb_cv(p[3]), pos, vel),
                     PB_OK);
        for (size_t i = 0; i < n; i++) {
            rv3 wp = fv_get(p[e], i), wv = fv_get(p[2 + e], i);
            double tol =
                8.0 * U24 * (rv3_norm(fv_get(p[0], i)) + rv3_norm(fv_get(p[1], i)) + rv3_norm(wv));
            cr_expect(rv3_dist(fv_get(pos, i), wp) <= tol &&
                          rv3_dist(fv_get(vel, i), wv) <= 4 * tol,
                      "vec3_hermite x=%d i=%zu pos " RV_FMT " want " RV_FMT " vel " RV_FMT
                      " want " RV_FMT,
                      e, i, RV_ARG(fv_get(pos, i)), RV_ARG(wp), RV_ARG(fv_get(vel, i)), RV_ARG(wv));
        }
    }
    for (int j = 0; j < 4; j++)
        fv_free(p[j]);
    fv_free(pos);
    fv_free(vel);
}
