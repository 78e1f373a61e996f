/*
 * The rotation distance pb_quat_sin_half_angle against the double
 * reference in ref_average.c, over counts around the lane widths.
 */
#include "average_util.h"

/* ---- rotation distance ----------------------------------------------------------- */

Test(average, sin_half_angle)
{
    static const size_t ns[] = {0, 1, 7, 8, 9, 1000, 1001, 100000};
    rng_t r = rng_seed(8);
    double maxerr = 0;
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        size_t n = ns[ni], guard = 9;
        pb_quats a = fq_alloc(n), b = fq_alloc(n);
        float *out = malloc(sizeof(float) * (n + guard));
        cr_assert(out);
        for (size_t j = 0; j < n; j++) {
            rq qa = rng_quat(&r), qb;
            int mode = (int)(j % 4);
            if (mode == 0)
                qb = rng_quat(&r);
            else if (mode == 1)
                qb = rq_scale(rng_quat_near(&r, qa, 1e-3), rng_sign(&r));
            else if (mode == 2) /* near 180 degrees */
                qb = rq_scale(rng_quat_near(&r, rq_mul(qa, rq_make(0, 0.6, 0.8, 0)), 1e-2),
                              rng_sign(&r));
            else
                qb = rq_scale(rng_quat_near(&r, qa, rng_logrange(&r, 1e-7, 3.0)), rng_sign(&r));
            fq_set(a, j, qa);
            fq_set(b, j, qb);
        }
        for (size_t j = 0; j < n + guard; j++)
            out[j] = -7.0f;
        cr_assert_eq(pb_quat_sin_half_angle(n, pb_cq(a), pb_cq(b), out), PB_OK);
        size_t bad = 0;
        for (size_t j = 0; j < n; j++) {
            rq qa = fq_get(a, j), qb = fq_get(b, j);
            double want = ra_sin_half_angle(qa, qb), e = fabs(want - out[j]);
            if (e > maxerr || isnan(e))
                maxerr = e;
            int ok = e <= 2e-7 && out[j] >= 0.0f && out[j] <= 1.0f;
            if (!ok && bad++ < 3)
                cr_expect(0,
                          "sin_half_angle n=%zu j=%zu: a (%.9g, %.9g, %.9g, %.9g) b (%.9g, %.9g, "
                          "%.9g, %.9g): got %.9g want %.12g err %.3g",
                          n, j, qa.w, qa.x, qa.y, qa.z, qb.w, qb.x, qb.y, qb.z, (double)out[j],
                          want, e);
        }
        cr_expect(bad == 0, "sin_half_angle n=%zu: %zu of %zu values off by > 2e-7", n, bad, n);
        for (size_t j = n; j < n + guard; j++)
            cr_expect_eq(out[j], -7.0f, "sin_half_angle n=%zu: wrote past the end at %zu", n, j);
        fq_free(a);
        fq_free(b);
        free(out);
    }
    if (stats_on())
        fprintf(stderr, "[stat] sin_half_angle max abs err %.3g\n", maxerr);
}
