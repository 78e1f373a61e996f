/* 16-lane layer over AVX-512 F/DQ/BW/VL (through SIMDe); masks are k-registers.
 * Built natively with -mavx512*, or for AVX2 hardware as a test-only
 * emulated backend (SIMDe splits each op in two 256-bit halves). */
#ifndef PB_LANES_AVX512_H
#define PB_LANES_AVX512_H

#include <stddef.h>
#include <stdint.h>
#include <simde/x86/avx512.h>

#define PB_LANES 16
#if defined(PB_EMULATED)
#define PB_ISA "avx512 (emulated)"
#else
#define PB_ISA "avx512"
#endif
#define PB_INLINE static inline __attribute__((always_inline))

typedef simde__m512 vf;
typedef simde__mmask16 vm;

PB_INLINE vf vf_set(float a) { return simde_mm512_set1_ps(a); }
PB_INLINE vf vf_load(const float *p) { return simde_mm512_loadu_ps(p); }
PB_INLINE void vf_store(float *p, vf v) { simde_mm512_storeu_ps(p, v); }
#if defined(SIMDE_X86_AVX512F_NATIVE)
/* tails: masked loads and stores (SIMDe 0.7.4 has no emulation of them, so
 * the emulated backend keeps the buffered tails of lanes_common.h) */
#define PB_HAVE_PART 1
PB_INLINE vf vf_load_part(const float *p, size_t cnt)
{
    return _mm512_mask_loadu_ps(_mm512_set1_ps(p[0]), (__mmask16)((1u << cnt) - 1u), p);
}
PB_INLINE void vf_store_part(float *p, vf v, size_t cnt)
{
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << cnt) - 1u), v);
}
#define PB_HAVE_STORE_HIGH 1
PB_INLINE void vf_store_high(float *p, vf v, size_t lo)
{
    _mm512_mask_storeu_ps(p, (__mmask16)(0xffffu << lo), v);
}
#endif
PB_INLINE vf vf_add(vf a, vf b) { return simde_mm512_add_ps(a, b); }
PB_INLINE vf vf_sub(vf a, vf b) { return simde_mm512_sub_ps(a, b); }
PB_INLINE vf vf_mul(vf a, vf b) { return simde_mm512_mul_ps(a, b); }
PB_INLINE vf vf_div(vf a, vf b) { return simde_mm512_div_ps(a, b); }
PB_INLINE vf vf_sqrt(vf a) { return simde_mm512_sqrt_ps(a); }
#if defined(PB_DETERMINISTIC)
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_mm512_add_ps(simde_mm512_mul_ps(a, b), c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_mm512_sub_ps(c, simde_mm512_mul_ps(a, b)); }
#else
#if !defined(PB_EMULATED) /* SIMDe's emulation need not fuse */
#define PB_FUSED 1        /* vf_fma rounds once */
#endif
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_mm512_fmadd_ps(a, b, c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_mm512_fnmadd_ps(a, b, c); }
#endif
PB_INLINE vf vf_min(vf a, vf b) { return simde_mm512_min_ps(a, b); }
PB_INLINE vf vf_max(vf a, vf b) { return simde_mm512_max_ps(a, b); }

#define PB_I(a) simde_mm512_castps_si512(a)
#define PB_F(a) simde_mm512_castsi512_ps(a)
PB_INLINE vf vf_band(vf a, vf b) { return PB_F(simde_mm512_and_si512(PB_I(a), PB_I(b))); }
PB_INLINE vf vf_bor(vf a, vf b) { return PB_F(simde_mm512_or_si512(PB_I(a), PB_I(b))); }
PB_INLINE vf vf_bxor(vf a, vf b) { return PB_F(simde_mm512_xor_si512(PB_I(a), PB_I(b))); }
PB_INLINE vf vf_shr23(vf a) { return PB_F(simde_mm512_srli_epi32(PB_I(a), 23)); }
/* lanes whose bits, as a 32-bit integer, are >= 0 */
PB_INLINE vm vm_i32_ge0(vf a)
{
    return simde_mm512_cmpgt_epi32_mask(PB_I(a), simde_mm512_set1_epi32(-1));
}
PB_INLINE vf vf_shl23(vf a) { return PB_F(simde_mm512_slli_epi32(PB_I(a), 23)); }
PB_INLINE vf vf_iadd(vf a, vf b) { return PB_F(simde_mm512_add_epi32(PB_I(a), PB_I(b))); }
#undef PB_I
#undef PB_F

PB_INLINE vm vm_lt(vf a, vf b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_LT_OQ); }
PB_INLINE vm vm_le(vf a, vf b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_LE_OQ); }
PB_INLINE vm vm_gt(vf a, vf b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GT_OQ); }
PB_INLINE vm vm_ge(vf a, vf b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GE_OQ); }
PB_INLINE vm vm_eq(vf a, vf b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_EQ_OQ); }
PB_INLINE vm vm_and(vm a, vm b) { return (vm)(a & b); }
PB_INLINE vm vm_or(vm a, vm b) { return (vm)(a | b); }
PB_INLINE vm vm_andnot(vm a, vm b) { return (vm)(a & (vm)~b); }
PB_INLINE vm vm_not(vm a) { return (vm)~a; }
PB_INLINE vf vf_sel(vm m, vf a, vf b) { return simde_mm512_mask_blend_ps(m, b, a); }
PB_INLINE int vm_any(vm m) { return m != 0; }
PB_INLINE int vm_all(vm m) { return m == 0xffff; }

/* Strided lanes (kernels_skeleton.h): natively hardware gathers and
 * scatters (32-bit indices: strides up to 2^31 / 16, else lane fills);
 * the emulated backend keeps lanes_common.h's lane fills */
#if defined(SIMDE_X86_AVX512F_NATIVE)
#define PB_HAVE_STRIDE 1
#define PB_STRIDE_GATHER_MAX ((size_t)INT32_MAX / 16)
PB_INLINE __m512i pb__stride_idx(size_t s)
{
    return _mm512_mullo_epi32(
        _mm512_set1_epi32((int32_t)s),
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}
PB_INLINE vf vf_load_stride_part(const float *p, size_t s, size_t cnt)
{
    if (cnt == 1) /* a single pose: a broadcast */
        return _mm512_set1_ps(p[0]);
    if (s > PB_STRIDE_GATHER_MAX) {
        float b[16];
        for (size_t l = 0; l < 16; l++)
            b[l] = p[(l < cnt ? l : 0) * s];
        return _mm512_loadu_ps(b);
    }
    return _mm512_mask_i32gather_ps(_mm512_set1_ps(p[0]), (__mmask16)((1u << cnt) - 1u),
                                    pb__stride_idx(s), p, 4);
}
PB_INLINE vf vf_load_stride(const float *p, size_t s)
{
    if (s > PB_STRIDE_GATHER_MAX)
        return vf_load_stride_part(p, s, 16);
    return _mm512_i32gather_ps(pb__stride_idx(s), p, 4);
}
PB_INLINE void vf_store_stride_part(float *p, size_t s, vf v, size_t cnt)
{
    if (s > PB_STRIDE_GATHER_MAX) {
        float b[16];
        _mm512_storeu_ps(b, v);
        for (size_t l = 0; l < cnt && l < 16; l++)
            p[l * s] = b[l];
        return;
    }
    _mm512_mask_i32scatter_ps(p, (__mmask16)((1u << cnt) - 1u), pb__stride_idx(s), v, 4);
}
PB_INLINE void vf_store_stride(float *p, size_t s, vf v)
{
    if (s > PB_STRIDE_GATHER_MAX) {
        vf_store_stride_part(p, s, v, 16);
        return;
    }
    _mm512_i32scatter_ps(p, pb__stride_idx(s), v, 4);
}
/* indexed lanes: a masked hardware gather */
#define PB_HAVE_GATHER 1
PB_INLINE vf vf_gather_ge0(const float *p, vf idx, vf fill)
{
    return _mm512_mask_i32gather_ps(fill, vm_i32_ge0(idx), _mm512_castps_si512(idx), p, 4);
}
#endif

/* Tiles (kernels_skeleton.h): natively 16x16 register transposes (4x4
 * inside each 128-bit lane, then 4x4 of the 128-bit blocks); the emulated
 * backend keeps lanes_common.h's buffered ones */
#if defined(SIMDE_X86_AVX512F_NATIVE)
#define PB_HAVE_TILE 1
PB_INLINE void pb__t16(vf *r)
{
    vf t[16], s[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int g = 0; g < 16; g += 4) {
        s[g] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44);
        s[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xEE);
        s[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        s[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
    }
    /* s[4g + k]: columns k, k+4, k+8, k+12 of rows 4g..4g+3, a 128-bit lane
     * each */
    for (int k = 0; k < 4; k++) {
        vf x0 = _mm512_shuffle_f32x4(s[k], s[4 + k], 0x44),
           x1 = _mm512_shuffle_f32x4(s[k], s[4 + k], 0xEE);
        vf y0 = _mm512_shuffle_f32x4(s[8 + k], s[12 + k], 0x44),
           y1 = _mm512_shuffle_f32x4(s[8 + k], s[12 + k], 0xEE);
        r[k] = _mm512_shuffle_f32x4(x0, y0, 0x88);
        r[k + 4] = _mm512_shuffle_f32x4(x0, y0, 0xDD);
        r[k + 8] = _mm512_shuffle_f32x4(x1, y1, 0x88);
        r[k + 12] = _mm512_shuffle_f32x4(x1, y1, 0xDD);
    }
}
PB_INLINE void vf_load_tile(const float *p, size_t s, vf *c)
{
    for (size_t r = 0; r < 16; r++)
        c[r] = _mm512_loadu_ps(p + r * s);
    pb__t16(c);
}
PB_INLINE void vf_store_tile(float *p, size_t s, const vf *c)
{
    vf r[16];
    for (int k = 0; k < 16; k++)
        r[k] = c[k];
    pb__t16(r);
    for (size_t k = 0; k < 16; k++)
        _mm512_storeu_ps(p + k * s, r[k]);
}
#endif

/* Interleaved xyz elements <-> lanes (kernels_layout.h, kernels_skin.h):
 * 16 elements of 3 floats (three vectors) through two two-source
 * permutations per component */
#define PB_HAVE_AOS3 1
/* lane i of component k is float 3i + k of 48: from the first two vectors
 * where that is below 32, else from the third */
PB_INLINE void aos_load3(const float *p, vf c[3])
{
    const vf a = simde_mm512_loadu_ps(p), b = simde_mm512_loadu_ps(p + 16),
             d = simde_mm512_loadu_ps(p + 32);
    for (int k = 0; k < 3; k++) {
        int32_t i1[16], i2[16];
        for (int i = 0; i < 16; i++) {
            const int s = 3 * i + k;
            i1[i] = s < 32 ? s : 0;
            i2[i] = s < 32 ? i : 16 + (s - 32);
        }
        const vf t = simde_mm512_permutex2var_ps(a, simde_mm512_loadu_si512(i1), b);
        c[k] = simde_mm512_permutex2var_ps(t, simde_mm512_loadu_si512(i2), d);
    }
}
/* float g = 16q + m of 48 (vector q, lane m) is component g % 3 of element
 * g / 3: x or y first, then z */
PB_INLINE void aos_store3(float *p, const vf c[3])
{
    for (int q = 0; q < 3; q++) {
        int32_t i1[16], i2[16];
        for (int m = 0; m < 16; m++) {
            const int g = 16 * q + m, i = g / 3, k = g % 3;
            i1[m] = k == 0 ? i : k == 1 ? 16 + i : 0;
            i2[m] = k == 2 ? 16 + i : m;
        }
        const vf t = simde_mm512_permutex2var_ps(c[0], simde_mm512_loadu_si512(i1), c[1]);
        simde_mm512_storeu_ps(p + 16 * q,
                              simde_mm512_permutex2var_ps(t, simde_mm512_loadu_si512(i2), c[2]));
    }
}

/* Double lanes (kernels_euler.h): 8 a vector, k-register masks */
#define PB_DLANES 8
typedef simde__m512d vd;
typedef simde__mmask8 vmd;
PB_INLINE vd vd_set(double a) { return simde_mm512_set1_pd(a); }
PB_INLINE vd vd_load(const double *p) { return simde_mm512_loadu_pd(p); }
PB_INLINE void vd_store(double *p, vd v) { simde_mm512_storeu_pd(p, v); }
#if defined(SIMDE_X86_AVX512F_NATIVE)
PB_INLINE vd vd_load_f(const float *p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
PB_INLINE vd vd_round_f32(vd a) { return _mm512_cvtps_pd(_mm512_cvtpd_ps(a)); }
PB_INLINE void vd_store_f(float *p, vd v) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(v)); }
#else /* SIMDe 0.7.4 has no _mm512_cvtps_pd (two halves) nor
       * _mm512_cvtpd_ps (lane by lane) */
PB_INLINE vd vd_load_f(const float *p)
{
    return simde_mm512_insertf64x4(
        simde_mm512_castpd256_pd512(simde_mm256_cvtps_pd(simde_mm_loadu_ps(p))),
        simde_mm256_cvtps_pd(simde_mm_loadu_ps(p + 4)), 1);
}
PB_INLINE void vd_store_f(float *p, vd v)
{
    double b[8];
    simde_mm512_storeu_pd(b, v);
    for (int i = 0; i < 8; i++)
        p[i] = (float)b[i];
}
PB_INLINE vd vd_round_f32(vd a)
{
    double b[8];
    simde_mm512_storeu_pd(b, a);
    for (int i = 0; i < 8; i++)
        b[i] = (double)(float)b[i];
    return simde_mm512_loadu_pd(b);
}
#endif
PB_INLINE vd vd_add(vd a, vd b) { return simde_mm512_add_pd(a, b); }
PB_INLINE vd vd_sub(vd a, vd b) { return simde_mm512_sub_pd(a, b); }
PB_INLINE vd vd_mul(vd a, vd b) { return simde_mm512_mul_pd(a, b); }
PB_INLINE vd vd_div(vd a, vd b) { return simde_mm512_div_pd(a, b); }
PB_INLINE vd vd_sqrt(vd a) { return simde_mm512_sqrt_pd(a); }
#if defined(PB_DETERMINISTIC)
PB_INLINE vd vd_fma(vd a, vd b, vd c) { return simde_mm512_add_pd(simde_mm512_mul_pd(a, b), c); }
#else
PB_INLINE vd vd_fma(vd a, vd b, vd c) { return simde_mm512_fmadd_pd(a, b, c); }
#endif
PB_INLINE vd vd_round(vd a)
{
    return simde_mm512_roundscale_pd(a, SIMDE_MM_FROUND_TO_NEAREST_INT | SIMDE_MM_FROUND_NO_EXC);
}
PB_INLINE vd vd_band(vd a, vd b) { return simde_mm512_and_pd(a, b); }
PB_INLINE vd vd_bor(vd a, vd b) { return simde_mm512_or_pd(a, b); }
PB_INLINE vd vd_bxor(vd a, vd b) { return simde_mm512_xor_pd(a, b); }
PB_INLINE vmd vmd_lt(vd a, vd b) { return simde_mm512_cmp_pd_mask(a, b, SIMDE_CMP_LT_OQ); }
PB_INLINE vmd vmd_le(vd a, vd b) { return simde_mm512_cmp_pd_mask(a, b, SIMDE_CMP_LE_OQ); }
PB_INLINE vmd vmd_gt(vd a, vd b) { return simde_mm512_cmp_pd_mask(a, b, SIMDE_CMP_GT_OQ); }
PB_INLINE vmd vmd_ge(vd a, vd b) { return simde_mm512_cmp_pd_mask(a, b, SIMDE_CMP_GE_OQ); }
PB_INLINE vmd vmd_eq(vd a, vd b) { return simde_mm512_cmp_pd_mask(a, b, SIMDE_CMP_EQ_OQ); }
PB_INLINE vmd vmd_and(vmd a, vmd b) { return (vmd)(a & b); }
PB_INLINE vmd vmd_or(vmd a, vmd b) { return (vmd)(a | b); }
PB_INLINE vmd vmd_andnot(vmd a, vmd b) { return (vmd)(a & (vmd)~b); }
PB_INLINE vmd vmd_not(vmd a) { return (vmd)~a; }
PB_INLINE vd vd_sel(vmd m, vd a, vd b) { return simde_mm512_mask_blend_pd(m, b, a); }
PB_INLINE int vmd_any(vmd m) { return m != 0; }
PB_INLINE unsigned vmd_bits(vmd m) { return (unsigned)m; }

#include "lanes_common.h"

#endif
