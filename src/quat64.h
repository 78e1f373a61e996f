/* Quaternions in double for the library's scalar code over whole clips
 * (root motion, retargeting): products, conjugates, rotating a vector.
 * Internal to libposebatch; header-only (static inline). */
#ifndef PB_QUAT64_H
#define PB_QUAT64_H

#include <math.h>

typedef struct {
    double w, x, y, z;
} dq;

static inline dq dq_mul(dq a, dq b)
{
    dq r = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
    return r;
}
static inline dq dq_conj(dq a)
{
    dq r = {a.w, -a.x, -a.y, -a.z};
    return r;
}
/* q / |q|; a zero or non-finite norm leaves q as it is (NaN propagates) */
static inline dq dq_unit(dq q)
{
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(n > 0.0) || !isfinite(n))
        return q;
    dq r = {q.w / n, q.x / n, q.y / n, q.z / n};
    return r;
}
/* out = q v q^-1 for unit q: v + 2 w (u x v) + 2 u x (u x v); out may be v */
static inline void dq_rot(dq q, const double v[3], double out[3])
{
    const double u[3] = {q.x, q.y, q.z};
    const double t[3] = {2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]),
                         2 * (u[0] * v[1] - u[1] * v[0])};
    const double r[3] = {v[0] + q.w * t[0] + (u[1] * t[2] - u[2] * t[1]),
                         v[1] + q.w * t[1] + (u[2] * t[0] - u[0] * t[2]),
                         v[2] + q.w * t[2] + (u[0] * t[1] - u[1] * t[0])};
    out[0] = r[0];
    out[1] = r[1];
    out[2] = r[2];
}

#endif /* PB_QUAT64_H */
