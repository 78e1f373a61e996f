/* The public entry points: validate every argument before anything is written,
 * then hand over to the active backend's kernel. */
#include <stdint.h>

#include "check.h"
#include "internal.h"

static const pb_vec3s no_v3 = {0, 0, 0};
static const pb_quats no_q = {0, 0, 0, 0};

uint32_t pb_version(void)
{
    return PB_VERSION_MAJOR * 10000u + PB_VERSION_MINOR * 100u + PB_VERSION_PATCH;
}

#define PB_STR2(x) #x
#define PB_STR(x) PB_STR2(x)
const char *pb_version_string(void)
{
    return PB_STR(PB_VERSION_MAJOR) "." PB_STR(PB_VERSION_MINOR) "." PB_STR(PB_VERSION_PATCH);
}

const char *pb_status_str(pb_status status)
{
    switch (status) {
    case PB_OK: return "ok";
    case PB_ERR_NULL: return "a required pointer is NULL";
    case PB_ERR_SIZE: return "count too large (above PB_MAX_COUNT) or size overflow";
    case PB_ERR_ARG: return "invalid argument (zero sample count, unknown flag or name)";
    case PB_ERR_ALIAS: return "arrays overlap in a way the function does not allow";
    case PB_ERR_UNSUPPORTED: return "backend not built in or not supported by this CPU";
    case PB_ERR_NOMEM: return "out of memory";
    }
    return "unknown status";
}

/* ---------------------------------------------------------- primitives */

/* two batches in, one out (exactly one of the inputs allowed): also the
 * slerp and nlerp check */
static inline void two_q_list(chk *c, size_t n, const pb_cquats *a, const pb_cquats *b,
                              const pb_quats *out)
{
    out_q(c, *out, n);
    in_q(c, *a, n);
    in_q(c, *b, n);
}
PB_CHECKED(two_q, (size_t n, const pb_cquats *a, const pb_cquats *b, const pb_quats *out),
           (n, a, b, out))

#define BINARY_OP(fn, kern)                                                                        \
    pb_status fn(size_t n, pb_cquats a, pb_cquats b, pb_quats out)                                 \
    {                                                                                              \
        PROLOGUE(n);                                                                               \
        pb_status st = two_q_check(n, &a, &b, &out);                                               \
        if (st != PB_OK)                                                                           \
            return st;                                                                             \
        K(n)->kern(n, a, b, out);                                                                  \
        return PB_OK;                                                                              \
    }
BINARY_OP(pb_quat_mul, quat_mul)
BINARY_OP(pb_quat_mul_inv, quat_mul_inv)
BINARY_OP(pb_quat_inv_mul, quat_inv_mul)

/* one batch in (a quaternion or a vec3 one), one out; exactly the output
 * allowed as input */
static inline void one_in_list(chk *c, size_t n, const pb_cquats *q, const pb_cvec3s *v,
                               const pb_quats *oq, const pb_vec3s *ov)
{
    if (oq)
        out_q(c, *oq, n);
    else
        out_v(c, *ov, n);
    if (q)
        in_q(c, *q, n);
    else
        in_v(c, *v, n);
}
PB_CHECKED(one_in,
           (size_t n, const pb_cquats *q, const pb_cvec3s *v, const pb_quats *oq,
            const pb_vec3s *ov),
           (n, q, v, oq, ov))

static pb_status unary_q(size_t n, pb_cquats q, pb_quats out,
                         void (*kern)(size_t, pb_cquats, pb_quats))
{
    PROLOGUE(n);
    pb_status st = one_in_check(n, &q, NULL, &out, NULL);
    if (st != PB_OK)
        return st;
    kern(n, q, out);
    return PB_OK;
}
pb_status pb_quat_abs(size_t n, pb_cquats q, pb_quats out)
{
    return unary_q(n, q, out, K(n)->quat_abs);
}
pb_status pb_quat_normalize(size_t n, pb_cquats q, pb_quats out)
{
    return unary_q(n, q, out, K(n)->quat_normalize);
}

static pb_status log_scaled(size_t n, pb_cquats q, float scale, pb_vec3s out)
{
    PROLOGUE(n);
    pb_status st = one_in_check(n, &q, NULL, NULL, &out);
    if (st != PB_OK)
        return st;
    K(n)->quat_log(n, q, scale, out);
    return PB_OK;
}
pb_status pb_quat_log(size_t n, pb_cquats q, pb_vec3s out) { return log_scaled(n, q, 1.0f, out); }
pb_status pb_quat_to_scaled_angle_axis(size_t n, pb_cquats q, pb_vec3s out)
{
    return log_scaled(n, q, 2.0f, out);
}
static pb_status exp_scaled(size_t n, pb_cvec3s v, float scale, pb_quats out)
{
    PROLOGUE(n);
    pb_status st = one_in_check(n, NULL, &v, &out, NULL);
    if (st != PB_OK)
        return st;
    K(n)->quat_exp(n, v, scale, out);
    return PB_OK;
}
pb_status pb_quat_exp(size_t n, pb_cvec3s v, pb_quats out) { return exp_scaled(n, v, 1.0f, out); }
pb_status pb_quat_from_scaled_angle_axis(size_t n, pb_cvec3s v, pb_quats out)
{
    return exp_scaled(n, v, 0.5f, out);
}

/* frames x tracks with the product inside PB_MAX_COUNT */
static pb_status count2(size_t a, size_t b, size_t *total)
{
    if (a > PB_MAX_COUNT || b > PB_MAX_COUNT || (b != 0 && a > PB_MAX_COUNT / b))
        return PB_ERR_SIZE;
    *total = a * b;
    return PB_OK;
}

pb_status pb_quat_unroll(size_t frames, size_t tracks, pb_cquats in, pb_quats out)
{
    size_t total;
    pb_status st = count2(frames, tracks, &total);
    if (st != PB_OK)
        return st;
    if (total == 0)
        return PB_OK;
    chk c;
    chk_tab tab;
    chk_init(&c, &tab);
    out_q(&c, out, total);
    in_q(&c, in, total);
    if (c.st != PB_OK)
        return c.st;
    K(tracks)->quat_unroll(frames, tracks, in, out);
    return PB_OK;
}

static inline void two_q_v_list(chk *c, size_t n, const pb_cquats *a, const pb_cquats *b,
                                const pb_vec3s *out)
{
    out_v(c, *out, n);
    in_q(c, *a, n);
    in_q(c, *b, n);
}
PB_CHECKED(two_q_v, (size_t n, const pb_cquats *a, const pb_cquats *b, const pb_vec3s *out),
           (n, a, b, out))

pb_status pb_quat_delta_to_angular_velocity(size_t n, pb_cquats ref, pb_cquats delta, pb_vec3s out)
{
    PROLOGUE(n);
    pb_status st = two_q_v_check(n, &ref, &delta, &out);
    if (st != PB_OK)
        return st;
    K(n)->quat_delta_to_angular_velocity(n, ref, delta, out);
    return PB_OK;
}

/* -------------------------------------------------------- interpolation */

/* the vec3 and scale cubics share one checker: two outputs, four inputs */
static inline void keys4v_list(chk *c, size_t n, const pb_cvec3s *a, const pb_cvec3s *b,
                               const pb_cvec3s *c3, const pb_cvec3s *d, const pb_vec3s *out,
                               const pb_vec3s *vel)
{
    out_v(c, *out, n);
    opt_out_v(c, *vel, n);
    in_v(c, *a, n);
    in_v(c, *b, n);
    in_v(c, *c3, n);
    in_v(c, *d, n);
}
PB_CHECKED(keys4v,
           (size_t n, const pb_cvec3s *a, const pb_cvec3s *b, const pb_cvec3s *c3,
            const pb_cvec3s *d, const pb_vec3s *out, const pb_vec3s *vel),
           (n, a, b, c3, d, out, vel))

pb_status pb_vec3_hermite(size_t n, float x, pb_cvec3s p0, pb_cvec3s p1, pb_cvec3s v0, pb_cvec3s v1,
                          pb_vec3s pos, pb_vec3s vel)
{
    PROLOGUE(n);
    pb_status st = keys4v_check(n, &p0, &p1, &v0, &v1, &pos, &vel);
    if (st != PB_OK)
        return st;
    K(n)->vec3_hermite(n, x, p0, p1, v0, v1, pos, absent_v(vel) ? no_v3 : vel);
    return PB_OK;
}

pb_status pb_vec3_catmull_rom(size_t n, float x, pb_cvec3s p0, pb_cvec3s p1, pb_cvec3s p2,
                              pb_cvec3s p3, pb_vec3s pos, pb_vec3s vel)
{
    PROLOGUE(n);
    pb_status st = keys4v_check(n, &p0, &p1, &p2, &p3, &pos, &vel);
    if (st != PB_OK)
        return st;
    K(n)->vec3_catmull_rom(n, x, 1.0f, p0, p1, p2, p3, pos, absent_v(vel) ? no_v3 : vel);
    return PB_OK;
}

static inline void hermite_list(chk *c, size_t n, const pb_cquats *r0, const pb_cquats *r1,
                                const pb_cvec3s *v0, const pb_cvec3s *v1, const pb_quats *rot,
                                const pb_vec3s *vel)
{
    out_q(c, *rot, n);
    opt_out_v(c, *vel, n);
    in_q(c, *r0, n);
    in_q(c, *r1, n);
    in_v(c, *v0, n);
    in_v(c, *v1, n);
}
PB_CHECKED(hermite,
           (size_t n, const pb_cquats *r0, const pb_cquats *r1, const pb_cvec3s *v0,
            const pb_cvec3s *v1, const pb_quats *rot, const pb_vec3s *vel),
           (n, r0, r1, v0, v1, rot, vel))

pb_status pb_quat_hermite(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cvec3s v0, pb_cvec3s v1,
                          unsigned flags, pb_quats rot, pb_vec3s vel)
{
    if (flags_ok(flags, PB_EXACT_VELOCITY) != PB_OK)
        return PB_ERR_ARG;
    PROLOGUE(n);
    pb_status st = hermite_check(n, &r0, &r1, &v0, &v1, &rot, &vel);
    if (st != PB_OK)
        return st;
    K(n)->quat_hermite(n, x, r0, r1, v0, v1, flags, rot, absent_v(vel) ? no_v3 : vel);
    return PB_OK;
}

/* the four-key entry points share one checker */
static inline void keys4q_list(chk *c, size_t n, const pb_cquats *r0, const pb_cquats *r1,
                               const pb_cquats *r2, const pb_cquats *r3, const pb_quats *rot,
                               const pb_vec3s *vel, const pb_quats *vel4)
{
    out_q(c, *rot, n);
    opt_out_v(c, *vel, n);
    opt_out_q(c, *vel4, n);
    in_q(c, *r0, n);
    in_q(c, *r1, n);
    in_q(c, *r2, n);
    in_q(c, *r3, n);
}
PB_CHECKED(keys4q,
           (size_t n, const pb_cquats *r0, const pb_cquats *r1, const pb_cquats *r2,
            const pb_cquats *r3, const pb_quats *rot, const pb_vec3s *vel, const pb_quats *vel4),
           (n, r0, r1, r2, r3, rot, vel, vel4))

pb_status pb_quat_catmull_rom(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cquats r2,
                              pb_cquats r3, unsigned flags, pb_quats rot, pb_vec3s vel)
{
    if (flags_ok(flags, PB_EXACT_VELOCITY) != PB_OK)
        return PB_ERR_ARG;
    PROLOGUE(n);
    pb_status st = keys4q_check(n, &r0, &r1, &r2, &r3, &rot, &vel, &no_q);
    if (st != PB_OK)
        return st;
    K(n)->quat_catmull_rom(n, x, r0, r1, r2, r3, flags, rot, absent_v(vel) ? no_v3 : vel);
    return PB_OK;
}

pb_status pb_quat_raw_cubic(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cquats r2,
                            pb_cquats r3, unsigned flags, pb_quats rot, pb_quats vel4)
{
    if (flags_ok(flags, PB_EXACT_VELOCITY) != PB_OK)
        return PB_ERR_ARG;
    PROLOGUE(n);
    pb_status st = keys4q_check(n, &r0, &r1, &r2, &r3, &rot, &no_v3, &vel4);
    if (st != PB_OK)
        return st;
    K(n)->quat_raw_cubic(n, x, r0, r1, r2, r3, flags, rot, absent_q(vel4) ? no_q : vel4);
    return PB_OK;
}

pb_status pb_scale_hermite(size_t n, float x, pb_cvec3s s0, pb_cvec3s s1, pb_cvec3s v0,
                           pb_cvec3s v1, pb_vec3s scale, pb_vec3s svel)
{
    PROLOGUE(n);
    pb_status st = keys4v_check(n, &s0, &s1, &v0, &v1, &scale, &svel);
    if (st != PB_OK)
        return st;
    K(n)->scale_hermite(n, x, s0, s1, v0, v1, scale, absent_v(svel) ? no_v3 : svel);
    return PB_OK;
}

pb_status pb_scale_catmull_rom(size_t n, float x, pb_cvec3s s0, pb_cvec3s s1, pb_cvec3s s2,
                               pb_cvec3s s3, pb_vec3s scale, pb_vec3s svel)
{
    PROLOGUE(n);
    pb_status st = keys4v_check(n, &s0, &s1, &s2, &s3, &scale, &svel);
    if (st != PB_OK)
        return st;
    K(n)->scale_catmull_rom(n, x, 1.0f, s0, s1, s2, s3, scale, absent_v(svel) ? no_v3 : svel);
    return PB_OK;
}

pb_status pb_quat_slerp(size_t n, float t, pb_cquats a, pb_cquats b, unsigned flags, pb_quats out)
{
    if (flags_ok(flags, PB_LONG_PATH) != PB_OK)
        return PB_ERR_ARG;
    PROLOGUE(n);
    pb_status st = two_q_check(n, &a, &b, &out);
    if (st != PB_OK)
        return st;
    K(n)->quat_slerp(n, t, a, b, flags, out);
    return PB_OK;
}
pb_status pb_quat_nlerp(size_t n, float t, pb_cquats a, pb_cquats b, unsigned flags, pb_quats out)
{
    if (flags_ok(flags, PB_LONG_PATH) != PB_OK)
        return PB_ERR_ARG;
    PROLOGUE(n);
    pb_status st = two_q_check(n, &a, &b, &out);
    if (st != PB_OK)
        return st;
    pb_kernels_for_nlerp(n)->quat_nlerp(n, t, a, b, flags, out);
    return PB_OK;
}

/* ------------------------------------------------------------- averages */

/* k samples + weights (+ reference when ref_needed); out listed first */
static inline void average_arrays_list(chk *c, size_t n, size_t k, const pb_cquats *ref,
                                       const pb_cquats *samples, const float *weights,
                                       const pb_quats *out)
{
    out_q(c, *out, n);
    if (ref)
        in_q(c, *ref, n);
    for (size_t i = 0; i < k && c->st == PB_OK; i++)
        in_q(c, samples[i], n);
    /* weights are read per sample while outputs are written: no overlap */
    if (c->st == PB_OK)
        in_f(c, weights, k, 0);
}
PB_CHECKED(average_arrays,
           (size_t n, size_t k, const pb_cquats *ref, const pb_cquats *samples,
            const float *weights, const pb_quats *out),
           (n, k, ref, samples, weights, out))

static pb_status average_check(size_t n, size_t k, const pb_cquats *ref, const pb_cquats *samples,
                               const float *weights, pb_quats out)
{
    if (k == 0)
        return PB_ERR_ARG;
    if (n > PB_MAX_COUNT || k > PB_MAX_COUNT)
        return PB_ERR_SIZE;
    if (n == 0)
        return PB_OK;
    if (!samples || !weights)
        return PB_ERR_NULL;
    return average_arrays_check(n, k, ref, samples, weights, &out);
}

typedef void (*avg_ref_kernel)(size_t, size_t, pb_cquats, const pb_samples *, const float *,
                               pb_quats);
static pb_status average_ref(size_t n, size_t k, const pb_cquats *ref, const pb_cquats *samples,
                             const float *weights, pb_quats out, avg_ref_kernel kern)
{
    pb_status st = average_check(n, k, ref, samples, weights, out);
    if (st != PB_OK || n == 0)
        return st;
    pb_samples s = {samples, {0, 0, 0, 0}, 0};
    pb_cquats r = ref ? *ref : (pb_cquats){0, 0, 0, 0};
    kern(n, k, r, &s, weights, out);
    return PB_OK;
}
pb_status pb_quat_average_raw(size_t n, size_t k, const pb_cquats *samples, const float *weights,
                              pb_quats out)
{
    return average_ref(n, k, NULL, samples, weights, out, K(n)->average_raw);
}
pb_status pb_quat_average_log(size_t n, size_t k, const pb_cquats *samples, const float *weights,
                              pb_quats out)
{
    return average_ref(n, k, NULL, samples, weights, out, K(n)->average_log);
}
pb_status pb_quat_average_raw_ref(size_t n, size_t k, pb_cquats ref, const pb_cquats *samples,
                                  const float *weights, pb_quats out)
{
    return average_ref(n, k, &ref, samples, weights, out, K(n)->average_raw);
}
pb_status pb_quat_average_log_ref(size_t n, size_t k, pb_cquats ref, const pb_cquats *samples,
                                  const float *weights, pb_quats out)
{
    return average_ref(n, k, &ref, samples, weights, out, K(n)->average_log);
}

typedef void (*avg_kernel)(size_t, size_t, const pb_samples *, const float *, pb_quats);
static pb_status average_plain(size_t n, size_t k, const pb_cquats *samples, const float *weights,
                               pb_quats out, avg_kernel kern)
{
    pb_status st = average_check(n, k, NULL, samples, weights, out);
    if (st != PB_OK || n == 0)
        return st;
    pb_samples s = {samples, {0, 0, 0, 0}, 0};
    kern(n, k, &s, weights, out);
    return PB_OK;
}
pb_status pb_quat_average_accurate(size_t n, size_t k, const pb_cquats *samples,
                                   const float *weights, pb_quats out)
{
    return average_plain(n, k, samples, weights, out, K(n)->average_accurate);
}
pb_status pb_quat_average_basic(size_t n, size_t k, const pb_cquats *samples, const float *weights,
                                pb_quats out)
{
    return average_plain(n, k, samples, weights, out, K(n)->average_basic);
}

static inline void sin_half_list(chk *c, size_t n, const pb_cquats *a, const pb_cquats *b,
                                 float *out)
{
    out_f(c, out, n);
    in_q_strict(c, *a, n);
    in_q_strict(c, *b, n);
}
PB_CHECKED(sin_half, (size_t n, const pb_cquats *a, const pb_cquats *b, float *out), (n, a, b, out))

pb_status pb_quat_sin_half_angle(size_t n, pb_cquats a, pb_cquats b, float *out)
{
    PROLOGUE(n);
    pb_status st = sin_half_check(n, &a, &b, out);
    if (st != PB_OK)
        return st;
    K(n)->sin_half_angle(n, a, b, out);
    return PB_OK;
}

pb_status pb_quat_reference_extract(size_t frames, size_t joints, pb_cquats poses, pb_quats out)
{
    size_t total;
    if (frames == 0)
        return PB_ERR_ARG;
    pb_status st = count2(frames, joints, &total);
    if (st != PB_OK)
        return st;
    if (joints == 0)
        return PB_OK;
    chk c;
    chk_tab tab;
    chk_init(&c, &tab);
    out_q(&c, out, joints);
    in_q_strict(&c, poses, total);
    if (c.st != PB_OK)
        return c.st;
    pb_samples s = {NULL, poses, joints};
    K(joints)->average_accurate(joints, frames, &s, NULL, out);
    return PB_OK;
}

/* ------------------------------------------------------ splines notebook */

static inline void three_key_list(chk *c, size_t n, const pb_cquats *prev, const pb_cquats *cur,
                                  const pb_cquats *next, const pb_quats *o1, const pb_quats *o2)
{
    out_q(c, *o1, n);
    if (!absent_q(*o2))
        out_q(c, *o2, n);
    in_q(c, *prev, n);
    in_q(c, *cur, n);
    in_q(c, *next, n);
}
PB_CHECKED(three_key,
           (size_t n, const pb_cquats *prev, const pb_cquats *cur, const pb_cquats *next,
            const pb_quats *o1, const pb_quats *o2),
           (n, prev, cur, next, o1, o2))

pb_status pb_quat_tangent_offset(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                                 pb_quats offset)
{
    PROLOGUE(n);
    pb_status st = three_key_check(n, &prev, &cur, &next, &offset, &no_q);
    if (st != PB_OK)
        return st;
    K(n)->tangent_offset(n, prev, cur, next, offset);
    return PB_OK;
}
pb_status pb_quat_bezier_controls(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                                  pb_quats before, pb_quats after)
{
    PROLOGUE(n);
    if (absent_q(after))
        return PB_ERR_NULL;
    pb_status st = three_key_check(n, &prev, &cur, &next, &before, &after);
    if (st != PB_OK)
        return st;
    K(n)->bezier_controls(n, prev, cur, next, before, after);
    return PB_OK;
}
pb_status pb_quat_shoemake_controls(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                                    pb_quats b, pb_quats a)
{
    PROLOGUE(n);
    if (absent_q(a))
        return PB_ERR_NULL;
    pb_status st = three_key_check(n, &prev, &cur, &next, &b, &a);
    if (st != PB_OK)
        return st;
    K(n)->shoemake_controls(n, prev, cur, next, b, a);
    return PB_OK;
}
pb_status pb_quat_de_casteljau(size_t n, float t, pb_cquats q0, pb_cquats q1, pb_cquats q2,
                               pb_cquats q3, pb_quats out)
{
    PROLOGUE(n);
    pb_status st = keys4q_check(n, &q0, &q1, &q2, &q3, &out, &no_v3, &no_q);
    if (st != PB_OK)
        return st;
    K(n)->de_casteljau(n, t, q0, q1, q2, q3, out);
    return PB_OK;
}
