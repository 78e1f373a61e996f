/*
 * Tests of pb_pose_blend_layers (include/posebatch.h): joint weights,
 * relative weights, additive layers, linear or log-space scales.
 *
 * layers/matches_double_reference
 *     Every joint count 1..40 (every tail length 1..lanes-1 of every backend,
 *     as the first block and after whole blocks: AVX-512 on a CPU that
 *     splits 512-bit operations runs 1..8 with its 256-bit kernel, 17..24
 *     and 33..40 with its own tails), 64 + 7 and 150 (several chunks),
 *     methods log_ref,
 *     raw_ref, log, raw, log-space and linear scales, plain layer weights or
 *     joint weights (some joints masked out entirely: the reference pose
 *     there), 0, 1 or 2 additive layers (with joint weights; one without
 *     translations and scales), reference with or without translations and
 *     scales: rotations, translations and scales against a double
 *     evaluation of the header's formulas. Tolerances: rotations the
 *     averages' 2e-6 rad plus 4e-7 rad per additive layer (its log, exp and
 *     product); translations 1e-6 of the magnitude the float sums scale
 *     with; scales 2e-6 relative plus 1e-6 per additive layer.
 * layers/plain_weights_equal_pose_blend
 *     weights that sum to one exactly in float, no masks, no additive
 *     layers: rotations bitwise those of pb_pose_blend (raw methods need
 *     no division; log sums divided by T = 1), translations and scales
 *     within float rounding of it.
 * layers/identity_additive_changes_nothing
 *     an additive layer of identity rotations, zero translations and unit
 *     scales (any weight, any mask) leaves the blend bit for bit.
 * layers/unit_additive_scales_keep_the_blend
 *     additive scale deltas of exactly 1 leave the scales bit for bit, but
 *     for a joint whose delta is not 1 and for NaN or infinite weights (all
 *     NaN): both scale modes, masks or not, joint counts 1..40, 71, 150.
 * layers/additive_minus_one_removes_plus_one
 *     an additive layer applied with +1 and then with -1 returns the blend.
 * layers/no_joint_weights_equal_joint_weights_of_one
 *     layers without joint weights (the kernel's path for them) give the
 *     bits of joint weights all one: k 3 and 20, weight totals positive,
 *     zero, negative, infinite, NaN and tiny, every method and scale mode,
 *     0 or 1 additive layer, joint counts 1..40, 71, 150.
 * layers/unit_scales_as_any_scales
 *     blended layers whose scales all equal the reference's (or 1: the
 *     kernel's shortcut for them) give the bits of the full log-space path
 *     (taken where one joint of the chunk is an ulp off), and exactly 1
 *     without a reference scale: k 3 and 20, weights positive, mixed,
 *     infinite and NaN, with and without joint weights and masks, joint
 *     counts 1..40, 71, 150.
 * layers/scales_near_and_far_are_each_their_own
 *     log-space scales within e^0.05 to e^0.8 of the reference (blocks
 *     whose exponential skips its reduction, and blocks that mix both):
 *     within 4e-7 relative of the double reference near the reference (2e-6
 *     + 1.2e-7 L further), and each joint's bits those it gets blended
 *     alone; both log-space methods, masks or not, joint counts 1..40, 71,
 *     150.
 * layers/errors
 *     every documented error returns its code and writes nothing.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "posebatch.h"
#include "ref.h"
#include "ref_average.h"

#define LK 3   /* blended layers */
#define LA 2   /* additive layers */
#define LJ 160 /* joints allocated */

typedef struct {
    pb_quats rot[LK + LA];
    pb_vec3s pos[LK + LA], scale[LK + LA];
    float *jw[LK + LA];
    pb_quats rref;
    pb_vec3s pref, sref;
    pb_quats orot;
    pb_vec3s opos, oscl;
} layer_data;

static float *falloc(size_t n)
{
    float *p = calloc(n, sizeof(float));
    cr_assert(p);
    return p;
}

static void data_new(layer_data *d, rng_t *r)
{
    rq base = rng_quat(r);
    for (size_t i = 0; i < LK + LA; i++) {
        d->rot[i] = fq_alloc(LJ);
        d->pos[i] = fv_alloc(LJ);
        d->scale[i] = fv_alloc(LJ);
        d->jw[i] = falloc(LJ);
        for (size_t j = 0; j < LJ; j++) {
            int add = i >= LK;
            /* additive deltas: rotations within 1 rad of identity, small
             * offsets, scales near one */
            rq q = add ? rng_quat_near(r, rq_identity(), 1.0) : rng_quat_near(r, base, 1.5);
            fq_set(d->rot[i], j, rq_scale(q, rng_sign(r)));
            fv_set(d->pos[i], j, rng_vec3(r, add ? 0.5 : 3.0));
            fv_set(d->scale[i], j,
                   rv3_make(rng_logrange(r, 0.6, 1.6), rng_logrange(r, 0.6, 1.6),
                            rng_logrange(r, 0.6, 1.6)));
            /* masks: 0 on some joints, partial elsewhere; layer 0's and 1's
             * zeros overlap with layer 2's on joints 7 mod 11 (all masked) */
            double m = rng_uniform(r);
            d->jw[i][j] = (float)(j % 11 == 7 && !add ? 0.0 : m < 0.2 ? 0.0 : m < 0.5 ? 1.0 : m);
        }
    }
    d->rref = fq_alloc(LJ);
    d->pref = fv_alloc(LJ);
    d->sref = fv_alloc(LJ);
    for (size_t j = 0; j < LJ; j++) {
        fq_set(d->rref, j, rng_quat_near(r, base, 0.5));
        fv_set(d->pref, j, rng_vec3(r, 3.0));
        fv_set(d->sref, j,
               rv3_make(rng_logrange(r, 0.8, 1.25), rng_logrange(r, 0.8, 1.25),
                        rng_logrange(r, 0.8, 1.25)));
    }
    d->orot = fq_alloc(LJ);
    d->opos = fv_alloc(LJ);
    d->oscl = fv_alloc(LJ);
}

/* the joint counts the tests run: every tail 1..40 (two whole 16-lane
 * blocks and more), several chunks (71, 150); returns how many */
static size_t joint_counts(size_t sizes[48])
{
    size_t ns = 0;
    for (size_t n = 1; n <= 40; n++)
        sizes[ns++] = n;
    sizes[ns++] = 71;
    sizes[ns++] = 150;
    return ns;
}

static void data_free(layer_data *d)
{
    for (size_t i = 0; i < LK + LA; i++) {
        fq_free(d->rot[i]);
        fv_free(d->pos[i]);
        fv_free(d->scale[i]);
        free(d->jw[i]);
    }
    fq_free(d->rref);
    fv_free(d->pref);
    fv_free(d->sref);
    fq_free(d->orot);
    fv_free(d->opos);
    fv_free(d->oscl);
}

static double comp(rv3 v, int c) { return c == 0 ? v.x : c == 1 ? v.y : v.z; }
static int uses_ref(pb_blend_method m) { return m == PB_BLEND_LOG_REF || m == PB_BLEND_RAW_REF; }
static const char *mname(pb_blend_method m)
{
    static const char *names[] = {"log_ref", "raw_ref", "log", "raw", "accurate"};
    return names[m];
}

/* One case of the double reference's settings. */
typedef struct {
    pb_blend_method method;
    int linear, masks, nadd, refkind; /* refkind: 0 rotations only, 1 full */
    float w[LK + LA];
} lcase;

static void fill_layers(const layer_data *d, const lcase *cs, pb_blend_layer *bl,
                        pb_blend_layer *al)
{
    for (size_t i = 0; i < LK + LA; i++) {
        pb_blend_layer *l = i < LK ? &bl[i] : &al[i - LK];
        memset(l, 0, sizeof *l);
        l->weight = cs->w[i];
        l->joint_weights = cs->masks ? d->jw[i] : NULL;
        l->pose.rot = pb_cq(d->rot[i]);
        if (i != LK + 1) { /* the second additive layer: rotation only */
            l->pose.pos = pb_cv(d->pos[i]);
            l->pose.scale = pb_cv(d->scale[i]);
        }
    }
}

/* The header's formulas in double at joint j. */
static void reference(const layer_data *d, const lcase *cs, size_t j, rq *qo, rv3 *po, rv3 *so,
                      double *pmag)
{
    double e[LK], t = 0;
    for (size_t i = 0; i < LK; i++) {
        e[i] = (double)cs->w[i] * (cs->masks ? (double)d->jw[i][j] : 1.0);
        t += e[i];
    }
    rq rr = fq_get(d->rref, j);
    rv3 pr = cs->refkind ? fv_get(d->pref, j) : rv3_make(0, 0, 0);
    rv3 sr = cs->refkind ? fv_get(d->sref, j) : rv3_make(1, 1, 1);
    rq q;
    double p[3], s[3];
    *pmag = 0;
    if (!(t > 0)) {
        q = uses_ref(cs->method) ? rq_abs(rr) : rq_identity();
        for (int c = 0; c < 3; c++) {
            p[c] = comp(pr, c);
            s[c] = comp(sr, c);
            *pmag += fabs(p[c]);
        }
    } else {
        rq smp[LK];
        double wn[LK];
        for (size_t i = 0; i < LK; i++) {
            smp[i] = fq_get(d->rot[i], j);
            wn[i] = e[i] / t;
        }
        switch (cs->method) {
        case PB_BLEND_LOG_REF: q = ra_average_log_ref(rr, LK, smp, wn); break;
        case PB_BLEND_RAW_REF: q = ra_average_raw_ref(rr, LK, smp, wn); break;
        case PB_BLEND_LOG: q = ra_average_log(LK, smp, wn); break;
        default: q = ra_average_running(LK, smp, wn); break;
        }
        for (int c = 0; c < 3; c++) {
            double ps = 0, ls = 0, lin = 0;
            for (size_t i = 0; i < LK; i++) {
                double pi = comp(fv_get(d->pos[i], j), c), si = comp(fv_get(d->scale[i], j), c);
                ps += wn[i] * pi;
                *pmag += fabs(wn[i] * pi);
                ls += wn[i] * log(si / comp(sr, c));
                lin += wn[i] * (si - comp(sr, c));
            }
            p[c] = ps;
            s[c] = cs->linear ? comp(sr, c) + lin : comp(sr, c) * exp(ls);
        }
    }
    for (int a = 0; a < cs->nadd; a++) {
        size_t i = LK + (size_t)a;
        double wa = (double)cs->w[i] * (cs->masks ? (double)d->jw[i][j] : 1.0);
        rq dq = rq_abs(fq_get(d->rot[i], j));
        q = rq_mul(rq_exp(rv3_scale(rq_log(rq_normalize(dq)), wa)), q);
        if (i == LK + 1)
            continue;
        for (int c = 0; c < 3; c++) {
            double dp = comp(fv_get(d->pos[i], j), c), ds = comp(fv_get(d->scale[i], j), c);
            p[c] += wa * dp;
            *pmag += fabs(wa * dp);
            s[c] *= cs->linear ? 1.0 + wa * (ds - 1.0) : exp(wa * log(ds));
        }
    }
    *qo = rq_abs(q);
    *po = rv3_make(p[0], p[1], p[2]);
    *so = rv3_make(s[0], s[1], s[2]);
}

static pb_status run_case(const layer_data *d, const lcase *cs, size_t n)
{
    pb_blend_layer bl[LK], al[LA];
    fill_layers(d, cs, bl, al);
    pb_cpose ref;
    memset(&ref, 0, sizeof ref);
    ref.rot = pb_cq(d->rref);
    if (cs->refkind) {
        ref.pos = pb_cv(d->pref);
        ref.scale = pb_cv(d->sref);
    }
    pb_blend_desc desc = {
        n, bl, LK, al, (size_t)cs->nadd, cs->method, cs->linear ? PB_BLEND_LINEAR_SCALE : 0u, &ref};
    pb_pose out = {d->orot, d->opos, d->oscl};
    return pb_pose_blend_layers(&desc, &out);
}

Test(layers, matches_double_reference, .timeout = 120)
{
    rng_t r = rng_seed(7070);
    layer_data d;
    data_new(&d, &r);
    ref_track tr, tp, ts;
    rt_init(&tr, "layered blend rotation (rad, tol 2e-6 + 4e-7 per additive layer)");
    rt_init(&tp, "layered blend translation (tol 1e-6 of the term magnitudes)");
    rt_init(&ts, "layered blend scale (relative, tol 2e-6 + 1e-6 per additive layer)");
    size_t sizes[48], ns = joint_counts(sizes);
    size_t cnum = 0;
    for (int m = 0; m < 4; m++)
        for (int linear = 0; linear < 2; linear++)
            for (int masks = 0; masks < 2; masks++)
                for (int nadd = 0; nadd <= LA; nadd++)
                    for (int refkind = 0; refkind < 2; refkind++) {
                        lcase cs = {(pb_blend_method)m, linear, masks, nadd, refkind, {0}};
                        for (size_t i = 0; i < LK + LA; i++) /* relative: any positive scale */
                            cs.w[i] = (float)(i < LK ? rng_range(&r, 0.1, 3.0)
                                                     : rng_range(&r, -1.0, 1.5));
                        for (size_t si = 0; si < ns; si++) {
                            size_t n = sizes[si];
                            fq_fill_nan(d.orot, LJ);
                            fv_fill_nan(d.opos, LJ);
                            fv_fill_nan(d.oscl, LJ);
                            cr_assert_eq(run_case(&d, &cs, n), PB_OK);
                            for (size_t j = 0; j < LJ; j++) {
                                rq qr;
                                rv3 pr, sr;
                                double pmag;
                                if (j >= n) { /* nothing past n written */
                                    rq g = fq_get(d.orot, j);
                                    cr_assert(isnan(g.w) && isnan(comp(fv_get(d.opos, j), 0)) &&
                                                  isnan(comp(fv_get(d.oscl, j), 2)),
                                              "n=%zu: joint %zu written", n, j);
                                    continue;
                                }
                                reference(&d, &cs, j, &qr, &pr, &sr, &pmag);
                                rq g = fq_get(d.orot, j);
                                double e = rq_angle_between(qr, g);
                                double tol = 2e-6 + 4e-7 * nadd;
                                if (rt_add(&tr, cnum, e, e / tol) || !(g.w >= 0))
                                    rt_note(&tr,
                                            "%s linear %d masks %d nadd %d ref %d n=%zu "
                                            "joint %zu: " RQ_FMT " vs " RQ_FMT,
                                            mname(cs.method), linear, masks, nadd, refkind, n, j,
                                            RQ_ARG(g), RQ_ARG(qr));
                                cr_expect(g.w >= 0, "w < 0 at joint %zu", j);
                                for (int c = 0; c < 3; c++) {
                                    double pv = comp(fv_get(d.opos, j), c);
                                    double ep = fabs(pv - comp(pr, c));
                                    if (rt_add(&tp, cnum, ep, ep / (1e-6 * fmax(pmag, 1e-30))))
                                        rt_note(&tp,
                                                "%s masks %d nadd %d ref %d n=%zu joint %zu "
                                                "c%d: %.9g vs %.17g (mag %.3g)",
                                                mname(cs.method), masks, nadd, refkind, n, j, c, pv,
                                                comp(pr, c), pmag);
                                    double sv = comp(fv_get(d.oscl, j), c);
                                    double es = fabs(sv - comp(sr, c)) / fabs(comp(sr, c));
                                    double stol = 2e-6 + 1e-6 * nadd;
                                    if (rt_add(&ts, cnum, es, es / stol))
                                        rt_note(&ts,
                                                "%s linear %d masks %d nadd %d ref %d n=%zu "
                                                "joint %zu c%d: %.9g vs %.17g",
                                                mname(cs.method), linear, masks, nadd, refkind, n,
                                                j, c, sv, comp(sr, c));
                                }
                                cnum++;
                            }
                        }
                    }
    RT_EXPECT(tr);
    RT_EXPECT(tp);
    RT_EXPECT(ts);
    data_free(&d);
}

/* raw rotations: sum e_i sigma_i q_i, no division: bitwise pb_pose_blend;
 * log: the sum times 1 / T = 1: bitwise too */
Test(layers, plain_weights_equal_pose_blend)
{
    rng_t r = rng_seed(7071);
    layer_data d;
    data_new(&d, &r);
    const float w[LK] = {0.5f, 0.25f, 0.25f};
    pb_quats arot = fq_alloc(LJ);
    pb_vec3s apos = fv_alloc(LJ), ascl = fv_alloc(LJ);
    for (int m = 0; m < 4; m++)
        for (size_t n = 1; n <= 40; n += 3) {
            lcase cs = {(pb_blend_method)m, 0, 0, 0, 1, {w[0], w[1], w[2]}};
            cr_assert_eq(run_case(&d, &cs, n), PB_OK);
            pb_cquats rot[LK];
            pb_cvec3s pos[LK], scl[LK];
            for (int i = 0; i < LK; i++) {
                rot[i] = pb_cq(d.rot[i]);
                pos[i] = pb_cv(d.pos[i]);
                scl[i] = pb_cv(d.scale[i]);
            }
            pb_cpose ref = {pb_cq(d.rref), pb_cv(d.pref), pb_cv(d.sref)};
            pb_pose out = {arot, apos, ascl};
            cr_assert_eq(pb_pose_blend(n, LK, rot, pos, scl, w, (pb_blend_method)m, &ref, &out),
                         PB_OK);
            /* raw: where the samples, each with w >= 0, are in one hemisphere
             * (pairwise dot > 0), the running sum's signs are those of w */
            size_t same = 0, differ = 0;
            for (size_t j = 0; j < n; j++) {
                int one_side = 1;
                for (int a = 0; a < LK; a++)
                    for (int b = a + 1; b < LK; b++)
                        one_side &=
                            rq_dot(rq_abs(fq_get(d.rot[a], j)), rq_abs(fq_get(d.rot[b], j))) > 0;
                if (m == PB_BLEND_RAW && !one_side)
                    continue;
                int eq = arot.w[j] == d.orot.w[j] && arot.x[j] == d.orot.x[j] &&
                         arot.y[j] == d.orot.y[j] && arot.z[j] == d.orot.z[j];
                same += eq;
                differ += !eq;
            }
            cr_expect(differ == 0 && same > 0,
                      "%s n=%zu: rotations differ from pb_pose_blend at %zu joints (%zu equal)",
                      mname((pb_blend_method)m), n, differ, same);
            for (size_t j = 0; j < n; j++)
                for (int c = 0; c < 3; c++) {
                    double a = comp(fv_get(apos, j), c), b = comp(fv_get(d.opos, j), c);
                    cr_expect(fabs(a - b) <= 1e-6 * (fabs(a) + 3.0), "pos %zu: %.9g vs %.9g", j, a,
                              b);
                    a = comp(fv_get(ascl, j), c), b = comp(fv_get(d.oscl, j), c);
                    cr_expect(fabs(a - b) <= 1e-6 * fabs(a), "scale %zu: %.9g vs %.9g", j, a, b);
                }
        }
    fq_free(arot);
    fv_free(apos);
    fv_free(ascl);
    data_free(&d);
}

/* Log-space scales near and far from their reference, each joint's
 * result its own: layer scales ref e^d, d uniform in +-0.075, +-0.05,
 * +-0.4 or +-0.8. Where every lane of a block has its blended log sum
 * below 0.34 in magnitude, the exponential skips its reduction (v3_exp:
 * the same bits); at +-0.4 and +-0.8 blocks mix both. Every joint within
 * 4e-7 relative of the double reference where d is within +-0.075 (far
 * below the documented 2e-6: the ratio's roundings, the logarithms, the
 * sum, exp and the product; measured 1.9e-7), and each joint's scale the
 * bits that joint gets when blended alone (n = 1: no neighbour to share a
 * block with). Both log-space methods with a reference, masks or not,
 * every joint count 1..40, 71, 150. */
Test(layers, scales_near_and_far_are_each_their_own, .timeout = 60)
{
    rng_t r = rng_seed(7076);
    layer_data d;
    data_new(&d, &r);
    ref_track ts;
    rt_init(&ts, "log-space scale near / far (relative, tol 4e-7 / 2e-6 + 1.2e-7 L)");
    size_t sizes[48], ns = joint_counts(sizes), cnum = 0;
    const double spreads[4] = {0.075, 0.05, 0.4, 0.8};
    for (int sp = 0; sp < 4; sp++) {
        for (size_t j = 0; j < LJ; j++) {
            rv3 sr = rv3_make(rng_logrange(&r, 0.5, 2.0), rng_logrange(&r, 0.5, 2.0),
                              rng_logrange(&r, 0.5, 2.0));
            fv_set(d.sref, j, sr);
            for (size_t i = 0; i < LK; i++)
                fv_set(d.scale[i], j,
                       rv3_make(sr.x * exp(rng_range(&r, -spreads[sp], spreads[sp])),
                                sr.y * exp(rng_range(&r, -spreads[sp], spreads[sp])),
                                sr.z * exp(rng_range(&r, -spreads[sp], spreads[sp]))));
        }
        for (int mi = 0; mi < 2; mi++)
            for (int masks = 0; masks < 2; masks++) {
                pb_blend_method m = mi ? PB_BLEND_LOG_REF : PB_BLEND_RAW_REF;
                lcase cs = {m, 0, masks, 0, 1, {0}};
                for (size_t i = 0; i < LK; i++)
                    cs.w[i] = (float)rng_range(&r, 0.1, 3.0);
                float alone[3 * LJ];
                for (size_t j = 0; j < LJ; j++) { /* each joint blended alone */
                    layer_data dj = d;
                    for (size_t i = 0; i < LK; i++) {
                        dj.rot[i] = (pb_quats){d.rot[i].w + j, d.rot[i].x + j, d.rot[i].y + j,
                                               d.rot[i].z + j};
                        dj.pos[i] = (pb_vec3s){d.pos[i].x + j, d.pos[i].y + j, d.pos[i].z + j};
                        dj.scale[i] =
                            (pb_vec3s){d.scale[i].x + j, d.scale[i].y + j, d.scale[i].z + j};
                        dj.jw[i] = d.jw[i] + j;
                    }
                    dj.rref = (pb_quats){d.rref.w + j, d.rref.x + j, d.rref.y + j, d.rref.z + j};
                    dj.pref = (pb_vec3s){d.pref.x + j, d.pref.y + j, d.pref.z + j};
                    dj.sref = (pb_vec3s){d.sref.x + j, d.sref.y + j, d.sref.z + j};
                    cr_assert_eq(run_case(&dj, &cs, 1), PB_OK);
                    for (int c = 0; c < 3; c++)
                        alone[3 * j + (size_t)c] = (float)comp(fv_get(d.oscl, 0), c);
                }
                for (size_t si = 0; si < ns; si++) {
                    size_t n = sizes[si];
                    cr_assert_eq(run_case(&d, &cs, n), PB_OK);
                    for (size_t j = 0; j < n; j++) {
                        rq qr;
                        rv3 pr, sr;
                        double pmag;
                        reference(&d, &cs, j, &qr, &pr, &sr, &pmag);
                        for (int c = 0; c < 3; c++) {
                            float sv = (float)comp(fv_get(d.oscl, j), c);
                            double es = fabs(sv - comp(sr, c)) / fabs(comp(sr, c));
                            /* far: the documented bound (and L, as pb_pose_blend) */
                            double tol = sp < 2 ? 4e-7 : 2e-6 + 1.2e-7 * spreads[sp];
                            if (rt_add(&ts, cnum, es, es / tol))
                                rt_note(&ts,
                                        "spread %g %s masks %d n=%zu joint %zu c%d: %.9g vs "
                                        "%.17g",
                                        spreads[sp], mname(m), masks, n, j, c, sv, comp(sr, c));
                            cr_expect(!memcmp(&sv, &alone[3 * j + (size_t)c], sizeof sv),
                                      "spread %g %s masks %d n=%zu joint %zu c%d: %.9g, alone "
                                      "%.9g",
                                      spreads[sp], mname(m), masks, n, j, c, sv,
                                      alone[3 * j + (size_t)c]);
                        }
                        cnum++;
                    }
                }
            }
    }
    RT_EXPECT(ts);
    data_free(&d);
}

/* a pose of the arrays a (rot w x y z, pos x y z, scale x y z): every
 * track (t 0), without scales (1), rotations alone (2) */
static pb_pose pose_of(float *const *a, int t)
{
    pb_pose out = {{a[0], a[1], a[2], a[3]}, {a[4], a[5], a[6]}, {a[7], a[8], a[9]}};
    if (t >= 1)
        out.scale = (pb_vec3s){NULL, NULL, NULL};
    if (t == 2)
        out.pos = (pb_vec3s){NULL, NULL, NULL};
    return out;
}

/* The outputs' layout changes nothing: the ten output arrays cut from one
 * buffer in the order of the struct (the layout the check takes at a
 * glance), quaternions stored x, y, z, w, ozz-animation's order
 * (translation, rotation x y z w, scale) and every array reversed (the
 * glance sorts those) give bitwise what separate arrays give. */
Test(layers, output_layouts_give_the_same_values)
{
    rng_t r = rng_seed(7072);
    layer_data d;
    data_new(&d, &r);
    float *buf = falloc(10 * LJ);
    /* slot of each output array (rot w x y z, pos x y z, scale x y z) */
    static const int order[4][10] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
                                     {3, 0, 1, 2, 4, 5, 6, 7, 8, 9},
                                     {6, 3, 4, 5, 0, 1, 2, 7, 8, 9},
                                     {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}};
    for (int m = 0; m < 4; m++)
        for (int linear = 0; linear < 2; linear++)
            for (size_t n = 1; n <= 40; n += 3) {
                lcase cs = {(pb_blend_method)m, linear, 1, LA, 1, {0}};
                for (size_t i = 0; i < LK + LA; i++)
                    cs.w[i] = (float)(i < LK ? 0.5 + 0.25 * (double)i : 0.5);
                cr_assert_eq(run_case(&d, &cs, n), PB_OK);
                pb_blend_layer bl[LK], al[LA];
                fill_layers(&d, &cs, bl, al);
                pb_cpose ref = {pb_cq(d.rref), pb_cv(d.pref), pb_cv(d.sref)};
                pb_blend_desc desc = {
                    n, bl, LK, al, LA, cs.method, linear ? PB_BLEND_LINEAR_SCALE : 0u, &ref};
                const float *want[10] = {d.orot.w, d.orot.x, d.orot.y, d.orot.z, d.opos.x,
                                         d.opos.y, d.opos.z, d.oscl.x, d.oscl.y, d.oscl.z};
                for (int o = 0; o < 4; o++) {
                    float *a[10];
                    for (int i = 0; i < 10; i++)
                        a[i] = buf + (size_t)order[o][i] * n;
                    for (size_t i = 0; i < 10 * LJ; i++)
                        buf[i] = NAN;
                    /* every track; without scales; rotations alone (4 or 7 arrays) */
                    for (int t = 0; t < 3; t++) {
                        pb_pose out = pose_of(a, t);
                        cr_assert_eq(pb_pose_blend_layers(&desc, &out), PB_OK,
                                     "%s linear %d n %zu layout %d tracks %d", mname(cs.method),
                                     linear, n, o, t);
                        for (int i = 0; i < (t == 0 ? 10 : t == 1 ? 7 : 4); i++)
                            cr_expect(!memcmp(a[i], want[i], n * sizeof(float)),
                                      "%s linear %d n %zu layout %d tracks %d: array %d differs",
                                      mname(cs.method), linear, n, o, t, i);
                    }
                    /* the same layouts with one array moved a float into the slot
                     * above it (or, where no array is there, the one below): an
                     * overlap (the arrays used fill neighbouring slots) */
                    for (int t = 0; t < 3; t++) {
                        const int na = t == 0 ? 10 : t == 1 ? 7 : 4;
                        for (int i = 0; i < na; i++) {
                            int above = 0;
                            for (int j = 0; j < na; j++)
                                above |= order[o][j] == order[o][i] + 1;
                            float *b[10];
                            memcpy(b, a, sizeof b);
                            b[i] += above ? 1 : -1;
                            pb_pose out = pose_of(b, t);
                            cr_expect_eq(pb_pose_blend_layers(&desc, &out), PB_ERR_ALIAS,
                                         "%s n %zu layout %d tracks %d: array %d moved",
                                         mname(cs.method), n, o, t, i);
                        }
                    }
                }
            }
    free(buf);
    data_free(&d);
}

static void snapshot(const layer_data *d, float *buf)
{
    for (size_t j = 0; j < LJ; j++) {
        rq q = fq_get(d->orot, j);
        rv3 p = fv_get(d->opos, j), s = fv_get(d->oscl, j);
        float v[10] = {(float)q.w, (float)q.x, (float)q.y, (float)q.z, (float)p.x,
                       (float)p.y, (float)p.z, (float)s.x, (float)s.y, (float)s.z};
        memcpy(buf + 10 * j, v, sizeof v);
    }
}

Test(layers, identity_additive_changes_nothing)
{
    rng_t r = rng_seed(7072);
    layer_data d;
    data_new(&d, &r);
    static float before[10 * LJ], after[10 * LJ];
    for (size_t j = 0; j < LJ; j++) {
        fq_set(d.rot[LK], j, rq_identity());
        fv_set(d.pos[LK], j, rv3_make(0, 0, 0));
        fv_set(d.scale[LK], j, rv3_make(1, 1, 1));
    }
    for (int m = 0; m < 4; m++)
        for (int linear = 0; linear < 2; linear++) {
            lcase cs = {(pb_blend_method)m, linear, 1, 0, 1, {1.0f, 2.0f, 0.5f, 0.7f, 0.0f}};
            cr_assert_eq(run_case(&d, &cs, 37), PB_OK);
            snapshot(&d, before);
            cs.nadd = 1;
            cr_assert_eq(run_case(&d, &cs, 37), PB_OK);
            snapshot(&d, after);
            /* the blend's own rotation sign may differ (abs after additive) */
            for (size_t j = 0; j < 37; j++) {
                float sg = before[10 * j] < 0 || (before[10 * j] == 0 && signbit(before[10 * j]))
                               ? -1.0f
                               : 1.0f;
                for (int c = 0; c < 4; c++)
                    before[10 * j + c] *= sg;
            }
            cr_expect(!memcmp(before, after, sizeof(float) * 10 * 37),
                      "%s linear %d: identity additive layer changed the blend",
                      mname((pb_blend_method)m), linear);
        }
    data_free(&d);
}

/* Additive scale deltas of exactly 1 (the kernel skips them block by block)
 * leave the blended scales bit for bit, except where a joint's delta is not
 * 1 (joint 5: 1.25 on x, y or z) or the weight is not finite (NaN: every
 * scale NaN, as exp(NaN ln 1) and 1 + NaN (1 - 1) are); both scale modes,
 * masks or not, every joint count 1..40, 71, 150. */
Test(layers, unit_additive_scales_keep_the_blend, .timeout = 60)
{
    rng_t r = rng_seed(7076);
    layer_data d;
    data_new(&d, &r);
    static float before[10 * LJ], after[10 * LJ];
    for (size_t j = 0; j < LJ; j++)
        fv_set(d.scale[LK], j, rv3_make(1, 1, 1));
    size_t sizes[48], ns = joint_counts(sizes);
    const float wa[4] = {0.75f, -1.0f, NAN, INFINITY};
    for (int linear = 0; linear < 2; linear++)
        for (int masks = 0; masks < 2; masks++)
            for (int wi = 0; wi < 4; wi++)
                for (size_t si = 0; si < ns; si++) {
                    size_t n = sizes[si], c = si % 3;
                    float *dc = c == 0 ? d.scale[LK].x : c == 1 ? d.scale[LK].y : d.scale[LK].z;
                    int moved = n > 5 && si % 2;
                    lcase cs = {
                        PB_BLEND_RAW_REF, linear, masks, 0, 1, {1.0f, 2.0f, 0.5f, wa[wi], 0}};
                    cr_assert_eq(run_case(&d, &cs, n), PB_OK);
                    snapshot(&d, before);
                    cs.nadd = 1;
                    if (moved)
                        dc[5] = 1.25f;
                    cr_assert_eq(run_case(&d, &cs, n), PB_OK);
                    dc[5] = 1.0f;
                    snapshot(&d, after);
                    for (size_t j = 0; j < n; j++)
                        for (size_t e = 7; e < 10; e++) {
                            float b = before[10 * j + e], a = after[10 * j + e];
                            /* the delta's joint weight 0 there: no change */
                            int live = !masks || d.jw[LK][j] != 0.0f;
                            int off = moved && j == 5 && e == 7 + c;
                            if (wi >= 2 && !off) /* (NaN times a joint weight of 0 too) */
                                cr_expect(isnan(a),
                                          "linear %d masks %d w %g n=%zu joint %zu: "
                                          "scale %g, not NaN",
                                          linear, masks, (double)wa[wi], n, j, (double)a);
                            else if (off && live && wi < 2)
                                cr_expect(a != b,
                                          "linear %d masks %d w %g n=%zu: a delta of "
                                          "1.25 left the scale",
                                          linear, masks, (double)wa[wi], n);
                            else if (wi < 2)
                                cr_expect(!memcmp(&a, &b, sizeof a),
                                          "linear %d masks %d w %g "
                                          "n=%zu joint %zu: a unit delta changed the scale",
                                          linear, masks, (double)wa[wi], n, j);
                        }
                }
    data_free(&d);
}

Test(layers, additive_minus_one_removes_plus_one)
{
    rng_t r = rng_seed(7073);
    layer_data d;
    data_new(&d, &r);
    static float base[10 * LJ], twice[10 * LJ];
    /* second additive layer = the first, with rotations, translations, scales */
    for (size_t j = 0; j < LJ; j++) {
        fq_set(d.rot[LK + 1], j, fq_get(d.rot[LK], j));
        fv_set(d.pos[LK + 1], j, fv_get(d.pos[LK], j));
        fv_set(d.scale[LK + 1], j, fv_get(d.scale[LK], j));
    }
    lcase cs = {PB_BLEND_RAW_REF, 0, 0, 0, 1, {1.0f, 1.0f, 1.0f, 0.8f, -0.8f}};
    cr_assert_eq(run_case(&d, &cs, 29), PB_OK);
    snapshot(&d, base);
    /* layer LK+1 is rotation-only in fill_layers: +0.8 then -0.8 of the
     * rotation cancels; translations and scales keep the +0.8 */
    cs.nadd = 2;
    cr_assert_eq(run_case(&d, &cs, 29), PB_OK);
    snapshot(&d, twice);
    for (size_t j = 0; j < 29; j++) {
        rq a = rq_make(base[10 * j], base[10 * j + 1], base[10 * j + 2], base[10 * j + 3]);
        rq b = rq_make(twice[10 * j], twice[10 * j + 1], twice[10 * j + 2], twice[10 * j + 3]);
        cr_expect(rq_angle_between(a, b) <= 1e-6, "joint %zu: %.3g rad", j, rq_angle_between(a, b));
        rv3 dp = fv_get(d.pos[LK], j);
        cr_expect(fabs(twice[10 * j + 4] - (base[10 * j + 4] + 0.8 * dp.x)) <=
                      1e-6 * (fabs(base[10 * j + 4]) + 1.0),
                  "joint %zu translation", j);
    }
    data_free(&d);
}

/* Layers without joint weights take their own path in the kernel (the
 * weight total once per call); joint weights of exactly one must give the
 * same bits as none: k = 3 and k = 20 (compensated sums), totals positive,
 * zero, negative, infinite and NaN (the reference pose, or whatever the
 * formula gives, either way), 0 or 1 additive layer, every method and scale
 * mode, every joint count 1..40, 71, 150. */
#define UK 20
Test(layers, no_joint_weights_equal_joint_weights_of_one, .timeout = 120)
{
    rng_t r = rng_seed(7074);
    layer_data d;
    data_new(&d, &r);
    float *ones = falloc(LJ);
    for (size_t j = 0; j < LJ; j++)
        ones[j] = 1.0f;
    static float a[10 * LJ], b[10 * LJ];
    const float wsets[][3] = {{0.5f, 1.25f, 3.0f},     {1.0f, -1.0f, 0.0f},    {0.0f, 0.0f, 0.0f},
                              {-1.0f, 0.5f, 0.25f},    {INFINITY, 1.0f, 2.0f}, {NAN, 1.0f, 1.0f},
                              {1e-30f, 2e-30f, 1e-45f}};
    const size_t ks[2] = {LK, UK};
    size_t sizes[48], ns = joint_counts(sizes);
    for (int m = 0; m < 4; m++)
        for (int linear = 0; linear < 2; linear++)
            for (size_t ws = 0; ws < sizeof wsets / sizeof wsets[0]; ws++)
                for (int ki = 0; ki < 2; ki++)
                    for (int nadd = 0; nadd < 2; nadd++) {
                        size_t k = ks[ki];
                        pb_blend_layer bl[UK], al[1];
                        for (size_t i = 0; i < k; i++) {
                            memset(&bl[i], 0, sizeof bl[i]);
                            bl[i].weight = wsets[ws][i % 3] * (1.0f + 0.125f * (float)(i / 3));
                            bl[i].pose.rot = pb_cq(d.rot[i % LK]);
                            bl[i].pose.pos = pb_cv(d.pos[i % LK]);
                            bl[i].pose.scale = pb_cv(d.scale[i % LK]);
                        }
                        memset(al, 0, sizeof al);
                        al[0].weight = 0.75f;
                        al[0].pose.rot = pb_cq(d.rot[LK]);
                        al[0].pose.pos = pb_cv(d.pos[LK]);
                        al[0].pose.scale = pb_cv(d.scale[LK]);
                        pb_cpose ref = {pb_cq(d.rref), pb_cv(d.pref), pb_cv(d.sref)};
                        pb_blend_desc desc = {0,
                                              bl,
                                              k,
                                              al,
                                              (size_t)nadd,
                                              (pb_blend_method)m,
                                              linear ? PB_BLEND_LINEAR_SCALE : 0u,
                                              &ref};
                        pb_pose out = {d.orot, d.opos, d.oscl};
                        for (size_t si = 0; si < ns; si++) {
                            desc.joints = sizes[si];
                            for (size_t i = 0; i < k; i++)
                                bl[i].joint_weights = NULL;
                            cr_assert_eq(pb_pose_blend_layers(&desc, &out), PB_OK);
                            snapshot(&d, a);
                            for (size_t i = 0; i < k; i++)
                                bl[i].joint_weights = ones;
                            cr_assert_eq(pb_pose_blend_layers(&desc, &out), PB_OK);
                            snapshot(&d, b);
                            cr_expect(!memcmp(a, b, sizeof(float) * 10 * sizes[si]),
                                      "%s linear %d weights %zu k %zu nadd %d n=%zu: joint "
                                      "weights of one changed the blend",
                                      mname((pb_blend_method)m), linear, ws, k, nadd, sizes[si]);
                        }
                    }
    free(ones);
    data_free(&d);
}

/* Log-space scales where every blended layer's scale is the reference's (1
 * without one) and every weight is finite: the kernel then skips the
 * logarithms over the chunk (64 joints) and takes exp(0) = 1 times the
 * reference. The bits must be the full path's: one joint of each chunk off
 * (the last layer's x, y or z scale times 1.25) sends the chunk down the
 * full path, and every other joint must come out as it did without it (and
 * that joint not). Weights positive, mixed, infinite and NaN (the terms
 * w ln 1 are NaN there, and so must be the result), with no joint weights,
 * all one, masks (zeros: the reference where every layer is masked), any,
 * and some NaN or infinite; reference scales include values
 * whose reciprocal does not bring them back to 1 exactly (those joints take
 * the logarithms either way); k 3 and 20, every joint count 1..40, 71, 150.
 * Without a reference scale and with positive finite weights the scale
 * is 1. */
Test(layers, unit_scales_as_any_scales, .timeout = 120)
{
    rng_t r = rng_seed(7075);
    layer_data d;
    data_new(&d, &r);
    /* ones; masks and partial weights; some NaN and infinite */
    float *jws[4] = {falloc(LJ), d.jw[0], d.jw[1], falloc(LJ)};
    pb_vec3s same[UK];
    for (size_t j = 0; j < LJ; j++) {
        jws[0][j] = 1.0f;
        jws[3][j] = j % 13 == 5 ? NAN : j % 17 == 3 ? INFINITY : 1.0f;
    }
    const float picks[5] = {3.0f, 0.7f, 0.5f, 1.0f, 1.1f};
    for (size_t j = 0; j < LJ; j++)
        fv_set(d.sref, j, rv3_make(picks[j % 5], picks[(j / 5) % 5], rng_logrange(&r, 0.8, 1.25)));
    static float a[10 * LJ], b[10 * LJ];
    const float wsets[][3] = {
        {0.5f, 1.25f, 3.0f}, {1.0f, -0.5f, 0.0f}, {INFINITY, 1.0f, 2.0f}, {NAN, 1.0f, 1.0f}};
    const size_t ks[2] = {LK, UK};
    size_t sizes[48], ns = joint_counts(sizes);
    for (size_t i = 0; i < UK; i++)
        same[i] = fv_alloc(LJ);
    for (int with_ref = 0; with_ref < 2; with_ref++)
        for (int jk = 0; jk < 5; jk++) /* joint weights: none, ones, masks, any, NaN */
            for (size_t ws = 0; ws < sizeof wsets / sizeof wsets[0]; ws++)
                for (int ki = 0; ki < 2; ki++) {
                    size_t k = ks[ki];
                    pb_blend_layer bl[UK];
                    for (size_t i = 0; i < k; i++) {
                        for (size_t j = 0; j < LJ; j++)
                            fv_set(same[i], j, with_ref ? fv_get(d.sref, j) : rv3_make(1, 1, 1));
                        memset(&bl[i], 0, sizeof bl[i]);
                        bl[i].weight = wsets[ws][i % 3] * (1.0f + 0.125f * (float)(i / 3));
                        bl[i].joint_weights = jk == 0   ? NULL
                                              : jk == 1 ? jws[0]
                                              : jk == 2 ? jws[1 + i % 2]
                                              : jk == 3 ? (i % 2 ? d.jw[2] : NULL)
                                                        : (i == 1 ? jws[3] : NULL);
                        bl[i].pose.rot = pb_cq(d.rot[i % LK]);
                        bl[i].pose.pos = pb_cv(d.pos[i % LK]);
                        bl[i].pose.scale = pb_cv(same[i]);
                    }
                    pb_cpose ref = {pb_cq(d.rref), pb_cv(d.pref),
                                    with_ref ? pb_cv(d.sref) : (pb_cvec3s){0, 0, 0}};
                    pb_blend_desc desc = {0, bl, k, NULL, 0, PB_BLEND_RAW_REF, 0u, &ref};
                    pb_pose out = {d.orot, d.opos, d.oscl};
                    for (size_t si = 0; si < ns; si++) {
                        /* the last layer's x, y or z scale a quarter up */
                        float *y = si % 3 == 0   ? same[k - 1].x
                                   : si % 3 == 1 ? same[k - 1].y
                                                 : same[k - 1].z;
                        const float *yr = si % 3 == 0   ? d.sref.x
                                          : si % 3 == 1 ? d.sref.y
                                                        : d.sref.z;
                        size_t n = sizes[si];
                        desc.joints = n;
                        cr_assert_eq(pb_pose_blend_layers(&desc, &out), PB_OK);
                        snapshot(&d, a);
                        /* joint 37 of each chunk (its last if shorter) off */
                        size_t off[3], no = 0;
                        for (size_t c = 0; c < n; c += 64)
                            off[no++] = c + (n - c > 37 ? 37 : n - c - 1);
                        for (size_t o = 0; o < no; o++)
                            y[off[o]] *= 1.25f;
                        cr_assert_eq(pb_pose_blend_layers(&desc, &out), PB_OK);
                        snapshot(&d, b);
                        for (size_t o = 0; o < no; o++)
                            y[off[o]] = with_ref ? yr[off[o]] : 1.0f;
                        for (size_t j = 0, o = 0; j < n; j++) {
                            if (o < no && j == off[o]) {
                                o++;
                                /* (positive weights, no masks: it moved) */
                                if (ws == 0 && jk < 2)
                                    cr_expect(a[10 * j + 7 + si % 3] != b[10 * j + 7 + si % 3],
                                              "ref %d k %zu n=%zu joint %zu: a scale off "
                                              "by 1.25 left the blend as it was",
                                              with_ref, k, n, j);
                                continue;
                            }
                            cr_expect(!memcmp(a + 10 * j, b + 10 * j, 10 * sizeof(float)),
                                      "ref %d joint weights %d weights %zu k %zu n=%zu joint "
                                      "%zu: unit scales differ from the full path",
                                      with_ref, jk, ws, k, n, j);
                            if (!with_ref && ws == 0 && jk < 4)
                                cr_expect(a[10 * j + 7] == 1.0f && a[10 * j + 8] == 1.0f &&
                                              a[10 * j + 9] == 1.0f,
                                          "joint weights %d k %zu n=%zu joint %zu: scale not 1", jk,
                                          k, n, j);
                        }
                    }
                }
    for (size_t i = 0; i < UK; i++)
        fv_free(same[i]);
    free(jws[0]);
    free(jws[3]);
    data_free(&d);
}

/* ------------------------------------------------------------------ errors */

#define EJ 9
static float g_mem[64 * EJ], g_copy[64 * EJ];
static size_t g_at;
static float *take(size_t n)
{
    float *p = g_mem + g_at;
    g_at += n;
    cr_assert(g_at <= 64 * EJ);
    return p;
}
static pb_cquats tq(void)
{
    float *p = take(4 * EJ);
    return (pb_cquats){p, p + EJ, p + 2 * EJ, p + 3 * EJ};
}
static pb_cvec3s tv(void)
{
    float *p = take(3 * EJ);
    return (pb_cvec3s){p, p + EJ, p + 2 * EJ};
}

typedef struct {
    pb_blend_layer bl[2], al[1];
    pb_cpose ref;
    pb_blend_desc desc;
    pb_pose out;
} eset;

static void esetup(eset *ep)
{
    eset e;
    memset(&e, 0, sizeof e);
    g_at = 0;
    for (size_t i = 0; i < 64 * EJ; i++)
        g_mem[i] = (i % 4 == 0) ? 1.0f : 0.25f;
    for (int i = 0; i < 3; i++) {
        pb_blend_layer *l = i < 2 ? &e.bl[i] : &e.al[0];
        l->weight = 0.5f;
        l->joint_weights = take(EJ);
        l->pose.rot = tq();
        l->pose.pos = tv();
        l->pose.scale = tv();
    }
    e.ref.rot = tq();
    e.ref.pos = tv();
    e.ref.scale = tv();
    pb_cquats o = tq();
    pb_cvec3s op = tv(), os = tv();
    e.out.rot = (pb_quats){(float *)o.w, (float *)o.x, (float *)o.y, (float *)o.z};
    e.out.pos = (pb_vec3s){(float *)op.x, (float *)op.y, (float *)op.z};
    e.out.scale = (pb_vec3s){(float *)os.x, (float *)os.y, (float *)os.z};
    *ep = e;
    ep->desc = (pb_blend_desc){EJ, ep->bl, 2, ep->al, 1, PB_BLEND_RAW_REF, 0, &ep->ref};
}

static void expect(const char *what, pb_status want, eset *e, const pb_blend_desc *d,
                   const pb_pose *out)
{
    (void)e;
    memcpy(g_copy, g_mem, sizeof g_mem);
    pb_status st = pb_pose_blend_layers(d, out);
    cr_expect_eq(st, want, "%s: status %d (%s), want %d", what, (int)st, pb_status_str(st),
                 (int)want);
    if (want != PB_OK)
        cr_expect(!memcmp(g_copy, g_mem, sizeof g_mem), "%s: written on error", what);
    else if (d && d->joints)
        cr_expect(memcmp(g_copy, g_mem, sizeof g_mem), "%s: PB_OK but nothing written", what);
}
#define EXPECT(what, want, e) expect(what, want, &(e), &(e).desc, &(e).out)

Test(layers, errors)
{
    eset e;
    esetup(&e);
    EXPECT("valid", PB_OK, e);
    esetup(&e);
    expect("desc NULL", PB_ERR_NULL, &e, NULL, &e.out);
    expect("out NULL", PB_ERR_NULL, &e, &e.desc, NULL);
    e.desc.layer_count = 0;
    EXPECT("no blended layer", PB_ERR_ARG, e);
    esetup(&e);
    e.desc.method = PB_BLEND_ACCURATE;
    EXPECT("PB_BLEND_ACCURATE", PB_ERR_ARG, e);
    e.desc.method = PB_BLEND_METHOD_COUNT;
    EXPECT("unknown method", PB_ERR_ARG, e);
    esetup(&e);
    e.desc.flags = 2;
    EXPECT("unknown flag", PB_ERR_ARG, e);
    esetup(&e);
    e.desc.joints = (size_t)PB_MAX_COUNT + 1;
    EXPECT("joints above PB_MAX_COUNT", PB_ERR_SIZE, e);
    esetup(&e);
    e.desc.additive_count = (size_t)PB_MAX_COUNT + 1;
    EXPECT("additive count above PB_MAX_COUNT", PB_ERR_SIZE, e);
    esetup(&e);
    e.desc.layers = NULL;
    EXPECT("layers NULL", PB_ERR_NULL, e);
    esetup(&e);
    e.desc.additive = NULL;
    EXPECT("additive NULL with a count", PB_ERR_NULL, e);
    esetup(&e);
    e.desc.ref = NULL; /* the heaviest layer's rotations are the reference */
    EXPECT("ref NULL for raw_ref", PB_OK, e);
    esetup(&e);
    e.desc.ref = NULL;
    e.desc.method = PB_BLEND_RAW;
    EXPECT("ref NULL for raw", PB_OK, e);
    esetup(&e);
    e.bl[1].pose.rot.y = NULL;
    EXPECT("layer rotation component NULL", PB_ERR_NULL, e);
    esetup(&e);
    e.bl[0].pose.pos = (pb_cvec3s){NULL, NULL, NULL};
    EXPECT("blended layer without the output's translations", PB_ERR_NULL, e);
    esetup(&e);
    e.bl[0].pose.scale.z = NULL;
    EXPECT("blended layer scale partly NULL", PB_ERR_NULL, e);
    esetup(&e);
    e.al[0].pose.pos = (pb_cvec3s){NULL, NULL, NULL};
    e.al[0].pose.scale = (pb_cvec3s){NULL, NULL, NULL};
    EXPECT("additive layer rotation only", PB_OK, e);
    esetup(&e);
    e.al[0].pose.rot.w = NULL;
    EXPECT("additive rotation NULL", PB_ERR_NULL, e);
    esetup(&e);
    e.out.rot.x = NULL;
    EXPECT("out rotation component NULL", PB_ERR_NULL, e);
    esetup(&e);
    e.bl[1].pose.pos.y = e.out.pos.x + 2;
    EXPECT("input overlapping an output", PB_ERR_ALIAS, e);
    esetup(&e);
    e.bl[0].pose.rot.w = e.out.rot.w;
    EXPECT("input exactly an output", PB_ERR_ALIAS, e);
    esetup(&e);
    e.al[0].joint_weights = e.out.scale.z + 1;
    EXPECT("additive joint weights overlapping an output", PB_ERR_ALIAS, e);
    esetup(&e);
    e.out.pos.y = e.out.rot.z + 3;
    EXPECT("outputs overlapping", PB_ERR_ALIAS, e);
    esetup(&e);
    e.ref.scale.x = e.out.rot.w;
    EXPECT("ref scale an output", PB_ERR_ALIAS, e);
    esetup(&e);
    e.out.pos = (pb_vec3s){NULL, NULL, NULL};
    e.out.scale = (pb_vec3s){NULL, NULL, NULL};
    e.bl[0].pose.pos = (pb_cvec3s){NULL, NULL, NULL};
    EXPECT("rotations only: layer tracks not read", PB_OK, e);
    esetup(&e);
    e.desc.joints = 0;
    e.desc.layers = NULL;
    EXPECT("joints == 0", PB_OK, e);
}
