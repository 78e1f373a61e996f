/*
 * Helpers of the pb_pose_blend_layers tests (test_layers.c,
 * test_layers_identities.c): random layer data, the joint counts tried,
 * the cases of methods and settings, and the header's formulas in double.
 */
#ifndef PB_TESTS_LAYERS_UTIL_H
#define PB_TESTS_LAYERS_UTIL_H

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

static inline float *falloc(size_t n)
{
    float *p = calloc(n, sizeof(float));
    cr_assert(p);
    return p;
}

static inline void data_new(layer_data *d, rng_t *r)
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
static inline size_t joint_counts(size_t sizes[48])
{
    size_t ns = 0;
    for (size_t n = 1; n <= 40; n++)
        sizes[ns++] = n;
    sizes[ns++] = 71;
    sizes[ns++] = 150;
    return ns;
}

static inline void data_free(layer_data *d)
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

static inline double comp(rv3 v, int c) { return c == 0 ? v.x : c == 1 ? v.y : v.z; }
static inline int uses_ref(pb_blend_method m)
{
    return m == PB_BLEND_LOG_REF || m == PB_BLEND_RAW_REF;
}
static inline const char *mname(pb_blend_method m)
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

/* layer i's rotations, translations and scales as a blend pose */
static inline pb_cpose layer_pose(const layer_data *d, size_t i)
{
    pb_cpose p = {pb_cq(d->rot[i]), pb_cv(d->pos[i]), pb_cv(d->scale[i])};
    return p;
}

static inline void fill_layers(const layer_data *d, const lcase *cs, pb_blend_layer *bl,
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
static inline void reference(const layer_data *d, const lcase *cs, size_t j, rq *qo, rv3 *po,
                             rv3 *so, double *pmag)
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

static inline pb_status run_case(const layer_data *d, const lcase *cs, size_t n)
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

#endif /* PB_TESTS_LAYERS_UTIL_H */
