/* Inverse kinematics: pb_ik_two_bone_solve and pb_ik_aim_solve on the
 * active backend (the suite runs once per backend) against a solve in
 * double written here from the algorithm's statement (ozz-animation's,
 * with acos and axis-angle quaternions, not the kernel's (cos, sin)
 * pairs), and against geometry: forward kinematics in double of the
 * corrected local pose puts the end joint on a reachable target (within
 * 1e-5 of the limb's length), the bend axis along target x pole, an aimed
 * joint's forward axis on its target (1e-5 rad). Degenerate cases give
 * their documented results; errors write nothing. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch.h"
#include "ref.h"

/* ------------------------------------------------------------ skeletons */

/* P poses of J joints: local and model values in double and float */
#define MAXJ 8
typedef struct {
    size_t P, J;
    int32_t par[MAXJ];
    rq *lr;       /* P*J local rotations */
    rv3 *lt;      /* P*J local translations */
    rq *mr;       /* model rotations */
    rv3 *mt;      /* model positions */
    float *f[14]; /* float: model w x y z, px py pz; local w x y z; out w x y z... */
} sk;

static rq axis_angle(rv3 axis, double ang)
{
    double s = sin(ang / 2);
    return rq_make(cos(ang / 2), axis.x * s, axis.y * s, axis.z * s);
}
static rv3 rq_rot(rq q, rv3 v)
{
    rq p = rq_mul(rq_mul(q, rq_make(0, v.x, v.y, v.z)), rq_conj(q));
    return rv3_make(p.x, p.y, p.z);
}
static void fk(const sk *s, const rq *lr, rq *mr, rv3 *mt)
{
    for (size_t p = 0; p < s->P; p++)
        for (size_t j = 0; j < s->J; j++) {
            size_t e = p * s->J + j;
            int32_t a = s->par[j];
            if (a < 0) {
                mr[e] = lr[e], mt[e] = s->lt[e];
            } else {
                size_t ea = p * s->J + (size_t)a;
                mr[e] = rq_mul(mr[ea], lr[e]);
                mt[e] = rv3_add(mt[ea], rq_rot(mr[ea], s->lt[e]));
            }
        }
}
/* the float arrays: 0..3 model rot, 4..6 model pos, 7..10 local rot */
static void to_float(sk *s)
{
    size_t n = s->P * s->J;
    for (int k = 0; k < 11; k++) {
        free(s->f[k]);
        s->f[k] = malloc(n * sizeof(float));
    }
    for (size_t i = 0; i < n; i++) {
        double v[11] = {s->mr[i].w, s->mr[i].x, s->mr[i].y, s->mr[i].z, s->mt[i].x, s->mt[i].y,
                        s->mt[i].z, s->lr[i].w, s->lr[i].x, s->lr[i].y, s->lr[i].z};
        for (int k = 0; k < 11; k++)
            s->f[k][i] = (float)v[k];
    }
    /* the model pose from the float local pose, so that both agree */
    for (size_t i = 0; i < n; i++) {
        s->lr[i] = rq_make(s->f[7][i], s->f[8][i], s->f[9][i], s->f[10][i]);
        s->lt[i] = rv3_make((float)s->lt[i].x, (float)s->lt[i].y, (float)s->lt[i].z);
    }
    fk(s, s->lr, s->mr, s->mt);
    for (size_t i = 0; i < n; i++) {
        double v[7] = {s->mr[i].w, s->mr[i].x, s->mr[i].y, s->mr[i].z,
                       s->mt[i].x, s->mt[i].y, s->mt[i].z};
        for (int k = 0; k < 7; k++)
            s->f[k][i] = (float)v[k];
        s->mr[i] = rq_make(s->f[0][i], s->f[1][i], s->f[2][i], s->f[3][i]);
        s->mt[i] = rv3_make(s->f[4][i], s->f[5][i], s->f[6][i]);
    }
}
/* a limb: 0 root, 1 start, 2 mid, 3 end, 4 a child of 3, 5 a child of 0;
 * bones of length 5..40 */
static sk limb_new(rng_t *r, size_t P)
{
    sk s;
    memset(&s, 0, sizeof s);
    s.P = P, s.J = 6;
    const int32_t par[6] = {-1, 0, 1, 2, 3, 0};
    memcpy(s.par, par, sizeof par);
    size_t n = P * s.J;
    s.lr = malloc(n * sizeof(rq)), s.lt = malloc(n * sizeof(rv3));
    s.mr = malloc(n * sizeof(rq)), s.mt = malloc(n * sizeof(rv3));
    for (size_t i = 0; i < n; i++) {
        s.lr[i] = rng_quat(r);
        size_t j = i % s.J;
        s.lt[i] = rng_vec3(r, 30.0);
        /* a hinge about z: the bones in the xy planes of the start and
         * middle frames, the middle joint turned about z (either way) */
        if (j == 2 || j == 3) {
            double ang = rng_range(r, 0, 2 * REF_PI);
            s.lt[i] = rv3_scale(rv3_make(cos(ang), sin(ang), 0), rng_range(r, 5.0, 40.0));
        }
        if (j == 2)
            s.lr[i] = axis_angle(rv3_make(0, 0, 1), rng_range(r, -3.1, 3.1));
    }
    fk(&s, s.lr, s.mr, s.mt);
    to_float(&s);
    return s;
}
static void sk_free(sk *s)
{
    for (int k = 0; k < 14; k++)
        free(s->f[k]);
    free(s->lr), free(s->lt), free(s->mr), free(s->mt);
}
static pb_cpose model_of(const sk *s)
{
    pb_cpose m = {{s->f[0], s->f[1], s->f[2], s->f[3]}, {s->f[4], s->f[5], s->f[6]}, {0, 0, 0}};
    return m;
}
static pb_cquats local_of(const sk *s)
{
    pb_cquats q = {s->f[7], s->f[8], s->f[9], s->f[10]};
    return q;
}

/* per-pose inputs */
typedef struct {
    float *t[3], *pl[3], *w, *soft;
} per;
static per per_new(size_t P)
{
    per q;
    for (int k = 0; k < 3; k++)
        q.t[k] = calloc(P, sizeof(float)), q.pl[k] = calloc(P, sizeof(float));
    q.w = calloc(P, sizeof(float)), q.soft = calloc(P, sizeof(float));
    return q;
}
static void per_free(per *q)
{
    for (int k = 0; k < 3; k++)
        free(q->t[k]), free(q->pl[k]);
    free(q->w), free(q->soft);
}
static void per_set(per *q, size_t p, rv3 t, rv3 pole)
{
    q->t[0][p] = (float)t.x, q->t[1][p] = (float)t.y, q->t[2][p] = (float)t.z;
    q->pl[0][p] = (float)pole.x, q->pl[1][p] = (float)pole.y, q->pl[2][p] = (float)pole.z;
}
static rv3 per_t(const per *q, size_t p) { return rv3_make(q->t[0][p], q->t[1][p], q->t[2][p]); }
static rv3 per_pole(const per *q, size_t p)
{
    return rv3_make(q->pl[0][p], q->pl[1][p], q->pl[2][p]);
}

/* ------------------------------------------------------------ reference */

static rv3 unit(rv3 v) { return rv3_scale(v, 1.0 / rv3_norm(v)); }
static rq from_vectors(rv3 a, rv3 b)
{
    double n = sqrt(rv3_dot(a, a) * rv3_dot(b, b));
    if (n < 1e-30)
        return rq_identity();
    double re = n + rv3_dot(a, b);
    rq q;
    if (re < 1e-6 * n)
        q = fabs(a.x) > fabs(a.z) ? rq_make(0, -a.y, a.x, 0) : rq_make(0, 0, -a.z, a.y);
    else {
        rv3 c = rv3_cross(a, b);
        q = rq_make(re, c.x, c.y, c.z);
    }
    return rq_normalize(q);
}
static double clamp1(double c) { return c < -1 ? -1 : c > 1 ? 1 : c; }
static rq weigh(rq c, double w)
{
    if (c.w < 0)
        c = rq_neg(c);
    if (w <= 0)
        return rq_identity();
    if (w >= 1)
        return c;
    rq l = rq_add(rq_scale(rq_identity(), 1 - w), rq_scale(c, w));
    return rq_normalize(l);
}
/* the rotation about the unit k taking a's direction onto b's (a, b
 * perpendicular to k) */
static rq about(rv3 a, rv3 b, rv3 k)
{
    double ang = atan2(rv3_dot(rv3_cross(a, b), k), rv3_dot(a, b));
    return axis_angle(k, ang);
}

/* two-bone IK of pose p in double: the corrections (start, mid) */
static int ref_two_bone(const sk *s, size_t p, size_t js, size_t jm, size_t je, rv3 axis_l,
                        rv3 target, rv3 pole, double w, double soften, rq *cs, rq *cm)
{
    size_t b = p * s->J;
    rq Rs = s->mr[b + js], Rm = s->mr[b + jm];
    rv3 ps = s->mt[b + js], pm = s->mt[b + jm], pe = s->mt[b + je];
    rv3 u = rv3_sub(pm, ps), v = rv3_sub(pe, pm), d = rv3_sub(pe, ps), t = rv3_sub(target, ps);
    double a = rv3_norm(u), bl = rv3_norm(v), l = rv3_norm(t);
    double chain = a + bl, da = chain * fmin(fmax(soften, 0), 1), ds = chain - da;
    int reached = !(l > da) && l >= fabs(a - bl) && w >= 1;
    if (l > da && ds > 0) {
        double x = (l - da) / ds, ls = da + ds - ds * pow(3 / (x + 3), 4);
        t = rv3_scale(t, ls / l);
        l = ls;
    }
    rv3 axis = rq_rot(Rm, axis_l);
    double diff = 0;
    if (a > 0 && bl > 0) {
        double cc = clamp1((a * a + bl * bl - l * l) / (2 * a * bl));
        double ci = clamp1((a * a + bl * bl - rv3_dot(d, d)) / (2 * a * bl));
        double ti = acos(ci);
        if (rv3_dot(rv3_cross(u, axis), v) < 0)
            ti = -ti;
        diff = acos(cc) - ti;
    }
    *cm = axis_angle(axis_l, diff);
    rv3 d2 = rv3_add(u, rq_rot(axis_angle(axis, diff), v));
    rq q1 = from_vectors(d2, t);
    rq qs = q1;
    rv3 nref = rv3_cross(t, pole);
    if (l > 0 && rv3_norm(nref) > 1e-6 * l * rv3_norm(pole))
        qs = rq_mul(about(rq_rot(q1, axis), nref, unit(t)), q1);
    *cs = rq_mul(rq_mul(rq_conj(Rs), qs), Rs);
    *cs = weigh(*cs, w);
    *cm = weigh(*cm, w);
    return reached;
}

static double qang(rq a, rq b) { return rq_angle_between(a, b); }

/* the float output of joint e as a double quaternion */
static rq outq(float *const o[4], size_t e) { return rq_make(o[0][e], o[1][e], o[2][e], o[3][e]); }

typedef struct {
    float *o[4];
} outs;
static outs outs_new(const sk *s)
{
    outs r;
    size_t n = s->P * s->J;
    for (int k = 0; k < 4; k++) {
        r.o[k] = malloc(n * sizeof(float));
        memcpy(r.o[k], s->f[7 + k], n * sizeof(float));
    }
    return r;
}
static void outs_free(outs *r)
{
    for (int k = 0; k < 4; k++)
        free(r->o[k]);
}
static pb_quats outs_q(outs *r)
{
    pb_quats q = {r->o[0], r->o[1], r->o[2], r->o[3]};
    return q;
}

/* The model pose from out (double FK of the corrected local rotations) */
static void fk_out(const sk *s, const outs *o, rq *mr, rv3 *mt)
{
    size_t n = s->P * s->J;
    rq *lr = malloc(n * sizeof(rq));
    for (size_t i = 0; i < n; i++) /* as rotations (unit to 1e-6: checked) */
        lr[i] = rq_normalize(outq(o->o, i));
    fk(s, lr, mr, mt);
    free(lr);
}

/* ------------------------------------------------------------ two-bone */

typedef enum { T_REACH, T_FAR, T_SOFT, T_WEIGHT } tkind;

/* P poses of the limb with targets of the kind, the bend axis the current
 * bend (either sign), solved and checked */
static void two_bone_case(uint64_t seed, size_t P, tkind kind)
{
    rng_t r = rng_seed(seed);
    sk s = limb_new(&r, P);
    per q = per_new(P);
    const float axis[3] = {0, 0, 1}; /* the hinge (limb_new) */
    rv3 axis_l = unit(rv3_make(axis[0], axis[1], axis[2]));
    double lens[3]; /* a, b, l of each pose */
    for (size_t p = 0; p < P; p++) {
        size_t b = p * s.J;
        double a = rv3_dist(s.mt[b + 2], s.mt[b + 1]), bl = rv3_dist(s.mt[b + 3], s.mt[b + 2]);
        double l = a + bl, lo = fabs(a - bl) + 1e-3 * l, hi = (1 - 1e-3) * l;
        double dist = kind == T_FAR ? rng_range(&r, 1.01, 3.0) * l : rng_range(&r, lo, hi);
        rv3 t = rv3_add(s.mt[b + 1], rv3_scale(rng_unit3(&r), dist));
        per_set(&q, p, t, rng_vec3(&r, 10.0));
        q.w[p] = kind == T_WEIGHT ? (float)rng_range(&r, -0.2, 1.2) : 1.0f;
        q.soft[p] = kind == T_SOFT ? (float)rng_range(&r, 0.5, 1.0) : 1.0f;
        lens[0] = a, lens[1] = bl, lens[2] = l;
    }
    (void)lens;
    pb_ik_two_bone ik = {1,
                         2,
                         3,
                         {axis[0], axis[1], axis[2]},
                         {q.t[0], q.t[1], q.t[2]},
                         {q.pl[0], q.pl[1], q.pl[2]},
                         q.w,
                         q.soft};
    outs o = outs_new(&s);
    uint8_t *reached = malloc(P);
    pb_cpose m = model_of(&s);
    cr_assert_eq(pb_ik_two_bone_solve(P, s.J, &ik, &m, local_of(&s), outs_q(&o), reached), PB_OK);

    size_t n = P * s.J;
    rq *mr = malloc(n * sizeof(rq));
    rv3 *mt = malloc(n * sizeof(rv3));
    fk_out(&s, &o, mr, mt);
    double worst_end = 0, worst_plane = 0, worst_ref = 0;
    for (size_t p = 0; p < P; p++) {
        size_t b = p * s.J;
        rv3 t = per_t(&q, p), pole = per_pole(&q, p);
        /* untouched joints */
        for (size_t j = 0; j < s.J; j++)
            if (j != 1 && j != 2)
                for (int k = 0; k < 4; k++)
                    cr_assert(memcmp(&o.o[k][b + j], &s.f[7 + k][b + j], sizeof(float)) == 0);
        /* against the double solve */
        rq cs, cm;
        int rr = ref_two_bone(&s, p, 1, 2, 3, axis_l, t, pole, q.w[p], q.soft[p], &cs, &cm);
        cr_assert_eq(reached[p], rr, "pose %zu reached %d, reference %d", p, reached[p], rr);
        rq ws = rq_mul(s.lr[b + 1], cs), wm = rq_mul(s.lr[b + 2], cm);
        double e1 = qang(outq(o.o, b + 1), ws), e2 = qang(outq(o.o, b + 2), wm);
        worst_ref = fmax(worst_ref, fmax(e1, e2));
        cr_assert(fabs(rq_norm(outq(o.o, b + 1)) - 1) < 1e-6);
        cr_assert(fabs(rq_norm(outq(o.o, b + 2)) - 1) < 1e-6);
        /* bone lengths: the corrected pose's */
        double a = rv3_norm(s.lt[b + 2]), bl = rv3_norm(s.lt[b + 3]);
        double l = a + bl;
        cr_assert(fabs(rv3_dist(mt[b + 2], mt[b + 1]) - a) <= 1e-9 * l);
        cr_assert(fabs(rv3_dist(mt[b + 3], mt[b + 2]) - bl) <= 1e-9 * l);
        if (kind == T_REACH || kind == T_FAR) {
            rv3 goal = t;
            if (kind == T_FAR) /* straight, pointing at it */
                goal = rv3_add(mt[b + 1], rv3_scale(unit(rv3_sub(t, mt[b + 1])), l));
            double e = rv3_dist(mt[b + 3], goal) / l;
            worst_end = fmax(worst_end, e);
            cr_assert(e <= 1e-5, "pose %zu: end %.3g x l from the target", p, e);
            /* the bend plane: the axis along (t - p_s) x pole */
            rv3 nref = rv3_cross(rv3_sub(t, mt[b + 1]), pole);
            rv3 dir = unit(rv3_sub(t, mt[b + 1]));
            double sinp = rv3_norm(rv3_cross(dir, unit(pole)));
            if (kind == T_REACH && sinp > 0.1) {
                rv3 ax = rq_rot(mr[b + 2], axis_l);
                double ang = acos(clamp1(rv3_dot(ax, unit(nref))));
                worst_plane = fmax(worst_plane, ang);
                cr_assert(ang <= 1e-4, "pose %zu: bend axis %.3g rad off the pole plane", p, ang);
            }
        }
    }
    /* the double solve: reachable and unreachable targets are the same
     * rotations to 1e-4 rad (float inputs of both) */
    cr_assert(worst_ref <= 1e-4, "rotations %.3g rad from the double solve", worst_ref);
    free(mr), free(mt), free(reached);
    outs_free(&o), per_free(&q), sk_free(&s);
}

Test(ik_two_bone, reachable)
{
    size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64, 100};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        two_bone_case(100 + i, sizes[i], T_REACH);
}
Test(ik_two_bone, unreachable_straight) { two_bone_case(7, 67, T_FAR); }
Test(ik_two_bone, soften) { two_bone_case(8, 67, T_SOFT); }
Test(ik_two_bone, weight) { two_bone_case(9, 67, T_WEIGHT); }

/* weight 0: the local rotations come back bit for bit, reached 0 */
Test(ik_two_bone, weight_zero_identity)
{
    rng_t r = rng_seed(3);
    sk s = limb_new(&r, 5);
    per q = per_new(5);
    for (size_t p = 0; p < 5; p++)
        per_set(&q, p, rng_vec3(&r, 30), rng_vec3(&r, 5)), q.w[p] = 0;
    pb_ik_two_bone ik = {
        1, 2, 3, {0, 0, 1}, {q.t[0], q.t[1], q.t[2]}, {q.pl[0], q.pl[1], q.pl[2]}, q.w, NULL};
    outs o = outs_new(&s);
    uint8_t re[5];
    memset(re, 7, sizeof re);
    pb_cpose m = model_of(&s);
    cr_assert_eq(pb_ik_two_bone_solve(5, s.J, &ik, &m, local_of(&s), outs_q(&o), re), PB_OK);
    for (size_t i = 0; i < 5 * s.J; i++)
        for (int k = 0; k < 4; k++)
            cr_assert_eq(o.o[k][i], s.f[7 + k][i]);
    for (int p = 0; p < 5; p++)
        cr_assert_eq(re[p], 0);
    outs_free(&o), per_free(&q), sk_free(&s);
}

/* in place: out the local arrays themselves gives the same bits */
Test(ik_two_bone, in_place)
{
    rng_t r = rng_seed(4);
    sk s = limb_new(&r, 19);
    per q = per_new(19);
    for (size_t p = 0; p < 19; p++)
        per_set(&q, p, rng_vec3(&r, 30), rng_vec3(&r, 5)), q.w[p] = 1;
    pb_ik_two_bone ik = {
        1, 2, 3, {0, 0, 1}, {q.t[0], q.t[1], q.t[2]}, {q.pl[0], q.pl[1], q.pl[2]}, NULL, NULL};
    outs o = outs_new(&s);
    pb_cpose m = model_of(&s);
    cr_assert_eq(pb_ik_two_bone_solve(19, s.J, &ik, &m, local_of(&s), outs_q(&o), NULL), PB_OK);
    pb_quats inplace = {s.f[7], s.f[8], s.f[9], s.f[10]};
    cr_assert_eq(pb_ik_two_bone_solve(19, s.J, &ik, &m, local_of(&s), inplace, NULL), PB_OK);
    for (int k = 0; k < 4; k++)
        cr_assert(memcmp(o.o[k], s.f[7 + k], 19 * s.J * sizeof(float)) == 0);
    outs_free(&o), per_free(&q), sk_free(&s);
}

/* The arrays of a call in one buffer, the inputs in the gaps between the
 * rotation outputs (w last, after them): valid, the same bits as apart;
 * an input reaching into an output, or an output into another: refused,
 * nothing written. P poses (1: the one-pose path; 5: the batch one). */
static void gaps_case(size_t P)
{
    rng_t r = rng_seed(60 + P);
    sk s = limb_new(&r, P);
    per q = per_new(P);
    for (size_t p = 0; p < P; p++)
        per_set(&q, p, rng_vec3(&r, 30), rng_vec3(&r, 5)), q.w[p] = 1;
    const size_t n = P * s.J;
    /* out x y z | model (7 arrays) | targets, poles | local (4) | out w */
    float *buf = malloc((3 * n + 7 * n + 6 * P + 4 * n + n) * sizeof(float));
    float *o[4] = {buf + 14 * n + 6 * P, buf, buf + n, buf + 2 * n};
    float *m[7], *tp[6], *lq[4];
    for (int k = 0; k < 7; k++)
        m[k] = buf + 3 * n + (size_t)k * n, memcpy(m[k], s.f[k], n * sizeof(float));
    for (int k = 0; k < 6; k++)
        tp[k] = buf + 10 * n + (size_t)k * P, memcpy(tp[k], k < 3 ? q.t[k] : q.pl[k - 3], P * 4);
    for (int k = 0; k < 4; k++) {
        lq[k] = buf + 10 * n + 6 * P + (size_t)k * n;
        memcpy(lq[k], s.f[7 + k], n * sizeof(float));
        memcpy(o[k], s.f[7 + k], n * sizeof(float));
    }
    pb_cpose mg = {{m[0], m[1], m[2], m[3]}, {m[4], m[5], m[6]}, {0, 0, 0}};
    pb_cquats lg = {lq[0], lq[1], lq[2], lq[3]};
    pb_quats og = {o[0], o[1], o[2], o[3]};
    pb_ik_two_bone ik = {1,    2,   3, {0, 0, 1}, {tp[0], tp[1], tp[2]}, {tp[3], tp[4], tp[5]},
                         NULL, NULL};
    cr_assert_eq(pb_ik_two_bone_solve(P, s.J, &ik, &mg, lg, og, NULL), PB_OK);
    /* apart: the same bits */
    pb_ik_two_bone ika = {
        1, 2, 3, {0, 0, 1}, {q.t[0], q.t[1], q.t[2]}, {q.pl[0], q.pl[1], q.pl[2]}, NULL, NULL};
    outs oa = outs_new(&s);
    pb_cpose ma = model_of(&s);
    cr_assert_eq(pb_ik_two_bone_solve(P, s.J, &ika, &ma, local_of(&s), outs_q(&oa), NULL), PB_OK);
    for (int k = 0; k < 4; k++)
        cr_assert(memcmp(o[k], oa.o[k], n * sizeof(float)) == 0, "P %zu: %d", P, k);
    /* in place in the gaps: the same bits again */
    pb_quats lo = {lq[0], lq[1], lq[2], lq[3]};
    cr_assert_eq(pb_ik_two_bone_solve(P, s.J, &ik, &mg, lg, lo, NULL), PB_OK);
    for (int k = 0; k < 4; k++)
        cr_assert(memcmp(lq[k], oa.o[k], n * sizeof(float)) == 0);
    float *keep = malloc(4 * n * sizeof(float));
    for (int k = 0; k < 4; k++)
        memcpy(keep + (size_t)k * n, o[k], n * sizeof(float));
    /* a pole array one float into out.z (it follows out.z's end) */
    pb_ik_two_bone bad = ik;
    bad.pole.y = o[3] + n - 1;
    cr_assert_eq(pb_ik_two_bone_solve(P, s.J, &bad, &mg, lg, og, NULL), PB_ERR_ALIAS);
    /* the local rotations' last array reaching into out.w */
    pb_cquats lb = {lq[0], lq[1], lq[2], lq[3] + 1};
    cr_assert_eq(pb_ik_two_bone_solve(P, s.J, &ik, &mg, lb, og, NULL), PB_ERR_ALIAS);
    /* out.y overlapping out.x; reached over a target */
    pb_quats ob = {o[0], o[1], o[1] + 1, o[3]};
    cr_assert_eq(pb_ik_two_bone_solve(P, s.J, &ik, &mg, lg, ob, NULL), PB_ERR_ALIAS);
    cr_assert_eq(pb_ik_two_bone_solve(P, s.J, &ik, &mg, lg, og, (uint8_t *)tp[1]), PB_ERR_ALIAS);
    /* a NULL input in the gap layout */
    bad = ik, bad.target.z = NULL;
    cr_assert_eq(pb_ik_two_bone_solve(P, s.J, &bad, &mg, lg, og, NULL), PB_ERR_NULL);
    for (int k = 0; k < 4; k++)
        cr_assert(memcmp(keep + (size_t)k * n, o[k], n * sizeof(float)) == 0);
    /* aim: its chain inside out.y refused, beside the outputs fine */
    size_t *chain = malloc(sizeof(size_t));
    chain[0] = 2;
    pb_ik_aim aim = {
        1, chain, NULL, {0, 1, 0}, {0, 0, 1}, {tp[0], tp[1], tp[2]}, {tp[3], tp[4], tp[5]}, NULL};
    cr_assert_eq(pb_ik_aim_solve(P, s.J, &aim, &mg, lg, og), PB_OK);
    aim.chain = (const size_t *)(const void *)(o[1] + 2);
    cr_assert_eq(pb_ik_aim_solve(P, s.J, &aim, &mg, lg, og), PB_ERR_ALIAS);
    free(chain), free(keep), free(buf);
    outs_free(&oa), per_free(&q), sk_free(&s);
}
Test(ik_two_bone, arrays_in_gaps)
{
    gaps_case(1);
    gaps_case(5);
}

/* Degenerate limbs, one pose each: no NaN, the documented results. */
static void degenerate(int which)
{
    rng_t r = rng_seed(50 + (uint64_t)which);
    sk s = limb_new(&r, 1);
    rv3 ps = s.mt[1], pm = s.mt[2];
    double a0 = rv3_norm(s.lt[2]), b0 = rv3_norm(s.lt[3]);
    rv3 t = rv3_add(ps, rv3_scale(unit(rv3_make(3, 4, 5)), 0.5 * (fabs(a0 - b0) + a0 + b0)));
    rv3 pole = rv3_make(0, 1, 0);
    if (which == 0) /* target on the start joint */
        t = ps;
    if (which == 1) { /* zero-length lower bone: end joint on the middle one */
        s.lt[3] = rv3_make(0, 0, 0);
        fk(&s, s.lr, s.mr, s.mt);
        to_float(&s);
    }
    if (which == 2) /* pole along the target direction */
        pole = rv3_scale(rv3_sub(t, ps), 2.0);
    if (which == 3) /* the limb pointing exactly away: target through the start */
        t = rv3_sub(ps, rv3_sub(s.mt[3], ps));
    if (which == 4) /* zero pole */
        pole = rv3_make(0, 0, 0);
    (void)pm;
    per q = per_new(1);
    per_set(&q, 0, t, pole);
    pb_ik_two_bone ik = {
        1, 2, 3, {0, 0, 1}, {q.t[0], q.t[1], q.t[2]}, {q.pl[0], q.pl[1], q.pl[2]}, NULL, NULL};
    outs o = outs_new(&s);
    uint8_t re = 9;
    pb_cpose m = model_of(&s);
    cr_assert_eq(pb_ik_two_bone_solve(1, s.J, &ik, &m, local_of(&s), outs_q(&o), &re), PB_OK);
    for (int k = 0; k < 4; k++)
        cr_assert(isfinite(o.o[k][1]) && isfinite(o.o[k][2]), "case %d: NaN", which);
    rq mr[6];
    rv3 mt[6];
    fk_out(&s, &o, mr, mt);
    double a = rv3_dist(s.mt[2], s.mt[1]), bl = rv3_dist(s.mt[3], s.mt[2]), l = a + bl;
    rv3 tt = per_t(&q, 0);
    if (which == 0) { /* folded: |a - b| from the start, start not turned */
        cr_assert(fabs(rv3_dist(mt[3], mt[1]) - fabs(a - bl)) <= 1e-5 * l);
        cr_assert(qang(outq(o.o, 1), s.lr[1]) <= 1e-6);
        cr_assert_eq(re, fabs(a - bl) == 0.0);
    } else if (which == 1) { /* mid not turned, end on the target's ray */
        cr_assert(qang(outq(o.o, 2), s.lr[2]) <= 1e-6);
        rv3 dir = unit(rv3_sub(tt, mt[1]));
        cr_assert(rv3_dist(mt[3], rv3_add(mt[1], rv3_scale(dir, a))) <= 1e-5 * l);
    } else { /* reached */
        cr_assert(rv3_dist(mt[3], tt) <= 1e-5 * l, "case %d: end %.3g from the target", which,
                  rv3_dist(mt[3], tt));
        cr_assert_eq(re, 1);
    }
    outs_free(&o), per_free(&q), sk_free(&s);
}
Test(ik_two_bone, degenerate)
{
    for (int w = 0; w < 5; w++)
        degenerate(w);
}

Test(ik_two_bone, errors)
{
    rng_t r = rng_seed(5);
    sk s = limb_new(&r, 2);
    per q = per_new(2);
    pb_ik_two_bone ik = {
        1, 2, 3, {0, 0, 1}, {q.t[0], q.t[1], q.t[2]}, {q.pl[0], q.pl[1], q.pl[2]}, NULL, NULL};
    outs o = outs_new(&s);
    float *keep = malloc(2 * s.J * sizeof(float));
    memcpy(keep, o.o[0], 2 * s.J * sizeof(float));
    pb_cpose m = model_of(&s);
    pb_cquats l = local_of(&s);
    uint8_t re[2];
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, NULL, &m, l, outs_q(&o), re), PB_ERR_NULL);
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, &ik, NULL, l, outs_q(&o), re), PB_ERR_NULL);
    cr_assert_eq(pb_ik_two_bone_solve(0, s.J, &ik, &m, l, outs_q(&o), re), PB_ERR_SIZE);
    cr_assert_eq(pb_ik_two_bone_solve(2, 0, &ik, &m, l, outs_q(&o), re), PB_ERR_SIZE);
    pb_ik_two_bone bad = ik;
    bad.end = s.J;
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, &bad, &m, l, outs_q(&o), re), PB_ERR_ARG);
    bad = ik, bad.mid = 1;
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, &bad, &m, l, outs_q(&o), re), PB_ERR_ARG);
    bad = ik, bad.mid_axis[2] = 0;
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, &bad, &m, l, outs_q(&o), re), PB_ERR_ARG);
    bad = ik, bad.mid_axis[0] = NAN;
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, &bad, &m, l, outs_q(&o), re), PB_ERR_ARG);
    bad = ik, bad.target.y = NULL;
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, &bad, &m, l, outs_q(&o), re), PB_ERR_NULL);
    pb_cpose m2 = m;
    m2.pos.z = NULL;
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, &ik, &m2, l, outs_q(&o), re), PB_ERR_NULL);
    /* out over the model rotations, reached over the target */
    pb_quats over = {(float *)m.rot.w, o.o[1], o.o[2], o.o[3]};
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, &ik, &m, l, over, re), PB_ERR_ALIAS);
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, &ik, &m, l, outs_q(&o), (uint8_t *)q.t[0]),
                 PB_ERR_ALIAS);
    cr_assert_eq(pb_ik_two_bone_solve(2, s.J, &ik, &m, l, outs_q(&o), (uint8_t *)o.o[1] + 3),
                 PB_ERR_ALIAS);
    cr_assert(memcmp(keep, o.o[0], 2 * s.J * sizeof(float)) == 0);
    free(keep);
    outs_free(&o), per_free(&q), sk_free(&s);
}

/* ------------------------------------------------------------ aim */

/* a chain 0 -> 1 -> 2 -> 3 -> 4 -> 5 (a spine), aimed with joints chain[] */
static sk spine_new(rng_t *r, size_t P)
{
    sk s;
    memset(&s, 0, sizeof s);
    s.P = P, s.J = 6;
    for (int j = 0; j < 6; j++)
        s.par[j] = j - 1;
    size_t n = P * s.J;
    s.lr = malloc(n * sizeof(rq)), s.lt = malloc(n * sizeof(rv3));
    s.mr = malloc(n * sizeof(rq)), s.mt = malloc(n * sizeof(rv3));
    for (size_t i = 0; i < n; i++) {
        s.lr[i] = rng_quat_near(r, rq_identity(), 0.6);
        s.lt[i] = rv3_add(rv3_make(0, 10, 0), rng_vec3(r, 3.0));
    }
    fk(&s, s.lr, s.mr, s.mt);
    to_float(&s);
    return s;
}

/* the chain in double: corrections applied to a copy of the local pose
 * and FK redone after each joint */
static void ref_aim(sk *s, size_t p, const size_t *chain, size_t count, const float *jw, rv3 fwd,
                    rv3 up, rv3 target, rv3 pole, double w, rq *lr, rq *mr, rv3 *mt)
{
    size_t b = p * s->J;
    for (size_t i = 0; i < count; i++) {
        fk(s, lr, mr, mt);
        size_t e = b + chain[i];
        rq R = mr[e];
        rv3 t = rv3_sub(target, mt[e]);
        if (rv3_norm(t) == 0)
            continue;
        rq q1 = from_vectors(rq_rot(R, fwd), t);
        rv3 upc = rq_rot(q1, rq_rot(R, up));
        rv3 nj = rv3_cross(upc, t), nr = rv3_cross(pole, t);
        rq M = q1;
        if (rv3_norm(nr) > 1e-6 * rv3_norm(t) * rv3_norm(pole) && rv3_norm(nj) > 0)
            M = rq_mul(about(nj, nr, unit(t)), q1);
        rq c = rq_mul(rq_mul(rq_conj(R), M), R);
        c = weigh(c, w * (jw ? jw[i] : 1.0));
        lr[e] = rq_mul(lr[e], c);
    }
    fk(s, lr, mr, mt);
}

static void aim_case(uint64_t seed, size_t P, size_t count)
{
    rng_t r = rng_seed(seed);
    sk s = spine_new(&r, P);
    per q = per_new(P);
    const size_t chains[4] = {2, 3, 4, 5};
    const size_t *chain = chains + (4 - count);
    float jw[4] = {0.3f, 0.5f, 0.7f, 1.0f};
    const float *jwp = count > 1 ? jw + (4 - count) : NULL;
    rv3 fwd = unit(rv3_make(0.2, 1, 0.1)), up = unit(rv3_make(0, 0, 1));
    for (size_t p = 0; p < P; p++) {
        /* one joint: 5 to 100 away; a chain (about 60 long, its last
         * joint moving with the others): 10 to 20 lengths */
        double lo = count == 1 ? 5 : 600, hi = count == 1 ? 100 : 1200;
        rv3 t = rv3_add(s.mt[p * s.J + 5], rv3_scale(rng_unit3(&r), rng_range(&r, lo, hi)));
        per_set(&q, p, t, rv3_add(rv3_make(0, 1, 0), rng_vec3(&r, 0.5)));
        q.w[p] = 1.0f;
    }
    pb_ik_aim ik = {count,
                    chain,
                    jwp,
                    {(float)fwd.x, (float)fwd.y, (float)fwd.z},
                    {(float)up.x, (float)up.y, (float)up.z},
                    {q.t[0], q.t[1], q.t[2]},
                    {q.pl[0], q.pl[1], q.pl[2]},
                    NULL};
    fwd = unit(rv3_make(ik.forward[0], ik.forward[1], ik.forward[2]));
    up = unit(rv3_make(ik.up[0], ik.up[1], ik.up[2]));
    outs o = outs_new(&s);
    pb_cpose m = model_of(&s);
    cr_assert_eq(pb_ik_aim_solve(P, s.J, &ik, &m, local_of(&s), outs_q(&o)), PB_OK);
    size_t n = P * s.J;
    rq *mr = malloc(n * sizeof(rq)), *lr = malloc(n * sizeof(rq)), *rmr = malloc(n * sizeof(rq));
    rv3 *mt = malloc(n * sizeof(rv3)), *rmt = malloc(n * sizeof(rv3));
    fk_out(&s, &o, mr, mt);
    memcpy(lr, s.lr, n * sizeof(rq));
    double worst = 0, worst_ref = 0;
    for (size_t p = 0; p < P; p++) {
        size_t e = p * s.J + chain[count - 1];
        rv3 t = per_t(&q, p), pole = per_pole(&q, p);
        /* the last joint (weight 1) aimed */
        rv3 f = rq_rot(mr[e], fwd), d = unit(rv3_sub(t, mt[e]));
        double ang = acos(clamp1(rv3_dot(f, d)));
        worst = fmax(worst, ang);
        cr_assert(ang <= 1e-5, "pose %zu: aim error %.3g rad", p, ang);
        /* its up axis in the pole plane, on the pole's side */
        rv3 nref = unit(rv3_cross(pole, d));
        rv3 u2 = rq_rot(mr[e], up);
        cr_assert(fabs(rv3_dot(u2, nref)) <= 1e-4, "pose %zu: up %.3g off the plane", p,
                  rv3_dot(u2, nref));
        cr_assert(rv3_dot(u2, rv3_sub(pole, rv3_scale(d, rv3_dot(pole, d)))) > 0);
        ref_aim(&s, p, chain, count, jwp, fwd, up, t, pole, q.w[p], lr, rmr, rmt);
        for (size_t i = 0; i < count; i++) {
            size_t ej = p * s.J + chain[i];
            worst_ref = fmax(worst_ref, qang(outq(o.o, ej), lr[ej]));
        }
    }
    cr_assert(worst_ref <= 1e-4, "rotations %.3g rad from the double solve", worst_ref);
    free(mr), free(lr), free(rmr), free(mt), free(rmt);
    outs_free(&o), per_free(&q), sk_free(&s);
}

Test(ik_aim, one_joint)
{
    size_t sizes[] = {1, 3, 4, 5, 8, 9, 16, 17, 64};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        aim_case(200 + i, sizes[i], 1);
}
Test(ik_aim, chain)
{
    aim_case(300, 1, 3);
    aim_case(301, 37, 4);
    aim_case(302, 16, 2);
}

Test(ik_aim, errors)
{
    rng_t r = rng_seed(6);
    sk s = spine_new(&r, 2);
    per q = per_new(2);
    size_t chain[2] = {3, 4};
    pb_ik_aim ik = {2,
                    chain,
                    NULL,
                    {0, 1, 0},
                    {0, 0, 1},
                    {q.t[0], q.t[1], q.t[2]},
                    {q.pl[0], q.pl[1], q.pl[2]},
                    NULL};
    outs o = outs_new(&s);
    pb_cpose m = model_of(&s);
    pb_cquats l = local_of(&s);
    cr_assert_eq(pb_ik_aim_solve(2, s.J, NULL, &m, l, outs_q(&o)), PB_ERR_NULL);
    pb_ik_aim bad = ik;
    bad.count = 0;
    cr_assert_eq(pb_ik_aim_solve(2, s.J, &bad, &m, l, outs_q(&o)), PB_ERR_SIZE);
    bad = ik, bad.chain = NULL;
    cr_assert_eq(pb_ik_aim_solve(2, s.J, &bad, &m, l, outs_q(&o)), PB_ERR_NULL);
    size_t far[2] = {3, 6};
    bad = ik, bad.chain = far;
    cr_assert_eq(pb_ik_aim_solve(2, s.J, &bad, &m, l, outs_q(&o)), PB_ERR_ARG);
    bad = ik, bad.up[0] = 0, bad.up[1] = 2, bad.up[2] = 0; /* parallel to forward */
    cr_assert_eq(pb_ik_aim_solve(2, s.J, &bad, &m, l, outs_q(&o)), PB_ERR_ARG);
    bad = ik, bad.forward[1] = 0;
    cr_assert_eq(pb_ik_aim_solve(2, s.J, &bad, &m, l, outs_q(&o)), PB_ERR_ARG);
    bad = ik, bad.chain = (const size_t *)(const void *)o.o[2];
    cr_assert_eq(pb_ik_aim_solve(2, s.J, &bad, &m, l, outs_q(&o)), PB_ERR_ALIAS);
    outs_free(&o), per_free(&q), sk_free(&s);
}
