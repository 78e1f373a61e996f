/* Interleaved layouts <-> batches (pb_quats_from_xyzw, _to_xyzw,
 * pb_vec3s_from_xyz, _to_xyz, pb_pose_from_aos, _to_aos) on the active
 * backend (the suite runs once per backend): bit-exact against plain loops
 * for every n around the lane widths and for unaligned pointers, NaN
 * payloads and -0 kept, padding of AoS transforms never written, errors
 * leave everything untouched. */
#include <criterion/criterion.h>

#include <stdint.h>
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
static int same(const float *a, const float *b, size_t n) { return memcmp(a, b, n * sizeof(float)) == 0; }

static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1031};

Test(layout, quats_xyzw_round_trip)
{
    float *in = malloc((4 * NMAX + OFF + 1) * sizeof(float)), *back = malloc((4 * NMAX + OFF + 1) * sizeof(float));
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
    float *in = malloc((3 * NMAX + OFF + 1) * sizeof(float)), *back = malloc((3 * NMAX + OFF + 1) * sizeof(float));
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
    pb_pose p = {{soa[0], soa[1], soa[2], soa[3]}, {soa[4], soa[5], soa[6]}, {soa[7], soa[8], soa[9]}};
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
        {0, PB_AOS_NONE, 0, PB_AOS_NONE},          /* stride 0 */
        {4, PB_AOS_NONE, 1, PB_AOS_NONE},          /* past the stride */
        {8, 2, 0, PB_AOS_NONE},                    /* overlapping parts */
        {8, -2, 0, PB_AOS_NONE},                   /* negative offset */
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
