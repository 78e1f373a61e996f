/* The 1-lane layer: the scalar fallback is the shared kernels over plain floats.
 * Every lane layer provides exactly this vocabulary (see lanes_api.md in this
 * folder); kernels and lanes_math.h use nothing else. */
#ifndef PB_LANES_SCALAR_H
#define PB_LANES_SCALAR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#define PB_LANES 1
#define PB_INLINE static inline __attribute__((always_inline))

typedef float vf;
typedef uint32_t vm; /* all-ones or zero, like the SIMD compare masks */

PB_INLINE vf vf_set(float a) { return a; }
PB_INLINE vf vf_load(const float *p) { return *p; }
PB_INLINE void vf_store(float *p, vf v) { *p = v; }
/* Never reached with one lane (every block is full) but part of the vocabulary. */
PB_INLINE vf vf_load_part(const float *p, size_t cnt) { return cnt ? *p : 0.0f; }
PB_INLINE void vf_store_part(float *p, vf v, size_t cnt) { if (cnt) *p = v; }

PB_INLINE vf vf_add(vf a, vf b) { return a + b; }
PB_INLINE vf vf_sub(vf a, vf b) { return a - b; }
PB_INLINE vf vf_mul(vf a, vf b) { return a * b; }
PB_INLINE vf vf_div(vf a, vf b) { return a / b; }
PB_INLINE vf vf_sqrt(vf a) { return sqrtf(a); }
/* a*b + c; unfused here: the scalar target has no FMA unit to rely on. */
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return a * b + c; }
/* c - a*b */
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return c - a * b; }
PB_INLINE vf vf_min(vf a, vf b) { return a < b ? a : b; }
PB_INLINE vf vf_max(vf a, vf b) { return a > b ? a : b; }

PB_INLINE uint32_t pb__bits(float a) { uint32_t u; memcpy(&u, &a, 4); return u; }
PB_INLINE float pb__float(uint32_t u) { float a; memcpy(&a, &u, 4); return a; }
PB_INLINE vf vf_abs(vf a) { return pb__float(pb__bits(a) & 0x7fffffffu); }
PB_INLINE vf vf_neg(vf a) { return pb__float(pb__bits(a) ^ 0x80000000u); }
/* a with its sign flipped where s has the sign bit set (s = -0 included). */
PB_INLINE vf vf_xorsign(vf a, vf s) { return pb__float(pb__bits(a) ^ (pb__bits(s) & 0x80000000u)); }
/* Round to nearest integer, ties to even, for |a| < 2^22. */
PB_INLINE vf vf_round(vf a)
{
    /* the 1.5*2^23 trick: exact for |a| < 2^22, the same rounding in every lane
     * layer (no libm, no rounding-mode dependence beyond the default) */
    const float big = 12582912.0f;
    return (a + big) - big;
}

/* For normal x > 0: the mantissa m in [1, 2) with x = m 2^e, *e integral. */
PB_INLINE vf vf_mant_exp(vf x, vf *e)
{
    uint32_t u = pb__bits(x);
    *e = (float)((int32_t)((u >> 23) & 0xffu) - 127);
    return pb__float((u & 0x007fffffu) | 0x3f800000u);
}
/* 2^k for integral k in [-126, 127] */
PB_INLINE vf vf_pow2i(vf k) { return pb__float((uint32_t)((int32_t)k + 127) << 23); }

PB_INLINE vm vm_lt(vf a, vf b) { return a < b ? ~0u : 0u; }
PB_INLINE vm vm_le(vf a, vf b) { return a <= b ? ~0u : 0u; }
PB_INLINE vm vm_gt(vf a, vf b) { return a > b ? ~0u : 0u; }
PB_INLINE vm vm_ge(vf a, vf b) { return a >= b ? ~0u : 0u; }
PB_INLINE vm vm_eq(vf a, vf b) { return a == b ? ~0u : 0u; }
PB_INLINE vm vm_and(vm a, vm b) { return a & b; }
PB_INLINE vm vm_or(vm a, vm b) { return a | b; }
PB_INLINE vm vm_andnot(vm a, vm b) { return a & ~b; } /* a and not b */
PB_INLINE vm vm_not(vm a) { return ~a; }
/* m ? a : b per lane */
PB_INLINE vf vf_sel(vm m, vf a, vf b) { return m ? a : b; }
PB_INLINE int vm_any(vm m) { return m != 0; }
PB_INLINE int vm_all(vm m) { return m != 0; }

#endif
