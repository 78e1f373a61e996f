/*
 * slerp / nlerp against the double reference (tests/ref.c).
 *
 * Tolerances (include/posebatch.h, never widened): rotation angle of
 * ref^-1 out <= 2e-6 rad, out unit to 2^-21 (inputs are unit to float
 * rounding), and the same sign as the reference (out(0) = a, out(1) = +-b is
 * a specific quaternion, not only a rotation). Where float rounding may pick
 * either sign for b (|dot(a, b)| <= 1e-6), both references are accepted,
 * except in the exact dot == 0 cases. Long-path slerp random pairs are kept at
 * least 1e-4 rad apart: the header excludes "rotations within ~1e-4 rad of
 * each other, long path" (the turning axis is then only as accurate as the
 * inputs' last bits); it states no exclusion for nlerp, whose pairs are not
 * filtered. Exactly equal inputs (a == +-b bitwise) must follow the stated
 * rule out = a (cos(pi t), sin(pi t), 0, 0), unit. slerp returns exactly a at
 * t = 0 and exactly +-b at t = 1 (bitwise, up to sign).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"
#include "ref.h"

#define BATCH 100
#define ROUNDS 1000
#define AMBIG 1e-6
#define UNIT_TOL 0x1.0p-21

static int rq_isfinite(rq q)
{
    return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z);
}

/* err/tol for one output against one reference (angle, unit norm, sign) */
static double qratio(rq out, rq ref, double tol, double *ang)
{
    *ang = rq_angle_between(out, ref);
    double r = *ang / tol;
    double un = fabs(rq_norm(out) - 1.0) / UNIT_TOL;
    if (un > r)
        r = un;
    if (rq_dot(out, ref) <= 0.0)
        r = INFINITY; /* wrong sign (or orthogonal) */
    if (!rq_isfinite(out))
        r = INFINITY;
    return r;
}

typedef rq (*ref_fn)(rq, rq, double, int, int);

static pb_status call(int nl, size_t n, float t, pb_quats a, pb_quats b, unsigned flags,
                      pb_quats out)
{
    return nl ? pb_quat_nlerp(n, t, pb_cq(a), pb_cq(b), flags, out)
              : pb_quat_slerp(n, t, pb_cq(a), pb_cq(b), flags, out);
}

/* best reference over the ambiguous b-sign choice */
static double check1(int nl, rq a, rq b, double t, int lp, rq out, double tol, double *ang,
                     rq *refout)
{
    ref_fn f = nl ? ref_nlerp_ex : ref_slerp_ex;
    rq r0 = f(a, b, t, lp, 0);
    double e0 = qratio(out, r0, tol, ang);
    *refout = r0;
    if (fabs(rq_dot(a, b)) <= AMBIG && rq_dot(a, b) != 0.0) {
        double a1;
        rq r1 = f(a, b, t, lp, 1);
        double e1 = qratio(out, r1, tol, &a1);
        if (e1 < e0) {
            e0 = e1;
            *ang = a1;
            *refout = r1;
        }
    }
    return e0;
}

/* random pairs: b near a (log-uniform angle), anywhere, or a fixed relation.
 * slerp_long != 0 redraws pairs within 4e-6 rad (the header's long-path slerp
 * exclusion); the header states no such exclusion for nlerp. */
static void gen_pair(rng_t *r, int slerp_long, rq *a, rq *b)
{
    *a = rng_quat(r);
    for (;;) {
        double u = rng_uniform(r);
        if (u < 0.4)
            *b = rng_quat_near(r, *a, rng_logrange(r, 1e-6, REF_PI));
        else
            *b = rng_quat(r);
        if (rng_uniform(r) < 0.5)
            *b = rq_neg(*b);
        /* after rounding to float: the header's exclusion is about the
         * inputs as given */
        if (!slerp_long || rq_angle_between(rq_round(*a), rq_round(*b)) >= 4e-6)
            break;
    }
    *a = rq_round(*a);
    *b = rq_round(*b);
}

/* n pairs of gen_pair into a and b */
static void fill_pairs(rng_t *r, int slerp_long, pb_quats a, pb_quats b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rq qa, qb;
        gen_pair(r, slerp_long, &qa, &qb);
        fq_set(a, i, qa);
        fq_set(b, i, qb);
    }
}

static void random_test(int nl, int long_path, double tlo, double thi, uint64_t seed)
{
    rng_t r = rng_seed(seed);
    pb_quats a = fq_alloc(BATCH), b = fq_alloc(BATCH), out = fq_alloc(BATCH);
    char name[128];
    snprintf(name, sizeof name, "%s %s t in [%g, %g]", nl ? "nlerp" : "slerp",
             long_path ? "PB_LONG_PATH" : "shortest", tlo, thi);
    ref_track tr;
    rt_init(&tr, name);
    for (int round = 0; round < ROUNDS; round++) {
        float t = (float)rng_range(&r, tlo, thi);
        if (round == 0)
            t = 0.0f;
        if (round == 1)
            t = 1.0f;
        if (round == 2)
            t = 0.5f;
        fill_pairs(&r, long_path && !nl, a, b, BATCH);
        cr_assert_eq(call(nl, BATCH, t, a, b, long_path ? PB_LONG_PATH : 0u, out), PB_OK);
        for (size_t i = 0; i < BATCH; i++) {
            rq qa = fq_get(a, i), qb = fq_get(b, i), o = fq_get(out, i), ref;
            double ang,
                ratio = check1(nl, qa, qb, t, long_path, o, PB_ACCURACY_ROTATION_RAD, &ang, &ref);
            if (rt_add(&tr, (size_t)round * BATCH + i, ang, ratio))
                rt_note(&tr,
                        "t=%.9g a=" RQ_FMT " b=" RQ_FMT " (dot %.3g, angle %.3g) out=" RQ_FMT
                        " ref=" RQ_FMT " err %.3g",
                        (double)t, RQ_ARG(qa), RQ_ARG(qb), rq_dot(qa, qb), rq_angle_between(qa, qb),
                        RQ_ARG(o), RQ_ARG(ref), ang);
        }
    }
    RT_EXPECT(tr);
    fq_free(a);
    fq_free(b);
    fq_free(out);
}

Test(slerp, slerp_shortest_random) { random_test(0, 0, 0.0, 1.0, 301); }
Test(slerp, slerp_shortest_extrapolated) { random_test(0, 0, -1.0, 2.0, 302); }
Test(slerp, slerp_long_path_random) { random_test(0, 1, 0.0, 1.0, 303); }
Test(slerp, slerp_long_path_extrapolated) { random_test(0, 1, -1.0, 2.0, 304); }
Test(slerp, nlerp_shortest_random) { random_test(1, 0, 0.0, 1.0, 305); }
Test(slerp, nlerp_shortest_extrapolated) { random_test(1, 0, -1.0, 2.0, 306); }
Test(slerp, nlerp_long_path_random) { random_test(1, 1, 0.0, 1.0, 307); }
Test(slerp, nlerp_long_path_extrapolated) { random_test(1, 1, -0.5, 1.5, 308); }

/* ---- the SLERP text's worked example (NOTES.md: t = 1/3 and 2/3) ---------- */

Test(slerp, worked_example_one_third_two_thirds)
{
    float aw = 1, ax = 0, ay = 0, az = 0;
    float bw = 0.7071068f, bx = 0, by = 0, bz = 0.7071068f;
    float ow, ox, oy, oz;
    pb_cquats a = {&aw, &ax, &ay, &az}, b = {&bw, &bx, &by, &bz};
    pb_quats o = {&ow, &ox, &oy, &oz};
    const double tol = 1e-6;
    cr_assert_eq(pb_quat_slerp(1, 1.0f / 3.0f, a, b, 0u, o), PB_OK);
    cr_expect(fabs(ow - 0.9659258) <= tol && fabs(ox) <= tol && fabs(oy) <= tol &&
                  fabs(oz - 0.2588190) <= tol,
              "slerp(1, 0.7071068 + 0.7071068k, 1/3) = (%.7f, %.7f, %.7f, %.7f), expected "
              "(0.9659258, 0, 0, 0.2588190) within %g",
              ow, ox, oy, oz, tol);
    cr_assert_eq(pb_quat_slerp(1, 2.0f / 3.0f, a, b, 0u, o), PB_OK);
    cr_expect(fabs(ow - 0.8660254) <= tol && fabs(ox) <= tol && fabs(oy) <= tol &&
                  fabs(oz - 0.5) <= tol,
              "slerp(1, 0.7071068 + 0.7071068k, 2/3) = (%.7f, %.7f, %.7f, %.7f), expected "
              "(0.8660254, 0, 0, 0.5) within %g",
              ow, ox, oy, oz, tol);
    /* the printed t = 0.33 / 0.66 give other values (NOTES.md) */
    cr_assert_eq(pb_quat_slerp(1, 0.33f, a, b, 0u, o), PB_OK);
    cr_expect(fabs(ow - 0.966600) <= 2e-6 && fabs(oz - 0.256289) <= 2e-6,
              "slerp at t=0.33 = (%.7f, .., %.7f), expected (0.966600, .., 0.256289)", ow, oz);
}

/* ---- exact dot == 0 (rotations 180 degrees apart): b as given ------------- */

Test(slerp, dot_exactly_zero_takes_b_as_given)
{
    /* exact float pairs whose dot is exactly 0 even with FMA */
    static const float P[][8] = {
        {1, 0, 0, 0, 0, 1, 0, 0},
        {1, 0, 0, 0, 0, 0, -1, 0},
        {0, 0, 0, 1, -1, 0, 0, 0},
        {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, -0.5f, 0.5f, -0.5f},
        {0.5f, 0.5f, 0.5f, 0.5f, -0.5f, 0.5f, 0.5f, -0.5f},
        {-0.5f, 0.5f, -0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f},
        {0.6f, 0.0f, 0.8f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f},
        {0.0f, 0.6f, 0.0f, -0.8f, 0.0f, 0.0f, 1.0f, 0.0f},
    };
    enum { NP = sizeof P / sizeof P[0] };
    static const float ts[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, -0.5f, 1.5f};
    for (int nl = 0; nl < 2; nl++)
        for (int lp = 0; lp < 2; lp++)
            for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
                float aw[NP], ax[NP], ay[NP], az[NP], bw[NP], bx[NP], by[NP], bz[NP];
                float ow[NP], ox[NP], oy[NP], oz[NP];
                for (int i = 0; i < NP; i++) {
                    aw[i] = P[i][0], ax[i] = P[i][1], ay[i] = P[i][2], az[i] = P[i][3];
                    bw[i] = P[i][4], bx[i] = P[i][5], by[i] = P[i][6], bz[i] = P[i][7];
                }
                pb_quats a = {aw, ax, ay, az}, b = {bw, bx, by, bz}, o = {ow, ox, oy, oz};
                cr_assert_eq(call(nl, NP, ts[k], a, b, lp ? PB_LONG_PATH : 0u, o), PB_OK);
                for (int i = 0; i < NP; i++) {
                    rq qa = fq_get(a, (size_t)i), qb = fq_get(b, (size_t)i);
                    if (rq_dot(qa, qb) != 0.0)
                        continue; /* 0.6/0.8 products need not cancel */
                    rq out = fq_get(o, (size_t)i);
                    rq ref = nl ? ref_nlerp(qa, qb, ts[k], lp) : ref_slerp(qa, qb, ts[k], lp);
                    /* explicitly: b as given, out = cos(t pi/2) a + sin(t pi/2) b for slerp */
                    double ang, ratio = qratio(out, ref, PB_ACCURACY_ROTATION_RAD, &ang);
                    cr_expect(ratio <= 1.0,
                              "%s%s dot==0: t=%g a=" RQ_FMT " b=" RQ_FMT " out=" RQ_FMT
                              " ref=" RQ_FMT " err %.3g",
                              nl ? "nlerp" : "slerp", lp ? " long" : "", (double)ts[k], RQ_ARG(qa),
                              RQ_ARG(qb), RQ_ARG(out), RQ_ARG(ref), ang);
                }
            }
}

/* ---- a == b, a == -b ------------------------------------------------------------ */

Test(slerp, equal_and_opposite_inputs)
{
    rng_t r = rng_seed(309);
    size_t n = 1001;
    pb_quats a = fq_alloc(n), b = fq_alloc(n), out = fq_alloc(n);
    for (size_t i = 0; i < n; i++) {
        rq q = rq_round(rng_quat(&r));
        if (i == 0)
            q = rq_identity();
        if (i == 1)
            q = rq_make(0, 0, 0, 1);
        if (i == 2)
            q = rq_make(0.5, -0.5, 0.5, 0.5);
        fq_set(a, i, q);
        fq_set(b, i, i % 2 ? rq_neg(q) : q);
    }
    static const float ts[] = {0.0f, 0.125f, 1.0f / 3.0f, 0.5f, 0.75f, 1.0f, -0.25f, 1.75f};
    for (int nl = 0; nl < 2; nl++)
        for (int lp = 0; lp < 2; lp++) {
            ref_track tr;
            char name[96];
            snprintf(name, sizeof name, "%s%s a == +-b", nl ? "nlerp" : "slerp",
                     lp ? " long path" : "");
            rt_init(&tr, name);
            for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
                float t = ts[k];
                cr_assert_eq(call(nl, n, t, a, b, lp ? PB_LONG_PATH : 0u, out), PB_OK);
                for (size_t i = 0; i < n; i++) {
                    rq qa = fq_get(a, i), qb = fq_get(b, i), o = fq_get(out, i);
                    rq ref;
                    if (!lp) {
                        ref = qa; /* shortest: b' = a, constant */
                    } else if (!nl) {
                        /* long: a full turn about a's local x axis at t = 1 */
                        ref = rq_mul(qa, rq_make(cos(REF_PI * t), sin(REF_PI * t), 0, 0));
                    } else {
                        /* long nlerp: b' = -a, normalize((1 - 2t) a); zero -> identity */
                        ref = t == 0.5f ? rq_identity() : rq_scale(qa, 1.0 - 2.0 * t);
                    }
                    double ang, ratio = qratio(o, ref, PB_ACCURACY_ROTATION_RAD, &ang);
                    if (nl && lp && t == 0.5f) /* exactly the identity */
                        ratio = (o.w == 1.0 && o.x == 0.0 && o.y == 0.0 && o.z == 0.0) ? 0.0 : 2.0;
                    if (rt_add(&tr, k * n + i, ang, ratio))
                        rt_note(&tr, "t=%.9g a=" RQ_FMT " b=" RQ_FMT " out=" RQ_FMT " ref=" RQ_FMT,
                                (double)t, RQ_ARG(qa), RQ_ARG(qb), RQ_ARG(o), RQ_ARG(ref));
                }
            }
            RT_EXPECT(tr);
        }
    fq_free(a);
    fq_free(b);
    fq_free(out);
}

/* ---- near-0 angles: no precision loss ------------------------------------------ */

Test(slerp, near_zero_angles_keep_precision)
{
    /* b within 1e-8..1e-3 rad of a: besides the 2e-6 rad bound, the point on
     * the arc must be resolved: error <= 0.01 angle(a, b) + 5e-7 (5e-7: a few
     * float quantisation steps of a unit quaternion). An acos-based slerp
     * returns a (or NaN) here. */
    rng_t r = rng_seed(310);
    pb_quats a = fq_alloc(BATCH), b = fq_alloc(BATCH), out = fq_alloc(BATCH);
    ref_track ts, tn;
    rt_init(&ts, "slerp near-0 angles");
    rt_init(&tn, "nlerp near-0 angles");
    for (int round = 0; round < 400; round++) {
        float t = (float)rng_range(&r, -0.5, 1.5);
        if (round % 4 == 0)
            t = 1.0f;
        if (round % 4 == 1)
            t = 0.5f;
        for (size_t i = 0; i < BATCH; i++) {
            rq qa = rq_round(rng_quat(&r));
            rq qb = rq_round(rng_quat_near(&r, qa, rng_logrange(&r, 1e-8, 1e-3)));
            if (i % 3 == 0)
                qb = rq_neg(qb); /* through the shortest-path flip */
            fq_set(a, i, qa);
            fq_set(b, i, qb);
        }
        for (int nl = 0; nl < 2; nl++) {
            cr_assert_eq(call(nl, BATCH, t, a, b, 0u, out), PB_OK);
            for (size_t i = 0; i < BATCH; i++) {
                rq qa = fq_get(a, i), qb = fq_get(b, i), o = fq_get(out, i);
                rq ref = nl ? ref_nlerp(qa, qb, t, 0) : ref_slerp(qa, qb, t, 0);
                double theta = rq_angle_between(qa, qb);
                double tol = fmin(PB_ACCURACY_ROTATION_RAD, 0.01 * theta + 5e-7);
                double ang, ratio = qratio(o, ref, tol, &ang);
                ref_track *tr = nl ? &tn : &ts;
                if (rt_add(tr, (size_t)round * BATCH + i, ang, ratio))
                    rt_note(tr,
                            "t=%.9g a=" RQ_FMT " b=" RQ_FMT " angle(a,b)=%.3g out=" RQ_FMT
                            " ref=" RQ_FMT " err %.3g (tol %.3g)",
                            (double)t, RQ_ARG(qa), RQ_ARG(qb), theta, RQ_ARG(o), RQ_ARG(ref), ang,
                            tol);
            }
        }
    }
    RT_EXPECT(ts);
    RT_EXPECT(tn);
    fq_free(a);
    fq_free(b);
    fq_free(out);
}

/* ---- constant speed, endpoints ------------------------------------------------ */

Test(slerp, constant_angular_speed_and_endpoints)
{
    rng_t r = rng_seed(311);
    size_t n = 2000;
    pb_quats a = fq_alloc(n), b = fq_alloc(n), o = fq_alloc(n);
    fill_pairs(&r, 0, a, b, n);
    static const float ts[] = {0.0f, 0.25f, 0.5f, 1.0f};
    for (size_t k = 0; k < 4; k++) {
        cr_assert_eq(pb_quat_slerp(n, ts[k], pb_cq(a), pb_cq(b), 0u, o), PB_OK);
        for (size_t i = 0; i < n; i++) {
            rq qa = fq_get(a, i), qb = fq_get(b, i), out = fq_get(o, i);
            double th = rq_angle_between(qa, qb);
            /* angle travelled is t * angle(a, b); the rest to b is (1 - t) angle */
            double d0 = rq_angle_between(qa, out), d1 = rq_angle_between(out, qb);
            double tol = 2.0 * PB_ACCURACY_ROTATION_RAD;
            cr_expect(fabs(d0 - ts[k] * th) <= tol && fabs(d1 - (1 - ts[k]) * th) <= tol,
                      "slerp not at constant speed: t=%g a=" RQ_FMT " b=" RQ_FMT
                      " travelled %.9g of %.9g, remaining %.9g",
                      (double)ts[k], RQ_ARG(qa), RQ_ARG(qb), d0, th, d1);
            if (ts[k] == 0.0f)
                cr_expect(rq_dot(out, qa) > 0.0, "slerp(t=0) is -a at i=%zu", i);
        }
    }
    fq_free(a);
    fq_free(b);
    fq_free(o);
}

/* ---- exact endpoints: out(0) == a, out(1) == +-b bitwise ------------------------- */

static int fbits_eq(float x, float y) { return memcmp(&x, &y, sizeof x) == 0; }

Test(slerp, slerp_endpoints_exact)
{
    /* random pairs (any angle, both hemispheres, near and far), equal and
     * opposite inputs, exact dot == 0, both path flags; slerp only (nlerp
     * renormalises a, the header promises no exact endpoints for it) */
    rng_t r = rng_seed(314);
    size_t n = 50000;
    pb_quats a = fq_alloc(n), b = fq_alloc(n), o = fq_alloc(n);
    for (size_t i = 0; i < n; i++) {
        rq qa, qb;
        gen_pair(&r, 0, &qa, &qb);
        switch (i % 17) {
        case 0: qb = qa; break;
        case 1: qb = rq_neg(qa); break;
        case 2: qb = rq_round(rng_quat_near(&r, qa, rng_logrange(&r, 1e-8, 1e-3))); break;
        case 3:
            qa = rq_make(1, 0, 0, 0);
            qb = rq_make(0, 0, -1, 0);
            break; /* dot == 0 */
        default: break;
        }
        fq_set(a, i, qa);
        fq_set(b, i, qb);
    }
    for (int lp = 0; lp < 2; lp++)
        for (int end = 0; end < 2; end++) {
            cr_assert_eq(
                pb_quat_slerp(n, end ? 1.0f : 0.0f, pb_cq(a), pb_cq(b), lp ? PB_LONG_PATH : 0u, o),
                PB_OK);
            pb_quats want = end ? b : a;
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < n; i++) {
                int same = fbits_eq(o.w[i], want.w[i]) && fbits_eq(o.x[i], want.x[i]) &&
                           fbits_eq(o.y[i], want.y[i]) && fbits_eq(o.z[i], want.z[i]);
                int neg = fbits_eq(o.w[i], -want.w[i]) && fbits_eq(o.x[i], -want.x[i]) &&
                          fbits_eq(o.y[i], -want.y[i]) && fbits_eq(o.z[i], -want.z[i]);
                if (!(same || (end && neg)) && bad++ == 0)
                    first = i;
            }
            cr_expect(bad == 0,
                      "slerp%s t=%d: %zu of %zu outputs not exactly %s; first i=%zu a=" RQ_FMT
                      " b=" RQ_FMT " out=" RQ_FMT,
                      lp ? " long path" : "", end, bad, n, end ? "+-b" : "a", first,
                      RQ_ARG(fq_get(a, first)), RQ_ARG(fq_get(b, first)), RQ_ARG(fq_get(o, first)));
        }
    fq_free(a);
    fq_free(b);
    fq_free(o);
}

/* ---- batch sizes and aliasing ------------------------------------------------- */

Test(slerp, small_odd_n_and_in_place)
{
    static const size_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 1000, 1001};
    rng_t r = rng_seed(312);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        pb_quats a = fq_alloc(n + 4), b = fq_alloc(n + 4), o = fq_alloc(n + 4);
        pb_quats a2 = fq_alloc(n + 4), b2 = fq_alloc(n + 4);
        for (size_t i = 0; i < n + 4; i++) {
            rq qa, qb;
            gen_pair(&r, 0, &qa, &qb);
            fq_set(a, i, qa);
            fq_set(b, i, qb);
            fq_set(a2, i, qa);
            fq_set(b2, i, qb);
            fq_set(o, i, rq_make(7, 7, 7, 7));
        }
        for (int nl = 0; nl < 2; nl++) {
            float t = 0.3f;
            cr_assert_eq(call(nl, n, t, a, b, 0u, o), PB_OK);
            for (size_t i = 0; i < n; i++) {
                rq ref, out = fq_get(o, i);
                double ang, ratio = check1(nl, fq_get(a, i), fq_get(b, i), t, 0, out,
                                           PB_ACCURACY_ROTATION_RAD, &ang, &ref);
                cr_expect(ratio <= 1.0, "%s n=%zu i=%zu err %.3g", nl ? "nlerp" : "slerp", n, i,
                          ang);
            }
            for (size_t i = n; i < n + 4; i++)
                cr_expect(o.w[i] == 7.0f && o.x[i] == 7.0f && o.y[i] == 7.0f && o.z[i] == 7.0f,
                          "%s n=%zu wrote element %zu", nl ? "nlerp" : "slerp", n, i);
        }
        /* in place: out == a, then out == b */
        for (int nl = 0; nl < 2; nl++)
            for (int which = 0; which < 2; which++) {
                for (size_t i = 0; i < n; i++) {
                    fq_set(a2, i, fq_get(a, i));
                    fq_set(b2, i, fq_get(b, i));
                }
                cr_assert_eq(call(nl, n, 0.7f, a2, b2, 0u, which ? b2 : a2), PB_OK);
                pb_quats res = which ? b2 : a2;
                for (size_t i = 0; i < n; i++) {
                    rq ref, out = fq_get(res, i);
                    double ang, ratio = check1(nl, fq_get(a, i), fq_get(b, i), 0.7f, 0, out,
                                               PB_ACCURACY_ROTATION_RAD, &ang, &ref);
                    cr_expect(ratio <= 1.0, "%s in place (out == %s) n=%zu i=%zu err %.3g",
                              nl ? "nlerp" : "slerp", which ? "b" : "a", n, i, ang);
                }
            }
        fq_free(a);
        fq_free(b);
        fq_free(o);
        fq_free(a2);
        fq_free(b2);
    }
    pb_cquats z = {NULL, NULL, NULL, NULL};
    pb_quats zo = {NULL, NULL, NULL, NULL};
    cr_expect_eq(pb_quat_slerp(0, 0.5f, z, z, 0u, zo), PB_OK);
    cr_expect_eq(pb_quat_nlerp(0, 0.5f, z, z, PB_LONG_PATH, zo), PB_OK);
}

/* ---- the reference itself ------------------------------------------------------ */

Test(slerp, reference_matches_sine_formula)
{
    /* ref_slerp (a exp(t log(a^-1 b'))) equals Shoemake's sine formula in double */
    rng_t r = rng_seed(313);
    for (int i = 0; i < 20000; i++) {
        rq a = rng_quat(&r), b = rng_quat(&r);
        double t = rng_range(&r, -1, 2);
        int lp = i % 2;
        rq bp = (lp ? rq_dot(a, b) > 0 : rq_dot(a, b) < 0) ? rq_neg(b) : b;
        double th = acos(fmax(-1.0, fmin(1.0, rq_dot(a, bp))));
        if (sin(th) < 1e-3)
            continue;
        rq s = rq_scale(rq_add(rq_scale(a, sin((1 - t) * th)), rq_scale(bp, sin(t * th))),
                        1.0 / sin(th));
        rq ref = ref_slerp(a, b, t, lp);
        cr_assert(rq_norm(rq_sub(s, ref)) < 1e-9, "ref_slerp differs from the sine formula: t=%g",
                  t);
    }
}
