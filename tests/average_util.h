/*
 * Helpers of the weighted average tests (test_average.c,
 * test_average_properties.c, test_sin_half_angle.c): each kind as one
 * call, the double reference and its tolerance over the branches float
 * rounding may take, batch sets and their random data.
 *
 * Inputs are generated in double, rounded to float, and the reference is
 * computed from the float values. Rotation target: PB_ACCURACY_ROTATION_RAD
 * (2e-6 rad), the angle of ref^-1 q, sign-insensitive; for accurate (and
 * reference_extract) the header's max(2e-6, PB_ACCURACY_EIGEN_GAP_RAD / g) rad, g = (l1 - l2) / l1
 * the relative eigen-gap of the double reference's matrix. Results documented
 * with w >= 0 (raw_ref, log_ref, accurate, basic) must have w >= 0.
 *
 * No case is skipped. Where float rounding may decide a sign (counted as
 * "ambiguous" with PB_TEST_STATS=1), every branch of the reference is
 * accepted (the error is the smallest over the branches):
 * - raw_ref / log_ref: |dot(ref, s_i)| < 1e-6 |ref||s_i| (the hemisphere of
 *   ref^-1 s_i);
 * - basic: a running-hemisphere decision with |dot(acc, s_i)| below 1e-5
 *   |s_i| sum_j<i |w_j||s_j| (the scale of acc's float rounding).
 */
#ifndef PB_TESTS_AVERAGE_UTIL_H
#define PB_TESTS_AVERAGE_UTIL_H

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

#define MAXK 32
#define MAX_REPORTS 5

#define AMBIG_REF 1e-6
#define AMBIG_BASIC 1e-5

/* raw_ref / log_ref with abs(ref^-1 s_i) taken the other way for bit i */
static inline rq ref_avg_flip(av_kind kind, rq ref, size_t k, const rq *s, const double *w,
                              unsigned fl)
{
    rq acc = rq_make(0, 0, 0, 0);
    rv3 lacc = rv3_make(0, 0, 0);
    for (size_t i = 0; i < k; i++) {
        rq d = rq_abs(rq_inv_mul(ref, s[i]));
        if (fl & (1u << i))
            d = rq_neg(d);
        if (kind == AV_RAW_REF)
            acc = rq_add(acc, rq_scale(d, w[i]));
        else
            lacc = rv3_add(lacc, rv3_scale(rq_log(d), w[i]));
    }
    return rq_abs(rq_mul(ref, kind == AV_RAW_REF ? rq_normalize(acc) : rq_exp(lacc)));
}

/* running-hemisphere average with decision i inverted for bit i; *ok = 0 when
 * an inverted decision is not ambiguous; *amb gets the ambiguous decisions */
static inline rq basic_flip(size_t k, const rq *s, const double *w, unsigned fl, unsigned *amb,
                            int *ok)
{
    rq acc = rq_make(0, 0, 0, 0);
    double scale = 0;
    *amb = 0;
    *ok = 1;
    for (size_t i = 0; i < k; i++) {
        double d = rq_dot(acc, s[i]);
        int a = i > 0 && fabs(d) < AMBIG_BASIC * rq_norm(s[i]) * scale;
        if (a)
            *amb |= 1u << i;
        int neg = d < 0;
        if (fl & (1u << i)) {
            if (!a)
                *ok = 0;
            neg = !neg;
        }
        acc = neg ? rq_sub(acc, rq_scale(s[i], w[i])) : rq_add(acc, rq_scale(s[i], w[i]));
        scale += fabs(w[i]) * rq_norm(s[i]);
    }
    return rq_normalize(rq_abs(acc));
}

/* Error of got against the reference, the smallest over the branches float
 * rounding may take; *exp the matching reference, *namb whether any branch
 * was ambiguous. */
static inline double av_err(av_kind kind, rq ref, size_t k, const rq *s, const double *w, rq got,
                            rq *exp, double *gap, int *namb)
{
    av_ref(kind, ref, k, s, w, exp, gap);
    double e = rq_angle_between(*exp, got);
    unsigned amb = 0;
    *namb = 0;
    if (kind == AV_RAW_REF || kind == AV_LOG_REF) {
        for (size_t i = 0; i < k; i++)
            if (fabs(rq_dot(ref, s[i])) < AMBIG_REF * rq_norm(ref) * rq_norm(s[i]))
                amb |= 1u << i;
        *namb = amb != 0;
        for (unsigned fl = 1; fl < (1u << k); fl++) {
            if (fl & ~amb)
                continue;
            rq c = ref_avg_flip(kind, ref, k, s, w, fl);
            double e2 = rq_angle_between(c, got);
            if (e2 < e) {
                e = e2;
                *exp = c;
            }
        }
    } else if (kind == AV_BASIC) {
        int ok;
        basic_flip(k, s, w, 0u, &amb, &ok);
        *namb = amb != 0;
        if (amb)
            for (unsigned fl = 1; fl < (1u << k); fl++) {
                unsigned a2;
                rq c = basic_flip(k, s, w, fl, &a2, &ok);
                double e2 = rq_angle_between(c, got);
                if (ok && e2 < e) {
                    e = e2;
                    *exp = c;
                }
            }
    }
    return e;
}

/* results documented with a w >= 0 canonical sign */
static inline int canonical(av_kind kind)
{
    return kind == AV_RAW_REF || kind == AV_LOG_REF || kind == AV_ACCURATE || kind == AV_BASIC;
}

static inline int fmt_q(char *b, size_t cap, rq q)
{
    return snprintf(b, cap, "(%.9g, %.9g, %.9g, %.9g)", q.w, q.x, q.y, q.z);
}

/* A batch set for one call: n joints, k samples. */
typedef struct {
    size_t n, k;
    pb_quats ref, out;
    pb_quats s[MAXK];
    pb_cquats cs[MAXK];
    float w[MAXK];
} av_set;

static inline void set_alloc(av_set *d, size_t n, size_t k)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->k = k;
    d->ref = fq_alloc(n);
    d->out = fq_alloc(n);
    for (size_t i = 0; i < k; i++) {
        d->s[i] = fq_alloc(n);
        d->cs[i] = pb_cq(d->s[i]);
    }
}

static inline void set_free(av_set *d)
{
    fq_free(d->ref);
    fq_free(d->out);
    for (size_t i = 0; i < d->k; i++)
        fq_free(d->s[i]);
}

typedef enum { DATA_NEAR, DATA_WIDE } data_mode;
typedef enum { W_NORM, W_FREE, W_NEG } weight_mode;

static inline void gen_weights(rng_t *r, size_t k, weight_mode wm, float *w)
{
    double sw[MAXK], sum = 0;
    for (size_t i = 0; i < k; i++) {
        sw[i] = rng_range(r, 0.05, 1.0);
        sum += sw[i];
    }
    double scale = 1.0 / sum;
    if (wm == W_FREE)
        scale *= rng_range(r, 0.3, 2.0);
    for (size_t i = 0; i < k; i++)
        w[i] = (float)(sw[i] * scale);
    if (wm == W_NEG && k >= 2) {
        /* extrapolation: one negative weight, total still 1 */
        size_t j = (size_t)(rng_uniform(r) * (double)k);
        double neg = rng_range(r, 0.1, 0.5);
        for (size_t i = 0; i < k; i++)
            w[i] = (float)(i == j ? -neg : sw[i] / (sum - sw[j]) * (1.0 + neg));
    }
}

static inline void gen_data(rng_t *r, av_set *d, data_mode dm)
{
    for (size_t j = 0; j < d->n; j++) {
        if (dm == DATA_NEAR) {
            rq base = rng_quat(r);
            fq_set(d->ref, j, rq_scale(rng_quat_near(r, base, 0.5), rng_sign(r)));
            for (size_t i = 0; i < d->k; i++)
                fq_set(d->s[i], j, rq_scale(rng_quat_near(r, base, 1.0), rng_sign(r)));
        } else {
            fq_set(d->ref, j, rng_quat(r));
            for (size_t i = 0; i < d->k; i++)
                fq_set(d->s[i], j, rng_quat(r));
        }
    }
}

#endif /* PB_TESTS_AVERAGE_UTIL_H */
