/* BVH reader and writer. See bvh.h for the data model and accepted syntax. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh.h"

#include "euler.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_ELEMS ((size_t)1 << 28) /* frames * joints, as PB_MAX_COUNT */

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

#if defined(__GNUC__) || defined(__clang__)
#define PB_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PB_PRINTF(a, b)
#endif

static pb_bvh_code set_err(pb_bvh_error *err, pb_bvh_code code, long line, const char *fmt, ...)
    PB_PRINTF(4, 5);

static pb_bvh_code set_err(pb_bvh_error *err, pb_bvh_code code, long line, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->line = line;
    size_t n = 0;
    if (line > 0) {
        int k = snprintf(err->message, sizeof err->message, "line %ld: ", line);
        n = k > 0 ? (size_t)k : 0;
        if (n >= sizeof err->message)
            n = sizeof err->message - 1;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + n, sizeof err->message - n, fmt, ap);
    va_end(ap);
    return code;
}

static void clear_err(pb_bvh_error *err)
{
    if (err) {
        err->code = PB_BVH_OK;
        err->line = 0;
        err->message[0] = '\0';
    }
}

const char *pb_bvh_code_str(pb_bvh_code code)
{
    switch (code) {
    case PB_BVH_OK: return "ok";
    case PB_BVH_ERR_IO: return "I/O error";
    case PB_BVH_ERR_SYNTAX: return "syntax error";
    case PB_BVH_ERR_VALUE: return "invalid value";
    case PB_BVH_ERR_LIMIT: return "limit exceeded";
    case PB_BVH_ERR_MOTION: return "motion data mismatch";
    case PB_BVH_ERR_NOMEM: return "out of memory";
    case PB_BVH_ERR_ARG: return "invalid argument";
    }
    return "unknown error";
}

static const char *const k_channel_names[6] = {
    "Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation",
};

const char *pb_bvh_channel_name(pb_bvh_channel c)
{
    if ((int)c < 0 || (int)c > 5)
        return NULL;
    return k_channel_names[c];
}

/* ------------------------------------------------------------------------ */
/* Lexing helpers                                                           */
/* ------------------------------------------------------------------------ */

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
static int is_hspace(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }
static int is_eol(char c) { return c == '\n' || c == '\r'; }

static int lower(char c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

/* Case-insensitive: the n bytes at s equal the NUL-terminated word. */
static int eq_ci(const char *s, size_t n, const char *word)
{
    size_t i = 0;
    for (; i < n; i++)
        if (word[i] == '\0' || lower(s[i]) != lower(word[i]))
            return 0;
    return word[i] == '\0';
}

/* A printable, truncated copy of a token for messages. */
static const char *show(const char *s, size_t n, char out[48])
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
 * 1 and a finite *out, or 0. Correctly rounded for up to 15 significant
 * digits and |exponent| <= 22; otherwise within an ulp or two. */
static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int parse_number(const char *s, size_t n, double *out)
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
        return 0; /* overflow */
    } else if (exp10 < -400) {
        v = 0.0; /* underflow */
    } else {
        v = (double)mant;
        if (exp10 >= 0 && exp10 <= 22)
            v *= p10[exp10];
        else if (exp10 < 0 && exp10 >= -22)
            v /= p10[-exp10];
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

/* ------------------------------------------------------------------------ */
/* Parser state                                                             */
/* ------------------------------------------------------------------------ */

typedef struct tok {
    const char *s;
    size_t n;
    long line;
} tok;

typedef struct parser {
    const char *p, *end;
    long line;      /* line of *p */
    long last_line; /* line of the last token read (for end-of-file errors) */
    pb_bvh_error *err;

    pb_bvh_joint *joints;
    uint32_t *name_off;
    size_t nj, capj, capn;
    char *pool;
    size_t pool_len, pool_cap;
    pb_bvh_end_site *ends;
    size_t ne, cape;
    size_t nchan;
} parser;

/* Skips whitespace including line breaks; counts lines (LF, CRLF, lone CR). */
static void skip_ws(parser *P)
{
    while (P->p < P->end && is_space(*P->p)) {
        if (*P->p == '\n')
            P->line++;
        else if (*P->p == '\r' && (P->p + 1 == P->end || P->p[1] != '\n'))
            P->line++;
        P->p++;
    }
}

/* Skips horizontal whitespace only (stays on the line). */
static void skip_hws(parser *P)
{
    while (P->p < P->end && is_hspace(*P->p))
        P->p++;
}

/* Next token: '{', '}' or a run of non-space, non-brace bytes. 0 at EOF. */
static int next_tok(parser *P, tok *t)
{
    skip_ws(P);
    if (P->p >= P->end)
        return 0;
    t->s = P->p;
    t->line = P->line;
    P->last_line = P->line;
    if (*P->p == '{' || *P->p == '}') {
        P->p++;
        t->n = 1;
        return 1;
    }
    while (P->p < P->end && !is_space(*P->p) && *P->p != '{' && *P->p != '}')
        P->p++;
    t->n = (size_t)(P->p - t->s);
    return 1;
}

static int tok_is(const tok *t, const char *word) { return eq_ci(t->s, t->n, word); }

static pb_bvh_code grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return PB_BVH_OK;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*arr, nc * elem);
    if (!np)
        return PB_BVH_ERR_NOMEM;
    *arr = np;
    *cap = nc;
    return PB_BVH_OK;
}

static void parser_free(parser *P)
{
    free(P->joints);
    free(P->name_off);
    free(P->pool);
    free(P->ends);
    P->joints = NULL;
    P->name_off = NULL;
    P->pool = NULL;
    P->ends = NULL;
}

static const char *jname(const parser *P, size_t j) { return P->pool + P->name_off[j]; }

/* Reads 3 numbers into v (float range). */
static pb_bvh_code read_vec3(parser *P, const char *what, const char *owner, float v[3])
{
    char b1[48], b2[48];
    for (int k = 0; k < 3; k++) {
        tok t;
        if (!next_tok(P, &t))
            return set_err(P->err, PB_BVH_ERR_SYNTAX, P->last_line,
                           "unexpected end of file in %s of '%s'", what, show(owner, strlen(owner), b2));
        double d;
        if (t.n == 1 && (*t.s == '{' || *t.s == '}'))
            return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                           "%s of '%s' needs 3 numbers, found '%c' after %d", what,
                           show(owner, strlen(owner), b2), *t.s, k);
        if (!parse_number(t.s, t.n, &d))
            return set_err(P->err, PB_BVH_ERR_VALUE, t.line, "invalid number '%s' in %s of '%s'",
                           show(t.s, t.n, b1), what, show(owner, strlen(owner), b2));
        if (fabs(d) > FLT_MAX)
            return set_err(P->err, PB_BVH_ERR_VALUE, t.line, "number '%s' in %s is out of float range",
                           show(t.s, t.n, b1), what);
        v[k] = (float)d;
    }
    return PB_BVH_OK;
}

/* Creates a joint: reads its name (rest of the keyword's line, up to a brace)
 * and the opening brace. */
static pb_bvh_code new_joint(parser *P, const tok *kw, int32_t parent)
{
    char b1[48];
    if (P->nj >= PB_BVH_MAX_JOINTS)
        return set_err(P->err, PB_BVH_ERR_LIMIT, kw->line, "more than %d joints",
                       PB_BVH_MAX_JOINTS);
    skip_hws(P);
    const char *s = P->p;
    while (P->p < P->end && !is_eol(*P->p) && *P->p != '{' && *P->p != '}')
        P->p++;
    const char *e = P->p;
    while (e > s && is_hspace(e[-1]))
        e--;
    size_t len = (size_t)(e - s);
    if (len == 0)
        return set_err(P->err, PB_BVH_ERR_SYNTAX, kw->line, "%.*s without a name", (int)kw->n,
                       kw->s);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return set_err(P->err, PB_BVH_ERR_SYNTAX, kw->line,
                           "invalid character 0x%02x in joint name '%s'", c, show(s, len, b1));
    }
    if (grow((void **)&P->joints, &P->capj, P->nj + 1, sizeof *P->joints) ||
        grow((void **)&P->name_off, &P->capn, P->nj + 1, sizeof *P->name_off))
        return set_err(P->err, PB_BVH_ERR_NOMEM, kw->line, "out of memory");
    if (P->pool_len + len + 1 > UINT32_MAX ||
        grow((void **)&P->pool, &P->pool_cap, P->pool_len + len + 1, 1))
        return set_err(P->err, PB_BVH_ERR_NOMEM, kw->line, "out of memory");
    memcpy(P->pool + P->pool_len, s, len);
    P->pool[P->pool_len + len] = '\0';
    P->name_off[P->nj] = (uint32_t)P->pool_len;
    P->pool_len += len + 1;

    pb_bvh_joint *J = &P->joints[P->nj];
    memset(J, 0, sizeof *J);
    J->parent = parent;
    J->rot_order = PB_EULER_XYZ;
    J->first_channel = (uint32_t)P->nchan;
    P->nj++;

    tok t;
    if (!next_tok(P, &t))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, P->last_line,
                       "unexpected end of file: expected '{' after %.*s %s", (int)kw->n, kw->s,
                       show(s, len, b1));
    if (!(t.n == 1 && *t.s == '{'))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "expected '{' after %.*s '%s', found '%s'",
                       (int)kw->n, kw->s, jname(P, P->nj - 1), show(t.s, t.n, b1));
    return PB_BVH_OK;
}

static int channel_from(const tok *t)
{
    for (int c = 0; c < 6; c++)
        if (tok_is(t, k_channel_names[c]))
            return c;
    return -1;
}

static pb_bvh_code read_channels(parser *P, const tok *kw, size_t j)
{
    char b1[48], b2[48];
    pb_bvh_joint *J = &P->joints[j];
    const char *name = jname(P, j);
    tok t;
    if (!next_tok(P, &t))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, P->last_line,
                       "unexpected end of file after CHANNELS of '%s'", show(name, strlen(name), b2));
    size_t count = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.s[i] < '0' || t.s[i] > '9' || i >= 9)
            return set_err(P->err, i >= 9 ? PB_BVH_ERR_LIMIT : PB_BVH_ERR_VALUE, t.line,
                           "invalid CHANNELS count '%s' for joint '%s' (0..6)", show(t.s, t.n, b1),
                           show(name, strlen(name), b2));
        count = count * 10 + (size_t)(t.s[i] - '0');
    }
    if (t.n == 0 || (t.n == 1 && (*t.s == '{' || *t.s == '}')))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "CHANNELS of '%s' without a count",
                       show(name, strlen(name), b2));
    if (count > 6)
        return set_err(P->err, PB_BVH_ERR_LIMIT, t.line,
                       "CHANNELS %zu for joint '%s': at most 6 channels per joint", count,
                       show(name, strlen(name), b2));
    int seen = 0, rot_axes[3], nrot = 0;
    for (size_t c = 0; c < count; c++) {
        if (!next_tok(P, &t))
            return set_err(P->err, PB_BVH_ERR_SYNTAX, P->last_line,
                           "unexpected end of file in CHANNELS of '%s'", show(name, strlen(name), b2));
        int ch = channel_from(&t);
        if (ch < 0)
            return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                           "expected a channel name (CHANNELS %zu of '%s' lists %zu), found '%s'", count,
                           show(name, strlen(name), b2), c, show(t.s, t.n, b1));
        if (seen & (1 << ch))
            return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "channel %s repeated in joint '%s'",
                           k_channel_names[ch], show(name, strlen(name), b2));
        seen |= 1 << ch;
        J->channels[c] = (uint8_t)ch;
        if (ch >= PB_BVH_XROT)
            rot_axes[nrot++] = ch - PB_BVH_XROT;
    }
    (void)kw;
    J->num_channels = (uint8_t)count;
    J->num_rot = (uint8_t)nrot;
    /* Complete the order with the missing axes, ascending. */
    for (int a = 0; a < 3 && nrot < 3; a++) {
        int have = 0;
        for (int k = 0; k < nrot; k++)
            have |= rot_axes[k] == a;
        if (!have)
            rot_axes[nrot++] = a;
    }
    J->rot_order = (uint8_t)pb_euler_order_from_axes(rot_axes[0], rot_axes[1], rot_axes[2]);
    J->first_channel = (uint32_t)P->nchan;
    P->nchan += count;
    return PB_BVH_OK;
}

enum { F_OFFSET = 1, F_CHANNELS = 2, F_END = 4 };

typedef struct frame {
    int32_t index; /* joint index, or end-site index when F_END */
    long open_line;
    unsigned flags;
    uint32_t children; /* JOINT children so far */
    uint32_t items;    /* JOINT children + End Sites so far */
} frame;

/* Parses one ROOT block (the ROOT keyword has been read), without recursion. */
static pb_bvh_code parse_root(parser *P, const tok *root_kw)
{
    char b1[48], b2[48];
    frame stack[PB_BVH_MAX_DEPTH];
    size_t depth = 0;
    pb_bvh_code rc = new_joint(P, root_kw, -1);
    if (rc)
        return rc;
    stack[depth++] = (frame){(int32_t)(P->nj - 1), root_kw->line, 0, 0, 0};

    while (depth > 0) {
        frame *top = &stack[depth - 1];
        tok t;
        if (!next_tok(P, &t)) {
            if (top->flags & F_END)
                return set_err(P->err, PB_BVH_ERR_SYNTAX, P->last_line,
                               "unexpected end of file: missing '}' of the End Site opened at line %ld",
                               top->open_line);
            const char *nm = jname(P, (size_t)top->index);
            return set_err(P->err, PB_BVH_ERR_SYNTAX, P->last_line,
                           "unexpected end of file: missing '}' of joint '%s' opened at line %ld",
                           show(nm, strlen(nm), b2), top->open_line);
        }
        if (top->flags & F_END) {
            pb_bvh_end_site *E = &P->ends[top->index];
            if (tok_is(&t, "OFFSET")) {
                if (top->flags & F_OFFSET)
                    return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "second OFFSET in End Site");
                if ((rc = read_vec3(P, "OFFSET", "End Site", E->offset)))
                    return rc;
                top->flags |= F_OFFSET;
            } else if (t.n == 1 && *t.s == '}') {
                if (!(top->flags & F_OFFSET))
                    return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "End Site without OFFSET");
                depth--;
            } else {
                return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                               "unexpected '%s' in End Site (expected OFFSET or '}')",
                               show(t.s, t.n, b1));
            }
            continue;
        }

        size_t j = (size_t)top->index;
        const char *nm = jname(P, j);
        int is_joint = tok_is(&t, "JOINT");
        int is_end = tok_is(&t, "End") || tok_is(&t, "EndSite");
        if (tok_is(&t, "OFFSET")) {
            if (top->flags & F_OFFSET)
                return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "second OFFSET in joint '%s'",
                               show(nm, strlen(nm), b2));
            if (top->items)
                return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                               "OFFSET of joint '%s' after its children", show(nm, strlen(nm), b2));
            if ((rc = read_vec3(P, "OFFSET", nm, P->joints[j].offset)))
                return rc;
            top->flags |= F_OFFSET;
        } else if (tok_is(&t, "CHANNELS")) {
            if (top->flags & F_CHANNELS)
                return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "second CHANNELS in joint '%s'",
                               show(nm, strlen(nm), b2));
            if (top->items)
                return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                               "CHANNELS of joint '%s' after its children", show(nm, strlen(nm), b2));
            if ((rc = read_channels(P, &t, j)))
                return rc;
            top->flags |= F_CHANNELS;
        } else if (is_joint || is_end) {
            if (!(top->flags & F_OFFSET) || !(top->flags & F_CHANNELS))
                return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                               "joint '%s' has no %s before its first child", show(nm, strlen(nm), b2),
                               (top->flags & F_OFFSET) ? "CHANNELS" : "OFFSET");
            if (depth >= PB_BVH_MAX_DEPTH)
                return set_err(P->err, PB_BVH_ERR_LIMIT, t.line,
                               "nesting deeper than %d levels", PB_BVH_MAX_DEPTH);
            if (is_joint) {
                top->children++;
                top->items++;
                if ((rc = new_joint(P, &t, (int32_t)j)))
                    return rc;
                stack[depth++] = (frame){(int32_t)(P->nj - 1), t.line, 0, 0, 0};
            } else {
                if (tok_is(&t, "End")) {
                    tok s;
                    if (!next_tok(P, &s))
                        return set_err(P->err, PB_BVH_ERR_SYNTAX, P->last_line,
                                       "unexpected end of file after 'End'");
                    if (!tok_is(&s, "Site"))
                        return set_err(P->err, PB_BVH_ERR_SYNTAX, s.line,
                                       "expected 'Site' after 'End', found '%s'", show(s.s, s.n, b1));
                }
                tok b;
                if (!next_tok(P, &b))
                    return set_err(P->err, PB_BVH_ERR_SYNTAX, P->last_line,
                                   "unexpected end of file: expected '{' after End Site");
                if (!(b.n == 1 && *b.s == '{'))
                    return set_err(P->err, PB_BVH_ERR_SYNTAX, b.line,
                                   "expected '{' after End Site, found '%s'", show(b.s, b.n, b1));
                if (grow((void **)&P->ends, &P->cape, P->ne + 1, sizeof *P->ends))
                    return set_err(P->err, PB_BVH_ERR_NOMEM, t.line, "out of memory");
                pb_bvh_end_site *E = &P->ends[P->ne];
                memset(E, 0, sizeof *E);
                E->parent = (int32_t)j;
                E->child_index = top->children;
                top->items++;
                stack[depth++] = (frame){(int32_t)P->ne, t.line, F_END, 0, 0};
                P->ne++;
            }
        } else if (t.n == 1 && *t.s == '}') {
            if (!(top->flags & F_OFFSET) || !(top->flags & F_CHANNELS))
                return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "joint '%s' has no %s",
                               show(nm, strlen(nm), b2),
                               (top->flags & F_OFFSET) ? "CHANNELS" : "OFFSET");
            depth--;
        } else {
            return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                           "unexpected '%s' in joint '%s' (expected OFFSET, CHANNELS, JOINT, End Site "
                           "or '}')",
                           show(t.s, t.n, b1), show(nm, strlen(nm), b2));
        }
    }
    return PB_BVH_OK;
}

static pb_bvh_code parse_hierarchy(parser *P)
{
    char b1[48];
    tok t;
    if (!next_tok(P, &t))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, P->line, "empty file: expected HIERARCHY");
    if (!tok_is(&t, "HIERARCHY"))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "expected HIERARCHY, found '%s'",
                       show(t.s, t.n, b1));
    int roots = 0;
    for (;;) {
        if (!next_tok(P, &t))
            return set_err(P->err, PB_BVH_ERR_SYNTAX, P->last_line,
                           roots ? "unexpected end of file: missing MOTION section"
                                 : "unexpected end of file: expected ROOT");
        if (tok_is(&t, "ROOT")) {
            pb_bvh_code rc = parse_root(P, &t);
            if (rc)
                return rc;
            roots++;
        } else if (tok_is(&t, "MOTION")) {
            if (!roots)
                return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "MOTION before any ROOT");
            return PB_BVH_OK;
        } else if (t.n == 1 && *t.s == '}') {
            return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "unmatched '}'");
        } else {
            return set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                           roots ? "expected ROOT or MOTION, found '%s'"
                                 : "expected ROOT, found '%s'",
                           show(t.s, t.n, b1));
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Motion                                                                   */
/* ------------------------------------------------------------------------ */

/* Matches a case-insensitive keyword at P->p (no line breaks skipped). */
static int match_kw(parser *P, const char *kw)
{
    size_t n = strlen(kw);
    if ((size_t)(P->end - P->p) < n || !eq_ci(P->p, n, kw))
        return 0;
    P->p += n;
    return 1;
}

/* The rest of the current line is a single token (returned) followed only by
 * horizontal whitespace. Returns 0 if there is no token. */
static int line_value(parser *P, tok *t)
{
    skip_hws(P);
    t->s = P->p;
    t->line = P->line;
    while (P->p < P->end && !is_space(*P->p))
        P->p++;
    t->n = (size_t)(P->p - t->s);
    return t->n > 0;
}

static int rest_of_line_blank(parser *P)
{
    skip_hws(P);
    return P->p >= P->end || is_eol(*P->p);
}

static pb_bvh_code parse_motion_header(parser *P, size_t *frames, double *frame_time,
                                       long *frames_line)
{
    char b1[48];
    tok t;
    skip_ws(P);
    if (P->p >= P->end)
        return set_err(P->err, PB_BVH_ERR_SYNTAX, P->last_line,
                       "unexpected end of file: expected 'Frames:' after MOTION");
    long line = P->line;
    P->last_line = line;
    *frames_line = line;
    if (!match_kw(P, "Frames")) {
        const char *s = P->p;
        while (P->p < P->end && !is_space(*P->p))
            P->p++;
        return set_err(P->err, PB_BVH_ERR_SYNTAX, line, "expected 'Frames:', found '%s'",
                       show(s, (size_t)(P->p - s), b1));
    }
    skip_hws(P);
    if (!match_kw(P, ":"))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, line, "expected ':' after 'Frames'");
    if (!line_value(P, &t))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, line, "'Frames:' without a count");
    size_t f = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.s[i] < '0' || t.s[i] > '9')
            return set_err(P->err, PB_BVH_ERR_VALUE, line, "invalid frame count '%s'",
                           show(t.s, t.n, b1));
        if (f > ((size_t)1 << 40))
            return set_err(P->err, PB_BVH_ERR_LIMIT, line, "absurd frame count '%s'",
                           show(t.s, t.n, b1));
        f = f * 10 + (size_t)(t.s[i] - '0');
    }
    if (!rest_of_line_blank(P))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, line, "unexpected text after the frame count");
    *frames = f;

    skip_ws(P);
    if (P->p >= P->end)
        return set_err(P->err, PB_BVH_ERR_SYNTAX, line,
                       "unexpected end of file: expected 'Frame Time:'");
    line = P->line;
    P->last_line = line;
    const char *s0 = P->p;
    int ok = match_kw(P, "Frame");
    if (ok) {
        skip_hws(P);
        ok = match_kw(P, "Time");
    }
    if (ok) {
        skip_hws(P);
        ok = match_kw(P, ":");
    }
    if (!ok) {
        P->p = s0;
        while (P->p < P->end && !is_eol(*P->p))
            P->p++;
        return set_err(P->err, PB_BVH_ERR_SYNTAX, line, "expected 'Frame Time:', found '%s'",
                       show(s0, (size_t)(P->p - s0), b1));
    }
    if (!line_value(P, &t))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, line, "'Frame Time:' without a value");
    double ft;
    if (!parse_number(t.s, t.n, &ft))
        return set_err(P->err, PB_BVH_ERR_VALUE, line, "invalid frame time '%s'", show(t.s, t.n, b1));
    if (!(ft > 0.0))
        return set_err(P->err, PB_BVH_ERR_VALUE, line, "frame time must be positive, found '%s'",
                       show(t.s, t.n, b1));
    if (!rest_of_line_blank(P))
        return set_err(P->err, PB_BVH_ERR_SYNTAX, line, "unexpected text after the frame time");
    *frame_time = ft;
    return PB_BVH_OK;
}

typedef struct jmap {
    signed char rot[3]; /* value index (relative to first_channel) per listed rotation */
    signed char pos[3]; /* value index for x, y, z position, -1 if none */
} jmap;

static pb_bvh_code alloc_motion(pb_bvh *b, size_t frames)
{
    size_t n = frames * b->num_joints;
    float **arr[7] = {&b->rot_w, &b->rot_x, &b->rot_y, &b->rot_z, &b->pos_x, &b->pos_y, &b->pos_z};
    for (int k = 0; k < 7; k++) {
        *arr[k] = NULL;
        if (n) {
            *arr[k] = malloc(n * sizeof(float));
            if (!*arr[k])
                return PB_BVH_ERR_NOMEM;
        }
    }
    return PB_BVH_OK;
}

static pb_bvh_code parse_frames(parser *P, pb_bvh *b, size_t frames, long frames_line)
{
    char b1[48];
    const size_t J = b->num_joints, C = b->num_channels;
    const size_t remaining = (size_t)(P->end - P->p);

    if (C == 0 && frames > 0)
        return set_err(P->err, PB_BVH_ERR_MOTION, frames_line,
                       "Frames: %zu but the skeleton has no channels", frames);
    if (J > 0 && frames > MAX_ELEMS / J)
        return set_err(P->err, PB_BVH_ERR_LIMIT, frames_line,
                       "Frames: %zu is absurd (%zu frames x %zu joints exceeds 2^28)", frames,
                       frames, J);
    /* Never allocate from the count alone: a frame of C values needs at least
     * 2C - 1 bytes, so allocate no more frames than the data can hold (a
     * shorter file is then reported as ending early). */
    size_t cap = frames;
    if (C > 0 && cap > remaining / (2 * C - 1) + 1)
        cap = remaining / (2 * C - 1) + 1;
    /* Joints without channels multiply memory without needing bytes. */
    if (J > 0 && cap * J > 4096 && (cap * J - 4096) / 8 > remaining)
        return set_err(P->err, PB_BVH_ERR_LIMIT, frames_line,
                       "Frames: %zu x %zu joints is too large for the %zu bytes of data", frames, J,
                       remaining);

    jmap *map = malloc((J ? J : 1) * sizeof *map);
    double *vals = malloc((C ? C : 1) * sizeof *vals);
    if (!map || !vals || alloc_motion(b, cap)) {
        free(map);
        free(vals);
        return set_err(P->err, PB_BVH_ERR_NOMEM, frames_line, "out of memory for %zu frames",
                       frames);
    }
    for (size_t j = 0; j < J; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        int nr = 0;
        map[j].pos[0] = map[j].pos[1] = map[j].pos[2] = -1;
        map[j].rot[0] = map[j].rot[1] = map[j].rot[2] = -1;
        for (int c = 0; c < jt->num_channels; c++) {
            int ch = jt->channels[c];
            if (ch < PB_BVH_XROT)
                map[j].pos[ch] = (signed char)c;
            else
                map[j].rot[nr++] = (signed char)c;
        }
    }

    pb_bvh_code rc = PB_BVH_OK;
    size_t f = 0;
    long last_data_line = P->last_line;
    for (;;) {
        skip_ws(P);
        if (P->p >= P->end)
            break;
        long line = P->line;
        if (f >= frames) {
            rc = set_err(P->err, PB_BVH_ERR_MOTION, line,
                         "more data lines than 'Frames: %zu'", frames);
            break;
        }
        if (f >= cap) { /* cannot happen: cap lines cannot fit */
            rc = set_err(P->err, PB_BVH_ERR_LIMIT, line, "too many frames for the data size");
            break;
        }
        size_t k = 0;
        for (;;) {
            skip_hws(P);
            if (P->p >= P->end || is_eol(*P->p))
                break;
            const char *s = P->p;
            while (P->p < P->end && !is_space(*P->p))
                P->p++;
            if (k < C) {
                double v;
                if (!parse_number(s, (size_t)(P->p - s), &v)) {
                    rc = set_err(P->err, PB_BVH_ERR_VALUE, line, "invalid number '%s' (value %zu)",
                                 show(s, (size_t)(P->p - s), b1), k + 1);
                    goto done;
                }
                vals[k] = v;
            }
            k++;
        }
        if (k != C) {
            rc = set_err(P->err, PB_BVH_ERR_MOTION, line,
                         "expected %zu values (the channel count), found %zu", C, k);
            break;
        }
        last_data_line = line;
        for (size_t j = 0; j < J; j++) {
            const pb_bvh_joint *jt = &b->joints[j];
            const double *v = vals + jt->first_channel;
            double deg[3] = {0, 0, 0}, q[4];
            for (int r = 0; r < jt->num_rot; r++)
                deg[r] = v[map[j].rot[r]];
            pb_euler_to_quat_n((pb_euler_order)jt->rot_order, jt->num_rot, deg, q);
            size_t o = f * J + j;
            b->rot_w[o] = (float)q[0];
            b->rot_x[o] = (float)q[1];
            b->rot_y[o] = (float)q[2];
            b->rot_z[o] = (float)q[3];
            float pos[3] = {jt->offset[0], jt->offset[1], jt->offset[2]};
            for (int a = 0; a < 3; a++) {
                if (map[j].pos[a] >= 0) {
                    double pv = v[map[j].pos[a]];
                    if (fabs(pv) > FLT_MAX) {
                        rc = set_err(P->err, PB_BVH_ERR_VALUE, line,
                                     "value %u (%s of '%s') is out of float range",
                                     (unsigned)(jt->first_channel + (uint32_t)map[j].pos[a] + 1),
                                     k_channel_names[a], show(jt->name, strlen(jt->name), b1));
                        goto done;
                    }
                    pos[a] = (float)pv;
                }
            }
            b->pos_x[o] = pos[0];
            b->pos_y[o] = pos[1];
            b->pos_z[o] = pos[2];
        }
        f++;
    }
    if (rc == PB_BVH_OK && f < frames)
        rc = set_err(P->err, PB_BVH_ERR_MOTION, last_data_line,
                     "the data end after %zu of %zu frames (Frames: %zu at line %ld)", f, frames,
                     frames, frames_line);
done:
    free(map);
    free(vals);
    if (rc == PB_BVH_OK)
        b->num_frames = frames;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Read entry points                                                        */
/* ------------------------------------------------------------------------ */

void pb_bvh_free(pb_bvh *b)
{
    if (!b)
        return;
    free(b->joints);
    free(b->end_sites);
    free(b->name_pool_);
    free(b->rot_w);
    free(b->rot_x);
    free(b->rot_y);
    free(b->rot_z);
    free(b->pos_x);
    free(b->pos_y);
    free(b->pos_z);
    memset(b, 0, sizeof *b);
}

pb_bvh_code pb_bvh_read_memory(const char *data, size_t size, pb_bvh *out, pb_bvh_error *err)
{
    clear_err(err);
    if (!out)
        return set_err(err, PB_BVH_ERR_ARG, 0, "output is NULL");
    memset(out, 0, sizeof *out);
    if (!data && size > 0)
        return set_err(err, PB_BVH_ERR_ARG, 0, "data is NULL");
    if (size > PB_BVH_MAX_FILE_BYTES)
        return set_err(err, PB_BVH_ERR_LIMIT, 0, "input larger than %zu bytes",
                       (size_t)PB_BVH_MAX_FILE_BYTES);
    parser P;
    memset(&P, 0, sizeof P);
    P.p = data ? data : "";
    P.end = P.p + size;
    P.line = 1;
    P.last_line = 1;
    P.err = err;
    if (size >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        P.p += 3;

    pb_bvh_code rc = parse_hierarchy(&P);
    if (rc) {
        parser_free(&P);
        return rc;
    }
    /* Hand the skeleton over. */
    out->num_joints = P.nj;
    out->joints = P.joints;
    out->num_end_sites = P.ne;
    out->end_sites = P.ends;
    out->num_channels = P.nchan;
    out->name_pool_ = P.pool;
    for (size_t j = 0; j < P.nj; j++)
        out->joints[j].name = P.pool + P.name_off[j];
    free(P.name_off);
    P.joints = NULL;
    P.ends = NULL;
    P.pool = NULL;
    P.name_off = NULL;

    size_t frames = 0;
    long frames_line = 0;
    rc = parse_motion_header(&P, &frames, &out->frame_time, &frames_line);
    if (!rc)
        rc = parse_frames(&P, out, frames, frames_line);
    if (rc) {
        pb_bvh_free(out);
        return rc;
    }
    return PB_BVH_OK;
}

pb_bvh_code pb_bvh_read_file(const char *path, pb_bvh *out, pb_bvh_error *err)
{
    clear_err(err);
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return set_err(err, PB_BVH_ERR_ARG, 0, "path or output is NULL");
    FILE *f = fopen(path, "rb");
    if (!f)
        return set_err(err, PB_BVH_ERR_IO, 0, "%s: %s", path, strerror(errno));
    struct stat st;
    size_t cap = 1 << 16;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uintmax_t)st.st_size > PB_BVH_MAX_FILE_BYTES) {
            fclose(f);
            return set_err(err, PB_BVH_ERR_LIMIT, 0, "%s: larger than %zu bytes", path,
                           (size_t)PB_BVH_MAX_FILE_BYTES);
        }
        cap = (size_t)st.st_size + 1;
    } else if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return set_err(err, PB_BVH_ERR_IO, 0, "%s: %s", path, strerror(EISDIR));
    }
    char *buf = malloc(cap);
    size_t len = 0;
    if (!buf) {
        fclose(f);
        return set_err(err, PB_BVH_ERR_NOMEM, 0, "%s: out of memory", path);
    }
    for (;;) {
        if (len == cap) {
            if (cap > PB_BVH_MAX_FILE_BYTES) {
                free(buf);
                fclose(f);
                return set_err(err, PB_BVH_ERR_LIMIT, 0, "%s: larger than %zu bytes", path,
                               (size_t)PB_BVH_MAX_FILE_BYTES);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return set_err(err, PB_BVH_ERR_NOMEM, 0, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                fclose(f);
                return set_err(err, PB_BVH_ERR_IO, 0, "%s: read error: %s", path,
                               strerror(e ? e : EIO));
            }
            break;
        }
    }
    fclose(f);
    pb_bvh_code rc = pb_bvh_read_memory(buf, len, out, err);
    free(buf);
    return rc;
}

long pb_bvh_find_joint(const pb_bvh *b, const char *name)
{
    if (!b || !name)
        return -1;
    for (size_t j = 0; j < b->num_joints; j++)
        if (b->joints[j].name && strcmp(b->joints[j].name, name) == 0)
            return (long)j;
    return -1;
}

pb_bvh_code pb_bvh_set_frames(pb_bvh *b, size_t frames, pb_bvh_error *err)
{
    clear_err(err);
    if (!b)
        return set_err(err, PB_BVH_ERR_ARG, 0, "bvh is NULL");
    const size_t J = b->num_joints;
    if (J > 0 && frames > MAX_ELEMS / J)
        return set_err(err, PB_BVH_ERR_LIMIT, 0, "%zu frames x %zu joints is too large", frames, J);
    pb_bvh nb = *b;
    if (alloc_motion(&nb, frames)) {
        float *arr[7] = {nb.rot_w, nb.rot_x, nb.rot_y, nb.rot_z, nb.pos_x, nb.pos_y, nb.pos_z};
        for (int k = 0; k < 7; k++)
            free(arr[k]);
        return set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory for %zu frames", frames);
    }
    size_t keep = (frames < b->num_frames ? frames : b->num_frames) * J;
    float *src[7] = {b->rot_w, b->rot_x, b->rot_y, b->rot_z, b->pos_x, b->pos_y, b->pos_z};
    float *dst[7] = {nb.rot_w, nb.rot_x, nb.rot_y, nb.rot_z, nb.pos_x, nb.pos_y, nb.pos_z};
    for (int k = 0; k < 7; k++) {
        if (keep)
            memcpy(dst[k], src[k], keep * sizeof(float));
        free(src[k]);
    }
    for (size_t i = keep; i < frames * J; i++) {
        const pb_bvh_joint *jt = &b->joints[i % J];
        nb.rot_w[i] = 1.0f;
        nb.rot_x[i] = nb.rot_y[i] = nb.rot_z[i] = 0.0f;
        nb.pos_x[i] = jt->offset[0];
        nb.pos_y[i] = jt->offset[1];
        nb.pos_z[i] = jt->offset[2];
    }
    nb.num_frames = frames;
    *b = nb;
    return PB_BVH_OK;
}

/* ------------------------------------------------------------------------ */
/* Writer                                                                   */
/* ------------------------------------------------------------------------ */

/* m (the value times 10^d, >= 0) in fixed notation with d decimals, trailing
 * zeros dropped; "-" only for a non-zero value. buf holds >= 48 bytes. */
static void put_fixed(char *buf, int neg, uint64_t m, int d)
{
    char tmp[32];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + m % 10);
        m /= 10;
    } while (m || n <= d);
    int lo = 0; /* trailing zero decimals */
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

/* The shortest text that this reader turns back into exactly v: fixed
 * notation with the fewest decimals (computed exactly as parse_number reads
 * it back), else %g with 6..9 digits. */
static void fmt_float(float v, char *buf, size_t size)
{
    if (v == 0.0f) {
        snprintf(buf, size, "0");
        return;
    }
    double a = fabs((double)v);
    for (int d = 0; d <= 15; d++) {
        double t = a * p10[d];
        if (t >= 9e15)
            break;
        double m = nearbyint(t);
        if ((float)(m / p10[d]) == (float)a) {
            put_fixed(buf, v < 0.0f, (uint64_t)m, d);
            return;
        }
    }
    for (int p = 6; p <= 9; p++) {
        snprintf(buf, size, "%.*g", p, (double)v);
        double back;
        if (parse_number(buf, strlen(buf), &back) && (float)back == v)
            return;
    }
}

/* Fewest significant digits (15..17) that read back to the same double. */
static void fmt_double(double v, char *buf, size_t size)
{
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, size, "%.*g", p, v);
        double back;
        if (parse_number(buf, strlen(buf), &back) && back == v)
            return;
    }
}

/* Degrees with 6 decimals, trailing zeros dropped, no "-0". */
static void fmt_angle(double v, char *buf, size_t size)
{
    double a = fabs(v);
    if (a < 1e12) {
        put_fixed(buf, v < 0.0, (uint64_t)nearbyint(a * 1e6), 6);
        return;
    }
    snprintf(buf, size, "%.6f", v);
}

static void indent(FILE *f, size_t depth)
{
    for (size_t i = 0; i < depth; i++)
        fputc('\t', f);
}

/* A name that the reader gives back unchanged. */
static int valid_name(const char *s)
{
    if (!s || !s[0] || is_hspace(s[0]))
        return 0;
    size_t n = 0;
    for (; s[n]; n++) {
        unsigned char c = (unsigned char)s[n];
        if ((c < 0x20 && c != '\t') || c == 0x7f || c == '{' || c == '}')
            return 0;
    }
    return !is_hspace(s[n - 1]);
}

/* Validates the in-memory data the writer relies on. */
static pb_bvh_code validate(const pb_bvh *b, pb_bvh_error *err)
{
    const size_t J = b->num_joints;
    if (J == 0 || !b->joints)
        return set_err(err, PB_BVH_ERR_ARG, 0, "no joints to write");
    if (J > PB_BVH_MAX_JOINTS)
        return set_err(err, PB_BVH_ERR_ARG, 0, "more than %d joints", PB_BVH_MAX_JOINTS);
    if (!(b->frame_time > 0.0) || !isfinite(b->frame_time))
        return set_err(err, PB_BVH_ERR_ARG, 0, "frame time must be positive and finite");
    if (b->num_frames > 0 && b->num_frames > MAX_ELEMS / J)
        return set_err(err, PB_BVH_ERR_ARG, 0, "too many frames");
    if (b->num_frames > 0 && (!b->rot_w || !b->rot_x || !b->rot_y || !b->rot_z || !b->pos_x ||
                              !b->pos_y || !b->pos_z))
        return set_err(err, PB_BVH_ERR_ARG, 0, "motion arrays missing");
    if (b->num_end_sites > 0 && !b->end_sites)
        return set_err(err, PB_BVH_ERR_ARG, 0, "end sites missing");
    for (size_t j = 0; j < J; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        if (!valid_name(jt->name))
            return set_err(err, PB_BVH_ERR_ARG, 0,
                           "joint %zu: name empty, with braces, control characters or "
                           "leading/trailing blanks (it would not read back)",
                           j);
        if (jt->parent < -1 || (jt->parent >= 0 && (size_t)jt->parent >= j))
            return set_err(err, PB_BVH_ERR_ARG, 0, "joint %zu: parent %ld does not precede it", j,
                           (long)jt->parent);
        if (jt->num_channels > 6)
            return set_err(err, PB_BVH_ERR_ARG, 0, "joint %zu: %u channels", j,
                           (unsigned)jt->num_channels);
        int seen = 0;
        for (int c = 0; c < jt->num_channels; c++) {
            if (jt->channels[c] > 5 || (seen & (1 << jt->channels[c])))
                return set_err(err, PB_BVH_ERR_ARG, 0, "joint %zu: invalid channel list", j);
            seen |= 1 << jt->channels[c];
        }
        for (int a = 0; a < 3; a++)
            if (!isfinite(jt->offset[a]))
                return set_err(err, PB_BVH_ERR_ARG, 0, "joint %zu: non-finite OFFSET", j);
    }
    for (size_t e = 0; e < b->num_end_sites; e++) {
        const pb_bvh_end_site *E = &b->end_sites[e];
        if (E->parent < 0 || (size_t)E->parent >= J)
            return set_err(err, PB_BVH_ERR_ARG, 0, "end site %zu: invalid parent", e);
        for (int a = 0; a < 3; a++)
            if (!isfinite(E->offset[a]))
                return set_err(err, PB_BVH_ERR_ARG, 0, "end site %zu: non-finite OFFSET", e);
    }
    return PB_BVH_OK;
}

typedef struct wstate {
    FILE *f;
    const pb_bvh *b;
    size_t *es_start; /* J + 1: end sites of joint j are es_idx[es_start[j] .. es_start[j+1]) */
    size_t *es_idx;
    size_t *es_next;  /* per joint: next unwritten position in its list */
    uint32_t *nchild; /* JOINT children written so far */
} wstate;

static void write_end_site(wstate *W, size_t e, size_t depth)
{
    char a[3][40];
    const pb_bvh_end_site *E = &W->b->end_sites[e];
    for (int k = 0; k < 3; k++)
        fmt_float(E->offset[k], a[k], sizeof a[k]);
    indent(W->f, depth);
    fputs("End Site\n", W->f);
    indent(W->f, depth);
    fputs("{\n", W->f);
    indent(W->f, depth + 1);
    fprintf(W->f, "OFFSET %s %s %s\n", a[0], a[1], a[2]);
    indent(W->f, depth);
    fputs("}\n", W->f);
}

/* Writes the pending end sites of joint p that go before child number n
 * (n = UINT32_MAX: all remaining). */
static void flush_end_sites(wstate *W, size_t p, uint32_t n, size_t depth)
{
    while (W->es_next[p] < W->es_start[p + 1]) {
        size_t e = W->es_idx[W->es_next[p]];
        if (W->b->end_sites[e].child_index > n)
            break;
        write_end_site(W, e, depth);
        W->es_next[p]++;
    }
}

static pb_bvh_code write_hierarchy(wstate *W, pb_bvh_error *err)
{
    const pb_bvh *b = W->b;
    const size_t J = b->num_joints;
    FILE *f = W->f;
    size_t *stack = malloc(J * sizeof *stack);
    if (!stack)
        return set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    size_t depth = 0;
    fputs("HIERARCHY\n", f);
    for (size_t j = 0; j <= J; j++) {
        int32_t parent = j < J ? b->joints[j].parent : -1;
        /* Close joints until the parent is on top. */
        while (depth > 0 && (parent < 0 || stack[depth - 1] != (size_t)parent)) {
            size_t c = stack[--depth];
            flush_end_sites(W, c, UINT32_MAX, depth + 1);
            indent(f, depth);
            fputs("}\n", f);
        }
        if (j == J)
            break;
        if (parent >= 0 && depth == 0) {
            free(stack);
            return set_err(err, PB_BVH_ERR_ARG, 0,
                           "joints are not in depth-first order (joint %zu)", j);
        }
        if (depth >= PB_BVH_MAX_DEPTH) {
            free(stack);
            return set_err(err, PB_BVH_ERR_ARG, 0, "nesting deeper than %d", PB_BVH_MAX_DEPTH);
        }
        const pb_bvh_joint *jt = &b->joints[j];
        if (parent >= 0) {
            flush_end_sites(W, (size_t)parent, W->nchild[parent], depth);
            W->nchild[parent]++;
        }
        indent(f, depth);
        fprintf(f, "%s %s\n", parent < 0 ? "ROOT" : "JOINT", jt->name);
        indent(f, depth);
        fputs("{\n", f);
        char a[3][40];
        for (int k = 0; k < 3; k++)
            fmt_float(jt->offset[k], a[k], sizeof a[k]);
        indent(f, depth + 1);
        fprintf(f, "OFFSET %s %s %s\n", a[0], a[1], a[2]);
        indent(f, depth + 1);
        fprintf(f, "CHANNELS %u", (unsigned)jt->num_channels);
        for (int c = 0; c < jt->num_channels; c++)
            fprintf(f, " %s", k_channel_names[jt->channels[c]]);
        fputc('\n', f);
        stack[depth++] = j;
    }
    free(stack);
    return PB_BVH_OK;
}

typedef struct wjoint {
    int order;       /* pb_euler_order */
    int nrot;
    signed char rot_ch[3]; /* channel slot of each listed rotation */
} wjoint;

pb_bvh_code pb_bvh_write_stream(FILE *f, const pb_bvh *b, pb_bvh_error *err)
{
    clear_err(err);
    if (!f || !b)
        return set_err(err, PB_BVH_ERR_ARG, 0, "stream or bvh is NULL");
    pb_bvh_code rc = validate(b, err);
    if (rc)
        return rc;
    const size_t J = b->num_joints, F = b->num_frames, E = b->num_end_sites;

    locale_t cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t old = cloc ? uselocale(cloc) : (locale_t)0;

    wstate W = {f, b, NULL, NULL, NULL, NULL};
    wjoint *wj = malloc(J * sizeof *wj);
    double *prev = malloc(J * 3 * sizeof *prev);
    W.es_start = calloc(J + 1, sizeof *W.es_start);
    W.es_idx = malloc((E ? E : 1) * sizeof *W.es_idx);
    W.es_next = malloc(J * sizeof *W.es_next);
    W.nchild = calloc(J, sizeof *W.nchild);
    if (!wj || !prev || !W.es_start || !W.es_idx || !W.es_next || !W.nchild) {
        rc = set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
        goto out;
    }
    /* End sites grouped by parent, stable (counting sort). */
    for (size_t e = 0; e < E; e++)
        W.es_start[b->end_sites[e].parent + 1]++;
    for (size_t j = 0; j < J; j++)
        W.es_start[j + 1] += W.es_start[j];
    for (size_t j = 0; j < J; j++)
        W.es_next[j] = W.es_start[j];
    for (size_t e = 0; e < E; e++)
        W.es_idx[W.es_next[b->end_sites[e].parent]++] = e;
    for (size_t j = 0; j < J; j++)
        W.es_next[j] = W.es_start[j];

    for (size_t j = 0; j < J; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        int axes[3], n = 0;
        for (int c = 0; c < jt->num_channels; c++)
            if (jt->channels[c] >= PB_BVH_XROT) {
                wj[j].rot_ch[n] = (signed char)c;
                axes[n++] = jt->channels[c] - PB_BVH_XROT;
            }
        wj[j].nrot = n;
        for (int a = 0; a < 3 && n < 3; a++) {
            int have = 0;
            for (int k = 0; k < n; k++)
                have |= axes[k] == a;
            if (!have)
                axes[n++] = a;
        }
        wj[j].order = pb_euler_order_from_axes(axes[0], axes[1], axes[2]);
    }

    if ((rc = write_hierarchy(&W, err)))
        goto out;

    char ft[40];
    fmt_double(b->frame_time, ft, sizeof ft);
    fprintf(f, "MOTION\nFrames: %zu\nFrame Time: %s\n", F, ft);

    char num[64];
    for (size_t fr = 0; fr < F; fr++) {
        for (size_t j = 0; j < J; j++) {
            const pb_bvh_joint *jt = &b->joints[j];
            size_t o = fr * J + j;
            double deg[3] = {0, 0, 0};
            if (wj[j].nrot > 0) {
                double q[4] = {b->rot_w[o], b->rot_x[o], b->rot_y[o], b->rot_z[o]};
                if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2]) || !isfinite(q[3])) {
                    rc = set_err(err, PB_BVH_ERR_ARG, 0,
                                 "frame %zu, joint '%s': non-finite rotation", fr, jt->name);
                    goto out;
                }
                if (q[0] == 0.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0)
                    q[0] = 1.0;
                pb_euler_from_quat_n((pb_euler_order)wj[j].order, wj[j].nrot, q,
                                     fr > 0 ? &prev[3 * j] : NULL, deg);
                prev[3 * j] = deg[0];
                prev[3 * j + 1] = deg[1];
                prev[3 * j + 2] = deg[2];
            }
            const float pos[3] = {b->pos_x[o], b->pos_y[o], b->pos_z[o]};
            int r = 0;
            for (int c = 0; c < jt->num_channels; c++) {
                int ch = jt->channels[c];
                if (ch < PB_BVH_XROT) {
                    if (!isfinite(pos[ch])) {
                        rc = set_err(err, PB_BVH_ERR_ARG, 0,
                                     "frame %zu, joint '%s': non-finite position", fr, jt->name);
                        goto out;
                    }
                    fmt_float(pos[ch], num, sizeof num);
                } else {
                    fmt_angle(deg[r++], num, sizeof num);
                }
                if (j > 0 || c > 0)
                    fputc(' ', f);
                fputs(num, f);
            }
        }
        fputc('\n', f);
        if (ferror(f))
            break;
    }
    if (fflush(f) != 0 || ferror(f))
        rc = set_err(err, PB_BVH_ERR_IO, 0, "write error: %s", strerror(errno ? errno : EIO));
out:
    if (cloc) {
        uselocale(old);
        freelocale(cloc);
    }
    free(wj);
    free(prev);
    free(W.es_start);
    free(W.es_idx);
    free(W.es_next);
    free(W.nchild);
    return rc;
}

pb_bvh_code pb_bvh_write_file(const char *path, const pb_bvh *b, pb_bvh_error *err)
{
    clear_err(err);
    if (!path || !path[0] || !b)
        return set_err(err, PB_BVH_ERR_ARG, 0, "path or bvh is NULL or empty");
    pb_bvh_code rc = validate(b, err);
    if (rc)
        return rc;
    size_t plen = strlen(path);
    if (path[plen - 1] == '/')
        return set_err(err, PB_BVH_ERR_IO, 0, "%s: is a directory", path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) : 0;
    const char *base = slash ? slash + 1 : path;
    /* "<dir>/.<base>.tmp-<pid>-<n>" */
    size_t tsize = plen + 64;
    char *tmp = malloc(tsize);
    if (!tmp)
        return set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    static atomic_uint counter;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        unsigned n = (atomic_fetch_add(&counter, 1u) + 1u) ^ (unsigned)clock() ^
                     ((unsigned)attempt * 2654435761u);
        if (slash)
            snprintf(tmp, tsize, "%.*s/.%s.tmp-%ld-%08x", (int)dirlen, path, base, (long)getpid(), n);
        else
            snprintf(tmp, tsize, ".%s.tmp-%ld-%08x", base, (long)getpid(), n);
        if (slash && dirlen == 0) /* path "/name" */
            snprintf(tmp, tsize, "/.%s.tmp-%ld-%08x", base, (long)getpid(), n);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return set_err(err, PB_BVH_ERR_IO, 0, "%s: cannot create a temporary file next to it: %s",
                       path, strerror(e));
    }
    /* Keep the permissions of a file we replace. */
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        (void)fchmod(fd, st.st_mode & 07777);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return set_err(err, PB_BVH_ERR_IO, 0, "%s: %s", path, strerror(e));
    }
    rc = pb_bvh_write_stream(f, b, err);
    if (rc == PB_BVH_OK && fsync(fileno(f)) != 0 && errno != EINVAL && errno != ENOTSUP)
        rc = set_err(err, PB_BVH_ERR_IO, 0, "%s: fsync failed: %s", path, strerror(errno));
    if (fclose(f) != 0 && rc == PB_BVH_OK)
        rc = set_err(err, PB_BVH_ERR_IO, 0, "%s: close failed: %s", path, strerror(errno));
    if (rc == PB_BVH_OK && rename(tmp, path) != 0)
        rc = set_err(err, PB_BVH_ERR_IO, 0, "%s: cannot replace: %s", path, strerror(errno));
    if (rc != PB_BVH_OK) {
        unlink(tmp);
        free(tmp);
        return rc;
    }
    free(tmp);
    /* Make the rename durable (best effort). */
    char *dir = malloc(dirlen + 2);
    if (dir) {
        if (slash && dirlen > 0) {
            memcpy(dir, path, dirlen);
            dir[dirlen] = '\0';
        } else
            strcpy(dir, slash ? "/" : ".");
        int dfd = open(dir, O_RDONLY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    return PB_BVH_OK;
}
