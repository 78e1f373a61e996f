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
 * errors/contract is parameterized over the function table (one test per
 * function), so a crash in one function does not hide the others; every
 * message starts with the function's name.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"
#include "ref.h"

#define MAXS 10
#define N0 37 /* > 2 x 16 lanes, with a tail */
#define M0 3  /* k, frames or keys */
#define NAN_ELEM 5

enum { R_IN, R_OUT, R_OPT };
enum { D_QUAT, D_VEC, D_SCALE, D_WEIGHT, D_DELTA };
enum { L_N, L_M, L_MN };
enum { M_NONE, M_SAMPLES, M_UNROLL, M_EXTRACT, M_KEYS };

typedef struct {
    const char *name;
    int nc;   /* components: 4 quat, 3 vec3, 1 float */
    int role; /* R_IN, R_OUT, R_OPT (optional output) */
    int data;
    int len;
} slot_t;

typedef float *ptrs_t[MAXS][4];
typedef pb_status (*call_fn)(size_t n, size_t m, ptrs_t P, unsigned flags, float x);

typedef struct {
    const char *name;
    call_fn call;
    int nslots;
    slot_t sl[MAXS];
    int mkind;
    int has_flags;
    unsigned valid_flags;
    int no_exact_alias; /* outputs must not overlap inputs at all */
    int has_x;
    float x0;
} fn_t;

static int g_samples_null; /* averages: pass samples == NULL */

#define CQ(s) ((pb_cquats){P[s][0], P[s][1], P[s][2], P[s][3]})
#define OQ(s) ((pb_quats){P[s][0], P[s][1], P[s][2], P[s][3]})
#define CV(s) ((pb_cvec3s){P[s][0], P[s][1], P[s][2]})
#define OV(s) ((pb_vec3s){P[s][0], P[s][1], P[s][2]})
#define UNUSED (void)m, (void)fl, (void)x

static pb_status f_mul(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_mul(n, CQ(0), CQ(1), OQ(2));
}
static pb_status f_mul_inv(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_mul_inv(n, CQ(0), CQ(1), OQ(2));
}
static pb_status f_inv_mul(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_inv_mul(n, CQ(0), CQ(1), OQ(2));
}
static pb_status f_abs(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_abs(n, CQ(0), OQ(1));
}
static pb_status f_normalize(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_normalize(n, CQ(0), OQ(1));
}
static pb_status f_log(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_log(n, CQ(0), OV(1));
}
static pb_status f_exp(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_exp(n, CV(0), OQ(1));
}
static pb_status f_to_saa(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_to_scaled_angle_axis(n, CQ(0), OV(1));
}
static pb_status f_from_saa(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_from_scaled_angle_axis(n, CV(0), OQ(1));
}
static pb_status f_unroll(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_unroll(m, n, CQ(0), OQ(1));
}
static pb_status f_delta_av(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_delta_to_angular_velocity(n, CQ(0), CQ(1), OV(2));
}
static pb_status f_vec3_hermite(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    (void)fl;
    return pb_vec3_hermite(n, x, CV(0), CV(1), CV(2), CV(3), OV(4), OV(5));
}
static pb_status f_vec3_cr(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    (void)fl;
    return pb_vec3_catmull_rom(n, x, CV(0), CV(1), CV(2), CV(3), OV(4), OV(5));
}
static pb_status f_quat_hermite(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    return pb_quat_hermite(n, x, CQ(0), CQ(1), CV(2), CV(3), fl, OQ(4), OV(5));
}
static pb_status f_quat_cr(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    return pb_quat_catmull_rom(n, x, CQ(0), CQ(1), CQ(2), CQ(3), fl, OQ(4), OV(5));
}
static pb_status f_raw_cubic(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    return pb_quat_raw_cubic(n, x, CQ(0), CQ(1), CQ(2), CQ(3), fl, OQ(4), OQ(5));
}
static pb_status f_scale_hermite(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    (void)fl;
    return pb_scale_hermite(n, x, CV(0), CV(1), CV(2), CV(3), OV(4), OV(5));
}
static pb_status f_scale_cr(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    (void)fl;
    return pb_scale_catmull_rom(n, x, CV(0), CV(1), CV(2), CV(3), OV(4), OV(5));
}
static pb_status f_slerp(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    return pb_quat_slerp(n, x, CQ(0), CQ(1), fl, OQ(2));
}
static pb_status f_nlerp(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    return pb_quat_nlerp(n, x, CQ(0), CQ(1), fl, OQ(2));
}

/* averages: samples in slots s0..s0+2, weights after them, out last */
static void samples3(ptrs_t P, int s0, pb_cquats smp[3])
{
    for (int i = 0; i < 3; i++) {
        pb_cquats q = {P[s0 + i][0], P[s0 + i][1], P[s0 + i][2], P[s0 + i][3]};
        smp[i] = q;
    }
}
#define SMP(s0)                                                                                    \
    pb_cquats smp[3];                                                                              \
    samples3(P, s0, smp);                                                                          \
    const pb_cquats *sp = g_samples_null ? NULL : smp
static pb_status f_avg_raw(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(0);
    return pb_quat_average_raw(n, m, sp, P[3][0], OQ(4));
}
static pb_status f_avg_log(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(0);
    return pb_quat_average_log(n, m, sp, P[3][0], OQ(4));
}
static pb_status f_avg_accurate(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(0);
    return pb_quat_average_accurate(n, m, sp, P[3][0], OQ(4));
}
static pb_status f_avg_basic(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(0);
    return pb_quat_average_basic(n, m, sp, P[3][0], OQ(4));
}
static pb_status f_avg_raw_ref(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(1);
    return pb_quat_average_raw_ref(n, m, CQ(0), sp, P[4][0], OQ(5));
}
static pb_status f_avg_log_ref(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(1);
    return pb_quat_average_log_ref(n, m, CQ(0), sp, P[4][0], OQ(5));
}
static pb_status f_sin_half(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_sin_half_angle(n, CQ(0), CQ(1), P[2][0]);
}
static pb_status f_extract(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_reference_extract(m, n, CQ(0), OQ(1));
}
static pb_status f_tangent(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_tangent_offset(n, CQ(0), CQ(1), CQ(2), OQ(3));
}
static pb_status f_bezier(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_bezier_controls(n, CQ(0), CQ(1), CQ(2), OQ(3), OQ(4));
}
static pb_status f_casteljau(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    (void)fl;
    return pb_quat_de_casteljau(n, x, CQ(0), CQ(1), CQ(2), CQ(3), OQ(4));
}
static pb_status f_shoemake(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_shoemake_controls(n, CQ(0), CQ(1), CQ(2), OQ(3), OQ(4));
}
static pb_status f_spline(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    return pb_quat_spline_eval(m, n, CQ(0), x, fl, OQ(1));
}

#define QI(nm)                                                                                     \
    {                                                                                              \
        nm, 4, R_IN, D_QUAT, L_N                                                                   \
    }
#define QO(nm)                                                                                     \
    {                                                                                              \
        nm, 4, R_OUT, D_QUAT, L_N                                                                  \
    }
#define VI(nm)                                                                                     \
    {                                                                                              \
        nm, 3, R_IN, D_VEC, L_N                                                                    \
    }
#define VO(nm)                                                                                     \
    {                                                                                              \
        nm, 3, R_OUT, D_VEC, L_N                                                                   \
    }
#define VOPT(nm)                                                                                   \
    {                                                                                              \
        nm, 3, R_OPT, D_VEC, L_N                                                                   \
    }
#define SI(nm)                                                                                     \
    {                                                                                              \
        nm, 3, R_IN, D_SCALE, L_N                                                                  \
    }
#define WI                                                                                         \
    {                                                                                              \
        "weights", 1, R_IN, D_WEIGHT, L_M                                                          \
    }

static const fn_t FNS[] = {
    {"pb_quat_mul", f_mul, 3, {QI("a"), QI("b"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_mul_inv", f_mul_inv, 3, {QI("a"), QI("b"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_inv_mul", f_inv_mul, 3, {QI("a"), QI("b"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_abs", f_abs, 2, {QI("q"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_normalize", f_normalize, 2, {QI("q"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_log", f_log, 2, {QI("q"), VO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_exp", f_exp, 2, {VI("v"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_to_scaled_angle_axis", f_to_saa, 2, {QI("q"), VO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_from_scaled_angle_axis", f_from_saa, 2, {VI("v"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_unroll",
     f_unroll,
     2,
     {{"in", 4, R_IN, D_QUAT, L_MN}, {"out", 4, R_OUT, D_QUAT, L_MN}},
     M_UNROLL,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_delta_to_angular_velocity",
     f_delta_av,
     3,
     {QI("ref"), {"delta", 4, R_IN, D_DELTA, L_N}, VO("out")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_vec3_hermite",
     f_vec3_hermite,
     6,
     {VI("p0"), VI("p1"), VI("v0"), VI("v1"), VO("pos"), VOPT("vel")},
     M_NONE,
     0,
     0,
     0,
     1,
     0.3f},
    {"pb_vec3_catmull_rom",
     f_vec3_cr,
     6,
     {VI("p0"), VI("p1"), VI("p2"), VI("p3"), VO("pos"), VOPT("vel")},
     M_NONE,
     0,
     0,
     0,
     1,
     0.3f},
    {"pb_quat_hermite",
     f_quat_hermite,
     6,
     {QI("r0"), QI("r1"), VI("v0"), VI("v1"), QO("rot"), VOPT("vel")},
     M_NONE,
     1,
     PB_EXACT_VELOCITY,
     0,
     1,
     0.3f},
    {"pb_quat_catmull_rom",
     f_quat_cr,
     6,
     {QI("r0"), QI("r1"), QI("r2"), QI("r3"), QO("rot"), VOPT("vel")},
     M_NONE,
     1,
     PB_EXACT_VELOCITY,
     0,
     1,
     0.3f},
    {"pb_quat_raw_cubic",
     f_raw_cubic,
     6,
     {QI("r0"), QI("r1"), QI("r2"), QI("r3"), QO("rot"), {"vel4", 4, R_OPT, D_QUAT, L_N}},
     M_NONE,
     1,
     PB_EXACT_VELOCITY,
     0,
     1,
     0.3f},
    {"pb_scale_hermite",
     f_scale_hermite,
     6,
     {SI("s0"), SI("s1"), VI("v0"), VI("v1"), VO("scale"), VOPT("svel")},
     M_NONE,
     0,
     0,
     0,
     1,
     0.3f},
    {"pb_scale_catmull_rom",
     f_scale_cr,
     6,
     {SI("s0"), SI("s1"), SI("s2"), SI("s3"), VO("scale"), VOPT("svel")},
     M_NONE,
     0,
     0,
     0,
     1,
     0.3f},
    {"pb_quat_slerp",
     f_slerp,
     3,
     {QI("a"), QI("b"), QO("out")},
     M_NONE,
     1,
     PB_LONG_PATH,
     0,
     1,
     0.3f},
    {"pb_quat_nlerp",
     f_nlerp,
     3,
     {QI("a"), QI("b"), QO("out")},
     M_NONE,
     1,
     PB_LONG_PATH,
     0,
     1,
     0.3f},
    {"pb_quat_average_raw",
     f_avg_raw,
     5,
     {QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_average_log",
     f_avg_log,
     5,
     {QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_average_raw_ref",
     f_avg_raw_ref,
     6,
     {QI("ref"), QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_average_log_ref",
     f_avg_log_ref,
     6,
     {QI("ref"), QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_average_accurate",
     f_avg_accurate,
     5,
     {QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_average_basic",
     f_avg_basic,
     5,
     {QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_sin_half_angle",
     f_sin_half,
     3,
     {QI("a"), QI("b"), {"out", 1, R_OUT, D_VEC, L_N}},
     M_NONE,
     0,
     0,
     1,
     0,
     0},
    {"pb_quat_reference_extract",
     f_extract,
     2,
     {{"poses", 4, R_IN, D_QUAT, L_MN}, QO("out")},
     M_EXTRACT,
     0,
     0,
     1,
     0,
     0},
    {"pb_quat_tangent_offset",
     f_tangent,
     4,
     {QI("prev"), QI("cur"), QI("next"), QO("offset")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_bezier_controls",
     f_bezier,
     5,
     {QI("prev"), QI("cur"), QI("next"), QO("before"), QO("after")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_de_casteljau",
     f_casteljau,
     5,
     {QI("q0"), QI("q1"), QI("q2"), QI("q3"), QO("out")},
     M_NONE,
     0,
     0,
     0,
     1,
     0.3f},
    {"pb_quat_shoemake_controls",
     f_shoemake,
     5,
     {QI("prev"), QI("cur"), QI("next"), QO("b"), QO("a")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_spline_eval",
     f_spline,
     2,
     {{"track", 4, R_IN, D_QUAT, L_MN}, QO("out")},
     M_KEYS,
     1,
     PB_CLOSED,
     1,
     1,
     1.3f},
};
#define NFNS ((int)(sizeof FNS / sizeof FNS[0]))

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

/* ---- status strings, backend name parsing ------------------------------------------ */

Test(errors, status_str_never_null)
{
    for (int s = 0; s <= PB_ERR_NOMEM; s++) {
        const char *t = pb_status_str((pb_status)s);
        cr_assert(t != NULL, "pb_status_str(%d) is NULL", s);
        cr_expect(t[0] != 0, "pb_status_str(%d) is empty", s);
        cr_expect(strcmp(t, "unknown status") != 0, "known status %d reads \"unknown status\"", s);
    }
    static const int unknown[] = {7, 99, -1, 1000000};
    for (int i = 0; i < 4; i++) {
        const char *t = pb_status_str((pb_status)unknown[i]);
        cr_assert(t != NULL, "pb_status_str(%d) is NULL", unknown[i]);
        cr_expect_str_eq(t, "unknown status", "pb_status_str(%d) = \"%s\"", unknown[i], t);
    }
}

Test(errors, backend_name_errors)
{
    pb_backend b = (pb_backend)77;
    cr_expect_eq(pb_backend_from_name(NULL, &b), PB_ERR_NULL);
    cr_expect_eq((int)b, 77, "out written on error");
    cr_expect_eq(pb_backend_from_name("scalar", NULL), PB_ERR_NULL);
    static const char *const bad[] = {"",        "bogus",   "avx",  "avx2x",  "neon2",
                                      "scalar ", " scalar", "sse4", "avx-512"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b = (pb_backend)77;
        cr_expect_eq(pb_backend_from_name(bad[i], &b), PB_ERR_ARG, "name \"%s\"", bad[i]);
        cr_expect_eq((int)b, 77, "name \"%s\": out written on error", bad[i]);
    }
    pb_backend before = pb_backend_active();
    cr_expect_eq(pb_backend_force(PB_BACKEND_COUNT), PB_ERR_ARG);
    cr_expect_eq(pb_backend_force((pb_backend)-1), PB_ERR_ARG);
    cr_expect_eq(pb_backend_force((pb_backend)1000), PB_ERR_ARG);
    cr_expect_eq(pb_backend_active(), before, "active backend changed by a failed force");
}

/* ---- clip and blend contract gaps (issue 14) ------------------------------------- */

/* pb_clip_sample: times overlapping any output is PB_ERR_ALIAS, nothing
 * written; a denormal source frame time (infinite velocity factor) and an
 * fps whose output frame time or step is infinite are PB_ERR_ARG. */
Test(errors, clip_times_alias_and_time_ranges)
{
    enum { F = 4, J = 3, C = 5 };
    /* rows of an even number of floats, 16-byte aligned: the doubles of
     * times placed inside them are aligned */
    static _Alignas(16) float src_q[4][F * J], dst_q[4][C * J + 17], vel_v[3][C * J + 1];
    static double times[C];
    for (size_t i = 0; i < F * J; i++) {
        src_q[0][i] = 1.0f;
        src_q[1][i] = src_q[2][i] = src_q[3][i] = 0.0f;
    }
    for (size_t i = 0; i < C; i++)
        times[i] = 0.01 * (double)i;
    pb_clip src = {F, J, 1.0 / 30, {src_q[0], src_q[1], src_q[2], src_q[3]}, {0, 0, 0}, {0, 0, 0}};
    pb_clip dst = {C, J, 0, {dst_q[0], dst_q[1], dst_q[2], dst_q[3]}, {0, 0, 0}, {0, 0, 0}};
    pb_clip_vel vel = {{vel_v[0], vel_v[1], vel_v[2]}, {0, 0, 0}, {0, 0, 0}};
    cr_assert_eq(pb_clip_sample(&src, C, times, 0, &dst, &vel), PB_OK);
    /* times inside dst.rot.x (and straddling its end), and inside vel.rot.y */
    double *in_out[3] = {(double *)(void *)dst_q[1], (double *)(void *)(dst_q[1] + C * J - 3),
                         (double *)(void *)vel_v[1]};
    for (int c = 0; c < 3; c++) {
        for (size_t i = 0; i < C; i++)
            in_out[c][i] = 0.01 * (double)i;
        unsigned char before[sizeof dst_q + sizeof vel_v];
        memcpy(before, dst_q, sizeof dst_q);
        memcpy(before + sizeof dst_q, vel_v, sizeof vel_v);
        cr_expect_eq(pb_clip_sample(&src, C, in_out[c], 0, &dst, &vel), PB_ERR_ALIAS,
                     "times overlapping output %d", c);
        cr_expect(!memcmp(before, dst_q, sizeof dst_q) &&
                      !memcmp(before + sizeof dst_q, vel_v, sizeof vel_v),
                  "outputs written on PB_ERR_ALIAS (%d)", c);
    }
    /* times may overlap an input (only read) */
    cr_expect_eq(pb_clip_sample(&src, C, (const double *)(const void *)src_q[1], 0, &dst, NULL),
                 PB_OK);

    /* a denormal source frame time: 1 / frame_time is infinite */
    pb_clip tiny = src;
    tiny.frame_time = 1e-310;
    cr_expect_eq(pb_clip_sample(&tiny, C, times, 0, &dst, &vel), PB_ERR_ARG);
    cr_expect_eq(pb_clip_resample_frames(&tiny, 30.0, 0), 0);
    cr_expect_eq(pb_clip_resample(&tiny, 30.0, 0, &dst, &vel), PB_ERR_ARG);
    /* an fps whose output frame time 1 / fps is infinite, or whose step
     * 1 / (fps * frame_time) is */
    static const double bad[][2] = {{1.0 / 30, 1e-310}, {1.0 / 30, 4.9e-324}, {1e-10, 1e-300}};
    for (size_t i = 0; i < 3; i++) {
        pb_clip s1 = src, d1 = dst;
        s1.frame_time = bad[i][0];
        d1.frames = 1;
        d1.frame_time = 7.0;
        cr_expect_eq(pb_clip_resample_frames(&s1, bad[i][1], 0), 0, "frame time %g fps %g",
                     bad[i][0], bad[i][1]);
        cr_expect_eq(pb_clip_resample(&s1, bad[i][1], 0, &d1, NULL), PB_ERR_ARG,
                     "frame time %g fps %g", bad[i][0], bad[i][1]);
        cr_expect_eq(d1.frame_time, 7.0);
    }
    /* a tiny but valid fps: one output frame, a finite frame time */
    pb_clip d2 = dst;
    d2.frames = 1;
    cr_expect_eq(pb_clip_resample_frames(&src, 1e-300, 0), 1);
    cr_expect_eq(pb_clip_resample(&src, 1e-300, 0, &d2, NULL), PB_OK);
    cr_expect(isfinite(d2.frame_time));
}

/* pb_pose_blend and pb_pose_blend_layers: a reference track with some of its
 * pointers NULL (e.g. ref->pos = {NULL, y, z}) is PB_ERR_NULL, never silently
 * dropped; k == 0 is PB_ERR_ARG for every sample-taking function, whatever the
 * other counts (one rule: k is checked first). */
Test(errors, blend_partial_ref_and_k_zero)
{
    enum { J = 5, K = 2 };
    static float q[K][4][J], p[K][3][J], s[K][3][J], rq_[4][J], rp[3][J], rs[3][J], oq[4][J],
        op[3][J], os[3][J];
    float w[K] = {0.5f, 0.5f};
    for (size_t j = 0; j < J; j++) {
        for (size_t i = 0; i < K; i++) {
            q[i][0][j] = 1.0f;
            s[i][0][j] = s[i][1][j] = s[i][2][j] = 1.0f;
        }
        rq_[0][j] = 1.0f;
        rs[0][j] = rs[1][j] = rs[2][j] = 1.0f;
    }
    pb_cquats rot[K];
    pb_cvec3s pos[K], scl[K];
    pb_blend_layer layers[K];
    for (size_t i = 0; i < K; i++) {
        pb_cquats r = {q[i][0], q[i][1], q[i][2], q[i][3]};
        pb_cvec3s pp = {p[i][0], p[i][1], p[i][2]}, ss = {s[i][0], s[i][1], s[i][2]};
        rot[i] = r;
        pos[i] = pp;
        scl[i] = ss;
        layers[i].weight = 1.0f;
        layers[i].joint_weights = NULL;
        layers[i].pose.rot = r;
        layers[i].pose.pos = pp;
        layers[i].pose.scale = ss;
    }
    pb_pose full = {{oq[0], oq[1], oq[2], oq[3]}, {op[0], op[1], op[2]}, {os[0], os[1], os[2]}};
    pb_pose rot_only = {{oq[0], oq[1], oq[2], oq[3]}, {0, 0, 0}, {0, 0, 0}};
    pb_pose out = full;
    for (int o = 0; o < 2; o++, out = rot_only)
        for (int track = 0; track < 2; track++)
            for (int miss = 0; miss < 3; miss++) {
                pb_cpose ref = {
                    {rq_[0], rq_[1], rq_[2], rq_[3]}, {rp[0], rp[1], rp[2]}, {rs[0], rs[1], rs[2]}};
                const float **v = track ? &ref.scale.x : &ref.pos.x;
                v[miss] = NULL;
                for (int m = 0; m < PB_BLEND_METHOD_COUNT; m++) {
                    cr_expect_eq(
                        pb_pose_blend(J, K, rot, pos, scl, w, (pb_blend_method)m, &ref, &out),
                        PB_ERR_NULL, "pb_pose_blend method %d, ref %s component %d NULL", m,
                        track ? "scale" : "pos", miss);
                    if (m == PB_BLEND_ACCURATE)
                        continue;
                    pb_blend_desc d = {J, layers, K, NULL, 0, (pb_blend_method)m, 0, &ref};
                    cr_expect_eq(pb_pose_blend_layers(&d, &out), PB_ERR_NULL,
                                 "pb_pose_blend_layers method %d, ref %s component %d NULL", m,
                                 track ? "scale" : "pos", miss);
                }
            }
    out = full;
    /* k == 0: PB_ERR_ARG, also with joints above PB_MAX_COUNT or 0 */
    static const size_t nl[] = {0, J, PB_MAX_COUNT + 1};
    for (size_t i = 0; i < 3; i++) {
        size_t n = nl[i];
        pb_quats o = out.rot;
        cr_expect_eq(pb_quat_average_raw(n, 0, rot, w, o), PB_ERR_ARG);
        cr_expect_eq(pb_quat_average_accurate(n, 0, rot, w, o), PB_ERR_ARG);
        cr_expect_eq(pb_pose_blend(n, 0, rot, pos, scl, w, PB_BLEND_RAW, NULL, &out), PB_ERR_ARG,
                     "pb_pose_blend joints %zu k 0", n);
        pb_blend_desc d = {n, layers, 0, NULL, 0, PB_BLEND_RAW, 0, NULL};
        cr_expect_eq(pb_pose_blend_layers(&d, &out), PB_ERR_ARG, "layers joints %zu count 0", n);
        cr_expect_eq(pb_quat_reference_extract(0, n, rot[0], o), PB_ERR_ARG);
    }
}
