/* Which of the equivalent Euler triples the writer prints (posebatch/io.h:
 * pb_bvh_euler_mode), joint by joint: the reference of the batch version
 * (bvh_angles_simd.c). The source angles of resampled frames, which the
 * default mode follows, are bvh_resample.c's. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_internal.h"

#include <math.h>

/* The rotation to write is "the source's" when it is within this angle of
 * the source angles' rotation: about two float roundings of a unit
 * quaternion (the reader stores float quaternions, so a source frame read
 * and written again differs from its angles by up to about 1.2e-7 rad). */
#define SAME_ROTATION_RAD 2e-7

/* Angle between two rotations given as quaternions (any norm > 0). */
static double rot_angle(const double a[4], const double b[4])
{
    double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
    double nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
    double dp = 0.0, dm = 0.0;
    for (int k = 0; k < 4; k++) {
        double x = a[k] / na, y = b[k] / nb;
        dp += (x - y) * (x - y);
        dm += (x + y) * (x + y);
    }
    double d = sqrt(dp < dm ? dp : dm); /* chord on the unit sphere, sign-free */
    return 4.0 * asin(d < 2.0 ? d / 2.0 : 1.0);
}

int bvh_choose_angles(pb_bvh_euler_mode mode, int order, int nrot, const double q[4],
                      const double *source, const double *prev, double deg[3])
{
    if (mode == PB_BVH_EULER_SOURCE && source) {
        double s[3] = {source[0], source[1], source[2]}, qs[4];
        pb_euler_to_quat_n((pb_euler_order)order, nrot, s, qs);
        if (rot_angle(q, qs) <= SAME_ROTATION_RAD) {
            deg[0] = s[0];
            deg[1] = nrot > 1 ? s[1] : 0.0;
            deg[2] = nrot > 2 ? s[2] : 0.0;
            return 1;
        }
        pb_euler_from_quat_n((pb_euler_order)order, nrot, q, s, deg);
        return 0;
    }
    if (mode == PB_BVH_EULER_PRINCIPAL)
        prev = NULL;
    pb_euler_from_quat_n((pb_euler_order)order, nrot, q, prev, deg);
    return 0;
}
