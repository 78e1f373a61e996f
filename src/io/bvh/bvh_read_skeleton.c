/* BVH reader, the HIERARCHY section: joints, their offsets and channels, End
 * Sites, nesting without recursion, and the joint names' repeats. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_read_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
            bvh_read_warn(P, "line %ld: joint name '%s' is already used at line %ld", y->line,
                          bvh_show(y->name, strlen(y->name), b1), x->line);
        }
    }
    free(idx);
    if (count > MAX_WARNINGS)
        bvh_read_warn(P, "%zu more duplicate joint names", count - MAX_WARNINGS);
    if (unique && second < b->num_joints) {
        const pb_bvh_joint *x = &b->joints[first], *y = &b->joints[second];
        return bvh_set_err(P->err, PB_BVH_ERR_SYNTAX, y->line,
                           "joint name '%s' is already used at line %ld (names must be unique)",
                           bvh_show(y->name, strlen(y->name), b1), x->line);
    }
    return PB_BVH_OK;
}

pb_bvh_code bvh_read_skeleton(parser *P, pb_bvh *out)
{
    pb_bvh_code rc = parse_hierarchy(P);
    if (rc) {
        parser_free(P);
        return rc;
    }
    /* Hand the skeleton over. */
    out->num_joints = P->nj;
    out->joints = P->joints;
    out->num_end_sites = P->ne;
    out->end_sites = P->ends;
    out->num_channels = P->nchan;
    out->name_pool_ = P->pool;
    for (size_t j = 0; j < P->nj; j++)
        out->joints[j].name = P->pool + P->name_off[j];
    free(P->name_off);
    P->joints = NULL;
    P->ends = NULL;
    P->pool = NULL;
    P->name_off = NULL;

    rc = check_duplicate_names(P, out);
    if (rc)
        pb_bvh_free(out);
    return rc;
}
