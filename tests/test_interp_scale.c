/*
 * Log-space scale Hermite and Catmull-Rom (pb_scale_hermite,
 * pb_scale_catmull_rom) against the double reference (tests/ref.c): 2e-6
 * relative per component, keys a few ulps apart, non-positive components.
 * The tolerances are those of interp_util.h.
 */
#include "interp_util.h"

/* ---- scales ------------------------------------------------------------------ */

static void scale_test(int catmull, int wide, uint64_t seed)
{
    rng_t r = rng_seed(seed);
    size_t n = BATCH;
    pb_vec3s s[4], scl = fv_alloc(n), svel = fv_alloc(n);
    for (int j = 0; j < 4; j++)
        s[j] = fv_alloc(n);
    char name[96];
    snprintf(name, sizeof name, "scale_%s %s", catmull ? "catmull_rom" : "hermite",
             wide ? "wide" : "realistic");
    ref_track t;
    rt_init(&t, name);
    double svrel = 0.0;
    for (int round = 0; round < ROUNDS; round++) {
        float x = round_x(round, (float)rng_uniform(&r));
        for (size_t i = 0; i < n; i++) {
            rv3 base = wide ? rv3_make(rng_logrange(&r, 1e-2, 1e2), rng_logrange(&r, 1e-2, 1e2),
                                       rng_logrange(&r, 1e-2, 1e2))
                            : rv3_make(rng_logrange(&r, 0.5, 2), rng_logrange(&r, 0.5, 2),
                                       rng_logrange(&r, 0.5, 2));
            double spread = wide ? 1.0 : 0.3; /* log-ratio between neighbours */
            rv3 cur = base;
            for (int j = 0; j < 4; j++) {
                if (!catmull && j >= 2) { /* v0, v1: log-scale velocities */
                    fv_set(s[j], i, rng_vec3(&r, wide ? 3.0 : 0.5));
                    continue;
                }
                fv_set(s[j], i, cur);
                cur = rv3_make(cur.x * exp(rng_range(&r, -spread, spread)),
                               cur.y * exp(rng_range(&r, -spread, spread)),
                               cur.z * exp(rng_range(&r, -spread, spread)));
            }
            if (i % 17 == 0) /* identical neighbours, exact 1 */
                for (int j = 0; j < (catmull ? 4 : 2); j++)
                    fv_set(s[j], i, rv3_make(1, 1, 1));
        }
        pb_status st = catmull ? pb_scale_catmull_rom(n, x, pb_cv(s[0]), pb_cv(s[1]), pb_cv(s[2]),
                                                      pb_cv(s[3]), scl, svel)
                               : pb_scale_hermite(n, x, pb_cv(s[0]), pb_cv(s[1]), pb_cv(s[2]),
                                                  pb_cv(s[3]), scl, svel);
        cr_assert_eq(st, PB_OK);
        for (size_t i = 0; i < n; i++) {
            rv3 a = fv_get(s[0], i), b = fv_get(s[1], i), c = fv_get(s[2], i), d = fv_get(s[3], i);
            rv3 rs, rv;
            if (catmull)
                ref_scale_catmull_rom(x, a, b, c, d, &rs, &rv);
            else
                ref_scale_hermite(x, a, b, c, d, &rs, &rv);
            rv3 os = fv_get(scl, i), ov = fv_get(svel, i);
            double es =
                fmax(fmax(fabs(os.x / rs.x - 1), fabs(os.y / rs.y - 1)), fabs(os.z / rs.z - 1));
            if (isnan(es))
                es = INFINITY;
            double ratio = fmax(es / PB_ACCURACY_SCALE_REL, ref_vel_err(ov, rv));
            if (isnan(ratio))
                ratio = INFINITY;
            if (rv3_norm(rv) >= 0.1)
                svrel = fmax(svrel, rv3_dist(ov, rv) / rv3_norm(rv));
            if (rt_add(&t, (size_t)round * n + i, es, ratio))
                rt_note(&t,
                        "x=%.9g s0=" RV_FMT " s1=" RV_FMT " s2/v0=" RV_FMT " s3/v1=" RV_FMT
                        " scale=" RV_FMT " ref=" RV_FMT " (rel %.3g) svel=" RV_FMT " ref=" RV_FMT,
                        (double)x, RV_ARG(a), RV_ARG(b), RV_ARG(c), RV_ARG(d), RV_ARG(os),
                        RV_ARG(rs), es, RV_ARG(ov), RV_ARG(rv));
        }
    }
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr, "{stats} %s: max scale rel err %.3g, max svel rel err %.3g (|ref|>=0.1)\n",
                name, t.max_err, svrel);
    RT_EXPECT(t);
    for (int j = 0; j < 4; j++)
        fv_free(s[j]);
    fv_free(scl);
    fv_free(svel);
}

Test(interp, scale_hermite_realistic) { scale_test(0, 0, 223); }
Test(interp, scale_hermite_wide) { scale_test(0, 1, 224); }
Test(interp, scale_catmull_rom_realistic) { scale_test(1, 0, 225); }
Test(interp, scale_catmull_rom_wide) { scale_test(1, 1, 226); }

/* Neighbouring keys a few ulps apart (1..64, either way, per component;
 * every 7th element one component exactly equal, svel exactly 0): the
 * log-scale velocity of pb_scale_hermite at x = 1/2 with zero tangents is
 * 1.5 ln(s1 / s0), which must come out within 1e-6 of itself (the header:
 * ln(a/b) to an ulp of the log however near 1; the log of the rounded ratio
 * erred by up to 65% of it), and the scale within 2e-6;
 * every 11th element a pair whose sum overflows (3e38, 2.4e38: the log of
 * their ratio, not the atanh form's 0). Every joint count 1..40, 71, 150. */
Test(interp, scale_velocity_of_keys_ulps_apart)
{
    rng_t r = rng_seed(227);
    const size_t N = 150;
    pb_vec3s s0 = fv_alloc(N), s1 = fv_alloc(N), z = fv_alloc(N), scl = fv_alloc(N),
             svel = fv_alloc(N);
    float *a[3] = {s0.x, s0.y, s0.z}, *b[3] = {s1.x, s1.y, s1.z};
    const float *ov[3] = {svel.x, svel.y, svel.z}, *os[3] = {scl.x, scl.y, scl.z};
    for (size_t i = 0; i < N; i++) {
        fv_set(z, i, rv3_make(0, 0, 0));
        for (int c = 0; c < 3; c++) {
            float x = (float)rng_logrange(&r, 1e-2, 1e2), y = x;
            int steps = 1 + (int)(rng_uniform(&r) * 64.0), up = rng_uniform(&r) < 0.5;
            for (int k = 0; k < steps && !(i % 7 == 0 && c == (int)(i % 3)); k++)
                y = nextafterf(y, up ? INFINITY : 0.0f);
            a[c][i] = x;
            b[c][i] = y;
        }
        if (i % 11 == 4) { /* a sum beyond float range: not the atanh form */
            a[1][i] = 3.0e38f;
            b[1][i] = 2.4e38f;
        }
    }
    size_t bad = 0;
    double worst = 0;
    for (size_t n = 1; n <= N; n = n < 40 ? n + 1 : n == 40 ? 71 : n == 71 ? N : N + 1) {
        cr_assert_eq(pb_scale_hermite(n, 0.5f, pb_cv(s0), pb_cv(s1), pb_cv(z), pb_cv(z), scl, svel),
                     PB_OK);
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++) {
                double l = log((double)b[c][i] / (double)a[c][i]), want = 1.5 * l;
                double got = ov[c][i], sc = os[c][i];
                double sw = (double)a[c][i] * exp(0.5 * l);
                double e = want == 0 ? fabs(got) : fabs(got - want) / fabs(want);
                if (e > worst)
                    worst = e;
                if (!(e <= 1e-6 && fabs(sc - sw) <= 2e-6 * sw) && bad++ < 12)
                    cr_expect(0,
                              "n=%zu i=%zu axis %d: s0 %.9g s1 %.9g svel %.9g want %.9g (rel %.3g) "
                              "scale %.9g want %.9g",
                              n, i, c, (double)a[c][i], (double)b[c][i], got, want, e, sc, sw);
            }
    }
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr, "{stats} scale velocity, keys ulps apart: max rel err %.3g\n", worst);
    cr_expect(bad == 0, "%zu elements off", bad);
    fv_free(s0);
    fv_free(s1);
    fv_free(z);
    fv_free(scl);
    fv_free(svel);
}

Test(interp, scale_nonpositive_component_only_affects_that_component)
{
    float s0x[3] = {0.0f, -1.0f, 2.0f}, s0y[3] = {1.5f, 1.5f, 1.5f}, s0z[3] = {2, 2, 2};
    float s1x[3] = {1.0f, 1.0f, -2.0f}, s1y[3] = {0.5f, 0.5f, 0.5f}, s1z[3] = {3, 3, 3};
    float vx[3] = {0.1f, 0.1f, 0.1f}, vy[3] = {0.2f, 0.2f, 0.2f}, vz[3] = {0, 0, 0};
    float ox[3], oy[3], oz[3], px[3], py[3], pz[3];
    pb_cvec3s s0 = {s0x, s0y, s0z}, s1 = {s1x, s1y, s1z}, v = {vx, vy, vz};
    float x = 0.4f;
    cr_assert_eq(
        pb_scale_hermite(3, x, s0, s1, v, v, (pb_vec3s){ox, oy, oz}, (pb_vec3s){px, py, pz}),
        PB_OK);
    for (int i = 0; i < 3; i++) {
        rv3 rs, rv;
        ref_scale_hermite(x, rv3_make(1, s0y[i], s0z[i]), rv3_make(1, s1y[i], s1z[i]),
                          rv3_make(vx[i], vy[i], vz[i]), rv3_make(vx[i], vy[i], vz[i]), &rs, &rv);
        cr_expect(!isfinite(ox[i]) || ox[i] == 0.0f,
                  "scale_hermite bad x component #%d gave finite nonzero %g", i, ox[i]);
        cr_expect(fabs(oy[i] / rs.y - 1) <= PB_ACCURACY_SCALE_REL &&
                      fabs(oz[i] / rs.z - 1) <= PB_ACCURACY_SCALE_REL,
                  "scale_hermite: a bad x component affected y/z (#%d: %g %g vs %g %g)", i, oy[i],
                  oz[i], rs.y, rs.z);
    }
}
