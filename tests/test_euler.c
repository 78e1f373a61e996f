/*
 * The batch Euler kernels (src/simd/kernels_euler.h) through their callers
 * in src/io, on the active backend (POSEBATCH_BACKEND picks it), against the
 * scalar double reference (src/io/euler.c, bvh_angles.c):
 * - the writer's batch choice bvh_choose_angles_n against bvh_choose_angles
 *   joint by joint, on random frames and on the reference's edges (gimbal
 *   lock, +-180 wraps, half-turn unwrapping ties, the n = 2 branch at +-90,
 *   the "same rotation as the source" threshold, zero / non-finite / huge
 *   values), every order, 0..3 rotation channels, every mode: the same
 *   as_read, the same bits where the source angles are taken, and otherwise
 *   the same printed text (6 decimals) within 1e-9 degrees;
 * - joints near gimbal lock get the reference's own bits (the kernel hands
 *   them to it: without that hand-over the lock handling would be missing);
 * - a resampled clip written frame after frame as the writer does (each
 *   frame's angles the next one's prev): the same text as the scalar chain;
 * - pb_bvh_resample_angles bit for bit as the scalar loop it replaced.
 * Linked with the static library: these functions are internal.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clipdata.h"
#include "euler_cases.h"
#include "posebatch.h"
#include "posebatch/io.h"

#ifndef PB_REPO_DATA_DIR
#define PB_REPO_DATA_DIR "data"
#endif

/* the documented bound: computed angles within this of the reference's */
#define TOL_DEG 1e-9

static const pb_bvh_euler_mode k_modes[3] = {PB_BVH_EULER_SOURCE, PB_BVH_EULER_CONTINUOUS,
                                             PB_BVH_EULER_PRINCIPAL};

/* One case in one mode (with or without prev): batch against reference.
 * Returns the number of disagreeing joints (reported); *maxdev gets the
 * largest angle difference of converted joints. */
static int check_case(const ec_case *c, pb_bvh_euler_mode mode, int with_prev, const char *what,
                      double *maxdev, size_t *bitdiff)
{
    static double deg[3 * EC_MAXJ], ref[3 * EC_MAXJ];
    unsigned char ar[EC_MAXJ], rr[EC_MAXJ];
    const double *prev = with_prev ? c->prev : NULL;
    bvh_choose_angles_n(mode, c->n, c->order, c->nrot, c->qw, c->qx, c->qy, c->qz, c->src, prev,
                        deg, ar);
    ec_reference(mode, c, c->src, prev, ref, rr);
    int bad = 0;
    for (size_t e = 0; e < c->n; e++) {
        char msg[256];
        if (ec_agree(deg, ar, ref, rr, e, TOL_DEG, msg, sizeof msg)) {
            if (bad++ < 5)
                cr_log_error("%s, mode %d%s, joint %zu (order %d, nrot %d): %s", what, (int)mode,
                             with_prev ? " with prev" : "", e, c->order[e], c->nrot[e], msg);
            continue;
        }
        for (int k = 0; k < 3; k++) {
            double a = deg[3 * e + (size_t)k], b = ref[3 * e + (size_t)k];
            if (isfinite(a) && fabs(a - b) > *maxdev)
                *maxdev = fabs(a - b);
            if (memcmp(&a, &b, sizeof a) != 0 && !(isnan(a) && isnan(b)))
                (*bitdiff)++;
        }
    }
    return bad;
}

Test(euler, choose_matches_reference)
{
    static ec_case c;
    static const size_t sizes[] = {1,  2,  3,  4,  5,  7,  8,  9,   15,
                                   16, 17, 31, 33, 63, 64, 65, 130, 160};
    double maxdev = 0.0;
    size_t bitdiff = 0, joints = 0;
    int bad = 0;
    for (int kind = 0; kind < EC_KINDS; kind++) {
        for (int rep = 0; rep < 60; rep++) {
            size_t n = sizes[(size_t)rep % (sizeof sizes / sizeof sizes[0])];
            ec_make(&c, kind, n);
            char what[64];
            snprintf(what, sizeof what, "%s case %d (n %zu)", ec_kind_names[kind], rep, n);
            for (int m = 0; m < 3; m++)
                for (int p = 0; p < 2; p++) {
                    bad += check_case(&c, k_modes[m], p, what, &maxdev, &bitdiff);
                    joints += n;
                }
        }
    }
    cr_log_info("%s: %zu joints, %zu angles not bit-identical, largest difference %.3g degrees",
                pb_backend_name(pb_backend_active()), joints, bitdiff, maxdev);
    cr_expect_eq(bad, 0, "%d joints disagree with bvh_choose_angles", bad);
}

/* The writer's use: deg is prev itself */
Test(euler, choose_in_place)
{
    static ec_case c;
    static double deg[3 * EC_MAXJ], inplace[3 * EC_MAXJ];
    unsigned char ar[EC_MAXJ], ar2[EC_MAXJ];
    for (int rep = 0; rep < 40; rep++) {
        ec_make(&c, rep % EC_KINDS, 1 + (size_t)rep * 4);
        for (int m = 0; m < 3; m++) {
            bvh_choose_angles_n(k_modes[m], c.n, c.order, c.nrot, c.qw, c.qx, c.qy, c.qz, c.src,
                                c.prev, deg, ar);
            memcpy(inplace, c.prev, sizeof inplace);
            bvh_choose_angles_n(k_modes[m], c.n, c.order, c.nrot, c.qw, c.qx, c.qy, c.qz, c.src,
                                inplace, inplace, ar2);
            cr_expect(memcmp(deg, inplace, 3 * c.n * sizeof *deg) == 0 && memcmp(ar, ar2, c.n) == 0,
                      "case %d mode %d: in place differs", rep, m);
        }
    }
}

/* Gimbal lock: cos(middle) < 1e-3, where the reference pulls the first
 * angle towards prev[0] (or 0) and recomputes the third (and snaps an exact
 * lock to +-90). The kernel does not: it must hand every such joint to the
 * reference, whose bits come back. Without the hand-over the first angle
 * would be the plain decomposition's, up to degrees away. */
Test(euler, lock_takes_reference)
{
    static ec_case c;
    static double deg[3 * EC_MAXJ], ref[3 * EC_MAXJ];
    unsigned char ar[EC_MAXJ], rr[EC_MAXJ];
    size_t locked = 0, moved = 0;
    int bad = 0;
    for (int rep = 0; rep < 100; rep++) {
        ec_make(&c, EC_LOCK, 64);
        for (int m = 0; m < 3; m++)
            for (int p = 0; p < 2; p++) {
                const double *prev = p ? c.prev : NULL;
                bvh_choose_angles_n(k_modes[m], c.n, c.order, c.nrot, c.qw, c.qx, c.qy, c.qz, c.src,
                                    prev, deg, ar);
                ec_reference(k_modes[m], &c, c.src, prev, ref, rr);
                for (size_t e = 0; e < c.n; e++) {
                    if (rr[e] || c.nrot[e] < 2)
                        continue;
                    /* the reference's middle angle within 0.0573 degrees of
                     * +-90 (mod 180): cos(middle) < 1e-3 */
                    double b = ref[3 * e + 1];
                    double off = fabs(fmod(fabs(b), 180.0) - 90.0);
                    if (!(off < 0.0572))
                        continue;
                    locked++;
                    double plain[3];
                    double q[4] = {c.qw[e], c.qx[e], c.qy[e], c.qz[e]};
                    pb_euler_from_quat_n((pb_euler_order)c.order[e], c.nrot[e], q, NULL, plain);
                    moved += fabs(fmod(ref[3 * e] - plain[0] + 540.0, 360.0) - 180.0) > 1e-6;
                    if (memcmp(deg + 3 * e, ref + 3 * e, 3 * sizeof *deg) != 0 && bad++ < 5)
                        cr_log_error("mode %d%s joint %zu (order %d, nrot %d): %.17g %.17g %.17g, "
                                     "reference %.17g %.17g %.17g",
                                     m, p ? " with prev" : "", e, c.order[e], c.nrot[e], deg[3 * e],
                                     deg[3 * e + 1], deg[3 * e + 2], ref[3 * e], ref[3 * e + 1],
                                     ref[3 * e + 2]);
                }
            }
    }
    cr_log_info("%zu locked joints, %zu of them pulled away from the principal first angle", locked,
                moved);
    cr_expect(locked > 1000 && moved > 100, "too few locked cases (%zu, %zu)", locked, moved);
    cr_expect_eq(bad, 0, "%d locked joints not the reference's", bad);
}

/* Source angles at the "same rotation" threshold (2e-7 rad): the batch
 * takes them exactly where the reference does. The angles are moved along
 * a direction until the reference's answer flips (bisection to the last
 * bit), then tried a few ulps either side. */
Test(euler, source_threshold)
{
    static ec_case c;
    static double deg[3 * EC_MAXJ], ref[3 * EC_MAXJ];
    unsigned char ar[EC_MAXJ], rr[EC_MAXJ];
    int bad = 0, tried = 0, taken = 0;
    for (int rep = 0; rep < 200; rep++) {
        ec_make(&c, EC_RANDOM, 1);
        c.nrot[0] = (uint8_t)(1 + rep % 3);
        double q[4] = {c.qw[0], c.qx[0], c.qy[0], c.qz[0]}, s0[3], d[3];
        pb_euler_from_quat_n((pb_euler_order)c.order[0], c.nrot[0], q, NULL, s0);
        for (int k = 0; k < 3; k++)
            d[k] = ec_sym(1.0) * 1e-4; /* far enough to differ */
        double lo = 0.0, hi = 1.0, s[3], r[3];
        for (int it = 0; it < 80; it++) {
            double mid = 0.5 * (lo + hi);
            for (int k = 0; k < 3; k++)
                s[k] = s0[k] + mid * d[k];
            if (bvh_choose_angles(PB_BVH_EULER_SOURCE, c.order[0], c.nrot[0], q, s, NULL, r))
                lo = mid;
            else
                hi = mid;
        }
        /* the last two of the bisection (taken, not taken) and a few
         * ulps of the first angle around each */
        for (int side = 0; side < 2; side++)
            for (int step = -3; step <= 3; step++) {
                for (int k = 0; k < 3; k++)
                    c.src[k] = s0[k] + (side ? hi : lo) * d[k];
                for (int j = 0; j < abs(step); j++)
                    c.src[0] = nextafter(c.src[0], step < 0 ? -INFINITY : INFINITY);
                bvh_choose_angles_n(PB_BVH_EULER_SOURCE, 1, c.order, c.nrot, c.qw, c.qx, c.qy, c.qz,
                                    c.src, NULL, deg, ar);
                ec_reference(PB_BVH_EULER_SOURCE, &c, c.src, NULL, ref, rr);
                tried++;
                taken += rr[0];
                char msg[256];
                if (ec_agree(deg, ar, ref, rr, 0, TOL_DEG, msg, sizeof msg) && bad++ < 5)
                    cr_log_error("case %d side %d step %d: %s", rep, side, step, msg);
            }
    }
    cr_expect(taken > tried / 5 && taken < 4 * tried / 5, "%d of %d at the threshold taken", taken,
              tried);
    cr_expect_eq(bad, 0, "%d threshold cases disagree", bad);
}

/* A resampled clip written frame after frame as the writer does: each
 * frame's angles are the next frame's prev; the scalar chain is the
 * writer's before (bvh_choose_angles joint by joint). */
Test(euler, writer_chain_on_clip, .timeout = 120)
{
    pb_bvh in, out;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(PB_REPO_DATA_DIR "/cmu_01_03.bvh", &in, &err), PB_BVH_OK, "%s",
                 err.message);
    cr_assert_eq(pb_bvh_resample(&in, 240.0, 0, &out, &err), PB_BVH_OK, "%s", err.message);
    const size_t J = out.num_joints, F = out.num_frames;
    uint8_t *order = malloc(J), *nrot = malloc(J);
    unsigned char *ar = malloc(J), *rr = malloc(J);
    double *deg = malloc(3 * J * sizeof *deg), *ref = malloc(3 * J * sizeof *ref);
    cr_assert(order && nrot && ar && rr && deg && ref);
    for (size_t j = 0; j < J; j++) {
        order[j] = out.joints[j].rot_order;
        nrot[j] = out.joints[j].num_rot;
    }
    for (int m = 0; m < 3; m++) {
        size_t bad = 0, taken = 0;
        for (size_t f = 0; f < F; f++) {
            size_t o = f * J;
            bvh_choose_angles_n(k_modes[m], J, order, nrot, out.rot_w + o, out.rot_x + o,
                                out.rot_y + o, out.rot_z + o, out.euler_deg + 3 * o, f ? deg : NULL,
                                deg, ar);
            for (size_t j = 0; j < J; j++) {
                if (!nrot[j])
                    continue;
                double q[4] = {out.rot_w[o + j], out.rot_x[o + j], out.rot_y[o + j],
                               out.rot_z[o + j]};
                double prev[3] = {ref[3 * j], ref[3 * j + 1], ref[3 * j + 2]};
                rr[j] = (unsigned char)bvh_choose_angles(k_modes[m], order[j], nrot[j], q,
                                                         out.euler_deg + 3 * (o + j),
                                                         f ? prev : NULL, ref + 3 * j);
                taken += rr[j];
                char msg[256];
                if (ec_agree(deg, ar, ref, rr, j, TOL_DEG, msg, sizeof msg) && bad++ < 5)
                    cr_log_error("mode %d frame %zu joint %zu: %s", m, f, j, msg);
            }
        }
        cr_expect_eq(bad, 0, "mode %d: %zu joints disagree", m, bad);
        if (m == 0)
            cr_expect(taken > F * J / 8, "source angles taken %zu times", taken);
    }
    free(order), free(nrot), free(ar), free(rr), free(deg), free(ref);
    pb_bvh_free(&in);
    pb_bvh_free(&out);
}

/* ---------------------------------------------- pb_bvh_resample_angles */

/* The scalar loop pb_bvh_resample_angles was (bvh_angles.c before the
 * kernel), for euler_deg only */
static double near_angle(double a, double b) { return b - 360.0 * nearbyint((b - a) / 360.0); }
static void resample_angles_scalar(const pb_bvh *src, int loop, size_t G, double frame_time,
                                   double *out)
{
    const size_t J = src->num_joints, F = src->num_frames;
    const double step = frame_time / src->frame_time;
    for (size_t g = 0; g < G; g++) {
        double s = (double)g * step;
        if (fabs(s - nearbyint(s)) < 1e-9 * (s > 1.0 ? s : 1.0))
            s = nearbyint(s);
        double fl = floor(s), u = s - fl;
        size_t f0, f1;
        if (loop) {
            f0 = (size_t)fmod(fl, (double)F);
            f1 = f0 + 1 < F ? f0 + 1 : 0;
        } else {
            f0 = fl >= (double)(F - 1) ? F - 1 : (size_t)fl;
            f1 = f0 + 1 < F ? f0 + 1 : f0;
            if (fl >= (double)(F - 1))
                u = 0.0;
        }
        for (size_t j = 0; j < J; j++) {
            const double *a = src->euler_deg + 3 * (f0 * J + j),
                         *b = src->euler_deg + 3 * (f1 * J + j);
            double *o = out + 3 * (g * J + j);
            int far = 0;
            for (int k = 0; k < 3; k++)
                far |= fabs(near_angle(a[k], b[k]) - a[k]) > 90.0;
            for (int k = 0; k < 3; k++) {
                double x = a[k];
                o[k] = u == 0.0 ? a[k]
                       : far    ? (u < 0.5 ? a[k] : b[k])
                                : x + u * (near_angle(x, b[k]) - x);
            }
        }
    }
}

static void check_resample_angles(const pb_bvh *src, double fps, int loop, const char *what)
{
    pb_bvh dst;
    pb_bvh_error err;
    size_t G = (size_t)floor((double)(src->num_frames - 1) * src->frame_time * fps) + 1;
    cr_assert_eq(pb_bvh_new_motion(src, G, 1.0 / fps, &dst, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(pb_bvh_resample_angles(src, loop, &dst, &err), PB_BVH_OK, "%s", err.message);
    double *want = malloc(3 * G * src->num_joints * sizeof *want);
    cr_assert(want);
    resample_angles_scalar(src, loop, G, dst.frame_time, want);
    size_t n = 3 * G * src->num_joints, bad = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&want[i], &dst.euler_deg[i], sizeof *want) != 0 &&
            !(isnan(want[i]) && isnan(dst.euler_deg[i])) && bad++ < 3)
            cr_log_error("%s at %g fps%s: value %zu %.17g, scalar %.17g", what, fps,
                         loop ? " loop" : "", i, dst.euler_deg[i], want[i]);
    cr_expect_eq(bad, 0, "%s at %g fps: %zu values differ", what, fps, bad);
    free(want);
    pb_bvh_free(&dst);
}

Test(euler, resample_angles_bitwise, .timeout = 120)
{
    pb_bvh in;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(PB_REPO_DATA_DIR "/cmu_01_03.bvh", &in, &err), PB_BVH_OK, "%s",
                 err.message);
    static const double rates[] = {30.0, 97.0, 120.0, 480.0};
    for (size_t r = 0; r < 4; r++)
        for (int loop = 0; loop < 2; loop++)
            check_resample_angles(&in, rates[r], loop, "cmu_01_03");
    /* the same skeleton with adversarial angles: half turns apart (ties of
     * the rounding), far pairs (another branch), big values, NaN */
    size_t n = 3 * in.num_frames * in.num_joints;
    for (size_t i = 0; i < n; i++) {
        double v = ec_u();
        double a = in.euler_deg[i];
        size_t prev = i >= 3 * in.num_joints ? i - 3 * in.num_joints : i;
        double p = in.euler_deg[prev];
        in.euler_deg[i] = v < 0.1    ? p + 180.0 * (double)((int)ec_pick(7) - 3)
                          : v < 0.2  ? p + ec_sym(200.0)
                          : v < 0.25 ? ec_sym(1e6)
                          : v < 0.26 ? NAN
                                     : a;
    }
    for (size_t r = 0; r < 4; r++)
        check_resample_angles(&in, rates[r], r & 1, "adversarial");
    pb_bvh_free(&in);
}

/* ------------------------------------------------ bvh_euler_to_quat_n */

/* (float) pb_euler_to_quat_n, joint by joint, against the batch */
static size_t to_quat_mismatches(size_t n, const uint8_t *order, const uint8_t *nrot,
                                 const double *deg, const char *what)
{
    static float w[EC_MAXJ], x[EC_MAXJ], y[EC_MAXJ], z[EC_MAXJ];
    size_t bad = 0;
    for (size_t i0 = 0; i0 < n; i0 += EC_MAXJ) {
        size_t m = n - i0 < EC_MAXJ ? n - i0 : EC_MAXJ;
        bvh_euler_to_quat_n(m, order + i0, nrot + i0, deg + 3 * i0, w, x, y, z);
        for (size_t i = 0; i < m; i++) {
            double q[4];
            pb_euler_to_quat_n((pb_euler_order)order[i0 + i], nrot[i0 + i], deg + 3 * (i0 + i), q);
            float f[4] = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
            float g[4] = {w[i], x[i], y[i], z[i]};
            if (memcmp(f, g, sizeof f) != 0 && !(isnan(f[0]) && isnan(g[0])) && bad++ < 3)
                cr_log_error("%s: joint %zu (order %d, nrot %d, %.17g %.17g %.17g): %a %a %a %a, "
                             "reference %a %a %a %a",
                             what, i0 + i, order[i0 + i], nrot[i0 + i], deg[3 * (i0 + i)],
                             deg[3 * (i0 + i) + 1], deg[3 * (i0 + i) + 2], g[0], g[1], g[2], g[3],
                             f[0], f[1], f[2], f[3]);
        }
    }
    return bad;
}

Test(euler, to_quat_same_floats)
{
    static uint8_t order[EC_MAXJ], nrot[EC_MAXJ];
    static double deg[3 * EC_MAXJ];
    /* exact multiples of 15, 45, 90, 180 degrees (sines and cosines at 0,
     * +-1 and their neighbours, products that cancel), tiny, huge, signed
     * zeros, random */
    static const double special[] = {0.0,    -0.0,  90.0,     -90.0, 180.0,  -180.0,
                                     270.0,  360.0, 540.0,    720.0, -720.0, 45.0,
                                     135.0,  -45.0, 15.0,     30.0,  60.0,   1e-300,
                                     -1e-20, 1e-9,  999999.0, 1e6,   -1e6,   719.9999999999999};
    const size_t ns = sizeof special / sizeof special[0];
    size_t bad = 0;
    for (int rep = 0; rep < 400; rep++) {
        size_t n = 1 + (size_t)rep % EC_MAXJ;
        for (size_t e = 0; e < n; e++) {
            order[e] = (uint8_t)ec_pick(6);
            nrot[e] = (uint8_t)ec_pick(4);
            for (int k = 0; k < 3; k++) {
                double v = ec_u();
                deg[3 * e + (size_t)k] = v < 0.4   ? special[ec_pick(ns)]
                                         : v < 0.5 ? special[ec_pick(ns)] + ec_sym(1e-12)
                                         : v < 0.6 ? ec_sym(1e6)
                                                   : ec_sym(400.0);
            }
        }
        bad += to_quat_mismatches(n, order, nrot, deg, "random");
    }
    cr_expect_eq(bad, 0, "%zu joints not the reference's floats", bad);
}

/* Every clip the reader converts, frame by frame: the floats it stores */
static void check_clip_floats(const char *path)
{
    pb_bvh b;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(path, &b, &err), PB_BVH_OK, "%s: %s", path, err.message);
    const size_t J = b.num_joints;
    uint8_t *order = malloc(J), *nrot = malloc(J);
    float *q = malloc(4 * J * sizeof *q);
    cr_assert(order && nrot && q);
    for (size_t j = 0; j < J; j++) {
        order[j] = b.joints[j].rot_order;
        nrot[j] = b.joints[j].num_rot;
    }
    size_t bad = 0;
    for (size_t f = 0; f < b.num_frames; f++) {
        size_t o = f * J;
        bvh_euler_to_quat_n(J, order, nrot, b.euler_deg + 3 * o, q, q + J, q + 2 * J, q + 3 * J);
        if (memcmp(q, b.rot_w + o, J * sizeof *q) || memcmp(q + J, b.rot_x + o, J * sizeof *q) ||
            memcmp(q + 2 * J, b.rot_y + o, J * sizeof *q) ||
            memcmp(q + 3 * J, b.rot_z + o, J * sizeof *q))
            bad++;
    }
    cr_expect_eq(bad, 0, "%s: %zu of %zu frames not the reader's floats", path, bad, b.num_frames);
    free(order), free(nrot), free(q);
    pb_bvh_free(&b);
}

Test(euler, to_quat_reader_floats_every_clip, .timeout = 120)
{
    check_clip_floats(PB_REPO_DATA_DIR "/cmu_01_03.bvh");
    static const char *const clips[] = {
        "bandai_dataset-1_dance-short_normal_001.bvh", "bandai_dataset-1_slash_normal_002.bvh",
        "cmu3dsmax_131_01.bvh", "cmu_01_03.bvh", "pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh"};
    for (size_t i = 0; i < sizeof clips / sizeof clips[0]; i++) {
        const char *path = clip_path(clips[i]); /* NULL (a "SKIP:" line) where absent */
        if (path)
            check_clip_floats(path);
        else
            cr_log_info("%s: optional shared clip absent, skipped", clips[i]);
    }
}

/* pb_euler_from_quat_n with a NaN component: NaN angles (it recursed
 * without end before: fmax dropped the NaN and the rescaled copy came
 * back), any order, any channel count, with or without prev */
Test(euler, from_quat_nan_component)
{
    for (int o = 0; o < PB_EULER_ORDER_COUNT; o++)
        for (int n = 1; n <= 3; n++)
            for (int k = 0; k < 4; k++) {
                double q[4] = {0.5, 0.5, 0.5, 0.5}, prev[3] = {1, 2, 3}, d[3];
                q[k] = NAN;
                pb_euler_from_quat_n((pb_euler_order)o, n, q, k & 1 ? prev : NULL, d);
                cr_expect(isnan(d[0]), "order %d n %d: NaN in q[%d] gave %g", o, n, k, d[0]);
            }
}
