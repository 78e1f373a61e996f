/* Lane operations built once from each layer's primitives, so every backend
 * computes them the same way (bit-identical in deterministic builds).
 * Included at the end of every lanes_<isa>.h. Needs: vf_set, vf_load,
 * vf_store, vf_add, vf_sub, vf_band, vf_bor, vf_bxor, vf_shr23, vf_shl23 (vf_iadd
 * is also per layer: 32-bit integer addition of the bit patterns). */
#ifndef PB_LANES_COMMON_H
#define PB_LANES_COMMON_H

#include <string.h>

PB_INLINE vf pb__bitconst(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return vf_set(f);
}

/* Partial blocks (n < PB_LANES: lanes_math.h's blocks): a layer that
 * defines PB_HAVE_PART has its own vf_load_part / vf_store_part (masked or
 * lane-wise, no stack round trip: a vector load of a buffer just written by
 * narrower stores stalls on store forwarding). Otherwise they go through a
 * small buffer. Unused lanes load as copies of element 0, so they compute
 * what a real element does: zero lanes would send every partial block down
 * the kernels' rare-case paths (zero or tiny angles, opposite quaternions),
 * several times slower. Nothing past cnt elements is read or written. */
#ifndef PB_HAVE_PART
/* (cnt < PB_LANES, a power of two: the mask says so to the compiler, whose
 * bounds warning otherwise sees a path with cnt beyond the buffer) */
PB_INLINE vf vf_load_part(const float *p, size_t cnt)
{
    float b[PB_LANES];
    for (size_t i = 0; i < PB_LANES; i++)
        b[i] = p[0];
    memcpy(b, p, (cnt & (PB_LANES - 1)) * sizeof(float));
    return vf_load(b);
}
PB_INLINE void vf_store_part(float *p, vf v, size_t cnt)
{
    float b[PB_LANES];
    vf_store(b, v);
    memcpy(p, b, (cnt & (PB_LANES - 1)) * sizeof(float));
}
#endif
/* Indexed lanes (kernels_skeleton.h): idx holds 32-bit integers (a
 * vector of int32_t loaded as floats); lane l is p[idx_l] where idx_l >= 0
 * (a valid index), fill_l where it is negative (p not read there). A layer
 * that defines PB_HAVE_GATHER has a hardware gather; this one goes through
 * small buffers. */
#ifndef PB_HAVE_GATHER
PB_INLINE vf vf_gather_ge0(const float *p, vf idx, vf fill)
{
    int32_t ix[PB_LANES];
    float b[PB_LANES], f[PB_LANES];
    vf_store(b, idx);
    memcpy(ix, b, sizeof ix);
    vf_store(f, fill);
    for (size_t i = 0; i < PB_LANES; i++)
        b[i] = ix[i] >= 0 ? p[ix[i]] : f[i];
    return vf_load(b);
}
#endif
/* A back tail's store (lanes_math.h): lanes lo .. PB_LANES-1 of v to p + lo
 * .. p + PB_LANES-1, 0 < lo < PB_LANES. A layer that defines
 * PB_HAVE_STORE_HIGH has its own; this one goes through a small buffer. */
#ifndef PB_HAVE_STORE_HIGH
PB_INLINE void vf_store_high(float *p, vf v, size_t lo)
{
    float b[PB_LANES];
    vf_store(b, v);
    lo &= PB_LANES - 1;
    memcpy(p + lo, b + lo, (PB_LANES - lo) * sizeof(float));
}
#endif

PB_INLINE vf vf_abs(vf a) { return vf_band(a, pb__bitconst(0x7fffffffu)); }
PB_INLINE vf vf_neg(vf a) { return vf_bxor(a, pb__bitconst(0x80000000u)); }
/* a with its sign flipped where s has the sign bit set (s = -0 included) */
PB_INLINE vf vf_xorsign(vf a, vf s) { return vf_bxor(a, vf_band(s, pb__bitconst(0x80000000u))); }
/* Round to nearest, ties to even, for |a| < 2^22: adding 1.5*2^23 leaves no
 * fraction bits. Not folded by the compiler without -ffast-math. */
PB_INLINE vf vf_round(vf a)
{
    vf big = vf_set(12582912.0f);
    return vf_sub(vf_add(a, big), big);
}
/* 2^k for integral k in [-126, 127], the reverse trick */
PB_INLINE vf vf_pow2i(vf k)
{
    vf biased = vf_add(vf_add(k, vf_set(127.0f)), vf_set(8388608.0f));
    return vf_shl23(vf_band(biased, pb__bitconst(0xffu)));
}

/* Strided lanes (simd/kernels_skeleton.h: lanes are poses, J floats
 * apart): lane l <-> p[l * stride]. The _part forms move lanes 0 .. cnt-1
 * (0 < cnt < PB_LANES), unused lanes load as copies of p[0], and nothing
 * else is read or written. A layer that defines PB_HAVE_STRIDE has its own
 * (hardware gathers and scatters, lane inserts); these fill lanes through a
 * small buffer. */
#ifndef PB_HAVE_STRIDE
PB_INLINE vf vf_load_stride_part(const float *p, size_t stride, size_t cnt)
{
    float b[PB_LANES];
    for (size_t l = 0; l < PB_LANES; l++)
        b[l] = p[(l < cnt ? l : 0) * stride];
    return vf_load(b);
}
PB_INLINE vf vf_load_stride(const float *p, size_t stride)
{
    float b[PB_LANES];
    for (size_t l = 0; l < PB_LANES; l++)
        b[l] = p[l * stride];
    return vf_load(b);
}
PB_INLINE void vf_store_stride_part(float *p, size_t stride, vf v, size_t cnt)
{
    float b[PB_LANES];
    vf_store(b, v);
    for (size_t l = 0; l < cnt && l < PB_LANES; l++)
        p[l * stride] = b[l];
}
PB_INLINE void vf_store_stride(float *p, size_t stride, vf v)
{
    float b[PB_LANES];
    vf_store(b, v);
    for (size_t l = 0; l < PB_LANES; l++)
        p[l * stride] = b[l];
}
#endif

/* Tiles (simd/kernels_skeleton.h): PB_LANES rows of PB_LANES floats, row r
 * at p + r * stride, transposed: vf_load_tile gives c[k] with lane r =
 * p[r * stride + k]; vf_store_tile is its inverse (p[r * stride + k] = lane
 * r of c[k]). A layer that defines PB_HAVE_TILE has register transposes;
 * these go through a small buffer. */
#ifndef PB_HAVE_TILE
PB_INLINE void vf_load_tile(const float *p, size_t stride, vf *c)
{
    float b[PB_LANES * PB_LANES];
    for (size_t r = 0; r < PB_LANES; r++)
        for (size_t k = 0; k < PB_LANES; k++)
            b[k * PB_LANES + r] = p[r * stride + k];
    for (size_t k = 0; k < PB_LANES; k++)
        c[k] = vf_load(b + k * PB_LANES);
}
PB_INLINE void vf_store_tile(float *p, size_t stride, const vf *c)
{
    float b[PB_LANES * PB_LANES];
    for (size_t k = 0; k < PB_LANES; k++)
        vf_store(b + k * PB_LANES, c[k]);
    for (size_t r = 0; r < PB_LANES; r++)
        for (size_t k = 0; k < PB_LANES; k++)
            p[r * stride + k] = b[k * PB_LANES + r];
}
#endif

/* Double lanes, built once from each layer's vd primitives. Partial blocks
 * (cnt < PB_DLANES elements) go through a small buffer; unused lanes load
 * copies of element 0 (like vf_load_part) and nothing past cnt is read or
 * written. */
PB_INLINE vd pb__dbitconst(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return vd_set(d);
}
PB_INLINE vd vd_abs(vd a) { return vd_band(a, pb__dbitconst(0x7fffffffffffffffull)); }
PB_INLINE vd vd_neg(vd a) { return vd_bxor(a, pb__dbitconst(0x8000000000000000ull)); }
/* s's sign bit (-0 included), the rest zero */
PB_INLINE vd vd_signbit(vd s) { return vd_band(s, pb__dbitconst(0x8000000000000000ull)); }
/* |a| with s's sign */
PB_INLINE vd vd_copysign(vd a, vd s) { return vd_bor(vd_abs(a), vd_signbit(s)); }
PB_INLINE vd vd_load_part(const double *p, size_t cnt)
{
    double b[PB_DLANES];
    for (size_t i = 0; i < PB_DLANES; i++)
        b[i] = i < cnt ? p[i] : p[0];
    return vd_load(b);
}
PB_INLINE vd vd_load_f_part(const float *p, size_t cnt)
{
    float b[PB_DLANES];
    for (size_t i = 0; i < PB_DLANES; i++)
        b[i] = i < cnt ? p[i] : p[0];
    return vd_load_f(b);
}
PB_INLINE void vd_store_f_part(float *p, vd v, size_t cnt)
{
    float b[PB_DLANES];
    vd_store_f(b, v);
    for (size_t i = 0; i < cnt && i < PB_DLANES; i++)
        p[i] = b[i];
}
PB_INLINE void vd_store_part(double *p, vd v, size_t cnt)
{
    double b[PB_DLANES];
    vd_store(b, v);
    for (size_t i = 0; i < cnt && i < PB_DLANES; i++)
        p[i] = b[i];
}

#endif
