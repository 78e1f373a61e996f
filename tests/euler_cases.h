/* Inputs for the batch Euler choice (bvh_choose_angles_n, src/io/bvh_internal.h)
 * shared by tests/test_euler.c and tests/conformance_euler.c: a frame of
 * joints with mixed orders and rotation channel counts, float rotations,
 * source and previous angles, random or built to sit on the scalar
 * reference's edges (gimbal lock, +-180 wraps, half-turn unwrapping ties,
 * the n = 2 branch at +-90, zero / non-finite / huge values). The reference
 * is bvh_choose_angles joint by joint (src/io/bvh_angles.c over euler.c). */
#ifndef PB_TESTS_EULER_CASES_H
#define PB_TESTS_EULER_CASES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bvh_internal.h"

#define EC_MAXJ 160

typedef struct {
    size_t n;
    uint8_t order[EC_MAXJ], nrot[EC_MAXJ];
    float qw[EC_MAXJ], qx[EC_MAXJ], qy[EC_MAXJ], qz[EC_MAXJ];
    double src[3 * EC_MAXJ], prev[3 * EC_MAXJ];
} ec_case;

enum { EC_RANDOM, EC_LOCK, EC_WRAP, EC_TIE, EC_N2, EC_SPECIAL, EC_KINDS };
static const char *const ec_kind_names[EC_KINDS] = {"random", "lock", "wrap",
                                                    "tie",    "n2",   "special"};

static unsigned long long ec_rng = 0x2545f4914f6cdd1dull;
static inline double ec_u(void) /* [0, 1) */
{
    ec_rng ^= ec_rng << 13;
    ec_rng ^= ec_rng >> 7;
    ec_rng ^= ec_rng << 17;
    return (double)(ec_rng >> 11) / 9007199254740992.0;
}
static inline double ec_sym(double r) { return (2.0 * ec_u() - 1.0) * r; }
static inline size_t ec_pick(size_t k) { return (size_t)(ec_u() * (double)k) % k; }

/* the batch's rotation of joint e from Euler angles (its own order and
 * channel count), optionally a little off */
static inline void ec_set_q(ec_case *c, size_t e, const double deg[3], double noise)
{
    double q[4];
    pb_euler_to_quat_n((pb_euler_order)c->order[e], c->nrot[e], deg, q);
    for (int k = 0; k < 4; k++)
        q[k] += ec_sym(noise);
    c->qw[e] = (float)q[0];
    c->qx[e] = (float)q[1];
    c->qy[e] = (float)q[2];
    c->qz[e] = (float)q[3];
}

/* The reference's principal angles of joint e's float rotation */
static inline void ec_principal(const ec_case *c, size_t e, double out[3])
{
    double q[4] = {c->qw[e], c->qx[e], c->qy[e], c->qz[e]};
    pb_euler_from_quat_n((pb_euler_order)c->order[e], c->nrot[e], q, NULL, out);
}

static const double ec_lock_d[] = {0.0,  1e-14,  1e-10,  1e-7, 1e-5, 1e-3,
                                   0.03, 0.0572, 0.0573, 0.06, 0.1};
static const double ec_wrap_d[] = {0.0, 1e-13, 1e-11, 1e-9, 1e-6, 1e-3};

/* A case of the given kind with n joints */
static inline void ec_make(ec_case *c, int kind, size_t n)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    for (size_t e = 0; e < n; e++) {
        c->order[e] = (uint8_t)ec_pick(6);
        size_t r = ec_pick(10);
        c->nrot[e] = (uint8_t)(r == 0 ? 0 : r == 1 ? 1 : r == 2 ? 2 : 3);
        double d[3] = {ec_sym(180.0), ec_sym(90.0), ec_sym(180.0)};
        double noise = 0.0;
        switch (kind) {
        case EC_LOCK: {
            double dl = ec_lock_d[ec_pick(sizeof ec_lock_d / sizeof ec_lock_d[0])];
            d[1] = (ec_u() < 0.5 ? 90.0 : -90.0) + (ec_u() < 0.5 ? dl : -dl);
            if (c->nrot[e] < 2)
                c->nrot[e] = 3;
            break;
        }
        case EC_WRAP:
            for (int k = 0; k < 3; k += 2)
                if (ec_u() < 0.7)
                    d[k] = (ec_u() < 0.5 ? 180.0 : -180.0) +
                           ec_sym(1.0) * ec_wrap_d[ec_pick(sizeof ec_wrap_d / sizeof ec_wrap_d[0])];
            break;
        case EC_N2: c->nrot[e] = 2; break;
        default: break;
        }
        if (kind == EC_N2) {
            /* a rotation with a third angle near +-90: not representable
             * with two channels, the reference picks the branch by it */
            double d3[3] = {d[0], d[1],
                            (ec_u() < 0.5 ? 90.0 : -90.0) + ec_sym(1.0) * ec_wrap_d[ec_pick(6)]};
            double q[4];
            pb_euler_to_quat_n((pb_euler_order)c->order[e], 3, d3, q);
            c->qw[e] = (float)q[0], c->qx[e] = (float)q[1], c->qy[e] = (float)q[2],
            c->qz[e] = (float)q[3];
        } else {
            if (kind == EC_RANDOM && ec_u() < 0.3)
                noise = 1e-6;
            ec_set_q(c, e, d, noise);
        }
        /* source angles: the rotation's own (printed as read), a little
         * off (converted), or the other equivalent triple or turns away */
        double s[3] = {d[0], d[1], d[2]};
        double v = ec_u();
        if (v < 0.25)
            for (int k = 0; k < 3; k++)
                s[k] += ec_sym(1e-4);
        else if (v < 0.4)
            for (int k = 0; k < 3; k++)
                s[k] += 360.0 * (double)((int)ec_pick(5) - 2);
        else if (v < 0.5)
            s[0] += 180.0, s[1] = 180.0 - s[1], s[2] += 180.0;
        else if (v < 0.6)
            for (int k = 0; k < 3; k++)
                s[k] += ec_sym(20.0);
        /* previous angles: near, some turns away, or far */
        double p[3];
        ec_principal(c, e, p);
        for (int k = 0; k < 3; k++) {
            double w = ec_u();
            p[k] += w < 0.5   ? ec_sym(5.0)
                    : w < 0.8 ? 360.0 * (double)((int)ec_pick(7) - 3) + ec_sym(3.0)
                              : ec_sym(400.0);
        }
        if (kind == EC_TIE) {
            /* a candidate exactly half a turn from prev (or 1e-12 off):
             * the reference's nearbyint decides by its tie rule */
            double a[3];
            ec_principal(c, e, a);
            for (int k = 0; k < 3; k++) {
                double w = ec_u();
                double off = w < 0.5 ? 0.0 : ec_sym(1e-12);
                p[k] = a[k] + (ec_u() < 0.5 ? 180.0 : -180.0) +
                       360.0 * (double)((int)ec_pick(3) - 1) + off;
                if (ec_u() < 0.3) /* the other branch's candidate */
                    p[k] = (k == 1 ? 180.0 - a[k] : a[k] + 180.0) + (ec_u() < 0.5 ? 180.0 : -180.0);
            }
            /* and source angles at half turns of the conversion's */
            for (int k = 0; k < 3; k++)
                s[k] = p[k];
        }
        for (int k = 0; k < 3; k++) {
            c->src[3 * e + (size_t)k] = s[k];
            c->prev[3 * e + (size_t)k] = p[k];
        }
        if (kind == EC_SPECIAL) {
            switch (ec_pick(9)) {
            case 0: /* zero rotation: the identity */
                c->qw[e] = c->qx[e] = c->qy[e] = c->qz[e] = 0.0f;
                break;
            case 1: c->qx[e] = NAN; break;
            case 2: c->qw[e] = INFINITY; break;
            case 3: /* huge angles */
                c->prev[3 * e] = 5e6 + ec_sym(1.0);
                c->src[3 * e + 2] = 2e7;
                break;
            case 4:
                c->prev[3 * e + 1] = NAN;
                c->src[3 * e] = -INFINITY;
                break;
            case 5: /* tiny and huge norms */
                c->qw[e] *= 1e-30f, c->qx[e] *= 1e-30f, c->qy[e] *= 1e-30f, c->qz[e] *= 1e-30f;
                break;
            case 6:
                c->qw[e] *= 1e30f, c->qx[e] *= 1e30f, c->qy[e] *= 1e30f, c->qz[e] *= 1e30f;
                break;
            case 7: /* identity, angles 0 */
                c->qw[e] = 1.0f, c->qx[e] = c->qy[e] = c->qz[e] = 0.0f;
                for (int k = 0; k < 3; k++)
                    c->src[3 * e + (size_t)k] = c->prev[3 * e + (size_t)k] = 0.0;
                break;
            default: /* -q */
                c->qw[e] = -c->qw[e], c->qx[e] = -c->qx[e], c->qy[e] = -c->qy[e],
                c->qz[e] = -c->qz[e];
                break;
            }
        }
    }
}

/* The writer's text of a computed angle (bvh_write.c's fmt_angle: 6
 * decimals, trailing zeros dropped, no "-0"), as sign and millionths */
static inline void ec_text(double v, char *buf, size_t size)
{
    double a = fabs(v);
    if (!(a < 1e12)) {
        snprintf(buf, size, "%.6f", v);
        return;
    }
    unsigned long long m = (unsigned long long)nearbyint(a * 1e6);
    snprintf(buf, size, "%s%llu", v < 0.0 && m ? "-" : "", m);
}

/* bvh_choose_angles joint by joint, with the writer's arguments (zero
 * rotation: identity) */
static inline void ec_reference(pb_bvh_euler_mode mode, const ec_case *c, const double *source,
                                const double *prev, double *deg, unsigned char *as_read)
{
    for (size_t e = 0; e < c->n; e++) {
        double *d = deg + 3 * e;
        if (c->nrot[e] == 0) {
            d[0] = d[1] = d[2] = 0.0;
            as_read[e] = 0;
            continue;
        }
        double q[4] = {c->qw[e], c->qx[e], c->qy[e], c->qz[e]};
        if (q[0] == 0.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0)
            q[0] = 1.0;
        as_read[e] = (unsigned char)bvh_choose_angles(mode, c->order[e], c->nrot[e], q,
                                                      source ? source + 3 * e : NULL,
                                                      prev ? prev + 3 * e : NULL, d);
    }
}

/* Joint e of two results agrees: the same as_read; as read, the same
 * bits; converted, the same text and within tol degrees (both NaN counts
 * as the same). Returns 0 or describes the difference in msg. */
static inline int ec_agree(const double *da, const unsigned char *ra, const double *db,
                           const unsigned char *rb, size_t e, double tol, char *msg, size_t size)
{
    if (ra[e] != rb[e]) {
        snprintf(msg, size, "as_read %d vs %d", ra[e], rb[e]);
        return 1;
    }
    for (int k = 0; k < 3; k++) {
        double a = da[3 * e + (size_t)k], b = db[3 * e + (size_t)k];
        if (isnan(a) && isnan(b))
            continue;
        char ta[64], tb[64];
        ec_text(a, ta, sizeof ta);
        ec_text(b, tb, sizeof tb);
        int bad = ra[e] ? memcmp(&a, &b, sizeof a) != 0
                        : (strcmp(ta, tb) != 0 || !(a == b || fabs(a - b) <= tol));
        if (bad) {
            snprintf(msg, size, "angle %d: %.17g (%s) vs %.17g (%s)", k, a, ta, b, tb);
            return 1;
        }
    }
    return 0;
}

#endif
