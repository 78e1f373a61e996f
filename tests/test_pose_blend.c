/* pb_pose_blend: rotations bitwise the pb_quat_average_* kernels,
 * positions and scales against double sums, one-hot weights reproduce the
 * input (see test_clip.c for the tolerances). */
#include "clip_util.h"

/* ------------------------------------------------------------------------ */
/* 6. pb_pose_blend                                                         */
/* ------------------------------------------------------------------------ */

#define BJ 37 /* joints: several SIMD blocks and a tail */
#define BK 5  /* most poses blended */

static pb_status average_of(pb_blend_method m, size_t J, size_t k, pb_cquats ref,
                            const pb_cquats *s, const float *w, pb_quats out)
{
    switch (m) {
    case PB_BLEND_LOG_REF: return pb_quat_average_log_ref(J, k, ref, s, w, out);
    case PB_BLEND_RAW_REF: return pb_quat_average_raw_ref(J, k, ref, s, w, out);
    case PB_BLEND_LOG: return pb_quat_average_log(J, k, s, w, out);
    case PB_BLEND_RAW: return pb_quat_average_raw(J, k, s, w, out);
    default: return pb_quat_average_accurate(J, k, s, w, out);
    }
}

typedef struct {
    pb_quats rot[BK];
    pb_vec3s pos[BK], scale[BK];
    pb_cquats crot[BK];
    pb_cvec3s cpos[BK], cscale[BK];
    pb_quats rref;
    pb_vec3s pref, sref;
    float w[BK];
} blend_data;

static rv3 scale_logrange(rng_t *r)
{
    return rv3_make(rng_logrange(r, 0.5, 2.0), rng_logrange(r, 0.5, 2.0),
                    rng_logrange(r, 0.5, 2.0));
}
/* base times e^u per component, u uniform in [-spread, spread] */
static rv3 scale_around(rng_t *r, rv3 base, double spread)
{
    double e[3];
    for (int c = 0; c < 3; c++) /* drawn in sequence, not as arguments */
        e[c] = exp(rng_range(r, -spread, spread));
    return rv3_make(base.x * e[0], base.y * e[1], base.z * e[2]);
}
/* Scales log-uniform in [0.5, 2] each, or with near as an animation has
 * them: the reference within e^+-0.05 of one and the samples within e^+-0.25
 * of it, the ratios the scale blend's short ln path takes with and without
 * the reference; joint 12 off by up to e^+-1.2, so that one block of every
 * width takes the general path. */
static void blend_data_new(blend_data *d, rng_t *r, int near)
{
    rq base = rng_quat(r);
    for (size_t i = 0; i < BK; i++) {
        d->rot[i] = fq_alloc(BJ);
        d->pos[i] = fv_alloc(BJ);
        d->scale[i] = fv_alloc(BJ);
        d->crot[i] = pb_cq(d->rot[i]);
        d->cpos[i] = pb_cv(d->pos[i]);
        d->cscale[i] = pb_cv(d->scale[i]);
        for (size_t j = 0; j < BJ; j++) {
            fq_set(d->rot[i], j, rq_scale(rng_quat_near(r, base, 1.5), rng_sign(r)));
            fv_set(d->pos[i], j, rng_vec3(r, 3.0));
            if (!near)
                fv_set(d->scale[i], j, scale_logrange(r));
        }
    }
    d->rref = fq_alloc(BJ);
    d->pref = fv_alloc(BJ);
    d->sref = fv_alloc(BJ);
    for (size_t j = 0; j < BJ; j++) {
        fq_set(d->rref, j, rng_quat(r));
        fv_set(d->pref, j, rng_vec3(r, 3.0));
        if (!near) {
            fv_set(d->sref, j, scale_logrange(r));
            continue;
        }
        rv3 sref = scale_around(r, rv3_make(1, 1, 1), 0.05);
        fv_set(d->sref, j, sref);
        for (size_t i = 0; i < BK; i++)
            fv_set(d->scale[i], j, scale_around(r, sref, j == 12 ? 1.2 : 0.25));
    }
}
static void blend_data_free(blend_data *d)
{
    for (size_t i = 0; i < BK; i++) {
        fq_free(d->rot[i]);
        fv_free(d->pos[i]);
        fv_free(d->scale[i]);
    }
    fq_free(d->rref);
    fv_free(d->pref);
    fv_free(d->sref);
}

static double comp(rv3 v, int c) { return c == 0 ? v.x : c == 1 ? v.y : v.z; }

/* Double reference of the position / scale blend of one component, and the
 * magnitude the float sum's rounding scales with. */
static double ref_pos_blend(const blend_data *d, size_t k, const float *w, int with_ref, size_t j,
                            int c, double *mag)
{
    double base = with_ref ? comp(fv_get(d->pref, j), c) : 0.0, s = 0.0;
    *mag = fabs(base);
    for (size_t i = 0; i < k; i++) {
        double t = (double)w[i] * (comp(fv_get(d->pos[i], j), c) - base);
        s += t;
        *mag += fabs(t);
    }
    return base + s;
}
static double ref_scale_blend(const blend_data *d, size_t k, const float *w, int with_ref, size_t j,
                              int c)
{
    double base = with_ref ? comp(fv_get(d->sref, j), c) : 1.0, s = 0.0;
    for (size_t i = 0; i < k; i++)
        s += (double)w[i] * log(comp(fv_get(d->scale[i], j), c) / base);
    return base * exp(s);
}

/* Rotations: bitwise the pb_quat_average_* of the method (the same kernels).
 * Positions: sum w_i p_i, or ref + sum w_i (p_i - ref) when ref has
 * positions, in double; the float result within 1e-6 of the magnitude
 * |ref| + sum |w_i (p_i - ref)| the float sum's rounding scales with (the
 * result itself may cancel). Scales: exp(sum w_i ln s_i), or
 * ref exp(sum w_i ln(s_i / ref)), within 2e-6 relative (header). Every method,
 * k = 1, 2, 3, 5, weights normalised or not (some negative), ref with
 * positions and scales, with rotations only, or NULL (non-ref methods), pos
 * and scale tracks present or all absent. */
static void blend_check(uint64_t seed, int near)
{
    rng_t r = rng_seed(seed);
    blend_data d;
    blend_data_new(&d, &r, near);
    static const size_t ks[] = {1, 2, 3, 5};
    ref_track trot, tpos, tscl;
    rt_init(&trot, "blend rotation bitwise = pb_quat_average_* (1 = differs)");
    rt_init(&tpos, "blend positions vs double sum (tol 1e-6 of the term magnitudes)");
    rt_init(&tscl, "blend scales vs double (tol 2e-6 relative)");
    pb_quats orot = fq_alloc(BJ), arot = fq_alloc(BJ);
    pb_vec3s opos = fv_alloc(BJ), oscl = fv_alloc(BJ);
    size_t cnum = 0;
    for (size_t ki = 0; ki < 4; ki++) {
        size_t k = ks[ki];
        for (int wkind = 0; wkind < 2; wkind++) {
            double sum = 0;
            for (size_t i = 0; i < k; i++) {
                d.w[i] = (float)(wkind ? rng_range(&r, -0.3, 1.0) : rng_range(&r, 0.05, 1.0));
                sum += d.w[i];
            }
            if (!wkind)
                for (size_t i = 0; i < k; i++)
                    d.w[i] = (float)(d.w[i] / sum);
            for (int m = 0; m < PB_BLEND_METHOD_COUNT; m++) {
                pb_blend_method meth = (pb_blend_method)m;
                for (int refkind = 0; refkind < 3; refkind++) {
                    if (refkind == 0 && method_uses_ref(meth))
                        continue;
                    for (int tracks = 0; tracks < 2; tracks++) {
                        pb_cpose ref;
                        memset(&ref, 0, sizeof ref);
                        ref.rot = pb_cq(d.rref);
                        if (refkind == 2) {
                            ref.pos = pb_cv(d.pref);
                            ref.scale = pb_cv(d.sref);
                        }
                        pb_pose out;
                        memset(&out, 0, sizeof out);
                        out.rot = orot;
                        if (tracks) {
                            out.pos = opos;
                            out.scale = oscl;
                        }
                        pb_status st = pb_pose_blend(BJ, k, d.crot, tracks ? d.cpos : NULL,
                                                     tracks ? d.cscale : NULL, d.w, meth,
                                                     refkind ? &ref : NULL, &out);
                        cr_assert_eq(st, PB_OK, "%s k=%zu refkind %d", method_name(meth), k,
                                     refkind);
                        cr_assert_eq(average_of(meth, BJ, k, pb_cq(d.rref), d.crot, d.w, arot),
                                     PB_OK);
                        size_t B = BJ * sizeof(float);
                        int same = !memcmp(orot.w, arot.w, B) && !memcmp(orot.x, arot.x, B) &&
                                   !memcmp(orot.y, arot.y, B) && !memcmp(orot.z, arot.z, B);
                        if (rt_add(&trot, cnum, !same, same ? 0.0 : INFINITY))
                            rt_note(&trot, "%s k=%zu wkind %d refkind %d: rotations differ",
                                    method_name(meth), k, wkind, refkind);
                        cnum++;
                        if (!tracks)
                            continue;
                        for (size_t j = 0; j < BJ; j++)
                            for (int c = 0; c < 3; c++) {
                                double mag;
                                double pr = ref_pos_blend(&d, k, d.w, refkind == 2, j, c, &mag);
                                double pv = comp(fv_get(opos, j), c);
                                double e = fabs(pv - pr);
                                if (rt_add(&tpos, j, e, e / (1e-6 * mag)))
                                    rt_note(&tpos,
                                            "%s k=%zu refkind %d joint %zu comp %d: %.9g vs "
                                            "%.17g (mag %.3g)",
                                            method_name(meth), k, refkind, j, c, pv, pr, mag);
                                double sr = ref_scale_blend(&d, k, d.w, refkind == 2, j, c);
                                double sv = comp(fv_get(oscl, j), c);
                                e = fabs(sv - sr) / fabs(sr);
                                if (rt_add(&tscl, j, e, e / (double)PB_ACCURACY_SCALE_REL))
                                    rt_note(&tscl,
                                            "%s k=%zu refkind %d joint %zu comp %d: %.9g vs "
                                            "%.17g",
                                            method_name(meth), k, refkind, j, c, sv, sr);
                            }
                    }
                }
            }
        }
    }
    RT_EXPECT(trot);
    RT_EXPECT(tpos);
    RT_EXPECT(tscl);
    fq_free(orot);
    fq_free(arot);
    fv_free(opos);
    fv_free(oscl);
    blend_data_free(&d);
}
Test(clip, blend_matches_averages_and_sums, .timeout = 60) { blend_check(6060, 0); }
Test(clip, blend_near_scales_match_averages_and_sums, .timeout = 60) { blend_check(6062, 1); }

/* One weight 1, the others 0: every method reproduces that pose (rotation
 * within 2e-6 rad, sign-insensitive; position within 1e-6 relative + 1e-6
 * absolute; scale within 2e-6 relative), for a random reference (ref methods;
 * the others with and without ref). */
Test(clip, blend_one_hot_reproduces_input)
{
    rng_t r = rng_seed(6161);
    blend_data d;
    blend_data_new(&d, &r, 0);
    size_t k = 4;
    ref_track trot, tpos, tscl;
    rt_init(&trot, "one-hot blend: rotation (rad, tol 2e-6)");
    rt_init(&tpos, "one-hot blend: position");
    rt_init(&tscl, "one-hot blend: scale (relative, tol 2e-6)");
    pb_quats orot = fq_alloc(BJ);
    pb_vec3s opos = fv_alloc(BJ), oscl = fv_alloc(BJ);
    for (size_t hot = 0; hot < k; hot++) {
        for (size_t i = 0; i < k; i++)
            d.w[i] = i == hot ? 1.0f : 0.0f;
        for (int m = 0; m < PB_BLEND_METHOD_COUNT; m++) {
            for (int with_ref = 0; with_ref < 2; with_ref++) {
                pb_blend_method meth = (pb_blend_method)m;
                if (!with_ref && method_uses_ref(meth))
                    continue;
                pb_cpose ref = {pb_cq(d.rref), pb_cv(d.pref), pb_cv(d.sref)};
                pb_pose out = {orot, opos, oscl};
                cr_assert_eq(pb_pose_blend(BJ, k, d.crot, d.cpos, d.cscale, d.w, meth,
                                           with_ref ? &ref : NULL, &out),
                             PB_OK);
                for (size_t j = 0; j < BJ; j++) {
                    rq q = fq_get(orot, j), qs = fq_get(d.rot[hot], j);
                    double e = rq_angle_between(q, qs);
                    if (rt_add(&trot, j, e, e / (double)PB_ACCURACY_ROTATION_RAD))
                        rt_note(&trot, "%s ref %d hot %zu joint %zu: " RQ_FMT " vs " RQ_FMT,
                                method_name(meth), with_ref, hot, j, RQ_ARG(q), RQ_ARG(qs));
                    rv3 p = fv_get(opos, j), ps = fv_get(d.pos[hot], j);
                    if (rt_add(&tpos, j, rv3_dist(p, ps), val_ratio(p, ps)))
                        rt_note(&tpos, "%s ref %d hot %zu joint %zu: " RV_FMT " vs " RV_FMT,
                                method_name(meth), with_ref, hot, j, RV_ARG(p), RV_ARG(ps));
                    rv3 s = fv_get(oscl, j), ss = fv_get(d.scale[hot], j);
                    for (int c = 0; c < 3; c++) {
                        double es = fabs(comp(s, c) - comp(ss, c)) / comp(ss, c);
                        if (rt_add(&tscl, j, es, es / (double)PB_ACCURACY_SCALE_REL))
                            rt_note(&tscl, "%s ref %d hot %zu joint %zu comp %d: %.9g vs %.9g",
                                    method_name(meth), with_ref, hot, j, c, comp(s, c),
                                    comp(ss, c));
                    }
                }
            }
        }
    }
    RT_EXPECT(trot);
    RT_EXPECT(tpos);
    RT_EXPECT(tscl);
    fq_free(orot);
    fv_free(opos);
    fv_free(oscl);
    blend_data_free(&d);
}
