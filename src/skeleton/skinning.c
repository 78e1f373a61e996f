/* Skinning matrices: pb_pose_skinning_matrices (the dispatched kernel,
 * simd/kernels_skin.h) and pb_pose_inverse_bind_matrices (a rest pose's
 * model matrices inverted, in double). Every argument is checked before
 * anything is written. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "quat64.h"

/* a pose's rotation (required) and optional position / scale tracks: NULL
 * argument or rotation, or a track with only some arrays: PB_ERR_NULL;
 * *pos / *scl say which optional tracks are there; a[] gets the 10 arrays
 * (NULL where absent) */
static pb_status pose_tracks(const pb_cpose *p, int *pos, int *scl, const float *a[10])
{
    if (!p)
        return PB_ERR_NULL;
    const float *v[10] = {p->rot.w, p->rot.x, p->rot.y,   p->rot.z,   p->pos.x,
                          p->pos.y, p->pos.z, p->scale.x, p->scale.y, p->scale.z};
    for (int k = 0; k < 10; k++)
        a[k] = v[k];
    if (!v[0] || !v[1] || !v[2] || !v[3])
        return PB_ERR_NULL;
    const int np = !!v[4] + !!v[5] + !!v[6], ns = !!v[7] + !!v[8] + !!v[9];
    if ((np != 0 && np != 3) || (ns != 0 && ns != 3))
        return PB_ERR_NULL;
    *pos = np == 3;
    *scl = ns == 3;
    return PB_OK;
}

/* whether [p, p + bytes) meets one of the n arrays of `each` bytes (NULL:
 * absent) or the extra range [x, x + xbytes) */
static int meets_any(const void *p, size_t bytes, const float *const *a, int n, size_t each,
                     const void *x, size_t xbytes)
{
    const chk_range r = chk_range_of(p, bytes);
    for (int k = 0; k < n; k++)
        if (a[k] && chk_meets(r, chk_range_of(a[k], each)))
            return 1;
    return x && xbytes && chk_meets(r, chk_range_of(x, xbytes));
}

pb_status pb_pose_skinning_matrices(size_t poses, size_t joints, const pb_cpose *model,
                                    const float *inverse_bind, pb_matrix_layout layout, float *out)
{
    int pos, scl;
    const float *a[10];
    pb_status st = pose_tracks(model, &pos, &scl, a);
    if (st != PB_OK)
        return st;
    if (!out)
        return PB_ERR_NULL;
    if (poses == 0 || joints == 0 || poses > PB_MAX_COUNT || joints > PB_MAX_COUNT ||
        poses * joints > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    if (layout != PB_MATRIX_4X4 && layout != PB_MATRIX_3X4)
        return PB_ERR_ARG;
    const size_t n = poses * joints, stride = layout == PB_MATRIX_3X4 ? 12 : 16;
    if (meets_any(out, n * stride * sizeof(float), a, 10, n * sizeof(float), inverse_bind,
                  inverse_bind ? joints * 16 * sizeof(float) : 0))
        return PB_ERR_ALIAS;
    pb_kernels_for(joints)->skinning_matrices(poses, joints, model, inverse_bind,
                                              layout == PB_MATRIX_3X4, out);
    return PB_OK;
}

/* ------------------------------------------------- inverse bind matrices */

pb_status pb_pose_inverse_bind_matrices(size_t joints, const int32_t *parents, const pb_cpose *rest,
                                        float *out)
{
    int pos, scl;
    const float *a[10];
    pb_status st = pose_tracks(rest, &pos, &scl, a);
    if (st != PB_OK)
        return st;
    if (!parents || !out)
        return PB_ERR_NULL;
    if (joints == 0 || joints > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    if (!chk_parents_ok(parents, joints))
        return PB_ERR_ARG;
    if (meets_any(out, joints * 16 * sizeof(float), a, 10, joints * sizeof(float), parents,
                  joints * sizeof(int32_t)))
        return PB_ERR_ALIAS;
    /* the rest's model transforms in double, then each inverted; nothing
     * is written until every joint is known to invert */
    typedef struct {
        dq r;
        double t[3], s[3];
    } xf;
    xf *m = malloc(joints * sizeof *m);
    if (!m)
        return PB_ERR_NOMEM;
    for (size_t j = 0; j < joints; j++) {
        xf l = {{a[0][j], a[1][j], a[2][j], a[3][j]}, {0, 0, 0}, {1, 1, 1}};
        for (int k = 0; k < 3; k++) {
            if (pos)
                l.t[k] = a[4 + k][j];
            if (scl)
                l.s[k] = a[7 + k][j];
        }
        int finite = isfinite(l.r.w) && isfinite(l.r.x) && isfinite(l.r.y) && isfinite(l.r.z);
        for (int k = 0; k < 3; k++)
            finite = finite && isfinite(l.t[k]) && isfinite(l.s[k]);
        l.r = dq_unit(l.r);
        if (!finite || !(l.r.w * l.r.w + l.r.x * l.r.x + l.r.y * l.r.y + l.r.z * l.r.z > 0.5)) {
            free(m);
            return PB_ERR_ARG;
        }
        const int32_t p = parents[j];
        if (p >= 0) {
            const xf *P = &m[p];
            double st_[3];
            for (int k = 0; k < 3; k++)
                st_[k] = P->s[k] * l.t[k];
            dq_rot(P->r, st_, l.t);
            for (int k = 0; k < 3; k++) {
                l.t[k] += P->t[k];
                l.s[k] *= P->s[k];
            }
            l.r = dq_unit(dq_mul(P->r, l.r));
        }
        for (int k = 0; k < 3; k++)
            if (!(l.s[k] != 0.0) || !isfinite(l.s[k]) || !isfinite(l.t[k])) {
                free(m);
                return PB_ERR_ARG;
            }
        m[j] = l;
    }
    for (size_t j = 0; j < joints; j++) {
        const xf *x = &m[j];
        /* R's columns: R e_c */
        double R[3][3];
        for (int c = 0; c < 3; c++) {
            const double e[3] = {c == 0, c == 1, c == 2};
            double col[3];
            dq_rot(x->r, e, col);
            for (int r = 0; r < 3; r++)
                R[r][c] = col[r];
        }
        /* B = [diag(1/S) R^T, -diag(1/S) R^T T; 0 0 0 1]: B(r, c) =
         * R(c, r) / S(r) for c < 3 */
        float *o = out + j * 16;
        for (int r = 0; r < 3; r++) {
            double tr = 0;
            for (int c = 0; c < 3; c++) {
                const double v = R[c][r] / x->s[r];
                o[c * 4 + r] = (float)v;
                tr -= v * x->t[c];
            }
            o[12 + r] = (float)tr;
        }
        o[3] = o[7] = o[11] = 0.0f;
        o[15] = 1.0f;
    }
    free(m);
    return PB_OK;
}

/* ------------------------------------------------ linear blend skinning */

/* matrices copied to aligned storage on the stack up to this many floats
 * (8 KiB: 128 4x4 matrices), above it on the heap */
#define LBS_LOCAL_FLOATS 2048

pb_status pb_skin_vertices(size_t vertices, int influences, const uint16_t *joints,
                           const float *weights, size_t joint_count, const float *matrices,
                           pb_matrix_layout layout, const float *positions, float *out_positions,
                           const float *normals, float *out_normals)
{
    if (!joints || !weights || !matrices || !positions || !out_positions ||
        (!normals != !out_normals))
        return PB_ERR_NULL;
    if (vertices == 0 || vertices > PB_MAX_COUNT || joint_count == 0 || joint_count > 65536)
        return PB_ERR_SIZE;
    if (influences < 1 || influences > 8 || (layout != PB_MATRIX_4X4 && layout != PB_MATRIX_3X4))
        return PB_ERR_ARG;
    const size_t k = (size_t)influences, stride = layout == PB_MATRIX_3X4 ? 12 : 16;
    const size_t vb = vertices * 3 * sizeof(float);
    const chk_range in[4] = {chk_range_of(joints, vertices * k * sizeof(uint16_t)),
                             chk_range_of(weights, vertices * k * sizeof(float)),
                             chk_range_of(matrices, joint_count * stride * sizeof(float)),
                             chk_range_of(positions, vb)};
    const chk_range op = chk_range_of(out_positions, vb);
    for (int i = 0; i < 3; i++)
        if (chk_meets(op, in[i]))
            return PB_ERR_ALIAS;
    if (out_positions != positions && chk_meets(op, in[3]))
        return PB_ERR_ALIAS;
    if (normals) {
        const chk_range ni = chk_range_of(normals, vb), on = chk_range_of(out_normals, vb);
        for (int i = 0; i < 4; i++)
            if (chk_meets(on, in[i]))
                return PB_ERR_ALIAS;
        if (chk_meets(on, op) || chk_meets(op, ni) || (out_normals != normals && chk_meets(on, ni)))
            return PB_ERR_ALIAS;
    }
    const pb_kernels *kn = pb_kernels_for(vertices);
    if (kn->skin_max_joint(joints, vertices * k) >= joint_count)
        return PB_ERR_ARG;
    /* the kernel loads each influence's matrix whole (64 bytes on 16 lanes):
     * loads that straddle two cache lines cost about 15 % of the time
     * (docs/performance.md, "Skinning"), so matrices not 64-byte aligned
     * are copied to aligned storage when there are at least as many
     * vertices as joints (the copy is then a few percent of the work) */
    _Alignas(64) float local[LBS_LOCAL_FLOATS];
    float *heap = NULL;
    const float *m = matrices;
    const size_t mfloats = joint_count * stride;
    if ((uintptr_t)matrices % 64 != 0 && vertices >= joint_count) {
        float *copy = local;
        if (mfloats > LBS_LOCAL_FLOATS)
            copy = heap = aligned_alloc(64, (mfloats * sizeof(float) + 63) / 64 * 64);
        if (copy) { /* no memory: the unaligned loads, the same results */
            memcpy(copy, matrices, mfloats * sizeof(float));
            m = copy;
        }
    }
    kn->skin_vertices(vertices, influences, joints, weights, m, layout == PB_MATRIX_3X4, positions,
                      out_positions, normals, out_normals);
    free(heap);
    return PB_OK;
}
