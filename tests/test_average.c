/*
 * Weighted averages (raw, log, raw_ref, log_ref, accurate, basic) on random
 * batches against the independent double reference in ref_average.c, and
 * that reference's own checks. The properties (invariances, special inputs,
 * pb_quat_reference_extract) are in test_average_properties.c; the
 * tolerances and the accepted branches are those of average_util.h.
 */
#include "average_util.h"

typedef struct {
    size_t cases, skipped, fails, sign_fails, reports;
    double maxerr;
    double gap_max[3]; /* accurate: max error for gap in [1e-3,1e-2), [1e-2,1e-1), [1e-1,..] */
    char worst[4096];  /* the case of maxerr */
} av_stats;

/* Checks every joint of a finished call; reports the first failures. */
static void check_set(av_kind kind, const av_set *d, av_stats *st, const char *what)
{
    double w[MAXK];
    for (size_t i = 0; i < d->k; i++)
        w[i] = d->w[i];
    for (size_t j = 0; j < d->n; j++) {
        rq s[MAXK], ref = fq_get(d->ref, j), exp, got = fq_get(d->out, j);
        for (size_t i = 0; i < d->k; i++)
            s[i] = fq_get(d->s[i], j);
        double gap = 1.0;
        int amb;
        double err = av_err(kind, ref, d->k, s, w, got, &exp, &gap, &amb);
        double tol = av_tol(kind, gap);
        st->skipped += (size_t)amb; /* counts the ambiguous (all-branch) cases */
        st->cases++;
        int new_worst = !(err <= st->maxerr) && !isnan(st->maxerr);
        if (new_worst)
            st->maxerr = isnan(err) ? NAN : err;
        if (kind == AV_ACCURATE) {
            int b = gap < 1e-2 ? 0 : (gap < 1e-1 ? 1 : 2);
            if (!(err <= st->gap_max[b]))
                st->gap_max[b] = err;
        }
        int sign_bad = canonical(kind) && got.w < 0;
        int bad = !(err <= tol);
        if (bad)
            st->fails++;
        if (sign_bad)
            st->sign_fails++;
        if (((bad || sign_bad) && st->reports < MAX_REPORTS) || new_worst) {
            char buf[4096];
            int o = snprintf(buf, sizeof buf, "%s %s: joint %zu k=%zu weights [", av_name[kind],
                             what, j, d->k);
            for (size_t i = 0; i < d->k; i++)
                o += snprintf(buf + o, sizeof buf - (size_t)o, "%s%.9g", i ? ", " : "", w[i]);
            o += snprintf(buf + o, sizeof buf - (size_t)o, "] samples");
            for (size_t i = 0; i < d->k && o < 3000; i++) {
                o += snprintf(buf + o, sizeof buf - (size_t)o, " ");
                o += fmt_q(buf + o, sizeof buf - (size_t)o, s[i]);
            }
            if (uses_ref(kind)) {
                o += snprintf(buf + o, sizeof buf - (size_t)o, " ref ");
                o += fmt_q(buf + o, sizeof buf - (size_t)o, ref);
            }
            o += snprintf(buf + o, sizeof buf - (size_t)o, " expected ");
            o += fmt_q(buf + o, sizeof buf - (size_t)o, exp);
            o += snprintf(buf + o, sizeof buf - (size_t)o, " got ");
            o += fmt_q(buf + o, sizeof buf - (size_t)o, got);
            snprintf(buf + o, sizeof buf - (size_t)o, " err %.3g rad (tol %.3g, gap %.3g)%s", err,
                     tol, gap, sign_bad ? " [w < 0: not canonical]" : "");
            if (new_worst)
                snprintf(st->worst, sizeof st->worst, "%s", buf);
            if ((bad || sign_bad) && st->reports < MAX_REPORTS) {
                st->reports++;
                cr_expect(0, "%s", buf);
            }
        }
    }
}

static void report(av_kind kind, const char *what, const av_stats *st)
{
    if (stats_on())
        fprintf(stderr,
                "[stat] average %-8s %-14s cases %zu ambiguous %zu fails %zu sign %zu max %.3g rad"
                "%s",
                av_name[kind], what, st->cases, st->skipped, st->fails, st->sign_fails, st->maxerr,
                kind == AV_ACCURATE ? "" : "\n");
    if (stats_on() && kind == AV_ACCURATE)
        fprintf(stderr, " | by gap [1e-3,1e-2) %.3g [1e-2,1e-1) %.3g [1e-1,1] %.3g\n",
                st->gap_max[0], st->gap_max[1], st->gap_max[2]);
    cr_expect(st->fails == 0 && st->sign_fails == 0,
              "average %s %s: %zu of %zu cases out of tolerance (%s; max %.3g rad), %zu with "
              "w < 0; worst case: %s",
              av_name[kind], what, st->fails, st->cases,
              kind == AV_ACCURATE ? "max(2e-6, 4e-7 / gap) rad" : "2e-6 rad", st->maxerr,
              st->sign_fails, st->worst);
}

/* 5 values of K x `calls` calls x n joints */
static void run_random(av_kind kind, data_mode dm, weight_mode wm, size_t calls, size_t n,
                       uint64_t seed, const char *what)
{
    static const size_t ks[] = {1, 2, 3, 4, 8};
    rng_t r = rng_seed(seed);
    av_stats st;
    memset(&st, 0, sizeof st);
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        size_t k = ks[ki];
        if (wm == W_NEG && k < 2)
            continue;
        av_set d;
        set_alloc(&d, n, k);
        for (size_t c = 0; c < calls; c++) {
            gen_weights(&r, k, wm, d.w);
            gen_data(&r, &d, dm);
            fq_fill_nan(d.out, n);
            pb_status s = av_call(kind, n, k, pb_cq(d.ref), d.cs, d.w, d.out);
            cr_assert_eq(s, PB_OK, "average %s: status %d (%s)", av_name[kind], (int)s,
                         pb_status_str(s));
            check_set(kind, &d, &st, what);
        }
        set_free(&d);
    }
    report(kind, what, &st);
    cr_expect(st.cases >= (wm == W_NORM ? 90000u : 5000u), "too few checked cases: %zu", st.cases);
}

/* 100000 joint cases per (function, data kind) */
#define CALLS 8
#define NJ 2500

Test(average, raw_near) { run_random(AV_RAW, DATA_NEAR, W_NORM, CALLS, NJ, 101, "near"); }
Test(average, raw_wide) { run_random(AV_RAW, DATA_WIDE, W_NORM, CALLS, NJ, 102, "wide"); }
Test(average, log_near) { run_random(AV_LOG, DATA_NEAR, W_NORM, CALLS, NJ, 103, "near"); }
Test(average, log_wide) { run_random(AV_LOG, DATA_WIDE, W_NORM, CALLS, NJ, 104, "wide"); }
Test(average, raw_ref_near) { run_random(AV_RAW_REF, DATA_NEAR, W_NORM, CALLS, NJ, 105, "near"); }
Test(average, raw_ref_wide) { run_random(AV_RAW_REF, DATA_WIDE, W_NORM, CALLS, NJ, 106, "wide"); }
Test(average, log_ref_near) { run_random(AV_LOG_REF, DATA_NEAR, W_NORM, CALLS, NJ, 107, "near"); }
Test(average, log_ref_wide) { run_random(AV_LOG_REF, DATA_WIDE, W_NORM, CALLS, NJ, 108, "wide"); }
Test(average, accurate_near) { run_random(AV_ACCURATE, DATA_NEAR, W_NORM, CALLS, NJ, 109, "near"); }
Test(average, accurate_wide) { run_random(AV_ACCURATE, DATA_WIDE, W_NORM, CALLS, NJ, 110, "wide"); }
Test(average, basic_near) { run_random(AV_BASIC, DATA_NEAR, W_NORM, CALLS, NJ, 111, "near"); }
Test(average, basic_wide) { run_random(AV_BASIC, DATA_WIDE, W_NORM, CALLS, NJ, 112, "wide"); }

/* weights not summing to 1 (log variants extrapolate; the others only use
 * ratios) and negative weights (extrapolation), near data */
Test(average, weights_free_and_negative)
{
    for (int kind = 0; kind < AV_COUNT; kind++) {
        run_random((av_kind)kind, DATA_NEAR, W_FREE, 2, 1000, 200 + (uint64_t)kind, "free weights");
        run_random((av_kind)kind, DATA_NEAR, W_NEG, 2, 1000, 300 + (uint64_t)kind, "neg weights");
    }
}

/* n = 0, 1, 7, 8, 9, 1000, 1001: results and no writes past n */
Test(average, sizes_and_tails)
{
    static const size_t ns[] = {0, 1, 7, 8, 9, 1000, 1001};
    const size_t guard = 19, k = 3;
    rng_t r = rng_seed(77);
    for (int kind = 0; kind < AV_COUNT; kind++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
            size_t n = ns[ni];
            av_set d;
            set_alloc(&d, n + guard, k);
            d.n = n + guard;
            gen_weights(&r, k, W_NORM, d.w);
            gen_data(&r, &d, DATA_NEAR);
            fq_fill_nan(d.out, n + guard);
            pb_quats o = d.out;
            uint32_t pattern = 0x7fc0beefu;
            float *comps[4] = {o.w, o.x, o.y, o.z};
            for (int c = 0; c < 4; c++)
                for (size_t j = 0; j < n + guard; j++)
                    memcpy(&comps[c][j], &pattern, 4);
            pb_status s = av_call((av_kind)kind, n, k, pb_cq(d.ref), d.cs, d.w, d.out);
            cr_assert_eq(s, PB_OK, "%s n=%zu: status %d", av_name[kind], n, (int)s);
            for (int c = 0; c < 4; c++)
                for (size_t j = n; j < n + guard; j++) {
                    uint32_t v;
                    memcpy(&v, &comps[c][j], 4);
                    cr_expect_eq(v, pattern,
                                 "%s n=%zu: wrote past the end (component %d, index %zu)",
                                 av_name[kind], n, c, j);
                }
            av_stats st;
            memset(&st, 0, sizeof st);
            d.n = n;
            check_set((av_kind)kind, &d, &st, "sizes");
            cr_expect(st.fails == 0 && st.sign_fails == 0, "%s n=%zu: %zu failures, max %.3g",
                      av_name[kind], n, st.fails, st.maxerr);
            d.n = n + guard;
            set_free(&d);
        }
}

/* Every count 1..40 and 64 + 1..40 (every tail length of every lane width,
 * as the first block, after whole blocks, and in a second chunk of the
 * sample-major sums), k = 3 and 20 (20: sums in two compensated blocks,
 * through the chunk scratch): within the bounds of the double reference,
 * and in place (out exactly sample 0, or exactly the reference for the _ref
 * kinds) bitwise the out-of-place result. A tail after whole blocks loads
 * whole vectors ending at n, whose first lanes hold the block before's
 * results there, and must store only its own lanes (and keep its scratch
 * apart from that block's). */
Test(average, in_place_every_tail)
{
    static const size_t ks[] = {3, 20};
    rng_t r = rng_seed(78);
    for (int kind = 0; kind < AV_COUNT; kind++)
        for (size_t ki = 0; ki < 2; ki++)
            for (size_t n = 1; n <= 104; n++) {
                if (n > 40 && n <= 64)
                    continue;
                const size_t k = ks[ki];
                av_set d;
                set_alloc(&d, n, k);
                gen_weights(&r, k, W_NORM, d.w);
                gen_data(&r, &d, DATA_NEAR);
                cr_assert_eq(av_call((av_kind)kind, n, k, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
                av_stats st; /* out of place: against the double reference */
                memset(&st, 0, sizeof st);
                check_set((av_kind)kind, &d, &st, "every tail");
                cr_expect(st.fails == 0 && st.sign_fails == 0, "%s k=%zu n=%zu: %zu failures",
                          av_name[kind], k, n, st.fails);
                for (int on_ref = 0; on_ref <= uses_ref((av_kind)kind); on_ref++) {
                    pb_quats src = on_ref ? d.ref : d.s[0];
                    pb_quats io = fq_dup(src, n);
                    pb_cquats cs[MAXK];
                    memcpy(cs, d.cs, k * sizeof cs[0]);
                    pb_cquats ref = pb_cq(d.ref);
                    if (on_ref)
                        ref = pb_cq(io);
                    else
                        cs[0] = pb_cq(io);
                    cr_assert_eq(av_call((av_kind)kind, n, k, ref, cs, d.w, io), PB_OK);
                    size_t bad = fq_first_diff(io, d.out, n);
                    cr_expect(bad == n,
                              "%s k=%zu n=%zu in place on the %s: element %zu differs from "
                              "out of place",
                              av_name[kind], k, n, on_ref ? "reference" : "first sample", bad);
                    fq_free(io);
                }
                set_free(&d);
            }
}

/* ||R(a) - R(b)||_F = 2 sqrt(2) sin(half angle) (NOTES.md), in double */
Test(average, frobenius_identity_double)
{
    rng_t r = rng_seed(3);
    for (int i = 0; i < 20; i++) {
        rq a = rng_quat(&r), b = i < 10 ? rng_quat(&r) : rng_quat_near(&r, a, 0.1 * i);
        double f = ra_frobenius_distance(a, b), s = ra_sin_half_angle(a, b);
        cr_expect(fabs(f - 2 * sqrt(2.0) * s) < 1e-12,
                  "case %d: Frobenius %.17g vs 2 sqrt(2) sin_half %.17g", i, f, 2 * sqrt(2.0) * s);
    }
}

/* the double eigen-solver itself: A v = l v, orthonormal, sorted */
Test(average, reference_eigen_solver_selfcheck)
{
    rng_t r = rng_seed(12);
    for (int it = 0; it < 200; it++) {
        double m[4][4], ev[4], vec[4][4];
        for (int a = 0; a < 4; a++)
            for (int b = a; b < 4; b++)
                m[a][b] = m[b][a] = rng_range(&r, -1, 1);
        ra_sym4_eigen(m, ev, vec);
        for (int j = 0; j < 4; j++) {
            if (j)
                cr_assert(ev[j] <= ev[j - 1]);
            for (int a = 0; a < 4; a++) {
                double s = 0;
                for (int b = 0; b < 4; b++)
                    s += m[a][b] * vec[j][b];
                cr_assert(fabs(s - ev[j] * vec[j][a]) < 1e-13, "eigen residual %g",
                          fabs(s - ev[j] * vec[j][a]));
            }
            for (int l = 0; l < 4; l++) {
                double d = 0;
                for (int a = 0; a < 4; a++)
                    d += vec[j][a] * vec[l][a];
                cr_assert(fabs(d - (j == l)) < 1e-13);
            }
        }
    }
}
