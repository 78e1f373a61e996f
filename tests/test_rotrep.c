/*
 * Rotation representations (posebatch/rotrep.h) against the double
 * reference (ref_rotrep.c), with the header's bounds, never widened:
 *   quaternion -> matrix / 6D: entries within 4e-7 of the matrix of q/|q|;
 *   matrix -> quaternion: within PB_ACCURACY_ROTATION_RAD of the rotation;
 *   6D -> matrix: within 6e-7 for the 6D of a rotation, 6e-7 / sin(t) for
 *     halves at angle t of any lengths from 1e-15 to 1e15; 6D -> quaternion
 *     within PB_ACCURACY_ROTATION_RAD of the Gram-Schmidt rotation;
 *   quaternion -> rotation vector: 3e-7 relative (pb_quat_log's).
 * Round trips near the singular cases (angles 0 and pi, and near them), the
 * documented results of degenerate input, NaN, in place, and sizes around
 * the lane widths. The suite runs once per backend (scripts/test.sh);
 * tests/conformance.c compares every backend with scalar in one run.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"
#include "ref_rotrep.h"

#define QM_TOL 4e-7  /* quaternion -> matrix entries */
#define R6_TOL 6e-7  /* 6D -> matrix entries (times 1 / sin t) */
#define LOG_REL 3e-7 /* pb_quat_log's relative accuracy */

typedef struct {
    size_t n;
    float *a[16];
    int k;
} fbuf;

/* k arrays of n floats each (NaN-filled, so untouched outputs show) */
static fbuf fb_new(size_t n, int k)
{
    fbuf b = {n, {0}, k};
    for (int i = 0; i < k; i++) {
        b.a[i] = malloc((n ? n : 1) * sizeof(float));
        cr_assert(b.a[i]);
        for (size_t j = 0; j < n; j++)
            b.a[i][j] = NAN;
    }
    return b;
}
static void fb_free(fbuf *b)
{
    for (int i = 0; i < b->k; i++)
        free(b->a[i]);
}
static pb_quats as_q(fbuf *b)
{
    pb_quats q = {b->a[0], b->a[1], b->a[2], b->a[3]};
    return q;
}
static pb_mat3s as_m(fbuf *b)
{
    pb_mat3s m;
    for (int i = 0; i < 9; i++)
        m.m[i] = b->a[i];
    return m;
}
static pb_cmat3s as_cm(fbuf *b)
{
    pb_cmat3s m;
    for (int i = 0; i < 9; i++)
        m.m[i] = b->a[i];
    return m;
}
static pb_rot6ds as_r(fbuf *b)
{
    pb_rot6ds r;
    for (int i = 0; i < 6; i++)
        r.c[i] = b->a[i];
    return r;
}
static pb_crot6ds as_cr(fbuf *b)
{
    pb_crot6ds r;
    for (int i = 0; i < 6; i++)
        r.c[i] = b->a[i];
    return r;
}
static rq q_at(fbuf *b, size_t i)
{
    return rq_make(b->a[0][i], b->a[1][i], b->a[2][i], b->a[3][i]);
}
static void q_put(fbuf *b, size_t i, rq q)
{
    b->a[0][i] = (float)q.w;
    b->a[1][i] = (float)q.x;
    b->a[2][i] = (float)q.y;
    b->a[3][i] = (float)q.z;
}
static void m_at(fbuf *b, size_t i, double m[9])
{
    for (int k = 0; k < 9; k++)
        m[k] = b->a[k][i];
}

/* the test rotations: random, and the singular cases of every conversion
 * (angle 0, pi about the axes and the diagonal, near both), rounded to
 * float; scaled (non-unit) ones for the quaternion -> matrix direction */
static rq gen_rot(rng_t *r, size_t i, int scaled)
{
    rq q;
    switch (i % 17) {
    case 0: q = rq_identity(); break;
    case 1: q = rq_make(-1, 0, 0, 0); break;
    case 2: q = rq_make(0, 1, 0, 0); break;
    case 3: q = rq_make(0, 0, -1, 0); break;
    case 4: q = rq_make(0, 0, 0, 1); break;
    case 5: q = rq_make(0, 1, 1, 1); break; /* pi about the diagonal */
    case 6: {
        rv3 ax = rng_unit3(r);
        q = rq_make(0, ax.x, ax.y, ax.z);
        break;
    }
    case 7: q = rq_from_axis_angle(rng_unit3(r), REF_PI - rng_logrange(r, 1e-7, 1e-2)); break;
    case 8: q = rq_from_axis_angle(rng_unit3(r), rng_logrange(r, 1e-8, 1e-3)); break;
    case 9: q = rq_from_axis_angle(rng_unit3(r), 2 * REF_PI - rng_logrange(r, 1e-7, 1e-2)); break;
    case 10: q = rq_from_axis_angle(rv3_make(0, 1, 0), REF_PI - 1e-6); break;
    default: q = rng_quat(r); break;
    }
    q = rq_normalize(q);
    if (scaled && i % 5 == 4)
        q = rq_scale(q, rng_logrange(r, 1e-18, 1e18));
    return rq_round(q);
}

static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 1001};
#define NSIZES (sizeof sizes / sizeof sizes[0])

Test(rotrep, quat_to_mat3_and_rot6d)
{
    rng_t r = rng_seed(4501);
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        fbuf q = fb_new(n, 4), m = fb_new(n, 9), c = fb_new(n, 6);
        for (size_t i = 0; i < n; i++)
            q_put(&q, i, gen_rot(&r, i, 1));
        cr_assert_eq(pb_quat_to_mat3(n, pb_cq(as_q(&q)), as_m(&m)), PB_OK);
        cr_assert_eq(pb_quat_to_rot6d(n, pb_cq(as_q(&q)), as_r(&c)), PB_OK);
        double worst = 0.0;
        for (size_t i = 0; i < n; i++) {
            double ref[9], got[9];
            ref_quat_to_mat3(q_at(&q, i), ref);
            m_at(&m, i, got);
            double d = ref_mat3_maxdiff(ref, got);
            worst = fmax(worst, d);
            cr_expect(d <= QM_TOL, "n %zu element %zu: matrix off by %.3g (q " RQ_FMT ")", n, i, d,
                      RQ_ARG(q_at(&q, i)));
            /* the 6D is the first two columns, the same floats */
            static const int cols[6] = {0, 3, 6, 1, 4, 7};
            for (int k = 0; k < 6; k++)
                cr_expect(memcmp(&c.a[k][i], &m.a[cols[k]][i], sizeof(float)) == 0,
                          "n %zu element %zu: 6D component %d is not the matrix's", n, i, k);
        }
        cr_log_info("quat_to_mat3 n=%zu: largest entry error %.3g", n, worst);
        fb_free(&q);
        fb_free(&m);
        fb_free(&c);
    }
}

Test(rotrep, mat3_to_quat_rotations)
{
    rng_t r = rng_seed(4502);
    const size_t n = 4001;
    fbuf m = fb_new(n, 9), q = fb_new(n, 4);
    rq *truth = malloc(n * sizeof *truth);
    cr_assert(truth);
    for (size_t i = 0; i < n; i++) {
        truth[i] = gen_rot(&r, i, 0);
        double ref[9];
        ref_quat_to_mat3(truth[i], ref);
        for (int k = 0; k < 9; k++)
            m.a[k][i] = (float)ref[k];
    }
    cr_assert_eq(pb_mat3_to_quat(n, as_cm(&m), as_q(&q)), PB_OK);
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        rq got = q_at(&q, i);
        double ang = rq_angle_between(got, truth[i]);
        worst = fmax(worst, ang);
        cr_expect(ang <= PB_ACCURACY_ROTATION_RAD, "element %zu: %.3g rad from " RQ_FMT, i, ang,
                  RQ_ARG(truth[i]));
        cr_expect(!signbit(q.a[0][i]), "element %zu: w has its sign bit set", i);
        cr_expect(fabs(rq_norm(got) - 1.0) <= 2.4e-7, "element %zu: norm %.9g", i, rq_norm(got));
    }
    cr_log_info("mat3_to_quat: largest angle error %.3g rad", worst);
    free(truth);
    fb_free(&m);
    fb_free(&q);
}

/* 6D of rotations, and of general pairs of halves at angle t */
Test(rotrep, rot6d_to_mat3_and_quat)
{
    rng_t r = rng_seed(4503);
    const size_t n = 3001;
    fbuf c = fb_new(n, 6), m = fb_new(n, 9), q = fb_new(n, 4);
    double *bound = malloc(n * sizeof *bound);
    cr_assert(bound);
    for (size_t i = 0; i < n; i++) {
        if (i % 2 == 0) { /* the 6D of a rotation */
            double ref[9];
            ref_quat_to_mat3(gen_rot(&r, i / 2, 0), ref);
            static const int cols[6] = {0, 3, 6, 1, 4, 7};
            for (int k = 0; k < 6; k++)
                c.a[k][i] = (float)ref[cols[k]];
            bound[i] = R6_TOL;
        } else { /* halves of lengths 1e-15..1e15 at angle t in (0, pi) */
            rv3 a = rng_unit3(&r), p = rng_unit3(&r);
            p = rv3_sub(p, rv3_scale(a, rv3_dot(a, p)));
            p = rv3_scale(p, 1.0 / rv3_norm(p));
            double t = rng_logrange(&r, 1e-3, REF_PI / 2);
            if (i % 4 == 3)
                t = REF_PI - t;
            rv3 b = rv3_add(rv3_scale(a, cos(t)), rv3_scale(p, sin(t)));
            a = rv3_scale(a, rng_logrange(&r, 1e-15, 1e15));
            b = rv3_scale(b, rng_logrange(&r, 1e-15, 1e15));
            const double v[6] = {a.x, a.y, a.z, b.x, b.y, b.z};
            for (int k = 0; k < 6; k++)
                c.a[k][i] = (float)v[k];
            bound[i] = R6_TOL / sin(t);
        }
    }
    cr_assert_eq(pb_rot6d_to_mat3(n, as_cr(&c), as_m(&m)), PB_OK);
    cr_assert_eq(pb_rot6d_to_quat(n, as_cr(&c), as_q(&q)), PB_OK);
    for (size_t i = 0; i < n; i++) {
        double in[6], ref[9], got[9], fromq[9];
        for (int k = 0; k < 6; k++)
            in[k] = c.a[k][i];
        ref_rot6d_to_mat3(in, ref);
        m_at(&m, i, got);
        double d = ref_mat3_maxdiff(ref, got);
        cr_expect(d <= bound[i], "element %zu: matrix off by %.3g (bound %.3g)", i, d, bound[i]);
        ref_quat_to_mat3(q_at(&q, i), fromq);
        double ang = ref_mat3_angle(ref, fromq);
        /* the quaternion's rotation: Gram-Schmidt's to the 6D bound, then
         * Shepperd's to the rotation accuracy */
        cr_expect(ang <= PB_ACCURACY_ROTATION_RAD + 2 * bound[i],
                  "element %zu: quaternion %.3g rad off", i, ang);
        cr_expect(!signbit(q.a[0][i]), "element %zu: w has its sign bit set", i);
    }
    free(bound);
    fb_free(&c);
    fb_free(&m);
    fb_free(&q);
}

Test(rotrep, quat_to_rotvec)
{
    rng_t r = rng_seed(4504);
    const size_t n = 2001;
    fbuf q = fb_new(n, 4), v = fb_new(n, 3), back = fb_new(n, 4);
    for (size_t i = 0; i < n; i++)
        q_put(&q, i, gen_rot(&r, i, 1));
    pb_vec3s ov = {v.a[0], v.a[1], v.a[2]};
    cr_assert_eq(pb_quat_to_rotvec(n, pb_cq(as_q(&q)), ov), PB_OK);
    cr_assert_eq(pb_quat_from_scaled_angle_axis(n, pb_cv(ov), as_q(&back)), PB_OK);
    for (size_t i = 0; i < n; i++) {
        rq in = q_at(&q, i);
        rv3 ref = rv3_scale(rq_log(rq_abs(in)), 2.0);
        rv3 got = rv3_make(v.a[0][i], v.a[1][i], v.a[2][i]);
        double err = rv3_dist(got, ref);
        cr_expect(err <= LOG_REL * rv3_norm(ref) + 1e-44, "element %zu: " RV_FMT " vs " RV_FMT, i,
                  RV_ARG(got), RV_ARG(ref));
        cr_expect(rv3_norm(got) <= REF_PI * (1 + 3e-7), "element %zu: angle above pi", i);
        double ang = rq_angle_between(q_at(&back, i), in);
        cr_expect(ang <= 2 * PB_ACCURACY_ROTATION_RAD, "element %zu: round trip %.3g rad", i, ang);
    }
    fb_free(&q);
    fb_free(&v);
    fb_free(&back);
}

/* quaternion -> matrix -> quaternion, -> 6D -> quaternion, matrix -> 6D
 * (the view) -> matrix, at the singular cases and beside them */
Test(rotrep, round_trips_near_singular)
{
    rng_t r = rng_seed(4505);
    const size_t n = 1700;
    fbuf q = fb_new(n, 4), m = fb_new(n, 9), c = fb_new(n, 6), q2 = fb_new(n, 4), q3 = fb_new(n, 4),
         m2 = fb_new(n, 9);
    for (size_t i = 0; i < n; i++)
        q_put(&q, i, gen_rot(&r, i % 17 < 11 ? i : i % 11, 0));
    cr_assert_eq(pb_quat_to_mat3(n, pb_cq(as_q(&q)), as_m(&m)), PB_OK);
    cr_assert_eq(pb_mat3_to_quat(n, as_cm(&m), as_q(&q2)), PB_OK);
    cr_assert_eq(pb_quat_to_rot6d(n, pb_cq(as_q(&q)), as_r(&c)), PB_OK);
    cr_assert_eq(pb_rot6d_to_quat(n, as_cr(&c), as_q(&q3)), PB_OK);
    cr_assert_eq(pb_rot6d_to_mat3(n, pb_crot6d_of_mat3(as_cm(&m)), as_m(&m2)), PB_OK);
    for (size_t i = 0; i < n; i++) {
        rq in = q_at(&q, i);
        double a2 = rq_angle_between(q_at(&q2, i), in), a3 = rq_angle_between(q_at(&q3, i), in);
        cr_expect(a2 <= PB_ACCURACY_ROTATION_RAD, "element %zu: q->m->q %.3g rad (" RQ_FMT ")", i,
                  a2, RQ_ARG(in));
        cr_expect(a3 <= PB_ACCURACY_ROTATION_RAD, "element %zu: q->6D->q %.3g rad (" RQ_FMT ")", i,
                  a3, RQ_ARG(in));
        double ref[9], got[9];
        ref_quat_to_mat3(in, ref);
        m_at(&m2, i, got);
        double d = ref_mat3_maxdiff(ref, got);
        cr_expect(d <= QM_TOL + R6_TOL, "element %zu: m->6D->m off by %.3g", i, d);
    }
    fb_free(&q);
    fb_free(&m);
    fb_free(&c);
    fb_free(&q2);
    fb_free(&q3);
    fb_free(&m2);
}

/* the documented results of degenerate input, and NaN */
Test(rotrep, degenerate_and_nan)
{
    fbuf q = fb_new(3, 4), m = fb_new(3, 9), c = fb_new(4, 6), qo = fb_new(4, 4), mo = fb_new(4, 9);
    q_put(&q, 0, rq_make(0, 0, 0, 0));
    q_put(&q, 1, rq_make(NAN, 0, 0, 0));
    q_put(&q, 2, rq_make(1, 0, 0, 0));
    cr_assert_eq(pb_quat_to_mat3(3, pb_cq(as_q(&q)), as_m(&m)), PB_OK);
    for (int k = 0; k < 9; k++) {
        cr_expect_eq(m.a[k][0], (k % 4 == 0) ? 1.0f : 0.0f, "zero q: entry %d", k);
        cr_expect(isnan(m.a[k][1]) || k % 4 != 0, "NaN q: diagonal entry %d not NaN", k);
    }
    /* zero matrix -> identity; NaN -> NaN */
    for (int k = 0; k < 9; k++) {
        m.a[k][0] = 0.0f;
        m.a[k][1] = k == 4 ? NAN : (k % 4 == 0 ? 1.0f : 0.0f);
    }
    cr_assert_eq(pb_mat3_to_quat(2, as_cm(&m), as_q(&qo)), PB_OK);
    cr_expect(qo.a[0][0] == 1.0f && qo.a[1][0] == 0.0f && qo.a[2][0] == 0.0f && qo.a[3][0] == 0.0f,
              "zero matrix: not the identity");
    cr_expect(isnan(qo.a[0][1]), "NaN matrix entry: w %g", qo.a[0][1]);
    /* 6D: zero (the identity); parallel halves (a along x: b taken as
     * e_y); a along y with b = 0 (b taken as e_z); NaN */
    const float in[4][6] = {
        {0, 0, 0, 0, 0, 0}, {2, 0, 0, 5, 0, 0}, {0, 3, 0, 0, 0, 0}, {1, 0, 0, 0, NAN, 0}};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 6; k++)
            c.a[k][i] = in[i][k];
    cr_assert_eq(pb_rot6d_to_mat3(4, as_cr(&c), as_m(&mo)), PB_OK);
    const float want[3][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 1},
                              {1, 0, 0, 0, 1, 0, 0, 0, 1},
                              {0, 0, 1, 1, 0, 0, 0, 1, 0}}; /* columns y, z, x */
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 9; k++)
            cr_expect(fabsf(mo.a[k][i] - want[i][k]) <= 1e-7f, "6D case %d entry %d: %g, want %g",
                      i, k, mo.a[k][i], want[i][k]);
    for (int k = 3; k < 9; k++)
        if (k % 3 != 0)
            cr_expect(isnan(mo.a[k][3]), "NaN 6D: entry %d is %g", k, mo.a[k][3]);
    cr_assert_eq(pb_rot6d_to_quat(4, as_cr(&c), as_q(&qo)), PB_OK);
    cr_expect(qo.a[0][0] == 1.0f, "zero 6D: w %g", qo.a[0][0]);
    cr_expect(isnan(qo.a[0][3]) || isnan(qo.a[1][3]), "NaN 6D: quaternion not NaN");
    fb_free(&q);
    fb_free(&m);
    fb_free(&c);
    fb_free(&qo);
    fb_free(&mo);
}

/* outputs exactly on input arrays: the same values as out of place */
Test(rotrep, in_place)
{
    rng_t r = rng_seed(4506);
    const size_t n = 37;
    fbuf q = fb_new(n, 9), ref = fb_new(n, 9), m = fb_new(n, 9);
    for (size_t i = 0; i < n; i++)
        q_put(&q, i, gen_rot(&r, i, 0));
    /* quaternion -> 6D: c[0..3] on the quaternion's own arrays */
    cr_assert_eq(pb_quat_to_rot6d(n, pb_cq(as_q(&q)), as_r(&ref)), PB_OK);
    pb_rot6ds inplace = {{q.a[0], q.a[1], q.a[2], q.a[3], q.a[4], q.a[5]}};
    cr_assert_eq(pb_quat_to_rot6d(n, pb_cq(as_q(&q)), inplace), PB_OK);
    for (int k = 0; k < 6; k++)
        cr_expect(memcmp(q.a[k], ref.a[k], n * sizeof(float)) == 0, "quat_to_rot6d component %d",
                  k);
    /* 6D -> matrix over the 6D's arrays, and matrix -> quaternion over the
     * matrix's */
    cr_assert_eq(pb_rot6d_to_mat3(n, as_cr(&ref), as_m(&m)), PB_OK);
    cr_assert_eq(pb_rot6d_to_mat3(n, as_cr(&q), as_m(&q)), PB_OK);
    for (int k = 0; k < 9; k++)
        cr_expect(memcmp(q.a[k], m.a[k], n * sizeof(float)) == 0, "rot6d_to_mat3 entry %d", k);
    fbuf qo = fb_new(n, 4);
    cr_assert_eq(pb_mat3_to_quat(n, as_cm(&m), as_q(&qo)), PB_OK);
    pb_quats over = {m.a[8], m.a[0], m.a[4], m.a[2]};
    cr_assert_eq(pb_mat3_to_quat(n, as_cm(&m), over), PB_OK);
    cr_expect(memcmp(over.w, qo.a[0], n * 4) == 0 && memcmp(over.x, qo.a[1], n * 4) == 0 &&
                  memcmp(over.y, qo.a[2], n * 4) == 0 && memcmp(over.z, qo.a[3], n * 4) == 0,
              "mat3_to_quat in place differs");
    /* a partial overlap is refused, nothing written */
    pb_quats bad = {m.a[0] + 1, qo.a[1], qo.a[2], qo.a[3]};
    cr_expect_eq(pb_mat3_to_quat(n - 1, as_cm(&m), bad), PB_ERR_ALIAS);
    fb_free(&q);
    fb_free(&ref);
    fb_free(&m);
    fb_free(&qo);
}

Test(rotrep, n_zero_and_null)
{
    pb_cquats cq = {0};
    pb_quats oq = {0};
    pb_mat3s om = {{0}};
    pb_cmat3s cm = {{0}};
    pb_rot6ds o6 = {{0}};
    pb_crot6ds c6 = {{0}};
    pb_vec3s ov = {0};
    cr_expect_eq(pb_quat_to_mat3(0, cq, om), PB_OK);
    cr_expect_eq(pb_quat_to_rot6d(0, cq, o6), PB_OK);
    cr_expect_eq(pb_mat3_to_quat(0, cm, oq), PB_OK);
    cr_expect_eq(pb_rot6d_to_mat3(0, c6, om), PB_OK);
    cr_expect_eq(pb_rot6d_to_quat(0, c6, oq), PB_OK);
    cr_expect_eq(pb_quat_to_rotvec(0, cq, ov), PB_OK);
    cr_expect_eq(pb_quat_to_mat3(1, cq, om), PB_ERR_NULL);
    cr_expect_eq(pb_quat_to_mat3(PB_MAX_COUNT + 1, cq, om), PB_ERR_SIZE);
}
