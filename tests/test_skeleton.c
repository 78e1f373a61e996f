/* Skeletons: pb_pose_local_to_model and pb_pose_model_to_local on the active
 * backend (the suite runs once per backend) against the double-precision
 * composition of tests/ref_skeleton.c: random skeletons (chains up to depth
 * 200, wide trees, several roots; J = 1..1024, P = 1..67 so every partial
 * block of poses occurs), every track combination, real clips (the shared
 * mocap BVH files and data/cmu_01_03.bvh), the round trip, in place, and
 * every error status with nothing written.
 *
 * The bounds (include/posebatch.h): rotations within
 * PB_ACCURACY_ROTATION_RAD x depth, positions within PB_SK_POS_REL x
 * depth x the pose's size (max |T_j| of the reference), scales within
 * PB_SK_SCALE_REL x depth relative; the inverse within one level's bounds
 * of the float model values given. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clipdata.h"
#include "posebatch.h"
#include "posebatch/io.h"
#include "ref.h"
#include "ref_skeleton.h"

#define NT 10 /* tracks: w x y z, px py pz, sx sy sz */

/* ------------------------------------------------------------- poses */

/* P poses of J joints: 10 arrays of P*J floats (at an odd offset: unaligned),
 * n + 1 floats apart, with n + 1 floats of room before the first and after
 * the last (the aliasing tests point arrays there) */
typedef struct {
    size_t P, J, n;
    float *mem;
    float *t[NT];
} poses;

static poses poses_new(size_t P, size_t J)
{
    poses s = {P, J, P * J, NULL, {0}};
    const size_t all = (NT + 2) * (s.n + 1) + 1;
    s.mem = malloc(all * sizeof(float));
    cr_assert(s.mem);
    for (int k = 0; k < NT; k++)
        s.t[k] = s.mem + 1 + (size_t)(k + 1) * (s.n + 1);
    for (size_t i = 0; i < all; i++)
        s.mem[i] = NAN;
    return s;
}
static void poses_free(poses *s) { free(s->mem); }

/* views: pos / scl say whether the track is present */
static pb_pose view(const poses *s, int pos, int scl)
{
    pb_pose p = {{s->t[0], s->t[1], s->t[2], s->t[3]},
                 {pos ? s->t[4] : NULL, pos ? s->t[5] : NULL, pos ? s->t[6] : NULL},
                 {scl ? s->t[7] : NULL, scl ? s->t[8] : NULL, scl ? s->t[9] : NULL}};
    return p;
}
static pb_cpose cview(const poses *s, int pos, int scl)
{
    pb_pose p = view(s, pos, scl);
    pb_cpose c = {{p.rot.w, p.rot.x, p.rot.y, p.rot.z},
                  {p.pos.x, p.pos.y, p.pos.z},
                  {p.scale.x, p.scale.y, p.scale.z}};
    return c;
}
/* track k (0..9) of a pose view */
static float **track(pb_pose *p, int k)
{
    float **a[NT] = {&p->rot.w, &p->rot.x, &p->rot.y,   &p->rot.z,   &p->pos.x,
                     &p->pos.y, &p->pos.z, &p->scale.x, &p->scale.y, &p->scale.z};
    return a[k];
}
static const float **ctrack(pb_cpose *p, int k)
{
    const float **a[NT] = {&p->rot.w, &p->rot.x, &p->rot.y,   &p->rot.z,   &p->pos.x,
                           &p->pos.y, &p->pos.z, &p->scale.x, &p->scale.y, &p->scale.z};
    return a[k];
}
static ref_xf get_xf(const poses *s, size_t i, int pos, int scl)
{
    ref_xf x;
    x.r = rq_make(s->t[0][i], s->t[1][i], s->t[2][i], s->t[3][i]);
    x.t = pos ? rv3_make(s->t[4][i], s->t[5][i], s->t[6][i]) : rv3_make(0, 0, 0);
    x.s = scl ? rv3_make(s->t[7][i], s->t[8][i], s->t[9][i]) : rv3_make(1, 1, 1);
    return x;
}
static void set_xf(poses *s, size_t i, ref_xf x)
{
    const double v[NT] = {x.r.w, x.r.x, x.r.y, x.r.z, x.t.x, x.t.y, x.t.z, x.s.x, x.s.y, x.s.z};
    for (int k = 0; k < NT; k++)
        s->t[k][i] = (float)v[k];
}

/* ---------------------------------------------------------- skeletons */

enum shape { CHAIN, WIDE, ROOTS, RANDOM, SHAPES };
static const char *const shape_name[SHAPES] = {"chain", "wide", "roots", "random"};

/* parents of J joints: chains of depth up to 200 (then a new root), wide
 * (every joint a child of joint 0 or 1), several roots among random near
 * parents, and random parents anywhere before */
static void make_parents(rng_t *r, enum shape sh, size_t J, int32_t *par)
{
    for (size_t j = 0; j < J; j++) {
        int32_t p = -1;
        if (j > 0) {
            switch (sh) {
            case CHAIN: p = j % 200 == 0 ? -1 : (int32_t)j - 1; break;
            case WIDE: p = j == 1 ? 0 : (int32_t)(rng_next(r) % 2); break;
            case ROOTS:
                p = rng_uniform(r) < 0.1
                        ? -1
                        : (int32_t)j - 1 - (int32_t)(rng_next(r) % (j < 4 ? j : 4));
                break;
            default: p = (int32_t)(rng_next(r) % j); break;
            }
        }
        par[j] = p;
    }
}

/* make_parents into a fresh array of J (the caller frees it) */
static int32_t *parents_new(rng_t *r, enum shape sh, size_t J)
{
    int32_t *par = malloc(J * sizeof *par);
    cr_assert(par);
    make_parents(r, sh, J, par);
    return par;
}

/* random local poses: unit rotations of either sign, bones of length up to
 * 1, scales in [0.8, 1.25] */
static void fill_local(rng_t *r, poses *s)
{
    for (size_t i = 0; i < s->n; i++) {
        ref_xf x;
        x.r = rq_scale(rng_quat(r), rng_sign(r));
        x.t = rng_vec3(r, 0.6);
        x.s = rv3_make(rng_logrange(r, 0.8, 1.25), rng_logrange(r, 0.8, 1.25),
                       rng_logrange(r, 0.8, 1.25));
        set_xf(s, i, x);
    }
}

/* ----------------------------------------------------------- checking */

#define PB_SK_POS_REL 3e-7   /* per level, of the pose's size */
#define PB_SK_SCALE_REL 2e-7 /* per level, relative */
/* model -> local: t = R_a^-1 (T_j - T_a) / S_a, within this of
 * (|T_j| + |T_a|) / min(S_a) */
#define PB_SK_INV_POS_REL 6e-7
/* the overall bound: positions within 1e-5 of the size at every
 * depth tested here (up to 200) */
#define PB_SK_POS_SIZE_REL 1e-5

/* worst errors seen, as multiples of the per-level unit: rotation angle /
 * depth (rad), position error / (depth x size), scale relative / depth */
typedef struct {
    double rot, pos, scl, rot_abs, pos_abs;
    int depth;
} worst;
static void worst_print(const char *what, worst w)
{
    fprintf(stderr,
            "skeleton %-28s worst: rot %.3g rad/level, pos %.3g size/level, scale %.3g /level;"
            " overall rot %.3g rad, pos %.3g size (depth up to %d)\n",
            what, w.rot, w.pos, w.scl, w.rot_abs, w.pos_abs, w.depth);
}

static double rel3(rv3 got, rv3 want)
{
    double e = 0;
    e = fmax(e, fabs(got.x - want.x) / fabs(want.x));
    e = fmax(e, fabs(got.y - want.y) / fabs(want.y));
    e = fmax(e, fabs(got.z - want.z) / fabs(want.z));
    return e;
}

/* got (float, P poses) against want (double, per pose computed by the
 * caller) with per-joint levels lvl[j]; returns 0 or fails */
static void check_pose(const char *what, size_t p, size_t J, const int *lvl, const poses *got,
                       const ref_xf *want, int pos, int scl, worst *w)
{
    double size = 0;
    for (size_t j = 0; j < J; j++)
        size = fmax(size, rv3_norm(want[j].t));
    for (size_t j = 0; j < J; j++) {
        const size_t i = p * J + j;
        ref_xf g = get_xf(got, i, pos, scl);
        double d = lvl[j];
        double er = rq_angle_between(g.r, want[j].r) / d;
        w->rot = fmax(w->rot, er);
        w->rot_abs = fmax(w->rot_abs, er * d);
        w->depth = lvl[j] > w->depth ? lvl[j] : w->depth;
        cr_assert(er <= PB_ACCURACY_ROTATION_RAD,
                  "%s: pose %zu joint %zu (level %d): rotation off by %.3g rad", what, p, j, lvl[j],
                  er * d);
        if (pos) {
            double ep = rv3_dist(g.t, want[j].t) / (d * size);
            w->pos = fmax(w->pos, ep);
            w->pos_abs = fmax(w->pos_abs, ep * d);
            cr_assert(ep * d <= PB_SK_POS_SIZE_REL,
                      "%s: pose %zu joint %zu (level %d): position off by %.3g x size", what, p, j,
                      lvl[j], ep * d);
            cr_assert(ep <= PB_SK_POS_REL,
                      "%s: pose %zu joint %zu (level %d): position off by %.3g x size %.3g", what,
                      p, j, lvl[j], ep * d, size);
        }
        if (scl) {
            double es = rel3(g.s, want[j].s) / d;
            w->scl = fmax(w->scl, es);
            cr_assert(es <= PB_SK_SCALE_REL, "%s: pose %zu joint %zu: scale off by %.3g relative",
                      what, p, j, es * d);
        }
    }
}

/* conv (pb_pose_local_to_model or pb_pose_model_to_local) of src's poses
 * (tracks pos / scl) into dst (tracks pos / scl_out) */
typedef pb_status (*convert_fn)(size_t poses, size_t joints, const int32_t *parents,
                                const pb_cpose *in, const pb_pose *out);
static void convert_or_die(convert_fn conv, const char *what, const int32_t *par, const poses *src,
                           int pos, int scl, poses *dst, int scl_out)
{
    pb_cpose in = cview(src, pos, scl);
    pb_pose out = view(dst, pos, scl_out);
    cr_assert_eq(conv(src->P, src->J, par, &in, &out), PB_OK, "%s", what);
}

/* local -> model of `local` into `model` (tracks pos / scl), checked
 * against the reference; pos_out / scl_out: the output's tracks */
static void check_l2m(const char *what, const int32_t *par, const poses *local, int pos, int scl,
                      poses *model, int scl_out, worst *w)
{
    const size_t P = local->P, J = local->J;
    convert_or_die(pb_pose_local_to_model, what, par, local, pos, scl, model, scl_out);
    ref_xf *l = malloc(J * sizeof *l), *m = malloc(J * sizeof *m);
    int *depth = malloc(J * sizeof *depth);
    cr_assert(l && m && depth);
    ref_depths(J, par, depth);
    for (size_t p = 0; p < P; p++) {
        for (size_t j = 0; j < J; j++)
            l[j] = get_xf(local, p * J + j, pos, scl);
        ref_local_to_model(J, par, l, m);
        check_pose(what, p, J, depth, model, m, pos, scl_out, w);
    }
    free(l);
    free(m);
    free(depth);
}

/* model -> local of the float model values, checked against the reference
 * (one level: each joint from its own and its parent's model values) */
static void check_m2l(const char *what, const int32_t *par, const poses *model, int pos, int scl,
                      poses *local, int scl_out, worst *w)
{
    const size_t P = model->P, J = model->J;
    convert_or_die(pb_pose_model_to_local, what, par, model, pos, scl, local, scl_out);
    ref_xf *l = malloc(J * sizeof *l), *m = malloc(J * sizeof *m);
    cr_assert(l && m);
    for (size_t p = 0; p < P; p++) {
        for (size_t j = 0; j < J; j++)
            m[j] = get_xf(model, p * J + j, pos, scl);
        ref_model_to_local(J, par, m, l);
        for (size_t j = 0; j < J; j++) {
            const size_t i = p * J + j;
            ref_xf g = get_xf(local, i, pos, scl_out);
            double er = rq_angle_between(g.r, l[j].r);
            w->rot = fmax(w->rot, er);
            w->rot_abs = w->rot; /* one level */
            w->depth = 1;
            cr_assert(er <= PB_ACCURACY_ROTATION_RAD,
                      "%s: pose %zu joint %zu: rotation off by %.3g", what, p, j, er);
            double smin = 1, span = rv3_norm(m[j].t);
            if (par[j] >= 0 && scl)
                smin = fmin(m[par[j]].s.x, fmin(m[par[j]].s.y, m[par[j]].s.z));
            if (par[j] >= 0)
                span += rv3_norm(m[par[j]].t);
            if (pos) {
                double d = rv3_dist(g.t, l[j].t), ep = d == 0 ? 0 : d * smin / span;
                w->pos = fmax(w->pos, ep);
                w->pos_abs = w->pos;
                cr_assert(ep <= PB_SK_INV_POS_REL,
                          "%s: pose %zu joint %zu: position off by %.3g x (|T_j| + |T_a|) / S_a",
                          what, p, j, ep);
            }
            if (scl_out) {
                double es = rel3(g.s, l[j].s);
                w->scl = fmax(w->scl, es);
                cr_assert(es <= PB_SK_SCALE_REL, "%s: pose %zu joint %zu: scale off by %.3g", what,
                          p, j, es);
            }
        }
    }
    free(l);
    free(m);
}

static int same_bits(const poses *a, const poses *b, int k)
{
    return memcmp(a->t[k], b->t[k], a->n * sizeof(float)) == 0;
}

/* whether track k is an output of a call with these tracks */
static int written(int k, int pos, int scl) { return k < 4 || (k < 7 ? pos : scl); }

/* --------------------------------------------------------------- tests */

/* every shape, J around the lane widths and up to 1024, every P 1..67 for
 * the small J; all four track combinations; against the reference */
Test(skeleton, local_to_model_random, .timeout = 300)
{
    static const size_t Js[] = {1, 2, 3, 7, 16, 31, 64, 200, 257, 1024};
    rng_t r = rng_seed(41);
    worst w = {0};
    for (int sh = 0; sh < SHAPES; sh++) {
        for (size_t ji = 0; ji < sizeof Js / sizeof Js[0]; ji++) {
            const size_t J = Js[ji];
            int32_t *par = parents_new(&r, (enum shape)sh, J);
            for (size_t P = 1; P <= 67; P += (J <= 64 ? 1 : J <= 257 ? 11 : 33)) {
                poses local = poses_new(P, J), model = poses_new(P, J);
                fill_local(&r, &local);
                char what[96];
                for (int v = 0; v < 4; v++) {
                    int pos = v & 1, scl = v >> 1;
                    snprintf(what, sizeof what, "%s J=%zu P=%zu pos=%d scale=%d", shape_name[sh], J,
                             P, pos, scl);
                    check_l2m(what, par, &local, pos, scl, &model, scl, &w);
                }
                /* scales asked for without input scales: ones */
                check_l2m("ones", par, &local, 1, 0, &model, 1, &w);
                for (size_t i = 0; i < local.n; i++)
                    cr_assert(model.t[7][i] == 1.0f && model.t[8][i] == 1.0f &&
                              model.t[9][i] == 1.0f);
                poses_free(&local);
                poses_free(&model);
            }
            free(par);
        }
    }
    worst_print("local->model random", w);
}

/* model rotations as unit as float makes them (the float results of a deep
 * chain drift from unit by up to depth ulps: the inverse's contract is for
 * rotations) */
static void unit_rotations(poses *s)
{
    for (size_t i = 0; i < s->n; i++) {
        rq q = rq_normalize(rq_make(s->t[0][i], s->t[1][i], s->t[2][i], s->t[3][i]));
        s->t[0][i] = (float)q.w;
        s->t[1][i] = (float)q.x;
        s->t[2][i] = (float)q.y;
        s->t[3][i] = (float)q.z;
    }
}

/* model -> local of model poses (the float results of local -> model,
 * rotations made unit) */
Test(skeleton, model_to_local_random, .timeout = 300)
{
    static const size_t Js[] = {1, 5, 31, 200, 1024};
    rng_t r = rng_seed(43);
    worst w = {0}, wf = {0};
    for (int sh = 0; sh < SHAPES; sh++) {
        for (size_t ji = 0; ji < sizeof Js / sizeof Js[0]; ji++) {
            const size_t J = Js[ji];
            int32_t *par = parents_new(&r, (enum shape)sh, J);
            for (size_t P = 1; P <= 67; P += (J <= 31 ? 1 : 13)) {
                poses local = poses_new(P, J), model = poses_new(P, J), back = poses_new(P, J);
                fill_local(&r, &local);
                for (int v = 0; v < 4; v++) {
                    int pos = v & 1, scl = v >> 1;
                    char what[96];
                    snprintf(what, sizeof what, "%s J=%zu P=%zu pos=%d scale=%d", shape_name[sh], J,
                             P, pos, scl);
                    check_l2m(what, par, &local, pos, scl, &model, scl, &wf);
                    unit_rotations(&model);
                    check_m2l(what, par, &model, pos, scl, &back, scl, &w);
                }
                poses_free(&local);
                poses_free(&model);
                poses_free(&back);
            }
            free(par);
        }
    }
    worst_print("model->local random", w);
}

/* local -> model -> local gives the local pose back: rotations within two
 * levels' bound per depth (the model values' errors, both ends), positions
 * and scales likewise */
Test(skeleton, round_trip, .timeout = 300)
{
    rng_t r = rng_seed(47);
    double wr = 0, wp = 0, ws = 0;
    for (int sh = 0; sh < SHAPES; sh++) {
        const size_t J = sh == CHAIN ? 200 : 97, P = 19;
        int32_t par[200];
        int depth[200];
        make_parents(&r, (enum shape)sh, J, par);
        ref_depths(J, par, depth);
        poses local = poses_new(P, J), model = poses_new(P, J), back = poses_new(P, J);
        fill_local(&r, &local);
        pb_cpose l = cview(&local, 1, 1), m = cview(&model, 1, 1);
        pb_pose mo = view(&model, 1, 1), bo = view(&back, 1, 1);
        cr_assert_eq(pb_pose_local_to_model(P, J, par, &l, &mo), PB_OK);
        cr_assert_eq(pb_pose_model_to_local(P, J, par, &m, &bo), PB_OK);
        for (size_t p = 0; p < P; p++) {
            double size = 0;
            for (size_t j = 0; j < J; j++)
                size = fmax(size, rv3_norm(get_xf(&model, p * J + j, 1, 1).t));
            for (size_t j = 0; j < J; j++) {
                size_t i = p * J + j;
                ref_xf a = get_xf(&local, i, 1, 1), b = get_xf(&back, i, 1, 1);
                double d = depth[j];
                double er = rq_angle_between(a.r, b.r) / d, ep = rv3_dist(a.t, b.t) / (d * size),
                       es = rel3(b.s, a.s) / d;
                wr = fmax(wr, er);
                wp = fmax(wp, ep);
                ws = fmax(ws, es);
                cr_assert(er <= 2 * PB_ACCURACY_ROTATION_RAD && ep <= 2 * PB_SK_INV_POS_REL &&
                              es <= 2 * PB_SK_SCALE_REL,
                          "%s pose %zu joint %zu: round trip off by rot %.3g pos %.3g scale %.3g",
                          shape_name[sh], p, j, er, ep, es);
            }
        }
        poses_free(&local);
        poses_free(&model);
        poses_free(&back);
    }
    fprintf(
        stderr,
        "skeleton round trip worst: rot %.3g rad/level, pos %.3g size/level, scale %.3g /level\n",
        wr, wp, ws);
}

/* in place (each output the same arrays as the input's track) gives the
 * same bits as out of place, both directions, every track combination */
Test(skeleton, in_place)
{
    rng_t r = rng_seed(53);
    static const size_t Js[] = {1, 31, 200};
    for (size_t ji = 0; ji < 3; ji++) {
        for (size_t P = 1; P <= 35; P += 2) {
            const size_t J = Js[ji];
            int32_t par[200];
            make_parents(&r, ji == 2 ? CHAIN : RANDOM, J, par);
            poses local = poses_new(P, J), model = poses_new(P, J), work = poses_new(P, J),
                  back = poses_new(P, J);
            fill_local(&r, &local);
            for (int v = 0; v < 4; v++) {
                int pos = v & 1, scl = v >> 1;
                pb_cpose l = cview(&local, pos, scl), m = cview(&model, pos, scl),
                         wc = cview(&work, pos, scl);
                pb_pose mo = view(&model, pos, scl), wo = view(&work, pos, scl),
                        bo = view(&back, pos, scl);
                cr_assert_eq(pb_pose_local_to_model(P, J, par, &l, &mo), PB_OK);
                for (int k = 0; k < NT; k++)
                    memcpy(work.t[k], local.t[k], local.n * sizeof(float));
                cr_assert_eq(pb_pose_local_to_model(P, J, par, &wc, &wo), PB_OK);
                for (int k = 0; k < NT; k++)
                    cr_assert(!written(k, pos, scl) || same_bits(&work, &model, k),
                              "local->model in place J=%zu P=%zu track %d", J, P, k);
                cr_assert_eq(pb_pose_model_to_local(P, J, par, &m, &bo), PB_OK);
                cr_assert_eq(pb_pose_model_to_local(P, J, par, &wc, &wo), PB_OK);
                for (int k = 0; k < NT; k++)
                    cr_assert(!written(k, pos, scl) || same_bits(&work, &back, k),
                              "model->local in place J=%zu P=%zu track %d", J, P, k);
            }
            poses_free(&local);
            poses_free(&model);
            poses_free(&work);
            poses_free(&back);
        }
    }
}

/* One pose a call (the runtime's call, a path of its own: fk_one / ik_one
 * in src/simd/kernels_skeleton.h) gives the bits the same pose gets among
 * others in one call (lanes over poses), both directions, every track
 * combination, shapes up to 1024 deep, P around every lane width */
Test(skeleton, one_pose_alone_same_bits, .timeout = 300)
{
    static const size_t Js[] = {1, 2, 17, 31, 100, 1024};
    rng_t r = rng_seed(59);
    for (int sh = 0; sh < SHAPES; sh++)
        for (size_t ji = 0; ji < sizeof Js / sizeof Js[0]; ji++) {
            const size_t J = Js[ji];
            int32_t *par = parents_new(&r, (enum shape)sh, J);
            for (size_t P = 2; P <= 35; P += (J <= 100 ? 1 : 11)) {
                poses local = poses_new(P, J), all = poses_new(P, J), one = poses_new(1, J),
                      back = poses_new(P, J), bone = poses_new(1, J);
                fill_local(&r, &local);
                for (int v = 0; v < 4; v++) {
                    const int pos = v & 1, scl = v >> 1;
                    pb_cpose l = cview(&local, pos, scl), m = cview(&all, pos, scl);
                    pb_pose mo = view(&all, pos, scl), bo = view(&back, pos, scl);
                    cr_assert_eq(pb_pose_local_to_model(P, J, par, &l, &mo), PB_OK);
                    cr_assert_eq(pb_pose_model_to_local(P, J, par, &m, &bo), PB_OK);
                    for (size_t p = 0; p < P; p++) {
                        /* pose p alone, from views into the P-pose arrays */
                        pb_cpose l1 = l, m1 = m;
                        pb_pose o1 = view(&one, pos, scl), b1 = view(&bone, pos, scl);
                        for (int k = 0; k < NT; k++) {
                            const float **a = ctrack(&l1, k), **b = ctrack(&m1, k);
                            if (*a)
                                *a += p * J;
                            if (*b)
                                *b += p * J;
                        }
                        cr_assert_eq(pb_pose_local_to_model(1, J, par, &l1, &o1), PB_OK);
                        cr_assert_eq(pb_pose_model_to_local(1, J, par, &m1, &b1), PB_OK);
                        for (int k = 0; k < NT; k++) {
                            if (!written(k, pos, scl))
                                continue;
                            cr_assert(memcmp(one.t[k], all.t[k] + p * J, J * sizeof(float)) == 0,
                                      "%s J=%zu: pose %zu of %zu alone, local->model track %d "
                                      "(pos %d scale %d) differs",
                                      shape_name[sh], J, p, P, k, pos, scl);
                            cr_assert(memcmp(bone.t[k], back.t[k] + p * J, J * sizeof(float)) == 0,
                                      "%s J=%zu: pose %zu of %zu alone, model->local track %d "
                                      "(pos %d scale %d) differs",
                                      shape_name[sh], J, p, P, k, pos, scl);
                        }
                    }
                }
                poses_free(&local);
                poses_free(&all);
                poses_free(&one);
                poses_free(&back);
                poses_free(&bone);
            }
            free(par);
        }
}

/* ------------------------------------------------------- real clips */

static worst clip_worst, clip_worst_m2l;
static void check_clip(const char *path, const char *name, void *ctx)
{
    (void)ctx;
    pb_bvh b;
    memset(&b, 0, sizeof b);
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(path, &b, &err), PB_IO_OK, "%s: %s", name, err.message);
    const size_t J = b.num_joints, P = b.num_frames;
    int32_t *par = malloc(J * sizeof *par);
    cr_assert(par);
    for (size_t j = 0; j < J; j++)
        par[j] = b.joints[j].parent;
    poses local = poses_new(P, J), model = poses_new(P, J), back = poses_new(P, J);
    float *const src[7] = {b.rot_w, b.rot_x, b.rot_y, b.rot_z, b.pos_x, b.pos_y, b.pos_z};
    for (int k = 0; k < 7; k++)
        memcpy(local.t[k], src[k], local.n * sizeof(float));
    char what[160];
    snprintf(what, sizeof what, "%s (%zu x %zu)", name, P, J);
    check_l2m(what, par, &local, 0, 0, &model, 0, &clip_worst);
    check_l2m(what, par, &local, 1, 0, &model, 0, &clip_worst);
    check_m2l(what, par, &model, 1, 0, &back, 0, &clip_worst_m2l);
    fprintf(stderr, "skeleton clip %-40s ok\n", what);
    poses_free(&local);
    poses_free(&model);
    poses_free(&back);
    free(par);
    pb_bvh_free(&b);
}

Test(skeleton, real_clips, .timeout = 300)
{
    check_clip(repo_clip_path("cmu_01_03.bvh"), "cmu_01_03.bvh (shipped)", NULL);
    int count = for_each_mocap_bvh(check_clip, NULL);
    worst_print("local->model clips", clip_worst);
    worst_print("model->local clips", clip_worst_m2l);
    if (count < 0)
        cr_skip_test("shared data not found at %s/mocap", data_dir());
}

/* ------------------------------------------------------------ errors */

/* every error leaves the outputs untouched: they are checked against a
 * copy after each failing call */
typedef struct {
    size_t P, J;
    int32_t par[8];
    poses in, out, keep;
} err_fix;

static void fix_init(err_fix *f)
{
    f->P = 3;
    f->J = 8;
    const int32_t par[8] = {-1, 0, 1, 2, 0, 4, -1, 6};
    memcpy(f->par, par, sizeof par);
    f->in = poses_new(3, 8);
    f->out = poses_new(3, 8);
    f->keep = poses_new(3, 8);
    rng_t r = rng_seed(59);
    fill_local(&r, &f->in);
    fill_local(&r, &f->out);
    for (int k = 0; k < NT; k++)
        memcpy(f->keep.t[k], f->out.t[k], f->out.n * sizeof(float));
}
static void fix_free(err_fix *f)
{
    poses_free(&f->in);
    poses_free(&f->out);
    poses_free(&f->keep);
}
static void expect_both(err_fix *f, size_t P, size_t J, const int32_t *par, const pb_cpose *in,
                        const pb_pose *out, pb_status want, const char *what)
{
    cr_assert_eq(pb_pose_local_to_model(P, J, par, in, out), want, "local->model %s: %s", what,
                 pb_status_str(pb_pose_local_to_model(P, J, par, in, out)));
    cr_assert_eq(pb_pose_model_to_local(P, J, par, in, out), want, "model->local %s", what);
    for (int k = 0; k < NT; k++)
        cr_assert(memcmp(f->keep.t[k], f->out.t[k], f->out.n * sizeof(float)) == 0,
                  "%s: output track %d written", what, k);
}

Test(skeleton, errors_null_and_partial_tracks)
{
    err_fix f;
    fix_init(&f);
    pb_cpose in = cview(&f.in, 1, 1);
    pb_pose out = view(&f.out, 1, 1);
    expect_both(&f, 3, 8, NULL, &in, &out, PB_ERR_NULL, "parents NULL");
    expect_both(&f, 3, 8, f.par, NULL, &out, PB_ERR_NULL, "input NULL");
    expect_both(&f, 3, 8, f.par, &in, NULL, PB_ERR_NULL, "output NULL");
    /* each array of each track missing, in and out */
    for (int k = 0; k < NT; k++) {
        pb_cpose i2 = in;
        pb_pose o2 = out;
        *ctrack(&i2, k) = NULL;
        char what[64];
        snprintf(what, sizeof what, "input array %d NULL", k);
        expect_both(&f, 3, 8, f.par, &i2, &out, PB_ERR_NULL, what);
        *track(&o2, k) = NULL;
        snprintf(what, sizeof what, "output array %d NULL", k);
        expect_both(&f, 3, 8, f.par, &in, &o2, PB_ERR_NULL, what);
    }
    /* positions asked for without input positions; input scales with no
     * output scales */
    pb_cpose nopos = cview(&f.in, 0, 1), noscl = cview(&f.in, 1, 0);
    pb_pose onoscl = view(&f.out, 1, 0), onopos = view(&f.out, 0, 1);
    expect_both(&f, 3, 8, f.par, &nopos, &out, PB_ERR_NULL, "output pos, no input pos");
    expect_both(&f, 3, 8, f.par, &in, &onoscl, PB_ERR_NULL, "input scales, no output scales");
    /* the allowed ones: fewer output positions, output scales from none */
    cr_assert_eq(pb_pose_local_to_model(3, 8, f.par, &in, &onopos), PB_OK);
    cr_assert_eq(pb_pose_local_to_model(3, 8, f.par, &noscl, &out), PB_OK);
    fix_free(&f);
}

Test(skeleton, errors_parents_and_sizes)
{
    err_fix f;
    fix_init(&f);
    pb_cpose in = cview(&f.in, 1, 1);
    pb_pose out = view(&f.out, 1, 1);
    static const int32_t bad[][2] = {{0, 0},  {3, 3},         {3, 4},        {7, 100},
                                     {5, -2}, {2, INT32_MIN}, {1, INT32_MAX}};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        int32_t par[8];
        memcpy(par, f.par, sizeof par);
        par[bad[b][0]] = bad[b][1];
        char what[64];
        snprintf(what, sizeof what, "parents[%d] = %d", bad[b][0], bad[b][1]);
        expect_both(&f, 3, 8, par, &in, &out, PB_ERR_ARG, what);
    }
    expect_both(&f, 0, 8, f.par, &in, &out, PB_ERR_SIZE, "no poses");
    expect_both(&f, 3, 0, f.par, &in, &out, PB_ERR_SIZE, "no joints");
    expect_both(&f, PB_MAX_COUNT + 1, 1, f.par, &in, &out, PB_ERR_SIZE, "poses above the limit");
    expect_both(&f, (size_t)1 << 15, (size_t)1 << 14, f.par, &in, &out, PB_ERR_SIZE,
                "poses x joints above the limit");
    expect_both(&f, SIZE_MAX / 2 + 2, 2, f.par, &in, &out, PB_ERR_SIZE, "overflowing product");
    fix_free(&f);
}

/* every overlap: each output array at offsets that meet another output
 * array, another input array, the same track's input array shifted, and
 * the parent table; exactly the same array is allowed */
Test(skeleton, errors_aliasing)
{
    err_fix f;
    fix_init(&f);
    const size_t n = f.in.n;
    /* one big buffer so every overlap lies inside it */
    float *buf = calloc(64 * n + 64, sizeof(float));
    cr_assert(buf);
    pb_cpose in = cview(&f.in, 1, 1);
    pb_pose out = view(&f.out, 1, 1);
    for (int o = 0; o < NT; o++) {
        for (int shift = -1; shift <= 1; shift += 2) {
            /* output o overlapping output p */
            for (int p = 0; p < NT; p++) {
                if (p == o)
                    continue;
                pb_pose o2 = out;
                *track(&o2, o) = *track(&out, p) + shift * (ptrdiff_t)(n - 1);
                char what[80];
                snprintf(what, sizeof what, "output %d meets output %d (%+d)", o, p, shift);
                expect_both(&f, 3, 8, f.par, &in, &o2, PB_ERR_ALIAS, what);
            }
            /* output o overlapping input p (the same track shifted too) */
            for (int p = 0; p < NT; p++) {
                pb_cpose i2 = in;
                *ctrack(&i2, p) = *track(&out, o) + shift * (ptrdiff_t)(p == o ? 1 : n - 1);
                char what[80];
                snprintf(what, sizeof what, "output %d meets input %d (%+d)", o, p, shift);
                expect_both(&f, 3, 8, f.par, &i2, &out, PB_ERR_ALIAS, what);
            }
        }
        /* the parent table inside an output array */
        {
            pb_pose o2 = out;
            *track(&o2, o) = buf;
            int32_t *par = (int32_t *)(void *)(buf + n - 1);
            memcpy(par, f.par, sizeof f.par);
            char what[80];
            snprintf(what, sizeof what, "parents inside output %d", o);
            float keep[64];
            memcpy(keep, buf, n * sizeof(float));
            cr_assert_eq(pb_pose_local_to_model(3, 8, par, &in, &o2), PB_ERR_ALIAS, "%s", what);
            cr_assert_eq(pb_pose_model_to_local(3, 8, par, &in, &o2), PB_ERR_ALIAS, "%s", what);
            cr_assert(memcmp(keep, buf, n * sizeof(float)) == 0);
            /* right after it: fine */
            par = (int32_t *)(void *)(buf + n);
            memcpy(par, f.par, sizeof f.par);
            cr_assert_eq(pb_pose_local_to_model(3, 8, par, &in, &o2), PB_OK, "%s", what);
            for (int k = 0; k < NT; k++) /* written: the new reference */
                memcpy(f.keep.t[k], f.out.t[k], n * sizeof(float));
        }
    }
    /* exactly the same arrays, every track: allowed (in place) */
    pb_cpose same = cview(&f.out, 1, 1);
    cr_assert_eq(pb_pose_local_to_model(3, 8, f.par, &same, &out), PB_OK);
    cr_assert_eq(pb_pose_model_to_local(3, 8, f.par, &same, &out), PB_OK);
    free(buf);
    fix_free(&f);
}

/* pb_bvh_three_translations: the channels' values plus the OFFSET where a
 * joint has the channel, the value (the OFFSET already) where not; in
 * place the same; overlap and NULL refused with out untouched. */
Test(skeleton, three_translations)
{
    const char *text = "HIERARCHY\nROOT R\n{\n OFFSET 1 2 3\n CHANNELS 6 Xposition Yposition "
                       "Zposition Zrotation Xrotation Yrotation\n JOINT A\n {\n  OFFSET 4 5 6\n"
                       "  CHANNELS 4 Yposition Zrotation Xrotation Yrotation\n  End Site\n  {\n"
                       "   OFFSET 0 1 0\n  }\n }\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"
                       "10 20 30 0 0 0 -7 0 0 0\n11 21 31 0 0 0 -8 0 0 0\n";
    pb_bvh b;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_memory(text, strlen(text), &b, &err), PB_IO_OK, "%s", err.message);
    float m[3][4];
    pb_vec3s out = {m[0], m[1], m[2]};
    cr_assert_eq(pb_bvh_three_translations(&b, out, &err), PB_IO_OK, "%s", err.message);
    /* frame-major, f * 2 + j: R has every channel, A only Yposition */
    const float want[3][4] = {{11, 4, 12, 4}, {22, -2, 23, -3}, {33, 6, 34, 6}};
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 4; i++)
            cr_expect_eq(m[c][i], want[c][i], "axis %d element %d: %g", c, i, m[c][i]);
    pb_vec3s self = {b.pos_x, b.pos_y, b.pos_z};
    cr_assert_eq(pb_bvh_three_translations(&b, self, &err), PB_IO_OK, "%s", err.message);
    cr_expect(memcmp(b.pos_x, m[0], sizeof m[0]) == 0 && memcmp(b.pos_y, m[1], sizeof m[1]) == 0 &&
                  memcmp(b.pos_z, m[2], sizeof m[2]) == 0,
              "in place differs");
    float keep[3][4];
    memcpy(keep, m, sizeof m);
    pb_vec3s swapped = {b.pos_y, b.pos_x, m[2]};
    cr_expect_eq(pb_bvh_three_translations(&b, swapped, &err), PB_IO_ERR_ARG);
    pb_vec3s twice = {m[0], m[0], m[2]};
    cr_expect_eq(pb_bvh_three_translations(&b, twice, &err), PB_IO_ERR_ARG);
    pb_vec3s null = {m[0], NULL, m[2]};
    cr_expect_eq(pb_bvh_three_translations(&b, null, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_three_translations(NULL, out, &err), PB_IO_ERR_ARG);
    cr_expect_eq(memcmp(keep, m, sizeof m), 0, "out written on an error");
    pb_bvh_free(&b);
}
