/*
 * The spline evaluator pb_quat_spline_eval against the double reference in
 * ref_average.c: open and closed tracks, key wrapping and clamping,
 * continuity, the open end rule.
 */
#include "spline_util.h"

/* ---- spline evaluation ---------------------------------------------------------- */

/* keys frame-major: key f of joint j at f*n + j. Smooth closed loops with noise
 * and random signs, so consecutive keys (also last -> first) are < ~1.5 rad
 * apart. */
static pb_quats gen_track(rng_t *r, size_t keys, size_t n)
{
    pb_quats tr = fq_alloc(keys * n);
    for (size_t j = 0; j < n; j++) {
        rq base = rng_quat(r);
        rv3 a = rng_unit3(r), b = rv3_cross(a, rng_unit3(r));
        b = rv3_scale(b, 1.0 / rv3_norm(b));
        double rad = rng_range(r, 0.1, 1.2);
        for (size_t f = 0; f < keys; f++) {
            double ph = 2 * REF_PI * (double)f / (double)keys;
            rv3 u = rv3_add(rv3_scale(a, rad * cos(ph)), rv3_scale(b, rad * sin(ph)));
            u = rv3_add(u, rng_ball3(r, 0.15));
            rq q = rq_mul(rq_from_scaled_angle_axis(u), base);
            fq_set(tr, f * n + j, rq_scale(q, rng_sign(r)));
        }
    }
    return tr;
}

static void get_keys(pb_quats tr, size_t keys, size_t n, size_t j, rq *out)
{
    for (size_t f = 0; f < keys; f++)
        out[f] = fq_get(tr, f * n + j);
}

static void report_spline(const char *what, size_t keys, int closed, float t, size_t j, const rq *k,
                          rq got, rq want, double e)
{
    char buf[2048];
    int o = snprintf(buf, sizeof buf, "%s keys=%zu %s t=%.9g joint %zu: keys", what, keys,
                     closed ? "closed" : "open", (double)t, j);
    for (size_t f = 0; f < keys && o < 1700; f++)
        o += snprintf(buf + o, sizeof buf - (size_t)o, " (%.9g, %.9g, %.9g, %.9g)", k[f].w, k[f].x,
                      k[f].y, k[f].z);
    snprintf(buf + o, sizeof buf - (size_t)o,
             "; got (%.9g, %.9g, %.9g, %.9g) want (%.9g, %.9g, %.9g, %.9g) err %.3g rad", got.w,
             got.x, got.y, got.z, want.w, want.x, want.y, want.z, e);
    cr_expect(0, "%s", buf);
}

static void spline_vs_reference(int closed, uint64_t seed)
{
    static const size_t keys_l[] = {1, 2, 3, 4, 7};
    const size_t n = 301;
    rng_t r = rng_seed(seed);
    tstats st;
    memset(&st, 0, sizeof st);
    pb_quats out = fq_alloc(n);
    for (size_t ki = 0; ki < 5; ki++) {
        size_t K = keys_l[ki];
        pb_quats tr = gen_track(&r, K, n);
        /* a grid over [-0.75, K + 0.75], the keys and their float neighbours */
        float ts[256];
        size_t nt = 0;
        for (double t = -0.75; t <= (double)K + 0.75 && nt < 200; t += 0.085)
            ts[nt++] = (float)t;
        for (size_t f = 0; f <= K && nt + 3 <= 256; f++) {
            ts[nt++] = (float)f;
            ts[nt++] = nextafterf((float)f, -INFINITY);
            ts[nt++] = nextafterf((float)f, INFINITY);
        }
        for (size_t ti = 0; ti < nt; ti++) {
            float t = ts[ti];
            fq_fill_nan(out, n);
            cr_assert_eq(pb_quat_spline_eval(K, n, pb_cq(tr), t, closed ? PB_CLOSED : 0u, out),
                         PB_OK);
            for (size_t j = 0; j < n; j++) {
                rq k[8];
                get_keys(tr, K, n, j, k);
                rq want = ra_spline_eval(K, k, 1, t, closed), got = fq_get(out, j);
                double e = rq_angle_between(want, got);
                tstat_add(&st, e);
                if (tstat_report_now(&st, e))
                    report_spline("spline_eval", K, closed, t, j, k, got, want, e);
            }
        }
        fq_free(tr);
    }
    tstat_final(closed ? "spline_eval closed" : "spline_eval open", &st, 100000);
    fq_free(out);
}

Test(spline, spline_eval_open_vs_reference) { spline_vs_reference(0, 7001); }
Test(spline, spline_eval_closed_vs_reference) { spline_vs_reference(1, 7002); }

/* integer t gives the key; closed: t = keys is t = 0, t wraps both ways; open:
 * t clamps to the end keys */
Test(spline, spline_eval_keys_wrap_clamp)
{
    const size_t n = 37, K = 5;
    rng_t r = rng_seed(55);
    pb_quats tr = gen_track(&r, K, n), o1 = fq_alloc(n), o2 = fq_alloc(n);
    for (int closed = 0; closed < 2; closed++) {
        unsigned fl = closed ? PB_CLOSED : 0u;
        for (size_t f = 0; f < K; f++) {
            cr_assert_eq(pb_quat_spline_eval(K, n, pb_cq(tr), (float)f, fl, o1), PB_OK);
            for (size_t j = 0; j < n; j++) {
                rq key = fq_get(tr, f * n + j), got = fq_get(o1, j);
                double e = rq_angle_between(key, got);
                cr_expect(e <= TOL_ROT,
                          "%s t=%zu joint %zu: got (%.9g, %.9g, %.9g, %.9g), key (%.9g, %.9g, "
                          "%.9g, %.9g), %.3g rad",
                          closed ? "closed" : "open", f, j, got.w, got.x, got.y, got.z, key.w,
                          key.x, key.y, key.z, e);
            }
        }
    }
    /* closed: pairs of t that must give the same pose */
    static const float pairs[][2] = {{5.0f, 0.0f},  {-0.25f, 4.75f},   {6.5f, 1.5f}, {-5.0f, 0.0f},
                                     {10.0f, 0.0f}, {12.375f, 2.375f}, {-7.5f, 2.5f}};
    for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        cr_assert_eq(pb_quat_spline_eval(K, n, pb_cq(tr), pairs[pi][0], PB_CLOSED, o1), PB_OK);
        cr_assert_eq(pb_quat_spline_eval(K, n, pb_cq(tr), pairs[pi][1], PB_CLOSED, o2), PB_OK);
        for (size_t j = 0; j < n; j++) {
            double e = rq_angle_between(fq_get(o1, j), fq_get(o2, j));
            cr_expect(e <= TOL_ROT, "closed: t=%g and t=%g differ by %.3g rad at joint %zu",
                      (double)pairs[pi][0], (double)pairs[pi][1], e, j);
        }
    }
    /* open: clamping */
    static const float lo[] = {-0.5f, -3.0f, -1e30f, -INFINITY};
    static const float hi[] = {4.5f, 9.0f, 1e30f, INFINITY};
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < 4; i++) {
            float t = side ? hi[i] : lo[i];
            size_t f = side ? K - 1 : 0;
            cr_assert_eq(pb_quat_spline_eval(K, n, pb_cq(tr), t, 0, o1), PB_OK);
            for (size_t j = 0; j < n; j++) {
                double e = rq_angle_between(fq_get(tr, f * n + j), fq_get(o1, j));
                cr_expect(e <= TOL_ROT, "open t=%g joint %zu: %.3g rad from key %zu", (double)t, j,
                          e, f);
            }
        }
    /* NaN t gives NaN */
    for (int closed = 0; closed < 2; closed++) {
        cr_assert_eq(pb_quat_spline_eval(K, n, pb_cq(tr), NAN, closed ? PB_CLOSED : 0u, o1), PB_OK);
        for (size_t j = 0; j < n; j++) {
            rq g = fq_get(o1, j);
            cr_expect(isnan(g.w) || isnan(g.x) || isnan(g.y) || isnan(g.z),
                      "%s NaN t joint %zu: got (%g, %g, %g, %g)", closed ? "closed" : "open", j,
                      g.w, g.x, g.y, g.z);
        }
    }
    fq_free(tr);
    fq_free(o1);
    fq_free(o2);
}

/* continuity across segment boundaries: the pose just before and just after an
 * integer t is the pose at t (up to the motion over one float ulp of t) */
Test(spline, spline_eval_continuity)
{
    const size_t n = 101;
    static const size_t keys_l[] = {3, 4, 7};
    rng_t r = rng_seed(808);
    pb_quats om = fq_alloc(n), o0 = fq_alloc(n), op = fq_alloc(n);
    size_t bad = 0;
    double maxjump = 0;
    for (size_t ki = 0; ki < 3; ki++) {
        size_t K = keys_l[ki];
        pb_quats tr = gen_track(&r, K, n);
        for (int closed = 0; closed < 2; closed++) {
            unsigned fl = closed ? PB_CLOSED : 0u;
            size_t last = closed ? K : K - 1;
            for (size_t f = closed ? 0 : 1; f <= last; f++) {
                float t = (float)f, tm = nextafterf(t, -INFINITY), tp = nextafterf(t, INFINITY);
                cr_assert_eq(pb_quat_spline_eval(K, n, pb_cq(tr), tm, fl, om), PB_OK);
                cr_assert_eq(pb_quat_spline_eval(K, n, pb_cq(tr), t, fl, o0), PB_OK);
                cr_assert_eq(pb_quat_spline_eval(K, n, pb_cq(tr), tp, fl, op), PB_OK);
                for (size_t j = 0; j < n; j++) {
                    rq k[8];
                    get_keys(tr, K, n, j, k);
                    /* motion of the exact curve over the ulp steps */
                    rq r0 = ra_spline_eval(K, k, 1, t, closed);
                    double dm = rq_angle_between(ra_spline_eval(K, k, 1, tm, closed), r0);
                    double dp = rq_angle_between(ra_spline_eval(K, k, 1, tp, closed), r0);
                    double jm = rq_angle_between(fq_get(om, j), fq_get(o0, j));
                    double jp = rq_angle_between(fq_get(op, j), fq_get(o0, j));
                    if (jm - dm > maxjump)
                        maxjump = jm - dm;
                    if (jp - dp > maxjump)
                        maxjump = jp - dp;
                    if ((!(jm <= TOL_ROT + dm) || !(jp <= TOL_ROT + dp)) && bad++ < 5)
                        cr_expect(0,
                                  "%s keys=%zu boundary t=%zu joint %zu: jump %.3g rad from "
                                  "below (curve moves %.3g), %.3g rad from above (curve moves "
                                  "%.3g)",
                                  closed ? "closed" : "open", K, f, j, jm, dm, jp, dp);
                }
            }
        }
        fq_free(tr);
    }
    if (stats_on())
        fprintf(stderr, "[stat] spline continuity: max excess jump %.3g rad\n", maxjump);
    cr_expect(bad == 0, "spline_eval: %zu discontinuities above %.1g rad", bad, TOL_ROT);
    fq_free(om);
    fq_free(o0);
    fq_free(op);
}

/* the open ends: the end key's single chord is used on both sides, i.e. the
 * end offset is abs(chord) (checked directly on the reference, then through
 * the library for keys = 2, where both controls come from end rules) */
Test(spline, spline_eval_open_end_rule)
{
    rng_t r = rng_seed(21);
    for (int i = 0; i < 50; i++) {
        rq k0 = rng_quat(&r), k1 = rng_quat_near(&r, k0, 1.5);
        rq chord = rq_mul_inv(k1, k0);
        rq after0;
        /* key 0's virtual previous neighbour is k0 k1^-1 k0 */
        rq vprev = rq_mul(rq_mul_inv(k0, k1), k0);
        ra_bezier_controls(vprev, k0, k1, NULL, &after0);
        rq want = rq_mul(ra_pow(rq_abs(chord), 1.0 / 3.0), k0);
        cr_expect(rq_angle_between(after0, want) < 1e-12);
    }
    const size_t n = 64;
    pb_quats tr = gen_track(&r, 2, n), out = fq_alloc(n);
    for (int ti = 0; ti <= 8; ti++) {
        float t = (float)ti / 8.0f;
        cr_assert_eq(pb_quat_spline_eval(2, n, pb_cq(tr), t, 0, out), PB_OK);
        for (size_t j = 0; j < n; j++) {
            rq k[2];
            get_keys(tr, 2, n, j, k);
            rq want = ra_spline_eval(2, k, 1, t, 0), got = fq_get(out, j);
            double e = rq_angle_between(want, got);
            if (!(e <= TOL_ROT))
                report_spline("open end rule", 2, 0, t, j, k, got, want, e);
        }
    }
    fq_free(tr);
    fq_free(out);
}
