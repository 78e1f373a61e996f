/*
 * Tests of the clip API (include/posebatch.h, "Clips"): pb_clip_sample,
 * pb_clip_resample_frames, pb_clip_resample and pb_pose_blend.
 *
 * clip/sample_matches_per_sample_functions
 *     Random clips (F in {1,2,3,7,40}, J in {1,5,33}, positions and scales,
 *     random unit rotations stored with random signs), random times (negative,
 *     beyond the end, exactly at frame times, just below frame times,
 *     unsorted), clamp and PB_CLIP_LOOP, with and without PB_EXACT_VELOCITY:
 *     every output equals pb_quat_catmull_rom / pb_vec3_catmull_rom /
 *     pb_scale_catmull_rom on the four neighbouring frames at the same x
 *     (end rules of the header), velocities per second; held poses have zero
 *     velocity.
 * clip/tracks_may_be_left_out
 *     dst without positions / scales, vel NULL or partial: the same bits.
 * clip/frame_times_reproduce_frames_exactly
 *     a time t == f * frame_time reproduces frame f exactly (== per
 *     component, up to the quaternion sign), and the clamp end frame time is
 *     not a held pose.
 * clip/output_rotations_are_unrolled
 *     dot(out(i-1, j), out(i, j)) >= 0 for consecutive outputs, sorted or not.
 * clip/resample_frames_counts, clip/resample_frames_invalid
 *     output counts (clamp, loop, ratio snapping of printed frame times) and
 *     the 0 answer for invalid arguments.
 * clip/resample_cmu_*  (data/cmu_01_03.bvh, shipped)
 *     same-rate reproduction and 2x pass-through (at 1 / frame_time and at
 *     the nominal 120 fps of the printed 0.0083333), velocity continuity
 *     across source frames.
 * clip/loop_seam_*
 *     a synthetic cyclic clip: continuity across the seam, loop equals the
 *     clamp resampling of the clip repeated three times.
 * clip/resample_every_shared_clip
 *     same-rate reproduction and 2x pass-through for every *.bvh in
 *     PB_SHARED_DATA_DIR/mocap (skipped visibly when absent).
 * clip/blend_*
 *     pb_pose_blend: rotations bitwise equal to the pb_quat_average_* kernel,
 *     positions / scales against double sums, one-hot weights reproduce the
 *     input.
 * clip/errors_*
 *     every documented error of the four entry points returns its code and
 *     leaves every byte of every array (and dst's fields) untouched.
 *
 * Tolerances are the header's (rotation 2e-6 rad against double, velocity
 * 1e-5 relative + 1e-6 absolute per unit x, scale 2e-6 relative) or tighter
 * where the header promises the same computation as a per-sample function
 * (1e-6 rad, 1e-6 relative + absolute for positions and scales).
 */
#include "clip_util.h"

/* ------------------------------------------------------------------------ */
/* 1. pb_clip_sample equals the per-sample functions                        */
/* ------------------------------------------------------------------------ */

#define MAX_TIMES 64

/* Times for a clip of F frames: exact frame times f * ft for f in
 * {-2, -1, 0, 1, F-2, F-1, F, F+1} and 6 random frames, the double just below
 * three frame times, times within the 1e-9 frame-time snapping (just beyond
 * the end, just before 0, just below a random frame) and one just outside it
 * (1e-7 frames beyond the end: held in clamp mode), 8 negative times down to
 * two periods before 0, 8 times up to two periods beyond the end, 24 uniform
 * inside, one far away; shuffled. */
static size_t make_times(rng_t *r, size_t F, double ft, double *t)
{
    size_t n = 0;
    double P = (double)F * ft, end = (double)(F - 1) * ft;
    const long fixed[] = {-2, -1, 0, 1, (long)F - 2, (long)F - 1, (long)F, (long)F + 1};
    for (size_t k = 0; k < 8; k++)
        t[n++] = (double)fixed[k] * ft;
    for (int k = 0; k < 6; k++)
        t[n++] = floor(rng_uniform(r) * (double)F) * ft;
    t[n++] = nextafter(1.0 * ft, -INFINITY);
    t[n++] = nextafter(end, -INFINITY);
    t[n++] = nextafter(floor(rng_uniform(r) * (double)F) * ft, -INFINITY);
    double last = (double)(F - 1), fr = floor(rng_uniform(r) * (double)F);
    t[n++] = (last + 3e-10 * fmax(1.0, last)) * ft;
    t[n++] = -5e-10 * ft;
    t[n++] = (fr - 4e-10 * fmax(1.0, fr)) * ft;
    t[n++] = (last + 1e-7) * ft;
    for (int k = 0; k < 8; k++)
        t[n++] = -rng_range(r, 0.0, 2.0 * P);
    for (int k = 0; k < 8; k++)
        t[n++] = end + rng_range(r, 0.0, 2.0 * P);
    for (int k = 0; k < 24; k++)
        t[n++] = rng_range(r, 0.0, end);
    t[n++] = rng_sign(r) * 1000.5 * P;
    cr_assert_leq(n, MAX_TIMES);
    shuffle(r, t, n);
    return n;
}

typedef struct {
    ref_track rot, rvel, pos, pvel, scl, svel, held;
    size_t cases;
} sample_tracks;

static void check_sample_case(rng_t *r, size_t F, size_t J, unsigned flags, int walk,
                              sample_tracks *T)
{
    double ft = rng_logrange(r, 1.0 / 240.0, 0.2);
    pb_clip src = clip_new(F, J, ft, 1, 1);
    clip_fill_random(&src, r, walk);
    double times[MAX_TIMES];
    size_t n = make_times(r, F, ft, times);
    pb_clip dst = clip_new(n, J, 0.5, 1, 1);
    pb_clip_vel vel = vel_new(n * J, 1, 1, 1);
    cr_assert_eq(pb_clip_sample(&src, n, times, flags, &dst, &vel), PB_OK);
    cr_expect_eq(dst.frame_time, 0.5, "dst->frame_time is not used or changed");

    pb_quats rr = fq_alloc(J);
    pb_vec3s rv = fv_alloc(J), rp = fv_alloc(J), rpv = fv_alloc(J), rs = fv_alloc(J),
             rsv = fv_alloc(J);
    int loop = (flags & PB_CLIP_LOOP) != 0;
    for (size_t i = 0; i < n; i++) {
        loc_t L = ref_locate(times[i], F, ft, loop);
        ref_sample(&src, &L, flags, rr, rv, rp, rpv, rs, rsv);
        for (size_t j = 0; j < J; j++) {
            size_t o = i * J + j, c = T->cases++;
            char where[256];
            snprintf(where, sizeof where,
                     "F=%zu J=%zu %s walk=%d ft=%.17g t=%.17g (u=%.17g) joint %zu -> frames "
                     "%zu %zu %zu %zu x=%.9g held=%d",
                     F, J, flags_name(flags), walk, ft, times[i], times[i] / ft, j, L.f[0], L.f[1],
                     L.f[2], L.f[3], (double)L.x, L.held);
            rq q = fq_get(dst.rot, o), qr = fq_get(rr, j);
            double e = rq_angle_between(q, qr);
            if (rt_add(&T->rot, c, e, e / TOL_SAME_ROT))
                rt_note(&T->rot, "%s: rot " RQ_FMT " per-sample " RQ_FMT, where, RQ_ARG(q),
                        RQ_ARG(qr));
            rv3 p = fv_get(dst.pos, o), pr = fv_get(rp, j);
            e = val_ratio(p, pr);
            if (rt_add(&T->pos, c, rv3_dist(p, pr), e))
                rt_note(&T->pos, "%s: pos " RV_FMT " per-sample " RV_FMT, where, RV_ARG(p),
                        RV_ARG(pr));
            rv3 s = fv_get(dst.scale, o), sr = fv_get(rs, j);
            e = val_ratio(s, sr);
            if (rt_add(&T->scl, c, rv3_dist(s, sr), e))
                rt_note(&T->scl, "%s: scale " RV_FMT " per-sample " RV_FMT, where, RV_ARG(s),
                        RV_ARG(sr));
            rv3 v[3] = {fv_get(vel.rot, o), fv_get(vel.pos, o), fv_get(vel.scale, o)};
            rv3 vr[3] = {fv_get(rv, j), fv_get(rpv, j), fv_get(rsv, j)};
            ref_track *tv[3] = {&T->rvel, &T->pvel, &T->svel};
            for (int k = 0; k < 3; k++) {
                if (L.held) {
                    /* held pose: exactly zero velocity */
                    double m = rv3_norm(v[k]);
                    if (rt_add(&T->held, c, m, m == 0.0 ? 0.0 : INFINITY))
                        rt_note(&T->held, "%s: velocity %d of a held pose " RV_FMT, where, k,
                                RV_ARG(v[k]));
                    continue;
                }
                /* per second -> per unit x */
                rv3 vx = rv3_scale(v[k], ft);
                double ratio = vel_ratio(vx, vr[k]);
                if (rt_add(tv[k], c, rv3_dist(vx, vr[k]), ratio))
                    rt_note(tv[k], "%s: velocity*ft " RV_FMT " per-sample " RV_FMT, where,
                            RV_ARG(vx), RV_ARG(vr[k]));
            }
        }
    }
    fq_free(rr);
    fv_free(rv);
    fv_free(rp);
    fv_free(rpv);
    fv_free(rs);
    fv_free(rsv);
    vel_free(&vel);
    clip_free(&dst);
    clip_free(&src);
}

Test(clip, sample_matches_per_sample_functions, .timeout = 60)
{
    static const size_t kF[] = {1, 2, 3, 7, 40};
    static const size_t kJ[] = {1, 5, 33};
    static const unsigned kflags[] = {0, PB_EXACT_VELOCITY, PB_CLIP_LOOP,
                                      PB_CLIP_LOOP | PB_EXACT_VELOCITY};
    sample_tracks T;
    memset(&T, 0, sizeof T);
    rt_init(&T.rot, "sample rotation vs pb_quat_catmull_rom (rad, tol 1e-6)");
    rt_init(&T.rvel, "sample angular velocity * ft vs pb_quat_catmull_rom");
    rt_init(&T.pos, "sample position vs pb_vec3_catmull_rom");
    rt_init(&T.pvel, "sample position velocity * ft vs pb_vec3_catmull_rom");
    rt_init(&T.scl, "sample scale vs pb_scale_catmull_rom");
    rt_init(&T.svel, "sample scale velocity * ft vs pb_scale_catmull_rom");
    rt_init(&T.held, "held poses have zero velocity");
    rng_t r = rng_seed(0xC11B5A);
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 3; b++)
            for (size_t c = 0; c < 4; c++)
                for (int walk = 0; walk < 2; walk++)
                    check_sample_case(&r, kF[a], kJ[b], kflags[c], walk, &T);
    RT_EXPECT(T.rot);
    RT_EXPECT(T.rvel);
    RT_EXPECT(T.pos);
    RT_EXPECT(T.pvel);
    RT_EXPECT(T.scl);
    RT_EXPECT(T.svel);
    RT_EXPECT(T.held);
    cr_expect_gt(T.held.count, 0, "some samples were held");
}

/* A track of src may be left out of dst, and vel may be NULL or partial:
 * what is computed has the same bits as the full call. */
Test(clip, tracks_may_be_left_out)
{
    rng_t r = rng_seed(77);
    size_t F = 9, J = 19, n = 40;
    pb_clip src = clip_new(F, J, 1.0 / 30.0, 1, 1);
    clip_fill_random(&src, &r, 1);
    double times[40];
    for (size_t i = 0; i < n; i++)
        times[i] = rng_range(&r, -0.1, 0.4);
    pb_clip full = clip_new(n, J, 0, 1, 1);
    pb_clip_vel fv = vel_new(n * J, 1, 1, 1);
    cr_assert_eq(pb_clip_sample(&src, n, times, PB_CLIP_LOOP, &full, &fv), PB_OK);
    size_t N = n * J, B = N * sizeof(float);
    for (int variant = 0; variant < 4; variant++) {
        pb_clip d = clip_new(n, J, 0, variant & 1, variant & 2);
        pb_clip_vel v = vel_new(N, variant != 1, variant == 3, 0);
        cr_assert_eq(pb_clip_sample(&src, n, times, PB_CLIP_LOOP, &d, variant == 2 ? NULL : &v),
                     PB_OK, "variant %d", variant);
        cr_expect(!memcmp(d.rot.w, full.rot.w, B) && !memcmp(d.rot.x, full.rot.x, B) &&
                      !memcmp(d.rot.y, full.rot.y, B) && !memcmp(d.rot.z, full.rot.z, B),
                  "variant %d: rotations differ", variant);
        if (d.pos.x)
            cr_expect(!memcmp(d.pos.x, full.pos.x, B) && !memcmp(d.pos.z, full.pos.z, B),
                      "variant %d: positions differ", variant);
        if (d.scale.x)
            cr_expect(!memcmp(d.scale.y, full.scale.y, B), "variant %d: scales differ", variant);
        if (variant != 2 && v.rot.x)
            cr_expect(!memcmp(v.rot.x, fv.rot.x, B) && !memcmp(v.rot.z, fv.rot.z, B),
                      "variant %d: angular velocities differ", variant);
        if (variant == 3)
            cr_expect(!memcmp(v.pos.y, fv.pos.y, B), "variant 3: position velocities differ");
        vel_free(&v);
        clip_free(&d);
    }
    vel_free(&fv);
    clip_free(&full);
    clip_free(&src);
}

/* ------------------------------------------------------------------------ */
/* 2. Frame times reproduce frames; unrolled output                         */
/* ------------------------------------------------------------------------ */

/* "A sample exactly at a source frame time reproduces that frame exactly":
 * asserted as == per component (so -0 == 0), up to the quaternion sign (the
 * output is unrolled), for rotations, positions and scales, at every time
 * t = f * ft (the double product). Frames 5 and 20 are the identity rotation
 * with zero position and unit scale, frame 31 a half turn (w = 0): exact
 * zeros there show any x != 0 (a time / ft that lands one ulp above f
 * gives x ~ 1e-16 and components ~ 1e-17 instead of 0). In clamp mode
 * t = (F-1) ft is inside the clip, so its velocity is the Catmull-Rom one,
 * not the zero of a held pose. */
Test(clip, frame_times_reproduce_frames_exactly)
{
    static const double fts[] = {0.1,       1.0 / 30.0, 0.0333333,   1.0 / 120.0,
                                 0.0083333, 0.008333,   1.0 / 24.0,  0.04,
                                 0.7,       1.0 / 60.0, 0.016666667, 0.3};
    const size_t F = 40, J = 7;
    rng_t r = rng_seed(4242);
    size_t bad = 0, checked = 0, bad_end_vel = 0;
    char first[512] = "";
    for (size_t k = 0; k < sizeof fts / sizeof fts[0]; k++) {
        double ft = fts[k];
        pb_clip src = clip_new(F, J, ft, 1, 1);
        clip_fill_random(&src, &r, 1);
        for (size_t j = 0; j < J; j++) {
            fq_set(src.rot, 5 * J + j, rq_identity());
            fq_set(src.rot, 20 * J + j, rq_identity());
            fq_set(src.rot, 31 * J + j, rq_make(0, 0.6, 0, -0.8));
            fv_set(src.pos, 5 * J + j, rv3_make(0, 0, 0));
            fv_set(src.pos, 20 * J + j, rv3_make(0, 0, 0));
            fv_set(src.scale, 5 * J + j, rv3_make(1, 1, 1));
        }
        double times[80];
        size_t n = 0;
        for (size_t f = 0; f < F; f++)
            times[n++] = (double)f * ft;
        for (size_t f = F; f-- > 0;)
            times[n++] = (double)f * ft; /* unsorted: descending */
        for (unsigned fl = 0; fl < 4; fl++) {
            unsigned flags = (fl & 1 ? PB_CLIP_LOOP : 0) | (fl & 2 ? PB_EXACT_VELOCITY : 0);
            pb_clip dst = clip_new(n, J, 0, 1, 1);
            pb_clip_vel vel = vel_new(n * J, 1, 1, 0);
            cr_assert_eq(pb_clip_sample(&src, n, times, flags, &dst, &vel), PB_OK);
            for (size_t i = 0; i < n; i++) {
                size_t f = i < F ? i : 2 * F - 1 - i;
                for (size_t j = 0; j < J; j++) {
                    size_t o = i * J + j, s = f * J + j;
                    checked++;
                    rq q = fq_get(dst.rot, o), qs = fq_get(src.rot, s);
                    rv3 p = fv_get(dst.pos, o), ps = fv_get(src.pos, s);
                    rv3 c = fv_get(dst.scale, o), cs = fv_get(src.scale, s);
                    if (q_same_up_to_sign(q, qs) && v_same(p, ps) && v_same(c, cs))
                        continue;
                    if (!bad++)
                        snprintf(
                            first, sizeof first,
                            "ft=%.17g %s frame %zu joint %zu: t=%.17g, t/ft-f=%.3g: rot " RQ_FMT
                            " frame " RQ_FMT " pos " RV_FMT " frame " RV_FMT " scale " RV_FMT
                            " frame " RV_FMT,
                            ft, flags_name(flags), f, j, times[i], times[i] / ft - (double)f,
                            RQ_ARG(q), RQ_ARG(qs), RV_ARG(p), RV_ARG(ps), RV_ARG(c), RV_ARG(cs));
                }
            }
            vel_free(&vel);
            clip_free(&dst);
        }
        clip_free(&src);
    }
    cr_expect_eq(bad, 0, "%zu of %zu samples at exact frame times differ from the frame; first: %s",
                 bad, checked, first);

    /* Clamp, t = (F-1) ft: inside [0, (F-1) ft], so the velocity is the
     * Catmull-Rom one at x = 0 of frames F-2, F-1, F-1, F-1 (half the last
     * step), not the zero of a held pose. */
    size_t end_checked = 0;
    char end_first[256] = "";
    for (size_t k = 0; k < sizeof fts / sizeof fts[0]; k++)
        for (size_t F2 = 2; F2 <= 40; F2++) {
            double ft = fts[k], t = (double)(F2 - 1) * ft;
            pb_clip src = clip_new(F2, 1, ft, 1, 0);
            clip_fill_random(&src, &r, 1);
            pb_clip dst = clip_new(1, 1, 0, 1, 0);
            pb_clip_vel vel = vel_new(1, 1, 1, 0);
            cr_assert_eq(pb_clip_sample(&src, 1, &t, 0, &dst, &vel), PB_OK);
            rv3 want =
                rv3_scale(rv3_sub(fv_get(src.pos, F2 - 1), fv_get(src.pos, F2 - 2)), 0.5 / ft);
            end_checked++;
            if (!(rv3_dist(fv_get(vel.pos, 0), want) <= 1e-5 * rv3_norm(want)) && !bad_end_vel++)
                snprintf(
                    end_first, sizeof end_first,
                    "F=%zu ft=%.17g t=%.17g (t/ft-(F-1)=%.3g): velocity " RV_FMT " want " RV_FMT,
                    F2, ft, t, t / ft - (double)(F2 - 1), RV_ARG(fv_get(vel.pos, 0)), RV_ARG(want));
            vel_free(&vel);
            clip_free(&dst);
            clip_free(&src);
        }
    cr_expect_eq(bad_end_vel, 0,
                 "%zu of %zu clamp samples at t = (F-1) ft have a wrong (held?) velocity; "
                 "first: %s",
                 bad_end_vel, end_checked, end_first);
}

/* "the output rotation tracks are unrolled (consecutive output frames in one
 * hemisphere)": dot(out(i-1, j), out(i, j)) >= 0, for sorted dense times and
 * for unsorted random times (consecutive in output order), from a source with
 * random signs. */
Test(clip, output_rotations_are_unrolled)
{
    rng_t r = rng_seed(99);
    size_t bad = 0, checked = 0;
    for (int walk = 0; walk < 2; walk++) {
        size_t F = walk ? 40 : 7, J = 33;
        pb_clip src = clip_new(F, J, 0.05, 0, 0);
        clip_fill_random(&src, &r, walk);
        double P = (double)F * 0.05, times[300];
        for (size_t i = 0; i < 200; i++)
            times[i] = -0.25 * P + 1.5 * P * (double)i / 199.0;
        for (size_t i = 200; i < 300; i++)
            times[i] = rng_range(&r, -P, 2.0 * P);
        for (unsigned flags = 0; flags <= PB_CLIP_LOOP; flags += PB_CLIP_LOOP) {
            pb_clip dst = clip_new(300, J, 0, 0, 0);
            cr_assert_eq(pb_clip_sample(&src, 300, times, flags, &dst, NULL), PB_OK);
            for (size_t i = 1; i < 300; i++)
                for (size_t j = 0; j < J; j++) {
                    checked++;
                    double d = rq_dot(fq_get(dst.rot, (i - 1) * J + j), fq_get(dst.rot, i * J + j));
                    if (!(d >= 0.0) && !bad++)
                        fprintf(stderr, "not unrolled: walk %d %s output %zu joint %zu dot %g\n",
                                walk, flags_name(flags), i, j, d);
                }
            clip_free(&dst);
        }
        clip_free(&src);
    }
    cr_expect_eq(bad, 0, "%zu of %zu consecutive output pairs in opposite hemispheres", bad,
                 checked);
}

/* ------------------------------------------------------------------------ */
/* 3. pb_clip_resample_frames                                               */
/* ------------------------------------------------------------------------ */

static size_t frames_of(size_t F, size_t J, double ft, double fps, unsigned flags)
{
    float dummy[1] = {1.0f};
    pb_clip c;
    memset(&c, 0, sizeof c);
    c.frames = F;
    c.joints = J;
    c.frame_time = ft;
    pb_quats q = {dummy, dummy, dummy, dummy};
    c.rot = q;
    return pb_clip_resample_frames(&c, fps, flags);
}

/* Resampling runs the output frames of one source segment together (up to
 * PB_RUN_MAX per kernel call); sampling one time per call runs each alone.
 * Both must give the same bits: rotations up to sign (a lone sample has no
 * previous output to take the hemisphere from), positions, scales and every
 * velocity exactly. Factors 1..20 (runs cut at 16), clamp and loop, exact
 * velocities, a joint count with a tail on every backend; frame_time 1 so
 * that both see the same source positions. */
static int same_bits(float a, float b) { return !memcmp(&a, &b, sizeof a); }
Test(clip, resample_runs_match_single_samples, .timeout = 60)
{
    rng_t r = rng_seed(0x5EC5);
    const size_t F = 9, J = 19;
    pb_clip src = clip_new(F, J, 1.0, 1, 1);
    clip_fill_random(&src, &r, 1);
    /* whole factors repeat their parameters in every segment; 2.5 and 7/3
     * give runs of equal length with other parameters (the weights kept
     * from the run before must not be reused there) */
    const double factors[] = {1, 3, 4, 16, 20, 2.5, 7.0 / 3.0};
    const unsigned flag_sets[] = {0, PB_CLIP_LOOP, PB_EXACT_VELOCITY,
                                  PB_CLIP_LOOP | PB_EXACT_VELOCITY};
    for (size_t fi = 0; fi < sizeof factors / sizeof *factors; fi++)
        for (size_t gi = 0; gi < 4; gi++) {
            unsigned flags = flag_sets[gi];
            double fps = factors[fi];
            size_t G = pb_clip_resample_frames(&src, fps, flags);
            cr_assert_gt(G, 0);
            pb_clip dst = clip_new(G, J, 0, 1, 1), one = clip_new(1, J, 0, 1, 1);
            pb_clip_vel vel = vel_new(G * J, 1, 1, 1), vone = vel_new(J, 1, 1, 1);
            cr_assert_eq(pb_clip_resample(&src, fps, flags, &dst, &vel), PB_OK);
            for (size_t i = 0; i < G; i++) {
                double t = (double)i * (1.0 / fps);
                cr_assert_eq(pb_clip_sample(&src, 1, &t, flags, &one, &vone), PB_OK);
                for (size_t j = 0; j < J; j++) {
                    size_t e = i * J + j;
                    int same = 1, flipped = 1;
                    const float *a[4] = {dst.rot.w, dst.rot.x, dst.rot.y, dst.rot.z};
                    const float *b[4] = {one.rot.w, one.rot.x, one.rot.y, one.rot.z};
                    for (int c = 0; c < 4; c++) {
                        same &= same_bits(a[c][e], b[c][j]);
                        flipped &= same_bits(a[c][e], -b[c][j]);
                    }
                    cr_assert(same || flipped, "x%g %s: frame %zu joint %zu: rotation differs",
                              factors[fi], flags_name(flags), i, j);
                    const float *va[12] = {dst.pos.x,   dst.pos.y,   dst.pos.z,   dst.scale.x,
                                           dst.scale.y, dst.scale.z, vel.rot.x,   vel.rot.y,
                                           vel.rot.z,   vel.scale.x, vel.scale.y, vel.scale.z};
                    const float *vb[12] = {one.pos.x,   one.pos.y,    one.pos.z,    one.scale.x,
                                           one.scale.y, one.scale.z,  vone.rot.x,   vone.rot.y,
                                           vone.rot.z,  vone.scale.x, vone.scale.y, vone.scale.z};
                    for (int c = 0; c < 12; c++)
                        cr_assert(same_bits(va[c][e], vb[c][j]),
                                  "x%g %s: frame %zu joint %zu: component %d differs", factors[fi],
                                  flags_name(flags), i, j, c);
                    cr_assert(same_bits(vel.pos.x[e], vone.pos.x[j]) &&
                              same_bits(vel.pos.y[e], vone.pos.y[j]) &&
                              same_bits(vel.pos.z[e], vone.pos.z[j]));
                }
            }
            clip_free(&dst);
            clip_free(&one);
            vel_free(&vel);
            vel_free(&vone);
        }
    clip_free(&src);
}

/* Joints that hardly move (offsets of rounding noise, 1e-10 rad per frame,
 * and 1e-6 rad: what real clips hold for joints without motion) raise no
 * floating-point underflow: the polynomials' powers of tiny arguments used
 * to underflow, and on x86 each underflow is a microcode assist of about a
 * hundred cycles (it doubled the AVX2 resample of the CMU clip). */
Test(clip, resample_of_still_joints_raises_no_underflow)
{
    rng_t r = rng_seed(0x7E57);
    const size_t F = 12, J = 19;
    pb_clip src = clip_new(F, J, 1.0 / 120, 1, 0);
    clip_fill_random(&src, &r, 1);
    for (size_t j = 0; j < J; j += 2) { /* every other joint still, to noise */
        rq q = rng_quat(&r);
        double amp = j % 4 ? 1e-6 : 1e-10;
        for (size_t f = 0; f < F; f++) {
            rv3 n = rng_vec3(&r, amp);
            fq_set(src.rot, f * J + j, rq_mul(rq_exp(n), q));
        }
    }
    double fps = 480;
    size_t G = pb_clip_resample_frames(&src, fps, 0);
    pb_clip dst = clip_new(G, J, 0, 1, 0);
    feclearexcept(FE_ALL_EXCEPT);
    cr_assert_eq(pb_clip_resample(&src, fps, 0, &dst, NULL), PB_OK);
    int raised = fetestexcept(FE_UNDERFLOW);
    cr_expect_eq(raised, 0, "pb_clip_resample of still joints raised FE_UNDERFLOW (backend %s)",
                 pb_backend_name(pb_backend_active()));
    clip_free(&dst);
    clip_free(&src);
}

Test(clip, resample_frames_counts)
{
    /* exact 1/30: 31 frames span 1 s */
    cr_expect_eq(frames_of(31, 1, 1.0 / 30.0, 120.0, 0), 121);
    cr_expect_eq(frames_of(31, 1, 1.0 / 30.0, 120.0, PB_CLIP_LOOP), 124);
    cr_expect_eq(frames_of(31, 1, 1.0 / 30.0, 30.0, 0), 31);
    cr_expect_eq(frames_of(31, 1, 1.0 / 30.0, 30.0, PB_CLIP_LOOP), 31);
    cr_expect_eq(frames_of(31, 1, 1.0 / 30.0, 15.0, 0), 16);
    cr_expect_eq(frames_of(31, 1, 1.0 / 30.0, 60.0, PB_CLIP_LOOP | PB_EXACT_VELOCITY), 62);
    /* not a whole multiple: floor(0.09 * 33.3) + 1 = 3; loop round(3.33) = 3 */
    cr_expect_eq(frames_of(10, 1, 0.01, 33.3, 0), 3);
    cr_expect_eq(frames_of(10, 1, 0.01, 33.3, PB_CLIP_LOOP), 3);
    /* 1.5 output frames per period rounds to 2 (at least 1) */
    cr_expect_eq(frames_of(1, 1, 0.1, 15.0, PB_CLIP_LOOP), 2);
    cr_expect_eq(frames_of(1, 1, 0.1, 1.0, PB_CLIP_LOOP), 1);
    cr_expect_eq(frames_of(1, 1, 0.1, 1000.0, 0), 1);
    cr_expect_eq(frames_of(4511, 31, 1.0 / 120.0, 120.0, 0), 4511);
    cr_expect_eq(frames_of(4511, 31, 1.0 / 120.0, 240.0, 0), 9021);
    cr_expect_eq(frames_of(4511, 31, 1.0 / 120.0, 30.0, 0), 1128);
    /* printed frame times of 1/120 (7 and 6 decimals): ratio snapping */
    cr_expect_eq(frames_of(4511, 31, 0.0083333, 120.0, 0), 4511);
    cr_expect_eq(frames_of(4511, 31, 0.0083333, 240.0, 0), 9021);
    cr_expect_eq(frames_of(1064, 23, 0.008333, 120.0, 0), 1064);
    cr_expect_eq(frames_of(1064, 23, 0.008333, 120.0, PB_CLIP_LOOP), 1064);
    /* 29.97 fps is not 30 (1e-3 off, no p/q with q <= 64 within 1e-4):
     * 1000 frame times of 1/29.97 s are 1001.001 frames at 30 fps */
    cr_expect_eq(frames_of(1001, 1, 1.0 / 29.97, 30.0, 0), 1002);
    cr_expect_eq(frames_of(1001, 1, 1.0 / 29.97, 30.0, PB_CLIP_LOOP), 1002);
    /* The header's own example: a printed frame time of 0.0333333 is 1/30
     * (ratio 0.25 for 120 fps, 1 for 30 fps). */
    cr_expect_eq(frames_of(31, 1, 0.0333333, 120.0, 0), 121,
                 "31 frames at printed 0.0333333 -> 120 fps: %zu",
                 frames_of(31, 1, 0.0333333, 120.0, 0));
    cr_expect_eq(frames_of(31, 1, 0.0333333, 120.0, PB_CLIP_LOOP), 124);
    cr_expect_eq(frames_of(31, 1, 0.0333333, 30.0, 0), 31,
                 "31 frames at printed 0.0333333 -> 30 fps: %zu",
                 frames_of(31, 1, 0.0333333, 30.0, 0));
    cr_expect_eq(frames_of(31, 1, 0.0333333, 30.0, PB_CLIP_LOOP), 31);
    /* a frame time printed with more digits than needed is snapped too */
    cr_expect_eq(frames_of(31, 1, 0.033333333, 120.0, 0), 121);
    /* long clips: a relative slack for "whole multiples" must not add frames
     * past the end (2000001 frames at 100 fps span exactly 20000 s) */
    cr_expect_eq(frames_of(2000001, 1, 0.01, 100.0, 0), 2000001, "long clip, same rate: %zu",
                 frames_of(2000001, 1, 0.01, 100.0, 0));
    cr_expect_eq(frames_of(2000001, 1, 0.01, 100.0, PB_CLIP_LOOP), 2000001);
    cr_expect_eq(frames_of(5, 1, 1.0, 1e6, 0), 4000001, "4 s at 1e6 fps: %zu",
                 frames_of(5, 1, 1.0, 1e6, 0));
    /* the limit: count * joints up to PB_MAX_COUNT */
    cr_expect_eq(frames_of(2, 1, 1.0, 1000.0, 0), 1001);
    cr_expect_eq(frames_of(1, 1, 0.5, (double)(PB_MAX_COUNT - 1) * 2.0, PB_CLIP_LOOP),
                 PB_MAX_COUNT - 1);
    cr_expect_eq(frames_of(1, 1, 0.5, (double)PB_MAX_COUNT * 2.0, PB_CLIP_LOOP), PB_MAX_COUNT);
    cr_expect_eq(frames_of(1, 1, 0.5, (double)(PB_MAX_COUNT + 1) * 2.0, PB_CLIP_LOOP), 0);
    cr_expect_eq(frames_of(1, 2, 0.5, (double)(PB_MAX_COUNT - 1) * 2.0, PB_CLIP_LOOP), 0);
}

/* With the ratio snapped, every 4th output of 30 -> 120 fps at the printed
 * frame time 0.0333333 is exactly a source frame. */
Test(clip, resample_printed_frame_time_snaps)
{
    rng_t r = rng_seed(31);
    size_t F = 31, J = 5;
    pb_clip src = clip_new(F, J, 0.0333333, 1, 0);
    clip_fill_random(&src, &r, 1);
    size_t n = pb_clip_resample_frames(&src, 120.0, 0);
    cr_assert_eq(n, 121, "0.0333333 -> 120 fps: %zu frames, want 121 (ratio 1/4 snapped)", n);
    pb_clip dst = clip_new(n, J, 0, 1, 0);
    cr_assert_eq(pb_clip_resample(&src, 120.0, 0, &dst, NULL), PB_OK);
    cr_expect_eq(dst.frame_time, 1.0 / 120.0);
    for (size_t f = 0; f < F; f++)
        for (size_t j = 0; j < J; j++)
            cr_expect(
                q_same_up_to_sign(fq_get(dst.rot, 4 * f * J + j), fq_get(src.rot, f * J + j)) &&
                    v_same(fv_get(dst.pos, 4 * f * J + j), fv_get(src.pos, f * J + j)),
                "output %zu is not source frame %zu (joint %zu)", 4 * f, f, j);
    clip_free(&dst);
    clip_free(&src);
}

Test(clip, resample_frames_invalid)
{
    cr_expect_eq(pb_clip_resample_frames(NULL, 30.0, 0), 0);
    const double bad_fps[] = {0.0, -0.0, -30.0, NAN, INFINITY, -INFINITY};
    for (size_t k = 0; k < 6; k++) {
        cr_expect_eq(frames_of(10, 2, 0.1, bad_fps[k], 0), 0, "fps %g", bad_fps[k]);
        cr_expect_eq(frames_of(10, 2, bad_fps[k], 30.0, 0), 0, "frame time %g", bad_fps[k]);
        cr_expect_eq(frames_of(10, 2, bad_fps[k], 30.0, PB_CLIP_LOOP), 0, "frame time %g",
                     bad_fps[k]);
    }
    cr_expect_eq(frames_of(0, 2, 0.1, 30.0, 0), 0);
    cr_expect_eq(frames_of(10, 0, 0.1, 30.0, 0), 0);
    cr_expect_eq(frames_of(0, 2, 0.1, 30.0, PB_CLIP_LOOP), 0);
    const unsigned bad_flags[] = {PB_LONG_PATH, PB_CLOSED, 0x10u, 0x80000000u,
                                  PB_CLIP_LOOP | PB_LONG_PATH};
    for (size_t k = 0; k < 5; k++)
        cr_expect_eq(frames_of(10, 2, 0.1, 30.0, bad_flags[k]), 0, "flags %#x", bad_flags[k]);
    /* frames * joints above PB_MAX_COUNT, also where the product wraps */
    cr_expect_eq(frames_of((size_t)1 << 20, (size_t)1 << 9, 0.1, 10.0, 0), 0);
    cr_expect_eq(frames_of(SIZE_MAX / 2 + 2, 4, 0.1, 10.0, 0), 0);
    /* a count above PB_MAX_COUNT */
    cr_expect_eq(frames_of(2, 1, 1.0, 1e12, 0), 0);
    cr_expect_eq(frames_of(2, 1, 1.0, 1e300, PB_CLIP_LOOP), 0);
}
