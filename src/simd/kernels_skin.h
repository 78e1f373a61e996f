/* Skinning matrices (pb_pose_skinning_matrices): each joint's model
 * transform as a matrix, times its inverse bind matrix, written once over
 * the lane layer. Included by kernels.h after the lane layer; arguments
 * arrive checked (skinning.c).
 *
 * Lanes are joints: a block is PB_LANES consecutive joints of one pose
 * (PB_BLOCKS over the joints, pose after pose, so a block's inverse bind
 * matrices are consecutive). The inverse bind matrices (16 floats each,
 * column-major) come in by register tile transposes (vf_load_tile: one
 * 16x16 tile on 16 lanes, two 8x8 on 8, four 4x4 on 4), the results go out
 * the same way (through a small buffer where a row is not a whole number of
 * lanes: 12 floats on 8 or 16 lanes, and in tails).
 *
 * Per joint, with R S the model rotation's matrix times diag(S) and T the
 * translation (the 4x4 M = [R S, T; 0 0 0 1]) and B the inverse bind
 * matrix: out(r, c) = M(r,0) B(0,c) + M(r,1) B(1,c) + M(r,2) B(2,c) +
 * T(r) B(3,c) for rows r < 3, out(3, c) = B(3, c). One operation order for
 * every backend (bit-identical in deterministic builds). */
#ifndef PB_KERNELS_SKIN_H
#define PB_KERNELS_SKIN_H

#include <string.h>

#include "internal.h"
#include "lanes_math.h"

/* cnt matrices of 16 floats (cnt <= PB_LANES; rows past cnt copy row 0),
 * transposed: lane r of c[k] is m[r * 16 + k] */
PB_INLINE void sm_load16(const float *m, size_t cnt, vf c[16])
{
    if (PB_LANES == 1 || cnt == PB_LANES) {
        for (size_t k = 0; k < 16; k += PB_LANES)
            vf_load_tile(m + k, 16, c + k);
        return;
    }
    float b[PB_LANES * 16];
    for (size_t r = 0; r < PB_LANES; r++)
        memcpy(b + r * 16, m + (r < cnt ? r : 0) * 16, 16 * sizeof(float));
    for (size_t k = 0; k < 16; k += PB_LANES)
        vf_load_tile(b + k, 16, c + k);
}
/* and out: rows lo .. cnt-1 of `stride` floats (12 or 16) from c[0 ..
 * stride-1] */
PB_INLINE void sm_store(float *o, size_t stride, pb_blk bk, const vf *c)
{
    if (PB_LANES == 1 || (bk.cnt == PB_LANES && bk.lo == 0 && stride % PB_LANES == 0)) {
        for (size_t k = 0; k < stride; k += PB_LANES)
            vf_store_tile(o + k, stride, c + k);
        return;
    }
    float b[PB_LANES * 16];
    for (size_t k = 0; k < 16; k += PB_LANES)
        vf_store_tile(b + k, 16, c + k);
    for (size_t r = bk.lo; r < bk.cnt; r++)
        memcpy(o + r * stride, b + r * 16, stride * sizeof(float));
}

/* one block of joints of one pose: model tracks at element e, the inverse
 * bind matrices of its joints at ib (NULL: identity), the matrices out at o */
PB_INLINE void b_skinning_matrices(const pb_cpose *m, size_t e, const float *ib, int rows3,
                                   float *o, pb_blk bk, int pos, int scl)
{
    pb_blk at = bk;
    at.i = e + bk.i;
    const vq q = q_ld(m->rot, at);
    const v3 t = pos ? v3_ld(m->pos, at) : v3_splat(0.0f);
    const v3 s = scl ? v3_ld(m->scale, at) : v3_splat(1.0f);
    /* the rotation's matrix (unit q), columns scaled by S */
    const vf x2 = vf_add(q.x, q.x), y2 = vf_add(q.y, q.y), z2 = vf_add(q.z, q.z);
    const vf xx = vf_mul(q.x, x2), yy = vf_mul(q.y, y2), zz = vf_mul(q.z, z2);
    const vf xy = vf_mul(q.x, y2), xz = vf_mul(q.x, z2), yz = vf_mul(q.y, z2);
    const vf wx = vf_mul(q.w, x2), wy = vf_mul(q.w, y2), wz = vf_mul(q.w, z2);
    const vf one = vf_set(1.0f);
    vf M[3][4];
    M[0][0] = vf_mul(vf_sub(one, vf_add(yy, zz)), s.x);
    M[1][0] = vf_mul(vf_add(xy, wz), s.x);
    M[2][0] = vf_mul(vf_sub(xz, wy), s.x);
    M[0][1] = vf_mul(vf_sub(xy, wz), s.y);
    M[1][1] = vf_mul(vf_sub(one, vf_add(xx, zz)), s.y);
    M[2][1] = vf_mul(vf_add(yz, wx), s.y);
    M[0][2] = vf_mul(vf_add(xz, wy), s.z);
    M[1][2] = vf_mul(vf_sub(yz, wx), s.z);
    M[2][2] = vf_mul(vf_sub(one, vf_add(xx, yy)), s.z);
    M[0][3] = t.x, M[1][3] = t.y, M[2][3] = t.z;
    vf B[16], out[16];
    if (ib) {
        sm_load16(ib + bk.i * 16, bk.cnt, B);
    } else {
        for (int k = 0; k < 16; k++)
            B[k] = vf_set(k % 5 == 0 ? 1.0f : 0.0f);
    }
    /* out(r, c) at c*4 + r (4x4, column-major) or r*4 + c (3x4, row-major;
     * 12..15 unused, zero for the tile stores through a buffer) */
    if (rows3)
        out[12] = out[13] = out[14] = out[15] = vf_zero();
    for (int c = 0; c < 4; c++) {
        const vf *b = B + c * 4; /* column c of B */
        for (int r = 0; r < 3; r++) {
            vf v = vf_fma(M[r][2], b[2],
                          vf_fma(M[r][1], b[1], vf_fma(M[r][0], b[0], vf_mul(M[r][3], b[3]))));
            out[rows3 ? r * 4 + c : c * 4 + r] = v;
        }
        if (!rows3)
            out[c * 4 + 3] = b[3];
    }
    sm_store(o + bk.i * (rows3 ? 12 : 16), rows3 ? 12 : 16, bk, out);
}

/* P poses of J joints: pose p's matrices from element p*J on */
static void k_skinning_matrices(size_t poses, size_t joints, const pb_cpose *model, const float *ib,
                                int rows3, float *out)
{
    const int pos = model->pos.x != NULL, scl = model->scale.x != NULL;
    const size_t stride = rows3 ? 12 : 16;
    for (size_t p = 0; p < poses; p++) {
        const size_t e = p * joints;
        float *o = out + e * stride;
        if (pos && scl)
            PB_BLOCKS(joints, bk, b_skinning_matrices(model, e, ib, rows3, o, bk, 1, 1));
        else if (pos)
            PB_BLOCKS(joints, bk, b_skinning_matrices(model, e, ib, rows3, o, bk, 1, 0));
        else if (scl)
            PB_BLOCKS(joints, bk, b_skinning_matrices(model, e, ib, rows3, o, bk, 0, 1));
        else
            PB_BLOCKS(joints, bk, b_skinning_matrices(model, e, ib, rows3, o, bk, 0, 0));
    }
}

#define PB_SKIN_KERNELS .skinning_matrices = k_skinning_matrices,

#endif
