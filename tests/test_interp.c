/*
 * Quaternion Hermite and Catmull-Rom (pb_quat_hermite, pb_quat_catmull_rom)
 * against the double reference (tests/ref.c): random keys, realistic and
 * wide, inside and beyond [0, 1], default and exact velocity; the
 * reference's own velocity against finite differences; properties and edge
 * cases. The tolerances are those of interp_util.h.
 */
#include "interp_util.h"

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

/* is the sign decision for the offset from a to b ambiguous in float? */
static int offset_ambiguous(rq a, rq b)
{
    rq d = rq_mul_inv(b, a);
    return fabs(d.w) <= AMBIG * rq_norm(d);
}

/* ---- best-matching reference over ambiguous branches ------------------------ */

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
        float x = round_x(round, (float)rng_range(&r, xlo, xhi));
        qb_fill(&b, BATCH, &r, wide);
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
        qb_fill(&b, BATCH, &r, round % 4 >= 2);
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
    qb_fill(&b, n, &r, 0);
    const float h = 1.0f / 64.0f; /* exact in float; FD of float rotations */
    pb_quats rm = fq_alloc(n), rp = fq_alloc(n);
    double worst0 = 0.0, worst_exact = 0.0, max_dev_mid = 0.0;
    size_t worst_i = 0;
    for (int which = 0; which < 3; which++) {
        float x = which == 0 ? 0.0f : 0.5f;
        unsigned flags = which == 2 ? PB_EXACT_VELOCITY : 0u;
        cr_assert_eq(call_q(K_CATMULL, n, x, &b, flags, b.rot, b.vel), PB_OK);
        cr_assert_eq(call_q(K_CATMULL, n, x - h, &b, 0u, rm, NOVEL), PB_OK);
        cr_assert_eq(call_q(K_CATMULL, n, x + h, &b, 0u, rp, NOVEL), PB_OK);
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
        cr_assert_eq(call_q(K_CATMULL, n, 0.0f, &b, flags ? PB_EXACT_VELOCITY : 0u, b.rot, b.vel),
                     PB_OK);
        cr_assert_eq(call_q(K_CATMULL, n, 1.0f, &b, flags ? PB_EXACT_VELOCITY : 0u, b.rot2, b.vel2),
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
            cr_assert_eq(
                call_q(K_HERMITE, n, xs[s], &b, flags ? PB_EXACT_VELOCITY : 0u, b.rot, b.vel),
                PB_OK);
            cr_assert_eq(
                call_q(K_CATMULL, n, xs[s], &b, flags ? PB_EXACT_VELOCITY : 0u, b.rot2, b.vel2),
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
        cr_assert_eq(call_q(K_HERMITE, n, x, &b, exact ? PB_EXACT_VELOCITY : 0u, b.rot, b.vel),
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
    cr_assert_eq(call_q(K_CATMULL, n, x, &b, PB_EXACT_VELOCITY, b.r[1], b.vel), PB_OK);
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
