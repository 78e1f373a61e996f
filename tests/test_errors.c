/*
 * Contract checks for every batch entry point of posebatch.h, table-driven:
 * - PB_ERR_NULL for each NULL pointer with n > 0 (each component of each
 *   batch; partially NULL optional velocity batches; the samples array and the
 *   weights of the averages);
 * - PB_ERR_SIZE for n (and products of counts) above PB_MAX_COUNT, including
 *   products that wrap around size_t;
 * - PB_ERR_ARG for k / frames / keys == 0 and for each unknown flag bit;
 * - PB_ERR_ALIAS for partial overlaps of an output with any input or with
 *   another output, and for exact aliasing where a function forbids it;
 * - on every error, the whole memory region holding all arrays (inputs,
 *   outputs and the padding between them) is byte-for-byte unchanged;
 * - n == 0 with NULL pointers is PB_OK;
 * - exact aliasing of an output with an input (where allowed) gives the same
 *   bits as the out-of-place call;
 * - NaN / Inf in one element: no crash or hang, NaN only in the affected
 *   elements (for Inf only the "neighbours unaffected" half is checked: e.g.
 *   log of (Inf, v) is legitimately the finite 0), neighbours unaffected.
 * errors/contract is parameterized over the function table (errors_table.c:
 * one test per function), so a crash in one function does not hide the
 * others; every message starts with the function's name. The errors of the
 * clip and blend functions outside the table are in test_clip_errors.c, the
 * status strings and backend names in test_backend.c.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors_table.h"
#include "posebatch.h"
#include "ref.h"

#define N0 37 /* > 2 x 16 lanes, with a tail */
#define M0 3  /* k, frames or keys */
#define NAN_ELEM 5

static int is_out(const slot_t *s) { return s->role != R_IN; }

/* ---- the test context: all arrays of one call in one arena ------------------------- */

#define PAD 16
typedef struct {
    const fn_t *fn;
    size_t n, m;
    float *arena;
    size_t arena_len;
    size_t len[MAXS];
    float *P[MAXS][4];
    float *snap;            /* arena with valid inputs and sentinel outputs */
    float *refout[MAXS][4]; /* outputs of the clean out-of-place call */
} ctx_t;

static const uint32_t SENTINEL = 0x7fa5a5a5u, PADBITS = 0x5a5a5a5au;

static size_t slot_len(int kind, size_t n, size_t m)
{
    return kind == L_N ? n : (kind == L_M ? m : n * m);
}

static void put_bits(float *f, uint32_t b) { memcpy(f, &b, 4); }
static uint32_t get_bits(const float *f)
{
    uint32_t b;
    memcpy(&b, f, 4);
    return b;
}

static void fill_inputs(ctx_t *c, rng_t *r)
{
    const fn_t *fn = c->fn;
    for (int s = 0; s < fn->nslots; s++) {
        const slot_t *sl = &fn->sl[s];
        size_t len = c->len[s];
        for (size_t i = 0; i < len; i++) {
            if (is_out(sl)) {
                for (int k = 0; k < sl->nc; k++)
                    put_bits(&c->P[s][k][i], SENTINEL);
                continue;
            }
            switch (sl->data) {
            case D_QUAT: {
                rq q = rng_quat(r);
                double v[4] = {q.w, q.x, q.y, q.z};
                for (int k = 0; k < sl->nc; k++)
                    c->P[s][k][i] = (float)v[k];
                break;
            }
            case D_VEC:
            case D_DELTA:
                for (int k = 0; k < sl->nc; k++)
                    c->P[s][k][i] = (float)rng_range(r, -1, 1);
                break;
            case D_SCALE:
                for (int k = 0; k < sl->nc; k++)
                    c->P[s][k][i] = (float)rng_range(r, 0.5, 2.0);
                break;
            case D_WEIGHT: c->P[s][0][i] = (float)(rng_range(r, 0.2, 1.0) / (double)len); break;
            }
        }
    }
}

static void ctx_init(ctx_t *c, int idx, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->fn = &FNS[idx];
    c->n = N0;
    c->m = c->fn->mkind == M_NONE ? 0 : M0;
    size_t total = 2 * PAD, maxlen = 0;
    for (int s = 0; s < c->fn->nslots; s++) {
        c->len[s] = slot_len(c->fn->sl[s].len, c->n, M0);
        if (c->len[s] > maxlen)
            maxlen = c->len[s];
        total += (size_t)c->fn->sl[s].nc * (c->len[s] + PAD);
    }
    total += 4 * maxlen + PAD; /* room for shifted pointers at the end */
    c->arena_len = total;
    c->arena = malloc(total * sizeof(float));
    c->snap = malloc(total * sizeof(float));
    cr_assert(c->arena && c->snap);
    for (size_t i = 0; i < total; i++)
        put_bits(&c->arena[i], PADBITS);
    size_t cur = PAD;
    for (int s = 0; s < c->fn->nslots; s++)
        for (int k = 0; k < c->fn->sl[s].nc; k++) {
            c->P[s][k] = c->arena + cur;
            cur += c->len[s] + PAD;
        }
    rng_t r = rng_seed(seed + (uint64_t)idx * 7919u);
    fill_inputs(c, &r);
    memcpy(c->snap, c->arena, total * sizeof(float));
}

static void ctx_reset(ctx_t *c) { memcpy(c->arena, c->snap, c->arena_len * sizeof(float)); }

static void ctx_free(ctx_t *c)
{
    for (int s = 0; s < MAXS; s++)
        for (int k = 0; k < 4; k++)
            free(c->refout[s][k]);
    free(c->arena);
    free(c->snap);
}

static pb_status ctx_call(ctx_t *c, ptrs_t P, size_t n, size_t m, unsigned flags)
{
    return c->fn->call(n, m, P, flags, c->fn->x0);
}

static void copy_ptrs(ptrs_t dst, ptrs_t src) { memcpy(dst, src, sizeof(ptrs_t)); }

/* arena unchanged since the reset? reports the first changed index */
static int arena_untouched(const ctx_t *c, size_t *where)
{
    if (memcmp(c->arena, c->snap, c->arena_len * sizeof(float)) == 0)
        return 1;
    for (size_t i = 0; i < c->arena_len; i++)
        if (get_bits(&c->arena[i]) != get_bits(&c->snap[i])) {
            *where = i;
            return 0;
        }
    return 0;
}

static void expect_error(ctx_t *c, ptrs_t P, size_t n, size_t m, unsigned flags, pb_status want,
                         const char *what)
{
    ctx_reset(c);
    pb_status got = ctx_call(c, P, n, m, flags);
    size_t where = 0;
    int same = arena_untouched(c, &where);
    cr_expect_eq(got, want, "%s: %s (n=%zu, m=%zu, flags=0x%x): status %d (%s), expected %d (%s)",
                 c->fn->name, what, n, m, flags, (int)got, pb_status_str(got), (int)want,
                 pb_status_str(want));
    cr_expect(same || got == PB_OK,
              "%s: %s: returned %d but memory changed (first at arena index %zu)", c->fn->name,
              what, (int)got, where);
}

/* runs the clean out-of-place call and keeps its outputs */
static void ctx_reference(ctx_t *c)
{
    ctx_reset(c);
    pb_status st = ctx_call(c, c->P, c->n, c->m, 0);
    cr_assert_eq(st, PB_OK, "%s: valid call returned %d (%s)", c->fn->name, (int)st,
                 pb_status_str(st));
    for (int s = 0; s < c->fn->nslots; s++)
        if (is_out(&c->fn->sl[s]))
            for (int k = 0; k < c->fn->sl[s].nc; k++) {
                c->refout[s][k] = malloc(c->len[s] * sizeof(float));
                memcpy(c->refout[s][k], c->P[s][k], c->len[s] * sizeof(float));
            }
}

static const char *slot_name(const ctx_t *c, int s) { return c->fn->sl[s].name; }
static const char COMP[2][4] = {{'w', 'x', 'y', 'z'}, {'x', 'y', 'z', '?'}};
static char comp_name(const ctx_t *c, int s, int k)
{
    int nc = c->fn->sl[s].nc;
    return nc == 4 ? COMP[0][k] : (nc == 3 ? COMP[1][k] : '-');
}

/* ---- parameters ------------------------------------------------------------------- */

static int g_idx[64];

/* ---- valid call: status, every output element written, nothing else ------------ */

static void check_valid_call_writes_only_outputs(const int *idx)
{
    ctx_t c;
    ctx_init(&c, *idx, 1);
    ctx_reset(&c);
    pb_status st = ctx_call(&c, c.P, c.n, c.m, 0);
    cr_assert_eq(st, PB_OK, "%s: valid call returned %d (%s)", c.fn->name, (int)st,
                 pb_status_str(st));
    /* inputs and padding unchanged; outputs all written */
    for (size_t i = 0; i < c.arena_len; i++) {
        int in_out = 0;
        for (int s = 0; s < c.fn->nslots; s++)
            if (is_out(&c.fn->sl[s]))
                for (int k = 0; k < c.fn->sl[s].nc; k++)
                    if (&c.arena[i] >= c.P[s][k] && &c.arena[i] < c.P[s][k] + c.len[s])
                        in_out = 1;
        if (!in_out)
            if (get_bits(&c.arena[i]) != get_bits(&c.snap[i]))
                cr_expect(0, "%s: wrote outside its outputs (arena index %zu)", c.fn->name, i);
    }
    for (int s = 0; s < c.fn->nslots; s++)
        if (is_out(&c.fn->sl[s]))
            for (int k = 0; k < c.fn->sl[s].nc; k++)
                for (size_t i = 0; i < c.len[s]; i++)
                    if (get_bits(&c.P[s][k][i]) == SENTINEL)
                        cr_expect(0, "%s: output %s.%c[%zu] not written", c.fn->name,
                                  slot_name(&c, s), comp_name(&c, s, k), i);
    ctx_free(&c);
}

/* ---- NULL ------------------------------------------------------------------------ */

static void check_null_pointers(const int *idx)
{
    ctx_t c;
    ctx_init(&c, *idx, 2);
    ctx_reference(&c);
    for (int s = 0; s < c.fn->nslots; s++) {
        const slot_t *sl = &c.fn->sl[s];
        for (int k = 0; k < sl->nc; k++) {
            ptrs_t P;
            copy_ptrs(P, c.P);
            P[s][k] = NULL;
            char what[96];
            snprintf(what, sizeof what, "%s.%c == NULL", sl->name, comp_name(&c, s, k));
            expect_error(&c, P, c.n, c.m, 0, PB_ERR_NULL, what);
        }
        if (sl->role == R_OPT) {
            /* some but not all NULL: error; all NULL: absent, PB_OK, the other
             * outputs identical */
            for (int keep = 0; keep < sl->nc; keep++) {
                ptrs_t P;
                copy_ptrs(P, c.P);
                for (int k = 0; k < sl->nc; k++)
                    if (k != keep)
                        P[s][k] = NULL;
                char what[96];
                snprintf(what, sizeof what, "optional %s with only .%c non-NULL", sl->name,
                         comp_name(&c, s, keep));
                expect_error(&c, P, c.n, c.m, 0, PB_ERR_NULL, what);
            }
            ptrs_t P;
            copy_ptrs(P, c.P);
            for (int k = 0; k < sl->nc; k++)
                P[s][k] = NULL;
            ctx_reset(&c);
            pb_status st = ctx_call(&c, P, c.n, c.m, 0);
            cr_expect_eq(st, PB_OK, "%s: optional %s all NULL: status %d", c.fn->name, sl->name,
                         (int)st);
            for (int o = 0; o < c.fn->nslots; o++)
                if (is_out(&c.fn->sl[o]) && o != s)
                    for (int k = 0; k < c.fn->sl[o].nc; k++)
                        cr_expect(memcmp(P[o][k], c.refout[o][k], c.len[o] * sizeof(float)) == 0,
                                  "%s: output %s.%c differs when %s is absent", c.fn->name,
                                  c.fn->sl[o].name, comp_name(&c, o, k), sl->name);
            for (int k = 0; k < sl->nc; k++)
                for (size_t i = 0; i < c.len[s]; i++)
                    if (get_bits(&c.P[s][k][i]) != SENTINEL)
                        cr_expect(0, "%s: absent output %s written", c.fn->name, sl->name);
        }
    }
    if (c.fn->mkind == M_SAMPLES) {
        g_samples_null = 1;
        expect_error(&c, c.P, c.n, c.m, 0, PB_ERR_NULL, "samples == NULL");
        g_samples_null = 0;
    }
    ctx_free(&c);
}

/* n == 0 (or joints / tracks == 0) with every pointer NULL is PB_OK; n == 0
 * with valid pointers writes nothing */
static void check_n_zero(const int *idx)
{
    ctx_t c;
    ctx_init(&c, *idx, 3);
    ptrs_t P;
    memset(P, 0, sizeof P);
    if (c.fn->mkind == M_SAMPLES)
        g_samples_null = 1;
    pb_status st = ctx_call(&c, P, 0, c.m, 0);
    g_samples_null = 0;
    cr_expect_eq(st, PB_OK, "%s: n == 0 with NULL pointers: status %d (%s)", c.fn->name, (int)st,
                 pb_status_str(st));
    expect_error(&c, c.P, 0, c.m, 0, PB_OK, "n == 0 with valid pointers");
    size_t where = 0;
    cr_expect(arena_untouched(&c, &where), "%s: n == 0 wrote to arena index %zu", c.fn->name,
              where);
    if (c.fn->mkind == M_UNROLL) {
        memset(P, 0, sizeof P);
        st = ctx_call(&c, P, N0, 0, 0); /* frames == 0 */
        cr_expect_eq(st, PB_OK, "%s: frames == 0, NULL pointers: status %d", c.fn->name, (int)st);
    }
    ctx_free(&c);
}

/* ---- sizes ----------------------------------------------------------------------- */

static void check_sizes(const int *idx)
{
    ctx_t c;
    ctx_init(&c, *idx, 4);
    const size_t big = PB_MAX_COUNT + 1;
    expect_error(&c, c.P, big, c.m, 0, PB_ERR_SIZE, "n = PB_MAX_COUNT + 1");
    expect_error(&c, c.P, SIZE_MAX, c.m, 0, PB_ERR_SIZE, "n = SIZE_MAX");
    expect_error(&c, c.P, SIZE_MAX / 2 + 1, c.m, 0, PB_ERR_SIZE, "n = SIZE_MAX / 2 + 1");
    switch (c.fn->mkind) {
    case M_UNROLL:
    case M_EXTRACT:
    case M_KEYS:
        expect_error(&c, c.P, 1, big, 0, PB_ERR_SIZE, "count m = PB_MAX_COUNT + 1, n = 1");
        expect_error(&c, c.P, (size_t)1 << 15, (size_t)1 << 14, 0, PB_ERR_SIZE,
                     "m * n = 2^29 (each below PB_MAX_COUNT)");
        expect_error(&c, c.P, 2, SIZE_MAX / 2 + 1, 0, PB_ERR_SIZE,
                     "m * n wraps around size_t to 0");
        expect_error(&c, c.P, SIZE_MAX / 3 + 1, 3, 0, PB_ERR_SIZE,
                     "m * n wraps around size_t to a small value");
        break;
    case M_SAMPLES:
        expect_error(&c, c.P, c.n, big, 0, PB_ERR_SIZE, "k = PB_MAX_COUNT + 1");
        expect_error(&c, c.P, c.n, SIZE_MAX, 0, PB_ERR_SIZE, "k = SIZE_MAX");
        break;
    default: break;
    }
    ctx_free(&c);
}

/* ---- PB_ERR_ARG: zero counts, unknown flags --------------------------------------- */

static void check_bad_args(const int *idx)
{
    ctx_t c;
    ctx_init(&c, *idx, 5);
    if (c.fn->mkind == M_SAMPLES)
        expect_error(&c, c.P, c.n, 0, 0, PB_ERR_ARG, "k == 0");
    if (c.fn->mkind == M_EXTRACT)
        expect_error(&c, c.P, c.n, 0, 0, PB_ERR_ARG, "frames == 0");
    if (c.fn->mkind == M_KEYS)
        expect_error(&c, c.P, c.n, 0, 0, PB_ERR_ARG, "keys == 0");
    if (c.fn->has_flags) {
        for (int b = 0; b < 32; b++) {
            unsigned f = 1u << b;
            if (f & c.fn->valid_flags)
                continue;
            char what[64];
            snprintf(what, sizeof what, "unknown flag bit %d", b);
            expect_error(&c, c.P, c.n, c.m, f, PB_ERR_ARG, what);
            expect_error(&c, c.P, c.n, c.m, f | c.fn->valid_flags, PB_ERR_ARG, what);
        }
        /* the documented flags are accepted */
        expect_error(&c, c.P, c.n, c.m, c.fn->valid_flags, PB_OK, "documented flags");
    }
    ctx_free(&c);
}

/* ---- aliasing -------------------------------------------------------------------- */

static void check_partial_overlap_output_input(const int *idx)
{
    ctx_t c;
    ctx_init(&c, *idx, 6);
    for (int o = 0; o < c.fn->nslots; o++) {
        if (!is_out(&c.fn->sl[o]))
            continue;
        for (int ok = 0; ok < c.fn->sl[o].nc; ok++)
            for (int i = 0; i < c.fn->nslots; i++) {
                if (is_out(&c.fn->sl[i]))
                    continue;
                for (int ik = 0; ik < c.fn->sl[i].nc; ik++)
                    for (int shift = -1; shift <= 1; shift += 2) {
                        ptrs_t P;
                        copy_ptrs(P, c.P);
                        P[o][ok] = c.P[i][ik] + shift;
                        char what[128];
                        snprintf(what, sizeof what, "%s.%c = %s.%c %+d", c.fn->sl[o].name,
                                 comp_name(&c, o, ok), c.fn->sl[i].name, comp_name(&c, i, ik),
                                 shift);
                        expect_error(&c, P, c.n, c.m, 0, PB_ERR_ALIAS, what);
                    }
            }
    }
    ctx_free(&c);
}

static void check_overlapping_outputs(const int *idx)
{
    ctx_t c;
    ctx_init(&c, *idx, 7);
    int outs = 0;
    for (int a = 0; a < c.fn->nslots; a++)
        if (is_out(&c.fn->sl[a]))
            outs += c.fn->sl[a].nc;
    if (outs == 1) { /* a single output array: nothing to overlap */
        ctx_free(&c);
        return;
    }
    for (int a = 0; a < c.fn->nslots; a++) {
        if (!is_out(&c.fn->sl[a]))
            continue;
        for (int ak = 0; ak < c.fn->sl[a].nc; ak++)
            for (int b = 0; b < c.fn->nslots; b++) {
                if (!is_out(&c.fn->sl[b]))
                    continue;
                for (int bk = 0; bk < c.fn->sl[b].nc; bk++) {
                    if (a == b && ak == bk)
                        continue;
                    for (int shift = 0; shift <= 1; shift++) {
                        ptrs_t P;
                        copy_ptrs(P, c.P);
                        P[a][ak] = c.P[b][bk] + shift;
                        char what[128];
                        snprintf(what, sizeof what, "output %s.%c = output %s.%c + %d",
                                 c.fn->sl[a].name, comp_name(&c, a, ak), c.fn->sl[b].name,
                                 comp_name(&c, b, bk), shift);
                        expect_error(&c, P, c.n, c.m, 0, PB_ERR_ALIAS, what);
                    }
                }
            }
    }
    ctx_free(&c);
}

/* compare every output with the out-of-place result, bit for bit */
static void expect_same_outputs(ctx_t *c, ptrs_t P, const char *what)
{
    for (int o = 0; o < c->fn->nslots; o++)
        if (is_out(&c->fn->sl[o]))
            for (int k = 0; k < c->fn->sl[o].nc; k++) {
                if (memcmp(P[o][k], c->refout[o][k], c->len[o] * sizeof(float)) == 0)
                    continue;
                size_t i = 0;
                while (get_bits(&P[o][k][i]) == get_bits(&c->refout[o][k][i]))
                    i++;
                cr_expect(0, "%s: %s: output %s.%c[%zu] = %.9g, out of place %.9g", c->fn->name,
                          what, c->fn->sl[o].name, comp_name(c, o, k), i, (double)P[o][k][i],
                          (double)c->refout[o][k][i]);
            }
}

static void check_exact_alias(const int *idx)
{
    ctx_t c;
    ctx_init(&c, *idx, 8);
    ctx_reference(&c);
    int tried = 0;
    for (int o = 0; o < c.fn->nslots; o++) {
        if (!is_out(&c.fn->sl[o]))
            continue;
        for (int i = 0; i < c.fn->nslots; i++) {
            if (is_out(&c.fn->sl[i]) || c.len[i] != c.len[o] || c.fn->sl[i].data == D_WEIGHT)
                continue;
            /* single components, each with each */
            for (int ok = 0; ok < c.fn->sl[o].nc; ok++)
                for (int ik = 0; ik < c.fn->sl[i].nc; ik++) {
                    ptrs_t P;
                    copy_ptrs(P, c.P);
                    P[o][ok] = c.P[i][ik];
                    char what[128];
                    snprintf(what, sizeof what, "output %s.%c == input %s.%c", c.fn->sl[o].name,
                             comp_name(&c, o, ok), c.fn->sl[i].name, comp_name(&c, i, ik));
                    tried++;
                    if (c.fn->no_exact_alias) {
                        expect_error(&c, P, c.n, c.m, 0, PB_ERR_ALIAS, what);
                        continue;
                    }
                    ctx_reset(&c);
                    pb_status st = ctx_call(&c, P, c.n, c.m, 0);
                    cr_expect_eq(st, PB_OK, "%s: %s: status %d (%s)", c.fn->name, what, (int)st,
                                 pb_status_str(st));
                    if (st == PB_OK)
                        expect_same_outputs(&c, P, what);
                }
            /* whole batch in place */
            if (c.fn->sl[o].nc == c.fn->sl[i].nc) {
                ptrs_t P;
                copy_ptrs(P, c.P);
                for (int k = 0; k < c.fn->sl[o].nc; k++)
                    P[o][k] = c.P[i][k];
                char what[128];
                snprintf(what, sizeof what, "output %s == input %s (in place)", c.fn->sl[o].name,
                         c.fn->sl[i].name);
                if (c.fn->no_exact_alias) {
                    expect_error(&c, P, c.n, c.m, 0, PB_ERR_ALIAS, what);
                    continue;
                }
                ctx_reset(&c);
                pb_status st = ctx_call(&c, P, c.n, c.m, 0);
                cr_expect_eq(st, PB_OK, "%s: %s: status %d", c.fn->name, what, (int)st);
                if (st == PB_OK)
                    expect_same_outputs(&c, P, what);
            }
        }
    }
    ctx_free(&c); /* tried == 0: no input has an output's length */
    (void)tried;
}

/* ---- NaN / Inf ------------------------------------------------------------------- */

static int nonfinite(float v) { return !isfinite(v); }

static int close_or_same(float a, float b)
{
    if (get_bits(&a) == get_bits(&b))
        return 1;
    return fabsf(a - b) <= 1e-6f * fmaxf(1.0f, fabsf(b));
}

/* output element e of slot o is affected by a poisoned input element? */
static int affected(const ctx_t *c, int o, size_t e, size_t poisoned_joint)
{
    (void)o;
    if (c->fn->mkind == M_UNROLL)
        return e % c->n == poisoned_joint;
    return e == poisoned_joint;
}

static void check_poison(ctx_t *c, float value, int si, int sk, int all_affected, const char *what)
{
    size_t joint = NAN_ELEM;
    ctx_reset(c);
    if (si >= 0) {
        size_t e = c->fn->sl[si].len == L_MN ? 1 * c->n + joint : joint;
        if (c->fn->sl[si].len == L_M)
            e = 1; /* a weight */
        c->P[si][sk][e] = value;
    }
    float x = all_affected && si < 0 ? value : c->fn->x0;
    pb_status st = c->fn->call(c->n, c->m, c->P, 0, x);
    cr_assert_eq(st, PB_OK, "%s: %s: status %d", c->fn->name, what, (int)st);
    int is_nan = isnan(value);
    for (int o = 0; o < c->fn->nslots; o++) {
        if (!is_out(&c->fn->sl[o]))
            continue;
        for (size_t e = 0; e < c->len[o]; e++) {
            int aff = all_affected || affected(c, o, e, joint);
            int any_nf = 0;
            for (int k = 0; k < c->fn->sl[o].nc; k++)
                any_nf |= nonfinite(c->P[o][k][e]);
            if (aff) {
                /* unroll: only the poisoned element itself is numeric garbage;
                 * later frames of its track just take a sign */
                int must = is_nan && (c->fn->mkind != M_UNROLL || e == 1 * c->n + joint);
                if (must)
                    if (!(any_nf))
                        cr_expect(0, "%s: %s: affected output %s[%zu] is finite", c->fn->name, what,
                                  c->fn->sl[o].name, e);
                if (c->fn->mkind == M_UNROLL && e != 1 * c->n + joint && e >= c->n)
                    for (int k = 0; k < 4; k++)
                        if (!(fabsf(c->P[o][k][e]) == fabsf(c->refout[o][k][e]) ||
                              (isnan(c->P[o][k][e]) && isnan(c->refout[o][k][e]))))
                            cr_expect(0, "%s: %s: unroll output %zu is not +-input", c->fn->name,
                                      what, e);
                continue;
            }
            for (int k = 0; k < c->fn->sl[o].nc; k++)
                if (!(close_or_same(c->P[o][k][e], c->refout[o][k][e])))
                    cr_expect(0, "%s: %s: unaffected output %s.%c[%zu] changed: %.9g vs %.9g",
                              c->fn->name, what, c->fn->sl[o].name, comp_name(c, o, k), e,
                              (double)c->P[o][k][e], (double)c->refout[o][k][e]);
        }
    }
}

static void check_nan_inf_inputs(const int *idx)
{
    ctx_t c;
    ctx_init(&c, *idx, 9);
    ctx_reference(&c);
    static const float vals[] = {NAN, INFINITY, -INFINITY};
    static const char *const vnames[] = {"NaN", "+Inf", "-Inf"};
    for (int v = 0; v < 3; v++) {
        for (int s = 0; s < c.fn->nslots; s++) {
            if (is_out(&c.fn->sl[s]))
                continue;
            int weight = c.fn->sl[s].data == D_WEIGHT;
            for (int k = 0; k < c.fn->sl[s].nc; k++) {
                char what[128];
                snprintf(what, sizeof what, "%s in %s.%c", vnames[v], c.fn->sl[s].name,
                         comp_name(&c, s, k));
                check_poison(&c, vals[v], s, k, weight, what);
            }
        }
        if (c.fn->has_x) {
            char what[64];
            snprintf(what, sizeof what, "x/t = %s", vnames[v]);
            if (v == 0)
                check_poison(&c, vals[v], -1, 0, 1, what);
            else { /* Inf x: no crash, status OK (values unspecified) */
                ctx_reset(&c);
                pb_status st = c.fn->call(c.n, c.m, c.P, 0, vals[v]);
                cr_expect_eq(st, PB_OK, "%s: %s: status %d", c.fn->name, what, (int)st);
            }
        }
    }
    ctx_free(&c);
}

/* One test per function (a crash stays with its function), every contract
 * check in turn. */
ParameterizedTestParameters(errors, contract)
{
    for (int i = 0; i < NFNS; i++)
        g_idx[i] = i;
    return cr_make_param_array(int, g_idx, (size_t)NFNS);
}
ParameterizedTest(int *idx, errors, contract, .timeout = 300)
{
    check_valid_call_writes_only_outputs(idx);
    check_null_pointers(idx);
    check_n_zero(idx);
    check_sizes(idx);
    check_bad_args(idx);
    check_partial_overlap_output_input(idx);
    check_overlapping_outputs(idx);
    check_exact_alias(idx);
    check_nan_inf_inputs(idx);
}
