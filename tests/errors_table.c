/* Every batch entry point of posebatch.h as one uniform call (see
 * errors_table.h): a wrapper per function and the table of their slots. */
#include "errors_table.h"

int g_samples_null; /* averages: pass samples == NULL */

#define CQ(s) ((pb_cquats){P[s][0], P[s][1], P[s][2], P[s][3]})
#define OQ(s) ((pb_quats){P[s][0], P[s][1], P[s][2], P[s][3]})
#define CV(s) ((pb_cvec3s){P[s][0], P[s][1], P[s][2]})
#define OV(s) ((pb_vec3s){P[s][0], P[s][1], P[s][2]})
#define UNUSED (void)m, (void)fl, (void)x

static pb_status f_mul(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_mul(n, CQ(0), CQ(1), OQ(2));
}
static pb_status f_mul_inv(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_mul_inv(n, CQ(0), CQ(1), OQ(2));
}
static pb_status f_inv_mul(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_inv_mul(n, CQ(0), CQ(1), OQ(2));
}
/* rotation representations: a matrix is three vec3 slots (its rows), a 6D
 * two (its columns) */
#define M3(s)                                                                                      \
    {                                                                                              \
        {                                                                                          \
            P[s][0], P[s][1], P[s][2], P[s + 1][0], P[s + 1][1], P[s + 1][2], P[s + 2][0],         \
                P[s + 2][1], P[s + 2][2]                                                           \
        }                                                                                          \
    }
#define R6(s)                                                                                      \
    {                                                                                              \
        {                                                                                          \
            P[s][0], P[s][1], P[s][2], P[s + 1][0], P[s + 1][1], P[s + 1][2]                       \
        }                                                                                          \
    }
static pb_status f_q2m(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    pb_mat3s o = M3(1);
    return pb_quat_to_mat3(n, CQ(0), o);
}
static pb_status f_q2r6(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    pb_rot6ds o = R6(1);
    return pb_quat_to_rot6d(n, CQ(0), o);
}
static pb_status f_m2q(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    pb_cmat3s i = M3(0);
    return pb_mat3_to_quat(n, i, OQ(3));
}
static pb_status f_r62m(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    pb_crot6ds i = R6(0);
    pb_mat3s o = M3(2);
    return pb_rot6d_to_mat3(n, i, o);
}
static pb_status f_r62q(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    pb_crot6ds i = R6(0);
    return pb_rot6d_to_quat(n, i, OQ(2));
}
static pb_status f_q2rv(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_to_rotvec(n, CQ(0), OV(1));
}
static pb_status f_abs(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_abs(n, CQ(0), OQ(1));
}
static pb_status f_normalize(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_normalize(n, CQ(0), OQ(1));
}
static pb_status f_log(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_log(n, CQ(0), OV(1));
}
static pb_status f_exp(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_exp(n, CV(0), OQ(1));
}
static pb_status f_to_saa(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_to_scaled_angle_axis(n, CQ(0), OV(1));
}
static pb_status f_from_saa(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_from_scaled_angle_axis(n, CV(0), OQ(1));
}
static pb_status f_unroll(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_unroll(m, n, CQ(0), OQ(1));
}
static pb_status f_delta_av(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_delta_to_angular_velocity(n, CQ(0), CQ(1), OV(2));
}
static pb_status f_vec3_hermite(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    (void)fl;
    return pb_vec3_hermite(n, x, CV(0), CV(1), CV(2), CV(3), OV(4), OV(5));
}
static pb_status f_vec3_cr(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    (void)fl;
    return pb_vec3_catmull_rom(n, x, CV(0), CV(1), CV(2), CV(3), OV(4), OV(5));
}
static pb_status f_quat_hermite(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    return pb_quat_hermite(n, x, CQ(0), CQ(1), CV(2), CV(3), fl, OQ(4), OV(5));
}
static pb_status f_quat_cr(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    return pb_quat_catmull_rom(n, x, CQ(0), CQ(1), CQ(2), CQ(3), fl, OQ(4), OV(5));
}
static pb_status f_raw_cubic(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    return pb_quat_raw_cubic(n, x, CQ(0), CQ(1), CQ(2), CQ(3), fl, OQ(4), OQ(5));
}
static pb_status f_scale_hermite(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    (void)fl;
    return pb_scale_hermite(n, x, CV(0), CV(1), CV(2), CV(3), OV(4), OV(5));
}
static pb_status f_scale_cr(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    (void)fl;
    return pb_scale_catmull_rom(n, x, CV(0), CV(1), CV(2), CV(3), OV(4), OV(5));
}
static pb_status f_slerp(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    return pb_quat_slerp(n, x, CQ(0), CQ(1), fl, OQ(2));
}
static pb_status f_nlerp(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    return pb_quat_nlerp(n, x, CQ(0), CQ(1), fl, OQ(2));
}

/* averages: samples in slots s0..s0+2, weights after them, out last */
static void samples3(ptrs_t P, int s0, pb_cquats smp[3])
{
    for (int i = 0; i < 3; i++) {
        pb_cquats q = {P[s0 + i][0], P[s0 + i][1], P[s0 + i][2], P[s0 + i][3]};
        smp[i] = q;
    }
}
#define SMP(s0)                                                                                    \
    pb_cquats smp[3];                                                                              \
    samples3(P, s0, smp);                                                                          \
    const pb_cquats *sp = g_samples_null ? NULL : smp
static pb_status f_avg_raw(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(0);
    return pb_quat_average_raw(n, m, sp, P[3][0], OQ(4));
}
static pb_status f_avg_log(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(0);
    return pb_quat_average_log(n, m, sp, P[3][0], OQ(4));
}
static pb_status f_avg_accurate(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(0);
    return pb_quat_average_accurate(n, m, sp, P[3][0], OQ(4));
}
static pb_status f_avg_basic(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(0);
    return pb_quat_average_basic(n, m, sp, P[3][0], OQ(4));
}
static pb_status f_avg_raw_ref(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(1);
    return pb_quat_average_raw_ref(n, m, CQ(0), sp, P[4][0], OQ(5));
}
static pb_status f_avg_log_ref(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)fl;
    (void)x;
    SMP(1);
    return pb_quat_average_log_ref(n, m, CQ(0), sp, P[4][0], OQ(5));
}
static pb_status f_sin_half(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_sin_half_angle(n, CQ(0), CQ(1), P[2][0]);
}
static pb_status f_extract(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_reference_extract(m, n, CQ(0), OQ(1));
}
static pb_status f_tangent(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_tangent_offset(n, CQ(0), CQ(1), CQ(2), OQ(3));
}
static pb_status f_bezier(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_bezier_controls(n, CQ(0), CQ(1), CQ(2), OQ(3), OQ(4));
}
static pb_status f_casteljau(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    (void)m;
    (void)fl;
    return pb_quat_de_casteljau(n, x, CQ(0), CQ(1), CQ(2), CQ(3), OQ(4));
}
static pb_status f_shoemake(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    UNUSED;
    return pb_quat_shoemake_controls(n, CQ(0), CQ(1), CQ(2), OQ(3), OQ(4));
}
static pb_status f_spline(size_t n, size_t m, ptrs_t P, unsigned fl, float x)
{
    return pb_quat_spline_eval(m, n, CQ(0), x, fl, OQ(1));
}

#define QI(nm)                                                                                     \
    {                                                                                              \
        nm, 4, R_IN, D_QUAT, L_N                                                                   \
    }
#define QO(nm)                                                                                     \
    {                                                                                              \
        nm, 4, R_OUT, D_QUAT, L_N                                                                  \
    }
#define VI(nm)                                                                                     \
    {                                                                                              \
        nm, 3, R_IN, D_VEC, L_N                                                                    \
    }
#define VO(nm)                                                                                     \
    {                                                                                              \
        nm, 3, R_OUT, D_VEC, L_N                                                                   \
    }
#define VOPT(nm)                                                                                   \
    {                                                                                              \
        nm, 3, R_OPT, D_VEC, L_N                                                                   \
    }
#define SI(nm)                                                                                     \
    {                                                                                              \
        nm, 3, R_IN, D_SCALE, L_N                                                                  \
    }
#define WI                                                                                         \
    {                                                                                              \
        "weights", 1, R_IN, D_WEIGHT, L_M                                                          \
    }

const fn_t FNS[] = {
    {"pb_quat_mul", f_mul, 3, {QI("a"), QI("b"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_mul_inv", f_mul_inv, 3, {QI("a"), QI("b"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_inv_mul", f_inv_mul, 3, {QI("a"), QI("b"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_abs", f_abs, 2, {QI("q"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_to_mat3",
     f_q2m,
     4,
     {QI("q"), VO("row0"), VO("row1"), VO("row2")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_to_rot6d", f_q2r6, 3, {QI("q"), VO("col0"), VO("col1")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_mat3_to_quat",
     f_m2q,
     4,
     {VI("row0"), VI("row1"), VI("row2"), QO("out")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_rot6d_to_mat3",
     f_r62m,
     5,
     {VI("col0"), VI("col1"), VO("row0"), VO("row1"), VO("row2")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_rot6d_to_quat", f_r62q, 3, {VI("col0"), VI("col1"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_to_rotvec", f_q2rv, 2, {QI("q"), VO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_normalize", f_normalize, 2, {QI("q"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_log", f_log, 2, {QI("q"), VO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_exp", f_exp, 2, {VI("v"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_to_scaled_angle_axis", f_to_saa, 2, {QI("q"), VO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_from_scaled_angle_axis", f_from_saa, 2, {VI("v"), QO("out")}, M_NONE, 0, 0, 0, 0, 0},
    {"pb_quat_unroll",
     f_unroll,
     2,
     {{"in", 4, R_IN, D_QUAT, L_MN}, {"out", 4, R_OUT, D_QUAT, L_MN}},
     M_UNROLL,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_delta_to_angular_velocity",
     f_delta_av,
     3,
     {QI("ref"), {"delta", 4, R_IN, D_DELTA, L_N}, VO("out")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_vec3_hermite",
     f_vec3_hermite,
     6,
     {VI("p0"), VI("p1"), VI("v0"), VI("v1"), VO("pos"), VOPT("vel")},
     M_NONE,
     0,
     0,
     0,
     1,
     0.3f},
    {"pb_vec3_catmull_rom",
     f_vec3_cr,
     6,
     {VI("p0"), VI("p1"), VI("p2"), VI("p3"), VO("pos"), VOPT("vel")},
     M_NONE,
     0,
     0,
     0,
     1,
     0.3f},
    {"pb_quat_hermite",
     f_quat_hermite,
     6,
     {QI("r0"), QI("r1"), VI("v0"), VI("v1"), QO("rot"), VOPT("vel")},
     M_NONE,
     1,
     PB_EXACT_VELOCITY,
     0,
     1,
     0.3f},
    {"pb_quat_catmull_rom",
     f_quat_cr,
     6,
     {QI("r0"), QI("r1"), QI("r2"), QI("r3"), QO("rot"), VOPT("vel")},
     M_NONE,
     1,
     PB_EXACT_VELOCITY,
     0,
     1,
     0.3f},
    {"pb_quat_raw_cubic",
     f_raw_cubic,
     6,
     {QI("r0"), QI("r1"), QI("r2"), QI("r3"), QO("rot"), {"vel4", 4, R_OPT, D_QUAT, L_N}},
     M_NONE,
     1,
     PB_EXACT_VELOCITY,
     0,
     1,
     0.3f},
    {"pb_scale_hermite",
     f_scale_hermite,
     6,
     {SI("s0"), SI("s1"), VI("v0"), VI("v1"), VO("scale"), VOPT("svel")},
     M_NONE,
     0,
     0,
     0,
     1,
     0.3f},
    {"pb_scale_catmull_rom",
     f_scale_cr,
     6,
     {SI("s0"), SI("s1"), SI("s2"), SI("s3"), VO("scale"), VOPT("svel")},
     M_NONE,
     0,
     0,
     0,
     1,
     0.3f},
    {"pb_quat_slerp",
     f_slerp,
     3,
     {QI("a"), QI("b"), QO("out")},
     M_NONE,
     1,
     PB_LONG_PATH,
     0,
     1,
     0.3f},
    {"pb_quat_nlerp",
     f_nlerp,
     3,
     {QI("a"), QI("b"), QO("out")},
     M_NONE,
     1,
     PB_LONG_PATH,
     0,
     1,
     0.3f},
    {"pb_quat_average_raw",
     f_avg_raw,
     5,
     {QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_average_log",
     f_avg_log,
     5,
     {QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_average_raw_ref",
     f_avg_raw_ref,
     6,
     {QI("ref"), QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_average_log_ref",
     f_avg_log_ref,
     6,
     {QI("ref"), QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_average_accurate",
     f_avg_accurate,
     5,
     {QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_average_basic",
     f_avg_basic,
     5,
     {QI("s0"), QI("s1"), QI("s2"), WI, QO("out")},
     M_SAMPLES,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_sin_half_angle",
     f_sin_half,
     3,
     {QI("a"), QI("b"), {"out", 1, R_OUT, D_VEC, L_N}},
     M_NONE,
     0,
     0,
     1,
     0,
     0},
    {"pb_quat_reference_extract",
     f_extract,
     2,
     {{"poses", 4, R_IN, D_QUAT, L_MN}, QO("out")},
     M_EXTRACT,
     0,
     0,
     1,
     0,
     0},
    {"pb_quat_tangent_offset",
     f_tangent,
     4,
     {QI("prev"), QI("cur"), QI("next"), QO("offset")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_bezier_controls",
     f_bezier,
     5,
     {QI("prev"), QI("cur"), QI("next"), QO("before"), QO("after")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_de_casteljau",
     f_casteljau,
     5,
     {QI("q0"), QI("q1"), QI("q2"), QI("q3"), QO("out")},
     M_NONE,
     0,
     0,
     0,
     1,
     0.3f},
    {"pb_quat_shoemake_controls",
     f_shoemake,
     5,
     {QI("prev"), QI("cur"), QI("next"), QO("b"), QO("a")},
     M_NONE,
     0,
     0,
     0,
     0,
     0},
    {"pb_quat_spline_eval",
     f_spline,
     2,
     {{"track", 4, R_IN, D_QUAT, L_MN}, QO("out")},
     M_KEYS,
     1,
     PB_CLOSED,
     1,
     1,
     1.3f},
};

const int NFNS = (int)(sizeof FNS / sizeof FNS[0]);
