/* Layout converters: interleaved (AoS) float data, as engines and glTF store
 * it -- (x, y, z, w) quaternions, xyz vectors, whole transforms of `stride`
 * floats -- to and from posebatch's structure-of-arrays batches. Included by
 * kernels.h after the lane layer; the kernels are pure data movement, so
 * every backend returns the same bits.
 *
 * Dense data (stride == comps, 3 or 4 floats an element) moves a block of
 * PB_LANES elements at a time through a register transpose where the lane
 * layer has one: SSE4.1 and AVX2 (unpack/shuffle 4x4 transposes, 4 floats an
 * element), AVX-512 (two-source permutations, 3 floats an element), NEON
 * (vld3q/vld4q, vst3q/vst4q). Everything else (the scalar layer, AVX-512
 * with 4 floats, SSE4.1 and AVX2 with 3, strided transforms and the tails) is a plain loop per component, which the compiler vectorises with
 * the backend's own flags (-O3: permutes or gathers). */
#ifndef PB_KERNELS_LAYOUT_H
#define PB_KERNELS_LAYOUT_H

#include "internal.h"

/* The lane layers that have them define PB_HAVE_AOS4 / PB_HAVE_AOS3 and
 * aos_load4 / aos_store4 (aos_load3 / aos_store3): a block of lane-width
 * elements of 4 (3) interleaved floats <-> 4 (3) component vectors. */

/* ------------------------------------------------------------- kernels */

/* Elements i0..i1-1, one component at a time (the compiler vectorises it). */
PB_INLINE void deint_loop(size_t i0, size_t i1, const float *src, size_t stride, int comps,
                          float *const dst[4])
{
    for (int c = 0; c < comps; c++) {
        float *d = dst[c];
        const float *s = src + c;
        for (size_t i = i0; i < i1; i++)
            d[i] = s[i * stride];
    }
}
PB_INLINE void int_loop(size_t i0, size_t i1, const float *const src[4], int comps, size_t stride,
                        float *dst)
{
    for (int c = 0; c < comps; c++) {
        const float *s = src[c];
        float *d = dst + c;
        for (size_t i = i0; i < i1; i++)
            d[i * stride] = s[i];
    }
}

/* dst[c][i] = src[i * stride + c] for c < comps (3 or 4), i < n. */
static void k_deinterleave(size_t n, const float *src, size_t stride, int comps,
                           float *const dst[4])
{
    size_t i = 0;
#if defined(PB_HAVE_AOS4)
    if (comps == 4 && stride == 4)
        for (; i + PB_LANES <= n; i += PB_LANES) {
            vf c[4];
            aos_load4(src + 4 * i, c);
            for (int k = 0; k < 4; k++)
                vf_store(dst[k] + i, c[k]);
        }
#endif
#if defined(PB_HAVE_AOS3)
    if (comps == 3 && stride == 3)
        for (; i + PB_LANES <= n; i += PB_LANES) {
            vf c[3];
            aos_load3(src + 3 * i, c);
            for (int k = 0; k < 3; k++)
                vf_store(dst[k] + i, c[k]);
        }
#endif
    deint_loop(i, n, src, stride, comps, dst);
}

/* dst[i * stride + c] = src[c][i] for c < comps (3 or 4), i < n; the other
 * floats of each stride are not written. */
static void k_interleave(size_t n, const float *const src[4], int comps, size_t stride, float *dst)
{
    size_t i = 0;
#if defined(PB_HAVE_AOS4)
    if (comps == 4 && stride == 4)
        for (; i + PB_LANES <= n; i += PB_LANES) {
            vf c[4];
            for (int k = 0; k < 4; k++)
                c[k] = vf_load(src[k] + i);
            aos_store4(dst + 4 * i, c);
        }
#endif
#if defined(PB_HAVE_AOS3)
    if (comps == 3 && stride == 3)
        for (; i + PB_LANES <= n; i += PB_LANES) {
            vf c[3];
            for (int k = 0; k < 3; k++)
                c[k] = vf_load(src[k] + i);
            aos_store3(dst + 3 * i, c);
        }
#endif
    int_loop(i, n, src, comps, stride, dst);
}

/* Designated initialisers for the kernel table (PB_DEFINE_KERNEL_TABLE). */
#define PB_LAYOUT_KERNELS .deinterleave = k_deinterleave, .interleave = k_interleave,

#endif
