/*
 * Helpers of the spline tests (test_spline.c, test_spline_eval.c): the
 * rotation tolerance and a tracker of the cases checked against it (the
 * first failures reported, the largest error printed with PB_TEST_STATS=1).
 */
#ifndef PB_TESTS_SPLINE_UTIL_H
#define PB_TESTS_SPLINE_UTIL_H

#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"
#include "ref.h"
#include "ref_average.h"

#define TOL_ROT ((double)PB_ACCURACY_ROTATION_RAD)
#define MAX_REPORTS 5

typedef struct {
    size_t cases, skipped, fails, reports;
    double maxerr;
} tstats;

static inline void tstat_add_tol(tstats *st, double e, double tol)
{
    st->cases++;
    if (!(e <= st->maxerr))
        st->maxerr = e;
    if (!(e <= tol))
        st->fails++;
}
static inline void tstat_add(tstats *st, double e) { tstat_add_tol(st, e, TOL_ROT); }

static inline int tstat_report_now_tol(tstats *st, double e, double tol)
{
    return !(e <= tol) && st->reports++ < MAX_REPORTS;
}
static inline int tstat_report_now(tstats *st, double e)
{
    return tstat_report_now_tol(st, e, TOL_ROT);
}

static inline void tstat_final(const char *what, const tstats *st, size_t min_cases)
{
    if (stats_on())
        fprintf(stderr, "[stat] %-34s cases %zu ambiguous %zu fails %zu max %.3g rad\n", what,
                st->cases, st->skipped, st->fails, st->maxerr);
    cr_expect(st->fails == 0, "%s: %zu of %zu cases out of tolerance (max %.3g rad)", what,
              st->fails, st->cases, st->maxerr);
    cr_expect(st->cases >= min_cases, "%s: only %zu cases checked", what, st->cases);
}

#endif /* PB_TESTS_SPLINE_UTIL_H */
