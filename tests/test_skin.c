/* Skinning matrices: pb_pose_skinning_matrices on the active backend (the
 * suite runs once per backend) against the same product in double from the
 * same float inputs (the header's bound: each element within 1e-6 x the
 * sum of its terms' magnitudes, row 3 exact), both layouts, every track
 * combination, J = 1..40 and 1024 (every block and tail shape), P up to
 * 67; pb_pose_inverse_bind_matrices against a double inversion and as the
 * inverse of the rest pose's skinning matrix; pb_bvh_inverse_bind_matrices
 * on the shipped clip; every error with nothing written. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clipdata.h"
#include "posebatch.h"
#include "posebatch/io.h"
#include "ref.h"

/* P*J transforms: 10 tracks (w x y z, px py pz, sx sy sz) */
typedef struct {
    size_t n;
    float *t[10];
} xfs;
static xfs xfs_new(rng_t *r, size_t n, double scale_lo)
{
    xfs s = {n, {0}};
    for (int k = 0; k < 10; k++) {
        s.t[k] = malloc((n ? n : 1) * sizeof(float));
        cr_assert(s.t[k]);
    }
    for (size_t i = 0; i < n; i++) {
        rq q = rng_quat(r);
        s.t[0][i] = (float)q.w, s.t[1][i] = (float)q.x, s.t[2][i] = (float)q.y;
        s.t[3][i] = (float)q.z;
        rv3 v = rng_vec3(r, 50.0);
        s.t[4][i] = (float)v.x, s.t[5][i] = (float)v.y, s.t[6][i] = (float)v.z;
        for (int k = 7; k < 10; k++)
            s.t[k][i] = (float)(rng_logrange(r, scale_lo, 4.0) * rng_sign(r));
    }
    return s;
}
static void xfs_free(xfs *s)
{
    for (int k = 0; k < 10; k++)
        free(s->t[k]);
}
static pb_cpose xfs_view(const xfs *s, int pos, int scl)
{
    pb_cpose p = {{s->t[0], s->t[1], s->t[2], s->t[3]},
                  {pos ? s->t[4] : NULL, pos ? s->t[5] : NULL, pos ? s->t[6] : NULL},
                  {scl ? s->t[7] : NULL, scl ? s->t[8] : NULL, scl ? s->t[9] : NULL}};
    return p;
}

/* random affine matrices (rotation x scale, translation), column-major */
static float *affine_new(rng_t *r, size_t J)
{
    float *m = malloc(J * 16 * sizeof(float));
    cr_assert(m);
    for (size_t j = 0; j < J; j++) {
        for (int k = 0; k < 16; k++)
            m[j * 16 + k] = (float)rng_range(r, -3.0, 3.0);
        m[j * 16 + 3] = m[j * 16 + 7] = m[j * 16 + 11] = 0.0f;
        m[j * 16 + 15] = 1.0f;
    }
    return m;
}

/* the 4x4 model matrix of transform i in double, from the float inputs */
static void model_matrix(const xfs *s, size_t i, int pos, int scl, double M[4][4])
{
    const double w = s->t[0][i], x = s->t[1][i], y = s->t[2][i], z = s->t[3][i];
    const double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                            {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                            {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            M[r][c] = R[r][c] * (scl ? s->t[7 + c][i] : 1.0);
        M[r][3] = pos ? s->t[4 + r][i] : 0.0;
        M[3][r] = 0.0;
    }
    M[3][3] = 1.0;
}

/* checks out against M B per element (S the scales, for the bound: the
 * rotation's entries are at most 1 and carry an error of a few ulps of 1);
 * returns the worst error / bound */
static double check_one(const char *what, double M[4][4], const double S[3], const float *B,
                        const float *o, int rows3)
{
    double worst = 0;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            double want = 0, mag = 0;
            for (int k = 0; k < 4; k++) {
                const double b = B ? B[c * 4 + k] : (k == c);
                want += M[r][k] * b;
                mag += fabs((k < 3 ? S[k] : M[r][3]) * b);
            }
            if (r == 3) {
                if (rows3)
                    continue;
                const float want3 = B ? B[c * 4 + 3] : (c == 3);
                if (memcmp(&o[c * 4 + 3], &want3, sizeof(float)) != 0)
                    cr_assert_fail("%s: row 3 col %d is %g, want %g exactly", what, c, o[c * 4 + 3],
                                   want3);
                continue;
            }
            const double got = rows3 ? o[r * 4 + c] : o[c * 4 + r];
            const double err = fabs(got - want), bound = 1e-6 * mag;
            if (!(err <= bound || (mag == 0 && got == 0)))
                cr_assert_fail("%s: element (%d,%d) %.9g, want %.9g (err %.3g, bound %.3g)", what,
                               r, c, got, want, err, bound);
            if (mag > 0)
                worst = fmax(worst, err / bound);
        }
    return worst;
}

Test(skin, matrices_against_double, .timeout = 300)
{
    rng_t r = rng_seed(61);
    double worst = 0;
    for (size_t J = 1; J <= 1024; J = J < 40 ? J + 1 : 1025) {
        if (J == 41)
            J = 1024;
        float *ib = affine_new(&r, J);
        for (size_t P = 1; P <= 67; P += (J <= 17 ? 11 : 33)) {
            const size_t n = P * J;
            xfs m = xfs_new(&r, n, 0.05);
            float *out = malloc(n * 16 * sizeof(float));
            cr_assert(out);
            for (int v = 0; v < 16; v++) {
                const int pos = v & 1, scl = (v >> 1) & 1, rows3 = (v >> 2) & 1, noib = v >> 3;
                const size_t stride = rows3 ? 12 : 16;
                pb_cpose mp = xfs_view(&m, pos, scl);
                for (size_t i = 0; i < n * 16; i++)
                    out[i] = NAN;
                cr_assert_eq(pb_pose_skinning_matrices(P, J, &mp, noib ? NULL : ib,
                                                       rows3 ? PB_MATRIX_3X4 : PB_MATRIX_4X4, out),
                             PB_OK);
                for (size_t i = 0; i < n; i++) {
                    double M[4][4];
                    model_matrix(&m, i, pos, scl, M);
                    char what[96] = "";
                    if (i == 0 || i + 1 == n) /* a name for the first and last only */
                        snprintf(what, sizeof what,
                                 "J=%zu P=%zu i=%zu pos %d scale %d 3x4 %d ib %d", J, P, i, pos,
                                 scl, rows3, !noib);
                    else
                        snprintf(what, sizeof what, "J=%zu P=%zu", J, P);
                    const double S[3] = {scl ? m.t[7][i] : 1, scl ? m.t[8][i] : 1,
                                         scl ? m.t[9][i] : 1};
                    worst = fmax(worst, check_one(what, M, S, noib ? NULL : ib + (i % J) * 16,
                                                  out + i * stride, rows3));
                }
                for (size_t i = n * stride; i < n * 16; i++)
                    if (!isnan(out[i]))
                        cr_assert_fail("3x4: float %zu past the matrices written", i);
            }
            free(out);
            xfs_free(&m);
        }
        free(ib);
    }
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr, "skinning matrices: worst %.3g of the bound\n", worst);
}

/* the rest pose's model transforms (forward kinematics) times the inverse
 * bind matrices made from that rest pose give identities */
Test(skin, inverse_bind_undoes_the_rest_pose, .timeout = 120)
{
    rng_t r = rng_seed(67);
    static const size_t Js[] = {1, 5, 31, 100};
    for (size_t ji = 0; ji < 4; ji++) {
        const size_t J = Js[ji];
        int32_t *par = malloc(J * sizeof *par);
        cr_assert(par);
        for (size_t j = 0; j < J; j++)
            par[j] = j == 0 ? -1 : (int32_t)(rng_next(&r) % j);
        xfs rest = xfs_new(&r, J, 0.5), model = xfs_new(&r, J, 0.5);
        for (int sv = 0; sv < 2; sv++) {
            pb_cpose l = xfs_view(&rest, 1, sv), mc = xfs_view(&model, 1, sv);
            pb_pose mo = {{model.t[0], model.t[1], model.t[2], model.t[3]},
                          {model.t[4], model.t[5], model.t[6]},
                          {sv ? model.t[7] : NULL, sv ? model.t[8] : NULL, sv ? model.t[9] : NULL}};
            cr_assert_eq(pb_pose_local_to_model(1, J, par, &l, &mo), PB_OK);
            float *ib = malloc(J * 16 * sizeof(float)), *out = malloc(J * 16 * sizeof(float));
            cr_assert(ib && out);
            cr_assert_eq(pb_pose_inverse_bind_matrices(J, par, &l, ib), PB_OK);
            cr_assert_eq(pb_pose_skinning_matrices(1, J, &mc, ib, PB_MATRIX_4X4, out), PB_OK);
            for (size_t j = 0; j < J; j++) {
                /* error scale: the model translation's size over the
                 * smallest scale, through the depth of the chain */
                double size = 1;
                for (int k = 0; k < 3; k++)
                    size = fmax(size, fabs(model.t[4 + k][j]));
                for (int k = 0; k < 16; k++) {
                    const double want = k % 5 == 0;
                    cr_assert(fabs(out[j * 16 + k] - want) <= 2e-5 * size,
                              "J=%zu joint %zu scales %d: M B element %d is %.9g", J, j, sv, k,
                              out[j * 16 + k]);
                }
            }
            free(ib);
            free(out);
        }
        xfs_free(&rest);
        xfs_free(&model);
        free(par);
    }
}

/* each inverse bind matrix against the double inversion of the double FK
 * of the rest pose */
Test(skin, inverse_bind_against_double)
{
    /* a chain of 3: a rotation about z by 90 degrees, then x by 90, scales */
    const int32_t par[3] = {-1, 0, 1};
    const float s2 = (float)sqrt(0.5);
    float w[3] = {s2, s2, 1}, x[3] = {0, s2, 0}, y[3] = {0, 0, 0}, z[3] = {s2, 0, 0};
    float px[3] = {1, 2, 0}, py[3] = {0, 0, 3}, pz[3] = {0, 0, 0};
    float sx[3] = {2, 1, 1}, sy[3] = {2, 1, 0.5f}, sz[3] = {2, 1, 1};
    pb_cpose rest = {{w, x, y, z}, {px, py, pz}, {sx, sy, sz}};
    float ib[48];
    cr_assert_eq(pb_pose_inverse_bind_matrices(3, par, &rest, ib), PB_OK);
    /* joint 0: M = [2 Rz90, (1,0,0)]: B = [Rz90^T / 2, -Rz90^T (1,0,0) / 2] */
    const float want0[16] = {0, -0.5f, 0, 0, 0.5f, 0, 0, 0, 0, 0, 0.5f, 0, 0, 0.5f, 0, 1};
    for (int k = 0; k < 16; k++)
        cr_assert(fabsf(ib[k] - want0[k]) <= 1e-7f, "joint 0 element %d: %g, want %g", k, ib[k],
                  want0[k]);
    /* joint 1: R = Rz90 Rx90, S = 2, T = (1,0,0) + Rz90 (2 * (2,0,0)) =
     * (1, 4, 0); joint 2: R the same, S = (2, 1, 2), T = (1,4,0) + R (2 *
     * (0,3,0)) with R (0,1,0) = Rz90 (0,0,1) = (0,0,1): (1, 4, 6) */
    const double T1[3] = {1, 4, 0}, T2[3] = {1, 4, 6}, S1[3] = {2, 2, 2}, S2[3] = {2, 1, 2};
    /* R = Rz90 Rx90: columns R e_x = (0,1,0), R e_y = (0,0,1), R e_z = (1,0,0) */
    const double R[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    const double *T[2] = {T1, T2}, *S[2] = {S1, S2};
    for (int jj = 0; jj < 2; jj++) {
        const float *o = ib + 16 * (jj + 1);
        for (int rr = 0; rr < 3; rr++) {
            double tr = 0;
            for (int c = 0; c < 3; c++) {
                const double v = R[c][rr] / S[jj][rr];
                cr_assert(fabs(o[c * 4 + rr] - v) <= 1e-7, "joint %d B(%d,%d) %g want %g", jj + 1,
                          rr, c, o[c * 4 + rr], v);
                tr -= v * T[jj][c];
            }
            cr_assert(fabs(o[12 + rr] - tr) <= 1e-6, "joint %d B(%d,3) %g want %g", jj + 1, rr,
                      o[12 + rr], tr);
        }
        cr_assert(o[3] == 0 && o[7] == 0 && o[11] == 0 && o[15] == 1);
    }
}

Test(skin, bvh_rest_pose_of_the_shipped_clip)
{
    pb_bvh b;
    memset(&b, 0, sizeof b);
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &b, &err), PB_IO_OK, "%s",
                 err.message);
    const size_t J = b.num_joints;
    float *ib = malloc(J * 16 * sizeof(float));
    cr_assert(ib);
    cr_assert_eq(pb_bvh_inverse_bind_matrices(&b, ib, &err), PB_IO_OK, "%s", err.message);
    /* rest pose: identity rotations, so B = [I, -(sum of OFFSETs up the
     * chain)] */
    for (size_t j = 0; j < J; j++) {
        double T[3] = {0, 0, 0};
        for (long a = (long)j; a >= 0; a = b.joints[a].parent)
            for (int k = 0; k < 3; k++)
                T[k] += b.joints[a].offset[k];
        for (int k = 0; k < 12; k++)
            cr_assert(ib[j * 16 + k] == (k % 5 == 0 ? 1.0f : 0.0f), "joint %zu element %d", j, k);
        for (int k = 0; k < 3; k++)
            cr_assert(fabs(ib[j * 16 + 12 + k] + T[k]) <= 1e-6 * (1 + fabs(T[k])),
                      "joint %zu translation %d: %g, want %g", j, k, ib[j * 16 + 12 + k], -T[k]);
        cr_assert(ib[j * 16 + 15] == 1.0f);
    }
    cr_assert_eq(pb_bvh_inverse_bind_matrices(NULL, ib, &err), PB_IO_ERR_ARG);
    cr_assert_eq(pb_bvh_inverse_bind_matrices(&b, NULL, &err), PB_IO_ERR_ARG);
    free(ib);
    pb_bvh_free(&b);
}

/* every error status, nothing written */
Test(skin, errors)
{
    rng_t r = rng_seed(71);
    xfs m = xfs_new(&r, 8, 0.5);
    float ib[8 * 16], out[8 * 16 + 4];
    for (int k = 0; k < 8 * 16; k++)
        ib[k] = k % 5 == 0 ? 1.0f : 0.0f;
    for (int k = 0; k < 8 * 16 + 4; k++)
        out[k] = -7.0f;
    pb_cpose p = xfs_view(&m, 1, 1), bad = p;
    bad.pos.y = NULL;
    pb_cpose norot = p;
    norot.rot.z = NULL;
    cr_assert_eq(pb_pose_skinning_matrices(2, 4, NULL, ib, PB_MATRIX_4X4, out), PB_ERR_NULL);
    cr_assert_eq(pb_pose_skinning_matrices(2, 4, &p, ib, PB_MATRIX_4X4, NULL), PB_ERR_NULL);
    cr_assert_eq(pb_pose_skinning_matrices(2, 4, &bad, ib, PB_MATRIX_4X4, out), PB_ERR_NULL);
    cr_assert_eq(pb_pose_skinning_matrices(2, 4, &norot, ib, PB_MATRIX_4X4, out), PB_ERR_NULL);
    cr_assert_eq(pb_pose_skinning_matrices(0, 4, &p, ib, PB_MATRIX_4X4, out), PB_ERR_SIZE);
    cr_assert_eq(pb_pose_skinning_matrices(2, 0, &p, ib, PB_MATRIX_4X4, out), PB_ERR_SIZE);
    cr_assert_eq(pb_pose_skinning_matrices(PB_MAX_COUNT, 2, &p, ib, PB_MATRIX_4X4, out),
                 PB_ERR_SIZE);
    cr_assert_eq(pb_pose_skinning_matrices(2, 4, &p, ib, (pb_matrix_layout)2, out), PB_ERR_ARG);
    /* out over an input: the rotations, the inverse bind matrices */
    cr_assert_eq(pb_pose_skinning_matrices(2, 4, &p, ib, PB_MATRIX_4X4, m.t[0]), PB_ERR_ALIAS);
    cr_assert_eq(pb_pose_skinning_matrices(1, 2, &p, ib, PB_MATRIX_3X4, ib + 20), PB_ERR_ALIAS);
    for (int k = 0; k < 8 * 16 + 4; k++)
        cr_assert(out[k] == -7.0f, "float %d written", k);
    /* inverse bind: bad parents, a zero scale, NaN, NULLs, aliasing */
    const int32_t par[4] = {-1, 0, 1, 1}, badpar[4] = {-1, 0, 3, 1};
    cr_assert_eq(pb_pose_inverse_bind_matrices(4, badpar, &p, out), PB_ERR_ARG);
    cr_assert_eq(pb_pose_inverse_bind_matrices(4, NULL, &p, out), PB_ERR_NULL);
    cr_assert_eq(pb_pose_inverse_bind_matrices(4, par, NULL, out), PB_ERR_NULL);
    cr_assert_eq(pb_pose_inverse_bind_matrices(4, par, &p, NULL), PB_ERR_NULL);
    cr_assert_eq(pb_pose_inverse_bind_matrices(4, par, &bad, out), PB_ERR_NULL);
    cr_assert_eq(pb_pose_inverse_bind_matrices(0, par, &p, out), PB_ERR_SIZE);
    cr_assert_eq(pb_pose_inverse_bind_matrices(4, par, &p, m.t[4]), PB_ERR_ALIAS);
    const float keep = m.t[8][2];
    m.t[8][2] = 0.0f;
    cr_assert_eq(pb_pose_inverse_bind_matrices(4, par, &p, out), PB_ERR_ARG);
    m.t[8][2] = NAN;
    cr_assert_eq(pb_pose_inverse_bind_matrices(4, par, &p, out), PB_ERR_ARG);
    m.t[8][2] = keep;
    const float kw = m.t[0][3], kx = m.t[1][3], ky = m.t[2][3], kz = m.t[3][3];
    m.t[0][3] = m.t[1][3] = m.t[2][3] = m.t[3][3] = 0.0f;
    cr_assert_eq(pb_pose_inverse_bind_matrices(4, par, &p, out), PB_ERR_ARG);
    m.t[0][3] = kw, m.t[1][3] = kx, m.t[2][3] = ky, m.t[3][3] = kz;
    for (int k = 0; k < 8 * 16 + 4; k++)
        cr_assert(out[k] == -7.0f, "float %d written", k);
    cr_assert_eq(pb_pose_inverse_bind_matrices(4, par, &p, out), PB_OK);
    xfs_free(&m);
}
