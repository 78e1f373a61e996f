/* The layered pose blend kernel (pb_pose_blend_layers), written once over
 * the lane layer and included by kernels.h. The sums take the raw weights
 * e_i (times the joint weights) and their sum T, and the finish divides by
 * T once per joint instead of once per layer: translations and linear
 * scales sum e_i p_i, logs sum e_i l_i, raw rotations need no division at
 * all; where T is not > 0 the finish takes the reference. Without joint
 * weights T is one number, summed once per call: where it is > 0 the
 * blend runs an instance that neither sums T per joint nor selects the
 * reference (PB_BL_UNIFORM). Per chunk of PB_CHUNK joints the logs (log
 * rotations, log-space scales) are summed sample-major (as
 * PB_SAMPLE_MAJOR_SUM), so that the logs of neighbouring blocks overlap
 * (on the 16-lane backends a chunk of at most two blocks sums them in
 * registers instead, sums_in_regs); then
 * per block everything cheap per layer (raw rotations, translations, linear
 * scales, weights) is summed block-major in registers, the finish follows
 * and stores; the additive layers then run over the stored chunk, layer by
 * layer. (pb_pose_blend, weights as given, runs the averages' and the vec3
 * blend's kernels: with per-call costs this small they are the faster way
 * for it.) Every sum over the blended layers runs in blocks of PB_SUM_BLOCK
 * layers, compensated across blocks (as the averages), and the blended
 * layers' weights are scaled by 2^-E (wscale_of over the layer weights): any
 * layer count, any weight units. */
#ifndef PB_KERNELS_BLEND_H
#define PB_KERNELS_BLEND_H

#include <math.h>

#include "internal.h"
#include "lanes_math.h"
#include "kernels_common.h"
#include "kernels_average.h"

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
    pb_cvec3s p = (o & PB_BL_POS) ? ls_pos(ls, i) : none;
    pb_cvec3s sc = (o & PB_BL_SCALE) ? ls_scale(ls, i) : none;
    s.pos = p.x ? cv3_offset(p, c) : none;
    s.scale = sc.x ? cv3_offset(sc, c) : none;
    s.w = ls_weight(ls, i);
    s.jw = ls_joint_weights(ls, i);
    if (s.jw)
        s.jw += c;
    return s;
}
/* a blended layer: its weight scaled by ws (additive layers keep theirs);
 * a blended layer has every track the output has (pb_pose_blend_layers
 * checks), and none has joint weights in the PB_BL_UNIFORM instances */
PB_INLINE blend_src blended_at(const pb_layer_set *ls, size_t i, size_t c, unsigned o, pb_wscale ws)
{
    const pb_cvec3s none = {0, 0, 0};
    blend_src s;
    s.rot = cq_offset(ls_rot(ls, i), c);
    s.pos = (o & PB_BL_POS) ? cv3_offset(ls_pos(ls, i), c) : none;
    s.scale = (o & PB_BL_SCALE) ? cv3_offset(ls_scale(ls, i), c) : none;
    s.w = ls_weight(ls, i) * ws.a * ws.b;
    s.jw = (o & PB_BL_UNIFORM) ? NULL : ls_joint_weights(ls, i);
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
    pb_vec3s scale, sinv;
    pb_vec3s rs, rc, ss, sc; /* compensated block sums of the logs (as k_average_log) */
} blend_acc;

/* one blended layer's log rotation term: the log of ref^-1 q (q without
 * a reference) */
PB_INLINE v3 log_term(const blend_src *s, pb_cquats rc, pb_blk blk)
{
    vq q = q_ld(s->rot, blk);
    if (rc.w)
        q = q_inv_mul(q_ld(rc, blk), q);
    return q_log_abs(q);
}
/* one blended layer's log-space scale term, the ratio to the reference as
 * s (1 / ref) (k_vec3_blend forms ln(s / ref) by v3_ln_ratio instead; here
 * that made the unit-scale path slower, see scales_unit) */
PB_INLINE v3 scale_term(const blend_src *s, pb_cvec3s sr, const blend_acc *a, pb_blk blk)
{
    v3 sc = v3_ld(s->scale, blk);
    return v3_ln(sr.x ? v3_mul(sc, v3_ldb(a->sinv, blk)) : sc);
}
/* the terms added to the chunk's sums (as k_average_log) */
PB_INLINE void log_step(const blend_src *s, size_t i, size_t k, pb_cquats rc, const blend_acc *a,
                        pb_blk blk)
{
    pb_vec3s lacc = {a->rot.x, a->rot.y, a->rot.z};
    v3_sum_step(lacc, a->rs, a->rc, log_term(s, rc, blk), src_weight(s, blk), i, k, blk);
}
PB_INLINE void scale_step(const blend_src *s, size_t i, size_t k, pb_cvec3s sr, const blend_acc *a,
                          pb_blk blk)
{
    v3_sum_step(a->scale, a->ss, a->sc, scale_term(s, sr, a, blk), src_weight(s, blk), i, k, blk);
}

/* Every layer's log-space scale terms over the chunk: a function of its
 * own, so that the logarithm's constants get registers of their own (inlined
 * next to the rotation sums, they went to the stack). */
static __attribute__((noinline)) void scale_pass(const pb_layer_set *bl, size_t c, size_t m,
                                                 pb_cvec3s sr, const blend_acc *a, pb_wscale ws)
{
    for (size_t i = 0; i < bl->k; i++) {
        blend_src s = blended_at(bl, i, c, PB_BL_SCALE, ws);
        PB_BLOCKS(m, blk, scale_step(&s, i, bl->k, sr, a, blk));
    }
}

/* lanes where a is (1, 1, 1) exactly, and where w is finite (w 0 = 0) */
PB_INLINE vm v3_is_one(v3 a)
{
    vf one = vf_set(1.0f);
    return vm_and(vm_eq(a.x, one), vm_and(vm_eq(a.y, one), vm_eq(a.z, one)));
}
PB_INLINE vm vf_finite(vf w) { return vm_eq(vf_mul(w, vf_zero()), vf_zero()); }

/* Whether every blended layer's scale over the chunk is exactly the
 * reference's (ratio 1 as scale_step forms it; 1 itself without a
 * reference) with a finite weight (times the joint weight, as src_weight
 * forms it): then each log-space term w ln 1 is 0 exactly, and the blended
 * scale comes out as exp(0) = 1 times the reference, whatever T (a masked
 * joint's too), which the finish takes directly (bit-identical). The common
 * case of real rigs, whose scales are mostly 1 in every pose; the test stops
 * at the first block that fails it. */
static int scales_unit(const pb_layer_set *bl, size_t c, size_t m, unsigned o, pb_cvec3s sr,
                       const blend_acc *a, pb_wscale ws)
{
    int unit = 1;
    for (size_t i = 0; i < bl->k && unit; i++) {
        blend_src s = blended_at(bl, i, c, PB_BL_SCALE | (o & PB_BL_UNIFORM), ws);
        PB_BLOCKS(m, blk, {
            if (unit) {
                v3 sc = v3_ld(s.scale, blk);
                if (sr.x)
                    sc = v3_mul(sc, v3_ldb(a->sinv, blk));
                unit = vm_all(vm_and(vf_finite(src_weight(&s, blk)), v3_is_one(sc)));
            }
        });
    }
    return unit;
}

/* The additive layers on top of the blended chunk (out at c, m joints):
 * q <- exp(a log|d|) q, p <- p + a d, s <- s d^a (or s (1 + a (d - 1)) with
 * linear scales); the rotation comes out with w >= 0. A pass of its own over
 * what the finish stored (no input overlaps an output): in line in the
 * finish, its logarithms and exponentials made every instance of the blend
 * twice as large. */
static __attribute__((noinline)) void additive_pass(const pb_layer_set *ad, size_t c, size_t m,
                                                    unsigned o, const pb_pose *out)
{
    const v3 one = v3_splat(1.0f);
    const pb_quats ro = q_offset(out->rot, c);
    const pb_cquats rc = {ro.w, ro.x, ro.y, ro.z};
    const pb_vec3s po = v3_offset(out->pos, c), so = v3_offset(out->scale, c);
    const pb_cvec3s pc = {po.x, po.y, po.z}, sc = {so.x, so.y, so.z};
    const int lin = (o & PB_BL_LINEAR_SCALE) != 0;
    for (size_t i = 0; i < ad->k; i++) { /* layer by layer (the abs: exact, as sign flips are) */
        const blend_src a = layer_at(ad, i, c, o);
        PB_BLOCKS(m, blk, {
            vf wa = src_weight(&a, blk);
            v3 l = q_log_abs(q_ld(a.rot, blk));
            q_st(ro, q_abs(q_mul(q_exp(v3_scale(l, wa)), q_ld(rc, blk))), blk);
            if (a.pos.x)
                v3_st(po, v3_fma(v3_ld(a.pos, blk), wa, v3_ld(pc, blk)), blk);
            if (a.scale.x) {
                v3 d = v3_ld(a.scale, blk);
                /* deltas of exactly 1 with finite weights (the usual: additive
                 * animations rarely scale) give a factor of exactly 1 either
                 * way (ln 1 = 0, exp 0 = 1; 1 + wa 0): s stays as stored */
                if (!vm_all(vm_and(vf_finite(wa), v3_is_one(d)))) {
                    d = lin ? v3_fma(v3_sub(d, one), wa, one) : v3_exp(v3_scale(v3_ln(d), wa));
                    v3_st(so, v3_mul(v3_ld(sc, blk), d), blk);
                }
            }
        });
    }
}

/* The block's sums: raw rotation sum (log: x, y, z hold the log sum),
 * translation, scale and weight sums. */
typedef struct {
    vq r;
    v3 p, s;
    vf t;
} blend_sums;

/* The block's finish: rotation by the method, translation and scale (with
 * the reference), the stores. */
PB_INLINE void blend_finish(size_t c, unsigned o, pb_cquats rc, pb_cquats rest, pb_cvec3s pr,
                            pb_cvec3s sr, int unit_s, blend_sums a, vf inv_u, const pb_pose *out,
                            pb_blk blk)
{
    /* 1 / T, and 0 where T is not > 0 (the reference there); with uniform
     * weights (PB_BL_UNIFORM) T > 0 at every joint, 1 / T is inv_u and no
     * joint takes the reference */
    const int uni = (o & PB_BL_UNIFORM) != 0;
    vm live = vm_gt(a.t, vf_zero());
    vf inv = uni ? inv_u
                 : vf_sel(live, vf_div(vf_set(1.0f), vf_sel(live, a.t, vf_set(1.0f))), vf_zero());
    vq r;
    if (o & PB_BL_LOG) {
        v3 l = {a.r.x, a.r.y, a.r.z};
        vq m = q_exp(v3_scale(l, inv));
        r = rc.w ? q_abs(q_mul(q_ld(rc, blk), m)) : m;
        if ((o & PB_BL_HEAVY) && !uni) /* the heaviest is no reference there */
            r = q_sel(live, r, q_identity());
    } else {
        r = raw_finish(a.r, rc, blk);
        if (!rc.w) /* the running sum's sign is the first layer's: w >= 0 */
            r = q_abs(r);
        if (!uni)
            r = q_sel(live, r, rest.w ? q_abs(q_ld(rest, blk)) : q_identity());
    }
    v3 p = v3_splat(0.0f), sc = v3_splat(1.0f);
    if (o & PB_BL_POS) {
        p = v3_scale(a.p, inv);
        if (!uni)
            p = v3_sel(live, p, pr.x ? v3_ld(pr, blk) : v3_splat(0.0f));
    }
    if (o & PB_BL_SCALE) {
        sc = a.s;
        if (o & PB_BL_LINEAR_SCALE) {
            sc = v3_scale(sc, inv);
            if (!uni)
                sc = v3_sel(live, sc, sr.x ? v3_ld(sr, blk) : v3_splat(1.0f));
        } else if (unit_s) { /* exp(0) times the reference (scales_unit) */
            sc = sr.x ? v3_ld(sr, blk) : v3_splat(1.0f);
        } else {
            sc = v3_exp(v3_scale(sc, inv));
            if (sr.x)
                sc = v3_mul(sc, v3_ld(sr, blk));
        }
    }
    q_st(q_offset(out->rot, c), r, blk);
    if (o & PB_BL_POS)
        v3_st(v3_offset(out->pos, c), p, blk);
    if (o & PB_BL_SCALE)
        v3_st(v3_offset(out->scale, c), sc, blk);
}
/* The block's sums over every layer of what is cheap per layer, in
 * registers: the raw rotations (raw_rot), the translations, the linear
 * scales and the weights (as the averages' and the vec3 blend's sums: from
 * zero, in layer order). With nothing slow per layer there is no latency for
 * the sample-major order to hide, and its scratch traffic would dominate. */
PB_INLINE blend_sums sums_zero(void)
{
    blend_sums z = {
        {vf_zero(), vf_zero(), vf_zero(), vf_zero()}, v3_splat(0.0f), v3_splat(0.0f), vf_zero()};
    return z;
}
/* b into the compensated sums (S, C) */
PB_INLINE void sums_fold(blend_sums *S, blend_sums *C, blend_sums b)
{
    q_two_sum(&S->r, &C->r, b.r);
    two_sum(&S->p.x, &C->p.x, b.p.x);
    two_sum(&S->p.y, &C->p.y, b.p.y);
    two_sum(&S->p.z, &C->p.z, b.p.z);
    two_sum(&S->s.x, &C->s.x, b.s.x);
    two_sum(&S->s.y, &C->s.y, b.s.y);
    two_sum(&S->s.z, &C->s.z, b.s.z);
    two_sum(&S->t, &C->t, b.t);
}
/* The hemisphere a blended layer's raw rotation is summed in: against the
 * reference where there is one (given, or the heaviest layer's,
 * PB_BL_HEAVY), else against the running sum as ozz's BlendingJob does (the
 * first layer against w >= 0): run is the sum so far. */
PB_INLINE vf raw_side(pb_cquats rc, vq ref, vq run, vq q, size_t i)
{
    if (rc.w)
        return q_dot(ref, q);
    return i == 0 ? q.w : q_dot(run, q);
}
/* layers i0 .. i1-1 summed from zero; base: the sum of the layers before i0
 * (the running sum's start, for the hemisphere choice without a reference) */
PB_INLINE blend_sums block_part(const pb_layer_set *bl, size_t i0, size_t i1, size_t c, unsigned o,
                                int raw_rot, pb_cquats rc, vq ref, vq base, pb_wscale ws,
                                pb_blk blk)
{
    const int lin_scale = (o & PB_BL_SCALE) && (o & PB_BL_LINEAR_SCALE);
    blend_sums a = sums_zero();
    for (size_t i = i0; i < i1; i++) {
        blend_src s = blended_at(bl, i, c, o, ws);
        vf wi = (o & PB_BL_UNIFORM) ? vf_set(s.w) : src_weight(&s, blk);
        if (raw_rot) {
            vq q = q_ld(s.rot, blk);
            vq run = i0 ? q_add(base, a.r) : a.r;
            a.r = q_add_weighted(a.r, q, vf_xorsign(wi, raw_side(rc, ref, run, q, i)));
        }
        if (o & PB_BL_POS)
            a.p = v3_fma(v3_ld(s.pos, blk), wi, a.p);
        if (lin_scale)
            a.s = v3_fma(v3_ld(s.scale, blk), wi, a.s);
        if (!(o & PB_BL_UNIFORM))
            a.t = vf_add(a.t, wi);
    }
    return a;
}
/* The same with uniform weights (PB_BL_UNIFORM), raw rotations and one
 * block of layers (k <= PB_SUM_BLOCK): the rotations in a loop of their own,
 * the same sums in the same order. Fewer values live at once (AVX2 spilled
 * the reference), and a layer's weight is one broadcast, cheap to take
 * twice. */
PB_INLINE blend_sums block_part_apart(const pb_layer_set *bl, size_t i0, size_t i1, size_t c,
                                      unsigned o, pb_cquats rc, vq ref, pb_wscale ws, pb_blk blk)
{
    vq r = q_zero();
    for (size_t i = i0; i < i1; i++) {
        blend_src s = blended_at(bl, i, c, 0, ws);
        vq q = q_ld(s.rot, blk);
        r = q_add_weighted(r, q, vf_xorsign(vf_set(s.w), raw_side(rc, ref, r, q, i)));
    }
    blend_sums a = block_part(bl, i0, i1, c, o, 0, rc, ref, r, ws, blk);
    a.r = r;
    return a;
}
PB_INLINE blend_sums block_sums(const pb_layer_set *bl, size_t c, unsigned o, int raw_rot,
                                pb_cquats rc, pb_wscale ws, pb_blk blk)
{
    vq ref = rc.w ? q_ld(rc, blk) : q_identity();
    const size_t k = bl->k;
    if (raw_rot && (o & PB_BL_UNIFORM) && k <= PB_SUM_BLOCK)
        return block_part_apart(bl, 0, k, c, o, rc, ref, ws, blk);
    if (k <= PB_SUM_BLOCK) /* one block: the plain sum */
        return block_part(bl, 0, k, c, o, raw_rot, rc, ref, q_zero(), ws, blk);
    blend_sums S = block_part(bl, 0, PB_SUM_BLOCK, c, o, raw_rot, rc, ref, q_zero(), ws, blk);
    blend_sums C = sums_zero();
    for (size_t i0 = PB_SUM_BLOCK; i0 < k; i0 += PB_SUM_BLOCK) {
        size_t i1 = k - i0 > PB_SUM_BLOCK ? i0 + PB_SUM_BLOCK : k;
        vq base = q_add(S.r, C.r);
        sums_fold(&S, &C, block_part(bl, i0, i1, c, o, raw_rot, rc, ref, base, ws, blk));
    }
    S.r = q_add(S.r, C.r);
    S.p = v3_add(S.p, C.p);
    S.s = v3_add(S.s, C.s);
    S.t = vf_add(S.t, C.t);
    return S;
}

/* the block's log rotation sum over every layer in registers (k <=
 * PB_SUM_BLOCK: log_step's sum, the same operations in the same order) */
PB_INLINE v3 log_sum_regs(const pb_layer_set *bl, size_t c, pb_cquats rc, pb_wscale ws, pb_blk blk)
{
    v3 a = v3_splat(0.0f);
    for (size_t i = 0; i < bl->k; i++) {
        blend_src s = blended_at(bl, i, c, 0, ws);
        a = v3_fma(log_term(&s, rc, blk), src_weight(&s, blk), a);
    }
    return a;
}
/* the same for the log-space scales (scale_step's sum) */
PB_INLINE v3 scale_sum_regs(const pb_layer_set *bl, size_t c, pb_cvec3s sr, const blend_acc *a,
                            pb_wscale ws, pb_blk blk)
{
    v3 t = v3_splat(0.0f);
    for (size_t i = 0; i < bl->k; i++) {
        blend_src s = blended_at(bl, i, c, PB_BL_SCALE, ws);
        t = v3_fma(scale_term(&s, sr, a, blk), src_weight(&s, blk), t);
    }
    return t;
}

/* The reference of PB_BL_HEAVY at the chunk: per joint the rotation of the
 * blended layer with the largest weight e_ij (the first of equals; the first
 * layer where no weight compares greater, NaN included), into h. */
PB_INLINE void heaviest(const pb_layer_set *bl, size_t c, size_t m, pb_wscale ws, pb_quats h)
{
    PB_BLOCKS(m, blk, {
        blend_src s0 = blended_at(bl, 0, c, 0, ws);
        vq best = q_ld(s0.rot, blk);
        vf bw = src_weight(&s0, blk);
        for (size_t i = 1; i < bl->k; i++) {
            blend_src s = blended_at(bl, i, c, 0, ws);
            vf w = src_weight(&s, blk);
            vm gt = vm_gt(w, bw);
            best = q_sel(gt, q_ld(s.rot, blk), best);
            bw = vf_sel(gt, w, bw);
        }
        q_st(h, best, blk);
    });
}

/* The whole blend for options o; instantiated with o constant for the
 * common option sets (k_pose_blend), so that no block tests them. */
PB_INLINE void pose_blend_body(size_t n, const pb_layer_set *bl, const pb_layer_set *ad, unsigned o,
                               pb_wscale ws, float tu, pb_cpose ref, const pb_pose *out)
{
    const vf inv_u = vf_set(1.0f / tu);
    float rbuf[4][PB_CHUNK], sbuf[3][PB_CHUNK], ibuf[3][PB_CHUNK], cbuf[12][PB_CHUNK];
    float hbuf[4][PB_CHUNK];
    const pb_quats hq = {hbuf[0], hbuf[1], hbuf[2], hbuf[3]};
    const pb_cquats hcq = {hbuf[0], hbuf[1], hbuf[2], hbuf[3]};
    const blend_acc a = {{rbuf[0], rbuf[1], rbuf[2], rbuf[3]}, {sbuf[0], sbuf[1], sbuf[2]},
                         {ibuf[0], ibuf[1], ibuf[2]},          {cbuf[0], cbuf[1], cbuf[2]},
                         {cbuf[3], cbuf[4], cbuf[5]},          {cbuf[6], cbuf[7], cbuf[8]},
                         {cbuf[9], cbuf[10], cbuf[11]}};
    const pb_cvec3s none = {0, 0, 0};
    const int log_rot = (o & PB_BL_LOG) != 0;
    const int log_scale = (o & PB_BL_SCALE) && !(o & PB_BL_LINEAR_SCALE);
    for (size_t c = 0; c < n; c += PB_CHUNK) {
        size_t m = chunk_len(n, c);
        pb_cquats rc = ref.rot.w ? cq_offset(ref.rot, c) : ref.rot;
        const pb_cquats rest = rc; /* where every layer is masked out */
        if (o & PB_BL_HEAVY) {
            heaviest(bl, c, m, ws, hq);
            rc = hcq;
        }
        pb_cvec3s pr = ((o & PB_BL_POS) && ref.pos.x) ? cv3_offset(ref.pos, c) : none;
        pb_cvec3s sr = ((o & PB_BL_SCALE) && ref.scale.x) ? cv3_offset(ref.scale, c) : none;
        /* the logs in registers, block by block (sums_in_regs; the
         * scales' alone on more backends, v3_sums_in_regs), or
         * sample-major, rotations then scales (two short loops keep fewer
         * values live than one) */
        const int rot_regs = log_rot && sums_in_regs(m, bl->k, 2);
        const int regs = rot_regs || (log_scale && v3_sums_in_regs(m, bl->k, 2));
        if (log_rot && !rot_regs)
            for (size_t i = 0; i < bl->k; i++) {
                blend_src s = blended_at(bl, i, c, 0, ws);
                PB_BLOCKS(m, blk, log_step(&s, i, bl->k, rc, &a, blk));
            }
        int unit_s = 0;
        if (log_scale) {
            if (sr.x) /* one division per joint: the reference's reciprocal */
                PB_BLOCKS(m, blk, {
                    v3 r = v3_ld(sr, blk);
                    vf one = vf_set(1.0f);
                    v3 ir = {vf_div(one, r.x), vf_div(one, r.y), vf_div(one, r.z)};
                    v3_stb(a.sinv, ir, blk);
                });
            unit_s = scales_unit(bl, c, m, o, sr, &a, ws);
            if (!unit_s && !regs)
                scale_pass(bl, c, m, sr, &a, ws);
        }
        /* the rest block-major, then the finish */
        if (regs)
            PB_BLOCKS(m, blk, {
                blend_sums sums = block_sums(bl, c, o, !log_rot, rc, ws, blk);
                if (log_rot) {
                    pb_vec3s lacc = {a.rot.x, a.rot.y, a.rot.z};
                    v3 l = rot_regs ? log_sum_regs(bl, c, rc, ws, blk)
                                    : v3_sum_total(lacc, a.rs, a.rc, bl->k, blk);
                    sums.r.x = l.x;
                    sums.r.y = l.y;
                    sums.r.z = l.z;
                }
                if (log_scale && !unit_s)
                    sums.s = scale_sum_regs(bl, c, sr, &a, ws, blk);
                blend_finish(c, o, rc, rest, pr, sr, unit_s, sums, inv_u, out, blk);
            });
        else
            PB_BLOCKS(m, blk, {
                blend_sums sums = block_sums(bl, c, o, !log_rot, rc, ws, blk);
                if (log_rot) {
                    pb_vec3s lacc = {a.rot.x, a.rot.y, a.rot.z};
                    v3 l = v3_sum_total(lacc, a.rs, a.rc, bl->k, blk);
                    sums.r.x = l.x;
                    sums.r.y = l.y;
                    sums.r.z = l.z;
                }
                if (log_scale && !unit_s)
                    sums.s = v3_sum_total(a.scale, a.ss, a.sc, bl->k, blk);
                blend_finish(c, o, rc, rest, pr, sr, unit_s, sums, inv_u, out, blk);
            });
        if (ad->k)
            additive_pass(ad, c, m, o, out);
    }
}

#define PB_BL_TRACKS (PB_BL_POS | PB_BL_SCALE)
#if !defined(PB_EMULATED)
/* The instances that take logarithms (raw_ref with log-space scales, the
 * log methods), and the default one (options at run time), are functions
 * of their own, so that the linear instances' code (and the registers it is
 * given) does not depend on theirs: in one function, the log instances'
 * register sums (sums_in_regs) had taken the AVX-512 linear instance to
 * 1.05-1.15x its time, and every instance a function of its own the linear
 * ones to 1.02-1.06x on AVX-512 at 16-32 joints (one more call). */
#define PB_BL_BODY_FN(name, opts)                                                                  \
    static __attribute__((noinline)) void name(size_t n, const pb_layer_set *bl,                   \
                                               const pb_layer_set *ad, unsigned o, pb_wscale ws,   \
                                               float tu, const pb_cpose *ref, const pb_pose *out)  \
    {                                                                                              \
        (void)o;                                                                                   \
        pose_blend_body(n, bl, ad, (opts), ws, tu, *ref, out);                                     \
    }
PB_BL_BODY_FN(body_any_raw, PB_BL_TRACKS)
PB_BL_BODY_FN(body_any_log, PB_BL_TRACKS | PB_BL_LOG)
PB_BL_BODY_FN(body_any_log_lin, PB_BL_TRACKS | PB_BL_LINEAR_SCALE | PB_BL_LOG)
PB_BL_BODY_FN(body_uni_raw, PB_BL_TRACKS | PB_BL_UNIFORM)
PB_BL_BODY_FN(body_uni_log, PB_BL_TRACKS | PB_BL_UNIFORM | PB_BL_LOG)
PB_BL_BODY_FN(body_uni_log_lin, PB_BL_TRACKS | PB_BL_UNIFORM | PB_BL_LINEAR_SCALE | PB_BL_LOG)
PB_BL_BODY_FN(body_heavy_log, PB_BL_TRACKS | PB_BL_LOG | PB_BL_HEAVY)
PB_BL_BODY_FN(body_uni_heavy_log, PB_BL_TRACKS | PB_BL_UNIFORM | PB_BL_LOG | PB_BL_HEAVY)
PB_BL_BODY_FN(body_opts, o)
#undef PB_BL_BODY_FN
#define PB_BL_BODY_CASE(opts, name)                                                                \
    case (opts):                                                                                   \
        name(n, bl, ad, o, ws, tu, refp, out);                                                     \
        return
#define PB_BL_LINEAR_CASE(opts)                                                                    \
    case (opts):                                                                                   \
        pose_blend_body(n, bl, ad, (opts), ws, tu, *refp, out);                                    \
        return
#endif
/* The blended layers' weight scale (as wscale_of over the layer weights)
 * and, when no blended layer has joint weights, their weight total (the
 * same sums as block_sums' weight sums, in the same order), else NaN. */
static pb_wscale layer_weights(const pb_layer_set *bl, float *total)
{
    const size_t k = bl->k;
    float mx = 0.0f;
    int uniform = 1;
    for (size_t i = 0; i < k; i++) {
        mx = wscale_max(mx, ls_weight(bl, i));
        uniform &= ls_joint_weights(bl, i) == NULL;
    }
    const pb_wscale ws = wscale_for(mx);
    float S = NAN, C = 0.0f;
    for (size_t i0 = 0; uniform && i0 < k; i0 += PB_SUM_BLOCK) {
        size_t i1 = k - i0 > PB_SUM_BLOCK ? i0 + PB_SUM_BLOCK : k;
        float a = 0.0f;
        for (size_t i = i0; i < i1; i++)
            a = a + ls_weight(bl, i) * ws.a * ws.b;
        if (i0 == 0) {
            S = a;
        } else { /* two_sum */
            float t = S + a, bp = t - S;
            C = C + ((S - (t - bp)) + (a - bp));
            S = t;
        }
    }
    *total = k > PB_SUM_BLOCK ? S + C : S;
    return ws;
}
static void k_pose_blend(size_t n, const pb_layer_set *bl, const pb_layer_set *ad, unsigned o,
                         const pb_cpose *refp, const pb_pose *out)
{
    float tu;
    const pb_wscale ws = layer_weights(bl, &tu);
    if (tu > 0.0f) /* T > 0 at every joint: no joint takes the reference */
        o |= PB_BL_UNIFORM;
#if defined(PB_EMULATED) /* test-only backends: the same body, options at run time */
    pose_blend_body(n, bl, ad, o, ws, tu, *refp, out);
#else
    switch (o) { /* full transforms */
        PB_BL_BODY_CASE(PB_BL_TRACKS, body_any_raw);
        PB_BL_BODY_CASE(PB_BL_TRACKS | PB_BL_LOG, body_any_log);
        PB_BL_LINEAR_CASE(PB_BL_TRACKS | PB_BL_LINEAR_SCALE);
        PB_BL_BODY_CASE(PB_BL_TRACKS | PB_BL_LINEAR_SCALE | PB_BL_LOG, body_any_log_lin);
        PB_BL_BODY_CASE(PB_BL_TRACKS | PB_BL_UNIFORM, body_uni_raw);
        PB_BL_BODY_CASE(PB_BL_TRACKS | PB_BL_UNIFORM | PB_BL_LOG, body_uni_log);
        PB_BL_LINEAR_CASE(PB_BL_TRACKS | PB_BL_UNIFORM | PB_BL_LINEAR_SCALE);
        PB_BL_BODY_CASE(PB_BL_TRACKS | PB_BL_UNIFORM | PB_BL_LINEAR_SCALE | PB_BL_LOG,
                        body_uni_log_lin);
        PB_BL_BODY_CASE(PB_BL_TRACKS | PB_BL_LOG | PB_BL_HEAVY, body_heavy_log);
        PB_BL_BODY_CASE(PB_BL_TRACKS | PB_BL_UNIFORM | PB_BL_LOG | PB_BL_HEAVY, body_uni_heavy_log);
    default: body_opts(n, bl, ad, o, ws, tu, refp, out);
    }
#endif
}
#undef PB_BL_BODY_CASE
#undef PB_BL_LINEAR_CASE

/* this family's rows of the kernel table (kernels.h) */
#define PB_BLEND_KERNELS .pose_blend = k_pose_blend,

#endif
