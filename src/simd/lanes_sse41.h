/* 4-lane layer over SSE4.1 (through SIMDe). No FMA on this target, except
 * in the companion table of the AVX2 and AVX-512 backends (PB_SSE41_FMA,
 * compiled with -mfma: dispatch.c runs it for calls too small for their
 * own lanes), whose fused multiply-adds are theirs, so that it computes
 * their bits. */
#ifndef PB_LANES_SSE41_H
#define PB_LANES_SSE41_H

#include <stddef.h>
#include <stdint.h>
#include <simde/x86/sse4.1.h>
#if defined(PB_SSE41_FMA)
#include <simde/x86/fma.h>
#endif

#define PB_LANES 4
#if defined(PB_SSE41_FMA)
#define PB_ISA "sse41+fma"
#else
#define PB_ISA "sse41"
#endif
#define PB_INLINE static inline __attribute__((always_inline))

typedef simde__m128 vf;
typedef simde__m128 vm;

PB_INLINE vf vf_set(float a) { return simde_mm_set1_ps(a); }
PB_INLINE vf vf_load(const float *p) { return simde_mm_loadu_ps(p); }
PB_INLINE void vf_store(float *p, vf v) { simde_mm_storeu_ps(p, v); }
/* tails (cnt 1..3) lane by lane: scalar loads and stores straight from and
 * to the arrays */
#define PB_HAVE_PART 1
PB_INLINE vf vf_load_part(const float *p, size_t cnt)
{
    return simde_mm_setr_ps(p[0], cnt > 1 ? p[1] : p[0], cnt > 2 ? p[2] : p[0], p[0]);
}
PB_INLINE void vf_store_part(float *p, vf v, size_t cnt)
{
    p[0] = simde_mm_cvtss_f32(v);
    if (cnt > 1)
        p[1] = simde_mm_cvtss_f32(simde_mm_shuffle_ps(v, v, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
    if (cnt > 2)
        p[2] = simde_mm_cvtss_f32(simde_mm_movehl_ps(v, v));
}
/* a back tail's lanes lo .. 3 to p + lo .. p + 3 */
#define PB_HAVE_STORE_HIGH 1
PB_INLINE void vf_store_high(float *p, vf v, size_t lo)
{
    if (lo < 3)
        simde_mm_storeh_pi((simde__m64 *)(void *)(p + 2), v);
    else
        p[3] = simde_mm_cvtss_f32(simde_mm_shuffle_ps(v, v, SIMDE_MM_SHUFFLE(3, 3, 3, 3)));
    if (lo == 1)
        p[1] = simde_mm_cvtss_f32(simde_mm_shuffle_ps(v, v, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
}
PB_INLINE vf vf_add(vf a, vf b) { return simde_mm_add_ps(a, b); }
PB_INLINE vf vf_sub(vf a, vf b) { return simde_mm_sub_ps(a, b); }
PB_INLINE vf vf_mul(vf a, vf b) { return simde_mm_mul_ps(a, b); }
PB_INLINE vf vf_div(vf a, vf b) { return simde_mm_div_ps(a, b); }
PB_INLINE vf vf_sqrt(vf a) { return simde_mm_sqrt_ps(a); }
#if defined(PB_SSE41_FMA) && !defined(PB_DETERMINISTIC)
#define PB_FUSED 1 /* vf_fma rounds once */
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_mm_fmadd_ps(a, b, c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_mm_fnmadd_ps(a, b, c); }
#else
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_mm_add_ps(simde_mm_mul_ps(a, b), c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_mm_sub_ps(c, simde_mm_mul_ps(a, b)); }
#endif
PB_INLINE vf vf_min(vf a, vf b) { return simde_mm_min_ps(a, b); }
PB_INLINE vf vf_max(vf a, vf b) { return simde_mm_max_ps(a, b); }

PB_INLINE vf vf_band(vf a, vf b) { return simde_mm_and_ps(a, b); }
PB_INLINE vf vf_bor(vf a, vf b) { return simde_mm_or_ps(a, b); }
PB_INLINE vf vf_bxor(vf a, vf b) { return simde_mm_xor_ps(a, b); }
PB_INLINE vf vf_shr23(vf a)
{
    return simde_mm_castsi128_ps(simde_mm_srli_epi32(simde_mm_castps_si128(a), 23));
}
PB_INLINE vf vf_shl23(vf a)
{
    return simde_mm_castsi128_ps(simde_mm_slli_epi32(simde_mm_castps_si128(a), 23));
}
PB_INLINE vf vf_iadd(vf a, vf b)
{
    return simde_mm_castsi128_ps(
        simde_mm_add_epi32(simde_mm_castps_si128(a), simde_mm_castps_si128(b)));
}
/* lanes whose bits, as a 32-bit integer, are >= 0 */
PB_INLINE vm vm_i32_ge0(vf a)
{
    return simde_mm_castsi128_ps(
        simde_mm_cmpgt_epi32(simde_mm_castps_si128(a), simde_mm_set1_epi32(-1)));
}

PB_INLINE vm vm_lt(vf a, vf b) { return simde_mm_cmplt_ps(a, b); }
PB_INLINE vm vm_le(vf a, vf b) { return simde_mm_cmple_ps(a, b); }
PB_INLINE vm vm_gt(vf a, vf b) { return simde_mm_cmpgt_ps(a, b); }
PB_INLINE vm vm_ge(vf a, vf b) { return simde_mm_cmpge_ps(a, b); }
PB_INLINE vm vm_eq(vf a, vf b) { return simde_mm_cmpeq_ps(a, b); }
PB_INLINE vm vm_and(vm a, vm b) { return simde_mm_and_ps(a, b); }
PB_INLINE vm vm_or(vm a, vm b) { return simde_mm_or_ps(a, b); }
PB_INLINE vm vm_andnot(vm a, vm b) { return simde_mm_andnot_ps(b, a); }
PB_INLINE vm vm_not(vm a)
{
    return simde_mm_xor_ps(a, simde_mm_castsi128_ps(simde_mm_set1_epi32(-1)));
}
PB_INLINE vf vf_sel(vm m, vf a, vf b) { return simde_mm_blendv_ps(b, a, m); }
PB_INLINE int vm_any(vm m) { return simde_mm_movemask_ps(m) != 0; }
PB_INLINE int vm_all(vm m) { return simde_mm_movemask_ps(m) == 0xf; }

/* Interleaved elements <-> lanes (kernels_layout.h): a 4x4 block transpose */
#define PB_HAVE_AOS4 1
/* 4x4 transpose: rows (elements) <-> columns (components); its own inverse */
PB_INLINE void aos_t4(vf *a, vf *b, vf *c, vf *d)
{
    vf t0 = simde_mm_unpacklo_ps(*a, *b), t1 = simde_mm_unpacklo_ps(*c, *d);
    vf t2 = simde_mm_unpackhi_ps(*a, *b), t3 = simde_mm_unpackhi_ps(*c, *d);
    *a = simde_mm_movelh_ps(t0, t1);
    *b = simde_mm_movehl_ps(t1, t0);
    *c = simde_mm_movelh_ps(t2, t3);
    *d = simde_mm_movehl_ps(t3, t2);
}
PB_INLINE void aos_load4(const float *p, vf c[4])
{
    c[0] = vf_load(p), c[1] = vf_load(p + 4), c[2] = vf_load(p + 8), c[3] = vf_load(p + 12);
    aos_t4(&c[0], &c[1], &c[2], &c[3]);
}
PB_INLINE void aos_store4(float *p, const vf c[4])
{
    vf a = c[0], b = c[1], e = c[2], d = c[3];
    aos_t4(&a, &b, &e, &d);
    vf_store(p, a), vf_store(p + 4, b), vf_store(p + 8, e), vf_store(p + 12, d);
}

/* Strided lanes (kernels_skeleton.h): lane inserts and extracts */
#define PB_HAVE_STRIDE 1
PB_INLINE vf vf_load_stride(const float *p, size_t s)
{
    return simde_mm_setr_ps(p[0], p[s], p[2 * s], p[3 * s]);
}
PB_INLINE vf vf_load_stride_part(const float *p, size_t s, size_t cnt)
{
    return simde_mm_setr_ps(p[0], cnt > 1 ? p[s] : p[0], cnt > 2 ? p[2 * s] : p[0], p[0]);
}
PB_INLINE void vf_store_stride_part(float *p, size_t s, vf v, size_t cnt)
{
    p[0] = simde_mm_cvtss_f32(v);
    if (cnt > 1)
        p[s] = simde_mm_cvtss_f32(simde_mm_shuffle_ps(v, v, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
    if (cnt > 2)
        p[2 * s] = simde_mm_cvtss_f32(simde_mm_movehl_ps(v, v));
    if (cnt > 3)
        p[3 * s] = simde_mm_cvtss_f32(simde_mm_shuffle_ps(v, v, SIMDE_MM_SHUFFLE(3, 3, 3, 3)));
}
PB_INLINE void vf_store_stride(float *p, size_t s, vf v) { vf_store_stride_part(p, s, v, 4); }

/* Tiles (kernels_skeleton.h): 4x4 register transposes */
#define PB_HAVE_TILE 1
PB_INLINE void pb__t4(vf *a, vf *b, vf *c, vf *d)
{
    vf t0 = simde_mm_unpacklo_ps(*a, *b), t1 = simde_mm_unpacklo_ps(*c, *d);
    vf t2 = simde_mm_unpackhi_ps(*a, *b), t3 = simde_mm_unpackhi_ps(*c, *d);
    *a = simde_mm_movelh_ps(t0, t1);
    *b = simde_mm_movehl_ps(t1, t0);
    *c = simde_mm_movelh_ps(t2, t3);
    *d = simde_mm_movehl_ps(t3, t2);
}
PB_INLINE void vf_load_tile(const float *p, size_t s, vf *c)
{
    c[0] = vf_load(p), c[1] = vf_load(p + s), c[2] = vf_load(p + 2 * s), c[3] = vf_load(p + 3 * s);
    pb__t4(&c[0], &c[1], &c[2], &c[3]);
}
PB_INLINE void vf_store_tile(float *p, size_t s, const vf *c)
{
    vf a = c[0], b = c[1], e = c[2], d = c[3];
    pb__t4(&a, &b, &e, &d);
    vf_store(p, a), vf_store(p + s, b), vf_store(p + 2 * s, e), vf_store(p + 3 * s, d);
}

/* Double lanes (kernels_euler.h): 2 a vector */
#define PB_DLANES 2
typedef simde__m128d vd;
typedef simde__m128d vmd;
PB_INLINE vd vd_set(double a) { return simde_mm_set1_pd(a); }
PB_INLINE vd vd_load(const double *p) { return simde_mm_loadu_pd(p); }
PB_INLINE void vd_store(double *p, vd v) { simde_mm_storeu_pd(p, v); }
/* two floats: an unaligned 64-bit load (movq) */
PB_INLINE vd vd_load_f(const float *p)
{
    return simde_mm_cvtps_pd(
        simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)(const void *)p)));
}
PB_INLINE vd vd_round_f32(vd a) { return simde_mm_cvtps_pd(simde_mm_cvtpd_ps(a)); }
PB_INLINE void vd_store_f(float *p, vd v)
{
    simde_mm_storel_epi64((simde__m128i *)(void *)p, simde_mm_castps_si128(simde_mm_cvtpd_ps(v)));
}
PB_INLINE vd vd_add(vd a, vd b) { return simde_mm_add_pd(a, b); }
PB_INLINE vd vd_sub(vd a, vd b) { return simde_mm_sub_pd(a, b); }
PB_INLINE vd vd_mul(vd a, vd b) { return simde_mm_mul_pd(a, b); }
PB_INLINE vd vd_div(vd a, vd b) { return simde_mm_div_pd(a, b); }
PB_INLINE vd vd_sqrt(vd a) { return simde_mm_sqrt_pd(a); }
PB_INLINE vd vd_fma(vd a, vd b, vd c) { return simde_mm_add_pd(simde_mm_mul_pd(a, b), c); }
PB_INLINE vd vd_round(vd a)
{
    return simde_mm_round_pd(a, SIMDE_MM_FROUND_TO_NEAREST_INT | SIMDE_MM_FROUND_NO_EXC);
}
PB_INLINE vd vd_band(vd a, vd b) { return simde_mm_and_pd(a, b); }
PB_INLINE vd vd_bor(vd a, vd b) { return simde_mm_or_pd(a, b); }
PB_INLINE vd vd_bxor(vd a, vd b) { return simde_mm_xor_pd(a, b); }
PB_INLINE vmd vmd_lt(vd a, vd b) { return simde_mm_cmplt_pd(a, b); }
PB_INLINE vmd vmd_le(vd a, vd b) { return simde_mm_cmple_pd(a, b); }
PB_INLINE vmd vmd_gt(vd a, vd b) { return simde_mm_cmpgt_pd(a, b); }
PB_INLINE vmd vmd_ge(vd a, vd b) { return simde_mm_cmpge_pd(a, b); }
PB_INLINE vmd vmd_eq(vd a, vd b) { return simde_mm_cmpeq_pd(a, b); }
PB_INLINE vmd vmd_and(vmd a, vmd b) { return simde_mm_and_pd(a, b); }
PB_INLINE vmd vmd_or(vmd a, vmd b) { return simde_mm_or_pd(a, b); }
PB_INLINE vmd vmd_andnot(vmd a, vmd b) { return simde_mm_andnot_pd(b, a); }
PB_INLINE vmd vmd_not(vmd a)
{
    return simde_mm_xor_pd(a, simde_mm_castsi128_pd(simde_mm_set1_epi32(-1)));
}
PB_INLINE vd vd_sel(vmd m, vd a, vd b) { return simde_mm_blendv_pd(b, a, m); }
PB_INLINE int vmd_any(vmd m) { return simde_mm_movemask_pd(m) != 0; }
PB_INLINE unsigned vmd_bits(vmd m) { return (unsigned)simde_mm_movemask_pd(m); }

/* Quads (kernels_skin.h): the vector as one group of four lanes (on 8
 * lanes, each 128-bit half is one), for matrix-per-element work: a 4-float
 * column per quad, splats inside a quad */
#define PB_HAVE_QUADS 1
/* lane k (0..3, a constant) of each quad in all four of its lanes */
PB_INLINE vf vf_quad_bcast(vf v, int k)
{
    switch (k) {
    case 0: return simde_mm_shuffle_ps(v, v, 0x00);
    case 1: return simde_mm_shuffle_ps(v, v, 0x55);
    case 2: return simde_mm_shuffle_ps(v, v, 0xaa);
    default: return simde_mm_shuffle_ps(v, v, 0xff);
    }
}
/* v[0 .. PB_LANES/4 - 1] as a matrix of quads, transposed (quad j of v[i]
 * <-> quad i of v[j]): nothing on 4 lanes */
PB_INLINE void vf_quads_transpose(vf *v) { (void)v; }
/* a 4x4 transpose inside each quad of r[0..3] */
PB_INLINE void vf_quad_t4(vf r[4]) { aos_t4(&r[0], &r[1], &r[2], &r[3]); }
/* PB_LANES/4 xyz triples: quad q is p[3q .. 3q+3] (p[3 PB_LANES/4], one
 * float past the triples, is read: the caller has it); and back: lanes
 * 0..2 of quad q to p[3q .. 3q+2] (nothing else written) */
#define PB_QUADS3_OVER 1 /* vertices read past the triples */
PB_INLINE vf vf_load_quads3(const float *p) { return vf_load(p); }
PB_INLINE void vf_store_quads3(float *p, vf v)
{
    simde_mm_storel_pi((simde__m64 *)(void *)p, v);
    simde_mm_store_ss(p + 2, simde_mm_movehl_ps(v, v));
}

#include "lanes_common.h"

#endif
