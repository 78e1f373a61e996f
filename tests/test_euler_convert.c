/* The public Euler <-> quaternion conversions of the file API
 * (include/posebatch/io.h: pb_euler_to_quat, pb_quat_to_euler and their
 * _n forms) against an independent matrix product: names and axes, round
 * trips in every order (near gimbal lock too), the choice of the triple
 * nearest the previous one, continuity along paths, partial orders,
 * degenerate inputs. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include <stdint.h>

#include "bvh_util.h"
#include "ref.h"
#include "ref_average.h"

#define PI 3.14159265358979323846

/* Independent reference: rotation matrix of an elementary rotation. */
static void elem(int axis, double deg, double M[3][3])
{
    double r = deg * PI / 180.0, c = cos(r), s = sin(r);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            M[i][j] = i == j;
    int a = (axis + 1) % 3, b = (axis + 2) % 3;
    M[a][a] = c;
    M[a][b] = -s;
    M[b][a] = s;
    M[b][b] = c;
}

static void matmul(double A[3][3], double B[3][3], double C[3][3])
{
    double T[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            T[i][j] = 0;
            for (int k = 0; k < 3; k++)
                T[i][j] += A[i][k] * B[k][j];
        }
    memcpy(C, T, sizeof T);
}

/* Deterministic uniform in [lo, hi). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(double lo, double hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* ------------------------------------------------------------------------ */
/* Euler <-> quaternion                                                     */
/* ------------------------------------------------------------------------ */

Test(euler, names_and_axes)
{
    const char *names[6] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
    for (int o = 0; o < 6; o++) {
        int ax[3];
        cr_assert_eq(pb_euler_order_axes((pb_euler_order)o, ax), 0);
        cr_assert_str_eq(pb_euler_order_name((pb_euler_order)o), names[o]);
        for (int k = 0; k < 3; k++)
            cr_assert_eq(ax[k], names[o][k] - 'X');
        cr_assert_eq(pb_euler_order_from_axes(ax[0], ax[1], ax[2]), o);
    }
    cr_assert_eq(pb_euler_order_from_axes(0, 0, 1), -1);
    cr_assert_null(pb_euler_order_name(PB_EULER_ORDER_COUNT));
}

/* euler -> quat matches the product of elementary matrices in listed order. */
Test(euler, to_quat_matches_matrix_product)
{
    double maxe = 0;
    for (int o = 0; o < 6; o++) {
        int ax[3];
        pb_euler_order_axes((pb_euler_order)o, ax);
        for (int t = 0; t < 20000; t++) {
            double d[3] = {urand(-400, 400), urand(-400, 400), urand(-400, 400)};
            double q[4], R[3][3], A[3][3], B[3][3], C[3][3], M[3][3];
            pb_euler_to_quat((pb_euler_order)o, d, q);
            cr_assert_float_eq(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-14);
            ra_quat_to_matrix_raw(rq_make(q[0], q[1], q[2], q[3]), R);
            elem(ax[0], d[0], A);
            elem(ax[1], d[1], B);
            elem(ax[2], d[2], C);
            matmul(A, B, M);
            matmul(M, C, M);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    maxe = fmax(maxe, fabs(R[i][j] - M[i][j]));
        }
    }
    cr_assert_lt(maxe, 1e-13, "max matrix difference %g", maxe);
}

/* Round trip for all orders, random angles, exact and near gimbal lock. */
Test(euler, round_trip_all_orders)
{
    double max_free = 0, max_lock = 0;
    for (int o = 0; o < 6; o++) {
        for (int t = 0; t < 40000; t++) {
            double d[3] = {urand(-180, 180), urand(-90, 90), urand(-180, 180)};
            int kind = t % 5;
            if (kind == 1)
                d[1] = 90.0;
            else if (kind == 2)
                d[1] = -90.0;
            else if (kind == 3)
                d[1] = (t & 8 ? 90.0 : -90.0) - urand(-1e-6, 1e-6);
            double q[4], e[3], q2[4];
            pb_euler_to_quat((pb_euler_order)o, d, q);
            pb_euler_from_quat((pb_euler_order)o, q, NULL, e);
            for (int k = 0; k < 3; k++)
                cr_assert(!isnan(e[k]), "NaN for order %d", o);
            cr_assert(e[1] >= -90.0 && e[1] <= 90.0, "middle %g out of range", e[1]);
            cr_assert(e[0] > -180.0 && e[0] <= 180.0 && e[2] > -180.0 && e[2] <= 180.0);
            pb_euler_to_quat((pb_euler_order)o, e, q2);
            double err = quat_angle(q, q2);
            if (kind == 1 || kind == 2) {
                cr_assert_eq(fabs(e[1]), 90.0, "pitch must be exactly +-90, got %.17g", e[1]);
                cr_assert_eq(e[0], 0.0, "locked first angle defaults to 0");
            }
            if (kind == 0 && fabs(fabs(d[1]) - 90.0) > 0.07) { /* outside the lock zone */
                max_free = fmax(max_free, err);
                for (int k = 0; k < 3; k++)
                    cr_assert_float_eq(e[k], d[k], 1e-8, "order %d angle %d: %.12g vs %.12g", o, k,
                                       e[k], d[k]);
            } else {
                max_lock = fmax(max_lock, err);
            }
            /* With prev at a locked rotation: first angle kept. */
            if (kind == 1 || kind == 2) {
                double prev[3] = {d[0] + 7.0, d[1], d[2]};
                pb_euler_from_quat((pb_euler_order)o, q, prev, e);
                cr_assert_eq(e[0], prev[0]);
                cr_assert_eq(fabs(e[1]), 90.0);
                pb_euler_to_quat((pb_euler_order)o, e, q2);
                max_lock = fmax(max_lock, quat_angle(q, q2));
            }
        }
    }
    fprintf(stderr, "euler round trip: max error %.3g rad (free), %.3g rad (at/near lock)\n",
            max_free, max_lock);
    cr_assert_lt(max_free, 1e-12);
    cr_assert_lt(max_lock, 2e-7);
}

/* prev picks the equivalent triple nearest to it, both branches and wraps. */
Test(euler, prev_selects_equivalent_triple)
{
    for (int o = 0; o < 6; o++) {
        for (int t = 0; t < 5000; t++) {
            double d[3] = {urand(-180, 180), urand(-85, 85), urand(-180, 180)};
            int br = t & 1;
            double k0 = floor(urand(-3, 3)), k1 = floor(urand(-3, 3)), k2 = floor(urand(-3, 3));
            double alt[3];
            if (br) {
                alt[0] = d[0] + 180.0 + 360.0 * k0;
                alt[1] = 180.0 - d[1] + 360.0 * k1;
                alt[2] = d[2] + 180.0 + 360.0 * k2;
            } else {
                alt[0] = d[0] + 360.0 * k0;
                alt[1] = d[1] + 360.0 * k1;
                alt[2] = d[2] + 360.0 * k2;
            }
            double q[4], e[3], prev[3];
            pb_euler_to_quat((pb_euler_order)o, d, q);
            for (int k = 0; k < 3; k++)
                prev[k] = alt[k] + urand(-20, 20);
            pb_euler_from_quat((pb_euler_order)o, q, prev, e);
            for (int k = 0; k < 3; k++)
                cr_assert_float_eq(e[k], alt[k], 1e-7, "order %d br %d angle %d: %.9g vs %.9g", o,
                                   br, k, e[k], alt[k]);
        }
    }
}

/* A smooth path through +-180 wraps and through gimbal lock gives a
 * continuous Euler track (no step larger than a few degrees). */
Test(euler, continuity_along_paths)
{
    for (int o = 0; o < 6; o++) {
        for (int path = 0; path < 3; path++) {
            double prev[3], e[3], q[4];
            double maxstep = 0, maxerr = 0;
            const int N = 4000;
            for (int i = 0; i <= N; i++) {
                double s = (double)i / N;
                double d[3];
                if (path == 0) { /* spins past 180 on all axes */
                    d[0] = -170 + 900 * s;
                    d[1] = 60 * sin(6 * s);
                    d[2] = 170 - 700 * s;
                } else if (path == 1) { /* through the lock, twice */
                    d[0] = 30 + 50 * s;
                    d[1] = 95 * sin(PI * 2 * s);
                    d[2] = -20 + 200 * s;
                } else { /* exactly along the lock line */
                    d[0] = 100 * s;
                    d[1] = 90;
                    d[2] = -40 + 10 * s;
                }
                pb_euler_to_quat((pb_euler_order)o, d, q);
                pb_euler_from_quat((pb_euler_order)o, q, i ? prev : NULL, e);
                if (i)
                    for (int k = 0; k < 3; k++)
                        maxstep = fmax(maxstep, fabs(e[k] - prev[k]));
                double q2[4];
                pb_euler_to_quat((pb_euler_order)o, e, q2);
                maxerr = fmax(maxerr, quat_angle(q, q2));
                memcpy(prev, e, sizeof prev);
            }
            cr_assert_lt(maxerr, 2e-7, "order %d path %d: error %g", o, path, maxerr);
            /* Path steps are < 0.25 degrees per angle; through the lock the
             * first and third angle may trade, but never jump by 180. */
            cr_assert_lt(maxstep, path == 1 ? 90.0 : 1.0, "order %d path %d: step %g", o, path,
                         maxstep);
        }
    }
}

Test(euler, partial_orders)
{
    for (int o = 0; o < 6; o++) {
        for (int n = 0; n <= 2; n++) {
            for (int t = 0; t < 3000; t++) {
                double d[3] = {urand(-180, 180), urand(-90, 90), 0};
                if (t % 7 == 0)
                    d[1] = t % 14 ? 90 : -90;
                if (n < 2)
                    d[1] = 0;
                if (n < 1)
                    d[0] = 0;
                double q[4], e[3], q2[4], full[4];
                pb_euler_to_quat_n((pb_euler_order)o, n, d, q);
                pb_euler_to_quat((pb_euler_order)o, d, full);
                cr_assert_lt(quat_angle(q, full), 1e-12);
                pb_euler_from_quat_n((pb_euler_order)o, n, q, NULL, e);
                cr_assert_eq(e[2], 0.0);
                if (n < 2)
                    cr_assert_eq(e[1], 0.0);
                pb_euler_to_quat_n((pb_euler_order)o, n, e, q2);
                cr_assert_lt(quat_angle(q, q2), 1e-9, "order %d n %d", o, n);
            }
        }
    }
}

Test(euler, degenerate_inputs)
{
    double e[3];
    double zero[4] = {0, 0, 0, 0}, nanq[4] = {NAN, 0, 0, 0};
    pb_euler_from_quat(PB_EULER_ZYX, zero, NULL, e);
    cr_assert(isnan(e[0]) && isnan(e[1]) && isnan(e[2]));
    pb_euler_from_quat(PB_EULER_ZYX, nanq, NULL, e);
    cr_assert(isnan(e[0]));
    double big[4] = {1e300, 1e300, 0, 0}, q[4], small[4] = {1e-300, 0, 0, 1e-300};
    pb_euler_from_quat(PB_EULER_XYZ, big, NULL, e);
    pb_euler_to_quat(PB_EULER_XYZ, e, q);
    cr_assert_float_eq(e[0], 90.0, 1e-12);
    pb_euler_from_quat(PB_EULER_XYZ, small, NULL, e);
    cr_assert_float_eq(e[2], 90.0, 1e-12);
    double negw[4] = {-1, 0, 0, 0};
    pb_euler_from_quat(PB_EULER_XYZ, negw, NULL, e);
    cr_assert(e[0] == 0 && e[1] == 0 && e[2] == 0, "%g %g %g", e[0], e[1], e[2]);
}
