/* The argument check's glance over a pose blend's blended layers
 * (pb_pose_blend_layers, src/blend.c), compiled with each backend's
 * instruction set: a layer's pose pointers against the outputs' hull four
 * at a time (GCC vector extensions: one AVX2 operation where the backend
 * has AVX2, pairs of SSE2 or NEON ones elsewhere). Included by kernels.h. */
#ifndef PB_KERNELS_GLANCE_H
#define PB_KERNELS_GLANCE_H

#include <stddef.h>

#if UINTPTR_MAX == UINT64_MAX && defined(__GNUC__)
#define PB_GLANCE_VEC 1
typedef int64_t pb_i64x4 __attribute__((vector_size(32)));

/* For u an array's start, x = u - a with a = lo - bytes + 1, b = hi - lo +
 * bytes - 1 (the outputs' hull [lo, hi), every array `bytes` long, hi below
 * 2^62: the caller's condition): the array meets the hull iff 0 <= x < b,
 * i.e. x's sign clear and x - b's set; u | (u - 1) has its sign set iff u is
 * NULL or at or above 2^63 (lanes where nul is set). A lane's sign marks it. */
PB_INLINE pb_i64x4 glance_bad(pb_i64x4 u, pb_i64x4 a, pb_i64x4 b, pb_i64x4 nul)
{
    const pb_i64x4 one = {1, 1, 1, 1};
    pb_i64x4 x = u - a;
    return (~x & (x - b)) | ((u | (u - one)) & nul);
}
#endif

/* Whether any blended layer's pose pointer (rotations always, positions if
 * tracks & 1, scales if tracks & 2), its joint weights when not NULL, or a
 * used track of the reference (ref may be NULL; its rotation if rtracks & 4,
 * positions if rtracks & 1, scales if rtracks & 2) may be NULL or meet the
 * outputs' hull (a, b as above; inputs `bytes` long): 1 sends the check to
 * the array-by-array pass, which alone decides (this may answer 1 where
 * that pass finds nothing). */
static int k_layers_glance(size_t k, const pb_blend_layer *l, const pb_cpose *ref,
                           unsigned rtracks, uintptr_t a, uintptr_t b, unsigned tracks)
{
#if defined(PB_GLANCE_VEC)
    /* a pb_blend_layer as 12 words: weight (and padding), joint_weights,
     * rot w x y z, pos x y z, scale x y z; a pb_cpose as its last 10 */
    if (sizeof(pb_blend_layer) == 96 && offsetof(pb_blend_layer, joint_weights) == 8 &&
        offsetof(pb_blend_layer, pose) == 16 && sizeof(pb_cpose) == 80) {
        const int64_t P = (tracks & 1) ? -1 : 0, S = (tracks & 2) ? -1 : 0;
        /* the lanes tested, and (n0) those NULL-tested in the first word
         * group: not the weight, joint_weights against the hull only */
        const pb_i64x4 m0 = {0, -1, -1, -1}, n0 = {0, 0, -1, -1};
        const pb_i64x4 m1 = {-1, -1, P, P}, m2 = {P, S, S, S};
        const pb_i64x4 va = {(int64_t)a, (int64_t)a, (int64_t)a, (int64_t)a};
        const pb_i64x4 vb = {(int64_t)b, (int64_t)b, (int64_t)b, (int64_t)b};
        pb_i64x4 acc = {0, 0, 0, 0};
        for (size_t i = 0; i < k; i++) {
            pb_i64x4 v0, v1, v2;
            const char *p = (const char *)&l[i];
            memcpy(&v0, p, 32);
            memcpy(&v1, p + 32, 32);
            memcpy(&v2, p + 64, 32);
            acc |= (glance_bad(v0, va, vb, n0) & m0) | (glance_bad(v1, va, vb, m1) & m1) |
                   (glance_bad(v2, va, vb, m2) & m2);
        }
        if (ref) { /* words 0-3 rot, 4-7 pos and scale.x, 6-9 pos.y .. scale.z */
            const int64_t R = (rtracks & 4) ? -1 : 0, RP = (rtracks & 1) ? -1 : 0,
                          RS = (rtracks & 2) ? -1 : 0;
            const pb_i64x4 r0 = {R, R, R, R}, r1 = {RP, RP, RP, RS}, r2 = {RP, RS, RS, RS};
            pb_i64x4 v0, v1, v2;
            const char *p = (const char *)ref;
            memcpy(&v0, p, 32);
            memcpy(&v1, p + 32, 32);
            memcpy(&v2, p + 48, 32);
            acc |= (glance_bad(v0, va, vb, r0) & r0) | (glance_bad(v1, va, vb, r1) & r1) |
                   (glance_bad(v2, va, vb, r2) & r2);
        }
        return (acc[0] | acc[1] | acc[2] | acc[3]) < 0;
    }
#endif
    int bad = 0;
    for (size_t i = 0; i <= k; i++) {
        const pb_cpose *q = i < k ? &l[i].pose : ref;
        unsigned t = i < k ? tracks | 4u : rtracks;
        if (!q)
            continue;
        const float *p[10] = {q->rot.w,   q->rot.x,   q->rot.y,   q->rot.z,   q->pos.x,
                              q->pos.y,   q->pos.z,   q->scale.x, q->scale.y, q->scale.z};
        for (int j = 0; j < 10; j++) {
            uintptr_t u = (uintptr_t)p[j];
            if (t & (j < 4 ? 4u : j < 7 ? 1u : 2u))
                bad |= (u - a < b) | (u == 0);
        }
        if (i < k && l[i].joint_weights)
            bad |= (uintptr_t)l[i].joint_weights - a < b;
    }
    return bad;
}

#endif
