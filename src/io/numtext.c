/* Number text, format-neutral (numtext.h): decimal -> double, correctly
 * rounded, and the fixed-notation formatters of the file writers. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "numtext.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numtext_pow5.h"

const double pb_nt_p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                              1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                              1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const uint64_t u10[20] = {1ULL,
                                 10ULL,
                                 100ULL,
                                 1000ULL,
                                 10000ULL,
                                 100000ULL,
                                 1000000ULL,
                                 10000000ULL,
                                 100000000ULL,
                                 1000000000ULL,
                                 10000000000ULL,
                                 100000000000ULL,
                                 1000000000000ULL,
                                 10000000000000ULL,
                                 100000000000000ULL,
                                 1000000000000000ULL,
                                 10000000000000000ULL,
                                 100000000000000000ULL,
                                 1000000000000000000ULL,
                                 10000000000000000000ULL};

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

/* ---- decimal -> double ---- */

static inline int is_digit(char c) { return (unsigned char)(c - '0') < 10; }

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
        while (a < ie && *a == '0')
            a++;
        if (a == ie)
            while (b < fe && *b == '0')
                b++;
        v = exact_slow(a, ie, b, fe, exp10);
        goto done;
    }
    /* More than 19 digits: leading zeros do not count. */
    {
        const char *a = is, *b = fs;
        while (a < ie && *a == '0')
            a++;
        if (a == ie)
            while (b < fe && *b == '0')
                b++;
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

/* ---- the read-back arithmetic of the BVH reader before numtext ---- */

/* What that reader made of the digits M (at most 18 of them, read exactly)
 * with exponent E: (double)M times or divided by an exact power of ten, or
 * for |E| > 22 two pow() factors; 0 for M = 0 or E < -400, and NAN ("not a
 * number": it refused) for E > 400 or an infinite result. The formatters'
 * read-back tests use it so that they choose the texts they always chose. */
static double legacy_value(uint64_t mant, long exp10)
{
    if (mant == 0)
        return 0.0;
    if (exp10 > 400)
        return NAN;
    if (exp10 < -400)
        return 0.0;
    double v = (double)mant;
    if (exp10 >= 0 && exp10 <= 22)
        v *= pb_nt_p10[exp10];
    else if (exp10 < 0 && exp10 >= -22)
        v /= pb_nt_p10[-exp10];
    else {
        long h = exp10 / 2;
        v = v * pow(10.0, (double)h) * pow(10.0, (double)(exp10 - h));
    }
    return isfinite(v) ? v : NAN;
}

/* legacy_value of a "%g" text (sign, digits, optional '.', digits, optional
 * exponent), as that reader scanned it; NAN when it is not such a text. */
static double legacy_read(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    uint64_t mant = 0;
    long exp10 = 0;
    int digits = 0;
    for (; i < n && is_digit(s[i]); i++, digits++) {
        if (mant < 100000000000000000ULL)
            mant = mant * 10 + (uint64_t)(s[i] - '0');
        else
            exp10++;
    }
    if (i < n && s[i] == '.')
        for (i++; i < n && is_digit(s[i]); i++, digits++)
            if (mant < 100000000000000000ULL) {
                mant = mant * 10 + (uint64_t)(s[i] - '0');
                exp10--;
            }
    if (digits == 0)
        return NAN;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        long e = 0;
        for (; i < n && is_digit(s[i]); i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        exp10 += eneg ? -e : e;
    }
    return legacy_value(mant, exp10);
}

/* ---- snprintf under the C locale (the rare values) ---- */

#if defined(__GNUC__) || defined(__clang__)
#define PB_NT_PRINTF __attribute__((format(printf, 2, 3)))
#else
#define PB_NT_PRINTF
#endif

/* The C locale object, made on first use (a thread that loses the race
 * frees its own); never freed. NULL if it cannot be made: the thread's locale
 * is used then. */
static _Atomic(locale_t) c_locale_obj;

static locale_t c_locale(void)
{
    locale_t l = atomic_load_explicit(&c_locale_obj, memory_order_acquire);
    if (l)
        return l;
    locale_t mine = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (!mine)
        return (locale_t)0;
    locale_t expected = (locale_t)0;
    if (atomic_compare_exchange_strong_explicit(&c_locale_obj, &expected, mine,
                                                memory_order_acq_rel, memory_order_acquire))
        return mine;
    freelocale(mine);
    return expected;
}

/* snprintf to out with '.' as the decimal point whatever the thread's
 * locale, cut to PB_NT_MAX bytes (as the writer's 48-byte buffers cut it
 * before); returns the length, no NUL written. */
static size_t c_snprintf(char *out, const char *fmt, ...) PB_NT_PRINTF;
static size_t c_snprintf(char *out, const char *fmt, ...)
{
    char tmp[PB_NT_MAX + 1];
    locale_t cl = c_locale();
    locale_t old = cl ? uselocale(cl) : (locale_t)0;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (cl)
        uselocale(old);
    size_t n = k < 0 ? 0 : (size_t)k > PB_NT_MAX ? PB_NT_MAX : (size_t)k;
    memcpy(out, tmp, n);
    return n;
}

/* ---- digits ---- */

static const char digit_pairs[200] = "00010203040506070809"
                                     "10111213141516171819"
                                     "20212223242526272829"
                                     "30313233343536373839"
                                     "40414243444546474849"
                                     "50515253545556575859"
                                     "60616263646566676869"
                                     "70717273747576777879"
                                     "80818283848586878889"
                                     "90919293949596979899";

/* Little-endian loads and stores of unaligned bytes (text order = the
 * lowest byte first). */
static inline int little_endian(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}
static inline uint16_t load_le16(const void *p)
{
    unsigned char b[2];
    memcpy(b, p, 2);
    return (uint16_t)(b[0] | b[1] << 8);
}
static inline void store_le32(void *p, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    memcpy(p, b, 4);
}
static inline void store_le64(void *p, uint64_t v)
{
    if (little_endian()) {
        memcpy(p, &v, 8);
        return;
    }
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    memcpy(p, b, 8);
}

/* Writes the decimal digits of m ending just before `end`, at least `min`
 * of them (leading zeros); returns how many. */
static inline int put_digits_rev(char *end, uint64_t m, int min)
{
    char *p = end;
    while (m >= 100) {
        uint64_t q = m / 100;
        unsigned r = (unsigned)(m - q * 100);
        p -= 2;
        memcpy(p, digit_pairs + 2 * r, 2);
        m = q;
    }
    if (m >= 10) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * m, 2);
    } else {
        *--p = (char)('0' + m);
    }
    int n = (int)(end - p);
    while (n < min) {
        *--p = '0';
        n++;
    }
    return n;
}

/* pb_nt_fixed, with the decimals written (after dropping zeros) in *dec.
 * Copies fixed blocks of 24 bytes (no length-dependent memcpy): it may write
 * scratch bytes after the text, within PB_NT_MAX. */
static size_t fixed_text(char *out, int neg, uint64_t m, int d, int *dec)
{
    char tmp[48];
    char *end = tmp + 24;
    memset(end, '0', 24);                  /* (copied along, never part of the text) */
    int n = put_digits_rev(end, m, d + 1); /* <= 20 digits */
    const char *dig = end - n;
    int keep = d; /* decimals kept */
    while (keep > 0 && dig[n - d + keep - 1] == '0')
        keep--;
    size_t k = (size_t)(neg && m != 0);
    out[0] = '-';
    const int ni = n - d;
    memcpy(out + k, dig, 24); /* the integer digits (and what follows) */
    k += (size_t)ni;
    if (keep > 0) {
        out[k] = '.';
        memcpy(out + k + 1, dig + ni, 24); /* the decimals */
        k += 1 + (size_t)keep;
    }
    *dec = keep;
    return k;
}

size_t pb_nt_fixed(char *out, int neg, uint64_t m, int d)
{
    int dec;
    return fixed_text(out, neg, m, d, &dec);
}

/* nearbyint(t) for 0 <= t < 2^63 in the current rounding mode: adding and
 * subtracting 2^52 leaves the integer the mode rounds to (t >= 2^52 is one). */
static inline double round_int(double t)
{
#if defined(__SSE4_1__) || defined(__aarch64__) || !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
    return nearbyint(t);
#else
    if (t >= 0x1p52)
        return t;
    return (t + 0x1p52) - 0x1p52;
#endif
}

/* round_int(t) as an integer, for 0 <= t < 2^63: one conversion where the
 * compiler has it (lrint rounds in the current mode as nearbyint does). */
static inline int64_t round_to_int64(double t)
{
#if (defined(__x86_64__) || defined(__aarch64__)) && defined(__NO_MATH_ERRNO__)
    return (int64_t)lrint(t);
#else
    return (int64_t)round_int(t);
#endif
}

/* ---- float ---- */

/* pb_nt_float; *dec: the decimals of a fixed text, -1 for a "%g" one (its
 * dot and exponent are looked at by pb_nt_float_pos then). */
static size_t float_text(char *out, float v, int *dec)
{
    if (v == 0.0f) {
        out[0] = '0';
        *dec = 0;
        return 1;
    }
    const double a = fabs((double)v);
    const float fa = (float)a;
    /* Half the float's spacing at |v| (above it: the larger side). A
     * candidate m / 10^d can only read back to v when |m - a 10^d| is within
     * that (times 10^d), up to the double rounding of a 10^d, of m / 10^d and
     * of the product below: those further off are skipped without the
     * division of the exact test. */
    uint32_t fb;
    memcpy(&fb, &fa, sizeof fb);
    int be = (int)((fb >> 23) & 0xFF);
    /* 2^(be - 127 - 24) (2^-150 for subnormals) as a double */
    double half = bits_to_double((uint64_t)((be ? be : 1) + 872) << 52);
    for (int d = 0; d <= 15; d++) {
        double t = a * pb_nt_p10[d];
        if (t >= 9e15)
            break;
        double m = round_int(t);
        if (fabs(t - m) > half * pb_nt_p10[d] + t * 0x1p-49)
            continue;
        if ((float)(m / pb_nt_p10[d]) == fa)
            return fixed_text(out, v < 0.0f, (uint64_t)m, d, dec);
    }
    *dec = -1;
    size_t n = 0;
    for (int p = 6; p <= 9; p++) {
        n = c_snprintf(out, "%.*g", p, (double)v);
        double back = legacy_read(out, n);
        if (!isnan(back) && (float)back == fa)
            break;
    }
    return n;
}

size_t pb_nt_float(char *out, float v)
{
    int dec;
    return float_text(out, v, &dec);
}

size_t pb_nt_float_pos(char *out, float v, int decimals)
{
    int have;
    size_t n = float_text(out, v, &have);
    if (have < 0) { /* a "%g" text: as the formatter before, by its characters */
        const char *dot = memchr(out, '.', n);
        have = dot ? (int)(n - (size_t)(dot + 1 - out)) : 0;
        if (memchr(out, 'e', n))
            return n;
    }
    if (decimals <= have || decimals > 15)
        return n;
    double m = round_int(fabs((double)v) * pb_nt_p10[decimals]);
    if (m < 9e15)
        n = pb_nt_fixed(out, v < 0.0f, (uint64_t)m, decimals);
    return n;
}

/* ---- double, 15..17 significant digits ---- */

/* 5^0 .. 5^27 (5^27 < 2^63). */
static const uint64_t pow5_64[28] = {1ULL,
                                     5ULL,
                                     25ULL,
                                     125ULL,
                                     625ULL,
                                     3125ULL,
                                     15625ULL,
                                     78125ULL,
                                     390625ULL,
                                     1953125ULL,
                                     9765625ULL,
                                     48828125ULL,
                                     244140625ULL,
                                     1220703125ULL,
                                     6103515625ULL,
                                     30517578125ULL,
                                     152587890625ULL,
                                     762939453125ULL,
                                     3814697265625ULL,
                                     19073486328125ULL,
                                     95367431640625ULL,
                                     476837158203125ULL,
                                     2384185791015625ULL,
                                     11920928955078125ULL,
                                     59604644775390625ULL,
                                     298023223876953125ULL,
                                     1490116119384765625ULL,
                                     7450580596923828125ULL};

/* floor(e2 log10(2)) for |e2| < 1650. */
static inline int floor_log10_pow2(int e2)
{
    int64_t t = (int64_t)e2 * 78913;
    return (int)(t >= 0 ? t >> 18 : -((-t + 262143) >> 18));
}

/* The P (15..17) significant digits of a = m 2^e (m < 2^53 an integer,
 * a >= 1e-11 and a < 1e15 with k = P - 1 - X in [0, 27]) rounded to nearest,
 * ties to even, as glibc's printf rounds: N in [10^(P-1), 10^P), a ~ N
 * 10^(X - P + 1). Returns 0 when a is outside the range this computes. */
static int digits_of(uint64_t m, int e, int P, int X, uint64_t *N_out, int *X_out)
{
    for (int tries = 0; tries < 2; tries++) {
        int k = P - 1 - X;
        if (k < 0 || k > 27)
            return 0;
        /* a 10^k = m 5^k 2^(e + k) */
        uint64_t hi, lo = mul64(m, pow5_64[k], &hi);
        int s = -(e + k); /* right shift */
        uint64_t q;
        int up;
        if (s <= 0) { /* an integer */
            int ls = -s;
            if (hi != 0 || ls > 10 || (ls > 0 && (lo >> (64 - ls)) != 0))
                return 0;
            q = lo << ls;
            up = 0;
        } else if (s < 64) {
            q = (lo >> s) | (s ? hi << (64 - s) : 0);
            if ((hi >> s) != 0)
                return 0;
            uint64_t rem = lo & ((1ULL << s) - 1), halfv = 1ULL << (s - 1);
            up = rem > halfv || (rem == halfv && (q & 1));
        } else if (s < 128) {
            int s2 = s - 64;
            q = s2 ? hi >> s2 : hi;
            uint64_t rem_hi = s2 ? hi & ((1ULL << s2) - 1) : 0;
            /* remainder (rem_hi:lo) against half = 2^(s-1) */
            if (s2 == 0)
                up = lo > (1ULL << 63) || (lo == (1ULL << 63) && (q & 1));
            else {
                uint64_t halfh = 1ULL << (s2 - 1);
                up = rem_hi > halfh || (rem_hi == halfh && (lo > 0 || (q & 1)));
            }
        } else {
            return 0;
        }
        if (q < u10[P - 1]) { /* X was one too large */
            X--;
            continue;
        }
        if (q >= u10[P]) { /* X was one too small */
            X++;
            continue;
        }
        q += (uint64_t)up;
        if (q == u10[P]) {
            q = u10[P - 1];
            X++;
        }
        *N_out = q;
        *X_out = X;
        return 1;
    }
    return 0;
}

/* N (P digits) times 10^(X - P + 1) as "%.{P}g" writes it; *lv the value the
 * old reader made of that text. */
static size_t g_text(char *out, int neg, uint64_t N, int P, int X, double *lv)
{
    char dig[24];
    char *end = dig + sizeof dig;
    put_digits_rev(end, N, P);
    const char *d = end - P;
    int nd = P; /* significant digits after dropping trailing zeros */
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    size_t k = 0;
    if (neg)
        out[k++] = '-';
    uint64_t mant = N / u10[P - nd];
    if (X < -4 || X >= P) { /* d.ddde+XX */
        out[k++] = d[0];
        if (nd > 1) {
            out[k++] = '.';
            memcpy(out + k, d + 1, (size_t)(nd - 1));
            k += (size_t)(nd - 1);
        }
        out[k++] = 'e';
        int x = X;
        out[k++] = x < 0 ? '-' : '+';
        if (x < 0)
            x = -x;
        if (x >= 100) {
            out[k++] = (char)('0' + x / 100);
            x %= 100;
        }
        memcpy(out + k, digit_pairs + 2 * x, 2);
        k += 2;
        *lv = legacy_value(mant, X - (nd - 1));
    } else if (X >= 0) {
        int ni = X + 1; /* integer digits, all of N's first ones */
        memcpy(out + k, d, (size_t)ni);
        k += (size_t)ni;
        if (nd > ni) {
            out[k++] = '.';
            memcpy(out + k, d + ni, (size_t)(nd - ni));
            k += (size_t)(nd - ni);
            *lv = legacy_value(mant, X - (nd - 1));
        } else {
            *lv = legacy_value(N / u10[P - ni], 0);
        }
    } else { /* 0.000ddd */
        out[k++] = '0';
        out[k++] = '.';
        for (int z = 0; z < -X - 1; z++)
            out[k++] = '0';
        memcpy(out + k, d, (size_t)nd);
        k += (size_t)nd;
        *lv = legacy_value(mant, X - (nd - 1));
    }
    return k;
}

size_t pb_nt_double(char *out, double v)
{
    const double a = fabs(v);
    if (a == 0.0) { /* "%.15g": "0" or "-0", which read back to 0 */
        size_t k = 0;
        if (signbit(v))
            out[k++] = '-';
        out[k++] = '0';
        return k;
    }
    if (a >= 1e-4 && a < 1e15) {
        /* A value with a short decimal form m / 10^d (m < 10^15, what a
         * reader makes of most texts): that is its "%.15g" text (the double
         * is far closer to it than half a unit of the 15th digit), it reads
         * back, and no exponent form is due from 1e-4 up. */
        for (int d = 0; d <= 9; d++) {
            double t = a * pb_nt_p10[d];
            if (t >= 1e15)
                break;
            double m = round_int(t);
            if (fabs(t - m) <= t * 0x1p-50 && m / pb_nt_p10[d] == a) {
                int dec;
                return fixed_text(out, v < 0.0, (uint64_t)m, d, &dec);
            }
        }
    }
    if (a >= 1e-11 && a < 1e15) {
        uint64_t b = double_to_bits(a);
        int be = (int)(b >> 52);
        uint64_t m = (b & ((1ULL << 52) - 1)) | (1ULL << 52);
        int e = be - 1075;
        /* X = floor(log10 a) or one less, from the binary exponent;
         * digits_of corrects it */
        int X = floor_log10_pow2(be - 1023);
        for (int P = 15; P <= 17; P++) {
            uint64_t N;
            int XP;
            if (!digits_of(m, e, P, X, &N, &XP))
                goto slow;
            double lv;
            size_t n = g_text(out, v < 0.0, N, P, XP, &lv);
            if (lv == a || P == 17)
                return n;
        }
    }
slow:;
    size_t n = 0;
    for (int p = 15; p <= 17; p++) {
        n = c_snprintf(out, "%.*g", p, v);
        double back = legacy_read(out, n);
        if (!isnan(back) && back == a)
            break;
    }
    return n;
}

/* ---- degrees ---- */

size_t pb_nt_angle(char *out, double v)
{
    double a = fabs(v);
    if (a < 1e12) {
        uint64_t m = (uint64_t)round_to_int64(a * 1e6);
        if (m < 10000000000ULL) { /* below 10000 degrees: without branches */
            uint32_t ip = (uint32_t)(m / 1000000), fp = (uint32_t)(m - (uint64_t)ip * 1000000);
            size_t k = 0;
            out[0] = '-';
            k += v < 0.0 && m != 0;
            /* the integer part: 4 digits, the leading zeros shifted out */
            uint32_t i4 = (uint32_t)load_le16(digit_pairs + 2 * (ip / 100)) |
                          (uint32_t)load_le16(digit_pairs + 2 * (ip % 100)) << 16;
            int ni = 1 + (ip >= 10) + (ip >= 100) + (ip >= 1000);
            store_le32(out + k, i4 >> (8 * (4 - ni)));
            k += (size_t)ni;
            /* '.' and 6 decimals, the trailing zeros cut */
            uint64_t d6 = (uint64_t)load_le16(digit_pairs + 2 * (fp / 10000)) |
                          (uint64_t)load_le16(digit_pairs + 2 * ((fp / 100) % 100)) << 16 |
                          (uint64_t)load_le16(digit_pairs + 2 * (fp % 100)) << 32;
            uint64_t z = d6 ^ 0x303030303030ULL; /* a zero byte per '0' */
            int tz = clz64(z | 1) / 8 - 2;       /* trailing '0' digits */
            out[k] = '.';
            store_le64(out + k + 1, d6);
            k += fp ? (size_t)(7 - tz) : 0;
            return k;
        }
        return pb_nt_fixed(out, v < 0.0, m, 6);
    }
    return c_snprintf(out, "%.6f", v);
}
