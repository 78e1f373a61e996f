/* Double reference of the rotation representations (ref_rotrep.h). */
#include <math.h>

#include "ref_rotrep.h"

/* q e q* / |q|^2 by two Hamilton products (the definition of the rotation) */
static rv3 rotate(rq q, rv3 v)
{
    double n2 = rq_dot(q, q);
    rq p = rq_mul(rq_mul(q, rq_make(0.0, v.x, v.y, v.z)), rq_conj(q));
    return rv3_make(p.x / n2, p.y / n2, p.z / n2);
}

void ref_quat_to_mat3(rq q, double m[9])
{
    if (rq_dot(q, q) == 0.0)
        q = rq_identity();
    else
        q = rq_normalize(q); /* rescaled first: no overflow of |q|^2 */
    for (int c = 0; c < 3; c++) {
        rv3 e = rv3_make(c == 0, c == 1, c == 2);
        rv3 col = rotate(q, e);
        m[c] = col.x;
        m[3 + c] = col.y;
        m[6 + c] = col.z;
    }
}

void ref_rot6d_to_mat3(const double c[6], double m[9])
{
    rv3 a = rv3_make(c[0], c[1], c[2]), b = rv3_make(c[3], c[4], c[5]);
    rv3 x = rv3_scale(a, 1.0 / rv3_norm(a));
    rv3 y = rv3_sub(b, rv3_scale(x, rv3_dot(x, b)));
    y = rv3_scale(y, 1.0 / rv3_norm(y));
    rv3 z = rv3_cross(x, y);
    const rv3 col[3] = {x, y, z};
    for (int k = 0; k < 3; k++) {
        m[k] = col[k].x;
        m[3 + k] = col[k].y;
        m[6 + k] = col[k].z;
    }
}

double ref_mat3_maxdiff(const double a[9], const double b[9])
{
    double mx = 0.0;
    for (int i = 0; i < 9; i++) {
        double d = fabs(a[i] - b[i]);
        if (!(d <= mx))
            mx = d; /* NaN sticks */
    }
    return mx;
}

double ref_mat3_angle(const double a[9], const double b[9])
{
    /* trace of a^T b = 1 + 2 cos(angle); the skew part for small angles */
    double t = 0.0, s[3];
    double r[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double v = 0.0;
            for (int k = 0; k < 3; k++)
                v += a[3 * k + i] * b[3 * k + j];
            r[3 * i + j] = v;
        }
    t = r[0] + r[4] + r[8];
    s[0] = r[7] - r[5];
    s[1] = r[2] - r[6];
    s[2] = r[3] - r[1];
    double sn = 0.5 * sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    return atan2(sn, 0.5 * (t - 1.0));
}
