/* pb_quat_spline_eval: picks the segment once per call, then runs the
 * dispatched control-point and De Casteljau kernels over stack chunks (no
 * allocation). */
#include <math.h>
#include <string.h>

#include "internal.h"

#define CHUNK 64

typedef struct {
    float w[CHUNK], x[CHUNK], y[CHUNK], z[CHUNK];
} qbuf;

static pb_quats qb(qbuf *b)
{
    pb_quats q = {b->w, b->x, b->y, b->z};
    return q;
}
static pb_cquats cqb(qbuf *b)
{
    pb_cquats q = {b->w, b->x, b->y, b->z};
    return q;
}
static pb_cquats at(pb_cquats q, size_t o)
{
    pb_cquats r = {q.w + o, q.x + o, q.y + o, q.z + o};
    return r;
}
static pb_quats atw(pb_quats q, size_t o)
{
    pb_quats r = {q.w + o, q.x + o, q.y + o, q.z + o};
    return r;
}

/* the reflection of `other` about `cur`: cur other^-1 cur */
static pb_cquats reflect(const pb_kernels *k, size_t m, pb_cquats cur, pb_cquats other, qbuf *tmp)
{
    k->quat_mul_inv(m, cur, other, qb(tmp));
    k->quat_mul(m, cqb(tmp), cur, qb(tmp));
    return cqb(tmp);
}

pb_status pb_quat_spline_eval(size_t keys, size_t n, pb_cquats track, float t, unsigned flags,
                              pb_quats out)
{
    if (keys == 0 || (flags & ~PB_CLOSED))
        return PB_ERR_ARG;
    if (keys > PB_MAX_COUNT || n > PB_MAX_COUNT || (n && keys > PB_MAX_COUNT / n))
        return PB_ERR_SIZE;
    if (n == 0)
        return PB_OK;
    const float *ins[4] = {track.w, track.x, track.y, track.z};
    float *outs[4] = {out.w, out.x, out.y, out.z};
    for (int i = 0; i < 4; i++)
        if (!ins[i] || !outs[i])
            return PB_ERR_NULL;
    size_t tb = keys * n * sizeof(float), ob = n * sizeof(float);
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            const char *a = (const char *)outs[i], *b = (const char *)ins[j];
            const char *c = (const char *)outs[j];
            if (a < b + tb && b < a + ob)
                return PB_ERR_ALIAS;
            if (i != j && a < c + ob && c < a + ob)
                return PB_ERR_ALIAS;
        }
    }

    int closed = (flags & PB_CLOSED) != 0;
    double tt = t;
    if (isnan(tt) || (closed && isinf(tt))) {
        for (int i = 0; i < 4; i++)
            for (size_t j = 0; j < n; j++)
                outs[i][j] = NAN;
        return PB_OK;
    }
    size_t seg;
    float u;
    if (closed) {
        double tw = fmod(tt, (double)keys);
        if (tw < 0)
            tw += (double)keys;
        double fl = floor(tw);
        seg = (size_t)fl;
        if (seg >= keys) /* tw rounded up to keys */
            seg = 0, fl = 0, tw = 0;
        u = (float)(tw - fl);
    } else {
        double last = (double)(keys - 1);
        double tc = tt < 0 ? 0 : (tt > last ? last : tt);
        double fl = floor(tc);
        seg = (size_t)fl;
        u = (float)(tc - fl);
        if (keys > 1 && seg == keys - 1) {
            seg = keys - 2;
            u = 1.0f;
        }
    }
    const pb_kernels *k = pb_kernels_for(n);
    if (keys == 1) {
        for (int i = 0; i < 4; i++)
            memcpy(outs[i], ins[i], ob);
        return PB_OK;
    }
    size_t i0 = seg, i1 = closed ? (seg + 1) % keys : seg + 1;
    int has_prev = closed || i0 > 0, has_next = closed || i1 + 1 < keys;
    size_t ip = closed ? (i0 + keys - 1) % keys : (has_prev ? i0 - 1 : 0);
    size_t in = closed ? (i1 + 1) % keys : (has_next ? i1 + 1 : 0);

    for (size_t c0 = 0; c0 < n; c0 += CHUNK) {
        size_t m = n - c0 < CHUNK ? n - c0 : CHUNK;
        qbuf vprev, vnext, after0, before0, after1, before1;
        pb_cquats q0 = at(track, i0 * n + c0), q1 = at(track, i1 * n + c0);
        pb_cquats qp = has_prev ? at(track, ip * n + c0) : reflect(k, m, q0, q1, &vprev);
        pb_cquats qn = has_next ? at(track, in * n + c0) : reflect(k, m, q1, q0, &vnext);
        k->bezier_controls(m, qp, q0, q1, qb(&before0), qb(&after0));
        k->bezier_controls(m, q0, q1, qn, qb(&before1), qb(&after1));
        k->de_casteljau(m, u, q0, cqb(&after0), cqb(&before1), q1, atw(out, c0));
    }
    return PB_OK;
}
