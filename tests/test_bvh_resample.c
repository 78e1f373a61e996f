/* pb_bvh_resample (include/posebatch/io.h): an owning copy of the clip
 * resampled to a new rate. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include "bvh_util.h"

/* pb_bvh_resample: an owning copy (skeleton and motion), the frame count of
 * pb_clip_resample_frames, source frames reproduced at the source rate, and
 * *out untouched on every error. */
Test(bvh_resample, public_convenience)
{
    pb_bvh src = read_ok(k_valid), out, same;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_resample(&src, 120.0, 0, &out, &err), PB_BVH_OK, "%s", err.message);
    pb_clip sc = pb_bvh_clip(&src);
    cr_assert_eq(sc.frames, 2);
    cr_assert_eq(out.num_frames, pb_clip_resample_frames(&sc, 120.0, 0));
    cr_assert_eq(out.num_joints, 2);
    cr_assert_float_eq(out.frame_time, 1.0 / 120.0, 1e-15);
    cr_assert_neq(out.joints, src.joints);
    cr_assert_neq(out.joints[1].name, src.joints[1].name);
    cr_assert_str_eq(out.joints[1].name, "Chest");
    cr_assert_eq(out.num_end_sites, 1);
    cr_assert_eq(out.end_sites[0].parent, 1);
    cr_assert_not_null(out.euler_deg); /* source angles carried */
    /* at its own rate: every source frame (rotations up to sign) */
    cr_assert_eq(pb_bvh_resample(&src, 1.0 / src.frame_time, 0, &same, &err), PB_BVH_OK);
    cr_assert_eq(same.num_frames, 2);
    for (size_t i = 0; i < 4; i++) {
        cr_assert_float_eq(same.pos_x[i], src.pos_x[i], 1e-6);
        float d = same.rot_w[i] * src.rot_w[i] + same.rot_x[i] * src.rot_x[i] +
                  same.rot_y[i] * src.rot_y[i] + same.rot_z[i] * src.rot_z[i];
        cr_assert_float_eq(fabsf(d), 1.0f, 1e-6);
    }
    pb_bvh_free(&same);
    /* errors leave *out untouched */
    pb_bvh keep;
    memset(&keep, 0x5a, sizeof keep);
    pb_bvh probe = keep;
    const double bad_fps[] = {0.0, -1.0, NAN, INFINITY};
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(pb_bvh_resample(&src, bad_fps[i], 0, &probe, &err), PB_BVH_ERR_ARG);
        cr_assert_eq(err.line, 0);
        cr_assert(memcmp(&probe, &keep, sizeof keep) == 0);
    }
    cr_assert_eq(pb_bvh_resample(&src, 60.0, 0x100u, &probe, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_resample(NULL, 60.0, 0, &probe, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_resample(&src, 60.0, 0, NULL, NULL), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_resample(&src, 1e11, 0, &probe, &err), PB_BVH_ERR_LIMIT, "%s", err.message);
    pb_bvh empty;
    memset(&empty, 0, sizeof empty);
    cr_assert_eq(pb_bvh_resample(&empty, 60.0, 0, &probe, &err), PB_BVH_ERR_ARG);
    cr_assert(memcmp(&probe, &keep, sizeof keep) == 0);
    /* the loop flag: one period */
    pb_bvh lp;
    cr_assert_eq(pb_bvh_resample(&src, 60.0, PB_CLIP_LOOP, &lp, &err), PB_BVH_OK);
    cr_assert_eq(lp.num_frames, pb_clip_resample_frames(&sc, 60.0, PB_CLIP_LOOP));
    pb_bvh_free(&lp);
    pb_bvh_free(&out);
    pb_bvh_free(&src);
}

Test(bvh_resample, new_motion_owns_a_rest_pose_copy)
{
    pb_bvh a = read_ok(k_valid), m;
    pb_bvh_error err;
    memset(&m, 0x5a, sizeof m);
    pb_bvh keep = m;
    cr_assert_eq(pb_bvh_new_motion(NULL, 3, 0.1, &m, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_new_motion(&a, 3, 0.0, &m, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_new_motion(&a, 3, INFINITY, &m, &err), PB_BVH_ERR_ARG);
    cr_assert_eq(pb_bvh_new_motion(&a, (size_t)1 << 28, 0.1, &m, &err), PB_BVH_ERR_LIMIT);
    cr_assert_eq(memcmp(&m, &keep, sizeof m), 0, "*out untouched on error");
    cr_assert_eq(pb_bvh_new_motion(&a, 3, 0.1, &m, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(m.num_frames, 3);
    cr_assert_eq(m.frame_time, 0.1);
    cr_assert_null(m.euler_deg);
    cr_assert(m.joints != a.joints && m.name_pool_ != a.name_pool_, "its own skeleton");
    assert_same_skeleton(&a, &m);
    for (size_t i = 0; i < 3 * m.num_joints; i++) {
        const pb_bvh_joint *jt = &m.joints[i % m.num_joints];
        cr_assert(m.rot_w[i] == 1.0f && m.rot_x[i] == 0.0f && m.rot_y[i] == 0.0f &&
                  m.rot_z[i] == 0.0f);
        assert_vec(m.pos_x[i], m.pos_y[i], m.pos_z[i], jt->offset[0], jt->offset[1], jt->offset[2],
                   0);
    }
    pb_bvh_free(&a); /* the copy stands alone */
    char *out = write_read_compare(&m);
    free(out);
    pb_bvh_free(&m);
}
