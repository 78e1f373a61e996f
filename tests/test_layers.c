/*
 * Tests of pb_pose_blend_layers (include/posebatch.h) against a double
 * reference: joint weights, relative weights, additive layers, linear or
 * log-space scales. The equivalences that hold bit for bit are in
 * test_layers_identities.c, the errors in test_layers_errors.c.
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
 * layers/scales_near_and_far_are_each_their_own
 *     log-space scales within e^0.05 to e^0.8 of the reference (blocks
 *     whose exponential skips its reduction, and blocks that mix both):
 *     within 4e-7 relative of the double reference near the reference (2e-6
 *     + 1.2e-7 L further), and each joint's bits those it gets blended
 *     alone; both log-space methods, masks or not, joint counts 1..40, 71,
 *     150.
 * layers/raw_many_layers_follow_the_running_sum
 *     raw without a reference over 17, 33 and 64 layers (more than one
 *     block of 16): each layer's hemisphere chosen against the running sum
 *     of every layer before it, the double running sum's result.
 */
#include "layers_util.h"

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

/* PB_BLEND_RAW without a reference over more layers than one block of 16
 * (17, 33, 64: a partial second block, whole blocks and a tail, four whole
 * blocks): every layer summed in the hemisphere of the running sum of all
 * the layers before it, the earlier blocks' included, against the double
 * running sum (ra_average_running) with the weights e_ij / T_j. Layers
 * within 1 rad of a joint's base rotation, each with a random sign (so
 * that about half of them must be flipped by the running sum), weights
 * 0.1 .. 3, with and without joint weights (0.2 .. 1.5; the uniform
 * instance and the per-joint one), positions and linear or log-space
 * scales present or rotations alone (the kernel's instances), joint counts
 * 1..20 and 71. Tolerance: the raw average's 2e-6 + 1.2e-7 kappa rad. */
Test(layers, raw_many_layers_follow_the_running_sum, .timeout = 60)
{
    static const size_t kl[] = {17, 33, 64};
    enum { MJ = 71 };
    rng_t r = rng_seed(7077);
    ref_track tr;
    rt_init(&tr, "raw, many layers, no reference (rad, tol 2e-6 + 1.2e-7 kappa)");
    size_t cnum = 0;
    for (size_t ki = 0; ki < sizeof kl / sizeof kl[0]; ki++) {
        const size_t k = kl[ki];
        pb_quats rot = fq_alloc(k * MJ), orot = fq_alloc(MJ);
        pb_vec3s pos = fv_alloc(k * MJ), scl = fv_alloc(k * MJ), opos = fv_alloc(MJ),
                 oscl = fv_alloc(MJ);
        float *w = falloc(k), *jw = falloc(k * MJ);
        pb_blend_layer *L = calloc(k, sizeof *L);
        rq *smp = malloc(k * sizeof *smp);
        double *wn = malloc(k * sizeof *wn);
        cr_assert(L && smp && wn);
        for (size_t j = 0; j < MJ; j++) {
            rq base = rng_quat(&r);
            for (size_t i = 0; i < k; i++) {
                fq_set(rot, i * MJ + j, rq_scale(rng_quat_near(&r, base, 1.0), rng_sign(&r)));
                fv_set(pos, i * MJ + j, rng_vec3(&r, 3.0));
                fv_set(scl, i * MJ + j,
                       rv3_make(rng_logrange(&r, 0.6, 1.6), rng_logrange(&r, 0.6, 1.6),
                                rng_logrange(&r, 0.6, 1.6)));
                jw[i * MJ + j] = (float)rng_range(&r, 0.2, 1.5);
            }
        }
        for (size_t i = 0; i < k; i++)
            w[i] = (float)rng_range(&r, 0.1, 3.0);
        for (int masks = 0; masks < 2; masks++)
            for (int tracks = 0; tracks < 3; tracks++) /* rotations alone, log, linear scales */
                for (size_t n = 1; n <= MJ; n = n == 20 ? MJ : n + 1) {
                    for (size_t i = 0; i < k; i++) {
                        L[i].weight = w[i];
                        L[i].joint_weights = masks ? jw + i * MJ : NULL;
                        L[i].pose.rot = pb_cq((pb_quats){rot.w + i * MJ, rot.x + i * MJ,
                                                         rot.y + i * MJ, rot.z + i * MJ});
                        L[i].pose.pos =
                            pb_cv((pb_vec3s){pos.x + i * MJ, pos.y + i * MJ, pos.z + i * MJ});
                        L[i].pose.scale =
                            pb_cv((pb_vec3s){scl.x + i * MJ, scl.y + i * MJ, scl.z + i * MJ});
                    }
                    pb_blend_desc desc = {
                        n,   L, k, NULL, 0, PB_BLEND_RAW, tracks == 2 ? PB_BLEND_LINEAR_SCALE : 0u,
                        NULL};
                    pb_pose out = {orot, {0, 0, 0}, {0, 0, 0}};
                    if (tracks) {
                        out.pos = opos;
                        out.scale = oscl;
                    }
                    fq_fill_nan(orot, MJ);
                    cr_assert_eq(pb_pose_blend_layers(&desc, &out), PB_OK);
                    for (size_t j = 0; j < n; j++) {
                        double t = 0, wsum = 0;
                        for (size_t i = 0; i < k; i++) {
                            smp[i] = fq_get(rot, i * MJ + j);
                            wn[i] = (double)w[i] * (masks ? (double)jw[i * MJ + j] : 1.0);
                            t += wn[i];
                        }
                        rq acc = rq_make(0, 0, 0, 0); /* kappa: the signed sum's length */
                        for (size_t i = 0; i < k; i++) {
                            wn[i] /= t;
                            double side = i == 0 ? smp[i].w : rq_dot(acc, smp[i]);
                            acc = rq_add(acc, rq_scale(smp[i], side < 0 ? -wn[i] : wn[i]));
                            wsum += wn[i];
                        }
                        rq want = ra_average_running(k, smp, wn);
                        rq got = fq_get(orot, j);
                        double kappa = wsum / rq_norm(acc), tol = 2e-6 + 1.2e-7 * kappa;
                        double e = rq_angle_between(want, got);
                        if (rt_add(&tr, cnum++, e, e / tol) || !(got.w >= 0))
                            rt_note(&tr,
                                    "k=%zu masks %d tracks %d n=%zu joint %zu: " RQ_FMT
                                    " vs " RQ_FMT " (kappa %.3g)",
                                    k, masks, tracks, n, j, RQ_ARG(got), RQ_ARG(want), kappa);
                        cr_expect(got.w >= 0, "k=%zu n=%zu: w < 0 at joint %zu", k, n, j);
                    }
                }
        fq_free(rot);
        fq_free(orot);
        fv_free(pos);
        fv_free(scl);
        fv_free(opos);
        fv_free(oscl);
        free(w);
        free(jw);
        free(L);
        free(smp);
        free(wn);
    }
    RT_EXPECT(tr);
}
