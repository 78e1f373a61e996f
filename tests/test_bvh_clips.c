/* Real clips read -> written -> read again (each Euler mode): the same
 * skeleton, the rotations and positions within their rounding, the
 * source's own values and jumps by default and no jump when continuous.
 *
 * The clips are read from PB_SHARED_DATA_DIR/mocap (located by clipdata.h:
 * set by meson to <source root>/../shared/data; the environment variable of
 * the same name overrides it). When the directory is absent those tests are
 * skipped, with a message. The clips are only read, never copied. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include "clipdata.h"
#include "bvh_util.h"

/* ------------------------------------------------------------------------ */
/* Real clips: read -> write -> read                                        */
/* ------------------------------------------------------------------------ */

typedef struct rt_result {
    double max_rot_rad; /* max angle between read and re-read quaternions */
    double max_pos_abs; /* max |position difference| */
    double max_pos_rel; /* relative to max(1, |p|) */
    size_t jumps_in, jumps_out;
    double max_value_diff; /* max |written - source| over every data value */
} rt_result;

/* read -> write (in the given Euler mode) -> read of one file; checks and
 * returns the errors. */
static rt_result round_trip(const char *path, const pb_bvh *a, pb_bvh_euler_mode mode)
{
    rt_result r = {0, 0, 0, 0, 0, 0};
    char *dir = make_tmpdir();
    char out[4200];
    snprintf(out, sizeof out, "%s/out.bvh", dir);
    pb_bvh_error err;
    pb_bvh_write_opts wo = {mode, NULL, NULL, 0, 0};
    cr_assert_eq(pb_bvh_write_file_with(out, a, &wo, &err), PB_BVH_OK, "write: %s", err.message);
    cr_assert_eq(dir_entries(dir), 1, "only the output remains");
    pb_bvh b;
    cr_assert_eq(pb_bvh_read_file(out, &b, &err), PB_BVH_OK, "re-read: %s", err.message);
    assert_same_skeleton(a, &b);
    cr_assert_eq(b.num_frames, a->num_frames);
    cr_assert_eq(b.frame_time, a->frame_time, "%.17g vs %.17g", b.frame_time, a->frame_time);
    size_t n = a->num_frames * a->num_joints;
    for (size_t i = 0; i < n; i++) {
        double qa[4], qb[4];
        bvh_quat(a, i, qa);
        bvh_quat(&b, i, qb);
        r.max_rot_rad = fmax(r.max_rot_rad, quat_angle(qa, qb));
        float pa[3] = {a->pos_x[i], a->pos_y[i], a->pos_z[i]};
        float pb[3] = {b.pos_x[i], b.pos_y[i], b.pos_z[i]};
        for (int k = 0; k < 3; k++) {
            double d = fabs((double)pa[k] - (double)pb[k]);
            r.max_pos_abs = fmax(r.max_pos_abs, d);
            r.max_pos_rel = fmax(r.max_pos_rel, d / fmax(1.0, fabs((double)pa[k])));
        }
    }
    /* Continuity of the written Euler channels vs the input's. */
    char *tin = slurp(path, NULL), *tout = slurp(out, NULL);
    double *vin = data_values(tin, a->num_frames, a->num_channels);
    double *vout = data_values(tout, a->num_frames, a->num_channels);
    r.jumps_in = count_jumps(a, vin);
    r.jumps_out = count_jumps(a, vout);
    for (size_t i = 0; i < a->num_frames * a->num_channels; i++)
        r.max_value_diff = fmax(r.max_value_diff, fabs(vin[i] - vout[i]));
    free(vin);
    free(vout);
    free(tin);
    free(tout);
    pb_bvh_free(&b);
    rm_tree(dir);
    free(dir);
    return r;
}

/* Rotation error bound of read -> write -> read: each float quaternion is
 * rounded to 2^-25 per component (<= 1.1e-7 rad, twice), the printed angles
 * to 5e-7 degrees each (3 x 8.7e-9 rad), and near gimbal lock the writer may
 * trade up to 1e-7 rad for continuity: 3.5e-7 in all; measured 7e-8..8.4e-8
 * on the real clips. (The brief allows 1e-5.) */
#define RT_ROT_TOL 5e-7

static void check_clip(const char *name, size_t frames, size_t joints, size_t ends, size_t chans,
                       double frame_time, size_t jumps_in, pb_bvh *keep)
{
    char *path = clip_path(name);
    if (!path) {
        cr_skip_test("shared data not found at %s: %s skipped", data_dir(), name);
        return;
    }
    pb_bvh a;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(path, &a, &err), PB_BVH_OK, "%s: %s", name, err.message);
    cr_assert_eq(a.num_frames, frames);
    cr_assert_eq(a.num_joints, joints);
    cr_assert_eq(a.num_end_sites, ends);
    cr_assert_eq(a.num_channels, chans);
    cr_assert_eq(a.frame_time, frame_time);
    /* Default: the source's own angles (every value as in the source, to float
     * precision: 4 decimals in these files, float spacing below 1.6e-5 at
     * 180 degrees), so the jumps of the source are kept. */
    rt_result r = round_trip(path, &a, PB_BVH_EULER_SOURCE);
    rt_result c = round_trip(path, &a, PB_BVH_EULER_CONTINUOUS);
    fprintf(stderr,
            "round trip %-46s %5zu frames: rot max %.3g rad, pos max %.3g abs / %.3g rel, "
            "values max %.3g off; Euler jumps >180: %zu in input, %zu written, %zu continuous\n",
            name, frames, r.max_rot_rad, r.max_pos_abs, r.max_pos_rel, r.max_value_diff, r.jumps_in,
            r.jumps_out, c.jumps_out);
    cr_assert_lt(r.max_rot_rad, RT_ROT_TOL, "%s: rotation error %g", name, r.max_rot_rad);
    cr_assert_lt(c.max_rot_rad, RT_ROT_TOL, "%s: rotation error %g", name, c.max_rot_rad);
    cr_assert_leq(r.max_pos_rel, 1.2e-7, "%s: position error %g", name, r.max_pos_rel);
    cr_assert_eq(r.jumps_in, jumps_in, "%s: %zu jumps in input", name, r.jumps_in);
    cr_assert_eq(r.jumps_out, jumps_in, "%s: %zu jumps written", name, r.jumps_out);
    cr_assert_leq(r.max_value_diff, 1.6e-5, "%s: a value off by %g", name, r.max_value_diff);
    cr_assert_eq(c.jumps_out, 0, "%s: %zu jumps written (continuous)", name, c.jumps_out);
    if (keep)
        *keep = a;
    else
        pb_bvh_free(&a);
}

Test(bvh_clips, cmu_01_03, .timeout = 120)
{
    pb_bvh a;
    check_clip("cmu_01_03.bvh", 4511, 31, 7, 96, 0.0083333, 27, &a);
    const pb_bvh_joint *h = &a.joints[0];
    cr_assert_str_eq(h->name, "Hips");
    cr_assert_eq(h->num_channels, 6);
    cr_assert_eq(h->rot_order, PB_EULER_ZYX);
    for (size_t j = 1; j < a.num_joints; j++) {
        cr_assert_eq(a.joints[j].num_channels, 3);
        cr_assert_eq(a.joints[j].rot_order, PB_EULER_ZYX);
    }
    long lhip = pb_bvh_find_joint(&a, "LHipJoint");
    cr_assert_geq(lhip, 0);
    assert_vec(a.joints[lhip].offset[0], a.joints[lhip].offset[1], a.joints[lhip].offset[2], 0, 0,
               0, 0);
    pb_bvh_free(&a);
}

Test(bvh_clips, cmu3dsmax_131_01, .timeout = 120)
{
    pb_bvh a;
    check_clip("cmu3dsmax_131_01.bvh", 994, 31, 7, 96, 0.0083333, 7, &a);
    const char *zxy[] = {"LeftShoulder", "LeftElbow", "LeftWrist",     "lhand",
                         "LFingers",     "LThumb",    "RightShoulder", "RightElbow",
                         "RightWrist",   "rhand",     "RFingers",      "RThumb"};
    size_t nzxy = 0;
    for (size_t k = 0; k < 12; k++) {
        long j = pb_bvh_find_joint(&a, zxy[k]);
        cr_assert_geq(j, 0, "%s", zxy[k]);
        cr_assert_eq(a.joints[j].rot_order, PB_EULER_ZXY, "%s", zxy[k]);
    }
    for (size_t j = 0; j < a.num_joints; j++)
        nzxy += a.joints[j].rot_order == PB_EULER_ZXY;
    cr_assert_eq(nzxy, 12);
    pb_bvh_free(&a);
}

static void check_bandai(const char *name, size_t frames, size_t jumps, double hx, double hy,
                         double hz)
{
    pb_bvh a;
    memset(&a, 0, sizeof a);
    check_clip(name, frames, 22, 5, 132, 0.0333333, jumps, &a);
    if (!a.num_joints)
        return;
    cr_assert_str_eq(a.joints[0].name, "joint_Root");
    for (size_t j = 0; j < a.num_joints; j++) {
        cr_assert_eq(a.joints[j].num_channels, 6);
        cr_assert_eq(a.joints[j].rot_order, PB_EULER_ZXY);
    }
    /* Static root: identity rotation, zero position in every frame. */
    for (size_t f = 0; f < a.num_frames; f++) {
        size_t i = f * a.num_joints;
        cr_assert(a.rot_w[i] == 1.0f && a.rot_x[i] == 0.0f && a.rot_y[i] == 0.0f &&
                  a.rot_z[i] == 0.0f);
        cr_assert(a.pos_x[i] == 0.0f && a.pos_y[i] == 0.0f && a.pos_z[i] == 0.0f);
    }
    /* Hips position channels replace the OFFSET. */
    assert_vec(a.pos_x[1], a.pos_y[1], a.pos_z[1], hx, hy, hz, 1e-4);
    pb_bvh_free(&a);
}

Test(bvh_clips, bandai_dance_short, .timeout = 120)
{
    check_bandai("bandai_dataset-1_dance-short_normal_001.bvh", 1901, 366, 1.70155, 92.9004,
                 -191.061);
}

Test(bvh_clips, bandai_slash, .timeout = 120)
{
    check_bandai("bandai_dataset-1_slash_normal_002.bvh", 478, 40, -2.04275, 85.0456, -24.1921);
}

Test(bvh_clips, pymo_walk, .timeout = 120)
{
    pb_bvh a;
    memset(&a, 0, sizeof a);
    check_clip("pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh", 1064, 23, 7, 72, 0.008333, 4, &a);
    if (!a.num_joints)
        return;
    cr_assert_eq(a.joints[0].rot_order, PB_EULER_XYZ);
    assert_vec(a.joints[0].offset[0], a.joints[0].offset[1], a.joints[0].offset[2], 11.2666,
               35.4190, -54.3259, 1e-4);
    assert_vec(a.pos_x[0], a.pos_y[0], a.pos_z[0], -6.5115, 35.5548, -163.0160, 1e-4);
    const char *ends[2] = {"LeftHand_End", "RightHand_End"};
    for (int k = 0; k < 2; k++) {
        long j = pb_bvh_find_joint(&a, ends[k]);
        cr_assert_geq(j, 0, "%s is a real joint", ends[k]);
        cr_assert_eq(a.joints[j].num_channels, 3);
        int has_end = 0;
        for (size_t e = 0; e < a.num_end_sites; e++)
            has_end |= a.end_sites[e].parent == j;
        cr_assert(has_end, "%s has an End Site", ends[k]);
    }
    pb_bvh_free(&a);
}

/* Every *.bvh in the shared mocap directory (including ones added later). */
static void round_trip_file(const char *path, const char *name, void *ctx)
{
    (void)ctx;
    pb_bvh a;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(path, &a, &err), PB_BVH_OK, "%s: %s", name, err.message);
    rt_result r = round_trip(path, &a, PB_BVH_EULER_SOURCE);
    rt_result c = round_trip(path, &a, PB_BVH_EULER_CONTINUOUS);
    cr_assert_lt(r.max_rot_rad, RT_ROT_TOL, "%s", name);
    cr_assert_leq(r.max_pos_rel, 1.2e-7, "%s", name);
    cr_assert_eq(r.jumps_out, r.jumps_in, "%s", name);
    cr_assert_leq(r.max_value_diff, 1.6e-5, "%s: a value off by %g", name, r.max_value_diff);
    cr_assert_eq(c.jumps_out, 0, "%s", name);
    pb_bvh_free(&a);
}

Test(bvh_clips, every_file_in_mocap_dir, .timeout = 300)
{
    int count = for_each_mocap_bvh(round_trip_file, NULL);
    if (count < 0) {
        cr_skip_test("shared data not found at %s/mocap", data_dir());
        return;
    }
    cr_assert_gt(count, 0);
}
