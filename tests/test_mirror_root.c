/* Root motion (pb_clip_root_extract / pb_clip_root_apply) and mirroring
 * (pb_clip_mirror, pb_joint_mirror_table, pb_bvh_mirror): the heading's
 * definition against angles built by hand, round trips, in-place clips of
 * real walks, mirrored feet walking the reflected paths on real skeletons,
 * the name families on every shared skeleton, and the errors. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clipdata.h"
#include "posebatch.h"
#include "posebatch/io.h"
#include "ref.h"

#define PI 3.14159265358979323846

/* ------------------------------------------------------------ helpers */

/* rotation about coordinate axis a by t radians */
static rq qaxis(int a, double t)
{
    rq r = {cos(t / 2), 0, 0, 0};
    double s = sin(t / 2);
    if (a == 0)
        r.x = s;
    else if (a == 1)
        r.y = s;
    else
        r.z = s;
    return r;
}

static unsigned rng_state = 12345u;
static double urand(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (double)(rng_state >> 8) / 16777216.0;
}

/* a clip of F frames, J joints, random unit rotations and positions */
typedef struct {
    pb_clip c;
    float *mem;
} tclip;

static tclip make_clip(size_t F, size_t J, int scales)
{
    tclip t;
    size_t n = F * J;
    t.mem = malloc(10 * n * sizeof(float));
    cr_assert(t.mem);
    float *a[10];
    for (int k = 0; k < 10; k++)
        a[k] = t.mem + (size_t)k * n;
    memset(&t.c, 0, sizeof t.c);
    t.c.frames = F;
    t.c.joints = J;
    t.c.frame_time = 1.0 / 30;
    t.c.rot = (pb_quats){a[0], a[1], a[2], a[3]};
    t.c.pos = (pb_vec3s){a[4], a[5], a[6]};
    if (scales)
        t.c.scale = (pb_vec3s){a[7], a[8], a[9]};
    for (size_t i = 0; i < n; i++) {
        double w = urand() - 0.5, x = urand() - 0.5, y = urand() - 0.5, z = urand() - 0.5;
        double m = sqrt(w * w + x * x + y * y + z * z);
        a[0][i] = (float)(w / m);
        a[1][i] = (float)(x / m);
        a[2][i] = (float)(y / m);
        a[3][i] = (float)(z / m);
        a[4][i] = (float)(200 * urand() - 100);
        a[5][i] = (float)(200 * urand() - 100);
        a[6][i] = (float)(200 * urand() - 100);
        a[7][i] = (float)(0.5 + urand());
        a[8][i] = (float)(0.5 + urand());
        a[9][i] = (float)(0.5 + urand());
    }
    return t;
}

typedef struct {
    float *mem;
    pb_root_track t;
} ttrack;

static ttrack make_track(size_t F)
{
    ttrack r;
    r.mem = malloc(7 * F * sizeof(float));
    cr_assert(r.mem);
    for (size_t i = 0; i < 7 * F; i++)
        r.mem[i] = -7.0f; /* a value no result has: untouched is visible */
    float *m = r.mem;
    r.t.pos = (pb_vec3s){m, m + F, m + 2 * F};
    r.t.rot = (pb_quats){m + 3 * F, m + 4 * F, m + 5 * F, m + 6 * F};
    return r;
}
static pb_croot_track ctrack(const ttrack *t)
{
    pb_croot_track c = {pb_cv(t->t.pos), pb_cq(t->t.rot)};
    return c;
}

/* ------------------------------------------------------------ root motion */

/* The heading is the yaw of R = Rot_u(yaw) Rot_s(pitch) Rot_f(roll), for any
 * up axis, including the locked pitch of +-90 degrees with roll 0. */
Test(root_motion, heading_is_the_tait_bryan_yaw)
{
    for (int up = 0; up < 3; up++) {
        const int fw = (up + 1) % 3, sd = (up + 2) % 3;
        for (int c = 0; c < 200; c++) {
            double yaw = (urand() * 2 - 1) * PI * 0.999;
            double pitch = (urand() * 2 - 1) * PI / 2 * 0.98;
            double roll = (urand() * 2 - 1) * PI;
            if (c < 4) { /* locked: pitch +-90, roll 0 */
                pitch = (c & 1 ? 1 : -1) * PI / 2;
                roll = 0;
            }
            rq r = rq_mul(rq_mul(qaxis(up, yaw), qaxis(sd, pitch)), qaxis(fw, roll));
            float rw = (float)r.w, rx = (float)r.x, ry = (float)r.y, rz = (float)r.z;
            float px = 1, py = 2, pz = 3;
            pb_clip clip = {1, 1, 1.0, {&rw, &rx, &ry, &rz}, {&px, &py, &pz}, {0, 0, 0}};
            ttrack t = make_track(1);
            pb_root_opts o = {0, (pb_axis)up, PB_ROOT_ALL};
            cr_assert_eq(pb_clip_root_extract(&clip, NULL, &o, &t.t), PB_OK);
            double hv[3] = {t.t.rot.x[0], t.t.rot.y[0], t.t.rot.z[0]};
            double got = 2 * atan2(hv[up], (double)t.t.rot.w[0]);
            double d = remainder(got - yaw, 2 * PI);
            cr_expect(fabs(d) < (c < 4 ? 2e-3 : 2e-6), "up %d case %d: yaw %.9g, heading %.9g", up,
                      c, yaw, got);
            cr_expect(hv[fw] == 0 && hv[sd] == 0, "heading about the up axis only");
            /* the in-place rotation has no yaw left: R f projects onto +f */
            free(t.mem);
        }
    }
}

/* Extract then apply gives the clip back; the measured root ends at the
 * ground origin facing forward; components apply alone. */
Test(root_motion, round_trip_every_axis_and_component)
{
    const size_t F = 40, J = 5;
    const int32_t parents[5] = {-1, 0, 1, 1, 3};
    for (int up = 0; up < 3; up++)
        for (unsigned comp = 1; comp <= 3; comp++)
            for (int withpar = 0; withpar < 2; withpar++) {
                tclip a = make_clip(F, J, 0), b = make_clip(F, J, 0);
                memcpy(b.mem, a.mem, 10 * F * J * sizeof(float));
                ttrack t = make_track(F);
                pb_root_opts o = {0, (pb_axis)up, comp};
                const int32_t *par = withpar ? parents : NULL;
                cr_assert_eq(pb_clip_root_extract(&b.c, par, &o, &t.t), PB_OK);
                const int fw = (up + 1) % 3, sd = (up + 2) % 3;
                for (size_t f = 0; f < F; f++) {
                    size_t i = f * J;
                    float p[3] = {b.c.pos.x[i], b.c.pos.y[i], b.c.pos.z[i]};
                    float g[3] = {t.t.pos.x[f], t.t.pos.y[f], t.t.pos.z[f]};
                    cr_expect(g[up] == 0.0f, "g has no up component");
                    if (comp & PB_ROOT_GROUND) {
                        cr_expect(fabsf(p[fw]) < 1e-4f && fabsf(p[sd]) < 1e-4f,
                                  "up %d comp %u frame %zu: root at %g %g %g", up, comp, f, p[0],
                                  p[1], p[2]);
                    } else {
                        cr_expect(g[0] == 0 && g[1] == 0 && g[2] == 0);
                    }
                    if (comp & PB_ROOT_HEADING) {
                        /* the root's forward axis now projects onto +f */
                        rq r = {b.c.rot.w[i], b.c.rot.x[i], b.c.rot.y[i], b.c.rot.z[i]};
                        rq fv = {0, 0, 0, 0};
                        double *fc[3] = {&fv.x, &fv.y, &fv.z};
                        *fc[fw] = 1;
                        rq rc = {r.w, -r.x, -r.y, -r.z};
                        rq v = rq_mul(rq_mul(r, fv), rc);
                        double vv[3] = {v.x, v.y, v.z};
                        cr_expect(fabs(vv[sd]) < 1e-5 && vv[fw] > 0, "forward %g %g %g", vv[0],
                                  vv[1], vv[2]);
                    } else {
                        cr_expect(t.t.rot.w[f] == 1 && t.t.rot.x[f] == 0 && t.t.rot.y[f] == 0 &&
                                  t.t.rot.z[f] == 0);
                        cr_expect(b.c.rot.w[i] == a.c.rot.w[i], "rotation untouched");
                    }
                    /* non-roots untouched */
                    for (size_t j = 1; j < J; j++)
                        cr_expect(b.c.rot.x[f * J + j] == a.c.rot.x[f * J + j] &&
                                  b.c.pos.y[f * J + j] == a.c.pos.y[f * J + j]);
                }
                pb_croot_track ct = ctrack(&t);
                cr_assert_eq(pb_clip_root_apply(&b.c, par, &o, &ct), PB_OK);
                double worst = 0;
                for (size_t i = 0; i < 7 * F * J; i++)
                    worst = fmax(worst,
                                 fabs((double)b.mem[i] - a.mem[i]) / (i < 4 * F * J ? 1.0 : 100.0));
                cr_expect(worst < 4e-7, "up %d comp %u: round trip off by %g relative", up, comp,
                          worst);
                free(a.mem);
                free(b.mem);
                free(t.mem);
            }
}

/* A measured joint below the root: its model-space transform (FK) is what
 * goes to the origin; the top-level root carries the correction. */
Test(root_motion, joint_below_the_root)
{
    const size_t F = 20, J = 4;
    const int32_t parents[4] = {-1, 0, 1, 2};
    tclip a = make_clip(F, J, 1);
    ttrack t = make_track(F);
    pb_root_opts o = {2, PB_AXIS_Y, PB_ROOT_ALL};
    cr_assert_eq(pb_clip_root_extract(&a.c, parents, &o, &t.t), PB_OK);
    tclip m = make_clip(F, J, 1);
    pb_cpose lp = {pb_cq(a.c.rot), pb_cv(a.c.pos), pb_cv(a.c.scale)};
    pb_pose mp = {m.c.rot, m.c.pos, m.c.scale};
    cr_assert_eq(pb_pose_local_to_model(F, J, parents, &lp, &mp), PB_OK);
    for (size_t f = 0; f < F; f++) {
        size_t i = f * J + 2;
        cr_expect(fabsf(m.c.pos.x[i]) < 2e-4f && fabsf(m.c.pos.z[i]) < 2e-4f,
                  "frame %zu: joint 2 at %g, %g", f, m.c.pos.x[i], m.c.pos.z[i]);
        /* its forward axis (+z) projects onto +z: the x of R z is 0 */
        rq r = {m.c.rot.w[i], m.c.rot.x[i], m.c.rot.y[i], m.c.rot.z[i]};
        double vx = 2 * (r.x * r.z + r.w * r.y), vz = 1 - 2 * (r.x * r.x + r.y * r.y);
        cr_expect(fabs(vx) < 1e-5 && vz > 0, "frame %zu: forward x %g z %g", f, vx, vz);
    }
    free(a.mem);
    free(m.mem);
    free(t.mem);
}

/* A real walk: in place afterwards, and back again to float precision. */
Test(root_motion, walk_in_place_and_back)
{
    const char *p = clip_path("pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh");
    if (!p)
        cr_skip_test("shared clip missing");
    pb_bvh b, orig;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(p, &b, &err), PB_IO_OK, "%s", err.message);
    cr_assert_eq(pb_bvh_read_file(p, &orig, &err), PB_IO_OK, "%s", err.message);
    const size_t F = b.num_frames, J = b.num_joints;
    pb_clip c = pb_bvh_clip(&b);
    ttrack t = make_track(F);
    cr_assert_eq(pb_clip_root_extract(&c, NULL, NULL, &t.t), PB_OK);
    double travel = 0;
    for (size_t f = 0; f < F; f++)
        travel = fmax(travel, hypot((double)t.t.pos.x[f] - t.t.pos.x[0],
                                    (double)t.t.pos.z[f] - t.t.pos.z[0]));
    cr_expect_gt(travel, 50.0, "the walk travels (%g)", travel);
    for (size_t f = 0; f < F; f++) {
        cr_expect(b.pos_x[f * J] == 0.0f && b.pos_z[f * J] == 0.0f, "frame %zu", f);
        cr_expect(b.pos_y[f * J] == orig.pos_y[f * J], "height kept");
    }
    pb_croot_track ct = ctrack(&t);
    cr_assert_eq(pb_clip_root_apply(&c, NULL, NULL, &ct), PB_OK);
    double scale = 0;
    for (size_t f = 0; f < F; f++)
        scale = fmax(scale, fmax(fabs(orig.pos_x[f * J]), fabs(orig.pos_z[f * J])));
    for (size_t i = 0; i < F * J; i++) {
        cr_assert(fabs((double)b.pos_x[i] - orig.pos_x[i]) <= 2e-7 * scale &&
                      fabs((double)b.pos_z[i] - orig.pos_z[i]) <= 2e-7 * scale &&
                      fabs((double)b.pos_y[i] - orig.pos_y[i]) <= 2e-7 * scale,
                  "element %zu", i);
        /* the angle of orig^-1 b: twice the norm of its vector part */
        rq o = {orig.rot_w[i], -orig.rot_x[i], -orig.rot_y[i], -orig.rot_z[i]};
        rq nb = {b.rot_w[i], b.rot_x[i], b.rot_y[i], b.rot_z[i]};
        rq d = rq_mul(o, nb);
        double ang = 2 * sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        cr_assert(ang < 1e-6, "element %zu: rotation off by %g rad", i, ang);
    }
    free(t.mem);
    pb_bvh_free(&b);
    pb_bvh_free(&orig);
}

/* The heading track is continuous: frame 0 with w >= 0 and each later
 * frame in the hemisphere of the one before (the header's promise), so
 * that a heading turning through 180 degrees, and on through three whole
 * turns, keeps its sign instead of jumping to -H: H_f = (cos(yaw_f / 2),
 * sin(yaw_f / 2) e_up) with the yaw unrolled, every up axis. (Headings
 * compared as rotations would not see a sign flip.) */
Test(root_motion, heading_track_keeps_its_hemisphere)
{
    const size_t F = 200;
    for (int up = 0; up < 3; up++) {
        const int fw = (up + 1) % 3, sd = (up + 2) % 3;
        float *m = malloc(7 * F * sizeof *m);
        cr_assert(m);
        pb_clip clip = {F,
                        1,
                        1.0 / 30,
                        {m, m + F, m + 2 * F, m + 3 * F},
                        {m + 4 * F, m + 5 * F, m + 6 * F},
                        {0, 0, 0}};
        double yaw0 = 2.5 - (double)up; /* 2.5, 1.5, 0.5 rad: crossing 180 soon */
        for (size_t f = 0; f < F; f++) {
            double yaw = yaw0 + 0.1 * (double)f; /* 20 rad: past 180 degrees six times */
            rq r = rq_mul(rq_mul(qaxis(up, yaw), qaxis(sd, 0.3 * sin(0.2 * (double)f))),
                          qaxis(fw, 0.2 * cos(0.3 * (double)f)));
            fq_set(clip.rot, f, r);
            clip.pos.x[f] = (float)f;
            clip.pos.y[f] = 1.0f;
            clip.pos.z[f] = -(float)f;
        }
        ttrack t = make_track(F);
        pb_root_opts o = {0, (pb_axis)up, PB_ROOT_ALL};
        cr_assert_eq(pb_clip_root_extract(&clip, NULL, &o, &t.t), PB_OK);
        size_t flips = 0, off = 0;
        for (size_t f = 0; f < F; f++) {
            rq h = fq_get(t.t.rot, f);
            double hv[3] = {h.x, h.y, h.z};
            double yaw = yaw0 + 0.1 * (double)f;
            double e = fmax(fabs(h.w - cos(yaw / 2)), fabs(hv[up] - sin(yaw / 2)));
            off += !(e < 1e-6);
            if (f > 0)
                flips += !(rq_dot(h, fq_get(t.t.rot, f - 1)) > 0);
            else
                cr_expect(h.w >= 0, "up %d: frame 0 has w %g", up, h.w);
            if (!(e < 1e-6) && off == 1)
                cr_expect(0,
                          "up %d frame %zu: heading " RQ_FMT ", the unrolled yaw %.9g rad gives "
                          "(%.9g, %.9g about the up axis)",
                          up, f, RQ_ARG(h), yaw, cos(yaw / 2), sin(yaw / 2));
        }
        cr_expect_eq(flips, 0, "up %d: the track changes hemisphere at %zu frames", up, flips);
        cr_expect_eq(off, 0, "up %d: %zu frames off the unrolled heading", up, off);
        free(t.mem);
        free(m);
    }
}

/* pb_clip_root_apply takes unit headings: one whose norm is off 1 by more
 * than 1e-4 (zero, 0.5, 1.0002, NaN, infinite) is PB_ERR_ARG with
 * nothing written (the clip's rotations would otherwise get w = 0 or a
 * scaled rotation, its translations a scale); within it (1 +- 5e-5) the
 * heading applies; with PB_ROOT_GROUND alone the rotations are not read. */
Test(root_motion, apply_refuses_headings_that_are_not_unit)
{
    const size_t F = 3, J = 2;
    tclip a = make_clip(F, J, 0);
    float *copy = malloc(10 * F * J * sizeof(float));
    cr_assert(copy);
    memcpy(copy, a.mem, 10 * F * J * sizeof(float));
    ttrack t = make_track(F);
    for (size_t f = 0; f < F; f++) {
        t.t.pos.x[f] = t.t.pos.y[f] = t.t.pos.z[f] = 0.0f;
        t.t.rot.w[f] = (float)cos(0.1 * (double)f);
        t.t.rot.y[f] = (float)sin(0.1 * (double)f);
        t.t.rot.x[f] = t.t.rot.z[f] = 0.0f;
    }
    const pb_croot_track ct = ctrack(&t);
    const float bad[][4] = {
        {0, 0, 0, 0}, {0.5f, 0, 0, 0}, {0, 0, 1.0002f, 0}, {NAN, 0, 0, 0}, {INFINITY, 0, 0, 0}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const size_t f = k % F; /* the bad frame: first, middle or last */
        const float keep[4] = {t.t.rot.w[f], t.t.rot.x[f], t.t.rot.y[f], t.t.rot.z[f]};
        t.t.rot.w[f] = bad[k][0];
        t.t.rot.x[f] = bad[k][1];
        t.t.rot.y[f] = bad[k][2];
        t.t.rot.z[f] = bad[k][3];
        cr_expect_eq(pb_clip_root_apply(&a.c, NULL, NULL, &ct), PB_ERR_ARG,
                     "heading (%g, %g, %g, %g) at frame %zu accepted", (double)bad[k][0],
                     (double)bad[k][1], (double)bad[k][2], (double)bad[k][3], f);
        cr_expect_eq(memcmp(copy, a.mem, 10 * F * J * sizeof(float)), 0,
                     "heading (%g, %g, %g, %g): the clip was written", (double)bad[k][0],
                     (double)bad[k][1], (double)bad[k][2], (double)bad[k][3]);
        /* the ground alone does not read the headings */
        pb_root_opts g = {0, PB_AXIS_Y, PB_ROOT_GROUND};
        cr_expect_eq(pb_clip_root_apply(&a.c, NULL, &g, &ct), PB_OK);
        memcpy(a.mem, copy, 10 * F * J * sizeof(float));
        t.t.rot.w[f] = keep[0];
        t.t.rot.x[f] = keep[1];
        t.t.rot.y[f] = keep[2];
        t.t.rot.z[f] = keep[3];
    }
    /* within the tolerance: applied */
    const float near[2] = {1.00005f, 0.99995f};
    for (int k = 0; k < 2; k++) {
        t.t.rot.w[1] = near[k] * (float)cos(0.1);
        t.t.rot.y[1] = near[k] * (float)sin(0.1);
        cr_expect_eq(pb_clip_root_apply(&a.c, NULL, NULL, &ct), PB_OK, "norm %g refused",
                     (double)near[k]);
        cr_expect_neq(memcmp(copy, a.mem, 10 * F * J * sizeof(float)), 0, "applied");
        memcpy(a.mem, copy, 10 * F * J * sizeof(float));
    }
    free(copy);
    free(a.mem);
    free(t.mem);
}

Test(root_motion, errors_write_nothing)
{
    tclip a = make_clip(3, 2, 0);
    float *copy = malloc(10 * 6 * sizeof(float));
    memcpy(copy, a.mem, 10 * 6 * sizeof(float));
    ttrack t = make_track(3);
    pb_root_opts bad_joint = {2, PB_AXIS_Y, PB_ROOT_ALL}, bad_up = {0, (pb_axis)3, PB_ROOT_ALL},
                 no_comp = {0, PB_AXIS_Y, 0}, odd_comp = {0, PB_AXIS_Y, 4};
    int32_t bad_par[2] = {-1, 1};
    cr_expect_eq(pb_clip_root_extract(NULL, NULL, NULL, &t.t), PB_ERR_NULL);
    cr_expect_eq(pb_clip_root_extract(&a.c, NULL, NULL, NULL), PB_ERR_NULL);
    cr_expect_eq(pb_clip_root_extract(&a.c, NULL, &bad_joint, &t.t), PB_ERR_ARG);
    cr_expect_eq(pb_clip_root_extract(&a.c, NULL, &bad_up, &t.t), PB_ERR_ARG);
    cr_expect_eq(pb_clip_root_extract(&a.c, NULL, &no_comp, &t.t), PB_ERR_ARG);
    cr_expect_eq(pb_clip_root_extract(&a.c, NULL, &odd_comp, &t.t), PB_ERR_ARG);
    cr_expect_eq(pb_clip_root_extract(&a.c, bad_par, NULL, &t.t), PB_ERR_ARG);
    pb_root_track ov = t.t;
    ov.pos.y = a.c.pos.x + 1; /* inside the clip */
    cr_expect_eq(pb_clip_root_extract(&a.c, NULL, NULL, &ov), PB_ERR_ALIAS);
    ov = t.t;
    ov.rot.w = ov.pos.z + 1; /* overlapping another track array */
    cr_expect_eq(pb_clip_root_extract(&a.c, NULL, NULL, &ov), PB_ERR_ALIAS);
    pb_clip nopos = a.c;
    nopos.pos.x = NULL;
    cr_expect_eq(pb_clip_root_extract(&nopos, NULL, NULL, &t.t), PB_ERR_NULL);
    pb_clip empty = a.c;
    empty.frames = 0;
    cr_expect_eq(pb_clip_root_extract(&empty, NULL, NULL, &t.t), PB_ERR_SIZE);
    pb_croot_track ct = ctrack(&t);
    cr_expect_eq(pb_clip_root_apply(&a.c, NULL, &bad_up, &ct), PB_ERR_ARG);
    cr_expect_eq(memcmp(copy, a.mem, 10 * 6 * sizeof(float)), 0, "clip untouched");
    for (size_t i = 0; i < 21; i++)
        cr_expect(t.mem[i] == -7.0f, "track untouched");
    free(copy);
    free(a.mem);
    free(t.mem);
}

/* ------------------------------------------------------------ mirroring */

Test(mirror, twice_is_identity_bit_exact_and_in_place)
{
    const size_t F = 7, J = 6;
    const int32_t m[6] = {0, 3, 4, 1, 2, 5};
    for (int plane = 0; plane < 3; plane++) {
        tclip a = make_clip(F, J, 1), b = make_clip(F, J, 1);
        float *orig = malloc(10 * F * J * sizeof(float));
        memcpy(orig, a.mem, 10 * F * J * sizeof(float));
        cr_assert_eq(pb_clip_mirror(&a.c, m, (pb_mirror_plane)plane, &b.c), PB_OK);
        /* the rule, element by element: joint 1 gets joint 3's reflected */
        for (size_t f = 0; f < F; f++) {
            size_t i = f * J + 1, s = f * J + 3;
            float q[3] = {a.c.rot.x[s], a.c.rot.y[s], a.c.rot.z[s]};
            float r[3] = {b.c.rot.x[i], b.c.rot.y[i], b.c.rot.z[i]};
            float p[3] = {a.c.pos.x[s], a.c.pos.y[s], a.c.pos.z[s]};
            float o[3] = {b.c.pos.x[i], b.c.pos.y[i], b.c.pos.z[i]};
            cr_expect(b.c.rot.w[i] == a.c.rot.w[s] && b.c.scale.y[i] == a.c.scale.y[s]);
            for (int k = 0; k < 3; k++) {
                cr_expect(r[k] == (k == plane ? q[k] : -q[k]), "plane %d rot %d", plane, k);
                cr_expect(o[k] == (k == plane ? -p[k] : p[k]), "plane %d pos %d", plane, k);
            }
        }
        /* back, in place */
        cr_assert_eq(pb_clip_mirror(&b.c, m, (pb_mirror_plane)plane, &b.c), PB_OK);
        cr_expect_eq(memcmp(b.mem, orig, 10 * F * J * sizeof(float)), 0, "plane %d", plane);
        /* twice in place on a */
        cr_assert_eq(pb_clip_mirror(&a.c, m, (pb_mirror_plane)plane, &a.c), PB_OK);
        cr_assert_eq(pb_clip_mirror(&a.c, m, (pb_mirror_plane)plane, &a.c), PB_OK);
        cr_expect_eq(memcmp(a.mem, orig, 10 * F * J * sizeof(float)), 0, "plane %d", plane);
        free(orig);
        free(a.mem);
        free(b.mem);
    }
}

Test(mirror, bad_tables_and_arguments)
{
    tclip a = make_clip(2, 3, 0), b = make_clip(2, 3, 0);
    float *copy = malloc(10 * 6 * sizeof(float));
    memcpy(copy, b.mem, 10 * 6 * sizeof(float));
    const int32_t not_inv[3] = {1, 2, 0}, out_of_range[3] = {0, 1, 3}, ok[3] = {0, 2, 1};
    cr_expect_eq(pb_clip_mirror(&a.c, not_inv, PB_MIRROR_YZ, &b.c), PB_ERR_ARG);
    cr_expect_eq(pb_clip_mirror(&a.c, out_of_range, PB_MIRROR_YZ, &b.c), PB_ERR_ARG);
    cr_expect_eq(pb_clip_mirror(&a.c, ok, (pb_mirror_plane)3, &b.c), PB_ERR_ARG);
    cr_expect_eq(pb_clip_mirror(&a.c, NULL, PB_MIRROR_YZ, &b.c), PB_ERR_NULL);
    pb_clip part = b.c;
    part.rot.x = a.c.rot.x + 1; /* partial overlap with the input */
    cr_expect_eq(pb_clip_mirror(&a.c, ok, PB_MIRROR_YZ, &part), PB_ERR_ALIAS);
    pb_clip twice = b.c; /* two output tracks in one array */
    twice.rot.y = b.c.rot.x;
    cr_expect_eq(pb_clip_mirror(&a.c, ok, PB_MIRROR_YZ, &twice), PB_ERR_ALIAS);
    int32_t *tab = (int32_t *)(void *)b.c.pos.z; /* the table inside an output */
    memcpy(tab, ok, sizeof ok);
    memcpy(copy, b.mem, 10 * 6 * sizeof(float));
    cr_expect_eq(pb_clip_mirror(&a.c, tab, PB_MIRROR_YZ, &b.c), PB_ERR_ALIAS);
    pb_clip fewer = b.c;
    fewer.frames = 1;
    cr_expect_eq(pb_clip_mirror(&a.c, ok, PB_MIRROR_YZ, &fewer), PB_ERR_ARG);
    pb_clip nopos = b.c;
    nopos.pos.x = NULL;
    cr_expect_eq(pb_clip_mirror(&a.c, ok, PB_MIRROR_YZ, &nopos), PB_ERR_NULL);
    cr_expect_eq(memcmp(copy, b.mem, 10 * 6 * sizeof(float)), 0, "nothing written");
    free(copy);
    free(a.mem);
    free(b.mem);
}

static double clip_height(const pb_bvh *b, const float *my)
{
    double lo = 1e30, hi = -1e30;
    for (size_t j = 0; j < b->num_joints; j++) {
        lo = fmin(lo, my[j]);
        hi = fmax(hi, my[j]);
    }
    return hi - lo;
}

typedef struct {
    float *mem;
    pb_pose p;
} tmodel;

static tmodel fk(const pb_bvh *b)
{
    size_t n = b->num_frames * b->num_joints;
    tmodel m;
    m.mem = malloc(7 * n * sizeof(float));
    cr_assert(m.mem);
    float *a = m.mem;
    memset(&m.p, 0, sizeof m.p);
    m.p.rot = (pb_quats){a, a + n, a + 2 * n, a + 3 * n};
    m.p.pos = (pb_vec3s){a + 4 * n, a + 5 * n, a + 6 * n};
    int32_t *par = malloc(b->num_joints * sizeof *par);
    for (size_t j = 0; j < b->num_joints; j++)
        par[j] = b->joints[j].parent;
    pb_cpose l = {{b->rot_w, b->rot_x, b->rot_y, b->rot_z},
                  {b->pos_x, b->pos_y, b->pos_z},
                  {NULL, NULL, NULL}};
    cr_assert_eq(pb_pose_local_to_model(b->num_frames, b->num_joints, par, &l, &m.p), PB_OK);
    free(par);
    return m;
}

/* model position of an End Site: T_p + R_p offset */
static void site_pos(const pb_pose *m, size_t i, const float off[3], double out[3])
{
    rq r = {m->rot.w[i], m->rot.x[i], m->rot.y[i], m->rot.z[i]};
    rq v = {0, off[0], off[1], off[2]};
    rq rc = {r.w, -r.x, -r.y, -r.z};
    rq t = rq_mul(rq_mul(r, v), rc);
    out[0] = m->pos.x[i] + t.x;
    out[1] = m->pos.y[i] + t.y;
    out[2] = m->pos.z[i] + t.z;
}

/* The feet of a mirrored bandai clip walk the reflections of the source's
 * other feet, to 1e-4 of the skeleton's height; so does every joint. */
static void mirrored_paths(const char *p, const char *name, const char *left, const char *right)
{
    if (!p)
        cr_skip_test("shared clip missing");
    pb_bvh src, mir;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(p, &src, &err), PB_IO_OK, "%s", err.message);
    cr_assert_eq(pb_bvh_mirror(&src, NULL, PB_MIRROR_YZ, &mir, &err), PB_IO_OK, "%s", err.message);
    long lf = pb_bvh_find_joint(&src, left), rf = pb_bvh_find_joint(&src, right);
    cr_assert(lf >= 0 && rf >= 0);
    tmodel ms = fk(&src), mm = fk(&mir);
    const size_t F = src.num_frames, J = src.num_joints;
    const double tol = 1e-4 * clip_height(&src, ms.p.pos.y);
    cr_assert_gt(tol, 0);
    double worst = 0;
    for (size_t f = 0; f < F; f++) {
        for (int side = 0; side < 2; side++) {
            size_t a = f * J + (size_t)(side ? lf : rf), b = f * J + (size_t)(side ? rf : lf);
            double d = fmax(fabs((double)mm.p.pos.x[b] + ms.p.pos.x[a]),
                            fmax(fabs((double)mm.p.pos.y[b] - ms.p.pos.y[a]),
                                 fabs((double)mm.p.pos.z[b] - ms.p.pos.z[a])));
            worst = fmax(worst, d);
        }
    }
    cr_expect_lt(worst, tol, "%s: feet off by %g (tolerance %g)", name, worst, tol);
    /* the skeleton agrees with the motion: a joint without position
     * channels is at its OFFSET (as the file would read back), and each End
     * Site's model position is the reflection of its counterpart's */
    for (size_t j = 0; j < J; j++) {
        int has_pos = 0;
        for (int c = 0; c < mir.joints[j].num_channels; c++)
            has_pos |= mir.joints[j].channels[c] <= PB_BVH_ZPOS;
        for (size_t f = 0; f < F && !has_pos; f++)
            cr_assert(mir.pos_x[f * J + j] == mir.joints[j].offset[0] &&
                          mir.pos_y[f * J + j] == mir.joints[j].offset[1] &&
                          mir.pos_z[f * J + j] == mir.joints[j].offset[2],
                      "%s: joint %s off its OFFSET", name, mir.joints[j].name);
    }
    int32_t *tab = malloc(J * sizeof *tab);
    cr_assert_eq(pb_bvh_mirror_table(&src, NULL, 0, tab, &err), PB_IO_OK);
    for (size_t e = 0; e < mir.num_end_sites; e++) {
        size_t pm = (size_t)mir.end_sites[e].parent, ps = (size_t)tab[pm];
        size_t es = 0; /* the source End Site under ps (one per joint here) */
        while (es < src.num_end_sites && (size_t)src.end_sites[es].parent != ps)
            es++;
        cr_assert_lt(es, src.num_end_sites);
        for (size_t f = 0; f < F; f += 5) {
            double a[3], b[3];
            site_pos(&mm.p, f * J + pm, mir.end_sites[e].offset, a);
            site_pos(&ms.p, f * J + ps, src.end_sites[es].offset, b);
            cr_assert(fabs(a[0] + b[0]) < tol && fabs(a[1] - b[1]) < tol && fabs(a[2] - b[2]) < tol,
                      "%s: End Site of %s, frame %zu", name, mir.joints[pm].name, f);
        }
    }
    free(tab);
    /* the feet do move apart from the reflection of themselves (the test
     * can fail: a clip mirrored without the swap is caught) */
    double apart = 0;
    for (size_t f = 0; f < F; f++)
        apart = fmax(apart,
                     fabs((double)mm.p.pos.z[f * J + (size_t)lf] - ms.p.pos.z[f * J + (size_t)lf]));
    cr_expect_gt(apart, 10 * tol, "%s: left foot path moved", name);
    fprintf(stderr, "%s: mirrored feet within %.3g of the reflected paths (height %.4g)\n", name,
            worst, tol * 1e4);
    free(ms.mem);
    free(mm.mem);
    pb_bvh_free(&mir);
    pb_bvh_free(&src);
}

Test(mirror, bandai_dance_feet_reflect)
{
    const char *n = "bandai_dataset-1_dance-short_normal_001.bvh";
    mirrored_paths(clip_path(n), n, "Foot_L", "Foot_R");
}
Test(mirror, bandai_slash_feet_reflect)
{
    const char *n = "bandai_dataset-1_slash_normal_002.bvh";
    mirrored_paths(clip_path(n), n, "Foot_L", "Foot_R");
}
/* CMU: joints without position channels (at their OFFSETs) and End Sites
 * with lengths */
Test(mirror, cmu_feet_reflect)
{
    mirrored_paths(repo_clip_path("cmu_01_03.bvh"), "cmu_01_03.bvh", "LeftFoot", "RightFoot");
}

/* pb_bvh_mirror twice: the same clip bit for bit, skeleton and source angles
 * included; every plane. */
Test(mirror, bvh_twice_is_identity)
{
    const char *p = repo_clip_path("cmu_01_03.bvh");
    pb_bvh src, a, b;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(p, &src, &err), PB_IO_OK, "%s", err.message);
    for (int plane = 0; plane < 3; plane++) {
        cr_assert_eq(pb_bvh_mirror(&src, NULL, (pb_mirror_plane)plane, &a, &err), PB_IO_OK, "%s",
                     err.message);
        cr_assert_eq(pb_bvh_mirror(&a, NULL, (pb_mirror_plane)plane, &b, &err), PB_IO_OK, "%s",
                     err.message);
        size_t n = src.num_frames * src.num_joints;
        const float *s[7] = {src.rot_w, src.rot_x, src.rot_y, src.rot_z,
                             src.pos_x, src.pos_y, src.pos_z};
        const float *t[7] = {b.rot_w, b.rot_x, b.rot_y, b.rot_z, b.pos_x, b.pos_y, b.pos_z};
        const float *m[7] = {a.rot_w, a.rot_x, a.rot_y, a.rot_z, a.pos_x, a.pos_y, a.pos_z};
        int moved = 0;
        for (int k = 0; k < 7; k++) {
            cr_expect_eq(memcmp(s[k], t[k], n * sizeof(float)), 0, "plane %d track %d", plane, k);
            moved |= memcmp(s[k], m[k], n * sizeof(float)) != 0;
        }
        cr_expect(moved, "mirroring once changes the clip");
        cr_assert(src.euler_deg && b.euler_deg && src.decimals && b.decimals);
        cr_expect_eq(memcmp(src.euler_deg, b.euler_deg, 3 * n * sizeof(double)), 0);
        cr_expect_eq(memcmp(src.decimals, b.decimals, src.num_frames * src.num_channels), 0);
        for (size_t j = 0; j < src.num_joints; j++)
            cr_expect_eq(memcmp(src.joints[j].offset, b.joints[j].offset, sizeof(float[3])), 0);
        for (size_t e = 0; e < src.num_end_sites; e++)
            cr_expect_eq(memcmp(src.end_sites[e].offset, b.end_sites[e].offset, sizeof(float[3])),
                         0);
        /* the mirrored source angles give the reflected rotation of the
         * counterpart's source angles (in double: to rounding) */
        int32_t *tab = malloc(src.num_joints * sizeof *tab);
        cr_assert_eq(pb_bvh_mirror_table(&src, NULL, 0, tab, &err), PB_IO_OK);
        for (size_t i = 0; i < n; i += 7) {
            size_t f = i / src.num_joints, j = i % src.num_joints;
            size_t s2 = f * src.num_joints + (size_t)tab[j];
            const pb_bvh_joint *jt = &a.joints[j];
            double q[4], r[4];
            pb_euler_to_quat_n((pb_euler_order)jt->rot_order, jt->num_rot, a.euler_deg + 3 * i, q);
            pb_euler_to_quat_n((pb_euler_order)jt->rot_order, jt->num_rot, src.euler_deg + 3 * s2,
                               r);
            for (int k = 1; k < 4; k++)
                r[k] = k - 1 == plane ? r[k] : -r[k];
            double d = 0;
            for (int k = 0; k < 4; k++)
                d = fmax(d, fabs(q[k] - r[k]));
            cr_expect(d < 1e-12, "element %zu: angles and rotation differ by %g", i, d);
        }
        free(tab);
        pb_bvh_free(&a);
        pb_bvh_free(&b);
    }
    pb_bvh_free(&src);
}

/* Paired joints must have as many End Sites each (the mirror gives joint j
 * the End Sites of its counterpart): LeftLeg with two and RightLeg with one,
 * or one and none, is PB_IO_ERR_ARG naming both joints and both counts, with
 * *out untouched, by the name table or a table given; the same skeleton
 * with equal counts mirrors. */
Test(mirror, paired_joints_need_as_many_end_sites)
{
    static const char *const fmt =
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n"
        " JOINT LeftLeg\n {\n  OFFSET 1 0 0\n  CHANNELS 0\n%s }\n"
        " JOINT RightLeg\n {\n  OFFSET -1 0 0\n  CHANNELS 0\n%s }\n}\n"
        "MOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0\n10 20 30\n";
    static const char *const site = "  End Site\n  {\n   OFFSET 0 -1 0\n  }\n";
    const struct {
        int left, right; /* End Sites under LeftLeg and RightLeg */
    } cases[] = {{2, 1}, {1, 2}, {1, 0}, {0, 1}, {1, 1}, {2, 2}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char ls[128] = "", rs[128] = "", txt[1024];
        for (int i = 0; i < cases[k].left; i++)
            strcat(ls, site);
        for (int i = 0; i < cases[k].right; i++)
            strcat(rs, site);
        snprintf(txt, sizeof txt, fmt, ls, rs);
        pb_bvh src, out;
        pb_io_error err;
        cr_assert_eq(pb_bvh_read_memory(txt, strlen(txt), &src, &err), PB_IO_OK, "%s\n%s",
                     err.message, txt);
        cr_assert_eq(src.num_end_sites, (size_t)(cases[k].left + cases[k].right));
        const int32_t given[3] = {0, 2, 1};
        for (int tab = 0; tab < 2; tab++) {
            memset(&out, 0x5a, sizeof out);
            pb_bvh before = out;
            pb_io_code rc = pb_bvh_mirror(&src, tab ? given : NULL, PB_MIRROR_YZ, &out, &err);
            if (cases[k].left == cases[k].right) {
                cr_expect_eq(rc, PB_IO_OK, "%d End Sites each: %s", cases[k].left, err.message);
                if (rc == PB_IO_OK)
                    pb_bvh_free(&out);
                continue;
            }
            char want[64];
            snprintf(want, sizeof want, "have %d and %d End Sites", cases[k].left, cases[k].right);
            cr_expect_eq(rc, PB_IO_ERR_ARG, "%d and %d End Sites (table %s) accepted",
                         cases[k].left, cases[k].right, tab ? "given" : "by name");
            cr_expect(strstr(err.message, "'LeftLeg' and 'RightLeg'") && strstr(err.message, want),
                      "'%s' lacks the joints or '%s'", err.message, want);
            cr_expect_eq(memcmp(&out, &before, sizeof out), 0, "*out untouched");
        }
        pb_bvh_free(&src);
    }
}

static void pairs_of(const char *path, const char *name, void *ctx)
{
    (void)ctx;
    pb_bvh b;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file_with(path, NULL, &b, &err), PB_IO_OK, "%s", err.message);
    int32_t *m = malloc(b.num_joints * sizeof *m);
    cr_assert_eq(pb_bvh_mirror_table(&b, NULL, 0, m, &err), PB_IO_OK, "%s: %s", name, err.message);
    fprintf(stderr, "%s:", name);
    size_t pairs = 0;
    for (size_t j = 0; j < b.num_joints; j++) {
        cr_expect_eq(m[m[j]], (int32_t)j);
        if ((size_t)m[j] > j) {
            fprintf(stderr, " %s=%s", b.joints[j].name, b.joints[m[j]].name);
            pairs++;
            /* a pair is a left and a right of one name */
            char l[256], r[256];
            snprintf(l, sizeof l, "%s", b.joints[j].name);
            snprintf(r, sizeof r, "%s", b.joints[m[j]].name);
            cr_expect(strlen(l) + 1 >= strlen(r) && strlen(r) + 1 >= strlen(l));
        }
    }
    fprintf(stderr, " (%zu pairs)\n", pairs);
    /* every skeleton here has its arms and legs in pairs */
    cr_expect_geq(pairs, 8, "%s: %zu pairs", name, pairs);
    /* the hierarchy is respected, so pb_bvh_mirror takes the table */
    pb_bvh mir;
    cr_expect_eq(pb_bvh_mirror(&b, m, PB_MIRROR_YZ, &mir, &err), PB_IO_OK, "%s: %s", name,
                 err.message);
    pb_bvh_free(&mir);
    free(m);
    pb_bvh_free(&b);
}

Test(mirror, pairs_on_every_shared_skeleton)
{
    if (for_each_mocap_bvh(pairs_of, NULL) < 0)
        cr_skip_test("shared data missing");
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A guard against pairing going quadratic again (not a speed claim: the
 * work itself is counted in test_joint_names.c): a skeleton of 65,536
 * joints, the reader's limit (LeftArm_i / RightArm_i pairs under the root,
 * each with an End Site, and centre joints), gets its table and is mirrored
 * in well under 10 s each (quadratic pairing took 40 s and more at this
 * size; linear, a fraction of a second), with every pair found and the End
 * Sites swapped; so is a pair with 100,000 End Sites each. */
Test(mirror, pairing_65536_joints_is_not_quadratic, .timeout = 240)
{
    const size_t J = 65536, pairs = (J - 2) / 2;
    size_t cap = 256 + J * 96, k = 0;
    char *t = malloc(cap);
    cr_assert(t);
    k += (size_t)snprintf(t + k, cap - k,
                          "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation "
                          "Yrotation\nJOINT Spine\n{\nOFFSET 0 1 0\nCHANNELS 0\nEnd Site\n{\n"
                          "OFFSET 0 1 0\n}\n}\n");
    for (size_t i = 0; i < pairs; i++)
        for (int side = 0; side < 2; side++)
            k += (size_t)snprintf(t + k, cap - k,
                                  "JOINT %sArm_%zu\n{\nOFFSET %d 0 0\nCHANNELS 0\nEnd Site\n{\n"
                                  "OFFSET %d %zu 0\n}\n}\n",
                                  side ? "Right" : "Left", i, side ? -1 : 1, side ? -2 : 2, i);
    k += (size_t)snprintf(t + k, cap - k, "}\nMOTION\nFrames: 1\nFrame Time: 0.1\n1 2 3\n");
    cr_assert_lt(k, cap);
    pb_bvh src, mir;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_memory(t, k, &src, &err), PB_IO_OK, "%s", err.message);
    free(t);
    cr_assert_eq(src.num_joints, J);
    int32_t *m = malloc(J * sizeof *m);
    cr_assert(m);
    double t0 = now_s();
    cr_assert_eq(pb_bvh_mirror_table(&src, NULL, 0, m, &err), PB_IO_OK, "%s", err.message);
    double t1 = now_s();
    cr_assert_eq(pb_bvh_mirror(&src, m, PB_MIRROR_YZ, &mir, &err), PB_IO_OK, "%s", err.message);
    double t2 = now_s();
    fprintf(stderr, "65,536 joints: table %.3f s, mirror %.3f s\n", t1 - t0, t2 - t1);
    cr_expect_lt(t1 - t0, 10.0, "the table of 65,536 joints took %.1f s", t1 - t0);
    cr_expect_lt(t2 - t1, 10.0, "mirroring 65,536 joints took %.1f s", t2 - t1);
    cr_expect(m[0] == 0 && m[1] == 1, "Hips and Spine on the centre line");
    for (size_t j = 2; j < J; j++)
        cr_assert_eq((size_t)m[j], j ^ 1, "%s -> %d", src.joints[j].name, m[j]);
    /* joint j's End Site is its counterpart's, reflected */
    for (size_t e = 0; e < mir.num_end_sites; e++) {
        size_t p = (size_t)mir.end_sites[e].parent;
        cr_assert(mir.end_sites[e].offset[0] == -src.end_sites[m[p] - 1].offset[0] &&
                      mir.end_sites[e].offset[1] == src.end_sites[m[p] - 1].offset[1],
                  "End Site %zu", e);
    }
    free(m);
    pb_bvh_free(&mir);
    pb_bvh_free(&src);
    /* End Sites are not bounded by the joint limit: 2 x 100,000 under one
     * pair, each mirrored to its counterpart's of the same rank (quadratic
     * matching took tens of seconds here) */
    const size_t E = 100000;
    cap = 256 + 2 * E * 40;
    k = 0;
    t = malloc(cap);
    cr_assert(t);
    k += (size_t)snprintf(t + k, cap - k,
                          "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation "
                          "Yrotation\n");
    for (int side = 0; side < 2; side++) {
        k += (size_t)snprintf(t + k, cap - k, "JOINT %sLeg\n{\nOFFSET %d 0 0\nCHANNELS 0\n",
                              side ? "Right" : "Left", side ? -1 : 1);
        for (size_t e = 0; e < E; e++)
            k += (size_t)snprintf(t + k, cap - k, "End Site\n{\nOFFSET %d %zu 0\n}\n",
                                  side ? -2 : 2, e);
        k += (size_t)snprintf(t + k, cap - k, "}\n");
    }
    k += (size_t)snprintf(t + k, cap - k, "}\nMOTION\nFrames: 1\nFrame Time: 0.1\n1 2 3\n");
    cr_assert_lt(k, cap);
    cr_assert_eq(pb_bvh_read_memory(t, k, &src, &err), PB_IO_OK, "%s", err.message);
    free(t);
    cr_assert_eq(src.num_end_sites, 2 * E);
    t0 = now_s();
    cr_assert_eq(pb_bvh_mirror(&src, NULL, PB_MIRROR_YZ, &mir, &err), PB_IO_OK, "%s", err.message);
    t1 = now_s();
    fprintf(stderr, "2 x 100,000 End Sites: mirror %.3f s\n", t1 - t0);
    cr_expect_lt(t1 - t0, 10.0, "mirroring 200,000 End Sites took %.1f s", t1 - t0);
    for (size_t e = 0; e < 2 * E; e++) /* the e-th of one leg: the other's e-th, reflected */
        cr_assert(mir.end_sites[e].offset[0] == (e < E ? 2.0f : -2.0f) &&
                      mir.end_sites[e].offset[1] == (float)(e % E),
                  "End Site %zu: %g %g", e, (double)mir.end_sites[e].offset[0],
                  (double)mir.end_sites[e].offset[1]);
    pb_bvh_free(&mir);
    pb_bvh_free(&src);
}

static int32_t pair_of(const char *const *names, size_t n, const int32_t *m, const char *a)
{
    for (size_t j = 0; j < n; j++)
        if (strcmp(names[j], a) == 0)
            return m[j];
    return -100;
}

Test(mirror, name_families)
{
    const char *names[] = {"Hips",   "LeftUpLeg", "RIGHTUPLEG", "HandLeft", "handright", "Hand_L",
                           "Hand_R", "toe.l",     "toe.R",      "L_Hip",    "r_hip",     "lhip",
                           "rhip",   "lowerback", "LThumb",     "RThumb",   "Root"};
    const size_t n = sizeof names / sizeof names[0];
    int32_t m[17];
    pb_io_error err;
    cr_assert_eq(pb_joint_mirror_table(n, names, NULL, 0, m, &err), PB_IO_OK, "%s", err.message);
    const char *expect[][2] = {{"Hips", "Hips"},          {"LeftUpLeg", "RIGHTUPLEG"},
                               {"HandLeft", "handright"}, {"Hand_L", "Hand_R"},
                               {"toe.l", "toe.R"},        {"L_Hip", "r_hip"},
                               {"lhip", "rhip"},          {"lowerback", "lowerback"},
                               {"LThumb", "RThumb"},      {"Root", "Root"}};
    for (size_t k = 0; k < sizeof expect / sizeof expect[0]; k++) {
        int32_t got = pair_of(names, n, m, expect[k][0]);
        cr_expect(got >= 0 && strcmp(names[got], expect[k][1]) == 0, "%s -> %s, expected %s",
                  expect[k][0], got >= 0 ? names[got] : "?", expect[k][1]);
    }
}

Test(mirror, explicit_pairs_override)
{
    const char *names[] = {"Hips", "LeftArm", "RightArm", "Lfoo", "Rfoo", "Cleft"};
    int32_t m[6];
    pb_io_error err;
    /* "Cleft" says left without a right: an error, named */
    cr_expect_eq(pb_joint_mirror_table(6, names, NULL, 0, m, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "'Cleft'") && strstr(err.message, "Cright"), "%s", err.message);
    pb_joint_pair ps[] = {{"Cleft", "Cleft"}, {"LeftArm", "Rfoo"}, {"RightArm", "Lfoo"}};
    cr_assert_eq(pb_joint_mirror_table(6, names, ps, 3, m, &err), PB_IO_OK, "%s", err.message);
    const int32_t want[6] = {0, 4, 3, 2, 1, 5};
    cr_expect_eq(memcmp(m, want, sizeof want), 0, "%d %d %d %d %d %d", m[0], m[1], m[2], m[3], m[4],
                 m[5]);
    /* an explicit pair taking a family's counterpart */
    pb_joint_pair half[] = {{"Cleft", "Cleft"}, {"LeftArm", "Rfoo"}};
    cr_expect_eq(pb_joint_mirror_table(6, names, half, 2, m, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "RightArm") != NULL, "%s", err.message);
    /* unknown names and a joint in two pairs */
    pb_joint_pair unknown[] = {{"Nope", "Hips"}};
    cr_expect_eq(pb_joint_mirror_table(6, names, unknown, 1, m, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "'Nope'") != NULL, "%s", err.message);
    pb_joint_pair twice[] = {{"Hips", "Hips"}, {"Hips", "Cleft"}};
    cr_expect_eq(pb_joint_mirror_table(6, names, twice, 2, m, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "already paired") != NULL, "%s", err.message);
    cr_expect_eq(memcmp(m, want, sizeof want), 0, "table untouched on errors");
}

Test(mirror, bvh_errors)
{
    const char *p = repo_clip_path("cmu_01_03.bvh");
    pb_bvh src, out;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(p, &src, &err), PB_IO_OK, "%s", err.message);
    const size_t J = src.num_joints;
    int32_t *m = malloc(J * sizeof *m);
    cr_assert_eq(pb_bvh_mirror_table(&src, NULL, 0, m, &err), PB_IO_OK, "%s", err.message);
    long lu = pb_bvh_find_joint(&src, "LeftUpLeg"), ru = pb_bvh_find_joint(&src, "RightUpLeg");
    long la = pb_bvh_find_joint(&src, "LeftArm");
    memset(&out, 0x5a, sizeof out);
    pb_bvh before = out;
    /* not an involution */
    int32_t keep = m[lu];
    m[lu] = (int32_t)la;
    cr_expect_eq(pb_bvh_mirror(&src, m, PB_MIRROR_YZ, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "involution") != NULL, "%s", err.message);
    m[lu] = keep;
    /* an involution that breaks the hierarchy: the upper legs centred */
    m[lu] = (int32_t)lu;
    m[ru] = (int32_t)ru;
    cr_expect_eq(pb_bvh_mirror(&src, m, PB_MIRROR_YZ, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "parents") != NULL, "%s", err.message);
    m[lu] = (int32_t)ru;
    m[ru] = (int32_t)lu;
    m[0] = (int32_t)J; /* out of range */
    cr_expect_eq(pb_bvh_mirror(&src, m, PB_MIRROR_YZ, &out, &err), PB_IO_ERR_ARG);
    m[0] = 0;
    cr_expect_eq(pb_bvh_mirror(&src, m, (pb_mirror_plane)7, &out, &err), PB_IO_ERR_ARG);
    /* a data-line layout that disagrees with itself (the decimals are
     * copied by it) */
    src.num_channels += 1;
    cr_expect_eq(pb_bvh_mirror(&src, m, PB_MIRROR_YZ, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "num_channels") != NULL, "%s", err.message);
    src.num_channels -= 1;
    cr_expect_eq(memcmp(&out, &before, sizeof out), 0, "*out untouched");
    /* a name family without its counterpart, at the file level */
    const char *txt = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation "
                      "Yrotation\n JOINT LeftLeg\n {\n  OFFSET 1 0 0\n  CHANNELS 0\n  End Site\n"
                      "  {\n   OFFSET 0 -1 0\n  }\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n"
                      "0 0 0\n";
    pb_bvh one;
    cr_assert_eq(pb_bvh_read_memory(txt, strlen(txt), &one, &err), PB_IO_OK, "%s", err.message);
    cr_expect_eq(pb_bvh_mirror(&one, NULL, PB_MIRROR_YZ, &out, &err), PB_IO_ERR_ARG);
    cr_expect(strstr(err.message, "'LeftLeg'") && strstr(err.message, "RightLeg"), "%s",
              err.message);
    pb_joint_pair c = {"LeftLeg", "LeftLeg"};
    cr_assert_eq(pb_bvh_mirror_table(&one, &c, 1, m, &err), PB_IO_OK, "%s", err.message);
    cr_assert_eq(pb_bvh_mirror(&one, m, PB_MIRROR_YZ, &out, &err), PB_IO_OK, "%s", err.message);
    cr_expect(out.joints[1].offset[0] == -1.0f && out.end_sites[0].offset[1] == -1.0f);
    pb_bvh_free(&out);
    pb_bvh_free(&one);
    free(m);
    pb_bvh_free(&src);
}
