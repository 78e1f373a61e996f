/* Number text, format-neutral: decimal text -> double, correctly rounded and
 * locale-independent, and the fixed-notation number formats the file writers
 * use, written into the caller's buffer with their length returned (no NUL,
 * no strlen). Internal to src/io (hidden in libposebatch; not public API):
 * the BVH grammar stays in bvh_lex.c, which calls these.
 *
 * Every formatter writes at most PB_NT_MAX bytes and produces exactly the
 * text of the formatter it replaced (bvh_write.c before numtext: snprintf
 * "%.*g" and read-back loops, kept in tests/test_numtext.c as the oracle);
 * snprintf remains only for rare values (below), under the C locale. */
#ifndef PB_IO_NUMTEXT_H
#define PB_IO_NUMTEXT_H

#include <stddef.h>
#include <stdint.h>

/* The longest text of any formatter here, in bytes (no NUL written). */
#define PB_NT_MAX 47

/* Powers of ten 1e0 .. 1e22 (exact doubles). */
extern const double pb_nt_p10[23];

/* What pb_nt_parse_info found besides the value. */
typedef struct pb_nt_info {
    size_t frac_digits; /* digits after the decimal point */
    long exp;           /* the written exponent (after e/E), saturated near +-1e9; 0 if none */
} pb_nt_info;

/* Parses the longest prefix of s[0 .. n) of the form
 *   [+-] digits [. digits] [(e|E) [+-] digits]
 * with at least one mantissa digit ("5", "-.5", "5.", "1e-3"; an 'e' not
 * followed by a digit is not part of the number). Returns the length of that
 * prefix (0: no number there; *out untouched) and sets *out to the double
 * nearest to the decimal value (ties to even): overflow gives +-inf,
 * underflow +-0, a '-' zero -0.0. No nan, inf or hex forms; no locale.
 * Exact for every input: Clinger's fast path (significand < 2^53, exponent
 * within the exactly representable powers of ten), else the Eisel-Lemire
 * method on the first 19 significant digits, else (more digits that it cannot
 * decide on, or one of its ambiguous cases) glibc strtod on a copy written
 * without a decimal point, so that the locale cannot matter. */
size_t pb_nt_parse(const char *s, size_t n, double *out);
/* The same, also reporting the fraction digits and the exponent written. */
size_t pb_nt_parse_info(const char *s, size_t n, double *out, pb_nt_info *info);

/* m / 10^d (m >= 0) in fixed notation: at least one integer digit, the
 * decimals with trailing zeros dropped (no '.' when none remain), '-' first
 * when neg and m != 0. d <= 19. */
size_t pb_nt_fixed(char *out, int neg, uint64_t m, int d);

/* The shortest text a correctly rounding reader turns back into exactly v
 * (finite): fixed notation with the fewest decimals d <= 15 whose nearest
 * value m / 10^d converts back to v (m = nearbyint(|v| 10^d) in double
 * arithmetic, below 9e15), else "%.*g" with the fewest of 6..9 significant
 * digits that reads back to v (snprintf: only values below about 1e-9 or
 * above 9e15). 0 and -0 are "0". */
size_t pb_nt_float(char *out, float v);

/* A position: pb_nt_float, or, when it has fewer than `decimals` (<= 15)
 * decimals and no exponent, nearbyint(|v| 10^decimals) with that many
 * decimals (trailing zeros still dropped; as long as it is below 9e15). */
size_t pb_nt_float_pos(char *out, float v, int decimals);

/* The fewest of 15, 16, 17 significant digits, as "%.*g" writes them
 * (trailing zeros dropped; exponent form below 1e-4 or from 10^P), that read
 * back to v (finite) with the arithmetic of the reader these files have
 * always been written for (kept so that the bytes stay the same): the digits
 * as an integer M, exponent E, and (double)M * 10^E or (double)M / 10^-E
 * for |E| <= 22, two pow() factors beyond. That reader was exact for up to
 * 15 digits and |E| <= 22; with 16 digits it could miss, and the text is
 * then a digit longer than needed, which a correctly rounding reader still
 * reads back to v for 1e-7 <= |v| < 1e22. Outside that range pow() could
 * accept a 16-digit text that a correctly rounding reader reads one ulp off
 * (tests/test_numtext.c counts them). Exact integer arithmetic for
 * 1e-11 <= |v| < 1e15 (a short decimal form first), snprintf otherwise. */
size_t pb_nt_double(char *out, double v);

/* Degrees: nearbyint(|v| 1e6) with 6 decimals, trailing zeros dropped, no
 * "-0" (|v| < 1e12; beyond, snprintf "%.6f" cut to PB_NT_MAX bytes). */
size_t pb_nt_angle(char *out, double v);

#endif /* PB_IO_NUMTEXT_H */
