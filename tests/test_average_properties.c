/*
 * Properties of the weighted averages and pb_quat_reference_extract:
 * order and sign invariance, one-hot and identical samples, k = 1, zero
 * accumulations, the reference's norm, orthogonal samples, +-170 degrees
 * around the reference. The tolerances are those of average_util.h.
 */
#include "average_util.h"

/* ---- properties --------------------------------------------------------------- */

static double angle_out(pb_quats a, pb_quats b, size_t j)
{
    return rq_angle_between(fq_get(a, j), fq_get(b, j));
}

Test(average, accurate_order_and_sign_invariant)
{
    const size_t n = 4000;
    static const size_t ks[] = {2, 3, 5, 8};
    rng_t r = rng_seed(555);
    size_t checked = 0, fails_perm = 0, fails_sign = 0, reports = 0;
    double max_perm = 0, max_sign = 0;
    for (size_t ki = 0; ki < 4; ki++) {
        size_t k = ks[ki];
        for (int dm = 0; dm < 2; dm++) {
            av_set d, p, f;
            set_alloc(&d, n, k);
            set_alloc(&p, n, k);
            set_alloc(&f, n, k);
            gen_weights(&r, k, W_NORM, d.w);
            gen_data(&r, &d, (data_mode)dm);
            size_t perm[MAXK];
            for (size_t i = 0; i < k; i++)
                perm[i] = i;
            for (size_t i = k - 1; i > 0; i--) { /* Fisher-Yates, never identity for k >= 2 */
                size_t j = (size_t)(rng_uniform(&r) * (double)i);
                size_t t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            for (size_t i = 0; i < k; i++) {
                p.w[i] = d.w[perm[i]];
                f.w[i] = d.w[i];
                for (size_t j = 0; j < n; j++) {
                    fq_set(p.s[i], j, fq_get(d.s[perm[i]], j));
                    double sg = rng_sign(&r);
                    fq_set(f.s[i], j, rq_scale(fq_get(d.s[i], j), sg));
                }
            }
            cr_assert_eq(pb_quat_average_accurate(n, k, d.cs, d.w, d.out), PB_OK);
            cr_assert_eq(pb_quat_average_accurate(n, k, p.cs, p.w, p.out), PB_OK);
            cr_assert_eq(pb_quat_average_accurate(n, k, f.cs, f.w, f.out), PB_OK);
            double w[MAXK];
            for (size_t i = 0; i < k; i++)
                w[i] = d.w[i];
            for (size_t j = 0; j < n; j++) {
                rq s[MAXK];
                for (size_t i = 0; i < k; i++)
                    s[i] = fq_get(d.s[i], j);
                double gap;
                rq want = ra_average_accurate(k, s, w, &gap);
                double tol = acc_tol(gap);
                checked++;
                /* each result within the header's bound of the reference (so,
                 * by the triangle inequality, within twice it of each other) */
                double e0 = rq_angle_between(want, fq_get(d.out, j));
                double ep = angle_out(d.out, p.out, j), es = angle_out(d.out, f.out, j);
                double ep_ref = rq_angle_between(want, fq_get(p.out, j));
                double es_ref = rq_angle_between(want, fq_get(f.out, j));
                if (ep > max_perm || isnan(ep))
                    max_perm = ep;
                if (es > max_sign || isnan(es))
                    max_sign = es;
                int bp = !(ep <= 2 * tol) || !(ep_ref <= tol) || fq_get(p.out, j).w < 0;
                int bs = !(es <= 2 * tol) || !(es_ref <= tol) || fq_get(f.out, j).w < 0;
                fails_perm += bp;
                fails_sign += bs;
                if ((bp || bs) && reports++ < MAX_REPORTS) {
                    char b0[128], b1[128], b2[128];
                    fmt_q(b0, sizeof b0, fq_get(d.out, j));
                    fmt_q(b1, sizeof b1, fq_get(p.out, j));
                    fmt_q(b2, sizeof b2, fq_get(f.out, j));
                    cr_expect(0,
                              "accurate invariance: joint %zu k=%zu gap %.3g (tol %.3g): "
                              "original %s (%.3g rad from reference) permuted %s (%.3g rad "
                              "from original, %.3g from reference) sign-flipped %s (%.3g rad "
                              "from original, %.3g from reference)",
                              j, k, gap, tol, b0, e0, b1, ep, ep_ref, b2, es, es_ref);
                }
            }
            set_free(&d);
            set_free(&p);
            set_free(&f);
        }
    }
    if (stats_on())
        fprintf(stderr, "[stat] accurate invariance: %zu cases, max perm %.3g, max sign %.3g\n",
                checked, max_perm, max_sign);
    cr_expect(fails_perm == 0 && fails_sign == 0,
              "accurate: permuted %zu, sign-flipped %zu of %zu results off (> max(2e-6, "
              "4e-7 / gap) rad from the reference, > 2 x that from the original, or w < 0; "
              "max change %.3g / %.3g rad)",
              fails_perm, fails_sign, checked, max_perm, max_sign);
}

Test(average, log_ref_one_hot_weight_returns_sample)
{
    const size_t n = 1001, k = 4;
    rng_t r = rng_seed(4242);
    for (int dm = 0; dm < 2; dm++)
        for (size_t hot = 0; hot < k; hot++) {
            av_set d;
            set_alloc(&d, n, k);
            gen_data(&r, &d, (data_mode)dm);
            for (size_t i = 0; i < k; i++)
                d.w[i] = i == hot ? 1.0f : 0.0f;
            cr_assert_eq(pb_quat_average_log_ref(n, k, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
            for (size_t j = 0; j < n; j++) {
                rq s = fq_get(d.s[hot], j), got = fq_get(d.out, j);
                double e = rq_angle_between(s, got);
                cr_expect(e <= TOL_ROT,
                          "log_ref one-hot: joint %zu sample %zu (%.9g, %.9g, %.9g, %.9g) got "
                          "(%.9g, %.9g, %.9g, %.9g) err %.3g rad",
                          j, hot, s.w, s.x, s.y, s.z, got.w, got.x, got.y, got.z, e);
                if (!(e <= TOL_ROT))
                    break;
            }
            set_free(&d);
        }
}

/* K identical samples (weights summing to 1) return the sample, any kind */
Test(average, identical_samples_return_the_sample)
{
    const size_t n = 1001;
    static const size_t ks[] = {1, 2, 3, 8, 17};
    rng_t r = rng_seed(99);
    for (int kind = 0; kind < AV_COUNT; kind++)
        for (size_t ki = 0; ki < 5; ki++) {
            size_t k = ks[ki];
            av_set d;
            set_alloc(&d, n, k);
            gen_weights(&r, k, W_NORM, d.w);
            for (size_t j = 0; j < n; j++) {
                rq q = rng_quat(&r);
                fq_set(d.ref, j, rng_quat(&r));
                for (size_t i = 0; i < k; i++)
                    fq_set(d.s[i], j, q);
            }
            cr_assert_eq(av_call((av_kind)kind, n, k, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
            size_t bad = 0;
            for (size_t j = 0; j < n; j++) {
                rq s = fq_get(d.s[0], j), got = fq_get(d.out, j);
                double e = rq_angle_between(s, got);
                if (!(e <= TOL_ROT) && bad++ < 3)
                    cr_expect(0,
                              "%s identical k=%zu: joint %zu sample (%.9g, %.9g, %.9g, %.9g) got "
                              "(%.9g, %.9g, %.9g, %.9g) err %.3g rad",
                              av_name[kind], k, j, s.w, s.x, s.y, s.z, got.w, got.x, got.y, got.z,
                              e);
            }
            cr_expect(bad == 0, "%s identical k=%zu: %zu of %zu joints off", av_name[kind], k, bad,
                      n);
            set_free(&d);
        }
}

/* k == 1 returns the canonicalised sample (w >= 0), for weight 1 (and, for the
 * scale-free kinds, any positive weight) */
Test(average, k1_returns_canonical_sample)
{
    const size_t n = 1001;
    static const float wts[] = {1.0f, 0.37f, 2.5f};
    rng_t r = rng_seed(11);
    for (int kind = 0; kind < AV_COUNT; kind++)
        for (int wi = 0; wi < 3; wi++) {
            if ((kind == AV_LOG || kind == AV_LOG_REF) && wi > 0)
                continue; /* linear in the weight */
            av_set d;
            set_alloc(&d, n, 1);
            d.w[0] = wts[wi];
            for (size_t j = 0; j < n; j++) {
                rq q;
                do
                    q = rng_quat(&r);
                while (fabs(q.w) < 1e-3);
                fq_set(d.s[0], j, q);
                fq_set(d.ref, j, rng_quat(&r));
            }
            cr_assert_eq(av_call((av_kind)kind, n, 1, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
            size_t bad = 0;
            for (size_t j = 0; j < n; j++) {
                rq s = rq_abs(fq_get(d.s[0], j)), got = fq_get(d.out, j);
                double e = rq_angle_between(s, got);
                int ok = e <= TOL_ROT && rq_dot(s, got) > 0;
                if (!ok && bad++ < 3)
                    cr_expect(0,
                              "%s k=1 weight %g: joint %zu abs(sample) (%.9g, %.9g, %.9g, %.9g) "
                              "got (%.9g, %.9g, %.9g, %.9g) err %.3g rad",
                              av_name[kind], (double)wts[wi], j, s.w, s.x, s.y, s.z, got.w, got.x,
                              got.y, got.z, e);
            }
            cr_expect(bad == 0, "%s k=1: %zu of %zu joints not the canonical sample", av_name[kind],
                      bad, n);
            set_free(&d);
        }
}

/* all weights zero, and samples that cancel exactly (weights +w, -w on the
 * same sample): the accumulation is exactly zero on every backend, so the
 * result is exactly the identity (raw, basic, accurate: the header's rule),
 * log gives exp(0) (the identity, within the rotation accuracy), and raw_ref /
 * log_ref the reference (canonicalised, within the rotation accuracy); never
 * a zero quaternion */
Test(average, zero_accumulation_gives_identity_or_reference)
{
    const size_t n = 37, k = 2;
    rng_t r = rng_seed(5);
    static const char *const mname[3] = {"zero weights", "cancelling samples (+-1)",
                                         "cancelling samples (+-0.3712)"};
    for (int mode = 0; mode < 3; mode++)
        for (int kind = 0; kind < AV_COUNT; kind++) {
            av_set d;
            set_alloc(&d, n, k);
            gen_data(&r, &d, DATA_WIDE);
            if (mode == 0) {
                d.w[0] = d.w[1] = 0.0f;
            } else {
                d.w[0] = mode == 1 ? 1.0f : 0.3712f;
                d.w[1] = -d.w[0];
                for (size_t j = 0; j < n; j++)
                    fq_set(d.s[1], j, fq_get(d.s[0], j));
            }
            cr_assert_eq(av_call((av_kind)kind, n, k, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
            for (size_t j = 0; j < n; j++) {
                rq got = fq_get(d.out, j);
                rq want = uses_ref((av_kind)kind) ? fq_get(d.ref, j) : rq_identity();
                double e = rq_angle_between(want, got), nrm = rq_norm(got);
                int exact_id = kind == AV_RAW || kind == AV_BASIC || kind == AV_ACCURATE;
                if (exact_id)
                    cr_expect(got.w == 1.0 && got.x == 0.0 && got.y == 0.0 && got.z == 0.0,
                              "%s %s: joint %zu got (%.9g, %.9g, %.9g, %.9g), expected exactly "
                              "the identity",
                              av_name[kind], mname[mode], j, got.w, got.x, got.y, got.z);
                cr_expect(e <= TOL_ROT && fabs(nrm - 1) < 1e-6,
                          "%s %s: joint %zu expected (%.9g, %.9g, %.9g, %.9g) got "
                          "(%.9g, %.9g, %.9g, %.9g) (norm %.9g) err %.3g rad",
                          av_name[kind], mname[mode], j, want.w, want.x, want.y, want.z, got.w,
                          got.x, got.y, got.z, nrm, e);
            }
            set_free(&d);
        }
}

/* raw_ref: ref picks each sample's hemisphere and nothing else (header), so a
 * ref scaled by 3 or by 1e-3 gives the unit ref's result, unit */
Test(average, raw_ref_independent_of_ref_norm)
{
    const size_t n = 1000, k = 4;
    rng_t r = rng_seed(77);
    av_set d;
    set_alloc(&d, n, k);
    gen_data(&r, &d, DATA_WIDE);
    gen_weights(&r, k, W_NORM, d.w);
    pb_quats unit_out = fq_alloc(n);
    cr_assert_eq(pb_quat_average_raw_ref(n, k, pb_cq(d.ref), d.cs, d.w, unit_out), PB_OK);
    static const double scales[2] = {3.0, 1e-3};
    for (int si = 0; si < 2; si++) {
        pb_quats ref = fq_alloc(n);
        for (size_t j = 0; j < n; j++)
            fq_set(ref, j, rq_scale(fq_get(d.ref, j), scales[si]));
        cr_assert_eq(pb_quat_average_raw_ref(n, k, pb_cq(ref), d.cs, d.w, d.out), PB_OK);
        size_t bad = 0;
        for (size_t j = 0; j < n; j++) {
            rq want = fq_get(unit_out, j), got = fq_get(d.out, j);
            if (!(rq_angle_between(want, got) <= TOL_ROT && fabs(rq_norm(got) - 1) < 1e-6) &&
                bad++ < 3)
                cr_expect(0,
                          "ref scaled by %g: joint %zu got (%.9g, %.9g, %.9g, %.9g), unit ref "
                          "gives (%.9g, %.9g, %.9g, %.9g)",
                          scales[si], j, got.w, got.x, got.y, got.z, want.w, want.x, want.y,
                          want.z);
        }
        cr_expect(bad == 0, "ref scaled by %g: %zu of %zu joints differ", scales[si], bad, n);
        fq_free(ref);
    }
    fq_free(unit_out);
    set_free(&d);
}

/* 180-degree rotations about x, y, z with equal weights: every sample is
 * orthogonal to the identity (the text's power iteration returns zero there).
 * The top eigenspace is span{x, y, z}: any unit vector in it is valid. */
Test(average, accurate_all_orthogonal_is_unit)
{
    const size_t n = 9;
    static const float wsets[3][4] = {{1, 1, 1, 0}, {0.25f, 0.25f, 0.25f, 0.25f}, {1, 1, 0, 0}};
    static const size_t kset[3] = {3, 4, 2};
    for (int c = 0; c < 3; c++) {
        size_t k = kset[c];
        av_set d;
        set_alloc(&d, n, k);
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < k; i++) {
                rq q = rq_make(i == 3, i == 0, i == 1, i == 2); /* x, y, z, identity */
                if (j & 1)
                    q = rq_neg(q);
                fq_set(d.s[i], j, q);
            }
        memcpy(d.w, wsets[c], sizeof(float) * k);
        cr_assert_eq(pb_quat_average_accurate(n, k, d.cs, d.w, d.out), PB_OK);
        double wd[4] = {wsets[c][0], wsets[c][1], wsets[c][2], wsets[c][3]};
        for (size_t j = 0; j < n; j++) {
            rq got = fq_get(d.out, j), s[4];
            for (size_t i = 0; i < k; i++)
                s[i] = fq_get(d.s[i], j);
            double m[4][4], ev[4], vec[4][4];
            ra_outer_sum(k, s, wd, m);
            ra_sym4_eigen(m, ev, vec);
            double g[4] = {got.w, got.x, got.y, got.z}, rayleigh = 0, nrm = rq_norm(got);
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++)
                    rayleigh += g[a] * m[a][b] * g[b];
            rayleigh /= nrm * nrm;
            cr_expect(fabs(nrm - 1) < 1e-6 && rayleigh >= ev[0] * (1 - 1e-6),
                      "accurate orthogonal set %d joint %zu: got (%.9g, %.9g, %.9g, %.9g) norm "
                      "%.9g, q^T M q = %.9g, top eigenvalue %.9g",
                      c, j, got.w, got.x, got.y, got.z, nrm, rayleigh, ev[0]);
        }
        set_free(&d);
    }
}

/* +170 / -170 degrees about one axis around a reference (NOTES.md) */
Test(average, plus_minus_170_around_reference)
{
    const size_t n = 1001, k = 2;
    rng_t r = rng_seed(170);
    av_set d;
    set_alloc(&d, n, k);
    rv3 axes[1001];
    for (size_t j = 0; j < n; j++) {
        rq ref = rng_quat(&r);
        rv3 ax = rng_unit3(&r);
        axes[j] = ax;
        double a = 170.0 * REF_PI / 180.0;
        fq_set(d.ref, j, ref);
        fq_set(d.s[0], j, rq_mul(ref, rq_from_axis_angle(ax, a)));
        fq_set(d.s[1], j, rq_scale(rq_mul(ref, rq_from_axis_angle(ax, -a)), rng_sign(&r)));
    }
    d.w[0] = d.w[1] = 0.5f;
    for (int kind = AV_RAW_REF; kind <= AV_ACCURATE; kind++) {
        cr_assert_eq(av_call((av_kind)kind, n, k, pb_cq(d.ref), d.cs, d.w, d.out), PB_OK);
        size_t bad = 0;
        for (size_t j = 0; j < n; j++) {
            rq ref = fq_get(d.ref, j), got = fq_get(d.out, j), want;
            if (kind == AV_ACCURATE)
                want = rq_mul(ref, rq_make(0, axes[j].x, axes[j].y, axes[j].z));
            else
                want = ref;
            double e = rq_angle_between(want, got);
            /* also against the exact formula from the float inputs */
            rq s[2] = {fq_get(d.s[0], j), fq_get(d.s[1], j)}, exact;
            double w[2] = {0.5, 0.5};
            double gap;
            int amb;
            double e2 = av_err((av_kind)kind, ref, 2, s, w, got, &exact, &gap, &amb);
            double tol = av_tol((av_kind)kind, gap);
            if ((!(e <= 1e-5) || !(e2 <= tol)) && bad++ < 3)
                cr_expect(0,
                          "%s +-170: joint %zu ref (%.9g, %.9g, %.9g, %.9g) axis (%.9g, %.9g, "
                          "%.9g): got (%.9g, %.9g, %.9g, %.9g), %.3g rad from the ideal, %.3g "
                          "rad from the exact formula",
                          av_name[kind], j, ref.w, ref.x, ref.y, ref.z, axes[j].x, axes[j].y,
                          axes[j].z, got.w, got.x, got.y, got.z, e, e2);
        }
        cr_expect(bad == 0, "%s +-170: %zu of %zu joints wrong", av_name[kind], bad, n);
    }
    set_free(&d);
}

/* pb_quat_reference_extract == accurate average of the frames, equal weights */
Test(average, reference_extract)
{
    static const size_t frames_l[] = {1, 2, 5, 17};
    static const size_t joints_l[] = {1, 9, 1001};
    rng_t r = rng_seed(31337);
    for (size_t fi = 0; fi < 4; fi++)
        for (size_t ji = 0; ji < 3; ji++)
            for (int dm = 0; dm < 2; dm++) {
                size_t F = frames_l[fi], J = joints_l[ji];
                pb_quats poses = fq_alloc(F * J), out = fq_alloc(J), acc = fq_alloc(J);
                pb_cquats samples[17];
                float w1[17];
                for (size_t j = 0; j < J; j++) {
                    rq base = rng_quat(&r);
                    for (size_t f = 0; f < F; f++)
                        fq_set(poses, f * J + j,
                               dm == DATA_NEAR
                                   ? rq_scale(rng_quat_near(&r, base, 1.0), rng_sign(&r))
                                   : rng_quat(&r));
                }
                for (size_t f = 0; f < F; f++) {
                    pb_cquats c = {poses.w + f * J, poses.x + f * J, poses.y + f * J,
                                   poses.z + f * J};
                    samples[f] = c;
                    w1[f] = 1.0f;
                }
                fq_fill_nan(out, J);
                cr_assert_eq(pb_quat_reference_extract(F, J, pb_cq(poses), out), PB_OK);
                cr_assert_eq(pb_quat_average_accurate(J, F, samples, w1, acc), PB_OK);
                size_t bad = 0;
                for (size_t j = 0; j < J; j++) {
                    rq s[17];
                    double wd[17], gap;
                    for (size_t f = 0; f < F; f++) {
                        s[f] = fq_get(poses, f * J + j);
                        wd[f] = 1.0;
                    }
                    rq want = ra_average_accurate(F, s, wd, &gap);
                    double tol = acc_tol(gap);
                    rq got = fq_get(out, j), got2 = fq_get(acc, j);
                    double e = rq_angle_between(want, got), e2 = rq_angle_between(got2, got);
                    /* both within the header's bound of the reference: twice it
                     * between them */
                    if ((!(e <= tol) || !(e2 <= 2 * tol) || got.w < 0) && bad++ < 3) {
                        char fb[2048];
                        int o = 0;
                        for (size_t f = 0; f < F && o < 1900; f++)
                            o += fmt_q(fb + o, sizeof fb - (size_t)o, s[f]);
                        cr_expect(0,
                                  "reference_extract frames=%zu joints=%zu joint %zu: reference "
                                  "err %.3g rad (gap %.3g, tol %.3g), vs average_accurate %.3g "
                                  "rad; got (%.9g, %.9g, %.9g, %.9g) want (%.9g, %.9g, %.9g, "
                                  "%.9g); frames %s",
                                  F, J, j, e, gap, tol, e2, got.w, got.x, got.y, got.z, want.w,
                                  want.x, want.y, want.z, fb);
                    }
                }
                cr_expect(bad == 0, "reference_extract frames=%zu joints=%zu: %zu joints off", F, J,
                          bad);
                fq_free(poses);
                fq_free(out);
                fq_free(acc);
            }
}
