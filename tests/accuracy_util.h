/*
 * Helpers of the accuracy contract tests (test_accuracy.c,
 * test_accuracy_ranges.c): quaternion batches, each average kind as one
 * call, its double reference (ref.c / ref_average.c) and tolerance.
 * PB_TEST_STATS=1 prints the largest errors.
 */
#ifndef PB_TESTS_ACCURACY_UTIL_H
#define PB_TESTS_ACCURACY_UTIL_H

#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"
#include "ref.h"
#include "ref_average.h"

#define TOL_ROT ((double)PB_ACCURACY_ROTATION_RAD)
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static inline int stats_on(void)
{
    const char *e = getenv("PB_TEST_STATS");
    return e && *e && *e != '0';
}

typedef enum { K_RAW, K_LOG, K_RAW_REF, K_LOG_REF, K_ACCURATE, K_BASIC, K_COUNT } kind;
static const char *const kname[K_COUNT] = {"raw", "log", "raw_ref", "log_ref", "accurate", "basic"};

typedef struct {
    float *w, *x, *y, *z;
} fq;

static inline fq fq_new(size_t n)
{
    fq q;
    q.w = calloc(n ? n : 1, sizeof(float));
    q.x = calloc(n ? n : 1, sizeof(float));
    q.y = calloc(n ? n : 1, sizeof(float));
    q.z = calloc(n ? n : 1, sizeof(float));
    cr_assert(q.w && q.x && q.y && q.z);
    return q;
}
static inline void fq_del(fq q)
{
    free(q.w);
    free(q.x);
    free(q.y);
    free(q.z);
}
static inline void fq_put(fq q, size_t i, rq v)
{
    q.w[i] = (float)v.w;
    q.x[i] = (float)v.x;
    q.y[i] = (float)v.y;
    q.z[i] = (float)v.z;
}
static inline rq fq_at(fq q, size_t i) { return rq_make(q.w[i], q.x[i], q.y[i], q.z[i]); }
static inline pb_cquats fq_c(fq q, size_t off)
{
    pb_cquats c = {q.w + off, q.x + off, q.y + off, q.z + off};
    return c;
}
static inline pb_quats fq_o(fq q)
{
    pb_quats o = {q.w, q.x, q.y, q.z};
    return o;
}

static inline pb_status call(kind kd, size_t n, size_t k, pb_cquats ref, const pb_cquats *s,
                             const float *w, pb_quats out)
{
    switch (kd) {
    case K_RAW: return pb_quat_average_raw(n, k, s, w, out);
    case K_LOG: return pb_quat_average_log(n, k, s, w, out);
    case K_RAW_REF: return pb_quat_average_raw_ref(n, k, ref, s, w, out);
    case K_LOG_REF: return pb_quat_average_log_ref(n, k, ref, s, w, out);
    case K_ACCURATE: return pb_quat_average_accurate(n, k, s, w, out);
    default: return pb_quat_average_basic(n, k, s, w, out);
    }
}

static inline rq reference(kind kd, rq ref, size_t k, const rq *s, const double *w, double *gap)
{
    *gap = 1.0;
    switch (kd) {
    case K_RAW: return ra_average_raw(k, s, w);
    case K_LOG: return ra_average_log(k, s, w);
    case K_RAW_REF: return ra_average_raw_ref(ref, k, s, w);
    case K_LOG_REF: return ra_average_log_ref(ref, k, s, w);
    case K_ACCURATE: return ra_average_accurate(k, s, w, gap);
    default: return ra_average_basic(k, s, w, NULL);
    }
}

static inline double tol_for(kind kd, double gap)
{
    if (kd == K_ACCURATE) {
        double t = (double)PB_ACCURACY_EIGEN_GAP_RAD / gap;
        return t > TOL_ROT ? t : TOL_ROT;
    }
    return TOL_ROT;
}

#endif /* PB_TESTS_ACCURACY_UTIL_H */
