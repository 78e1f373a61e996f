/*
 * Helpers of the accuracy contract tests (test_accuracy.c,
 * test_accuracy_ranges.c): quaternion batches, the buffers of average calls,
 * each average kind's double reference (avg_kind.h) and tolerance.
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

#include "avg_kind.h"
#include "posebatch.h"
#include "ref.h"
#include "ref_average.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* a batch of n quaternions (ref.h's pb_quats helpers), zeroed */
static inline pb_quats fq_new(size_t n)
{
    pb_quats q;
    q.w = calloc(n ? n : 1, sizeof(float));
    q.x = calloc(n ? n : 1, sizeof(float));
    q.y = calloc(n ? n : 1, sizeof(float));
    q.z = calloc(n ? n : 1, sizeof(float));
    cr_assert(q.w && q.x && q.y && q.z);
    return q;
}
/* the view of q from element off on */
static inline pb_cquats fq_c(pb_quats q, size_t off)
{
    pb_cquats c = {q.w + off, q.x + off, q.y + off, q.z + off};
    return c;
}

/* The buffers of average calls of k samples over J joints: rows sample
 * poses of J joints (data), the reference and output poses, and per sample
 * its pose view, float weight, the weight in double and one joint's sample
 * in double (for the reference). */
typedef struct {
    pb_quats data, ref, out;
    pb_cquats *s;
    float *w;
    double *wd;
    rq *sd;
} avg_batch;

static inline avg_batch avg_batch_new(size_t rows, size_t J, size_t k)
{
    avg_batch b = {fq_new(rows * J),
                   fq_new(J),
                   fq_new(J),
                   malloc(k * sizeof *b.s),
                   malloc(k * sizeof *b.w),
                   malloc(k * sizeof *b.wd),
                   malloc(k * sizeof *b.sd)};
    cr_assert(b.s && b.w && b.wd && b.sd);
    return b;
}
static inline void avg_batch_del(avg_batch b)
{
    fq_free(b.data);
    fq_free(b.ref);
    fq_free(b.out);
    free(b.s);
    free(b.w);
    free(b.wd);
    free(b.sd);
}

/* the double reference of kind kd (avg_kind.h's av_ref); *gap: accurate's
 * relative eigen-gap, 1 for the other kinds */
static inline rq reference(av_kind kd, rq ref, size_t k, const rq *s, const double *w, double *gap)
{
    rq q;
    av_ref(kd, ref, k, s, w, &q, gap);
    return q;
}

static inline double tol_for(av_kind kd, double gap)
{
    if (kd == AV_ACCURATE) {
        double t = (double)PB_ACCURACY_EIGEN_GAP_RAD / gap;
        return t > TOL_ROT ? t : TOL_ROT;
    }
    return TOL_ROT;
}

#endif /* PB_TESTS_ACCURACY_UTIL_H */
