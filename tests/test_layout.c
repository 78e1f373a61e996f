/* Interleaved layouts <-> batches (pb_quats_from_xyzw, _to_xyzw,
 * pb_vec3s_from_xyz, _to_xyz, pb_pose_from_aos, _to_aos) on the active
 * backend (the suite runs once per backend): bit-exact against plain loops
 * for every n around the lane widths and for unaligned pointers, NaN
 * payloads and -0 kept, padding of AoS transforms never written, errors
 * leave everything untouched, and PB_ERR_ALIAS for an array at every float
 * offset that overlaps the one it must not (and PB_OK right outside). */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"

#define NMAX 1031
#define OFF 1 /* unaligned starts */

static uint32_t rng = 12345u;
static float rnd_bits(void)
{
    /* any bit pattern, NaNs with payloads and -0 included */
    rng = rng * 1664525u + 1013904223u;
    uint32_t u = rng ^ (rng >> 13);
    if ((u & 31u) == 0)
        u = 0x7fc01234u; /* a quiet NaN with a payload */
    else if ((u & 31u) == 1)
        u = 0x80000000u; /* -0 */
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static void fill(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = rnd_bits();
}
static int same(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof(float)) == 0;
}

static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1031};

Test(layout, quats_xyzw_round_trip)
{
    float *in = malloc((4 * NMAX + OFF + 1) * sizeof(float)),
          *back = malloc((4 * NMAX + OFF + 1) * sizeof(float));
    float *soa = malloc((4 * NMAX + 4 * OFF) * sizeof(float));
    cr_assert(in && back && soa);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        float *x = in + OFF;
        fill(x, 4 * n);
        pb_quats q = {soa + OFF, soa + OFF + NMAX, soa + 2 * NMAX + OFF, soa + 3 * NMAX + OFF};
        cr_assert_eq(pb_quats_from_xyzw(n, x, q), PB_OK);
        for (size_t i = 0; i < n; i++) {
            cr_assert(same(&q.x[i], &x[4 * i], 1) && same(&q.y[i], &x[4 * i + 1], 1) &&
                          same(&q.z[i], &x[4 * i + 2], 1) && same(&q.w[i], &x[4 * i + 3], 1),
                      "n %zu element %zu", n, i);
        }
        float *y = back + OFF;
        memset(back, 0xa5, (4 * NMAX + OFF + 1) * sizeof(float));
        cr_assert_eq(pb_quats_to_xyzw(n, pb_cq(q), y), PB_OK);
        cr_assert(same(x, y, 4 * n), "round trip n %zu", n);
        /* nothing past the end */
        uint32_t u;
        memcpy(&u, &y[4 * n], 4);
        cr_assert_eq(u, 0xa5a5a5a5u, "wrote past the end, n %zu", n);
    }
    free(in);
    free(back);
    free(soa);
}

Test(layout, vec3s_xyz_round_trip)
{
    float *in = malloc((3 * NMAX + OFF + 1) * sizeof(float)),
          *back = malloc((3 * NMAX + OFF + 1) * sizeof(float));
    float *soa = malloc((3 * NMAX + 3) * sizeof(float));
    cr_assert(in && back && soa);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        float *x = in + OFF;
        fill(x, 3 * n);
        pb_vec3s v = {soa + 1, soa + 1 + NMAX, soa + 1 + 2 * NMAX};
        cr_assert_eq(pb_vec3s_from_xyz(n, x, v), PB_OK);
        for (size_t i = 0; i < n; i++)
            cr_assert(same(&v.x[i], &x[3 * i], 1) && same(&v.y[i], &x[3 * i + 1], 1) &&
                          same(&v.z[i], &x[3 * i + 2], 1),
                      "n %zu element %zu", n, i);
        float *y = back + OFF;
        memset(back, 0xa5, (3 * NMAX + OFF + 1) * sizeof(float));
        cr_assert_eq(pb_vec3s_to_xyz(n, pb_cv(v), y), PB_OK);
        cr_assert(same(x, y, 3 * n), "round trip n %zu", n);
        uint32_t u;
        memcpy(&u, &y[3 * n], 4);
        cr_assert_eq(u, 0xa5a5a5a5u, "wrote past the end, n %zu", n);
    }
    free(in);
    free(back);
    free(soa);
}

/* struct { float pad; float r[4]; float t[3]; float pad2[2]; float s[3]; } */
Test(layout, pose_aos_round_trip_and_padding)
{
    const pb_aos_layout lay = {13, 5, 1, 10};
    enum { N = 77 };
    static float aos[N * 13], back[N * 13], soa[10][N];
    fill(aos, N * 13);
    pb_pose p = {
        {soa[0], soa[1], soa[2], soa[3]}, {soa[4], soa[5], soa[6]}, {soa[7], soa[8], soa[9]}};
    cr_assert_eq(pb_pose_from_aos(N, aos, &lay, &p), PB_OK);
    for (size_t i = 0; i < N; i++) {
        const float *t = aos + 13 * i;
        cr_assert(same(&p.rot.x[i], t + 1, 1) && same(&p.rot.y[i], t + 2, 1) &&
                  same(&p.rot.z[i], t + 3, 1) && same(&p.rot.w[i], t + 4, 1));
        cr_assert(same(&p.pos.x[i], t + 5, 1) && same(&p.pos.z[i], t + 7, 1));
        cr_assert(same(&p.scale.x[i], t + 10, 1) && same(&p.scale.z[i], t + 12, 1));
    }
    memset(back, 0x5a, sizeof back);
    pb_cpose c = {pb_cq(p.rot), pb_cv(p.pos), pb_cv(p.scale)};
    cr_assert_eq(pb_pose_to_aos(N, &c, &lay, back), PB_OK);
    for (size_t i = 0; i < N; i++)
        for (int k = 0; k < 13; k++) {
            uint32_t u;
            memcpy(&u, &back[13 * i + k], 4);
            if (k == 0 || k == 8 || k == 9)
                cr_assert_eq(u, 0x5a5a5a5au, "padding written at %zu.%d", i, k);
            else
                cr_assert(same(&back[13 * i + k], &aos[13 * i + k], 1), "%zu.%d", i, k);
        }
    /* rotations only, dense (stride 4 takes the transposes) */
    const pb_aos_layout r_only = {4, PB_AOS_NONE, 0, PB_AOS_NONE};
    pb_pose ro = {{soa[0], soa[1], soa[2], soa[3]}, {NULL, NULL, NULL}, {NULL, NULL, NULL}};
    cr_assert_eq(pb_pose_from_aos(N, aos, &r_only, &ro), PB_OK);
    for (size_t i = 0; i < N; i++)
        cr_assert(same(&ro.rot.w[i], &aos[4 * i + 3], 1));
    const pb_aos_layout trs = PB_AOS_TRS;
    cr_assert_eq(trs.stride, 10);
}

Test(layout, errors_leave_everything_untouched)
{
    enum { N = 40 };
    static float buf[8 * N], ref[8 * N];
    fill(buf, 8 * N);
    memcpy(ref, buf, sizeof buf);
    float *x = buf;
    pb_quats q = {buf + 4 * N, buf + 5 * N, buf + 6 * N, buf + 7 * N};
    pb_quats qn = q;
    qn.z = NULL;
    cr_assert_eq(pb_quats_from_xyzw(N, NULL, q), PB_ERR_NULL);
    cr_assert_eq(pb_quats_from_xyzw(N, x, qn), PB_ERR_NULL);
    cr_assert_eq(pb_quats_from_xyzw((size_t)PB_MAX_COUNT + 1, x, q), PB_ERR_SIZE);
    /* the interleaved input overlapping an output */
    pb_quats qa = {buf + 3 * N, buf + 5 * N, buf + 6 * N, buf + 7 * N};
    cr_assert_eq(pb_quats_from_xyzw(N, x, qa), PB_ERR_ALIAS);
    pb_quats qb = {buf + 4 * N, buf + 4 * N + 1, buf + 6 * N, buf + 7 * N};
    cr_assert_eq(pb_quats_from_xyzw(N, x, qb), PB_ERR_ALIAS);
    cr_assert_eq(pb_quats_to_xyzw(N, pb_cq(q), buf + 4 * N - 3), PB_ERR_ALIAS);
    pb_vec3s v = {buf + 4 * N, buf + 5 * N, buf + 6 * N};
    cr_assert_eq(pb_vec3s_from_xyz(N, buf + 2 * N, v), PB_ERR_ALIAS);
    cr_assert_eq(pb_vec3s_to_xyz(N, pb_cv(v), buf + 6 * N + 1), PB_ERR_ALIAS);
    pb_cvec3s vn = {buf, NULL, buf};
    cr_assert_eq(pb_vec3s_to_xyz(N, vn, buf + 7 * N), PB_ERR_NULL);
    /* layouts */
    pb_pose p = {q, {NULL, NULL, NULL}, {NULL, NULL, NULL}};
    const pb_aos_layout bad[] = {
        {0, PB_AOS_NONE, 0, PB_AOS_NONE}, /* stride 0 */
        {4, PB_AOS_NONE, 1, PB_AOS_NONE}, /* past the stride */
        {8, 2, 0, PB_AOS_NONE},           /* overlapping parts */
        {8, -2, 0, PB_AOS_NONE},          /* negative offset */
        {PB_AOS_MAX_STRIDE + 1, PB_AOS_NONE, 0, PB_AOS_NONE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(pb_pose_from_aos(4, buf, &bad[i], &p), PB_ERR_ARG, "layout %zu", i);
    const pb_aos_layout tr = {7, 0, 3, PB_AOS_NONE};
    cr_assert_eq(pb_pose_from_aos(4, buf, &tr, &p), PB_ERR_NULL); /* p has no positions */
    cr_assert_eq(pb_pose_from_aos(4, buf, NULL, &p), PB_ERR_NULL);
    const pb_aos_layout r4 = {4, PB_AOS_NONE, 0, PB_AOS_NONE};
    cr_assert_eq(pb_pose_from_aos(N + 1, buf, &r4, &p), PB_ERR_ALIAS); /* reaches q.w */
    pb_cpose cp = {pb_cq(q), {NULL, NULL, NULL}, {NULL, NULL, NULL}};
    cr_assert_eq(pb_pose_to_aos(N, &cp, &tr, buf), PB_ERR_NULL);
    cr_assert_eq(pb_pose_to_aos(N + 1, &cp, &r4, buf), PB_ERR_ALIAS);
    cr_assert(same(buf, ref, 8 * N), "an error wrote something");
    /* n == 0: nothing checked, nothing written */
    cr_assert_eq(pb_quats_from_xyzw(0, NULL, (pb_quats){NULL, NULL, NULL, NULL}), PB_OK);
    cr_assert_eq(pb_pose_to_aos(0, NULL, NULL, NULL), PB_OK);
}

/* ---- the alias checks at every placement -------------------------------- */

/* Each converter with an array placed at every float offset d around the
 * array it must not overlap: an array of m floats at d from one of L floats
 * overlaps it exactly when -m < d < L, which must be PB_ERR_ALIAS (nothing
 * written); d = -m (ending right below) and d = L (starting right after)
 * must be accepted, and convert. The sweep from -m - 1 to L + 1 covers the
 * start, the middle of every component block (n floats of the dense
 * layouts' output; a transform's parts in AoS), the last float and both
 * sides just outside. The interleaved array of an AoS layout is the one the
 * contract counts: from aos, (n-1) * stride floats plus the last
 * transform's parts, padding included. */
typedef struct conv {
    const char *name;
    int to;    /* 1: batch -> interleaved (the interleaved array is the output) */
    int dense; /* 3 or 4: _xyz / _xyzw; 0: AoS with `lay` */
    pb_aos_layout lay;
} conv;

static const conv convs[] = {
    {"pb_quats_from_xyzw", 0, 4, {0, 0, 0, 0}},
    {"pb_quats_to_xyzw", 1, 4, {0, 0, 0, 0}},
    {"pb_vec3s_from_xyz", 0, 3, {0, 0, 0, 0}},
    {"pb_vec3s_to_xyz", 1, 3, {0, 0, 0, 0}},
    {"pb_pose_from_aos (pad, R, T, pad, S, pad)", 0, 0, {14, 5, 1, 10}},
    {"pb_pose_to_aos (pad, R, T, pad, S, pad)", 1, 0, {14, 5, 1, 10}},
    {"pb_pose_from_aos (TRS)", 0, 0, PB_AOS_TRS},
    {"pb_pose_to_aos (TRS)", 1, 0, PB_AOS_TRS},
    {"pb_pose_from_aos (rotations, stride 4)", 0, 0, {4, PB_AOS_NONE, 0, PB_AOS_NONE}},
    {"pb_pose_to_aos (rotations, stride 4)", 1, 0, {4, PB_AOS_NONE, 0, PB_AOS_NONE}},
};

/* the batch arrays in the order convert() takes them (quaternions w, x, y,
 * z; vec3s x, y, z; AoS: rotation, translation, scale), and for each the
 * float of an interleaved element it goes with */
static int batch_arrays(const conv *c, int where[10])
{
    if (c->dense) {
        static const int q[4] = {3, 0, 1, 2}; /* w, x, y, z: xyzw[4i+3], ... */
        for (int k = 0; k < c->dense; k++)
            where[k] = c->dense == 4 ? q[k] : k;
        return c->dense;
    }
    int na = 0;
    if (c->lay.rotation != PB_AOS_NONE) {
        static const int q[4] = {3, 0, 1, 2};
        for (int k = 0; k < 4; k++)
            where[na++] = c->lay.rotation + q[k];
    }
    if (c->lay.translation != PB_AOS_NONE)
        for (int k = 0; k < 3; k++)
            where[na++] = c->lay.translation + k;
    if (c->lay.scale != PB_AOS_NONE)
        for (int k = 0; k < 3; k++)
            where[na++] = c->lay.scale + k;
    return na;
}

static size_t interleaved_len(const conv *c, size_t n)
{
    if (c->dense)
        return n * (size_t)c->dense;
    int end = 0, off[3] = {c->lay.translation, c->lay.rotation, c->lay.scale}, len[3] = {3, 4, 3};
    for (int p = 0; p < 3; p++)
        if (off[p] != PB_AOS_NONE && off[p] + len[p] > end)
            end = off[p] + len[p];
    return (n - 1) * c->lay.stride + (size_t)end;
}

static pb_status convert(const conv *c, size_t n, float *il, float *const a[10])
{
    if (c->dense == 4) {
        pb_quats q = {a[0], a[1], a[2], a[3]};
        return c->to ? pb_quats_to_xyzw(n, pb_cq(q), il) : pb_quats_from_xyzw(n, il, q);
    }
    if (c->dense == 3) {
        pb_vec3s v = {a[0], a[1], a[2]};
        return c->to ? pb_vec3s_to_xyz(n, pb_cv(v), il) : pb_vec3s_from_xyz(n, il, v);
    }
    pb_pose p = {{NULL, NULL, NULL, NULL}, {NULL, NULL, NULL}, {NULL, NULL, NULL}};
    int i = 0;
    if (c->lay.rotation != PB_AOS_NONE) {
        pb_quats q = {a[i], a[i + 1], a[i + 2], a[i + 3]};
        p.rot = q;
        i += 4;
    }
    if (c->lay.translation != PB_AOS_NONE) {
        pb_vec3s v = {a[i], a[i + 1], a[i + 2]};
        p.pos = v;
        i += 3;
    }
    if (c->lay.scale != PB_AOS_NONE) {
        pb_vec3s v = {a[i], a[i + 1], a[i + 2]};
        p.scale = v;
    }
    if (!c->to)
        return pb_pose_from_aos(n, il, &c->lay, &p);
    pb_cpose cp = {pb_cq(p.rot), pb_cv(p.pos), pb_cv(p.scale)};
    return pb_pose_to_aos(n, &cp, &c->lay, il);
}

#define APOOL 8192
static float apool[APOOL], asaved[APOOL], atemplate[APOOL];

/* One call with the interleaved array at pool offset il and the batch
 * arrays at off[]: PB_ERR_ALIAS and nothing written when `overlap`, else
 * PB_OK and every element where the contract puts it. */
static void place_and_call(const conv *c, size_t n, size_t il, const size_t off[10], int na,
                           int overlap, const char *what, long d)
{
    int where[10];
    batch_arrays(c, where);
    memcpy(apool, atemplate, sizeof apool);
    memcpy(asaved, apool, sizeof apool);
    float *a[10];
    for (int k = 0; k < na; k++)
        a[k] = apool + off[k];
    pb_status got = convert(c, n, apool + il, a);
    cr_assert_eq(got, overlap ? PB_ERR_ALIAS : PB_OK, "%s, n %zu, %s at offset %ld: status %d",
                 c->name, n, what, d, got);
    if (overlap) {
        cr_assert(same(apool, asaved, APOOL), "%s, n %zu, %s at offset %ld: an error wrote",
                  c->name, n, what, d);
        return;
    }
    size_t stride = c->dense ? (size_t)c->dense : c->lay.stride;
    for (int k = 0; k < na; k++)
        for (size_t i = 0; i < n; i++) {
            size_t e = il + i * stride + (size_t)where[k];
            /* to: the batch array (as it was) lands in the interleaved one;
             * from: the interleaved one (as it was) lands in the array */
            const float *want = c->to ? &asaved[off[k] + i] : &asaved[e];
            const float *got_at = c->to ? &apool[e] : &apool[off[k] + i];
            cr_assert(same(got_at, want, 1), "%s, n %zu, %s at offset %ld: array %d element %zu",
                      c->name, n, what, d, k, i);
        }
}

Test(layout, alias_checks_at_every_placement)
{
    static const size_t ns[] = {1, 2, 5, 19};
    long calls = 0, aliases = 0;
    fill(atemplate, APOOL);
    for (size_t ci = 0; ci < sizeof convs / sizeof convs[0]; ci++) {
        const conv *c = &convs[ci];
        int where[10];
        int na = batch_arrays(c, where);
        for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) {
            size_t n = ns[s], L = interleaved_len(c, n);
            /* the arrays far apart: the interleaved one low, the batch
             * arrays each in a slot of its own above it */
            size_t slot = 2 * (L + n) + 8, base = L + n + 4;
            size_t il = base, off[10];
            for (int k = 0; k < na; k++)
                off[k] = base + (size_t)(k + 1) * slot;
            cr_assert_lt(off[na - 1] + slot, (size_t)APOOL);
            if (c->to) {
                /* each input array at every offset around the output */
                for (int k = 0; k < na; k++)
                    for (long d = -(long)n - 1; d <= (long)L + 1; d++) {
                        size_t moved[10];
                        memcpy(moved, off, sizeof moved);
                        moved[k] = (size_t)((long)il + d);
                        int overlap = d > -(long)n && d < (long)L;
                        char what[32];
                        snprintf(what, sizeof what, "input array %d", k);
                        place_and_call(c, n, il, moved, na, overlap, what, d);
                        calls++;
                        aliases += overlap;
                    }
            } else {
                /* the interleaved input at every offset around each output */
                for (int k = 0; k < na; k++)
                    for (long d = -(long)L - 1; d <= (long)n + 1; d++) {
                        size_t at = (size_t)((long)off[k] + d);
                        int overlap = d > -(long)L && d < (long)n;
                        char what[48];
                        snprintf(what, sizeof what, "the input around output array %d", k);
                        place_and_call(c, n, at, off, na, overlap, what, d);
                        calls++;
                        aliases += overlap;
                    }
            }
        }
    }
    cr_log_info("%ld placements, %ld of them overlapping", calls, aliases);
}
