/* 4-lane layer over SSE4.1 (through SIMDe). No FMA on this target. */
#ifndef PB_LANES_SSE41_H
#define PB_LANES_SSE41_H

#include <stddef.h>
#include <stdint.h>
#include <simde/x86/sse4.1.h>

#define PB_LANES 4
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
PB_INLINE vf vf_add(vf a, vf b) { return simde_mm_add_ps(a, b); }
PB_INLINE vf vf_sub(vf a, vf b) { return simde_mm_sub_ps(a, b); }
PB_INLINE vf vf_mul(vf a, vf b) { return simde_mm_mul_ps(a, b); }
PB_INLINE vf vf_div(vf a, vf b) { return simde_mm_div_ps(a, b); }
PB_INLINE vf vf_sqrt(vf a) { return simde_mm_sqrt_ps(a); }
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return simde_mm_add_ps(simde_mm_mul_ps(a, b), c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return simde_mm_sub_ps(c, simde_mm_mul_ps(a, b)); }
PB_INLINE vf vf_min(vf a, vf b) { return simde_mm_min_ps(a, b); }
PB_INLINE vf vf_max(vf a, vf b) { return simde_mm_max_ps(a, b); }

PB_INLINE vf vf_band(vf a, vf b) { return simde_mm_and_ps(a, b); }
PB_INLINE vf vf_bor(vf a, vf b) { return simde_mm_or_ps(a, b); }
PB_INLINE vf vf_bxor(vf a, vf b) { return simde_mm_xor_ps(a, b); }
PB_INLINE vf vf_shr23(vf a) { return simde_mm_castsi128_ps(simde_mm_srli_epi32(simde_mm_castps_si128(a), 23)); }
PB_INLINE vf vf_shl23(vf a) { return simde_mm_castsi128_ps(simde_mm_slli_epi32(simde_mm_castps_si128(a), 23)); }
PB_INLINE vf vf_iadd(vf a, vf b) { return simde_mm_castsi128_ps(simde_mm_add_epi32(simde_mm_castps_si128(a), simde_mm_castps_si128(b))); }

PB_INLINE vm vm_lt(vf a, vf b) { return simde_mm_cmplt_ps(a, b); }
PB_INLINE vm vm_le(vf a, vf b) { return simde_mm_cmple_ps(a, b); }
PB_INLINE vm vm_gt(vf a, vf b) { return simde_mm_cmpgt_ps(a, b); }
PB_INLINE vm vm_ge(vf a, vf b) { return simde_mm_cmpge_ps(a, b); }
PB_INLINE vm vm_eq(vf a, vf b) { return simde_mm_cmpeq_ps(a, b); }
PB_INLINE vm vm_and(vm a, vm b) { return simde_mm_and_ps(a, b); }
PB_INLINE vm vm_or(vm a, vm b) { return simde_mm_or_ps(a, b); }
PB_INLINE vm vm_andnot(vm a, vm b) { return simde_mm_andnot_ps(b, a); }
PB_INLINE vm vm_not(vm a) { return simde_mm_xor_ps(a, simde_mm_castsi128_ps(simde_mm_set1_epi32(-1))); }
PB_INLINE vf vf_sel(vm m, vf a, vf b) { return simde_mm_blendv_ps(b, a, m); }
PB_INLINE int vm_any(vm m) { return simde_mm_movemask_ps(m) != 0; }
PB_INLINE int vm_all(vm m) { return simde_mm_movemask_ps(m) == 0xf; }

#include "lanes_common.h"

#endif
