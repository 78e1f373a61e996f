/*
 * The raw 4D cubic (pb_quat_raw_cubic) against the double reference
 * (tests/ref.c): random keys, realistic and wide; hemisphere invariance and
 * edges. The tolerances are those of interp_util.h.
 */
#include "interp_util.h"

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
        float x = round_x(round, (float)rng_uniform(&r));
        qb_fill(&b, BATCH, &r, wide);
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
