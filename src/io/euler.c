/* Euler angles <-> quaternions, double precision. Public: include/posebatch/io.h. */
#include "posebatch/io.h"

#include <math.h>
#include <stddef.h>

#define PB_PI 3.14159265358979323846
#define DEG2RAD (PB_PI / 180.0)
#define RAD2DEG (180.0 / PB_PI)

/* Near gimbal lock the first angle may be moved towards the previous frame's
 * as long as the represented rotation changes by at most this many radians
 * (about the rounding noise of a float quaternion). */
#define LOCK_EPS_RAD 1e-7
/* ... but only this close to the lock (cos(middle) below 1e-3, i.e. within
 * 0.057 degrees of +-90), where the first angle is ill-determined; elsewhere
 * the decomposition is exact. */
#define LOCK_COS 1e-3
/* cos(middle angle) below this counts as an exact lock: snap to +-90. */
#define EXACT_LOCK_COS 1e-12

static const signed char k_axes[PB_EULER_ORDER_COUNT][3] = {
    {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0},
};
static const char *const k_names[PB_EULER_ORDER_COUNT] = {
    "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX",
};

int pb_euler_order_axes(pb_euler_order order, int axes[3])
{
    if ((int)order < 0 || order >= PB_EULER_ORDER_COUNT)
        return -1;
    for (int k = 0; k < 3; k++)
        axes[k] = k_axes[order][k];
    return 0;
}

int pb_euler_order_from_axes(int a0, int a1, int a2)
{
    for (int o = 0; o < PB_EULER_ORDER_COUNT; o++)
        if (k_axes[o][0] == a0 && k_axes[o][1] == a1 && k_axes[o][2] == a2)
            return o;
    return -1;
}

const char *pb_euler_order_name(pb_euler_order order)
{
    if ((int)order < 0 || order >= PB_EULER_ORDER_COUNT)
        return NULL;
    return k_names[order];
}

/* ---- small quaternion helpers (w, x, y, z) ---- */

static void qmul(const double a[4], const double b[4], double r[4])
{
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    r[0] = w;
    r[1] = x;
    r[2] = y;
    r[3] = z;
}

/* Rotation by deg degrees about axis (0..2). */
static void qaxis(int axis, double deg, double q[4])
{
    /* fmod is exact; it keeps the half-angle small so sin/cos stay accurate. */
    double h = fmod(deg, 720.0) * (0.5 * DEG2RAD);
    q[0] = cos(h);
    q[1] = q[2] = q[3] = 0.0;
    q[1 + axis] = sin(h);
}

void pb_euler_to_quat_n(pb_euler_order order, int n, const double deg[3], double q[4])
{
    q[0] = 1.0;
    q[1] = q[2] = q[3] = 0.0;
    if ((int)order < 0 || order >= PB_EULER_ORDER_COUNT) {
        q[0] = q[1] = q[2] = q[3] = NAN;
        return;
    }
    if (n > 3)
        n = 3;
    for (int k = 0; k < n; k++) {
        double e[4];
        qaxis(k_axes[order][k], deg[k], e);
        qmul(q, e, q);
    }
}

void pb_euler_to_quat(pb_euler_order order, const double deg[3], double q[4])
{
    pb_euler_to_quat_n(order, 3, deg, q);
}

/* ---- angle helpers (degrees) ---- */

/* a + 360 k closest to ref. */
static double unwrap_to(double a, double ref)
{
    double k = nearbyint((ref - a) / 360.0);
    return a + 360.0 * k;
}

/* a wrapped into (-180, 180]. */
static double principal(double a)
{
    double r = unwrap_to(a, 0.0);
    if (r <= -180.0)
        r += 360.0;
    if (r > 180.0)
        r -= 360.0;
    return r;
}

static double sq(double v) { return v * v; }

/* Angle (degrees) of the rotation about `axis` closest to q: 2 atan2(q_axis, w). */
static double twist_deg(const double q[4], int axis)
{
    return 2.0 * atan2(q[1 + axis], q[0]) * RAD2DEG;
}

void pb_euler_from_quat_n(pb_euler_order order, int n, const double q_in[4], const double prev[3],
                          double deg[3])
{
    deg[0] = deg[1] = deg[2] = 0.0;
    if (n <= 0)
        return;
    if (n > 3)
        n = 3;
    if ((int)order < 0 || order >= PB_EULER_ORDER_COUNT) {
        deg[0] = deg[1] = deg[2] = NAN;
        return;
    }
    double nn = q_in[0] * q_in[0] + q_in[1] * q_in[1] + q_in[2] * q_in[2] + q_in[3] * q_in[3];
    if (!(nn > 0.0) || !isfinite(nn)) {
        /* A NaN component: NaN angles (fmax below would drop it, and the
         * rescaled copy would come back here forever). */
        if (isnan(nn)) {
            deg[0] = deg[1] = deg[2] = NAN;
            return;
        }
        /* Also rescue overflowing but finite inputs. */
        double m = fmax(fmax(fabs(q_in[0]), fabs(q_in[1])), fmax(fabs(q_in[2]), fabs(q_in[3])));
        if (!(m > 0.0) || !isfinite(m)) {
            deg[0] = deg[1] = deg[2] = NAN;
            return;
        }
        double t[4] = {q_in[0] / m, q_in[1] / m, q_in[2] / m, q_in[3] / m};
        pb_euler_from_quat_n(order, n, t, prev, deg);
        return;
    }
    double inv = 1.0 / sqrt(nn);
    double q[4] = {q_in[0] * inv, q_in[1] * inv, q_in[2] * inv, q_in[3] * inv};

    const int i = k_axes[order][0], j = k_axes[order][1], k = k_axes[order][2];

    if (n == 1) {
        double a = twist_deg(q, i);
        deg[0] = prev ? unwrap_to(a, prev[0]) : principal(a);
        return;
    }

    /* Rotation matrix. */
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double R[3][3] = {
        {1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)},
        {2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)},
        {2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)},
    };
    /* s = +1 for cyclic orders (XYZ, YZX, ZXY), -1 for the others. */
    const double s = (j == (i + 1) % 3) ? 1.0 : -1.0;

    double c = hypot(R[i][i], R[i][j]); /* |cos(middle)| */
    double b = atan2(s * R[i][k], c) * RAD2DEG;
    double a = atan2(-s * R[j][k], R[k][k]) * RAD2DEG;
    double g = atan2(-s * R[i][j], R[i][i]) * RAD2DEG;

    /* The two branches. */
    double cand[2][3] = {{a, b, g}, {a + 180.0, 180.0 - b, g + 180.0}};
    int pick = 0;
    if (n == 2) {
        /* Third angle must be zero: the branch whose third angle is near 0. */
        pick = fabs(principal(g)) <= 90.0 ? 0 : 1;
        if (prev) {
            cand[pick][1] = unwrap_to(cand[pick][1], prev[1]);
        } else {
            cand[pick][1] = principal(cand[pick][1]);
        }
    } else if (prev) {
        double best = INFINITY;
        for (int br = 0; br < 2; br++) {
            double d = 0.0;
            for (int m = 0; m < 3; m++) {
                cand[br][m] = unwrap_to(cand[br][m], prev[m]);
                d += sq(cand[br][m] - prev[m]);
            }
            if (d < best) {
                best = d;
                pick = br;
            }
        }
    } else {
        for (int m = 0; m < 3; m++)
            cand[0][m] = principal(cand[0][m]);
        cand[0][1] = b; /* atan2 already gives [-90, 90] */
    }
    double A = cand[pick][0], B = cand[pick][1], G = cand[pick][2];

    if (c < EXACT_LOCK_COS) {
        /* Exact lock: middle angle exactly +-90 (mod 360). */
        B = 90.0 * nearbyint(B / 90.0);
    }

    if (n == 2) {
        /* q = q_i(A) q_j(B)  =>  q_i(A) = q conj(q_j(B)). */
        double qj[4], r[4];
        qaxis(j, -B, qj);
        qmul(q, qj, r);
        double a2 = twist_deg(r, i);
        deg[0] = prev ? unwrap_to(a2, prev[0]) : principal(a2);
        deg[1] = B;
        return;
    }

    /* Gimbal lock handling: move A towards the target while the rotation
     * changes by at most LOCK_EPS_RAD (the change is about c * |delta|), then
     * recompute G from the residual so that the rotation is reproduced. */
    double target = prev ? prev[0] : 0.0;
    double d = target - A; /* |d| <= 180 here */
    if (!prev)
        d = principal(d);
    double budget = c >= LOCK_COS ? 0.0 : c > 0.0 ? (LOCK_EPS_RAD / c) * RAD2DEG : INFINITY;
    double delta = d > budget ? budget : (d < -budget ? -budget : d);
    if (delta != 0.0 || c < EXACT_LOCK_COS) {
        A = delta == d ? target : A + delta;
        double qa[4], qb[4], t[4], r[4];
        qaxis(i, -A, qa);
        qaxis(j, -B, qb);
        qmul(qa, q, t);
        qmul(qb, t, r); /* r = q_j(-B) q_i(-A) q  ~  q_k(G) */
        double g2 = twist_deg(r, k);
        G = unwrap_to(g2, prev ? prev[2] : G);
    }
    if (!prev) {
        A = principal(A);
        G = principal(G);
    }
    deg[0] = A;
    deg[1] = B;
    deg[2] = G;
}

void pb_euler_from_quat(pb_euler_order order, const double q[4], const double prev[3],
                        double deg[3])
{
    pb_euler_from_quat_n(order, 3, q, prev, deg);
}
