/*
 * Backends and dispatch: names, support, forcing, version; every supported
 * backend held to the accuracy target on a quaternion Catmull-Rom batch (and
 * on the average / spline kernels with realistic data); the errors of
 * pb_backend_from_name and pb_backend_force, and pb_status_str.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avg_kind.h"
#include "posebatch.h"
#include "ref.h"
#include "ref_average.h"

Test(backend, version)
{
    uint32_t v = pb_version();
    cr_expect_eq(v,
                 (uint32_t)(PB_VERSION_MAJOR * 10000 + PB_VERSION_MINOR * 100 + PB_VERSION_PATCH),
                 "pb_version() = %u", v);
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", PB_VERSION_MAJOR, PB_VERSION_MINOR, PB_VERSION_PATCH);
    const char *s = pb_version_string();
    cr_assert(s != NULL);
    cr_expect_str_eq(s, want, "pb_version_string() = \"%s\", want \"%s\"", s, want);
    cr_expect_eq(pb_version_string(), s, "not static storage");
}

Test(backend, active_is_supported)
{
    pb_backend b = pb_backend_active();
    cr_assert((int)b >= 0 && b < PB_BACKEND_COUNT, "active backend %d out of range", (int)b);
    cr_expect_eq(pb_backend_supported(b), 1, "active backend %s not supported", pb_backend_name(b));
    cr_expect_eq(pb_backend_supported(PB_BACKEND_SCALAR), 1, "scalar not supported");
    cr_expect_eq(pb_backend_active(), b, "active backend changed between calls");
    const char *env = getenv("POSEBATCH_BACKEND");
    if (!env || !*env)
        cr_expect_eq(pb_backend_init_status(), PB_OK, "POSEBATCH_BACKEND unset: init status %d",
                     (int)pb_backend_init_status());
}

Test(backend, names_round_trip)
{
    static const char *const names[PB_BACKEND_COUNT] = {"scalar", "sse41", "avx2", "avx512",
                                                        "neon"};
    for (int i = 0; i < PB_BACKEND_COUNT; i++) {
        const char *n = pb_backend_name((pb_backend)i);
        cr_assert(n != NULL, "pb_backend_name(%d) is NULL", i);
        cr_expect_str_eq(n, names[i], "pb_backend_name(%d) = \"%s\"", i, n);
        pb_backend b = (pb_backend)99;
        cr_expect_eq(pb_backend_from_name(n, &b), PB_OK, "from_name(\"%s\")", n);
        cr_expect_eq((int)b, i, "from_name(\"%s\") = %d", n, (int)b);
        int lanes = pb_backend_lanes((pb_backend)i);
        cr_expect(lanes >= 1 && lanes <= 64, "pb_backend_lanes(%s) = %d", n, lanes);
    }
    cr_expect_eq(pb_backend_lanes(PB_BACKEND_SCALAR), 1);
    cr_expect_null(pb_backend_name(PB_BACKEND_COUNT));
    cr_expect_null(pb_backend_name((pb_backend)-1));
    cr_expect_eq(pb_backend_lanes(PB_BACKEND_COUNT), 0);
    cr_expect_eq(pb_backend_lanes((pb_backend)-1), 0);
    cr_expect_eq(pb_backend_supported(PB_BACKEND_COUNT), 0);
    cr_expect_eq(pb_backend_supported((pb_backend)-1), 0);
    pb_backend b = (pb_backend)99;
    cr_expect_eq(pb_backend_from_name("unknown-backend", &b), PB_ERR_ARG);
    cr_expect_eq((int)b, 99, "out written on error");
}

/* what a call runs by its shape: runs that add up to the call, each on a
 * known instruction set of at most the active backend's lanes; with
 * $POSEBATCH_SHAPE_DISPATCH=0 (scripts/test.sh runs the suite both ways)
 * one run on the active backend's own kernels; errors give 0 */
Test(backend, dispatch_by_shape)
{
    const char *e = getenv("POSEBATCH_SHAPE_DISPATCH");
    const int off = e && strcmp(e, "0") == 0;
    const int lanes = pb_backend_lanes(pb_backend_active());
    static const char *const isas[] = {"scalar", "sse41", "sse41+fma",         "avx2",
                                       "avx512", "neon",  "avx512 (emulated)", "neon (emulated)"};
    for (int call = 0; call < 4; call++)
        for (size_t count = 1; count <= 70; count++) {
            pb_dispatch_run r[3];
            size_t n = pb_backend_dispatch((pb_dispatch_call)call, count, r), sum = 0;
            cr_assert(n >= 1 && n <= 3, "call %d count %zu: %zu runs", call, count, n);
            cr_assert(call == PB_DISPATCH_SKELETON || n == 1);
            for (size_t i = 0; i < n; i++) {
                int known = 0;
                for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++)
                    known |= strcmp(r[i].isa, isas[k]) == 0;
                cr_assert(known, "isa '%s'", r[i].isa);
                cr_assert(r[i].count > 0 && r[i].lanes >= 1 && r[i].lanes <= lanes);
                cr_assert(!off || r[i].lanes == lanes);
                sum += r[i].count;
            }
            cr_assert_eq(sum, count, "call %d: runs of %zu poses for %zu", call, sum, count);
        }
    pb_dispatch_run r[3];
    cr_assert_eq(pb_backend_dispatch(PB_DISPATCH_SKELETON, 0, r), 0);
    cr_assert_eq(pb_backend_dispatch(PB_DISPATCH_SKELETON, 4, NULL), 0);
    cr_assert_eq(pb_backend_dispatch(PB_DISPATCH_SKELETON, PB_MAX_COUNT + 1, r), 0);
    cr_assert_eq(pb_backend_dispatch((pb_dispatch_call)9, 4, r), 0);
}

Test(backend, force_unsupported_keeps_active)
{
    pb_backend before = pb_backend_active();
    int any = 0;
    for (int i = 0; i < PB_BACKEND_COUNT; i++) {
        if (pb_backend_supported((pb_backend)i))
            continue;
        any = 1;
        cr_expect_eq(pb_backend_force((pb_backend)i), PB_ERR_UNSUPPORTED, "force(%s)",
                     pb_backend_name((pb_backend)i));
        cr_expect_eq(pb_backend_active(), before, "force(%s) failed but active changed",
                     pb_backend_name((pb_backend)i));
    }
    cr_expect_eq(pb_backend_force(PB_BACKEND_COUNT), PB_ERR_ARG);
    cr_expect_eq(pb_backend_active(), before);
    if (!any)
        cr_log_info("every backend is supported here: no unsupported one to force");
}

/* realistic tracks: consecutive keys within 1 rad, random signs */
static void gen_keys(rng_t *r, size_t n, pb_quats *k, size_t nk, double step)
{
    for (size_t j = 0; j < n; j++) {
        rq q = rng_quat(r);
        for (size_t i = 0; i < nk; i++) {
            q = rng_quat_near(r, q, step);
            fq_set(k[i], j, rq_scale(q, rng_sign(r)));
        }
    }
}

typedef struct {
    double rot, vel;
    size_t fails;
} berr;

static void catmull_rom_check(pb_backend b, berr *e)
{
    const size_t n = 1001;
    static const float xs[] = {0.0f, 0.125f, 0.5f, 0.8f, 1.0f};
    rng_t r = rng_seed(1234);
    pb_quats k[4], rot = fq_alloc(n);
    pb_vec3s vel = fv_alloc(n);
    for (int i = 0; i < 4; i++)
        k[i] = fq_alloc(n);
    gen_keys(&r, n, k, 4, 1.0);
    for (int exact = 0; exact < 2; exact++)
        for (size_t xi = 0; xi < sizeof xs / sizeof xs[0]; xi++) {
            float x = xs[xi];
            fq_fill_nan(rot, n);
            fv_fill_nan(vel, n);
            cr_assert_eq(pb_quat_catmull_rom(n, x, pb_cq(k[0]), pb_cq(k[1]), pb_cq(k[2]),
                                             pb_cq(k[3]), exact ? PB_EXACT_VELOCITY : 0u, rot, vel),
                         PB_OK);
            for (size_t j = 0; j < n; j++) {
                rq q[4], wr;
                rv3 wv;
                for (int i = 0; i < 4; i++)
                    q[i] = fq_get(k[i], j);
                ref_quat_catmull_rom(x, q[0], q[1], q[2], q[3], exact, &wr, &wv);
                rq gr = fq_get(rot, j);
                rv3 gv = fv_get(vel, j);
                double er = rq_angle_between(wr, gr), ev = ref_vel_err(gv, wv);
                if (!(er <= e->rot))
                    e->rot = er;
                if (!(ev <= e->vel))
                    e->vel = ev;
                if ((!(er <= TOL_ROT) || !(ev <= 1.0)) && e->fails++ < 3)
                    cr_expect(0,
                              "backend %s catmull_rom x=%g exact=%d joint %zu: r0 (%.9g, %.9g, "
                              "%.9g, %.9g) r1 (%.9g, %.9g, %.9g, %.9g) r2 (%.9g, %.9g, %.9g, "
                              "%.9g) r3 (%.9g, %.9g, %.9g, %.9g): rot err %.3g rad, vel (%.9g, "
                              "%.9g, %.9g) want (%.9g, %.9g, %.9g), vel err %.3g of tolerance",
                              pb_backend_name(b), (double)x, exact, j, q[0].w, q[0].x, q[0].y,
                              q[0].z, q[1].w, q[1].x, q[1].y, q[1].z, q[2].w, q[2].x, q[2].y,
                              q[2].z, q[3].w, q[3].x, q[3].y, q[3].z, er, gv.x, gv.y, gv.z, wv.x,
                              wv.y, wv.z, ev);
            }
        }
    for (int i = 0; i < 4; i++)
        fq_free(k[i]);
    fq_free(rot);
    fv_free(vel);
}

/* averages, tangent offsets and the spline on realistic data */
static void averages_spline_check(pb_backend b, berr *e)
{
    const size_t n = 1001, K = 4;
    rng_t r = rng_seed(777);
    pb_quats k[4], ref = fq_alloc(n), out = fq_alloc(n), track = fq_alloc(K * n);
    for (size_t i = 0; i < K; i++)
        k[i] = fq_alloc(n);
    gen_keys(&r, n, k, K, 0.8);
    for (size_t j = 0; j < n; j++) {
        fq_set(ref, j, rng_quat_near(&r, fq_get(k[0], j), 0.3));
        for (size_t i = 0; i < K; i++)
            fq_set(track, i * n + j, fq_get(k[i], j));
    }
    pb_cquats s[4];
    for (size_t i = 0; i < K; i++)
        s[i] = pb_cq(k[i]);
    const float wf[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    const double wd[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    for (int f = 0; f < 9; f++) { /* the six averages (avg_kind.h), then the rest */
        pb_status st;
        char what[32];
        float t = 1.3f;
        if (f < AV_COUNT) {
            snprintf(what, sizeof what, "average_%s", av_name[f]);
            st = av_call((av_kind)f, n, K, pb_cq(ref), s, wf, out);
        } else if (f == 6) {
            snprintf(what, sizeof what, "tangent_offset");
            st = pb_quat_tangent_offset(n, s[0], s[1], s[2], out);
        } else if (f == 7) {
            snprintf(what, sizeof what, "spline_eval open");
            st = pb_quat_spline_eval(K, n, pb_cq(track), t, 0, out);
        } else {
            snprintf(what, sizeof what, "spline_eval closed");
            t = 3.6f;
            st = pb_quat_spline_eval(K, n, pb_cq(track), t, PB_CLOSED, out);
        }
        cr_assert_eq(st, PB_OK, "%s: %s status %d", pb_backend_name(b), what, (int)st);
        for (size_t j = 0; j < n; j++) {
            rq q[4], rf = fq_get(ref, j), want;
            double gap = 1.0;
            for (size_t i = 0; i < K; i++)
                q[i] = fq_get(k[i], j);
            if (f < AV_COUNT)
                av_ref((av_kind)f, rf, K, q, wd, &want, &gap);
            else if (f == 6)
                want = ra_tangent_offset(q[0], q[1], q[2]);
            else
                want = ra_spline_eval(K, q, 1, t, f == 8);
            rq got = fq_get(out, j);
            double er = rq_angle_between(want, got);
            /* av_tol: accurate's max(2e-6, PB_ACCURACY_EIGEN_GAP_RAD / g), g the
             * relative eigen-gap; everything else 2e-6 */
            double tol = f < AV_COUNT ? av_tol((av_kind)f, gap) : TOL_ROT;
            if (!(er <= e->rot))
                e->rot = er;
            if (!(er <= tol) && e->fails++ < 3)
                cr_expect(0,
                          "backend %s %s joint %zu: got (%.9g, %.9g, %.9g, %.9g) want (%.9g, "
                          "%.9g, %.9g, %.9g) err %.3g rad (tol %.3g)",
                          pb_backend_name(b), what, j, got.w, got.x, got.y, got.z, want.w, want.x,
                          want.y, want.z, er, tol);
        }
    }
    for (size_t i = 0; i < K; i++)
        fq_free(k[i]);
    fq_free(ref);
    fq_free(out);
    fq_free(track);
}

Test(backend, force_each_supported_meets_accuracy)
{
    pb_backend orig = pb_backend_active();
    int tested = 0;
    for (int i = 0; i < PB_BACKEND_COUNT; i++) {
        pb_backend b = (pb_backend)i;
        if (!pb_backend_supported(b))
            continue;
        cr_assert_eq(pb_backend_force(b), PB_OK, "force(%s)", pb_backend_name(b));
        cr_assert_eq(pb_backend_active(), b, "force(%s) did not take", pb_backend_name(b));
        berr e1 = {0, 0, 0}, e2 = {0, 0, 0};
        catmull_rom_check(b, &e1);
        averages_spline_check(b, &e2);
        tested++;
        if (stats_on())
            fprintf(stderr,
                    "[stat] backend %-7s catmull_rom rot %.3g rad, vel %.3g of tolerance; "
                    "averages/spline rot %.3g rad\n",
                    pb_backend_name(b), e1.rot, e1.vel, e2.rot);
        cr_expect(e1.fails == 0 && e2.fails == 0,
                  "backend %s: %zu catmull-rom and %zu average/spline results off (max rot %.3g "
                  "/ %.3g rad, vel %.3g of tolerance)",
                  pb_backend_name(b), e1.fails, e2.fails, e1.rot, e2.rot, e1.vel);
    }
    cr_expect(tested >= 1);
    cr_expect_eq(pb_backend_force(orig), PB_OK);
    cr_expect_eq(pb_backend_active(), orig);
}

/* ---- status strings, backend name parsing ------------------------------------------ */

Test(errors, status_str_never_null)
{
    for (int s = 0; s <= PB_ERR_NOMEM; s++) {
        const char *t = pb_status_str((pb_status)s);
        cr_assert(t != NULL, "pb_status_str(%d) is NULL", s);
        cr_expect(t[0] != 0, "pb_status_str(%d) is empty", s);
        cr_expect(strcmp(t, "unknown status") != 0, "known status %d reads \"unknown status\"", s);
    }
    static const int unknown[] = {7, 99, -1, 1000000};
    for (int i = 0; i < 4; i++) {
        const char *t = pb_status_str((pb_status)unknown[i]);
        cr_assert(t != NULL, "pb_status_str(%d) is NULL", unknown[i]);
        cr_expect_str_eq(t, "unknown status", "pb_status_str(%d) = \"%s\"", unknown[i], t);
    }
}

Test(errors, backend_name_errors)
{
    pb_backend b = (pb_backend)77;
    cr_expect_eq(pb_backend_from_name(NULL, &b), PB_ERR_NULL);
    cr_expect_eq((int)b, 77, "out written on error");
    cr_expect_eq(pb_backend_from_name("scalar", NULL), PB_ERR_NULL);
    static const char *const bad[] = {"",        "bogus",   "avx",  "avx2x",  "neon2",
                                      "scalar ", " scalar", "sse4", "avx-512"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b = (pb_backend)77;
        cr_expect_eq(pb_backend_from_name(bad[i], &b), PB_ERR_ARG, "name \"%s\"", bad[i]);
        cr_expect_eq((int)b, 77, "name \"%s\": out written on error", bad[i]);
    }
    pb_backend before = pb_backend_active();
    cr_expect_eq(pb_backend_force(PB_BACKEND_COUNT), PB_ERR_ARG);
    cr_expect_eq(pb_backend_force((pb_backend)-1), PB_ERR_ARG);
    cr_expect_eq(pb_backend_force((pb_backend)1000), PB_ERR_ARG);
    cr_expect_eq(pb_backend_active(), before, "active backend changed by a failed force");
}
