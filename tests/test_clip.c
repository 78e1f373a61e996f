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
#include <criterion/criterion.h>

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch/io.h"
#include "clipdata.h"
#include "posebatch.h"
#include "ref.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

#define TOL_SAME_ROT 1e-6   /* rad, against the per-sample function */
#define TOL_SAME_VAL 1e-6   /* relative + absolute, positions and scales */
#define VEL_REL 1e-5        /* header: velocities, per unit x */
#define VEL_ABS 1e-6

static const char *flags_name(unsigned flags)
{
    switch (flags) {
    case 0: return "clamp";
    case PB_EXACT_VELOCITY: return "clamp|exact";
    case PB_CLIP_LOOP: return "loop";
    case PB_CLIP_LOOP | PB_EXACT_VELOCITY: return "loop|exact";
    default: return "?";
    }
}

/* Views of element `off` onwards of a batch (absent stays absent). */
static pb_cquats cq_at(pb_quats q, size_t off)
{
    pb_cquats r = {q.w + off, q.x + off, q.y + off, q.z + off};
    return r;
}
static pb_vec3s v_at(pb_vec3s v, size_t off)
{
    if (!v.x) {
        pb_vec3s none = {NULL, NULL, NULL};
        return none;
    }
    pb_vec3s r = {v.x + off, v.y + off, v.z + off};
    return r;
}
static pb_cvec3s cv_at(pb_vec3s v, size_t off) { return pb_cv(v_at(v, off)); }

static pb_clip clip_new(size_t frames, size_t joints, double ft, int pos, int scale)
{
    pb_clip c;
    memset(&c, 0, sizeof c);
    c.frames = frames;
    c.joints = joints;
    c.frame_time = ft;
    c.rot = fq_alloc(frames * joints);
    if (pos)
        c.pos = fv_alloc(frames * joints);
    if (scale)
        c.scale = fv_alloc(frames * joints);
    return c;
}
static void clip_free(pb_clip *c)
{
    fq_free(c->rot);
    if (c->pos.x)
        fv_free(c->pos);
    if (c->scale.x)
        fv_free(c->scale);
    memset(c, 0, sizeof *c);
}
static pb_clip_vel vel_new(size_t n, int rot, int pos, int scale)
{
    pb_clip_vel v;
    memset(&v, 0, sizeof v);
    if (rot)
        v.rot = fv_alloc(n);
    if (pos)
        v.pos = fv_alloc(n);
    if (scale)
        v.scale = fv_alloc(n);
    return v;
}
static void vel_free(pb_clip_vel *v)
{
    if (v->rot.x)
        fv_free(v->rot);
    if (v->pos.x)
        fv_free(v->pos);
    if (v->scale.x)
        fv_free(v->scale);
}

/* Random clip: rotations independent uniform (walk = 0) or a random walk of
 * steps up to 1 rad (walk = 1), each stored with a random sign (the source
 * need not be unrolled); positions uniform in [-2, 2]^3 or a walk; scales
 * log-uniform in [0.5, 2] per axis. */
static void clip_fill_random(pb_clip *c, rng_t *r, int walk)
{
    size_t F = c->frames, J = c->joints;
    for (size_t j = 0; j < J; j++) {
        rq q = rng_quat(r);
        rv3 p = rng_vec3(r, 2.0);
        for (size_t f = 0; f < F; f++) {
            size_t i = f * J + j;
            q = walk ? rng_quat_near(r, q, 1.0) : rng_quat(r);
            fq_set(c->rot, i, rq_scale(q, rng_sign(r)));
            p = walk ? rv3_add(p, rng_vec3(r, 0.3)) : rng_vec3(r, 2.0);
            if (c->pos.x)
                fv_set(c->pos, i, p);
            if (c->scale.x)
                fv_set(c->scale, i,
                       rv3_make(rng_logrange(r, 0.5, 2.0), rng_logrange(r, 0.5, 2.0),
                                rng_logrange(r, 0.5, 2.0)));
        }
    }
}

/* Where the header puts a sample at time t: Catmull-Rom of frames f[0..3]
 * (f[1] the segment start) at parameter x, or held (clamp, t outside
 * [0, (F-1) ft]: the end frame, zero velocity). Written from the header:
 * a time within 1e-9 relative (1e-9 frames near 0) of a frame time is that
 * frame, x = 0;
 * otherwise u = t / ft, taken modulo F for loop; the float x of u - floor(u)
 * may round up to 1, which is x = 0 of the next segment (a float x cannot
 * say anything else). Clamp: the missing neighbours of the end frames are the
 * end frames; loop: neighbours wrap. */
typedef struct {
    size_t f[4];
    float x;
    int held;
    double u;
} loc_t;

static loc_t ref_locate(double t, size_t F, double ft, int loop)
{
    loc_t L;
    double u = t / ft, rnd = nearbyint(u);
    if (fabs(u - rnd) <= 1e-9 * fmax(1.0, fabs(u))) /* the header's frame-time snapping */
        u = rnd;
    L.held = 0;
    if (loop) {
        u = fmod(u, (double)F);
        if (u < 0)
            u += (double)F;
        if (u >= (double)F)
            u = 0;
    } else if (u < 0 || u > (double)(F - 1)) {
        L.held = 1;
        u = u < 0 ? 0.0 : (double)(F - 1);
    }
    L.u = u;
    double fl = floor(u);
    size_t f = (size_t)fl;
    L.x = (float)(u - fl);
    if (L.x >= 1.0f) {
        f++;
        L.x = 0.0f;
    }
    if (loop) {
        f %= F;
        L.f[0] = (f + F - 1) % F;
        L.f[1] = f;
        L.f[2] = (f + 1) % F;
        L.f[3] = (f + 2) % F;
    } else {
        if (f > F - 1)
            f = F - 1;
        L.f[0] = f ? f - 1 : 0;
        L.f[1] = f;
        L.f[2] = f + 1 < F ? f + 1 : F - 1;
        L.f[3] = f + 2 < F ? f + 2 : F - 1;
    }
    return L;
}

/* The per-sample functions of the header at location L, for all J joints of
 * src: rot/rvel, pos/pvel, scale/svel (per unit x). */
static void ref_sample(const pb_clip *src, const loc_t *L, unsigned flags, pb_quats rot,
                       pb_vec3s rvel, pb_vec3s pos, pb_vec3s pvel, pb_vec3s scl, pb_vec3s svel)
{
    size_t J = src->joints, o[4];
    for (int k = 0; k < 4; k++)
        o[k] = L->f[k] * J;
    cr_assert_eq(pb_quat_catmull_rom(J, L->x, cq_at(src->rot, o[0]), cq_at(src->rot, o[1]),
                                     cq_at(src->rot, o[2]), cq_at(src->rot, o[3]),
                                     flags & PB_EXACT_VELOCITY, rot, rvel),
                 PB_OK);
    if (src->pos.x && pos.x)
        cr_assert_eq(pb_vec3_catmull_rom(J, L->x, cv_at(src->pos, o[0]), cv_at(src->pos, o[1]),
                                         cv_at(src->pos, o[2]), cv_at(src->pos, o[3]), pos, pvel),
                     PB_OK);
    if (src->scale.x && scl.x)
        cr_assert_eq(pb_scale_catmull_rom(J, L->x, cv_at(src->scale, o[0]),
                                          cv_at(src->scale, o[1]), cv_at(src->scale, o[2]),
                                          cv_at(src->scale, o[3]), scl, svel),
                     PB_OK);
}

static void shuffle(rng_t *r, double *t, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t k = (size_t)(rng_uniform(r) * (double)i);
        double s = t[i - 1];
        t[i - 1] = t[k];
        t[k] = s;
    }
}

/* Quaternions equal component-wise (== : -0 equals 0) up to a common sign. */
static int q_same_up_to_sign(rq a, rq b)
{
    return (a.w == b.w && a.x == b.x && a.y == b.y && a.z == b.z) ||
           (a.w == -b.w && a.x == -b.x && a.y == -b.y && a.z == -b.z);
}
static int v_same(rv3 a, rv3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* ratio of |v - vref| to the header's velocity tolerance (per unit x) */
static double vel_ratio(rv3 v, rv3 vref) { return ref_vel_err(v, vref); }
/* ratio of |v - vref| to TOL_SAME_VAL (|vref| + 1) */
static double val_ratio(rv3 v, rv3 vref)
{
    return rv3_dist(v, vref) / (TOL_SAME_VAL * (rv3_norm(vref) + 1.0));
}

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
    static const double fts[] = {0.1,        1.0 / 30.0, 0.0333333, 1.0 / 120.0, 0.0083333,
                                 0.008333,   1.0 / 24.0, 0.04,      0.7,         1.0 / 60.0,
                                 0.016666667, 0.3};
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
                        snprintf(first, sizeof first,
                                 "ft=%.17g %s frame %zu joint %zu: t=%.17g, t/ft-f=%.3g: rot " RQ_FMT
                                 " frame " RQ_FMT " pos " RV_FMT " frame " RV_FMT " scale " RV_FMT
                                 " frame " RV_FMT,
                                 ft, flags_name(flags), f, j, times[i], times[i] / ft - (double)f,
                                 RQ_ARG(q), RQ_ARG(qs), RV_ARG(p), RV_ARG(ps), RV_ARG(c),
                                 RV_ARG(cs));
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
            rv3 want = rv3_scale(rv3_sub(fv_get(src.pos, F2 - 1), fv_get(src.pos, F2 - 2)),
                                 0.5 / ft);
            end_checked++;
            if (!(rv3_dist(fv_get(vel.pos, 0), want) <= 1e-5 * rv3_norm(want)) && !bad_end_vel++)
                snprintf(end_first, sizeof end_first,
                         "F=%zu ft=%.17g t=%.17g (t/ft-(F-1)=%.3g): velocity " RV_FMT
                         " want " RV_FMT, F2, ft, t, t / ft - (double)(F2 - 1),
                         RV_ARG(fv_get(vel.pos, 0)), RV_ARG(want));
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
                    const float *va[12] = {dst.pos.x, dst.pos.y, dst.pos.z, dst.scale.x,
                                           dst.scale.y, dst.scale.z, vel.rot.x, vel.rot.y,
                                           vel.rot.z, vel.scale.x, vel.scale.y, vel.scale.z};
                    const float *vb[12] = {one.pos.x, one.pos.y, one.pos.z, one.scale.x,
                                           one.scale.y, one.scale.z, vone.rot.x, vone.rot.y,
                                           vone.rot.z, vone.scale.x, vone.scale.y, vone.scale.z};
                    for (int c = 0; c < 12; c++)
                        cr_assert(same_bits(va[c][e], vb[c][j]),
                                  "x%g %s: frame %zu joint %zu: component %d differs",
                                  factors[fi], flags_name(flags), i, j, c);
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
            cr_expect(q_same_up_to_sign(fq_get(dst.rot, 4 * f * J + j), fq_get(src.rot, f * J + j)) &&
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
static size_t passthrough_mismatches(const pb_clip *src, const pb_clip *dst, size_t step,
                                     char *msg, size_t cap)
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
        cr_expect_eq(bad, 0, "%s %s 2x (%.9g fps): %zu of %zu even outputs differ; first: %s",
                     name, flags_name(flags), fps2, bad, F * J, msg);
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
                    rt_note(&tv, "%s %s output %zu joint %zu: angular " RV_FMT " vs " RV_FMT
                            ", linear " RV_FMT " vs " RV_FMT, name, flags_name(flags), i, j,
                            RV_ARG(va), RV_ARG(ra), RV_ARG(vp), RV_ARG(rpp));
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
            rv3 a3 = rv3_scale(fv_get(v, i3 * J + j), ft), a2 = rv3_scale(fv_get(v, i2 * J + j), ft),
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
    fprintf(stderr, "%s: max jump %.3g (per unit x), max consecutive difference inside "
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
            rv3 a = rv3_make(0.8 * sin(th + p), 0.5 * cos(2.0 * th) + 0.3,
                             0.6 * sin(th) * cos(th + p));
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
        cr_expect_leq(ang, bound, "joint %zu: rotation at P - delta is %.3g rad from t = 0 "
                      "(bound %.3g)", j, ang, bound);
        cr_expect_gt(rv3_norm(w0), 0.1, "the clip moves at the seam");
        rv3 p0 = fv_get(dst.pos, j), pb = fv_get(dst.pos, J + j);
        double pd = rv3_dist(p0, pb),
               pbound = 1.01 * dl * fmax(rv3_norm(fv_get(vel.pos, j)), rv3_norm(fv_get(vel.pos, J + j))) +
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

/* ------------------------------------------------------------------------ */
/* 6. pb_pose_blend                                                         */
/* ------------------------------------------------------------------------ */

#define BJ 37 /* joints: several SIMD blocks and a tail */
#define BK 5  /* most poses blended */

static const char *method_name(pb_blend_method m)
{
    static const char *names[] = {"log_ref", "raw_ref", "log", "raw", "accurate"};
    return (unsigned)m < PB_BLEND_METHOD_COUNT ? names[m] : "?";
}
static int method_uses_ref(pb_blend_method m)
{
    return m == PB_BLEND_LOG_REF || m == PB_BLEND_RAW_REF;
}

/* The average the method names, on the same inputs. */
static pb_status average_of(pb_blend_method m, size_t J, size_t k, pb_cquats ref,
                            const pb_cquats *s, const float *w, pb_quats out)
{
    switch (m) {
    case PB_BLEND_LOG_REF: return pb_quat_average_log_ref(J, k, ref, s, w, out);
    case PB_BLEND_RAW_REF: return pb_quat_average_raw_ref(J, k, ref, s, w, out);
    case PB_BLEND_LOG: return pb_quat_average_log(J, k, s, w, out);
    case PB_BLEND_RAW: return pb_quat_average_raw(J, k, s, w, out);
    default: return pb_quat_average_accurate(J, k, s, w, out);
    }
}

typedef struct {
    pb_quats rot[BK];
    pb_vec3s pos[BK], scale[BK];
    pb_cquats crot[BK];
    pb_cvec3s cpos[BK], cscale[BK];
    pb_quats rref;
    pb_vec3s pref, sref;
    float w[BK];
} blend_data;

static rv3 scale_logrange(rng_t *r)
{
    return rv3_make(rng_logrange(r, 0.5, 2.0), rng_logrange(r, 0.5, 2.0), rng_logrange(r, 0.5, 2.0));
}
/* base times e^u per component, u uniform in [-spread, spread] */
static rv3 scale_around(rng_t *r, rv3 base, double spread)
{
    double e[3];
    for (int c = 0; c < 3; c++) /* drawn in sequence, not as arguments */
        e[c] = exp(rng_range(r, -spread, spread));
    return rv3_make(base.x * e[0], base.y * e[1], base.z * e[2]);
}
/* Scales log-uniform in [0.5, 2] each, or with near as an animation has
 * them: the reference within e^+-0.05 of one and the samples within e^+-0.25
 * of it, the ratios the scale blend's short ln path takes with and without
 * the reference; joint 12 off by up to e^+-1.2, so that one block of every
 * width takes the general path. */
static void blend_data_new(blend_data *d, rng_t *r, int near)
{
    rq base = rng_quat(r);
    for (size_t i = 0; i < BK; i++) {
        d->rot[i] = fq_alloc(BJ);
        d->pos[i] = fv_alloc(BJ);
        d->scale[i] = fv_alloc(BJ);
        d->crot[i] = pb_cq(d->rot[i]);
        d->cpos[i] = pb_cv(d->pos[i]);
        d->cscale[i] = pb_cv(d->scale[i]);
        for (size_t j = 0; j < BJ; j++) {
            fq_set(d->rot[i], j, rq_scale(rng_quat_near(r, base, 1.5), rng_sign(r)));
            fv_set(d->pos[i], j, rng_vec3(r, 3.0));
            if (!near)
                fv_set(d->scale[i], j, scale_logrange(r));
        }
    }
    d->rref = fq_alloc(BJ);
    d->pref = fv_alloc(BJ);
    d->sref = fv_alloc(BJ);
    for (size_t j = 0; j < BJ; j++) {
        fq_set(d->rref, j, rng_quat(r));
        fv_set(d->pref, j, rng_vec3(r, 3.0));
        if (!near) {
            fv_set(d->sref, j, scale_logrange(r));
            continue;
        }
        rv3 sref = scale_around(r, rv3_make(1, 1, 1), 0.05);
        fv_set(d->sref, j, sref);
        for (size_t i = 0; i < BK; i++)
            fv_set(d->scale[i], j, scale_around(r, sref, j == 12 ? 1.2 : 0.25));
    }
}
static void blend_data_free(blend_data *d)
{
    for (size_t i = 0; i < BK; i++) {
        fq_free(d->rot[i]);
        fv_free(d->pos[i]);
        fv_free(d->scale[i]);
    }
    fq_free(d->rref);
    fv_free(d->pref);
    fv_free(d->sref);
}

static double comp(rv3 v, int c) { return c == 0 ? v.x : c == 1 ? v.y : v.z; }

/* Double reference of the position / scale blend of one component, and the
 * magnitude the float sum's rounding scales with. */
static double ref_pos_blend(const blend_data *d, size_t k, const float *w, int with_ref, size_t j,
                            int c, double *mag)
{
    double base = with_ref ? comp(fv_get(d->pref, j), c) : 0.0, s = 0.0;
    *mag = fabs(base);
    for (size_t i = 0; i < k; i++) {
        double t = (double)w[i] * (comp(fv_get(d->pos[i], j), c) - base);
        s += t;
        *mag += fabs(t);
    }
    return base + s;
}
static double ref_scale_blend(const blend_data *d, size_t k, const float *w, int with_ref,
                              size_t j, int c)
{
    double base = with_ref ? comp(fv_get(d->sref, j), c) : 1.0, s = 0.0;
    for (size_t i = 0; i < k; i++)
        s += (double)w[i] * log(comp(fv_get(d->scale[i], j), c) / base);
    return base * exp(s);
}

/* Rotations: bitwise the pb_quat_average_* of the method (the same kernels).
 * Positions: sum w_i p_i, or ref + sum w_i (p_i - ref) when ref has
 * positions, in double; the float result within 1e-6 of the magnitude
 * |ref| + sum |w_i (p_i - ref)| the float sum's rounding scales with (the
 * result itself may cancel). Scales: exp(sum w_i ln s_i), or
 * ref exp(sum w_i ln(s_i / ref)), within 2e-6 relative (header). Every method,
 * k = 1, 2, 3, 5, weights normalised or not (some negative), ref with
 * positions and scales, with rotations only, or NULL (non-ref methods), pos
 * and scale tracks present or all absent. */
static void blend_check(uint64_t seed, int near)
{
    rng_t r = rng_seed(seed);
    blend_data d;
    blend_data_new(&d, &r, near);
    static const size_t ks[] = {1, 2, 3, 5};
    ref_track trot, tpos, tscl;
    rt_init(&trot, "blend rotation bitwise = pb_quat_average_* (1 = differs)");
    rt_init(&tpos, "blend positions vs double sum (tol 1e-6 of the term magnitudes)");
    rt_init(&tscl, "blend scales vs double (tol 2e-6 relative)");
    pb_quats orot = fq_alloc(BJ), arot = fq_alloc(BJ);
    pb_vec3s opos = fv_alloc(BJ), oscl = fv_alloc(BJ);
    size_t cnum = 0;
    for (size_t ki = 0; ki < 4; ki++) {
        size_t k = ks[ki];
        for (int wkind = 0; wkind < 2; wkind++) {
            double sum = 0;
            for (size_t i = 0; i < k; i++) {
                d.w[i] = (float)(wkind ? rng_range(&r, -0.3, 1.0) : rng_range(&r, 0.05, 1.0));
                sum += d.w[i];
            }
            if (!wkind)
                for (size_t i = 0; i < k; i++)
                    d.w[i] = (float)(d.w[i] / sum);
            for (int m = 0; m < PB_BLEND_METHOD_COUNT; m++) {
                pb_blend_method meth = (pb_blend_method)m;
                for (int refkind = 0; refkind < 3; refkind++) {
                    if (refkind == 0 && method_uses_ref(meth))
                        continue;
                    for (int tracks = 0; tracks < 2; tracks++) {
                        pb_cpose ref;
                        memset(&ref, 0, sizeof ref);
                        ref.rot = pb_cq(d.rref);
                        if (refkind == 2) {
                            ref.pos = pb_cv(d.pref);
                            ref.scale = pb_cv(d.sref);
                        }
                        pb_pose out;
                        memset(&out, 0, sizeof out);
                        out.rot = orot;
                        if (tracks) {
                            out.pos = opos;
                            out.scale = oscl;
                        }
                        pb_status st =
                            pb_pose_blend(BJ, k, d.crot, tracks ? d.cpos : NULL,
                                          tracks ? d.cscale : NULL, d.w, meth,
                                          refkind ? &ref : NULL, &out);
                        cr_assert_eq(st, PB_OK, "%s k=%zu refkind %d", method_name(meth), k,
                                     refkind);
                        cr_assert_eq(average_of(meth, BJ, k, pb_cq(d.rref), d.crot, d.w, arot),
                                     PB_OK);
                        size_t B = BJ * sizeof(float);
                        int same = !memcmp(orot.w, arot.w, B) && !memcmp(orot.x, arot.x, B) &&
                                   !memcmp(orot.y, arot.y, B) && !memcmp(orot.z, arot.z, B);
                        if (rt_add(&trot, cnum, !same, same ? 0.0 : INFINITY))
                            rt_note(&trot, "%s k=%zu wkind %d refkind %d: rotations differ",
                                    method_name(meth), k, wkind, refkind);
                        cnum++;
                        if (!tracks)
                            continue;
                        for (size_t j = 0; j < BJ; j++)
                            for (int c = 0; c < 3; c++) {
                                double mag;
                                double pr = ref_pos_blend(&d, k, d.w, refkind == 2, j, c, &mag);
                                double pv = comp(fv_get(opos, j), c);
                                double e = fabs(pv - pr);
                                if (rt_add(&tpos, j, e, e / (1e-6 * mag)))
                                    rt_note(&tpos, "%s k=%zu refkind %d joint %zu comp %d: %.9g vs "
                                            "%.17g (mag %.3g)", method_name(meth), k, refkind, j,
                                            c, pv, pr, mag);
                                double sr = ref_scale_blend(&d, k, d.w, refkind == 2, j, c);
                                double sv = comp(fv_get(oscl, j), c);
                                e = fabs(sv - sr) / fabs(sr);
                                if (rt_add(&tscl, j, e, e / (double)PB_ACCURACY_SCALE_REL))
                                    rt_note(&tscl, "%s k=%zu refkind %d joint %zu comp %d: %.9g vs "
                                            "%.17g", method_name(meth), k, refkind, j, c, sv, sr);
                            }
                    }
                }
            }
        }
    }
    RT_EXPECT(trot);
    RT_EXPECT(tpos);
    RT_EXPECT(tscl);
    fq_free(orot);
    fq_free(arot);
    fv_free(opos);
    fv_free(oscl);
    blend_data_free(&d);
}
Test(clip, blend_matches_averages_and_sums, .timeout = 60) { blend_check(6060, 0); }
Test(clip, blend_near_scales_match_averages_and_sums, .timeout = 60) { blend_check(6062, 1); }

/* One weight 1, the others 0: every method reproduces that pose (rotation
 * within 2e-6 rad, sign-insensitive; position within 1e-6 relative + 1e-6
 * absolute; scale within 2e-6 relative), for a random reference (ref methods;
 * the others with and without ref). */
Test(clip, blend_one_hot_reproduces_input)
{
    rng_t r = rng_seed(6161);
    blend_data d;
    blend_data_new(&d, &r, 0);
    size_t k = 4;
    ref_track trot, tpos, tscl;
    rt_init(&trot, "one-hot blend: rotation (rad, tol 2e-6)");
    rt_init(&tpos, "one-hot blend: position");
    rt_init(&tscl, "one-hot blend: scale (relative, tol 2e-6)");
    pb_quats orot = fq_alloc(BJ);
    pb_vec3s opos = fv_alloc(BJ), oscl = fv_alloc(BJ);
    for (size_t hot = 0; hot < k; hot++) {
        for (size_t i = 0; i < k; i++)
            d.w[i] = i == hot ? 1.0f : 0.0f;
        for (int m = 0; m < PB_BLEND_METHOD_COUNT; m++) {
            for (int with_ref = 0; with_ref < 2; with_ref++) {
                pb_blend_method meth = (pb_blend_method)m;
                if (!with_ref && method_uses_ref(meth))
                    continue;
                pb_cpose ref = {pb_cq(d.rref), pb_cv(d.pref), pb_cv(d.sref)};
                pb_pose out = {orot, opos, oscl};
                cr_assert_eq(pb_pose_blend(BJ, k, d.crot, d.cpos, d.cscale, d.w, meth,
                                           with_ref ? &ref : NULL, &out),
                             PB_OK);
                for (size_t j = 0; j < BJ; j++) {
                    rq q = fq_get(orot, j), qs = fq_get(d.rot[hot], j);
                    double e = rq_angle_between(q, qs);
                    if (rt_add(&trot, j, e, e / (double)PB_ACCURACY_ROTATION_RAD))
                        rt_note(&trot, "%s ref %d hot %zu joint %zu: " RQ_FMT " vs " RQ_FMT,
                                method_name(meth), with_ref, hot, j, RQ_ARG(q), RQ_ARG(qs));
                    rv3 p = fv_get(opos, j), ps = fv_get(d.pos[hot], j);
                    if (rt_add(&tpos, j, rv3_dist(p, ps), val_ratio(p, ps)))
                        rt_note(&tpos, "%s ref %d hot %zu joint %zu: " RV_FMT " vs " RV_FMT,
                                method_name(meth), with_ref, hot, j, RV_ARG(p), RV_ARG(ps));
                    rv3 s = fv_get(oscl, j), ss = fv_get(d.scale[hot], j);
                    for (int c = 0; c < 3; c++) {
                        double es = fabs(comp(s, c) - comp(ss, c)) / comp(ss, c);
                        if (rt_add(&tscl, j, es, es / (double)PB_ACCURACY_SCALE_REL))
                            rt_note(&tscl, "%s ref %d hot %zu joint %zu comp %d: %.9g vs %.9g",
                                    method_name(meth), with_ref, hot, j, c, comp(s, c),
                                    comp(ss, c));
                    }
                }
            }
        }
    }
    RT_EXPECT(trot);
    RT_EXPECT(tpos);
    RT_EXPECT(tscl);
    fq_free(orot);
    fv_free(opos);
    fv_free(oscl);
    blend_data_free(&d);
}

/* ------------------------------------------------------------------------ */
/* 7. Errors: the code, and nothing written                                 */
/* ------------------------------------------------------------------------ */

/* All arrays of a call live in one arena (inputs and outputs, with gaps), so
 * that overlaps are easy to build and one memcmp of the whole arena (and of
 * the times) proves that nothing was written. */
#define ARENA 4096
static float g_arena[ARENA], g_arena_copy[ARENA];
static double g_times[16], g_times_copy[16];
static size_t g_bump;

static void arena_reset(void)
{
    for (size_t i = 0; i < ARENA; i++)
        g_arena[i] = 0.5f + 0.01f * (float)(i % 97); /* finite, positive */
    for (size_t i = 0; i < 16; i++)
        g_times[i] = 0.013 * (double)i - 0.02;
    g_bump = 0;
}
static float *arena_take(size_t n)
{
    float *p = g_arena + g_bump;
    g_bump += n + 3; /* a gap between arrays */
    cr_assert_leq(g_bump, ARENA);
    return p;
}
static pb_quats arena_q(size_t n)
{
    pb_quats q;
    q.w = arena_take(n);
    q.x = arena_take(n);
    q.y = arena_take(n);
    q.z = arena_take(n);
    return q;
}
static pb_vec3s arena_v(size_t n)
{
    pb_vec3s v;
    v.x = arena_take(n);
    v.y = arena_take(n);
    v.z = arena_take(n);
    return v;
}
static void arena_snap(void)
{
    memcpy(g_arena_copy, g_arena, sizeof g_arena);
    memcpy(g_times_copy, g_times, sizeof g_times);
}
static int arena_untouched(void)
{
    return !memcmp(g_arena_copy, g_arena, sizeof g_arena) &&
           !memcmp(g_times_copy, g_times, sizeof g_times);
}

/* A valid pb_clip_sample / pb_clip_resample setup: src 4 frames x 5 joints
 * with positions and scales; dst of `count` frames with all tracks; vel with
 * all three batches; times in g_times. */
#define EF 4
#define EJ 5
#define ECOUNT 7 /* also the 2x resample count of 4 frames (clamp) */
typedef struct {
    pb_clip src, dst;
    pb_clip_vel vel;
} clip_setup;

static clip_setup setup_clip(void)
{
    arena_reset();
    clip_setup s;
    memset(&s, 0, sizeof s);
    s.src.frames = EF;
    s.src.joints = EJ;
    s.src.frame_time = 0.1;
    s.src.rot = arena_q(EF * EJ);
    s.src.pos = arena_v(EF * EJ);
    s.src.scale = arena_v(EF * EJ);
    s.dst.frames = ECOUNT;
    s.dst.joints = EJ;
    s.dst.frame_time = -7.0; /* must stay as it is on error */
    s.dst.rot = arena_q(ECOUNT * EJ);
    s.dst.pos = arena_v(ECOUNT * EJ);
    s.dst.scale = arena_v(ECOUNT * EJ);
    s.vel.rot = arena_v(ECOUNT * EJ);
    s.vel.pos = arena_v(ECOUNT * EJ);
    s.vel.scale = arena_v(ECOUNT * EJ);
    return s;
}

typedef enum { CALL_SAMPLE, CALL_RESAMPLE } clip_call;

/* Runs the call (times / fps as given) and expects `want` with the arena,
 * the times and dst's fields unchanged (for PB_OK: something written). */
static void expect_clip(const char *what, clip_call call, pb_status want, const pb_clip *src,
                        size_t count, const double *times, double fps, unsigned flags,
                        pb_clip *dst, const pb_clip_vel *vel)
{
    arena_snap();
    pb_clip before;
    memset(&before, 0, sizeof before);
    if (dst)
        before = *dst;
    pb_status st = call == CALL_SAMPLE ? pb_clip_sample(src, count, times, flags, dst, vel)
                                       : pb_clip_resample(src, fps, flags, dst, vel);
    const char *fn = call == CALL_SAMPLE ? "pb_clip_sample" : "pb_clip_resample";
    cr_expect_eq(st, want, "%s, %s: status %d (%s), want %d (%s)", fn, what, (int)st,
                 pb_status_str(st), (int)want, pb_status_str(want));
    if (want != PB_OK) {
        cr_expect(arena_untouched(), "%s, %s: an array was written on error", fn, what);
        if (dst)
            cr_expect(dst->frames == before.frames && dst->joints == before.joints &&
                          !memcmp(&dst->frame_time, &before.frame_time, sizeof(double)),
                      "%s, %s: dst fields changed on error", fn, what);
    } else {
        cr_expect(!arena_untouched(), "%s, %s: PB_OK but nothing written", fn, what);
    }
}

#define SAMPLE(what, want, s)                                                                    \
    expect_clip(what, CALL_SAMPLE, want, &(s).src, ECOUNT, g_times, 0, 0, &(s).dst, &(s).vel)

Test(clip, errors_sample)
{
    clip_setup s = setup_clip();
    SAMPLE("valid", PB_OK, s);

    /* PB_ERR_NULL */
    s = setup_clip();
    expect_clip("src NULL", CALL_SAMPLE, PB_ERR_NULL, NULL, ECOUNT, g_times, 0, 0, &s.dst, &s.vel);
    expect_clip("dst NULL", CALL_SAMPLE, PB_ERR_NULL, &s.src, ECOUNT, g_times, 0, 0, NULL, &s.vel);
    expect_clip("times NULL", CALL_SAMPLE, PB_ERR_NULL, &s.src, ECOUNT, NULL, 0, 0, &s.dst, &s.vel);
    for (int c = 0; c < 4; c++) {
        char what[64];
        s = setup_clip();
        float **ps[4] = {&s.src.rot.w, &s.src.rot.x, &s.src.rot.y, &s.src.rot.z};
        *ps[c] = NULL;
        snprintf(what, sizeof what, "src rot component %d NULL", c);
        SAMPLE(what, PB_ERR_NULL, s);
        s = setup_clip();
        float **pd[4] = {&s.dst.rot.w, &s.dst.rot.x, &s.dst.rot.y, &s.dst.rot.z};
        *pd[c] = NULL;
        snprintf(what, sizeof what, "dst rot component %d NULL", c);
        SAMPLE(what, PB_ERR_NULL, s);
    }
    s = setup_clip();
    s.dst.pos.y = NULL;
    SAMPLE("dst pos partly NULL", PB_ERR_NULL, s);
    s = setup_clip();
    s.dst.scale.z = NULL;
    SAMPLE("dst scale partly NULL", PB_ERR_NULL, s);
    s = setup_clip();
    s.src.pos.y = NULL;
    SAMPLE("src pos partly NULL", PB_ERR_NULL, s);
    s = setup_clip();
    s.vel.rot.y = NULL;
    SAMPLE("vel rot partly NULL", PB_ERR_NULL, s);
    s = setup_clip();
    s.vel.pos.x = NULL;
    SAMPLE("vel pos partly NULL", PB_ERR_NULL, s);
    s = setup_clip();
    memset(&s.src.pos, 0, sizeof s.src.pos);
    SAMPLE("dst has positions, src lacks them", PB_ERR_NULL, s);
    s = setup_clip();
    memset(&s.src.scale, 0, sizeof s.src.scale);
    SAMPLE("dst has scales, src lacks them", PB_ERR_NULL, s);

    /* PB_ERR_SIZE */
    s = setup_clip();
    s.src.frames = 0;
    SAMPLE("src frames 0", PB_ERR_SIZE, s);
    s = setup_clip();
    s.src.joints = 0;
    s.dst.joints = 0;
    SAMPLE("joints 0", PB_ERR_SIZE, s);
    s = setup_clip();
    s.src.joints = 0;
    SAMPLE("src joints 0", PB_ERR_SIZE, s);
    s = setup_clip();
    s.dst.joints = 0;
    SAMPLE("dst joints 0", PB_ERR_SIZE, s);
    s = setup_clip();
    s.dst.frames = 0;
    expect_clip("count 0 (dst frames 0)", CALL_SAMPLE, PB_ERR_SIZE, &s.src, 0, g_times, 0, 0,
                &s.dst, &s.vel);
    s = setup_clip();
    s.src.frames = (size_t)1 << 26; /* x 5 joints > PB_MAX_COUNT */
    SAMPLE("src frames x joints above PB_MAX_COUNT", PB_ERR_SIZE, s);
    s = setup_clip();
    s.src.frames = SIZE_MAX / 4 + 2; /* x 5 wraps */
    SAMPLE("src frames x joints wrapping", PB_ERR_SIZE, s);
    s = setup_clip();
    s.dst.frames = (size_t)1 << 26;
    expect_clip("count x joints above PB_MAX_COUNT", CALL_SAMPLE, PB_ERR_SIZE, &s.src,
                (size_t)1 << 26, g_times, 0, 0, &s.dst, &s.vel);

    /* PB_ERR_ARG */
    s = setup_clip();
    s.dst.frames = ECOUNT + 1;
    SAMPLE("dst frames != count", PB_ERR_ARG, s);
    s = setup_clip();
    s.dst.frames = ECOUNT - 1;
    SAMPLE("dst frames < count", PB_ERR_ARG, s);
    s = setup_clip();
    s.dst.joints = EJ - 1;
    SAMPLE("joints differ", PB_ERR_ARG, s);
    const double bad_ft[] = {0.0, -0.0, -0.1, NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 6; k++) {
        char what[64];
        s = setup_clip();
        s.src.frame_time = bad_ft[k];
        snprintf(what, sizeof what, "frame_time %g", bad_ft[k]);
        SAMPLE(what, PB_ERR_ARG, s);
    }
    const double bad_t[] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++)
        for (int at = 0; at < 2; at++) {
            char what[64];
            s = setup_clip();
            g_times[at ? ECOUNT - 1 : 0] = bad_t[k];
            snprintf(what, sizeof what, "time %g at %s", bad_t[k], at ? "the end" : "the start");
            SAMPLE(what, PB_ERR_ARG, s);
        }
    const unsigned bad_flags[] = {PB_LONG_PATH, PB_CLOSED, 0x10u, 0x100u, 0x80000000u,
                                  PB_CLIP_LOOP | PB_EXACT_VELOCITY | PB_LONG_PATH};
    for (int k = 0; k < 6; k++) {
        char what[64];
        s = setup_clip();
        snprintf(what, sizeof what, "flags %#x", bad_flags[k]);
        expect_clip(what, CALL_SAMPLE, PB_ERR_ARG, &s.src, ECOUNT, g_times, 0, bad_flags[k],
                    &s.dst, &s.vel);
    }

    /* PB_ERR_ALIAS */
    s = setup_clip();
    s.dst.rot.x = s.src.rot.w + 5;
    SAMPLE("dst rot overlapping src rot (partly)", PB_ERR_ALIAS, s);
    s = setup_clip();
    s.dst.rot.w = s.src.rot.w;
    SAMPLE("dst rot exactly src rot", PB_ERR_ALIAS, s);
    s = setup_clip();
    s.dst.pos.z = s.src.scale.y + 1;
    SAMPLE("dst pos overlapping src scale", PB_ERR_ALIAS, s);
    s = setup_clip();
    s.dst.scale.x = s.src.pos.x;
    SAMPLE("dst scale exactly src pos", PB_ERR_ALIAS, s);
    s = setup_clip();
    s.dst.rot.y = s.dst.rot.x + 10;
    SAMPLE("dst rot components overlapping", PB_ERR_ALIAS, s);
    s = setup_clip();
    s.vel.rot.x = s.dst.rot.z + 2;
    SAMPLE("vel rot overlapping dst rot", PB_ERR_ALIAS, s);
    s = setup_clip();
    s.vel.rot.y = s.dst.rot.w;
    SAMPLE("vel rot exactly dst rot", PB_ERR_ALIAS, s);
    s = setup_clip();
    s.vel.pos.z = s.src.pos.z + 3;
    SAMPLE("vel pos overlapping src pos", PB_ERR_ALIAS, s);
    s = setup_clip();
    s.vel.scale.y = s.vel.rot.x + 1;
    SAMPLE("vel scale overlapping vel rot", PB_ERR_ALIAS, s);
    s = setup_clip();
    s.vel.rot.x = s.src.rot.z + 4;
    SAMPLE("vel rot overlapping src rot", PB_ERR_ALIAS, s);
}

#define RESAMPLE(what, want, s, fps, flags)                                                      \
    expect_clip(what, CALL_RESAMPLE, want, &(s).src, 0, NULL, fps, flags, &(s).dst, &(s).vel)

Test(clip, errors_resample)
{
    /* 4 frames at 0.1 s -> 20 fps: ratio 1/2, 7 frames (clamp), 8 (loop) */
    clip_setup s = setup_clip();
    RESAMPLE("valid", PB_OK, s, 20.0, 0);
    cr_expect_eq(s.dst.frame_time, 1.0 / 20.0);

    s = setup_clip();
    expect_clip("src NULL", CALL_RESAMPLE, PB_ERR_NULL, NULL, 0, NULL, 20.0, 0, &s.dst, &s.vel);
    expect_clip("dst NULL", CALL_RESAMPLE, PB_ERR_NULL, &s.src, 0, NULL, 20.0, 0, NULL, &s.vel);
    s = setup_clip();
    s.src.rot.y = NULL;
    RESAMPLE("src rot component NULL", PB_ERR_NULL, s, 20.0, 0);
    s = setup_clip();
    s.dst.rot.z = NULL;
    RESAMPLE("dst rot component NULL", PB_ERR_NULL, s, 20.0, 0);
    s = setup_clip();
    memset(&s.src.pos, 0, sizeof s.src.pos);
    RESAMPLE("dst has positions, src lacks them", PB_ERR_NULL, s, 20.0, 0);
    s = setup_clip();
    memset(&s.src.scale, 0, sizeof s.src.scale);
    RESAMPLE("dst has scales, src lacks them", PB_ERR_NULL, s, 20.0, 0);
    s = setup_clip();
    s.vel.pos.y = NULL;
    RESAMPLE("vel pos partly NULL", PB_ERR_NULL, s, 20.0, 0);

    s = setup_clip();
    s.src.frames = 0;
    RESAMPLE("src frames 0", PB_ERR_SIZE, s, 20.0, 0);
    s = setup_clip();
    s.src.joints = 0;
    RESAMPLE("src joints 0", PB_ERR_SIZE, s, 20.0, 0);
    s = setup_clip();
    s.src.frames = SIZE_MAX / 4 + 2;
    RESAMPLE("src frames x joints wrapping", PB_ERR_SIZE, s, 20.0, 0);
    s = setup_clip();
    RESAMPLE("output count above PB_MAX_COUNT", PB_ERR_SIZE, s, 1e12, 0);

    const double bad[] = {0.0, -0.0, -20.0, NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 6; k++) {
        char what[64];
        s = setup_clip();
        snprintf(what, sizeof what, "fps %g", bad[k]);
        RESAMPLE(what, PB_ERR_ARG, s, bad[k], 0);
        s = setup_clip();
        s.src.frame_time = bad[k];
        snprintf(what, sizeof what, "frame_time %g", bad[k]);
        RESAMPLE(what, PB_ERR_ARG, s, 20.0, 0);
    }
    s = setup_clip();
    RESAMPLE("flags PB_CLOSED", PB_ERR_ARG, s, 20.0, PB_CLOSED);
    s = setup_clip();
    RESAMPLE("flags 0x40", PB_ERR_ARG, s, 20.0, 0x40u);
    s = setup_clip();
    s.dst.frames = ECOUNT + 1;
    RESAMPLE("dst frames != pb_clip_resample_frames (clamp)", PB_ERR_ARG, s, 20.0, 0);
    s = setup_clip();
    RESAMPLE("dst frames != pb_clip_resample_frames (loop: 8)", PB_ERR_ARG, s, 20.0,
             PB_CLIP_LOOP);
    s = setup_clip();
    s.dst.joints = EJ + 1;
    RESAMPLE("joints differ", PB_ERR_ARG, s, 20.0, 0);

    s = setup_clip();
    s.dst.rot.z = s.src.rot.x + 7;
    RESAMPLE("dst rot overlapping src rot", PB_ERR_ALIAS, s, 20.0, 0);
    s = setup_clip();
    s.vel.rot.z = s.dst.rot.w + 7;
    RESAMPLE("vel rot overlapping dst rot", PB_ERR_ALIAS, s, 20.0, 0);
    s = setup_clip();
    s.vel.pos.x = s.src.pos.y;
    RESAMPLE("vel pos exactly src pos", PB_ERR_ALIAS, s, 20.0, 0);
}

Test(clip, errors_resample_frames_leave_nothing)
{
    /* pb_clip_resample_frames writes nothing at all: its src is const; the
     * invalid cases (0 answer) are in resample_frames_invalid. This checks
     * that the valid count does not touch the arrays either. */
    clip_setup s = setup_clip();
    arena_snap();
    cr_expect_eq(pb_clip_resample_frames(&s.src, 20.0, 0), ECOUNT);
    cr_expect_eq(pb_clip_resample_frames(&s.src, 20.0, PB_CLIP_LOOP), 8);
    cr_expect(arena_untouched());
}

/* pb_pose_blend setup: k = 3 poses of BEJ joints with positions and scales,
 * a reference pose, weights, and an output with all three tracks, all in the
 * arena. */
#define BEJ 6
#define BEK 3
typedef struct {
    pb_cquats rot[BEK];
    pb_cvec3s pos[BEK], scale[BEK];
    pb_cpose ref;
    float *w;
    pb_pose out;
} blend_setup;

static blend_setup setup_blend(void)
{
    arena_reset();
    blend_setup b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < BEK; i++) {
        b.rot[i] = pb_cq(arena_q(BEJ));
        b.pos[i] = pb_cv(arena_v(BEJ));
        b.scale[i] = pb_cv(arena_v(BEJ));
    }
    b.ref.rot = pb_cq(arena_q(BEJ));
    b.ref.pos = pb_cv(arena_v(BEJ));
    b.ref.scale = pb_cv(arena_v(BEJ));
    b.w = arena_take(BEK);
    b.out.rot = arena_q(BEJ);
    b.out.pos = arena_v(BEJ);
    b.out.scale = arena_v(BEJ);
    return b;
}

static void expect_blend(const char *what, pb_status want, size_t joints, size_t k,
                         const pb_cquats *rot, const pb_cvec3s *pos, const pb_cvec3s *scale,
                         const float *w, pb_blend_method m, const pb_cpose *ref,
                         const pb_pose *out)
{
    arena_snap();
    pb_status st = pb_pose_blend(joints, k, rot, pos, scale, w, m, ref, out);
    cr_expect_eq(st, want, "pb_pose_blend %s, %s: status %d (%s), want %d (%s)", method_name(m),
                 what, (int)st, pb_status_str(st), (int)want, pb_status_str(want));
    if (want != PB_OK)
        cr_expect(arena_untouched(), "pb_pose_blend %s, %s: an array was written on error",
                  method_name(m), what);
    else
        cr_expect(!arena_untouched(), "pb_pose_blend %s, %s: PB_OK but nothing written",
                  method_name(m), what);
}

#define BLEND(what, want, b, m)                                                                  \
    expect_blend(what, want, BEJ, BEK, (b).rot, (b).pos, (b).scale, (b).w, m, &(b).ref, &(b).out)

/* joints == 0: "n == 0 is valid and writes nothing (pointers may then be
 * NULL)" (header conventions; pb_pose_blend states no exception for joints,
 * only k == 0 is an error). */
Test(clip, blend_zero_joints)
{
    blend_setup b = setup_blend();
    for (int mi = 0; mi < PB_BLEND_METHOD_COUNT; mi++) {
        pb_blend_method m = (pb_blend_method)mi;
        arena_snap();
        cr_expect_eq(pb_pose_blend(0, BEK, b.rot, b.pos, b.scale, b.w, m, &b.ref, &b.out), PB_OK,
                     "%s", method_name(m));
        cr_expect(arena_untouched());
        pb_pose none;
        memset(&none, 0, sizeof none);
        cr_expect_eq(pb_pose_blend(0, BEK, NULL, NULL, NULL, NULL, m, NULL, &none), PB_OK,
                     "%s: joints 0 with NULL rot / weights / ref: %s", method_name(m),
                     pb_status_str(pb_pose_blend(0, BEK, NULL, NULL, NULL, NULL, m, NULL, &none)));
        cr_expect_eq(pb_pose_blend(0, 0, b.rot, b.pos, b.scale, b.w, m, &b.ref, &b.out),
                     PB_ERR_ARG, "%s: k == 0 stays an error", method_name(m));
    }
}

Test(clip, errors_blend)
{
    for (int mi = 0; mi < PB_BLEND_METHOD_COUNT; mi++) {
        pb_blend_method m = (pb_blend_method)mi;
        blend_setup b = setup_blend();
        BLEND("valid", PB_OK, b, m);
        b = setup_blend();
        expect_blend("k == 0", PB_ERR_ARG, BEJ, 0, b.rot, b.pos, b.scale, b.w, m, &b.ref, &b.out);
        expect_blend("joints above PB_MAX_COUNT", PB_ERR_SIZE, PB_MAX_COUNT + 1, BEK, b.rot, b.pos,
                     b.scale, b.w, m, &b.ref, &b.out);
        expect_blend("rot NULL", PB_ERR_NULL, BEJ, BEK, NULL, b.pos, b.scale, b.w, m, &b.ref,
                     &b.out);
        expect_blend("weights NULL", PB_ERR_NULL, BEJ, BEK, b.rot, b.pos, b.scale, NULL, m, &b.ref,
                     &b.out);
        expect_blend("out NULL", PB_ERR_NULL, BEJ, BEK, b.rot, b.pos, b.scale, b.w, m, &b.ref,
                     NULL);
        expect_blend("out has positions, pos NULL", PB_ERR_NULL, BEJ, BEK, b.rot, NULL, b.scale,
                     b.w, m, &b.ref, &b.out);
        expect_blend("out has scales, scale NULL", PB_ERR_NULL, BEJ, BEK, b.rot, b.pos, NULL, b.w,
                     m, &b.ref, &b.out);
        if (method_uses_ref(m))
            expect_blend("ref NULL", PB_ERR_NULL, BEJ, BEK, b.rot, b.pos, b.scale, b.w, m, NULL,
                         &b.out);
        b = setup_blend();
        b.rot[1].z = NULL;
        BLEND("sample 1 rot component NULL", PB_ERR_NULL, b, m);
        b = setup_blend();
        b.pos[2].x = NULL;
        BLEND("sample 2 pos component NULL", PB_ERR_NULL, b, m);
        b = setup_blend();
        b.scale[0].y = NULL;
        BLEND("sample 0 scale component NULL", PB_ERR_NULL, b, m);
        b = setup_blend();
        b.out.rot.y = NULL;
        BLEND("out rot component NULL", PB_ERR_NULL, b, m);
        b = setup_blend();
        b.out.pos.z = NULL;
        BLEND("out pos partly NULL", PB_ERR_NULL, b, m);
        b = setup_blend();
        b.ref.pos.y = NULL;
        BLEND("ref pos partly NULL", PB_ERR_NULL, b, m);
        if (method_uses_ref(m)) {
            b = setup_blend();
            b.ref.rot.w = NULL;
            BLEND("ref rot component NULL", PB_ERR_NULL, b, m);
        }

        b = setup_blend();
        b.out.rot.w = (float *)b.rot[1].x + 2;
        BLEND("out rot overlapping a sample (partly)", PB_ERR_ALIAS, b, m);
        b = setup_blend();
        b.out.rot.x = (float *)b.rot[0].x;
        BLEND("out rot exactly a sample", PB_ERR_ALIAS, b, m);
        b = setup_blend();
        b.out.pos.y = (float *)b.pos[2].y + 1;
        BLEND("out pos overlapping a sample", PB_ERR_ALIAS, b, m);
        b = setup_blend();
        b.out.scale.z = (float *)b.ref.scale.z;
        BLEND("out scale exactly ref scale", PB_ERR_ALIAS, b, m);
        b = setup_blend();
        b.out.pos.x = (float *)b.ref.pos.x + 3;
        BLEND("out pos overlapping ref pos", PB_ERR_ALIAS, b, m);
        b = setup_blend();
        b.out.rot.z = b.w - 2;
        BLEND("out rot overlapping the weights", PB_ERR_ALIAS, b, m);
        b = setup_blend();
        b.out.pos.y = b.out.rot.z + 1;
        BLEND("out pos overlapping out rot", PB_ERR_ALIAS, b, m);
        if (method_uses_ref(m)) {
            b = setup_blend();
            b.out.rot.w = (float *)b.ref.rot.w;
            BLEND("out rot exactly ref rot", PB_ERR_ALIAS, b, m);
        }
    }
    blend_setup b = setup_blend();
    const int bad_m[] = {PB_BLEND_METHOD_COUNT, 7, -1};
    for (int k = 0; k < 3; k++) {
        char what[64];
        snprintf(what, sizeof what, "unknown method %d", bad_m[k]);
        BLEND(what, PB_ERR_ARG, b, (pb_blend_method)bad_m[k]);
    }
}
