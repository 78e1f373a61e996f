/* The integer and bit helpers that numtext_read.c and numtext_write.c share
 * (internal to them: number text's interface is numtext.h). */
#ifndef PB_IO_NUMTEXT_BITS_H
#define PB_IO_NUMTEXT_BITS_H

#include <stdint.h>
#include <string.h>

/* ---- 64 x 64 -> 128-bit arithmetic ---- */

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 nt_u128;
/* a * b: the low 64 bits returned, the high ones in *hi. */
static inline uint64_t mul64(uint64_t a, uint64_t b, uint64_t *hi)
{
    nt_u128 p = (nt_u128)a * b;
    *hi = (uint64_t)(p >> 64);
    return (uint64_t)p;
}
#else
static inline uint64_t mul64(uint64_t a, uint64_t b, uint64_t *hi)
{
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return (mid << 32) | (uint32_t)ll;
}
#endif

static inline int clz64(uint64_t x) /* x != 0 */
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_clzll(x);
#else
    int n = 0;
    while (!(x & (1ULL << 63))) {
        x <<= 1;
        n++;
    }
    return n;
#endif
}

static inline double bits_to_double(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static inline uint64_t double_to_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* An ASCII decimal digit. */
static inline int is_digit(char c) { return (unsigned char)(c - '0') < 10; }

#endif /* PB_IO_NUMTEXT_BITS_H */
