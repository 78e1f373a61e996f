/*
 * pb_pose_blend_layers (include/posebatch.h): the equivalences that hold
 * bit for bit.
 *
 * layers/output_layouts_give_the_same_values
 *     the outputs' layout changes nothing.
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
 */
#include "layers_util.h"

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
                            bl[i].pose = layer_pose(&d, i % LK);
                        }
                        memset(al, 0, sizeof al);
                        al[0].weight = 0.75f;
                        al[0].pose = layer_pose(&d, LK);
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
