/*
 * pb_clip_features against an independent double-precision computation of
 * its definitions (posebatch/features.h), from the same float input: forward
 * kinematics by ref_skeleton.c, the heading as the yaw of the root's forward
 * axis (atan2 of its ground components), positions in the facing frame,
 * velocities by finite differences at the clip's fps, the 6D from the
 * rotation matrices, contacts from those speeds and heights. Tolerances from
 * the header's accuracy: positions as pb_pose_local_to_model (1e-5 x size),
 * velocities that error times fps, the 6D 1e-6.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"
#include "ref_rotrep.h"
#include "ref_skeleton.h"

#define J 9
static const int32_t parents[J] = {-1, 0, 1, 2, 0, 4, 5, 0, 7};

typedef struct {
    size_t F;
    double ft;
    float *a[10]; /* rot w x y z, pos x y z, scale x y z */
    int scaled;
} clipdata;

/* a walking, turning root and wiggling joints (smooth, so that velocities
 * are meaningful), rounded to float */
static clipdata make_clip(size_t F, double ft, int scaled, int up, uint64_t seed)
{
    clipdata c = {F, ft, {0}, scaled};
    rng_t r = rng_seed(seed);
    for (int k = 0; k < 10; k++) {
        c.a[k] = malloc(F * J * sizeof(float));
        cr_assert(c.a[k]);
    }
    rv3 ax[J], off[J];
    double ph[J], amp[J];
    for (int j = 0; j < J; j++) {
        ax[j] = rng_unit3(&r);
        off[j] = rng_vec3(&r, 0.4);
        ph[j] = rng_range(&r, 0, 6.28);
        amp[j] = rng_range(&r, 0.1, 0.9);
    }
    rv3 upv = rv3_make(up == 0, up == 1, up == 2);
    for (size_t f = 0; f < F; f++) {
        double t = (double)f * ft;
        for (int j = 0; j < J; j++) {
            rq q = rq_from_axis_angle(ax[j], amp[j] * sin(2.1 * t + ph[j]));
            rv3 p = off[j];
            if (j == 0) {
                /* turning about up by a yaw that winds past pi, tilted a
                 * little, travelling on a curve at height 0.9 */
                double yaw = 1.3 * t + 0.4 * sin(t);
                q = rq_mul(rq_from_axis_angle(upv, yaw), q);
                rv3 g = up == 1   ? rv3_make(2 * sin(0.7 * t), 0, 3 * t)
                        : up == 2 ? rv3_make(3 * t, 2 * sin(0.7 * t), 0)
                                  : rv3_make(0, 3 * t, 2 * sin(0.7 * t));
                p = rv3_add(g, rv3_scale(upv, 0.9 + 0.05 * sin(5 * t)));
            }
            const size_t i = f * J + (size_t)j;
            c.a[0][i] = (float)q.w;
            c.a[1][i] = (float)q.x;
            c.a[2][i] = (float)q.y;
            c.a[3][i] = (float)q.z;
            c.a[4][i] = (float)p.x;
            c.a[5][i] = (float)p.y;
            c.a[6][i] = (float)p.z;
            for (int k = 7; k < 10; k++)
                c.a[k][i] = scaled ? (float)(1.0 + 0.2 * sin(t + j + k)) : 1.0f;
        }
    }
    return c;
}
static void free_clip(clipdata *c)
{
    for (int k = 0; k < 10; k++)
        free(c->a[k]);
}
static pb_clip as_clip(clipdata *c)
{
    pb_clip p = {c->F,
                 J,
                 c->ft,
                 {c->a[0], c->a[1], c->a[2], c->a[3]},
                 {c->a[4], c->a[5], c->a[6]},
                 {NULL, NULL, NULL}};
    if (c->scaled)
        p.scale = (pb_vec3s){c->a[7], c->a[8], c->a[9]};
    return p;
}

/* the reference: model space per frame, the heading's yaw, and H^-1 */
typedef struct {
    ref_xf model[J];
    double yaw;
    rv3 g;
} ref_frame;

static double comp(rv3 v, int k) { return k == 0 ? v.x : k == 1 ? v.y : v.z; }
static rv3 axis(int k) { return rv3_make(k == 0, k == 1, k == 2); }

static ref_frame ref_at(const clipdata *c, size_t f, int up)
{
    ref_frame rf;
    ref_xf local[J];
    for (int j = 0; j < J; j++) {
        const size_t i = f * J + (size_t)j;
        local[j].r = rq_make(c->a[0][i], c->a[1][i], c->a[2][i], c->a[3][i]);
        local[j].t = rv3_make(c->a[4][i], c->a[5][i], c->a[6][i]);
        local[j].s = c->scaled ? rv3_make(c->a[7][i], c->a[8][i], c->a[9][i]) : rv3_make(1, 1, 1);
    }
    ref_local_to_model(J, parents, local, rf.model);
    /* yaw: the angle about u from f to the ground projection of R f */
    const int fw = (up + 1) % 3, sd = (up + 2) % 3;
    rv3 rf_ = ref_rotate(rf.model[0].r, axis(fw));
    rf.yaw = atan2(comp(rf_, sd), comp(rf_, fw));
    rv3 p = rf.model[0].t;
    rf.g = rv3_sub(p, rv3_scale(axis(up), comp(p, up)));
    return rf;
}
/* v rotated about the up axis by -yaw (H^-1 v) */
static rv3 unyaw(rv3 v, double yaw, int up)
{
    return ref_rotate(rq_from_axis_angle(axis(up), -yaw), v);
}
static double wrap(double a)
{
    while (a > REF_PI)
        a -= 2 * REF_PI;
    while (a <= -REF_PI)
        a += 2 * REF_PI;
    return a;
}

static void check_clip(size_t F, int scaled, int up, uint64_t seed)
{
    const double ft = 1.0 / 30.0, fps = 30.0;
    clipdata c = make_clip(F, ft, scaled, up, seed);
    const size_t feet[3] = {3, 6, 8};
    pb_feature_opts o = {0, (pb_axis)up, 3, feet, 1.2f, 0.15f};
    const size_t n = F * J;
    float *buf = malloc((4 * F + 12 * n + 3 * F) * sizeof(float));
    cr_assert(buf);
    pb_features out = {buf,
                       buf + F,
                       buf + 3 * F,
                       buf + 4 * F,
                       buf + 4 * F + 3 * n,
                       buf + 4 * F + 6 * n,
                       buf + 4 * F + 12 * n};
    pb_clip clip = as_clip(&c);
    cr_assert_eq(pb_clip_features(&clip, parents, &o, &out), PB_OK);
    ref_frame *rf = malloc(F * sizeof *rf);
    cr_assert(rf);
    for (size_t f = 0; f < F; f++)
        rf[f] = ref_at(&c, f, up);
    const double size = 12.0; /* the clip's extent (its travel included) */
    const double ptol = 1e-5 * size, vtol = 2 * ptol * fps;
    double lo[3] = {INFINITY, INFINITY, INFINITY};
    for (size_t f = 0; f < F; f++)
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], comp(rf[f].model[feet[k]].t, up));
    for (size_t f = 0; f < F; f++) {
        const size_t a = F == 1 ? 0 : f + 1 < F ? f : F - 2, b = F == 1 ? 0 : a + 1;
        const double yaw = rf[f].yaw;
        /* root track */
        double yv = wrap(rf[b].yaw - rf[a].yaw) * fps;
        cr_expect(fabs(out.root_yaw_vel[f] - yv) <= 1e-5 * fps,
                  "frame %zu: yaw velocity %g, ref %g", f, out.root_yaw_vel[f], yv);
        rv3 gv = rv3_scale(unyaw(rv3_sub(rf[b].g, rf[a].g), yaw, up), fps);
        const int g0 = up == 0 ? 1 : 0, g1 = up == 2 ? 1 : 2;
        cr_expect(fabs(out.root_vel[2 * f] - comp(gv, g0)) <= vtol &&
                      fabs(out.root_vel[2 * f + 1] - comp(gv, g1)) <= vtol,
                  "frame %zu: root velocity (%g, %g), ref (%g, %g)", f, out.root_vel[2 * f],
                  out.root_vel[2 * f + 1], comp(gv, g0), comp(gv, g1));
        cr_expect(fabs(out.root_height[f] - comp(rf[f].model[0].t, up)) <= ptol,
                  "frame %zu: root height", f);
        for (int j = 0; j < J; j++) {
            const size_t i = f * J + (size_t)j;
            rv3 p = unyaw(rv3_sub(rf[f].model[j].t, rf[f].g), yaw, up);
            rv3 v = rv3_scale(unyaw(rv3_sub(rf[b].model[j].t, rf[a].model[j].t), yaw, up), fps);
            rv3 gp =
                rv3_make(out.positions[3 * i], out.positions[3 * i + 1], out.positions[3 * i + 2]);
            rv3 gvv = rv3_make(out.velocities[3 * i], out.velocities[3 * i + 1],
                               out.velocities[3 * i + 2]);
            cr_expect(rv3_dist(gp, p) <= ptol,
                      "frame %zu joint %d: position " RV_FMT " ref " RV_FMT, f, j, RV_ARG(gp),
                      RV_ARG(p));
            cr_expect(rv3_dist(gvv, v) <= vtol,
                      "frame %zu joint %d: velocity " RV_FMT " ref " RV_FMT, f, j, RV_ARG(gvv),
                      RV_ARG(v));
            /* 6D of the local rotation, the root's without its heading */
            rq lr = rq_make(c.a[0][i], c.a[1][i], c.a[2][i], c.a[3][i]);
            if (j == 0)
                lr = rq_mul(rq_from_axis_angle(axis(up), -yaw), lr);
            double m[9];
            ref_quat_to_mat3(lr, m);
            const double want[6] = {m[0], m[3], m[6], m[1], m[4], m[7]};
            for (int k = 0; k < 6; k++)
                cr_expect(fabs(out.rot6d[6 * i + (size_t)k] - want[k]) <= 1e-6,
                          "frame %zu joint %d: 6D[%d] %g, ref %g", f, j, k,
                          out.rot6d[6 * i + (size_t)k], want[k]);
        }
        /* contacts, where the reference is not within rounding of a threshold */
        for (int k = 0; k < 3; k++) {
            const int fj = (int)feet[k];
            double sp = rv3_norm(rv3_sub(rf[b].model[fj].t, rf[a].model[fj].t)) * fps;
            double h = comp(rf[f].model[fj].t, up) - lo[k];
            if (fabs(sp - o.contact_speed) <= vtol || fabs(h - o.contact_height) <= 2 * ptol)
                continue;
            float want = sp < o.contact_speed && h < o.contact_height ? 1.0f : 0.0f;
            cr_expect_eq(out.contacts[f * 3 + (size_t)k], want,
                         "frame %zu foot %d: contact %g, ref %g (speed %g, height %g)", f, k,
                         out.contacts[f * 3 + (size_t)k], want, sp, h);
        }
    }
    free(rf);
    free(buf);
    free_clip(&c);
}

Test(features, against_double_reference) { check_clip(90, 0, 1, 11); }
Test(features, scales_and_up_z) { check_clip(61, 1, 2, 12); }
Test(features, up_x) { check_clip(33, 0, 0, 13); }
Test(features, two_frames_and_one) /* the pair rule at its ends */
{
    check_clip(2, 0, 1, 14);
    check_clip(1, 0, 1, 15);
}

/* contacts both ways on this clip: a foot at rest on the floor is in
 * contact, one moving fast or high is not */
Test(features, contacts_flip)
{
    clipdata c = make_clip(40, 1.0 / 30, 0, 1, 16);
    const size_t feet[2] = {3, 8};
    pb_feature_opts o = {0, PB_AXIS_Y, 2, feet, INFINITY, INFINITY};
    float cont[80];
    pb_features out = {0};
    out.contacts = cont;
    pb_clip clip = as_clip(&c);
    cr_assert_eq(pb_clip_features(&clip, parents, &o, &out), PB_OK);
    for (int i = 0; i < 80; i++)
        cr_expect_eq(cont[i], 1.0f, "infinite thresholds: contact %d is %g", i, cont[i]);
    o.contact_speed = 0.0f;
    cr_assert_eq(pb_clip_features(&clip, parents, &o, &out), PB_OK);
    for (int i = 0; i < 80; i++)
        cr_expect_eq(cont[i], 0.0f, "zero speed threshold: contact %d is %g", i, cont[i]);
    free_clip(&c);
}

Test(features, errors_write_nothing)
{
    clipdata c = make_clip(5, 1.0 / 30, 0, 1, 17);
    pb_clip clip = as_clip(&c);
    float pos[5 * J * 3], vel[5 * J * 3];
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
        pos[i] = vel[i] = -7.0f;
    pb_features out = {0};
    out.positions = pos;
    out.velocities = vel;
    const size_t feet[1] = {J};
    pb_feature_opts bad_foot = {0, PB_AXIS_Y, 1, feet, 1, 1};
    pb_feature_opts bad_root = {J, PB_AXIS_Y, 0, NULL, 0, 0};
    pb_feature_opts bad_up = {0, (pb_axis)3, 0, NULL, 0, 0};
    const size_t ok_feet[1] = {2};
    pb_feature_opts nan_thr = {0, PB_AXIS_Y, 1, ok_feet, NAN, 1};
    pb_feature_opts null_feet = {0, PB_AXIS_Y, 1, NULL, 1, 1};
    cr_expect_eq(pb_clip_features(&clip, parents, &bad_foot, &out), PB_ERR_ARG);
    cr_expect_eq(pb_clip_features(&clip, parents, &bad_root, &out), PB_ERR_ARG);
    cr_expect_eq(pb_clip_features(&clip, parents, &bad_up, &out), PB_ERR_ARG);
    cr_expect_eq(pb_clip_features(&clip, parents, &nan_thr, &out), PB_ERR_ARG);
    cr_expect_eq(pb_clip_features(&clip, parents, &null_feet, &out), PB_ERR_NULL);
    cr_expect_eq(pb_clip_features(&clip, NULL, NULL, &out), PB_ERR_NULL);
    int32_t bad_par[J];
    memcpy(bad_par, parents, sizeof bad_par);
    bad_par[3] = 5;
    cr_expect_eq(pb_clip_features(&clip, bad_par, NULL, &out), PB_ERR_ARG);
    pb_features overlap = out;
    overlap.velocities = pos + 3;
    cr_expect_eq(pb_clip_features(&clip, parents, NULL, &overlap), PB_ERR_ALIAS);
    pb_features on_input = out;
    on_input.positions = c.a[4];
    cr_expect_eq(pb_clip_features(&clip, parents, NULL, &on_input), PB_ERR_ALIAS);
    pb_clip zero = clip;
    zero.frames = 0;
    cr_expect_eq(pb_clip_features(&zero, parents, NULL, &out), PB_ERR_SIZE);
    pb_clip badft = clip;
    badft.frame_time = 0;
    cr_expect_eq(pb_clip_features(&badft, parents, NULL, &out), PB_ERR_ARG);
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
        cr_expect(pos[i] == -7.0f && vel[i] == -7.0f, "an error wrote element %zu", i);
    free_clip(&c);
}

/* pb_humanml3d_features' refusals (the values: tests/python/test_features.py,
 * against HumanML3D's own script) */
Test(features, humanml3d_errors)
{
    float pos[3][22 * 3], out[2 * 263];
    for (int f = 0; f < 3; f++)
        for (int j = 0; j < 22; j++) { /* on a vertical line: no facing */
            pos[f][3 * j] = 0.0f;
            pos[f][3 * j + 1] = 1.0f - 0.04f * (float)j;
            pos[f][3 * j + 2] = 0.02f * (float)f;
        }
    for (int i = 0; i < 2 * 263; i++)
        out[i] = -7.0f;
    cr_expect_eq(pb_humanml3d_features(1, pos[0], NULL, 0.002f, out), PB_ERR_SIZE);
    cr_expect_eq(pb_humanml3d_features(3, NULL, NULL, 0.002f, out), PB_ERR_NULL);
    cr_expect_eq(pb_humanml3d_features(3, pos[0], NULL, NAN, out), PB_ERR_ARG);
    cr_expect_eq(pb_humanml3d_features(3, pos[0], NULL, 0.002f, pos[1]), PB_ERR_ALIAS);
    /* the hips and shoulders along y only: no horizontal facing */
    cr_expect_eq(pb_humanml3d_features(3, pos[0], NULL, 0.002f, out), PB_ERR_ARG);
    for (int i = 0; i < 2 * 263; i++)
        cr_expect(out[i] == -7.0f, "an error wrote element %d", i);
    /* hips and shoulders apart (a facing), the right leg of length 0 in
     * the first frame */
    float leg[3][22 * 3];
    memcpy(leg, pos, sizeof leg);
    for (int f = 0; f < 3; f++) {
        leg[f][3 * 1] = 0.1f;
        leg[f][3 * 2] = -0.1f;
        leg[f][3 * 16] = 0.2f;
        leg[f][3 * 17] = -0.2f;
    }
    cr_expect_eq(pb_humanml3d_features(3, leg[0], NULL, 0.002f, out), PB_OK);
    for (int j = 5; j <= 11; j += 3)
        for (int k = 0; k < 3; k++)
            leg[0][3 * j + k] = leg[0][3 * 2 + k];
    cr_expect_eq(pb_humanml3d_features(3, leg[0], NULL, 0.002f, out), PB_ERR_ARG);
}
