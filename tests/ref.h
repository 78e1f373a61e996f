/*
 * Independent double-precision reference for the posebatch tests.
 *
 * Plain libm code written for clarity from the reference texts
 * (../shared/reference/) and include/posebatch.h; it is NOT a port of the
 * library's float kernels. Quaternions are (w, x, y, z), Hamilton product,
 * inverse = conjugate, log = half-angle * axis, scaled angle-axis = 2 log.
 *
 * Stability rule: this header only grows (append, never change).
 */
#ifndef POSEBATCH_TESTS_REF_H
#define POSEBATCH_TESTS_REF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "posebatch.h"

#ifndef REF_PI
#define REF_PI 3.14159265358979323846
#endif

/* float epsilon / 2: the unit roundoff of float32 (2^-24) */
#define REF_U24 5.9604644775390625e-08

typedef struct {
    double w, x, y, z;
} rq;
typedef struct {
    double x, y, z;
} rv3;

/* ---- quaternion algebra ------------------------------------------------ */
rq rq_make(double w, double x, double y, double z);
rq rq_identity(void);
rq rq_mul(rq a, rq b);
rq rq_conj(rq a);
rq rq_mul_inv(rq a, rq b); /* a conj(b) */
rq rq_inv_mul(rq a, rq b); /* conj(a) b */
rq rq_abs(rq a);           /* w >= 0; w == -0 counts as negative (signbit) */
rq rq_neg(rq a);
rq rq_scale(rq a, double s);
rq rq_add(rq a, rq b);
rq rq_sub(rq a, rq b);
rq rq_normalize(rq a); /* zero -> identity; rescaled, no overflow */
double rq_dot(rq a, rq b);
double rq_norm(rq a);
rv3 rq_vec(rq a); /* (x, y, z) */

/* log: half-angle * axis, half-angle = atan2(|v|, w) in [0, pi]; scale
 * invariant; v == 0 -> 0 (also for w < 0). */
rv3 rq_log(rq q);
/* exp: (cos|v|, sin|v| v/|v|); exp(0) = identity. */
rq rq_exp(rv3 v);
/* 2 log(q) and exp(v / 2) */
rv3 rq_to_scaled_angle_axis(rq q);
rq rq_from_scaled_angle_axis(rv3 v);
/* rotation by `angle` radians (full angle) about `axis` (need not be unit) */
rq rq_from_axis_angle(rv3 axis, double angle);

/* ---- vec3 --------------------------------------------------------------- */
rv3 rv3_make(double x, double y, double z);
rv3 rv3_add(rv3 a, rv3 b);
rv3 rv3_sub(rv3 a, rv3 b);
rv3 rv3_scale(rv3 a, double s);
double rv3_dot(rv3 a, rv3 b);
rv3 rv3_cross(rv3 a, rv3 b);
double rv3_norm(rv3 a);
double rv3_dist(rv3 a, rv3 b); /* |a - b| */

/* Rotation angle in [0, pi] of a^-1 b, sign-insensitive (q ~ -q), computed
 * as 2 atan2(|vec(d)|, |w(d)|), d = conj(a) b: accurate for tiny angles and
 * scale invariant (inputs need not be unit). */
double rq_angle_between(rq a, rq b);
/* The same for a 4D angle: angle in [0, pi] between a and b as 4-vectors
 * (sign-sensitive), atan2(|a^ - b^|, |a^ + b^|) * 2 on the unit directions. */
double rq_angle4(rq a, rq b);

/* ---- deterministic PRNG (splitmix64) ------------------------------------ */
typedef struct {
    uint64_t s;
} rng_t;
rng_t rng_seed(uint64_t seed);
uint64_t rng_next(rng_t *r);
double rng_uniform(rng_t *r); /* [0, 1) */
double rng_range(rng_t *r, double lo, double hi);
double rng_logrange(rng_t *r, double lo, double hi); /* log-uniform, lo, hi > 0 */
double rng_sign(rng_t *r);                           /* +1 or -1 */
rq rng_quat(rng_t *r);                               /* uniform unit quaternion, random sign */
/* base rotated (globally: exp(angle axis / 2) base) about a random axis by an
 * angle uniform in [0, max_angle] (full rotation angle). Keeps base's sign. */
rq rng_quat_near(rng_t *r, rq base, double max_angle);
rv3 rng_vec3(rng_t *r, double scale);   /* components uniform in [-scale, scale] */
rv3 rng_unit3(rng_t *r);                /* uniform on the unit sphere */
rv3 rng_ball3(rng_t *r, double radius); /* direction uniform, |v| uniform in [0, radius] */

/* ---- float round trips --------------------------------------------------- */
rq rq_from_float(float w, float x, float y, float z);
rq rq_round(rq a); /* each component rounded to float, back to double */
rv3 rv3_round(rv3 a);

/* ---- float batch helpers (malloc; never NULL for n == 0: 1 element) ------ */
pb_quats fq_alloc(size_t n);
void fq_free(pb_quats q);
void fq_set(pb_quats q, size_t i, rq v); /* rounds to float */
rq fq_get(pb_quats q, size_t i);
pb_vec3s fv_alloc(size_t n);
void fv_free(pb_vec3s v);
void fv_set(pb_vec3s v, size_t i, rv3 a);
rv3 fv_get(pb_vec3s v, size_t i);
rq fcq_get(pb_cquats q, size_t i);
rv3 fcv_get(pb_cvec3s v, size_t i);
/* fills a batch with float quaternions (NaN) so untouched outputs are visible */
void fq_fill_nan(pb_quats q, size_t n);
void fv_fill_nan(pb_vec3s v, size_t n);
pb_quats fq_dup(pb_quats q, size_t n); /* a fresh copy of q's n elements */
/* whether element i of a and b is the same bit for bit (NaN payloads, -0) */
int fq_same_at(pb_quats a, pb_quats b, size_t i);
/* the first element of n where a and b differ bit for bit, or n */
size_t fq_first_diff(pb_quats a, pb_quats b, size_t n);

/* ---- reference algorithms (double) ------------------------------------- */
/* Offset-form Hermite basis: w = (w1, w2, w3), q = (q1, q2, q3) = derivatives. */
void ref_hermite_basis(double x, double w[3], double q[3]);
void ref_vec3_hermite(double x, rv3 p0, rv3 p1, rv3 v0, rv3 v1, rv3 *pos, rv3 *vel);
void ref_vec3_catmull_rom(double x, rv3 p0, rv3 p1, rv3 p2, rv3 p3, rv3 *pos, rv3 *vel);
/* exact = 0: vel = du/dx; exact = 1: vel = J_l(u) du/dx (closed form, series
 * for tiny |u|). rot = exp(u/2) r0 (not renormalised: scale of r0 kept). */
void ref_quat_hermite(double x, rq r0, rq r1, rv3 v0, rv3 v1, int exact, rq *rot, rv3 *vel);
void ref_quat_catmull_rom(double x, rq r0, rq r1, rq r2, rq r3, int exact, rq *rot, rv3 *vel);
/* rot = c/|c| (identity for c == 0); vel4 = c' (exact = 0) or the derivative of
 * the normalised curve (c' - rot (rot . c'))/|c| (exact = 1). */
void ref_quat_raw_cubic(double x, rq r0, rq r1, rq r2, rq r3, int exact, rq *rot, rq *vel4);
void ref_scale_hermite(double x, rv3 s0, rv3 s1, rv3 v0, rv3 v1, rv3 *scl, rv3 *svel);
void ref_scale_catmull_rom(double x, rv3 s0, rv3 s1, rv3 s2, rv3 s3, rv3 *scl, rv3 *svel);
rq ref_slerp(rq a, rq b, double t, int long_path);
rq ref_nlerp(rq a, rq b, double t, int long_path);
/* 2 vec(delta conj(ref)) */
rv3 ref_delta_to_angular_velocity(rq ref, rq delta);

/* ---- building blocks / variants (for branch-ambiguous inputs) ------------ */
/* Left Jacobian of SO(3) at u applied to w: w + a u x w + b u x (u x w). */
rv3 ref_left_jacobian_apply(rv3 u, rv3 w);
/* Shortest scaled angle-axis offset from a to b: 2 log(abs(b conj(a))).
 * flip != 0 takes the other sign of b conj(a) instead of abs (the other
 * branch, for |w| ~ 0 where float rounding may choose either). */
rv3 ref_offset(rq a, rq b, int flip);
/* Hermite with the offset d given explicitly (d = ref_offset(r0, r1, 0)). */
void ref_quat_hermite_d(double x, rq r0, rv3 d, rv3 v0, rv3 v1, int exact, rq *rot, rv3 *vel);
/* Catmull-Rom with explicit offsets d01, d12, d23, between r1 and r2. */
void ref_quat_catmull_rom_d(double x, rq r1, rv3 d01, rv3 d12, rv3 d23, int exact, rq *rot,
                            rv3 *vel);
/* Raw cubic where bit i of flipmask inverts hemisphere decision i
 * (0: r0 vs r1, 1: r2 vs r1, 2: r3 vs aligned r2). */
void ref_quat_raw_cubic_ex(double x, rq r0, rq r1, rq r2, rq r3, int exact, unsigned flipmask,
                           rq *rot, rq *vel4);
/* slerp / nlerp with the b-sign decision inverted when flip != 0. */
rq ref_slerp_ex(rq a, rq b, double t, int long_path, int flip);
rq ref_nlerp_ex(rq a, rq b, double t, int long_path, int flip);
/* Central finite difference (double) of the global angular velocity of a
 * rotation curve: 2 log(q(x+h) conj(q(x-h))) / (2h), sign-insensitive. */
rv3 ref_fd_angular_velocity(rq qm, rq qp, double h);

/* ---- tolerance helpers ---------------------------------------------------- */
/* |v - vref| <= 1e-5 |vref| + 1e-6 (the header's velocity accuracy) */
int ref_vel_ok(rv3 v, rv3 vref);
double ref_vel_err(rv3 v, rv3 vref); /* |v - vref| / (1e-5 |vref| + 1e-6): ok iff <= 1 */
double ref_vel4_err(rq v, rq vref);  /* same on 4-vectors */

/* ---- error tracking for batch checks (no Criterion dependency) ---------- */
/* Print formats for exact float inputs (%.9g round-trips a float). */
#define RQ_FMT "(%.9g, %.9g, %.9g, %.9g)"
#define RQ_ARG(q) (q).w, (q).x, (q).y, (q).z
#define RV_FMT "(%.9g, %.9g, %.9g)"
#define RV_ARG(v) (v).x, (v).y, (v).z

typedef struct ref_track {
    const char *name;
    size_t count, nfail, worst_i;
    double max_err;   /* largest raw error seen */
    double max_ratio; /* largest err / tol seen (ok iff <= 1) */
    char worst[1024]; /* description of the worst case (set by rt_note) */
} ref_track;

void rt_init(ref_track *t, const char *name);
/* Records one case; ratio = err / tol (NaN counts as a failure). Returns 1
 * when this case is the new worst: the caller should then describe it with
 * rt_note (inputs, outputs). */
int rt_add(ref_track *t, size_t i, double err, double ratio);
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
void rt_note(ref_track *t, const char *fmt, ...);
/* Prints "name: count, fails, max err, max ratio, worst" to stderr when the
 * environment variable POSEBATCH_TEST_VERBOSE is set. */
void rt_report(const ref_track *t);

/* Criterion expectation over an rt_ tracker: reports it and fails with the
 * worst case (used by files that include criterion/criterion.h). */
#define RT_EXPECT(t)                                                                               \
    do {                                                                                           \
        rt_report(&(t));                                                                           \
        cr_expect((t).nfail == 0,                                                                  \
                  "%s: %zu of %zu cases out of tolerance (max err %.4g = %.3g x tol); worst "      \
                  "case #%zu: %s",                                                                 \
                  (t).name, (t).nfail, (t).count, (t).max_err, (t).max_ratio, (t).worst_i,         \
                  (t).worst);                                                                      \
    } while (0)

/* ---- statistics switch ------------------------------------------------- */
/* Whether the environment variable PB_TEST_STATS (set, not "0") asks the
 * tests to print their largest errors. */
static inline int stats_on(void)
{
    const char *e = getenv("PB_TEST_STATS");
    return e && *e && *e != '0';
}

#endif /* POSEBATCH_TESTS_REF_H */
