/* JSON text on stdout for `info --json` of BVH and glTF files: strings
 * (escaped; bytes that are not UTF-8 as U+FFFD) and numbers (the shortest
 * text that reads back as the same value). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n = c < 0x80                 ? 1
               : c >= 0xC2 && c <= 0xDF ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    if (n < 2)
        return n;
    for (size_t k = 1; k < n; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    unsigned c1 = s[1];
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || /* overlong, surrogates */
        (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))   /* overlong, > U+10FFFF */
        return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped; bytes
 * that are not valid UTF-8 (names and paths are bytes) become U+FFFD. */
void cli_json_str(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    putchar('"');
    while (*s) {
        size_t n = utf8_len(s);
        if (n == 0) {
            fputs("\\ufffd", stdout);
            s++;
        } else if (*s == '"' || *s == '\\') {
            printf("\\%c", *s++);
        } else if (*s < 0x20) {
            printf("\\u%04x", *s++);
        } else {
            fwrite(s, 1, n, stdout);
            s += n;
        }
    }
    putchar('"');
}

/* The shortest %g that reads back as the same double (JSON has no inf or
 * nan; the reader never gives them). */
void cli_json_num(double v)
{
    char buf[40];
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, stdout);
}

/* The same for a float. */
void cli_json_float(float v)
{
    char buf[40];
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
        if (strtof(buf, NULL) == v)
            break;
    }
    fputs(buf, stdout);
}
