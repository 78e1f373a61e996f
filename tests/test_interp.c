/*
 * Cubic interpolators (vec3, quaternion Hermite / Catmull-Rom, raw 4D cubic,
 * log-space scales) against the double reference (tests/ref.c).
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
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"
#include "ref.h"

#define U24 REF_U24
#define BATCH 100
#define ROUNDS 1000
#define AMBIG 1e-6
#define UNIT_TOL 0x1.0p-21

static const pb_vec3s NOVEL = {NULL, NULL, NULL};
static const pb_quats NOVEL4 = {NULL, NULL, NULL, NULL};

static int rq_isfinite(rq q)
{
    return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z);
}

/* max measured errors, printed with POSEBATCH_TEST_VERBOSE: rotation angle
 * (rad), velocity relative error (over |vref| >= 0.1) and ratio to tolerance */
typedef struct {
    double rot, vrel, vratio;
} qstats;

static void qs_add(qstats *s, double rot, rv3 v, rv3 vref)
{
    if (rot > s->rot)
        s->rot = rot;
    double n = rv3_norm(vref), e = rv3_dist(v, vref);
    if (n >= 0.1 && e / n > s->vrel)
        s->vrel = e / n;
    double r = ref_vel_err(v, vref);
    if (r > s->vratio)
        s->vratio = r;
}

static void qs_print(const char *name, const qstats *s)
{
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr,
                "{stats} %s: max rot err %.3g rad, max vel rel err %.3g (|vref|>=0.1), "
                "max vel err/tol %.3g\n",
                name, s->rot, s->vrel, s->vratio);
}

/* rotation check: ratio of the angle error to tol, unit norm, finiteness */
static double rot_ratio(rq out, rq ref, double tol, double *ang)
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

/* is the sign decision for the offset from a to b ambiguous in float? */
static int offset_ambiguous(rq a, rq b)
{
    rq d = rq_mul_inv(b, a);
    return fabs(d.w) <= AMBIG * rq_norm(d);
}

/* ---- key generators ---------------------------------------------------------- */

typedef struct {
    rq r[4];
    rv3 v0, v1; /* hermite velocities */
} keyset;

/* realistic: consecutive keys of smooth motion (neighbours within 0.5 rad),
 * either hemisphere; velocities of similar size. wide: keys anywhere,
 * velocities up to 2 pi. */
static keyset gen_keys(rng_t *r, int wide)
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

static qbatch qb_alloc(size_t n)
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

static void qb_free(qbatch *b)
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

static void qb_set(qbatch *b, size_t i, const keyset *k)
{
    for (int j = 0; j < 4; j++)
        fq_set(b->r[j], i, k->r[j]);
    fv_set(b->v0, i, k->v0);
    fv_set(b->v1, i, k->v1);
}

static keyset qb_get(const qbatch *b, size_t i)
{
    keyset k;
    for (int j = 0; j < 4; j++)
        k.r[j] = fq_get(b->r[j], i);
    k.v0 = fv_get(b->v0, i);
    k.v1 = fv_get(b->v1, i);
    return k;
}

/* ---- best-matching reference over ambiguous branches ------------------------ */

typedef enum { K_HERMITE, K_CATMULL } qkind;

/* reference for hermite (keys r[0], r[1], v0, v1) or catmull (r[0..3]) with
 * the sign flips in mask applied to the ambiguous offsets */
static void qref(qkind kind, double x, const keyset *k, int exact, unsigned mask, rq *rot, rv3 *vel)
{
    if (kind == K_HERMITE) {
        ref_quat_hermite_d(x, k->r[0], ref_offset(k->r[0], k->r[1], (int)(mask & 1u)), k->v0, k->v1,
                           exact, rot, vel);
    } else {
        ref_quat_catmull_rom_d(x, k->r[1], ref_offset(k->r[0], k->r[1], (int)(mask & 1u)),
                               ref_offset(k->r[1], k->r[2], (int)((mask >> 1) & 1u)),
                               ref_offset(k->r[2], k->r[3], (int)((mask >> 2) & 1u)), exact, rot,
                               vel);
    }
}

static unsigned ambiguous_mask(qkind kind, const keyset *k)
{
    unsigned m = 0;
    if (kind == K_HERMITE)
        return offset_ambiguous(k->r[0], k->r[1]) ? 1u : 0u;
    for (int j = 0; j < 3; j++)
        if (offset_ambiguous(k->r[j], k->r[j + 1]))
            m |= 1u << j;
    return m;
}

/* Checks one element against the reference (all ambiguous branch choices
 * tried, the best kept). Returns the worse of rotation and velocity ratios. */
static double qcheck(qkind kind, double x, const keyset *k, int exact, rq out, rv3 vel, int has_vel,
                     double rot_tol, double *rerr, double *verr, rq *rref, rv3 *vref)
{
    unsigned amb = ambiguous_mask(kind, k);
    double best = INFINITY;
    int first = 1;
    for (unsigned m = 0; m < 8; m++) {
        if (m & ~amb)
            continue;
        rq rr;
        rv3 vr;
        qref(kind, x, k, exact, m, &rr, &vr);
        double ang, ratio = rot_ratio(out, rr, rot_tol, &ang);
        double ve = 0.0;
        if (has_vel) {
            ve = ref_vel_err(vel, vr);
            if (isnan(ve))
                ve = INFINITY;
            if (ve > ratio)
                ratio = ve;
        }
        if (first || ratio < best) {
            first = 0;
            best = ratio;
            *rerr = ang;
            *verr = has_vel ? rv3_dist(vel, vr) / (rv3_norm(vr) + 1e-30) : 0.0;
            *rref = rr;
            *vref = vr;
        }
    }
    return best;
}

/* The header's accuracy range: offsets and velocities (d, v0, v1, or the
 * Catmull-Rom offsets and tangents) and the blended offset u all of scaled
 * angle-axis magnitude <= 2 pi. Returns 1 when the case is inside it; *U gets
 * |w1||d| + |w2||t0| + |w3||t1| (t0, t1 the velocities or tangents), the
 * bound on the float magnitude of u. Outside, rotations are within
 * 2e-6 + 2^-22 U and velocity accuracy is not stated. */
static int in_normal_range(qkind kind, double x, const keyset *k, double *U)
{
    double w[3], q[3];
    ref_hermite_basis(x, w, q);
    rv3 d, t0, t1;
    if (kind == K_HERMITE) {
        d = ref_offset(k->r[0], k->r[1], 0);
        t0 = k->v0;
        t1 = k->v1;
    } else {
        rv3 d01 = ref_offset(k->r[0], k->r[1], 0), d23 = ref_offset(k->r[2], k->r[3], 0);
        d = ref_offset(k->r[1], k->r[2], 0);
        t0 = rv3_scale(rv3_add(d01, d), 0.5);
        t1 = rv3_scale(rv3_add(d, d23), 0.5);
    }
    rv3 u = rv3_add(rv3_scale(d, w[0]), rv3_add(rv3_scale(t0, w[1]), rv3_scale(t1, w[2])));
    *U = fabs(w[0]) * rv3_norm(d) + fabs(w[1]) * rv3_norm(t0) + fabs(w[2]) * rv3_norm(t1);
    double lim = 2.0 * REF_PI;
    return rv3_norm(u) <= lim && rv3_norm(d) <= lim && rv3_norm(t0) <= lim && rv3_norm(t1) <= lim;
}

static pb_status call_q(qkind kind, size_t n, float x, qbatch *b, unsigned flags, pb_quats rot,
                        pb_vec3s vel)
{
    if (kind == K_HERMITE)
        return pb_quat_hermite(n, x, pb_cq(b->r[0]), pb_cq(b->r[1]), pb_cv(b->v0), pb_cv(b->v1),
                               flags, rot, vel);
    return pb_quat_catmull_rom(n, x, pb_cq(b->r[0]), pb_cq(b->r[1]), pb_cq(b->r[2]), pb_cq(b->r[3]),
                               flags, rot, vel);
}

static void describe_keys(char *buf, size_t n, qkind kind, const keyset *k)
{
    if (kind == K_HERMITE)
        snprintf(buf, n, "r0=" RQ_FMT " r1=" RQ_FMT " v0=" RV_FMT " v1=" RV_FMT, RQ_ARG(k->r[0]),
                 RQ_ARG(k->r[1]), RV_ARG(k->v0), RV_ARG(k->v1));
    else
        snprintf(buf, n, "r0=" RQ_FMT " r1=" RQ_FMT " r2=" RQ_FMT " r3=" RQ_FMT, RQ_ARG(k->r[0]),
                 RQ_ARG(k->r[1]), RQ_ARG(k->r[2]), RQ_ARG(k->r[3]));
}

/* 10^5 random cases of hermite or catmull-rom, default and exact velocity,
 * plus the same call without velocity output. */
static void quat_random_test(qkind kind, int wide, uint64_t seed, double xlo, double xhi)
{
    rng_t r = rng_seed(seed);
    qbatch b = qb_alloc(BATCH);
    const char *kn = kind == K_HERMITE ? "quat_hermite" : "quat_catmull_rom";
    char n0[128], n1[128], n2[128];
    snprintf(n0, sizeof n0, "%s %s x in [%g, %g] default vel", kn, wide ? "wide" : "realistic", xlo,
             xhi);
    snprintf(n1, sizeof n1, "%s %s x in [%g, %g] PB_EXACT_VELOCITY", kn,
             wide ? "wide" : "realistic", xlo, xhi);
    snprintf(n2, sizeof n2, "%s %s x in [%g, %g] no vel output", kn, wide ? "wide" : "realistic",
             xlo, xhi);
    ref_track t0, t1, t2;
    rt_init(&t0, n0);
    rt_init(&t1, n1);
    rt_init(&t2, n2);
    qstats st[2] = {{0, 0, 0}, {0, 0, 0}};
    size_t nout = 0; /* cases outside the normal range (|u| etc. > 2 pi) */
    for (int round = 0; round < ROUNDS; round++) {
        float x = (float)rng_range(&r, xlo, xhi);
        if (round == 0)
            x = 0.0f;
        if (round == 1)
            x = 1.0f;
        for (size_t i = 0; i < BATCH; i++) {
            keyset k = gen_keys(&r, wide);
            qb_set(&b, i, &k);
        }
        cr_assert_eq(call_q(kind, BATCH, x, &b, 0u, b.rot, b.vel), PB_OK);
        cr_assert_eq(call_q(kind, BATCH, x, &b, PB_EXACT_VELOCITY, b.rot2, b.vel2), PB_OK);
        for (int pass = 0; pass < 2; pass++) {
            pb_quats rot = pass ? b.rot2 : b.rot;
            pb_vec3s vel = pass ? b.vel2 : b.vel;
            ref_track *t = pass ? &t1 : &t0;
            for (size_t i = 0; i < BATCH; i++) {
                keyset k = qb_get(&b, i);
                rq out = fq_get(rot, i), rr = rq_identity();
                rv3 v = fv_get(vel, i), vr = rv3_make(0, 0, 0);
                double re = 0.0, ve = 0.0, U;
                int normal = in_normal_range(kind, x, &k, &U);
                double tol = PB_ACCURACY_ROTATION_RAD + (normal ? 0.0 : 0x1.0p-22 * U);
                double ratio = qcheck(kind, x, &k, pass, out, v, normal, tol, &re, &ve, &rr, &vr);
                if (!normal) {
                    nout++;
                    if (!(isfinite(v.x) && isfinite(v.y) && isfinite(v.z)))
                        ratio = INFINITY;
                }
                if (normal)
                    qs_add(&st[pass], re, v, vr);
                if (rt_add(t, (size_t)round * BATCH + i, re, ratio)) {
                    char kb[512];
                    describe_keys(kb, sizeof kb, kind, &k);
                    rt_note(t,
                            "x=%.9g %s -> rot=" RQ_FMT " ref=" RQ_FMT
                            " (angle err %.3g) vel=" RV_FMT " ref=" RV_FMT " (rel err %.3g)",
                            (double)x, kb, RQ_ARG(out), RQ_ARG(rr), re, RV_ARG(v), RV_ARG(vr), ve);
                }
            }
        }
        /* velocity omitted: rotation only */
        if (round % 10 == 0) {
            cr_assert_eq(
                call_q(kind, BATCH, x, &b, round % 20 ? PB_EXACT_VELOCITY : 0u, b.rot2, NOVEL),
                PB_OK);
            for (size_t i = 0; i < BATCH; i++) {
                keyset k = qb_get(&b, i);
                rq out = fq_get(b.rot2, i), rr = rq_identity();
                rv3 vr = rv3_make(0, 0, 0);
                double re = 0.0, ve = 0.0, U;
                int normal = in_normal_range(kind, x, &k, &U);
                double tol = PB_ACCURACY_ROTATION_RAD + (normal ? 0.0 : 0x1.0p-22 * U);
                double ratio = qcheck(kind, x, &k, 0, out, vr, 0, tol, &re, &ve, &rr, &vr);
                if (rt_add(&t2, (size_t)round * BATCH + i, re, ratio))
                    rt_note(&t2, "x=%.9g rot=" RQ_FMT " ref=" RQ_FMT, (double)x, RQ_ARG(out),
                            RQ_ARG(rr));
            }
        }
    }
    qs_print(n0, &st[0]);
    qs_print(n1, &st[1]);
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr,
                "%s: %zu of %d checks outside |u| <= 2 pi (rotation to 2e-6 + 2^-22 U, "
                "velocity finite)\n",
                kn, nout, 2 * ROUNDS * BATCH);
    RT_EXPECT(t0);
    RT_EXPECT(t1);
    RT_EXPECT(t2);
    qb_free(&b);
}

Test(interp, quat_hermite_realistic) { quat_random_test(K_HERMITE, 0, 201, 0.0, 1.0); }
Test(interp, quat_hermite_wide) { quat_random_test(K_HERMITE, 1, 202, 0.0, 1.0); }
Test(interp, quat_catmull_rom_realistic) { quat_random_test(K_CATMULL, 0, 203, 0.0, 1.0); }
Test(interp, quat_catmull_rom_wide) { quat_random_test(K_CATMULL, 1, 204, 0.0, 1.0); }
/* extrapolation: x in [-0.5, 1.5]; wide Catmull-Rom keys can take |u| past
 * 2 pi there (checked to the header's growth bound, see in_normal_range) */
Test(interp, quat_hermite_extrapolated) { quat_random_test(K_HERMITE, 0, 205, -0.5, 1.5); }
Test(interp, quat_catmull_rom_extrapolated) { quat_random_test(K_CATMULL, 1, 206, -0.5, 1.5); }

/* ---- reference cross-check: closed-form J_l vs finite difference ------------- */

Test(interp, reference_exact_velocity_closed_form_matches_finite_difference)
{
    rng_t r = rng_seed(207);
    double worst = 0.0;
    for (int i = 0; i < 20000; i++) {
        keyset k = gen_keys(&r, i % 2);
        double x = rng_range(&r, -0.5, 1.5), h = 1e-5;
        rq qm, qp, q0;
        rv3 vm, vp, ve;
        ref_quat_catmull_rom(x - h, k.r[0], k.r[1], k.r[2], k.r[3], 1, &qm, &vm);
        ref_quat_catmull_rom(x + h, k.r[0], k.r[1], k.r[2], k.r[3], 1, &qp, &vp);
        ref_quat_catmull_rom(x, k.r[0], k.r[1], k.r[2], k.r[3], 1, &q0, &ve);
        rv3 fd = ref_fd_angular_velocity(qm, qp, h);
        double e = rv3_dist(fd, ve) / (rv3_norm(ve) + 1e-3);
        if (e > worst)
            worst = e;
        cr_assert(e < 1e-7, "reference J_l %g vs FD at x=%g: " RV_FMT " vs " RV_FMT, e, x,
                  RV_ARG(ve), RV_ARG(fd));
        /* tiny offsets: the series branch */
        rq a = rq_round(rng_quat(&r));
        rv3 d = rv3_scale(rng_unit3(&r), rng_logrange(&r, 1e-9, 1e-2));
        rv3 w = rng_ball3(&r, 1.0);
        rv3 j1 = ref_left_jacobian_apply(d, w);
        double hh = 1e-6;
        rq pm = rq_mul(rq_from_scaled_angle_axis(rv3_sub(d, rv3_scale(w, hh))), a);
        rq pp = rq_mul(rq_from_scaled_angle_axis(rv3_add(d, rv3_scale(w, hh))), a);
        rv3 fd2 = ref_fd_angular_velocity(pm, pp, hh);
        cr_assert(rv3_dist(fd2, j1) <= 1e-8 * (rv3_norm(j1) + 1.0),
                  "reference J_l series vs FD: |u|=%g " RV_FMT " vs " RV_FMT, rv3_norm(d),
                  RV_ARG(j1), RV_ARG(fd2));
    }
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr, "[reference J_l vs FD] max rel %.3g\n", worst);
}

/* ---- PB_EXACT_VELOCITY vs finite differences of the double reference curve -- */

Test(interp, exact_velocity_matches_finite_difference_everywhere)
{
    rng_t r = rng_seed(208);
    qbatch b = qb_alloc(BATCH);
    ref_track t;
    rt_init(&t, "catmull-rom/hermite exact vel vs FD(double curve)");
    for (int round = 0; round < 200; round++) {
        qkind kind = round % 2 ? K_HERMITE : K_CATMULL;
        float x = (float)rng_uniform(&r);
        for (size_t i = 0; i < BATCH; i++) {
            keyset k = gen_keys(&r, round % 4 >= 2);
            qb_set(&b, i, &k);
        }
        cr_assert_eq(call_q(kind, BATCH, x, &b, PB_EXACT_VELOCITY, b.rot, b.vel), PB_OK);
        for (size_t i = 0; i < BATCH; i++) {
            keyset k = qb_get(&b, i);
            if (ambiguous_mask(kind, &k))
                continue;
            double h = 1e-5;
            rq qm, qp;
            rv3 dummy;
            qref(kind, (double)x - h, &k, 1, 0, &qm, &dummy);
            qref(kind, (double)x + h, &k, 1, 0, &qp, &dummy);
            rv3 fd = ref_fd_angular_velocity(qm, qp, h);
            rv3 v = fv_get(b.vel, i);
            double e = ref_vel_err(v, fd);
            if (rt_add(&t, (size_t)round * BATCH + i, rv3_dist(v, fd), e))
                rt_note(&t, "%s x=%.9g vel=" RV_FMT " FD=" RV_FMT,
                        kind == K_HERMITE ? "hermite" : "catmull", (double)x, RV_ARG(v),
                        RV_ARG(fd));
        }
    }
    RT_EXPECT(t);
    qb_free(&b);
}

/* The default velocity equals a finite difference of the library's own
 * rotation curve at x = 0; the exact one everywhere; the default one in
 * general not in the middle of the segment (NOTES.md: ~|step|/2 relative). */
Test(interp, default_velocity_is_curve_derivative_only_at_x0)
{
    rng_t r = rng_seed(209);
    size_t n = 2000;
    qbatch b = qb_alloc(n);
    for (size_t i = 0; i < n; i++) {
        keyset k = gen_keys(&r, 0);
        qb_set(&b, i, &k);
    }
    const float h = 1.0f / 64.0f; /* exact in float; FD of float rotations */
    pb_quats rm = fq_alloc(n), rp = fq_alloc(n);
    double worst0 = 0.0, worst_exact = 0.0, max_dev_mid = 0.0;
    size_t worst_i = 0;
    for (int which = 0; which < 3; which++) {
        float x = which == 0 ? 0.0f : 0.5f;
        unsigned flags = which == 2 ? PB_EXACT_VELOCITY : 0u;
        cr_assert_eq(pb_quat_catmull_rom(n, x, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                         pb_cq(b.r[3]), flags, b.rot, b.vel),
                     PB_OK);
        cr_assert_eq(pb_quat_catmull_rom(n, x - h, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                         pb_cq(b.r[3]), 0u, rm, NOVEL),
                     PB_OK);
        cr_assert_eq(pb_quat_catmull_rom(n, x + h, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                         pb_cq(b.r[3]), 0u, rp, NOVEL),
                     PB_OK);
        for (size_t i = 0; i < n; i++) {
            /* central difference of the float curve (Richardson-free, h = 1/64):
             * truncation ~ h^2/6 |w''| and rounding 2 * 2e-6 / (2h) */
            rv3 fd = ref_fd_angular_velocity(fq_get(rm, i), fq_get(rp, i), h);
            rv3 v = fv_get(b.vel, i);
            double dev = rv3_dist(v, fd) / (rv3_norm(fd) + 1e-9);
            double tol_abs = 2.0 * PB_ACCURACY_ROTATION_RAD / (2.0 * h);
            double ok = rv3_dist(v, fd) / (2e-3 * rv3_norm(fd) + tol_abs);
            if (which == 0) {
                if (ok > worst0)
                    worst0 = ok, worst_i = i;
            } else if (which == 2) {
                if (ok > worst_exact)
                    worst_exact = ok, worst_i = i;
            } else if (rv3_norm(fd) > 0.1 && dev > max_dev_mid) {
                max_dev_mid = dev;
            }
        }
    }
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr,
                "[default vel vs FD] x=0 worst ratio %.3g; exact x=0.5 worst ratio %.3g; default "
                "x=0.5 max rel deviation %.3g\n",
                worst0, worst_exact, max_dev_mid);
    cr_expect(worst0 <= 1.0,
              "default velocity at x=0 differs from FD of the curve (ratio %.3g, i=%zu)", worst0,
              worst_i);
    cr_expect(worst_exact <= 1.0,
              "exact velocity at x=0.5 differs from FD of the curve (ratio %.3g, i=%zu)",
              worst_exact, worst_i);
    /* the default (du/dx) velocity is not the curve's derivative mid-segment */
    cr_expect(max_dev_mid > 1e-2,
              "default velocity at x=0.5 matches FD everywhere (max dev %.3g): is it the exact "
              "one?",
              max_dev_mid);
    fq_free(rm);
    fq_free(rp);
    qb_free(&b);
}

/* ---- properties and edge cases ------------------------------------------------- */

Test(interp, catmull_rom_endpoints_and_start_velocity)
{
    rng_t r = rng_seed(210);
    size_t n = 10007;
    qbatch b = qb_alloc(n);
    for (size_t i = 0; i < n; i++) {
        keyset k = gen_keys(&r, i % 3 == 0);
        qb_set(&b, i, &k);
    }
    ref_track t0, t1;
    rt_init(&t0, "catmull x=0: rot == r1, vel == (d01 + d12)/2");
    rt_init(&t1, "catmull x=1: rot == +-r2");
    for (int flags = 0; flags < 2; flags++) {
        cr_assert_eq(pb_quat_catmull_rom(n, 0.0f, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                         pb_cq(b.r[3]), flags ? PB_EXACT_VELOCITY : 0u, b.rot,
                                         b.vel),
                     PB_OK);
        cr_assert_eq(pb_quat_catmull_rom(n, 1.0f, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                         pb_cq(b.r[3]), flags ? PB_EXACT_VELOCITY : 0u, b.rot2,
                                         b.vel2),
                     PB_OK);
        for (size_t i = 0; i < n; i++) {
            keyset k = qb_get(&b, i);
            double ang;
            rq out = fq_get(b.rot, i);
            rv3 v = fv_get(b.vel, i);
            rv3 want = rv3_scale(
                rv3_add(ref_offset(k.r[0], k.r[1], 0), ref_offset(k.r[1], k.r[2], 0)), 0.5);
            double ratio = rot_ratio(out, k.r[1], PB_ACCURACY_ROTATION_RAD, &ang);
            if (!ambiguous_mask(K_CATMULL, &k))
                ratio = fmax(ratio, ref_vel_err(v, want));
            if (rt_add(&t0, i, ang, ratio))
                rt_note(&t0,
                        "flags=%d r0=" RQ_FMT " r1=" RQ_FMT " r2=" RQ_FMT " rot=" RQ_FMT
                        " vel=" RV_FMT " want " RV_FMT,
                        flags, RQ_ARG(k.r[0]), RQ_ARG(k.r[1]), RQ_ARG(k.r[2]), RQ_ARG(out),
                        RV_ARG(v), RV_ARG(want));
            rq out1 = fq_get(b.rot2, i);
            ratio = rot_ratio(out1, k.r[2], PB_ACCURACY_ROTATION_RAD, &ang);
            if (rt_add(&t1, i, ang, ratio))
                rt_note(&t1, "r1=" RQ_FMT " r2=" RQ_FMT " rot(1)=" RQ_FMT, RQ_ARG(k.r[1]),
                        RQ_ARG(k.r[2]), RQ_ARG(out1));
        }
    }
    RT_EXPECT(t0);
    RT_EXPECT(t1);
    qb_free(&b);
}

Test(interp, hermite_zero_velocity_same_keys_returns_r0)
{
    rng_t r = rng_seed(211);
    size_t n = 1001;
    qbatch b = qb_alloc(n);
    for (size_t i = 0; i < n; i++) {
        keyset k;
        k.r[0] = rq_round(rng_quat(&r));
        k.r[1] = i % 2 ? k.r[0] : rq_neg(k.r[0]);
        k.r[2] = k.r[3] = k.r[0];
        k.v0 = k.v1 = rv3_make(0, 0, 0);
        qb_set(&b, i, &k);
    }
    static const float xs[] = {0.0f, 0.25f, 0.5f, 1.0f, -1.0f, 2.0f};
    for (size_t s = 0; s < sizeof xs / sizeof xs[0]; s++)
        for (int flags = 0; flags < 2; flags++) {
            cr_assert_eq(pb_quat_hermite(n, xs[s], pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cv(b.v0),
                                         pb_cv(b.v1), flags ? PB_EXACT_VELOCITY : 0u, b.rot, b.vel),
                         PB_OK);
            cr_assert_eq(pb_quat_catmull_rom(n, xs[s], pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                             pb_cq(b.r[3]), flags ? PB_EXACT_VELOCITY : 0u, b.rot2,
                                             b.vel2),
                         PB_OK);
            for (size_t i = 0; i < n; i++) {
                rq r0 = fq_get(b.r[0], i), o = fq_get(b.rot, i), o2 = fq_get(b.rot2, i);
                rv3 v = fv_get(b.vel, i), v2 = fv_get(b.vel2, i);
                double a1 = rq_angle_between(o, r0), a2 = rq_angle_between(o2, r0);
                cr_expect(a1 <= PB_ACCURACY_ROTATION_RAD && rv3_norm(v) <= 1e-6 &&
                              fabs(rq_norm(o) - 1.0) <= UNIT_TOL,
                          "hermite identical keys, zero vel: x=%g i=%zu r0=" RQ_FMT " rot=" RQ_FMT
                          " (angle %.3g) vel=" RV_FMT,
                          (double)xs[s], i, RQ_ARG(r0), RQ_ARG(o), a1, RV_ARG(v));
                cr_expect(a2 <= PB_ACCURACY_ROTATION_RAD && rv3_norm(v2) <= 1e-6,
                          "catmull identical keys: x=%g i=%zu r=" RQ_FMT " rot=" RQ_FMT
                          " (angle %.3g) vel=" RV_FMT,
                          (double)xs[s], i, RQ_ARG(r0), RQ_ARG(o2), a2, RV_ARG(v2));
                if (i % 2 == 1) /* r1 == r0 exactly: rot is r0 itself (not -r0) */
                    cr_expect(rq_dot(o, r0) > 0.0, "hermite r0 == r1: sign flipped at i=%zu", i);
            }
        }
    qb_free(&b);
}

/* 180-degree deltas, tiny deltas 1e-8..1e-3, at random x */
Test(interp, edge_deltas_180_degrees_and_tiny)
{
    rng_t r = rng_seed(212);
    size_t n = BATCH;
    qbatch b = qb_alloc(n);
    ref_track t;
    rt_init(&t, "quat hermite/catmull 180-degree and tiny deltas");
    for (int round = 0; round < 400; round++) {
        qkind kind = round % 2 ? K_HERMITE : K_CATMULL;
        int exact = (round / 2) % 2;
        float x = (float)rng_uniform(&r);
        if (round < 8)
            x = (float)(round / 4);
        for (size_t i = 0; i < n; i++) {
            keyset k;
            int mode = (int)(i % 4);
            k.r[0] = rng_quat(&r);
            for (int j = 1; j < 4; j++) {
                if (mode == 0) { /* exact 180-degree about an axis, from exact floats */
                    static const rq flips[3] = {{0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
                    k.r[j] = rq_mul(flips[(i / 4 + (size_t)j) % 3], k.r[j - 1]);
                } else if (mode == 1) { /* 180-degree about a random axis */
                    rv3 ax = rng_unit3(&r);
                    k.r[j] = rq_mul(rq_make(0, ax.x, ax.y, ax.z), k.r[j - 1]);
                } else { /* tiny */
                    k.r[j] = rng_quat_near(&r, k.r[j - 1], rng_logrange(&r, 1e-8, 1e-3));
                }
            }
            if (mode == 0 && (i / 4) % 2)
                k.r[0] = rq_identity(); /* identity-based exact */
            if (mode == 0 && (i / 4) % 2)
                for (int j = 1; j < 4; j++)
                    k.r[j] = (rq){0, (double)(j == 1), (double)(j == 2), (double)(j == 3)};
            for (int j = 0; j < 4; j++)
                k.r[j] = rq_round(k.r[j]);
            k.v0 = rv3_round(rng_ball3(&r, mode >= 2 ? 1e-3 : 1.0));
            k.v1 = rv3_round(rng_ball3(&r, mode >= 2 ? 1e-3 : 1.0));
            qb_set(&b, i, &k);
        }
        cr_assert_eq(call_q(kind, n, x, &b, exact ? PB_EXACT_VELOCITY : 0u, b.rot, b.vel), PB_OK);
        for (size_t i = 0; i < n; i++) {
            keyset k = qb_get(&b, i);
            rq out = fq_get(b.rot, i), rr = rq_identity();
            rv3 v = fv_get(b.vel, i), vr = rv3_make(0, 0, 0);
            double re = 0.0, ve = 0.0;
            double ratio =
                qcheck(kind, x, &k, exact, out, v, 1, PB_ACCURACY_ROTATION_RAD, &re, &ve, &rr, &vr);
            if (rt_add(&t, (size_t)round * n + i, re, ratio)) {
                char kb[512];
                describe_keys(kb, sizeof kb, kind, &k);
                rt_note(&t,
                        "%s exact=%d mode=%d x=%.9g %s rot=" RQ_FMT " ref=" RQ_FMT
                        " (err %.3g) vel=" RV_FMT " ref=" RV_FMT,
                        kind == K_HERMITE ? "hermite" : "catmull", exact, (int)(i % 4), (double)x,
                        kb, RQ_ARG(out), RQ_ARG(rr), re, RV_ARG(v), RV_ARG(vr));
            }
        }
    }
    RT_EXPECT(t);
    qb_free(&b);
}

/* Huge velocities (|v| 4 pi .. 1e4): finite, unit, and within the header's
 * stated growth 2e-6 + 2^-22 U, U = |w1||d| + |w2||v0| + |w3||v1| (a bound on
 * the float magnitude of u). The header states velocity accuracy only for
 * |u| <= 2 pi, so the velocity is only required to be finite here. */
Test(interp, hermite_huge_velocities)
{
    rng_t r = rng_seed(213);
    size_t n = BATCH;
    qbatch b = qb_alloc(n);
    ref_track t;
    rt_init(&t, "quat_hermite huge velocities: rot err <= 2e-6 + 2^-22 U, vel finite");
    for (int round = 0; round < 200; round++) {
        float x = (float)rng_uniform(&r);
        int exact = round % 2;
        for (size_t i = 0; i < n; i++) {
            keyset k = gen_keys(&r, 1);
            k.v0 = rv3_round(rv3_scale(rng_unit3(&r), rng_logrange(&r, 4.0 * REF_PI, 1e4)));
            k.v1 = rv3_round(rv3_scale(rng_unit3(&r), rng_logrange(&r, 4.0 * REF_PI, 1e4)));
            qb_set(&b, i, &k);
        }
        cr_assert_eq(pb_quat_hermite(n, x, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cv(b.v0), pb_cv(b.v1),
                                     exact ? PB_EXACT_VELOCITY : 0u, b.rot, b.vel),
                     PB_OK);
        double w[3], q[3];
        ref_hermite_basis(x, w, q);
        for (size_t i = 0; i < n; i++) {
            keyset k = qb_get(&b, i);
            /* U bounds the float magnitude of u = w1 d + w2 v0 + w3 v1 */
            double U = fabs(w[0]) * rv3_norm(ref_offset(k.r[0], k.r[1], 0)) +
                       fabs(w[1]) * rv3_norm(k.v0) + fabs(w[2]) * rv3_norm(k.v1);
            double tol = PB_ACCURACY_ROTATION_RAD + 0x1.0p-22 * U;
            rq out = fq_get(b.rot, i), rr = rq_identity();
            rv3 v = fv_get(b.vel, i), vr = rv3_make(0, 0, 0);
            double re = 0.0, ve = 0.0;
            /* the velocity accuracy is stated only for |u| <= 2 pi: here the
             * velocity need only be finite */
            double ratio = qcheck(K_HERMITE, x, &k, exact, out, v, 0, tol, &re, &ve, &rr, &vr);
            if (!(isfinite(v.x) && isfinite(v.y) && isfinite(v.z)))
                ratio = INFINITY;
            if (rt_add(&t, (size_t)round * n + i, re, ratio))
                rt_note(&t,
                        "exact=%d x=%.9g r0=" RQ_FMT " r1=" RQ_FMT " v0=" RV_FMT " v1=" RV_FMT
                        " rot=" RQ_FMT " ref=" RQ_FMT " err %.3g (tol %.3g, U %.4g) vel " RV_FMT,
                        exact, (double)x, RQ_ARG(k.r[0]), RQ_ARG(k.r[1]), RV_ARG(k.v0),
                        RV_ARG(k.v1), RQ_ARG(out), RQ_ARG(rr), re, tol, U, RV_ARG(v));
        }
    }
    RT_EXPECT(t);
    qb_free(&b);
}

Test(interp, catmull_rom_in_place_rot_is_r1)
{
    /* an output may be exactly an input array */
    rng_t r = rng_seed(214);
    size_t n = 1001;
    qbatch b = qb_alloc(n);
    pb_quats keep = fq_alloc(n);
    for (size_t i = 0; i < n; i++) {
        keyset k = gen_keys(&r, 0);
        qb_set(&b, i, &k);
        fq_set(keep, i, k.r[1]);
    }
    float x = 0.375f;
    cr_assert_eq(pb_quat_catmull_rom(n, x, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                     pb_cq(b.r[3]), PB_EXACT_VELOCITY, b.r[1], b.vel),
                 PB_OK);
    for (size_t i = 0; i < n; i++) {
        keyset k = qb_get(&b, i);
        k.r[1] = fq_get(keep, i);
        rq rr;
        rv3 vr;
        ref_quat_catmull_rom(x, k.r[0], k.r[1], k.r[2], k.r[3], 1, &rr, &vr);
        rq out = fq_get(b.r[1], i);
        double ang = rq_angle_between(out, rr);
        cr_expect(ang <= PB_ACCURACY_ROTATION_RAD && ref_vel_ok(fv_get(b.vel, i), vr),
                  "in place i=%zu angle %.3g", i, ang);
    }
    fq_free(keep);
    qb_free(&b);
}

Test(interp, partial_null_velocity_is_error)
{
    float w = 1, x = 0, y = 0, z = 0, ox, oy, oz, ow, vx, vz;
    pb_cquats q = {&w, &x, &y, &z};
    pb_cvec3s v = {&x, &y, &z};
    pb_vec3s partial = {&vx, NULL, &vz};
    pb_quats rot = {&ow, &ox, &oy, &oz};
    cr_expect_eq(pb_quat_hermite(1, 0.5f, q, q, v, v, 0u, rot, partial), PB_ERR_NULL);
    cr_expect_eq(pb_quat_catmull_rom(1, 0.5f, q, q, q, q, 0u, rot, partial), PB_ERR_NULL);
}

/* ---- raw 4D cubic ------------------------------------------------------------ */

static unsigned raw_ambiguous(const keyset *k)
{
    unsigned m = 0;
    rq r0 = k->r[0], r1 = k->r[1], r2 = k->r[2], r3 = k->r[3];
    if (fabs(rq_dot(r0, r1)) <= AMBIG)
        m |= 1u;
    if (fabs(rq_dot(r2, r1)) <= AMBIG)
        m |= 2u;
    if (rq_dot(r2, r1) < 0.0)
        r2 = rq_neg(r2);
    if (fabs(rq_dot(r3, r2)) <= AMBIG)
        m |= 4u;
    return m;
}

/* exact angular velocity of the normalised raw cubic at x (double):
 * 2 vec(n' conj(n)) */
static rv3 raw_exact_omega(double x, const keyset *k, unsigned mask)
{
    rq n, dn;
    ref_quat_raw_cubic_ex(x, k->r[0], k->r[1], k->r[2], k->r[3], 1, mask, &n, &dn);
    return ref_delta_to_angular_velocity(n, dn);
}

static void raw_random_test(int wide, uint64_t seed)
{
    rng_t r = rng_seed(seed);
    qbatch b = qb_alloc(BATCH);
    pb_vec3s om = fv_alloc(BATCH);
    char n0[96], n1[96], n2[96], n3[96];
    const char *dn = wide ? "wide" : "realistic";
    snprintf(n0, sizeof n0, "raw_cubic %s rot + vel4 default", dn);
    snprintf(n1, sizeof n1, "raw_cubic %s vel4 PB_EXACT_VELOCITY", dn);
    snprintf(n2, sizeof n2, "raw_cubic %s delta_to_angular_velocity(rot, vel4 exact)", dn);
    snprintf(n3, sizeof n3, "raw_cubic %s exact omega vs FD(double curve)", dn);
    ref_track t0, t1, t2, t3;
    double mx_rot = 0, mx_v4 = 0, mx_v4e = 0, mx_om = 0;
    rt_init(&t0, n0);
    rt_init(&t1, n1);
    rt_init(&t2, n2);
    rt_init(&t3, n3);
    for (int round = 0; round < ROUNDS; round++) {
        float x = (float)rng_uniform(&r);
        if (round == 0)
            x = 0.0f;
        if (round == 1)
            x = 1.0f;
        for (size_t i = 0; i < BATCH; i++) {
            keyset k = gen_keys(&r, wide);
            qb_set(&b, i, &k);
        }
        cr_assert_eq(pb_quat_raw_cubic(BATCH, x, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                       pb_cq(b.r[3]), 0u, b.rot, b.vel4),
                     PB_OK);
        cr_assert_eq(pb_quat_raw_cubic(BATCH, x, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                       pb_cq(b.r[3]), PB_EXACT_VELOCITY, b.rot2, b.vel4b),
                     PB_OK);
        cr_assert_eq(pb_quat_delta_to_angular_velocity(BATCH, pb_cq(b.rot2), pb_cq(b.vel4b), om),
                     PB_OK);
        for (size_t i = 0; i < BATCH; i++) {
            keyset k = qb_get(&b, i);
            unsigned amb = raw_ambiguous(&k);
            double best[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
            double err[4] = {0, 0, 0, 0};
            rq bref = rq_identity(), bv4 = rq_identity(), bv4e = rq_identity();
            rv3 bom = rv3_make(0, 0, 0);
            rq out = fq_get(b.rot, i), out2 = fq_get(b.rot2, i);
            rq v4 = fq_get(b.vel4, i), v4e = fq_get(b.vel4b, i);
            rv3 w = fv_get(om, i);
            for (unsigned m = 0; m < 8; m++) {
                if (m & ~amb)
                    continue;
                rq rr, vr, rre, vre;
                ref_quat_raw_cubic_ex(x, k.r[0], k.r[1], k.r[2], k.r[3], 0, m, &rr, &vr);
                ref_quat_raw_cubic_ex(x, k.r[0], k.r[1], k.r[2], k.r[3], 1, m, &rre, &vre);
                rv3 omega = ref_delta_to_angular_velocity(rre, vre);
                double a0, a1;
                /* the normalised cubic is sign-sensitive: compare as 4-vectors */
                double q0 = rot_ratio(out, rr, PB_ACCURACY_ROTATION_RAD, &a0);
                if (rq_dot(out, rr) < 0.0)
                    q0 = INFINITY;
                double e0 = fmax(q0, ref_vel4_err(v4, vr));
                double q1 = rot_ratio(out2, rre, PB_ACCURACY_ROTATION_RAD, &a1);
                if (rq_dot(out2, rre) < 0.0)
                    q1 = INFINITY;
                double e1 = fmax(q1, ref_vel4_err(v4e, vre));
                double e2 = ref_vel_err(w, omega);
                if (isnan(e0))
                    e0 = INFINITY;
                if (isnan(e1))
                    e1 = INFINITY;
                if (isnan(e2))
                    e2 = INFINITY;
                if (m == 0 || e0 < best[0]) {
                    best[0] = e0;
                    err[0] = a0;
                    bref = rr;
                    bv4 = vr;
                }
                if (m == 0 || e1 < best[1]) {
                    best[1] = e1;
                    err[1] = a1;
                    bv4e = vre;
                }
                if (m == 0 || e2 < best[2]) {
                    best[2] = e2;
                    err[2] = rv3_dist(w, omega);
                    bom = omega;
                }
            }
            size_t idx = (size_t)round * BATCH + i;
            mx_rot = fmax(mx_rot, fmax(err[0], err[1]));
            if (rq_norm(bv4) >= 0.1)
                mx_v4 = fmax(mx_v4, rq_norm(rq_sub(v4, bv4)) / rq_norm(bv4));
            if (rq_norm(bv4e) >= 0.1)
                mx_v4e = fmax(mx_v4e, rq_norm(rq_sub(v4e, bv4e)) / rq_norm(bv4e));
            if (rv3_norm(bom) >= 0.1)
                mx_om = fmax(mx_om, rv3_dist(w, bom) / rv3_norm(bom));
            char kb[512];
            describe_keys(kb, sizeof kb, K_CATMULL, &k);
            if (rt_add(&t0, idx, err[0], best[0]))
                rt_note(&t0, "x=%.9g %s rot=" RQ_FMT " ref=" RQ_FMT " vel4=" RQ_FMT " ref=" RQ_FMT,
                        (double)x, kb, RQ_ARG(out), RQ_ARG(bref), RQ_ARG(v4), RQ_ARG(bv4));
            if (rt_add(&t1, idx, err[1], best[1]))
                rt_note(&t1, "x=%.9g %s rot=" RQ_FMT " vel4=" RQ_FMT " ref=" RQ_FMT, (double)x, kb,
                        RQ_ARG(out2), RQ_ARG(v4e), RQ_ARG(bv4e));
            if (rt_add(&t2, idx, err[2], best[2]))
                rt_note(&t2, "x=%.9g %s omega=" RV_FMT " ref=" RV_FMT, (double)x, kb, RV_ARG(w),
                        RV_ARG(bom));
            /* the reference's exact omega is the derivative of its own curve */
            if (!amb && i % 10 == 0) {
                double h = 1e-5;
                rq qm, qp, dm;
                ref_quat_raw_cubic(x - h, k.r[0], k.r[1], k.r[2], k.r[3], 1, &qm, &dm);
                ref_quat_raw_cubic(x + h, k.r[0], k.r[1], k.r[2], k.r[3], 1, &qp, &dm);
                rv3 fd = ref_fd_angular_velocity(qm, qp, h);
                rv3 oref = raw_exact_omega(x, &k, 0);
                double e3 = ref_vel_err(w, fd);
                if (rt_add(&t3, idx, rv3_dist(w, fd), e3))
                    rt_note(&t3, "x=%.9g %s omega=" RV_FMT " FD=" RV_FMT " ref=" RV_FMT, (double)x,
                            kb, RV_ARG(w), RV_ARG(fd), RV_ARG(oref));
            }
        }
    }
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr,
                "{stats} raw_cubic %s: max rot err %.3g rad; rel err (|ref|>=0.1): vel4 %.3g, "
                "vel4 exact %.3g, omega %.3g\n",
                dn, mx_rot, mx_v4, mx_v4e, mx_om);
    RT_EXPECT(t0);
    RT_EXPECT(t1);
    RT_EXPECT(t2);
    RT_EXPECT(t3);
    fv_free(om);
    qb_free(&b);
}

Test(interp, raw_cubic_realistic) { raw_random_test(0, 215); }
Test(interp, raw_cubic_wide) { raw_random_test(1, 216); }

Test(interp, raw_cubic_hemisphere_invariance_and_edges)
{
    /* flipping the signs of r0, r2, r3 changes nothing (they are aligned);
     * flipping r1 negates the result (same rotation) */
    rng_t r = rng_seed(217);
    size_t n = 1000;
    qbatch b = qb_alloc(n), c = qb_alloc(n);
    for (size_t i = 0; i < n; i++) {
        keyset k = gen_keys(&r, 0);
        for (int j = 0; j < 4; j++)
            k.r[j] = rq_abs(k.r[j]);
        qb_set(&b, i, &k);
        if (i % 2)
            k.r[0] = rq_neg(k.r[0]);
        if (i % 3)
            k.r[2] = rq_neg(k.r[2]);
        if (i % 5)
            k.r[3] = rq_neg(k.r[3]);
        qb_set(&c, i, &k);
    }
    float x = 0.625f;
    cr_assert_eq(pb_quat_raw_cubic(n, x, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]), pb_cq(b.r[3]),
                                   PB_EXACT_VELOCITY, b.rot, b.vel4),
                 PB_OK);
    cr_assert_eq(pb_quat_raw_cubic(n, x, pb_cq(c.r[0]), pb_cq(c.r[1]), pb_cq(c.r[2]), pb_cq(c.r[3]),
                                   PB_EXACT_VELOCITY, c.rot, c.vel4),
                 PB_OK);
    for (size_t i = 0; i < n; i++) {
        rq a = fq_get(b.rot, i), bb = fq_get(c.rot, i);
        cr_expect(rq_angle4(a, bb) <= 1e-6 &&
                      ref_vel4_err(fq_get(c.vel4, i), fq_get(b.vel4, i)) <= 1.0,
                  "raw_cubic not hemisphere-invariant at i=%zu: " RQ_FMT " vs " RQ_FMT, i,
                  RQ_ARG(a), RQ_ARG(bb));
    }
    /* velocity omitted */
    cr_assert_eq(pb_quat_raw_cubic(n, x, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]), pb_cq(b.r[3]),
                                   0u, c.rot, NOVEL4),
                 PB_OK);
    for (size_t i = 0; i < n; i++)
        cr_expect(rq_angle4(fq_get(b.rot, i), fq_get(c.rot, i)) <= 1e-6,
                  "raw_cubic without vel4 differs at i=%zu", i);
    /* partial NULL vel4 */
    pb_quats partial = {b.vel4.w, NULL, b.vel4.y, b.vel4.z};
    cr_expect_eq(pb_quat_raw_cubic(n, x, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]), pb_cq(b.r[3]),
                                   0u, c.rot, partial),
                 PB_ERR_NULL);
    /* a cubic through zero normalises to the identity: all keys zero */
    for (size_t i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            fq_set(b.r[j], i, rq_make(0, 0, 0, 0));
    cr_assert_eq(pb_quat_raw_cubic(5, 0.3f, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                   pb_cq(b.r[3]), 0u, b.rot, b.vel4),
                 PB_OK);
    for (size_t i = 0; i < 5; i++) {
        rq o = fq_get(b.rot, i);
        cr_expect(o.w == 1.0 && o.x == 0.0 && o.y == 0.0 && o.z == 0.0,
                  "raw_cubic of zero keys = " RQ_FMT ", expected identity", RQ_ARG(o));
    }
    /* identical keys: constant, zero velocity */
    for (size_t i = 0; i < n; i++) {
        rq q = rq_round(rng_quat(&r));
        for (int j = 0; j < 4; j++)
            fq_set(b.r[j], i, j == 2 ? rq_neg(q) : q);
    }
    cr_assert_eq(pb_quat_raw_cubic(n, 0.7f, pb_cq(b.r[0]), pb_cq(b.r[1]), pb_cq(b.r[2]),
                                   pb_cq(b.r[3]), PB_EXACT_VELOCITY, b.rot, b.vel4),
                 PB_OK);
    for (size_t i = 0; i < n; i++) {
        rq q = fq_get(b.r[1], i), o = fq_get(b.rot, i);
        cr_expect(rq_angle4(q, o) <= 1e-6 && rq_norm(fq_get(b.vel4, i)) <= 1e-6,
                  "raw_cubic identical keys i=%zu: " RQ_FMT " -> " RQ_FMT " vel4 " RQ_FMT, i,
                  RQ_ARG(q), RQ_ARG(o), RQ_ARG(fq_get(b.vel4, i)));
    }
    qb_free(&b);
    qb_free(&c);
}

/* ---- vec3 ------------------------------------------------------------------ */

/* |monomial| sums of the basis (absolute rounding scale of each weight) */
static void abs_basis(double x, double W[4], double Q[4])
{
    double ax = fabs(x), x2 = x * x, ax3 = ax * x2;
    W[0] = 2 * ax3 + 3 * x2 + 1; /* w0 (full form) */
    W[1] = 3 * x2 + 2 * ax3;
    W[2] = ax3 + 2 * x2 + ax;
    W[3] = ax3 + x2;
    Q[0] = 6 * ax + 6 * x2;
    Q[1] = 6 * ax + 6 * x2;
    Q[2] = 3 * x2 + 4 * ax + 1;
    Q[3] = 3 * x2 + 2 * ax;
}

static double comp_ratio(rv3 out, rv3 ref, rv3 scale)
{
    double r = 0.0;
    double o[3] = {out.x, out.y, out.z}, f[3] = {ref.x, ref.y, ref.z};
    double s[3] = {scale.x, scale.y, scale.z};
    for (int c = 0; c < 3; c++) {
        double e = fabs(o[c] - f[c]) / (8.0 * U24 * s[c] + 1e-300);
        if (isnan(e))
            e = INFINITY;
        if (e > r)
            r = e;
    }
    return r;
}

static rv3 rv3_abs(rv3 a) { return rv3_make(fabs(a.x), fabs(a.y), fabs(a.z)); }
static rv3 lin_abs(double a, rv3 p, double b, rv3 q)
{
    return rv3_add(rv3_scale(rv3_abs(p), a), rv3_scale(rv3_abs(q), b));
}

static void vec3_test(int catmull, int wide, uint64_t seed)
{
    rng_t r = rng_seed(seed);
    size_t n = BATCH;
    pb_vec3s p[4], pos = fv_alloc(n), vel = fv_alloc(n);
    for (int j = 0; j < 4; j++)
        p[j] = fv_alloc(n);
    char name[96];
    snprintf(name, sizeof name, "vec3_%s %s", catmull ? "catmull_rom" : "hermite",
             wide ? "wide" : "realistic");
    ref_track t;
    rt_init(&t, name);
    for (int round = 0; round < ROUNDS; round++) {
        float x = (float)(wide ? rng_range(&r, -1.0, 2.0) : rng_uniform(&r));
        for (size_t i = 0; i < n; i++) {
            rv3 base = rng_vec3(&r, wide ? 1e4 : 2.0);
            for (int j = 0; j < 4; j++)
                fv_set(p[j], i,
                       catmull || j < 2 ? rv3_add(base, rng_vec3(&r, wide ? 1e3 : 0.1))
                                        : rng_vec3(&r, wide ? 1e3 : 1.0));
        }
        pb_status st = catmull ? pb_vec3_catmull_rom(n, x, pb_cv(p[0]), pb_cv(p[1]), pb_cv(p[2]),
                                                     pb_cv(p[3]), pos, vel)
                               : pb_vec3_hermite(n, x, pb_cv(p[0]), pb_cv(p[1]), pb_cv(p[2]),
                                                 pb_cv(p[3]), pos, vel);
        cr_assert_eq(st, PB_OK);
        double W[4], Q[4];
        abs_basis(x, W, Q);
        for (size_t i = 0; i < n; i++) {
            rv3 a = fv_get(p[0], i), bb = fv_get(p[1], i), c = fv_get(p[2], i), d = fv_get(p[3], i);
            rv3 rp, rv, sp, sv;
            if (catmull) {
                ref_vec3_catmull_rom(x, a, bb, c, d, &rp, &rv);
                /* tangents (c - a)/2, (d - bb)/2: scales of their operands */
                rv3 t1 = rv3_scale(rv3_add(rv3_abs(c), rv3_abs(a)), 0.5);
                rv3 t2 = rv3_scale(rv3_add(rv3_abs(d), rv3_abs(bb)), 0.5);
                rv3 pp = rv3_add(rv3_abs(bb), rv3_abs(c));
                sp = rv3_add(rv3_add(rv3_scale(pp, 1 + W[0] + W[1]), rv3_scale(t1, 2 * W[2])),
                             rv3_scale(t2, 2 * W[3]));
                sv = rv3_add(rv3_add(rv3_scale(pp, Q[0] + Q[1]), rv3_scale(t1, 2 * Q[2])),
                             rv3_scale(t2, 2 * Q[3]));
            } else {
                ref_vec3_hermite(x, a, bb, c, d, &rp, &rv);
                rv3 pp = rv3_add(rv3_abs(a), rv3_abs(bb));
                sp = rv3_add(rv3_scale(pp, 1 + W[0] + W[1]), lin_abs(W[2], c, W[3], d));
                sv = rv3_add(rv3_scale(pp, Q[0] + Q[1]), lin_abs(Q[2], c, Q[3], d));
            }
            rv3 op = fv_get(pos, i), ov = fv_get(vel, i);
            double ratio = fmax(comp_ratio(op, rp, sp), comp_ratio(ov, rv, sv));
            if (rt_add(&t, (size_t)round * n + i, fmax(rv3_dist(op, rp), rv3_dist(ov, rv)), ratio))
                rt_note(&t,
                        "x=%.9g p0=" RV_FMT " p1=" RV_FMT " p2/v0=" RV_FMT " p3/v1=" RV_FMT
                        " pos=" RV_FMT " ref=" RV_FMT " vel=" RV_FMT " ref=" RV_FMT,
                        (double)x, RV_ARG(a), RV_ARG(bb), RV_ARG(c), RV_ARG(d), RV_ARG(op),
                        RV_ARG(rp), RV_ARG(ov), RV_ARG(rv));
        }
        /* no velocity output */
        if (round % 50 == 0) {
            pb_vec3s pos2 = fv_alloc(n);
            st = catmull ? pb_vec3_catmull_rom(n, x, pb_cv(p[0]), pb_cv(p[1]), pb_cv(p[2]),
                                               pb_cv(p[3]), pos2, NOVEL)
                         : pb_vec3_hermite(n, x, pb_cv(p[0]), pb_cv(p[1]), pb_cv(p[2]), pb_cv(p[3]),
                                           pos2, NOVEL);
            cr_assert_eq(st, PB_OK);
            for (size_t i = 0; i < n; i++)
                cr_expect(rv3_dist(fv_get(pos2, i), fv_get(pos, i)) == 0.0,
                          "%s: pos without vel differs at i=%zu", name, i);
            fv_free(pos2);
        }
    }
    RT_EXPECT(t);
    for (int j = 0; j < 4; j++)
        fv_free(p[j]);
    fv_free(pos);
    fv_free(vel);
}

Test(interp, vec3_hermite_realistic) { vec3_test(0, 0, 218); }
Test(interp, vec3_hermite_wide) { vec3_test(0, 1, 219); }
Test(interp, vec3_catmull_rom_realistic) { vec3_test(1, 0, 220); }
Test(interp, vec3_catmull_rom_wide) { vec3_test(1, 1, 221); }

Test(interp, vec3_endpoints)
{
    /* pos(0) = p0, pos(1) = p1, vel(0) = v0, vel(1) = v1 (to rounding) */
    rng_t r = rng_seed(222);
    size_t n = 1001;
    pb_vec3s p[4], pos = fv_alloc(n), vel = fv_alloc(n);
    for (int j = 0; j < 4; j++) {
        p[j] = fv_alloc(n);
        for (size_t i = 0; i < n; i++)
            fv_set(p[j], i, rng_vec3(&r, 10.0));
    }
    for (int e = 0; e < 2; e++) {
        cr_assert_eq(pb_vec3_hermite(n, (float)e, pb_cv(p[0]), pb_cv(p[1]), pb_cv(p[2]),
                                     pb_cv(p[3]), pos, vel),
                     PB_OK);
        for (size_t i = 0; i < n; i++) {
            rv3 wp = fv_get(p[e], i), wv = fv_get(p[2 + e], i);
            double tol =
                8.0 * U24 * (rv3_norm(fv_get(p[0], i)) + rv3_norm(fv_get(p[1], i)) + rv3_norm(wv));
            cr_expect(rv3_dist(fv_get(pos, i), wp) <= tol &&
                          rv3_dist(fv_get(vel, i), wv) <= 4 * tol,
                      "vec3_hermite x=%d i=%zu pos " RV_FMT " want " RV_FMT " vel " RV_FMT
                      " want " RV_FMT,
                      e, i, RV_ARG(fv_get(pos, i)), RV_ARG(wp), RV_ARG(fv_get(vel, i)), RV_ARG(wv));
        }
    }
    for (int j = 0; j < 4; j++)
        fv_free(p[j]);
    fv_free(pos);
    fv_free(vel);
}

/* ---- scales ------------------------------------------------------------------ */

static void scale_test(int catmull, int wide, uint64_t seed)
{
    rng_t r = rng_seed(seed);
    size_t n = BATCH;
    pb_vec3s s[4], scl = fv_alloc(n), svel = fv_alloc(n);
    for (int j = 0; j < 4; j++)
        s[j] = fv_alloc(n);
    char name[96];
    snprintf(name, sizeof name, "scale_%s %s", catmull ? "catmull_rom" : "hermite",
             wide ? "wide" : "realistic");
    ref_track t;
    rt_init(&t, name);
    double svrel = 0.0;
    for (int round = 0; round < ROUNDS; round++) {
        float x = (float)rng_uniform(&r);
        if (round == 0)
            x = 0.0f;
        if (round == 1)
            x = 1.0f;
        for (size_t i = 0; i < n; i++) {
            rv3 base = wide ? rv3_make(rng_logrange(&r, 1e-2, 1e2), rng_logrange(&r, 1e-2, 1e2),
                                       rng_logrange(&r, 1e-2, 1e2))
                            : rv3_make(rng_logrange(&r, 0.5, 2), rng_logrange(&r, 0.5, 2),
                                       rng_logrange(&r, 0.5, 2));
            double spread = wide ? 1.0 : 0.3; /* log-ratio between neighbours */
            rv3 cur = base;
            for (int j = 0; j < 4; j++) {
                if (!catmull && j >= 2) { /* v0, v1: log-scale velocities */
                    fv_set(s[j], i, rng_vec3(&r, wide ? 3.0 : 0.5));
                    continue;
                }
                fv_set(s[j], i, cur);
                cur = rv3_make(cur.x * exp(rng_range(&r, -spread, spread)),
                               cur.y * exp(rng_range(&r, -spread, spread)),
                               cur.z * exp(rng_range(&r, -spread, spread)));
            }
            if (i % 17 == 0) /* identical neighbours, exact 1 */
                for (int j = 0; j < (catmull ? 4 : 2); j++)
                    fv_set(s[j], i, rv3_make(1, 1, 1));
        }
        pb_status st = catmull ? pb_scale_catmull_rom(n, x, pb_cv(s[0]), pb_cv(s[1]), pb_cv(s[2]),
                                                      pb_cv(s[3]), scl, svel)
                               : pb_scale_hermite(n, x, pb_cv(s[0]), pb_cv(s[1]), pb_cv(s[2]),
                                                  pb_cv(s[3]), scl, svel);
        cr_assert_eq(st, PB_OK);
        for (size_t i = 0; i < n; i++) {
            rv3 a = fv_get(s[0], i), b = fv_get(s[1], i), c = fv_get(s[2], i), d = fv_get(s[3], i);
            rv3 rs, rv;
            if (catmull)
                ref_scale_catmull_rom(x, a, b, c, d, &rs, &rv);
            else
                ref_scale_hermite(x, a, b, c, d, &rs, &rv);
            rv3 os = fv_get(scl, i), ov = fv_get(svel, i);
            double es =
                fmax(fmax(fabs(os.x / rs.x - 1), fabs(os.y / rs.y - 1)), fabs(os.z / rs.z - 1));
            if (isnan(es))
                es = INFINITY;
            double ratio = fmax(es / PB_ACCURACY_SCALE_REL, ref_vel_err(ov, rv));
            if (isnan(ratio))
                ratio = INFINITY;
            if (rv3_norm(rv) >= 0.1)
                svrel = fmax(svrel, rv3_dist(ov, rv) / rv3_norm(rv));
            if (rt_add(&t, (size_t)round * n + i, es, ratio))
                rt_note(&t,
                        "x=%.9g s0=" RV_FMT " s1=" RV_FMT " s2/v0=" RV_FMT " s3/v1=" RV_FMT
                        " scale=" RV_FMT " ref=" RV_FMT " (rel %.3g) svel=" RV_FMT " ref=" RV_FMT,
                        (double)x, RV_ARG(a), RV_ARG(b), RV_ARG(c), RV_ARG(d), RV_ARG(os),
                        RV_ARG(rs), es, RV_ARG(ov), RV_ARG(rv));
        }
    }
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr, "{stats} %s: max scale rel err %.3g, max svel rel err %.3g (|ref|>=0.1)\n",
                name, t.max_err, svrel);
    RT_EXPECT(t);
    for (int j = 0; j < 4; j++)
        fv_free(s[j]);
    fv_free(scl);
    fv_free(svel);
}

Test(interp, scale_hermite_realistic) { scale_test(0, 0, 223); }
Test(interp, scale_hermite_wide) { scale_test(0, 1, 224); }
Test(interp, scale_catmull_rom_realistic) { scale_test(1, 0, 225); }
Test(interp, scale_catmull_rom_wide) { scale_test(1, 1, 226); }

/* Neighbouring keys a few ulps apart (1..64, either way, per component;
 * every 7th element one component exactly equal, svel exactly 0): the
 * log-scale velocity of pb_scale_hermite at x = 1/2 with zero tangents is
 * 1.5 ln(s1 / s0), which must come out within 1e-6 of itself (the header:
 * ln(a/b) to an ulp of the log however near 1; the log of the rounded ratio
 * erred by up to 65% of it), and the scale within 2e-6;
 * every 11th element a pair whose sum overflows (3e38, 2.4e38: the log of
 * their ratio, not the atanh form's 0). Every joint count 1..40, 71, 150. */
Test(interp, scale_velocity_of_keys_ulps_apart)
{
    rng_t r = rng_seed(227);
    const size_t N = 150;
    pb_vec3s s0 = fv_alloc(N), s1 = fv_alloc(N), z = fv_alloc(N), scl = fv_alloc(N),
             svel = fv_alloc(N);
    float *a[3] = {s0.x, s0.y, s0.z}, *b[3] = {s1.x, s1.y, s1.z};
    const float *ov[3] = {svel.x, svel.y, svel.z}, *os[3] = {scl.x, scl.y, scl.z};
    for (size_t i = 0; i < N; i++) {
        fv_set(z, i, rv3_make(0, 0, 0));
        for (int c = 0; c < 3; c++) {
            float x = (float)rng_logrange(&r, 1e-2, 1e2), y = x;
            int steps = 1 + (int)(rng_uniform(&r) * 64.0), up = rng_uniform(&r) < 0.5;
            for (int k = 0; k < steps && !(i % 7 == 0 && c == (int)(i % 3)); k++)
                y = nextafterf(y, up ? INFINITY : 0.0f);
            a[c][i] = x;
            b[c][i] = y;
        }
        if (i % 11 == 4) { /* a sum beyond float range: not the atanh form */
            a[1][i] = 3.0e38f;
            b[1][i] = 2.4e38f;
        }
    }
    size_t bad = 0;
    double worst = 0;
    for (size_t n = 1; n <= N; n = n < 40 ? n + 1 : n == 40 ? 71 : n == 71 ? N : N + 1) {
        cr_assert_eq(pb_scale_hermite(n, 0.5f, pb_cv(s0), pb_cv(s1), pb_cv(z), pb_cv(z), scl, svel),
                     PB_OK);
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++) {
                double l = log((double)b[c][i] / (double)a[c][i]), want = 1.5 * l;
                double got = ov[c][i], sc = os[c][i];
                double sw = (double)a[c][i] * exp(0.5 * l);
                double e = want == 0 ? fabs(got) : fabs(got - want) / fabs(want);
                if (e > worst)
                    worst = e;
                if (!(e <= 1e-6 && fabs(sc - sw) <= 2e-6 * sw) && bad++ < 12)
                    cr_expect(0,
                              "n=%zu i=%zu axis %d: s0 %.9g s1 %.9g svel %.9g want %.9g (rel %.3g) "
                              "scale %.9g want %.9g",
                              n, i, c, (double)a[c][i], (double)b[c][i], got, want, e, sc, sw);
            }
    }
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr, "{stats} scale velocity, keys ulps apart: max rel err %.3g\n", worst);
    cr_expect(bad == 0, "%zu elements off", bad);
    fv_free(s0);
    fv_free(s1);
    fv_free(z);
    fv_free(scl);
    fv_free(svel);
}

Test(interp, scale_nonpositive_component_only_affects_that_component)
{
    float s0x[3] = {0.0f, -1.0f, 2.0f}, s0y[3] = {1.5f, 1.5f, 1.5f}, s0z[3] = {2, 2, 2};
    float s1x[3] = {1.0f, 1.0f, -2.0f}, s1y[3] = {0.5f, 0.5f, 0.5f}, s1z[3] = {3, 3, 3};
    float vx[3] = {0.1f, 0.1f, 0.1f}, vy[3] = {0.2f, 0.2f, 0.2f}, vz[3] = {0, 0, 0};
    float ox[3], oy[3], oz[3], px[3], py[3], pz[3];
    pb_cvec3s s0 = {s0x, s0y, s0z}, s1 = {s1x, s1y, s1z}, v = {vx, vy, vz};
    float x = 0.4f;
    cr_assert_eq(
        pb_scale_hermite(3, x, s0, s1, v, v, (pb_vec3s){ox, oy, oz}, (pb_vec3s){px, py, pz}),
        PB_OK);
    for (int i = 0; i < 3; i++) {
        rv3 rs, rv;
        ref_scale_hermite(x, rv3_make(1, s0y[i], s0z[i]), rv3_make(1, s1y[i], s1z[i]),
                          rv3_make(vx[i], vy[i], vz[i]), rv3_make(vx[i], vy[i], vz[i]), &rs, &rv);
        cr_expect(!isfinite(ox[i]) || ox[i] == 0.0f,
                  "scale_hermite bad x component #%d gave finite nonzero %g", i, ox[i]);
        cr_expect(fabs(oy[i] / rs.y - 1) <= PB_ACCURACY_SCALE_REL &&
                      fabs(oz[i] / rs.z - 1) <= PB_ACCURACY_SCALE_REL,
                  "scale_hermite: a bad x component affected y/z (#%d: %g %g vs %g %g)", i, oy[i],
                  oz[i], rs.y, rs.z);
    }
}
