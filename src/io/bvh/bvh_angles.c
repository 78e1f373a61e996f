/* Which of the equivalent Euler triples the writer prints (posebatch/io.h:
 * pb_bvh_euler_mode), and the source angles of resampled frames that the
 * default mode follows. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* b moved by a multiple of 360 to within 180 of a. */
static double near_angle(double a, double b)
{
    return b - 360.0 * nearbyint((b - a) / 360.0);
}

pb_bvh_code pb_bvh_resample_angles(const pb_bvh *src, int loop, pb_bvh *dst, pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!src || !dst || src->num_joints != dst->num_joints)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "clips NULL or of different skeletons");
    free(dst->euler_deg);
    free(dst->decimals);
    dst->euler_deg = NULL;
    dst->decimals = NULL;
    const size_t J = src->num_joints, F = src->num_frames, G = dst->num_frames;
    const size_t C = src->num_channels;
    if (!src->euler_deg || !src->decimals || F == 0 || G == 0 || J == 0)
        return PB_BVH_OK;
    if (!(src->frame_time > 0.0) || !(dst->frame_time > 0.0))
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "frame times must be positive");
    double *out = malloc(3 * G * J * sizeof *out);
    signed char *dec = malloc(G * (C ? C : 1));
    if (!out || !dec) {
        free(out);
        free(dec);
        return bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    }
    const double step = dst->frame_time / src->frame_time;
    for (size_t g = 0; g < G; g++) {
        double s = (double)g * step;
        if (fabs(s - nearbyint(s)) < 1e-9 * (s > 1.0 ? s : 1.0))
            s = nearbyint(s);
        double fl = floor(s);
        double u = s - fl;
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
        for (size_t c = 0; c < C; c++) {
            signed char d0 = src->decimals[f0 * C + c], d1 = src->decimals[f1 * C + c];
            dec[g * C + c] = u == 0.0 || d0 > d1 ? d0 : d1;
        }
        for (size_t j = 0; j < J; j++) {
            const double *a = src->euler_deg + 3 * (f0 * J + j);
            const double *b = src->euler_deg + 3 * (f1 * J + j);
            double *o = out + 3 * (g * J + j);
            /* Frames on different branches (an angle moving by more than 90
             * degrees: the source switched to the other triple) do not
             * interpolate: the nearer frame's angles are the reference. */
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
    dst->euler_deg = out;
    dst->decimals = dec;
    return PB_BVH_OK;
}
