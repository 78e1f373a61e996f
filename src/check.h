/* Argument checking shared by the public entry points (api.c, clip.c): every
 * argument is validated before anything is written. */
#ifndef PB_CHECK_H
#define PB_CHECK_H

#include <stdint.h>

#include "internal.h"

/* ------------------------------------------------------------ checking */

/* Outputs are registered first; each later input is checked against them as
 * it is added, so averages over any k need no storage per sample. The
 * outputs are kept sorted by start (valid outputs are disjoint, so their
 * ends are sorted too): the only output an array can meet is then the last
 * one starting before the array's end, found by a branch-free binary search
 * over the padded table. The span [lo, hi) covering every output lets most
 * inputs pass with one comparison. Start a check with chk_init. */
#define MAX_OUT 24
#define CHK_SLOTS 32 /* MAX_OUT rounded up to a power of two, for the search */
typedef struct {
    uintptr_t p[CHK_SLOTS]; /* starts, sorted; UINTPTR_MAX past nout */
    size_t len[CHK_SLOTS];
    int nout;
    uintptr_t lo, hi;
    pb_status st;
} chk;

static inline void chk_init(chk *c)
{
    for (int i = 0; i < CHK_SLOTS; i++)
        c->p[i] = UINTPTR_MAX;
    c->nout = 0;
    c->lo = UINTPTR_MAX;
    c->hi = 0;
    c->st = PB_OK;
}

static inline void chk_fail(chk *c, pb_status s)
{
    if (c->st == PB_OK)
        c->st = s;
}
/* whether [u, u + len) meets an output, not counting an exact match (same
 * start and length) when exact_ok */
static inline int meets_output(const chk *c, uintptr_t u, size_t len, int exact_ok)
{
    if (len == 0 || u >= c->hi || u + len <= c->lo)
        return 0;
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
static inline void out_f(chk *c, float *p, size_t n)
{
    if (!p) {
        chk_fail(c, PB_ERR_NULL);
        return;
    }
    uintptr_t u = (uintptr_t)p;
    size_t len = n * sizeof(float);
    if (meets_output(c, u, len, 0))
        chk_fail(c, PB_ERR_ALIAS);
    if (len == 0 || c->nout == MAX_OUT)
        return;
    int i = c->nout++;
    for (; i > 0 && c->p[i - 1] > u; i--) {
        c->p[i] = c->p[i - 1];
        c->len[i] = c->len[i - 1];
    }
    c->p[i] = u;
    c->len[i] = len;
    c->lo = u < c->lo ? u : c->lo;
    c->hi = u + len > c->hi ? u + len : c->hi;
}
/* exact: an input may be exactly an output array (same start) */
static inline void in_f(chk *c, const float *p, size_t n, int exact_ok)
{
    if (!p) {
        chk_fail(c, PB_ERR_NULL);
        return;
    }
    if (meets_output(c, (uintptr_t)p, n * sizeof(float), exact_ok))
        chk_fail(c, PB_ERR_ALIAS);
}

/* an input of any type and byte length (p not NULL), allowed no overlap */
static inline void in_bytes_strict(chk *c, const void *p, size_t bytes)
{
    if (meets_output(c, (uintptr_t)p, bytes, 0))
        chk_fail(c, PB_ERR_ALIAS);
}
/* Inputs at a glance: the span of several input arrays' starts (each
 * pointer read on its own into a register: the caller has usually just
 * stored a pose's or a layer's pointers one by one, and a 16-byte load of
 * two of them, which the compiler otherwise forms to copy them in pairs,
 * stalls until those stores retire). span_clear says whether arrays of len
 * bytes starting in the span are surely fine as inputs: none NULL (the
 * lowest start is not 0), and together below or above every output. The
 * usual case, inputs and outputs in buffers of their own, then costs two
 * min/max per array and one branch per span; any other layout takes the
 * array-by-array check, which alone decides errors. */
#if defined(__GNUC__)
#define PB_IN_REG(x) __asm__("" : "+r"(x))
#define PB_OUT_OF_LINE __attribute__((noinline)) /* a slow path kept apart */
#else
#define PB_IN_REG(x) ((void)0)
#define PB_OUT_OF_LINE
#endif
typedef struct { uintptr_t lo, hi; } span;
static inline span span_none(void)
{
    span s = {UINTPTR_MAX, 0};
    return s;
}
static inline void span_add(span *s, const void *p)
{
    uintptr_t u = (uintptr_t)p;
    PB_IN_REG(u);
    s->lo = u < s->lo ? u : s->lo;
    s->hi = u > s->hi ? u : s->hi;
}
static inline void span_add_q(span *s, pb_cquats q)
{
    span_add(s, q.w);
    span_add(s, q.x);
    span_add(s, q.y);
    span_add(s, q.z);
}
static inline void span_add_v(span *s, pb_cvec3s v)
{
    span_add(s, v.x);
    span_add(s, v.y);
    span_add(s, v.z);
}
static inline int span_clear(const chk *c, span s, size_t len)
{
    return s.lo != 0 && (s.lo >= c->hi || s.hi + len <= c->lo);
}

/* Outputs at a glance: arrays of len bytes given in ascending address
 * order, each starting at or after the end of the one before (tracks cut
 * from one buffer in order, or allocated one after another), are disjoint
 * and not NULL; their hull is [lo, end). Used where a call has so many
 * arrays that registering the outputs one by one (out_f) costs as much as
 * the kernel: if ok and every input starts in a span clear of the hull
 * (run_clear), the call is valid without the table; otherwise the
 * array-by-array check runs and alone decides errors. */
typedef struct { uintptr_t lo, end; size_t len; int ok; } out_run;
static inline out_run out_run_start(size_t len)
{
    out_run r = {UINTPTR_MAX, 1, len, 1}; /* end 1: a NULL output fails */
    return r;
}
static inline void out_run_add(out_run *r, const void *p)
{
    uintptr_t u = (uintptr_t)p;
    PB_IN_REG(u);
    r->ok &= u >= r->end;
    r->lo = u < r->lo ? u : r->lo;
    r->end = u + r->len;
}
static inline void out_run_q(out_run *r, pb_quats q)
{
    out_run_add(r, q.w);
    out_run_add(r, q.x);
    out_run_add(r, q.y);
    out_run_add(r, q.z);
}
static inline void out_run_v(out_run *r, pb_vec3s v)
{
    out_run_add(r, v.x);
    out_run_add(r, v.y);
    out_run_add(r, v.z);
}
/* inputs of r.len bytes starting in s, none NULL, clear of r's hull */
static inline int run_clear(out_run r, span s)
{
    return r.ok && s.lo != 0 && (s.lo >= r.end || s.hi + r.len <= r.lo);
}
/* one input of any length, not NULL, clear of r's hull */
static inline int run_clear_bytes(out_run r, const void *p, size_t bytes)
{
    uintptr_t u = (uintptr_t)p;
    return r.ok && u != 0 && (u >= r.end || u + bytes <= r.lo);
}

static inline void out_q(chk *c, pb_quats q, size_t n)
{
    out_f(c, q.w, n);
    out_f(c, q.x, n);
    out_f(c, q.y, n);
    out_f(c, q.z, n);
}
static inline void out_v(chk *c, pb_vec3s v, size_t n)
{
    out_f(c, v.x, n);
    out_f(c, v.y, n);
    out_f(c, v.z, n);
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
/* exact: as in in_f; the _strict forms allow no overlap with an output at all.
 * A batch's arrays are first taken at a glance (span_clear), then one by
 * one. */
static inline void in_q_exact(chk *c, pb_cquats q, size_t n, int exact)
{
    span s = span_none();
    span_add_q(&s, q);
    if (span_clear(c, s, n * sizeof(float)))
        return;
    in_f(c, q.w, n, exact);
    in_f(c, q.x, n, exact);
    in_f(c, q.y, n, exact);
    in_f(c, q.z, n, exact);
}
static inline void in_v_exact(chk *c, pb_cvec3s v, size_t n, int exact)
{
    span s = span_none();
    span_add_v(&s, v);
    if (span_clear(c, s, n * sizeof(float)))
        return;
    in_f(c, v.x, n, exact);
    in_f(c, v.y, n, exact);
    in_f(c, v.z, n, exact);
}
static inline void in_q(chk *c, pb_cquats q, size_t n) { in_q_exact(c, q, n, 1); }
static inline void in_q_strict(chk *c, pb_cquats q, size_t n) { in_q_exact(c, q, n, 0); }
static inline void in_v(chk *c, pb_cvec3s v, size_t n) { in_v_exact(c, v, n, 1); }
static inline void in_v_strict(chk *c, pb_cvec3s v, size_t n) { in_v_exact(c, v, n, 0); }
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
