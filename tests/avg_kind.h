/*
 * The weighted quaternion averages of posebatch.h as one call per kind, the
 * double reference of each (ref_average.c) and its tolerance: shared by
 * the average tests (average_util.h) and the accuracy tests
 * (accuracy_util.h). Rotation target: PB_ACCURACY_ROTATION_RAD, for
 * accurate the header's max(2e-6, PB_ACCURACY_EIGEN_GAP_RAD / g), g the
 * relative eigen-gap of the double reference's matrix.
 */
#ifndef PB_TESTS_AVG_KIND_H
#define PB_TESTS_AVG_KIND_H

#include <math.h>
#include <stddef.h>

#include "posebatch.h"
#include "ref.h"
#include "ref_average.h"

#define TOL_ROT ((double)PB_ACCURACY_ROTATION_RAD)

typedef enum { AV_RAW, AV_LOG, AV_RAW_REF, AV_LOG_REF, AV_ACCURATE, AV_BASIC, AV_COUNT } av_kind;
static const char *const av_name[AV_COUNT] = {"raw",     "log",      "raw_ref",
                                              "log_ref", "accurate", "basic"};

static inline pb_status av_call(av_kind kind, size_t n, size_t k, pb_cquats ref, const pb_cquats *s,
                                const float *w, pb_quats out)
{
    switch (kind) {
    case AV_RAW: return pb_quat_average_raw(n, k, s, w, out);
    case AV_LOG: return pb_quat_average_log(n, k, s, w, out);
    case AV_RAW_REF: return pb_quat_average_raw_ref(n, k, ref, s, w, out);
    case AV_LOG_REF: return pb_quat_average_log_ref(n, k, ref, s, w, out);
    case AV_ACCURATE: return pb_quat_average_accurate(n, k, s, w, out);
    case AV_BASIC: return pb_quat_average_basic(n, k, s, w, out);
    default: return PB_ERR_ARG;
    }
}

static inline int uses_ref(av_kind kind) { return kind == AV_RAW_REF || kind == AV_LOG_REF; }

/* Reference of one joint (the branches float rounding would take in double).
 * *gap: accurate's relative eigen-gap (1 for the other kinds). */
static inline void av_ref(av_kind kind, rq ref, size_t k, const rq *s, const double *w, rq *res,
                          double *gap)
{
    double g = 1.0;
    switch (kind) {
    case AV_RAW: *res = ra_average_raw(k, s, w); break;
    case AV_LOG: *res = ra_average_log(k, s, w); break;
    case AV_RAW_REF: *res = ra_average_raw_ref(ref, k, s, w); break;
    case AV_LOG_REF: *res = ra_average_log_ref(ref, k, s, w); break;
    case AV_ACCURATE: *res = ra_average_accurate(k, s, w, &g); break;
    case AV_BASIC: *res = ra_average_basic(k, s, w, NULL); break;
    default: *res = rq_identity(); break;
    }
    if (gap)
        *gap = g;
}

/* accurate: the header's max(2e-6, PB_ACCURACY_EIGEN_GAP_RAD / g); the other kinds: 2e-6 */
static inline double acc_tol(double gap)
{
    return gap > 0 ? fmax(TOL_ROT, PB_ACCURACY_EIGEN_GAP_RAD / gap) : INFINITY;
}
static inline double av_tol(av_kind kind, double gap)
{
    return kind == AV_ACCURATE ? acc_tol(gap) : TOL_ROT;
}

#endif /* PB_TESTS_AVG_KIND_H */
