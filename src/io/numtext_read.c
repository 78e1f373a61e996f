/* Number text, format-neutral (numtext.h): decimal -> double, correctly
 * rounded (Clinger's fast path, Eisel-Lemire, strtod for the rest), and the
 * powers of ten both directions share. The formatters: numtext_write.c. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "numtext.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "numtext_bits.h"
#include "numtext_pow5.h"

const double pb_nt_p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                              1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                              1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* ---- decimal -> double ---- */

static inline uint64_t load_le64(const char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)(unsigned char)p[i] << (8 * i);
    return v;
}

static inline int ctz64(uint64_t x) /* x != 0 */
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* Reads the run of digits at p (w = w * 10 + digit for each; it wraps past
 * 19 digits, which the caller then reads again); returns its end. The first
 * four digit by digit (most runs in motion files are shorter), then eight
 * bytes at a time while eight can be read: the digits among them found and
 * converted at once (SWAR). */
static inline const char *scan_digits(const char *p, const char *end, uint64_t *wp)
{
    static const uint64_t pow10_8[9] = {1,      10,      100,      1000,     10000,
                                        100000, 1000000, 10000000, 100000000};
    uint64_t w = *wp;
    /* short runs (most numbers in motion files) digit by digit */
    for (int i = 0; i < 4; i++) {
        if (p >= end || !is_digit(*p)) {
            *wp = w;
            return p;
        }
        w = w * 10 + (uint64_t)(*p - '0');
        p++;
    }
    while (end - p >= 8) {
        const uint64_t x = load_le64(p);
        /* bit 7 of each byte that is not '0'..'9' (carries and borrows only
         * reach bytes after the first such byte) */
        const uint64_t non =
            ((x + 0x4646464646464646ULL) | (x - 0x3030303030303030ULL)) & 0x8080808080808080ULL;
        const int count = non ? ctz64(non) >> 3 : 8;
        if (count == 0)
            break;
        /* the digits in the high bytes, the first the most significant */
        uint64_t d = (x - 0x3030303030303030ULL) << (8 * (8 - count));
        d = d * 10 + (d >> 8);
        d = (((d & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
             (((d >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
            32;
        w = w * pow10_8[count] + d;
        p += count;
        if (count < 8) {
            *wp = w;
            return p;
        }
    }
    while (p < end && is_digit(*p)) {
        w = w * 10 + (uint64_t)(*p - '0');
        p++;
    }
    *wp = w;
    return p;
}

#define NT_UNDECIDED UINT64_MAX

/* The bits of the double nearest to w * 10^q (w != 0, q in the table's
 * range, w < 2^64), or NT_UNDECIDED where the 128-bit product cannot settle
 * the rounding (within two units of its last bit of a tie or of the next
 * rounding bit, outside the exact q = 0..27) or the result is subnormal:
 * the caller falls back to an exact method then. Eisel-Lemire (Lemire 2021,
 * as fast_float computes it). */
static uint64_t eisel_lemire(uint64_t w, int q)
{
    const int lz = clz64(w);
    w <<= lz;
    const uint64_t *t = nt_pow5[q - NT_POW5_MIN];
    uint64_t hi, lo = mul64(w, t[0], &hi);
    if ((hi & 0x1FF) == 0x1FF) { /* the low product could carry into the 55 bits kept */
        uint64_t hi2;
        (void)mul64(w, t[1], &hi2);
        lo += hi2;
        hi += lo < hi2;
    }
    const int upper = (int)(hi >> 63);
    const int shift = upper + 9;
    uint64_t mant = hi >> shift; /* 54 bits: 53 and the rounding bit */
    /* floor(q log2(5)) + q + 63, as (217706 q) >> 16 with a floor division */
    int64_t pq = (int64_t)217706 * q;
    int power2 = (int)(pq >= 0 ? pq >> 16 : -((-pq + 65535) >> 16)) + 63 + upper - lz + 1023;
    if (power2 <= 0)
        return NT_UNDECIDED; /* subnormal or zero: rare, left to the exact method */
    const uint64_t smask = (1ULL << shift) - 1;
    const uint64_t sticky_hi = hi & smask;
    if (sticky_hi == smask && lo >= UINT64_MAX - 1)
        return NT_UNDECIDED;
    if (sticky_hi == 0 && lo <= 1) {
        if (!(q >= 0 && q <= 27))
            return NT_UNDECIDED;
        /* exact product: a tie rounds to even */
        if (lo == 0 && (mant & 3) == 1)
            mant &= ~(uint64_t)1;
    }
    mant += mant & 1;
    mant >>= 1;
    if (mant >= (2ULL << 52)) {
        mant = 1ULL << 52;
        power2++;
    }
    mant &= ~(1ULL << 52);
    if (power2 >= 0x7FF)
        return (uint64_t)0x7FF << 52; /* infinity */
    return ((uint64_t)power2 << 52) | mant;
}

/* The exact method: strtod on the digits written as "DIGITSe<exp>", with no
 * decimal point, which every locale reads alike. The digits are the integer
 * part [a, a_end) and the fraction part [b, b_end) of the text, leading
 * zeros skipped by the caller; exp10_of_last: the power of ten of the last
 * of them. At most 780 significant digits are passed on: past those only
 * whether any is not 0 matters (one '1' stands for them), since no halfway
 * point between doubles has more than 767. Returns |value|. */
static double exact_slow(const char *a, const char *a_end, const char *b, const char *b_end,
                         int64_t exp10_of_last)
{
    enum { KEEP = 780 };
    char buf[KEEP + 32];
    size_t k = 0;
    int64_t dropped = 0;
    int sticky = 0;
    for (int part = 0; part < 2; part++) {
        const char *p = part ? b : a, *e = part ? b_end : a_end;
        for (; p < e; p++) {
            if (k < KEEP - 1) {
                buf[k++] = *p;
            } else {
                dropped++;
                sticky |= *p != '0';
            }
        }
    }
    if (sticky) {
        buf[k++] = '1';
        dropped--;
    }
    long long e10 = (long long)(exp10_of_last + dropped);
    int n = snprintf(buf + k, sizeof buf - k, "e%lld", e10);
    (void)n;
    int saved = errno;
    double v = strtod(buf, NULL);
    errno = saved;
    return v;
}

/* Moves *a past the leading zeros of the integer digits [*a, a_end) and,
 * when they are all zeros, *b past those of the fraction digits [*b, b_end):
 * both then start at the first significant digit. */
static inline void skip_leading_zeros(const char **a, const char *a_end, const char **b,
                                      const char *b_end)
{
    while (*a < a_end && **a == '0')
        (*a)++;
    if (*a == a_end)
        while (*b < b_end && **b == '0')
            (*b)++;
}

size_t pb_nt_parse_info(const char *s, size_t n, double *out, pb_nt_info *info)
{
    const char *p = s, *end = s + n;
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        neg = *p == '-';
        p++;
    }
    const char *is = p;
    uint64_t w = 0;
    p = scan_digits(p, end, &w);
    const char *ie = p, *fs = p, *fe = p;
    if (p < end && *p == '.') {
        fs = ++p;
        p = scan_digits(p, end, &w);
        fe = p;
    }
    const size_t nint = (size_t)(ie - is), nfrac = (size_t)(fe - fs);
    if (nint + nfrac == 0)
        return 0;
    long e = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int eneg = 0;
        if (q < end && (*q == '+' || *q == '-')) {
            eneg = *q == '-';
            q++;
        }
        if (q < end && is_digit(*q)) {
            do {
                if (e < 100000000L) /* saturates below 1e9: fits a 32-bit long */
                    e = e * 10 + (*q - '0');
                q++;
            } while (q < end && is_digit(*q));
            if (eneg)
                e = -e;
            p = q;
        }
    }
    if (info) {
        info->frac_digits = nfrac;
        info->exp = e;
    }
    int64_t exp10 = (int64_t)e - (int64_t)nfrac; /* of the last digit */
    double v;
    if (nint + nfrac <= 19) {
        if (w == 0) {
            v = 0.0;
            goto done;
        }
        if (w <= (1ULL << 53) && exp10 >= -22 && exp10 <= 22) { /* Clinger */
            v = (double)w;
            v = exp10 < 0 ? v / pb_nt_p10[-exp10] : v * pb_nt_p10[exp10];
            goto done;
        }
        if (exp10 < NT_POW5_MIN) {
            v = 0.0;
            goto done;
        }
        if (exp10 > NT_POW5_MAX) {
            v = HUGE_VAL;
            goto done;
        }
        uint64_t bits = eisel_lemire(w, (int)exp10);
        if (bits != NT_UNDECIDED) {
            v = bits_to_double(bits);
            goto done;
        }
        /* leading zeros skipped for the exact method */
        const char *a = is, *b = fs;
        skip_leading_zeros(&a, ie, &b, fe);
        v = exact_slow(a, ie, b, fe, exp10);
        goto done;
    }
    /* More than 19 digits: leading zeros do not count. */
    {
        const char *a = is, *b = fs;
        skip_leading_zeros(&a, ie, &b, fe);
        size_t sig = (size_t)(ie - a) + (size_t)(fe - b);
        if (sig == 0) {
            v = 0.0;
            goto done;
        }
        /* the first 19 significant digits, and whether any later one is not 0 */
        uint64_t w19 = 0;
        size_t taken = 0;
        int rest = 0;
        for (int part = 0; part < 2; part++) {
            const char *q = part ? b : a, *qe = part ? fe : ie;
            for (; q < qe; q++) {
                if (taken < 19) {
                    w19 = w19 * 10 + (uint64_t)(*q - '0');
                    taken++;
                } else if (*q != '0') {
                    rest = 1;
                    break;
                }
            }
        }
        int64_t q10 = exp10 + (int64_t)(sig - taken); /* of the 19th digit */
        if (q10 + 19 < NT_POW5_MIN) {
            v = 0.0;
            goto done;
        }
        if (q10 > NT_POW5_MAX) {
            v = HUGE_VAL;
            goto done;
        }
        if (q10 >= NT_POW5_MIN) {
            uint64_t lo = eisel_lemire(w19, (int)q10);
            /* w19 <= 10^19 - 1, so w19 + 1 still fits */
            if (lo != NT_UNDECIDED && (!rest || eisel_lemire(w19 + 1, (int)q10) == lo)) {
                v = bits_to_double(lo);
                goto done;
            }
        }
        v = exact_slow(a, ie, b, fe, exp10);
    }
done:
    *out = neg ? -v : v;
    return (size_t)(p - s);
}

size_t pb_nt_parse(const char *s, size_t n, double *out)
{
    return pb_nt_parse_info(s, n, out, NULL);
}
