/* The 1-lane layer: the scalar fallback is the shared kernels over plain
 * floats. Every lanes_<isa>.h provides exactly this vocabulary; kernels and
 * lanes_math.h use nothing else. Comparisons give all-ones / zero masks. */
#ifndef PB_LANES_SCALAR_H
#define PB_LANES_SCALAR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#define PB_LANES 1
#define PB_INLINE static inline __attribute__((always_inline))

typedef float vf;
typedef uint32_t vm;

PB_INLINE uint32_t pb__bits(float a) { uint32_t u; memcpy(&u, &a, 4); return u; }
PB_INLINE float pb__float(uint32_t u) { float a; memcpy(&a, &u, 4); return a; }

PB_INLINE vf vf_set(float a) { return a; }
PB_INLINE vf vf_load(const float *p) { return *p; }
PB_INLINE void vf_store(float *p, vf v) { *p = v; }
PB_INLINE vf vf_add(vf a, vf b) { return a + b; }
PB_INLINE vf vf_sub(vf a, vf b) { return a - b; }
PB_INLINE vf vf_mul(vf a, vf b) { return a * b; }
PB_INLINE vf vf_div(vf a, vf b) { return a / b; }
PB_INLINE vf vf_sqrt(vf a) { return sqrtf(a); } /* sqrtss: -fno-math-errno */
/* a*b + c, unfused: the baseline target has no FMA unit */
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return a * b + c; }
/* c - a*b */
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return c - a * b; }
/* a < b ? a : b (so b when either is NaN), as minps */
PB_INLINE vf vf_min(vf a, vf b) { return a < b ? a : b; }
PB_INLINE vf vf_max(vf a, vf b) { return a > b ? a : b; }

PB_INLINE vf vf_band(vf a, vf b) { return pb__float(pb__bits(a) & pb__bits(b)); }
PB_INLINE vf vf_bor(vf a, vf b) { return pb__float(pb__bits(a) | pb__bits(b)); }
PB_INLINE vf vf_bxor(vf a, vf b) { return pb__float(pb__bits(a) ^ pb__bits(b)); }
PB_INLINE vf vf_shr23(vf a) { return pb__float(pb__bits(a) >> 23); }
PB_INLINE vf vf_shl23(vf a) { return pb__float(pb__bits(a) << 23); }
PB_INLINE vf vf_iadd(vf a, vf b) { return pb__float(pb__bits(a) + pb__bits(b)); }

PB_INLINE vm vm_lt(vf a, vf b) { return a < b ? ~0u : 0u; }
PB_INLINE vm vm_le(vf a, vf b) { return a <= b ? ~0u : 0u; }
PB_INLINE vm vm_gt(vf a, vf b) { return a > b ? ~0u : 0u; }
PB_INLINE vm vm_ge(vf a, vf b) { return a >= b ? ~0u : 0u; }
PB_INLINE vm vm_eq(vf a, vf b) { return a == b ? ~0u : 0u; }
PB_INLINE vm vm_and(vm a, vm b) { return a & b; }
PB_INLINE vm vm_or(vm a, vm b) { return a | b; }
PB_INLINE vm vm_andnot(vm a, vm b) { return a & ~b; } /* a and not b */
PB_INLINE vm vm_not(vm a) { return ~a; }
PB_INLINE vf vf_sel(vm m, vf a, vf b) { return m ? a : b; } /* m ? a : b */
PB_INLINE int vm_any(vm m) { return m != 0; }
PB_INLINE int vm_all(vm m) { return m != 0; }

#include "lanes_common.h"

#endif
