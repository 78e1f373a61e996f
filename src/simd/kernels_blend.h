/* The pose blend kernel (pb_pose_blend_layers, and pb_pose_blend for every
 * method but the eigenvector one), written once over the lane layer and
 * included by kernels.h. One pass over chunks of PB_CHUNK joints: per chunk
 * the weight sums (when normalised), then every layer sample-major
 * (rotation, position and scale sums together, as in PB_SAMPLE_MAJOR), then
 * per block the finish, the additive layers and the stores. A call on a
 * real skeleton (tens of joints) is then one chunk: one loop over the
 * layers, each block's tail loaded and stored masked, nothing else. The sums
 * are formed in the order and with the operations of the averages and of
 * the vec3 blend (same results as the separate kernels). */
#ifndef PB_KERNELS_BLEND_H
#define PB_KERNELS_BLEND_H

/* layer i's weight at the block: weight, times the joint weights if any */
PB_INLINE vf layer_weight(const pb_layer_set *ls, size_t i, size_t c, pb_blk blk)
{
    float w = ls_weight(ls, i);
    const float *jw = ls_joint_weights(ls, i);
    return jw ? vf_mul(vf_set(w), ld(jw + c, blk)) : vf_set(w);
}

/* one blended layer's terms added to the chunk's sums (first: sums start) */
PB_INLINE void blend_step(const pb_layer_set *bl, size_t i, size_t c, unsigned o, pb_cquats rc,
                          pb_cvec3s pr, pb_cvec3s sr, const float *tinv, pb_quats racc,
                          pb_vec3s pacc, pb_vec3s sacc, pb_vec3s sinv, pb_blk blk)
{
    const int first = i == 0;
    const vq zq = {vf_zero(), vf_zero(), vf_zero(), vf_zero()};
    const v3 z3 = v3_splat(0.0f);
    vf wi = layer_weight(bl, i, c, blk);
    if (o & PB_PB_NORMALIZE)
        wi = vf_mul(wi, ldb(tinv, blk));
    vq q = q_ld(cq_offset(ls_rot(bl, i), c), blk);
    if (o & PB_PB_LOG) { /* as k_average_log */
        pb_vec3s lacc = {racc.w, racc.x, racc.y};
        if (rc.w)
            q = q_inv_mul(q_ld(rc, blk), q);
        v3_stb(lacc, v3_fma(q_log_abs(q), wi, first ? z3 : v3_ldb(lacc, blk)), blk);
    } else { /* as k_average_raw */
        vf side = rc.w ? q_dot(q_ld(rc, blk), q) : q.w;
        q_stb(racc, q_add_weighted(first ? zq : q_ldb(racc, blk), q, vf_xorsign(wi, side)), blk);
    }
    if (o & PB_PB_POS) { /* as b_vec3_blend_linear */
        v3 p = v3_ld(cv3_offset(ls_pos(bl, i), c), blk);
        if (pr.x)
            p = v3_sub(p, v3_ld(pr, blk));
        v3_stb(pacc, v3_fma(p, wi, first ? z3 : v3_ldb(pacc, blk)), blk);
    }
    if (o & PB_PB_SCALE) {
        v3 s = v3_ld(cv3_offset(ls_scale(bl, i), c), blk);
        if (o & PB_PB_LINEAR_SCALE) /* relative to ref.scale, or to one */
            s = v3_sub(s, sr.x ? v3_ld(sr, blk) : v3_splat(1.0f));
        else /* as k_vec3_blend's log space */
            s = v3_ln(sr.x ? v3_mul(s, v3_ldb(sinv, blk)) : s);
        v3_stb(sacc, v3_fma(s, wi, first ? z3 : v3_ldb(sacc, blk)), blk);
    }
}

/* The additive layers on top of the blended block (rotation r, position p,
 * scale s): q <- exp(a log|d|) q, p <- p + a d, s <- s d^a (or s (1 + a (d -
 * 1)) with linear scales). */
PB_INLINE void additive_apply(const pb_layer_set *ad, size_t c, unsigned o, vq *r, v3 *p, v3 *s,
                              pb_blk blk)
{
    const v3 one = v3_splat(1.0f);
    for (size_t a = 0; a < ad->k; a++) {
        vf wa = layer_weight(ad, a, c, blk);
        v3 l = q_log_abs(q_ld(cq_offset(ls_rot(ad, a), c), blk));
        *r = q_mul(q_exp(v3_scale(l, wa)), *r);
        pb_cvec3s dp = ls_pos(ad, a), ds = ls_scale(ad, a);
        if ((o & PB_PB_POS) && dp.x)
            *p = v3_fma(v3_ld(cv3_offset(dp, c), blk), wa, *p);
        if ((o & PB_PB_SCALE) && ds.x) {
            v3 d = v3_ld(cv3_offset(ds, c), blk);
            if (o & PB_PB_LINEAR_SCALE)
                *s = v3_mul(*s, v3_fma(v3_sub(d, one), wa, one));
            else
                *s = v3_mul(*s, v3_exp(v3_scale(v3_ln(d), wa)));
        }
    }
    *r = q_abs(*r);
}

/* The chunk's finish: rotation by the method, translation and scale around
 * the reference, the additive layers, the stores. */
PB_INLINE void blend_finish(const pb_layer_set *ad, size_t c, unsigned o, pb_cquats rc,
                            pb_cvec3s pr, pb_cvec3s sr, pb_quats racc, pb_vec3s pacc,
                            pb_vec3s sacc, const pb_pose *out, pb_blk blk)
{
    vq r;
    if (o & PB_PB_LOG) {
        pb_vec3s lacc = {racc.w, racc.x, racc.y};
        vq m = q_exp(v3_ldb(lacc, blk));
        r = rc.w ? q_abs(q_mul(q_ld(rc, blk), m)) : m;
    } else {
        r = raw_finish(q_ldb(racc, blk), rc, blk);
    }
    v3 p = v3_splat(0.0f), s = v3_splat(1.0f);
    if (o & PB_PB_POS) {
        p = v3_ldb(pacc, blk);
        if (pr.x)
            p = v3_add(p, v3_ld(pr, blk));
    }
    if (o & PB_PB_SCALE) {
        s = v3_ldb(sacc, blk);
        if (o & PB_PB_LINEAR_SCALE) {
            s = v3_add(s, sr.x ? v3_ld(sr, blk) : v3_splat(1.0f));
        } else {
            s = v3_exp(s);
            if (sr.x)
                s = v3_mul(s, v3_ld(sr, blk));
        }
    }
    if (ad->k)
        additive_apply(ad, c, o, &r, &p, &s, blk);
    q_st(q_offset(out->rot, c), r, blk);
    if (o & PB_PB_POS)
        v3_st(v3_offset(out->pos, c), p, blk);
    if (o & PB_PB_SCALE)
        v3_st(v3_offset(out->scale, c), s, blk);
}

static void k_pose_blend(size_t n, const pb_layer_set *bl, const pb_layer_set *ad, unsigned o,
                         pb_cpose ref, const pb_pose *out)
{
    float rbuf[4][PB_CHUNK], pbuf[3][PB_CHUNK], sbuf[3][PB_CHUNK], ibuf[3][PB_CHUNK];
    float tinv[PB_CHUNK];
    pb_quats racc = {rbuf[0], rbuf[1], rbuf[2], rbuf[3]};
    pb_vec3s pacc = {pbuf[0], pbuf[1], pbuf[2]}, sacc = {sbuf[0], sbuf[1], sbuf[2]};
    pb_vec3s sinv = {ibuf[0], ibuf[1], ibuf[2]};
    const int scale_log_ref = (o & PB_PB_SCALE) && !(o & PB_PB_LINEAR_SCALE) && ref.scale.x;
    for (size_t c = 0; c < n; c += PB_CHUNK) {
        size_t m = chunk_len(n, c);
        pb_cquats rc = ref.rot.w ? cq_offset(ref.rot, c) : ref.rot;
        pb_cvec3s pr = ((o & PB_PB_POS) && ref.pos.x) ? cv3_offset(ref.pos, c) : (pb_cvec3s){0, 0, 0};
        pb_cvec3s sr = ((o & PB_PB_SCALE) && ref.scale.x) ? cv3_offset(ref.scale, c) : (pb_cvec3s){0, 0, 0};
        if (o & PB_PB_NORMALIZE) /* 1 / T_j, or 0 where T_j is not > 0 */
            PB_BLOCKS(m, blk, {
                vf t = layer_weight(bl, 0, c, blk);
                for (size_t i = 1; i < bl->k; i++)
                    t = vf_add(t, layer_weight(bl, i, c, blk));
                vm live = vm_gt(t, vf_zero());
                stb(tinv, vf_sel(live, vf_div(vf_set(1.0f), vf_sel(live, t, vf_set(1.0f))), vf_zero()), blk);
            });
        if (scale_log_ref) /* one division per joint, as k_vec3_blend */
            PB_BLOCKS(m, blk, {
                v3 r = v3_ld(sr, blk);
                vf one = vf_set(1.0f);
                v3 ir = {vf_div(one, r.x), vf_div(one, r.y), vf_div(one, r.z)};
                v3_stb(sinv, ir, blk);
            });
        for (size_t i = 0; i < bl->k; i++)
            PB_BLOCKS(m, blk, blend_step(bl, i, c, o, rc, pr, sr, tinv, racc, pacc, sacc, sinv, blk));
        PB_BLOCKS(m, blk, blend_finish(ad, c, o, rc, pr, sr, racc, pacc, sacc, out, blk));
    }
}

#endif
