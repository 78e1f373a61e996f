/* Argument checking, the one room for it: the two passes every entry point
 * runs (below), the element-wise entry points' argument lists beside them
 * (api.c, PB_CHECKED), and the pose blends' checks (check_blend.c, declared
 * at the end). Every argument is validated before anything is written. */
#ifndef PB_CHECK_H
#define PB_CHECK_H

#include <stdint.h>

#include "internal.h"

/* A pointer read on its own into a register: the caller has usually just
 * stored a pose's or a layer's pointers one by one, and a 16-byte load of
 * two of them, which the compiler otherwise forms to copy them in pairs,
 * stalls until those stores retire. */
#if defined(__GNUC__)
#define PB_IN_REG(x) __asm__("" : "+r"(x))
#define PB_OUT_OF_LINE __attribute__((noinline)) /* a slow path kept apart */
#define PB_IN_LINE inline __attribute__((always_inline))
#else
#define PB_IN_REG(x) ((void)0)
#define PB_OUT_OF_LINE
#define PB_IN_LINE inline
#endif

/* ------------------------------------------------------------ checking */

/* Two passes over one list of the arrays (outputs first, then the inputs,
 * as the function's list_ helper gives them):
 * - CHK_GLANCE (chk_glance, then chk_clear): outputs given in ascending
 *   address order, each starting at or after the end of the one before
 *   (tracks cut from one buffer in order, or allocated one after another),
 *   are disjoint and not NULL; inputs none NULL and each below or above the
 *   outputs' hull are fine. In the usual layouts that is the whole check: a
 *   few operations per array and one branch, no table.
 * - CHK_EACH (chk_init), when the glance fails or for checks without one:
 *   outputs are registered first; each later input is checked against them
 *   as it is added, so averages over any k need no storage per sample. The
 *   outputs are kept sorted by start (valid outputs are disjoint, so their
 *   ends are sorted too): the only output an array can meet is then the
 *   last one starting before the array's end, found by a branch-free binary
 *   search over the padded table. The span [lo, hi) covering every output
 *   lets most inputs pass with one comparison. This pass alone decides
 *   errors. PB_CHECKED builds both from a list_ helper. */
#define MAX_OUT 24
#define CHK_SLOTS 32 /* MAX_OUT rounded up to a power of two, for the search */
#define CHK_GLANCE 1
#define CHK_EACH 2
typedef struct {
    int pass;
    pb_status st;
    /* CHK_GLANCE: the outputs' lowest start, the last one's end, whether
     * each started at or after the end of the one before; the inputs'
     * lowest start, whether one met the outputs' hull */
    uintptr_t g_lo, g_end, g_in_lo;
    int g_ok, g_meet;
    struct chk_tab *t; /* CHK_EACH: the outputs' table (NULL at a glance) */
} chk;
typedef struct chk_tab {
    uintptr_t p[CHK_SLOTS]; /* starts, sorted; UINTPTR_MAX past nout */
    size_t len[CHK_SLOTS];
    int nout;
    uintptr_t lo, hi;
} chk_tab;

/* start the CHK_EACH pass, its table in t */
static inline void chk_init(chk *c, chk_tab *t)
{
    c->pass = CHK_EACH;
    c->t = t;
    for (int i = 0; i < CHK_SLOTS; i++)
        t->p[i] = UINTPTR_MAX;
    t->nout = 0;
    t->lo = UINTPTR_MAX;
    t->hi = 0;
    c->st = PB_OK;
}
static PB_IN_LINE void chk_glance(chk *c)
{
    c->t = NULL;
    c->pass = CHK_GLANCE;
    c->st = PB_OK;
    c->g_lo = UINTPTR_MAX;
    c->g_end = 1; /* a NULL output fails */
    c->g_in_lo = UINTPTR_MAX;
    c->g_ok = 1;
    c->g_meet = 0;
}
/* after the glance: surely valid (else run CHK_EACH) */
static inline int chk_clear(const chk *c)
{
    return c->st == PB_OK && c->g_ok && c->g_in_lo != 0 && !c->g_meet;
}

static PB_IN_LINE void glance_out(chk *c, const void *p, size_t bytes)
{
    uintptr_t u = (uintptr_t)p;
    PB_IN_REG(u);
    c->g_ok &= u >= c->g_end;
    c->g_lo = u < c->g_lo ? u : c->g_lo;
    c->g_end = u + bytes;
}
/* an input (after every output): it meets the outputs' hull [g_lo, g_end)
 * iff u - (g_lo - bytes + 1) < g_end - g_lo + bytes - 1, unsigned (one
 * compare; inputs below and above the outputs alike pass) */
static PB_IN_LINE void glance_in(chk *c, const void *p, size_t bytes)
{
    uintptr_t u = (uintptr_t)p;
    PB_IN_REG(u);
    c->g_in_lo = u < c->g_in_lo ? u : c->g_in_lo;
    c->g_meet |= u - (c->g_lo - bytes + 1) < c->g_end - c->g_lo + bytes - 1;
}

/* PB_CHECKED(name, (params), (args)): from
 *     static inline void name_list(chk *c, params)
 * which lists the arrays (outputs first), name_check(params)
 * takes them at a glance in line and, unless that clears them, calls
 * name_each(params) out of line (the array-by-array pass); both return the
 * status. Structs go by pointer (the entry point's own arguments): copying
 * them cost more than the glance. PB_CHECKED_EACH builds name_each alone,
 * for a check whose glance is written by hand. */
#define PB_EXPAND(...) __VA_ARGS__
#define PB_CHECKED_EACH(name, params, args)                                                        \
    static PB_OUT_OF_LINE pb_status name##_each params                                             \
    {                                                                                              \
        chk c;                                                                                     \
        chk_tab tab_;                                                                              \
        chk_init(&c, &tab_);                                                                       \
        name##_list(&c, PB_EXPAND args);                                                           \
        return c.st;                                                                               \
    }
#define PB_CHECKED(name, params, args)                                                             \
    PB_CHECKED_EACH(name, params, args)                                                            \
    static PB_IN_LINE pb_status name##_check params                                                \
    {                                                                                              \
        chk c;                                                                                     \
        chk_glance(&c);                                                                            \
        name##_list(&c, PB_EXPAND args);                                                           \
        return chk_clear(&c) ? PB_OK : name##_each args;                                           \
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
    const chk_tab *t = c->t;
    if (len == 0 || u >= t->hi || u + len <= t->lo)
        return 0;
    uintptr_t end = u + len;
    size_t i = 0; /* outputs starting before end */
    for (size_t h = CHK_SLOTS / 2; h; h >>= 1)
        i += t->p[i + h - 1] < end ? h : 0;
    if (i == 0)
        return 0;
    uintptr_t op = t->p[i - 1];
    size_t ol = t->len[i - 1];
    if (op + ol <= u)
        return 0;
    return !(exact_ok && op == u && ol == len);
}
/* an output of any type, len bytes (out_f_each: n floats) */
static inline void out_bytes_each(chk *c, void *p, size_t len)
{
    chk_tab *t = c->t;
    if (!p) {
        chk_fail(c, PB_ERR_NULL);
        return;
    }
    uintptr_t u = (uintptr_t)p;
    if (meets_output(c, u, len, 0))
        chk_fail(c, PB_ERR_ALIAS);
    if (len == 0 || t->nout == MAX_OUT)
        return;
    int i = t->nout++;
    for (; i > 0 && t->p[i - 1] > u; i--) {
        t->p[i] = t->p[i - 1];
        t->len[i] = t->len[i - 1];
    }
    t->p[i] = u;
    t->len[i] = len;
    t->lo = u < t->lo ? u : t->lo;
    t->hi = u + len > t->hi ? u + len : t->hi;
}
static inline void out_f_each(chk *c, float *p, size_t n)
{
    out_bytes_each(c, p, n * sizeof(float));
}
static inline void in_f_each(chk *c, const float *p, size_t n, int exact_ok)
{
    if (!p) {
        chk_fail(c, PB_ERR_NULL);
        return;
    }
    if (meets_output(c, (uintptr_t)p, n * sizeof(float), exact_ok))
        chk_fail(c, PB_ERR_ALIAS);
}

/* each pass in a function of its own, the glance in line */
static PB_IN_LINE void out_f(chk *c, float *p, size_t n)
{
    if (c->pass == CHK_GLANCE)
        glance_out(c, p, n * sizeof(float));
    else
        out_f_each(c, p, n);
}
static PB_IN_LINE void out_bytes(chk *c, void *p, size_t bytes)
{
    if (c->pass == CHK_GLANCE)
        glance_out(c, p, bytes);
    else
        out_bytes_each(c, p, bytes);
}
/* exact: an input may be exactly an output array (same start) */
static PB_IN_LINE void in_f(chk *c, const float *p, size_t n, int exact_ok)
{
    if (c->pass == CHK_GLANCE)
        glance_in(c, p, n * sizeof(float));
    else
        in_f_each(c, p, n, exact_ok);
}
/* an input of any type and byte length (p not NULL), allowed no overlap */
static PB_IN_LINE void in_bytes_strict(chk *c, const void *p, size_t bytes)
{
    if (c->pass == CHK_GLANCE)
        glance_in(c, p, bytes);
    else if (meets_output(c, (uintptr_t)p, bytes, 0))
        chk_fail(c, PB_ERR_ALIAS);
}
/* CHK_EACH: a batch's arrays first together, the span of their starts
 * (span_clear: none NULL, all below or above every registered output), one
 * by one only if that fails (an in-place batch, say). */
typedef struct {
    uintptr_t lo, hi;
} span;
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
static inline int span_clear(const chk *c, span s, size_t len)
{
    return s.lo != 0 && (s.lo >= c->t->hi || s.hi + len <= c->t->lo);
}

/* At a glance a quaternion output stored x, y, z, w (w above z: the order
 * of ozz-animation, Unity, Unreal, glm) is taken in that order, so that it
 * ascends; the other passes keep the registration order w, x, y, z, which
 * decides which error comes first. (Listed w first, such an output fails
 * the glance: a 31-joint nlerp took 1.4x its time in the array-by-array
 * pass.) */
static PB_IN_LINE void out_q(chk *c, pb_quats q, size_t n)
{
    if (c->pass == CHK_GLANCE && (uintptr_t)q.w > (uintptr_t)q.z) {
        out_f(c, q.x, n);
        out_f(c, q.y, n);
        out_f(c, q.z, n);
        out_f(c, q.w, n);
        return;
    }
    out_f(c, q.w, n);
    out_f(c, q.x, n);
    out_f(c, q.y, n);
    out_f(c, q.z, n);
}
static PB_IN_LINE void out_v(chk *c, pb_vec3s v, size_t n)
{
    out_f(c, v.x, n);
    out_f(c, v.y, n);
    out_f(c, v.z, n);
}
/* optional outputs: absent when every pointer is NULL */
static PB_IN_LINE void opt_out_v(chk *c, pb_vec3s v, size_t n)
{
    if (v.x || v.y || v.z)
        out_v(c, v, n);
}
static PB_IN_LINE void opt_out_q(chk *c, pb_quats q, size_t n)
{
    if (q.w || q.x || q.y || q.z)
        out_q(c, q, n);
}
/* a batch's cnt arrays (a quaternion's 4, a vec3's 3); exact: as in in_f.
 * The _strict forms below allow no overlap with an output at all (the
 * glance allows no overlap either way). */
static inline void in_batch_each(chk *c, const float *const *p, int cnt, size_t n, int exact)
{
    span s = span_none();
    for (int i = 0; i < cnt; i++)
        span_add(&s, p[i]);
    if (span_clear(c, s, n * sizeof(float)))
        return;
    for (int i = 0; i < cnt; i++)
        in_f_each(c, p[i], n, exact);
}
static PB_IN_LINE void in_batch(chk *c, const float *const *p, int cnt, size_t n, int exact)
{
    if (c->pass == CHK_EACH) {
        in_batch_each(c, p, cnt, n, exact);
        return;
    }
    for (int i = 0; i < cnt; i++)
        glance_in(c, p[i], n * sizeof(float));
}
static PB_IN_LINE void in_q_exact(chk *c, pb_cquats q, size_t n, int exact)
{
    const float *p[4] = {q.w, q.x, q.y, q.z};
    in_batch(c, p, 4, n, exact);
}
static PB_IN_LINE void in_v_exact(chk *c, pb_cvec3s v, size_t n, int exact)
{
    const float *p[3] = {v.x, v.y, v.z};
    in_batch(c, p, 3, n, exact);
}
static PB_IN_LINE void in_q(chk *c, pb_cquats q, size_t n) { in_q_exact(c, q, n, 1); }
static PB_IN_LINE void in_q_strict(chk *c, pb_cquats q, size_t n) { in_q_exact(c, q, n, 0); }
static PB_IN_LINE void in_v(chk *c, pb_cvec3s v, size_t n) { in_v_exact(c, v, n, 1); }
static PB_IN_LINE void in_v_strict(chk *c, pb_cvec3s v, size_t n) { in_v_exact(c, v, n, 0); }
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
#define PROLOGUE(n)                                                                                \
    do {                                                                                           \
        int done_;                                                                                 \
        pb_status st_ = prologue((n), &done_);                                                     \
        if (st_ != PB_OK || done_)                                                                 \
            return st_;                                                                            \
    } while (0)

/* ------------------------------ the clip- and skeleton-level entry points */

/* The checks of the entry points over whole clips and skeletons
 * (skeleton.c, root_motion.c, clip_mirror.c): a few arrays each, every one
 * compared with every other. */
typedef struct {
    uintptr_t lo, hi;
} chk_range;
static inline chk_range chk_range_of(const void *p, size_t bytes)
{
    chk_range r = {(uintptr_t)p, (uintptr_t)p + bytes};
    return r;
}
static inline int chk_meets(chk_range a, chk_range b) { return a.lo < b.hi && b.lo < a.hi; }
/* PB_ERR_ALIAS when one of the m outputs d[] (NULL: absent), each `bytes`
 * long, meets another output, the table [tab, tab + tab_bytes), or an input
 * s[] (NULL: absent; `bytes` long) other than its own track's when that is
 * exactly the same array (in place: s[o] == d[o]); else PB_OK.
 * The outputs are sorted by start (insertion: m is at most CHK_TRACKS), so
 * that they are apart iff each ends by the next one's start, and a range
 * meets an output iff it meets the last output starting before its end: a
 * few operations per array instead of every pair (a one-pose forward
 * kinematics call of 31 joints spent a third of its time in the pairs). */
#define CHK_TRACKS 16
static inline int chk_meets_sorted(const uintptr_t *o, int n, size_t bytes, chk_range r)
{
    if (r.hi <= o[0] || r.lo >= o[n - 1] + bytes) /* outside the outputs' hull */
        return 0;
    int i = 0; /* outputs starting before r's end */
    while (i < n && o[i] < r.hi)
        i++;
    return i > 0 && o[i - 1] + bytes > r.lo;
}
static inline pb_status chk_tracks_apart(int m, const float *const *d, const float *const *s,
                                         size_t bytes, const void *tab, size_t tab_bytes)
{
    uintptr_t o[CHK_TRACKS];
    int n = 0;
    for (int k = 0; k < m && k < CHK_TRACKS; k++) {
        if (!d[k])
            continue;
        uintptr_t u = (uintptr_t)d[k];
        int i = n++;
        for (; i > 0 && o[i - 1] > u; i--)
            o[i] = o[i - 1];
        o[i] = u;
    }
    if (n == 0 || bytes == 0)
        return PB_OK;
    for (int i = 1; i < n; i++)
        if (o[i - 1] + bytes > o[i])
            return PB_ERR_ALIAS;
    if (tab_bytes && chk_meets_sorted(o, n, bytes, chk_range_of(tab, tab_bytes)))
        return PB_ERR_ALIAS;
    for (int k = 0; k < m && k < CHK_TRACKS; k++)
        if (s[k] && s[k] != d[k] && chk_meets_sorted(o, n, bytes, chk_range_of(s[k], bytes)))
            return PB_ERR_ALIAS;
    return PB_OK;
}
/* whether every parents[j] of J is -1 or an earlier joint */
static inline int chk_parents_ok(const int32_t *parents, size_t J)
{
    for (size_t j = 0; j < J; j++)
        if (parents[j] < -1 || (int64_t)parents[j] >= (int64_t)j)
            return 0;
    return 1;
}

/* ------------------------------------------------- the pose blends' checks */

/* whether a blend method reads the reference's rotations */
static inline int blend_by_ref(pb_blend_method m)
{
    return m == PB_BLEND_LOG_REF || m == PB_BLEND_RAW_REF;
}
/* pb_pose_blend's checks (check_blend.c): PB_OK or the status to return */
pb_status pb_check_pose_blend(size_t n, size_t k, const pb_cquats *rot, const pb_cvec3s *pos,
                              const pb_cvec3s *scale, const float *weights, pb_blend_method method,
                              const pb_cpose *ref, const pb_pose *out);
/* pb_pose_blend_layers' checks, and the kernels for its batch in *K when
 * they pass with joints > 0 */
pb_status pb_check_blend_layers(const pb_blend_desc *d, const pb_pose *out, const pb_kernels **K);

#endif
