/*
 * The accuracy contract at any sample count k, any weight scale and any
 * conditioning (issue 14), against the double reference in ref.c /
 * ref_average.c, on whichever backend POSEBATCH_BACKEND selects:
 * - k growth: identical samples and random clustered samples, k = 1 .. 1e6
 *   (few joints, so the k = 1e6 cases stay fast on the scalar backend);
 * - weight scale: weights w and 2^e w, e over the whole float range
 *   (2^-149 .. 2^127): bit-identical results where the scaling is exact,
 *   within the bound always, never zero or NaN;
 * - conditioning: raw and raw_ref averages whose weighted sum nearly
 *   cancels, condition numbers up to 1e6, held to the header's bound;
 * - pb_pose_blend_layers: many layers, any weight units.
 * de Casteljau over all t and the log-space scales down to 1e-30 are in
 * test_accuracy_ranges.c.
 * PB_TEST_STATS=1 prints the largest errors.
 */
#include "accuracy_util.h"

/* ---- growth with k ------------------------------------------------------------ */

#define NJ_K 3
static const size_t k_list[] = {1, 2, 15, 16, 17, 64, 1000, 4511, 100000, 1000000};
#define NK (sizeof k_list / sizeof k_list[0])

/* Every kind at every k of k_list, NJ_K joints; the samples of one call are
 * either all the same pose (identical: every sample pointer names it) or
 * random within 20 degrees of a base pose per joint, random signs. Weights
 * 1/k (float) for the identical case, random in [0.5, 1.5] / k otherwise. */
static void run_k(int clustered, size_t kmax, uint64_t seed)
{
    rng_t r = rng_seed(seed);
    double worst[AV_COUNT] = {0};
    size_t worst_k[AV_COUNT] = {0};
    size_t bad = 0;
    for (size_t ki = 0; ki < NK && k_list[ki] <= kmax; ki++) {
        size_t k = k_list[ki];
        size_t distinct = clustered ? k : 1;
        avg_batch b = avg_batch_new(distinct, NJ_K, k);
        for (size_t j = 0; j < NJ_K; j++) {
            rq base = rng_quat(&r);
            fq_set(b.ref, j, rng_quat_near(&r, base, 1.0));
            for (size_t i = 0; i < distinct; i++)
                fq_set(b.data, i * NJ_K + j,
                       clustered ? rq_scale(rng_quat_near(&r, base, 0.35), rng_sign(&r)) : base);
        }
        for (size_t i = 0; i < k; i++) {
            b.s[i] = fq_c(b.data, (clustered ? i : 0) * NJ_K);
            b.w[i] = (float)((clustered ? rng_range(&r, 0.5, 1.5) : 1.0) / (double)k);
            b.wd[i] = b.w[i];
        }
        for (int kd = 0; kd < AV_COUNT; kd++) {
            memset(b.out.w, 0xff, NJ_K * sizeof(float));
            cr_assert_eq(av_call((av_kind)kd, NJ_K, k, fq_c(b.ref, 0), b.s, b.w, b.out), PB_OK);
            for (size_t j = 0; j < NJ_K; j++) {
                for (size_t i = 0; i < k; i++)
                    b.sd[i] = fq_get(b.data, (clustered ? i : 0) * NJ_K + j);
                double gap;
                rq want = reference((av_kind)kd, fq_get(b.ref, j), k, b.sd, b.wd, &gap);
                rq got = fq_get(b.out, j);
                double e = rq_angle_between(want, got), tol = tol_for((av_kind)kd, gap);
                if (!(e <= worst[kd]) || e != e) {
                    worst[kd] = e;
                    worst_k[kd] = k;
                }
                if (!(e <= tol) && bad++ < 12)
                    cr_expect(0, "%s %s k=%zu joint %zu: err %.3g rad > %.3g", av_name[kd],
                              clustered ? "clustered" : "identical", k, j, e, tol);
            }
        }
        avg_batch_del(b);
    }
    if (stats_on())
        for (int kd = 0; kd < AV_COUNT; kd++)
            fprintf(stderr, "k growth %s %-8s: max err %.3g rad (at k=%zu)\n",
                    clustered ? "clustered" : "identical", av_name[kd], worst[kd], worst_k[kd]);
    cr_expect(bad == 0, "%zu errors above the bound", bad);
}

Test(accuracy, k_growth_identical, .timeout = 120) { run_k(0, 1000000, 1401); }
Test(accuracy, k_growth_clustered, .timeout = 120) { run_k(1, 100000, 1402); }

/* pb_quat_reference_extract over 1e6 frames of 2 joints (clustered), and
 * over 4511 and 1e5 frames of identical poses. */
Test(accuracy, reference_extract_long_clips, .timeout = 120)
{
    static const size_t frames_l[] = {4511, 100000, 1000000};
    const size_t J = 2;
    rng_t r = rng_seed(1403);
    double worst = 0;
    for (size_t fi = 0; fi < 3; fi++)
        for (int clustered = 0; clustered < 2; clustered++) {
            size_t F = frames_l[fi];
            pb_quats poses = fq_new(F * J), out = fq_new(J);
            rq *sd = malloc(F * sizeof *sd);
            double *wd = malloc(F * sizeof *wd);
            cr_assert(sd && wd);
            for (size_t j = 0; j < J; j++) {
                rq base = rng_quat(&r);
                for (size_t f = 0; f < F; f++)
                    fq_set(poses, f * J + j,
                           clustered ? rq_scale(rng_quat_near(&r, base, 0.35), rng_sign(&r))
                                     : base);
            }
            pb_cquats in = fq_c(poses, 0);
            cr_assert_eq(pb_quat_reference_extract(F, J, in, out), PB_OK);
            for (size_t j = 0; j < J; j++) {
                for (size_t f = 0; f < F; f++) {
                    sd[f] = fq_get(poses, f * J + j);
                    wd[f] = 1.0;
                }
                double gap;
                rq want = ra_average_accurate(F, sd, wd, &gap);
                double e = rq_angle_between(want, fq_get(out, j)), tol = tol_for(AV_ACCURATE, gap);
                if (!(e <= worst))
                    worst = e;
                cr_expect(e <= tol && out.w[j] >= 0,
                          "reference_extract %s frames=%zu joint %zu: err %.3g rad > %.3g (w %g)",
                          clustered ? "clustered" : "identical", F, j, e, tol, (double)out.w[j]);
            }
            fq_free(poses);
            fq_free(out);
            free(sd);
            free(wd);
        }
    if (stats_on())
        fprintf(stderr, "reference_extract long clips: max err %.3g rad\n", worst);
}

/* pb_pose_blend of many poses (raw_ref rotations, positions, log-space
 * scales around a reference): rotations within the bound, positions within
 * 1e-6 of sum |w_i p_i|, scales within 2e-6 relative (scales within a factor
 * 2 of the reference here: |ln| <= 0.7). */
Test(accuracy, pose_blend_k_growth, .timeout = 120)
{
    static const size_t kl[] = {8, 1000, 100000};
    const size_t J = 3;
    rng_t r = rng_seed(1404);
    double wr = 0, wp = 0, ws = 0;
    for (size_t ki = 0; ki < 3; ki++)
        for (int method = 0; method < 2; method++) {
            size_t k = kl[ki];
            pb_quats rot = fq_new(k * J), refq = fq_new(J), outq = fq_new(J);
            float *pv = malloc(k * J * 3 * sizeof(float)), *sv = malloc(k * J * 3 * sizeof(float));
            float rp[3 * 3], rs[3 * 3], op[3 * 3], os[3 * 3];
            pb_cquats *rl = malloc(k * sizeof *rl);
            pb_cvec3s *pl = malloc(k * sizeof *pl), *sl = malloc(k * sizeof *sl);
            float *w = malloc(k * sizeof *w);
            rq *sd = malloc(k * sizeof *sd);
            double *wd = malloc(k * sizeof *wd);
            cr_assert(pv && sv && rl && pl && sl && w && sd && wd);
            for (size_t j = 0; j < J; j++) {
                rq base = rng_quat(&r);
                fq_set(refq, j, rng_quat_near(&r, base, 0.5));
                for (size_t i = 0; i < k; i++)
                    fq_set(rot, i * J + j, rq_scale(rng_quat_near(&r, base, 0.35), rng_sign(&r)));
                for (int c = 0; c < 3; c++) {
                    double p0 = rng_range(&r, -10, 10), s0 = rng_range(&r, 0.5, 2);
                    rp[c * 3 + j] = (float)p0;
                    rs[c * 3 + j] = (float)s0;
                    for (size_t i = 0; i < k; i++) {
                        pv[(i * 3 + (size_t)c) * J + j] = (float)(p0 + rng_range(&r, -1, 1));
                        sv[(i * 3 + (size_t)c) * J + j] = (float)(s0 * rng_range(&r, 0.5, 2));
                    }
                }
            }
            for (size_t i = 0; i < k; i++) {
                rl[i] = fq_c(rot, i * J);
                pb_cvec3s p = {pv + (i * 3) * J, pv + (i * 3 + 1) * J, pv + (i * 3 + 2) * J};
                pb_cvec3s sc = {sv + (i * 3) * J, sv + (i * 3 + 1) * J, sv + (i * 3 + 2) * J};
                pl[i] = p;
                sl[i] = sc;
                w[i] = (float)(rng_range(&r, 0.5, 1.5) / (double)k);
                wd[i] = w[i];
            }
            pb_cpose ref = {fq_c(refq, 0), {rp, rp + 3, rp + 6}, {rs, rs + 3, rs + 6}};
            pb_pose out = {outq, {op, op + 3, op + 6}, {os, os + 3, os + 6}};
            pb_blend_method m = method ? PB_BLEND_LOG_REF : PB_BLEND_RAW_REF;
            cr_assert_eq(pb_pose_blend(J, k, rl, pl, sl, w, m, &ref, &out), PB_OK);
            for (size_t j = 0; j < J; j++) {
                for (size_t i = 0; i < k; i++)
                    sd[i] = fq_get(rot, i * J + j);
                rq rj = fq_get(refq, j);
                rq want =
                    method ? ra_average_log_ref(rj, k, sd, wd) : ra_average_raw_ref(rj, k, sd, wd);
                double e = rq_angle_between(want, fq_get(outq, j));
                if (!(e <= wr))
                    wr = e;
                cr_expect(e <= TOL_ROT, "pose_blend %s k=%zu joint %zu: rotation err %.3g rad",
                          method ? "log_ref" : "raw_ref", k, j, e);
                for (int c = 0; c < 3; c++) {
                    double ps = 0, pa = 0, ls = 0, r0 = rp[c * 3 + j], s0 = rs[c * 3 + j];
                    for (size_t i = 0; i < k; i++) {
                        double p = pv[(i * 3 + (size_t)c) * J + j],
                               sc = sv[(i * 3 + (size_t)c) * J + j];
                        ps += wd[i] * (p - r0);
                        pa += fabs(wd[i] * p);
                        ls += wd[i] * log(sc / s0);
                    }
                    double pe = fabs(op[c * 3 + j] - (ps + r0)) / (pa > 1 ? pa : 1);
                    double sw = s0 * exp(ls), se = fabs(os[c * 3 + j] - sw) / sw;
                    if (!(pe <= wp))
                        wp = pe;
                    if (!(se <= ws))
                        ws = se;
                    cr_expect(pe <= 1e-6 && se <= (double)PB_ACCURACY_SCALE_REL,
                              "pose_blend k=%zu joint %zu axis %d: position err %.3g, scale err "
                              "%.3g relative",
                              k, j, c, pe, se);
                }
            }
            fq_free(rot);
            fq_free(refq);
            fq_free(outq);
            free(pv);
            free(sv);
            free(rl);
            free(pl);
            free(sl);
            free(w);
            free(sd);
            free(wd);
        }
    if (stats_on())
        fprintf(stderr, "pose_blend k growth: rotation %.3g rad, position %.3g, scale %.3g rel\n",
                wr, wp, ws);
}

/* ---- weight scale --------------------------------------------------------------- */

#define NJ_W 7
#define K_W 5

static int is_scale_free(av_kind kd) { return kd != AV_LOG && kd != AV_LOG_REF; }

/* For raw, raw_ref, basic and accurate (and pb_pose_blend's rotations by
 * raw, raw_ref and accurate): weights w_i in [0.1, 1] scaled by 2^e for every
 * e in [-149, 127]. Where every scaled weight is exact (scaling back gives
 * w_i), the output must be bitwise that of e = 0; always within the bound of
 * the double reference of the scaled float weights, unit, no NaN; all
 * weights flushed to zero give the identity (raw, basic, accurate) or the
 * reference (raw_ref). */
Test(accuracy, weight_scale_invariance, .timeout = 120)
{
    rng_t r = rng_seed(1405);
    pb_quats data = fq_new(K_W * NJ_W), ref = fq_new(NJ_W), out = fq_new(NJ_W),
             base_out = fq_new(NJ_W);
    pb_cquats s[K_W];
    float w0[K_W];
    for (size_t j = 0; j < NJ_W; j++) {
        rq b = rng_quat(&r);
        fq_set(ref, j, rng_quat_near(&r, b, 1.0));
        for (size_t i = 0; i < K_W; i++)
            fq_set(data, i * NJ_W + j, rq_scale(rng_quat_near(&r, b, 1.5), rng_sign(&r)));
    }
    for (size_t i = 0; i < K_W; i++) {
        s[i] = fq_c(data, i * NJ_W);
        w0[i] = (float)rng_range(&r, 0.1, 1.0);
    }
    w0[0] = 1.0f; /* the largest weight: 2^127 w0 stays finite */
    size_t bad = 0, bitdiff = 0;
    double worst = 0;
    for (int variant = 0; variant < AV_COUNT + 3; variant++) {
        av_kind kd = variant < AV_COUNT ? (av_kind)variant : AV_RAW;
        pb_blend_method bm = variant == AV_COUNT       ? PB_BLEND_RAW
                             : variant == AV_COUNT + 1 ? PB_BLEND_RAW_REF
                                                       : PB_BLEND_ACCURATE;
        int blend = variant >= AV_COUNT;
        if (!blend && !is_scale_free(kd))
            continue;
        if (blend)
            kd = bm == PB_BLEND_RAW ? AV_RAW : bm == PB_BLEND_RAW_REF ? AV_RAW_REF : AV_ACCURATE;
        const char *name = blend ? (bm == PB_BLEND_RAW       ? "pose_blend raw"
                                    : bm == PB_BLEND_RAW_REF ? "pose_blend raw_ref"
                                                             : "pose_blend accurate")
                                 : av_name[kd];
        for (int idx = 0; idx <= 277; idx++) {
            int e = idx == 0 ? 0 : 128 - idx; /* 0 first, then 127 .. -149 */
            float w[K_W];
            double wd[K_W];
            int exact = 1, nonzero = 0;
            for (size_t i = 0; i < K_W; i++) {
                w[i] = ldexpf(w0[i], e);
                wd[i] = w[i];
                exact &= ldexpf(w[i], -e) == w0[i];
                nonzero |= w[i] != 0.0f;
            }
            memset(out.w, 0xff, NJ_W * sizeof(float));
            pb_status st;
            if (blend) {
                pb_cpose rp = {fq_c(ref, 0), {0, 0, 0}, {0, 0, 0}};
                pb_pose op = {out, {0, 0, 0}, {0, 0, 0}};
                st = pb_pose_blend(NJ_W, K_W, s, NULL, NULL, w, bm, &rp, &op);
            } else {
                st = av_call(kd, NJ_W, K_W, fq_c(ref, 0), s, w, out);
            }
            cr_assert_eq(st, PB_OK);
            if (e == 0) {
                memcpy(base_out.w, out.w, sizeof(float) * NJ_W);
                memcpy(base_out.x, out.x, sizeof(float) * NJ_W);
                memcpy(base_out.y, out.y, sizeof(float) * NJ_W);
                memcpy(base_out.z, out.z, sizeof(float) * NJ_W);
            }
            for (size_t j = 0; j < NJ_W; j++) {
                rq got = fq_get(out, j), want;
                rq sd[K_W];
                for (size_t i = 0; i < K_W; i++)
                    sd[i] = fq_get(data, i * NJ_W + j);
                double gap = 1.0;
                if (nonzero)
                    want = reference(kd, fq_get(ref, j), K_W, sd, wd, &gap);
                else
                    want = kd == AV_RAW_REF ? rq_abs(fq_get(ref, j)) : rq_identity();
                double err = rq_angle_between(want, got), tol = tol_for(kd, gap);
                double norm = rq_norm(got);
                if (!(err <= worst))
                    worst = err;
                if ((!(err <= tol) || !(fabs(norm - 1) < 1e-6)) && bad++ < 12)
                    cr_expect(0, "%s weights x 2^%d joint %zu: err %.3g rad (tol %.3g), |q| %.9g",
                              name, e, j, err, tol, norm);
                if (exact &&
                    (memcmp(&out.w[j], &base_out.w[j], 4) || memcmp(&out.x[j], &base_out.x[j], 4) ||
                     memcmp(&out.y[j], &base_out.y[j], 4) ||
                     memcmp(&out.z[j], &base_out.z[j], 4)) &&
                    bitdiff++ < 12)
                    cr_expect(0, "%s weights x 2^%d joint %zu: not bitwise the 2^0 result", name, e,
                              j);
            }
        }
    }
    if (stats_on())
        fprintf(stderr, "weight scale: max err %.3g rad, %zu bit differences\n", worst, bitdiff);
    cr_expect(bad == 0 && bitdiff == 0, "%zu errors, %zu bit differences", bad, bitdiff);
    fq_free(data);
    fq_free(ref);
    fq_free(out);
    fq_free(base_out);
}

/* The cases: {1e20, 1e20, 1e20}, {FLT_MAX, FLT_MAX, FLT_MAX},
 * {2^-149, 0, 0}: a unit answer equal to the reference's, never zero or NaN. */
Test(accuracy, weight_extremes)
{
    static const float wl[][3] = {{1e20f, 1e20f, 1e20f},
                                  {FLT_MAX, FLT_MAX, FLT_MAX},
                                  {1.4e-45f, 0, 0},
                                  {0, 1.4e-45f, 1.4e-45f},
                                  {3e38f, 1e-30f, 2e38f}};
    rng_t r = rng_seed(1406);
    const size_t J = 9;
    pb_quats data = fq_new(3 * J), ref = fq_new(J), out = fq_new(J);
    pb_cquats s[3] = {fq_c(data, 0), fq_c(data, J), fq_c(data, 2 * J)};
    for (size_t j = 0; j < J; j++) {
        rq b = rng_quat(&r);
        fq_set(ref, j, rng_quat_near(&r, b, 1.0));
        for (size_t i = 0; i < 3; i++)
            fq_set(data, i * J + j, rq_scale(rng_quat_near(&r, b, 1.0), rng_sign(&r)));
    }
    for (size_t c = 0; c < sizeof wl / sizeof wl[0]; c++)
        for (int kd = 0; kd < AV_COUNT; kd++) {
            if (!is_scale_free((av_kind)kd))
                continue;
            double wd[3] = {wl[c][0], wl[c][1], wl[c][2]};
            memset(out.w, 0xff, J * sizeof(float));
            cr_assert_eq(av_call((av_kind)kd, J, 3, fq_c(ref, 0), s, wl[c], out), PB_OK);
            for (size_t j = 0; j < J; j++) {
                rq sd[3] = {fq_get(data, j), fq_get(data, J + j), fq_get(data, 2 * J + j)};
                double gap;
                rq want = reference((av_kind)kd, fq_get(ref, j), 3, sd, wd, &gap);
                rq got = fq_get(out, j);
                double e = rq_angle_between(want, got);
                cr_expect(e <= tol_for((av_kind)kd, gap) && fabs(rq_norm(got) - 1) < 1e-6,
                          "%s weights {%g, %g, %g} joint %zu: err %.3g rad, got (%g, %g, %g, %g)",
                          av_name[kd], (double)wl[c][0], (double)wl[c][1], (double)wl[c][2], j, e,
                          got.w, got.x, got.y, got.z);
            }
        }
    fq_free(data);
    fq_free(ref);
    fq_free(out);
}

/* ---- conditioning --------------------------------------------------------------- */

/* The condition number the header defines for raw and raw_ref:
 * kappa = sum_i |w_i| / |sum_i w_i sigma_i s_i| (sigma_i the hemisphere sign
 * the formula gives sample i), in double from the float inputs. */
static double kappa_of(av_kind kd, rq ref, size_t k, const rq *s, const double *w)
{
    rq acc = rq_make(0, 0, 0, 0);
    double sw = 0;
    for (size_t i = 0; i < k; i++) {
        double side = kd == AV_RAW_REF ? rq_dot(ref, s[i]) : s[i].w;
        acc = rq_add(acc, rq_scale(s[i], side < 0 ? -w[i] : w[i]));
        sw += fabs(w[i]) * rq_norm(s[i]);
    }
    return sw / rq_norm(acc);
}

/* Cancelling sums: raw: samples of nearly the same rotation of nearly 180
 * degrees (|w| >= 1e-3, so the hemisphere is not in doubt), with both signs
 * of w, the weights of the two groups balanced to 1 - delta, delta
 * log-uniform in [1e-6, 1]; raw_ref: samples near q, the reference near 90
 * degrees from them (|ref . s_i| >= 1e-3) on both sides. k from 2 to 4096.
 * The error is held to the header's bound 2e-6 + 1.2e-7 kappa rad. */
Test(accuracy, conditioning_raw_and_raw_ref, .timeout = 120)
{
    static const size_t kl[] = {2, 3, 8, 64, 1000, 4096};
    rng_t r = rng_seed(1407);
    const size_t J = 16;
    size_t bad = 0;
    double worst_ratio = 0, worst_kappa = 0;
    for (int kd = AV_RAW; kd <= AV_RAW_REF; kd += 2)
        for (size_t ki = 0; ki < sizeof kl / sizeof kl[0]; ki++)
            for (int rep = 0; rep < (kl[ki] > 100 ? 4 : 40); rep++) {
                size_t k = kl[ki];
                avg_batch b = avg_batch_new(k, J, k);
                double delta = rng_logrange(&r, 1e-6, 1.0);
                for (size_t i = 0; i < k; i++) {
                    double g = (i & 1) ? 1.0 - delta : 1.0;
                    b.w[i] = (float)(g * 2.0 / (double)k);
                    b.wd[i] = b.w[i];
                    b.s[i] = fq_c(b.data, i * J);
                }
                for (size_t j = 0; j < J; j++) {
                    double a = rng_logrange(&r, kd == AV_RAW ? 5e-7 : 2.5e-6, 4e-3),
                           pert = a * rng_range(&r, 0, 0.25);
                    rq q = rng_quat(&r), rf = q, o = rng_quat(&r);
                    o = rq_normalize(rq_sub(o, rq_scale(q, rq_dot(o, q))));
                    if (kd == AV_RAW) /* angle pi - 2a: w = a */
                        q = rq_make(a, o.x, o.y, o.z);
                    else /* rf nearly orthogonal to q, tilted by less than a */
                        rf = rq_normalize(
                            rq_add(o, rq_scale(q, rng_sign(&r) * a * rng_range(&r, 0, 0.5))));
                    q = rq_normalize(q);
                    fq_set(b.ref, j, rf);
                    for (size_t i = 0; i < k; i++) {
                        /* raw reads the sign of w itself; raw_ref a float dot */
                        double want = (i & 1) ? -1.0 : 1.0, side, thr = kd == AV_RAW ? 0 : 1e-6;
                        rq si;
                        int tries = 0;
                        do { /* sample i on side want, clear of the border */
                            rq p = rq_scale(rng_quat(&r), pert);
                            if (kd == AV_RAW) {
                                si = rq_round(rq_normalize(rq_add(q, p)));
                                if (si.w * want < 0)
                                    si.w = -si.w; /* nearly the same rotation */
                                side = si.w;
                            } else {
                                si = rq_round(
                                    rq_normalize(rq_add(rq_add(q, rq_scale(o, want * a)), p)));
                                side = rq_dot(rf, si);
                            }
                        } while (!(side * want > thr) && ++tries < 1000);
                        cr_assert(side * want > thr);
                        fq_set(b.data, i * J + j, si);
                    }
                }
                memset(b.out.w, 0xff, J * sizeof(float));
                cr_assert_eq(av_call((av_kind)kd, J, k, fq_c(b.ref, 0), b.s, b.w, b.out), PB_OK);
                for (size_t j = 0; j < J; j++) {
                    for (size_t i = 0; i < k; i++)
                        b.sd[i] = fq_get(b.data, i * J + j);
                    rq rf = fq_get(b.ref, j), want;
                    double gap, kap = kappa_of((av_kind)kd, rf, k, b.sd, b.wd);
                    want = reference((av_kind)kd, rf, k, b.sd, b.wd, &gap);
                    double e = rq_angle_between(want, fq_get(b.out, j));
                    double tol = TOL_ROT + 1.2e-7 * kap;
                    if (kap > worst_kappa)
                        worst_kappa = kap;
                    if (e / tol > worst_ratio)
                        worst_ratio = e / tol;
                    if (!(e <= tol) && bad++ < 12)
                        cr_expect(0, "%s k=%zu joint %zu kappa %.3g: err %.3g rad > %.3g",
                                  av_name[kd], k, j, kap, e, tol);
                }
                avg_batch_del(b);
            }
    if (stats_on())
        fprintf(stderr, "conditioning: worst err / bound %.3g, kappa up to %.3g\n", worst_ratio,
                worst_kappa);
    cr_expect(bad == 0, "%zu errors above the bound", bad);
}

/* ---- pb_pose_blend_layers: many layers, any weight units -------------------------- */

/* k blended layers of J joints (raw_ref and log_ref rotations, positions,
 * linear scales), k up to 1e5: rotations within 2e-6 rad of the double
 * reference with the weights e_i / T, positions within 1e-6 of sum |e_i p_i|
 * / T; then every layer weight scaled by 2^e (e = -140 .. 120 in steps of
 * 20): bitwise the same output where the scaling is exact. */
Test(accuracy, layers_k_growth_and_weight_scale, .timeout = 120)
{
    static const size_t kl[] = {3, 40, 100000};
    const size_t J = 3;
    rng_t r = rng_seed(1410);
    double wr = 0, wp = 0;
    size_t bitdiff = 0;
    for (size_t ki = 0; ki < 3; ki++)
        for (int method = 0; method < 2; method++) {
            size_t k = kl[ki];
            pb_quats rot = fq_new(k * J), refq = fq_new(J), outq = fq_new(J), keep = fq_new(J);
            float *pv = malloc(k * J * 3 * sizeof(float)), *sv = malloc(k * J * 3 * sizeof(float));
            float op[9], os[9], opk[9];
            pb_blend_layer *L = malloc(k * sizeof *L);
            float *w0 = malloc(k * sizeof *w0);
            rq *sd = malloc(k * sizeof *sd);
            double *wd = malloc(k * sizeof *wd);
            cr_assert(pv && sv && L && w0 && sd && wd);
            for (size_t j = 0; j < J; j++) {
                rq base = rng_quat(&r);
                fq_set(refq, j, rng_quat_near(&r, base, 0.5));
                for (size_t i = 0; i < k; i++)
                    fq_set(rot, i * J + j, rq_scale(rng_quat_near(&r, base, 0.35), rng_sign(&r)));
            }
            for (size_t x = 0; x < k * J * 3; x++) {
                pv[x] = (float)rng_range(&r, -10, 10);
                sv[x] = (float)rng_range(&r, 0.5, 2);
            }
            double T = 0;
            for (size_t i = 0; i < k; i++) {
                w0[i] = (float)rng_range(&r, 0.5, 1.5);
                T += w0[i];
            }
            for (size_t i = 0; i < k; i++)
                wd[i] = w0[i] / T;
            pb_cpose ref = {fq_c(refq, 0), {0, 0, 0}, {0, 0, 0}};
            pb_pose out = {outq, {op, op + 3, op + 6}, {os, os + 3, os + 6}};
            for (int idx = 0; idx <= 13; idx++) {
                int e = idx == 0 ? 0 : 140 - 20 * idx; /* 0, then 120 .. -140 */
                int exact = 1;
                for (size_t i = 0; i < k; i++) {
                    float we = ldexpf(w0[i], e);
                    exact &= ldexpf(we, -e) == w0[i];
                    L[i].weight = we;
                    L[i].joint_weights = NULL;
                    L[i].pose.rot = fq_c(rot, i * J);
                    L[i].pose.pos =
                        (pb_cvec3s){pv + i * 3 * J, pv + i * 3 * J + J, pv + i * 3 * J + 2 * J};
                    L[i].pose.scale =
                        (pb_cvec3s){sv + i * 3 * J, sv + i * 3 * J + J, sv + i * 3 * J + 2 * J};
                }
                pb_blend_desc d = {J,
                                   L,
                                   k,
                                   NULL,
                                   0,
                                   method ? PB_BLEND_LOG_REF : PB_BLEND_RAW_REF,
                                   PB_BLEND_LINEAR_SCALE,
                                   &ref};
                cr_assert_eq(pb_pose_blend_layers(&d, &out), PB_OK);
                if (e == 0) {
                    memcpy(keep.w, outq.w, J * 4);
                    memcpy(keep.x, outq.x, J * 4);
                    memcpy(keep.y, outq.y, J * 4);
                    memcpy(keep.z, outq.z, J * 4);
                    memcpy(opk, op, sizeof op);
                    for (size_t j = 0; j < J; j++) {
                        for (size_t i = 0; i < k; i++)
                            sd[i] = fq_get(rot, i * J + j);
                        rq rj = fq_get(refq, j);
                        rq want = method ? ra_average_log_ref(rj, k, sd, wd)
                                         : ra_average_raw_ref(rj, k, sd, wd);
                        double er = rq_angle_between(want, fq_get(outq, j));
                        if (!(er <= wr))
                            wr = er;
                        cr_expect(er <= TOL_ROT, "layers %s k=%zu joint %zu: rotation err %.3g rad",
                                  method ? "log_ref" : "raw_ref", k, j, er);
                        for (int c = 0; c < 3; c++) {
                            double ps = 0, pa = 0;
                            for (size_t i = 0; i < k; i++) {
                                double p = pv[i * 3 * J + (size_t)c * J + j];
                                ps += wd[i] * p;
                                pa += fabs(wd[i] * p);
                            }
                            double pe = fabs(op[c * 3 + j] - ps) / (pa > 1 ? pa : 1);
                            if (!(pe <= wp))
                                wp = pe;
                            cr_expect(pe <= 1e-6,
                                      "layers k=%zu joint %zu axis %d: position err %.3g", k, j, c,
                                      pe);
                        }
                    }
                } else if (exact &&
                           (memcmp(keep.w, outq.w, J * 4) || memcmp(keep.x, outq.x, J * 4) ||
                            memcmp(keep.y, outq.y, J * 4) || memcmp(keep.z, outq.z, J * 4) ||
                            memcmp(opk, op, sizeof op))) {
                    if (bitdiff++ < 8)
                        cr_expect(0, "layers %s k=%zu weights x 2^%d: not bitwise the 2^0 result",
                                  method ? "log_ref" : "raw_ref", k, e);
                }
            }
            fq_free(rot);
            fq_free(refq);
            fq_free(outq);
            fq_free(keep);
            free(pv);
            free(sv);
            free(L);
            free(w0);
            free(sd);
            free(wd);
        }
    if (stats_on())
        fprintf(stderr, "layers: rotation %.3g rad, position %.3g, %zu bit differences\n", wr, wp,
                bitdiff);
    cr_expect(bitdiff == 0, "%zu weight scales not bitwise", bitdiff);
}
