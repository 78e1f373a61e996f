/* The argument check's glance over a pose blend's blended layers
 * (pb_pose_blend_layers, src/check_blend.c), compiled with each backend's
 * instruction set: a layer's pose pointers against the outputs' hull four
 * at a time (GCC vector extensions: one AVX2 operation where the backend
 * has AVX2, pairs of SSE2 or NEON ones elsewhere). Included by kernels.h. */
#ifndef PB_KERNELS_GLANCE_H
#define PB_KERNELS_GLANCE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

#if UINTPTR_MAX == UINT64_MAX && defined(__GNUC__)
#define PB_GLANCE_VEC 1
/* unsigned, so that every operation wraps; the tests read sign bits (bit 63) */
typedef uint64_t pb_u64x4 __attribute__((vector_size(32)));

/* For u an array's start, x = u - a with a = lo - bytes + 1, b = hi - lo +
 * bytes - 1 (the outputs' hull [lo, hi), every array `bytes` long, hi below
 * 2^62: the caller's condition; "sign" below is bit 63, the words taken as
 * two's complement): the array meets the hull iff 0 <= x < b, i.e. x's sign
 * clear and x - b's set, where x - b = u - hi (h = a + b: off x's latency);
 * u - 1 has its sign set iff u is NULL or above 2^63 (lanes where nul is
 * set). A lane's sign marks it. */
PB_INLINE pb_u64x4 glance_meet(pb_u64x4 u, pb_u64x4 a, pb_u64x4 h) { return ~(u - a) & (u - h); }
PB_INLINE pb_u64x4 glance_null(pb_u64x4 u)
{
    const pb_u64x4 one = {1, 1, 1, 1};
    return u - one;
}
PB_INLINE pb_u64x4 glance_bad(pb_u64x4 u, pb_u64x4 a, pb_u64x4 h, pb_u64x4 nul)
{
    return glance_meet(u, a, h) | (glance_null(u) & nul);
}
/* glance_bad with every lane NULL-tested */
PB_INLINE pb_u64x4 glance_every(pb_u64x4 u, pb_u64x4 a, pb_u64x4 h)
{
    return glance_meet(u, a, h) | glance_null(u);
}
#if defined(__AVX__)
#include <immintrin.h>
#endif
/* whether any lane has its sign (bit 63) set: one movemask with AVX */
PB_INLINE int glance_any_sign(pb_u64x4 v)
{
#if defined(__AVX__)
    return _mm256_movemask_pd((__m256d)v) != 0;
#else
    return ((v[0] | v[1] | v[2] | v[3]) >> 63) != 0;
#endif
}
/* The layouts the glance reads as words: a change to pb_blend_layer,
 * pb_pose or pb_cpose must update layer_words, outputs_ascend and the lane
 * masks of k_layers_glance, so it stops the build here instead of silently
 * sending every call down the slow path. */
_Static_assert(sizeof(pb_blend_layer) == 96 && offsetof(pb_blend_layer, weight) == 0 &&
                   offsetof(pb_blend_layer, joint_weights) == 8 &&
                   offsetof(pb_blend_layer, pose) == 16,
               "k_layers_glance reads a pb_blend_layer as 12 words");
_Static_assert(sizeof(pb_cpose) == 80 && sizeof(pb_pose) == 80 && offsetof(pb_cpose, pos) == 32 &&
                   offsetof(pb_cpose, scale) == 56,
               "the glance reads a pose as 10 pointers: rot w x y z, pos x y z, scale x y z");
/* a pb_blend_layer's 12 words in three groups of four */
PB_INLINE void layer_words(const pb_blend_layer *l, pb_u64x4 *v0, pb_u64x4 *v1, pb_u64x4 *v2)
{
    const char *p = (const char *)l;
    memcpy(v0, p, 32);
    memcpy(v1, p + 32, 32);
    memcpy(v2, p + 64, 32);
}
#endif

/* The outputs in any order (the m <= 10 starts p, every array `bytes`
 * long): whether none is NULL or at or above 2^62 and, sorted, each starts
 * at least `bytes` after the one before (disjoint); hull[] their lowest
 * start and highest end. The glance's answer where they do not ascend:
 * quaternions stored x, y, z, w, a pose's tracks in another order (ozz's
 * SoaTransform: translation, rotation x y z w, scale). Sorted by a network
 * of 29 compare-exchanges for 10 (Knuth, depth 8; checked on every 0/1
 * input), the missing ones padded, branch-free: about 280 instructions
 * (callgrind), where the array-by-array pass had cost a 16-joint blend
 * 1.75x its time. */
#define PB_GLANCE_CX(a, b)                                                                         \
    do {                                                                                           \
        const uintptr_t lo_ = w[a] < w[b] ? w[a] : w[b];                                           \
        w[b] = w[a] < w[b] ? w[b] : w[a];                                                          \
        w[a] = lo_;                                                                                \
    } while (0)
static __attribute__((noinline)) int outputs_apart(const float *const *p, int m, size_t bytes,
                                                   uintptr_t hull[2])
{
    uintptr_t w[10];
    int bad = 0;
    for (int i = 0; i < 10; i++) {
        const uintptr_t u = (uintptr_t)p[i < m ? i : 0];
        bad |= (u == 0) | (u > UINTPTR_MAX / 4);
        /* a pad for i >= m: above every start (those are below 2^62, 2^30
         * with 32-bit words) and apart from the other pads, so that the pads
         * sort last; only the m - 1 gaps between the starts are tested */
        w[i] = i < m ? u
                     : (sizeof(uintptr_t) == 8
                            ? (uintptr_t)(0x6000000000000000ull + ((uint64_t)i << 40))
                            : UINTPTR_MAX - 9 + (uintptr_t)i);
    }
    PB_GLANCE_CX(0, 8);
    PB_GLANCE_CX(1, 9);
    PB_GLANCE_CX(2, 7);
    PB_GLANCE_CX(3, 5);
    PB_GLANCE_CX(4, 6);
    PB_GLANCE_CX(0, 2);
    PB_GLANCE_CX(1, 4);
    PB_GLANCE_CX(5, 8);
    PB_GLANCE_CX(7, 9);
    PB_GLANCE_CX(0, 3);
    PB_GLANCE_CX(2, 4);
    PB_GLANCE_CX(5, 7);
    PB_GLANCE_CX(6, 9);
    PB_GLANCE_CX(0, 1);
    PB_GLANCE_CX(3, 6);
    PB_GLANCE_CX(8, 9);
    PB_GLANCE_CX(1, 5);
    PB_GLANCE_CX(2, 3);
    PB_GLANCE_CX(4, 8);
    PB_GLANCE_CX(6, 7);
    PB_GLANCE_CX(1, 2);
    PB_GLANCE_CX(3, 5);
    PB_GLANCE_CX(4, 6);
    PB_GLANCE_CX(7, 8);
    PB_GLANCE_CX(2, 3);
    PB_GLANCE_CX(4, 5);
    PB_GLANCE_CX(6, 7);
    PB_GLANCE_CX(3, 4);
    PB_GLANCE_CX(5, 6);
    for (int i = 1; i < m; i++) /* below 2^62: no difference wraps */
        bad |= w[i] - w[i - 1] < bytes;
    hull[0] = w[0];
    hull[1] = w[m - 1] + bytes;
    return !bad;
}
#undef PB_GLANCE_CX

/* The outputs (rotations, positions if tracks & 1, scales if tracks & 2,
 * in that order, every array `bytes` long) at a glance, as glance_out:
 * whether each starts at or after the end of the one before and the first
 * is not NULL; hull[0] the first's start, hull[1] the last's end. Else
 * outputs_apart decides (in any order). */
PB_INLINE int outputs_ascend(const pb_pose *out, size_t bytes, unsigned tracks, uintptr_t hull[2])
{
#if defined(PB_GLANCE_VEC)
    if (tracks == 3) {
        /* the 10 starts as words o[0..9]: o[j+1] - o[j] >= bytes for j =
         * 0..8 (lanes 0-3, 4-7, 5-8), o[0] not NULL, every word below 2^62
         * (so that the differences are exact) */
        const char *p = (const char *)out;
        pb_u64x4 o0, o1, o4, o5, o6;
        memcpy(&o0, p, 32);
        memcpy(&o1, p + 8, 32);
        memcpy(&o4, p + 32, 32);
        memcpy(&o5, p + 40, 32);
        memcpy(&o6, p + 48, 32);
        const pb_u64x4 vb = {bytes, bytes, bytes, bytes};
        pb_u64x4 neg = (o1 - o0 - vb) | (o5 - o4 - vb) | (o6 - o5 - vb);
        pb_u64x4 all = o0 | o4 | o6;
        uint64_t first = o0[0], last = o6[3];
        hull[0] = (uintptr_t)first;
        hull[1] = (uintptr_t)(last + bytes);
        return !glance_any_sign(neg | all | (all << 1)) && first != 0;
    }
#endif
    const float *p[10] = {out->rot.w, out->rot.x, out->rot.y,   out->rot.z,   out->pos.x,
                          out->pos.y, out->pos.z, out->scale.x, out->scale.y, out->scale.z};
    uintptr_t end = 1; /* a NULL first output fails */
    int ok = 1;
    hull[0] = (uintptr_t)p[0];
    for (int j = 0; j < 10; j++)
        if (j < 4 || (tracks & (j < 7 ? 1u : 2u))) {
            uintptr_t u = (uintptr_t)p[j];
            ok &= u >= end;
            end = u + bytes;
        }
    hull[1] = end;
    return ok;
}
/* Ascending, else ascending with the rotations taken x, y, z, w (stored
 * so: about 30 instructions), else sorted (outputs_apart) */
PB_INLINE int outputs_glance(const pb_pose *out, size_t bytes, unsigned tracks, uintptr_t hull[2])
{
    if (outputs_ascend(out, bytes, tracks, hull))
        return 1;
    const float *p[10] = {out->rot.x, out->rot.y, out->rot.z, out->rot.w};
    int m = 4;
    if (tracks & 1) {
        p[m++] = out->pos.x;
        p[m++] = out->pos.y;
        p[m++] = out->pos.z;
    }
    if (tracks & 2) {
        p[m++] = out->scale.x;
        p[m++] = out->scale.y;
        p[m++] = out->scale.z;
    }
    uintptr_t end = 1; /* a NULL first output fails */
    int ok = 1;
    for (int j = 0; j < m; j++) {
        const uintptr_t u = (uintptr_t)p[j];
        ok &= u >= end;
        end = u + bytes;
    }
    if (ok) {
        hull[0] = (uintptr_t)p[0];
        hull[1] = end;
        return 1;
    }
    return outputs_apart(p, m, bytes, hull);
}

/* Whether pb_pose_blend_layers' arrays pass at a glance (1) or go to the
 * array-by-array pass, which alone decides (0; this may answer 0 where that
 * pass finds nothing): the outputs as outputs_glance, then every blended
 * layer's pose pointer (rotations always, positions if tracks & 1, scales if
 * tracks & 2), its joint weights when not NULL, and each used track of the
 * reference (ref may be NULL; its rotation if rtracks & 4, positions if
 * rtracks & 1, scales if rtracks & 2) neither NULL nor meeting the outputs'
 * hull, returned in hull[] (every input `bytes` long). */
static int k_layers_glance(size_t k, const pb_blend_layer *l, const pb_cpose *ref, unsigned rtracks,
                           const pb_pose *out, size_t bytes, unsigned tracks, uintptr_t hull[2])
{
    if (!outputs_glance(out, bytes, tracks, hull))
        return 0;
    const uintptr_t a = hull[0] - bytes + 1, b = hull[1] - hull[0] + bytes - 1;
    /* (the signed arithmetic below wants the outputs below 2^62) */
    if (sizeof(uintptr_t) == 8 && hull[1] > UINTPTR_MAX / 4)
        return 0;
#if defined(PB_GLANCE_VEC)
    /* a pb_blend_layer as 12 words: weight (and padding), joint_weights,
     * rot w x y z, pos x y z, scale x y z; a pb_cpose as its last 10 */
    {
        const uint64_t F = ~0ull;
        /* the lanes tested, and (n0) those NULL-tested in the first word
         * group: not the weight, joint_weights against the hull only */
        const pb_u64x4 m0 = {0, F, F, F}, n0 = {0, 0, F, F};
        const pb_u64x4 va = {a, a, a, a}, vh = {hull[1], hull[1], hull[1], hull[1]};
        pb_u64x4 acc = {0, 0, 0, 0};
        if (tracks == 3) { /* every track (the usual): no lane of v1, v2 masked */
            for (size_t i = 0; i < k; i++) {
                pb_u64x4 v0, v1, v2;
                layer_words(&l[i], &v0, &v1, &v2);
                acc |= (glance_bad(v0, va, vh, n0) & m0) | glance_every(v1, va, vh) |
                       glance_every(v2, va, vh);
            }
        } else {
            const uint64_t P = (tracks & 1) ? F : 0, S = (tracks & 2) ? F : 0;
            const pb_u64x4 m1 = {F, F, P, P}, m2 = {P, S, S, S};
            for (size_t i = 0; i < k; i++) {
                pb_u64x4 v0, v1, v2;
                layer_words(&l[i], &v0, &v1, &v2);
                acc |= (glance_bad(v0, va, vh, n0) & m0) | (glance_bad(v1, va, vh, m1) & m1) |
                       (glance_bad(v2, va, vh, m2) & m2);
            }
        }
        if (ref) { /* words 0-3 rot, 4-7 pos and scale.x, 6-9 pos.y .. scale.z */
            pb_u64x4 v0, v1, v2;
            const char *p = (const char *)ref;
            memcpy(&v0, p, 32);
            memcpy(&v1, p + 32, 32);
            memcpy(&v2, p + 48, 32);
            if (rtracks == 7) { /* every track (the usual): no lane masked */
                acc |=
                    glance_every(v0, va, vh) | glance_every(v1, va, vh) | glance_every(v2, va, vh);
            } else {
                const uint64_t R = (rtracks & 4) ? F : 0, RP = (rtracks & 1) ? F : 0,
                               RS = (rtracks & 2) ? F : 0;
                const pb_u64x4 r0 = {R, R, R, R}, r1 = {RP, RP, RP, RS}, r2 = {RP, RS, RS, RS};
                acc |= (glance_bad(v0, va, vh, r0) & r0) | (glance_bad(v1, va, vh, r1) & r1) |
                       (glance_bad(v2, va, vh, r2) & r2);
            }
        }
        return !glance_any_sign(acc);
    }
#endif
    int bad = 0;
    for (size_t i = 0; i <= k; i++) {
        const pb_cpose *q = i < k ? &l[i].pose : ref;
        unsigned t = i < k ? tracks | 4u : rtracks;
        if (!q)
            continue;
        const float *p[10] = {q->rot.w, q->rot.x, q->rot.y,   q->rot.z,   q->pos.x,
                              q->pos.y, q->pos.z, q->scale.x, q->scale.y, q->scale.z};
        for (int j = 0; j < 10; j++) {
            uintptr_t u = (uintptr_t)p[j];
            if (t & (j < 4 ? 4u : j < 7 ? 1u : 2u))
                bad |= (u - a < b) | (u == 0);
        }
        if (i < k && l[i].joint_weights)
            bad |= (uintptr_t)l[i].joint_weights - a < b;
    }
    return !bad;
}

/* this family's rows of the kernel table (kernels.h) */
#define PB_GLANCE_KERNELS .layers_glance = k_layers_glance,

#endif
