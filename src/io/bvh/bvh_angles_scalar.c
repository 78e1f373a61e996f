/* bvh_choose_angles_n over bvh_choose_angles, joint by joint: for builds of
 * the reader sources alone (the fuzz target), which have no batch kernels.
 * The library has bvh_angles_simd.c's. */
#include "bvh_internal.h"

void bvh_choose_angles_n(pb_bvh_euler_mode mode, size_t n, const uint8_t *order,
                         const uint8_t *nrot, const float *qw, const float *qx, const float *qy,
                         const float *qz, const double *source, const double *prev, double *deg,
                         unsigned char *as_read)
{
    for (size_t e = 0; e < n; e++) {
        double *d = deg + 3 * e;
        if (nrot[e] == 0) {
            d[0] = d[1] = d[2] = 0.0;
            as_read[e] = 0;
            continue;
        }
        double q[4] = {qw[e], qx[e], qy[e], qz[e]};
        if (q[0] == 0.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0)
            q[0] = 1.0;
        double pv[3] = {0.0, 0.0, 0.0}; /* prev may be deg itself */
        if (prev)
            for (int k = 0; k < nrot[e] && k < 3; k++)
                pv[k] = prev[3 * e + (size_t)k];
        as_read[e] = (unsigned char)bvh_choose_angles(
            mode, order[e], nrot[e], q, source ? source + 3 * e : NULL, prev ? pv : NULL, d);
    }
}

void bvh_euler_to_quat_n(size_t n, const uint8_t *order, const uint8_t *nrot, const double *deg,
                         float *qw, float *qx, float *qy, float *qz)
{
    for (size_t e = 0; e < n; e++) {
        double q[4];
        pb_euler_to_quat_n((pb_euler_order)order[e], nrot[e], deg + 3 * e, q);
        qw[e] = (float)q[0];
        qx[e] = (float)q[1];
        qy[e] = (float)q[2];
        qz[e] = (float)q[3];
    }
}
