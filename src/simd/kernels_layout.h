/* Layout converters: interleaved (AoS) float data, as engines and glTF store
 * it -- (x, y, z, w) quaternions, xyz vectors, whole transforms of `stride`
 * floats -- to and from posebatch's structure-of-arrays batches. Included by
 * kernels.h after the lane layer; the kernels are pure data movement, so
 * every backend returns the same bits.
 *
 * Dense data (stride == comps, 3 or 4 floats an element) moves a block of
 * PB_LANES elements at a time through a register transpose where the lane
 * layer has one: SSE4.1 and AVX2 (unpack/shuffle 4x4 transposes, 4 floats an
 * element), NEON (vld3q/vld4q, vst3q/vst4q). Everything else (the scalar
 * layer, AVX-512, 3 floats an element on x86, strided transforms and the
 * tails) is a plain loop per component, which the compiler vectorises with
 * the backend's own flags (-O3: permutes or gathers). */
#ifndef PB_KERNELS_LAYOUT_H
#define PB_KERNELS_LAYOUT_H

/* ---------------------------------------- per-layer block transposes */
#if defined(PB_LANES_SSE41_H)
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
#elif defined(PB_LANES_AVX2_H)
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
#elif defined(PB_LANES_NEON_H)
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
#endif

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
PB_INLINE void int_loop(size_t i0, size_t i1, const float *const src[4], int comps,
                        size_t stride, float *dst)
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
static void k_interleave(size_t n, const float *const src[4], int comps, size_t stride,
                         float *dst)
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
