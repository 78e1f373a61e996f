/* Skeletons: forward kinematics (pb_pose_local_to_model) and its inverse
 * (pb_pose_model_to_local), written once over the lane layer. Included by
 * kernels.h after the lane layer; arguments arrive checked (skeleton.c).
 *
 * Lanes are poses: a block is PB_LANES consecutive poses (the last one
 * partial; a last single pose has its own instance, count 1), and the
 * block walks the joints in parent order, so one vector holds joint j of
 * every pose of the block. The layout is pose-major (element p*J + j): a
 * chunk of joints of the block is moved into a joint-major stack scratch
 * by register tile transposes (vf_load_tile / vf_store_tile; strided lane
 * loads and stores for the joints past the last whole tile and for a
 * partial block), composed there in joint order (a parent in the chunk
 * read from its slot; one before the chunk read back from the output,
 * where it is already, by strided loads, the last such parent kept in
 * registers), and moved out. The scratch (PB_SK_SLOTS floats a track)
 * stays in L1 whatever J is; the stride-J gathers of a first version put
 * every lane of a 1024-joint pose 4 KiB apart (docs/performance.md).
 *
 * The composition per joint (the header's contract):
 *   R_j = R_a r_j, T_j = T_a + R_a (S_a * t_j), S_j = S_a * s_j
 * and back: r_j = R_a^-1 R_j, t_j = (R_a^-1 (T_j - T_a)) / S_a,
 * s_j = S_j / S_a. One operation order for every backend (bit-identical
 * in deterministic builds). */
#ifndef PB_KERNELS_SKELETON_H
#define PB_KERNELS_SKELETON_H

#include <stdint.h>

#include "internal.h"
#include "lanes_math.h"

/* the tracks in order w x y z, px py pz, sx sy sz (NULL: absent) */
#define NT_SK 10
typedef struct {
    const float *t[NT_SK];
} pb_sk_in;
typedef struct {
    float *t[NT_SK];
} pb_sk_out;

PB_INLINE vf sk_ld(const float *p, size_t stride, size_t cnt)
{
    if (PB_LANES == 1 || cnt == PB_LANES)
        return vf_load_stride(p, stride);
    return vf_load_stride_part(p, stride, cnt);
}
PB_INLINE void sk_st(float *p, size_t stride, vf v, size_t cnt)
{
    if (PB_LANES == 1 || cnt == PB_LANES)
        vf_store_stride(p, stride, v);
    else
        vf_store_stride_part(p, stride, v, cnt);
}
PB_INLINE vq sk_ldq(const float *const *t, size_t e, size_t J, size_t cnt)
{
    vq r = {sk_ld(t[0] + e, J, cnt), sk_ld(t[1] + e, J, cnt), sk_ld(t[2] + e, J, cnt),
            sk_ld(t[3] + e, J, cnt)};
    return r;
}
PB_INLINE v3 sk_ld3(const float *const *t, size_t e, size_t J, size_t cnt)
{
    v3 r = {sk_ld(t[0] + e, J, cnt), sk_ld(t[1] + e, J, cnt), sk_ld(t[2] + e, J, cnt)};
    return r;
}
/* v rotated by unit q: v + w c + u x c, c = 2 (u x v) */
PB_INLINE v3 sk_rotate(vq q, v3 v)
{
    v3 u = {q.x, q.y, q.z};
    v3 c = v3_cross(u, v);
    c = v3_add(c, c);
    return v3_add(v3_fma(c, q.w, v), v3_cross(u, c));
}

/* R r for forward kinematics: each component as two products of pairs
 * added (mul, fma, then one add: three operations deep from R, where
 * q_mul's chain is four), since R_j = R_a r_j is the one dependence that
 * runs down a chain of joints; sk1_qmul is the same in scalars */
PB_INLINE vq sk_qmul(vq a, vq b)
{
    vq r;
    r.w = vf_sub(vf_fnma(a.x, b.x, vf_mul(a.w, b.w)), vf_fma(a.z, b.z, vf_mul(a.y, b.y)));
    r.x = vf_add(vf_fma(a.x, b.w, vf_mul(a.w, b.x)), vf_fnma(a.z, b.y, vf_mul(a.y, b.z)));
    r.y = vf_add(vf_fnma(a.x, b.z, vf_mul(a.w, b.y)), vf_fma(a.z, b.x, vf_mul(a.y, b.w)));
    r.z = vf_add(vf_fma(a.x, b.y, vf_mul(a.w, b.z)), vf_fnma(a.y, b.x, vf_mul(a.z, b.w)));
    return r;
}

/* The scratch of a block: per track, a chunk of PB_SK_CHUNK joints x
 * PB_LANES poses, joint-major (slot (j - c0) * PB_LANES + lane), on the
 * stack (30 KiB: L1) */
#define PB_SK_SLOTS 768
#define PB_SK_CHUNK (PB_SK_SLOTS / PB_LANES)
typedef float pb_sk_scratch[NT_SK][PB_SK_SLOTS];

/* joints c0..c1-1 of cnt poses (rows J floats apart from src) into slots;
 * the lanes past cnt copy the block's first pose */
PB_INLINE void sk_tile_in(const float *src, size_t J, size_t cnt, size_t c0, size_t c1, float *m)
{
    size_t j = c0;
    if (cnt == PB_LANES)
        for (; j + PB_LANES <= c1; j += PB_LANES) {
            vf c[PB_LANES];
            vf_load_tile(src + j, J, c);
            for (size_t k = 0; k < PB_LANES; k++)
                vf_store(m + (j - c0 + k) * PB_LANES, c[k]);
        }
    /* the rest a joint at a time with strided lane loads (a slot filled by
     * scalar stores would stall the vector load that reads it) */
    for (; j < c1; j++)
        vf_store(m + (j - c0) * PB_LANES, sk_ld(src + j, J, cnt));
}
/* and back: the first cnt lanes only */
PB_INLINE void sk_tile_out(float *dst, size_t J, size_t cnt, size_t c0, size_t c1, const float *m)
{
    size_t j = c0;
    if (cnt == PB_LANES)
        for (; j + PB_LANES <= c1; j += PB_LANES) {
            vf c[PB_LANES];
            for (size_t k = 0; k < PB_LANES; k++)
                c[k] = vf_load(m + (j - c0 + k) * PB_LANES);
            vf_store_tile(dst + j, J, c);
        }
    for (; j < c1; j++)
        sk_st(dst + j, J, vf_load(m + (j - c0) * PB_LANES), cnt);
}
PB_INLINE vq sk_ldq_m(pb_sk_scratch m, size_t s)
{
    vq r = {vf_load(m[0] + s), vf_load(m[1] + s), vf_load(m[2] + s), vf_load(m[3] + s)};
    return r;
}
PB_INLINE v3 sk_ld3_m(pb_sk_scratch m, int k, size_t s)
{
    v3 r = {vf_load(m[k] + s), vf_load(m[k + 1] + s), vf_load(m[k + 2] + s)};
    return r;
}
PB_INLINE void sk_stq_m(pb_sk_scratch m, size_t s, vq v)
{
    vf_store(m[0] + s, v.w), vf_store(m[1] + s, v.x), vf_store(m[2] + s, v.y),
        vf_store(m[3] + s, v.z);
}
PB_INLINE void sk_st3_m(pb_sk_scratch m, int k, size_t s, v3 v)
{
    vf_store(m[k] + s, v.x), vf_store(m[k + 1] + s, v.y), vf_store(m[k + 2] + s, v.z);
}
/* which tracks a pass moves: rotations, positions, scales */
PB_INLINE int sk_track_on(int k, int pos, int scl) { return k < 4 || (k < 7 ? pos : scl); }

/* What fk_block and ik_block read per joint j of the chunk [c0, c1), as
 * macros over their locals (m, par, pos, scl, b, J, cnt, far, fR, fS, fT):
 * SK_JOINT, the joint's own rotation r, translation t and scale sc at
 * scratch slot s, and its parent a; SK_PARENT(src), for a >= 0, the
 * parent's R, S, T: from the scratch when it is in the chunk, else from
 * src (FK: the model-space output already written; the inverse: the input),
 * the last such far parent kept in fR, fS, fT. Macros, not functions: as
 * inline functions taking the kept parent by pointer the one-pose FK lost
 * 15% (fk/avx2/31/1 0.49 -> 0.58 us); as macros the code is the same. */
#define SK_JOINT                                                                                   \
    const size_t s = (j - c0) * PB_LANES;                                                          \
    vq r = sk_ldq_m(m, s);                                                                         \
    v3 t = v3_splat(0.0f), sc = v3_splat(1.0f);                                                    \
    if (pos)                                                                                       \
        t = sk_ld3_m(m, 4, s);                                                                     \
    if (scl)                                                                                       \
        sc = sk_ld3_m(m, 7, s);                                                                    \
    const int32_t a = par[j];
/* SK_STORE: the joint's results back into its scratch slot;
 * SK_TILES_OUT: the chunk's scratch to the outputs. */
#define SK_STORE                                                                                   \
    sk_stq_m(m, s, r);                                                                             \
    if (pos)                                                                                       \
        sk_st3_m(m, 4, s, t);                                                                      \
    if (scl || ones)                                                                               \
        sk_st3_m(m, 7, s, sc);
#define SK_TILES_OUT                                                                               \
    for (int k = 0; k < NT_SK; k++)                                                                \
        if (sk_track_on(k, pos, scl || ones))                                                      \
            sk_tile_out(out->t[k] + b, J, cnt, c0, c1, m[k]);
#define SK_PARENT(src)                                                                             \
    vq R;                                                                                          \
    v3 S = v3_splat(1.0f), T = v3_splat(0.0f);                                                     \
    if ((size_t)a >= c0) {                                                                         \
        const size_t sa = ((size_t)a - c0) * PB_LANES;                                             \
        R = sk_ldq_m(m, sa);                                                                       \
        if (scl)                                                                                   \
            S = sk_ld3_m(m, 7, sa);                                                                \
        if (pos)                                                                                   \
            T = sk_ld3_m(m, 4, sa);                                                                \
    } else {                                                                                       \
        if ((size_t)a != far) {                                                                    \
            const size_t e = b + (size_t)a;                                                        \
            far = (size_t)a;                                                                       \
            fR = sk_ldq(src, e, J, cnt);                                                           \
            if (scl)                                                                               \
                fS = sk_ld3(src + 7, e, J, cnt);                                                   \
            if (pos)                                                                               \
                fT = sk_ld3(src + 4, e, J, cnt);                                                   \
        }                                                                                          \
        R = fR, S = fS, T = fT;                                                                    \
    }

/* One block of cnt poses whose joint 0 is element b: pos (positions in and
 * out), scl (scales in, hence out), ones (scales out, none in: 1s). A
 * chunk's local values are transposed into the scratch, turned into model
 * values there in joint order (a parent in the chunk read from its slot,
 * one before it from the output, which holds it already), and transposed
 * out. In place works: a chunk is read before it is written. */
PB_INLINE void fk_block(size_t J, const int32_t *par, const pb_sk_in *in, const pb_sk_out *out,
                        size_t b, size_t cnt, int pos, int scl, int ones)
{
    pb_sk_scratch m;
    const float *const *mo = (const float *const *)out->t;
    /* the last parent read from outside the chunk, kept: a root or a
     * spine joint is the parent of many (and its values do not change) */
    size_t far = SIZE_MAX;
    vq fR = q_identity();
    v3 fS = v3_splat(1.0f), fT = v3_splat(0.0f);
    for (size_t c0 = 0; c0 < J; c0 += PB_SK_CHUNK) {
        const size_t c1 = J - c0 < PB_SK_CHUNK ? J : c0 + PB_SK_CHUNK;
        for (int k = 0; k < NT_SK; k++)
            if (sk_track_on(k, pos, scl))
                sk_tile_in(in->t[k] + b, J, cnt, c0, c1, m[k]);
        for (size_t j = c0; j < c1; j++) {
            SK_JOINT
            if (a >= 0) {
                SK_PARENT(mo)
                r = sk_qmul(R, r);
                if (scl) {
                    if (pos)
                        t = v3_mul(S, t);
                    sc = v3_mul(S, sc);
                }
                if (pos)
                    t = v3_add(T, sk_rotate(R, t));
            }
            SK_STORE
        }
        SK_TILES_OUT
    }
}
/* The inverse: chunks and joints children first (in place, a joint's
 * parent is read before it is overwritten; one in an earlier chunk from
 * the input, not written yet). */
PB_INLINE void ik_block(size_t J, const int32_t *par, const pb_sk_in *in, const pb_sk_out *out,
                        size_t b, size_t cnt, int pos, int scl, int ones)
{
    pb_sk_scratch m;
    const size_t last = (J - 1) / PB_SK_CHUNK * PB_SK_CHUNK;
    /* the last parent read from outside the chunk (from the input: not
     * written before its own chunk, which comes after every use) */
    size_t far = SIZE_MAX;
    vq fR = q_identity();
    v3 fS = v3_splat(1.0f), fT = v3_splat(0.0f);
    for (size_t c0 = last;; c0 -= PB_SK_CHUNK) {
        const size_t c1 = J - c0 < PB_SK_CHUNK ? J : c0 + PB_SK_CHUNK;
        for (int k = 0; k < NT_SK; k++)
            if (sk_track_on(k, pos, scl))
                sk_tile_in(in->t[k] + b, J, cnt, c0, c1, m[k]);
        for (size_t j = c1; j-- > c0;) {
            SK_JOINT
            if (a >= 0) {
                SK_PARENT(in->t)
                vq Ri = q_conj(R);
                r = q_mul(Ri, r);
                if (pos)
                    t = sk_rotate(Ri, v3_sub(t, T));
                if (scl) {
                    if (pos) {
                        t.x = vf_div(t.x, S.x);
                        t.y = vf_div(t.y, S.y);
                        t.z = vf_div(t.z, S.z);
                    }
                    sc.x = vf_div(sc.x, S.x);
                    sc.y = vf_div(sc.y, S.y);
                    sc.z = vf_div(sc.z, S.z);
                }
            }
            SK_STORE
        }
        SK_TILES_OUT
        if (c0 == 0)
            break;
    }
}

/* ------------------------------------------------------------ one pose */
/* A single pose (the call a runtime makes per character per frame) gains
 * nothing from lanes over poses: one lane of a block does the work and the
 * rest is transposes (52 ns a joint on Zen 5's 16 lanes). fk_one walks the
 * joints of the pose instead, with the lane layer's operation order (s_fma
 * and s_fnma round once exactly where this backend's vf_fma and vf_fnma
 * do), so its results are the bits fk_block gives the same pose on this
 * backend, and the same on every backend in deterministic builds. */
PB_INLINE float s_fma(float a, float b, float c)
{
#if defined(PB_FUSED)
    return __builtin_fmaf(a, b, c);
#else
    return a * b + c;
#endif
}
PB_INLINE float s_fnma(float a, float b, float c)
{
#if defined(PB_FUSED)
    return __builtin_fmaf(-a, b, c);
#else
    return c - a * b;
#endif
}
/* one joint's values: rotation w x y z, translation, scale */
typedef struct {
    float q[4], t[3], s[3];
} pb_sk1;
/* q_mul and sk_rotate of the lane layer, in scalars */
PB_INLINE void sk1_qmul(const float a[4], const float b[4], float r[4])
{
    float w = s_fnma(a[1], b[1], a[0] * b[0]) - s_fma(a[3], b[3], a[2] * b[2]);
    float x = s_fma(a[1], b[0], a[0] * b[1]) + s_fnma(a[3], b[2], a[2] * b[3]);
    float y = s_fnma(a[1], b[3], a[0] * b[2]) + s_fma(a[3], b[1], a[2] * b[0]);
    float z = s_fma(a[1], b[2], a[0] * b[3]) + s_fnma(a[2], b[1], a[3] * b[0]);
    r[0] = w, r[1] = x, r[2] = y, r[3] = z;
}
/* q_mul of the lane layer in scalars (the inverse's) */
PB_INLINE void sk1_qmul_seq(const float a[4], const float b[4], float r[4])
{
    float w = s_fnma(a[3], b[3], s_fnma(a[2], b[2], s_fnma(a[1], b[1], a[0] * b[0])));
    float x = s_fnma(a[3], b[2], s_fma(a[2], b[3], s_fma(a[1], b[0], a[0] * b[1])));
    float y = s_fnma(a[1], b[3], s_fma(a[3], b[1], s_fma(a[2], b[0], a[0] * b[2])));
    float z = s_fnma(a[2], b[1], s_fma(a[1], b[2], s_fma(a[3], b[0], a[0] * b[3])));
    r[0] = w, r[1] = x, r[2] = y, r[3] = z;
}
PB_INLINE void sk1_cross(const float a[3], const float b[3], float r[3])
{
    float x = s_fnma(a[2], b[1], a[1] * b[2]);
    float y = s_fnma(a[0], b[2], a[2] * b[0]);
    float z = s_fnma(a[1], b[0], a[0] * b[1]);
    r[0] = x, r[1] = y, r[2] = z;
}
/* q v (sk_rotate's order) */
PB_INLINE void sk1_rotate(const float q[4], const float v[3], float r[3])
{
    float c[3], d[3];
    sk1_cross(q + 1, v, c);
    c[0] += c[0], c[1] += c[1], c[2] += c[2];
    sk1_cross(q + 1, c, d);
    for (int k = 0; k < 3; k++)
        r[k] = s_fma(c[k], q[0], v[k]) + d[k];
}
/* element e of the tracks t (rotations; translations if pos, scales if
 * scl: else 0 and 1) */
PB_INLINE pb_sk1 sk1_load(const float *const *t, size_t e, int pos, int scl)
{
    pb_sk1 v = {{t[0][e], t[1][e], t[2][e], t[3][e]}, {0.0f, 0.0f, 0.0f}, {1.0f, 1.0f, 1.0f}};
    if (pos)
        v.t[0] = t[4][e], v.t[1] = t[5][e], v.t[2] = t[6][e];
    if (scl)
        v.s[0] = t[7][e], v.s[1] = t[8][e], v.s[2] = t[9][e];
    return v;
}
PB_INLINE void sk1_store(float *const *t, size_t e, const pb_sk1 *v, int pos, int scl)
{
    for (int k = 0; k < 4; k++)
        t[k][e] = v->q[k];
    if (pos)
        for (int k = 0; k < 3; k++)
            t[4 + k][e] = v->t[k];
    if (scl)
        for (int k = 0; k < 3; k++)
            t[7 + k][e] = v->s[k];
}
/* fk_one's translations, cnt joints from element e (their parents' indices
 * at pa, relative to the pose's element b): v_j = R_a (S_a t_j) into the
 * output's translations, t_j at a root */
PB_INLINE void sk_pos_rot(const int32_t *pa, const pb_sk_in *in, const pb_sk_out *out, size_t b,
                          size_t e, size_t cnt, int scl, const float *const *m)
{
    const int whole = PB_LANES == 1 || cnt == PB_LANES;
    const float *pf = (const float *)(const void *)pa;
    const vf a = whole ? vf_load(pf) : vf_load_part(pf, cnt); /* parents, as bits */
    v3 t = {whole ? vf_load(in->t[4] + e) : vf_load_part(in->t[4] + e, cnt),
            whole ? vf_load(in->t[5] + e) : vf_load_part(in->t[5] + e, cnt),
            whole ? vf_load(in->t[6] + e) : vf_load_part(in->t[6] + e, cnt)};
    const v3 t0 = t;
    const vf one = vf_set(1.0f), zero = vf_zero();
    if (scl) {
        const v3 S = {vf_gather_ge0(m[7] + b, a, one), vf_gather_ge0(m[8] + b, a, one),
                      vf_gather_ge0(m[9] + b, a, one)};
        t = v3_mul(S, t);
    }
    const vq R = {vf_gather_ge0(m[0] + b, a, one), vf_gather_ge0(m[1] + b, a, zero),
                  vf_gather_ge0(m[2] + b, a, zero), vf_gather_ge0(m[3] + b, a, zero)};
    const v3 v = v3_sel(vm_i32_ge0(a), sk_rotate(R, t), t0);
    if (whole) {
        vf_store(out->t[4] + e, v.x), vf_store(out->t[5] + e, v.y), vf_store(out->t[6] + e, v.z);
    } else {
        vf_store_part(out->t[4] + e, v.x, cnt), vf_store_part(out->t[5] + e, v.y, cnt);
        vf_store_part(out->t[6] + e, v.z, cnt);
    }
}
/* In three passes, each with few pointers live and one short dependence:
 * 1. rotations and scales in joint order (R_j = R_a r_j, S_j = S_a s_j:
 *    the only long chain, kept in registers along a chain of joints, a
 *    parent elsewhere read back from the output);
 * 2. v_j = R_a (S_a t_j) a block of joints at a time on the lanes
 *    (sk_pos_rot: R_a and S_a gathered from pass 1's results);
 * 3. T_j = T_a + v_j in joint order (an add on the chain).
 * In place works: each pass reads a joint's local value before it writes
 * its model value there, and reads no other joint's local value. Cost:
 * 5-7 ns a joint at 31 and 1024 joints on Zen 5, about ozz-animation's
 * LocalToModelJob (docs/performance.md, "Model space (FK)"). */
PB_INLINE void fk_one(size_t J, const int32_t *par, const pb_sk_in *in, const pb_sk_out *out,
                      size_t b, int pos, int scl, int ones)
{
    {
        const float *iw = in->t[0] + b, *ix = in->t[1] + b, *iy = in->t[2] + b, *iz = in->t[3] + b;
        float *ow = out->t[0] + b, *ox = out->t[1] + b, *oy = out->t[2] + b, *oz = out->t[3] + b;
        float R[4] = {1.0f, 0.0f, 0.0f, 0.0f}, S[3] = {1.0f, 1.0f, 1.0f};
        for (size_t j = 0; j < J; j++) {
            const float r[4] = {iw[j], ix[j], iy[j], iz[j]};
            float s[3] = {1.0f, 1.0f, 1.0f};
            if (scl)
                s[0] = in->t[7][b + j], s[1] = in->t[8][b + j], s[2] = in->t[9][b + j];
            const int32_t a = par[j];
            if (a < 0) {
                R[0] = r[0], R[1] = r[1], R[2] = r[2], R[3] = r[3];
                S[0] = s[0], S[1] = s[1], S[2] = s[2];
            } else {
                float P[4] = {R[0], R[1], R[2], R[3]};
                if ((size_t)a + 1 != j) {
                    P[0] = ow[a], P[1] = ox[a], P[2] = oy[a], P[3] = oz[a];
                    if (scl)
                        S[0] = out->t[7][b + (size_t)a], S[1] = out->t[8][b + (size_t)a],
                        S[2] = out->t[9][b + (size_t)a];
                }
                sk1_qmul(P, r, R);
                S[0] = S[0] * s[0], S[1] = S[1] * s[1], S[2] = S[2] * s[2];
            }
            ow[j] = R[0], ox[j] = R[1], oy[j] = R[2], oz[j] = R[3];
            if (scl)
                out->t[7][b + j] = S[0], out->t[8][b + j] = S[1], out->t[9][b + j] = S[2];
        }
        if (ones)
            for (size_t j = 0; j < J; j++)
                out->t[7][b + j] = 1.0f, out->t[8][b + j] = 1.0f, out->t[9][b + j] = 1.0f;
    }
    if (pos) {
        /* v_j = R_a (S_a t_j) for a block of joints at a time, R_a and S_a
         * gathered from the finished outputs (a root keeps t_j) ... */
        const float *const *m = (const float *const *)out->t;
        for (size_t j0 = 0; j0 < J; j0 += PB_LANES) {
            const size_t cnt = J - j0 < PB_LANES ? J - j0 : PB_LANES;
            sk_pos_rot(par + j0, in, out, b, b + j0, cnt, scl, m);
        }
        /* ... then T_j = T_a + v_j in joint order */
        float *tx = out->t[4] + b, *ty = out->t[5] + b, *tz = out->t[6] + b;
        float T[3] = {0.0f, 0.0f, 0.0f};
        for (size_t j = 0; j < J; j++) {
            const int32_t a = par[j];
            if (a < 0) {
                T[0] = tx[j], T[1] = ty[j], T[2] = tz[j];
                continue;
            }
            if ((size_t)a + 1 != j)
                T[0] = tx[a], T[1] = ty[a], T[2] = tz[a];
            T[0] = T[0] + tx[j], T[1] = T[1] + ty[j], T[2] = T[2] + tz[j];
            tx[j] = T[0], ty[j] = T[1], tz[j] = T[2];
        }
    }
}
/* The inverse: each joint from its own and its parent's model values,
 * children first (in place, a parent is read before it is overwritten). */
PB_INLINE void ik_one(size_t J, const int32_t *par, const pb_sk_in *in, const pb_sk_out *out,
                      size_t b, int pos, int scl, int ones)
{
    for (size_t j = J; j-- > 0;) {
        pb_sk1 m = sk1_load(in->t, b + j, pos, scl), l = m;
        const int32_t a = par[j];
        if (a >= 0) {
            const pb_sk1 p = sk1_load(in->t, b + (size_t)a, pos, scl);
            const float ri[4] = {p.q[0], -p.q[1], -p.q[2], -p.q[3]};
            sk1_qmul_seq(ri, m.q, l.q);
            if (pos) {
                const float d[3] = {m.t[0] - p.t[0], m.t[1] - p.t[1], m.t[2] - p.t[2]};
                sk1_rotate(ri, d, l.t);
            }
            if (scl)
                for (int k = 0; k < 3; k++) {
                    if (pos)
                        l.t[k] = l.t[k] / p.s[k];
                    l.s[k] = m.s[k] / p.s[k];
                }
        }
        sk1_store(out->t, b + j, &l, pos, scl || ones);
    }
}

/* Whole blocks of PB_LANES poses, then the rest: a last single pose (a
 * call a frame) by the scalar path F1, more by a partial block. */
#define PB_SK_BLOCKS(F, F1, poses, J, par, in, out, pos, scl, ones)                                \
    do {                                                                                           \
        size_t p_ = 0;                                                                             \
        for (; p_ + PB_LANES <= (poses); p_ += PB_LANES)                                           \
            F(J, par, in, out, p_ *(J), PB_LANES, pos, scl, ones);                                 \
        if ((poses)-p_ == 1)                                                                       \
            F1(J, par, in, out, p_ *(J), pos, scl, ones);                                          \
        else if (p_ < (poses))                                                                     \
            F(J, par, in, out, p_ *(J), (poses)-p_, pos, scl, ones);                               \
    } while (0)

static void sk_tracks(const pb_cpose *in, const pb_pose *out, pb_sk_in *i, pb_sk_out *o)
{
    const float *a[10] = {in->rot.w, in->rot.x, in->rot.y,   in->rot.z,   in->pos.x,
                          in->pos.y, in->pos.z, in->scale.x, in->scale.y, in->scale.z};
    float *b[10] = {out->rot.w, out->rot.x, out->rot.y,   out->rot.z,   out->pos.x,
                    out->pos.y, out->pos.z, out->scale.x, out->scale.y, out->scale.z};
    for (int k = 0; k < 10; k++) {
        i->t[k] = a[k];
        o->t[k] = b[k];
    }
}

/* The variants: positions or not, input scales or not (each its own
 * instance, so a block does only its tracks' work). */
#define PB_SK_VARIANTS(F, F1, poses, J, par, in, out)                                              \
    do {                                                                                           \
        const int pos_ = out.t[4] != NULL, scl_ = in.t[7] != NULL;                                 \
        const int ones_ = !scl_ && out.t[7] != NULL;                                               \
        if (pos_ && scl_)                                                                          \
            PB_SK_BLOCKS(F, F1, poses, J, par, &in, &out, 1, 1, 0);                                \
        else if (pos_)                                                                             \
            PB_SK_BLOCKS(F, F1, poses, J, par, &in, &out, 1, 0, ones_);                            \
        else if (scl_)                                                                             \
            PB_SK_BLOCKS(F, F1, poses, J, par, &in, &out, 0, 1, 0);                                \
        else                                                                                       \
            PB_SK_BLOCKS(F, F1, poses, J, par, &in, &out, 0, 0, ones_);                            \
    } while (0)

static void k_local_to_model(size_t poses, size_t joints, const int32_t *parents,
                             const pb_cpose *local, const pb_pose *model)
{
    pb_sk_in in;
    pb_sk_out out;
    sk_tracks(local, model, &in, &out);
    PB_SK_VARIANTS(fk_block, fk_one, poses, joints, parents, in, out);
}
static void k_model_to_local(size_t poses, size_t joints, const int32_t *parents,
                             const pb_cpose *model, const pb_pose *local)
{
    pb_sk_in in;
    pb_sk_out out;
    sk_tracks(model, local, &in, &out);
    PB_SK_VARIANTS(ik_block, ik_one, poses, joints, parents, in, out);
}

#define PB_SKELETON_KERNELS .local_to_model = k_local_to_model, .model_to_local = k_model_to_local,

#endif
