/*
 * Weighted averages (raw, log, raw_ref, log_ref, accurate, basic), the
 * rotation distance pb_quat_sin_half_angle and pb_quat_reference_extract,
 * against the independent double reference in ref_average.c.
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
#define MAXK 32
#define MAX_REPORTS 5

typedef enum { AV_RAW, AV_LOG, AV_RAW_REF, AV_LOG_REF, AV_ACCURATE, AV_BASIC, AV_COUNT } av_kind;
static const char *const av_name[AV_COUNT] = {"raw",     "log",      "raw_ref",
                                              "log_ref", "accurate", "basic"};

static int stats_on(void)
{
    const char *e = getenv("PB_TEST_STATS");
    return e && *e && *e != '0';
}

static pb_status av_call(av_kind kind, size_t n, size_t k, pb_cquats ref, const pb_cquats *s,
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

static int uses_ref(av_kind kind) { return kind == AV_RAW_REF || kind == AV_LOG_REF; }

/* Reference of one joint (the branches float rounding would take in double).
 * *gap: accurate's relative eigen-gap (1 for the other kinds). */
static void av_ref(av_kind kind, rq ref, size_t k, const rq *s, const double *w, rq *res,
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
static double acc_tol(double gap)
{
    return gap > 0 ? fmax(TOL_ROT, PB_ACCURACY_EIGEN_GAP_RAD / gap) : INFINITY;
}
static double av_tol(av_kind kind, double gap)
{
    return kind == AV_ACCURATE ? acc_tol(gap) : TOL_ROT;
}

#define AMBIG_REF 1e-6
#define AMBIG_BASIC 1e-5

/* raw_ref / log_ref with abs(ref^-1 s_i) taken the other way for bit i */
static rq ref_avg_flip(av_kind kind, rq ref, size_t k, const rq *s, const double *w, unsigned fl)
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
static rq basic_flip(size_t k, const rq *s, const double *w, unsigned fl, unsigned *amb, int *ok)
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
static double av_err(av_kind kind, rq ref, size_t k, const rq *s, const double *w, rq got, rq *exp,
                     double *gap, int *namb)
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
static int canonical(av_kind kind)
{
    return kind == AV_RAW_REF || kind == AV_LOG_REF || kind == AV_ACCURATE || kind == AV_BASIC;
}

static int fmt_q(char *b, size_t cap, rq q)
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

static void set_alloc(av_set *d, size_t n, size_t k)
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

static void set_free(av_set *d)
{
    fq_free(d->ref);
    fq_free(d->out);
    for (size_t i = 0; i < d->k; i++)
        fq_free(d->s[i]);
}

typedef enum { DATA_NEAR, DATA_WIDE } data_mode;
typedef enum { W_NORM, W_FREE, W_NEG } weight_mode;

static void gen_weights(rng_t *r, size_t k, weight_mode wm, float *w)
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

static void gen_data(rng_t *r, av_set *d, data_mode dm)
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

/* ---- properties --------------------------------------------------------------- */

static double angle_out(pb_quats a, pb_quats b, size_t j)
{
    return rq_angle_between(fq_get(a, j), fq_get(b, j));
}

Test(average, accurate_order_and_sign_invariant)
{
    const size_t n = 4000;
    static const size_t ks[] = {2, 3, 5, 8};
    rng_t r = rng_seed(555);
    size_t checked = 0, fails_perm = 0, fails_sign = 0, reports = 0;
    double max_perm = 0, max_sign = 0;
    for (size_t ki = 0; ki < 4; ki++) {
        size_t k = ks[ki];
        for (int dm = 0; dm < 2; dm++) {
            av_set d, p, f;
            set_alloc(&d, n, k);
            set_alloc(&p, n, k);
            set_alloc(&f, n, k);
            gen_weights(&r, k, W_NORM, d.w);
            gen_data(&r, &d, (data_mode)dm);
            size_t perm[MAXK];
            for (size_t i = 0; i < k; i++)
                perm[i] = i;
            for (size_t i = k - 1; i > 0; i--) { /* Fisher-Yates, never identity for k >= 2 */
                size_t j = (size_t)(rng_uniform(&r) * (double)i);
                size_t t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            for (size_t i = 0; i < k; i++) {
                p.w[i] = d.w[perm[i]];
                f.w[i] = d.w[i];
                for (size_t j = 0; j < n; j++) {
                    fq_set(p.s[i], j, fq_get(d.s[perm[i]], j));
                    double sg = rng_sign(&r);
                    fq_set(f.s[i], j, rq_scale(fq_get(d.s[i], j), sg));
                }
            }
            cr_assert_eq(pb_quat_average_accurate(n, k, d.cs, d.w, d.out), PB_OK);
            cr_assert_eq(pb_quat_average_accurate(n, k, p.cs, p.w, p.out), PB_OK);
            cr_assert_eq(pb_quat_average_accurate(n, k, f.cs, f.w, f.out), PB_OK);
            double w[MAXK];
            for (size_t i = 0; i < k; i++)
                w[i] = d.w[i];
            for (size_t j = 0; j < n; j++) {
                rq s[MAXK];
                for (size_t i = 0; i < k; i++)
                    s[i] = fq_get(d.s[i], j);
                double gap;
                rq want = ra_average_accurate(k, s, w, &gap);
                double tol = acc_tol(gap);
                checked++;
                /* each result within the header's bound of the reference (so,
                 * by the triangle inequality, within twice it of each other) */
                double e0 = rq_angle_between(want, fq_get(d.out, j));
                double ep = angle_out(d.out, p.out, j), es = angle_out(d.out, f.out, j);
                double ep_ref = rq_angle_between(want, fq_get(p.out, j));
                double es_ref = rq_angle_between(want, fq_get(f.out, j));
                if (ep > max_perm || isnan(ep))
                    max_perm = ep;
                if (es > max_sign || isnan(es))
                    max_sign = es;
                int bp = !(ep <= 2 * tol) || !(ep_ref <= tol) || fq_get(p.out, j).w < 0;
                int bs = !(es <= 2 * tol) || !(es_ref <= tol) || fq_get(f.out, j).w < 0;
                fails_perm += bp;
                fails_sign += bs;
                if ((bp || bs) && reports++ < MAX_REPORTS) {
                    char b0[128], b1[128], b2[128];
                    fmt_q(b0, sizeof b0, fq_get(d.out, j));
                    fmt_q(b1, sizeof b1, fq_get(p.out, j));
                    fmt_q(b2, sizeof b2, fq_get(f.out, j));
                    cr_expect(0,
                              "accurate invariance: joint %zu k=%zu gap %.3g (tol %.3g): "
                              "original %s (%.3g rad from reference) permuted %s (%.3g rad "
                              "from original, %.3g from reference) sign-flipped %s (%.3g rad "
                              "from original, %.3g from reference)",
                              j, k, gap, tol, b0, e0, b1, ep, ep_ref, b2, es, es_ref);
                }
            }
            set_free(&d);
            set_free(&p);
            set_free(&f);
        }
    }
    if (stats_on())
        fprintf(stderr, "[stat] accurate invariance: %zu cases, max perm %.3g, max sign %.3g\n",
                checked, max_perm, max_sign);
    cr_expect(fails_perm == 0 && fails_sign == 0,
              "accurate: permuted %zu, sign-flipped %zu of %zu results off (> max(2e-6, "
              "4e-7 / gap) rad from the reference, > 2 x that from the original, or w < 0; "
              "max change %.3g / %.3g rad)",
              fails_perm, fails_sign, checked, max_perm, max_sign);
}

Test(average, log_ref_one_hot_weight_returns_sample)
{
    const size_t n = 1001, k = 4;
    rng_t r = rng_seed(4242);
    for (int dm = 0; dm < 2; dm++)
        for (size_t hot = 0; hot < k; hot++) {
            av_set d;
            set_alloc(&d, n, k);
            gen_data(&r, &d, (data_mode)dm);
            for (size_t i = 0; i < k; i++)
                d.w[i] = i == hot ? 1.0f : 0.0f;
            cr_assert_eq(pb_quat_average_log_ref(n, k, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
            for (size_t j = 0; j < n; j++) {
                rq s = fq_get(d.s[hot], j), got = fq_get(d.out, j);
                double e = rq_angle_between(s, got);
                cr_expect(e <= TOL_ROT,
                          "log_ref one-hot: joint %zu sample %zu (%.9g, %.9g, %.9g, %.9g) got "
                          "(%.9g, %.9g, %.9g, %.9g) err %.3g rad",
                          j, hot, s.w, s.x, s.y, s.z, got.w, got.x, got.y, got.z, e);
                if (!(e <= TOL_ROT))
                    break;
            }
            set_free(&d);
        }
}

/* K identical samples (weights summing to 1) return the sample, any kind */
Test(average, identical_samples_return_the_sample)
{
    const size_t n = 1001;
    static const size_t ks[] = {1, 2, 3, 8, 17};
    rng_t r = rng_seed(99);
    for (int kind = 0; kind < AV_COUNT; kind++)
        for (size_t ki = 0; ki < 5; ki++) {
            size_t k = ks[ki];
            av_set d;
            set_alloc(&d, n, k);
            gen_weights(&r, k, W_NORM, d.w);
            for (size_t j = 0; j < n; j++) {
                rq q = rng_quat(&r);
                fq_set(d.ref, j, rng_quat(&r));
                for (size_t i = 0; i < k; i++)
                    fq_set(d.s[i], j, q);
            }
            cr_assert_eq(av_call((av_kind)kind, n, k, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
            size_t bad = 0;
            for (size_t j = 0; j < n; j++) {
                rq s = fq_get(d.s[0], j), got = fq_get(d.out, j);
                double e = rq_angle_between(s, got);
                if (!(e <= TOL_ROT) && bad++ < 3)
                    cr_expect(0,
                              "%s identical k=%zu: joint %zu sample (%.9g, %.9g, %.9g, %.9g) got "
                              "(%.9g, %.9g, %.9g, %.9g) err %.3g rad",
                              av_name[kind], k, j, s.w, s.x, s.y, s.z, got.w, got.x, got.y, got.z,
                              e);
            }
            cr_expect(bad == 0, "%s identical k=%zu: %zu of %zu joints off", av_name[kind], k, bad,
                      n);
            set_free(&d);
        }
}

/* k == 1 returns the canonicalised sample (w >= 0), for weight 1 (and, for the
 * scale-free kinds, any positive weight) */
Test(average, k1_returns_canonical_sample)
{
    const size_t n = 1001;
    static const float wts[] = {1.0f, 0.37f, 2.5f};
    rng_t r = rng_seed(11);
    for (int kind = 0; kind < AV_COUNT; kind++)
        for (int wi = 0; wi < 3; wi++) {
            if ((kind == AV_LOG || kind == AV_LOG_REF) && wi > 0)
                continue; /* linear in the weight */
            av_set d;
            set_alloc(&d, n, 1);
            d.w[0] = wts[wi];
            for (size_t j = 0; j < n; j++) {
                rq q;
                do
                    q = rng_quat(&r);
                while (fabs(q.w) < 1e-3);
                fq_set(d.s[0], j, q);
                fq_set(d.ref, j, rng_quat(&r));
            }
            cr_assert_eq(av_call((av_kind)kind, n, 1, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
            size_t bad = 0;
            for (size_t j = 0; j < n; j++) {
                rq s = rq_abs(fq_get(d.s[0], j)), got = fq_get(d.out, j);
                double e = rq_angle_between(s, got);
                int ok = e <= TOL_ROT && rq_dot(s, got) > 0;
                if (!ok && bad++ < 3)
                    cr_expect(0,
                              "%s k=1 weight %g: joint %zu abs(sample) (%.9g, %.9g, %.9g, %.9g) "
                              "got (%.9g, %.9g, %.9g, %.9g) err %.3g rad",
                              av_name[kind], (double)wts[wi], j, s.w, s.x, s.y, s.z, got.w, got.x,
                              got.y, got.z, e);
            }
            cr_expect(bad == 0, "%s k=1: %zu of %zu joints not the canonical sample", av_name[kind],
                      bad, n);
            set_free(&d);
        }
}

/* all weights zero, and samples that cancel exactly (weights +w, -w on the
 * same sample): the accumulation is exactly zero on every backend, so the
 * result is exactly the identity (raw, basic, accurate: the header's rule),
 * log gives exp(0) (the identity, within the rotation accuracy), and raw_ref /
 * log_ref the reference (canonicalised, within the rotation accuracy); never
 * a zero quaternion */
Test(average, zero_accumulation_gives_identity_or_reference)
{
    const size_t n = 37, k = 2;
    rng_t r = rng_seed(5);
    static const char *const mname[3] = {"zero weights", "cancelling samples (+-1)",
                                         "cancelling samples (+-0.3712)"};
    for (int mode = 0; mode < 3; mode++)
        for (int kind = 0; kind < AV_COUNT; kind++) {
            av_set d;
            set_alloc(&d, n, k);
            gen_data(&r, &d, DATA_WIDE);
            if (mode == 0) {
                d.w[0] = d.w[1] = 0.0f;
            } else {
                d.w[0] = mode == 1 ? 1.0f : 0.3712f;
                d.w[1] = -d.w[0];
                for (size_t j = 0; j < n; j++)
                    fq_set(d.s[1], j, fq_get(d.s[0], j));
            }
            cr_assert_eq(av_call((av_kind)kind, n, k, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
            for (size_t j = 0; j < n; j++) {
                rq got = fq_get(d.out, j);
                rq want = uses_ref((av_kind)kind) ? fq_get(d.ref, j) : rq_identity();
                double e = rq_angle_between(want, got), nrm = rq_norm(got);
                int exact_id = kind == AV_RAW || kind == AV_BASIC || kind == AV_ACCURATE;
                if (exact_id)
                    cr_expect(got.w == 1.0 && got.x == 0.0 && got.y == 0.0 && got.z == 0.0,
                              "%s %s: joint %zu got (%.9g, %.9g, %.9g, %.9g), expected exactly "
                              "the identity",
                              av_name[kind], mname[mode], j, got.w, got.x, got.y, got.z);
                cr_expect(e <= TOL_ROT && fabs(nrm - 1) < 1e-6,
                          "%s %s: joint %zu expected (%.9g, %.9g, %.9g, %.9g) got "
                          "(%.9g, %.9g, %.9g, %.9g) (norm %.9g) err %.3g rad",
                          av_name[kind], mname[mode], j, want.w, want.x, want.y, want.z, got.w,
                          got.x, got.y, got.z, nrm, e);
            }
            set_free(&d);
        }
}

/* raw_ref: ref picks each sample's hemisphere and nothing else (header), so a
 * ref scaled by 3 or by 1e-3 gives the unit ref's result, unit */
Test(average, raw_ref_independent_of_ref_norm)
{
    const size_t n = 1000, k = 4;
    rng_t r = rng_seed(77);
    av_set d;
    set_alloc(&d, n, k);
    gen_data(&r, &d, DATA_WIDE);
    gen_weights(&r, k, W_NORM, d.w);
    pb_quats unit_out = fq_alloc(n);
    cr_assert_eq(pb_quat_average_raw_ref(n, k, pb_cq(d.ref), d.cs, d.w, unit_out), PB_OK);
    static const double scales[2] = {3.0, 1e-3};
    for (int si = 0; si < 2; si++) {
        pb_quats ref = fq_alloc(n);
        for (size_t j = 0; j < n; j++)
            fq_set(ref, j, rq_scale(fq_get(d.ref, j), scales[si]));
        cr_assert_eq(pb_quat_average_raw_ref(n, k, pb_cq(ref), d.cs, d.w, d.out), PB_OK);
        size_t bad = 0;
        for (size_t j = 0; j < n; j++) {
            rq want = fq_get(unit_out, j), got = fq_get(d.out, j);
            if (!(rq_angle_between(want, got) <= TOL_ROT && fabs(rq_norm(got) - 1) < 1e-6) &&
                bad++ < 3)
                cr_expect(0,
                          "ref scaled by %g: joint %zu got (%.9g, %.9g, %.9g, %.9g), unit ref "
                          "gives (%.9g, %.9g, %.9g, %.9g)",
                          scales[si], j, got.w, got.x, got.y, got.z, want.w, want.x, want.y,
                          want.z);
        }
        cr_expect(bad == 0, "ref scaled by %g: %zu of %zu joints differ", scales[si], bad, n);
        fq_free(ref);
    }
    fq_free(unit_out);
    set_free(&d);
}

/* 180-degree rotations about x, y, z with equal weights: every sample is
 * orthogonal to the identity (the text's power iteration returns zero there).
 * The top eigenspace is span{x, y, z}: any unit vector in it is valid. */
Test(average, accurate_all_orthogonal_is_unit)
{
    const size_t n = 9;
    static const float wsets[3][4] = {{1, 1, 1, 0}, {0.25f, 0.25f, 0.25f, 0.25f}, {1, 1, 0, 0}};
    static const size_t kset[3] = {3, 4, 2};
    for (int c = 0; c < 3; c++) {
        size_t k = kset[c];
        av_set d;
        set_alloc(&d, n, k);
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < k; i++) {
                rq q = rq_make(i == 3, i == 0, i == 1, i == 2); /* x, y, z, identity */
                if (j & 1)
                    q = rq_neg(q);
                fq_set(d.s[i], j, q);
            }
        memcpy(d.w, wsets[c], sizeof(float) * k);
        cr_assert_eq(pb_quat_average_accurate(n, k, d.cs, d.w, d.out), PB_OK);
        double wd[4] = {wsets[c][0], wsets[c][1], wsets[c][2], wsets[c][3]};
        for (size_t j = 0; j < n; j++) {
            rq got = fq_get(d.out, j), s[4];
            for (size_t i = 0; i < k; i++)
                s[i] = fq_get(d.s[i], j);
            double m[4][4], ev[4], vec[4][4];
            ra_outer_sum(k, s, wd, m);
            ra_sym4_eigen(m, ev, vec);
            double g[4] = {got.w, got.x, got.y, got.z}, rayleigh = 0, nrm = rq_norm(got);
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++)
                    rayleigh += g[a] * m[a][b] * g[b];
            rayleigh /= nrm * nrm;
            cr_expect(fabs(nrm - 1) < 1e-6 && rayleigh >= ev[0] * (1 - 1e-6),
                      "accurate orthogonal set %d joint %zu: got (%.9g, %.9g, %.9g, %.9g) norm "
                      "%.9g, q^T M q = %.9g, top eigenvalue %.9g",
                      c, j, got.w, got.x, got.y, got.z, nrm, rayleigh, ev[0]);
        }
        set_free(&d);
    }
}

/* +170 / -170 degrees about one axis around a reference (NOTES.md) */
Test(average, plus_minus_170_around_reference)
{
    const size_t n = 1001, k = 2;
    rng_t r = rng_seed(170);
    av_set d;
    set_alloc(&d, n, k);
    rv3 axes[1001];
    for (size_t j = 0; j < n; j++) {
        rq ref = rng_quat(&r);
        rv3 ax = rng_unit3(&r);
        axes[j] = ax;
        double a = 170.0 * REF_PI / 180.0;
        fq_set(d.ref, j, ref);
        fq_set(d.s[0], j, rq_mul(ref, rq_from_axis_angle(ax, a)));
        fq_set(d.s[1], j, rq_scale(rq_mul(ref, rq_from_axis_angle(ax, -a)), rng_sign(&r)));
    }
    d.w[0] = d.w[1] = 0.5f;
    for (int kind = AV_RAW_REF; kind <= AV_ACCURATE; kind++) {
        cr_assert_eq(av_call((av_kind)kind, n, k, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
        size_t bad = 0;
        for (size_t j = 0; j < n; j++) {
            rq ref = fq_get(d.ref, j), got = fq_get(d.out, j), want;
            if (kind == AV_ACCURATE)
                want = rq_mul(ref, rq_make(0, axes[j].x, axes[j].y, axes[j].z));
            else
                want = ref;
            double e = rq_angle_between(want, got);
            /* also against the exact formula from the float inputs */
            rq s[2] = {fq_get(d.s[0], j), fq_get(d.s[1], j)}, exact;
            double w[2] = {0.5, 0.5};
            double gap;
            int amb;
            double e2 = av_err((av_kind)kind, ref, 2, s, w, got, &exact, &gap, &amb);
            double tol = av_tol((av_kind)kind, gap);
            if ((!(e <= 1e-5) || !(e2 <= tol)) && bad++ < 3)
                cr_expect(0,
                          "%s +-170: joint %zu ref (%.9g, %.9g, %.9g, %.9g) axis (%.9g, %.9g, "
                          "%.9g): got (%.9g, %.9g, %.9g, %.9g), %.3g rad from the ideal, %.3g "
                          "rad from the exact formula",
                          av_name[kind], j, ref.w, ref.x, ref.y, ref.z, axes[j].x, axes[j].y,
                          axes[j].z, got.w, got.x, got.y, got.z, e, e2);
        }
        cr_expect(bad == 0, "%s +-170: %zu of %zu joints wrong", av_name[kind], bad, n);
    }
    set_free(&d);
}

/* pb_quat_reference_extract == accurate average of the frames, equal weights */
Test(average, reference_extract)
{
    static const size_t frames_l[] = {1, 2, 5, 17};
    static const size_t joints_l[] = {1, 9, 1001};
    rng_t r = rng_seed(31337);
    for (size_t fi = 0; fi < 4; fi++)
        for (size_t ji = 0; ji < 3; ji++)
            for (int dm = 0; dm < 2; dm++) {
                size_t F = frames_l[fi], J = joints_l[ji];
                pb_quats poses = fq_alloc(F * J), out = fq_alloc(J), acc = fq_alloc(J);
                pb_cquats samples[17];
                float w1[17];
                for (size_t j = 0; j < J; j++) {
                    rq base = rng_quat(&r);
                    for (size_t f = 0; f < F; f++)
                        fq_set(poses, f * J + j,
                               dm == DATA_NEAR
                                   ? rq_scale(rng_quat_near(&r, base, 1.0), rng_sign(&r))
                                   : rng_quat(&r));
                }
                for (size_t f = 0; f < F; f++) {
                    pb_cquats c = {poses.w + f * J, poses.x + f * J, poses.y + f * J,
                                   poses.z + f * J};
                    samples[f] = c;
                    w1[f] = 1.0f;
                }
                fq_fill_nan(out, J);
                cr_assert_eq(pb_quat_reference_extract(F, J, pb_cq(poses), out), PB_OK);
                cr_assert_eq(pb_quat_average_accurate(J, F, samples, w1, acc), PB_OK);
                size_t bad = 0;
                for (size_t j = 0; j < J; j++) {
                    rq s[17];
                    double wd[17], gap;
                    for (size_t f = 0; f < F; f++) {
                        s[f] = fq_get(poses, f * J + j);
                        wd[f] = 1.0;
                    }
                    rq want = ra_average_accurate(F, s, wd, &gap);
                    double tol = acc_tol(gap);
                    rq got = fq_get(out, j), got2 = fq_get(acc, j);
                    double e = rq_angle_between(want, got), e2 = rq_angle_between(got2, got);
                    /* both within the header's bound of the reference: twice it
                     * between them */
                    if ((!(e <= tol) || !(e2 <= 2 * tol) || got.w < 0) && bad++ < 3) {
                        char fb[2048];
                        int o = 0;
                        for (size_t f = 0; f < F && o < 1900; f++)
                            o += fmt_q(fb + o, sizeof fb - (size_t)o, s[f]);
                        cr_expect(0,
                                  "reference_extract frames=%zu joints=%zu joint %zu: reference "
                                  "err %.3g rad (gap %.3g, tol %.3g), vs average_accurate %.3g "
                                  "rad; got (%.9g, %.9g, %.9g, %.9g) want (%.9g, %.9g, %.9g, "
                                  "%.9g); frames %s",
                                  F, J, j, e, gap, tol, e2, got.w, got.x, got.y, got.z, want.w,
                                  want.x, want.y, want.z, fb);
                    }
                }
                cr_expect(bad == 0, "reference_extract frames=%zu joints=%zu: %zu joints off", F, J,
                          bad);
                fq_free(poses);
                fq_free(out);
                fq_free(acc);
            }
}

/* ---- rotation distance ----------------------------------------------------------- */

Test(average, sin_half_angle)
{
    static const size_t ns[] = {0, 1, 7, 8, 9, 1000, 1001, 100000};
    rng_t r = rng_seed(8);
    double maxerr = 0;
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        size_t n = ns[ni], guard = 9;
        pb_quats a = fq_alloc(n), b = fq_alloc(n);
        float *out = malloc(sizeof(float) * (n + guard));
        cr_assert(out);
        for (size_t j = 0; j < n; j++) {
            rq qa = rng_quat(&r), qb;
            int mode = (int)(j % 4);
            if (mode == 0)
                qb = rng_quat(&r);
            else if (mode == 1)
                qb = rq_scale(rng_quat_near(&r, qa, 1e-3), rng_sign(&r));
            else if (mode == 2) /* near 180 degrees */
                qb = rq_scale(rng_quat_near(&r, rq_mul(qa, rq_make(0, 0.6, 0.8, 0)), 1e-2),
                              rng_sign(&r));
            else
                qb = rq_scale(rng_quat_near(&r, qa, rng_logrange(&r, 1e-7, 3.0)), rng_sign(&r));
            fq_set(a, j, qa);
            fq_set(b, j, qb);
        }
        for (size_t j = 0; j < n + guard; j++)
            out[j] = -7.0f;
        cr_assert_eq(pb_quat_sin_half_angle(n, pb_cq(a), pb_cq(b), out), PB_OK);
        size_t bad = 0;
        for (size_t j = 0; j < n; j++) {
            rq qa = fq_get(a, j), qb = fq_get(b, j);
            double want = ra_sin_half_angle(qa, qb), e = fabs(want - out[j]);
            if (e > maxerr || isnan(e))
                maxerr = e;
            int ok = e <= 2e-7 && out[j] >= 0.0f && out[j] <= 1.0f;
            if (!ok && bad++ < 3)
                cr_expect(0,
                          "sin_half_angle n=%zu j=%zu: a (%.9g, %.9g, %.9g, %.9g) b (%.9g, %.9g, "
                          "%.9g, %.9g): got %.9g want %.12g err %.3g",
                          n, j, qa.w, qa.x, qa.y, qa.z, qb.w, qb.x, qb.y, qb.z, (double)out[j],
                          want, e);
        }
        cr_expect(bad == 0, "sin_half_angle n=%zu: %zu of %zu values off by > 2e-7", n, bad, n);
        for (size_t j = n; j < n + guard; j++)
            cr_expect_eq(out[j], -7.0f, "sin_half_angle n=%zu: wrote past the end at %zu", n, j);
        fq_free(a);
        fq_free(b);
        free(out);
    }
    if (stats_on())
        fprintf(stderr, "[stat] sin_half_angle max abs err %.3g\n", maxerr);
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
