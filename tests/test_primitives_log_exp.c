/*
 * log / to_scaled_angle_axis and exp / from_scaled_angle_axis against the
 * double reference (tests/ref.c): random inputs, tiny and huge arguments,
 * and the round trips between them. The tolerances are those of
 * prim_util.h.
 */
#include "prim_util.h"

/* ---- log / to_scaled_angle_axis ------------------------------------------- */

/* category: 0 any rotation, 1 tiny half-angle with w > 0, 2 w < 0 with a tiny
 * vector part (half-angle near pi), 3 w ~ 0 and exact special values */
static void fill_log_inputs(rng_t *r, pb_quats a, size_t n, int cat)
{
    static const int first[4] = {0, 6, 6, 8};
    static const int count[4] = {6, 2, 2, 2};
    for (size_t i = 0; i < n; i++) {
        rq q;
        int k = first[cat] + (int)(i % (size_t)count[cat]);
        if (k < 6) { /* any rotation, any sign, scale 1e-4..1e4 */
            q = rq_scale(rng_quat(r), k < 3 ? 1.0 : rng_logrange(r, 1e-4, 1e4));
        } else if (k < 8) { /* tiny half-angles 1e-30..1e-3, either sign of w */
            double h = k == 6 ? rng_logrange(r, 1e-8, 1e-3) : rng_logrange(r, 1e-30, 1e-8);
            q = rq_scale(rq_exp(rv3_scale(rng_unit3(r), h)), cat == 2 ? -1.0 : 1.0);
        } else if (k == 8) { /* near 90-degree half-angle: w ~ 0 */
            q = rq_make(rng_range(r, -1e-6, 1e-6), 0, 0, 0);
            rv3 ax = rng_unit3(r);
            q.x = ax.x;
            q.y = ax.y;
            q.z = ax.z;
        } else { /* axis-aligned, exact floats */
            switch ((i / 10) % 11) {
            case 0: q = rq_make(1, 0, 0, 0); break;
            case 1: q = rq_make(-1, 0, 0, 0); break;
            case 2: q = rq_make(0, 0, 1, 0); break;
            case 3: q = rq_make(-2, 0, 0, 0); break; /* v == 0, w < 0: log = 0 */
            case 4: q = rq_make(0.5, 0.5, 0.5, 0.5); break;
            /* vector parts down to the smallest denormal (in range) */
            case 5: q = rq_make(1, DENORM_MIN, 0, 0); break;
            case 6: q = rq_make(-1, 0, -DENORM_MIN, 0); break; /* ~ pi * axis */
            case 7: q = rq_make(-0.75, 3e-42, -1e-40, 7e-45); break;
            case 8: q = rq_make(2e-40, 0, 0, -5e-44); break;                 /* w denormal too */
            case 9: q = rq_make(1e18 * rng_sign(r), 0, 6e17, -1e-20); break; /* |v| ~ 1e18 */
            default: q = rq_make(-0.0, 0, 0, 1e-30); break;
            }
        }
        fq_set(a, i, rq_round(q));
    }
}

static void big_log_test(op_t op, uint64_t seed)
{
    static const char *cats[4] = {"any rotation, |q| 1e-4..1e4", "w > 0, half-angle 1e-30..1e-3",
                                  "w < 0, |v| 1e-30..1e-3 (half-angle ~ pi)",
                                  "w ~ 0 and exact special values"};
    static const size_t sizes[4] = {NBIG * 6 / 10, NBIG * 2 / 10, NBIG * 1 / 10, NBIG * 1 / 10};
    rng_t r = rng_seed(seed);
    for (int cat = 0; cat < 4; cat++) {
        size_t n = sizes[cat];
        pb_quats a = fq_alloc(n), b = fq_alloc(n);
        pb_vec3s v = fv_alloc(n);
        fill_log_inputs(&r, a, n, cat);
        for (size_t i = 0; i < n; i++)
            fq_set(b, i, rq_identity());
        char name[128];
        snprintf(name, sizeof name, "%s: %s", op_name[op], cats[cat]);
        check_op_and_free(name, op, n, a, b, v, 1);
    }
}

Test(primitives, log_random) { big_log_test(OP_LOG, 8); }
Test(primitives, to_scaled_angle_axis_random) { big_log_test(OP_TO_SAA, 9); }

Test(primitives, log_tiny_half_angles_relative_precision)
{
    /* half-angles 1e-8 .. 1e-3 (and down to 1e-30) at full relative precision:
     * per decade, both signs of w */
    size_t n = 27 * 64;
    rng_t r = rng_seed(10);
    for (int s = 0; s < 2; s++) {
        /* s = 0: w ~ +1 (half-angle ~ |v|); s = 1: w ~ -1 (half-angle ~ pi - |v|,
         * the tiny |v| only sets the axis) */
        pb_quats a = fq_alloc(n), b = fq_alloc(n);
        pb_vec3s v = fv_alloc(n);
        size_t i = 0;
        for (int dec = -30; dec <= -4; dec++)
            for (int k = 0; k < 64; k++) {
                double h = pow(10.0, dec + rng_uniform(&r) * 0.999);
                rq q = rq_exp(rv3_scale(rng_unit3(&r), h));
                fq_set(a, i, rq_round(s ? rq_neg(q) : q));
                fq_set(b, i, rq_identity());
                i++;
            }
        check_op_and_free(s ? "log w ~ -1, |v| 1e-30..1e-3" : "log w ~ +1, |v| 1e-30..1e-3", OP_LOG,
                          n, a, b, v, 0);
    }
}

Test(primitives, log_zero_vector_is_zero)
{
    enum { N = 5 };
    float w[N] = {1.0f, -1.0f, 3.0f, -0.25f, 1e-30f};
    float x[N] = {0.0f, 0.0f, -0.0f, 0.0f, 0.0f};
    float y[N] = {0.0f, -0.0f, 0.0f, 0.0f, 0.0f};
    float z[N] = {0.0f, 0.0f, 0.0f, -0.0f, 0.0f};
    float ox[N], oy[N], oz[N], sx[N], sy[N], sz[N];
    cr_assert_eq(pb_quat_log(N, (pb_cquats){w, x, y, z}, (pb_vec3s){ox, oy, oz}), PB_OK);
    cr_assert_eq(pb_quat_to_scaled_angle_axis(N, (pb_cquats){w, x, y, z}, (pb_vec3s){sx, sy, sz}),
                 PB_OK);
    for (int i = 0; i < N; i++) {
        cr_expect(ox[i] == 0.0f && oy[i] == 0.0f && oz[i] == 0.0f,
                  "log(%g, 0, 0, 0) = (%g, %g, %g), expected 0", w[i], ox[i], oy[i], oz[i]);
        cr_expect(sx[i] == 0.0f && sy[i] == 0.0f && sz[i] == 0.0f,
                  "to_scaled_angle_axis(%g, 0, 0, 0) = (%g, %g, %g), expected 0", w[i], sx[i],
                  sy[i], sz[i]);
    }
}

Test(primitives, to_scaled_angle_axis_range_0_to_2pi)
{
    /* w < 0 gives angles above pi (up to 2 pi); abs first gives <= pi */
    size_t n = 4096;
    rng_t r = rng_seed(11);
    pb_quats a = fq_alloc(n), ab = fq_alloc(n);
    pb_vec3s o = fv_alloc(n), o2 = fv_alloc(n);
    for (size_t i = 0; i < n; i++)
        fq_set(a, i, rq_round(rng_quat(&r)));
    cr_assert_eq(pb_quat_to_scaled_angle_axis(n, pb_cq(a), o), PB_OK);
    cr_assert_eq(pb_quat_abs(n, pb_cq(a), ab), PB_OK);
    cr_assert_eq(pb_quat_to_scaled_angle_axis(n, pb_cq(ab), o2), PB_OK);
    for (size_t i = 0; i < n; i++) {
        rq q = fq_get(a, i);
        double ang = rv3_norm(fv_get(o, i)), ang2 = rv3_norm(fv_get(o2, i));
        double want = 2.0 * atan2(rv3_norm(rq_vec(q)), q.w);
        /* 3e-7 relative to |2 log q| (the angle) */
        cr_expect(fabs(ang - want) <= 3e-7 * want && ang <= 2.0 * REF_PI * (1 + 3e-7),
                  "i=%zu q=" RQ_FMT " angle %.9g expected %.9g", i, RQ_ARG(q), ang, want);
        cr_expect(ang2 <= REF_PI * (1 + 3e-7), "i=%zu abs then angle %.9g > pi", i, ang2);
    }
    fq_free(a);
    fq_free(ab);
    fv_free(o);
    fv_free(o2);
}

/* ---- exp / from_scaled_angle_axis --------------------------------------------- */

static void big_exp_test(op_t op, uint64_t seed)
{
    /* two batches: half-angles |v| <= pi/2, and pi/2 < |v| <= 4 pi */
    size_t n = NBIG / 2;
    rng_t r = rng_seed(seed);
    double k = op == OP_EXP ? 1.0 : 2.0;
    for (int bucket = 0; bucket < 2; bucket++) {
        pb_quats a = fq_alloc(n), b = fq_alloc(n);
        pb_vec3s v = fv_alloc(n);
        for (size_t i = 0; i < n; i++) {
            rv3 h = gen_vec_exp(&r, i);
            if (i % 41 > 5) /* the random ones: magnitude per bucket */
                h = rv3_scale(rng_unit3(&r), bucket ? rng_range(&r, REF_PI / 2, 4.0 * REF_PI)
                                                    : rng_range(&r, 0.0, REF_PI / 2));
            fv_set(v, i, rv3_round(rv3_scale(h, k)));
            fq_set(a, i, rq_identity());
            fq_set(b, i, rq_identity());
        }
        char name[96];
        snprintf(name, sizeof name, "%s, half-angle %s", op_name[op],
                 bucket ? "pi/2 < |v| <= 4 pi" : "|v| <= pi/2");
        check_op_and_free(name, op, n, a, b, v, 1);
    }
}

Test(primitives, exp_random) { big_exp_test(OP_EXP, 12); }
Test(primitives, from_scaled_angle_axis_random) { big_exp_test(OP_FROM_SAA, 13); }

Test(primitives, exp_tiny_half_angles_relative_precision)
{
    size_t n = 27 * 128;
    rng_t r = rng_seed(14);
    pb_quats a = fq_alloc(n), b = fq_alloc(n);
    pb_vec3s v = fv_alloc(n);
    size_t i = 0;
    for (int dec = -30; dec <= -4; dec++)
        for (int k = 0; k < 128; k++) {
            double h = pow(10.0, dec + rng_uniform(&r) * 0.999);
            fv_set(v, i, rv3_round(rv3_scale(rng_unit3(&r), h)));
            fq_set(a, i, rq_identity());
            fq_set(b, i, rq_identity());
            i++;
        }
    check_op_and_free("exp tiny half-angles", OP_EXP, n, a, b, v, 0);
}

Test(primitives, exp_huge_vectors_stay_unit)
{
    /* 4 pi .. 2^20: angle within 3e-7 + 2^-22 |v|; 2^20 .. 1e18: unit only
     * (the angle is unspecified). |v| >= 1e18 is outside the contract. */
    size_t n = 20000;
    rng_t r = rng_seed(15);
    pb_quats a = fq_alloc(n), b = fq_alloc(n);
    pb_vec3s v = fv_alloc(n);
    for (size_t i = 0; i < n; i++) {
        double len =
            i % 2 ? rng_logrange(&r, 4.0 * REF_PI, 0x1.0p20) : rng_logrange(&r, 0x1.0p20, 0.999e18);
        fv_set(v, i, rv3_round(rv3_scale(rng_unit3(&r), len)));
        fq_set(a, i, rq_identity());
        fq_set(b, i, rq_identity());
    }
    fv_set(v, 0, rv3_make(5.7e17, 5.7e17, 5.7e17)); /* |v| ~ 9.9e17 */
    fv_set(v, 2, rv3_make(-9.9e17, 0, 1));
    fv_set(v, 4, rv3_make(1e17, 1e17, -1e17));
    fv_set(v, 6, rv3_make(0x1.0p20, 0, 0));
    pb_quats o = fq_alloc(n);
    cr_assert_eq(pb_quat_exp(n, pb_cv(v), o), PB_OK);
    ref_track tu, ta;
    rt_init(&tu, "exp huge |v| 4 pi..1e18: finite, unit to 2^-22");
    rt_init(&ta, "exp |v| 4 pi..2^20: angle <= 3e-7 + 2^-22 |v|");
    for (size_t i = 0; i < n; i++) {
        rv3 vv = fv_get(v, i);
        rq out = fq_get(o, i), ref = rq_exp(vv);
        double len = rv3_norm(vv);
        double en = rq_isfinite(out) ? fabs(rq_norm(out) - 1.0) : INFINITY;
        if (rt_add(&tu, i, en, en / 0x1.0p-22))
            rt_note(&tu, "v=" RV_FMT " |v|=%.6g out=" RQ_FMT " |out|-1=%.3g", RV_ARG(vv), len,
                    RQ_ARG(out), rq_norm(out) - 1.0);
        if (len < 0x1.0p20) {
            double ang = rq_angle_between(ref, out);
            if (rt_add(&ta, i, ang, ang / exp_tol(len)))
                rt_note(&ta,
                        "v=" RV_FMT " |v|=%.9g out=" RQ_FMT " ref=" RQ_FMT
                        " rot.angle err=%.3g (4D %.3g)",
                        RV_ARG(vv), len, RQ_ARG(out), RQ_ARG(ref), ang, rq_angle4(ref, out));
        }
    }
    RT_EXPECT(tu);
    RT_EXPECT(ta);
    fq_free(o);
    fq_free(a);
    fq_free(b);
    fv_free(v);
}

/* Composed bounds for the round trips (from the log and exp bounds above):
 * exp(log q) vs q, h = |log q| the half-angle: log is off by at most 3e-7 h,
 * which moves exp's result by at most twice that in rotation angle (exp is
 * 1-Lipschitz onto the sphere, rotation angle = 2 x the sphere distance), plus
 * exp's own 3e-7 + 2^-22 |v| at the computed |v| <= h (1 + 3e-7). The same
 * holds for from_saa(to_saa q) (the scaled forms are exact doublings). */
static double roundtrip_exp_log_tol(double h) { return 2.0 * 3e-7 * h + exp_tol(h * (1.0 + 3e-7)); }
/* log(exp v) vs v, relative to h = |v| (h < pi): exp's rotation-angle error d
 * is a sphere distance d / 2, which log maps with Lipschitz constant
 * L = h' / sin h' (h' = h + d / 2, the tangential stretch of log); then log's
 * own 3e-7 relative. For 1e-8 <= h < 1e-3 exp's vector part is within 3e-7
 * relative and its w within the unit-norm bound 2^-22, so log(exp v) is within
 * (3e-7 + 2^-22) h before log's own 3e-7. */
static double roundtrip_log_exp_rel_tol(double h)
{
    double d = exp_tol(h), hp = h + d / 2.0, L = hp / sin(hp);
    double a = L * d / 2.0;
    if (h >= 1e-8 && h < 1e-3)
        a = fmin(a, (3e-7 + 0x1.0p-22) * h);
    return (a + 3e-7 * (h + a)) / h;
}

Test(primitives, exp_log_round_trips)
{
    size_t n = NBIG;
    rng_t r = rng_seed(16);
    pb_quats q = fq_alloc(n), q2 = fq_alloc(n), e = fq_alloc(n);
    pb_vec3s l = fv_alloc(n), v = fv_alloc(n), l2 = fv_alloc(n);
    for (size_t i = 0; i < n; i++) {
        fq_set(q, i, rq_round(rng_quat(&r)));
        /* |v| in [1e-8, 2.5] (log returns half-angles in [0, pi]; near pi the
         * vector part of exp(v) is small and the round trip loses digits) */
        double len = i % 3 ? rng_range(&r, 1e-3, 2.5) : rng_logrange(&r, 1e-8, 1.0);
        fv_set(v, i, rv3_round(rv3_scale(rng_unit3(&r), len)));
    }
    cr_assert_eq(pb_quat_log(n, pb_cq(q), l), PB_OK);
    cr_assert_eq(pb_quat_exp(n, pb_cv(l), q2), PB_OK);
    cr_assert_eq(pb_quat_exp(n, pb_cv(v), e), PB_OK);
    cr_assert_eq(pb_quat_log(n, pb_cq(e), l2), PB_OK);
    ref_track t1, t2;
    rt_init(&t1, "exp(log(q)) vs q [rad, composed tol]");
    rt_init(&t2, "log(exp(v)) vs v [rel, composed tol]");
    for (size_t i = 0; i < n; i++) {
        rq a = fq_get(q, i), b = fq_get(q2, i);
        double ang = rq_angle_between(a, b);
        /* also the sign: exp(log q) = q/|q| (same hemisphere) */
        double ratio = ang / roundtrip_exp_log_tol(rv3_norm(rq_log(a)));
        if (rq_dot(a, b) <= 0.0 && fabs(a.w) > 1e-3)
            ratio = INFINITY;
        if (rt_add(&t1, i, ang, ratio))
            rt_note(&t1, "q=" RQ_FMT " exp(log q)=" RQ_FMT " angle %.3g", RQ_ARG(a), RQ_ARG(b),
                    ang);
        rv3 vv = fv_get(v, i), back = fv_get(l2, i);
        double rel = rv3_dist(vv, back) / rv3_norm(vv);
        if (rt_add(&t2, i, rel, rel / roundtrip_log_exp_rel_tol(rv3_norm(vv))))
            rt_note(&t2, "v=" RV_FMT " log(exp v)=" RV_FMT " rel %.3g", RV_ARG(vv), RV_ARG(back),
                    rel);
    }
    RT_EXPECT(t1);
    RT_EXPECT(t2);
    fq_free(q);
    fq_free(q2);
    fq_free(e);
    fv_free(l);
    fv_free(v);
    fv_free(l2);
}

Test(primitives, scaled_angle_axis_round_trip)
{
    /* from_scaled_angle_axis(to_scaled_angle_axis(abs q)) == abs q */
    size_t n = 10007;
    rng_t r = rng_seed(17);
    pb_quats q = fq_alloc(n), qa = fq_alloc(n), back = fq_alloc(n);
    pb_vec3s s = fv_alloc(n);
    for (size_t i = 0; i < n; i++)
        fq_set(q, i, rq_round(rng_quat(&r)));
    cr_assert_eq(pb_quat_abs(n, pb_cq(q), qa), PB_OK);
    cr_assert_eq(pb_quat_to_scaled_angle_axis(n, pb_cq(qa), s), PB_OK);
    cr_assert_eq(pb_quat_from_scaled_angle_axis(n, pb_cv(s), back), PB_OK);
    ref_track t;
    rt_init(&t, "from_saa(to_saa(abs q)) vs abs q [rad, composed tol]");
    for (size_t i = 0; i < n; i++) {
        rq a = fq_get(qa, i), b = fq_get(back, i);
        double ang = rq_angle_between(a, b);
        double ratio = ang / roundtrip_exp_log_tol(rv3_norm(rq_log(a)));
        if (rq_dot(a, b) <= 0.0 && fabs(a.w) > 1e-3)
            ratio = INFINITY;
        if (rt_add(&t, i, ang, ratio))
            rt_note(&t, "q=" RQ_FMT " back=" RQ_FMT, RQ_ARG(a), RQ_ARG(b));
    }
    RT_EXPECT(t);
    fq_free(q);
    fq_free(qa);
    fq_free(back);
    fv_free(s);
}
