/* Mirroring: pb_clip_mirror (a clip reflected in a coordinate plane, paired
 * joints swapped). Sign changes and moves only, so it is bit-exact and its
 * own inverse. Every argument is checked before anything is written. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "internal.h"

/* a clip's arrays in track order w x y z, px py pz, sx sy sz (NULL: absent) */
static void clip_ptrs(const pb_clip *c, float *a[10])
{
    float *v[10] = {c->rot.w, c->rot.x, c->rot.y,   c->rot.z,   c->pos.x,
                    c->pos.y, c->pos.z, c->scale.x, c->scale.y, c->scale.z};
    memcpy(a, v, sizeof v);
}

static pb_status check(const pb_clip *src, const int32_t *mirror, pb_mirror_plane plane,
                       const pb_clip *dst, float *s[10], float *d[10])
{
    if (!src || !dst || !mirror)
        return PB_ERR_NULL;
    const size_t F = src->frames, J = src->joints;
    if (F == 0 || J == 0 || F > PB_MAX_COUNT || J > PB_MAX_COUNT || F * J > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    if (dst->frames != F || dst->joints != J || (unsigned)plane > 2u)
        return PB_ERR_ARG;
    clip_ptrs(src, s);
    clip_ptrs(dst, d);
    if (!s[0] || !s[1] || !s[2] || !s[3])
        return PB_ERR_NULL;
    for (int t = 4; t < 10; t += 3) {
        if (s[t] && (!s[t + 1] || !s[t + 2]))
            return PB_ERR_NULL;
        if (!s[t]) /* a track src lacks is left alone in dst */
            d[t] = d[t + 1] = d[t + 2] = NULL;
    }
    for (int k = 0; k < 10; k++)
        if (s[k] && !d[k])
            return PB_ERR_NULL;
    for (size_t j = 0; j < J; j++) {
        const int32_t m = mirror[j];
        if (m < 0 || (uint64_t)m >= J || mirror[m] != (int32_t)j)
            return PB_ERR_ARG;
    }
    /* outputs: disjoint from each other, from the table, and from every
     * input array except the same track's own */
    return chk_tracks_apart(10, (const float *const *)d, (const float *const *)s,
                            F * J * sizeof(float), mirror, J * sizeof(int32_t));
}

pb_status pb_clip_mirror(const pb_clip *src, const int32_t *mirror, pb_mirror_plane plane,
                         const pb_clip *dst)
{
    float *s[10], *d[10];
    pb_status st = check(src, mirror, plane, dst, s, d);
    if (st != PB_OK)
        return st;
    const size_t F = src->frames, J = src->joints;
    const int n = (int)plane; /* the normal axis: 0 x, 1 y, 2 z */
    /* rotation: the vector component along n kept, the other two negated;
     * translation: the n component negated; scale: kept */
    int neg[10] = {0};
    for (int k = 0; k < 3; k++) {
        neg[1 + k] = k != n;
        neg[4 + k] = k == n;
    }
    for (int t = 0; t < 10; t++) {
        if (!s[t])
            continue;
        const float *in = s[t];
        float *out = d[t];
        for (size_t f = 0; f < F; f++) {
            const size_t b = f * J;
            /* each pair once, both read before either is written (in place) */
            for (size_t j = 0; j < J; j++) {
                const size_t m = (size_t)mirror[j];
                if (m < j)
                    continue;
                float a = in[b + j], c = in[b + m];
                if (neg[t]) {
                    a = -a;
                    c = -c;
                }
                out[b + j] = c;
                out[b + m] = a;
            }
        }
    }
    return PB_OK;
}
