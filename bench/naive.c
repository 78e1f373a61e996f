/*
 * Naive baseline: the reference texts transcribed per joint over
 * array-of-structs data, with helpers as the articles' author writes them
 * (quat_log via acosf(w) and sqrtf, quat_exp via sinf/cosf, normalize with
 * + 1e-8, the 64-iteration power iteration). Deliberately unoptimised beyond
 * what the compiler does with the library's own flags: this is what a user
 * would write from the articles, and what posebatch is measured against.
 */
#include "naive.h"

#include <math.h>

#define NV_EPS 1e-8f

/* Helpers shared by several entry points are inlined into each, so that every
 * entry point compiles to the loop it would be if written out. */
#if defined(__GNUC__) || defined(__clang__)
#define NV_INLINE static inline __attribute__((always_inline))
#else
#define NV_INLINE static inline
#endif

/* ---- helpers (the author's vec.h / quat.h, written in C) --------------- */

static inline nv_vec3 v3(float x, float y, float z)
{
    nv_vec3 r = {x, y, z};
    return r;
}
static inline nv_vec3 v3_add(nv_vec3 a, nv_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline nv_vec3 v3_sub(nv_vec3 a, nv_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline nv_vec3 v3_scale(float s, nv_vec3 a) { return v3(s * a.x, s * a.y, s * a.z); }
static inline nv_vec3 v3_mul(nv_vec3 a, nv_vec3 b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
static inline nv_vec3 v3_div(nv_vec3 a, nv_vec3 b) { return v3(a.x / b.x, a.y / b.y, a.z / b.z); }
static inline nv_vec3 v3_log(nv_vec3 a) { return v3(logf(a.x), logf(a.y), logf(a.z)); }
static inline nv_vec3 v3_exp(nv_vec3 a) { return v3(expf(a.x), expf(a.y), expf(a.z)); }

static inline nv_quat qt(float w, float x, float y, float z)
{
    nv_quat r = {w, x, y, z};
    return r;
}
static inline nv_quat q_add(nv_quat a, nv_quat b)
{
    return qt(a.w + b.w, a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline nv_quat q_sub(nv_quat a, nv_quat b)
{
    return qt(a.w - b.w, a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline nv_quat q_scale(float s, nv_quat a) { return qt(s * a.w, s * a.x, s * a.y, s * a.z); }
static inline nv_quat q_neg(nv_quat a) { return qt(-a.w, -a.x, -a.y, -a.z); }
static inline float q_dot(nv_quat a, nv_quat b)
{
    return a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline float q_length(nv_quat a) { return sqrtf(q_dot(a, a)); }
static inline nv_quat quat_normalize(nv_quat q)
{
    return q_scale(1.0f / (q_length(q) + NV_EPS), q);
}
static inline nv_quat quat_abs(nv_quat q) { return q.w < 0.0f ? q_neg(q) : q; }
static inline nv_quat quat_inv(nv_quat q) { return qt(q.w, -q.x, -q.y, -q.z); }

/* Hamilton product q p. */
static inline nv_quat quat_mul(nv_quat q, nv_quat p)
{
    return qt(p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z,
              p.w * q.x + p.x * q.w - p.y * q.z + p.z * q.y,
              p.w * q.y + p.x * q.z + p.y * q.w - p.z * q.x,
              p.w * q.z - p.x * q.y + p.y * q.x + p.z * q.w);
}
static inline nv_quat quat_mul_inv(nv_quat q, nv_quat p) { return quat_mul(q, quat_inv(p)); }
static inline nv_quat quat_inv_mul(nv_quat q, nv_quat p) { return quat_mul(quat_inv(q), p); }

static inline float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

static inline nv_vec3 quat_log(nv_quat q)
{
    float length = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
    if (length < NV_EPS)
        return v3(q.x, q.y, q.z);
    float halfangle = acosf(clampf(q.w, -1.0f, 1.0f));
    return v3_scale(halfangle / length, v3(q.x, q.y, q.z));
}

static inline nv_quat quat_exp(nv_vec3 v)
{
    float halfangle = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
    if (halfangle < NV_EPS)
        return quat_normalize(qt(1.0f, v.x, v.y, v.z));
    float c = cosf(halfangle);
    float s = sinf(halfangle) / halfangle;
    return qt(c, s * v.x, s * v.y, s * v.z);
}

static inline nv_vec3 quat_to_scaled_angle_axis(nv_quat q) { return v3_scale(2.0f, quat_log(q)); }
static inline nv_quat quat_from_scaled_angle_axis(nv_vec3 v) { return quat_exp(v3_scale(0.5f, v)); }

/* ---- cubic interpolation text ------------------------------------------ */

/* The cubic Hermite basis at x: w0..w3 weigh p0, p1, v0, v1 in the value,
 * q0..q3 in its derivative (written once here, used by every Hermite below). */
typedef struct hermite_basis {
    float w0, w1, w2, w3, q0, q1, q2, q3;
} hermite_basis;

static inline hermite_basis hermite_weights(float x)
{
    hermite_basis b;
    b.w0 = 2 * x * x * x - 3 * x * x + 1;
    b.w1 = 3 * x * x - 2 * x * x * x;
    b.w2 = x * x * x - 2 * x * x + x;
    b.w3 = x * x * x - x * x;

    b.q0 = 6 * x * x - 6 * x;
    b.q1 = 6 * x - 6 * x * x;
    b.q2 = 3 * x * x - 4 * x + 1;
    b.q3 = 3 * x * x - 2 * x;
    return b;
}

static inline void hermite_vec3(nv_vec3 *pos, nv_vec3 *vel, float x, nv_vec3 p0, nv_vec3 p1,
                                nv_vec3 v0, nv_vec3 v1)
{
    hermite_basis b = hermite_weights(x);
    *pos = v3_add(v3_add(v3_scale(b.w0, p0), v3_scale(b.w1, p1)),
                  v3_add(v3_scale(b.w2, v0), v3_scale(b.w3, v1)));
    *vel = v3_add(v3_add(v3_scale(b.q0, p0), v3_scale(b.q1, p1)),
                  v3_add(v3_scale(b.q2, v0), v3_scale(b.q3, v1)));
}

static inline void hermite_vec4(nv_quat *pos, nv_quat *vel, float x, nv_quat p0, nv_quat p1,
                                nv_quat v0, nv_quat v1)
{
    hermite_basis b = hermite_weights(x);
    *pos = q_add(q_add(q_scale(b.w0, p0), q_scale(b.w1, p1)),
                 q_add(q_scale(b.w2, v0), q_scale(b.w3, v1)));
    *vel = q_add(q_add(q_scale(b.q0, p0), q_scale(b.q1, p1)),
                 q_add(q_scale(b.q2, v0), q_scale(b.q3, v1)));
}

static inline void quat_hermite(nv_quat *rot, nv_vec3 *vel, float x, nv_quat r0, nv_quat r1,
                                nv_vec3 v0, nv_vec3 v1)
{
    hermite_basis b = hermite_weights(x);

    nv_vec3 r1_sub_r0 = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r1, r0)));

    *rot = quat_mul(quat_from_scaled_angle_axis(v3_add(
                        v3_add(v3_scale(b.w1, r1_sub_r0), v3_scale(b.w2, v0)), v3_scale(b.w3, v1))),
                    r0);
    *vel = v3_add(v3_add(v3_scale(b.q1, r1_sub_r0), v3_scale(b.q2, v0)), v3_scale(b.q3, v1));
}

static inline void quat_catmull_rom(nv_quat *rot, nv_vec3 *vel, float x, nv_quat r0, nv_quat r1,
                                    nv_quat r2, nv_quat r3)
{
    nv_vec3 r1_sub_r0 = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r1, r0)));
    nv_vec3 r2_sub_r1 = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r2, r1)));
    nv_vec3 r3_sub_r2 = quat_to_scaled_angle_axis(quat_abs(quat_mul_inv(r3, r2)));

    nv_vec3 v1 = v3_scale(0.5f, v3_add(r1_sub_r0, r2_sub_r1));
    nv_vec3 v2 = v3_scale(0.5f, v3_add(r2_sub_r1, r3_sub_r2));
    quat_hermite(rot, vel, x, r1, r2, v1, v2);
}

void nv_quat_catmull_rom(size_t n, float x, const nv_quat *r0, const nv_quat *r1, const nv_quat *r2,
                         const nv_quat *r3, nv_quat *rot, nv_vec3 *vel)
{
    for (size_t j = 0; j < n; j++)
        quat_catmull_rom(&rot[j], &vel[j], x, r0[j], r1[j], r2[j], r3[j]);
}

void nv_quat_hermite(size_t n, float x, const nv_quat *r0, const nv_quat *r1, const nv_vec3 *v0,
                     const nv_vec3 *v1, nv_quat *rot, nv_vec3 *vel)
{
    for (size_t j = 0; j < n; j++)
        quat_hermite(&rot[j], &vel[j], x, r0[j], r1[j], v0[j], v1[j]);
}

void nv_quat_raw_cubic(size_t n, float x, const nv_quat *r0, const nv_quat *r1, const nv_quat *r2,
                       const nv_quat *r3, nv_quat *rot, nv_quat *vel4)
{
    for (size_t j = 0; j < n; j++) {
        nv_quat v1 = q_scale(0.5f, q_add(q_sub(r1[j], r0[j]), q_sub(r2[j], r1[j])));
        nv_quat v2 = q_scale(0.5f, q_add(q_sub(r2[j], r1[j]), q_sub(r3[j], r2[j])));
        nv_quat pos;
        hermite_vec4(&pos, &vel4[j], x, r1[j], r2[j], v1, v2);
        rot[j] = quat_normalize(pos);
    }
}

void nv_vec3_catmull_rom(size_t n, float x, const nv_vec3 *p0, const nv_vec3 *p1, const nv_vec3 *p2,
                         const nv_vec3 *p3, nv_vec3 *pos, nv_vec3 *vel)
{
    for (size_t j = 0; j < n; j++) {
        nv_vec3 v1 = v3_scale(0.5f, v3_add(v3_sub(p1[j], p0[j]), v3_sub(p2[j], p1[j])));
        nv_vec3 v2 = v3_scale(0.5f, v3_add(v3_sub(p2[j], p1[j]), v3_sub(p3[j], p2[j])));
        hermite_vec3(&pos[j], &vel[j], x, p1[j], p2[j], v1, v2);
    }
}

static inline void scale_hermite(nv_vec3 *scl, nv_vec3 *svl, float x, nv_vec3 s0, nv_vec3 s1,
                                 nv_vec3 v0, nv_vec3 v1)
{
    hermite_basis b = hermite_weights(x);

    nv_vec3 s1_sub_s0 = v3_log(v3_div(s1, s0));

    *scl = v3_mul(
        v3_exp(v3_add(v3_add(v3_scale(b.w1, s1_sub_s0), v3_scale(b.w2, v0)), v3_scale(b.w3, v1))),
        s0);
    *svl = v3_add(v3_add(v3_scale(b.q1, s1_sub_s0), v3_scale(b.q2, v0)), v3_scale(b.q3, v1));
}

void nv_scale_catmull_rom(size_t n, float x, const nv_vec3 *s0, const nv_vec3 *s1,
                          const nv_vec3 *s2, const nv_vec3 *s3, nv_vec3 *scl, nv_vec3 *svl)
{
    for (size_t j = 0; j < n; j++) {
        nv_vec3 s1_sub_s0 = v3_log(v3_div(s1[j], s0[j]));
        nv_vec3 s2_sub_s1 = v3_log(v3_div(s2[j], s1[j]));
        nv_vec3 s3_sub_s2 = v3_log(v3_div(s3[j], s2[j]));

        nv_vec3 v1 = v3_scale(0.5f, v3_add(s1_sub_s0, s2_sub_s1));
        nv_vec3 v2 = v3_scale(0.5f, v3_add(s2_sub_s1, s3_sub_s2));
        scale_hermite(&scl[j], &svl[j], x, s1[j], s2[j], v1, v2);
    }
}

/* ---- slerp.txt (in float, with the hemisphere flip, typo fixed) -------- */

static inline nv_quat slerp(nv_quat qa, nv_quat qb, float t)
{
    float cosHalfTheta = qa.w * qb.w + qa.x * qb.x + qa.y * qb.y + qa.z * qb.z;
    if (cosHalfTheta < 0) {
        qb = q_neg(qb);
        cosHalfTheta = -cosHalfTheta;
    }
    if (fabsf(cosHalfTheta) >= 1.0f)
        return qa;
    float halfTheta = acosf(cosHalfTheta);
    float sinHalfTheta = sqrtf(1.0f - cosHalfTheta * cosHalfTheta);
    if (fabsf(sinHalfTheta) < 0.001f)
        return q_add(q_scale(0.5f, qa), q_scale(0.5f, qb));
    float ratioA = sinf((1 - t) * halfTheta) / sinHalfTheta;
    float ratioB = sinf(t * halfTheta) / sinHalfTheta;
    return q_add(q_scale(ratioA, qa), q_scale(ratioB, qb));
}

void nv_quat_slerp(size_t n, float t, const nv_quat *a, const nv_quat *b, nv_quat *out)
{
    for (size_t j = 0; j < n; j++)
        out[j] = slerp(a[j], b[j], t);
}

static inline nv_quat nlerp_shortest(nv_quat q, nv_quat p, float alpha)
{
    if (q_dot(q, p) < 0.0f)
        p = q_neg(p);
    return quat_normalize(q_add(q_scale(1.0f - alpha, q), q_scale(alpha, p)));
}

void nv_quat_nlerp(size_t n, float t, const nv_quat *a, const nv_quat *b, nv_quat *out)
{
    for (size_t j = 0; j < n; j++)
        out[j] = nlerp_shortest(a[j], b[j], t);
}

/* ---- weighted-average text --------------------------------------------- */

/* The raw and log averages and their _ref variants are one loop each: the
 * sample taken relative to the reference (has_ref), accumulated, and the
 * result taken back. Inlined with has_ref constant, each variant compiles to
 * the loop it would be written out. */
NV_INLINE nv_quat to_ref(int has_ref, const nv_quat *ref, size_t j, nv_quat s)
{
    return has_ref ? quat_inv_mul(ref[j], s) : s;
}
NV_INLINE nv_quat from_ref(int has_ref, const nv_quat *ref, size_t j, nv_quat q)
{
    return has_ref ? quat_abs(quat_mul(ref[j], q)) : q;
}

NV_INLINE void average_raw(size_t n, size_t k, int has_ref, const nv_quat *ref,
                           const nv_quat *samples, const float *weights, nv_quat *out)
{
    for (size_t j = 0; j < n; j++)
        out[j] = qt(0.0f, 0.0f, 0.0f, 0.0f);

    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < n; j++) {
            nv_quat s = quat_abs(to_ref(has_ref, ref, j, samples[i * n + j]));
            out[j] = q_add(out[j], q_scale(weights[i], s));
        }

    for (size_t j = 0; j < n; j++)
        out[j] = from_ref(has_ref, ref, j, quat_normalize(out[j]));
}

NV_INLINE void average_log(size_t n, size_t k, int has_ref, const nv_quat *ref,
                           const nv_quat *samples, const float *weights, nv_vec3 *accum,
                           nv_quat *out)
{
    for (size_t j = 0; j < n; j++)
        accum[j] = v3(0.0f, 0.0f, 0.0f);

    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < n; j++) {
            nv_quat s = quat_abs(to_ref(has_ref, ref, j, samples[i * n + j]));
            accum[j] = v3_add(accum[j], v3_scale(weights[i], quat_log(s)));
        }

    for (size_t j = 0; j < n; j++)
        out[j] = from_ref(has_ref, ref, j, quat_exp(accum[j]));
}

void nv_average_raw(size_t n, size_t k, const nv_quat *samples, const float *weights, nv_quat *out)
{
    average_raw(n, k, 0, NULL, samples, weights, out);
}

void nv_average_log(size_t n, size_t k, const nv_quat *samples, const float *weights,
                    nv_vec3 *accum, nv_quat *out)
{
    average_log(n, k, 0, NULL, samples, weights, accum, out);
}

void nv_average_raw_ref(size_t n, size_t k, const nv_quat *ref, const nv_quat *samples,
                        const float *weights, nv_quat *out)
{
    average_raw(n, k, 1, ref, samples, weights, out);
}

void nv_average_log_ref(size_t n, size_t k, const nv_quat *ref, const nv_quat *samples,
                        const float *weights, nv_vec3 *accum, nv_quat *out)
{
    average_log(n, k, 1, ref, samples, weights, accum, out);
}

/* ---- pose blend: rotations by a _ref average, translations and scales --- */

/* out = sum_i w_i s_i, or exp(sum_i w_i ln s_i) in log space (scales). */
NV_INLINE void v3_weighted_sum(size_t n, size_t k, const nv_vec3 *samples, const float *weights,
                               int log_space, nv_vec3 *out)
{
    for (size_t j = 0; j < n; j++)
        out[j] = v3(0.0f, 0.0f, 0.0f);

    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < n; j++) {
            nv_vec3 s = samples[i * n + j];
            out[j] = v3_add(out[j], v3_scale(weights[i], log_space ? v3_log(s) : s));
        }

    if (log_space)
        for (size_t j = 0; j < n; j++)
            out[j] = v3_exp(out[j]);
}

void nv_pose_blend_ref(size_t n, size_t k, int log_average, int log_scale, const nv_quat *ref,
                       const nv_quat *rot, const nv_vec3 *pos, const nv_vec3 *scl,
                       const float *weights, nv_vec3 *accum, nv_quat *out_rot, nv_vec3 *out_pos,
                       nv_vec3 *out_scl)
{
    if (log_average)
        average_log(n, k, 1, ref, rot, weights, accum, out_rot);
    else
        average_raw(n, k, 1, ref, rot, weights, out_rot);
    v3_weighted_sum(n, k, pos, weights, 0, out_pos);
    v3_weighted_sum(n, k, scl, weights, log_scale, out_scl);
}

/* ---- clip resampling: the text's quat_catmull_rom per output sample ----- */

void nv_clip_resample(size_t joints, size_t frames, float fps, double step, size_t count,
                      const nv_quat *src, nv_quat *rot, nv_vec3 *vel)
{
    double last = (double)(frames - 1);
    for (size_t i = 0; i < count; i++) {
        double u = (double)i * step;
        float vs = u <= last ? fps : 0.0f; /* past the end: hold the last pose */
        if (!(u <= last))
            u = last;
        size_t f = (size_t)u;
        float x = (float)(u - (double)f);
        const nv_quat *k0 = src + (f ? f - 1 : 0) * joints;
        const nv_quat *k1 = src + f * joints;
        const nv_quat *k2 = src + (f + 1 < frames ? f + 1 : frames - 1) * joints;
        const nv_quat *k3 = src + (f + 2 < frames ? f + 2 : frames - 1) * joints;
        nv_quat *r = rot + i * joints;
        nv_vec3 *v = vel + i * joints;
        for (size_t j = 0; j < joints; j++) {
            quat_catmull_rom(&r[j], &v[j], x, k0[j], k1[j], k2[j], k3[j]);
            v[j] = v3_scale(vs, v[j]); /* per x -> per second */
        }
    }
}

/* mat4 / vec4 as in the text: vec4 (x, y, z, w) holds quat (w, x, y, z). */
typedef struct nv_vec4 {
    float x, y, z, w;
} nv_vec4;
typedef struct nv_mat4 {
    float m[4][4];
} nv_mat4;

static inline nv_vec4 v4(float x, float y, float z, float w)
{
    nv_vec4 r = {x, y, z, w};
    return r;
}
static inline nv_vec4 mat4_mul_vec4(const nv_mat4 *a, nv_vec4 v)
{
    return v4(a->m[0][0] * v.x + a->m[0][1] * v.y + a->m[0][2] * v.z + a->m[0][3] * v.w,
              a->m[1][0] * v.x + a->m[1][1] * v.y + a->m[1][2] * v.z + a->m[1][3] * v.w,
              a->m[2][0] * v.x + a->m[2][1] * v.y + a->m[2][2] * v.z + a->m[2][3] * v.w,
              a->m[3][0] * v.x + a->m[3][1] * v.y + a->m[3][2] * v.z + a->m[3][3] * v.w);
}
static inline nv_vec4 mat4_transpose_mul_vec4(const nv_mat4 *a, nv_vec4 v)
{
    return v4(a->m[0][0] * v.x + a->m[1][0] * v.y + a->m[2][0] * v.z + a->m[3][0] * v.w,
              a->m[0][1] * v.x + a->m[1][1] * v.y + a->m[2][1] * v.z + a->m[3][1] * v.w,
              a->m[0][2] * v.x + a->m[1][2] * v.y + a->m[2][2] * v.z + a->m[3][2] * v.w,
              a->m[0][3] * v.x + a->m[1][3] * v.y + a->m[2][3] * v.z + a->m[3][3] * v.w);
}
static inline nv_vec4 v4_normalize(nv_vec4 v)
{
    float s = 1.0f / (sqrtf(v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w) + NV_EPS);
    return v4(s * v.x, s * v.y, s * v.z, s * v.w);
}

static nv_vec4 mat4_svd_dominant_eigen(const nv_mat4 *A, nv_vec4 v0, int iterations, float eps)
{
    /* Initial Guess at Eigen Vector & Value */
    nv_vec4 v = v0;
    float ev = mat4_mul_vec4(A, v).x / v.x;

    for (int i = 0; i < iterations; i++) {
        /* Power Iteration */
        nv_vec4 Av = mat4_mul_vec4(A, v);

        /* Next Guess at Eigen Vector & Value */
        nv_vec4 v_new = v4_normalize(Av);
        float ev_new = mat4_mul_vec4(A, v_new).x / v_new.x;

        /* Break if converged */
        if (fabsf(ev - ev_new) < eps)
            break;

        /* Update best guess */
        v = v_new;
        ev = ev_new;
    }
    return v;
}

static nv_quat quat_average_accurate(const nv_quat *rotations, const float *weights, size_t k)
{
    nv_mat4 accum = {{{0}}};

    /* Loop over rotations */
    for (size_t i = 0; i < k; i++) {
        nv_quat q = rotations[i];
        float w = weights[i];
        float c[4] = {q.w, q.x, q.y, q.z};
        /* weighted outer product */
        for (int r = 0; r < 4; r++)
            for (int s = 0; s < 4; s++)
                accum.m[r][s] += w * c[r] * c[s];
    }

    /* Initial guess at eigen vector is identity quaternion */
    nv_vec4 guess = v4(1, 0, 0, 0);

    /* Compute first eigen vector */
    nv_vec4 u = mat4_svd_dominant_eigen(&accum, guess, 64, 1e-5f);
    nv_vec4 v = v4_normalize(mat4_transpose_mul_vec4(&accum, u));

    /* Average quaternion is first eigen vector */
    return quat_abs(qt(v.x, v.y, v.z, v.w));
}

void nv_average_accurate(size_t n, size_t k, const nv_quat *samples, const float *weights,
                         nv_quat *out)
{
    nv_quat rotations[64];
    if (k > 64)
        k = 64;
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < k; i++)
            rotations[i] = samples[i * n + j];
        out[j] = quat_average_accurate(rotations, weights, k);
    }
}
