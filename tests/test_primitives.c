/*
 * Quaternion batch primitives against the double reference (tests/ref.c):
 * n = 0, tails around the lane widths, mul / mul_inv / inv_mul, abs,
 * normalize, unroll, delta_to_angular_velocity, and the reference itself.
 * log / exp and the scaled angle-axis forms are in test_primitives_log_exp.c;
 * the tolerances are those of prim_util.h.
 */
#include "prim_util.h"

/* fill a with mixed quaternions and b with a partner: random, antipodal,
 * 180 degrees away, identical, or near */
static void fill_pairs(rng_t *r, pb_quats a, pb_quats b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rq qa = gen_quat_mixed(r, i), qb;
        switch (i % 11) {
        case 0: qb = rq_neg(qa); break;
        case 1: qb = qa; break;
        case 2: qb = rq_mul(qa, rq_make(0, 0, 1, 0)); break; /* 180-degree delta */
        case 3: qb = rng_quat_near(r, qa, rng_logrange(r, 1e-8, 1e-2)); break;
        default: qb = gen_quat_mixed(r, i * 7 + 3); break;
        }
        fq_set(a, i, qa);
        fq_set(b, i, rq_round(qb));
    }
}

/* ---- n = 0 ------------------------------------------------------------------ */

Test(primitives, n_zero_null_pointers)
{
    pb_cquats cq0 = {NULL, NULL, NULL, NULL};
    pb_quats q0 = {NULL, NULL, NULL, NULL};
    pb_cvec3s cv0 = {NULL, NULL, NULL};
    pb_vec3s v0 = {NULL, NULL, NULL};
    cr_expect_eq(pb_quat_mul(0, cq0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_mul_inv(0, cq0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_inv_mul(0, cq0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_abs(0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_normalize(0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_log(0, cq0, v0), PB_OK);
    cr_expect_eq(pb_quat_exp(0, cv0, q0), PB_OK);
    cr_expect_eq(pb_quat_to_scaled_angle_axis(0, cq0, v0), PB_OK);
    cr_expect_eq(pb_quat_from_scaled_angle_axis(0, cv0, q0), PB_OK);
    cr_expect_eq(pb_quat_unroll(0, 0, cq0, q0), PB_OK);
    cr_expect_eq(pb_quat_delta_to_angular_velocity(0, cq0, cq0, v0), PB_OK);
}

/* n = 0 with real arrays writes nothing */
Test(primitives, n_zero_writes_nothing)
{
    pb_quats a = gq_alloc(0), b = gq_alloc(0), oq = gq_alloc(0);
    pb_vec3s v = gv_alloc(0), ov = gv_alloc(0);
    for (int op = 0; op < OP_COUNT; op++) {
        cr_expect_eq(run_op((op_t)op, 0, a, b, v, oq, ov), PB_OK, "%s", op_name[op]);
        cr_expect(gq_guard_ok(oq, 0) && gv_guard_ok(ov, 0), "%s n=0 wrote", op_name[op]);
    }
    cr_expect_eq(pb_quat_unroll(0, 5, pb_cq(a), oq), PB_OK);
    cr_expect_eq(pb_quat_unroll(5, 0, pb_cq(a), oq), PB_OK);
    cr_expect(gq_guard_ok(oq, 0), "unroll with 0 elements wrote");
    fq_free(a);
    fq_free(b);
    fq_free(oq);
    fv_free(v);
    fv_free(ov);
}

/* ---- every primitive over sizes around the lane widths (tails) ------------ */

Test(primitives, small_and_odd_n_tails)
{
    static const size_t sizes[] = {1,  2,  3,  4,  5,  7,  8,  9,    15,
                                   16, 17, 31, 32, 33, 63, 65, 1000, 1001};
    rng_t r = rng_seed(101);
    for (int op = 0; op < OP_COUNT; op++) {
        ref_track t;
        rt_init(&t, op_name[op]);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            pb_quats a = fq_alloc(n), b = fq_alloc(n);
            pb_vec3s v = fv_alloc(n);
            fill_pairs(&r, a, b, n);
            for (size_t i = 0; i < n; i++)
                fv_set(v, i, gen_vec_exp(&r, i + 9));
            if (op == OP_DELTA) /* delta: any 4-vector */
                for (size_t i = 0; i < n; i++)
                    fq_set(b, i, rq_round(rng_quat(&r)));
            run_and_check((op_t)op, n, a, b, v, &t, 1);
            fq_free(a);
            fq_free(b);
            fv_free(v);
        }
        RT_EXPECT(t);
    }
}

/* ---- mul family ------------------------------------------------------------ */

static void big_mul_test(op_t op, uint64_t seed)
{
    size_t n = NBIG;
    rng_t r = rng_seed(seed);
    pb_quats a = fq_alloc(n), b = fq_alloc(n);
    pb_vec3s v = fv_alloc(n);
    fill_pairs(&r, a, b, n);
    for (size_t i = 0; i < n; i++)
        fv_set(v, i, rv3_make(0, 0, 0));
    check_op_and_free(op_name[op], op, n, a, b, v, 1);
}

Test(primitives, mul_random) { big_mul_test(OP_MUL, 1); }
Test(primitives, mul_inv_random) { big_mul_test(OP_MUL_INV, 2); }
Test(primitives, inv_mul_random) { big_mul_test(OP_INV_MUL, 3); }

Test(primitives, mul_identities)
{
    /* q q^-1 = identity; antipodal a b with b = -a^-1 gives -identity */
    size_t n = 1001;
    rng_t r = rng_seed(4);
    pb_quats a = fq_alloc(n), oq = fq_alloc(n), o2 = fq_alloc(n);
    for (size_t i = 0; i < n; i++)
        fq_set(a, i, rq_round(rng_quat(&r)));
    cr_assert_eq(pb_quat_mul_inv(n, pb_cq(a), pb_cq(a), oq), PB_OK);
    cr_assert_eq(pb_quat_inv_mul(n, pb_cq(a), pb_cq(a), o2), PB_OK);
    for (size_t i = 0; i < n; i++) {
        rq qa = fq_get(a, i), p = fq_get(oq, i), p2 = fq_get(o2, i);
        double nn = rq_dot(qa, qa);
        double tol = 8.0 * U24 * nn;
        cr_expect(fabs(p.w - nn) <= tol && fabs(p.x) <= tol && fabs(p.y) <= tol && fabs(p.z) <= tol,
                  "mul_inv(a, a) i=%zu a=" RQ_FMT " got " RQ_FMT, i, RQ_ARG(qa), RQ_ARG(p));
        cr_expect(fabs(p2.w - nn) <= tol && fabs(p2.x) <= tol && fabs(p2.y) <= tol &&
                      fabs(p2.z) <= tol,
                  "inv_mul(a, a) i=%zu a=" RQ_FMT " got " RQ_FMT, i, RQ_ARG(qa), RQ_ARG(p2));
    }
    fq_free(a);
    fq_free(oq);
    fq_free(o2);
}

Test(primitives, mul_in_place)
{
    /* out may be exactly a or exactly b */
    size_t n = 1001;
    rng_t r = rng_seed(5);
    pb_quats a = fq_alloc(n), b = fq_alloc(n), a0 = fq_alloc(n), b0 = fq_alloc(n);
    for (int op = OP_MUL; op <= OP_INV_MUL; op++) {
        for (int which = 0; which < 2; which++) {
            for (size_t i = 0; i < n; i++) {
                rq qa = rq_round(rng_quat(&r)), qb = rq_round(rng_quat(&r));
                fq_set(a, i, qa);
                fq_set(b, i, qb);
                fq_set(a0, i, qa);
                fq_set(b0, i, qb);
            }
            pb_quats out = which ? b : a;
            pb_status st = op == OP_MUL       ? pb_quat_mul(n, pb_cq(a), pb_cq(b), out)
                           : op == OP_MUL_INV ? pb_quat_mul_inv(n, pb_cq(a), pb_cq(b), out)
                                              : pb_quat_inv_mul(n, pb_cq(a), pb_cq(b), out);
            cr_assert_eq(st, PB_OK);
            for (size_t i = 0; i < n; i++) {
                rq qa = fq_get(a0, i), qb = fq_get(b0, i);
                rq ref = op == OP_MUL       ? rq_mul(qa, qb)
                         : op == OP_MUL_INV ? rq_mul_inv(qa, qb)
                                            : rq_inv_mul(qa, qb);
                rq got = fq_get(out, i);
                cr_expect(qmaxdiff(got, ref) <= 8.0 * U24,
                          "%s in place (out == %s) i=%zu a=" RQ_FMT " b=" RQ_FMT " got " RQ_FMT
                          " ref " RQ_FMT,
                          op_name[op], which ? "b" : "a", i, RQ_ARG(qa), RQ_ARG(qb), RQ_ARG(got),
                          RQ_ARG(ref));
            }
        }
    }
    fq_free(a);
    fq_free(b);
    fq_free(a0);
    fq_free(b0);
}

/* In place at every count 1..40: each tail length of every lane width, as
 * the first block and after whole blocks (a tail load that reads the whole
 * vector ending at the array's end sees the previous block's outputs there
 * and must discard them): bitwise the out-of-place result. */
Test(primitives, mul_in_place_every_tail)
{
    rng_t r = rng_seed(55);
    for (size_t n = 1; n <= 40; n++) {
        pb_quats a = fq_alloc(n), b = fq_alloc(n), want = fq_alloc(n);
        for (size_t i = 0; i < n; i++) {
            fq_set(a, i, rq_round(rng_quat(&r)));
            fq_set(b, i, rq_round(rng_quat(&r)));
        }
        cr_assert_eq(pb_quat_mul(n, pb_cq(a), pb_cq(b), want), PB_OK);
        cr_assert_eq(pb_quat_mul(n, pb_cq(a), pb_cq(b), a), PB_OK);
        size_t bad = fq_first_diff(a, want, n);
        cr_expect(bad == n, "mul in place, n = %zu: element %zu differs from out of place", n, bad);
        fq_free(a);
        fq_free(b);
        fq_free(want);
    }
}

/* ---- abs --------------------------------------------------------------- */

Test(primitives, abs_random_and_signed_zero)
{
    size_t n = NBIG;
    rng_t r = rng_seed(6);
    pb_quats a = fq_alloc(n), b = fq_alloc(n);
    pb_vec3s v = fv_alloc(n);
    fill_pairs(&r, a, b, n);
    /* signed zeros in w, and in the other components */
    for (size_t i = 0; i < n; i += 97) {
        a.w[i] = (i / 97) % 2 ? -0.0f : 0.0f;
        a.y[i] = (i / 194) % 2 ? -0.0f : 0.0f;
    }
    check_op_and_free("abs", OP_ABS, n, a, b, v, 1);
    /* explicit: w == -0 counts as negative, w == +0 does not */
    float w[2] = {-0.0f, 0.0f}, x[2] = {0.6f, 0.6f}, y[2] = {-0.8f, -0.8f}, z[2] = {0.0f, -0.0f};
    float ow[2], ox[2], oy[2], oz[2];
    pb_cquats q = {w, x, y, z};
    pb_quats o = {ow, ox, oy, oz};
    cr_assert_eq(pb_quat_abs(2, q, o), PB_OK);
    cr_expect(!signbit(ow[0]) && ox[0] == -0.6f && oy[0] == 0.8f && signbit(oz[0]),
              "abs(-0, 0.6, -0.8, 0) = (%g, %g, %g, %g), expected (0, -0.6, 0.8, -0)", ow[0], ox[0],
              oy[0], oz[0]);
    cr_expect(!signbit(ow[1]) && ox[1] == 0.6f && oy[1] == -0.8f && signbit(oz[1]),
              "abs(+0, 0.6, -0.8, -0) = (%g, %g, %g, %g), expected unchanged", ow[1], ox[1], oy[1],
              oz[1]);
    /* in place */
    cr_assert_eq(pb_quat_abs(2, q, (pb_quats){w, x, y, z}), PB_OK);
    cr_expect(!signbit(w[0]) && x[0] == -0.6f && !signbit(w[1]) && x[1] == 0.6f, "abs in place");
}

/* ---- normalize ----------------------------------------------------------- */

Test(primitives, normalize_random_norms_1em18_to_1e18)
{
    size_t n = NBIG;
    rng_t r = rng_seed(7);
    pb_quats a = fq_alloc(n), b = fq_alloc(n);
    pb_vec3s v = fv_alloc(n);
    for (size_t i = 0; i < n; i++) {
        rq q = rng_quat(&r);
        if (i % 5 == 0) /* components of very different magnitudes */
            q = rq_make(q.w, q.x * 1e-6, q.y * 1e-12, q.z);
        double s = rng_logrange(&r, 1e-18, 1e18) / rq_norm(q); /* |q| in [1e-18, 1e18] */
        if (i % 7 == 0)
            s = 1.0;
        fq_set(a, i, rq_round(rq_scale(q, s)));
        fq_set(b, i, rq_identity());
    }
    /* a few hand-picked extremes */
    fq_set(a, 0, rq_make(1e-18, 0, 0, 0));
    fq_set(a, 1, rq_make(0, 0, 0, -1e18));
    fq_set(a, 2, rq_make(1e18, 1e18, 1e18, 1e18));
    fq_set(a, 3, rq_make(1e-18, -1e-18, 1e-18, 1e-18));
    fq_set(a, 4, rq_make(0, 0, 0, 0));
    fq_set(a, 5, rq_make(-0.0, -0.0, 0, -0.0));
    fq_set(a, 6, rq_make(7e17, -7e17, 1e10, 1e-10));    /* |q| ~ 1e18 */
    fq_set(a, 7, rq_make(5e-19, 1e-25, -8e-19, 1e-30)); /* |q| ~ 1e-18 */
    check_op_and_free("normalize", OP_NORMALIZE, n, a, b, v, 1);
}

Test(primitives, normalize_special_values)
{
    enum { N = 9 };
    float w[N] = {0.0f, -0.0f, INFINITY, NAN, 1e-40f, 1.4e-45f, 0.0f, 1.0f, -INFINITY};
    float x[N] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.4e-45f, 1e-42f, NAN, 1.0f};
    float y[N] = {0.0f, -0.0f, 0.0f, 0.0f, 1e-40f, 0.0f, 0.0f, 0.0f, 0.0f};
    float z[N] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    float ow[N], ox[N], oy[N], oz[N];
    cr_assert_eq(pb_quat_normalize(N, (pb_cquats){w, x, y, z}, (pb_quats){ow, ox, oy, oz}), PB_OK);
    for (int i = 0; i < 2; i++)
        cr_expect(ow[i] == 1.0f && ox[i] == 0.0f && oy[i] == 0.0f && oz[i] == 0.0f,
                  "normalize(zero #%d) = (%g, %g, %g, %g), expected identity", i, ow[i], ox[i],
                  oy[i], oz[i]);
    int specials[] = {2, 3, 7, 8};
    for (int k = 0; k < 4; k++) {
        int i = specials[k];
        cr_expect(isnan(ow[i]) || isnan(ox[i]) || isnan(oy[i]) || isnan(oz[i]),
                  "normalize(Inf/NaN #%d: %g %g %g %g) = (%g, %g, %g, %g), expected NaN", i, w[i],
                  x[i], y[i], z[i], ow[i], ox[i], oy[i], oz[i]);
    }
    /* denormal norms (below the documented 1e-18): finite and unit either way
     * (the direction, or the identity if the norm underflows to zero) */
    for (int i = 4; i <= 6; i++) {
        rq o = rq_make(ow[i], ox[i], oy[i], oz[i]);
        cr_expect(rq_isfinite(o) && fabs(rq_norm(o) - 1.0) <= 0x1.0p-22,
                  "normalize(denormal #%d: %g %g %g %g) = " RQ_FMT " not finite unit", i, w[i],
                  x[i], y[i], z[i], RQ_ARG(o));
    }
}

/* ---- unroll --------------------------------------------------------------- */

static int fbits_eq(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Checks out against in: exact +-in(f, j), out(0, j) == in(0, j), and the
 * chain condition dot(out(f-1, j), out(f, j)) >= 0 (|dot| <= 1e-6 may go
 * either way: float rounding of the dot product). */
static void check_unroll(size_t frames, size_t tracks, pb_quats in, pb_quats out, ref_track *t)
{
    for (size_t f = 0; f < frames; f++)
        for (size_t j = 0; j < tracks; j++) {
            size_t i = f * tracks + j;
            int same = fbits_eq(out.w[i], in.w[i]) && fbits_eq(out.x[i], in.x[i]) &&
                       fbits_eq(out.y[i], in.y[i]) && fbits_eq(out.z[i], in.z[i]);
            int neg = fbits_eq(out.w[i], -in.w[i]) && fbits_eq(out.x[i], -in.x[i]) &&
                      fbits_eq(out.y[i], -in.y[i]) && fbits_eq(out.z[i], -in.z[i]);
            double bad = 0.0, dot = 1.0;
            if (!same && !neg)
                bad = 1.0;
            if (f == 0 && !same)
                bad = 1.0;
            if (f > 0) {
                dot = rq_dot(fq_get(out, i - tracks), fq_get(out, i));
                if (dot < -1e-6)
                    bad = 1.0;
                if (dot < 0.0 && dot >= -1e-6 && !same && !neg)
                    bad = 1.0;
            }
            if (rt_add(t, i, bad, bad * 2.0))
                rt_note(t, "frame %zu track %zu in=" RQ_FMT " out=" RQ_FMT " dot(prev)=%.3g", f, j,
                        RQ_ARG(fq_get(in, i)), RQ_ARG(fq_get(out, i)), dot);
        }
}

static void fill_unroll(rng_t *r, pb_quats in, size_t frames, size_t tracks)
{
    for (size_t j = 0; j < tracks; j++) {
        rq q = rng_quat(r);
        for (size_t f = 0; f < frames; f++) {
            size_t i = f * tracks + j;
            int k = (int)(i % 23);
            if (k == 0)
                q = rq_mul(rq_make(0, 0, 1, 0), q); /* 180-degree jump */
            else if (k == 1)
                q = rng_quat(r); /* anything */
            else
                q = rng_quat_near(r, q, 0.5);
            rq s = rng_uniform(r) < 0.5 ? rq_neg(q) : q; /* random hemisphere */
            fq_set(in, i, rq_round(s));
        }
    }
}

Test(primitives, unroll_random_tracks)
{
    size_t frames = 1000, tracks = 100, n = frames * tracks;
    rng_t r = rng_seed(18);
    pb_quats in = fq_alloc(n), out = gq_alloc(n), inplace = fq_alloc(n);
    fill_unroll(&r, in, frames, tracks);
    for (size_t i = 0; i < n; i++)
        fq_set(inplace, i, fq_get(in, i));
    cr_assert_eq(pb_quat_unroll(frames, tracks, pb_cq(in), out), PB_OK);
    cr_expect(gq_guard_ok(out, n), "unroll wrote past n");
    ref_track t;
    rt_init(&t, "unroll");
    check_unroll(frames, tracks, in, out, &t);
    RT_EXPECT(t);
    /* in place: identical result */
    cr_assert_eq(pb_quat_unroll(frames, tracks, pb_cq(inplace), inplace), PB_OK);
    size_t diff = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (!(fbits_eq(inplace.w[i], out.w[i]) && fbits_eq(inplace.x[i], out.x[i]) &&
              fbits_eq(inplace.y[i], out.y[i]) && fbits_eq(inplace.z[i], out.z[i])))
            if (diff++ == 0)
                first = i;
    cr_expect(diff == 0, "unroll in place differs from out of place at %zu elements (first %zu)",
              diff, first);
    fq_free(in);
    fq_free(out);
    fq_free(inplace);
}

Test(primitives, unroll_shapes)
{
    /* frames x tracks with odd sizes, single frame (copy), single track */
    static const size_t shapes[][2] = {{1, 1},    {1, 17},   {2, 1},  {3, 5}, {17, 3},
                                       {1001, 1}, {1, 1001}, {7, 33}, {64, 9}};
    rng_t r = rng_seed(19);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t frames = shapes[s][0], tracks = shapes[s][1], n = frames * tracks;
        pb_quats in = fq_alloc(n), out = gq_alloc(n);
        fill_unroll(&r, in, frames, tracks);
        cr_assert_eq(pb_quat_unroll(frames, tracks, pb_cq(in), out), PB_OK);
        cr_expect(gq_guard_ok(out, n), "unroll %zux%zu wrote past n", frames, tracks);
        ref_track t;
        rt_init(&t, "unroll shapes");
        check_unroll(frames, tracks, in, out, &t);
        cr_expect(t.nfail == 0, "unroll %zu frames x %zu tracks: %zu bad; worst: %s", frames,
                  tracks, t.nfail, t.worst);
        fq_free(in);
        fq_free(out);
    }
}

Test(primitives, unroll_exact_orthogonal_and_antipodal)
{
    /* frame-to-frame dot exactly 0 may keep either sign; exactly -1 must flip */
    float w[6] = {1, 0, 0, -1, 0.5f, -0.5f};
    float x[6] = {0, 1, 0, 0, 0.5f, -0.5f};
    float y[6] = {0, 0, 0, 0, 0.5f, -0.5f};
    float z[6] = {0, 0, -1, 0, 0.5f, -0.5f};
    float ow[6], ox[6], oy[6], oz[6];
    pb_quats in = {w, x, y, z}, out = {ow, ox, oy, oz};
    cr_assert_eq(pb_quat_unroll(6, 1, pb_cq(in), out), PB_OK);
    ref_track t;
    rt_init(&t, "unroll exact");
    check_unroll(6, 1, in, out, &t);
    RT_EXPECT(t);
    /* frame 5 is -frame 4 exactly: must be flipped relative to out(4) */
    cr_expect(rq_dot(fq_get(out, 4), fq_get(out, 5)) > 0.99,
              "antipodal consecutive frames not aligned: " RQ_FMT " then " RQ_FMT,
              RQ_ARG(fq_get(out, 4)), RQ_ARG(fq_get(out, 5)));
}

/* ---- delta_to_angular_velocity ---------------------------------------------- */

Test(primitives, delta_to_angular_velocity_random_and_tangent)
{
    size_t n = NBIG;
    rng_t r = rng_seed(20);
    pb_quats ref = fq_alloc(n), delta = fq_alloc(n);
    pb_vec3s v = fv_alloc(n);
    pb_vec3s w = fv_alloc(n); /* the angular velocity a tangent delta was made from */
    for (size_t i = 0; i < n; i++) {
        rq q = rq_round(rng_quat(&r));
        rv3 om = rng_ball3(&r, i % 4 ? 10.0 : 1e-3);
        rq d;
        if (i % 5 == 0)
            d = rq_scale(rng_quat(&r), rng_logrange(&r, 1e-3, 1e3)); /* any 4-vector */
        else
            d = rq_scale(rq_mul(rq_make(0, om.x, om.y, om.z), q), 0.5); /* q' = w q / 2 */
        fq_set(ref, i, q);
        fq_set(delta, i, rq_round(d));
        fv_set(w, i, om);
    }
    ref_track t;
    rt_init(&t, "delta_to_angular_velocity");
    run_and_check(OP_DELTA, n, ref, delta, v, &t, 1);
    RT_EXPECT(t);
    /* tangent deltas give the angular velocity back (velocity accuracy) */
    pb_vec3s out = fv_alloc(n);
    cr_assert_eq(pb_quat_delta_to_angular_velocity(n, pb_cq(ref), pb_cq(delta), out), PB_OK);
    ref_track t2;
    rt_init(&t2, "delta_to_angular_velocity(tangent) vs omega [vel err/tol]");
    for (size_t i = 0; i < n; i++) {
        if (i % 5 == 0)
            continue;
        rv3 om = fv_get(w, i), got = fv_get(out, i);
        /* the float rounding of ref and delta perturbs omega by ~u |omega| */
        double e = ref_vel_err(got, om);
        if (rt_add(&t2, i, rv3_dist(got, om), e))
            rt_note(&t2, "ref=" RQ_FMT " delta=" RQ_FMT " omega=" RV_FMT " got=" RV_FMT,
                    RQ_ARG(fq_get(ref, i)), RQ_ARG(fq_get(delta, i)), RV_ARG(om), RV_ARG(got));
    }
    RT_EXPECT(t2);
    fq_free(ref);
    fq_free(delta);
    fv_free(v);
    fv_free(w);
    fv_free(out);
}

/* ---- the reference itself --------------------------------------------------- */

Test(primitives, reference_self_consistency)
{
    rng_t r = rng_seed(21);
    for (int i = 0; i < 2000; i++) {
        rq q = rng_quat(&r);
        rv3 l = rq_log(q);
        rq back = rq_exp(l);
        cr_assert(rq_angle4(back, rq_normalize(q)) < 1e-14, "ref exp(log q) != q");
        rq a = rng_quat(&r), b = rng_quat_near(&r, a, 1e-9);
        double ang = rq_angle_between(a, b);
        cr_assert(ang <= 1e-9 * (1 + 1e-6), "ref angle_between %g > 1e-9", ang);
        cr_assert(fabs(rq_angle_between(a, rq_neg(a))) < 1e-15, "ref angle sign-insensitive");
    }
    /* a known rotation: 90 degrees about z */
    rq q = rq_from_axis_angle(rv3_make(0, 0, 1), REF_PI / 2);
    cr_assert(fabs(q.w - sqrt(0.5)) < 1e-15 && fabs(q.z - sqrt(0.5)) < 1e-15, "axis-angle");
    rv3 s = rq_to_scaled_angle_axis(q);
    cr_assert(fabs(s.z - REF_PI / 2) < 1e-15, "scaled angle-axis");
    cr_assert(fabs(rq_angle_between(rq_identity(), q) - REF_PI / 2) < 1e-15, "angle");
}
