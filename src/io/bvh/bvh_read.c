/* BVH reader: hierarchy, motion header and data lines, and the limits that
 * hold while reading (include/posebatch/io.h documents the accepted syntax). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The reader's limits, in one place (include/posebatch/io.h documents them). */
#define MAX_RATE BVH_MAX_RATE        /* frames per second: Frame Time >= 1 / MAX_RATE */
#define MAX_ANGLE_DEG 1e6            /* |rotation channel| in degrees */
#define ELEMS_SLACK READ_ELEMS_SLACK /* frames * joints <= motion bytes + this */
#define MAX_WARNINGS 20              /* further warnings of one kind are summarised */

typedef struct parser {
    bvh_lexer lx;
    pb_bvh_error *err;
    const pb_bvh_read_opts *opts; /* may be NULL */

    pb_bvh_joint *joints;
    uint32_t *name_off;
    size_t nj, capj, capn;
    char *pool;
    size_t pool_len, pool_cap;
    pb_bvh_end_site *ends;
    size_t ne, cape;
    size_t nchan;
} parser;

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
        if (!lex_next(&P->lx, &t))
            return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                               "unexpected end of file in %s of '%s'", what,
                               bvh_show(owner, strlen(owner), b2));
        double d;
        if (t.n == 1 && (*t.s == '{' || *t.s == '}'))
            return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                               "%s of '%s' needs 3 numbers, found '%c' after %d", what,
                               bvh_show(owner, strlen(owner), b2), *t.s, k);
        if (!bvh_parse_number(t.s, t.n, &d))
            return bvh_set_err(P->err, PB_BVH_ERR_VALUE, t.line,
                               "invalid number '%s' in %s of '%s'", bvh_show(t.s, t.n, b1), what,
                               bvh_show(owner, strlen(owner), b2));
        if (fabs(d) > FLT_MAX)
            return bvh_set_err(P->err, PB_BVH_ERR_VALUE, t.line,
                               "number '%s' in %s is out of float range", bvh_show(t.s, t.n, b1),
                               what);
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
        return bvh_set_err(P->err, PB_BVH_ERR_LIMIT, kw->line, "more than %d joints",
                           PB_BVH_MAX_JOINTS);
    lex_skip_hws(&P->lx);
    const char *s = P->lx.p;
    while (P->lx.p < P->lx.end && !is_eol(*P->lx.p) && *P->lx.p != '{' && *P->lx.p != '}')
        P->lx.p++;
    const char *e = P->lx.p;
    while (e > s && is_hspace(e[-1]))
        e--;
    size_t len = (size_t)(e - s);
    if (len == 0)
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, kw->line, "%.*s without a name", (int)kw->n,
                           kw->s);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, kw->line,
                               "invalid character 0x%02x in joint name '%s'", c,
                               bvh_show(s, len, b1));
    }
    if (grow((void **)&P->joints, &P->capj, P->nj + 1, sizeof *P->joints) ||
        grow((void **)&P->name_off, &P->capn, P->nj + 1, sizeof *P->name_off))
        return bvh_set_err(P->err, PB_BVH_ERR_NOMEM, kw->line, "out of memory");
    if (P->pool_len + len + 1 > UINT32_MAX ||
        grow((void **)&P->pool, &P->pool_cap, P->pool_len + len + 1, 1))
        return bvh_set_err(P->err, PB_BVH_ERR_NOMEM, kw->line, "out of memory");
    memcpy(P->pool + P->pool_len, s, len);
    P->pool[P->pool_len + len] = '\0';
    P->name_off[P->nj] = (uint32_t)P->pool_len;
    P->pool_len += len + 1;

    pb_bvh_joint *J = &P->joints[P->nj];
    memset(J, 0, sizeof *J);
    J->parent = parent;
    J->line = kw->line;
    J->rot_order = PB_EULER_XYZ;
    J->first_channel = (uint32_t)P->nchan;
    P->nj++;

    tok t;
    if (!lex_next(&P->lx, &t))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                           "unexpected end of file: expected '{' after %.*s %s", (int)kw->n, kw->s,
                           bvh_show(s, len, b1));
    if (!(t.n == 1 && *t.s == '{'))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                           "expected '{' after %.*s '%s', found '%s'", (int)kw->n, kw->s,
                           jname(P, P->nj - 1), bvh_show(t.s, t.n, b1));
    return PB_BVH_OK;
}

static int channel_from(const tok *t)
{
    for (int c = 0; c < 6; c++)
        if (lex_is(t, bvh_channel_names[c]))
            return c;
    return -1;
}

static pb_bvh_code read_channels(parser *P, const tok *kw, size_t j)
{
    char b1[48], b2[48];
    pb_bvh_joint *J = &P->joints[j];
    const char *name = jname(P, j);
    tok t;
    if (!lex_next(&P->lx, &t))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                           "unexpected end of file after CHANNELS of '%s'",
                           bvh_show(name, strlen(name), b2));
    size_t count = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.s[i] < '0' || t.s[i] > '9' || i >= 9)
            return bvh_set_err(P->err, i >= 9 ? PB_BVH_ERR_LIMIT : PB_BVH_ERR_VALUE, t.line,
                               "invalid CHANNELS count '%s' for joint '%s' (0..6)",
                               bvh_show(t.s, t.n, b1), bvh_show(name, strlen(name), b2));
        count = count * 10 + (size_t)(t.s[i] - '0');
    }
    if (t.n == 0 || (t.n == 1 && (*t.s == '{' || *t.s == '}')))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "CHANNELS of '%s' without a count",
                           bvh_show(name, strlen(name), b2));
    if (count > 6)
        return bvh_set_err(P->err, PB_BVH_ERR_LIMIT, t.line,
                           "CHANNELS %zu for joint '%s': at most 6 channels per joint", count,
                           bvh_show(name, strlen(name), b2));
    int seen = 0, rot_axes[3], nrot = 0;
    for (size_t c = 0; c < count; c++) {
        if (!lex_next(&P->lx, &t))
            return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                               "unexpected end of file in CHANNELS of '%s'",
                               bvh_show(name, strlen(name), b2));
        int ch = channel_from(&t);
        if (ch < 0)
            return bvh_set_err(
                P->err, PB_BVH_ERR_SYNTAX, t.line,
                "expected a channel name (CHANNELS %zu of '%s' lists %zu), found '%s'", count,
                bvh_show(name, strlen(name), b2), c, bvh_show(t.s, t.n, b1));
        if (seen & (1 << ch))
            return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                               "channel %s repeated in joint '%s'", bvh_channel_names[ch],
                               bvh_show(name, strlen(name), b2));
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
        if (!lex_next(&P->lx, &t)) {
            if (top->flags & F_END)
                return bvh_set_err(
                    P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                    "unexpected end of file: missing '}' of the End Site opened at line %ld",
                    top->open_line);
            const char *nm = jname(P, (size_t)top->index);
            return bvh_set_err(
                P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                "unexpected end of file: missing '}' of joint '%s' opened at line %ld",
                bvh_show(nm, strlen(nm), b2), top->open_line);
        }
        if (top->flags & F_END) {
            pb_bvh_end_site *E = &P->ends[top->index];
            if (lex_is(&t, "OFFSET")) {
                if (top->flags & F_OFFSET)
                    return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                                       "second OFFSET in End Site");
                if ((rc = read_vec3(P, "OFFSET", "End Site", E->offset)))
                    return rc;
                top->flags |= F_OFFSET;
            } else if (t.n == 1 && *t.s == '}') {
                if (!(top->flags & F_OFFSET))
                    return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                                       "End Site without OFFSET");
                depth--;
            } else {
                return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                                   "unexpected '%s' in End Site (expected OFFSET or '}')",
                                   bvh_show(t.s, t.n, b1));
            }
            continue;
        }

        size_t j = (size_t)top->index;
        const char *nm = jname(P, j);
        int is_joint = lex_is(&t, "JOINT");
        int is_end = lex_is(&t, "End") || lex_is(&t, "EndSite");
        if (lex_is(&t, "OFFSET")) {
            if (top->flags & F_OFFSET)
                return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "second OFFSET in joint '%s'",
                                   bvh_show(nm, strlen(nm), b2));
            if (top->items)
                return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                                   "OFFSET of joint '%s' after its children",
                                   bvh_show(nm, strlen(nm), b2));
            if ((rc = read_vec3(P, "OFFSET", nm, P->joints[j].offset)))
                return rc;
            top->flags |= F_OFFSET;
        } else if (lex_is(&t, "CHANNELS")) {
            if (top->flags & F_CHANNELS)
                return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                                   "second CHANNELS in joint '%s'", bvh_show(nm, strlen(nm), b2));
            if (top->items)
                return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                                   "CHANNELS of joint '%s' after its children",
                                   bvh_show(nm, strlen(nm), b2));
            if ((rc = read_channels(P, &t, j)))
                return rc;
            top->flags |= F_CHANNELS;
        } else if (is_joint || is_end) {
            if (!(top->flags & F_OFFSET) || !(top->flags & F_CHANNELS))
                return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                                   "joint '%s' has no %s before its first child",
                                   bvh_show(nm, strlen(nm), b2),
                                   (top->flags & F_OFFSET) ? "CHANNELS" : "OFFSET");
            if (depth >= PB_BVH_MAX_DEPTH)
                return bvh_set_err(P->err, PB_BVH_ERR_LIMIT, t.line,
                                   "nesting deeper than %d levels", PB_BVH_MAX_DEPTH);
            if (is_joint) {
                top->children++;
                top->items++;
                if ((rc = new_joint(P, &t, (int32_t)j)))
                    return rc;
                stack[depth++] = (frame){(int32_t)(P->nj - 1), t.line, 0, 0, 0};
            } else {
                if (lex_is(&t, "End")) {
                    tok s;
                    if (!lex_next(&P->lx, &s))
                        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                                           "unexpected end of file after 'End'");
                    if (!lex_is(&s, "Site"))
                        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, s.line,
                                           "expected 'Site' after 'End', found '%s'",
                                           bvh_show(s.s, s.n, b1));
                }
                tok b;
                if (!lex_next(&P->lx, &b))
                    return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                                       "unexpected end of file: expected '{' after End Site");
                if (!(b.n == 1 && *b.s == '{'))
                    return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, b.line,
                                       "expected '{' after End Site, found '%s'",
                                       bvh_show(b.s, b.n, b1));
                if (grow((void **)&P->ends, &P->cape, P->ne + 1, sizeof *P->ends))
                    return bvh_set_err(P->err, PB_BVH_ERR_NOMEM, t.line, "out of memory");
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
                return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "joint '%s' has no %s",
                                   bvh_show(nm, strlen(nm), b2),
                                   (top->flags & F_OFFSET) ? "CHANNELS" : "OFFSET");
            depth--;
        } else {
            return bvh_set_err(
                P->err, PB_BVH_ERR_SYNTAX, t.line,
                "unexpected '%s' in joint '%s' (expected OFFSET, CHANNELS, JOINT, End Site "
                "or '}')",
                bvh_show(t.s, t.n, b1), bvh_show(nm, strlen(nm), b2));
        }
    }
    return PB_BVH_OK;
}

static pb_bvh_code parse_hierarchy(parser *P)
{
    char b1[48];
    tok t;
    if (!lex_next(&P->lx, &t))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, P->lx.line, "empty file: expected HIERARCHY");
    if (!lex_is(&t, "HIERARCHY"))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "expected HIERARCHY, found '%s'",
                           bvh_show(t.s, t.n, b1));
    int roots = 0;
    for (;;) {
        if (!lex_next(&P->lx, &t))
            return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                               roots ? "unexpected end of file: missing MOTION section"
                                     : "unexpected end of file: expected ROOT");
        if (lex_is(&t, "ROOT")) {
            pb_bvh_code rc = parse_root(P, &t);
            if (rc)
                return rc;
            roots++;
        } else if (lex_is(&t, "MOTION")) {
            if (!roots)
                return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "MOTION before any ROOT");
            return PB_BVH_OK;
        } else if (t.n == 1 && *t.s == '}') {
            return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line, "unmatched '}'");
        } else {
            return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, t.line,
                               roots ? "expected ROOT or MOTION, found '%s'"
                                     : "expected ROOT, found '%s'",
                               bvh_show(t.s, t.n, b1));
        }
    }
}

static pb_bvh_code parse_motion_header(parser *P, size_t *frames, double *frame_time,
                                       long *frames_line)
{
    char b1[48];
    tok t;
    lex_skip_ws(&P->lx);
    if (P->lx.p >= P->lx.end)
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, P->lx.last_line,
                           "unexpected end of file: expected 'Frames:' after MOTION");
    long line = P->lx.line;
    P->lx.last_line = line;
    *frames_line = line;
    if (!lex_match_kw(&P->lx, "Frames")) {
        const char *s = P->lx.p;
        while (P->lx.p < P->lx.end && !is_space(*P->lx.p))
            P->lx.p++;
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "expected 'Frames:', found '%s'",
                           bvh_show(s, (size_t)(P->lx.p - s), b1));
    }
    lex_skip_hws(&P->lx);
    if (!lex_match_kw(&P->lx, ":"))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "expected ':' after 'Frames'");
    if (!lex_line_value(&P->lx, &t))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "'Frames:' without a count");
    size_t f = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.s[i] < '0' || t.s[i] > '9')
            return bvh_set_err(P->err, PB_BVH_ERR_VALUE, line, "invalid frame count '%s'",
                               bvh_show(t.s, t.n, b1));
        if (f > ((size_t)1 << 40))
            return bvh_set_err(P->err, PB_BVH_ERR_LIMIT, line, "absurd frame count '%s'",
                               bvh_show(t.s, t.n, b1));
        f = f * 10 + (size_t)(t.s[i] - '0');
    }
    if (!lex_rest_blank(&P->lx))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line,
                           "unexpected text after the frame count");
    *frames = f;

    lex_skip_ws(&P->lx);
    if (P->lx.p >= P->lx.end)
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line,
                           "unexpected end of file: expected 'Frame Time:'");
    line = P->lx.line;
    P->lx.last_line = line;
    const char *s0 = P->lx.p;
    int ok = lex_match_kw(&P->lx, "Frame");
    if (ok) {
        lex_skip_hws(&P->lx);
        ok = lex_match_kw(&P->lx, "Time");
    }
    if (ok) {
        lex_skip_hws(&P->lx);
        ok = lex_match_kw(&P->lx, ":");
    }
    if (!ok) {
        P->lx.p = s0;
        while (P->lx.p < P->lx.end && !is_eol(*P->lx.p))
            P->lx.p++;
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "expected 'Frame Time:', found '%s'",
                           bvh_show(s0, (size_t)(P->lx.p - s0), b1));
    }
    if (!lex_line_value(&P->lx, &t))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "'Frame Time:' without a value");
    double ft;
    if (!bvh_parse_number(t.s, t.n, &ft))
        return bvh_set_err(P->err, PB_BVH_ERR_VALUE, line, "invalid frame time '%s'",
                           bvh_show(t.s, t.n, b1));
    if (!(ft > 0.0))
        return bvh_set_err(P->err, PB_BVH_ERR_VALUE, line,
                           "frame time must be positive, found '%s'", bvh_show(t.s, t.n, b1));
    if (ft < 1.0 / MAX_RATE)
        return bvh_set_err(P->err, PB_BVH_ERR_VALUE, line,
                           "Frame Time '%s' means more than %.0f frames per second",
                           bvh_show(t.s, t.n, b1), MAX_RATE);
    if (ft > FLT_MAX)
        return bvh_set_err(P->err, PB_BVH_ERR_VALUE, line, "Frame Time '%s' is out of float range",
                           bvh_show(t.s, t.n, b1));
    if (!lex_rest_blank(&P->lx))
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, line, "unexpected text after the frame time");
    *frame_time = ft;
    return PB_BVH_OK;
}

typedef struct jmap {
    signed char rot[3]; /* value index (relative to first_channel) per listed rotation */
    signed char pos[3]; /* value index for x, y, z position, -1 if none */
} jmap;

static void warn(parser *P, const char *fmt, ...) PB_PRINTF(2, 3);
static void warn(parser *P, const char *fmt, ...)
{
    if (!P->opts || !P->opts->warn)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    P->opts->warn(P->opts->warn_ctx, msg);
}

typedef struct named {
    const char *name;
    size_t index;
} named;

static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Joint names used more than once: a warning naming both lines, or with
 * PB_BVH_READ_UNIQUE_NAMES an error at the first repeat in the file. */
static pb_bvh_code check_duplicate_names(parser *P, const pb_bvh *b)
{
    const int unique = P->opts && (P->opts->flags & PB_BVH_READ_UNIQUE_NAMES);
    if (b->num_joints < 2 || (!unique && (!P->opts || !P->opts->warn)))
        return PB_BVH_OK;
    named *idx = malloc(b->num_joints * sizeof *idx);
    if (!idx)
        return bvh_set_err(P->err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    for (size_t j = 0; j < b->num_joints; j++)
        idx[j] = (named){b->joints[j].name, j};
    qsort(idx, b->num_joints, sizeof *idx, by_name);
    size_t count = 0, first = 0, second = b->num_joints;
    char b1[48];
    for (size_t k = 1; k < b->num_joints; k++) {
        const pb_bvh_joint *x = &b->joints[idx[k - 1].index], *y = &b->joints[idx[k].index];
        if (strcmp(x->name, y->name) != 0)
            continue;
        if (unique) {
            if (idx[k].index < second) {
                first = idx[k - 1].index;
                second = idx[k].index;
            }
        } else if (++count <= MAX_WARNINGS) {
            warn(P, "line %ld: joint name '%s' is already used at line %ld", y->line,
                 bvh_show(y->name, strlen(y->name), b1), x->line);
        }
    }
    free(idx);
    if (count > MAX_WARNINGS)
        warn(P, "%zu more duplicate joint names", count - MAX_WARNINGS);
    if (unique && second < b->num_joints) {
        const pb_bvh_joint *x = &b->joints[first], *y = &b->joints[second];
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, y->line,
                           "joint name '%s' is already used at line %ld (names must be unique)",
                           bvh_show(y->name, strlen(y->name), b1), x->line);
    }
    return PB_BVH_OK;
}

/* The first line break ('\n' or '\r') at or after p, or end: memchr in
 * windows, so that a text without one kind is not searched to its end for
 * each line. */
static const char *next_eol(const char *p, const char *end)
{
    while (p < end) {
        size_t w = (size_t)(end - p) < 4096 ? (size_t)(end - p) : 4096;
        const char *nl = memchr(p, '\n', w);
        const char *cr = memchr(p, '\r', (size_t)((nl ? nl : p + w) - p));
        if (cr)
            return cr;
        if (nl)
            return nl;
        p += w;
    }
    return end;
}

/* Data lines that hold anything but whitespace from p to end: an upper bound
 * on the frames, counted before anything is allocated. */
static size_t count_data_lines(const char *p, const char *end)
{
    size_t n = 0;
    for (;;) {
        while (p < end && is_space(*p))
            p++;
        if (p >= end)
            return n;
        n++; /* a line with something on it: on to its end */
        p = next_eol(p, end);
    }
}

/* Decimals a number token is written with (digits after the point, less the
 * exponent), 0..17. */
static int decimals_of(const char *s, size_t n)
{
    const char *dot = memchr(s, '.', n);
    long d = 0, e = 0;
    size_t i = 0;
    if (dot)
        for (i = (size_t)(dot - s) + 1; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            d++;
    for (i = 0; i < n && s[i] != 'e' && s[i] != 'E'; i++)
        ;
    if (i < n) {
        int neg = i + 1 < n && s[i + 1] == '-';
        for (i += 1 + (i + 1 < n && (s[i + 1] == '-' || s[i + 1] == '+')); i < n && e < 100; i++)
            e = e * 10 + (s[i] - '0');
        d += neg ? e : -e;
    }
    return d < 0 ? 0 : d > 17 ? 17 : (int)d;
}

/* The data lines: every complete line is a frame, whatever 'Frames:' said
 * (a disagreement is a warning, or an error with PB_BVH_READ_STRICT); a line
 * with the wrong number of values is an error naming it. */
static pb_bvh_code parse_frames(parser *P, pb_bvh *b, size_t header_frames, long frames_line)
{
    char b1[48];
    const size_t J = b->num_joints, C = b->num_channels;
    const size_t remaining = (size_t)(P->lx.end - P->lx.p);
    const unsigned flags = P->opts ? P->opts->flags : 0u;
    const int keep = !(flags & PB_BVH_READ_HEADER_ONLY);

    if (C == 0 && header_frames > 0)
        return bvh_set_err(P->err, PB_BVH_ERR_MOTION, frames_line,
                           "Frames: %zu but the skeleton has no channels", header_frames);
    size_t cap = count_data_lines(P->lx.p, P->lx.end);
    if (J > 0 && cap > MAX_ELEMS / J)
        return bvh_set_err(P->err, PB_BVH_ERR_LIMIT, frames_line,
                           "%zu data lines x %zu joints exceeds 2^28 elements", cap, J);
    /* Memory per input byte: joints without channels multiply frames without
     * needing bytes. */
    if (cap * J > remaining + ELEMS_SLACK)
        return bvh_set_err(P->err, PB_BVH_ERR_LIMIT, frames_line,
                           "%zu frames x %zu joints is too large for the %zu bytes of data", cap, J,
                           remaining);

    jmap *map = malloc((J ? J : 1) * sizeof *map);
    double *vals = malloc((C ? C : 1) * sizeof *vals);
    unsigned char *is_rot = malloc(C ? C : 1);
    uint8_t *jord = malloc(2 * (J ? J : 1)); /* per joint: Euler order, rotation channels */
    if (!map || !vals || !is_rot || !jord || (keep && bvh_alloc_motion(b, cap, 1))) {
        free(map);
        free(vals);
        free(is_rot);
        free(jord);
        return bvh_set_err(P->err, PB_BVH_ERR_NOMEM, frames_line, "out of memory for %zu frames",
                           cap);
    }
    for (size_t j = 0; j < J; j++) {
        jord[j] = b->joints[j].rot_order;
        jord[J + j] = b->joints[j].num_rot;
    }
    for (size_t j = 0; j < J; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        int nr = 0;
        map[j].pos[0] = map[j].pos[1] = map[j].pos[2] = -1;
        map[j].rot[0] = map[j].rot[1] = map[j].rot[2] = -1;
        for (int c = 0; c < jt->num_channels; c++) {
            int ch = jt->channels[c];
            is_rot[jt->first_channel + (uint32_t)c] = ch >= PB_BVH_XROT;
            if (ch < PB_BVH_XROT)
                map[j].pos[ch] = (signed char)c;
            else
                map[j].rot[nr++] = (signed char)c;
        }
    }

    pb_bvh_code rc = PB_BVH_OK;
    size_t f = 0;
    const char *const end = P->lx.end;
    for (;;) {
        lex_skip_ws(&P->lx);
        if (P->lx.p >= end)
            break;
        long line = P->lx.line;
        size_t k = 0;
        const char *p = P->lx.p;
        signed char *dec = keep ? b->decimals + f * C : NULL;
        for (;;) {
            while (p < end && is_hspace(*p))
                p++;
            if (p >= end || is_eol(*p))
                break;
            const char *s = p;
            if (k < C) {
                /* The number is read where it starts; it must be the whole
                 * token (up to whitespace). */
                double v;
                pb_nt_info info;
                size_t len = bvh_number_token(s, end, &v, &info);
                p = s + len;
                if (len == 0) {
                    while (p < end && !is_space(*p))
                        p++;
                    P->lx.p = p;
                    rc = bvh_set_err(P->err, PB_BVH_ERR_VALUE, line,
                                     "invalid number '%s' (value %zu)",
                                     bvh_show(s, (size_t)(p - s), b1), k + 1);
                    goto done;
                }
                if (is_rot[k] && fabs(v) > MAX_ANGLE_DEG) {
                    P->lx.p = p;
                    rc = bvh_set_err(P->err, PB_BVH_ERR_VALUE, line,
                                     "rotation value %zu is '%s' degrees, beyond +-%g", k + 1,
                                     bvh_show(s, len, b1), MAX_ANGLE_DEG);
                    goto done;
                }
                if (dec) {
                    int d = 0;
                    if (!is_rot[k]) {
                        /* decimals_of(s, len), without scanning the token again */
                        if (info.exp > -100 && info.exp < 100) {
                            long dd = (long)(info.frac_digits > 1000 ? 1000 : info.frac_digits) -
                                      info.exp;
                            d = dd < 0 ? 0 : dd > 17 ? 17 : (int)dd;
                        } else {
                            d = decimals_of(s, len);
                        }
                    }
                    dec[k] = (signed char)d;
                }
                vals[k] = v;
            } else {
                while (p < end && !is_space(*p))
                    p++;
            }
            k++;
        }
        P->lx.p = p;
        if (k != C) {
            lex_skip_ws(&P->lx);
            if (P->lx.p >= P->lx.end && k < C)
                rc = bvh_set_err(P->err, PB_BVH_ERR_MOTION, line,
                                 "the last data line holds %zu of the %zu values of a frame (the "
                                 "file is cut inside a frame)",
                                 k, C);
            else
                rc = bvh_set_err(P->err, PB_BVH_ERR_MOTION, line,
                                 "expected %zu values (the channel count), found %zu", C, k);
            break;
        }
        if (f >= cap && keep) { /* cannot happen: every data line was counted */
            rc = bvh_set_err(P->err, PB_BVH_ERR_LIMIT, line, "more data lines than counted");
            break;
        }
        for (size_t j = 0; keep && j < J; j++) {
            const pb_bvh_joint *jt = &b->joints[j];
            const double *v = vals + jt->first_channel;
            size_t o = f * J + j;
            double *deg = b->euler_deg + 3 * o;
            for (int r = 0; r < 3; r++)
                deg[r] = r < jt->num_rot ? v[map[j].rot[r]] : 0.0;
            float pos[3] = {jt->offset[0], jt->offset[1], jt->offset[2]};
            for (int a = 0; a < 3; a++) {
                if (map[j].pos[a] >= 0) {
                    double pv = v[map[j].pos[a]];
                    if (fabs(pv) > FLT_MAX) {
                        rc = bvh_set_err(
                            P->err, PB_BVH_ERR_VALUE, line,
                            "value %u (%s of '%s') is out of float range",
                            (unsigned)(jt->first_channel + (uint32_t)map[j].pos[a] + 1),
                            bvh_channel_names[a], bvh_show(jt->name, strlen(jt->name), b1));
                        goto done;
                    }
                    pos[a] = (float)pv;
                }
            }
            b->pos_x[o] = pos[0];
            b->pos_y[o] = pos[1];
            b->pos_z[o] = pos[2];
        }
        if (keep) /* the frame's rotations at once: the floats of pb_euler_to_quat_n */
            bvh_euler_to_quat_n(J, jord, jord + J, b->euler_deg + 3 * f * J, b->rot_w + f * J,
                                b->rot_x + f * J, b->rot_y + f * J, b->rot_z + f * J);
        f++;
    }
    if (rc == PB_BVH_OK && f != header_frames) {
        if (flags & PB_BVH_READ_STRICT)
            rc = bvh_set_err(P->err, PB_BVH_ERR_MOTION, frames_line,
                             "'Frames: %zu' but the file holds %zu complete data lines",
                             header_frames, f);
        else
            warn(P, "line %ld: 'Frames: %zu' but the file holds %zu complete data lines; using %zu",
                 frames_line, header_frames, f, f);
    }
done:
    free(map);
    free(vals);
    free(is_rot);
    free(jord);
    if (rc == PB_BVH_OK) {
        b->num_frames = f;
    }
    return rc;
}

/* What the first bytes say an input is when it is not BVH text: a message, or
 * NULL. Looks at most at the first 64 KiB. */
static const char *sniff(const char *data, size_t size)
{
    static const struct {
        const char *magic;
        size_t n;
        const char *what;
    } known[] = {
        {"glTF", 4, "this is a binary glTF (.glb) file, not BVH"},
        {"Kaydara FBX Binary", 18, "this is an FBX file, not BVH"},
        {"\x1f\x8b", 2, "this is a gzip-compressed file, not BVH text (decompress it first)"},
        {"BZh", 3, "this is a bzip2-compressed file, not BVH text (decompress it first)"},
        {"\xfd"
         "7zXZ",
         6, "this is an xz-compressed file, not BVH text (decompress it first)"},
        {"\x28\xb5\x2f\xfd", 4,
         "this is a zstd-compressed file, not BVH text (decompress it first)"},
        {"PK\x03\x04", 4, "this is a zip archive, not BVH"},
        {"\x89PNG", 4, "this is a PNG image, not BVH"},
        {"%PDF", 4, "this is a PDF file, not BVH"},
        {"\x7f"
         "ELF",
         4, "this is an executable (ELF), not BVH"},
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (size >= known[k].n && memcmp(data, known[k].magic, known[k].n) == 0)
            return known[k].what;
    size_t n = size < 65536 ? size : 65536;
    size_t i = 0;
    if (n >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        i = 3;
    while (i < n && is_space(data[i]))
        i++;
    if (i < n && data[i] == '{') {
        for (size_t k = i; k + 7 <= n; k++)
            if (memcmp(data + k, "\"asset\"", 7) == 0)
                return "this is a glTF (.gltf) file, not BVH";
        return "this is JSON, not BVH";
    }
    if (i + 7 <= n && memcmp(data + i, ";FBX", 4) == 0)
        return "this is an FBX file, not BVH";
    /* A text that starts like BVH gets line-numbered errors for what follows. */
    if ((n - i < 9 || !bvh_eq_ci(data + i, 9, "HIERARCHY")) && memchr(data, '\0', n))
        return "binary data (NUL bytes), not BVH text";
    return NULL;
}

static size_t max_bytes_of(const pb_bvh_read_opts *o)
{
    return o && o->max_bytes > 0 && o->max_bytes < PB_BVH_MAX_FILE_BYTES ? o->max_bytes
                                                                         : PB_BVH_MAX_FILE_BYTES;
}

pb_bvh_code pb_bvh_read_memory_with(const char *data, size_t size, const pb_bvh_read_opts *opts,
                                    pb_bvh *out, pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!out)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "output is NULL");
    memset(out, 0, sizeof *out);
    if (!data && size > 0)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "data is NULL");
    if (size > max_bytes_of(opts))
        return bvh_set_err(err, PB_BVH_ERR_LIMIT, 0, "input larger than %zu bytes",
                           max_bytes_of(opts));
    const char *what = data ? sniff(data, size) : NULL;
    if (what)
        return bvh_set_err(err, PB_BVH_ERR_SYNTAX, 0, "%s", what);
    parser P;
    memset(&P, 0, sizeof P);
    P.lx.p = data ? data : "";
    P.lx.end = P.lx.p + size;
    P.lx.line = 1;
    P.lx.last_line = 1;
    P.err = err;
    P.opts = opts;
    if (size >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        P.lx.p += 3;

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

    rc = check_duplicate_names(&P, out);
    if (rc) {
        pb_bvh_free(out);
        return rc;
    }
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

pb_bvh_code pb_bvh_read_memory(const char *data, size_t size, pb_bvh *out, pb_bvh_error *err)
{
    return pb_bvh_read_memory_with(data, size, NULL, out, err);
}

/* Reads f to its end into a buffer (at most limit bytes; the first chunk is
 * checked by sniff before more is read, so /dev/zero or a binary file stops
 * at once). size_hint: the file's size when known, else 0. */
static pb_bvh_code slurp(FILE *f, const char *name, size_t limit, size_t size_hint, char **buf_out,
                         size_t *len_out, pb_bvh_error *err)
{
    size_t cap = size_hint ? size_hint + 1 : (size_t)1 << 16;
    char *buf = malloc(cap);
    size_t len = 0;
    int sniffed = 0;
    if (!buf)
        return bvh_path_err(err, PB_BVH_ERR_NOMEM, name, "out of memory");
    for (;;) {
        if (len == cap) {
            if (len > limit) {
                free(buf);
                return bvh_path_err(err, PB_BVH_ERR_LIMIT, name, "larger than %zu bytes", limit);
            }
            size_t nc = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            if (nc <= cap)
                nc = cap + 1;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                return bvh_path_err(err, PB_BVH_ERR_NOMEM, name, "out of memory");
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (!sniffed && (len >= 65536 || got == 0)) {
            sniffed = 1;
            const char *what = sniff(buf, len);
            if (what) {
                free(buf);
                return bvh_set_err(err, PB_BVH_ERR_SYNTAX, 0, "%s", what);
            }
        }
        if (len > limit) {
            free(buf);
            return bvh_path_err(err, PB_BVH_ERR_LIMIT, name, "larger than %zu bytes", limit);
        }
        if (got == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                return bvh_path_err(err, PB_BVH_ERR_IO, name, "read error: %s",
                                    strerror(e ? e : EIO));
            }
            break;
        }
    }
    *buf_out = buf;
    *len_out = len;
    return PB_BVH_OK;
}

pb_bvh_code pb_bvh_read_stream(FILE *f, const char *name, const pb_bvh_read_opts *opts, pb_bvh *out,
                               pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (out)
        memset(out, 0, sizeof *out);
    if (!f || !out)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "stream or output is NULL");
    if (!name)
        name = "(stream)";
    size_t limit = max_bytes_of(opts), hint = 0;
    struct stat st;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return bvh_path_err(err, PB_BVH_ERR_IO, name, "%s", strerror(EISDIR));
        if (S_ISREG(st.st_mode)) {
            if ((uintmax_t)st.st_size > limit)
                return bvh_path_err(err, PB_BVH_ERR_LIMIT, name, "larger than %zu bytes", limit);
            hint = (size_t)st.st_size;
        }
    }
    char *buf = NULL;
    size_t len = 0;
    pb_bvh_code rc = slurp(f, name, limit, hint, &buf, &len, err);
    if (rc)
        return rc;
    rc = pb_bvh_read_memory_with(buf, len, opts, out, err);
    free(buf);
    return rc;
}

pb_bvh_code pb_bvh_read_file_with(const char *path, const pb_bvh_read_opts *opts, pb_bvh *out,
                                  pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "path or output is NULL");
    FILE *f = fopen(path, "rb");
    if (!f)
        return bvh_path_err(err, PB_BVH_ERR_IO, path, "%s", strerror(errno));
    pb_bvh_code rc = pb_bvh_read_stream(f, path, opts, out, err);
    fclose(f);
    return rc;
}

pb_bvh_code pb_bvh_read_file(const char *path, pb_bvh *out, pb_bvh_error *err)
{
    return pb_bvh_read_file_with(path, NULL, out, err);
}
