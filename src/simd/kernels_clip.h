/* The resampler's kernels (clip.c), written once over the lane layer and
 * included by kernels.h: a run of m output frames that fall in one source
 * segment, frame k at element offset k*n of the outputs (frame-major
 * clips) with the weights of its parameter x[k] (pb_run_w, formed once per
 * run for every track). Per block the segment's loads and everything
 * that depends on the segment alone (the rotation offsets' sums, the vec3
 * differences and tangents, the scales' log ratios) are formed once and the
 * m frames follow from registers; a rotation is put in the hemisphere of
 * the frame before it straight from the register that holds it. Each frame
 * gets the same operations as the one-frame kernels (bit-identical
 * results); the run saves the loads, the per-segment work, the call and the
 * tail block per frame, and its frames overlap in flight. */
#ifndef PB_KERNELS_CLIP_H
#define PB_KERNELS_CLIP_H

#include "internal.h"
#include "lanes_math.h"
#include "kernels_common.h"
#include "kernels_cubic.h"

/* frame k of a frame-major output of n joints (an absent one stays absent) */
PB_INLINE pb_vec3s v3_frame(pb_vec3s v, size_t n, size_t k)
{
    return v.x ? v3_offset(v, k * n) : v;
}

/* Clip resampling in two steps: the offset of each pair of consecutive
 * source frames once (a segment shares two of its three with its
 * neighbours; out is clip.c's scratch), then per output sample only the
 * tangents, the Hermite sum, one exp and one mul. The offsets are kept as
 * logs (q_sub_log), the half form. These kernels store through whole_out:
 * their outputs never overlap their inputs or each other (clip.c checks
 * them strictly), and a back tail's previous frame comes from keep, which
 * holds its overlapped lanes too. */
static void k_quat_offset(size_t n, pb_cquats a, pb_cquats b, pb_vec3s out)
{
    PB_BLOCKS(n, blk, v3_st(out, q_sub_log(q_ld(b, blk), q_ld(a, blk)), whole_out(blk)));
}

/* Catmull-Rom rotations from the offsets l01, l12, l23 (logs, as
 * quat_offset gives) about r1, in the previous frame's hemisphere (prev.w:
 * the frame before the run; keep: the padded copy of its tail block). One
 * frame (large poses) keeps its basis in registers: the run's loop over
 * bases in memory cost 10% there. */
static void k_quat_cr_run(size_t n, size_t m, const pb_run_w *rw, pb_cquats r1, pb_cvec3s l01,
                          pb_cvec3s l12, pb_cvec3s l23, unsigned flags, pb_cquats prev,
                          pb_quats keep, pb_quats rot, pb_vec3s vel)
{
    const pb_hermite_w *w = rw->half;
    if (m == 1) {
        pb_hermite_basis h = hermite_of(&w[0]);
        PB_BLOCKS(n, blk, {
            v3 l = v3_ld(l12, blk);
            v3 a = v3_add(v3_ld(l01, blk), l);
            v3 b = v3_add(l, v3_ld(l23, blk));
            vq r = quat_hermite_eval(h, q_ld(r1, blk), l, a, b, flags, vel, whole_out(blk));
            const int tail = blk_tail(blk);
            if (prev.w)
                r = q_align(tail ? q_ldb(keep, blk) : q_ld(prev, blk), r);
            if (tail)
                q_stb(keep, r, blk);
            q_st(rot, r, whole_out(blk));
        });
        return;
    }
    PB_BLOCKS(n, blk, {
        v3 l = v3_ld(l12, blk);
        v3 a = v3_add(v3_ld(l01, blk), l);
        v3 b = v3_add(l, v3_ld(l23, blk));
        vq q1 = q_ld(r1, blk);
        const int tail = blk_tail(blk);
        vq last = q1;
        if (prev.w)
            last = tail ? q_ldb(keep, blk) : q_ld(prev, blk);
        for (size_t k = 0; k < m; k++) {
            vq r = quat_hermite_eval(hermite_of(&w[k]), q1, l, a, b, flags, v3_frame(vel, n, k),
                                     whole_out(blk));
            if (prev.w || k)
                r = q_align(last, r);
            last = r;
            q_st(q_offset(rot, k * n), r, whole_out(blk));
        }
        if (tail)
            q_stb(keep, last, blk);
    });
}

/* Catmull-Rom of positions p0..p3 */
static void k_vec3_cr_run(size_t n, size_t m, const pb_run_w *rw, pb_cvec3s p0, pb_cvec3s p1,
                          pb_cvec3s p2, pb_cvec3s p3, pb_vec3s pos, pb_vec3s vel)
{
    const pb_hermite_w *w = rw->full;
    PB_BLOCKS(n, blk, {
        v3 a = v3_ld(p0, blk), b = v3_ld(p1, blk), c = v3_ld(p2, blk), d = v3_ld(p3, blk);
        v3 d12 = v3_sub(c, b), t1, t2;
        cr_tangents(v3_sub(b, a), d12, v3_sub(d, c), &t1, &t2);
        for (size_t k = 0; k < m; k++) {
            pb_hermite_basis h = hermite_of(&w[k]);
            v3_st(v3_frame(pos, n, k), v3_add(hermite_value(h, d12, t1, t2), b), whole_out(blk));
            if (vel.x)
                v3_st(v3_frame(vel, n, k), hermite_deriv(h, d12, t1, t2), whole_out(blk));
        }
    });
}

/* Catmull-Rom of scales s0..s3 in log space */
static void k_scale_cr_run(size_t n, size_t m, const pb_run_w *rw, pb_cvec3s s0, pb_cvec3s s1,
                           pb_cvec3s s2, pb_cvec3s s3, pb_vec3s scale, pb_vec3s svel)
{
    const pb_hermite_w *w = rw->full;
    PB_BLOCKS(n, blk, {
        v3 a = v3_ld(s0, blk), b = v3_ld(s1, blk), c = v3_ld(s2, blk), d = v3_ld(s3, blk);
        v3 d12 = v3_ln_ratio(c, b), t1, t2;
        cr_tangents(v3_ln_ratio(b, a), d12, v3_ln_ratio(d, c), &t1, &t2);
        for (size_t k = 0; k < m; k++)
            scale_hermite_finish(hermite_of(&w[k]), b, d12, t1, t2, v3_frame(scale, n, k),
                                 v3_frame(svel, n, k), whole_out(blk));
    });
}

/* this family's rows of the kernel table (kernels.h) */
#define PB_CLIP_KERNELS                                                                            \
    .quat_offset = k_quat_offset, .quat_cr_run = k_quat_cr_run, .vec3_cr_run = k_vec3_cr_run,      \
    .scale_cr_run = k_scale_cr_run,

#endif
