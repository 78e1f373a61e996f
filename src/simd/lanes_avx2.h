/* 8-lane layer over AVX2 + FMA (through SIMDe). */
#ifndef PB_LANES_AVX2_H
#define PB_LANES_AVX2_H

#include <stddef.h>
#include <stdint.h>
#include <simde/x86/avx2.h>
#include <simde/x86/fma.h>

#define PB_LANES 8
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
PB_INLINE void vf_store_part(float *p, vf v, size_t cnt) { simde_mm256_maskstore_ps(p, pb__tail_mask(cnt), v); }
PB_INLINE vf vf_add(vf a, vf b) { return simde_mm256_add_ps(a, b); }
PB_INLINE vf vf_sub(vf a, vf b) { return simde_mm256_sub_ps(a, b); }
PB_INLINE vf vf_mul(vf a, vf b) { return simde_mm256_mul_ps(a, b); }
PB_INLINE vf vf_div(vf a, vf b) { return simde_mm256_div_ps(a, b); }
PB_INLINE vf vf_sqrt(vf a) { return simde_mm256_sqrt_ps(a); }
#if defined(PB_DETERMINISTIC)
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_mm256_add_ps(simde_mm256_mul_ps(a, b), c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_mm256_sub_ps(c, simde_mm256_mul_ps(a, b)); }
#else
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_mm256_fmadd_ps(a, b, c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_mm256_fnmadd_ps(a, b, c); }
#endif
PB_INLINE vf vf_min(vf a, vf b) { return simde_mm256_min_ps(a, b); }
PB_INLINE vf vf_max(vf a, vf b) { return simde_mm256_max_ps(a, b); }

PB_INLINE vf vf_band(vf a, vf b) { return simde_mm256_and_ps(a, b); }
PB_INLINE vf vf_bor(vf a, vf b) { return simde_mm256_or_ps(a, b); }
PB_INLINE vf vf_bxor(vf a, vf b) { return simde_mm256_xor_ps(a, b); }
PB_INLINE vf vf_shr23(vf a) { return simde_mm256_castsi256_ps(simde_mm256_srli_epi32(simde_mm256_castps_si256(a), 23)); }
PB_INLINE vf vf_shl23(vf a) { return simde_mm256_castsi256_ps(simde_mm256_slli_epi32(simde_mm256_castps_si256(a), 23)); }
PB_INLINE vf vf_iadd(vf a, vf b) { return simde_mm256_castsi256_ps(simde_mm256_add_epi32(simde_mm256_castps_si256(a), simde_mm256_castps_si256(b))); }

PB_INLINE vm vm_lt(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ); }
PB_INLINE vm vm_le(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LE_OQ); }
PB_INLINE vm vm_gt(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ); }
PB_INLINE vm vm_ge(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ); }
PB_INLINE vm vm_eq(vf a, vf b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_EQ_OQ); }
PB_INLINE vm vm_and(vm a, vm b) { return simde_mm256_and_ps(a, b); }
PB_INLINE vm vm_or(vm a, vm b) { return simde_mm256_or_ps(a, b); }
PB_INLINE vm vm_andnot(vm a, vm b) { return simde_mm256_andnot_ps(b, a); }
PB_INLINE vm vm_not(vm a) { return simde_mm256_xor_ps(a, simde_mm256_castsi256_ps(simde_mm256_set1_epi32(-1))); }
PB_INLINE vf vf_sel(vm m, vf a, vf b) { return simde_mm256_blendv_ps(b, a, m); }
PB_INLINE int vm_any(vm m) { return simde_mm256_movemask_ps(m) != 0; }
PB_INLINE int vm_all(vm m) { return simde_mm256_movemask_ps(m) == 0xff; }

#include "lanes_common.h"

#endif
