/* BVH tokenizer: character classes, tokens, keywords and locale-independent
 * numbers (bvh_internal.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_internal.h"

#include <math.h>
#include <string.h>

static int lower(char c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

/* Case-insensitive: the n bytes at s equal the NUL-terminated word. */
int bvh_eq_ci(const char *s, size_t n, const char *word)
{
    size_t i = 0;
    for (; i < n; i++)
        if (word[i] == '\0' || lower(s[i]) != lower(word[i]))
            return 0;
    return word[i] == '\0';
}

/* A printable, truncated copy of a token for messages. */
const char *bvh_show(const char *s, size_t n, char out[48])
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < 32; i++) {
        unsigned char c = (unsigned char)s[i];
        out[k++] = (c >= 0x20 && c < 0x7f && c != '\'') ? (char)c : '?';
    }
    if (n > 32) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
    return out;
}

/* Locale-independent decimal number: [+-] digits [. digits] [e [+-] digits],
 * at least one mantissa digit, the whole of s[0..n). No nan/inf/hex. Returns
 * 1 and a finite *out (correctly rounded: numtext_read.c), or 0. */
int bvh_parse_number(const char *s, size_t n, double *out)
{
    double v;
    if (n == 0 || pb_nt_parse(s, n, &v) != n || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* Skips whitespace including line breaks; counts lines (LF, CRLF, lone CR). */
void lex_skip_ws(bvh_lexer *X)
{
    while (X->p < X->end && is_space(*X->p)) {
        if (*X->p == '\n')
            X->line++;
        else if (*X->p == '\r' && (X->p + 1 == X->end || X->p[1] != '\n'))
            X->line++;
        X->p++;
    }
}

/* Skips horizontal whitespace only (stays on the line). */
void lex_skip_hws(bvh_lexer *X)
{
    while (X->p < X->end && is_hspace(*X->p))
        X->p++;
}

/* Next token: '{', '}' or a run of non-space, non-brace bytes. 0 at EOF. */
int lex_next(bvh_lexer *X, tok *t)
{
    lex_skip_ws(X);
    if (X->p >= X->end)
        return 0;
    t->s = X->p;
    t->line = X->line;
    X->last_line = X->line;
    if (*X->p == '{' || *X->p == '}') {
        X->p++;
        t->n = 1;
        return 1;
    }
    while (X->p < X->end && !is_space(*X->p) && *X->p != '{' && *X->p != '}')
        X->p++;
    t->n = (size_t)(X->p - t->s);
    return 1;
}

int lex_is(const tok *t, const char *word) { return bvh_eq_ci(t->s, t->n, word); }

/* Matches a case-insensitive keyword at X->p (no line breaks skipped). */
int lex_match_kw(bvh_lexer *X, const char *kw)
{
    size_t n = strlen(kw);
    if ((size_t)(X->end - X->p) < n || !bvh_eq_ci(X->p, n, kw))
        return 0;
    X->p += n;
    return 1;
}

/* The rest of the current line is a single token (returned) followed only by
 * horizontal whitespace. Returns 0 if there is no token. */
int lex_line_value(bvh_lexer *X, tok *t)
{
    lex_skip_hws(X);
    t->s = X->p;
    t->line = X->line;
    while (X->p < X->end && !is_space(*X->p))
        X->p++;
    t->n = (size_t)(X->p - t->s);
    return t->n > 0;
}

int lex_rest_blank(bvh_lexer *X)
{
    lex_skip_hws(X);
    return X->p >= X->end || is_eol(*X->p);
}
