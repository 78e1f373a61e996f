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

/* ------------------------------------------------------------------------
 * Linear blend skinning (pb_skin_vertices). Each vertex's matrix is
 * blended one vertex at a time over the matrix's floats (16 or 12: one
 * vector on 16 lanes, two on 8, four or three on 4, one float at a time on
 * the scalar layer):
 *   B_v = w_0 M_j0 + w_1 M_j1 + ... (in that order: mul, then fma),
 * then positions and normals (xyz triples in and out) are transformed:
 *   p' = ((B(r,3) + B(r,0) x) + B(r,1) y) + B(r,2) z   (fma order),
 *   n' = (B(r,0) x + B(r,1) y) + B(r,2) z.
 * Two ways, by lane count. On 4 and 8 lanes (the layers with quads), a
 * matrix per vertex: PB_LANES / 4 vertices a block, the blended matrices'
 * columns regrouped so that quad q holds vertex q's, times splats of x, y
 * and z (b_lbs below). On 1 and 16 lanes, lanes are vertices: a block of
 * PB_LANES vertices blends into a small buffer of PB_LANES rows of 16
 * floats, which the tile transposes (vf_load_tile) turn into the blended
 * matrices' elements with lanes = vertices (a transpose in registers
 * measured no faster), and the xyz triples come in and go out by aos_load3
 * / aos_store3 (strided lanes where the layer has no aos3).
 * One operation order for every backend (bit-identical in deterministic
 * builds). Blocks are whole: the last vertices (fewer than a block, or a
 * block with nothing after it where the quads read one vertex past it) go
 * through padded buffers (copies of the tail's first vertex). */

#if defined(__clang__)
#define PB_UNROLL_LANES _Pragma("unroll")
#elif defined(__GNUC__)
#define PB_UNROLL_LANES _Pragma("GCC unroll 16")
#else
#define PB_UNROLL_LANES
#endif

/* xyz triples of PB_LANES elements <-> three vectors */
PB_INLINE void lbs_load3(const float *p, vf c[3])
{
#if defined(PB_HAVE_AOS3)
    aos_load3(p, c);
#else
    for (int k = 0; k < 3; k++)
        c[k] = vf_load_stride(p + k, 3);
#endif
}
PB_INLINE void lbs_store3(float *p, const vf c[3])
{
#if defined(PB_HAVE_AOS3)
    aos_store3(p, c);
#else
    for (int k = 0; k < 3; k++)
        vf_store_stride(p + k, 3, c[k]);
#endif
}

/* the stride floats of matrix m from float f on: a vector (the floats past
 * the matrix, on a 12-float layout, load as copies and are never used) */
PB_INLINE vf lbs_ld(const float *m, size_t f, size_t stride)
{
    if (f + PB_LANES <= stride)
        return vf_load(m + f);
    return vf_load_part(m + f, stride - f);
}

/* a vertex's K matrices (K <= 8): four indices at a time by one 64-bit load
 * where the byte order allows (the loads, not the arithmetic, bound the
 * blend) */
PB_INLINE void lbs_mats(const uint16_t *j, int K, const float *mat, size_t stride,
                        const float *m[8])
{
    int k = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; k + 4 <= K; k += 4) {
        uint64_t u;
        memcpy(&u, j + k, 8);
        for (int i = 0; i < 4; i++)
            m[k + i] = mat + (size_t)((u >> (16 * i)) & 0xffffu) * stride;
    }
#endif
    for (; k < K; k++)
        m[k] = mat + (size_t)j[k] * stride;
}

/* vertex l's blended matrix into row l of tb (16 floats a row) */
PB_INLINE void lbs_blend(const uint16_t *jt, const float *wt, int K, const float *mat,
                         size_t stride, size_t l, float *tb)
{
    const float *w = wt + l * (size_t)K;
    const float *m[8] = {mat, mat, mat, mat, mat, mat, mat, mat};
    lbs_mats(jt + l * (size_t)K, K, mat, stride, m);
    for (size_t f = 0; f < stride; f += PB_LANES) {
        vf acc = vf_mul(vf_set(w[0]), lbs_ld(m[0], f, stride));
        for (int k = 1; k < K; k++)
            acc = vf_fma(vf_set(w[k]), lbs_ld(m[k], f, stride), acc);
        vf_store(tb + l * 16 + f, acc);
    }
}

#if defined(PB_HAVE_QUADS) && (PB_LANES == 4 || PB_LANES == 8)
/* 4 and 8 lanes: a matrix per vertex, PB_LANES / 4 vertices a block (one
 * a quad: 4 lanes, 128 bits). On these widths the lanes-are-vertices
 * block below spends more on its 4x4 / 8x8 transposes and strided xyz
 * than on the blend (docs/performance.md, "Skinning"). Here each vertex's
 * blend stays in registers (vectors of consecutive matrix floats: one
 * column per vector on 4 lanes, two on 8), the block's vectors are
 * regrouped by halves (vf_quads_transpose: on 8 lanes, two vertices'
 * columns c in one vector) and the transform takes splats of x, y, z
 * inside each quad. The same operations in the same order as below, so
 * the same bits. */
#define LBS_BLK (PB_LANES / 4)  /* vertices a block */
#define LBS_OVER PB_QUADS3_OVER /* vertices read past a block (vf_load_quads3) */

/* vertex's blended matrix: floats f .. f + PB_LANES - 1 in a[f / PB_LANES] */
PB_INLINE void lbs_blend_v(const uint16_t *j, const float *w, int K, const float *mat,
                           size_t stride, vf a[4])
{
    const float *m[8] = {mat, mat, mat, mat, mat, mat, mat, mat};
    lbs_mats(j, K, mat, stride, m);
    /* the weights as splats: on 4 lanes four at a time by one load and
     * in-register splats (cheaper than a load-and-splat each on SSE) */
    vf ws[8];
    int k = 0;
#if PB_LANES == 4
    for (; k + 4 <= K; k += 4) {
        const vf w4 = vf_load(w + k);
        ws[k] = vf_quad_bcast(w4, 0), ws[k + 1] = vf_quad_bcast(w4, 1);
        ws[k + 2] = vf_quad_bcast(w4, 2), ws[k + 3] = vf_quad_bcast(w4, 3);
    }
#endif
    if (k == 0) /* (K >= 1: said so for the compiler) */
        ws[k++] = vf_set(w[0]);
    for (; k < K; k++)
        ws[k] = vf_set(w[k]);
    PB_UNROLL_LANES
    for (size_t f = 0; f < stride; f += PB_LANES) {
        vf acc = vf_mul(ws[0], lbs_ld(m[0], f, stride));
        for (int i = 1; i < K; i++)
            acc = vf_fma(ws[i], lbs_ld(m[i], f, stride), acc);
        a[f / PB_LANES] = acc;
    }
}

PB_INLINE void b_lbs(const uint16_t *jt, const float *wt, int K, const float *mat, int rows3,
                     const float *ip, float *op, const float *in, float *on)
{
    const size_t stride = rows3 ? 12 : 16, k = (size_t)K;
    const size_t nv = (stride + PB_LANES - 1) / PB_LANES; /* vectors a vertex */
    vf v[LBS_BLK][4];
    PB_UNROLL_LANES
    for (size_t q = 0; q < LBS_BLK; q++)
        lbs_blend_v(jt + q * k, wt + q * k, K, mat, stride, v[q]);
    /* C[c]: quad q holds column c (4x4) or row c (3x4) of vertex q's matrix */
    vf C[4];
    C[3] = vf_zero(); /* (3x4 on 4 lanes: C[3] is set below; this, dead, quiets the compiler) */
    PB_UNROLL_LANES
    for (size_t g = 0; g < nv; g++) {
        vf t[LBS_BLK];
        for (size_t q = 0; q < LBS_BLK; q++)
            t[q] = v[q][g];
        vf_quads_transpose(t);
        for (size_t q = 0; q < LBS_BLK && g * LBS_BLK + q < 4; q++)
            C[g * LBS_BLK + q] = t[q];
    }
    if (rows3) { /* rows 0..2 (and a fourth never stored) -> columns */
        if (nv * LBS_BLK < 4)
            C[3] = C[0];
        vf_quad_t4(C);
    }
    /* lanes 0..2 of each quad: rows 0..2 (lane 3 is not stored) */
    vf P = vf_load_quads3(ip);
    vf x = vf_quad_bcast(P, 0), y = vf_quad_bcast(P, 1), z = vf_quad_bcast(P, 2);
    vf_store_quads3(op, vf_fma(C[2], z, vf_fma(C[1], y, vf_fma(C[0], x, C[3]))));
    if (in) {
        P = vf_load_quads3(in);
        x = vf_quad_bcast(P, 0), y = vf_quad_bcast(P, 1), z = vf_quad_bcast(P, 2);
        vf_store_quads3(on, vf_fma(C[2], z, vf_fma(C[1], y, vf_mul(C[0], x))));
    }
}
#else
#define LBS_BLK PB_LANES
#define LBS_OVER 0

/* one whole block of PB_LANES vertices: K influences each (jt, wt: K per
 * vertex), matrices mat of `stride` floats (16: column-major 4x4, 12:
 * row-major 3x4); positions ip -> op, normals in -> on (NULL: none) */
PB_INLINE void b_lbs(const uint16_t *jt, const float *wt, int K, const float *mat, int rows3,
                     const float *ip, float *op, const float *in, float *on)
{
    const size_t stride = rows3 ? 12 : 16;
    _Alignas(64) float tb[PB_LANES * 16];
    /* up to 4 influences unrolled: the compiler then keeps the rows in
     * registers (the buffer disappears) and overlaps the vertices' loads;
     * 8 unrolled spill (measured slower) */
    if (K <= 4) {
        PB_UNROLL_LANES
        for (size_t l = 0; l < PB_LANES; l++)
            lbs_blend(jt, wt, K, mat, stride, l, tb);
    } else {
        for (size_t l = 0; l < PB_LANES; l++)
            lbs_blend(jt, wt, K, mat, stride, l, tb);
    }
    vf c[16];
    for (size_t f = 0; f < stride; f += PB_LANES)
        vf_load_tile(tb + f, 16, c + f);
    vf B[3][4]; /* B[r][c]: row r, column c */
    for (int r = 0; r < 3; r++)
        for (int cc = 0; cc < 4; cc++)
            B[r][cc] = c[rows3 ? r * 4 + cc : cc * 4 + r];
    vf p[3], o[3];
    lbs_load3(ip, p);
    for (int r = 0; r < 3; r++)
        o[r] = vf_fma(B[r][2], p[2], vf_fma(B[r][1], p[1], vf_fma(B[r][0], p[0], B[r][3])));
    lbs_store3(op, o);
    if (in) {
        lbs_load3(in, p);
        for (int r = 0; r < 3; r++)
            o[r] = vf_fma(B[r][2], p[2], vf_fma(B[r][1], p[1], vf_mul(B[r][0], p[0])));
        lbs_store3(on, o);
    }
}

#endif

/* vertices i .. n-1 (fewer than LBS_BLK + LBS_OVER, at least 1) through
 * padded buffers, a block at a time */
PB_INLINE void lbs_tail(size_t i, size_t n, const uint16_t *jt, const float *wt, int K,
                        const float *mat, int rows3, const float *ip, float *op, const float *in,
                        float *on)
{
    for (; i < n; i += LBS_BLK) {
        uint16_t tj[LBS_BLK * 8];
        float tw[LBS_BLK * 8], tp[(LBS_BLK + LBS_OVER) * 3], tn[(LBS_BLK + LBS_OVER) * 3],
            rp[LBS_BLK * 3], rn[LBS_BLK * 3];
        const size_t cnt = n - i < LBS_BLK ? n - i : LBS_BLK, k = (size_t)K;
        for (size_t l = 0; l < LBS_BLK; l++) {
            const size_t v = i + (l < cnt ? l : 0);
            memcpy(tj + l * k, jt + v * k, k * sizeof *tj);
            memcpy(tw + l * k, wt + v * k, k * sizeof *tw);
            memcpy(tp + l * 3, ip + v * 3, 3 * sizeof *tp);
            if (in)
                memcpy(tn + l * 3, in + v * 3, 3 * sizeof *tn);
        }
        for (size_t f = LBS_BLK * 3; f < (LBS_BLK + LBS_OVER) * 3; f++) {
            tp[f] = tp[0];
            if (in)
                tn[f] = tn[0];
        }
        b_lbs(tj, tw, K, mat, rows3, tp, rp, in ? tn : NULL, rn);
        memcpy(op + i * 3, rp, cnt * 3 * sizeof *rp);
        if (in)
            memcpy(on + i * 3, rn, cnt * 3 * sizeof *rn);
    }
}

/* K a constant in each instance (the blend loop unrolled); whole blocks
 * while LBS_OVER more vertices follow them (read, not written, by the
 * quads' xyz loads), the rest through lbs_tail */
PB_INLINE void lbs_run(size_t n, const uint16_t *jt, const float *wt, int K, const float *mat,
                       int rows3, const float *ip, float *op, const float *in, float *on)
{
    const size_t k = (size_t)K;
    size_t i = 0;
    if (in) {
        for (; i + LBS_BLK + LBS_OVER <= n; i += LBS_BLK)
            b_lbs(jt + i * k, wt + i * k, K, mat, rows3, ip + 3 * i, op + 3 * i, in + 3 * i,
                  on + 3 * i);
    } else {
        for (; i + LBS_BLK + LBS_OVER <= n; i += LBS_BLK)
            b_lbs(jt + i * k, wt + i * k, K, mat, rows3, ip + 3 * i, op + 3 * i, NULL, NULL);
    }
    if (i < n)
        lbs_tail(i, n, jt, wt, K, mat, rows3, ip, op, in, on);
}

static void k_skin_vertices(size_t n, int K, const uint16_t *jt, const float *wt, const float *mat,
                            int rows3, const float *ip, float *op, const float *in, float *on)
{
    switch (K) {
    case 1: lbs_run(n, jt, wt, 1, mat, rows3, ip, op, in, on); break;
    case 2: lbs_run(n, jt, wt, 2, mat, rows3, ip, op, in, on); break;
    case 4:
        if (rows3)
            lbs_run(n, jt, wt, 4, mat, 1, ip, op, in, on);
        else
            lbs_run(n, jt, wt, 4, mat, 0, ip, op, in, on);
        break;
    case 8: lbs_run(n, jt, wt, 8, mat, rows3, ip, op, in, on); break;
    default: lbs_run(n, jt, wt, K, mat, rows3, ip, op, in, on); break;
    }
}

/* the largest of n joint indices (pb_skin_vertices' check): plain C the
 * compiler vectorises for each backend's instruction set (64 running
 * maxima, so that the vector maxima do not wait on one another: with a
 * single running maximum the check took 12 % of the skinning's time) */
static uint16_t k_skin_max_joint(const uint16_t *j, size_t n)
{
    uint16_t h[64] = {0}, m = 0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (size_t l = 0; l < 64; l++)
            h[l] = j[i + l] > h[l] ? j[i + l] : h[l];
    for (; i < n; i++)
        m = j[i] > m ? j[i] : m;
    for (size_t l = 0; l < 64; l++)
        m = h[l] > m ? h[l] : m;
    return m;
}

#define PB_SKIN_KERNELS                                                                            \
    .skinning_matrices = k_skinning_matrices, .skin_vertices = k_skin_vertices,                    \
    .skin_max_joint = k_skin_max_joint,

#endif
