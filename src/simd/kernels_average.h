/* The weighted averages of rotations (raw, log, eigenvector; with and
 * without a reference), the vec3 blend and their sums (compensated, in
 * chunks, sample-major or in registers), written once over the lane
 * layer; the layered pose blend (kernels_blend.h) runs these sums too.
 * Include after a lanes_<isa>.h. */
#ifndef PB_KERNELS_AVERAGE_H
#define PB_KERNELS_AVERAGE_H

#include "internal.h"
#include "lanes_math.h"
#include "kernels_common.h"

/* ------------------------------------------------------------ averages */

/* Weighted sums over k samples run sample-major over chunks of PB_CHUNK
 * joints, the running sums kept in a small buffer: each block's work for one
 * sample (a log, a ln) is then independent of the next block's, so the
 * out-of-order core overlaps many of them. Block-major, a block's k logs and
 * its final exp form one long chain the core cannot see past. The sums are
 * formed in the same order either way (same results). */
#define PB_CHUNK 64
PB_INLINE size_t chunk_len(size_t n, size_t c) { return n - c < PB_CHUNK ? n - c : PB_CHUNK; }
/* Whether a chunk of m elements sums k terms in registers, block by block,
 * rather than sample-major through scratch: on the 16-lane backends (32
 * registers), a chunk of at most two blocks and at most PB_SUM_BLOCK terms
 * (one plain sum: the same operations in the same order, the same
 * results). Sample-major, each term's sums go to scratch and come back for
 * the next; at two blocks there is little for that to overlap, and where
 * the scratch's addresses meet an input's in their low 12 bits (the
 * stack's offset within its page varies per process) the input's load
 * waited on the store: pb_pose_blend_layers (log_ref, 4 layers, AVX-512) at
 * 24 joints took 438-511 ns per call over stack offsets 128 bytes apart
 * (AVX2 473-498), in registers 445-459 ns. On AVX2 (16 registers) the sums
 * in registers were 1.03-1.07x slower there (16-31 joints). */
#define PB_SUMS_IN_REGS (PB_LANES >= 16)
PB_INLINE int sums_in_regs(size_t m, size_t k, size_t blocks)
{
    return PB_SUMS_IN_REGS && k <= PB_SUM_BLOCK && m <= blocks * PB_LANES;
}
/* The same for pb_pose_blend_layers' log-space scales (a term keeps three
 * sums and its logarithm's few values live, where a rotation's log keeps
 * more): the 8-lane backends too take them in registers, a whole chunk,
 * while log rotations stay sample-major there (AVX2, 4 layers: raw_ref
 * with log-space scales 0.93x at 16 joints, 0.96-0.98x at 24-32 and 100,
 * level at 33, 48 and 1024; SSE4.1 was 1.05-1.07x slower at 16-31, and
 * k_vec3_blend's sums, whose ln_ratio keeps more values live, 1.03-1.15x
 * slower on AVX2). */
PB_INLINE int v3_sums_in_regs(size_t m, size_t k, size_t blocks)
{
    return PB_LANES == 8 ? k <= PB_SUM_BLOCK : sums_in_regs(m, k, blocks);
}
/* The sample-major loop of a weighted v3 sum: per chunk (elements c ..
 * c+m), PREP once, then for every sample i (weight wi) and block TERM,
 * which sets v3 d, summed as v3_sum_step does; then for every block
 * FINISH, with the block's sum in v3 total. A chunk that sums_in_regs
 * takes the same sums in registers, block by block. */
#define PB_SAMPLE_MAJOR_SUM(n, k, w, PREP, TERM, ...)                                              \
    do {                                                                                           \
        float pb_buf_[9][PB_CHUNK];                                                                \
        const pb_vec3s pb_acc_ = {pb_buf_[0], pb_buf_[1], pb_buf_[2]},                             \
                       pb_S_ = {pb_buf_[3], pb_buf_[4], pb_buf_[5]},                               \
                       pb_C_ = {pb_buf_[6], pb_buf_[7], pb_buf_[8]};                               \
        for (size_t c = 0; c < (n); c += PB_CHUNK) {                                               \
            size_t m = chunk_len((n), c);                                                          \
            PREP;                                                                                  \
            if (sums_in_regs(m, (k), 1)) {                                                         \
                PB_BLOCKS(m, blk, {                                                                \
                    v3 total = v3_splat(0.0f);                                                     \
                    for (size_t i = 0; i < (k); i++) {                                             \
                        vf wi = weight_at((w), i);                                                 \
                        v3 d;                                                                      \
                        TERM;                                                                      \
                        total = v3_fma(d, wi, total);                                              \
                    }                                                                              \
                    __VA_ARGS__;                                                                   \
                });                                                                                \
                continue;                                                                          \
            }                                                                                      \
            for (size_t i = 0; i < (k); i++) {                                                     \
                vf wi = weight_at((w), i);                                                         \
                PB_BLOCKS(m, blk, {                                                                \
                    v3 d;                                                                          \
                    TERM;                                                                          \
                    v3_sum_step(pb_acc_, pb_S_, pb_C_, d, wi, i, (k), blk);                        \
                });                                                                                \
            }                                                                                      \
            PB_BLOCKS(m, blk, {                                                                    \
                v3 total = v3_sum_total(pb_acc_, pb_S_, pb_C_, (k), blk);                          \
                __VA_ARGS__;                                                                       \
            });                                                                                    \
        }                                                                                          \
    } while (0)

/* acc + w s with the product rounded before the sum, not fused: samples that
 * cancel (w and -w on equal samples) then sum to exactly zero on FMA and
 * non-FMA backends alike, and zero has a documented result. */
PB_INLINE vq q_add_weighted(vq acc, vq s, vf w) { return q_add(acc, q_scale(s, w)); }

/* sample i of the averages in the chunk at c */
PB_INLINE vq sample_ld(const pb_samples *smp, size_t i, size_t c, pb_blk blk)
{
    return q_ld(cq_offset(pb_sample_at(smp, i), c), blk);
}
/* and relative to the chunk's reference rc when there is one: rc^-1 s_i */
PB_INLINE vq sample_rel(pb_cquats rc, const pb_samples *smp, size_t i, size_t c, pb_blk blk)
{
    vq q = sample_ld(smp, i, c, blk);
    return rc.w ? q_inv_mul(q_ld(rc, blk), q) : q;
}
/* and back: abs(rc m) stored to the chunk at c, or m without a reference */
PB_INLINE void store_rel(pb_quats out, size_t c, pb_cquats rc, vq m, pb_blk blk)
{
    q_st(q_offset(out, c), rc.w ? q_abs(q_mul(q_ld(rc, blk), m)) : m, blk);
}
#define PB_CHUNK_REF pb_cquats rc = ref.w ? cq_offset(ref, c) : ref

/* raw and raw_ref: abs(ref normalize(sum w_i abs(ref^-1 s_i))). The rotation
 * by a unit ref commutes with the sum and the normalisation, so this is
 * abs(normalize(sum w_i sigma_i s_i)) with sigma_i the sign of
 * (ref^-1 s_i).w = ref.s_i: no quaternion product per sample or per joint,
 * and two fewer roundings. A zero sum gives the reference, as documented. */
PB_INLINE vq raw_finish(vq a, pb_cquats rc, pb_blk blk)
{
    vq m = q_normalize(a);
    if (!rc.w)
        return m;
    vq r = q_ld(rc, blk);
    /* the reference enters the sum only through signs: a NaN or Inf in it
     * must still reach the output, as the formula's products would carry it */
    vf poison = vf_mul(q_dot(r, r), vf_zero());
    m = q_sel(vm_eq(q_dot(a, a), vf_zero()), r, m);
    vq p = {vf_add(m.w, poison), vf_add(m.x, poison), vf_add(m.y, poison), vf_add(m.z, poison)};
    return q_abs(p);
}
/* Block-major, the sum in registers: nothing slow per sample to overlap
 * (the same sums in the same order as sample-major); blocks of PB_SUM_BLOCK
 * samples compensated (two_sum), weights scaled (wscale_of). */
PB_INLINE vq q_zero(void)
{
    vq z = {vf_zero(), vf_zero(), vf_zero(), vf_zero()};
    return z;
}
PB_INLINE void q_two_sum(vq *s, vq *c, vq x)
{
    two_sum(&s->w, &c->w, x.w);
    two_sum(&s->x, &c->x, x.x);
    two_sum(&s->y, &c->y, x.y);
    two_sum(&s->z, &c->z, x.z);
}
static void k_average_raw(size_t n, size_t k, pb_cquats ref, const pb_samples *s, const float *w,
                          pb_quats out)
{
    const pb_wscale ws = wscale_of(k, w);
    if (k <= PB_SUM_BLOCK) { /* one block: the plain sum, weights scaled once */
        float wb[PB_SUM_BLOCK];
        for (size_t i = 0; i < k; i++)
            wb[i] = w[i] * ws.a * ws.b;
        PB_BLOCKS(n, blk, {
            vq a = q_zero();
            vq r = ref.w ? q_ld(ref, blk) : q_identity();
            for (size_t i = 0; i < k; i++) {
                vq q = sample_ld(s, i, 0, blk);
                /* w sigma_i as w with the sign of sigma_i's argument folded in */
                vf side = ref.w ? q_dot(r, q) : q.w;
                a = q_add_weighted(a, q, vf_xorsign(vf_set(wb[i]), side));
            }
            q_st(out, raw_finish(a, ref, blk), blk);
        });
        return;
    }
    PB_BLOCKS(n, blk, {
        vq r = ref.w ? q_ld(ref, blk) : q_identity();
        vq S = q_zero(), C = q_zero();
        for (size_t i0 = 0; i0 < k; i0 += PB_SUM_BLOCK) {
            size_t i1 = k - i0 > PB_SUM_BLOCK ? i0 + PB_SUM_BLOCK : k;
            vq a = q_zero();
            for (size_t i = i0; i < i1; i++) {
                vq q = sample_ld(s, i, 0, blk);
                vf side = ref.w ? q_dot(r, q) : q.w;
                a = q_add_weighted(a, q, vf_xorsign(weight_scaled(w, i, ws), side));
            }
            if (i0 == 0)
                S = a;
            else
                q_two_sum(&S, &C, a);
        }
        q_st(out, raw_finish(q_add(S, C), ref, blk), blk);
    });
}
/* log and log_ref: abs(ref exp(sum w_i log(abs(ref^-1 s_i)))); no abs without
 * ref. The running sum restarts every PB_SUM_BLOCK samples; block sums go
 * into the compensated (S, C) buffers (sums of more than one block only). */
PB_INLINE void v3_two_sum_b(pb_vec3s S, pb_vec3s C, v3 a, int first, pb_blk blk)
{
    if (first) {
        v3_stb(S, a, blk);
        v3_stb(C, v3_splat(0.0f), blk);
        return;
    }
    v3 s = v3_ldb(S, blk), c = v3_ldb(C, blk);
    two_sum(&s.x, &c.x, a.x);
    two_sum(&s.y, &c.y, a.y);
    two_sum(&s.z, &c.z, a.z);
    v3_stb(S, s, blk);
    v3_stb(C, c, blk);
}
/* the running sum's step for sample i: acc <- acc + d wi (from zero at a
 * block start), folded into (S, C) at a block end */
PB_INLINE void v3_sum_step(pb_vec3s acc, pb_vec3s S, pb_vec3s C, v3 d, vf wi, size_t i, size_t k,
                           pb_blk blk)
{
    v3 a = v3_fma(d, wi, (i % PB_SUM_BLOCK) ? v3_ldb(acc, blk) : v3_splat(0.0f));
    if (sum_block_end(i, k))
        v3_two_sum_b(S, C, a, i < PB_SUM_BLOCK, blk);
    else
        v3_stb(acc, a, blk);
}
/* the whole sum at the finish */
PB_INLINE v3 v3_sum_total(pb_vec3s acc, pb_vec3s S, pb_vec3s C, size_t k, pb_blk blk)
{
    return k > PB_SUM_BLOCK ? v3_add(v3_ldb(S, blk), v3_ldb(C, blk)) : v3_ldb(acc, blk);
}
static void k_average_log(size_t n, size_t k, pb_cquats ref, const pb_samples *s, const float *w,
                          pb_quats out)
{
    PB_SAMPLE_MAJOR_SUM(n, k, w, PB_CHUNK_REF, d = q_log_abs(sample_rel(rc, s, i, c, blk)),
                        store_rel(out, c, rc, q_exp(total), blk));
}

PB_INLINE void b_average_basic(size_t k, const pb_samples *smp, const float *w, pb_wscale ws,
                               pb_quats out, pb_blk blk)
{
    /* the hemisphere of the running sum S + a (S = 0 in the first block) */
    vq S = q_zero(), C = q_zero();
    for (size_t i0 = 0; i0 < k; i0 += PB_SUM_BLOCK) {
        size_t i1 = k - i0 > PB_SUM_BLOCK ? i0 + PB_SUM_BLOCK : k;
        vq a = q_zero();
        for (size_t i = i0; i < i1; i++) {
            vq s = q_align(i0 ? q_add(S, a) : a, q_ld(pb_sample_at(smp, i), blk));
            a = q_add_weighted(a, s, weight_scaled(w, i, ws));
        }
        if (i0 == 0)
            S = a;
        else
            q_two_sum(&S, &C, a);
    }
    q_st(out, q_normalize(q_abs(k > PB_SUM_BLOCK ? q_add(S, C) : S)), blk);
}
static void k_average_basic(size_t n, size_t k, const pb_samples *s, const float *w, pb_quats out)
{
    const pb_wscale ws = wscale_of(k, w);
    PB_BLOCKS(n, blk, b_average_basic(k, s, w, ws, out, blk));
}

/* Symmetric 4x4 eigen-solve, one matrix per lane, by cyclic Jacobi with a fixed
 * number of sweeps: branch-free across lanes and the same operation sequence
 * in every backend. Six sweeps take float matrices to convergence (Jacobi is
 * quadratic once the off-diagonal is small). */
#define PB_JACOBI_SWEEPS 6

typedef struct {
    vf a[4][4];
    vf v[4][4];
} pb_sym4;

PB_INLINE void jacobi_rotate(pb_sym4 *m, int p, int q)
{
    vf apq = m->a[p][q];
    vm skip = vm_eq(apq, vf_zero());
    vf apq1 = vf_sel(skip, vf_set(1.0f), apq);
    vf theta = vf_div(vf_sub(m->a[q][q], m->a[p][p]), vf_add(apq1, apq1));
    /* t = sign(theta) / (|theta| + sqrt(theta^2 + 1)); when theta^2 overflows
     * the sum is Inf and t = 0, the right limit */
    vf at = vf_abs(theta);
    vf t = vf_div(vf_set(1.0f), vf_add(at, vf_sqrt(vf_fma(at, at, vf_set(1.0f)))));
    t = vf_xorsign(t, theta);
    t = vf_sel(skip, vf_zero(), t);
    vf c = vf_div(vf_set(1.0f), vf_sqrt(vf_fma(t, t, vf_set(1.0f))));
    vf s = vf_mul(t, c);
    vf tapq = vf_mul(t, apq);
    m->a[p][p] = vf_sub(m->a[p][p], tapq);
    m->a[q][q] = vf_add(m->a[q][q], tapq);
    m->a[p][q] = m->a[q][p] = vf_zero();
    for (int r = 0; r < 4; r++) {
        if (r != p && r != q) {
            vf arp = m->a[r][p], arq = m->a[r][q];
            m->a[r][p] = m->a[p][r] = vf_fnma(s, arq, vf_mul(c, arp));
            m->a[r][q] = m->a[q][r] = vf_fma(s, arp, vf_mul(c, arq));
        }
        vf vrp = m->v[r][p], vrq = m->v[r][q];
        m->v[r][p] = vf_fnma(s, vrq, vf_mul(c, vrp));
        m->v[r][q] = vf_fma(s, vrp, vf_mul(c, vrq));
    }
}

PB_INLINE vq dominant_eigenvector(pb_sym4 *m)
{
    for (int sweep = 0; sweep < PB_JACOBI_SWEEPS; sweep++)
        for (int p = 0; p < 3; p++)
            for (int q = p + 1; q < 4; q++)
                jacobi_rotate(m, p, q);
    vf best = m->a[0][0];
    vq r = {m->v[0][0], m->v[1][0], m->v[2][0], m->v[3][0]};
    for (int j = 1; j < 4; j++) {
        vm better = vm_gt(m->a[j][j], best);
        best = vf_sel(better, m->a[j][j], best);
        vq c = {m->v[0][j], m->v[1][j], m->v[2][j], m->v[3][j]};
        r = q_sel(better, c, r);
    }
    return r;
}

PB_INLINE void b_average_accurate(size_t k, const pb_samples *smp, const float *w, pb_wscale ws,
                                  pb_quats out, pb_blk blk)
{
    pb_sym4 m;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            m.a[i][j] = vf_zero();
            m.v[i][j] = vf_set(i == j ? 1.0f : 0.0f);
        }
    /* blocks of PB_SUM_BLOCK samples, compensated across blocks (S: m.a,
     * C: cm) */
    vf cm[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            cm[i][j] = vf_zero();
    for (size_t i0 = 0; i0 < k; i0 += PB_SUM_BLOCK) {
        size_t i1 = k - i0 > PB_SUM_BLOCK ? i0 + PB_SUM_BLOCK : k;
        vf b[4][4];
        for (int r = 0; r < 4; r++)
            for (int col = r; col < 4; col++)
                b[r][col] = vf_zero();
        for (size_t i = i0; i < i1; i++) {
            vq s = q_ld(pb_sample_at(smp, i), blk);
            vf c[4] = {s.w, s.x, s.y, s.z};
            vf wi = weight_scaled(w, i, ws);
            /* each term rounded on its own (no FMA into the sum): equal samples
             * with weights +w and -w then cancel exactly, on every backend */
            for (int r = 0; r < 4; r++)
                for (int col = r; col < 4; col++)
                    b[r][col] = vf_add(b[r][col], vf_mul(wi, vf_mul(c[r], c[col])));
        }
        for (int r = 0; r < 4; r++)
            for (int col = r; col < 4; col++) {
                if (i0 == 0)
                    m.a[r][col] = b[r][col];
                else
                    two_sum(&m.a[r][col], &cm[r][col], b[r][col]);
            }
    }
    if (k > PB_SUM_BLOCK)
        for (int r = 0; r < 4; r++)
            for (int col = r; col < 4; col++)
                m.a[r][col] = vf_add(m.a[r][col], cm[r][col]);
    /* Scale to unit trace so tiny or huge weights neither underflow nor
     * overflow in the rotations; a zero matrix keeps the identity basis, whose
     * first column (the identity quaternion) is then the answer. */
    vf tr = vf_add(vf_add(m.a[0][0], m.a[1][1]), vf_add(m.a[2][2], m.a[3][3]));
    vf atr = vf_abs(tr);
    vf inv = vf_div(vf_set(1.0f), vf_sel(vm_eq(atr, vf_zero()), vf_set(1.0f), atr));
    for (int r = 0; r < 4; r++)
        for (int col = r; col < 4; col++)
            m.a[col][r] = m.a[r][col] = vf_mul(m.a[r][col], inv);
    q_st(out, q_abs(dominant_eigenvector(&m)), blk);
}
static void k_average_accurate(size_t n, size_t k, const pb_samples *s, const float *w,
                               pb_quats out)
{
    const pb_wscale ws = wscale_of(k, w);
    PB_BLOCKS(n, blk, b_average_accurate(k, s, w, ws, out, blk));
}

/* Pose blend of translations (sum w_i (p_i - ref) + ref) or scales in log
 * space (ref exp(sum w_i ln(s_i / ref))); ref absent: zero / one. */
/* Translations block-major: with nothing slow per sample to overlap, the sums
 * stay in registers. */
PB_INLINE void b_vec3_blend_linear(size_t k, pb_cvec3s ref, const pb_cvec3s *s, const float *w,
                                   pb_vec3s out, pb_blk blk)
{
    /* blocks of PB_SUM_BLOCK samples, compensated across blocks */
    v3 r = ref.x ? v3_ld(ref, blk) : v3_splat(0.0f);
    v3 S = v3_splat(0.0f), C = v3_splat(0.0f);
    for (size_t i0 = 0; i0 < k; i0 += PB_SUM_BLOCK) {
        size_t i1 = k - i0 > PB_SUM_BLOCK ? i0 + PB_SUM_BLOCK : k;
        v3 a = v3_splat(0.0f);
        if (!ref.x)
            for (size_t i = i0; i < i1; i++)
                a = v3_fma(v3_ld(s[i], blk), weight_at(w, i), a);
        else
            for (size_t i = i0; i < i1; i++)
                a = v3_fma(v3_sub(v3_ld(s[i], blk), r), weight_at(w, i), a);
        if (i0 == 0) {
            S = a;
        } else {
            two_sum(&S.x, &C.x, a.x);
            two_sum(&S.y, &C.y, a.y);
            two_sum(&S.z, &C.z, a.z);
        }
    }
    if (k > PB_SUM_BLOCK)
        S = v3_add(S, C);
    v3_st(out, ref.x ? v3_add(S, r) : S, blk);
}
/* Scales sample-major (PB_SAMPLE_MAJOR_SUM), so that the logs of
 * neighbouring blocks overlap; ln(s_i / ref) as v3_ln_ratio (no rounded
 * ratio). */
static void k_vec3_blend(size_t n, size_t k, pb_cvec3s ref, const pb_cvec3s *s, const float *w,
                         int log_space, pb_vec3s out)
{
    if (!log_space) {
        PB_BLOCKS(n, blk, b_vec3_blend_linear(k, ref, s, w, out, blk));
        return;
    }
    PB_SAMPLE_MAJOR_SUM(
        n, k, w, pb_cvec3s rc = ref.x ? cv3_offset(ref, c) : ref,
        {
            v3 p = v3_ld(cv3_offset(s[i], c), blk);
            d = rc.x ? v3_ln_ratio(p, v3_ld(rc, blk)) : v3_ln(p);
        },
        {
            v3 e = v3_exp(total);
            v3_st(v3_offset(out, c), rc.x ? v3_mul(e, v3_ld(rc, blk)) : e, blk);
        });
}

PB_INLINE void b_sin_half_angle(pb_cquats a, pb_cquats b, float *out, pb_blk blk)
{
    vq d = q_inv_mul(q_ld(a, blk), q_ld(b, blk));
    v3 v = q_vec(d);
    st(out, vf_sqrt(vf_div(v3_dot(v, v), q_dot(d, d))), blk);
}
static void k_sin_half_angle(size_t n, pb_cquats a, pb_cquats b, float *out)
{
    PB_BLOCKS(n, blk, b_sin_half_angle(a, b, out, blk));
}

/* this family's rows of the kernel table (kernels.h) */
#define PB_AVERAGE_KERNELS                                                                         \
    .average_raw = k_average_raw, .average_log = k_average_log,                                    \
    .average_accurate = k_average_accurate, .average_basic = k_average_basic,                      \
    .sin_half_angle = k_sin_half_angle, .vec3_blend = k_vec3_blend,

#endif
