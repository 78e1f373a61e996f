/*
 * Independent double-precision reference for the weighted averages and the
 * spline constructions (tangent-space Bezier, De Casteljau, Shoemake, spline
 * evaluation) of posebatch.
 *
 * Plain libm double code written from ../shared/reference/
 * (quaternion-weighted-average.txt, catmull-rom-quaternion-splines.txt,
 * NOTES.md) and include/posebatch.h. Not a port of the float kernels: the
 * eigenvector average uses an exact cyclic Jacobi eigen-solver run to
 * convergence in double, not the text's power iteration.
 */
#ifndef POSEBATCH_TESTS_REF_AVERAGE_H
#define POSEBATCH_TESTS_REF_AVERAGE_H

#include <stddef.h>

#include "ref.h"

/* ---- weighted averages of k samples of one joint (w: k weights) --------- */
/* normalize(sum w_i abs(s_i)); zero sum -> identity */
rq ra_average_raw(size_t k, const rq *s, const double *w);
/* pb_pose_blend_layers' PB_BLEND_RAW: each sample in the hemisphere of the running
 * sum (the first by its w), as ozz's BlendingJob; abs(normalize(sum)) */
rq ra_average_running(size_t k, const rq *s, const double *w);
/* exp(sum w_i log(abs(s_i))); not passed through abs */
rq ra_average_log(size_t k, const rq *s, const double *w);
/* abs(ref normalize(sum w_i abs(ref^-1 s_i))); zero sum -> abs(ref) */
rq ra_average_raw_ref(rq ref, size_t k, const rq *s, const double *w);
/* abs(ref exp(sum w_i log(abs(ref^-1 s_i)))) */
rq ra_average_log_ref(rq ref, size_t k, const rq *s, const double *w);
/* running hemisphere: acc += (dot(acc, s_i) < 0 ? -1 : 1) w_i s_i;
 * normalize(abs(acc)); zero -> identity. *min_margin (optional) receives the
 * smallest |dot(acc, s_i)| / (|acc| |s_i|) over the sign decisions taken with
 * acc != 0 (1 when there are none): a small margin means float rounding may
 * take the other decision. */
rq ra_average_basic(size_t k, const rq *s, const double *w, double *min_margin);
/* Eigenvector of the largest eigenvalue of M = sum w_i s_i s_i^T, w >= 0
 * (exact Jacobi). M == 0 -> identity. rel_gap (optional) receives
 * (l1 - l2) / |l1| (0 if l1 == 0), the eigen-gap the header's accuracy
 * statement refers to. */
rq ra_average_accurate(size_t k, const rq *s, const double *w, double *rel_gap);
/* The accumulated 4x4 matrix M of the accurate average. */
void ra_outer_sum(size_t k, const rq *s, const double *w, double m[4][4]);
/* Symmetric 4x4 eigen-decomposition by cyclic Jacobi to convergence:
 * eval sorted descending, evec[j] the unit eigenvector of eval[j]; m is
 * not modified (not const: C11 cannot pass double[4][4] as const). */
void ra_sym4_eigen(double m[4][4], double eval[4], double evec[4][4]);

/* sin(half the rotation angle between a and b), sign-insensitive, scale
 * invariant: sin(atan2(|vec(d)|, |w(d)|)), d = conj(a) b. */
double ra_sin_half_angle(rq a, rq b);
/* Frobenius norm of R(a) - R(b) (rotation matrices of normalised a, b). */
double ra_frobenius_distance(rq a, rq b);
/* Rotation matrix of unit q (row-major); q is normalised first. */
void ra_quat_to_matrix(rq q, double r[3][3]);
/* The same formula on q as given (no normalisation: a q off the unit
 * sphere shows in the matrix). */
void ra_quat_to_matrix_raw(rq q, double r[3][3]);

/* ---- splines notebook ----------------------------------------------------- */
/* exp((ln abs(q p^-1) + ln abs(s q^-1)) / 2) */
rq ra_tangent_offset(rq p, rq q, rq s);
/* q^t as in the notebook's UnitQuaternion: q if w >= 1, else exp(t log q)
 * (no hemisphere flip). Unit q. */
rq ra_pow(rq q, double t);
/* before = offset^(-1/3) q, after = offset^(1/3) q */
void ra_bezier_controls(rq p, rq q, rq s, rq *before, rq *after);
/* shortest-path slerp: a (abs(a^-1 b))^t (b's sign chosen by dot(a, b) < 0) */
rq ra_slerp_short(rq a, rq b, double t);
/* De Casteljau with shortest-path slerp at each step */
rq ra_de_casteljau(rq q0, rq q1, rq q2, rq q3, double t);
/* Shoemake: Double(p, q) = 2 (p.q) q - p, Bisect(p, q) = (p + q)/|p + q|;
 * a = Bisect(Double(prev, cur), next), b = normalize(Double(a, cur)). */
rq ra_shoemake_double(rq p, rq q);
rq ra_shoemake_bisect(rq p, rq q);
void ra_shoemake_controls(rq prev, rq cur, rq next, rq *b, rq *a);
/* pb_quat_spline_eval for one joint: key f is keys[f * stride].
 * Segment i = floor(t) from key i to key i+1 with the Bezier controls of the
 * two keys (from their neighbours), De Casteljau. Open: t clamped to
 * [0, nkeys-1]; an end key has a single neighbour and its one chord is used on
 * both sides (the missing neighbour is the reflection q nb^-1 q, so the
 * offset is abs(chord): zero curvature). Closed: t wraps modulo nkeys (NaN or
 * Inf t -> NaN). Hemisphere alignment does not change the rotation (every
 * offset goes through abs, every slerp takes the shortest path), so it is
 * not modelled: compare sign-insensitively. */
rq ra_spline_eval(size_t nkeys, const rq *keys, size_t stride, double t, int closed);

/* angles2quat(az, el, roll) = Rz(az) Rx(el) Ry(roll), degrees */
rq ra_angles2quat(double az_deg, double el_deg, double roll_deg);
/* a.rotation_to(b) = b a^-1 */
rq ra_rotation_to(rq a, rq b);
/* max abs component difference */
double ra_max_abs_diff(rq a, rq b);
/* min over the sign of b of ra_max_abs_diff(a, +-b) */
double ra_max_abs_diff_signless(rq a, rq b);

#endif /* POSEBATCH_TESTS_REF_AVERAGE_H */
