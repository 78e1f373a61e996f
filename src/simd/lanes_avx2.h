/* 8-lane layer over AVX2 + FMA (through SIMDe). */
#ifndef PB_LANES_AVX2_H
#define PB_LANES_AVX2_H

#include <stddef.h>
#include <stdint.h>
#include <simde/x86/avx2.h>
#include <simde/x86/fma.h>

#define PB_LANES 8
#define PB_ISA "avx2"
#define PB_INLINE static inline __attribute__((always_inline))

typedef simde__m256 vf;
typedef simde__m256 vm;

PB_INLINE vf vf_set(float a) { return simde_mm256_set1_ps(a); }
PB_INLINE vf vf_load(const float *p) { return simde_mm256_loadu_ps(p); }
PB_INLINE void vf_store(float *p, vf v) { simde_mm256_storeu_ps(p, v); }
/* tails: masked loads and stores (masked-off lanes never fault) */
PB_INLINE simde__m256i pb__tail_mask(size_t cnt)
{
    static const int32_t t[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return simde_mm256_loadu_si256((const simde__m256i *)(const void *)(t + 8 - cnt));
}
#define PB_HAVE_PART 1
PB_INLINE vf vf_load_part(const float *p, size_t cnt)
{
    simde__m256i m = pb__tail_mask(cnt);
    return simde_mm256_blendv_ps(simde_mm256_set1_ps(p[0]), simde_mm256_maskload_ps(p, m),
                                 simde_mm256_castsi256_ps(m));
}
/* lane-wise (at most three stores): a masked store (vmaskmovps) is
 * microcoded on AMD Zen, several times a whole block's stores */
PB_INLINE void vf_store_part(float *p, vf v, size_t cnt)
{
    simde__m128 h = simde_mm256_castps256_ps128(v);
    if (cnt & 4) {
        simde_mm_storeu_ps(p, h);
        h = simde_mm256_extractf128_ps(v, 1);
        p += 4;
    }
    if (cnt & 2) {
        simde_mm_storel_pi((simde__m64 *)(void *)p, h);
        h = simde_mm_movehl_ps(h, h);
        p += 2;
    }
    if (cnt & 1)
        simde_mm_store_ss(p, h);
}
/* the same from the top: lanes lo .. 7 to p + lo .. p + 7 */
#define PB_HAVE_STORE_HIGH 1
PB_INLINE void vf_store_high(float *p, vf v, size_t lo)
{
    const size_t cnt = 8 - lo;
    simde__m128 h = simde_mm256_extractf128_ps(v, 1);
    float *end = p + 8; /* the kept lanes of h end here */
    if (cnt & 4) {
        simde_mm_storeu_ps(p + 4, h);
        h = simde_mm256_castps256_ps128(v);
        end = p + 4;
    }
    if (cnt & 2)
        simde_mm_storeh_pi((simde__m64 *)(void *)(end - 2), h);
    if ((cnt & 3) == 1)
        simde_mm_store_ss(end - 1, simde_mm_shuffle_ps(h, h, SIMDE_MM_SHUFFLE(3, 3, 3, 3)));
    else if ((cnt & 3) == 3)
        simde_mm_store_ss(end - 3, simde_mm_shuffle_ps(h, h, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
}
PB_INLINE vf vf_add(vf a, vf b) { return simde_mm256_add_ps(a, b); }
PB_INLINE vf vf_sub(vf a, vf b) { return simde_mm256_sub_ps(a, b); }
PB_INLINE vf vf_mul(vf a, vf b) { return simde_mm256_mul_ps(a, b); }
PB_INLINE vf vf_div(vf a, vf b) { return simde_mm256_div_ps(a, b); }
PB_INLINE vf vf_sqrt(vf a) { return simde_mm256_sqrt_ps(a); }
#if defined(PB_DETERMINISTIC)
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_mm256_add_ps(simde_mm256_mul_ps(a, b), c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_mm256_sub_ps(c, simde_mm256_mul_ps(a, b)); }
#else
#define PB_FUSED 1 /* vf_fma rounds once */
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_mm256_fmadd_ps(a, b, c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_mm256_fnmadd_ps(a, b, c); }
#endif
PB_INLINE vf vf_min(vf a, vf b) { return simde_mm256_min_ps(a, b); }
PB_INLINE vf vf_max(vf a, vf b) { return simde_mm256_max_ps(a, b); }

PB_INLINE vf vf_band(vf a, vf b) { return simde_mm256_and_ps(a, b); }
PB_INLINE vf vf_bor(vf a, vf b) { return simde_mm256_or_ps(a, b); }
PB_INLINE vf vf_bxor(vf a, vf b) { return simde_mm256_xor_ps(a, b); }
PB_INLINE vf vf_shr23(vf a)
{
    return simde_mm256_castsi256_ps(simde_mm256_srli_epi32(simde_mm256_castps_si256(a), 23));
}
PB_INLINE vf vf_shl23(vf a)
{
    return simde_mm256_castsi256_ps(simde_mm256_slli_epi32(simde_mm256_castps_si256(a), 23));
}
/* lanes whose bits, as a 32-bit integer, are >= 0 */
PB_INLINE vm vm_i32_ge0(vf a)
{
    return simde_mm256_castsi256_ps(
        simde_mm256_cmpgt_epi32(simde_mm256_castps_si256(a), simde_mm256_set1_epi32(-1)));
}
PB_INLINE vf vf_iadd(vf a, vf b)
{
    return simde_mm256_castsi256_ps(
        simde_mm256_add_epi32(simde_mm256_castps_si256(a), simde_mm256_castps_si256(b)));
}

PB_INLINE vm vm_lt(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ); }
PB_INLINE vm vm_le(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LE_OQ); }
PB_INLINE vm vm_gt(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ); }
PB_INLINE vm vm_ge(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ); }
PB_INLINE vm vm_eq(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_EQ_OQ); }
PB_INLINE vm vm_and(vm a, vm b) { return simde_mm256_and_ps(a, b); }
PB_INLINE vm vm_or(vm a, vm b) { return simde_mm256_or_ps(a, b); }
PB_INLINE vm vm_andnot(vm a, vm b) { return simde_mm256_andnot_ps(b, a); }
PB_INLINE vm vm_not(vm a)
{
    return simde_mm256_xor_ps(a, simde_mm256_castsi256_ps(simde_mm256_set1_epi32(-1)));
}
PB_INLINE vf vf_sel(vm m, vf a, vf b) { return simde_mm256_blendv_ps(b, a, m); }
PB_INLINE int vm_any(vm m) { return simde_mm256_movemask_ps(m) != 0; }
PB_INLINE int vm_all(vm m) { return simde_mm256_movemask_ps(m) == 0xff; }

/* Interleaved elements <-> lanes (kernels_layout.h): 4x4 transposes per 128-bit half */
#define PB_HAVE_AOS4 1
/* 4x4 transposes inside each 128-bit half */
PB_INLINE void aos_t4(vf *a, vf *b, vf *c, vf *d)
{
    vf t0 = simde_mm256_unpacklo_ps(*a, *b), t1 = simde_mm256_unpacklo_ps(*c, *d);
    vf t2 = simde_mm256_unpackhi_ps(*a, *b), t3 = simde_mm256_unpackhi_ps(*c, *d);
    *a = simde_mm256_shuffle_ps(t0, t1, SIMDE_MM_SHUFFLE(1, 0, 1, 0));
    *b = simde_mm256_shuffle_ps(t0, t1, SIMDE_MM_SHUFFLE(3, 2, 3, 2));
    *c = simde_mm256_shuffle_ps(t2, t3, SIMDE_MM_SHUFFLE(1, 0, 1, 0));
    *d = simde_mm256_shuffle_ps(t2, t3, SIMDE_MM_SHUFFLE(3, 2, 3, 2));
}
PB_INLINE void aos_load4(const float *p, vf c[4])
{
    /* r0 = e0 e1, r1 = e2 e3, r2 = e4 e5, r3 = e6 e7 (an element per half):
     * pair halves so that the low halves hold e0..e3, the high ones e4..e7 */
    vf r0 = vf_load(p), r1 = vf_load(p + 8), r2 = vf_load(p + 16), r3 = vf_load(p + 24);
    c[0] = simde_mm256_permute2f128_ps(r0, r2, 0x20); /* e0 | e4 */
    c[1] = simde_mm256_permute2f128_ps(r0, r2, 0x31); /* e1 | e5 */
    c[2] = simde_mm256_permute2f128_ps(r1, r3, 0x20); /* e2 | e6 */
    c[3] = simde_mm256_permute2f128_ps(r1, r3, 0x31); /* e3 | e7 */
    aos_t4(&c[0], &c[1], &c[2], &c[3]);
}
PB_INLINE void aos_store4(float *p, const vf c[4])
{
    vf a = c[0], b = c[1], e = c[2], d = c[3];
    aos_t4(&a, &b, &e, &d); /* a = e0 | e4, b = e1 | e5, e = e2 | e6, d = e3 | e7 */
    vf_store(p, simde_mm256_permute2f128_ps(a, b, 0x20));
    vf_store(p + 8, simde_mm256_permute2f128_ps(e, d, 0x20));
    vf_store(p + 16, simde_mm256_permute2f128_ps(a, b, 0x31));
    vf_store(p + 24, simde_mm256_permute2f128_ps(e, d, 0x31));
}

/* Strided lanes (kernels_skeleton.h): whole blocks by hardware gathers
 * (32-bit indices: strides up to 2^31 / 8, else lane inserts); no scatter
 * in AVX2, so stores go lane by lane from the two halves */
#define PB_HAVE_STRIDE 1
#define PB_STRIDE_GATHER_MAX ((size_t)INT32_MAX / 8)
PB_INLINE simde__m256i pb__stride_idx(size_t s)
{
    return simde_mm256_mullo_epi32(simde_mm256_set1_epi32((int32_t)s),
                                   simde_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
PB_INLINE vf vf_load_stride(const float *p, size_t s)
{
    if (s > PB_STRIDE_GATHER_MAX)
        return simde_mm256_setr_ps(p[0], p[s], p[2 * s], p[3 * s], p[4 * s], p[5 * s], p[6 * s],
                                   p[7 * s]);
    return simde_mm256_i32gather_ps(p, pb__stride_idx(s), 4);
}
/* a partial block by lane inserts: a masked gather costs a whole one
 * (on Zen 4 more than the few lane loads of a small block) */
PB_INLINE vf vf_load_stride_part(const float *p, size_t s, size_t cnt)
{
    const float a = p[0];
    return simde_mm256_setr_ps(a, cnt > 1 ? p[s] : a, cnt > 2 ? p[2 * s] : a,
                               cnt > 3 ? p[3 * s] : a, cnt > 4 ? p[4 * s] : a,
                               cnt > 5 ? p[5 * s] : a, cnt > 6 ? p[6 * s] : a, a);
}
PB_INLINE void pb__store_stride4(float *p, size_t s, simde__m128 h, size_t cnt)
{
    p[0] = simde_mm_cvtss_f32(h);
    if (cnt > 1)
        p[s] = simde_mm_cvtss_f32(simde_mm_shuffle_ps(h, h, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
    if (cnt > 2)
        p[2 * s] = simde_mm_cvtss_f32(simde_mm_movehl_ps(h, h));
    if (cnt > 3)
        p[3 * s] = simde_mm_cvtss_f32(simde_mm_shuffle_ps(h, h, SIMDE_MM_SHUFFLE(3, 3, 3, 3)));
}
PB_INLINE void vf_store_stride_part(float *p, size_t s, vf v, size_t cnt)
{
    pb__store_stride4(p, s, simde_mm256_castps256_ps128(v), cnt);
    if (cnt > 4)
        pb__store_stride4(p + 4 * s, s, simde_mm256_extractf128_ps(v, 1), cnt - 4);
}
PB_INLINE void vf_store_stride(float *p, size_t s, vf v) { vf_store_stride_part(p, s, v, 8); }

/* Indexed lanes (kernels_skeleton.h): a masked hardware gather */
#define PB_HAVE_GATHER 1
PB_INLINE vf vf_gather_ge0(const float *p, vf idx, vf fill)
{
    return simde_mm256_mask_i32gather_ps(fill, p, simde_mm256_castps_si256(idx), vm_i32_ge0(idx),
                                         4);
}

/* Tiles (kernels_skeleton.h): 8x8 register transposes (4x4 inside each
 * half, then the halves exchanged) */
#define PB_HAVE_TILE 1
PB_INLINE void pb__t8(vf *r)
{
    vf t[8], s[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = simde_mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = simde_mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int g = 0; g < 8; g += 4) {
        s[g] = simde_mm256_shuffle_ps(t[g], t[g + 2], 0x44);
        s[g + 1] = simde_mm256_shuffle_ps(t[g], t[g + 2], 0xEE);
        s[g + 2] = simde_mm256_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        s[g + 3] = simde_mm256_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
    }
    for (int k = 0; k < 4; k++) {
        r[k] = simde_mm256_permute2f128_ps(s[k], s[k + 4], 0x20);
        r[k + 4] = simde_mm256_permute2f128_ps(s[k], s[k + 4], 0x31);
    }
}
PB_INLINE void vf_load_tile(const float *p, size_t s, vf *c)
{
    for (size_t r = 0; r < 8; r++)
        c[r] = vf_load(p + r * s);
    pb__t8(c);
}
PB_INLINE void vf_store_tile(float *p, size_t s, const vf *c)
{
    vf r[8];
    for (int k = 0; k < 8; k++)
        r[k] = c[k];
    pb__t8(r);
    for (size_t k = 0; k < 8; k++)
        vf_store(p + k * s, r[k]);
}

/* Double lanes (kernels_euler.h): 4 a vector */
#define PB_DLANES 4
typedef simde__m256d vd;
typedef simde__m256d vmd;
PB_INLINE vd vd_set(double a) { return simde_mm256_set1_pd(a); }
PB_INLINE vd vd_load(const double *p) { return simde_mm256_loadu_pd(p); }
PB_INLINE void vd_store(double *p, vd v) { simde_mm256_storeu_pd(p, v); }
PB_INLINE vd vd_load_f(const float *p) { return simde_mm256_cvtps_pd(simde_mm_loadu_ps(p)); }
PB_INLINE vd vd_round_f32(vd a) { return simde_mm256_cvtps_pd(simde_mm256_cvtpd_ps(a)); }
PB_INLINE void vd_store_f(float *p, vd v) { simde_mm_storeu_ps(p, simde_mm256_cvtpd_ps(v)); }
PB_INLINE vd vd_add(vd a, vd b) { return simde_mm256_add_pd(a, b); }
PB_INLINE vd vd_sub(vd a, vd b) { return simde_mm256_sub_pd(a, b); }
PB_INLINE vd vd_mul(vd a, vd b) { return simde_mm256_mul_pd(a, b); }
PB_INLINE vd vd_div(vd a, vd b) { return simde_mm256_div_pd(a, b); }
PB_INLINE vd vd_sqrt(vd a) { return simde_mm256_sqrt_pd(a); }
#if defined(PB_DETERMINISTIC)
PB_INLINE vd vd_fma(vd a, vd b, vd c) { return simde_mm256_add_pd(simde_mm256_mul_pd(a, b), c); }
#else
PB_INLINE vd vd_fma(vd a, vd b, vd c) { return simde_mm256_fmadd_pd(a, b, c); }
#endif
PB_INLINE vd vd_round(vd a)
{
    return simde_mm256_round_pd(a, SIMDE_MM_FROUND_TO_NEAREST_INT | SIMDE_MM_FROUND_NO_EXC);
}
PB_INLINE vd vd_band(vd a, vd b) { return simde_mm256_and_pd(a, b); }
PB_INLINE vd vd_bor(vd a, vd b) { return simde_mm256_or_pd(a, b); }
PB_INLINE vd vd_bxor(vd a, vd b) { return simde_mm256_xor_pd(a, b); }
PB_INLINE vmd vmd_lt(vd a, vd b) { return simde_mm256_cmp_pd(a, b, SIMDE_CMP_LT_OQ); }
PB_INLINE vmd vmd_le(vd a, vd b) { return simde_mm256_cmp_pd(a, b, SIMDE_CMP_LE_OQ); }
PB_INLINE vmd vmd_gt(vd a, vd b) { return simde_mm256_cmp_pd(a, b, SIMDE_CMP_GT_OQ); }
PB_INLINE vmd vmd_ge(vd a, vd b) { return simde_mm256_cmp_pd(a, b, SIMDE_CMP_GE_OQ); }
PB_INLINE vmd vmd_eq(vd a, vd b) { return simde_mm256_cmp_pd(a, b, SIMDE_CMP_EQ_OQ); }
PB_INLINE vmd vmd_and(vmd a, vmd b) { return simde_mm256_and_pd(a, b); }
PB_INLINE vmd vmd_or(vmd a, vmd b) { return simde_mm256_or_pd(a, b); }
PB_INLINE vmd vmd_andnot(vmd a, vmd b) { return simde_mm256_andnot_pd(b, a); }
PB_INLINE vmd vmd_not(vmd a)
{
    return simde_mm256_xor_pd(a, simde_mm256_castsi256_pd(simde_mm256_set1_epi32(-1)));
}
PB_INLINE vd vd_sel(vmd m, vd a, vd b) { return simde_mm256_blendv_pd(b, a, m); }
PB_INLINE int vmd_any(vmd m) { return simde_mm256_movemask_pd(m) != 0; }
PB_INLINE unsigned vmd_bits(vmd m) { return (unsigned)simde_mm256_movemask_pd(m); }

/* Quads (kernels_skin.h): each 128-bit half a group of four lanes, for
 * matrix-per-element work (two elements a vector: a 4-float column per
 * half, splats inside a half) */
#define PB_HAVE_QUADS 1
/* lane k (0..3, a constant) of each half in all four of its lanes */
PB_INLINE vf vf_quad_bcast(vf v, int k)
{
    switch (k) {
    case 0: return simde_mm256_permute_ps(v, 0x00);
    case 1: return simde_mm256_permute_ps(v, 0x55);
    case 2: return simde_mm256_permute_ps(v, 0xaa);
    default: return simde_mm256_permute_ps(v, 0xff);
    }
}
/* v[0], v[1] as a 2x2 matrix of halves, transposed: (a0 | a1), (b0 | b1)
 * -> (a0 | b0), (a1 | b1) */
PB_INLINE void vf_quads_transpose(vf *v)
{
    const vf a = v[0], b = v[1];
    v[0] = simde_mm256_permute2f128_ps(a, b, 0x20);
    v[1] = simde_mm256_permute2f128_ps(a, b, 0x31);
}
/* a 4x4 transpose inside each half of r[0..3] */
PB_INLINE void vf_quad_t4(vf r[4]) { aos_t4(&r[0], &r[1], &r[2], &r[3]); }
/* two xyz triples: half q is p[3q .. 3q+3] (p[6], one float past them, is
 * read: the caller has it); and back: lanes 0..2 of half q to p[3q ..
 * 3q+2] (six floats, nothing else written: one lane permute, a 16-byte
 * and an 8-byte store) */
#define PB_QUADS3_OVER 1 /* vertices read past the triples */
PB_INLINE vf vf_load_quads3(const float *p) { return simde_mm256_loadu2_m128(p + 3, p); }
PB_INLINE void vf_store_quads3(float *p, vf v)
{
    const vf t = simde_mm256_permutevar8x32_ps(v, simde_mm256_setr_epi32(0, 1, 2, 4, 5, 6, 6, 6));
    simde_mm_storeu_ps(p, simde_mm256_castps256_ps128(t));
    simde_mm_storel_pi((simde__m64 *)(void *)(p + 4), simde_mm256_extractf128_ps(t, 1));
}

#include "lanes_common.h"

#endif
