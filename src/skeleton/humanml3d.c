/* HumanML3D's 263-dimensional motion representation (posebatch/features.h,
 * pb_humanml3d_features) from the positions of the 22 SMPL joints, in
 * double: the steps of its motion_representation process_file in its order
 * (uniform skeleton, floor, origin, first facing, per-frame facing smoothed
 * over time, bone rotations from rest directions, then the features).
 * Written from the representation's definition; the script's own quirks
 * are kept where they change numbers, each marked "as the script". */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "quat64.h"

#define NJ PB_HUMANML3D_JOINTS
#define DIM PB_HUMANML3D_DIM
#define SIGMA 20.0 /* the facing's Gaussian over frames */
#define RADIUS 80  /* truncated at 4 sigma, as scipy's gaussian_filter1d */

/* the kinematic chains of the 22 joints and each joint's rest direction
 * (the script's t2m_kinematic_chain and t2m_raw_offsets) */
static const int8_t chains[5][7] = {{0, 2, 5, 8, 11, -1},
                                    {0, 1, 4, 7, 10, -1},
                                    {0, 3, 6, 9, 12, 15, -1},
                                    {9, 14, 17, 19, 21, -1},
                                    {9, 13, 16, 18, 20, -1}};
static const int8_t rest_dir[NJ][3] = {
    {0, 0, 0},  {1, 0, 0},  {-1, 0, 0}, {0, 1, 0},  {0, -1, 0}, {0, -1, 0}, {0, 1, 0},  {0, -1, 0},
    {0, -1, 0}, {0, 1, 0},  {0, 0, 1},  {0, 0, 1},  {0, 1, 0},  {1, 0, 0},  {-1, 0, 0}, {0, 0, 1},
    {0, -1, 0}, {0, -1, 0}, {0, -1, 0}, {0, -1, 0}, {0, -1, 0}, {0, -1, 0}};
/* the leg whose length scales the root (right knee, right ankle), the feet
 * of the contacts (left ankle, left foot, right ankle, right foot) */
static const int leg[2] = {5, 8};
static const int feet[4] = {7, 10, 8, 11};

typedef struct {
    double v[3];
} d3;

static d3 sub3(d3 a, d3 b)
{
    d3 r = {{a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2]}};
    return r;
}
static double dot3(d3 a, d3 b) { return a.v[0] * b.v[0] + a.v[1] * b.v[1] + a.v[2] * b.v[2]; }
static d3 scale3(d3 a, double s)
{
    d3 r = {{a.v[0] * s, a.v[1] * s, a.v[2] * s}};
    return r;
}
static d3 unit3(d3 a) { return scale3(a, 1.0 / sqrt(dot3(a, a))); }
static d3 cross3(d3 a, d3 b)
{
    d3 r = {{a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2],
             a.v[0] * b.v[1] - a.v[1] * b.v[0]}};
    return r;
}
/* the rotation taking unit direction u to unit direction v: (|u||v| +
 * u.v, u x v) normalised, whose norm^2 is 2 (1 + u.v) */
static dq between(d3 u, d3 v)
{
    d3 c = cross3(u, v);
    const double w = 1.0 + dot3(u, v), n = 1.0 / sqrt(2.0 * w);
    dq r = {w * n, c.v[0] * n, c.v[1] * n, c.v[2] * n};
    return r;
}
/* A rotation about y, (w, 0, y, 0): the facings, which are all of that
 * kind (a horizontal direction turned to +z); its matrix entries c = 1 -
 * 2y^2 and s = 2wy: x' = c x + s z, z' = c z - s x. */
typedef struct {
    double w, y, c, s;
} yaw;
static yaw yaw_of(double w, double y)
{
    yaw r = {w, y, 1.0 - 2.0 * y * y, 2.0 * w * y};
    return r;
}
/* the yaw turning the horizontal direction (x, 0, z) to +z: between(d, +z) */
static yaw yaw_to_z(double x, double z)
{
    const double w = sqrt(x * x + z * z) + z, n = 1.0 / sqrt(w * w + x * x);
    return yaw_of(w * n, -x * n);
}
static d3 yaw_rot(yaw q, d3 a)
{
    d3 r = {{q.c * a.v[0] + q.s * a.v[2], a.v[1], q.c * a.v[2] - q.s * a.v[0]}};
    return r;
}
static d3 at(const double *p, size_t f, int j)
{
    const double *s = p + (f * NJ + (size_t)j) * 3;
    d3 r = {{s[0], s[1], s[2]}};
    return r;
}
static void put(double *p, size_t f, int j, d3 a)
{
    double *s = p + (f * NJ + (size_t)j) * 3;
    s[0] = a.v[0];
    s[1] = a.v[1];
    s[2] = a.v[2];
}
/* the forward direction (not normalised) from the hips and shoulders:
 * y x across, across = (h0 - h1) + (s0 - s1) normalised */
static d3 forward_of(const double *p, size_t f, int h0, int h1, int s0, int s1)
{
    d3 across = unit3(sub3(sub3(at(p, f, h0), at(p, f, h1)), sub3(at(p, f, s1), at(p, f, s0))));
    const d3 y = {{0, 1, 0}};
    return cross3(y, across);
}

static pb_status check(size_t frames, const float *positions, const float *target,
                       float feet_threshold, const float *out)
{
    if (!positions || !out)
        return PB_ERR_NULL;
    if (frames < 2 || frames > PB_MAX_COUNT / DIM)
        return PB_ERR_SIZE;
    if (!(feet_threshold >= 0.0f))
        return PB_ERR_ARG;
    chk_range o = chk_range_of(out, (frames - 1) * DIM * sizeof(float));
    if (chk_meets(o, chk_range_of(positions, frames * NJ * 3 * sizeof(float))) ||
        (target && chk_meets(o, chk_range_of(target, NJ * 3 * sizeof(float)))))
        return PB_ERR_ALIAS;
    return PB_OK;
}

/* the bone lengths of a skeleton from its joints j (22 x 3), by parent */
static void lengths(const float *j, const int *par, double len[NJ])
{
    len[0] = 0.0;
    for (int i = 1; i < NJ; i++) {
        double s = 0.0;
        for (int k = 0; k < 3; k++) {
            double d = (double)j[3 * i + k] - j[3 * par[i] + k];
            s += d * d;
        }
        len[i] = sqrt(s);
    }
}

pb_status pb_humanml3d_features(size_t frames, const float *positions, const float *target,
                                float feet_threshold, float *out)
{
    pb_status st = check(frames, positions, target, feet_threshold, out);
    if (st != PB_OK)
        return st;
    const size_t F = frames;
    int par[NJ];
    par[0] = -1;
    for (int c = 0; c < 5; c++)
        for (int i = 1; chains[c][i] >= 0; i++)
            par[chains[c][i]] = chains[c][i - 1];
    /* uniform skeleton: each bone's direction kept, its length the
     * target's; the root scaled by the ratio of the legs */
    double ls[NJ], lt[NJ];
    lengths(positions, par, ls);
    lengths(target ? target : positions, par, lt);
    const double src_leg = ls[leg[0]] + ls[leg[1]], tgt_leg = lt[leg[0]] + lt[leg[1]];
    if (src_leg == 0.0 || tgt_leg == 0.0)
        return PB_ERR_ARG;
    /* positions, each bone's unit direction, the facings, the Gaussian,
     * the forward directions with the ends repeated RADIUS times */
    const size_t nfw = F + 2 * RADIUS;
    double *p = malloc((2 * F * NJ * 3 + 2 * F + 2 * RADIUS + 1 + 3 * nfw) * sizeof *p);
    if (!p)
        return PB_ERR_NOMEM;
    double *dir = p + F * NJ * 3, *rq = dir + F * NJ * 3, *kern = rq + 2 * F;
    d3 *fw = (d3 *)(kern + 2 * RADIUS + 1);
    const double rt = tgt_leg / src_leg;
    double floor = INFINITY;
    for (size_t f = 0; f < F; f++) {
        const float *s = positions + f * NJ * 3;
        d3 root = {{(double)s[0] * rt, (double)s[1] * rt, (double)s[2] * rt}};
        put(p, f, 0, root);
        floor = root.v[1] < floor ? root.v[1] : floor;
        for (int c = 0; c < 5; c++)
            for (int i = 1; chains[c][i] >= 0; i++) {
                const int j = chains[c][i], a = chains[c][i - 1];
                d3 d = {{(double)s[3 * j] - s[3 * a], (double)s[3 * j + 1] - s[3 * a + 1],
                         (double)s[3 * j + 2] - s[3 * a + 2]}};
                d3 pj = at(p, f, a), u = unit3(d), step = scale3(u, lt[j]);
                d3 q = {{pj.v[0] + step.v[0], pj.v[1] + step.v[1], pj.v[2] + step.v[2]}};
                put(dir, f, j, u);
                put(p, f, j, q);
                floor = q.v[1] < floor ? q.v[1] : floor;
            }
    }
    /* the first frame turned to face +z (hips and shoulders right minus
     * left, as the script's first facing) */
    d3 fw0 = forward_of(p, 0, 2, 1, 17, 16);
    if (dot3(fw0, fw0) == 0.0) {
        free(p);
        return PB_ERR_ARG;
    }
    const yaw turn = yaw_to_z(fw0.v[0], fw0.v[2]);
    /* on the floor, the first frame's root at x = z = 0, turned; per frame
     * the forward direction as the script's bone rotations take it (hips
     * 1 - 2 plus shoulders 17 - 16) */
    const double ox = p[0], oz = p[2];
    for (size_t f = 0; f < F; f++) {
        for (int j = 0; j < NJ; j++) {
            const size_t i = f * NJ + (size_t)j;
            d3 a = {{p[3 * i] - ox, p[3 * i + 1] - floor, p[3 * i + 2] - oz}};
            d3 u = {{dir[3 * i], 0.0, dir[3 * i + 2]}};
            a = yaw_rot(turn, a);
            u = yaw_rot(turn, u);
            p[3 * i] = a.v[0];
            p[3 * i + 1] = a.v[1];
            p[3 * i + 2] = a.v[2];
            dir[3 * i] = u.v[0];
            dir[3 * i + 2] = u.v[2];
        }
        fw[RADIUS + f] = forward_of(p, f, 1, 2, 17, 16);
    }
    for (size_t k = 0; k < RADIUS; k++) {
        fw[k] = fw[RADIUS];
        fw[RADIUS + F + k] = fw[RADIUS + F - 1];
    }
    /* the facing: those directions Gaussian-smoothed over the frames with
     * the ends held ('nearest'), normalised; the rotation taking it to +z,
     * the first frame's the identity (as the script) */
    double ksum = 0.0;
    for (int k = -RADIUS; k <= RADIUS; k++)
        ksum += kern[k + RADIUS] = exp(-0.5 / (SIGMA * SIGMA) * k * k);
    for (int k = 0; k <= 2 * RADIUS; k++)
        kern[k] /= ksum;
    for (size_t f = 0; f < F; f++) {
        double sx = 0.0, sz = 0.0; /* y is 0: y x across is horizontal */
        const d3 *w = fw + f;
        for (int k = 0; k <= 2 * RADIUS; k++) {
            sx += kern[k] * w[k].v[0];
            sz += kern[k] * w[k].v[2];
        }
        const yaw r = f == 0 ? yaw_of(1.0, 0.0) : yaw_to_z(sx, sz);
        rq[2 * f] = r.w;
        rq[2 * f + 1] = r.y;
    }
    /* the features of frames 0 .. F-2 */
    for (size_t f = 0; f + 1 < F; f++) {
        float *o = out + f * DIM;
        const yaw r0 = yaw_of(rq[2 * f], rq[2 * f + 1]), r1 = yaw_of(rq[2 * f + 2], rq[2 * f + 3]);
        /* root: the facing's change r1 r0^-1 (asin of its y), the root's
         * step in the next frame's facing (as the script), its height */
        o[0] = (float)asin(r1.y * r0.w - r1.w * r0.y);
        d3 step = yaw_rot(r1, sub3(at(p, f + 1, 0), at(p, f, 0)));
        o[1] = (float)step.v[0];
        o[2] = (float)step.v[2];
        d3 root = at(p, f, 0);
        d3 ground = {{root.v[0], 0.0, root.v[2]}};
        o[3] = (float)root.v[1];
        /* joints 1..21 from the root's ground point, facing frame */
        for (int j = 1; j < NJ; j++) {
            d3 a = yaw_rot(r0, sub3(at(p, f, j), ground));
            for (int k = 0; k < 3; k++)
                o[4 + 3 * (j - 1) + k] = (float)a.v[k];
        }
        /* bone rotations: along each chain from the facing, each bone's
         * rest direction to its direction, relative to the one before */
        dq loc[NJ];
        for (int c = 0; c < 5; c++) {
            dq R = {r0.w, 0.0, r0.y, 0.0};
            for (int i = 1; chains[c][i] >= 0; i++) {
                const int j = chains[c][i];
                d3 u = {{rest_dir[j][0], rest_dir[j][1], rest_dir[j][2]}};
                dq b = between(u, at(dir, f, j)); /* the bone's direction */
                loc[j] = dq_mul(dq_conj(R), b);
                R = b; /* R loc[j], exactly in real numbers */
            }
        }
        for (int j = 1; j < NJ; j++) {
            const dq q = loc[j];
            const double s = 2.0; /* q is unit: a product of unit rotations */
            const double c6[6] = {1 - s * (q.y * q.y + q.z * q.z), s * (q.x * q.y + q.z * q.w),
                                  s * (q.x * q.z - q.y * q.w),     s * (q.x * q.y - q.z * q.w),
                                  1 - s * (q.x * q.x + q.z * q.z), s * (q.y * q.z + q.x * q.w)};
            for (int k = 0; k < 6; k++)
                o[67 + 6 * (j - 1) + k] = (float)c6[k];
        }
        /* every joint's step in this frame's facing */
        for (int j = 0; j < NJ; j++) {
            d3 v = yaw_rot(r0, sub3(at(p, f + 1, j), at(p, f, j)));
            for (int k = 0; k < 3; k++)
                o[193 + 3 * j + k] = (float)v.v[k];
        }
        for (int k = 0; k < 4; k++) {
            d3 v = sub3(at(p, f + 1, feet[k]), at(p, f, feet[k]));
            o[259 + k] = dot3(v, v) < feet_threshold ? 1.0f : 0.0f;
        }
    }
    free(p);
    return PB_OK;
}
