/*
 * Helpers of the quaternion primitive tests (test_primitives.c,
 * test_primitives_log_exp.c): batches with guard elements, input
 * generators, the primitives as ops checked element by element against the
 * double reference (tests/ref.c).
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

#ifndef PB_TESTS_PRIM_UTIL_H
#define PB_TESTS_PRIM_UTIL_H

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

static inline float *galloc(size_t n)
{
    float *p = malloc((n + GUARD) * sizeof(float));
    if (!p)
        abort();
    for (size_t i = 0; i < n + GUARD; i++)
        p[i] = SENTINEL;
    return p;
}
static inline pb_quats gq_alloc(size_t n)
{
    pb_quats q = {galloc(n), galloc(n), galloc(n), galloc(n)};
    return q;
}
static inline pb_vec3s gv_alloc(size_t n)
{
    pb_vec3s v = {galloc(n), galloc(n), galloc(n)};
    return v;
}
static inline int guard_ok(const float *p, size_t n)
{
    for (size_t i = n; i < n + GUARD; i++)
        if (p[i] != SENTINEL)
            return 0;
    return 1;
}
static inline int gq_guard_ok(pb_quats q, size_t n)
{
    return guard_ok(q.w, n) && guard_ok(q.x, n) && guard_ok(q.y, n) && guard_ok(q.z, n);
}
static inline int gv_guard_ok(pb_vec3s v, size_t n)
{
    return guard_ok(v.x, n) && guard_ok(v.y, n) && guard_ok(v.z, n);
}

static inline double qmaxdiff(rq a, rq b)
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

static inline int rq_isfinite(rq q)
{
    return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z);
}

/* ---- input generators ------------------------------------------------------ */

/* Mixed quaternions: mostly uniform unit, some scaled, some special. */
static inline rq gen_quat_mixed(rng_t *r, size_t i)
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

static inline pb_status run_op(op_t op, size_t n, pb_quats a, pb_quats b, pb_vec3s v, pb_quats oq,
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

static inline int op_vec_out(op_t op) { return op == OP_LOG || op == OP_TO_SAA || op == OP_DELTA; }

/* exp error bound (rotation angle, rad) for |v| (the half-angle vector) */
static inline double exp_tol(double len) { return 3e-7 + 0x1.0p-22 * len; }

/* Checks element i of op; returns the ratio err/tol (ok iff <= 1), sets *err.
 * Writes a description into buf. */
static inline double check_op(op_t op, size_t i, pb_quats a, pb_quats b, pb_vec3s v, pb_quats oq,
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
static inline void run_and_check(op_t op, size_t n, pb_quats a, pb_quats b, pb_vec3s v,
                                 ref_track *t, int guards)
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

/* One tracked check, named name, of op over n inputs (a, b, v) with
 * run_and_check; frees the inputs afterwards. */
static inline void check_op_and_free(const char *name, op_t op, size_t n, pb_quats a, pb_quats b,
                                     pb_vec3s v, int guards)
{
    ref_track t;
    rt_init(&t, name);
    run_and_check(op, n, a, b, v, &t, guards);
    RT_EXPECT(t);
    fq_free(a);
    fq_free(b);
    fv_free(v);
}

/* ---- random vec3 inputs for exp ---------------------------------------- */

static inline rv3 gen_vec_exp(rng_t *r, size_t i)
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

#endif /* PB_TESTS_PRIM_UTIL_H */
