/* Number text, format-neutral (numtext.h): the fixed-notation formatters of
 * the file writers. The parser: numtext_read.c. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "numtext.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "numtext_bits.h"

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
