/* resample --loop: the library's cyclic resample with the roots' travel
 * carried across the seam (pb_bvh_resample with PB_CLIP_LOOP |
 * PB_BVH_LOOP_TRAVEL; the rule is in src/io/bvh/bvh_loop.c), after a check of
 * the seam.
 *
 * Seam check: a clip that is not cyclic jumps at the seam. With M the
 * largest rotation of any joint from one frame to the next (over the clip)
 * and S the largest rotation of any joint from the last frame to the first,
 * S > 3 M and S > 5 degrees gives a warning
 * "posebatch: FILE: warning: --loop: ...". Rotations only: positions of the
 * roots are made continuous by the travel rule, and other joints'
 * positions are offsets. */
#include <math.h>

#include "cli.h"

#define SEAM_FACTOR 3.0    /* the seam may turn up to this many times the largest step */
#define SEAM_FLOOR_DEG 5.0 /* and always this much */

/* Rotation angle, in degrees, between two quaternions (either sign):
 * 2 atan2(|vec(a^-1 b)|, |a . b|), accurate at small angles. */
static double angle_deg(const pb_bvh *b, size_t e0, size_t e1)
{
    double aw = b->rot_w[e0], ax = b->rot_x[e0], ay = b->rot_y[e0], az = b->rot_z[e0];
    double bw = b->rot_w[e1], bx = b->rot_x[e1], by = b->rot_y[e1], bz = b->rot_z[e1];
    double w = aw * bw + ax * bx + ay * by + az * bz;
    double x = aw * bx - bw * ax - (ay * bz - az * by);
    double y = aw * by - bw * ay - (az * bx - ax * bz);
    double z = aw * bz - bw * az - (ax * by - ay * bx);
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w)) * (180.0 / M_PI);
}

void cli_loop_seam_check(const pb_bvh *b, const char *path)
{
    size_t F = b->num_frames, J = b->num_joints;
    if (F < 3 || J == 0)
        return; /* one or two frames: the seam is the only step there is */
    double step = 0.0, seam = 0.0;
    size_t worst = 0;
    for (size_t f = 0; f + 1 < F; f++)
        for (size_t j = 0; j < J; j++) {
            double a = angle_deg(b, f * J + j, (f + 1) * J + j);
            step = a > step ? a : step;
        }
    for (size_t j = 0; j < J; j++) {
        double a = angle_deg(b, (F - 1) * J + j, j);
        if (a > seam) {
            seam = a;
            worst = j;
        }
    }
    if (seam > SEAM_FACTOR * step && seam > SEAM_FLOOR_DEG)
        cli_error("%s: warning: --loop: the clip is not cyclic: joint '%s' turns %.1f degrees "
                  "from the last frame to the first (more than %g times the largest "
                  "frame-to-frame turn, %.1f degrees)",
                  path, b->joints[worst].name, seam, SEAM_FACTOR, step);
}

int cli_resample_loop(const pb_bvh *src, double fps, pb_bvh *dst, const char *path)
{
    cli_loop_seam_check(src, path);
    return cli_resample(src, fps, PB_CLIP_LOOP | PB_BVH_LOOP_TRAVEL, dst, path);
}
