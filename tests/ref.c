/*
 * Independent double-precision reference for the posebatch tests (see ref.h).
 * Written for clarity from the reference texts, in plain libm double.
 */
#include "ref.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- quaternion algebra ------------------------------------------------ */

rq rq_make(double w, double x, double y, double z)
{
    rq q = {w, x, y, z};
    return q;
}

rq rq_identity(void) { return rq_make(1.0, 0.0, 0.0, 0.0); }

rq rq_mul(rq a, rq b)
{
    return rq_make(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                   a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}

rq rq_conj(rq a) { return rq_make(a.w, -a.x, -a.y, -a.z); }
rq rq_mul_inv(rq a, rq b) { return rq_mul(a, rq_conj(b)); }
rq rq_inv_mul(rq a, rq b) { return rq_mul(rq_conj(a), b); }
rq rq_neg(rq a) { return rq_make(-a.w, -a.x, -a.y, -a.z); }
rq rq_abs(rq a) { return signbit(a.w) ? rq_neg(a) : a; }
rq rq_scale(rq a, double s) { return rq_make(a.w * s, a.x * s, a.y * s, a.z * s); }
rq rq_add(rq a, rq b) { return rq_make(a.w + b.w, a.x + b.x, a.y + b.y, a.z + b.z); }
rq rq_sub(rq a, rq b) { return rq_make(a.w - b.w, a.x - b.x, a.y - b.y, a.z - b.z); }
double rq_dot(rq a, rq b) { return a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z; }
rv3 rq_vec(rq a) { return rv3_make(a.x, a.y, a.z); }

static double max4(double a, double b, double c, double d)
{
    double m = a > b ? a : b;
    if (c > m)
        m = c;
    if (d > m)
        m = d;
    return m;
}

double rq_norm(rq a)
{
    if (isnan(a.w) || isnan(a.x) || isnan(a.y) || isnan(a.z))
        return NAN;
    double m = max4(fabs(a.w), fabs(a.x), fabs(a.y), fabs(a.z));
    if (m == 0.0 || !isfinite(m))
        return m == 0.0 ? 0.0 : (isnan(m) ? m : INFINITY);
    rq s = rq_scale(a, 1.0 / m);
    return m * sqrt(rq_dot(s, s));
}

rq rq_normalize(rq a)
{
    double n = rq_norm(a);
    if (n == 0.0)
        return rq_identity();
    return rq_scale(a, 1.0 / n);
}

/* ---- vec3 --------------------------------------------------------------- */

rv3 rv3_make(double x, double y, double z)
{
    rv3 v = {x, y, z};
    return v;
}
rv3 rv3_add(rv3 a, rv3 b) { return rv3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
rv3 rv3_sub(rv3 a, rv3 b) { return rv3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
rv3 rv3_scale(rv3 a, double s) { return rv3_make(a.x * s, a.y * s, a.z * s); }
double rv3_dot(rv3 a, rv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
rv3 rv3_cross(rv3 a, rv3 b)
{
    return rv3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
double rv3_norm(rv3 a)
{
    if (isnan(a.x) || isnan(a.y) || isnan(a.z))
        return NAN;
    double m = fabs(a.x);
    if (fabs(a.y) > m)
        m = fabs(a.y);
    if (fabs(a.z) > m)
        m = fabs(a.z);
    if (m == 0.0 || !isfinite(m))
        return m == 0.0 ? 0.0 : (isnan(m) ? m : INFINITY);
    rv3 s = rv3_scale(a, 1.0 / m);
    return m * sqrt(rv3_dot(s, s));
}
double rv3_dist(rv3 a, rv3 b) { return rv3_norm(rv3_sub(a, b)); }

/* ---- log / exp ---------------------------------------------------------- */

rv3 rq_log(rq q)
{
    rv3 v = rq_vec(q);
    double s = rv3_norm(v);
    if (s == 0.0)
        return rv3_make(0.0, 0.0, 0.0);
    double half = atan2(s, q.w); /* in [0, pi]; independent of |q| */
    return rv3_scale(v, half / s);
}

rq rq_exp(rv3 v)
{
    double a = rv3_norm(v);
    if (a == 0.0)
        return rq_identity();
    double k = sin(a) / a;
    return rq_make(cos(a), v.x * k, v.y * k, v.z * k);
}

rv3 rq_to_scaled_angle_axis(rq q) { return rv3_scale(rq_log(q), 2.0); }
rq rq_from_scaled_angle_axis(rv3 v) { return rq_exp(rv3_scale(v, 0.5)); }

rq rq_from_axis_angle(rv3 axis, double angle)
{
    double n = rv3_norm(axis);
    if (n == 0.0)
        return rq_identity();
    return rq_exp(rv3_scale(axis, 0.5 * angle / n));
}

double rq_angle_between(rq a, rq b)
{
    rq d = rq_inv_mul(a, b);
    return 2.0 * atan2(rv3_norm(rq_vec(d)), fabs(d.w));
}

double rq_angle4(rq a, rq b)
{
    rq ua = rq_normalize(a), ub = rq_normalize(b);
    return 2.0 * atan2(rq_norm(rq_sub(ua, ub)), rq_norm(rq_add(ua, ub)));
}

/* ---- PRNG ----------------------------------------------------------------- */

rng_t rng_seed(uint64_t seed)
{
    rng_t r = {seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull};
    return r;
}

uint64_t rng_next(rng_t *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double rng_uniform(rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }
double rng_range(rng_t *r, double lo, double hi) { return lo + (hi - lo) * rng_uniform(r); }
double rng_logrange(rng_t *r, double lo, double hi) { return exp(rng_range(r, log(lo), log(hi))); }
double rng_sign(rng_t *r) { return (rng_next(r) >> 63) ? -1.0 : 1.0; }

rq rng_quat(rng_t *r)
{
    /* Shoemake's uniform random rotation */
    double u1 = rng_uniform(r), u2 = rng_uniform(r), u3 = rng_uniform(r);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    rq q = rq_make(a * sin(2.0 * REF_PI * u2), a * cos(2.0 * REF_PI * u2),
                   b * sin(2.0 * REF_PI * u3), b * cos(2.0 * REF_PI * u3));
    return rq_scale(q, rng_sign(r));
}

rv3 rng_unit3(rng_t *r)
{
    double z = rng_range(r, -1.0, 1.0);
    double phi = rng_range(r, 0.0, 2.0 * REF_PI);
    double s = sqrt(fmax(0.0, 1.0 - z * z));
    return rv3_make(s * cos(phi), s * sin(phi), z);
}

rv3 rng_ball3(rng_t *r, double radius)
{
    return rv3_scale(rng_unit3(r), rng_range(r, 0.0, radius));
}

rq rng_quat_near(rng_t *r, rq base, double max_angle)
{
    rv3 axis = rng_unit3(r);
    double angle = rng_range(r, 0.0, max_angle);
    return rq_mul(rq_from_axis_angle(axis, angle), base);
}

rv3 rng_vec3(rng_t *r, double scale)
{
    return rv3_make(rng_range(r, -scale, scale), rng_range(r, -scale, scale),
                    rng_range(r, -scale, scale));
}

/* ---- float round trips ---------------------------------------------------- */

rq rq_from_float(float w, float x, float y, float z) { return rq_make(w, x, y, z); }
rq rq_round(rq a) { return rq_make((float)a.w, (float)a.x, (float)a.y, (float)a.z); }
rv3 rv3_round(rv3 a) { return rv3_make((float)a.x, (float)a.y, (float)a.z); }

/* ---- float batches -------------------------------------------------------- */

static float *falloc(size_t n)
{
    float *p = malloc((n ? n : 1) * sizeof(float));
    if (!p)
        abort();
    return p;
}

pb_quats fq_alloc(size_t n)
{
    pb_quats q = {falloc(n), falloc(n), falloc(n), falloc(n)};
    return q;
}
void fq_free(pb_quats q)
{
    free(q.w);
    free(q.x);
    free(q.y);
    free(q.z);
}
void fq_set(pb_quats q, size_t i, rq v)
{
    q.w[i] = (float)v.w;
    q.x[i] = (float)v.x;
    q.y[i] = (float)v.y;
    q.z[i] = (float)v.z;
}
rq fq_get(pb_quats q, size_t i) { return rq_make(q.w[i], q.x[i], q.y[i], q.z[i]); }
rq fcq_get(pb_cquats q, size_t i) { return rq_make(q.w[i], q.x[i], q.y[i], q.z[i]); }

pb_vec3s fv_alloc(size_t n)
{
    pb_vec3s v = {falloc(n), falloc(n), falloc(n)};
    return v;
}
void fv_free(pb_vec3s v)
{
    free(v.x);
    free(v.y);
    free(v.z);
}
void fv_set(pb_vec3s v, size_t i, rv3 a)
{
    v.x[i] = (float)a.x;
    v.y[i] = (float)a.y;
    v.z[i] = (float)a.z;
}
rv3 fv_get(pb_vec3s v, size_t i) { return rv3_make(v.x[i], v.y[i], v.z[i]); }
rv3 fcv_get(pb_cvec3s v, size_t i) { return rv3_make(v.x[i], v.y[i], v.z[i]); }

void fq_fill_nan(pb_quats q, size_t n)
{
    for (size_t i = 0; i < n; i++)
        q.w[i] = q.x[i] = q.y[i] = q.z[i] = NAN;
}
void fv_fill_nan(pb_vec3s v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v.x[i] = v.y[i] = v.z[i] = NAN;
}
pb_quats fq_dup(pb_quats q, size_t n)
{
    pb_quats c = fq_alloc(n);
    memcpy(c.w, q.w, n * sizeof(float));
    memcpy(c.x, q.x, n * sizeof(float));
    memcpy(c.y, q.y, n * sizeof(float));
    memcpy(c.z, q.z, n * sizeof(float));
    return c;
}
int fq_same_at(pb_quats a, pb_quats b, size_t i)
{
    return !memcmp(&a.w[i], &b.w[i], 4) && !memcmp(&a.x[i], &b.x[i], 4) &&
           !memcmp(&a.y[i], &b.y[i], 4) && !memcmp(&a.z[i], &b.z[i], 4);
}
size_t fq_first_diff(pb_quats a, pb_quats b, size_t n)
{
    size_t i = 0;
    while (i < n && fq_same_at(a, b, i))
        i++;
    return i;
}

/* ---- reference algorithms ------------------------------------------------- */

void ref_hermite_basis(double x, double w[3], double q[3])
{
    double x2 = x * x, x3 = x2 * x;
    w[0] = 3.0 * x2 - 2.0 * x3;
    w[1] = x3 - 2.0 * x2 + x;
    w[2] = x3 - x2;
    q[0] = 6.0 * x - 6.0 * x2;
    q[1] = 3.0 * x2 - 4.0 * x + 1.0;
    q[2] = 3.0 * x2 - 2.0 * x;
}

static rv3 lin3(double a, rv3 p, double b, rv3 q, double c, rv3 r)
{
    return rv3_add(rv3_add(rv3_scale(p, a), rv3_scale(q, b)), rv3_scale(r, c));
}

void ref_vec3_hermite(double x, rv3 p0, rv3 p1, rv3 v0, rv3 v1, rv3 *pos, rv3 *vel)
{
    double w[3], q[3];
    ref_hermite_basis(x, w, q);
    rv3 d = rv3_sub(p1, p0);
    *pos = rv3_add(p0, lin3(w[0], d, w[1], v0, w[2], v1));
    *vel = lin3(q[0], d, q[1], v0, q[2], v1);
}

void ref_vec3_catmull_rom(double x, rv3 p0, rv3 p1, rv3 p2, rv3 p3, rv3 *pos, rv3 *vel)
{
    rv3 v1 = rv3_scale(rv3_sub(p2, p0), 0.5);
    rv3 v2 = rv3_scale(rv3_sub(p3, p1), 0.5);
    ref_vec3_hermite(x, p1, p2, v1, v2, pos, vel);
}

rv3 ref_left_jacobian_apply(rv3 u, rv3 w)
{
    double t = rv3_norm(u), t2 = t * t;
    double a, b; /* a = (1 - cos t)/t^2, b = (t - sin t)/t^3 */
    if (t < 1e-2) {
        a = 0.5 - t2 / 24.0 + t2 * t2 / 720.0 - t2 * t2 * t2 / 40320.0;
        b = 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0 - t2 * t2 * t2 / 362880.0;
    } else {
        double s = sin(0.5 * t);
        a = 2.0 * s * s / t2;
        b = (t - sin(t)) / (t2 * t);
    }
    rv3 uw = rv3_cross(u, w);
    rv3 uuw = rv3_cross(u, uw);
    return rv3_add(w, rv3_add(rv3_scale(uw, a), rv3_scale(uuw, b)));
}

rv3 ref_offset(rq a, rq b, int flip)
{
    rq d = rq_abs(rq_mul_inv(b, a));
    if (flip)
        d = rq_neg(d);
    return rq_to_scaled_angle_axis(d);
}

void ref_quat_hermite_d(double x, rq r0, rv3 d, rv3 v0, rv3 v1, int exact, rq *rot, rv3 *vel)
{
    double w[3], q[3];
    ref_hermite_basis(x, w, q);
    rv3 u = lin3(w[0], d, w[1], v0, w[2], v1);
    rv3 du = lin3(q[0], d, q[1], v0, q[2], v1);
    *rot = rq_mul(rq_from_scaled_angle_axis(u), r0);
    *vel = exact ? ref_left_jacobian_apply(u, du) : du;
}

void ref_quat_hermite(double x, rq r0, rq r1, rv3 v0, rv3 v1, int exact, rq *rot, rv3 *vel)
{
    ref_quat_hermite_d(x, r0, ref_offset(r0, r1, 0), v0, v1, exact, rot, vel);
}

void ref_quat_catmull_rom_d(double x, rq r1, rv3 d01, rv3 d12, rv3 d23, int exact, rq *rot,
                            rv3 *vel)
{
    rv3 v1 = rv3_scale(rv3_add(d01, d12), 0.5);
    rv3 v2 = rv3_scale(rv3_add(d12, d23), 0.5);
    ref_quat_hermite_d(x, r1, d12, v1, v2, exact, rot, vel);
}

void ref_quat_catmull_rom(double x, rq r0, rq r1, rq r2, rq r3, int exact, rq *rot, rv3 *vel)
{
    ref_quat_catmull_rom_d(x, r1, ref_offset(r0, r1, 0), ref_offset(r1, r2, 0),
                           ref_offset(r2, r3, 0), exact, rot, vel);
}

void ref_quat_raw_cubic_ex(double x, rq r0, rq r1, rq r2, rq r3, int exact, unsigned flipmask,
                           rq *rot, rq *vel4)
{
    int n0 = rq_dot(r0, r1) < 0.0, n2 = rq_dot(r2, r1) < 0.0;
    if (flipmask & 1u)
        n0 = !n0;
    if (flipmask & 2u)
        n2 = !n2;
    if (n0)
        r0 = rq_neg(r0);
    if (n2)
        r2 = rq_neg(r2);
    int n3 = rq_dot(r3, r2) < 0.0;
    if (flipmask & 4u)
        n3 = !n3;
    if (n3)
        r3 = rq_neg(r3);

    double w[3], q[3];
    ref_hermite_basis(x, w, q);
    rq d = rq_sub(r2, r1);
    rq v1 = rq_scale(rq_sub(r2, r0), 0.5);
    rq v2 = rq_scale(rq_sub(r3, r1), 0.5);
    rq c = rq_add(r1, rq_add(rq_add(rq_scale(d, w[0]), rq_scale(v1, w[1])), rq_scale(v2, w[2])));
    rq dc = rq_add(rq_add(rq_scale(d, q[0]), rq_scale(v1, q[1])), rq_scale(v2, q[2]));
    double nc = rq_norm(c);
    if (nc == 0.0) {
        *rot = rq_identity();
        *vel4 = exact ? rq_make(0.0, 0.0, 0.0, 0.0) : dc;
        return;
    }
    rq n = rq_scale(c, 1.0 / nc);
    *rot = n;
    if (exact)
        *vel4 = rq_scale(rq_sub(dc, rq_scale(n, rq_dot(n, dc))), 1.0 / nc);
    else
        *vel4 = dc;
}

void ref_quat_raw_cubic(double x, rq r0, rq r1, rq r2, rq r3, int exact, rq *rot, rq *vel4)
{
    ref_quat_raw_cubic_ex(x, r0, r1, r2, r3, exact, 0u, rot, vel4);
}

static void scale1(double x, double s0, double s1, double v0, double v1, double *s, double *sv)
{
    double w[3], q[3];
    ref_hermite_basis(x, w, q);
    double d = log(s1 / s0);
    double u = w[0] * d + w[1] * v0 + w[2] * v1;
    *s = exp(u) * s0;
    *sv = q[0] * d + q[1] * v0 + q[2] * v1;
}

void ref_scale_hermite(double x, rv3 s0, rv3 s1, rv3 v0, rv3 v1, rv3 *scl, rv3 *svel)
{
    scale1(x, s0.x, s1.x, v0.x, v1.x, &scl->x, &svel->x);
    scale1(x, s0.y, s1.y, v0.y, v1.y, &scl->y, &svel->y);
    scale1(x, s0.z, s1.z, v0.z, v1.z, &scl->z, &svel->z);
}

static rv3 log_ratio(rv3 a, rv3 b) /* log(b / a) per axis */
{
    return rv3_make(log(b.x / a.x), log(b.y / a.y), log(b.z / a.z));
}

void ref_scale_catmull_rom(double x, rv3 s0, rv3 s1, rv3 s2, rv3 s3, rv3 *scl, rv3 *svel)
{
    rv3 d01 = log_ratio(s0, s1), d12 = log_ratio(s1, s2), d23 = log_ratio(s2, s3);
    rv3 v1 = rv3_scale(rv3_add(d01, d12), 0.5);
    rv3 v2 = rv3_scale(rv3_add(d12, d23), 0.5);
    ref_scale_hermite(x, s1, s2, v1, v2, scl, svel);
}

static rq choose_b(rq a, rq b, int long_path, int flip)
{
    double d = rq_dot(a, b);
    int neg = long_path ? (d > 0.0) : (d < 0.0);
    if (flip)
        neg = !neg;
    return neg ? rq_neg(b) : b;
}

rq ref_slerp_ex(rq a, rq b, double t, int long_path, int flip)
{
    rq bp = choose_b(a, b, long_path, flip);
    rq rel = rq_inv_mul(a, bp); /* a^-1 b' ; w = dot(a, b') */
    if (long_path && rel.x == 0.0 && rel.y == 0.0 && rel.z == 0.0 && rel.w != 0.0) {
        /* a == +-b exactly: a full turn about a's local x axis at t = 1 */
        return rq_mul(a, rq_make(cos(REF_PI * t), sin(REF_PI * t), 0.0, 0.0));
    }
    /* a exp(t log(a^-1 b')): the great circle from a through b' at constant speed */
    rv3 l = rq_log(rel);
    return rq_mul(a, rq_exp(rv3_scale(l, t)));
}

rq ref_slerp(rq a, rq b, double t, int long_path) { return ref_slerp_ex(a, b, t, long_path, 0); }

rq ref_nlerp_ex(rq a, rq b, double t, int long_path, int flip)
{
    rq bp = choose_b(a, b, long_path, flip);
    rq s = rq_add(rq_scale(a, 1.0 - t), rq_scale(bp, t));
    return rq_normalize(s); /* zero -> identity */
}

rq ref_nlerp(rq a, rq b, double t, int long_path) { return ref_nlerp_ex(a, b, t, long_path, 0); }

rv3 ref_delta_to_angular_velocity(rq ref, rq delta)
{
    return rv3_scale(rq_vec(rq_mul_inv(delta, ref)), 2.0);
}

rv3 ref_fd_angular_velocity(rq qm, rq qp, double h)
{
    rq d = rq_abs(rq_mul_inv(qp, qm));
    return rv3_scale(rq_to_scaled_angle_axis(d), 1.0 / (2.0 * h));
}

/* ---- tolerance helpers ---------------------------------------------------- */

double ref_vel_err(rv3 v, rv3 vref) { return rv3_dist(v, vref) / (1e-5 * rv3_norm(vref) + 1e-6); }

int ref_vel_ok(rv3 v, rv3 vref) { return ref_vel_err(v, vref) <= 1.0; }

double ref_vel4_err(rq v, rq vref)
{
    return rq_norm(rq_sub(v, vref)) / (1e-5 * rq_norm(vref) + 1e-6);
}

/* ---- error tracking ------------------------------------------------------ */

void rt_init(ref_track *t, const char *name)
{
    memset(t, 0, sizeof *t);
    t->name = name;
    t->max_ratio = -1.0;
}

int rt_add(ref_track *t, size_t i, double err, double ratio)
{
    t->count++;
    if (isnan(ratio))
        ratio = INFINITY;
    if (isnan(err))
        err = INFINITY;
    if (!(ratio <= 1.0))
        t->nfail++;
    if (err > t->max_err)
        t->max_err = err;
    if (ratio > t->max_ratio) {
        t->max_ratio = ratio;
        t->worst_i = i;
        t->worst[0] = '\0';
        return 1;
    }
    return 0;
}

void rt_note(ref_track *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->worst, sizeof t->worst, fmt, ap);
    va_end(ap);
}

void rt_report(const ref_track *t)
{
    if (!getenv("POSEBATCH_TEST_VERBOSE"))
        return;
    fprintf(stderr, "[%s] cases %zu fails %zu max_err %.3e max_ratio %.3f worst #%zu: %s\n",
            t->name, t->count, t->nfail, t->max_err, t->max_ratio, t->worst_i, t->worst);
}
