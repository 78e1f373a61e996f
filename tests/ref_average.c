/*
 * Double-precision reference for averages and splines; see ref_average.h.
 */
#include "ref_average.h"

#include <math.h>
#include <string.h>

/* ---- weighted averages ------------------------------------------------------ */

rq ra_average_raw(size_t k, const rq *s, const double *w)
{
    rq acc = rq_make(0, 0, 0, 0);
    for (size_t i = 0; i < k; i++)
        acc = rq_add(acc, rq_scale(rq_abs(s[i]), w[i]));
    return rq_normalize(acc); /* zero -> identity */
}

rq ra_average_running(size_t k, const rq *s, const double *w)
{
    rq acc = rq_make(0, 0, 0, 0);
    for (size_t i = 0; i < k; i++) {
        double side = i == 0 ? s[i].w : rq_dot(acc, s[i]);
        acc = rq_add(acc, rq_scale(s[i], side < 0 ? -w[i] : w[i]));
    }
    return rq_abs(rq_normalize(acc)); /* zero -> identity */
}

rq ra_average_log(size_t k, const rq *s, const double *w)
{
    rv3 acc = rv3_make(0, 0, 0);
    for (size_t i = 0; i < k; i++)
        acc = rv3_add(acc, rv3_scale(rq_log(rq_abs(s[i])), w[i]));
    return rq_exp(acc);
}

rq ra_average_raw_ref(rq ref, size_t k, const rq *s, const double *w)
{
    rq acc = rq_make(0, 0, 0, 0);
    for (size_t i = 0; i < k; i++)
        acc = rq_add(acc, rq_scale(rq_abs(rq_inv_mul(ref, s[i])), w[i]));
    return rq_abs(rq_mul(ref, rq_normalize(acc)));
}

rq ra_average_log_ref(rq ref, size_t k, const rq *s, const double *w)
{
    rv3 acc = rv3_make(0, 0, 0);
    for (size_t i = 0; i < k; i++)
        acc = rv3_add(acc, rv3_scale(rq_log(rq_abs(rq_inv_mul(ref, s[i]))), w[i]));
    return rq_abs(rq_mul(ref, rq_exp(acc)));
}

rq ra_average_basic(size_t k, const rq *s, const double *w, double *min_margin)
{
    rq acc = rq_make(0, 0, 0, 0);
    double margin = 1.0;
    for (size_t i = 0; i < k; i++) {
        double d = rq_dot(acc, s[i]);
        double na = rq_norm(acc);
        if (na > 0) {
            double m = fabs(d) / (na * rq_norm(s[i]));
            if (m < margin)
                margin = m;
        }
        if (d < 0)
            acc = rq_sub(acc, rq_scale(s[i], w[i]));
        else
            acc = rq_add(acc, rq_scale(s[i], w[i]));
    }
    if (min_margin)
        *min_margin = margin;
    return rq_normalize(rq_abs(acc));
}

void ra_outer_sum(size_t k, const rq *s, const double *w, double m[4][4])
{
    memset(m, 0, sizeof(double) * 16);
    for (size_t i = 0; i < k; i++) {
        double v[4] = {s[i].w, s[i].x, s[i].y, s[i].z};
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++)
                m[r][c] += w[i] * v[r] * v[c];
    }
}

void ra_sym4_eigen(double m[4][4], double eval[4], double evec[4][4])
{
    double a[4][4], v[4][4];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            a[r][c] = 0.5 * (m[r][c] + m[c][r]);
            v[r][c] = r == c ? 1.0 : 0.0;
        }
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, tot = 0;
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++) {
                tot += a[r][c] * a[r][c];
                if (r != c)
                    off += a[r][c] * a[r][c];
            }
        if (off == 0 || off <= 1e-64 * tot)
            break;
        for (int p = 0; p < 3; p++)
            for (int q = p + 1; q < 4; q++) {
                double apq = a[p][q];
                if (apq == 0)
                    continue;
                double theta = (a[q][q] - a[p][p]) / (2 * apq);
                double t;
                if (fabs(theta) > 1e150)
                    t = 0.5 / theta;
                else
                    t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int i = 0; i < 4; i++) { /* A P (columns p, q) */
                    double aip = a[i][p], aiq = a[i][q];
                    a[i][p] = c * aip - s * aiq;
                    a[i][q] = s * aip + c * aiq;
                }
                for (int i = 0; i < 4; i++) { /* P^T (A P) (rows p, q) */
                    double api = a[p][i], aqi = a[q][i];
                    a[p][i] = c * api - s * aqi;
                    a[q][i] = s * api + c * aqi;
                }
                a[p][q] = a[q][p] = 0;
                for (int i = 0; i < 4; i++) { /* V P */
                    double vip = v[i][p], viq = v[i][q];
                    v[i][p] = c * vip - s * viq;
                    v[i][q] = s * vip + c * viq;
                }
            }
    }
    int idx[4] = {0, 1, 2, 3};
    for (int i = 1; i < 4; i++) /* insertion sort, descending */
        for (int j = i; j > 0 && a[idx[j]][idx[j]] > a[idx[j - 1]][idx[j - 1]]; j--) {
            int tmp = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = tmp;
        }
    for (int j = 0; j < 4; j++) {
        eval[j] = a[idx[j]][idx[j]];
        double nrm = 0;
        for (int i = 0; i < 4; i++)
            nrm += v[i][idx[j]] * v[i][idx[j]];
        nrm = sqrt(nrm);
        for (int i = 0; i < 4; i++)
            evec[j][i] = v[i][idx[j]] / nrm;
    }
}

rq ra_average_accurate(size_t k, const rq *s, const double *w, double *rel_gap)
{
    double m[4][4], ev[4], vec[4][4];
    ra_outer_sum(k, s, w, m);
    int zero = 1;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            if (m[r][c] != 0)
                zero = 0;
    if (zero) {
        if (rel_gap)
            *rel_gap = 0;
        return rq_identity();
    }
    ra_sym4_eigen(m, ev, vec);
    if (rel_gap)
        *rel_gap = ev[0] != 0 ? (ev[0] - ev[1]) / fabs(ev[0]) : 0;
    rq q = rq_make(vec[0][0], vec[0][1], vec[0][2], vec[0][3]);
    return q.w < 0 ? rq_neg(q) : q;
}

/* ---- distances ---------------------------------------------------------------- */

double ra_sin_half_angle(rq a, rq b)
{
    rq d = rq_inv_mul(a, b);
    double v = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    double nrm = sqrt(d.w * d.w + v * v);
    return nrm > 0 ? v / nrm : 0;
}

void ra_quat_to_matrix(rq q, double r[3][3]) { ra_quat_to_matrix_raw(rq_normalize(q), r); }

void ra_quat_to_matrix_raw(rq q, double r[3][3])
{
    double w = q.w, x = q.x, y = q.y, z = q.z;
    r[0][0] = 1 - 2 * (y * y + z * z);
    r[0][1] = 2 * (x * y - w * z);
    r[0][2] = 2 * (x * z + w * y);
    r[1][0] = 2 * (x * y + w * z);
    r[1][1] = 1 - 2 * (x * x + z * z);
    r[1][2] = 2 * (y * z - w * x);
    r[2][0] = 2 * (x * z - w * y);
    r[2][1] = 2 * (y * z + w * x);
    r[2][2] = 1 - 2 * (x * x + y * y);
}

double ra_frobenius_distance(rq a, rq b)
{
    double ra[3][3], rb[3][3], s = 0;
    ra_quat_to_matrix(a, ra);
    ra_quat_to_matrix(b, rb);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            s += (ra[i][j] - rb[i][j]) * (ra[i][j] - rb[i][j]);
    return sqrt(s);
}

/* ---- splines ------------------------------------------------------------------ */

rq ra_tangent_offset(rq p, rq q, rq s)
{
    rv3 lin = rq_log(rq_abs(rq_mul_inv(q, p)));
    rv3 lout = rq_log(rq_abs(rq_mul_inv(s, q)));
    return rq_exp(rv3_scale(rv3_add(lin, lout), 0.5));
}

rq ra_pow(rq q, double t)
{
    if (q.w >= 1)
        return q;
    return rq_exp(rv3_scale(rq_log(q), t));
}

void ra_bezier_controls(rq p, rq q, rq s, rq *before, rq *after)
{
    rq off = ra_tangent_offset(p, q, s);
    if (before)
        *before = rq_mul(ra_pow(off, -1.0 / 3.0), q);
    if (after)
        *after = rq_mul(ra_pow(off, 1.0 / 3.0), q);
}

rq ra_slerp_short(rq a, rq b, double t)
{
    rq d = rq_inv_mul(a, b);
    if (rq_dot(a, b) < 0)
        d = rq_neg(d);
    return rq_mul(a, rq_exp(rv3_scale(rq_log(d), t)));
}

rq ra_de_casteljau(rq q0, rq q1, rq q2, rq q3, double t)
{
    rq a0 = ra_slerp_short(q0, q1, t);
    rq a1 = ra_slerp_short(q1, q2, t);
    rq a2 = ra_slerp_short(q2, q3, t);
    rq b0 = ra_slerp_short(a0, a1, t);
    rq b1 = ra_slerp_short(a1, a2, t);
    return ra_slerp_short(b0, b1, t);
}

rq ra_shoemake_double(rq p, rq q) { return rq_sub(rq_scale(q, 2 * rq_dot(p, q)), p); }

rq ra_shoemake_bisect(rq p, rq q) { return rq_normalize(rq_add(p, q)); }

void ra_shoemake_controls(rq prev, rq cur, rq next, rq *b, rq *a)
{
    rq aa = ra_shoemake_bisect(ra_shoemake_double(prev, cur), next);
    if (a)
        *a = aa;
    if (b)
        *b = rq_normalize(ra_shoemake_double(aa, cur));
}

/* Neighbours of key j as (prev, next) indices; -1 marks a missing one (open
 * ends). */
static void neighbours(size_t nkeys, size_t j, int closed, long *p, long *s)
{
    if (closed) {
        *p = (long)((j + nkeys - 1) % nkeys);
        *s = (long)((j + 1) % nkeys);
        return;
    }
    *p = j > 0 ? (long)j - 1 : -1;
    *s = j + 1 < nkeys ? (long)j + 1 : -1;
}

/* Bezier controls of key j. An open end key has one neighbour: its single
 * chord is used on both sides, i.e. the missing neighbour is the reflection
 * of the present one about the key (q nb^-1 q), which makes
 * q_in == q_out == the chord and the offset abs(chord) (no curvature). */
static void key_controls(size_t nkeys, const rq *keys, size_t stride, size_t j, int closed,
                         rq *before, rq *after)
{
    long p, s;
    neighbours(nkeys, j, closed, &p, &s);
    rq q = keys[j * stride];
    rq qp, qs;
    if (p >= 0 && s >= 0) {
        qp = keys[(size_t)p * stride];
        qs = keys[(size_t)s * stride];
    } else if (p >= 0) {
        qp = keys[(size_t)p * stride];
        qs = rq_mul(rq_mul_inv(q, qp), q); /* q qp^-1 q */
    } else {
        qs = keys[(size_t)s * stride];
        qp = rq_mul(rq_mul_inv(q, qs), q); /* q qs^-1 q */
    }
    ra_bezier_controls(qp, q, qs, before, after);
}

rq ra_spline_eval(size_t nkeys, const rq *keys, size_t stride, double t, int closed)
{
    if (isnan(t) || (closed && isinf(t)))
        return rq_make(NAN, NAN, NAN, NAN);
    if (nkeys == 1)
        return keys[0];
    double u;
    size_t i0, i1;
    if (closed) {
        double n = (double)nkeys;
        double tw = fmod(t, n);
        if (tw < 0)
            tw += n;
        if (!(tw < n))
            tw = 0;
        double fl = floor(tw);
        i0 = (size_t)fl;
        u = tw - fl;
        i1 = (i0 + 1) % nkeys;
    } else {
        double hi = (double)(nkeys - 1);
        double tc = t < 0 ? 0 : (t > hi ? hi : t);
        double fl = floor(tc);
        i0 = (size_t)fl;
        if (i0 >= nkeys - 1)
            i0 = nkeys - 2;
        u = tc - (double)i0;
        i1 = i0 + 1;
    }
    rq k0 = keys[i0 * stride], k1 = keys[i1 * stride];
    rq after0, before1;
    key_controls(nkeys, keys, stride, i0, closed, NULL, &after0);
    key_controls(nkeys, keys, stride, i1, closed, &before1, NULL);
    return ra_de_casteljau(k0, after0, before1, k1, u);
}

/* ---- notebook helpers ------------------------------------------------------------ */

rq ra_angles2quat(double az_deg, double el_deg, double roll_deg)
{
    const double d2r = REF_PI / 180.0;
    rq rz = rq_make(cos(0.5 * az_deg * d2r), 0, 0, sin(0.5 * az_deg * d2r));
    rq rx = rq_make(cos(0.5 * el_deg * d2r), sin(0.5 * el_deg * d2r), 0, 0);
    rq ry = rq_make(cos(0.5 * roll_deg * d2r), 0, sin(0.5 * roll_deg * d2r), 0);
    return rq_mul(rq_mul(rz, rx), ry);
}

rq ra_rotation_to(rq a, rq b) { return rq_mul_inv(b, a); }

double ra_max_abs_diff(rq a, rq b)
{
    double m = fabs(a.w - b.w);
    m = fmax(m, fabs(a.x - b.x));
    m = fmax(m, fabs(a.y - b.y));
    m = fmax(m, fabs(a.z - b.z));
    return m;
}

double ra_max_abs_diff_signless(rq a, rq b)
{
    return fmin(ra_max_abs_diff(a, b), ra_max_abs_diff(a, rq_neg(b)));
}
