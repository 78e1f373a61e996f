/* src/io/numtext.c, compiled into this test (its functions are internal to
 * the library): the decimal -> double parser against strtod (correct
 * rounding), and every formatter against the formatter it replaced, kept
 * here verbatim as the oracle (bvh_write.c and bvh_lex.c before numtext:
 * snprintf "%.*g" read back by the old reader), text for text; each text
 * must also read back to its value through strtod.
 *
 * The suite runs stratified samples (every binade of float, millions of
 * values, a few seconds). PB_NUMTEXT_EXHAUSTIVE=1 adds the exhaustive sweep:
 * every float with 2^-20 <= |v| < 2^14 (9.5e-7 .. 16384, where positions and
 * offsets live), both signs, through pb_nt_float and pb_nt_float_pos, and
 * every float in [-1e4, 1e4] as a double through pb_nt_angle; minutes. */
#include <criterion/criterion.h>

#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numtext.h"

/* ---- the oracle: the formatters and the reader before numtext ---- */

static const double old_p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int old_parse(const char *s, size_t n, double *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    uint64_t mant = 0;
    long exp10 = 0;
    int digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (mant < 100000000000000000ULL)
            mant = mant * 10 + (uint64_t)(s[i] - '0');
        else
            exp10++;
        digits++;
        i++;
    }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (mant < 100000000000000000ULL) {
                mant = mant * 10 + (uint64_t)(s[i] - '0');
                exp10--;
            }
            digits++;
            i++;
        }
    }
    if (digits == 0)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            eneg = s[i] == '-';
            i++;
        }
        if (i >= n || s[i] < '0' || s[i] > '9')
            return 0;
        long e = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
            i++;
        }
        exp10 += eneg ? -e : e;
    }
    if (i != n)
        return 0;
    double v;
    if (mant == 0) {
        v = 0.0;
    } else if (exp10 > 400) {
        return 0;
    } else if (exp10 < -400) {
        v = 0.0;
    } else {
        v = (double)mant;
        if (exp10 >= 0 && exp10 <= 22)
            v *= old_p10[exp10];
        else if (exp10 < 0 && exp10 >= -22)
            v /= old_p10[-exp10];
        else {
            long h = exp10 / 2;
            v = v * pow(10.0, (double)h) * pow(10.0, (double)(exp10 - h));
        }
    }
    if (!isfinite(v))
        return 0;
    *out = neg ? -v : v;
    return 1;
}

static void old_put_fixed(char *buf, int neg, uint64_t m, int d)
{
    char tmp[32];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + m % 10);
        m /= 10;
    } while (m || n <= d);
    int lo = 0;
    while (lo < d && tmp[lo] == '0')
        lo++;
    size_t k = 0;
    if (neg && !(n == d + 1 && tmp[d] == '0' && lo == d))
        buf[k++] = '-';
    for (int i = n - 1; i >= d; i--)
        buf[k++] = tmp[i];
    if (lo < d) {
        buf[k++] = '.';
        for (int i = d - 1; i >= lo; i--)
            buf[k++] = tmp[i];
    }
    buf[k] = '\0';
}

static void old_fmt_float(float v, char *buf, size_t size)
{
    if (v == 0.0f) {
        snprintf(buf, size, "0");
        return;
    }
    double a = fabs((double)v);
    for (int d = 0; d <= 15; d++) {
        double t = a * old_p10[d];
        if (t >= 9e15)
            break;
        double m = nearbyint(t);
        if ((float)(m / old_p10[d]) == (float)a) {
            old_put_fixed(buf, v < 0.0f, (uint64_t)m, d);
            return;
        }
    }
    for (int p = 6; p <= 9; p++) {
        snprintf(buf, size, "%.*g", p, (double)v);
        double back;
        if (old_parse(buf, strlen(buf), &back) && (float)back == v)
            return;
    }
}

static void old_fmt_pos(float v, int decimals, char *buf, size_t size)
{
    old_fmt_float(v, buf, size);
    const char *dot = strchr(buf, '.');
    int have = dot ? (int)strlen(dot + 1) : 0;
    if (decimals <= have || decimals > 15 || strchr(buf, 'e'))
        return;
    double m = nearbyint(fabs((double)v) * old_p10[decimals]);
    if (m < 9e15)
        old_put_fixed(buf, v < 0.0f, (uint64_t)m, decimals);
}

static void old_fmt_double(double v, char *buf, size_t size)
{
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, size, "%.*g", p, v);
        double back;
        if (old_parse(buf, strlen(buf), &back) && back == v)
            return;
    }
}

static void old_fmt_angle(double v, char *buf, size_t size)
{
    double a = fabs(v);
    if (a < 1e12) {
        old_put_fixed(buf, v < 0.0, (uint64_t)nearbyint(a * 1e6), 6);
        return;
    }
    snprintf(buf, size, "%.6f", v);
}

/* ---- helpers ---- */

static uint64_t mix(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static float f_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static double d_of(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* Mismatches: counted, the first few kept for the message. */
typedef struct tally {
    unsigned long long checked, bad;
    char first[3][200];
} tally;

static void miss(tally *t, const char *what, double v, const char *want, const char *got, size_t n)
{
    if (t->bad < 3)
        snprintf(t->first[t->bad], sizeof t->first[0], "%s(%.17g [%016llx]): want '%s', got '%.*s'",
                 what, v, (unsigned long long)bits_of(v), want, (int)n, got);
    t->bad++;
}

static void expect_clean(const tally *t, const char *what)
{
    cr_log_info("numtext %s: %llu checked, %llu mismatches", what, t->checked, t->bad);
    cr_expect_eq(t->bad, 0ULL, "%s: %llu of %llu differ; first: %s | %s | %s", what, t->bad,
                 t->checked, t->first[0], t->bad > 1 ? t->first[1] : "",
                 t->bad > 2 ? t->first[2] : "");
}

/* The new text must equal the oracle's and read back (strtod) to v. */
static void check_float(tally *t, float v, int decimals)
{
    char want[64], got[PB_NT_MAX + 1];
    old_fmt_float(v, want, 48);
    size_t n = pb_nt_float(got, v);
    t->checked++;
    got[n] = '\0';
    if (strlen(want) != n || memcmp(want, got, n) != 0 || (float)strtod(got, NULL) != v)
        miss(t, "pb_nt_float", v, want, got, n);
    old_fmt_pos(v, decimals, want, 48);
    n = pb_nt_float_pos(got, v, decimals);
    got[n] = '\0';
    t->checked++;
    /* with more decimals the text is the rounded value, not always v */
    if (strlen(want) != n || memcmp(want, got, n) != 0)
        miss(t, decimals < 10 ? "pb_nt_float_pos(d<10)" : "pb_nt_float_pos(d>=10)", v, want, got,
             n);
}

static void check_angle(tally *t, double v)
{
    char want[64], got[PB_NT_MAX + 1];
    old_fmt_angle(v, want, 48);
    size_t n = pb_nt_angle(got, v);
    t->checked++;
    if (strlen(want) != n || memcmp(want, got, n) != 0)
        miss(t, "pb_nt_angle", v, want, got, n);
}

/* Texts of pb_nt_double that a correctly rounding reader does not read back
 * to their value: the old reader's arithmetic, which the 16-digit check
 * keeps, used pow() for exponents beyond +-22 (|v| below about 1e-7 or from
 * about 1e22 on), where it could accept a 16-digit text one ulp off. */
static unsigned long long double_not_round_trip, double_not_round_trip_in_range;

static void check_double(tally *t, double v)
{
    char want[64], got[PB_NT_MAX + 1];
    old_fmt_double(v, want, 48);
    size_t n = pb_nt_double(got, v);
    got[n] = '\0';
    t->checked++;
    if (strlen(want) != n || memcmp(want, got, n) != 0)
        miss(t, "pb_nt_double", v, want, got, n);
    if (strtod(got, NULL) != v) {
        double_not_round_trip++;
        if (fabs(v) >= 1e-7 && fabs(v) < 1e22) {
            double_not_round_trip_in_range++;
            miss(t, "pb_nt_double read back", v, "v", got, n);
        }
    }
}

/* ---- parsing ---- */

Test(numtext, parse_grammar)
{
    static const struct {
        const char *s;
        size_t len;
        double v;
    } k[] = {
        {"0", 1, 0.0},
        {"-0", 2, -0.0},
        {"+5", 2, 5.0},
        {"5.", 2, 5.0},
        {".5", 2, 0.5},
        {"-.5e1", 5, -5.0},
        {"1e", 1, 1.0},
        {"1e+", 1, 1.0},
        {"1E-2x", 4, 0.01},
        {"1.2.3", 3, 1.2},
        {"00012", 5, 12.0},
        {"1e400", 5, INFINITY},
        {"-1e400", 6, -INFINITY},
        {"1e-400", 6, 0.0},
        {"12 34", 2, 12.0},
        {"3.25\n", 4, 3.25},
        {"0e999999999999", 14, 0.0},
        {"123456789012345678901234567890", 30, 1.2345678901234568e29},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        double v = 12345.0;
        size_t n = pb_nt_parse(k[i].s, strlen(k[i].s), &v);
        cr_expect_eq(n, k[i].len, "'%s': length %zu, want %zu", k[i].s, n, k[i].len);
        cr_expect(bits_of(v) == bits_of(k[i].v), "'%s': %.17g, want %.17g", k[i].s, v, k[i].v);
    }
    static const char *none[] = {"", "-", "+", ".", "-.", "e5", ".e5", "+-1", "x1", " 1"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        double v = 7.0;
        cr_expect_eq(pb_nt_parse(none[i], strlen(none[i]), &v), 0u, "'%s' is no number", none[i]);
        cr_expect_eq(v, 7.0, "'%s' changed the output", none[i]);
    }
    /* the length bounds the text: no read past n */
    double v;
    cr_expect_eq(pb_nt_parse("12345", 3, &v), 3u);
    cr_expect_eq(v, 123.0);
    pb_nt_info info;
    cr_expect_eq(pb_nt_parse_info("-12.3450e-3", 11, &v, &info), 11u);
    cr_expect_eq(info.frac_digits, 4u);
    cr_expect_eq(info.exp, -3);
}

/* Random decimal text: sign, 1..maxd digits with or without a point, an
 * exponent sometimes; written into buf (returned length). */
static size_t random_decimal(uint64_t *s, char *buf, int maxd, int wide_exp)
{
    size_t k = 0;
    uint64_t r = mix(s);
    if (r & 1)
        buf[k++] = '-';
    else if (r & 2)
        buf[k++] = '+';
    int nd = 1 + (int)((r >> 8) % (uint64_t)maxd);
    int dot = (r >> 16) % 3 ? (int)((r >> 24) % (uint64_t)(nd + 1)) : -1;
    int lead = (r >> 32) % 4 == 0; /* leading zeros */
    for (int j = 0; j < nd; j++) {
        if (j == dot)
            buf[k++] = '.';
        buf[k++] = (char)(lead && j < nd / 2 ? '0' : '0' + (int)(mix(s) % 10));
    }
    if (dot == nd)
        buf[k++] = '.';
    switch ((r >> 40) % 4) {
    case 0:
        k += (size_t)sprintf(buf + k, "e%d",
                             (int)((r >> 44) % (wide_exp ? 700 : 60)) - (wide_exp ? 360 : 30));
        break;
    case 1: k += (size_t)sprintf(buf + k, "E%+d", (int)((r >> 44) % 50) - 25); break;
    default: break;
    }
    buf[k] = '\0';
    return k;
}

static void parse_vs_strtod(uint64_t seed, long count, int maxd, int wide_exp, const char *what)
{
    tally t = {0};
    uint64_t s = seed;
    char buf[1024];
    for (long i = 0; i < count; i++) {
        size_t k = random_decimal(&s, buf, maxd, wide_exp);
        double want = strtod(buf, NULL), got = 0.0;
        size_t n = pb_nt_parse(buf, k, &got);
        t.checked++;
        if (n != k || bits_of(want) != bits_of(got)) {
            char g[64];
            snprintf(g, sizeof g, "%.17g (length %zu of %zu)", got, n, k);
            miss(&t, buf, want, "strtod's", g, strlen(g));
        }
    }
    expect_clean(&t, what);
}

Test(numtext, parse_random_1_to_20_digits)
{
    parse_vs_strtod(1, 1500000, 20, 0, "parse 1..20 digits, |exp| <= 30");
    parse_vs_strtod(2, 1500000, 20, 1, "parse 1..20 digits, exp -360..340");
}

Test(numtext, parse_long_inputs)
{
    parse_vs_strtod(3, 100000, 40, 1, "parse 1..40 digits");
    parse_vs_strtod(4, 3000, 900, 1, "parse 1..900 digits");
}

/* Exact halfway points between neighbouring doubles (a long double holds
 * them exactly where it has 64 or more significand bits), as exact decimal
 * text, and just above and below them: the ties round to even, the rest to
 * the nearer neighbour; across the whole exponent range, subnormals
 * included. */
Test(numtext, parse_halfway_cases)
{
    if (LDBL_MANT_DIG < 64)
        cr_skip_test("long double has %d significand bits: no exact midpoints", LDBL_MANT_DIG);
    tally t = {0};
    uint64_t s = 5;
    char buf[2048];
    for (int i = 0; i < 8000; i++) {
        uint64_t r = mix(&s);
        /* a random finite positive double and its successor */
        uint64_t b = r % 0x7FEFFFFFFFFFFFFFULL;
        if (i % 4 == 0) /* small exponents, where the digits are few */
            b = (r & 0x000FFFFFFFFFFFFFULL) | (uint64_t)(1023 + (int)((r >> 52) % 140) - 70) << 52;
        double lo = d_of(b), hi = nextafter(lo, INFINITY);
        long double mid = ((long double)lo + (long double)hi) / 2;
        int n = snprintf(buf, sizeof buf, "%.1100Le", mid);
        /* cut the zeros after the last significant digit */
        char *e = strchr(buf, 'e');
        char *z = e;
        while (z[-1] == '0')
            z--;
        memmove(z, e, strlen(e) + 1);
        n = (int)strlen(buf);
        double want = strtod(buf, NULL), got;
        t.checked++;
        if (pb_nt_parse(buf, (size_t)n, &got) != (size_t)n || bits_of(got) != bits_of(want))
            miss(&t, "midpoint", want, "strtod's", buf, 40);
        /* the last significant digit one up (above the tie) */
        char *last = strchr(buf, 'e') - 1;
        if (*last == '.')
            last--;
        if (*last < '9') {
            (*last)++;
            want = strtod(buf, NULL);
            t.checked++;
            if (pb_nt_parse(buf, (size_t)n, &got) != (size_t)n || bits_of(got) != bits_of(want))
                miss(&t, "above midpoint", want, "strtod's", buf, 40);
            (*last)--;
        }
        if (*last > '0') {
            (*last)--;
            want = strtod(buf, NULL);
            t.checked++;
            if (pb_nt_parse(buf, (size_t)n, &got) != (size_t)n || bits_of(got) != bits_of(want))
                miss(&t, "below midpoint", want, "strtod's", buf, 40);
        }
    }
    static const char *k[] = {"9007199254740993",
                              "9007199254740993.00000000000000000001",
                              "90071992547409930e-1",
                              "2.2250738585072011e-308",
                              "2.2250738585072012e-308",
                              "4.9406564584124654e-324",
                              "2.4703282292062327e-324",
                              "2.4703282292062328e-324",
                              "1.7976931348623157e308",
                              "1.7976931348623158e308",
                              "1.7976931348623159e308",
                              "179769313486231580793728971405301e276",
                              "1e23",
                              "8.5899345919999999e9",
                              "0.1",
                              "7.2057594037927933e16"};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        double want = strtod(k[i], NULL), got;
        t.checked++;
        if (pb_nt_parse(k[i], strlen(k[i]), &got) != strlen(k[i]) || bits_of(got) != bits_of(want))
            miss(&t, k[i], want, "strtod's", "?", 1);
    }
    expect_clean(&t, "parse halfway cases");
}

/* ---- formatting ---- */

/* Every binade of float: its first and last significands and random ones,
 * both signs, pb_nt_float and pb_nt_float_pos (decimals 0..17 in turn):
 * dense where positions and offsets live (2^-30 .. 2^30), thinner where
 * the "%g" form (snprintf in both) is taken. */
Test(numtext, float_binades, .timeout = 120)
{
    tally t = {0};
    uint64_t s = 6;
    for (uint32_t be = 0; be < 255; be++) {
        int dense = be >= 127 - 30 && be <= 127 + 30;
        int per = dense ? 24000 : 600;
        for (int i = 0; i < per; i++) {
            uint32_t m;
            if (i < 4)
                m = i < 2 ? (uint32_t)i : 0x7FFFFFu - (uint32_t)(i - 2);
            else
                m = (uint32_t)mix(&s) & 0x7FFFFFu;
            for (int sign = 0; sign < 2; sign++) {
                float v = f_of((uint32_t)sign << 31 | be << 23 | m);
                check_float(&t, v, (int)((i + sign) % 18));
            }
        }
    }
    /* short decimals as a reader makes them, and their neighbours */
    for (int i = 0; i < 300000; i++) {
        uint64_t r = mix(&s);
        int d = (int)(r % 7);
        double x = (double)(int64_t)((r >> 8) % 20000001) - 10000000.0;
        float v = (float)(x / old_p10[d]);
        if (i & 1)
            v = nextafterf(v, (r >> 40) & 1 ? INFINITY : -INFINITY);
        check_float(&t, v, (int)((r >> 48) % 18));
    }
    expect_clean(&t, "float binades");
}

Test(numtext, angle_values)
{
    tally t = {0};
    uint64_t s = 7;
    for (int i = 0; i < 1500000; i++) {
        uint64_t r = mix(&s);
        double v;
        switch (i % 6) {
        case 0: /* degrees as the writer computes them */
            v = ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 720.0;
            break;
        case 1: /* any magnitude up to 1e13 */
            v = d_of((r & 0x800FFFFFFFFFFFFFULL) | (uint64_t)(1023 - 40 + (int)((r >> 52) % 84))
                                                       << 52);
            break;
        case 2: /* on and around the 6-decimal grid, and its ties */
            v = (double)(int64_t)(r % 2000000001ULL - 1000000000ULL) / 1e6;
            if (r >> 62)
                v = nextafter(v, (r >> 61) & 1 ? INFINITY : -INFINITY);
            break;
        case 3: v = ((double)(int64_t)(r % 2000000001ULL - 1000000000ULL) + 0.5) / 1e6; break;
        case 4: /* floats, as positions and source angles are */
            v = (double)f_of((uint32_t)r);
            break;
        default: /* around the 10000-degree and 1e12 edges */
            v = ((r >> 1) & 1 ? 1e4 : 1e12) * (1.0 + ((double)(r >> 40) / 16777216.0 - 0.5) * 1e-9);
            if (r & 1)
                v = -v;
            break;
        }
        if (isfinite(v))
            check_angle(&t, v);
    }
    static const double k[] = {0.0,  -0.0,         1e-7,          -4e-7,    -5e-7,
                               5e-7, 9999.9999995, -9999.9999996, 10000.0,  999999999999.9,
                               1e12, -1e12,        1e300,         -DBL_MAX, DBL_MIN,
                               NAN,  INFINITY,     -INFINITY};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        check_angle(&t, k[i]);
    expect_clean(&t, "angles");
}

Test(numtext, double_values, .timeout = 120)
{
    tally t = {0};
    uint64_t s = 8;
    for (int i = 0; i < 400000; i++) {
        uint64_t r = mix(&s);
        double v;
        switch (i % 8) {
        case 0: /* what a reader makes of source angles (-180.0000 .. 180.0000) */
        case 1: v = (double)(int64_t)(r % 3600001ULL - 1800000ULL) / old_p10[(r >> 32) % 7]; break;
        case 2: /* frame times */ v = 1.0 / (double)(1 + (r >> 20) % 100000); break;
        case 3: /* any double between 1e-12 and 1e16 */
            v = d_of((r & 0x800FFFFFFFFFFFFFULL) | (uint64_t)(1023 - 40 + (int)((r >> 52) % 94))
                                                       << 52);
            break;
        case 4: /* 16 and 17 significant digits, where the old reader could miss */
            v = d_of(bits_of(9.007199254740993 * old_p10[(r >> 56) % 9]) + (r % 1000000000ULL));
            if (r & 1)
                v = -v;
            break;
        case 5: /* any finite double */ v = d_of(r); break;
        case 6: /* short decimals around the 1e-4 and 1e15 edges and the grid */
            v = (double)(int64_t)((r >> 8) % 1000000) * (r & 1 ? 1e-10 : 1e10);
            break;
        default: /* floats as doubles */ v = (double)f_of((uint32_t)r); break;
        }
        if (isfinite(v))
            check_double(&t, v);
    }
    static const double k[] = {0.0,
                               -0.0,
                               1e-4,
                               9.9999999999999e-5,
                               1e15,
                               999999999999999.9,
                               1e-11,
                               1e-300,
                               5e-324,
                               DBL_MAX,
                               DBL_MIN,
                               0.1,
                               1.0 / 3,
                               1.0 / 480,
                               1.0 / 120,
                               2.0 / 3,
                               123456789012345678.0};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        check_double(&t, k[i]);
        check_double(&t, -k[i]);
    }
    cr_log_info("numtext doubles: %llu texts do not read back to their value through strtod, all "
                "outside [1e-7, 1e22) (the old reader's pow() arithmetic, kept for identical "
                "bytes); %llu inside",
                double_not_round_trip, double_not_round_trip_in_range);
    expect_clean(&t, "doubles");
}

Test(numtext, fixed)
{
    static const struct {
        int neg;
        uint64_t m;
        int d;
        const char *want;
    } k[] = {
        {0, 0, 0, "0"},
        {1, 0, 6, "0"},
        {1, 5, 0, "-5"},
        {0, 5, 3, "0.005"},
        {0, 1230, 3, "1.23"},
        {1, 1000, 3, "-1"},
        {0, 18446744073709551615ULL, 19, "1.8446744073709551615"},
        {0, 18446744073709551615ULL, 0, "18446744073709551615"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        char got[PB_NT_MAX + 1];
        size_t n = pb_nt_fixed(got, k[i].neg, k[i].m, k[i].d);
        cr_expect(n == strlen(k[i].want) && memcmp(got, k[i].want, n) == 0,
                  "%d %llu %d: '%.*s', want '%s'", k[i].neg, (unsigned long long)k[i].m, k[i].d,
                  (int)n, got, k[i].want);
    }
}

/* The radix character of the thread's locale changes nothing (checked where
 * a locale with ',' is installed). */
Test(numtext, locale_independent)
{
    static const char *names[] = {"de_DE.UTF-8", "de_DE.utf8",  "fr_FR.UTF-8", "fr_FR.utf8",
                                  "ru_RU.UTF-8", "nl_NL.UTF-8", "de_DE",       "fr_FR"};
    const char *got_name = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !got_name; i++)
        if (setlocale(LC_NUMERIC, names[i]) && localeconv()->decimal_point[0] == ',')
            got_name = names[i];
    if (!got_name) {
        setlocale(LC_NUMERIC, "C");
        cr_skip_test("no locale with a ',' decimal point installed");
    }
    char buf[PB_NT_MAX + 1];
    double v;
    size_t n = pb_nt_double(buf, 1e-300);
    cr_expect(memchr(buf, ',', n) == NULL, "'%.*s' under %s", (int)n, buf, got_name);
    n = pb_nt_float(buf, 1.5e-30f);
    cr_expect(memchr(buf, ',', n) == NULL, "'%.*s' under %s", (int)n, buf, got_name);
    n = pb_nt_angle(buf, 2.5e13);
    cr_expect(memchr(buf, ',', n) == NULL, "'%.*s' under %s", (int)n, buf, got_name);
    /* the exact method's strtod, on a tie it must settle */
    const char *tie = "9007199254740993.000000000000000000000000001";
    cr_expect_eq(pb_nt_parse(tie, strlen(tie), &v), strlen(tie));
    cr_expect_eq(v, 9007199254740994.0);
    setlocale(LC_NUMERIC, "C");
}

/* ---- opt-in: the exhaustive sweep ---- */

typedef struct sweep {
    uint32_t lo, hi; /* bit patterns [lo, hi) of positive floats */
    int angles;      /* as doubles through pb_nt_angle, else pb_nt_float(_pos) */
    tally t;
} sweep;

static void *sweep_run(void *arg)
{
    sweep *w = arg;
    for (uint32_t b = w->lo; b < w->hi; b++)
        for (uint32_t sign = 0; sign < 2; sign++) {
            float v = f_of(sign << 31 | b);
            if (w->angles)
                check_angle(&w->t, (double)v);
            else
                check_float(&w->t, v, (int)(b % 18));
        }
    return NULL;
}

static void sweep_all(uint32_t lo, uint32_t hi, int angles, const char *what)
{
    enum { THREADS = 2 };
    sweep w[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].lo = lo + (uint32_t)((uint64_t)(hi - lo) * (uint64_t)i / THREADS);
        w[i].hi = lo + (uint32_t)((uint64_t)(hi - lo) * (uint64_t)(i + 1) / THREADS);
        w[i].angles = angles;
        cr_assert_eq(pthread_create(&th[i], NULL, sweep_run, &w[i]), 0);
    }
    tally all = {0};
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        all.checked += w[i].t.checked;
        for (unsigned long long k = 0; k < w[i].t.bad && all.bad + k < 3 && k < 3; k++)
            memcpy(all.first[all.bad + k], w[i].t.first[k], sizeof all.first[0]);
        all.bad += w[i].t.bad;
    }
    expect_clean(&all, what);
}

Test(numtext, exhaustive, .timeout = 7200)
{
    if (!getenv("PB_NUMTEXT_EXHAUSTIVE"))
        cr_skip_test("set PB_NUMTEXT_EXHAUSTIVE=1 for the exhaustive sweep (minutes)");
    /* 2^-20 .. 2^14: exponent fields 107 .. 140 */
    sweep_all(107u << 23, 141u << 23, 0, "every float 2^-20 <= |v| < 2^14 (float, float_pos)");
    /* every float in [-1e4, 1e4] as an angle: bit patterns up to 1e4 */
    uint32_t top;
    float e4 = 1e4f;
    memcpy(&top, &e4, sizeof top);
    sweep_all(0, top + 1, 1, "every float in [-1e4, 1e4] (angle)");
}
