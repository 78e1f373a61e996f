/* The pose blend kernel (pb_pose_blend_layers, and pb_pose_blend for every
 * method but the eigenvector one), written once over the lane layer and
 * included by kernels.h. One pass over chunks of PB_CHUNK joints: per chunk
 * every layer sample-major (rotation, position and scale sums of a block
 * together, as in PB_SAMPLE_MAJOR), then per block the finish, the additive
 * layers and the stores. A call on a real skeleton (tens of joints) is one
 * chunk: one loop over the layers, each block's tail loaded and stored
 * masked, nothing else.
 *
 * Weights as given (pb_pose_blend): the sums are those of the averages and
 * of the vec3 blend, in their order (same results as those kernels).
 * Normalised (PB_PB_NORMALIZE, pb_pose_blend_layers): the sums take the raw
 * weights e_i (times the joint weights) and their sum T, and the finish
 * divides by T once per joint instead of once per layer: translations and
 * linear scales sum e_i p_i (no reference to subtract: the weights sum to
 * one), logs sum e_i l_i, raw rotations need no division at all. Where T is
 * not > 0 the finish takes the reference. */
#ifndef PB_KERNELS_BLEND_H
#define PB_KERNELS_BLEND_H

/* one layer's inputs at the chunk */
typedef struct {
    pb_cquats rot;
    pb_cvec3s pos, scale;
    float w;
    const float *jw; /* joint weights at the chunk, or NULL */
} blend_src;

PB_INLINE blend_src layer_at(const pb_layer_set *ls, size_t i, size_t c, unsigned o)
{
    const pb_cvec3s none = {0, 0, 0};
    blend_src s;
    s.rot = cq_offset(ls_rot(ls, i), c);
    pb_cvec3s p = (o & PB_PB_POS) ? ls_pos(ls, i) : none;
    pb_cvec3s sc = (o & PB_PB_SCALE) ? ls_scale(ls, i) : none;
    s.pos = p.x ? cv3_offset(p, c) : none;
    s.scale = sc.x ? cv3_offset(sc, c) : none;
    s.w = ls_weight(ls, i);
    s.jw = ls_joint_weights(ls, i);
    if (s.jw)
        s.jw += c;
    return s;
}
PB_INLINE vf src_weight(const blend_src *s, pb_blk blk)
{
    return s->jw ? vf_mul(vf_set(s->w), ld(s->jw, blk)) : vf_set(s->w);
}

/* The chunk's running sums (scratch, PB_CHUNK floats per component). */
typedef struct {
    pb_quats rot; /* raw: the quaternion sum; log: x, y, z hold the log sum */
    pb_vec3s pos, scale, sinv;
    float *total; /* T per joint (joint weights), or unused */
} blend_acc;

/* one blended layer's terms added to the chunk's sums */
PB_INLINE void blend_step(const blend_src *s, int first, unsigned o, pb_cquats rc, pb_cvec3s pr,
                          pb_cvec3s sr, const blend_acc *a, pb_blk blk)
{
    const vq zq = {vf_zero(), vf_zero(), vf_zero(), vf_zero()};
    const v3 z3 = v3_splat(0.0f);
    const int norm = (o & PB_PB_NORMALIZE) != 0;
    vf wi = src_weight(s, blk);
    if (norm && (o & PB_PB_JOINT_WEIGHTS))
        stb(a->total, first ? wi : vf_add(ldb(a->total, blk), wi), blk);
    vq q = q_ld(s->rot, blk);
    if (o & PB_PB_LOG) { /* as k_average_log */
        pb_vec3s lacc = {a->rot.x, a->rot.y, a->rot.z};
        if (rc.w)
            q = q_inv_mul(q_ld(rc, blk), q);
        v3_stb(lacc, v3_fma(q_log_abs(q), wi, first ? z3 : v3_ldb(lacc, blk)), blk);
    } else { /* as k_average_raw */
        vf side = rc.w ? q_dot(q_ld(rc, blk), q) : q.w;
        q_stb(a->rot, q_add_weighted(first ? zq : q_ldb(a->rot, blk), q, vf_xorsign(wi, side)), blk);
    }
    if (o & PB_PB_POS) { /* as b_vec3_blend_linear (normalised: no reference) */
        v3 p = v3_ld(s->pos, blk);
        if (pr.x && !norm)
            p = v3_sub(p, v3_ld(pr, blk));
        v3_stb(a->pos, v3_fma(p, wi, first ? z3 : v3_ldb(a->pos, blk)), blk);
    }
    if (o & PB_PB_SCALE) {
        v3 sc = v3_ld(s->scale, blk);
        if (!(o & PB_PB_LINEAR_SCALE)) /* as k_vec3_blend's log space */
            sc = v3_ln(sr.x ? v3_mul(sc, v3_ldb(a->sinv, blk)) : sc);
        v3_stb(a->scale, v3_fma(sc, wi, first ? z3 : v3_ldb(a->scale, blk)), blk);
    }
}

/* The additive layers on top of the blended block (rotation r, position p,
 * scale sc): q <- exp(a log|d|) q, p <- p + a d, s <- s d^a (or s (1 + a (d -
 * 1)) with linear scales); the rotation comes out with w >= 0. */
PB_INLINE void additive_apply(const pb_layer_set *ad, size_t c, unsigned o, vq *r, v3 *p, v3 *sc,
                              pb_blk blk)
{
    const v3 one = v3_splat(1.0f);
    for (size_t i = 0; i < ad->k; i++) {
        blend_src s = layer_at(ad, i, c, o);
        vf wa = src_weight(&s, blk);
        v3 l = q_log_abs(q_ld(s.rot, blk));
        *r = q_mul(q_exp(v3_scale(l, wa)), *r);
        if (s.pos.x)
            *p = v3_fma(v3_ld(s.pos, blk), wa, *p);
        if (s.scale.x) {
            v3 d = v3_ld(s.scale, blk);
            if (o & PB_PB_LINEAR_SCALE)
                *sc = v3_mul(*sc, v3_fma(v3_sub(d, one), wa, one));
            else
                *sc = v3_mul(*sc, v3_exp(v3_scale(v3_ln(d), wa)));
        }
    }
    *r = q_abs(*r);
}

/* The block's sums: raw rotation sum (log: x, y, z hold the log sum),
 * translation, scale and weight sums (the last normalised with joint
 * weights only). */
typedef struct {
    vq r;
    v3 p, s;
    vf t;
} blend_sums;

/* The block's finish: rotation by the method, translation and scale (with
 * the reference), the additive layers, the stores. total: the weight sum
 * (normalised without joint weights). */
PB_INLINE void blend_finish(const pb_layer_set *ad, size_t c, unsigned o, pb_cquats rc,
                            pb_cvec3s pr, pb_cvec3s sr, blend_sums a, float total,
                            const pb_pose *out, pb_blk blk)
{
    const int norm = (o & PB_PB_NORMALIZE) != 0;
    vm live = vm_eq(vf_zero(), vf_zero());
    vf inv = vf_set(1.0f);
    if (norm) { /* 1 / T, and 0 where T is not > 0 (the reference there) */
        vf t = (o & PB_PB_JOINT_WEIGHTS) ? a.t : vf_set(total);
        live = vm_gt(t, vf_zero());
        inv = vf_sel(live, vf_div(vf_set(1.0f), vf_sel(live, t, vf_set(1.0f))), vf_zero());
    }
    vq r;
    if (o & PB_PB_LOG) {
        v3 l = {a.r.x, a.r.y, a.r.z};
        vq m = q_exp(norm ? v3_scale(l, inv) : l);
        r = rc.w ? q_abs(q_mul(q_ld(rc, blk), m)) : m;
    } else {
        r = raw_finish(a.r, rc, blk);
        if (norm)
            r = q_sel(live, r, rc.w ? q_abs(q_ld(rc, blk)) : q_identity());
    }
    v3 p = v3_splat(0.0f), sc = v3_splat(1.0f);
    if (o & PB_PB_POS) {
        p = a.p;
        if (norm)
            p = v3_sel(live, v3_scale(p, inv), pr.x ? v3_ld(pr, blk) : v3_splat(0.0f));
        else if (pr.x)
            p = v3_add(p, v3_ld(pr, blk));
    }
    if (o & PB_PB_SCALE) {
        sc = a.s;
        if (o & PB_PB_LINEAR_SCALE) { /* normalised only */
            sc = v3_sel(live, v3_scale(sc, inv), sr.x ? v3_ld(sr, blk) : v3_splat(1.0f));
        } else {
            sc = v3_exp(norm ? v3_scale(sc, inv) : sc);
            if (sr.x)
                sc = v3_mul(sc, v3_ld(sr, blk));
        }
    }
    if (ad->k)
        additive_apply(ad, c, o, &r, &p, &sc, blk);
    q_st(q_offset(out->rot, c), r, blk);
    if (o & PB_PB_POS)
        v3_st(v3_offset(out->pos, c), p, blk);
    if (o & PB_PB_SCALE)
        v3_st(v3_offset(out->scale, c), sc, blk);
}
PB_INLINE blend_sums sums_ld(const blend_acc *a, pb_blk blk)
{
    blend_sums r;
    r.r = q_ldb(a->rot, blk);
    r.p = v3_ldb(a->pos, blk);
    r.s = v3_ldb(a->scale, blk);
    r.t = ldb(a->total, blk);
    return r;
}

/* Block-major, the sums in registers: for blends with nothing slow per
 * layer (raw rotations, linear scales), where there is no latency for the
 * sample-major order to hide and its scratch traffic would dominate. */
PB_INLINE void blend_block_major(const pb_layer_set *bl, const pb_layer_set *ad, size_t c,
                                 size_t m, unsigned o, pb_cquats rc, pb_cvec3s pr, pb_cvec3s sr,
                                 float total, const pb_pose *out)
{
    const int norm = (o & PB_PB_NORMALIZE) != 0;
    PB_BLOCKS(m, blk, {
        /* from zero, as the averages' and vec3 blend's sums */
        blend_sums a = {{vf_zero(), vf_zero(), vf_zero(), vf_zero()}, v3_splat(0.0f),
                        v3_splat(0.0f), vf_zero()};
        vq ref = rc.w ? q_ld(rc, blk) : q_identity();
        for (size_t i = 0; i < bl->k; i++) {
            blend_src s = layer_at(bl, i, c, o);
            vf wi = src_weight(&s, blk);
            vq q = q_ld(s.rot, blk);
            a.r = q_add_weighted(a.r, q, vf_xorsign(wi, rc.w ? q_dot(ref, q) : q.w));
            if (o & PB_PB_POS) {
                v3 p = v3_ld(s.pos, blk);
                if (pr.x && !norm)
                    p = v3_sub(p, v3_ld(pr, blk));
                a.p = v3_fma(p, wi, a.p);
            }
            if (o & PB_PB_SCALE)
                a.s = v3_fma(v3_ld(s.scale, blk), wi, a.s);
            a.t = vf_add(a.t, wi);
        }
        blend_finish(ad, c, o, rc, pr, sr, a, total, out, blk);
    });
}

/* The whole blend for options o; instantiated with o constant for the
 * common option sets (k_pose_blend), so that no block tests them. */
PB_INLINE void pose_blend_body(size_t n, const pb_layer_set *bl, const pb_layer_set *ad,
                               unsigned o, pb_cpose ref, const pb_pose *out)
{
    float rbuf[4][PB_CHUNK], pbuf[3][PB_CHUNK], sbuf[3][PB_CHUNK], ibuf[3][PB_CHUNK];
    float tbuf[PB_CHUNK];
    const blend_acc a = {{rbuf[0], rbuf[1], rbuf[2], rbuf[3]},
                         {pbuf[0], pbuf[1], pbuf[2]},
                         {sbuf[0], sbuf[1], sbuf[2]},
                         {ibuf[0], ibuf[1], ibuf[2]},
                         tbuf};
    const pb_cvec3s none = {0, 0, 0};
    float total = 0.0f; /* the weight sum when no layer has joint weights */
    if ((o & PB_PB_NORMALIZE) && !(o & PB_PB_JOINT_WEIGHTS))
        for (size_t i = 0; i < bl->k; i++)
            total += ls_weight(bl, i);
    const int scale_log_ref = (o & PB_PB_SCALE) && !(o & PB_PB_LINEAR_SCALE) && ref.scale.x;
    for (size_t c = 0; c < n; c += PB_CHUNK) {
        size_t m = chunk_len(n, c);
        pb_cquats rc = ref.rot.w ? cq_offset(ref.rot, c) : ref.rot;
        pb_cvec3s pr = ((o & PB_PB_POS) && ref.pos.x) ? cv3_offset(ref.pos, c) : none;
        pb_cvec3s sr = ((o & PB_PB_SCALE) && ref.scale.x) ? cv3_offset(ref.scale, c) : none;
        if (scale_log_ref) /* one division per joint, as k_vec3_blend */
            PB_BLOCKS(m, blk, {
                v3 r = v3_ld(sr, blk);
                vf one = vf_set(1.0f);
                v3 ir = {vf_div(one, r.x), vf_div(one, r.y), vf_div(one, r.z)};
                v3_stb(a.sinv, ir, blk);
            });
        if (!(o & PB_PB_LOG) && (!(o & PB_PB_SCALE) || (o & PB_PB_LINEAR_SCALE))) {
            blend_block_major(bl, ad, c, m, o, rc, pr, sr, total, out);
            continue;
        }
        for (size_t i = 0; i < bl->k; i++) {
            blend_src s = layer_at(bl, i, c, o);
            PB_BLOCKS(m, blk, blend_step(&s, i == 0, o, rc, pr, sr, &a, blk));
        }
        PB_BLOCKS(m, blk, blend_finish(ad, c, o, rc, pr, sr, sums_ld(&a, blk), total, out, blk));
    }
}

#define PB_PB_TRACKS (PB_PB_POS | PB_PB_SCALE)
#define PB_PB_BODY_CASE(opts)                                                  \
    case (opts):                                                               \
        pose_blend_body(n, bl, ad, (opts), ref, out);                          \
        return
static void k_pose_blend(size_t n, const pb_layer_set *bl, const pb_layer_set *ad, unsigned o,
                         pb_cpose ref, const pb_pose *out)
{
#if defined(PB_EMULATED) /* test-only backends: the same body, options at run time */
    pose_blend_body(n, bl, ad, o, ref, out);
#else
    switch (o) { /* full transforms: pb_pose_blend, then pb_pose_blend_layers */
        PB_PB_BODY_CASE(PB_PB_TRACKS);
        PB_PB_BODY_CASE(PB_PB_TRACKS | PB_PB_LOG);
        PB_PB_BODY_CASE(PB_PB_TRACKS | PB_PB_NORMALIZE);
        PB_PB_BODY_CASE(PB_PB_TRACKS | PB_PB_NORMALIZE | PB_PB_LOG);
        PB_PB_BODY_CASE(PB_PB_TRACKS | PB_PB_NORMALIZE | PB_PB_LINEAR_SCALE);
        PB_PB_BODY_CASE(PB_PB_TRACKS | PB_PB_NORMALIZE | PB_PB_LINEAR_SCALE | PB_PB_LOG);
        PB_PB_BODY_CASE(PB_PB_TRACKS | PB_PB_NORMALIZE | PB_PB_JOINT_WEIGHTS);
        PB_PB_BODY_CASE(PB_PB_TRACKS | PB_PB_NORMALIZE | PB_PB_JOINT_WEIGHTS | PB_PB_LOG);
        PB_PB_BODY_CASE(PB_PB_TRACKS | PB_PB_NORMALIZE | PB_PB_JOINT_WEIGHTS | PB_PB_LINEAR_SCALE);
    default:
        pose_blend_body(n, bl, ad, o, ref, out);
    }
#endif
}
#undef PB_PB_BODY_CASE

#endif
