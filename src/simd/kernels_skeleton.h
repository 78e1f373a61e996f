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
                r = q_mul(R, r);
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

#define PB_SK_BLOCKS(F, poses, J, par, in, out, pos, scl, ones)                                    \
    do {                                                                                           \
        size_t p_ = 0;                                                                             \
        for (; p_ + PB_LANES <= (poses); p_ += PB_LANES)                                           \
            F(J, par, in, out, p_ *(J), PB_LANES, pos, scl, ones);                                 \
        if ((poses)-p_ == 1) /* one pose (a call a frame): its own  */                             \
            F(J, par, in, out, p_ *(J), 1, pos, scl, ones); /* instance */                         \
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
#define PB_SK_VARIANTS(F, poses, J, par, in, out)                                                  \
    do {                                                                                           \
        const int pos_ = out.t[4] != NULL, scl_ = in.t[7] != NULL;                                 \
        const int ones_ = !scl_ && out.t[7] != NULL;                                               \
        if (pos_ && scl_)                                                                          \
            PB_SK_BLOCKS(F, poses, J, par, &in, &out, 1, 1, 0);                                    \
        else if (pos_)                                                                             \
            PB_SK_BLOCKS(F, poses, J, par, &in, &out, 1, 0, ones_);                                \
        else if (scl_)                                                                             \
            PB_SK_BLOCKS(F, poses, J, par, &in, &out, 0, 1, 0);                                    \
        else                                                                                       \
            PB_SK_BLOCKS(F, poses, J, par, &in, &out, 0, 0, ones_);                                \
    } while (0)

static void k_local_to_model(size_t poses, size_t joints, const int32_t *parents,
                             const pb_cpose *local, const pb_pose *model)
{
    pb_sk_in in;
    pb_sk_out out;
    sk_tracks(local, model, &in, &out);
    PB_SK_VARIANTS(fk_block, poses, joints, parents, in, out);
}
static void k_model_to_local(size_t poses, size_t joints, const int32_t *parents,
                             const pb_cpose *model, const pb_pose *local)
{
    pb_sk_in in;
    pb_sk_out out;
    sk_tracks(model, local, &in, &out);
    PB_SK_VARIANTS(ik_block, poses, joints, parents, in, out);
}

#define PB_SKELETON_KERNELS .local_to_model = k_local_to_model, .model_to_local = k_model_to_local,

#endif
