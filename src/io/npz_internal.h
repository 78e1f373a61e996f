/* What the .npz writer and reader share (internal to src/io; the contract
 * is include/posebatch/npz.h): CRC-32 (zip's, slicing by 8), little-endian
 * fields, the .npy element types. */
#ifndef PB_IO_NPZ_INTERNAL_H
#define PB_IO_NPZ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "posebatch/io.h"

/* crc continued over n bytes (start with 0): zip's CRC-32 (reflected,
 * polynomial 0xEDB88320, inverted in and out) */
uint32_t npz_crc32(uint32_t crc, const void *data, size_t n);

/* the size of one element of a numeric type (0 for strings and others) */
size_t npz_item_size(pb_npy_dtype t);
/* bytes owned by npz (released by pb_npz_free), aligned for any type;
 * NULL when out of memory */
void *npz_alloc(pb_npz *npz, size_t bytes);
/* 1 on a big-endian machine (numbers are then swapped to and from files) */
int npz_big_endian(void);

static inline void npz_put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v & 255);
    p[1] = (unsigned char)((v >> 8) & 255);
}
static inline void npz_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)((v >> (8 * i)) & 255);
}
static inline unsigned npz_get16(const unsigned char *p) { return p[0] | (unsigned)p[1] << 8; }
static inline uint32_t npz_get32(const unsigned char *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t npz_get64(const unsigned char *p)
{
    return npz_get32(p) | (uint64_t)npz_get32(p + 4) << 32;
}

#endif /* PB_IO_NPZ_INTERNAL_H */
