/* Every documented error of pb_clip_sample, pb_clip_resample_frames,
 * pb_clip_resample and pb_pose_blend returns its code and leaves every byte
 * of every array (and dst's fields) untouched; times overlapping an output,
 * infinite time ranges, a partial reference and k == 0 (issue 14). */
#include "clip_util.h"

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
                        size_t count, const double *times, double fps, unsigned flags, pb_clip *dst,
                        const pb_clip_vel *vel)
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

#define SAMPLE(what, want, s)                                                                      \
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
    const unsigned bad_flags[] = {PB_LONG_PATH, PB_CLOSED,
                                  0x10u,        0x100u,
                                  0x80000000u,  PB_CLIP_LOOP | PB_EXACT_VELOCITY | PB_LONG_PATH};
    for (int k = 0; k < 6; k++) {
        char what[64];
        s = setup_clip();
        snprintf(what, sizeof what, "flags %#x", bad_flags[k]);
        expect_clip(what, CALL_SAMPLE, PB_ERR_ARG, &s.src, ECOUNT, g_times, 0, bad_flags[k], &s.dst,
                    &s.vel);
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

#define RESAMPLE(what, want, s, fps, flags)                                                        \
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
    RESAMPLE("dst frames != pb_clip_resample_frames (loop: 8)", PB_ERR_ARG, s, 20.0, PB_CLIP_LOOP);
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
                         const float *w, pb_blend_method m, const pb_cpose *ref, const pb_pose *out)
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

#define BLEND(what, want, b, m)                                                                    \
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
        cr_expect_eq(pb_pose_blend(0, 0, b.rot, b.pos, b.scale, b.w, m, &b.ref, &b.out), PB_ERR_ARG,
                     "%s: k == 0 stays an error", method_name(m));
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

/* ---- clip and blend contract gaps (issue 14) ------------------------------------- */

/* pb_clip_sample: times overlapping any output is PB_ERR_ALIAS, nothing
 * written; a denormal source frame time (infinite velocity factor) and an
 * fps whose output frame time or step is infinite are PB_ERR_ARG. */
Test(errors, clip_times_alias_and_time_ranges)
{
    enum { F = 4, J = 3, C = 5 };
    /* rows of an even number of floats, 16-byte aligned: the doubles of
     * times placed inside them are aligned */
    static _Alignas(16) float src_q[4][F * J], dst_q[4][C * J + 17], vel_v[3][C * J + 1];
    static double times[C];
    for (size_t i = 0; i < F * J; i++) {
        src_q[0][i] = 1.0f;
        src_q[1][i] = src_q[2][i] = src_q[3][i] = 0.0f;
    }
    for (size_t i = 0; i < C; i++)
        times[i] = 0.01 * (double)i;
    pb_clip src = {F, J, 1.0 / 30, {src_q[0], src_q[1], src_q[2], src_q[3]}, {0, 0, 0}, {0, 0, 0}};
    pb_clip dst = {C, J, 0, {dst_q[0], dst_q[1], dst_q[2], dst_q[3]}, {0, 0, 0}, {0, 0, 0}};
    pb_clip_vel vel = {{vel_v[0], vel_v[1], vel_v[2]}, {0, 0, 0}, {0, 0, 0}};
    cr_assert_eq(pb_clip_sample(&src, C, times, 0, &dst, &vel), PB_OK);
    /* times inside dst.rot.x (and straddling its end), and inside vel.rot.y */
    double *in_out[3] = {(double *)(void *)dst_q[1], (double *)(void *)(dst_q[1] + C * J - 3),
                         (double *)(void *)vel_v[1]};
    for (int c = 0; c < 3; c++) {
        for (size_t i = 0; i < C; i++)
            in_out[c][i] = 0.01 * (double)i;
        unsigned char before[sizeof dst_q + sizeof vel_v];
        memcpy(before, dst_q, sizeof dst_q);
        memcpy(before + sizeof dst_q, vel_v, sizeof vel_v);
        cr_expect_eq(pb_clip_sample(&src, C, in_out[c], 0, &dst, &vel), PB_ERR_ALIAS,
                     "times overlapping output %d", c);
        cr_expect(!memcmp(before, dst_q, sizeof dst_q) &&
                      !memcmp(before + sizeof dst_q, vel_v, sizeof vel_v),
                  "outputs written on PB_ERR_ALIAS (%d)", c);
    }
    /* times may overlap an input (only read) */
    cr_expect_eq(pb_clip_sample(&src, C, (const double *)(const void *)src_q[1], 0, &dst, NULL),
                 PB_OK);

    /* a denormal source frame time: 1 / frame_time is infinite */
    pb_clip tiny = src;
    tiny.frame_time = 1e-310;
    cr_expect_eq(pb_clip_sample(&tiny, C, times, 0, &dst, &vel), PB_ERR_ARG);
    cr_expect_eq(pb_clip_resample_frames(&tiny, 30.0, 0), 0);
    cr_expect_eq(pb_clip_resample(&tiny, 30.0, 0, &dst, &vel), PB_ERR_ARG);
    /* an fps whose output frame time 1 / fps is infinite, or whose step
     * 1 / (fps * frame_time) is */
    static const double bad[][2] = {{1.0 / 30, 1e-310}, {1.0 / 30, 4.9e-324}, {1e-10, 1e-300}};
    for (size_t i = 0; i < 3; i++) {
        pb_clip s1 = src, d1 = dst;
        s1.frame_time = bad[i][0];
        d1.frames = 1;
        d1.frame_time = 7.0;
        cr_expect_eq(pb_clip_resample_frames(&s1, bad[i][1], 0), 0, "frame time %g fps %g",
                     bad[i][0], bad[i][1]);
        cr_expect_eq(pb_clip_resample(&s1, bad[i][1], 0, &d1, NULL), PB_ERR_ARG,
                     "frame time %g fps %g", bad[i][0], bad[i][1]);
        cr_expect_eq(d1.frame_time, 7.0);
    }
    /* a tiny but valid fps: one output frame, a finite frame time */
    pb_clip d2 = dst;
    d2.frames = 1;
    cr_expect_eq(pb_clip_resample_frames(&src, 1e-300, 0), 1);
    cr_expect_eq(pb_clip_resample(&src, 1e-300, 0, &d2, NULL), PB_OK);
    cr_expect(isfinite(d2.frame_time));
}

/* pb_pose_blend and pb_pose_blend_layers: a reference track with some of its
 * pointers NULL (e.g. ref->pos = {NULL, y, z}) is PB_ERR_NULL, never silently
 * dropped; k == 0 is PB_ERR_ARG for every sample-taking function, whatever the
 * other counts (one rule: k is checked first). */
Test(errors, blend_partial_ref_and_k_zero)
{
    enum { J = 5, K = 2 };
    static float q[K][4][J], p[K][3][J], s[K][3][J], rq_[4][J], rp[3][J], rs[3][J], oq[4][J],
        op[3][J], os[3][J];
    float w[K] = {0.5f, 0.5f};
    for (size_t j = 0; j < J; j++) {
        for (size_t i = 0; i < K; i++) {
            q[i][0][j] = 1.0f;
            s[i][0][j] = s[i][1][j] = s[i][2][j] = 1.0f;
        }
        rq_[0][j] = 1.0f;
        rs[0][j] = rs[1][j] = rs[2][j] = 1.0f;
    }
    pb_cquats rot[K];
    pb_cvec3s pos[K], scl[K];
    pb_blend_layer layers[K];
    for (size_t i = 0; i < K; i++) {
        pb_cquats r = {q[i][0], q[i][1], q[i][2], q[i][3]};
        pb_cvec3s pp = {p[i][0], p[i][1], p[i][2]}, ss = {s[i][0], s[i][1], s[i][2]};
        rot[i] = r;
        pos[i] = pp;
        scl[i] = ss;
        layers[i].weight = 1.0f;
        layers[i].joint_weights = NULL;
        layers[i].pose.rot = r;
        layers[i].pose.pos = pp;
        layers[i].pose.scale = ss;
    }
    pb_pose full = {{oq[0], oq[1], oq[2], oq[3]}, {op[0], op[1], op[2]}, {os[0], os[1], os[2]}};
    pb_pose rot_only = {{oq[0], oq[1], oq[2], oq[3]}, {0, 0, 0}, {0, 0, 0}};
    pb_pose out = full;
    for (int o = 0; o < 2; o++, out = rot_only)
        for (int track = 0; track < 2; track++)
            for (int miss = 0; miss < 3; miss++) {
                pb_cpose ref = {
                    {rq_[0], rq_[1], rq_[2], rq_[3]}, {rp[0], rp[1], rp[2]}, {rs[0], rs[1], rs[2]}};
                const float **v = track ? &ref.scale.x : &ref.pos.x;
                v[miss] = NULL;
                for (int m = 0; m < PB_BLEND_METHOD_COUNT; m++) {
                    cr_expect_eq(
                        pb_pose_blend(J, K, rot, pos, scl, w, (pb_blend_method)m, &ref, &out),
                        PB_ERR_NULL, "pb_pose_blend method %d, ref %s component %d NULL", m,
                        track ? "scale" : "pos", miss);
                    if (m == PB_BLEND_ACCURATE)
                        continue;
                    pb_blend_desc d = {J, layers, K, NULL, 0, (pb_blend_method)m, 0, &ref};
                    cr_expect_eq(pb_pose_blend_layers(&d, &out), PB_ERR_NULL,
                                 "pb_pose_blend_layers method %d, ref %s component %d NULL", m,
                                 track ? "scale" : "pos", miss);
                }
            }
    out = full;
    /* k == 0: PB_ERR_ARG, also with joints above PB_MAX_COUNT or 0 */
    static const size_t nl[] = {0, J, PB_MAX_COUNT + 1};
    for (size_t i = 0; i < 3; i++) {
        size_t n = nl[i];
        pb_quats o = out.rot;
        cr_expect_eq(pb_quat_average_raw(n, 0, rot, w, o), PB_ERR_ARG);
        cr_expect_eq(pb_quat_average_accurate(n, 0, rot, w, o), PB_ERR_ARG);
        cr_expect_eq(pb_pose_blend(n, 0, rot, pos, scl, w, PB_BLEND_RAW, NULL, &out), PB_ERR_ARG,
                     "pb_pose_blend joints %zu k 0", n);
        pb_blend_desc d = {n, layers, 0, NULL, 0, PB_BLEND_RAW, 0, NULL};
        cr_expect_eq(pb_pose_blend_layers(&d, &out), PB_ERR_ARG, "layers joints %zu count 0", n);
        cr_expect_eq(pb_quat_reference_extract(0, n, rot[0], o), PB_ERR_ARG);
    }
}
