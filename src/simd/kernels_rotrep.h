/* Rotation representations (posebatch/rotrep.h), written once over the lane
 * layer: quaternion -> matrix columns (all three, or the first two: the 6D),
 * matrix -> quaternion (Shepperd), 6D -> matrix / quaternion (Gram-Schmidt),
 * quaternion -> rotation vector. Matrices arrive as column arrays, col[3*c
 * + r] the entry of row r, column c (rotrep.c permutes the public row-major
 * pointers), so the 6D is col[0..5]. Include after a lanes_<isa>.h. */
#ifndef PB_KERNELS_ROTREP_H
#define PB_KERNELS_ROTREP_H

#include "internal.h"
#include "lanes_math.h"
#include "kernels_common.h"

/* a matrix as its three columns */
typedef struct {
    v3 c0, c1, c2;
} pb_m3;

PB_INLINE v3 v3_set3(float x, float y, float z)
{
    v3 r = {vf_set(x), vf_set(y), vf_set(z)};
    return r;
}
PB_INLINE v3 v3_ld_p(const float *const p[3], pb_blk b)
{
    v3 r = {ld(p[0], b), ld(p[1], b), ld(p[2], b)};
    return r;
}
PB_INLINE void v3_st_p(float *const p[3], v3 a, pb_blk b)
{
    st(p[0], a.x, b);
    st(p[1], a.y, b);
    st(p[2], a.z, b);
}

/* The matrix of q / |q|: with s = 2 / |q|^2 (0 for a zero q: the
 * identity), entries 1 - s (y^2 + z^2), s (xy - wz), ... */
PB_INLINE pb_m3 q_to_m3(vq q)
{
    vf n2 = q_dot(q, q);
    vf s = vf_sel(vm_eq(n2, vf_zero()), vf_zero(), vf_div(vf_set(2.0f), n2));
    vf xs = vf_mul(q.x, s), ys = vf_mul(q.y, s), zs = vf_mul(q.z, s);
    vf wx = vf_mul(q.w, xs), wy = vf_mul(q.w, ys), wz = vf_mul(q.w, zs);
    vf xx = vf_mul(q.x, xs), xy = vf_mul(q.x, ys), xz = vf_mul(q.x, zs);
    vf yy = vf_mul(q.y, ys), yz = vf_mul(q.y, zs), zz = vf_mul(q.z, zs);
    vf one = vf_set(1.0f);
    pb_m3 m;
    m.c0.x = vf_sub(one, vf_add(yy, zz));
    m.c0.y = vf_add(xy, wz);
    m.c0.z = vf_sub(xz, wy);
    m.c1.x = vf_sub(xy, wz);
    m.c1.y = vf_sub(one, vf_add(xx, zz));
    m.c1.z = vf_add(yz, wx);
    m.c2.x = vf_add(xz, wy);
    m.c2.y = vf_sub(yz, wx);
    m.c2.z = vf_sub(one, vf_add(xx, yy));
    return m;
}

/* Shepperd: 4w^2 = 1 + tr, 4x^2 = 1 + m00 - m11 - m22, ...; the largest
 * of the four picks the row of products (4 w q, 4 x q, 4 y q or 4 z q)
 * formed from sums and differences of the off-diagonal entries, which is q
 * times a positive factor (at least 1): normalised, then w >= 0. */
PB_INLINE vq m3_to_q(pb_m3 m)
{
    const vf one = vf_set(1.0f);
    vf m00 = m.c0.x, m10 = m.c0.y, m20 = m.c0.z;
    vf m01 = m.c1.x, m11 = m.c1.y, m21 = m.c1.z;
    vf m02 = m.c2.x, m12 = m.c2.y, m22 = m.c2.z;
    vf tw = vf_add(vf_add(one, m00), vf_add(m11, m22));
    vf tx = vf_sub(vf_add(one, m00), vf_add(m11, m22));
    vf ty = vf_sub(vf_add(one, m11), vf_add(m00, m22));
    vf tz = vf_sub(vf_add(one, m22), vf_add(m00, m11));
    vf a = vf_sub(m21, m12), b = vf_sub(m02, m20), c = vf_sub(m10, m01);
    vf d = vf_add(m01, m10), e = vf_add(m02, m20), f = vf_add(m12, m21);
    /* the largest: x over w, y over both, z over all (NaN: w's row) */
    vm ux = vm_gt(tx, tw);
    vf best = vf_sel(ux, tx, tw);
    vm uy = vm_gt(ty, best);
    best = vf_sel(uy, ty, best);
    vm uz = vm_gt(tz, best);
    vq r;
    r.w = vf_sel(uz, c, vf_sel(uy, b, vf_sel(ux, a, tw)));
    r.x = vf_sel(uz, e, vf_sel(uy, d, vf_sel(ux, tx, a)));
    r.y = vf_sel(uz, f, vf_sel(uy, ty, vf_sel(ux, d, b)));
    r.z = vf_sel(uz, tz, vf_sel(uy, f, vf_sel(ux, e, c)));
    return q_abs(q_normalize(r));
}

/* Gram-Schmidt of the halves a, b (rotrep.h: the degenerate cases'
 * documented results). A NaN anywhere fails the == 0 tests and propagates. */
PB_INLINE pb_m3 r6_to_m3(v3 a, v3 b)
{
    const vf zero = vf_zero(), one = vf_set(1.0f);
    vf na = v3_dot(a, a);
    vm za = vm_eq(na, zero);
    vf ia = vf_div(one, vf_sqrt(vf_sel(za, one, na)));
    v3 c0 = v3_sel(za, v3_set3(1.0f, 0.0f, 0.0f), v3_scale(a, ia));
    vf d = v3_dot(c0, b);
    v3 b2 = {vf_fnma(d, c0.x, b.x), vf_fnma(d, c0.y, b.y), vf_fnma(d, c0.z, b.z)};
    vf nb = v3_dot(b2, b2);
    vm zb = vm_eq(nb, zero);
    if (vm_any(zb)) { /* b taken as e_y (e_z where c0 is near +-e_y) */
        vm ey = vm_lt(vf_abs(c0.y), vf_set(0.6f));
        v3 e = v3_sel(ey, v3_set3(0.0f, 1.0f, 0.0f), v3_set3(0.0f, 0.0f, 1.0f));
        vf de = v3_dot(c0, e);
        v3 p = {vf_fnma(de, c0.x, e.x), vf_fnma(de, c0.y, e.y), vf_fnma(de, c0.z, e.z)};
        b2 = v3_sel(zb, p, b2);
        nb = vf_sel(zb, v3_dot(p, p), nb);
    }
    v3 c1 = v3_scale(b2, vf_div(one, vf_sqrt(nb)));
    pb_m3 m = {c0, c1, v3_cross(c0, c1)};
    return m;
}

PB_INLINE pb_m3 m3_ld(const float *const col[9], pb_blk b)
{
    pb_m3 m = {v3_ld_p(col, b), v3_ld_p(col + 3, b), v3_ld_p(col + 6, b)};
    return m;
}

PB_INLINE void b_quat_to_mat3(pb_cquats q, int cols, float *const col[9], pb_blk blk)
{
    pb_m3 m = q_to_m3(q_ld(q, blk));
    v3_st_p(col, m.c0, blk);
    v3_st_p(col + 3, m.c1, blk);
    if (cols == 3)
        v3_st_p(col + 6, m.c2, blk);
}
/* the first `cols` (2: the 6D, or 3) columns of q's matrix */
static void k_quat_to_mat3(size_t n, pb_cquats q, int cols, float *const col[9])
{
    PB_BLOCKS(n, blk, b_quat_to_mat3(q, cols, col, blk));
}
static void k_mat3_to_quat(size_t n, const float *const col[9], pb_quats out)
{
    PB_BLOCKS(n, blk, q_st(out, m3_to_q(m3_ld(col, blk)), blk));
}
PB_INLINE void b_rot6d_to_mat3(const float *const c6[6], float *const col[9], pb_blk blk)
{
    pb_m3 m = r6_to_m3(v3_ld_p(c6, blk), v3_ld_p(c6 + 3, blk));
    v3_st_p(col, m.c0, blk);
    v3_st_p(col + 3, m.c1, blk);
    v3_st_p(col + 6, m.c2, blk);
}
static void k_rot6d_to_mat3(size_t n, const float *const c6[6], float *const col[9])
{
    PB_BLOCKS(n, blk, b_rot6d_to_mat3(c6, col, blk));
}
static void k_rot6d_to_quat(size_t n, const float *const c6[6], pb_quats out)
{
    PB_BLOCKS(n, blk, q_st(out, m3_to_q(r6_to_m3(v3_ld_p(c6, blk), v3_ld_p(c6 + 3, blk))), blk));
}
/* 2 log(abs(q)): the rotation vector, angle in [0, pi] */
static void k_quat_to_rotvec(size_t n, pb_cquats q, pb_vec3s out)
{
    PB_BLOCKS(n, blk, v3_st(out, q_log_k(q_ld(q, blk), 2.0f, 1), blk));
}

/* this family's rows of the kernel table (kernels.h) */
#define PB_ROTREP_KERNELS                                                                          \
    .quat_to_mat3 = k_quat_to_mat3, .mat3_to_quat = k_mat3_to_quat,                                \
    .rot6d_to_mat3 = k_rot6d_to_mat3, .rot6d_to_quat = k_rot6d_to_quat,                            \
    .quat_to_rotvec = k_quat_to_rotvec,

#endif
