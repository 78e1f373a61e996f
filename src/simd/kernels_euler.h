/* Euler angles <-> quaternions in batches, over the double lanes: the BVH
 * writer's choice of the Euler triple to print (bvh_choose_angles of
 * src/io/bvh_angles.c for a whole frame of joints), the reader's Euler ->
 * quaternion conversion, and pb_bvh_resample_angles' interpolation of the
 * source angles. Included by kernels.h after the lane layer.
 *
 * The reference is the scalar double code of src/io/euler.c and
 * bvh_angles.c. These kernels follow it operation for operation (the same
 * rotation-matrix entries, candidates, unwrapping and comparisons), with
 * lanes_math64.h's sin/cos and atan2 in place of libm's (a few ulps apart),
 * and hand back every element whose result could depend on that difference
 * -- or that needs code they do not have -- as "redo": the caller runs the
 * scalar reference for it. Redone are elements
 * - near gimbal lock (cos(middle) below 1e-3: the reference's lock
 *   handling), or with a zero or non-finite quaternion, non-finite or huge
 *   (beyond 1e7 degrees) angles, an order out of range;
 * - within a margin of one of the reference's discrete decisions: an
 *   unwrapping by 360 at a half turn, the nearer of the two Tait-Bryan
 *   branches when they are about equally near, the n = 2 branch at a third
 *   angle of +-90, the "same rotation as the source" test at its threshold;
 * - (with print_scale) whose angle, printed as round(|v| print_scale),
 *   could round the other way.
 * Everything else differs from the reference by at most a few ulps of the
 * angles (tests/test_euler.c holds it to 1e-9 degrees) and prints the same
 * digits; the margins are thousands of times those differences. */
#ifndef PB_KERNELS_EULER_H
#define PB_KERNELS_EULER_H

#include <math.h>
#include <stdint.h>

#include "internal.h"
#include "lanes_math64.h"

/* The constants exactly as src/io/euler.c forms them */
#define PB_E_PI 3.14159265358979323846
#define PB_E_RAD2DEG (180.0 / PB_E_PI)
#define PB_E_HALF_DEG2RAD (0.5 * (PB_E_PI / 180.0))
#define PB_E_LOCK_COS 1e-3       /* euler.c's LOCK_COS */
#define PB_E_SAME_ROT_CHORD 1e-7 /* 2 sin(2e-7 / 4): bvh_angles.c's SAME_ROTATION_RAD */
#define PB_E_MAX_DEG 1e7         /* larger angles: redo */

/* ------------------------------------------------------------- loads */
PB_INLINE vd ldd(const double *p, size_t cnt)
{
    return cnt == PB_DLANES ? vd_load(p) : vd_load_part(p, cnt);
}
PB_INLINE vd ldd_f(const float *p, size_t cnt)
{
    return cnt == PB_DLANES ? vd_load_f(p) : vd_load_f_part(p, cnt);
}
PB_INLINE void std_d(double *p, vd v, size_t cnt)
{
    if (cnt == PB_DLANES)
        vd_store(p, v);
    else
        vd_store_part(p, v, cnt);
}

/* ------------------------------------------------- per-lane axis orders */
/* euler.c's k_axes */
static const unsigned char pb_euler_axes[6][3] = {
    {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0},
};
/* Each lane's order: axis masks (axis == 0, axis == 1; else 2) of the
 * first, second and third axes, whether the order is cyclic (s = +1), its
 * number of rotation channels (0..3, as a double), and orders out of range */
typedef struct {
    vmd i0, i1, j0, j1, k0, k1, cyc, bad;
    vd nr;
} eu_order;

PB_INLINE eu_order eu_order_load(const uint8_t *order, const uint8_t *nrot, size_t cnt)
{
    double a[4][PB_DLANES], nr[PB_DLANES];
    for (size_t l = 0; l < PB_DLANES; l++) {
        size_t e = l < cnt ? l : 0;
        unsigned o = order[e], n = nrot[e];
        const unsigned char *ax = pb_euler_axes[o < 6 ? o : 0];
        for (int k = 0; k < 3; k++)
            a[k][l] = ax[k];
        /* 1: cyclic (XYZ, YZX, ZXY: the second axis follows the first),
         * 0: not, -1: out of range */
        a[3][l] = o >= 6 ? -1.0 : ax[1] == (ax[0] + 1) % 3 ? 1.0 : 0.0;
        nr[l] = n > 3 ? 3.0 : (double)n;
    }
    eu_order r;
    vd i = vd_load(a[0]), j = vd_load(a[1]), k = vd_load(a[2]), f = vd_load(a[3]);
    vd zero = vd_set(0.0), one = vd_set(1.0);
    r.i0 = vmd_eq(i, zero), r.i1 = vmd_eq(i, one);
    r.j0 = vmd_eq(j, zero), r.j1 = vmd_eq(j, one);
    r.k0 = vmd_eq(k, zero), r.k1 = vmd_eq(k, one);
    r.cyc = vmd_gt(f, zero);
    r.bad = vmd_lt(f, zero);
    r.nr = vd_load(nr);
    return r;
}

/* m ? a : b for masks */
PB_INLINE vmd vd_sel_m(vmd m, vmd a, vmd b) { return vmd_or(vmd_and(m, a), vmd_andnot(b, m)); }

/* the component of (x, y, z) on an axis given by its masks */
PB_INLINE vd sel_axis(vmd a0, vmd a1, vd x, vd y, vd z) { return vd_sel(a0, x, vd_sel(a1, y, z)); }

/* ----------------------------------------------- euler.c, lane by lane */
/* fmod(a, 720), exactly: a - 720 k is exact for an integer k near a / 720
 * (any of the two nearest: a / 720 need not be the correctly rounded
 * quotient), and is then moved into fmod's range with a's sign */
PB_INLINE vd fmod720_d(vd a)
{
    vd k = vd_round(vd_mul(a, vd_set(1.0 / 720.0)));
    vd r = vd_sub(a, vd_mul(k, vd_set(720.0)));
    vmd aneg = vmd_lt(vd_bor(vd_signbit(a), vd_set(1.0)), vd_set(0.0));
    r = vd_sel(vmd_and(vmd_not(aneg), vmd_lt(r, vd_set(0.0))), vd_add(r, vd_set(720.0)), r);
    r = vd_sel(vmd_and(aneg, vmd_gt(r, vd_set(0.0))), vd_sub(r, vd_set(720.0)), r);
    return vd_sel(vmd_eq(r, vd_set(0.0)), vd_signbit(a), r); /* fmod(-720, 720) = -0 */
}

/* qaxis: the rotation by deg degrees about an axis (masks) */
PB_INLINE vqd qaxis_d(vmd a0, vmd a1, vd deg)
{
    vd s, c;
    sincos_d(vd_mul(fmod720_d(deg), vd_set(PB_E_HALF_DEG2RAD)), &s, &c);
    vd zero = vd_set(0.0);
    vqd q = {c, vd_sel(a0, s, zero), vd_sel(a1, s, zero), vd_sel(vmd_or(a0, a1), zero, s)};
    return q;
}

/* euler.c's qmul: the same products and sums in the same order */
PB_INLINE vqd qmul_d(vqd a, vqd b)
{
    vqd r;
    r.w = vd_sub(vd_sub(vd_sub(vd_mul(a.w, b.w), vd_mul(a.x, b.x)), vd_mul(a.y, b.y)),
                 vd_mul(a.z, b.z));
    r.x = vd_sub(vd_add(vd_add(vd_mul(a.w, b.x), vd_mul(a.x, b.w)), vd_mul(a.y, b.z)),
                 vd_mul(a.z, b.y));
    r.y = vd_add(vd_add(vd_sub(vd_mul(a.w, b.y), vd_mul(a.x, b.z)), vd_mul(a.y, b.w)),
                 vd_mul(a.z, b.x));
    r.z = vd_add(vd_sub(vd_add(vd_mul(a.w, b.z), vd_mul(a.x, b.y)), vd_mul(a.y, b.x)),
                 vd_mul(a.z, b.w));
    return r;
}

/* a + 360 k nearest to ref (unwrap_to); *redo where (ref - a) / 360 is
 * within the margin of a half-integer (the rounding could go either way).
 * Elsewhere k is euler.c's whether the quotient is a division's or, as
 * here, a product's (an ulp apart). */
PB_INLINE vd unwrap_d(vd a, vd ref, vmd *redo)
{
    vd t = vd_mul(vd_sub(ref, a), vd_set(1.0 / 360.0));
    vd k = vd_round(t);
    vd off = vd_abs(vd_sub(vd_abs(vd_sub(t, k)), vd_set(0.5)));
    vd margin = vd_fma(vd_abs(t), vd_set(0x1p-44), vd_set(1e-11));
    *redo = vmd_or(*redo, vmd_lt(off, margin));
    return vd_add(a, vd_mul(vd_set(360.0), k));
}
/* principal: into (-180, 180] */
PB_INLINE vd principal_d(vd a, vmd *redo)
{
    vd r = unwrap_d(a, vd_set(0.0), redo);
    r = vd_sel(vmd_le(r, vd_set(-180.0)), vd_add(r, vd_set(360.0)), r);
    return vd_sel(vmd_gt(r, vd_set(180.0)), vd_sub(r, vd_set(360.0)), r);
}
PB_INLINE vd sq_d(vd v) { return vd_mul(v, v); }
/* atan2 in degrees, as euler.c: atan2(y, x) * RAD2DEG */
PB_INLINE vd atan2_deg_d(vd y, vd x) { return vd_mul(atan2_d(y, x), vd_set(PB_E_RAD2DEG)); }
/* twist_deg: 2 atan2(q_axis, w) * RAD2DEG */
PB_INLINE vd twist_deg_d(vd qa, vd w)
{
    return vd_mul(vd_mul(vd_set(2.0), atan2_d(qa, w)), vd_set(PB_E_RAD2DEG));
}

/* Where |v| (degrees) printed as round(|v| scale) might round otherwise
 * than the reference's value (a few ulps away) would */
PB_INLINE vmd print_risk_d(vd v, double scale)
{
    vd t = vd_mul(vd_abs(v), vd_set(scale));
    vd off = vd_abs(vd_sub(vd_abs(vd_sub(t, vd_round(t))), vd_set(0.5)));
    vd margin = vd_fma(t, vd_set(0x1p-44), vd_set(1e-11 * scale));
    return vmd_lt(off, margin);
}

/* The whole of pb_euler_from_quat_n (order, nrot per lane; q normalised,
 * its components on the order's axes qi, qj, qk), prev P (have_prev) or
 * none, for the lanes where it runs plainly; *redo gets the others. */
PB_INLINE void from_quat_d(const eu_order *o, vd w, vd qi, vd qj, vd qk, vqd qn, int have_prev,
                           const vd P[3], vmd live, vmd *redo, vd out[3])
{
    vd zero = vd_set(0.0);
    vmd n1 = vmd_and(live, vmd_eq(o->nr, vd_set(1.0)));
    vmd n2 = vmd_and(live, vmd_eq(o->nr, vd_set(2.0)));
    vmd n3 = vmd_and(live, vmd_eq(o->nr, vd_set(3.0)));
    out[0] = out[1] = out[2] = zero;
    vmd r1 = vmd_and(live, vmd_not(live)), r2 = r1, r3 = r1; /* none */
    if (vmd_any(vmd_or(n2, n3))) {
        /* the rotation matrix entries euler.c uses, bit for bit */
        vd two = vd_set(2.0), one = vd_set(1.0);
        vd Rii = vd_sub(one, vd_mul(two, vd_add(vd_mul(qj, qj), vd_mul(qk, qk))));
        vd Rkk = vd_sub(one, vd_mul(two, vd_add(vd_mul(qi, qi), vd_mul(qj, qj))));
        vd pij = vd_mul(qi, qj), wk = vd_mul(w, qk);
        vd pik = vd_mul(qi, qk), wj = vd_mul(w, qj);
        vd pjk = vd_mul(qj, qk), wi = vd_mul(w, qi);
        /* R[a][b] = 2 (q_a q_b - w q_c) for (a, b, c) cyclic, + otherwise */
        vd Rij = vd_mul(two, vd_sel(o->cyc, vd_sub(pij, wk), vd_add(pij, wk)));
        vd Rik = vd_mul(two, vd_sel(o->cyc, vd_add(pik, wj), vd_sub(pik, wj)));
        vd Rjk = vd_mul(two, vd_sel(o->cyc, vd_sub(pjk, wi), vd_add(pjk, wi)));
        vd c = vd_sqrt(vd_add(vd_mul(Rii, Rii), vd_mul(Rij, Rij))); /* euler.c: hypot */
        /* s R, -s R: sign flips, as multiplying by s = +-1 */
        vd b = atan2_deg_d(vd_sel(o->cyc, Rik, vd_neg(Rik)), c);
        vd a = atan2_deg_d(vd_sel(o->cyc, vd_neg(Rjk), Rjk), Rkk);
        vd g = atan2_deg_d(vd_sel(o->cyc, vd_neg(Rij), Rij), Rii);
        /* near the lock (and the exact lock's snap): the reference */
        vmd lock = vmd_not(vmd_ge(c, vd_set(PB_E_LOCK_COS * (1.0 + 1e-6))));
        r3 = vmd_or(r3, lock);
        r2 = vmd_or(r2, lock);
        if (vmd_any(n3)) {
            vd A, B, G;
            if (have_prev) {
                vd c0[3] = {a, b, g};
                vd c1[3] = {vd_add(a, vd_set(180.0)), vd_sub(vd_set(180.0), b),
                            vd_add(g, vd_set(180.0))};
                vd d0 = zero, d1 = zero, s0 = zero, s1 = zero, pm = zero;
                /* an unwrapping at its margin matters in the branch taken
                 * only: either way a candidate is as far from P */
                vmd t0 = vmd_and(live, vmd_not(live)), t1 = t0;
                for (int m = 0; m < 3; m++) {
                    c0[m] = unwrap_d(c0[m], P[m], &t0);
                    c1[m] = unwrap_d(c1[m], P[m], &t1);
                    vd e0 = vd_sub(c0[m], P[m]), e1 = vd_sub(c1[m], P[m]);
                    d0 = m ? vd_add(d0, sq_d(e0)) : sq_d(e0);
                    d1 = m ? vd_add(d1, sq_d(e1)) : sq_d(e1);
                    s0 = vd_add(s0, vd_abs(e0));
                    s1 = vd_add(s1, vd_abs(e1));
                    pm = vd_add(pm, vd_abs(P[m]));
                }
                /* the nearer branch, unless the two are within what the
                 * candidates' few-ulp differences could change: each
                 * distance moves by at most 2 dc S_b + dc^2 for candidates
                 * dc apart, dc <= 1e-12 + |P| 2^-50 */
                vd dc = vd_fma(pm, vd_set(0x1p-50), vd_set(1e-12));
                vd tol = vd_fma(
                    vd_add(d0, d1), vd_set(1e-9),
                    vd_fma(vd_mul(vd_set(4.0), dc), vd_add(vd_add(s0, s1), dc), vd_set(1e-30)));
                r3 = vmd_or(r3, vmd_not(vmd_gt(vd_abs(vd_sub(d0, d1)), tol)));
                vmd pick1 = vmd_lt(d1, d0);
                r3 = vmd_or(r3, vd_sel_m(pick1, t1, t0));
                A = vd_sel(pick1, c1[0], c0[0]);
                B = vd_sel(pick1, c1[1], c0[1]);
                G = vd_sel(pick1, c1[2], c0[2]);
            } else {
                A = principal_d(a, &r3);
                B = b;
                G = principal_d(g, &r3);
            }
            out[0] = vd_sel(n3, A, out[0]);
            out[1] = vd_sel(n3, B, out[1]);
            out[2] = vd_sel(n3, G, out[2]);
        }
        if (vmd_any(n2)) {
            /* the branch whose third angle is near 0 (principal(g) at
             * +-180 either way: no margin there) */
            vmd ignored = r2;
            vd pg = vd_abs(principal_d(g, &ignored));
            r2 = vmd_or(r2, vmd_lt(vd_abs(vd_sub(pg, vd_set(90.0))), vd_set(1e-9)));
            vmd pick1 = vmd_not(vmd_le(pg, vd_set(90.0)));
            vd Bc = vd_sel(pick1, vd_sub(vd_set(180.0), b), b);
            vd B = have_prev ? unwrap_d(Bc, P[1], &r2) : principal_d(Bc, &r2);
            /* q_i(A) = q conj(q_j(B)) */
            vqd r = qmul_d(qn, qaxis_d(o->j0, o->j1, vd_neg(B)));
            vd a2 = twist_deg_d(sel_axis(o->i0, o->i1, r.x, r.y, r.z), r.w);
            vd A = have_prev ? unwrap_d(a2, P[0], &r2) : principal_d(a2, &r2);
            out[0] = vd_sel(n2, A, out[0]);
            out[1] = vd_sel(n2, B, out[1]);
        }
    }
    if (vmd_any(n1)) {
        vd a1 = twist_deg_d(qi, w);
        vd A = have_prev ? unwrap_d(a1, P[0], &r1) : principal_d(a1, &r1);
        out[0] = vd_sel(n1, A, out[0]);
    }
    *redo = vmd_or(*redo, vmd_or(vmd_and(n1, r1), vmd_or(vmd_and(n2, r2), vmd_and(n3, r3))));
}

/* finite and at most PB_E_MAX_DEG in magnitude */
PB_INLINE vmd angle_ok_d(vd a) { return vmd_le(vd_abs(a), vd_set(PB_E_MAX_DEG)); }

/* ------------------------------------------------------------ kernels */

/* One block of euler_choose (internal.h): cnt elements at offset 0 of
 * each array. */
PB_INLINE void euler_choose_block(size_t cnt, const uint8_t *order, const uint8_t *nrot,
                                  const float *fw, const float *fx, const float *fy,
                                  const float *fz, const double *const src[3],
                                  const double *const prev[3], size_t off, double print_scale,
                                  double *const deg[3], uint8_t *state)
{
    eu_order o = eu_order_load(order, nrot, cnt);
    vd zero = vd_set(0.0), one = vd_set(1.0);
    vmd n0 = vmd_eq(o.nr, zero);
    vmd ge2 = vmd_ge(o.nr, vd_set(2.0)), ge3 = vmd_ge(o.nr, vd_set(3.0));
    vmd redo = o.bad;
    vd w = ldd_f(fw, cnt), x = ldd_f(fx, cnt), y = ldd_f(fy, cnt), z = ldd_f(fz, cnt);
    /* norm^2 as euler.c and bvh_angles.c sum it */
    vd nn = vd_add(vd_add(vd_add(vd_mul(w, w), vd_mul(x, x)), vd_mul(y, y)), vd_mul(z, z));
    redo = vmd_or(redo, vmd_not(vmd_and(vmd_gt(nn, zero), vmd_lt(nn, vd_set(HUGE_VAL)))));
    vmd same = vmd_and(n0, vmd_not(n0)); /* none */
    vd P[3] = {zero, zero, zero};
    int have_prev = 0;
    if (src) {
        vd S[3];
        for (int m = 0; m < 3; m++)
            S[m] = ldd(src[m] + off, cnt);
        /* angles past the rotation channels are not read: 0 */
        S[1] = vd_sel(ge2, S[1], zero);
        S[2] = vd_sel(ge3, S[2], zero);
        for (int m = 0; m < 3; m++)
            redo = vmd_or(redo, vmd_not(angle_ok_d(S[m])));
        /* pb_euler_to_quat_n of the source angles (identity factors for the
         * missing channels: the same values) */
        vqd qs = qmul_d(qmul_d(qaxis_d(o.i0, o.i1, S[0]), qaxis_d(o.j0, o.j1, S[1])),
                        qaxis_d(o.k0, o.k1, S[2]));
        /* bvh_angles.c's rot_angle(q, qs) <= SAME_ROTATION_RAD, as the chord
         * between the normalised quaternions against 2 sin(2e-7 / 4) */
        vd na = vd_sqrt(nn);
        vd nb = vd_sqrt(
            vd_add(vd_add(vd_add(vd_mul(qs.w, qs.w), vd_mul(qs.x, qs.x)), vd_mul(qs.y, qs.y)),
                   vd_mul(qs.z, qs.z)));
        vd qa[4] = {w, x, y, z}, qb[4] = {qs.w, qs.x, qs.y, qs.z};
        vd dp = zero, dm = zero, ia = vd_div(one, na), ib = vd_div(one, nb);
        for (int k = 0; k < 4; k++) {
            vd u = vd_mul(qa[k], ia), v = vd_mul(qb[k], ib);
            dp = vd_add(dp, sq_d(vd_sub(u, v)));
            dm = vd_add(dm, sq_d(vd_add(u, v)));
        }
        vd d = vd_sqrt(vd_sel(vmd_lt(dp, dm), dp, dm));
        same = vmd_lt(d, vd_set(PB_E_SAME_ROT_CHORD * (1.0 - 1e-6)));
        vmd differ = vmd_gt(d, vd_set(PB_E_SAME_ROT_CHORD * (1.0 + 1e-6)));
        redo = vmd_or(redo, vmd_not(vmd_or(same, differ)));
        for (int m = 0; m < 3; m++)
            P[m] = S[m];
        have_prev = 1;
    } else if (prev) {
        for (int m = 0; m < 3; m++)
            P[m] = ldd(prev[m] + off, cnt);
        P[1] = vd_sel(ge2, P[1], zero);
        P[2] = vd_sel(ge3, P[2], zero);
        for (int m = 0; m < 3; m++)
            redo = vmd_or(redo, vmd_not(angle_ok_d(P[m])));
        have_prev = 1;
    }
    /* the lanes that convert: rotation channels, not the source's */
    vmd live = vmd_andnot(vmd_andnot(vmd_not(n0), same), redo);
    vd out[3] = {zero, zero, zero};
    if (vmd_any(live)) {
        vd inv = vd_div(one, vd_sqrt(nn));
        vqd qn = {vd_mul(w, inv), vd_mul(x, inv), vd_mul(y, inv), vd_mul(z, inv)};
        vd qi = sel_axis(o.i0, o.i1, qn.x, qn.y, qn.z);
        vd qj = sel_axis(o.j0, o.j1, qn.x, qn.y, qn.z);
        vd qk = sel_axis(o.k0, o.k1, qn.x, qn.y, qn.z);
        from_quat_d(&o, qn.w, qi, qj, qk, qn, have_prev, P, live, &redo, out);
        if (print_scale > 0.0)
            for (int m = 0; m < 3; m++)
                redo = vmd_or(redo, vmd_and(live, print_risk_d(out[m], print_scale)));
    }
    vmd as_read = vmd_andnot(vmd_andnot(same, n0), redo);
    for (int m = 0; m < 3; m++) {
        vd v = vd_sel(as_read, P[m], out[m]);
        std_d(deg[m] + off, vd_sel(n0, zero, v), cnt);
    }
    unsigned r = vmd_bits(vmd_andnot(redo, n0)), s = vmd_bits(as_read);
    for (size_t l = 0; l < cnt; l++)
        state[off + l] = (uint8_t)((r >> l) & 1u ? 2 : (s >> l) & 1u);
}

static void k_euler_choose(size_t n, const uint8_t *order, const uint8_t *nrot, pb_cquats q,
                           const double *const src[3], const double *const prev[3],
                           double print_scale, double *const deg[3], uint8_t *state)
{
    size_t i = 0;
    for (; i + PB_DLANES <= n; i += PB_DLANES)
        euler_choose_block(PB_DLANES, order + i, nrot + i, q.w + i, q.x + i, q.y + i, q.z + i, src,
                           prev, i, print_scale, deg, state);
    if (i < n)
        euler_choose_block(n - i, order + i, nrot + i, q.w + i, q.x + i, q.y + i, q.z + i, src,
                           prev, i, print_scale, deg, state);
}

/* One block of euler_to_quat (internal.h) */
PB_INLINE void euler_to_quat_block(size_t cnt, const uint8_t *order, const uint8_t *nrot,
                                   const double *const deg[3], size_t off, pb_quats out,
                                   uint8_t *redo_out)
{
    eu_order o = eu_order_load(order, nrot, cnt);
    vd zero = vd_set(0.0), one = vd_set(1.0);
    vmd ge1 = vmd_ge(o.nr, one), ge2 = vmd_ge(o.nr, vd_set(2.0)), ge3 = vmd_ge(o.nr, vd_set(3.0));
    vd D[3];
    for (int m = 0; m < 3; m++)
        D[m] = ldd(deg[m] + off, cnt);
    D[0] = vd_sel(ge1, D[0], zero);
    D[1] = vd_sel(ge2, D[1], zero);
    D[2] = vd_sel(ge3, D[2], zero);
    vmd redo = o.bad;
    for (int m = 0; m < 3; m++)
        redo = vmd_or(redo, vmd_not(angle_ok_d(D[m])));
    /* euler.c: q = identity, then q = q q_axis(angle) for each channel */
    vqd q = {one, zero, zero, zero};
    vqd mag = q; /* the products' magnitudes: |q_a| |q_b| summed, bounding
                  * what rounding (and sin/cos's ulp) can move a component */
    const vmd use[3] = {ge1, ge2, ge3};
    const vmd *ax[3][2] = {{&o.i0, &o.i1}, {&o.j0, &o.j1}, {&o.k0, &o.k1}};
    for (int m = 0; m < 3; m++) {
        vqd e = qaxis_d(*ax[m][0], *ax[m][1], D[m]);
        vqd ea = {vd_abs(e.w), vd_abs(e.x), vd_abs(e.y), vd_abs(e.z)};
        vqd p = qmul_d(q, e);
        vqd pm = {
            vd_add(vd_add(vd_add(vd_mul(mag.w, ea.w), vd_mul(mag.x, ea.x)), vd_mul(mag.y, ea.y)),
                   vd_mul(mag.z, ea.z)),
            vd_add(vd_add(vd_add(vd_mul(mag.w, ea.x), vd_mul(mag.x, ea.w)), vd_mul(mag.y, ea.z)),
                   vd_mul(mag.z, ea.y)),
            vd_add(vd_add(vd_add(vd_mul(mag.w, ea.y), vd_mul(mag.x, ea.z)), vd_mul(mag.y, ea.w)),
                   vd_mul(mag.z, ea.x)),
            vd_add(vd_add(vd_add(vd_mul(mag.w, ea.z), vd_mul(mag.x, ea.y)), vd_mul(mag.y, ea.x)),
                   vd_mul(mag.z, ea.w))};
        q.w = vd_sel(use[m], p.w, q.w), q.x = vd_sel(use[m], p.x, q.x);
        q.y = vd_sel(use[m], p.y, q.y), q.z = vd_sel(use[m], p.z, q.z);
        mag.w = vd_sel(use[m], pm.w, mag.w), mag.x = vd_sel(use[m], pm.x, mag.x);
        mag.y = vd_sel(use[m], pm.y, mag.y), mag.z = vd_sel(use[m], pm.z, mag.z);
    }
    /* Rounded to float: the reference's double is within 64 ulps of the
     * magnitudes of ours; where a float rounding boundary lies that close,
     * the float could differ: redo */
    vd c[4] = {q.w, q.x, q.y, q.z}, mg[4] = {mag.w, mag.x, mag.y, mag.z};
    float *dst[4] = {out.w, out.x, out.y, out.z};
    for (int k = 0; k < 4; k++) {
        vd tol = vd_mul(mg[k], vd_set(0x1p-46));
        redo = vmd_or(redo, vmd_not(vmd_eq(vd_round_f32(vd_sub(c[k], tol)),
                                           vd_round_f32(vd_add(c[k], tol)))));
        if (cnt == PB_DLANES)
            vd_store_f(dst[k] + off, c[k]);
        else
            vd_store_f_part(dst[k] + off, c[k], cnt);
    }
    unsigned r = vmd_bits(redo);
    for (size_t l = 0; l < cnt; l++)
        redo_out[off + l] = (uint8_t)((r >> l) & 1u);
}

static void k_euler_to_quat(size_t n, const uint8_t *order, const uint8_t *nrot,
                            const double *const deg[3], pb_quats out, uint8_t *redo)
{
    size_t i = 0;
    for (; i + PB_DLANES <= n; i += PB_DLANES)
        euler_to_quat_block(PB_DLANES, order + i, nrot + i, deg, i, out, redo);
    if (i < n)
        euler_to_quat_block(n - i, order + i, nrot + i, deg, i, out, redo);
}

/* round((y - x) / 360) as nearbyint of the correctly rounded quotient: the
 * product by 1/360 is an ulp or two from it, so it rounds to the same
 * integer unless it is that close to a half-integer; such blocks (two-turn
 * ties, 180 degrees apart) divide */
PB_INLINE vd turns_d(vd x, vd y)
{
    vd d = vd_sub(y, x);
    vd t = vd_mul(d, vd_set(1.0 / 360.0));
    vd k = vd_round(t);
    vd off = vd_abs(vd_sub(vd_abs(vd_sub(t, k)), vd_set(0.5)));
    if (vmd_any(vmd_not(vmd_gt(off, vd_fma(vd_abs(t), vd_set(0x1p-40), vd_set(0x1p-60))))))
        k = vd_round(vd_div(d, vd_set(360.0)));
    return k;
}

/* pb_bvh_resample_angles' interpolation of n angles (a frame's, channel
 * slots in a row): out = a + u (b' - a), b' = b - 360 round((b - a) / 360),
 * the same operations and bits as bvh_resample.c's scalar loop; returns
 * whether some |b' - a| > 90 (a 'far' pair: the caller redoes that frame).
 * out may alias a or b. */
static int k_angles_lerp(size_t n, double u, const double *a, const double *b, double *out)
{
    vd vu = vd_set(u), c360 = vd_set(360.0), c90 = vd_set(90.0);
    vmd far = vmd_lt(vu, vu); /* none */
    size_t i = 0;
    for (; i + PB_DLANES <= n; i += PB_DLANES) {
        vd x = vd_load(a + i), y = vd_load(b + i);
        vd nb = vd_sub(y, vd_mul(c360, turns_d(x, y)));
        far = vmd_or(far, vmd_gt(vd_abs(vd_sub(nb, x)), c90));
        vd_store(out + i, vd_add(x, vd_mul(vu, vd_sub(nb, x))));
    }
    if (i < n) {
        size_t cnt = n - i;
        vd x = vd_load_part(a + i, cnt), y = vd_load_part(b + i, cnt);
        vd nb = vd_sub(y, vd_mul(c360, turns_d(x, y)));
        far = vmd_or(far, vmd_gt(vd_abs(vd_sub(nb, x)), c90));
        vd_store_part(out + i, vd_add(x, vd_mul(vu, vd_sub(nb, x))), cnt);
    }
    return vmd_any(far);
}

/* this family's rows of the kernel table (kernels.h) */
#define PB_EULER_KERNELS                                                                           \
    .euler_choose = k_euler_choose, .euler_to_quat = k_euler_to_quat, .angles_lerp = k_angles_lerp,

#endif
