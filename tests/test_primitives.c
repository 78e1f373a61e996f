/*
 * Quaternion batch primitives against the double reference (tests/ref.c).
 *
 * Tolerances are the header's (include/posebatch.h), never widened:
 *   mul / mul_inv / inv_mul: "exact to float rounding (a few ulp per
 *       component)": |out_c - ref_c| <= 8 u |a||b| (u = 2^-24; 8 u bounds the
 *       rounding of a 4-term dot product) plus 8 denormal units;
 *   abs, unroll: exact (bitwise);
 *   normalize: norm within 2^-22 of 1; direction within the rotation accuracy
 *       2e-6 rad; zero -> (1,0,0,0); Inf/NaN -> NaN;
 *   log / to_scaled_angle_axis: 3e-7 relative to |log q| for vector parts
 *       from the smallest denormal up to 1e18 (plus half a float ulp of the
 *       result per component where the result itself is denormal: the output
 *       cannot be represented closer); v == 0 gives exactly 0;
 *   exp / from_scaled_angle_axis (= exp(v / 2)): unit to 2^-22 for finite
 *       |v| < 1e18; rotation angle of ref^-1 out within 3e-7 + 2^-22 |v| rad
 *       (|v| the half-angle vector's norm) for |v| < 2^20, unspecified above;
 *       for half-angles 1e-8 <= |v| < 1e-3 the vector part is also held to
 *       3e-7 relative (the header's "half-angles from 1e-8 rad up are
 *       resolved to full relative precision", at log's relative accuracy);
 *   round trips (exp(log q), log(exp v), from_saa(to_saa q)): the bounds
 *       above composed (see the tests);
 *   delta_to_angular_velocity: "float rounding only": 32 u |ref||delta|.
 * Set POSEBATCH_TEST_VERBOSE=1 to print the max errors of every check.
 */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"
#include "ref.h"

#define U24 REF_U24
#define DENORM_MIN 1.4012984643248171e-45 /* 2^-149 */
#define NBIG 100000
#define GUARD 8
#define SENTINEL 12345.5f

/* Criterion check of a tracker: every case within tolerance. */

/* ---- batches with guard elements (detect writes past n) ------------------- */

static float *galloc(size_t n)
{
    float *p = malloc((n + GUARD) * sizeof(float));
    if (!p)
        abort();
    for (size_t i = 0; i < n + GUARD; i++)
        p[i] = SENTINEL;
    return p;
}
static pb_quats gq_alloc(size_t n)
{
    pb_quats q = {galloc(n), galloc(n), galloc(n), galloc(n)};
    return q;
}
static pb_vec3s gv_alloc(size_t n)
{
    pb_vec3s v = {galloc(n), galloc(n), galloc(n)};
    return v;
}
static int guard_ok(const float *p, size_t n)
{
    for (size_t i = n; i < n + GUARD; i++)
        if (p[i] != SENTINEL)
            return 0;
    return 1;
}
static int gq_guard_ok(pb_quats q, size_t n)
{
    return guard_ok(q.w, n) && guard_ok(q.x, n) && guard_ok(q.y, n) && guard_ok(q.z, n);
}
static int gv_guard_ok(pb_vec3s v, size_t n)
{
    return guard_ok(v.x, n) && guard_ok(v.y, n) && guard_ok(v.z, n);
}

static double qmaxdiff(rq a, rq b)
{
    double m = fabs(a.w - b.w);
    if (fabs(a.x - b.x) > m)
        m = fabs(a.x - b.x);
    if (fabs(a.y - b.y) > m)
        m = fabs(a.y - b.y);
    if (fabs(a.z - b.z) > m)
        m = fabs(a.z - b.z);
    if (isnan(a.w) || isnan(a.x) || isnan(a.y) || isnan(a.z))
        m = INFINITY;
    return m;
}

static int rq_isfinite(rq q)
{
    return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z);
}

/* ---- input generators ------------------------------------------------------ */

/* Mixed quaternions: mostly uniform unit, some scaled, some special. */
static rq gen_quat_mixed(rng_t *r, size_t i)
{
    switch (i % 53) {
    case 0: return rq_identity();
    case 1: return rq_make(-1, 0, 0, 0);
    case 2: return rq_make(0, 1, 0, 0);
    case 3: return rq_make(0, 0, 0, -1);
    case 4: return rq_make(0.5, -0.5, 0.5, -0.5);
    case 5: { /* tiny half-angle */
        rv3 ax = rng_unit3(r);
        return rq_round(rq_exp(rv3_scale(ax, rng_logrange(r, 1e-8, 1e-3))));
    }
    case 6: /* scaled */ return rq_round(rq_scale(rng_quat(r), rng_logrange(r, 1e-3, 1e3)));
    case 7: /* denormal components */ return rq_make(1.0, 1e-40 * rng_sign(r), 3e-42, -7e-45);
    default: return rq_round(rng_quat(r));
    }
}

/* fill a with mixed quaternions and b with a partner: random, antipodal,
 * 180 degrees away, identical, or near */
static void fill_pairs(rng_t *r, pb_quats a, pb_quats b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rq qa = gen_quat_mixed(r, i), qb;
        switch (i % 11) {
        case 0: qb = rq_neg(qa); break;
        case 1: qb = qa; break;
        case 2: qb = rq_mul(qa, rq_make(0, 0, 1, 0)); break; /* 180-degree delta */
        case 3: qb = rng_quat_near(r, qa, rng_logrange(r, 1e-8, 1e-2)); break;
        default: qb = gen_quat_mixed(r, i * 7 + 3); break;
        }
        fq_set(a, i, qa);
        fq_set(b, i, rq_round(qb));
    }
}

/* ---- the primitives as ops (shared by the big and the small-n tests) ------ */

typedef enum {
    OP_MUL,
    OP_MUL_INV,
    OP_INV_MUL,
    OP_ABS,
    OP_NORMALIZE,
    OP_LOG,
    OP_EXP,
    OP_TO_SAA,
    OP_FROM_SAA,
    OP_DELTA,
    OP_COUNT
} op_t;

static const char *op_name[OP_COUNT] = {"mul",
                                        "mul_inv",
                                        "inv_mul",
                                        "abs",
                                        "normalize",
                                        "log",
                                        "exp",
                                        "to_scaled_angle_axis",
                                        "from_scaled_angle_axis",
                                        "delta_to_angular_velocity"};

static pb_status run_op(op_t op, size_t n, pb_quats a, pb_quats b, pb_vec3s v, pb_quats oq,
                        pb_vec3s ov)
{
    switch (op) {
    case OP_MUL: return pb_quat_mul(n, pb_cq(a), pb_cq(b), oq);
    case OP_MUL_INV: return pb_quat_mul_inv(n, pb_cq(a), pb_cq(b), oq);
    case OP_INV_MUL: return pb_quat_inv_mul(n, pb_cq(a), pb_cq(b), oq);
    case OP_ABS: return pb_quat_abs(n, pb_cq(a), oq);
    case OP_NORMALIZE: return pb_quat_normalize(n, pb_cq(a), oq);
    case OP_LOG: return pb_quat_log(n, pb_cq(a), ov);
    case OP_EXP: return pb_quat_exp(n, pb_cv(v), oq);
    case OP_TO_SAA: return pb_quat_to_scaled_angle_axis(n, pb_cq(a), ov);
    case OP_FROM_SAA: return pb_quat_from_scaled_angle_axis(n, pb_cv(v), oq);
    case OP_DELTA: return pb_quat_delta_to_angular_velocity(n, pb_cq(a), pb_cq(b), ov);
    default: return PB_ERR_ARG;
    }
}

static int op_vec_out(op_t op) { return op == OP_LOG || op == OP_TO_SAA || op == OP_DELTA; }

/* exp error bound (rotation angle, rad) for |v| (the half-angle vector) */
static double exp_tol(double len) { return 3e-7 + 0x1.0p-22 * len; }

/* Checks element i of op; returns the ratio err/tol (ok iff <= 1), sets *err.
 * Writes a description into buf. */
static double check_op(op_t op, size_t i, pb_quats a, pb_quats b, pb_vec3s v, pb_quats oq,
                       pb_vec3s ov, double *err, char *buf, size_t bufn)
{
    rq qa = fq_get(a, i), qb = fq_get(b, i);
    rv3 vv = fv_get(v, i);
    double e = 0.0, tol = 1.0, ratio;
    switch (op) {
    case OP_MUL:
    case OP_MUL_INV:
    case OP_INV_MUL: {
        rq ref = op == OP_MUL       ? rq_mul(qa, qb)
                 : op == OP_MUL_INV ? rq_mul_inv(qa, qb)
                                    : rq_inv_mul(qa, qb);
        rq out = fq_get(oq, i);
        e = qmaxdiff(out, ref);
        tol = 8.0 * U24 * rq_norm(qa) * rq_norm(qb) + 8.0 * DENORM_MIN;
        snprintf(buf, bufn, "a=" RQ_FMT " b=" RQ_FMT " out=" RQ_FMT " ref=" RQ_FMT, RQ_ARG(qa),
                 RQ_ARG(qb), RQ_ARG(out), RQ_ARG(ref));
        break;
    }
    case OP_ABS: {
        rq out = fq_get(oq, i);
        rq ref = rq_abs(qa);
        /* exact, including the sign of zeros */
        int same = memcmp(&(float){(float)out.w}, &(float){(float)ref.w}, sizeof(float)) == 0 &&
                   memcmp(&(float){(float)out.x}, &(float){(float)ref.x}, sizeof(float)) == 0 &&
                   memcmp(&(float){(float)out.y}, &(float){(float)ref.y}, sizeof(float)) == 0 &&
                   memcmp(&(float){(float)out.z}, &(float){(float)ref.z}, sizeof(float)) == 0;
        e = same ? 0.0 : 1.0;
        tol = 0.5;
        snprintf(buf, bufn, "q=" RQ_FMT " out=" RQ_FMT " ref=" RQ_FMT " (bitwise)", RQ_ARG(qa),
                 RQ_ARG(out), RQ_ARG(ref));
        break;
    }
    case OP_NORMALIZE: {
        rq out = fq_get(oq, i);
        double nin = rq_norm(qa);
        if (nin == 0.0) {
            e = (out.w == 1.0 && out.x == 0.0 && out.y == 0.0 && out.z == 0.0) ? 0.0 : 1.0;
            tol = 0.5;
        } else {
            double en = fabs(rq_norm(out) - 1.0) / 0x1.0p-22;
            double ea = rq_angle_between(qa, out) / PB_ACCURACY_ROTATION_RAD;
            /* sign preserved: out is q/|q|, not -q/|q| */
            double es = rq_dot(out, qa) > 0.0 ? 0.0 : INFINITY;
            e = rq_angle_between(qa, out);
            ratio = fmax(fmax(en, ea), es);
            snprintf(buf, bufn, "q=" RQ_FMT " |q|=%.6g out=" RQ_FMT " |out|-1=%.3g angle=%.3g",
                     RQ_ARG(qa), nin, RQ_ARG(out), rq_norm(out) - 1.0, e);
            if (!rq_isfinite(out))
                ratio = INFINITY;
            *err = e;
            return ratio;
        }
        snprintf(buf, bufn, "q=" RQ_FMT " out=" RQ_FMT " (zero -> identity)", RQ_ARG(qa),
                 RQ_ARG(out));
        break;
    }
    case OP_LOG:
    case OP_TO_SAA: {
        double k = op == OP_LOG ? 1.0 : 2.0;
        rv3 ref = rv3_scale(rq_log(qa), k);
        rv3 out = fv_get(ov, i);
        e = rv3_dist(out, ref);
        if (rv3_norm(rq_vec(qa)) > 0.0) {
            /* 3e-7 relative, for any vector part from the smallest denormal
             * up; a denormal result component can only be as close as half
             * its ulp (2^-150) */
            tol = 3e-7 * rv3_norm(ref);
            if (fabs(ref.x) < FLT_MIN || fabs(ref.y) < FLT_MIN || fabs(ref.z) < FLT_MIN)
                tol += sqrt(3.0) * 0.5 * DENORM_MIN;
        } else {
            tol = DBL_MIN; /* v == 0: exactly 0 */
        }
        snprintf(buf, bufn, "q=" RQ_FMT " out=" RV_FMT " ref=" RV_FMT " rel=%.3g", RQ_ARG(qa),
                 RV_ARG(out), RV_ARG(ref), e / rv3_norm(ref));
        break;
    }
    case OP_EXP:
    case OP_FROM_SAA: {
        rv3 h = op == OP_EXP ? vv : rv3_scale(vv, 0.5); /* half-angle vector */
        rq ref = rq_exp(h);
        rq out = fq_get(oq, i);
        double len = rv3_norm(h);
        double en = fabs(rq_norm(out) - 1.0) / 0x1.0p-22;
        double ang = rq_angle_between(ref, out);
        double ea;
        if (len >= 0x1.0p20) {
            ea = 0.0; /* angle unspecified, unit result */
        } else if (len >= 1e-8 && len < 1e-3) {
            /* tiny: the angle bound and full relative precision of the vector
             * part (3e-7 relative); w is covered by the norm check */
            double ev = rv3_dist(rq_vec(out), rq_vec(ref)) / (3e-7 * len);
            ea = fmax(ev, ang / exp_tol(len));
        } else {
            ea = ang / exp_tol(len);
        }
        e = ang;
        ratio = fmax(en, ea);
        if (!rq_isfinite(out))
            ratio = INFINITY;
        snprintf(buf, bufn,
                 "v=" RV_FMT " |half-angle|=%.9g out=" RQ_FMT " ref=" RQ_FMT
                 " rot.angle err=%.3g (4D %.3g) |out|-1=%.3g",
                 RV_ARG(vv), len, RQ_ARG(out), RQ_ARG(ref), ang, rq_angle4(ref, out),
                 rq_norm(out) - 1.0);
        *err = e;
        return ratio;
    }
    case OP_DELTA: {
        rv3 ref = ref_delta_to_angular_velocity(qa, qb);
        rv3 out = fv_get(ov, i);
        e = rv3_dist(out, ref);
        tol = 32.0 * U24 * rq_norm(qa) * rq_norm(qb) + 8.0 * DENORM_MIN;
        snprintf(buf, bufn, "ref=" RQ_FMT " delta=" RQ_FMT " out=" RV_FMT " expected=" RV_FMT,
                 RQ_ARG(qa), RQ_ARG(qb), RV_ARG(out), RV_ARG(ref));
        break;
    }
    default: break;
    }
    *err = e;
    ratio = e / tol;
    return ratio;
}

/* run op over n elements and check every element + guards */
static void run_and_check(op_t op, size_t n, pb_quats a, pb_quats b, pb_vec3s v, ref_track *t,
                          int guards)
{
    pb_quats oq = gq_alloc(n);
    pb_vec3s ov = gv_alloc(n);
    pb_status st = run_op(op, n, a, b, v, oq, ov);
    cr_expect(st == PB_OK, "%s n=%zu returned %d", op_name[op], n, (int)st);
    if (st == PB_OK) {
        char buf[900];
        for (size_t i = 0; i < n; i++) {
            double err, ratio = check_op(op, i, a, b, v, oq, ov, &err, buf, sizeof buf);
            if (rt_add(t, i, err, ratio))
                rt_note(t, "n=%zu i=%zu %s", n, i, buf);
        }
        if (guards) {
            if (op_vec_out(op))
                cr_expect(gv_guard_ok(ov, n), "%s n=%zu wrote past n", op_name[op], n);
            else
                cr_expect(gq_guard_ok(oq, n), "%s n=%zu wrote past n", op_name[op], n);
        }
    }
    fq_free(oq);
    fv_free(ov);
}

/* ---- random vec3 inputs for exp ---------------------------------------- */

static rv3 gen_vec_exp(rng_t *r, size_t i)
{
    switch (i % 41) {
    case 0: return rv3_make(0, 0, 0);
    case 1: return rv3_scale(rng_unit3(r), rng_logrange(r, 1e-30, 1e-3));
    case 2: return rv3_scale(rng_unit3(r), rng_logrange(r, 1e-8, 1e-3));
    case 3: return rv3_make(REF_PI / 2, 0, 0);
    case 4: return rv3_make(0, -REF_PI, 0);
    case 5: return rv3_make(1e-40, -2e-42, 0);
    default: return rng_ball3(r, 4.0 * REF_PI);
    }
}

/* ---- n = 0 ------------------------------------------------------------------ */

Test(primitives, n_zero_null_pointers)
{
    pb_cquats cq0 = {NULL, NULL, NULL, NULL};
    pb_quats q0 = {NULL, NULL, NULL, NULL};
    pb_cvec3s cv0 = {NULL, NULL, NULL};
    pb_vec3s v0 = {NULL, NULL, NULL};
    cr_expect_eq(pb_quat_mul(0, cq0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_mul_inv(0, cq0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_inv_mul(0, cq0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_abs(0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_normalize(0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_log(0, cq0, v0), PB_OK);
    cr_expect_eq(pb_quat_exp(0, cv0, q0), PB_OK);
    cr_expect_eq(pb_quat_to_scaled_angle_axis(0, cq0, v0), PB_OK);
    cr_expect_eq(pb_quat_from_scaled_angle_axis(0, cv0, q0), PB_OK);
    cr_expect_eq(pb_quat_unroll(0, 0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_delta_to_angular_velocity(0, cq0, cq0, v0), PB_OK);
}

/* n = 0 with real arrays writes nothing */
Test(primitives, n_zero_writes_nothing)
{
    pb_quats a = gq_alloc(0), b = gq_alloc(0), oq = gq_alloc(0);
    pb_vec3s v = gv_alloc(0), ov = gv_alloc(0);
    for (int op = 0; op < OP_COUNT; op++) {
        cr_expect_eq(run_op((op_t)op, 0, a, b, v, oq, ov), PB_OK, "%s", op_name[op]);
        cr_expect(gq_guard_ok(oq, 0) && gv_guard_ok(ov, 0), "%s n=0 wrote", op_name[op]);
    }
    cr_expect_eq(pb_quat_unroll(0, 5, pb_cq(a), oq), PB_OK);
    cr_expect_eq(pb_quat_unroll(5, 0, pb_cq(a), oq), PB_OK);
    cr_expect(gq_guard_ok(oq, 0), "unroll with 0 elements wrote");
    fq_free(a);
    fq_free(b);
    fq_free(oq);
    fv_free(v);
    fv_free(ov);
}

/* ---- every primitive over sizes around the lane widths (tails) ------------ */

Test(primitives, small_and_odd_n_tails)
{
    static const size_t sizes[] = {1,  2,  3,  4,  5,  7,  8,  9,    15,
                                   16, 17, 31, 32, 33, 63, 65, 1000, 1001};
    rng_t r = rng_seed(101);
    for (int op = 0; op < OP_COUNT; op++) {
        ref_track t;
        rt_init(&t, op_name[op]);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            pb_quats a = fq_alloc(n), b = fq_alloc(n);
            pb_vec3s v = fv_alloc(n);
            fill_pairs(&r, a, b, n);
            for (size_t i = 0; i < n; i++)
                fv_set(v, i, gen_vec_exp(&r, i + 9));
            if (op == OP_DELTA) /* delta: any 4-vector */
                for (size_t i = 0; i < n; i++)
                    fq_set(b, i, rq_round(rng_quat(&r)));
            run_and_check((op_t)op, n, a, b, v, &t, 1);
            fq_free(a);
            fq_free(b);
            fv_free(v);
        }
        RT_EXPECT(t);
    }
}

/* ---- mul family ------------------------------------------------------------ */

static void big_mul_test(op_t op, uint64_t seed)
{
    size_t n = NBIG;
    rng_t r = rng_seed(seed);
    pb_quats a = fq_alloc(n), b = fq_alloc(n);
    pb_vec3s v = fv_alloc(n);
    fill_pairs(&r, a, b, n);
    for (size_t i = 0; i < n; i++)
        fv_set(v, i, rv3_make(0, 0, 0));
    ref_track t;
    rt_init(&t, op_name[op]);
    run_and_check(op, n, a, b, v, &t, 1);
    RT_EXPECT(t);
    fq_free(a);
    fq_free(b);
    fv_free(v);
}

Test(primitives, mul_random) { big_mul_test(OP_MUL, 1); }
Test(primitives, mul_inv_random) { big_mul_test(OP_MUL_INV, 2); }
Test(primitives, inv_mul_random) { big_mul_test(OP_INV_MUL, 3); }

Test(primitives, mul_identities)
{
    /* q q^-1 = identity; antipodal a b with b = -a^-1 gives -identity */
    size_t n = 1001;
    rng_t r = rng_seed(4);
    pb_quats a = fq_alloc(n), oq = fq_alloc(n), o2 = fq_alloc(n);
    for (size_t i = 0; i < n; i++)
        fq_set(a, i, rq_round(rng_quat(&r)));
    cr_assert_eq(pb_quat_mul_inv(n, pb_cq(a), pb_cq(a), oq), PB_OK);
    cr_assert_eq(pb_quat_inv_mul(n, pb_cq(a), pb_cq(a), o2), PB_OK);
    for (size_t i = 0; i < n; i++) {
        rq qa = fq_get(a, i), p = fq_get(oq, i), p2 = fq_get(o2, i);
        double nn = rq_dot(qa, qa);
        double tol = 8.0 * U24 * nn;
        cr_expect(fabs(p.w - nn) <= tol && fabs(p.x) <= tol && fabs(p.y) <= tol && fabs(p.z) <= tol,
                  "mul_inv(a, a) i=%zu a=" RQ_FMT " got " RQ_FMT, i, RQ_ARG(qa), RQ_ARG(p));
        cr_expect(fabs(p2.w - nn) <= tol && fabs(p2.x) <= tol && fabs(p2.y) <= tol &&
                      fabs(p2.z) <= tol,
                  "inv_mul(a, a) i=%zu a=" RQ_FMT " got " RQ_FMT, i, RQ_ARG(qa), RQ_ARG(p2));
    }
    fq_free(a);
    fq_free(oq);
    fq_free(o2);
}

Test(primitives, mul_in_place)
{
    /* out may be exactly a or exactly b */
    size_t n = 1001;
    rng_t r = rng_seed(5);
    pb_quats a = fq_alloc(n), b = fq_alloc(n), a0 = fq_alloc(n), b0 = fq_alloc(n);
    for (int op = OP_MUL; op <= OP_INV_MUL; op++) {
        for (int which = 0; which < 2; which++) {
            for (size_t i = 0; i < n; i++) {
                rq qa = rq_round(rng_quat(&r)), qb = rq_round(rng_quat(&r));
                fq_set(a, i, qa);
                fq_set(b, i, qb);
                fq_set(a0, i, qa);
                fq_set(b0, i, qb);
            }
            pb_quats out = which ? b : a;
            pb_status st = op == OP_MUL       ? pb_quat_mul(n, pb_cq(a), pb_cq(b), out)
                           : op == OP_MUL_INV ? pb_quat_mul_inv(n, pb_cq(a), pb_cq(b), out)
                                              : pb_quat_inv_mul(n, pb_cq(a), pb_cq(b), out);
            cr_assert_eq(st, PB_OK);
            for (size_t i = 0; i < n; i++) {
                rq qa = fq_get(a0, i), qb = fq_get(b0, i);
                rq ref = op == OP_MUL       ? rq_mul(qa, qb)
                         : op == OP_MUL_INV ? rq_mul_inv(qa, qb)
                                            : rq_inv_mul(qa, qb);
                rq got = fq_get(out, i);
                cr_expect(qmaxdiff(got, ref) <= 8.0 * U24,
                          "%s in place (out == %s) i=%zu a=" RQ_FMT " b=" RQ_FMT " got " RQ_FMT
                          " ref " RQ_FMT,
                          op_name[op], which ? "b" : "a", i, RQ_ARG(qa), RQ_ARG(qb), RQ_ARG(got),
                          RQ_ARG(ref));
            }
        }
    }
    fq_free(a);
    fq_free(b);
    fq_free(a0);
    fq_free(b0);
}

/* In place at every count 1..40: each tail length of every lane width, as
 * the first block and after whole blocks (a tail load that reads the whole
 * vector ending at the array's end sees the previous block's outputs there
 * and must discard them): bitwise the out-of-place result. */
Test(primitives, mul_in_place_every_tail)
{
    rng_t r = rng_seed(55);
    for (size_t n = 1; n <= 40; n++) {
        pb_quats a = fq_alloc(n), b = fq_alloc(n), want = fq_alloc(n);
        for (size_t i = 0; i < n; i++) {
            fq_set(a, i, rq_round(rng_quat(&r)));
            fq_set(b, i, rq_round(rng_quat(&r)));
        }
        cr_assert_eq(pb_quat_mul(n, pb_cq(a), pb_cq(b), want), PB_OK);
        cr_assert_eq(pb_quat_mul(n, pb_cq(a), pb_cq(b), a), PB_OK);
        size_t bad = fq_first_diff(a, want, n);
        cr_expect(bad == n, "mul in place, n = %zu: element %zu differs from out of place", n, bad);
        fq_free(a);
        fq_free(b);
        fq_free(want);
    }
}

/* ---- abs --------------------------------------------------------------- */

Test(primitives, abs_random_and_signed_zero)
{
    size_t n = NBIG;
    rng_t r = rng_seed(6);
    pb_quats a = fq_alloc(n), b = fq_alloc(n);
    pb_vec3s v = fv_alloc(n);
    fill_pairs(&r, a, b, n);
    /* signed zeros in w, and in the other components */
    for (size_t i = 0; i < n; i += 97) {
        a.w[i] = (i / 97) % 2 ? -0.0f : 0.0f;
        a.y[i] = (i / 194) % 2 ? -0.0f : 0.0f;
    }
    ref_track t;
    rt_init(&t, "abs");
    run_and_check(OP_ABS, n, a, b, v, &t, 1);
    RT_EXPECT(t);
    /* explicit: w == -0 counts as negative, w == +0 does not */
    float w[2] = {-0.0f, 0.0f}, x[2] = {0.6f, 0.6f}, y[2] = {-0.8f, -0.8f}, z[2] = {0.0f, -0.0f};
    float ow[2], ox[2], oy[2], oz[2];
    pb_cquats q = {w, x, y, z};
    pb_quats o = {ow, ox, oy, oz};
    cr_assert_eq(pb_quat_abs(2, q, o), PB_OK);
    cr_expect(!signbit(ow[0]) && ox[0] == -0.6f && oy[0] == 0.8f && signbit(oz[0]),
              "abs(-0, 0.6, -0.8, 0) = (%g, %g, %g, %g), expected (0, -0.6, 0.8, -0)", ow[0], ox[0],
              oy[0], oz[0]);
    cr_expect(!signbit(ow[1]) && ox[1] == 0.6f && oy[1] == -0.8f && signbit(oz[1]),
              "abs(+0, 0.6, -0.8, -0) = (%g, %g, %g, %g), expected unchanged", ow[1], ox[1], oy[1],
              oz[1]);
    /* in place */
    cr_assert_eq(pb_quat_abs(2, q, (pb_quats){w, x, y, z}), PB_OK);
    cr_expect(!signbit(w[0]) && x[0] == -0.6f && !signbit(w[1]) && x[1] == 0.6f, "abs in place");
    fq_free(a);
    fq_free(b);
    fv_free(v);
}

/* ---- normalize ----------------------------------------------------------- */

Test(primitives, normalize_random_norms_1em18_to_1e18)
{
    size_t n = NBIG;
    rng_t r = rng_seed(7);
    pb_quats a = fq_alloc(n), b = fq_alloc(n);
    pb_vec3s v = fv_alloc(n);
    for (size_t i = 0; i < n; i++) {
        rq q = rng_quat(&r);
        if (i % 5 == 0) /* components of very different magnitudes */
            q = rq_make(q.w, q.x * 1e-6, q.y * 1e-12, q.z);
        double s = rng_logrange(&r, 1e-18, 1e18) / rq_norm(q); /* |q| in [1e-18, 1e18] */
        if (i % 7 == 0)
            s = 1.0;
        fq_set(a, i, rq_round(rq_scale(q, s)));
        fq_set(b, i, rq_identity());
    }
    /* a few hand-picked extremes */
    fq_set(a, 0, rq_make(1e-18, 0, 0, 0));
    fq_set(a, 1, rq_make(0, 0, 0, -1e18));
    fq_set(a, 2, rq_make(1e18, 1e18, 1e18, 1e18));
    fq_set(a, 3, rq_make(1e-18, -1e-18, 1e-18, 1e-18));
    fq_set(a, 4, rq_make(0, 0, 0, 0));
    fq_set(a, 5, rq_make(-0.0, -0.0, 0, -0.0));
    fq_set(a, 6, rq_make(7e17, -7e17, 1e10, 1e-10));    /* |q| ~ 1e18 */
    fq_set(a, 7, rq_make(5e-19, 1e-25, -8e-19, 1e-30)); /* |q| ~ 1e-18 */
    ref_track t;
    rt_init(&t, "normalize");
    run_and_check(OP_NORMALIZE, n, a, b, v, &t, 1);
    RT_EXPECT(t);
    fq_free(a);
    fq_free(b);
    fv_free(v);
}

Test(primitives, normalize_special_values)
{
    enum { N = 9 };
    float w[N] = {0.0f, -0.0f, INFINITY, NAN, 1e-40f, 1.4e-45f, 0.0f, 1.0f, -INFINITY};
    float x[N] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.4e-45f, 1e-42f, NAN, 1.0f};
    float y[N] = {0.0f, -0.0f, 0.0f, 0.0f, 1e-40f, 0.0f, 0.0f, 0.0f, 0.0f};
    float z[N] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    float ow[N], ox[N], oy[N], oz[N];
    cr_assert_eq(pb_quat_normalize(N, (pb_cquats){w, x, y, z}, (pb_quats){ow, ox, oy, oz}), PB_OK);
    for (int i = 0; i < 2; i++)
        cr_expect(ow[i] == 1.0f && ox[i] == 0.0f && oy[i] == 0.0f && oz[i] == 0.0f,
                  "normalize(zero #%d) = (%g, %g, %g, %g), expected identity", i, ow[i], ox[i],
                  oy[i], oz[i]);
    int specials[] = {2, 3, 7, 8};
    for (int k = 0; k < 4; k++) {
        int i = specials[k];
        cr_expect(isnan(ow[i]) || isnan(ox[i]) || isnan(oy[i]) || isnan(oz[i]),
                  "normalize(Inf/NaN #%d: %g %g %g %g) = (%g, %g, %g, %g), expected NaN", i, w[i],
                  x[i], y[i], z[i], ow[i], ox[i], oy[i], oz[i]);
    }
    /* denormal norms (below the documented 1e-18): finite and unit either way
     * (the direction, or the identity if the norm underflows to zero) */
    for (int i = 4; i <= 6; i++) {
        rq o = rq_make(ow[i], ox[i], oy[i], oz[i]);
        cr_expect(rq_isfinite(o) && fabs(rq_norm(o) - 1.0) <= 0x1.0p-22,
                  "normalize(denormal #%d: %g %g %g %g) = " RQ_FMT " not finite unit", i, w[i],
                  x[i], y[i], z[i], RQ_ARG(o));
    }
}

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
        ref_track t;
        rt_init(&t, name);
        run_and_check(op, n, a, b, v, &t, 1);
        RT_EXPECT(t);
        fq_free(a);
        fq_free(b);
        fv_free(v);
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
        ref_track t;
        rt_init(&t, s ? "log w ~ -1, |v| 1e-30..1e-3" : "log w ~ +1, |v| 1e-30..1e-3");
        run_and_check(OP_LOG, n, a, b, v, &t, 0);
        RT_EXPECT(t);
        fq_free(a);
        fq_free(b);
        fv_free(v);
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
        ref_track t;
        rt_init(&t, name);
        run_and_check(op, n, a, b, v, &t, 1);
        RT_EXPECT(t);
        fq_free(a);
        fq_free(b);
        fv_free(v);
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
    ref_track t;
    rt_init(&t, "exp tiny half-angles");
    run_and_check(OP_EXP, n, a, b, v, &t, 0);
    RT_EXPECT(t);
    fq_free(a);
    fq_free(b);
    fv_free(v);
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

/* ---- unroll --------------------------------------------------------------- */

static int fbits_eq(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Checks out against in: exact +-in(f, j), out(0, j) == in(0, j), and the
 * chain condition dot(out(f-1, j), out(f, j)) >= 0 (|dot| <= 1e-6 may go
 * either way: float rounding of the dot product). */
static void check_unroll(size_t frames, size_t tracks, pb_quats in, pb_quats out, ref_track *t)
{
    for (size_t f = 0; f < frames; f++)
        for (size_t j = 0; j < tracks; j++) {
            size_t i = f * tracks + j;
            int same = fbits_eq(out.w[i], in.w[i]) && fbits_eq(out.x[i], in.x[i]) &&
                       fbits_eq(out.y[i], in.y[i]) && fbits_eq(out.z[i], in.z[i]);
            int neg = fbits_eq(out.w[i], -in.w[i]) && fbits_eq(out.x[i], -in.x[i]) &&
                      fbits_eq(out.y[i], -in.y[i]) && fbits_eq(out.z[i], -in.z[i]);
            double bad = 0.0, dot = 1.0;
            if (!same && !neg)
                bad = 1.0;
            if (f == 0 && !same)
                bad = 1.0;
            if (f > 0) {
                dot = rq_dot(fq_get(out, i - tracks), fq_get(out, i));
                if (dot < -1e-6)
                    bad = 1.0;
                if (dot < 0.0 && dot >= -1e-6 && !same && !neg)
                    bad = 1.0;
            }
            if (rt_add(t, i, bad, bad * 2.0))
                rt_note(t, "frame %zu track %zu in=" RQ_FMT " out=" RQ_FMT " dot(prev)=%.3g", f, j,
                        RQ_ARG(fq_get(in, i)), RQ_ARG(fq_get(out, i)), dot);
        }
}

static void fill_unroll(rng_t *r, pb_quats in, size_t frames, size_t tracks)
{
    for (size_t j = 0; j < tracks; j++) {
        rq q = rng_quat(r);
        for (size_t f = 0; f < frames; f++) {
            size_t i = f * tracks + j;
            int k = (int)(i % 23);
            if (k == 0)
                q = rq_mul(rq_make(0, 0, 1, 0), q); /* 180-degree jump */
            else if (k == 1)
                q = rng_quat(r); /* anything */
            else
                q = rng_quat_near(r, q, 0.5);
            rq s = rng_uniform(r) < 0.5 ? rq_neg(q) : q; /* random hemisphere */
            fq_set(in, i, rq_round(s));
        }
    }
}

Test(primitives, unroll_random_tracks)
{
    size_t frames = 1000, tracks = 100, n = frames * tracks;
    rng_t r = rng_seed(18);
    pb_quats in = fq_alloc(n), out = gq_alloc(n), inplace = fq_alloc(n);
    fill_unroll(&r, in, frames, tracks);
    for (size_t i = 0; i < n; i++)
        fq_set(inplace, i, fq_get(in, i));
    cr_assert_eq(pb_quat_unroll(frames, tracks, pb_cq(in), out), PB_OK);
    cr_expect(gq_guard_ok(out, n), "unroll wrote past n");
    ref_track t;
    rt_init(&t, "unroll");
    check_unroll(frames, tracks, in, out, &t);
    RT_EXPECT(t);
    /* in place: identical result */
    cr_assert_eq(pb_quat_unroll(frames, tracks, pb_cq(inplace), inplace), PB_OK);
    size_t diff = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (!(fbits_eq(inplace.w[i], out.w[i]) && fbits_eq(inplace.x[i], out.x[i]) &&
              fbits_eq(inplace.y[i], out.y[i]) && fbits_eq(inplace.z[i], out.z[i])))
            if (diff++ == 0)
                first = i;
    cr_expect(diff == 0, "unroll in place differs from out of place at %zu elements (first %zu)",
              diff, first);
    fq_free(in);
    fq_free(out);
    fq_free(inplace);
}

Test(primitives, unroll_shapes)
{
    /* frames x tracks with odd sizes, single frame (copy), single track */
    static const size_t shapes[][2] = {{1, 1},    {1, 17},   {2, 1},  {3, 5}, {17, 3},
                                       {1001, 1}, {1, 1001}, {7, 33}, {64, 9}};
    rng_t r = rng_seed(19);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t frames = shapes[s][0], tracks = shapes[s][1], n = frames * tracks;
        pb_quats in = fq_alloc(n), out = gq_alloc(n);
        fill_unroll(&r, in, frames, tracks);
        cr_assert_eq(pb_quat_unroll(frames, tracks, pb_cq(in), out), PB_OK);
        cr_expect(gq_guard_ok(out, n), "unroll %zux%zu wrote past n", frames, tracks);
        ref_track t;
        rt_init(&t, "unroll shapes");
        check_unroll(frames, tracks, in, out, &t);
        cr_expect(t.nfail == 0, "unroll %zu frames x %zu tracks: %zu bad; worst: %s", frames,
                  tracks, t.nfail, t.worst);
        fq_free(in);
        fq_free(out);
    }
}

Test(primitives, unroll_exact_orthogonal_and_antipodal)
{
    /* frame-to-frame dot exactly 0 may keep either sign; exactly -1 must flip */
    float w[6] = {1, 0, 0, -1, 0.5f, -0.5f};
    float x[6] = {0, 1, 0, 0, 0.5f, -0.5f};
    float y[6] = {0, 0, 0, 0, 0.5f, -0.5f};
    float z[6] = {0, 0, -1, 0, 0.5f, -0.5f};
    float ow[6], ox[6], oy[6], oz[6];
    pb_quats in = {w, x, y, z}, out = {ow, ox, oy, oz};
    cr_assert_eq(pb_quat_unroll(6, 1, pb_cq(in), out), PB_OK);
    ref_track t;
    rt_init(&t, "unroll exact");
    check_unroll(6, 1, in, out, &t);
    RT_EXPECT(t);
    /* frame 5 is -frame 4 exactly: must be flipped relative to out(4) */
    cr_expect(rq_dot(fq_get(out, 4), fq_get(out, 5)) > 0.99,
              "antipodal consecutive frames not aligned: " RQ_FMT " then " RQ_FMT,
              RQ_ARG(fq_get(out, 4)), RQ_ARG(fq_get(out, 5)));
}

/* ---- delta_to_angular_velocity ---------------------------------------------- */

Test(primitives, delta_to_angular_velocity_random_and_tangent)
{
    size_t n = NBIG;
    rng_t r = rng_seed(20);
    pb_quats ref = fq_alloc(n), delta = fq_alloc(n);
    pb_vec3s v = fv_alloc(n);
    pb_vec3s w = fv_alloc(n); /* the angular velocity a tangent delta was made from */
    for (size_t i = 0; i < n; i++) {
        rq q = rq_round(rng_quat(&r));
        rv3 om = rng_ball3(&r, i % 4 ? 10.0 : 1e-3);
        rq d;
        if (i % 5 == 0)
            d = rq_scale(rng_quat(&r), rng_logrange(&r, 1e-3, 1e3)); /* any 4-vector */
        else
            d = rq_scale(rq_mul(rq_make(0, om.x, om.y, om.z), q), 0.5); /* q' = w q / 2 */
        fq_set(ref, i, q);
        fq_set(delta, i, rq_round(d));
        fv_set(w, i, om);
    }
    ref_track t;
    rt_init(&t, "delta_to_angular_velocity");
    run_and_check(OP_DELTA, n, ref, delta, v, &t, 1);
    RT_EXPECT(t);
    /* tangent deltas give the angular velocity back (velocity accuracy) */
    pb_vec3s out = fv_alloc(n);
    cr_assert_eq(pb_quat_delta_to_angular_velocity(n, pb_cq(ref), pb_cq(delta), out), PB_OK);
    ref_track t2;
    rt_init(&t2, "delta_to_angular_velocity(tangent) vs omega [vel err/tol]");
    for (size_t i = 0; i < n; i++) {
        if (i % 5 == 0)
            continue;
        rv3 om = fv_get(w, i), got = fv_get(out, i);
        /* the float rounding of ref and delta perturbs omega by ~u |omega| */
        double e = ref_vel_err(got, om);
        if (rt_add(&t2, i, rv3_dist(got, om), e))
            rt_note(&t2, "ref=" RQ_FMT " delta=" RQ_FMT " omega=" RV_FMT " got=" RV_FMT,
                    RQ_ARG(fq_get(ref, i)), RQ_ARG(fq_get(delta, i)), RV_ARG(om), RV_ARG(got));
    }
    RT_EXPECT(t2);
    fq_free(ref);
    fq_free(delta);
    fv_free(v);
    fv_free(w);
    fv_free(out);
}

/* ---- the reference itself --------------------------------------------------- */

Test(primitives, reference_self_consistency)
{
    rng_t r = rng_seed(21);
    for (int i = 0; i < 2000; i++) {
        rq q = rng_quat(&r);
        rv3 l = rq_log(q);
        rq back = rq_exp(l);
        cr_assert(rq_angle4(back, rq_normalize(q)) < 1e-14, "ref exp(log q) != q");
        rq a = rng_quat(&r), b = rng_quat_near(&r, a, 1e-9);
        double ang = rq_angle_between(a, b);
        cr_assert(ang <= 1e-9 * (1 + 1e-6), "ref angle_between %g > 1e-9", ang);
        cr_assert(fabs(rq_angle_between(a, rq_neg(a))) < 1e-15, "ref angle sign-insensitive");
    }
    /* a known rotation: 90 degrees about z */
    rq q = rq_from_axis_angle(rv3_make(0, 0, 1), REF_PI / 2);
    cr_assert(fabs(q.w - sqrt(0.5)) < 1e-15 && fabs(q.z - sqrt(0.5)) < 1e-15, "axis-angle");
    rv3 s = rq_to_scaled_angle_axis(q);
    cr_assert(fabs(s.z - REF_PI / 2) < 1e-15, "scaled angle-axis");
    cr_assert(fabs(rq_angle_between(rq_identity(), q) - REF_PI / 2) < 1e-15, "angle");
}
