/* pb_bvh_resample with PB_CLIP_LOOP | PB_BVH_LOOP_TRAVEL (src/io/bvh/bvh_loop.c):
 * a walking clip keeps walking across the seam of its cyclic resample, where
 * the plain cyclic resample slides its root back to the start. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>

#include "clipdata.h"
#include "posebatch/io.h"

/* the root's largest step (ground plane, x and z) between neighbouring output
 * frames, and the mean step */
static void root_steps(const pb_bvh *b, double *largest, double *mean)
{
    size_t J = b->num_joints;
    double sum = 0.0;
    *largest = 0.0;
    for (size_t f = 1; f < b->num_frames; f++) {
        double dx = (double)b->pos_x[f * J] - b->pos_x[(f - 1) * J];
        double dz = (double)b->pos_z[f * J] - b->pos_z[(f - 1) * J];
        double d = sqrt(dx * dx + dz * dz);
        sum += d;
        *largest = d > *largest ? d : *largest;
    }
    *mean = sum / (double)(b->num_frames - 1);
}

Test(bvh_loop, travel_keeps_the_root_walking)
{
    const char *p = clip_path("pymo_AV_8Walk_Meredith_HVHA_Rep1.bvh");
    if (!p)
        cr_skip_test("shared clip missing");
    pb_bvh src, plain, travel;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(p, &src, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(pb_bvh_resample(&src, 240, PB_CLIP_LOOP, &plain, &err), PB_BVH_OK, "%s",
                 err.message);
    cr_assert_eq(pb_bvh_resample(&src, 240, PB_CLIP_LOOP | PB_BVH_LOOP_TRAVEL, &travel, &err),
                 PB_BVH_OK, "%s", err.message);
    double big_p, mean_p, big_t, mean_t;
    root_steps(&plain, &big_p, &mean_p);
    root_steps(&travel, &big_t, &mean_t);
    /* at 240 fps output frames fall inside the seam segment (last frame ->
     * first): the plain cyclic resample slides back there; with the
     * travel carried no step is much longer than a walking step */
    cr_expect_gt(big_p, 20.0 * mean_p, "plain: largest step %g, mean %g", big_p, mean_p);
    cr_expect_lt(big_t, 3.0 * mean_t, "travel: largest step %g, mean %g", big_t, mean_t);
    /* rotations are the plain cyclic resample's, bit for bit */
    size_t n = travel.num_frames * travel.num_joints;
    cr_assert_eq(travel.num_frames, plain.num_frames);
    for (size_t i = 0; i < n; i++)
        cr_assert(travel.rot_w[i] == plain.rot_w[i] && travel.rot_x[i] == plain.rot_x[i] &&
                      travel.rot_y[i] == plain.rot_y[i] && travel.rot_z[i] == plain.rot_z[i],
                  "element %zu", i);
    pb_bvh_free(&plain);
    pb_bvh_free(&travel);
    pb_bvh_free(&src);
}

Test(bvh_loop, travel_needs_loop)
{
    pb_bvh src, out;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &src, &err), PB_BVH_OK);
    cr_expect_eq(pb_bvh_resample(&src, 60, PB_BVH_LOOP_TRAVEL, &out, &err), PB_BVH_ERR_ARG);
    cr_expect_eq(pb_bvh_resample(&src, 60, 1u << 20, &out, &err), PB_BVH_ERR_ARG);
    pb_bvh_free(&src);
}
