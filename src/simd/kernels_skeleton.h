/* Skeletons: forward kinematics (pb_pose_local_to_model) and its inverse
 * (pb_pose_model_to_local), written once over the lane layer. Included by
 * kernels.h after the lane layer; arguments arrive checked (skeleton.c).
 *
 * Lanes are poses: a block is PB_LANES consecutive poses (the last one
 * partial), and the block walks the joints in parent order, so one vector
 * holds joint j of every pose of the block. The layout is pose-major
 * (element p*J + j), so a block's joint j is a stride-J gather and its
 * result a stride-J scatter (vf_load_stride / vf_store_stride: hardware
 * gathers where the layer has them, lane fills elsewhere). A parent's
 * model values are read back from the output, written a few joints before:
 * a block touches PB_LANES poses x 10 tracks x (its joints' cache lines),
 * which stays in L1 / L2 whatever J is, so the block is the tile.
 *
 * The composition per joint (the header's contract):
 *   R_j = R_a r_j, T_j = T_a + R_a (S_a * t_j), S_j = S_a * s_j
 * and back: r_j = R_a^-1 R_j, t_j = (R_a^-1 (T_j - T_a)) / S_a,
 * s_j = S_j / S_a. One operation order for every backend (bit-identical
 * in deterministic builds). */
#ifndef PB_KERNELS_SKELETON_H
#define PB_KERNELS_SKELETON_H

/* the tracks in order w x y z, px py pz, sx sy sz (NULL: absent) */
typedef struct { const float *t[10]; } pb_sk_in;
typedef struct { float *t[10]; } pb_sk_out;

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
PB_INLINE void sk_stq(float *const *t, size_t e, size_t J, vq v, size_t cnt)
{
    sk_st(t[0] + e, J, v.w, cnt);
    sk_st(t[1] + e, J, v.x, cnt);
    sk_st(t[2] + e, J, v.y, cnt);
    sk_st(t[3] + e, J, v.z, cnt);
}
PB_INLINE void sk_st3(float *const *t, size_t e, size_t J, v3 v, size_t cnt)
{
    sk_st(t[0] + e, J, v.x, cnt);
    sk_st(t[1] + e, J, v.y, cnt);
    sk_st(t[2] + e, J, v.z, cnt);
}
/* v rotated by unit q: v + w c + u x c, c = 2 (u x v) */
PB_INLINE v3 sk_rotate(vq q, v3 v)
{
    v3 u = {q.x, q.y, q.z};
    v3 c = v3_cross(u, v);
    c = v3_add(c, c);
    return v3_add(v3_fma(c, q.w, v), v3_cross(u, c));
}

/* One block of cnt poses whose joint 0 is element b: pos (positions in and
 * out), scl (scales in, hence out), ones (scales out, none in: 1s). */
PB_INLINE void fk_block(size_t J, const int32_t *par, const pb_sk_in *in, const pb_sk_out *out,
                        size_t b, size_t cnt, int pos, int scl, int ones)
{
    const float *const *mo = (const float *const *)out->t;
    for (size_t j = 0; j < J; j++) {
        const size_t e = b + j;
        vq r = sk_ldq(in->t, e, J, cnt);
        v3 t = v3_splat(0.0f), s = v3_splat(1.0f);
        if (pos)
            t = sk_ld3(in->t + 4, e, J, cnt);
        if (scl)
            s = sk_ld3(in->t + 7, e, J, cnt);
        if (par[j] >= 0) {
            const size_t a = b + (size_t)par[j];
            vq R = sk_ldq(mo, a, J, cnt);
            r = q_mul(R, r);
            if (scl) {
                v3 S = sk_ld3(mo + 7, a, J, cnt);
                if (pos)
                    t = v3_mul(S, t);
                s = v3_mul(S, s);
            }
            if (pos)
                t = v3_add(sk_ld3(mo + 4, a, J, cnt), sk_rotate(R, t));
        }
        sk_stq(out->t, e, J, r, cnt);
        if (pos)
            sk_st3(out->t + 4, e, J, t, cnt);
        if (scl || ones)
            sk_st3(out->t + 7, e, J, s, cnt);
    }
}
/* The inverse, children first: in place, a joint's parent is read before
 * it is overwritten. */
PB_INLINE void ik_block(size_t J, const int32_t *par, const pb_sk_in *in, const pb_sk_out *out,
                        size_t b, size_t cnt, int pos, int scl, int ones)
{
    for (size_t j = J; j-- > 0;) {
        const size_t e = b + j;
        vq r = sk_ldq(in->t, e, J, cnt);
        v3 t = v3_splat(0.0f), s = v3_splat(1.0f);
        if (pos)
            t = sk_ld3(in->t + 4, e, J, cnt);
        if (scl)
            s = sk_ld3(in->t + 7, e, J, cnt);
        if (par[j] >= 0) {
            const size_t a = b + (size_t)par[j];
            vq Ri = q_conj(sk_ldq(in->t, a, J, cnt));
            r = q_mul(Ri, r);
            if (pos)
                t = sk_rotate(Ri, v3_sub(t, sk_ld3(in->t + 4, a, J, cnt)));
            if (scl) {
                v3 S = sk_ld3(in->t + 7, a, J, cnt);
                if (pos) {
                    t.x = vf_div(t.x, S.x);
                    t.y = vf_div(t.y, S.y);
                    t.z = vf_div(t.z, S.z);
                }
                s.x = vf_div(s.x, S.x);
                s.y = vf_div(s.y, S.y);
                s.z = vf_div(s.z, S.z);
            }
        }
        sk_stq(out->t, e, J, r, cnt);
        if (pos)
            sk_st3(out->t + 4, e, J, t, cnt);
        if (scl || ones)
            sk_st3(out->t + 7, e, J, s, cnt);
    }
}

#define PB_SK_BLOCKS(F, poses, J, par, in, out, pos, scl, ones)                \
    do {                                                                       \
        size_t p_ = 0;                                                         \
        for (; p_ + PB_LANES <= (poses); p_ += PB_LANES)                       \
            F(J, par, in, out, p_ * (J), PB_LANES, pos, scl, ones);            \
        if (p_ < (poses))                                                      \
            F(J, par, in, out, p_ * (J), (poses) - p_, pos, scl, ones);        \
    } while (0)

static void sk_tracks(const pb_cpose *in, const pb_pose *out, pb_sk_in *i, pb_sk_out *o)
{
    const float *a[10] = {in->rot.w,  in->rot.x,   in->rot.y,   in->rot.z,   in->pos.x,
                          in->pos.y,  in->pos.z,   in->scale.x, in->scale.y, in->scale.z};
    float *b[10] = {out->rot.w, out->rot.x,   out->rot.y,   out->rot.z,   out->pos.x,
                    out->pos.y, out->pos.z,   out->scale.x, out->scale.y, out->scale.z};
    for (int k = 0; k < 10; k++) {
        i->t[k] = a[k];
        o->t[k] = b[k];
    }
}

/* The variants: positions or not, input scales or not (each its own
 * instance, so a block does only its tracks' work). */
#define PB_SK_VARIANTS(F, poses, J, par, in, out)                              \
    do {                                                                       \
        const int pos_ = out.t[4] != NULL, scl_ = in.t[7] != NULL;             \
        const int ones_ = !scl_ && out.t[7] != NULL;                           \
        if (pos_ && scl_)                                                      \
            PB_SK_BLOCKS(F, poses, J, par, &in, &out, 1, 1, 0);                \
        else if (pos_)                                                         \
            PB_SK_BLOCKS(F, poses, J, par, &in, &out, 1, 0, ones_);            \
        else if (scl_)                                                         \
            PB_SK_BLOCKS(F, poses, J, par, &in, &out, 0, 1, 0);                \
        else                                                                   \
            PB_SK_BLOCKS(F, poses, J, par, &in, &out, 0, 0, ones_);            \
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
