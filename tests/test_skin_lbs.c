/* Linear blend skinning: pb_skin_vertices on the active backend (the suite
 * runs once per backend) against the same sums in double from the same
 * float inputs (the header's bound per coordinate, and 1e-5 of the mesh's
 * extent), K = 1..8 influences, both matrix layouts, with and without
 * normals, V = 1..40, 1000 and 1029 vertices (every block and tail shape),
 * in place and not; a mesh posed by pb_pose_skinning_matrices' output; every
 * error with nothing written; matrices at every alignment. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"
#include "ref.h"

typedef struct {
    size_t V, J;
    int K;
    uint16_t *jt;
    float *wt, *pos, *nrm, *mat; /* mat: J 4x4 column-major */
} mesh;

static mesh mesh_new(rng_t *r, size_t V, size_t J, int K)
{
    mesh m = {V, J, K, NULL, NULL, NULL, NULL, NULL};
    m.jt = malloc(V * (size_t)K * sizeof *m.jt);
    m.wt = malloc(V * (size_t)K * sizeof *m.wt);
    m.pos = malloc(V * 3 * sizeof *m.pos);
    m.nrm = malloc(V * 3 * sizeof *m.nrm);
    m.mat = malloc(J * 16 * sizeof *m.mat);
    cr_assert(m.jt && m.wt && m.pos && m.nrm && m.mat);
    for (size_t v = 0; v < V; v++) {
        double sum = 0;
        for (int k = 0; k < K; k++) {
            m.jt[v * K + k] = (uint16_t)(rng_next(r) % J);
            m.wt[v * K + k] = (float)rng_uniform(r);
            sum += m.wt[v * K + k];
        }
        for (int k = 0; k < K; k++)
            m.wt[v * K + k] = (float)(m.wt[v * K + k] / (sum > 0 ? sum : 1));
        rv3 p = rng_vec3(r, 2.0), n = rng_unit3(r);
        m.pos[v * 3] = (float)p.x, m.pos[v * 3 + 1] = (float)p.y, m.pos[v * 3 + 2] = (float)p.z;
        m.nrm[v * 3] = (float)n.x, m.nrm[v * 3 + 1] = (float)n.y, m.nrm[v * 3 + 2] = (float)n.z;
    }
    for (size_t j = 0; j < J; j++) {
        for (int k = 0; k < 16; k++)
            m.mat[j * 16 + k] = (float)rng_range(r, -1.5, 1.5);
        for (int k = 12; k < 15; k++)
            m.mat[j * 16 + k] = (float)rng_range(r, -20.0, 20.0);
        m.mat[j * 16 + 3] = m.mat[j * 16 + 7] = m.mat[j * 16 + 11] = 0.0f;
        m.mat[j * 16 + 15] = 1.0f;
    }
    return m;
}
static void mesh_free(mesh *m)
{
    free(m->jt), free(m->wt), free(m->pos), free(m->nrm), free(m->mat);
}
/* the 3x4 row-major copy of the 4x4 column-major matrices */
static float *rows3_of(const mesh *m)
{
    float *o = malloc(m->J * 12 * sizeof *o);
    cr_assert(o);
    for (size_t j = 0; j < m->J; j++)
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                o[j * 12 + r * 4 + c] = m->mat[j * 16 + c * 4 + r];
    return o;
}

/* checks out (positions: w 1, normals: w 0) against the double sums; returns
 * the worst error over the header's bound; err_extent: the worst error over
 * the reference's extent (largest |coordinate|) */
static double check(const mesh *m, const float *in, const float *out, int w1, const char *what,
                    double *err_extent)
{
    double worst = 0, extent = 0, werr = 0;
    for (size_t v = 0; v < m->V; v++)
        for (int r = 0; r < 3; r++) {
            double want = 0, mag = 0;
            for (int k = 0; k < m->K; k++) {
                const float *S = m->mat + (size_t)m->jt[v * m->K + k] * 16;
                const double w = m->wt[v * m->K + k];
                double t = w1 ? S[12 + r] : 0, a = w1 ? fabs(S[12 + r]) : 0;
                for (int c = 0; c < 3; c++) {
                    t += (double)S[c * 4 + r] * in[v * 3 + c];
                    a += fabs((double)S[c * 4 + r] * in[v * 3 + c]);
                }
                want += w * t;
                mag += fabs(w) * a;
            }
            const double got = out[v * 3 + r], err = fabs(got - want), bound = 2e-6 * mag;
            if (!(err <= bound))
                cr_assert_fail("%s: vertex %zu coordinate %d: %.9g, want %.9g (err %.3g, bound "
                               "%.3g)",
                               what, v, r, got, want, err, bound);
            if (bound > 0)
                worst = fmax(worst, err / bound);
            extent = fmax(extent, fabs(want));
            werr = fmax(werr, err);
        }
    *err_extent = extent > 0 ? werr / extent : werr;
    return worst;
}

Test(skin_lbs, against_double, .timeout = 300)
{
    rng_t r = rng_seed(83);
    double worst = 0, worst_ext = 0;
    for (size_t V = 1; V <= 1029; V = V < 40 ? V + 1 : V < 1000 ? 1000 : V + 29) {
        for (int K = 1; K <= 8; K++) {
            const size_t J = 1 + (V * 7 + (size_t)K) % 70;
            mesh m = mesh_new(&r, V, J, K);
            float *m3 = rows3_of(&m);
            float *op = malloc(V * 3 * sizeof *op), *on = malloc(V * 3 * sizeof *on);
            float *ip = malloc(V * 3 * sizeof *ip);
            cr_assert(op && on && ip);
            for (int v = 0; v < 8; v++) {
                const int rows3 = v & 1, normals = (v >> 1) & 1, inplace = v >> 2;
                char what[96];
                snprintf(what, sizeof what, "V=%zu K=%d J=%zu 3x4 %d normals %d in place %d", V, K,
                         J, rows3, normals, inplace);
                for (size_t i = 0; i < V * 3; i++)
                    op[i] = on[i] = NAN;
                float *dst = op;
                if (inplace) {
                    memcpy(ip, m.pos, V * 3 * sizeof *ip);
                    dst = ip;
                }
                cr_assert_eq(pb_skin_vertices(V, K, m.jt, m.wt, J, rows3 ? m3 : m.mat,
                                              rows3 ? PB_MATRIX_3X4 : PB_MATRIX_4X4,
                                              inplace ? ip : m.pos, dst, normals ? m.nrm : NULL,
                                              normals ? on : NULL),
                             PB_OK, "%s", what);
                double ext;
                worst = fmax(worst, check(&m, m.pos, dst, 1, what, &ext));
                cr_assert(ext <= 1e-5, "%s: error %.3g of the extent", what, ext);
                worst_ext = fmax(worst_ext, ext);
                if (normals) {
                    worst = fmax(worst, check(&m, m.nrm, on, 0, what, &ext));
                    cr_assert(ext <= 1e-5, "%s: normals: error %.3g of the extent", what, ext);
                } else {
                    for (size_t i = 0; i < V * 3; i++)
                        cr_assert(isnan(on[i]), "%s: normal float %zu written", what, i);
                }
            }
            free(op), free(on), free(ip), free(m3);
            mesh_free(&m);
        }
    }
    if (getenv("POSEBATCH_TEST_VERBOSE"))
        fprintf(stderr, "skin: worst %.3g of the bound, %.3g of the extent\n", worst, worst_ext);
}

/* a two-joint rig: the bind pose's own skinning matrices leave the mesh
 * where it is; a joint turned 90 degrees about z turns its vertices; half
 * weights land halfway */
Test(skin_lbs, posed_rig)
{
    const int32_t par[2] = {-1, 0};
    float w[2] = {1, 1}, x[2] = {0, 0}, y[2] = {0, 0}, z[2] = {0, 0};
    float px[2] = {0, 0}, py[2] = {0, 1}, pz[2] = {0, 0};
    pb_cpose rest = {{w, x, y, z}, {px, py, pz}, {NULL, NULL, NULL}};
    float ib[32], S[32];
    cr_assert_eq(pb_pose_inverse_bind_matrices(2, par, &rest, ib), PB_OK);
    /* model pose: joint 1 (at y = 1) turned 90 degrees about z */
    const float s2 = (float)sqrt(0.5);
    float mw[2] = {1, s2}, mx[2] = {0, 0}, my[2] = {0, 0}, mz[2] = {0, s2};
    pb_cpose model = {{mw, mx, my, mz}, {px, py, pz}, {NULL, NULL, NULL}};
    cr_assert_eq(pb_pose_skinning_matrices(1, 2, &model, ib, PB_MATRIX_4X4, S), PB_OK);
    /* vertex 0 at (0, 2, 0) on joint 1: turns to (-1, 1, 0); vertex 1 the
     * same point half on each: (-0.5, 1.5, 0); vertex 2 on joint 0 stays */
    const uint16_t jt[6] = {1, 0, 0, 1, 0, 1};
    const float wt[6] = {1, 0, 0.5f, 0.5f, 1, 0};
    const float pos[9] = {0, 2, 0, 0, 2, 0, 3, 4, 5}, nrm[9] = {1, 0, 0, 1, 0, 0, 0, 0, 1};
    float op[9], on[9];
    cr_assert_eq(pb_skin_vertices(3, 2, jt, wt, 2, S, PB_MATRIX_4X4, pos, op, nrm, on), PB_OK);
    const float want[9] = {-1, 1, 0, -0.5f, 1.5f, 0, 3, 4, 5};
    const float wantn[9] = {0, 1, 0, 0.5f, 0.5f, 0, 0, 0, 1};
    for (int i = 0; i < 9; i++) {
        cr_assert(fabsf(op[i] - want[i]) <= 1e-6f, "position float %d: %g, want %g", i, op[i],
                  want[i]);
        cr_assert(fabsf(on[i] - wantn[i]) <= 1e-6f, "normal float %d: %g, want %g", i, on[i],
                  wantn[i]);
    }
}

/* every error status, nothing written */
Test(skin_lbs, errors)
{
    rng_t r = rng_seed(89);
    mesh m = mesh_new(&r, 20, 4, 4);
    float op[60], on[60];
    for (int i = 0; i < 60; i++)
        op[i] = on[i] = -7.0f;
    const pb_matrix_layout L = PB_MATRIX_4X4;
    cr_assert_eq(pb_skin_vertices(20, 4, NULL, m.wt, 4, m.mat, L, m.pos, op, NULL, NULL),
                 PB_ERR_NULL);
    cr_assert_eq(pb_skin_vertices(20, 4, m.jt, NULL, 4, m.mat, L, m.pos, op, NULL, NULL),
                 PB_ERR_NULL);
    cr_assert_eq(pb_skin_vertices(20, 4, m.jt, m.wt, 4, NULL, L, m.pos, op, NULL, NULL),
                 PB_ERR_NULL);
    cr_assert_eq(pb_skin_vertices(20, 4, m.jt, m.wt, 4, m.mat, L, NULL, op, NULL, NULL),
                 PB_ERR_NULL);
    cr_assert_eq(pb_skin_vertices(20, 4, m.jt, m.wt, 4, m.mat, L, m.pos, NULL, NULL, NULL),
                 PB_ERR_NULL);
    cr_assert_eq(pb_skin_vertices(20, 4, m.jt, m.wt, 4, m.mat, L, m.pos, op, m.nrm, NULL),
                 PB_ERR_NULL);
    cr_assert_eq(pb_skin_vertices(20, 4, m.jt, m.wt, 4, m.mat, L, m.pos, op, NULL, on),
                 PB_ERR_NULL);
    cr_assert_eq(pb_skin_vertices(0, 4, m.jt, m.wt, 4, m.mat, L, m.pos, op, NULL, NULL),
                 PB_ERR_SIZE);
    cr_assert_eq(
        pb_skin_vertices(PB_MAX_COUNT + 1, 4, m.jt, m.wt, 4, m.mat, L, m.pos, op, NULL, NULL),
        PB_ERR_SIZE);
    cr_assert_eq(pb_skin_vertices(20, 4, m.jt, m.wt, 0, m.mat, L, m.pos, op, NULL, NULL),
                 PB_ERR_SIZE);
    cr_assert_eq(pb_skin_vertices(20, 4, m.jt, m.wt, 65537, m.mat, L, m.pos, op, NULL, NULL),
                 PB_ERR_SIZE);
    cr_assert_eq(pb_skin_vertices(20, 0, m.jt, m.wt, 4, m.mat, L, m.pos, op, NULL, NULL),
                 PB_ERR_ARG);
    cr_assert_eq(pb_skin_vertices(20, 9, m.jt, m.wt, 4, m.mat, L, m.pos, op, NULL, NULL),
                 PB_ERR_ARG);
    cr_assert_eq(
        pb_skin_vertices(20, 4, m.jt, m.wt, 4, m.mat, (pb_matrix_layout)2, m.pos, op, NULL, NULL),
        PB_ERR_ARG);
    /* a joint index past the matrices */
    const uint16_t keep = m.jt[77];
    m.jt[77] = 4;
    cr_assert_eq(pb_skin_vertices(20, 4, m.jt, m.wt, 4, m.mat, L, m.pos, op, NULL, NULL),
                 PB_ERR_ARG);
    m.jt[77] = keep;
    /* aliasing: an output over the weights, the matrices, the other output,
     * the positions shifted by a vertex, normals out over positions in */
    cr_assert_eq(pb_skin_vertices(4, 4, m.jt, m.wt, 4, m.mat, L, m.pos, m.wt + 2, NULL, NULL),
                 PB_ERR_ALIAS);
    cr_assert_eq(pb_skin_vertices(4, 4, m.jt, m.wt, 4, m.mat, L, m.pos, m.mat, NULL, NULL),
                 PB_ERR_ALIAS);
    cr_assert_eq(pb_skin_vertices(4, 4, m.jt, m.wt, 4, m.mat, L, m.pos, op, m.nrm, op + 3),
                 PB_ERR_ALIAS);
    cr_assert_eq(pb_skin_vertices(4, 4, m.jt, m.wt, 4, m.mat, L, m.pos, m.pos + 3, NULL, NULL),
                 PB_ERR_ALIAS);
    cr_assert_eq(pb_skin_vertices(4, 4, m.jt, m.wt, 4, m.mat, L, m.pos, op, m.nrm, m.pos),
                 PB_ERR_ALIAS);
    for (int i = 0; i < 60; i++)
        cr_assert(op[i] == -7.0f && on[i] == -7.0f, "float %d written", i);
    mesh_free(&m);
}

/* the matrices at every 4-byte offset from 64-byte alignment (pb_skin_vertices
 * copies misaligned ones to aligned storage: on the stack up to 128 4x4
 * matrices, on the heap above), the same sums; and a joint index past the
 * matrices anywhere in a long index array (the vectorised check: its running
 * maxima and its tail) */
Test(skin_lbs, matrix_alignment_and_index_check, .timeout = 120)
{
    rng_t r = rng_seed(97);
    const size_t V = 1100;
    for (size_t J = 70; J <= 300; J += 230) {
        mesh m = mesh_new(&r, V, J, 4);
        float *m3 = rows3_of(&m);
        float *buf = malloc((J * 16 + 32) * sizeof *buf), *op = malloc(V * 3 * sizeof *op),
              *on = malloc(V * 3 * sizeof *on);
        cr_assert(buf && op && on);
        float *base = buf;
        while ((uintptr_t)base % 64)
            base++;
        for (int rows3 = 0; rows3 < 2; rows3++)
            for (size_t ofs = 0; ofs < 16; ofs++) {
                float *mat = base + ofs;
                memcpy(mat, rows3 ? m3 : m.mat, J * (rows3 ? 12 : 16) * sizeof *mat);
                char what[96];
                snprintf(what, sizeof what, "J=%zu 3x4 %d matrices at 64-byte boundary + %zu", J,
                         rows3, 4 * ofs);
                cr_assert_eq(pb_skin_vertices(V, 4, m.jt, m.wt, J, mat,
                                              rows3 ? PB_MATRIX_3X4 : PB_MATRIX_4X4, m.pos, op,
                                              m.nrm, on),
                             PB_OK, "%s", what);
                double ext;
                check(&m, m.pos, op, 1, what, &ext);
                cr_assert(ext <= 1e-5, "%s: error %.3g of the extent", what, ext);
                check(&m, m.nrm, on, 0, what, &ext);
                cr_assert(ext <= 1e-5, "%s: normals: error %.3g of the extent", what, ext);
            }
        free(buf), free(op), free(on), free(m3);
        mesh_free(&m);
    }
    /* 1029 vertices of 3 influences: 3087 indices */
    mesh m = mesh_new(&r, 1029, 9, 3);
    float *op = malloc(1029 * 3 * sizeof *op);
    cr_assert(op);
    for (size_t i = 0; i < 1029 * 3; i++)
        op[i] = -7.0f;
    const size_t at[] = {0, 31, 63, 64, 127, 1500, 3071, 3072, 3086};
    for (size_t a = 0; a < sizeof at / sizeof at[0]; a++) {
        const uint16_t keep = m.jt[at[a]];
        for (uint16_t bad = 9; bad != 0; bad = bad == 9 ? 65535 : 0) {
            m.jt[at[a]] = bad;
            cr_assert_eq(pb_skin_vertices(1029, 3, m.jt, m.wt, 9, m.mat, PB_MATRIX_4X4, m.pos, op,
                                          NULL, NULL),
                         PB_ERR_ARG, "index %u at %zu", bad, at[a]);
        }
        m.jt[at[a]] = keep;
    }
    for (size_t i = 0; i < 1029 * 3; i++)
        cr_assert(op[i] == -7.0f, "float %zu written", i);
    cr_assert_eq(
        pb_skin_vertices(1029, 3, m.jt, m.wt, 9, m.mat, PB_MATRIX_4X4, m.pos, op, NULL, NULL),
        PB_OK);
    free(op);
    mesh_free(&m);
}
