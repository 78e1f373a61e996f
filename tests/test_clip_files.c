/* Clip resampling on real clips (data/cmu_01_03.bvh and every clip of
 * PB_SHARED_DATA_DIR/mocap): same-rate reproduction, 2x pass-through,
 * velocity continuity; and a synthetic cyclic clip's loop seam (see
 * test_clip.c for the tolerances). */
#include "clip_util.h"

/* ------------------------------------------------------------------------ */
/* 4, 5. Resampling real clips                                              */
/* ------------------------------------------------------------------------ */

static pb_clip clip_of_bvh(const pb_bvh *b)
{
    pb_clip c;
    memset(&c, 0, sizeof c);
    c.frames = b->num_frames;
    c.joints = b->num_joints;
    c.frame_time = b->frame_time;
    pb_quats q = {b->rot_w, b->rot_x, b->rot_y, b->rot_z};
    pb_vec3s p = {b->pos_x, b->pos_y, b->pos_z};
    c.rot = q;
    c.pos = p;
    return c;
}

static pb_bvh read_bvh(const char *path)
{
    pb_bvh b;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(path, &b, &err), PB_BVH_OK, "%s: %s", path, err.message);
    return b;
}

/* Output frames step * f (f = 0..F-1) that are not exactly source frame f
 * (rotation up to sign, position ==); the first is described in msg. */
static size_t passthrough_mismatches(const pb_clip *src, const pb_clip *dst, size_t step, char *msg,
                                     size_t cap)
{
    size_t bad = 0, J = src->joints;
    for (size_t f = 0; f < src->frames; f++)
        for (size_t j = 0; j < J; j++) {
            size_t o = step * f * J + j, s = f * J + j;
            rq q = fq_get(dst->rot, o), qs = fq_get(src->rot, s);
            rv3 p = fv_get(dst->pos, o), ps = fv_get(src->pos, s);
            if (q_same_up_to_sign(q, qs) && v_same(p, ps))
                continue;
            if (!bad++)
                snprintf(msg, cap,
                         "output %zu joint %zu: rot " RQ_FMT " pos " RV_FMT
                         " vs source frame %zu: rot " RQ_FMT " pos " RV_FMT " (angle %.3g)",
                         step * f, j, RQ_ARG(q), RV_ARG(p), f, RQ_ARG(qs), RV_ARG(ps),
                         rq_angle_between(q, qs));
        }
    return bad;
}

/* Same-rate and 2x resampling, clamp and loop, at two "same" rates: fps =
 * 1 / frame_time and the nominal rate, 1 / frame_time rounded to an integer
 * (120 for the printed 0.0083333 or 0.008333, 30 for 0.0333333: ratios within
 * the header's 1e-4 snapping). The same rate reproduces every frame exactly
 * (ratio 1: every output is at a source frame time); at 2x every even output
 * is the source frame exactly and every odd one the per-sample Catmull-Rom at
 * x = 0.5 (1e-6 rad; positions 1e-6 relative + absolute; velocities; checked
 * when `odd` is set, at the first rate only: with the ratio snapped the
 * second computes the same). */
static void check_passthrough(const char *name, const pb_clip *src, int odd)
{
    size_t F = src->frames, J = src->joints;
    char msg[1024] = "";
    double nominal = nearbyint(1.0 / src->frame_time);
    cr_assert(fabs(nominal * src->frame_time - 1.0) <= 1e-4, "%s: frame time %.9g", name,
              src->frame_time);
    for (int run = 0; run < 4; run++) {
        int rate = run >> 1, loop = run & 1;
        unsigned flags = loop ? PB_CLIP_LOOP : 0;
        double fps = rate ? nominal : 1.0 / src->frame_time;
        size_t n = pb_clip_resample_frames(src, fps, flags);
        cr_assert_eq(n, F, "%s %s: same rate %.9g fps gives %zu frames, not %zu", name,
                     flags_name(flags), fps, n, F);
        pb_clip dst = clip_new(n, J, 0, 1, 0);
        cr_assert_eq(pb_clip_resample(src, fps, flags, &dst, NULL), PB_OK);
        cr_expect_eq(dst.frame_time, 1.0 / fps);
        size_t bad = passthrough_mismatches(src, &dst, 1, msg, sizeof msg);
        cr_expect_eq(bad, 0, "%s %s same rate %.9g fps: %zu of %zu differ; first: %s", name,
                     flags_name(flags), fps, bad, F * J, msg);
        clip_free(&dst);

        double fps2 = 2.0 * fps;
        size_t n2 = pb_clip_resample_frames(src, fps2, flags);
        cr_assert_eq(n2, loop ? 2 * F : 2 * F - 1, "%s %s: 2x (%.9g fps) gives %zu frames", name,
                     flags_name(flags), fps2, n2);
        dst = clip_new(n2, J, 0, 1, 0);
        pb_clip_vel vel = vel_new(n2 * J, odd, odd, 0);
        cr_assert_eq(pb_clip_resample(src, fps2, flags, &dst, odd ? &vel : NULL), PB_OK);
        bad = passthrough_mismatches(src, &dst, 2, msg, sizeof msg);
        cr_expect_eq(bad, 0, "%s %s 2x (%.9g fps): %zu of %zu even outputs differ; first: %s", name,
                     flags_name(flags), fps2, bad, F * J, msg);
        if (rate || !odd) {
            vel_free(&vel);
            clip_free(&dst);
            continue;
        }
        /* odd outputs: the per-sample functions at x = 0.5 */
        ref_track tr, tp, tv;
        rt_init(&tr, "2x odd outputs: rotation vs pb_quat_catmull_rom at x = 0.5");
        rt_init(&tp, "2x odd outputs: position vs pb_vec3_catmull_rom at x = 0.5");
        rt_init(&tv, "2x odd outputs: velocities * ft vs the per-sample functions");
        pb_quats rr = fq_alloc(J);
        pb_vec3s rv = fv_alloc(J), rp = fv_alloc(J), rpv = fv_alloc(J);
        for (size_t i = 1; i < n2; i += 2) {
            loc_t L = ref_locate((double)i * 0.5 * src->frame_time, F, src->frame_time, loop);
            cr_assert_eq(L.x, 0.5f);
            ref_sample(src, &L, 0, rr, rv, rp, rpv, rp, rpv);
            for (size_t j = 0; j < J; j++) {
                double e = rq_angle_between(fq_get(dst.rot, i * J + j), fq_get(rr, j));
                if (rt_add(&tr, i * J + j, e, e / TOL_SAME_ROT))
                    rt_note(&tr, "%s %s output %zu joint %zu", name, flags_name(flags), i, j);
                rv3 p = fv_get(dst.pos, i * J + j), pr = fv_get(rp, j);
                if (rt_add(&tp, i * J + j, rv3_dist(p, pr), val_ratio(p, pr)))
                    rt_note(&tp, "%s %s output %zu joint %zu: " RV_FMT " vs " RV_FMT, name,
                            flags_name(flags), i, j, RV_ARG(p), RV_ARG(pr));
                rv3 va = rv3_scale(fv_get(vel.rot, i * J + j), src->frame_time);
                rv3 vp = rv3_scale(fv_get(vel.pos, i * J + j), src->frame_time);
                rv3 ra = fv_get(rv, j), rpp = fv_get(rpv, j);
                double ev = fmax(vel_ratio(va, ra), vel_ratio(vp, rpp));
                if (rt_add(&tv, i * J + j, ev, ev))
                    rt_note(&tv,
                            "%s %s output %zu joint %zu: angular " RV_FMT " vs " RV_FMT
                            ", linear " RV_FMT " vs " RV_FMT,
                            name, flags_name(flags), i, j, RV_ARG(va), RV_ARG(ra), RV_ARG(vp),
                            RV_ARG(rpp));
            }
        }
        RT_EXPECT(tr);
        RT_EXPECT(tp);
        RT_EXPECT(tv);
        fq_free(rr);
        fv_free(rv);
        fv_free(rp);
        fv_free(rpv);
        vel_free(&vel);
        clip_free(&dst);
    }
}

/* Velocity continuity across source frames (the criterion).
 *
 * With the default velocity (du/dx, the text's), the angular velocity inside
 * source segment m is a quadratic polynomial of x in [0, 1): u(x) = w1 d12 +
 * w2 t1 + w3 t2 is a cubic, so du/dx is quadratic; likewise the position and
 * log-scale velocities. Resampled at 4x, segment m-1 holds outputs b-3, b-2,
 * b-1 at x = 1/4, 1/2, 3/4 (b = 4m), and quadratic extrapolation of those three
 * gives that segment's velocity at x = 1 exactly:
 *     v_left = v[b-3] - 3 v[b-2] + 3 v[b-1].
 * Output b is x = 0 of segment m. The spline is C1 in this velocity (segment
 * m-1 ends with tangent t2 = (d(m-1,m) + d(m,m+1)) / 2, segment m starts with
 * the same t1), so jump = |v[b] - v_left| is 0 in exact arithmetic, and a
 * velocity discontinuity J shows as |J| whatever the acceleration is. A
 * comparison of consecutive differences across the boundary with those
 * inside segments (the obvious criterion) needs an assumed bound on how fast
 * the acceleration varies and can hide a jump as large as the interior
 * variation; this one needs none: each sample is within the header's
 * velocity accuracy (1e-5 |v| + 1e-6 per unit x) of the exact value, so the
 * combination, with coefficients 1, 3, 3, 1, is within
 *     8 (1e-5 max|v| + 1e-6)   (per unit x; max over the 4 samples).
 * (PB_EXACT_VELOCITY is J_l(u) du/dx, not a polynomial, and it is genuinely
 * discontinuous at source frames by about |d12 x t2| / 2; not checked here.)
 * The log line gives the largest jump and, for scale, the largest difference
 * of consecutive samples inside segments. */
typedef struct {
    ref_track t;
    double max_jump, max_interior;
} jump_stats;

static void check_velocity_jumps(const char *name, pb_vec3s v, size_t n_out, size_t J, double ft,
                                 int wrap, jump_stats *js)
{
    for (size_t b = wrap ? 0 : 4; b < n_out; b += 4) {
        size_t i1 = (b + n_out - 1) % n_out, i2 = (b + n_out - 2) % n_out,
               i3 = (b + n_out - 3) % n_out;
        for (size_t j = 0; j < J; j++) {
            /* per unit x */
            rv3 a3 = rv3_scale(fv_get(v, i3 * J + j), ft),
                a2 = rv3_scale(fv_get(v, i2 * J + j), ft),
                a1 = rv3_scale(fv_get(v, i1 * J + j), ft), a0 = rv3_scale(fv_get(v, b * J + j), ft);
            rv3 left = rv3_add(rv3_sub(a3, rv3_scale(a2, 3.0)), rv3_scale(a1, 3.0));
            double jump = rv3_dist(a0, left);
            double m = fmax(fmax(rv3_norm(a0), rv3_norm(a1)), fmax(rv3_norm(a2), rv3_norm(a3)));
            double tol = 8.0 * (VEL_REL * m + VEL_ABS);
            js->max_jump = fmax(js->max_jump, jump);
            js->max_interior = fmax(js->max_interior, fmax(rv3_dist(a1, a2), rv3_dist(a2, a3)));
            if (rt_add(&js->t, b * J + j, jump, jump / tol))
                rt_note(&js->t,
                        "%s: output %zu (source frame %zu) joint %zu: v=" RV_FMT
                        " extrapolated from the left " RV_FMT " (per unit x)",
                        name, b, b / 4, j, RV_ARG(a0), RV_ARG(left));
        }
    }
}

static void report_jumps(jump_stats *js)
{
    fprintf(stderr,
            "%s: max jump %.3g (per unit x), max consecutive difference inside "
            "segments %.3g, max jump/tol %.3g\n",
            js->t.name, js->max_jump, js->max_interior, js->t.max_ratio);
    RT_EXPECT(js->t);
}

static void check_continuity_4x(const char *name, const pb_clip *src, unsigned flags)
{
    size_t J = src->joints;
    double fps = 4.0 / src->frame_time;
    size_t n = pb_clip_resample_frames(src, fps, flags);
    int loop = (flags & PB_CLIP_LOOP) != 0;
    cr_assert_eq(n, loop ? 4 * src->frames : 4 * src->frames - 3);
    pb_clip dst = clip_new(n, J, 0, src->pos.x != NULL, src->scale.x != NULL);
    pb_clip_vel vel = vel_new(n * J, 1, src->pos.x != NULL, src->scale.x != NULL);
    cr_assert_eq(pb_clip_resample(src, fps, flags, &dst, &vel), PB_OK);
    const char *what[3] = {"angular velocity", "position velocity", "scale velocity"};
    pb_vec3s vs[3] = {vel.rot, vel.pos, vel.scale};
    for (int k = 0; k < 3; k++) {
        if (!vs[k].x)
            continue;
        char label[256];
        snprintf(label, sizeof label, "%s %s: %s continuity at source frames", name,
                 flags_name(flags), what[k]);
        jump_stats js;
        memset(&js, 0, sizeof js);
        rt_init(&js.t, label);
        check_velocity_jumps(name, vs[k], n, J, src->frame_time, loop, &js);
        report_jumps(&js);
    }
    vel_free(&vel);
    clip_free(&dst);
}

Test(clip, resample_cmu_same_rate_and_2x, .timeout = 120)
{
    pb_bvh b = read_bvh(repo_clip_path("cmu_01_03.bvh"));
    pb_clip src = clip_of_bvh(&b);
    cr_assert_eq(src.frames, 4511);
    cr_assert_eq(src.joints, 31);
    check_passthrough("cmu_01_03", &src, 1);
    pb_bvh_free(&b);
}

Test(clip, resample_cmu_velocity_continuous, .timeout = 120)
{
    pb_bvh b = read_bvh(repo_clip_path("cmu_01_03.bvh"));
    pb_clip src = clip_of_bvh(&b);
    check_continuity_4x("cmu_01_03", &src, 0);
    pb_bvh_free(&b);
}

static void passthrough_file(const char *path, const char *name, void *ctx)
{
    (void)ctx;
    pb_bvh b = read_bvh(path);
    pb_clip src = clip_of_bvh(&b);
    check_passthrough(name, &src, 0);
    fprintf(stderr, "resample pass-through %-46s %5zu frames x %zu joints, frame time %.9g: ok\n",
            name, src.frames, src.joints, src.frame_time);
    pb_bvh_free(&b);
}

Test(clip, resample_every_shared_clip, .timeout = 300)
{
    int count = for_each_mocap_bvh(passthrough_file, NULL);
    if (count < 0) {
        cr_skip_test("shared data not found at %s/mocap", data_dir());
        return;
    }
    cr_assert_gt(count, 0);
}

/* ------------------------------------------------------------------------ */
/* Loop seam                                                                */
/* ------------------------------------------------------------------------ */

/* A cyclic clip: F frames of a smooth 2 pi-periodic function sampled at
 * theta = 2 pi f / F (the seam frame not repeated): rotations exp(a/2) of a
 * scaled angle-axis a(theta) of about a radian, stored with random signs;
 * positions and log-scales trigonometric too. */
static pb_clip cyclic_clip(rng_t *r, size_t F, size_t J, double ft)
{
    pb_clip c = clip_new(F, J, ft, 1, 1);
    for (size_t f = 0; f < F; f++) {
        double th = 2.0 * REF_PI * (double)f / (double)F;
        for (size_t j = 0; j < J; j++) {
            double p = 0.7 * (double)j;
            rv3 a =
                rv3_make(0.8 * sin(th + p), 0.5 * cos(2.0 * th) + 0.3, 0.6 * sin(th) * cos(th + p));
            size_t i = f * J + j;
            fq_set(c.rot, i, rq_scale(rq_from_scaled_angle_axis(a), rng_sign(r)));
            fv_set(c.pos, i,
                   rv3_scale(rv3_make(cos(th), sin(2.0 * th), 0.3 * sin(th + p)), 1.0 + (double)j));
            fv_set(c.scale, i, rv3_make(exp(0.2 * sin(th + p)), exp(0.1 * cos(th)), 1.0));
        }
    }
    return c;
}

/* At 4x with PB_CLIP_LOOP: n = 4F outputs, and the continuity criterion
 * above holds at every source frame including the seam (b = 0, extrapolated
 * from outputs n-3, n-2, n-1 of segment F-1, which runs from frame F-1 to
 * frame 0). */
Test(clip, loop_seam_velocity_continuous)
{
    rng_t r = rng_seed(5150);
    pb_clip src = cyclic_clip(&r, 48, 5, 1.0 / 30.0);
    check_continuity_4x("cyclic", &src, PB_CLIP_LOOP);
    clip_free(&src);
}

/* The criterion can fail: PB_EXACT_VELOCITY is J_l(u) du/dx, and at a
 * source frame u jumps from d12 (end of a segment) to 0 (start of the next),
 * so the exact angular velocity of this C1-in-u spline jumps by
 * (J_l(d12) - I) t2, about |d12 x t2| / 2: on the cyclic clip (steps of ~0.1
 * rad that turn) the same check must see jumps above its tolerance, while the
 * position and scale velocities (not affected by the flag) stay continuous. */
Test(clip, continuity_criterion_sees_exact_velocity_kinks)
{
    rng_t r = rng_seed(5150);
    pb_clip src = cyclic_clip(&r, 48, 5, 1.0 / 30.0);
    size_t n = 4 * 48, J = 5;
    pb_clip dst = clip_new(n, J, 0, 1, 1);
    pb_clip_vel vel = vel_new(n * J, 1, 0, 0);
    cr_assert_eq(pb_clip_resample(&src, 4.0 * 30.0, PB_CLIP_LOOP | PB_EXACT_VELOCITY, &dst, &vel),
                 PB_OK);
    jump_stats js;
    memset(&js, 0, sizeof js);
    rt_init(&js.t, "exact angular velocity at source frames (kinks expected)");
    check_velocity_jumps("cyclic exact", vel.rot, n, J, src.frame_time, 1, &js);
    rt_report(&js.t);
    cr_expect_gt(js.t.nfail, 0, "no kink seen: max jump %.3g = %.3g x tol", js.max_jump,
                 js.t.max_ratio);
    cr_expect_gt(js.t.max_ratio, 10.0, "kinks only %.3g x tol", js.t.max_ratio);
    vel_free(&vel);
    clip_free(&dst);
    clip_free(&src);
}

/* Just before the period and at 0: with delta = 1e-3 frame times, the pose
 * at P - delta is the pose at -delta (same point modulo P: 1e-6 rad, values
 * 1e-6), and it is within the distance the curve can travel in delta of the
 * pose at 0: angle <= 1.01 delta max|w| + 2e-6, w the exact angular velocity
 * (PB_EXACT_VELOCITY) at both ends (|w| changes by ~1e-3 relative over
 * delta); positions likewise with their velocity. */
Test(clip, loop_seam_pose_continuous)
{
    rng_t r = rng_seed(5151);
    size_t F = 48, J = 5;
    double ft = 1.0 / 30.0, P = (double)F * ft, dl = 1e-3 * ft;
    pb_clip src = cyclic_clip(&r, F, J, ft);
    double times[5] = {0.0, P - dl, -dl, P, 3.0 * P - dl};
    pb_clip dst = clip_new(5, J, 0, 1, 1);
    pb_clip_vel vel = vel_new(5 * J, 1, 1, 1);
    cr_assert_eq(pb_clip_sample(&src, 5, times, PB_CLIP_LOOP | PB_EXACT_VELOCITY, &dst, &vel),
                 PB_OK);
    for (size_t j = 0; j < J; j++) {
        rq q0 = fq_get(dst.rot, j), qb = fq_get(dst.rot, J + j);
        rv3 w0 = fv_get(vel.rot, j), wb = fv_get(vel.rot, J + j);
        /* same point modulo the period */
        for (size_t k = 2; k < 5; k += 2) {
            size_t o = k * J + j;
            cr_expect_leq(rq_angle_between(fq_get(dst.rot, o), qb), TOL_SAME_ROT, "joint %zu t=%g",
                          j, times[k]);
            cr_expect_leq(val_ratio(fv_get(dst.pos, o), fv_get(dst.pos, J + j)), 1.0);
            cr_expect_leq(val_ratio(fv_get(dst.scale, o), fv_get(dst.scale, J + j)), 1.0);
            cr_expect_leq(vel_ratio(rv3_scale(fv_get(vel.rot, o), ft), rv3_scale(wb, ft)), 1.0);
        }
        cr_expect_leq(rq_angle_between(fq_get(dst.rot, 3 * J + j), q0), TOL_SAME_ROT,
                      "joint %zu: t = P is t = 0", j);
        /* continuity across the seam */
        double ang = rq_angle_between(q0, qb);
        double bound = 1.01 * dl * fmax(rv3_norm(w0), rv3_norm(wb)) + 2e-6;
        cr_expect_leq(ang, bound,
                      "joint %zu: rotation at P - delta is %.3g rad from t = 0 "
                      "(bound %.3g)",
                      j, ang, bound);
        cr_expect_gt(rv3_norm(w0), 0.1, "the clip moves at the seam");
        rv3 p0 = fv_get(dst.pos, j), pb = fv_get(dst.pos, J + j);
        double pd = rv3_dist(p0, pb),
               pbound = 1.01 * dl *
                            fmax(rv3_norm(fv_get(vel.pos, j)), rv3_norm(fv_get(vel.pos, J + j))) +
                        TOL_SAME_VAL * (rv3_norm(p0) + 1.0);
        cr_expect_leq(pd, pbound, "joint %zu: position at P - delta is %.3g from t = 0", j, pd);
    }
    vel_free(&vel);
    clip_free(&dst);
    clip_free(&src);
}

/* Loop mode equals clamp mode on the clip repeated three times, sampled in
 * the middle copy (where every neighbour exists): wrapping neighbours are
 * the same frames. */
Test(clip, loop_equals_clamp_of_repeated_clip)
{
    rng_t r = rng_seed(5152);
    size_t F = 13, J = 9, n = 120;
    double ft = 0.04, P = (double)F * ft;
    pb_clip src = cyclic_clip(&r, F, J, ft);
    clip_fill_random(&src, &r, 1); /* any clip: the wrap is what is tested */
    pb_clip rep = clip_new(3 * F, J, ft, 1, 1);
    for (size_t f = 0; f < 3 * F; f++)
        for (size_t j = 0; j < J; j++) {
            size_t i = f * J + j, s = (f % F) * J + j;
            fq_set(rep.rot, i, fq_get(src.rot, s));
            fv_set(rep.pos, i, fv_get(src.pos, s));
            fv_set(rep.scale, i, fv_get(src.scale, s));
        }
    double t[120], t2[120];
    for (size_t i = 0; i < n; i++) {
        t[i] = i < 4 ? ((double)(F - 1) + 0.25 * (double)i) * ft : rng_range(&r, 0.0, P);
        t2[i] = t[i] + P;
    }
    for (int exact = 0; exact < 2; exact++) {
        unsigned fe = exact ? PB_EXACT_VELOCITY : 0;
        pb_clip a = clip_new(n, J, 0, 1, 1), b = clip_new(n, J, 0, 1, 1);
        pb_clip_vel va = vel_new(n * J, 1, 1, 1), vb = vel_new(n * J, 1, 1, 1);
        cr_assert_eq(pb_clip_sample(&src, n, t, PB_CLIP_LOOP | fe, &a, &va), PB_OK);
        cr_assert_eq(pb_clip_sample(&rep, n, t2, fe, &b, &vb), PB_OK);
        ref_track tr, tv, tp;
        rt_init(&tr, "loop vs clamp of the repeated clip: rotation");
        rt_init(&tv, "loop vs clamp of the repeated clip: velocities");
        rt_init(&tp, "loop vs clamp of the repeated clip: positions, scales");
        for (size_t i = 0; i < n * J; i++) {
            double e = rq_angle_between(fq_get(a.rot, i), fq_get(b.rot, i));
            if (rt_add(&tr, i, e, e / TOL_SAME_ROT))
                rt_note(&tr, "exact=%d sample %zu t=%.17g", exact, i / J, t[i / J]);
            pb_vec3s x1[3] = {va.rot, va.pos, va.scale}, x2[3] = {vb.rot, vb.pos, vb.scale};
            for (int k = 0; k < 3; k++) {
                rv3 v1 = rv3_scale(fv_get(x1[k], i), ft), v2 = rv3_scale(fv_get(x2[k], i), ft);
                if (rt_add(&tv, i, rv3_dist(v1, v2), vel_ratio(v1, v2)))
                    rt_note(&tv, "exact=%d sample %zu t=%.17g velocity %d: " RV_FMT " vs " RV_FMT,
                            exact, i / J, t[i / J], k, RV_ARG(v1), RV_ARG(v2));
            }
            rv3 p1 = fv_get(a.pos, i), p2 = fv_get(b.pos, i);
            rv3 s1 = fv_get(a.scale, i), s2 = fv_get(b.scale, i);
            double ratio = fmax(val_ratio(p1, p2), val_ratio(s1, s2));
            if (rt_add(&tp, i, ratio, ratio))
                rt_note(&tp, "exact=%d sample %zu", exact, i / J);
        }
        RT_EXPECT(tr);
        RT_EXPECT(tv);
        RT_EXPECT(tp);
        vel_free(&va);
        vel_free(&vb);
        clip_free(&a);
        clip_free(&b);
    }
    clip_free(&rep);
    clip_free(&src);
}
