/* Conformance of the Euler kernels (src/simd/kernels_euler.h) across
 * backends, libc only (it runs under qemu-user like conformance.c): the
 * writer's batch Euler choice (bvh_choose_angles_n) on the cases of
 * euler_cases.h, the reader's batch conversion (bvh_euler_to_quat_n) of
 * their angles and pb_bvh_resample_angles' interpolation, every supported
 * backend against the scalar backend: bit for bit in deterministic builds
 * (and for the conversion and the interpolation always); otherwise the same
 * as_read and text and angles within 1e-9 degrees. Linked with the static library (the
 * functions are internal).
 *
 *   posebatch-conformance-euler
 *
 * Exit status 0 only if every comparison passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "euler_cases.h"
#include "posebatch.h"

#if defined(PB_DETERMINISTIC)
static const int bitwise = 1;
#else
static const int bitwise = 0;
#endif

static const pb_bvh_euler_mode modes[3] = {PB_BVH_EULER_SOURCE, PB_BVH_EULER_CONTINUOUS,
                                           PB_BVH_EULER_PRINCIPAL};
static const size_t sizes[] = {1, 2, 3, 4, 7, 8, 9, 16, 17, 31, 64, 65, 160};
#define REPS 24

#define CHOOSE_SEED 0x2545f4914f6cdd1dull
#define TO_QUAT_SEED 0x5851f42d4c957f2dull

typedef struct {
    double deg[3 * EC_MAXJ];
    unsigned char ar[EC_MAXJ];
} result;

/* The cases, in order: REPS of every kind, of the joint counts of sizes in
 * turn, generated from one seed. for (case_first(&it, seed); case_next(&it);)
 * visits them in it.c (it.kind, it.rep). */
typedef struct {
    ec_case c;
    int kind, rep;
} case_iter;

static void case_first(case_iter *it, unsigned long long seed)
{
    ec_rng = seed;
    it->kind = 0;
    it->rep = -1;
}

static int case_next(case_iter *it)
{
    if (++it->rep == REPS) {
        it->rep = 0;
        it->kind++;
    }
    if (it->kind >= EC_KINDS)
        return 0;
    ec_make(&it->c, it->kind, sizes[(size_t)it->rep % (sizeof sizes / sizeof sizes[0])]);
    return 1;
}

/* every case in every mode: the results in order */
static size_t run_all(result *out, size_t cap)
{
    static case_iter it;
    const ec_case *c = &it.c;
    size_t k = 0;
    for (case_first(&it, CHOOSE_SEED); case_next(&it);)
        for (int m = 0; m < 3; m++)
            for (int p = 0; p < 2 && k < cap; p++, k++)
                bvh_choose_angles_n(modes[m], c->n, c->order, c->nrot, c->qw, c->qx, c->qy, c->qz,
                                    c->src, p ? c->prev : NULL, out[k].deg, out[k].ar);
    return k;
}

/* pb_bvh_resample_angles of a random clip of 37 joints */
static int resample_angles(double *out, size_t *count)
{
    static pb_bvh src;
    static int made;
    pb_bvh_error err;
    if (!made) {
        ec_rng = 0x9e3779b97f4a7c15ull;
        pb_bvh_joint joints[37];
        memset(joints, 0, sizeof joints);
        memset(&src, 0, sizeof src);
        for (int j = 0; j < 37; j++) {
            joints[j].name = "j";
            joints[j].parent = j - 1;
            joints[j].num_channels = 3;
            joints[j].channels[0] = PB_BVH_ZROT, joints[j].channels[1] = PB_BVH_XROT;
            joints[j].channels[2] = PB_BVH_YROT;
            joints[j].num_rot = 3;
            joints[j].rot_order = PB_EULER_ZXY;
            joints[j].first_channel = (uint32_t)(3 * j);
        }
        src.num_joints = 37;
        src.joints = joints;
        src.num_channels = 111;
        src.frame_time = 1.0 / 30.0;
        pb_bvh tmp;
        if (pb_bvh_new_motion(&src, 50, src.frame_time, &tmp, &err))
            return -1;
        src = tmp;
        src.euler_deg = malloc(3 * 50 * 37 * sizeof(double));
        src.decimals = calloc(50 * 111, 1);
        if (!src.euler_deg || !src.decimals)
            return -1;
        for (size_t i = 0; i < 3 * 50 * 37; i++) {
            double v = ec_u(), p = i >= 111 ? src.euler_deg[i - 111] : 0.0;
            src.euler_deg[i] = v < 0.2   ? p + 180.0 * (double)((int)ec_pick(5) - 2)
                               : v < 0.3 ? p + ec_sym(200.0)
                                         : p + ec_sym(20.0);
        }
        made = 1;
    }
    pb_bvh dst;
    if (pb_bvh_new_motion(&src, 197, 1.0 / 120.0, &dst, &err) ||
        pb_bvh_resample_angles(&src, 0, &dst, &err))
        return -1;
    *count = 3 * 197 * 37;
    memcpy(out, dst.euler_deg, *count * sizeof *out);
    pb_bvh_free(&dst);
    return 0;
}

/* bvh_euler_to_quat_n of every case's source and previous angles (the
 * floats of pb_euler_to_quat_n on every backend: compared bit for bit) */
static size_t to_quats(float *out, size_t cap)
{
    static case_iter it;
    const ec_case *c = &it.c;
    size_t k = 0;
    for (case_first(&it, TO_QUAT_SEED); case_next(&it);)
        for (int a = 0; a < 2 && k + 4 * c->n <= cap; a++, k += 4 * c->n)
            bvh_euler_to_quat_n(c->n, c->order, c->nrot, a ? c->prev : c->src, out + k,
                                out + k + c->n, out + k + 2 * c->n, out + k + 3 * c->n);
    return k;
}

int main(void)
{
    static float qw[EC_KINDS * REPS * 2 * 4 * EC_MAXJ], qg[EC_KINDS * REPS * 2 * 4 * EC_MAXJ];
    static result want[EC_KINDS * REPS * 6], got[EC_KINDS * REPS * 6];
    static double lw[3 * 197 * 37], lg[3 * 197 * 37];
    int passed = 0, failed = 0;
    pb_backend_force(PB_BACKEND_SCALAR);
    size_t n = run_all(want, sizeof want / sizeof want[0]), ln = 0;
    size_t qn = to_quats(qw, sizeof qw / sizeof qw[0]);
    if (resample_angles(lw, &ln)) {
        printf("FAIL: pb_bvh_resample_angles (scalar)\n");
        return 1;
    }
    for (int b = 1; b < PB_BACKEND_COUNT; b++) {
        if (!pb_backend_supported((pb_backend)b))
            continue;
        pb_backend_force((pb_backend)b);
        run_all(got, n);
        int before = failed;
        /* run_all again to know each result's joint count: the cases are
         * regenerated with the same seed */
        static case_iter it;
        size_t k = 0;
        for (case_first(&it, CHOOSE_SEED); case_next(&it);)
            for (int mp = 0; mp < 6; mp++, k++) {
                int bad = 0;
                char msg[256] = "";
                for (size_t e = 0; e < it.c.n && !bad; e++) {
                    if (bitwise) {
                        bad = memcmp(want[k].deg + 3 * e, got[k].deg + 3 * e, 3 * sizeof(double)) !=
                                  0 ||
                              want[k].ar[e] != got[k].ar[e];
                        if (bad)
                            snprintf(msg, sizeof msg, "joint %zu not bit-identical", e);
                    } else {
                        bad = ec_agree(got[k].deg, got[k].ar, want[k].deg, want[k].ar, e, 1e-9, msg,
                                       sizeof msg);
                    }
                }
                if (bad) {
                    printf("FAIL %s: %s case %d mode %d%s: %s\n", pb_backend_name((pb_backend)b),
                           ec_kind_names[it.kind], it.rep, mp / 2, mp & 1 ? " with prev" : "", msg);
                    failed++;
                } else {
                    passed++;
                }
            }
        if (to_quats(qg, qn) != qn || memcmp(qw, qg, qn * sizeof *qw) != 0) {
            printf("FAIL %s: bvh_euler_to_quat_n not bit-identical\n",
                   pb_backend_name((pb_backend)b));
            failed++;
        } else {
            passed++;
        }
        if (resample_angles(lg, &ln) || memcmp(lw, lg, ln * sizeof *lw) != 0) {
            printf("FAIL %s: pb_bvh_resample_angles not bit-identical\n",
                   pb_backend_name((pb_backend)b));
            failed++;
        } else {
            passed++;
        }
        printf("%s%s: %s\n", pb_backend_name((pb_backend)b),
               pb_backend_emulated((pb_backend)b) ? " (emulated)" : "",
               failed == before ? (bitwise ? "bit-identical to scalar" : "agrees with scalar")
                                : "MISMATCH");
    }
    printf("conformance-euler: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
