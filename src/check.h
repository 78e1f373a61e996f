/* Argument checking shared by the public entry points (api.c, clip.c): every
 * argument is validated before anything is written. */
#ifndef PB_CHECK_H
#define PB_CHECK_H

#include <stdint.h>

#include "internal.h"

/* ------------------------------------------------------------ checking */

/* Outputs are registered first; each later input is checked against them as
 * it is added, so averages over any k need no storage per sample.
 *
 * Arrays come in groups (the 4 of a pb_quats, the 3 of a pb_vec3s, or one),
 * all of one length. The fast path works on groups: an output group whose
 * arrays are pairwise disjoint and whose span [min start, max end) meets no
 * earlier output group's span, and an input group whose span meets no
 * output group's span (or is exactly an output group, where an input may be
 * exactly an output), are fine with a few comparisons. Anything else (NULL,
 * overlapping spans, more outputs than the table holds) goes to the precise
 * check, array by array in registration order, which reports the same first
 * error as checking every array precisely would: the fast path only ever
 * concludes "no error". Per call this costs a few ns where the precise check
 * of every array cost about 35 ns for 7 outputs and 14 inputs.
 *
 * The precise check keeps the outputs sorted by start (valid outputs are
 * disjoint, so their ends are sorted too): the only output an array can
 * meet is then the last one starting before the array's end, found by a
 * branch-free binary search over the padded table. It is built from the
 * recorded outputs the first time it is needed. Start a check with
 * chk_init. */
#define MAX_OUT 24
#define CHK_SLOTS 32 /* MAX_OUT rounded up to a power of two, for the search */
typedef struct {
    /* every registered output array, in registration order */
    uintptr_t op[MAX_OUT];
    size_t ol[MAX_OUT];
    int nout;
    /* output groups: span, first array (index into op) and array count */
    uintptr_t glo[MAX_OUT], ghi[MAX_OUT];
    int gfirst[MAX_OUT], gcnt[MAX_OUT];
    int ngroups;
    uintptr_t lo, hi; /* span of every output group */
    int sorted;       /* the precise table below is built */
    int force;        /* an output was recorded outside a group: inputs go
                       * to the precise check */
    uintptr_t p[CHK_SLOTS]; /* starts, sorted; UINTPTR_MAX past nout */
    size_t len[CHK_SLOTS];
    pb_status st;
} chk;

/* Only the recorded entries of a chk are ever read (the counts say which),
 * which GCC cannot always see through inlining. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

static inline void chk_init(chk *c)
{
    c->nout = 0;
    c->ngroups = 0;
    c->lo = UINTPTR_MAX;
    c->hi = 0;
    c->sorted = 0;
    c->force = 0;
    c->st = PB_OK;
}

static inline void chk_fail(chk *c, pb_status s)
{
    if (c->st == PB_OK)
        c->st = s;
}

/* ------------------------------------------------------- precise check */

static inline void chk_insert_sorted(chk *c, int n, uintptr_t u, size_t len)
{
    int i = n;
    for (; i > 0 && c->p[i - 1] > u; i--) {
        c->p[i] = c->p[i - 1];
        c->len[i] = c->len[i - 1];
    }
    c->p[i] = u;
    c->len[i] = len;
}
static inline void chk_build_sorted(chk *c)
{
    if (c->sorted)
        return;
    for (int i = 0; i < CHK_SLOTS; i++)
        c->p[i] = UINTPTR_MAX;
    for (int i = 0; i < c->nout; i++)
        chk_insert_sorted(c, i, c->op[i], c->ol[i]);
    c->sorted = 1;
}
/* whether [u, u + len) meets an output, not counting an exact match (same
 * start and length) when exact_ok */
static inline int meets_output(chk *c, uintptr_t u, size_t len, int exact_ok)
{
    if (len == 0 || c->nout == 0)
        return 0;
    chk_build_sorted(c);
    uintptr_t end = u + len;
    size_t i = 0; /* outputs starting before end */
    for (size_t h = CHK_SLOTS / 2; h; h >>= 1)
        i += c->p[i + h - 1] < end ? h : 0;
    if (i == 0)
        return 0;
    uintptr_t op = c->p[i - 1];
    size_t ol = c->len[i - 1];
    if (op + ol <= u)
        return 0;
    return !(exact_ok && op == u && ol == len);
}
/* one output array, precisely: checked against the outputs so far, then
 * recorded (up to MAX_OUT) */
static void out_precise(chk *c, const void *ptr, size_t len)
{
    if (!ptr) {
        chk_fail(c, PB_ERR_NULL);
        return;
    }
    uintptr_t u = (uintptr_t)ptr;
    if (meets_output(c, u, len, 0))
        chk_fail(c, PB_ERR_ALIAS);
    if (len == 0 || c->nout == MAX_OUT)
        return;
    chk_build_sorted(c);
    chk_insert_sorted(c, c->nout, u, len);
    c->op[c->nout] = u;
    c->ol[c->nout] = len;
    c->nout++;
}
static void in_precise(chk *c, const void *ptr, size_t len, int exact_ok)
{
    if (!ptr) {
        chk_fail(c, PB_ERR_NULL);
        return;
    }
    if (meets_output(c, (uintptr_t)ptr, len, exact_ok))
        chk_fail(c, PB_ERR_ALIAS);
}

/* ---------------------------------------------------------- fast path */

/* |a - b| >= len, in modular arithmetic (len >= 1) */
static inline int apart(uintptr_t a, uintptr_t b, size_t len)
{
    return a - b + (len - 1) >= 2 * (uintptr_t)len - 1;
}
/* A group: cnt (1..4) arrays of len bytes (grp_of). */
typedef struct { uintptr_t a0, a1, a2, a3; int cnt; size_t len; } grp;

static inline uintptr_t grp_at(const grp *g, int i)
{
    return i == 0 ? g->a0 : i == 1 ? g->a1 : i == 2 ? g->a2 : g->a3;
}
static inline uintptr_t umin(uintptr_t a, uintptr_t b) { return a < b ? a : b; }
static inline uintptr_t umax(uintptr_t a, uintptr_t b) { return a > b ? a : b; }
/* [*lo, *hi): the group's span; *lo is 0 when one of its arrays is NULL */
static inline void grp_span(const grp *g, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t l = g->a0, h = g->a0;
    if (g->cnt > 1)
        l = umin(l, g->a1), h = umax(h, g->a1);
    if (g->cnt > 2)
        l = umin(l, g->a2), h = umax(h, g->a2);
    if (g->cnt > 3)
        l = umin(l, g->a3), h = umax(h, g->a3);
    *lo = l;
    *hi = h + g->len;
}
/* whether the group's arrays (len >= 1) are pairwise disjoint: at once when
 * they are equally spaced at least len apart (one block, or consecutive
 * allocations), else pair by pair */
static inline int grp_disjoint(const grp *g)
{
    if (g->cnt == 1)
        return 1;
    uintptr_t d = g->a1 - g->a0;
    int even = (g->cnt < 3 || g->a2 - g->a1 == d) && (g->cnt < 4 || g->a3 - g->a2 == d);
    if (even)
        return apart(g->a1, g->a0, g->len);
    int ok = 1;
    for (int i = 1; i < g->cnt; i++)
        for (int j = 0; j < i; j++)
            ok &= apart(grp_at(g, i), grp_at(g, j), g->len);
    return ok;
}
static void out_group_precise(chk *c, const grp *g)
{
    for (int i = 0; i < g->cnt; i++)
        out_precise(c, (const void *)grp_at(g, i), g->len);
}
static void in_group_precise(chk *c, const grp *g, int exact)
{
    for (int i = 0; i < g->cnt; i++)
        in_precise(c, (const void *)grp_at(g, i), g->len, exact);
}
static inline void out_group(chk *c, grp g)
{
    uintptr_t gl, gh;
    grp_span(&g, &gl, &gh);
    if (gl == 0 || g.len == 0 || c->nout + g.cnt > MAX_OUT) {
        int before = c->nout;
        out_group_precise(c, &g);
        c->force |= c->nout != before;
        return;
    }
    int ok = grp_disjoint(&g);
    if (ok && gl < c->hi && gh > c->lo)
        for (int i = 0; i < c->ngroups; i++)
            ok &= gh <= c->glo[i] || gl >= c->ghi[i];
    int first = c->nout;
    if (!ok) {
        out_group_precise(c, &g);
    } else {
        if (c->sorted)
            for (int i = 0; i < g.cnt; i++)
                chk_insert_sorted(c, first + i, grp_at(&g, i), g.len);
        c->op[first] = g.a0;
        c->ol[first] = g.len;
        if (g.cnt > 1)
            c->op[first + 1] = g.a1, c->ol[first + 1] = g.len;
        if (g.cnt > 2)
            c->op[first + 2] = g.a2, c->ol[first + 2] = g.len;
        if (g.cnt > 3)
            c->op[first + 3] = g.a3, c->ol[first + 3] = g.len;
        c->nout = first + g.cnt;
    }
    if (c->nout == first)
        return;
    int i = c->ngroups++;
    c->glo[i] = gl;
    c->ghi[i] = gh;
    c->gfirst[i] = first;
    c->gcnt[i] = c->nout - first;
    c->lo = umin(gl, c->lo);
    c->hi = umax(gh, c->hi);
}
/* exact: an input may be exactly an output array (same start and length) */
static inline void in_group(chk *c, grp g, int exact)
{
    uintptr_t gl, gh;
    grp_span(&g, &gl, &gh);
    if (gl != 0 && !c->force) {
        if (g.len == 0 || gh <= c->lo || gl >= c->hi)
            return;
        int ok = 1;
        for (int i = 0; i < c->ngroups && ok; i++) {
            if (gh <= c->glo[i] || gl >= c->ghi[i])
                continue;
            /* the same arrays as output group i (only then may the spans meet) */
            int f = c->gfirst[i];
            ok = exact && c->gcnt[i] == g.cnt && c->ol[f] == g.len;
            for (int j = 0; ok && j < g.cnt; j++)
                ok = c->op[f + j] == grp_at(&g, j);
        }
        if (ok)
            return;
    }
    in_group_precise(c, &g, exact);
}

/* ----------------------------------------------------------- the API */

/* Each pointer goes through a register on its own: the caller has usually
 * just stored them one by one (a pose struct built for the call), and a
 * 16-byte load of two of them, which the compiler otherwise forms to copy
 * them in pairs, stalls until those stores retire (store forwarding fails):
 * 16 ns of pb_pose_blend_layers' checks went there. */
#if defined(__GNUC__)
#define PB_IN_REG(x) __asm__("" : "+r"(x))
#else
#define PB_IN_REG(x) ((void)0)
#endif
static inline grp grp_of(const void *p0, const void *p1, const void *p2, const void *p3, int cnt,
                         size_t len)
{
    uintptr_t a0 = (uintptr_t)p0, a1 = (uintptr_t)p1, a2 = (uintptr_t)p2, a3 = (uintptr_t)p3;
    PB_IN_REG(a0);
    PB_IN_REG(a1);
    PB_IN_REG(a2);
    PB_IN_REG(a3);
    grp g = {a0, a1, a2, a3, cnt, len};
    return g;
}
static inline void out_f(chk *c, float *p, size_t n)
{
    out_group(c, grp_of(p, 0, 0, 0, 1, n * sizeof(float)));
}
/* exact: an input may be exactly an output array (same start) */
static inline void in_f(chk *c, const float *p, size_t n, int exact_ok)
{
    in_group(c, grp_of(p, 0, 0, 0, 1, n * sizeof(float)), exact_ok);
}
/* an input of any type and byte length (p not NULL), allowed no overlap */
static inline void in_bytes_strict(chk *c, const void *p, size_t bytes)
{
    in_group(c, grp_of(p, 0, 0, 0, 1, bytes), 0);
}

static inline void out_q(chk *c, pb_quats q, size_t n)
{
    out_group(c, grp_of(q.w, q.x, q.y, q.z, 4, n * sizeof(float)));
}
static inline void out_v(chk *c, pb_vec3s v, size_t n)
{
    out_group(c, grp_of(v.x, v.y, v.z, 0, 3, n * sizeof(float)));
}
/* optional outputs: absent when every pointer is NULL */
static inline void opt_out_v(chk *c, pb_vec3s v, size_t n)
{
    if (v.x || v.y || v.z)
        out_v(c, v, n);
}
static inline void opt_out_q(chk *c, pb_quats q, size_t n)
{
    if (q.w || q.x || q.y || q.z)
        out_q(c, q, n);
}
/* exact: as in in_f; the _strict forms allow no overlap with an output at all */
static inline void in_q_exact(chk *c, pb_cquats q, size_t n, int exact)
{
    in_group(c, grp_of(q.w, q.x, q.y, q.z, 4, n * sizeof(float)), exact);
}
static inline void in_v_exact(chk *c, pb_cvec3s v, size_t n, int exact)
{
    in_group(c, grp_of(v.x, v.y, v.z, 0, 3, n * sizeof(float)), exact);
}
static inline void in_q(chk *c, pb_cquats q, size_t n) { in_q_exact(c, q, n, 1); }
static inline void in_q_strict(chk *c, pb_cquats q, size_t n) { in_q_exact(c, q, n, 0); }
static inline void in_v(chk *c, pb_cvec3s v, size_t n) { in_v_exact(c, v, n, 1); }
static inline void in_v_strict(chk *c, pb_cvec3s v, size_t n) { in_v_exact(c, v, n, 0); }

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static inline pb_status flags_ok(unsigned flags, unsigned allowed)
{
    return (flags & ~allowed) ? PB_ERR_ARG : PB_OK;
}
static inline int absent_v(pb_vec3s v) { return !v.x && !v.y && !v.z; }
static inline int absent_cv(pb_cvec3s v) { return !v.x && !v.y && !v.z; }
static inline int absent_q(pb_quats q) { return !q.w && !q.x && !q.y && !q.z; }

/* Leading checks shared by every element-wise entry point: returns PB_OK to
 * go on, or the status to return (with *done set for the n == 0 success). */
static inline pb_status prologue(size_t n, int *done)
{
    *done = 0;
    if (n > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    if (n == 0)
        *done = 1;
    return PB_OK;
}
#define PROLOGUE(n)                                                            \
    do {                                                                       \
        int done_;                                                             \
        pb_status st_ = prologue((n), &done_);                                 \
        if (st_ != PB_OK || done_)                                             \
            return st_;                                                        \
    } while (0)
#define K (pb_active_kernels())

#endif
