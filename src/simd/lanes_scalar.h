/* The 1-lane layer: the scalar fallback is the shared kernels over plain
 * floats. Every lanes_<isa>.h provides exactly this vocabulary; kernels and
 * lanes_math.h use nothing else. Comparisons give all-ones / zero masks.
 * PB_SCALAR_FMA: the companion compiled with -mavx2 -mfma (fused
 * multiply-adds outside deterministic builds, three-operand encodings),
 * the one-pose inverse kinematics' table on CPUs with them (ik.c). */
#ifndef PB_LANES_SCALAR_H
#define PB_LANES_SCALAR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#define PB_LANES 1
#if defined(PB_SCALAR_FMA)
#define PB_ISA "scalar+fma"
#else
#define PB_ISA "scalar"
#endif
#define PB_INLINE static inline __attribute__((always_inline))

typedef float vf;
typedef uint32_t vm;

PB_INLINE uint32_t pb__bits(float a)
{
    uint32_t u;
    memcpy(&u, &a, 4);
    return u;
}
PB_INLINE float pb__float(uint32_t u)
{
    float a;
    memcpy(&a, &u, 4);
    return a;
}

PB_INLINE vf vf_set(float a) { return a; }
PB_INLINE vf vf_load(const float *p) { return *p; }
PB_INLINE void vf_store(float *p, vf v) { *p = v; }
PB_INLINE vf vf_add(vf a, vf b) { return a + b; }
PB_INLINE vf vf_sub(vf a, vf b) { return a - b; }
PB_INLINE vf vf_mul(vf a, vf b) { return a * b; }
PB_INLINE vf vf_div(vf a, vf b) { return a / b; }
PB_INLINE vf vf_sqrt(vf a) { return sqrtf(a); } /* sqrtss: -fno-math-errno */
#if defined(PB_SCALAR_FMA) && !defined(PB_DETERMINISTIC)
#define PB_FUSED 1 /* vf_fma rounds once */
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return fmaf(a, b, c); }
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return fmaf(-a, b, c); }
#else
/* a*b + c, unfused: the baseline target has no FMA unit */
PB_INLINE vf vf_fma(vf a, vf b, vf c) { return a * b + c; }
/* c - a*b */
PB_INLINE vf vf_fnma(vf a, vf b, vf c) { return c - a * b; }
#endif
/* a < b ? a : b (so b when either is NaN), as minps */
PB_INLINE vf vf_min(vf a, vf b) { return a < b ? a : b; }
PB_INLINE vf vf_max(vf a, vf b) { return a > b ? a : b; }

PB_INLINE vf vf_band(vf a, vf b) { return pb__float(pb__bits(a) & pb__bits(b)); }
PB_INLINE vf vf_bor(vf a, vf b) { return pb__float(pb__bits(a) | pb__bits(b)); }
PB_INLINE vf vf_bxor(vf a, vf b) { return pb__float(pb__bits(a) ^ pb__bits(b)); }
PB_INLINE vf vf_shr23(vf a) { return pb__float(pb__bits(a) >> 23); }
PB_INLINE vf vf_shl23(vf a) { return pb__float(pb__bits(a) << 23); }
PB_INLINE vf vf_iadd(vf a, vf b) { return pb__float(pb__bits(a) + pb__bits(b)); }
/* lanes whose bits, as a 32-bit integer, are >= 0 */
PB_INLINE vm vm_i32_ge0(vf a) { return pb__bits(a) < 0x80000000u ? ~0u : 0u; }

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

/* Double lanes (the Euler kernels, kernels_euler.h): the same vocabulary
 * with vd / vmd / PB_DLANES, PB_LANES / 2 doubles a vector (1 here). */
#define PB_DLANES 1
typedef double vd;
typedef uint64_t vmd;
PB_INLINE uint64_t pb__dbits(double a)
{
    uint64_t u;
    memcpy(&u, &a, 8);
    return u;
}
PB_INLINE double pb__double(uint64_t u)
{
    double a;
    memcpy(&a, &u, 8);
    return a;
}
PB_INLINE vd vd_set(double a) { return a; }
PB_INLINE vd vd_load(const double *p) { return *p; }
PB_INLINE void vd_store(double *p, vd v) { *p = v; }
PB_INLINE vd vd_load_f(const float *p) { return (double)*p; } /* PB_DLANES floats, widened */
/* each lane rounded to float (nearest even) and back; stored as floats */
PB_INLINE vd vd_round_f32(vd a) { return (double)(float)a; }
PB_INLINE void vd_store_f(float *p, vd v) { *p = (float)v; }
PB_INLINE vd vd_add(vd a, vd b) { return a + b; }
PB_INLINE vd vd_sub(vd a, vd b) { return a - b; }
PB_INLINE vd vd_mul(vd a, vd b) { return a * b; }
PB_INLINE vd vd_div(vd a, vd b) { return a / b; }
PB_INLINE vd vd_sqrt(vd a) { return sqrt(a); } /* sqrtsd: -fno-math-errno */
PB_INLINE vd vd_fma(vd a, vd b, vd c) { return a * b + c; }
/* round to nearest, ties to even (nearbyint); no SSE4.1 roundsd here:
 * adding 2^52 to |a| < 2^52 leaves no fraction bits; larger |a| (and NaN)
 * are returned as they are, and the sign is a's (-0.3 -> -0) */
PB_INLINE vd vd_round(vd a)
{
    double m = fabs(a);
    if (!(m < 0x1p52))
        return a;
    return copysign((m + 0x1p52) - 0x1p52, a);
}
PB_INLINE vd vd_band(vd a, vd b) { return pb__double(pb__dbits(a) & pb__dbits(b)); }
PB_INLINE vd vd_bor(vd a, vd b) { return pb__double(pb__dbits(a) | pb__dbits(b)); }
PB_INLINE vd vd_bxor(vd a, vd b) { return pb__double(pb__dbits(a) ^ pb__dbits(b)); }
PB_INLINE vmd vmd_lt(vd a, vd b) { return a < b ? ~(uint64_t)0 : 0; }
PB_INLINE vmd vmd_le(vd a, vd b) { return a <= b ? ~(uint64_t)0 : 0; }
PB_INLINE vmd vmd_gt(vd a, vd b) { return a > b ? ~(uint64_t)0 : 0; }
PB_INLINE vmd vmd_ge(vd a, vd b) { return a >= b ? ~(uint64_t)0 : 0; }
PB_INLINE vmd vmd_eq(vd a, vd b) { return a == b ? ~(uint64_t)0 : 0; }
PB_INLINE vmd vmd_and(vmd a, vmd b) { return a & b; }
PB_INLINE vmd vmd_or(vmd a, vmd b) { return a | b; }
PB_INLINE vmd vmd_andnot(vmd a, vmd b) { return a & ~b; } /* a and not b */
PB_INLINE vmd vmd_not(vmd a) { return ~a; }
PB_INLINE vd vd_sel(vmd m, vd a, vd b) { return m ? a : b; } /* m ? a : b */
PB_INLINE int vmd_any(vmd m) { return m != 0; }
PB_INLINE unsigned vmd_bits(vmd m) { return m ? 1u : 0u; } /* bit l: lane l */

#include "lanes_common.h"

#endif
