/* posebatch/rotations.h — part of posebatch.h (conventions, accuracy:
 * there): element-wise quaternion primitives, the cubic and spherical
 * interpolation of a whole pose, weighted rotation averages, and the
 * tangent-space / Bezier / Shoemake constructions. */
#ifndef POSEBATCH_ROTATIONS_H
#define POSEBATCH_ROTATIONS_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Quaternion batch primitives (element-wise over n)                        */
/* ------------------------------------------------------------------------ */

/* out = a b. Exact to float rounding (a few ulp per component). */
PB_API pb_status pb_quat_mul(size_t n, pb_cquats a, pb_cquats b, pb_quats out);
/* out = a b^-1 = a conj(b). */
PB_API pb_status pb_quat_mul_inv(size_t n, pb_cquats a, pb_cquats b, pb_quats out);
/* out = a^-1 b = conj(a) b. */
PB_API pb_status pb_quat_inv_mul(size_t n, pb_cquats a, pb_cquats b, pb_quats out);
/* out = q with w >= 0 (negated when w < 0; w == -0 counts as negative). Exact. */
PB_API pb_status pb_quat_abs(size_t n, pb_cquats q, pb_quats out);
/* out = q / |q|. A zero quaternion becomes the identity (1,0,0,0); Inf/NaN
 * components give NaN. Result norm within 2^-22 of 1. Handles norms from
 * 1e-18 to 1e18 without overflow. */
PB_API pb_status pb_quat_normalize(size_t n, pb_cquats q, pb_quats out);
/* out = log(q) = half-angle * axis, half-angle = atan2(|v|, w) in [0, pi].
 * Scale-invariant (uses only the direction of q). v == 0 gives 0 (for w < 0,
 * i.e. the rotation by 2 pi, too: the same rotation as the identity).
 * Accuracy: 3e-7 relative to |log q|, for vector parts from the smallest
 * denormal up to 1e18 (|v|^2 must not overflow). */
PB_API pb_status pb_quat_log(size_t n, pb_cquats q, pb_vec3s out);
/* out = exp(v) = (cos|v|, sin|v| v/|v|), unit norm to 2^-22 for any finite v
 * with |v| < 1e18 (|v|^2 must not overflow; larger v give a non-unit result).
 * Accuracy (angle of ref^-1 out): 3e-7 rad + 2^-22 |v|: the float rounding of
 * |v| itself (about an ulp) dominates above |v| ~ 1. For |v| >= 2^20 the angle
 * is unspecified (unit result). */
PB_API pb_status pb_quat_exp(size_t n, pb_cvec3s v, pb_quats out);
/* out = 2 log(q): rotation angle * axis, angle in [0, 2 pi] (apply
 * pb_quat_abs first for the shortest rotation, angle in [0, pi]). */
PB_API pb_status pb_quat_to_scaled_angle_axis(size_t n, pb_cquats q, pb_vec3s out);
/* out = exp(v / 2). */
PB_API pb_status pb_quat_from_scaled_angle_axis(size_t n, pb_cvec3s v, pb_quats out);
/* Hemisphere unrolling of tracks: `in` holds `frames` consecutive poses of
 * `tracks` quaternions, frame-major (element (f, j) at index f*tracks + j).
 * out(0, j) = in(0, j); out(f, j) = +-in(f, j), the sign chosen so that
 * dot(out(f-1, j), out(f, j)) >= 0. Exact (only signs change). out may be
 * exactly in (in place). frames*tracks <= PB_MAX_COUNT (else PB_ERR_SIZE). */
PB_API pb_status pb_quat_unroll(size_t frames, size_t tracks, pb_cquats in, pb_quats out);
/* Angular velocity from a 4D quaternion derivative (the text's
 * quat_delta_to_angular_velocity): out = 2 vec(delta conj(ref)).
 * Exact when ref is unit and delta is tangent to the unit sphere at ref (e.g.
 * the PB_EXACT_VELOCITY output of pb_quat_raw_cubic); a first-order
 * approximation otherwise. Float rounding only. */
PB_API pb_status pb_quat_delta_to_angular_velocity(size_t n, pb_cquats ref, pb_cquats delta,
                                                   pb_vec3s out);

/* ------------------------------------------------------------------------ */
/* Interpolation of a whole pose at parameter x                             */
/* ------------------------------------------------------------------------ */
/*
 * x is one float for all n elements; x in [0, 1] interpolates between the
 * second and third key (catmull-rom) or between p0/p1 (hermite); other finite
 * x extrapolate the same cubic. `vel` outputs are optional: pass a batch with
 * all pointers NULL to skip the velocity (PB_ERR_NULL if only some are NULL).
 */

/* Cubic Hermite of vec3: pos(x) with pos(0) = p0, pos(1) = p1, pos'(0) = v0,
 * pos'(1) = v1; vel = pos'(x). Float rounding of the basis only. */
PB_API pb_status pb_vec3_hermite(size_t n, float x, pb_cvec3s p0, pb_cvec3s p1, pb_cvec3s v0,
                                 pb_cvec3s v1, pb_vec3s pos, pb_vec3s vel);
/* Uniform Catmull-Rom of vec3 between p1 (x = 0) and p2 (x = 1), tangents the
 * central differences (p2 - p0)/2 and (p3 - p1)/2. */
PB_API pb_status pb_vec3_catmull_rom(size_t n, float x, pb_cvec3s p0, pb_cvec3s p1, pb_cvec3s p2,
                                     pb_cvec3s p3, pb_vec3s pos, pb_vec3s vel);

/* Quaternion Hermite (the text's quat_hermite): with the shortest offset
 * d = 2 log(abs(r1 r0^-1)), u(x) = w1 d + w2 v0 + w3 v1 and
 * rot = exp(u/2) r0 (so rot(0) = r0, rot(1) = +-r1); vel = u'(x), or the
 * exact angular velocity with PB_EXACT_VELOCITY. v0, v1: angular velocities at
 * r0 and r1, scaled angle-axis per unit x. Flags: PB_EXACT_VELOCITY. Inputs
 * should be unit; r0, r1 may be in either hemisphere. rot is unit. */
PB_API pb_status pb_quat_hermite(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cvec3s v0,
                                 pb_cvec3s v1, unsigned flags, pb_quats rot, pb_vec3s vel);
/* Quaternion Catmull-Rom (the text's quat_catmull_rom): Hermite between r1 and
 * r2 with tangents (d01 + d12)/2 and (d12 + d23)/2, dij the shortest scaled
 * angle-axis offsets 2 log(abs(rj ri^-1)). rot(0) = r1, rot(1) = +-r2,
 * vel(0) = (d01 + d12)/2. Flags: PB_EXACT_VELOCITY. */
PB_API pb_status pb_quat_catmull_rom(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cquats r2,
                                     pb_cquats r3, unsigned flags, pb_quats rot, pb_vec3s vel);
/* Raw 4D Catmull-Rom of quaternions treated as 4-vectors, renormalised (the
 * text's raw quaternion cubic). r0, r2 are first brought into r1's hemisphere
 * and r3 into (aligned) r2's, so un-unrolled input is safe. rot is the
 * normalised cubic c(x). vel4 (optional, NULL batch to skip) is the text's raw
 * 4D velocity c'(x) of the un-normalised cubic; with PB_EXACT_VELOCITY it is
 * the derivative of the normalised curve, (c' - rot (rot . c'))/|c|, so that
 * pb_quat_delta_to_angular_velocity(rot, vel4) is its exact angular velocity.
 * A cubic through zero (only possible for keys far apart) normalises to the
 * identity, with a zero exact vel4. */
PB_API pb_status pb_quat_raw_cubic(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cquats r2,
                                   pb_cquats r3, unsigned flags, pb_quats rot, pb_quats vel4);

/* Scale Hermite in log space (the text's scale_hermite), per axis:
 * u = w1 ln(s1/s0) + w2 v0 + w3 v1, scale = exp(u) s0, svel = u'(x).
 * Scales must be positive: a zero or negative component gives NaN (or 0/Inf
 * from the log) in that component only. ln(a/b) of neighbouring scales
 * within a factor sqrt 2 is formed as 2 atanh((a - b)/(a + b)), with no
 * rounded ratio (to an ulp of the log however near 1). */
PB_API pb_status pb_scale_hermite(size_t n, float x, pb_cvec3s s0, pb_cvec3s s1, pb_cvec3s v0,
                                  pb_cvec3s v1, pb_vec3s scale, pb_vec3s svel);
/* Scale Catmull-Rom in log space (the text's scale_catmull_rom) between s1 and
 * s2, tangents the averages of neighbouring log ratios. */
PB_API pb_status pb_scale_catmull_rom(size_t n, float x, pb_cvec3s s0, pb_cvec3s s1, pb_cvec3s s2,
                                      pb_cvec3s s3, pb_vec3s scale, pb_vec3s svel);

/* Spherical linear interpolation, constant angular speed: out(0) = a,
 * out(1) = +-b. By default the shortest path (b is negated when dot(a, b) < 0;
 * at dot == 0, i.e. rotations exactly 180 degrees apart, b is taken as given,
 * a well-defined 90-degree arc in 4D). With PB_LONG_PATH the rotation goes the
 * long way round (b negated when dot > 0); for a == +-b exactly, where the long
 * way has no defined axis, it turns about a's local x axis (a full turn at
 * t = 1). Any finite t extrapolates. Accurate near 0 degrees (no division by a
 * vanishing sine) and continuous everywhere except that long-path a == +-b
 * case, which takes over below ~2e-6 rad between the rotations; from 4e-6 rad
 * on the long path meets the rotation accuracy bound (the turning axis is
 * taken from the exactly computed chord b + a). Inputs should be unit; out is
 * unit if they are. */
PB_API pb_status pb_quat_slerp(size_t n, float t, pb_cquats a, pb_cquats b, unsigned flags,
                               pb_quats out);
/* Normalised linear interpolation: normalize((1-t) a + t b'), with b' chosen as
 * in pb_quat_slerp (PB_LONG_PATH honoured). A zero sum gives the identity. Not
 * constant speed: up to 0.3% angle difference from slerp at 90 degrees. */
PB_API pb_status pb_quat_nlerp(size_t n, float t, pb_cquats a, pb_cquats b, unsigned flags,
                               pb_quats out);

/* ------------------------------------------------------------------------ */
/* Weighted averages of k sample poses of n joints                          */
/* ------------------------------------------------------------------------ */
/*
 * samples: an array of k batches (one pose each); weights: k floats. Weights
 * are used as given (not normalised) unless a function says otherwise:
 * - raw, raw_ref, basic and accurate divide out the overall scale, so only
 *   ratios matter; negative weights subtract (extrapolation) and are allowed.
 *   They first scale every weight by 2^-E, E the exponent of the largest
 *   finite |w_i| (exact): weights w and 2^e w give bitwise the same result
 *   wherever 2^e w is exact, for any weights from 2^-149 (denormal) to
 *   FLT_MAX (1e20 or 1e-40 weights neither overflow nor underflow).
 * - log and log_ref are linear in the weights: weights summing to s != 1 scale
 *   the blended log offset by s (s > 1 extrapolates); the usual use is s = 1.
 * - If the accumulated quaternion or matrix is zero (all weights zero, or
 *   samples that cancel), the result is the identity (raw, basic, accurate) or
 *   the reference (raw_ref, log_ref), with PB_OK; never a zero quaternion or
 *   NaN. A negative weight sum is not an error either: raw and basic then
 *   return the normalised sum as it is (raw: -q for an all-negative
 *   weighting of q, the same rotation; raw_ref, basic, accurate: w >= 0).
 * k == 0 is PB_ERR_ARG (checked before any other count); k == 1 returns the
 * (canonicalised) sample.
 * out may be exactly any sample or the reference array (in place).
 * Sums over the samples run in blocks of 16, the block sums accumulated with
 * compensated (TwoSum) summation, so the error does not grow with k (tested
 * to k = 1e6).
 * Rotation accuracy against the same formula in double, any k:
 * - log, log_ref: 2e-6 rad;
 * - raw, raw_ref: 2e-6 + 1.2e-7 kappa rad, kappa = sum_i |w_i| |s_i| /
 *   |sum_i w_i sigma_i s_i| the condition number of the sum (sigma_i the
 *   hemisphere sign the formula gives s_i: sign of s_i.w, or of ref . s_i).
 *   kappa is about 1 for samples within a few tens of degrees of each other
 *   with positive weights; it is large when the sum nearly cancels (nearly
 *   the same ~180-degree rotation with w of both signs for raw; a reference
 *   near 90 degrees from the samples, splitting them between hemispheres, for
 *   raw_ref; or cancelling negative weights). 1.2e-7 kappa is 2 u kappa
 *   (u = 2^-24): the float rounding of the products w_i s_i alone moves the
 *   direction of the sum by up to u kappa, half-angle (tested for kappa up
 *   to 9e5, k up to 4096, every backend);
 * - basic: 2e-6 rad for clustered samples at any k (tested to 1e6); for
 *   nearly cancelling sums expect the raw bound with its own signs (its
 *   hemisphere choices follow the running sum; not separately tested);
 * - accurate: see there.
 */

/* Raw average (the text's bone_rotations_weighted_average_raw):
 * normalize(sum_i w_i abs(s_i)). */
PB_API pb_status pb_quat_average_raw(size_t n, size_t k, const pb_cquats *samples,
                                     const float *weights, pb_quats out);
/* Log average (the text's _log): exp(sum_i w_i log(abs(s_i))). As in the text,
 * the result is not passed through abs. */
PB_API pb_status pb_quat_average_log(size_t n, size_t k, const pb_cquats *samples,
                                     const float *weights, pb_quats out);
/* Reference-relative raw average (_raw_ref):
 * abs(ref normalize(sum_i w_i abs(ref^-1 s_i))). For a unit ref this equals
 * abs(normalize(sum_i w_i sigma_i s_i)), sigma_i = sign(ref . s_i), which is
 * how it is computed: ref picks each sample's hemisphere and nothing else, so
 * out is unit whatever ref's norm (a zero sum gives abs(ref) as given). */
PB_API pb_status pb_quat_average_raw_ref(size_t n, size_t k, pb_cquats ref,
                                         const pb_cquats *samples, const float *weights,
                                         pb_quats out);
/* Reference-relative log average (_log_ref):
 * abs(ref exp(sum_i w_i log(abs(ref^-1 s_i)))). */
PB_API pb_status pb_quat_average_log_ref(size_t n, size_t k, pb_cquats ref,
                                         const pb_cquats *samples, const float *weights,
                                         pb_quats out);
/* Eigenvector ("accurate") average: the unit q maximising sum_i w_i (q.s_i)^2,
 * i.e. the eigenvector of the largest eigenvalue of sum_i w_i s_i s_i^T,
 * returned with w >= 0. Minimises the weighted sum of squared sin-half-angle
 * (Frobenius) distances. Independent of sample order and of sample signs
 * (to float rounding); solved with a cyclic Jacobi eigen-decomposition, so it
 * never returns a zero quaternion (the text's power iteration does, when all
 * samples are orthogonal to its start vector). When the top eigenvalue is
 * degenerate (e.g. two samples 180 degrees apart with equal weights) any unit
 * vector of that eigenspace is a valid answer and one of them is returned.
 * Accuracy against an exact double eigen-solver: within
 * max(2e-6, PB_ACCURACY_EIGEN_GAP_RAD / g) = max(2e-6, 4e-7 / g) rad,
 * g = (l1 - l2) / l1 the relative gap of the two largest eigenvalues.
 * Samples that agree to a few tens of degrees have g near 1; widely spread
 * samples have small g, and there float arithmetic itself is the limit
 * (rounding the accumulated matrix and the float Jacobi rotations move the
 * eigenvector in proportion to 1 / g). The bound holds at any k (matrix
 * sums compensated as above). */
PB_API pb_status pb_quat_average_accurate(size_t n, size_t k, const pb_cquats *samples,
                                          const float *weights, pb_quats out);
/* Running-hemisphere average (the text's quat_average_basic, for completeness):
 * accumulate w_i s_i, negating s_i when it is in the opposite hemisphere of the
 * running sum; result normalize(abs(sum)). Depends on sample order. */
PB_API pb_status pb_quat_average_basic(size_t n, size_t k, const pb_cquats *samples,
                                       const float *weights, pb_quats out);
/* Rotation distance: out[i] = sin(half the angle between a_i and b_i), in
 * [0, 1], sign-insensitive. The Frobenius distance of the rotation matrices is
 * 2 sqrt(2) times this. Computed as |vec(a^-1 b)| / |a^-1 b| (no acos),
 * accurate to 2e-7 absolute; a zero quaternion gives NaN. out must not overlap
 * any input. */
PB_API pb_status pb_quat_sin_half_angle(size_t n, pb_cquats a, pb_cquats b, float *out);
/* Reference extraction: the accurate average of `frames` poses of `joints`
 * quaternions stored frame-major (element (f, j) at f*joints + j), with equal
 * weights; use the result later as the reference of the _ref averages.
 * frames == 0 is PB_ERR_ARG; frames*joints <= PB_MAX_COUNT. out must not overlap
 * the input. Accuracy: that of pb_quat_average_accurate at any frame count. */
PB_API pb_status pb_quat_reference_extract(size_t frames, size_t joints, pb_cquats poses,
                                           pb_quats out);

/* ------------------------------------------------------------------------ */
/* Tangent-space Bezier and Shoemake constructions (splines notebook)       */
/* ------------------------------------------------------------------------ */

/* Tangent-space offset at key q between neighbours p (previous) and s (next):
 * exp((ln abs(q p^-1) + ln abs(s q^-1)) / 2). */
PB_API pb_status pb_quat_tangent_offset(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                                        pb_quats offset);
/* Bezier control quaternions around key q: before = offset^(-1/3) q,
 * after = offset^(1/3) q, offset as in pb_quat_tangent_offset. */
PB_API pb_status pb_quat_bezier_controls(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                                         pb_quats before, pb_quats after);
/* Cubic Bezier-like quaternion curve by De Casteljau's algorithm with slerp
 * (shortest path at each step): exactly q0 at t = 0 and +-q3 at t = 1,
 * controls q1, q2. (pb_quat_slerp also returns exactly a at t = 0, +-b at
 * t = 1.) Each slerp is evaluated from its nearer end (for t > 1/2 from the
 * second point back, with 1 - t): within 2e-6 rad of the double reference
 * over all t in [0, 1]. */
PB_API pb_status pb_quat_de_casteljau(size_t n, float t, pb_cquats q0, pb_cquats q1, pb_cquats q2,
                                      pb_cquats q3, pb_quats out);
/* Shoemake's control quaternions (Double/Bisect, SIGGRAPH 85 section 4.2):
 * a = Bisect(Double(prev, cur), next) (outgoing), b = normalize(Double(a, cur))
 * (incoming). As in the paper they are not yet truncated to a third of the arc:
 * slerp(cur, a, 1/3) and slerp(cur, b, 1/3) give Bezier controls. The formula
 * is sign-sensitive: keys should be in one hemisphere (unrolled). With mixed
 * signs, Bisect's sum cancels and the float error grows as about 5e-7 times
 * (|D| + |next|) / |D + next|, D = Double(prev, cur). */
PB_API pb_status pb_quat_shoemake_controls(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                                           pb_quats b, pb_quats a);
/* Evaluates, at time t, the tangent-space Bezier spline through `keys` poses of
 * n quaternions stored frame-major (element (f, j) at f*n + j): segment
 * i = floor(t) runs from key i to key i+1 through the controls of
 * pb_quat_bezier_controls, evaluated with pb_quat_de_casteljau. Every step
 * takes the shortest arc, so keys may be in either hemisphere. Open (default):
 * t is clamped to [0, keys-1]; an end key's missing neighbour is the
 * reflection of its other neighbour (cur next^-1 cur), so its tangent follows
 * its single chord. PB_CLOSED: the sequence loops, t wraps modulo keys.
 * keys == 0 is PB_ERR_ARG; NaN t (or infinite t with PB_CLOSED) gives NaN.
 * One key gives that key. out must not overlap the keys. */
PB_API pb_status pb_quat_spline_eval(size_t keys, size_t n, pb_cquats track, float t,
                                     unsigned flags, pb_quats out);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_ROTATIONS_H */
