/* bvh_choose_angles for many joints at once, over the dispatched Euler
 * kernel (simd/kernels_euler.h): the library's version. Builds of the
 * reader sources alone (the fuzz target) get bvh_angles_scalar.c's instead. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_internal.h"
#include "internal.h"

#include <string.h>

/* Elements per kernel call: the angles go through SoA buffers of this many
 * on the stack. */
#define CHUNK 64

/* fmt_angle's (bvh_write.c) scale: computed angles are printed as
 * round(|v| 1e6) millionths of a degree */
#define PRINT_SCALE 1e6

void bvh_choose_angles_n(pb_bvh_euler_mode mode, size_t n, const uint8_t *order,
                         const uint8_t *nrot, const float *qw, const float *qx, const float *qy,
                         const float *qz, const double *source, const double *prev, double *deg,
                         unsigned char *as_read)
{
    /* bvh_choose_angles' rules: the source angles in SOURCE mode where
     * present (prev unused), else prev unless PRINCIPAL */
    const double *S = mode == PB_BVH_EULER_SOURCE ? source : NULL;
    const double *P = S || mode == PB_BVH_EULER_PRINCIPAL ? NULL : prev;
    const double *A = S ? S : P;
    const pb_kernels *K = pb_kernels_for(n);
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        const size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        double in[3][CHUNK], out[3][CHUNK];
        uint8_t st[CHUNK];
        if (A) /* channel slots past nrot are not read: 0 */
            for (size_t i = 0; i < m; i++)
                for (int k = 0; k < 3; k++)
                    in[k][i] = nrot[i0 + i] > k ? A[3 * (i0 + i) + (size_t)k] : 0.0;
        const double *const inp[3] = {in[0], in[1], in[2]};
        double *const outp[3] = {out[0], out[1], out[2]};
        pb_cquats q = {qw + i0, qx + i0, qy + i0, qz + i0};
        K->euler_choose(m, order + i0, nrot + i0, q, S ? inp : NULL, P ? inp : NULL, PRINT_SCALE,
                        outp, st);
        for (size_t i = 0; i < m; i++) {
            const size_t e = i0 + i;
            double *d = deg + 3 * e;
            if (st[i] == 2) {
                /* the scalar reference, with the writer's arguments: an
                 * all-zero rotation is the identity */
                double qd[4] = {qw[e], qx[e], qy[e], qz[e]};
                if (qd[0] == 0.0 && qd[1] == 0.0 && qd[2] == 0.0 && qd[3] == 0.0)
                    qd[0] = 1.0;
                double pv[3] = {in[0][i], in[1][i], in[2][i]}, r[3];
                as_read[e] = (unsigned char)bvh_choose_angles(
                    mode, order[e], nrot[e], qd, S ? S + 3 * e : NULL, P ? pv : NULL, r);
                memcpy(d, r, sizeof r);
            } else {
                as_read[e] = st[i];
                for (int k = 0; k < 3; k++)
                    d[k] = out[k][i];
            }
        }
    }
}

void bvh_euler_to_quat_n(size_t n, const uint8_t *order, const uint8_t *nrot, const double *deg,
                         float *qw, float *qx, float *qy, float *qz)
{
    const pb_kernels *K = pb_kernels_for(n);
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        const size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        double in[3][CHUNK];
        uint8_t redo[CHUNK];
        for (size_t i = 0; i < m; i++)
            for (int k = 0; k < 3; k++)
                in[k][i] = nrot[i0 + i] > k ? deg[3 * (i0 + i) + (size_t)k] : 0.0;
        const double *const inp[3] = {in[0], in[1], in[2]};
        pb_quats q = {qw + i0, qx + i0, qy + i0, qz + i0};
        K->euler_to_quat(m, order + i0, nrot + i0, inp, q, redo);
        for (size_t i = 0; i < m; i++) {
            if (!redo[i])
                continue;
            const size_t e = i0 + i;
            double d[3] = {in[0][i], in[1][i], in[2][i]}, r[4];
            pb_euler_to_quat_n((pb_euler_order)order[e], nrot[e], d, r);
            qw[e] = (float)r[0];
            qx[e] = (float)r[1];
            qy[e] = (float)r[2];
            qz[e] = (float)r[3];
        }
    }
}
