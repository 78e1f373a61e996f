/* 4-lane layer over NEON (AArch64 Advanced SIMD, through SIMDe). Built
 * natively for aarch64, or on x86 as a test-only emulated backend. */
#ifndef PB_LANES_NEON_H
#define PB_LANES_NEON_H

#include <stddef.h>
#include <stdint.h>
#include <simde/arm/neon.h>
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#define PB_LANES 4
#if defined(PB_EMULATED)
#define PB_ISA "neon (emulated)"
#else
#define PB_ISA "neon"
#endif
#define PB_INLINE static inline __attribute__((always_inline))

typedef simde_float32x4_t vf;
typedef simde_uint32x4_t vm;

PB_INLINE vf vf_set(float a) { return simde_vdupq_n_f32(a); }
PB_INLINE vf vf_load(const float *p) { return simde_vld1q_f32(p); }
PB_INLINE void vf_store(float *p, vf v) { simde_vst1q_f32(p, v); }
/* tails (cnt 1..3) lane by lane: lane loads and stores straight from and to
 * the arrays */
#define PB_HAVE_PART 1
PB_INLINE vf vf_load_part(const float *p, size_t cnt)
{
    vf v = simde_vdupq_n_f32(p[0]);
    if (cnt > 1)
        v = simde_vld1q_lane_f32(p + 1, v, 1);
    if (cnt > 2)
        v = simde_vld1q_lane_f32(p + 2, v, 2);
    return v;
}
PB_INLINE void vf_store_part(float *p, vf v, size_t cnt)
{
    simde_vst1q_lane_f32(p, v, 0);
    if (cnt > 1)
        simde_vst1q_lane_f32(p + 1, v, 1);
    if (cnt > 2)
        simde_vst1q_lane_f32(p + 2, v, 2);
}
/* a back tail's lanes lo .. 3 to p + lo .. p + 3 */
#define PB_HAVE_STORE_HIGH 1
PB_INLINE void vf_store_high(float *p, vf v, size_t lo)
{
    if (lo < 2)
        simde_vst1q_lane_f32(p + 1, v, 1);
    if (lo < 3)
        simde_vst1q_lane_f32(p + 2, v, 2);
    simde_vst1q_lane_f32(p + 3, v, 3);
}
PB_INLINE vf vf_add(vf a, vf b) { return simde_vaddq_f32(a, b); }
PB_INLINE vf vf_sub(vf a, vf b) { return simde_vsubq_f32(a, b); }
PB_INLINE vf vf_mul(vf a, vf b) { return simde_vmulq_f32(a, b); }
#if defined(__aarch64__)
PB_INLINE vf vf_div(vf a, vf b) { return vdivq_f32(a, b); }
PB_INLINE vf vf_sqrt(vf a) { return vsqrtq_f32(a); }
#else
/* SIMDe 0.7.4 has neither vdivq_f32 nor vsqrtq_f32: the emulated backend
 * divides per lane, correctly rounded like the native instructions. */
PB_INLINE vf vf_div(vf a, vf b)
{
    float x[4], y[4];
    simde_vst1q_f32(x, a);
    simde_vst1q_f32(y, b);
    for (int i = 0; i < 4; i++)
        x[i] = x[i] / y[i];
    return simde_vld1q_f32(x);
}
PB_INLINE vf vf_sqrt(vf a)
{
    float x[4];
    simde_vst1q_f32(x, a);
    for (int i = 0; i < 4; i++)
        x[i] = __builtin_sqrtf(x[i]);
    return simde_vld1q_f32(x);
}
#endif
#if defined(PB_DETERMINISTIC)
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_vaddq_f32(simde_vmulq_f32(a, b), c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_vsubq_f32(c, simde_vmulq_f32(a, b)); }
#else
#if !defined(PB_EMULATED) /* SIMDe's emulation of vfmaq need not fuse */
#define PB_FUSED 1        /* vf_fma rounds once */
#endif
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_vfmaq_f32(c, a, b); }
/* no vfmsq in SIMDe 0.7.4; negating a is exact */
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_vfmaq_f32(c, simde_vnegq_f32(a), b); }
#endif

PB_INLINE vm vm_lt(vf a, vf b) { return simde_vcltq_f32(a, b); }
PB_INLINE vm vm_le(vf a, vf b) { return simde_vcleq_f32(a, b); }
PB_INLINE vm vm_gt(vf a, vf b) { return simde_vcgtq_f32(a, b); }
PB_INLINE vm vm_ge(vf a, vf b) { return simde_vcgeq_f32(a, b); }
PB_INLINE vm vm_eq(vf a, vf b) { return simde_vceqq_f32(a, b); }
PB_INLINE vm vm_and(vm a, vm b) { return simde_vandq_u32(a, b); }
PB_INLINE vm vm_or(vm a, vm b) { return simde_vorrq_u32(a, b); }
PB_INLINE vm vm_andnot(vm a, vm b) { return simde_vbicq_u32(a, b); }
PB_INLINE vm vm_not(vm a) { return simde_vmvnq_u32(a); }
PB_INLINE vf vf_sel(vm m, vf a, vf b) { return simde_vbslq_f32(m, a, b); }
PB_INLINE int vm_any(vm m) { return simde_vmaxvq_u32(m) != 0; }
PB_INLINE int vm_all(vm m) { return simde_vminvq_u32(m) != 0; }
/* NEON's vminq/vmaxq return NaN for a NaN operand; select explicitly so that
 * every backend has minps' a < b ? a : b */
PB_INLINE vf vf_min(vf a, vf b) { return vf_sel(vm_lt(a, b), a, b); }
PB_INLINE vf vf_max(vf a, vf b) { return vf_sel(vm_gt(a, b), a, b); }

#define PB_U(a) simde_vreinterpretq_u32_f32(a)
#define PB_F(a) simde_vreinterpretq_f32_u32(a)
PB_INLINE vf vf_band(vf a, vf b) { return PB_F(simde_vandq_u32(PB_U(a), PB_U(b))); }
PB_INLINE vf vf_bor(vf a, vf b) { return PB_F(simde_vorrq_u32(PB_U(a), PB_U(b))); }
PB_INLINE vf vf_bxor(vf a, vf b) { return PB_F(simde_veorq_u32(PB_U(a), PB_U(b))); }
PB_INLINE vf vf_shr23(vf a) { return PB_F(simde_vshrq_n_u32(PB_U(a), 23)); }
PB_INLINE vf vf_shl23(vf a) { return PB_F(simde_vshlq_n_u32(PB_U(a), 23)); }
PB_INLINE vf vf_iadd(vf a, vf b) { return PB_F(simde_vaddq_u32(PB_U(a), PB_U(b))); }
/* lanes whose bits, as a 32-bit integer, are >= 0 */
PB_INLINE vm vm_i32_ge0(vf a) { return simde_vcgezq_s32(simde_vreinterpretq_s32_f32(a)); }
#undef PB_U
#undef PB_F

/* Strided lanes (kernels_skeleton.h): lane loads and stores */
#define PB_HAVE_STRIDE 1
PB_INLINE vf vf_load_stride_part(const float *p, size_t s, size_t cnt)
{
    vf v = simde_vdupq_n_f32(p[0]);
    if (cnt > 1)
        v = simde_vld1q_lane_f32(p + s, v, 1);
    if (cnt > 2)
        v = simde_vld1q_lane_f32(p + 2 * s, v, 2);
    if (cnt > 3)
        v = simde_vld1q_lane_f32(p + 3 * s, v, 3);
    return v;
}
PB_INLINE vf vf_load_stride(const float *p, size_t s) { return vf_load_stride_part(p, s, 4); }
PB_INLINE void vf_store_stride_part(float *p, size_t s, vf v, size_t cnt)
{
    simde_vst1q_lane_f32(p, v, 0);
    if (cnt > 1)
        simde_vst1q_lane_f32(p + s, v, 1);
    if (cnt > 2)
        simde_vst1q_lane_f32(p + 2 * s, v, 2);
    if (cnt > 3)
        simde_vst1q_lane_f32(p + 3 * s, v, 3);
}
PB_INLINE void vf_store_stride(float *p, size_t s, vf v) { vf_store_stride_part(p, s, v, 4); }

/* Tiles (kernels_skeleton.h): 4x4 transposes (vtrn / vcombine) */
#define PB_HAVE_TILE 1
PB_INLINE void pb__t4(vf *r)
{
    simde_float32x4x2_t a = simde_vtrnq_f32(r[0], r[1]), b = simde_vtrnq_f32(r[2], r[3]);
    r[0] = simde_vcombine_f32(simde_vget_low_f32(a.val[0]), simde_vget_low_f32(b.val[0]));
    r[1] = simde_vcombine_f32(simde_vget_low_f32(a.val[1]), simde_vget_low_f32(b.val[1]));
    r[2] = simde_vcombine_f32(simde_vget_high_f32(a.val[0]), simde_vget_high_f32(b.val[0]));
    r[3] = simde_vcombine_f32(simde_vget_high_f32(a.val[1]), simde_vget_high_f32(b.val[1]));
}
PB_INLINE void vf_load_tile(const float *p, size_t s, vf *c)
{
    for (size_t r = 0; r < 4; r++)
        c[r] = vf_load(p + r * s);
    pb__t4(c);
}
PB_INLINE void vf_store_tile(float *p, size_t s, const vf *c)
{
    vf r[4] = {c[0], c[1], c[2], c[3]};
    pb__t4(r);
    for (size_t k = 0; k < 4; k++)
        vf_store(p + k * s, r[k]);
}

/* Double lanes (kernels_euler.h): 2 a vector */
#define PB_DLANES 2
typedef simde_float64x2_t vd;
typedef simde_uint64x2_t vmd;
PB_INLINE vd vd_set(double a) { return simde_vdupq_n_f64(a); }
PB_INLINE vd vd_load(const double *p) { return simde_vld1q_f64(p); }
PB_INLINE void vd_store(double *p, vd v) { simde_vst1q_f64(p, v); }
PB_INLINE vd vd_load_f(const float *p) { return simde_vcvt_f64_f32(simde_vld1_f32(p)); }
PB_INLINE vd vd_round_f32(vd a) { return simde_vcvt_f64_f32(simde_vcvt_f32_f64(a)); }
PB_INLINE void vd_store_f(float *p, vd v) { simde_vst1_f32(p, simde_vcvt_f32_f64(v)); }
PB_INLINE vd vd_add(vd a, vd b) { return simde_vaddq_f64(a, b); }
PB_INLINE vd vd_sub(vd a, vd b) { return simde_vsubq_f64(a, b); }
PB_INLINE vd vd_mul(vd a, vd b) { return simde_vmulq_f64(a, b); }
#if defined(__aarch64__)
PB_INLINE vd vd_div(vd a, vd b) { return vdivq_f64(a, b); }
PB_INLINE vd vd_sqrt(vd a) { return vsqrtq_f64(a); }
#else
/* SIMDe 0.7.4 has neither vdivq_f64 nor vsqrtq_f64: per lane, correctly
 * rounded like the native instructions */
PB_INLINE vd vd_div(vd a, vd b)
{
    double x[2], y[2];
    simde_vst1q_f64(x, a);
    simde_vst1q_f64(y, b);
    x[0] = x[0] / y[0];
    x[1] = x[1] / y[1];
    return simde_vld1q_f64(x);
}
PB_INLINE vd vd_sqrt(vd a)
{
    double x[2];
    simde_vst1q_f64(x, a);
    x[0] = __builtin_sqrt(x[0]);
    x[1] = __builtin_sqrt(x[1]);
    return simde_vld1q_f64(x);
}
#endif
#if defined(PB_DETERMINISTIC)
PB_INLINE vd vd_fma(vd a, vd b, vd c) { return simde_vaddq_f64(simde_vmulq_f64(a, b), c); }
#else
PB_INLINE vd vd_fma(vd a, vd b, vd c) { return simde_vfmaq_f64(c, a, b); }
#endif
PB_INLINE vd vd_round(vd a) { return simde_vrndnq_f64(a); }
#define PB_U64(a) simde_vreinterpretq_u64_f64(a)
#define PB_F64(a) simde_vreinterpretq_f64_u64(a)
PB_INLINE vd vd_band(vd a, vd b) { return PB_F64(simde_vandq_u64(PB_U64(a), PB_U64(b))); }
PB_INLINE vd vd_bor(vd a, vd b) { return PB_F64(simde_vorrq_u64(PB_U64(a), PB_U64(b))); }
PB_INLINE vd vd_bxor(vd a, vd b) { return PB_F64(simde_veorq_u64(PB_U64(a), PB_U64(b))); }
#undef PB_U64
#undef PB_F64
PB_INLINE vmd vmd_lt(vd a, vd b) { return simde_vcltq_f64(a, b); }
PB_INLINE vmd vmd_le(vd a, vd b) { return simde_vcleq_f64(a, b); }
PB_INLINE vmd vmd_gt(vd a, vd b) { return simde_vcgtq_f64(a, b); }
PB_INLINE vmd vmd_ge(vd a, vd b) { return simde_vcgeq_f64(a, b); }
PB_INLINE vmd vmd_eq(vd a, vd b) { return simde_vceqq_f64(a, b); }
PB_INLINE vmd vmd_and(vmd a, vmd b) { return simde_vandq_u64(a, b); }
PB_INLINE vmd vmd_or(vmd a, vmd b) { return simde_vorrq_u64(a, b); }
PB_INLINE vmd vmd_andnot(vmd a, vmd b) { return simde_vbicq_u64(a, b); }
PB_INLINE vmd vmd_not(vmd a) { return simde_veorq_u64(a, simde_vdupq_n_u64(~(uint64_t)0)); }
PB_INLINE vd vd_sel(vmd m, vd a, vd b) { return simde_vbslq_f64(m, a, b); }
PB_INLINE unsigned vmd_bits(vmd m)
{
    return (unsigned)(simde_vgetq_lane_u64(m, 0) & 1u) |
           (unsigned)((simde_vgetq_lane_u64(m, 1) & 1u) << 1);
}
PB_INLINE int vmd_any(vmd m) { return simde_vmaxvq_u32(simde_vreinterpretq_u32_u64(m)) != 0; }

/* Interleaved elements <-> lanes (kernels_layout.h): NEON's interleaved loads and stores */
#define PB_HAVE_AOS4 1
#define PB_HAVE_AOS3 1
PB_INLINE void aos_load4(const float *p, vf c[4])
{
    simde_float32x4x4_t v = simde_vld4q_f32(p);
    c[0] = v.val[0], c[1] = v.val[1], c[2] = v.val[2], c[3] = v.val[3];
}
PB_INLINE void aos_store4(float *p, const vf c[4])
{
    simde_float32x4x4_t v;
    v.val[0] = c[0], v.val[1] = c[1], v.val[2] = c[2], v.val[3] = c[3];
    simde_vst4q_f32(p, v);
}
PB_INLINE void aos_load3(const float *p, vf c[3])
{
    simde_float32x4x3_t v = simde_vld3q_f32(p);
    c[0] = v.val[0], c[1] = v.val[1], c[2] = v.val[2];
}
PB_INLINE void aos_store3(float *p, const vf c[3])
{
    simde_float32x4x3_t v;
    v.val[0] = c[0], v.val[1] = c[1], v.val[2] = c[2];
    simde_vst3q_f32(p, v);
}

/* Quads (kernels_skin.h): the vector as one group of four lanes (as in
 * lanes_sse41.h) */
#define PB_HAVE_QUADS 1
/* lane k (0..3, a constant) of each quad in all four of its lanes */
PB_INLINE vf vf_quad_bcast(vf v, int k)
{
    switch (k) {
    case 0: return simde_vdupq_laneq_f32(v, 0);
    case 1: return simde_vdupq_laneq_f32(v, 1);
    case 2: return simde_vdupq_laneq_f32(v, 2);
    default: return simde_vdupq_laneq_f32(v, 3);
    }
}
/* quad matrix transpose of v[0 .. PB_LANES/4 - 1]: nothing on 4 lanes */
PB_INLINE void vf_quads_transpose(vf *v) { (void)v; }
/* a 4x4 transpose inside each quad of r[0..3] */
PB_INLINE void vf_quad_t4(vf r[4]) { pb__t4(r); }
/* xyz triples: quad q is p[3q .. 3q+3] (one float past the triples read);
 * and back: lanes 0..2 of quad q to p[3q .. 3q+2] (nothing else written) */
#define PB_QUADS3_OVER 1 /* vertices read past the triples */
PB_INLINE vf vf_load_quads3(const float *p) { return vf_load(p); }
PB_INLINE void vf_store_quads3(float *p, vf v)
{
    simde_vst1_f32(p, simde_vget_low_f32(v));
    simde_vst1q_lane_f32(p + 2, v, 2);
}

#include "lanes_common.h"

#endif
