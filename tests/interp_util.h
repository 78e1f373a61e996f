/*
 * Helpers of the cubic interpolator tests (test_interp.c, test_interp_raw.c,
 * test_interp_vec3.c, test_interp_scale.c): batch sizes, random key sets and
 * their float batches, the rotation check, key descriptions.
 *
 * Tolerances (include/posebatch.h, never widened):
 *   rotations: rq_angle_between(out, ref) <= 2e-6 rad, and unit to 2^-21
 *       (a few float roundings), for offsets/velocities and the blended offset
 *       u of scaled angle-axis magnitude <= 2 pi; beyond: 2e-6 + 2^-22 U, with
 *       U = |w1||d| + |w2||v0| + |w3||v1| bounding the float magnitude of
 *       u = w1 d + w2 v0 + w3 v1 ("the rotation error grows as about
 *       2^-22 |u| radians");
 *   velocities (angular, 4D, log-scale): |v - vref| <= 1e-5 |vref| + 1e-6
 *       (stated for the same 2 pi range only: beyond it, only finite);
 *   scales: 2e-6 relative per component;
 *   vec3 Hermite / Catmull-Rom ("float rounding of the basis only"): per
 *       component 8 u (sum of |monomial| |operand| terms), u = 2^-24.
 * Each batch uses one x; batches of 100 (a tail for every lane width) with
 * 1000 random x give 10^5 cases per check. Where float rounding may pick
 * either branch of a sign decision (|w| or |dot| below 1e-6), both branches of
 * the reference are accepted. POSEBATCH_TEST_VERBOSE=1 prints max errors.
 */

#ifndef PB_TESTS_INTERP_UTIL_H
#define PB_TESTS_INTERP_UTIL_H

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

static const pb_vec3s NOVEL = {NULL, NULL, NULL};
static const pb_quats NOVEL4 = {NULL, NULL, NULL, NULL};

static inline int rq_isfinite(rq q)
{
    return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z);
}

/* rotation check: ratio of the angle error to tol, unit norm, finiteness */
static inline double rot_ratio(rq out, rq ref, double tol, double *ang)
{
    *ang = rq_angle_between(out, ref);
    double r = *ang / tol;
    double un = fabs(rq_norm(out) - 1.0) / UNIT_TOL;
    if (un > r)
        r = un;
    if (!rq_isfinite(out))
        r = INFINITY;
    return r;
}

/* ---- key generators ---------------------------------------------------------- */

typedef struct {
    rq r[4];
    rv3 v0, v1; /* hermite velocities */
} keyset;

/* realistic: consecutive keys of smooth motion (neighbours within 0.5 rad),
 * either hemisphere; velocities of similar size. wide: keys anywhere,
 * velocities up to 2 pi. */
static inline keyset gen_keys(rng_t *r, int wide)
{
    keyset k;
    if (wide) {
        for (int j = 0; j < 4; j++)
            k.r[j] = rng_quat(r);
        k.v0 = rng_ball3(r, 2.0 * REF_PI);
        k.v1 = rng_ball3(r, 2.0 * REF_PI);
    } else {
        k.r[0] = rng_quat(r);
        for (int j = 1; j < 4; j++)
            k.r[j] = rng_quat_near(r, k.r[j - 1], 0.5);
        for (int j = 0; j < 4; j++)
            if (rng_uniform(r) < 0.3)
                k.r[j] = rq_neg(k.r[j]);
        k.v0 = rng_ball3(r, 0.5);
        k.v1 = rng_ball3(r, 0.5);
    }
    for (int j = 0; j < 4; j++)
        k.r[j] = rq_round(k.r[j]);
    k.v0 = rv3_round(k.v0);
    k.v1 = rv3_round(k.v1);
    return k;
}

typedef struct {
    pb_quats r[4];
    pb_vec3s v0, v1;
    pb_quats rot, rot2;
    pb_vec3s vel, vel2;
    pb_quats vel4, vel4b;
} qbatch;

static inline qbatch qb_alloc(size_t n)
{
    qbatch b;
    for (int j = 0; j < 4; j++)
        b.r[j] = fq_alloc(n);
    b.v0 = fv_alloc(n);
    b.v1 = fv_alloc(n);
    b.rot = fq_alloc(n);
    b.rot2 = fq_alloc(n);
    b.vel = fv_alloc(n);
    b.vel2 = fv_alloc(n);
    b.vel4 = fq_alloc(n);
    b.vel4b = fq_alloc(n);
    return b;
}

static inline void qb_free(qbatch *b)
{
    for (int j = 0; j < 4; j++)
        fq_free(b->r[j]);
    fv_free(b->v0);
    fv_free(b->v1);
    fq_free(b->rot);
    fq_free(b->rot2);
    fv_free(b->vel);
    fv_free(b->vel2);
    fq_free(b->vel4);
    fq_free(b->vel4b);
}

static inline void qb_set(qbatch *b, size_t i, const keyset *k)
{
    for (int j = 0; j < 4; j++)
        fq_set(b->r[j], i, k->r[j]);
    fv_set(b->v0, i, k->v0);
    fv_set(b->v1, i, k->v1);
}

static inline keyset qb_get(const qbatch *b, size_t i)
{
    keyset k;
    for (int j = 0; j < 4; j++)
        k.r[j] = fq_get(b->r[j], i);
    k.v0 = fv_get(b->v0, i);
    k.v1 = fv_get(b->v1, i);
    return k;
}

/* n random key sets (gen_keys) into b */
static inline void qb_fill(qbatch *b, size_t n, rng_t *r, int wide)
{
    for (size_t i = 0; i < n; i++) {
        keyset k = gen_keys(r, wide);
        qb_set(b, i, &k);
    }
}

/* The parameter x of round `round` of a random test: 0 in the first round,
 * 1 in the second, then drawn (which the caller draws in every round). */
static inline float round_x(int round, float drawn)
{
    return round == 0 ? 0.0f : round == 1 ? 1.0f : drawn;
}

typedef enum { K_HERMITE, K_CATMULL } qkind;

static inline void describe_keys(char *buf, size_t n, qkind kind, const keyset *k)
{
    if (kind == K_HERMITE)
        snprintf(buf, n, "r0=" RQ_FMT " r1=" RQ_FMT " v0=" RV_FMT " v1=" RV_FMT, RQ_ARG(k->r[0]),
                 RQ_ARG(k->r[1]), RV_ARG(k->v0), RV_ARG(k->v1));
    else
        snprintf(buf, n, "r0=" RQ_FMT " r1=" RQ_FMT " r2=" RQ_FMT " r3=" RQ_FMT, RQ_ARG(k->r[0]),
                 RQ_ARG(k->r[1]), RQ_ARG(k->r[2]), RQ_ARG(k->r[3]));
}

#endif /* PB_TESTS_INTERP_UTIL_H */
