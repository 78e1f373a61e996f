/*
 * Tangent-space Bezier / Shoemake constructions and de Casteljau against the
 * splines notebook (catmull-rom-quaternion-splines.txt) and the double
 * reference in ref_average.c (the spline evaluator is in test_spline_eval.c).
 *
 * The notebook's printed values are float64; the library computes in float32.
 * Its results are compared with the printed numbers within 2e-6 (max abs
 * component difference): a 2e-6 rad rotation error moves components by at most
 * 1e-6, and rounding q3, q4, q5 to float moves them by ~6e-8. The reference
 * itself reproduces every printed value within 1e-12 in double (the printed
 * values carry the notebook's acos-based log error, up to ~2e-14).
 *
 * Sign convention: the notebook's Shoemake a, b and offset_l * q4 have the
 * sign the formulas give (no abs), and so does pb_quat_shoemake_controls per
 * its header; the printed differences are compared sign-sensitively, and a
 * separate assertion reports whether the library's sign matches the formula
 * (rotations themselves are always compared modulo q ~ -q).
 */
#include "spline_util.h"

#define TOL_NB 2e-6 /* notebook numbers reproduced in float32 */

static const double NB_BC = 0.2563304531880035;
static const double NB_ED = 0.20225984693486293;
static const double NB_LF = 0.01742323752655639;
static const double NB_LH = 0.000167758442754129;
static const double NB_LJ = 1.6769343111344703e-06;
static const double NB_SA = 0.013831724198409168;
static const double NB_SB = 0.018852903209093046;

typedef struct {
    rq q3, q4, q5, q_in, q_out;
} nb_keys;

static nb_keys nb_make(int round_to_float)
{
    nb_keys k;
    k.q3 = ra_angles2quat(0, 0, 0);
    k.q4 = ra_angles2quat(0, 45, -10);
    k.q5 = ra_angles2quat(90, 0, -90);
    if (round_to_float) {
        k.q3 = rq_round(k.q3);
        k.q4 = rq_round(k.q4);
        k.q5 = rq_round(k.q5);
    }
    k.q_in = ra_rotation_to(k.q3, k.q4);
    k.q_out = ra_rotation_to(k.q4, k.q5);
    return k;
}

/* the notebook's offset variants (double) */
static rq nb_offset_f(nb_keys k)
{
    return rq_mul(ra_pow(rq_mul(k.q_out, ra_pow(k.q_in, -1)), 0.5), k.q_in);
}
static rq nb_offset_scaled(nb_keys k, double s)
{
    rq inner = rq_mul(ra_pow(rq_mul(ra_pow(k.q_out, 1 / s), ra_pow(k.q_in, -1 / s)), 0.5),
                      ra_pow(k.q_in, 1 / s));
    return ra_pow(inner, s);
}
static rq nb_offset_l(nb_keys k)
{
    return rq_exp(rv3_scale(rv3_add(rq_log(k.q_in), rq_log(k.q_out)), 0.5));
}

Test(spline, notebook_values_double_reference)
{
    nb_keys k = nb_make(0);
    rq ob = ra_pow(rq_mul(k.q_out, k.q_in), 0.5), oc = ra_pow(rq_mul(k.q_in, k.q_out), 0.5);
    rq od = rq_mul(ra_pow(k.q_out, 0.5), ra_pow(k.q_in, 0.5));
    rq oe = rq_mul(ra_pow(k.q_in, 1.0 / 6.0), ra_pow(k.q_out, 1.0 / 6.0)); /* NOTES.md: 1/6 */
    rq ol = nb_offset_l(k), of = nb_offset_f(k);
    rq oh = nb_offset_scaled(k, 10), oj = nb_offset_scaled(k, 100);
    double v[7] = {ra_max_abs_diff(ob, oc),
                   ra_max_abs_diff(oe, od),
                   ra_max_abs_diff(ol, of),
                   ra_max_abs_diff(ol, oh),
                   ra_max_abs_diff(ol, oj),
                   0,
                   0};
    rq a, b;
    ra_shoemake_controls(k.q3, k.q4, k.q5, &b, &a);
    v[5] = ra_max_abs_diff(a, rq_mul(ol, k.q4));
    v[6] = ra_max_abs_diff(b, rq_mul(rq_conj(ol), k.q4));
    const double want[7] = {NB_BC, NB_ED, NB_LF, NB_LH, NB_LJ, NB_SA, NB_SB};
    static const char *const names[7] = {"|b-c|", "|e-d|",      "|l-f|",     "|l-h|",
                                         "|l-j|", "shoemake a", "shoemake b"};
    for (int i = 0; i < 7; i++)
        cr_expect(fabs(v[i] - want[i]) <= 1e-12, "notebook %s: reference %.17g printed %.17g",
                  names[i], v[i], want[i]);
    /* the library's tangent offset equals offset_l here: both chords have w > 0 */
    cr_expect(k.q_in.w > 0 && k.q_out.w > 0);
    cr_expect(ra_max_abs_diff(ra_tangent_offset(k.q3, k.q4, k.q5), ol) < 1e-15);
    /* with 1/2 in offset_e, NOTES.md's 0.12379756236392148 */
    rq oe2 = rq_mul(ra_pow(k.q_in, 0.5), ra_pow(k.q_out, 0.5));
    cr_expect(fabs(ra_max_abs_diff(oe2, od) - 0.12379756236392148) < 1e-12);
}

static pb_quats fill_repeat(size_t n, rq q)
{
    pb_quats b = fq_alloc(n);
    for (size_t i = 0; i < n; i++)
        fq_set(b, i, q);
    return b;
}

/* offset_l = pb_quat_tangent_offset(q3, q4, q5) in float, against the printed
 * differences to the notebook's other constructions (computed in double) */
Test(spline, notebook_tangent_offset_float)
{
    nb_keys kd = nb_make(0), kf = nb_make(1);
    static const size_t ns[] = {1, 9, 37};
    for (size_t ni = 0; ni < 3; ni++) {
        size_t n = ns[ni];
        pb_quats p = fill_repeat(n, kf.q3), c = fill_repeat(n, kf.q4), s = fill_repeat(n, kf.q5);
        pb_quats o = fq_alloc(n);
        fq_fill_nan(o, n);
        cr_assert_eq(pb_quat_tangent_offset(n, pb_cq(p), pb_cq(c), pb_cq(s), o), PB_OK);
        for (size_t i = 0; i < n; i++) {
            rq l = fq_get(o, i);
            double lf = ra_max_abs_diff(l, nb_offset_f(kd));
            double lh = ra_max_abs_diff(l, nb_offset_scaled(kd, 10));
            double lj = ra_max_abs_diff(l, nb_offset_scaled(kd, 100));
            double e = rq_angle_between(ra_tangent_offset(kf.q3, kf.q4, kf.q5), l);
            cr_expect(fabs(lf - NB_LF) <= TOL_NB, "n=%zu i=%zu: |l-f| = %.12g, printed %.12g", n, i,
                      lf, NB_LF);
            cr_expect(fabs(lh - NB_LH) <= TOL_NB, "n=%zu i=%zu: |l-h| = %.12g, printed %.12g", n, i,
                      lh, NB_LH);
            cr_expect(fabs(lj - NB_LJ) <= TOL_NB, "n=%zu i=%zu: |l-j| = %.12g, printed %.12g", n, i,
                      lj, NB_LJ);
            cr_expect(e <= TOL_ROT,
                      "n=%zu i=%zu: offset (%.9g, %.9g, %.9g, %.9g) %.3g rad from "
                      "the double reference",
                      n, i, l.w, l.x, l.y, l.z, e);
            cr_expect(l.w > 0, "offset_l sign: w = %.9g", l.w);
            if (stats_on() && i == 0 && n == 1)
                fprintf(stderr,
                        "[stat] notebook float: |l-f| %.12g (printed %.12g) |l-h| %.12g "
                        "(%.12g) |l-j| %.12g (%.12g) offset err %.3g rad\n",
                        lf, NB_LF, lh, NB_LH, lj, NB_LJ, e);
        }
        fq_free(p);
        fq_free(c);
        fq_free(s);
        fq_free(o);
    }
}

Test(spline, notebook_shoemake_float)
{
    nb_keys kd = nb_make(0), kf = nb_make(1);
    rq ol = nb_offset_l(kd);
    rq a_nb = rq_mul(ol, kd.q4), b_nb = rq_mul(rq_conj(ol), kd.q4);
    rq a_ref, b_ref;
    ra_shoemake_controls(kf.q3, kf.q4, kf.q5, &b_ref, &a_ref);
    static const size_t ns[] = {1, 9, 37};
    for (size_t ni = 0; ni < 3; ni++) {
        size_t n = ns[ni];
        pb_quats p = fill_repeat(n, kf.q3), c = fill_repeat(n, kf.q4), s = fill_repeat(n, kf.q5);
        pb_quats ob = fq_alloc(n), oa = fq_alloc(n);
        fq_fill_nan(ob, n);
        fq_fill_nan(oa, n);
        cr_assert_eq(pb_quat_shoemake_controls(n, pb_cq(p), pb_cq(c), pb_cq(s), ob, oa), PB_OK);
        for (size_t i = 0; i < n; i++) {
            rq a = fq_get(oa, i), b = fq_get(ob, i);
            double da = ra_max_abs_diff(a, a_nb), db = ra_max_abs_diff(b, b_nb);
            double da_s = ra_max_abs_diff_signless(a, a_nb),
                   db_s = ra_max_abs_diff_signless(b, b_nb);
            cr_expect(fabs(da_s - NB_SA) <= TOL_NB,
                      "n=%zu i=%zu: max |a - offset_l q4| = %.12g (modulo sign), printed %.12g", n,
                      i, da_s, NB_SA);
            cr_expect(fabs(db_s - NB_SB) <= TOL_NB,
                      "n=%zu i=%zu: max |b - offset_l^-1 q4| = %.12g (modulo sign), printed %.12g",
                      n, i, db_s, NB_SB);
            cr_expect(da == da_s && db == db_s,
                      "n=%zu i=%zu: Shoemake sign differs from the formula's: a (%.9g, %.9g, "
                      "%.9g, %.9g) b (%.9g, %.9g, %.9g, %.9g)",
                      n, i, a.w, a.x, a.y, a.z, b.w, b.x, b.y, b.z);
            double ea = rq_angle_between(a_ref, a), eb = rq_angle_between(b_ref, b);
            cr_expect(ea <= TOL_ROT && eb <= TOL_ROT,
                      "n=%zu i=%zu: Shoemake a %.3g rad, b %.3g rad from the double reference", n,
                      i, ea, eb);
            if (stats_on() && i == 0 && n == 1)
                fprintf(stderr,
                        "[stat] notebook shoemake: a %.12g (printed %.12g) b %.12g (%.12g)\n", da,
                        NB_SA, db, NB_SB);
        }
        fq_free(p);
        fq_free(c);
        fq_free(s);
        fq_free(ob);
        fq_free(oa);
    }
}

/* ---- random triples ------------------------------------------------------------- */

typedef enum { TRI_NEAR, TRI_WIDE, TRI_NEAR_SAME_SIGN } tri_mode;

static void gen_triples(rng_t *r, size_t n, tri_mode m, pb_quats p, pb_quats c, pb_quats s)
{
    for (size_t i = 0; i < n; i++) {
        rq qc = rng_quat(r), qp, qs;
        if (m == TRI_WIDE) {
            qp = rng_quat(r);
            qs = rng_quat(r);
        } else {
            qp = rng_quat_near(r, qc, rng_range(r, 0.0, 1.2));
            qs = rng_quat_near(r, qc, rng_range(r, 0.0, 1.2));
            if (m == TRI_NEAR) {
                qp = rq_scale(qp, rng_sign(r));
                qs = rq_scale(qs, rng_sign(r));
            } else {
                qc = rq_abs(qc);
                qp = rq_scale(qp, rq_dot(qp, qc) < 0 ? -1 : 1);
                qs = rq_scale(qs, rq_dot(qs, qc) < 0 ? -1 : 1);
            }
        }
        fq_set(p, i, qp);
        fq_set(c, i, qc);
        fq_set(s, i, qs);
    }
}

/* The abs() in the offset's logs (the sign of a chord's w = dot of its keys)
 * is decided by float rounding when that dot is within AMBIG of 0: there both
 * branches of the reference are accepted (no case is skipped). */
#define AMBIG 1e-6
static unsigned tangent_ambiguous(rq p, rq q, rq s)
{
    return (fabs(rq_dot(p, q)) < AMBIG * rq_norm(p) * rq_norm(q) ? 1u : 0u) |
           (fabs(rq_dot(q, s)) < AMBIG * rq_norm(q) * rq_norm(s) ? 2u : 0u);
}
/* ra_tangent_offset / ra_bezier_controls with the abs of chord in (bit 0) or
 * out (bit 1) taken the other way */
static rq tangent_offset_flip(rq p, rq q, rq s, unsigned flip)
{
    rq cin = rq_abs(rq_mul_inv(q, p)), cout = rq_abs(rq_mul_inv(s, q));
    if (flip & 1u)
        cin = rq_neg(cin);
    if (flip & 2u)
        cout = rq_neg(cout);
    return rq_exp(rv3_scale(rv3_add(rq_log(cin), rq_log(cout)), 0.5));
}
static void bezier_controls_flip(rq p, rq q, rq s, unsigned flip, rq *before, rq *after)
{
    rq off = tangent_offset_flip(p, q, s, flip);
    *before = rq_mul(ra_pow(off, -1.0 / 3.0), q);
    *after = rq_mul(ra_pow(off, 1.0 / 3.0), q);
}

#define NT 25000

Test(spline, tangent_offset_and_bezier_controls_random)
{
    rng_t r = rng_seed(2024);
    tstats so, sb, sa;
    memset(&so, 0, sizeof so);
    memset(&sb, 0, sizeof sb);
    memset(&sa, 0, sizeof sa);
    pb_quats p = fq_alloc(NT), c = fq_alloc(NT), s = fq_alloc(NT);
    pb_quats off = fq_alloc(NT), bef = fq_alloc(NT), aft = fq_alloc(NT);
    for (int call = 0; call < 4; call++) {
        tri_mode m = call < 2 ? TRI_NEAR : TRI_WIDE;
        gen_triples(&r, NT, m, p, c, s);
        fq_fill_nan(off, NT);
        fq_fill_nan(bef, NT);
        fq_fill_nan(aft, NT);
        cr_assert_eq(pb_quat_tangent_offset(NT, pb_cq(p), pb_cq(c), pb_cq(s), off), PB_OK);
        cr_assert_eq(pb_quat_bezier_controls(NT, pb_cq(p), pb_cq(c), pb_cq(s), bef, aft), PB_OK);
        for (size_t i = 0; i < NT; i++) {
            rq qp = fq_get(p, i), qc = fq_get(c, i), qs = fq_get(s, i);
            unsigned amb = tangent_ambiguous(qp, qc, qs);
            rq go = fq_get(off, i), gb = fq_get(bef, i), ga = fq_get(aft, i);
            rq wo = rq_identity();
            double eo = INFINITY, eb = INFINITY, ea = INFINITY;
            for (unsigned fl = 0; fl < 4; fl++) { /* best branch, per output */
                if (fl & ~amb)
                    continue;
                rq to = tangent_offset_flip(qp, qc, qs, fl), tb, ta;
                bezier_controls_flip(qp, qc, qs, fl, &tb, &ta);
                double e1 = rq_angle_between(to, go), e2 = rq_angle_between(tb, gb),
                       e3 = rq_angle_between(ta, ga);
                if (!(e1 >= eo))
                    eo = e1, wo = to;
                if (!(e2 >= eb))
                    eb = e2;
                if (!(e3 >= ea))
                    ea = e3;
            }
            if (amb)
                so.skipped++; /* counts the ambiguous (both-branch) cases */
            tstat_add(&so, eo);
            tstat_add(&sb, eb);
            tstat_add(&sa, ea);
            if (tstat_report_now(&so, eo) | tstat_report_now(&sb, eb) | tstat_report_now(&sa, ea))
                cr_expect(0,
                          "%s i=%zu prev (%.9g, %.9g, %.9g, %.9g) cur (%.9g, %.9g, %.9g, %.9g) "
                          "next (%.9g, %.9g, %.9g, %.9g): offset got (%.9g, %.9g, %.9g, %.9g) "
                          "want (%.9g, %.9g, %.9g, %.9g) err %.3g; before err %.3g; after err %.3g",
                          m == TRI_NEAR ? "near" : "wide", i, qp.w, qp.x, qp.y, qp.z, qc.w, qc.x,
                          qc.y, qc.z, qs.w, qs.x, qs.y, qs.z, go.w, go.x, go.y, go.z, wo.w, wo.x,
                          wo.y, wo.z, eo, eb, ea);
        }
    }
    tstat_final("tangent_offset", &so, 100000);
    tstat_final("bezier_controls before", &sb, 100000);
    tstat_final("bezier_controls after", &sa, 100000);
    fq_free(p);
    fq_free(c);
    fq_free(s);
    fq_free(off);
    fq_free(bef);
    fq_free(aft);
}

/* Shoemake: the formula is sign-sensitive (4D construction, no abs); the
 * library is compared with the literal formula on the same float inputs.
 * Keys in one hemisphere: 2e-6 rad. Mixed signs: the header's growth
 * "about 5e-7 times (|D| + |next|) / |D + next|", D = Double(prev, cur), i.e.
 * max(2e-6, 5e-7 kappa) per case (no case is skipped); the 4D sign must match
 * the formula's wherever that bound is below pi (it then pins the direction). */
#define SHOEMAKE_KAPPA_COEF 5e-7
static void shoemake_run(tri_mode m, uint64_t seed, const char *what)
{
    rng_t r = rng_seed(seed);
    tstats sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    size_t sign_bad = 0, kcount[4] = {0, 0, 0, 0}, kfail[4] = {0, 0, 0, 0};
    double kmax[4] = {0, 0, 0, 0};
    pb_quats p = fq_alloc(NT), c = fq_alloc(NT), s = fq_alloc(NT), ob = fq_alloc(NT),
             oa = fq_alloc(NT);
    for (int call = 0; call < 4; call++) {
        gen_triples(&r, NT, m, p, c, s);
        cr_assert_eq(pb_quat_shoemake_controls(NT, pb_cq(p), pb_cq(c), pb_cq(s), ob, oa), PB_OK);
        for (size_t i = 0; i < NT; i++) {
            rq qp = fq_get(p, i), qc = fq_get(c, i), qs = fq_get(s, i);
            rq d = ra_shoemake_double(qp, qc);
            rq a0 = rq_add(d, qs);
            rq wa, wb;
            ra_shoemake_controls(qp, qc, qs, &wb, &wa);
            rq ga = fq_get(oa, i), gb = fq_get(ob, i);
            double ea = rq_angle_between(wa, ga), eb = rq_angle_between(wb, gb);
            /* conditioning of Bisect's sum D + next: (|D| + |next|) / |D + next| */
            double kappa = (rq_norm(d) + rq_norm(qs)) / rq_norm(a0);
            double tol =
                m == TRI_NEAR_SAME_SIGN ? TOL_ROT : fmax(TOL_ROT, SHOEMAKE_KAPPA_COEF * kappa);
            int kb = kappa < 4 ? 0 : (kappa < 16 ? 1 : (kappa < 64 ? 2 : 3));
            double ee = ea > eb ? ea : eb;
            if (!(ee <= kmax[kb]))
                kmax[kb] = ee;
            kcount[kb]++;
            kfail[kb] += !(ee <= tol);
            tstat_add_tol(&sa, ea, tol);
            tstat_add_tol(&sb, eb, tol);
            int sgn = tol < REF_PI && (rq_dot(wa, ga) <= 0 || rq_dot(wb, gb) <= 0);
            sign_bad += sgn;
            if ((tstat_report_now_tol(&sa, ea, tol) | tstat_report_now_tol(&sb, eb, tol)) ||
                (sgn && sign_bad <= 3))
                cr_expect(0,
                          "shoemake %s i=%zu prev (%.9g, %.9g, %.9g, %.9g) cur (%.9g, %.9g, %.9g, "
                          "%.9g) next (%.9g, %.9g, %.9g, %.9g): a got (%.9g, %.9g, %.9g, %.9g) "
                          "want (%.9g, %.9g, %.9g, %.9g) err %.3g rad; b got (%.9g, %.9g, %.9g, "
                          "%.9g) want (%.9g, %.9g, %.9g, %.9g) err %.3g rad; conditioning of "
                          "D + next %.3g, tol %.3g rad%s",
                          what, i, qp.w, qp.x, qp.y, qp.z, qc.w, qc.x, qc.y, qc.z, qs.w, qs.x, qs.y,
                          qs.z, ga.w, ga.x, ga.y, ga.z, wa.w, wa.x, wa.y, wa.z, ea, gb.w, gb.x,
                          gb.y, gb.z, wb.w, wb.x, wb.y, wb.z, eb, kappa, tol,
                          sgn ? " [4D sign differs]" : "");
        }
    }
    char name[96];
    snprintf(name, sizeof name, "shoemake a (%s)", what);
    tstat_final(name, &sa, 100000);
    snprintf(name, sizeof name, "shoemake b (%s)", what);
    tstat_final(name, &sb, 100000);
    cr_expect(sign_bad == 0, "shoemake %s: %zu results with the opposite 4D sign", what, sign_bad);
    char kb[512];
    snprintf(kb, sizeof kb,
             "shoemake %s by conditioning k = (|D| + |next|)/|D + next| (tol %s): k<4: %zu "
             "cases, %zu fail, max %.3g rad; 4<=k<16: %zu, %zu, %.3g; 16<=k<64: %zu, %zu, %.3g; "
             "k>=64: %zu, "
             "%zu, %.3g",
             what, m == TRI_NEAR_SAME_SIGN ? "2e-6" : "max(2e-6, 5e-7 k)", kcount[0], kfail[0],
             kmax[0], kcount[1], kfail[1], kmax[1], kcount[2], kfail[2], kmax[2], kcount[3],
             kfail[3], kmax[3]);
    if (stats_on())
        fprintf(stderr, "[stat] %s\n", kb);
    cr_expect(kfail[0] + kfail[1] + kfail[2] + kfail[3] == 0, "%s", kb);
    fq_free(p);
    fq_free(c);
    fq_free(s);
    fq_free(ob);
    fq_free(oa);
}

Test(spline, shoemake_random_same_hemisphere) { shoemake_run(TRI_NEAR_SAME_SIGN, 61, "aligned"); }
Test(spline, shoemake_random_signs_literal_formula) { shoemake_run(TRI_NEAR, 62, "random signs"); }

/* ---- De Casteljau ---------------------------------------------------------------- */

/* A shortest-path decision (sign of a dot product) within AMBIG of 0 may go
 * either way in float: De Casteljau's reference with decision i (of its six
 * slerps) inverted when bit i of flip is set. *ok is cleared when a flipped
 * decision is not ambiguous (that branch is then not a valid answer). */
static rq slerp_short_flip(rq a, rq b, double t, int flip, int *amb, int *ok)
{
    double dt = rq_dot(a, b);
    *amb = fabs(dt) < AMBIG * rq_norm(a) * rq_norm(b);
    if (flip && !*amb)
        *ok = 0;
    rq d = rq_inv_mul(a, b);
    if ((dt < 0) != (flip != 0))
        d = rq_neg(d);
    return rq_mul(a, rq_exp(rv3_scale(rq_log(d), t)));
}
static rq de_casteljau_flip(rq q0, rq q1, rq q2, rq q3, double t, unsigned flip, unsigned *ambm,
                            int *ok)
{
    int am[6];
    *ok = 1;
    rq a0 = slerp_short_flip(q0, q1, t, (int)(flip & 1u), &am[0], ok);
    rq a1 = slerp_short_flip(q1, q2, t, (int)(flip & 2u), &am[1], ok);
    rq a2 = slerp_short_flip(q2, q3, t, (int)(flip & 4u), &am[2], ok);
    rq b0 = slerp_short_flip(a0, a1, t, (int)(flip & 8u), &am[3], ok);
    rq b1 = slerp_short_flip(a1, a2, t, (int)(flip & 16u), &am[4], ok);
    rq r = slerp_short_flip(b0, b1, t, (int)(flip & 32u), &am[5], ok);
    *ambm = 0;
    for (int i = 0; i < 6; i++)
        if (am[i])
            *ambm |= 1u << i;
    return r;
}
/* error of got against the best valid branch of the reference */
static double de_casteljau_err(rq q0, rq q1, rq q2, rq q3, double t, rq got, rq *want,
                               int *ambiguous)
{
    unsigned amb;
    int ok;
    *want = de_casteljau_flip(q0, q1, q2, q3, t, 0u, &amb, &ok);
    double e = rq_angle_between(*want, got);
    *ambiguous = amb != 0;
    if (amb)
        for (unsigned fl = 1; fl < 64; fl++) {
            unsigned a2;
            rq w = de_casteljau_flip(q0, q1, q2, q3, t, fl, &a2, &ok);
            double e2 = rq_angle_between(w, got);
            if (ok && e2 < e) {
                e = e2;
                *want = w;
            }
        }
    return e;
}

Test(spline, de_casteljau_random)
{
    static const float ts[] = {0.0f,       0.1f,  0.25f, 1.0f / 3.0f, 0.5f,
                               0.6180339f, 0.75f, 0.9f,  0.999f,      1.0f};
    const size_t n = 6000;
    rng_t r = rng_seed(1985);
    pb_quats q[4], out = fq_alloc(n);
    for (int i = 0; i < 4; i++)
        q[i] = fq_alloc(n);
    tstats st[2];
    memset(st, 0, sizeof st);
    for (int mode = 0; mode < 2; mode++)
        for (size_t ti = 0; ti < sizeof ts / sizeof ts[0]; ti++) {
            for (size_t j = 0; j < n; j++) {
                rq prev = rng_quat(&r);
                for (int i = 0; i < 4; i++) {
                    rq v = mode == 0 ? rng_quat_near(&r, prev, 1.0) : rng_quat(&r);
                    prev = v;
                    fq_set(q[i], j, rq_scale(v, rng_sign(&r)));
                }
            }
            float t = ts[ti];
            fq_fill_nan(out, n);
            cr_assert_eq(
                pb_quat_de_casteljau(n, t, pb_cq(q[0]), pb_cq(q[1]), pb_cq(q[2]), pb_cq(q[3]), out),
                PB_OK);
            for (size_t j = 0; j < n; j++) {
                rq k0 = fq_get(q[0], j), k1 = fq_get(q[1], j), k2 = fq_get(q[2], j),
                   k3 = fq_get(q[3], j);
                rq want, got = fq_get(out, j);
                int amb;
                double e = de_casteljau_err(k0, k1, k2, k3, t, got, &want, &amb);
                if (amb)
                    st[mode].skipped++; /* counts the ambiguous (both-branch) cases */
                tstat_add(&st[mode], e);
                if (tstat_report_now(&st[mode], e))
                    cr_expect(0,
                              "de_casteljau %s t=%.9g j=%zu q0 (%.9g, %.9g, %.9g, %.9g) q1 (%.9g, "
                              "%.9g, %.9g, %.9g) q2 (%.9g, %.9g, %.9g, %.9g) q3 (%.9g, %.9g, "
                              "%.9g, %.9g): got (%.9g, %.9g, %.9g, %.9g) want (%.9g, %.9g, %.9g, "
                              "%.9g) err %.3g rad",
                              mode ? "wide" : "near", (double)t, j, k0.w, k0.x, k0.y, k0.z, k1.w,
                              k1.x, k1.y, k1.z, k2.w, k2.x, k2.y, k2.z, k3.w, k3.x, k3.y, k3.z,
                              got.w, got.x, got.y, got.z, want.w, want.x, want.y, want.z, e);
            }
        }
    tstat_final("de_casteljau near", &st[0], 60000);
    tstat_final("de_casteljau wide", &st[1], 60000);
    for (int i = 0; i < 4; i++)
        fq_free(q[i]);
    fq_free(out);
}

/* q0 at t = 0 and q3 at t = 1 exactly (bit for bit, q3 modulo sign) */
static int fbits_eq(float x, float y) { return memcmp(&x, &y, sizeof x) == 0; }

Test(spline, de_casteljau_endpoints_exact)
{
    const size_t n = 20000;
    rng_t r = rng_seed(4);
    pb_quats q[4], out = fq_alloc(n);
    for (int i = 0; i < 4; i++)
        q[i] = fq_alloc(n);
    for (size_t j = 0; j < n; j++) {
        rq prev = rng_quat(&r);
        for (int i = 0; i < 4; i++) {
            /* near keys, keys anywhere, and repeated / opposite keys */
            rq v = j % 3 == 0 ? rng_quat(&r) : rng_quat_near(&r, prev, 1.0);
            if (j % 7 == 0 && i > 0)
                v = rq_scale(prev, rng_sign(&r));
            prev = v;
            fq_set(q[i], j, rq_scale(v, rng_sign(&r)));
        }
    }
    for (int end = 0; end < 2; end++) {
        float t = end ? 1.0f : 0.0f;
        pb_quats want = q[end ? 3 : 0];
        cr_assert_eq(
            pb_quat_de_casteljau(n, t, pb_cq(q[0]), pb_cq(q[1]), pb_cq(q[2]), pb_cq(q[3]), out),
            PB_OK);
        size_t bad = 0;
        double maxe = 0;
        for (size_t j = 0; j < n; j++) {
            rq g = fq_get(out, j), w = fq_get(want, j);
            int same = fbits_eq(out.w[j], want.w[j]) && fbits_eq(out.x[j], want.x[j]) &&
                       fbits_eq(out.y[j], want.y[j]) && fbits_eq(out.z[j], want.z[j]);
            int neg = fbits_eq(out.w[j], -want.w[j]) && fbits_eq(out.x[j], -want.x[j]) &&
                      fbits_eq(out.y[j], -want.y[j]) && fbits_eq(out.z[j], -want.z[j]);
            double e = rq_angle_between(w, g);
            if (e > maxe)
                maxe = e;
            if (!(same || (end && neg)) && bad++ < 3)
                cr_expect(0,
                          "de_casteljau t=%g j=%zu: got (%.9g, %.9g, %.9g, %.9g), want exactly "
                          "%s(%.9g, %.9g, %.9g, %.9g) (%.3g rad off)",
                          (double)t, j, g.w, g.x, g.y, g.z, end ? "+-" : "", w.w, w.x, w.y, w.z, e);
        }
        cr_expect(bad == 0, "de_casteljau t=%g: %zu of %zu not exactly the end key (max %.3g rad)",
                  (double)t, bad, n, maxe);
    }
    for (int i = 0; i < 4; i++)
        fq_free(q[i]);
    fq_free(out);
}
