/*
 * posebatch — batch skeletal pose processing over structure-of-arrays data.
 *
 * Conventions (hold for every function below)
 * -------------------------------------------
 * - Quaternions are (w, x, y, z), Hamilton product, v' = q v q*; the inverse is
 *   the conjugate. A batch of n quaternions is four float arrays (pb_quats), a
 *   batch of n vec3 is three (pb_vec3s). Element i of a batch is w[i], x[i], ...
 * - log(q) is the half-angle times the unit axis; the scaled angle-axis of q is
 *   2 log(q) (full angle times axis).
 * - Angular velocity is a scaled angle-axis rate in the parent (global) frame,
 *   per unit of the interpolation parameter x: divide by the frame time to get
 *   radians per second. By default the cubic interpolators return the quantity
 *   the reference text returns (du/dx of the scaled-angle-axis offset u); with
 *   PB_EXACT_VELOCITY they return the exact angular velocity of the rotation
 *   curve, J_l(u) du/dx (J_l: left Jacobian of SO(3)). The two agree at x = 0
 *   and for rotation about a single axis, and otherwise differ by about half the
 *   step angle, relatively (4% for 0.08 rad steps).
 * - Scales are per-axis (vec3 batches) and interpolated in log space; their
 *   velocity is the rate of ln(scale) per unit x.
 * - Every entry point returns a pb_status. On any error the outputs are left
 *   byte-for-byte untouched. Errors, checked before anything is written:
 *     PB_ERR_NULL    a required pointer is NULL while n > 0;
 *     PB_ERR_SIZE    n (or a product of counts) exceeds PB_MAX_COUNT;
 *     PB_ERR_ARG     k == 0 where samples are required, or unknown flag bits;
 *     PB_ERR_ALIAS   forbidden aliasing (below).
 *   n == 0 is valid and writes nothing (pointers may then be NULL).
 * - Aliasing: unless a function says otherwise, each output array may be
 *   exactly the same array (same start pointer) as any input array, and must
 *   otherwise not overlap any input array or any other output array. Partial
 *   overlaps are rejected with PB_ERR_ALIAS.
 * - Pointers need only float alignment; 64-byte alignment may be faster.
 * - Numeric garbage is not an error: NaN or Inf inputs produce NaN (or Inf)
 *   in the affected elements only, never a crash or a hang.
 * - All functions are thread-safe and reentrant; only pb_clip_sample and
 *   pb_clip_resample allocate (a workspace of 9 floats per joint and 4 per
 *   joint rounded up to 16, freed before they return; PB_ERR_NOMEM if it
 *   cannot be had).
 * - Cost: a fixed part per call (argument checks, dispatch) plus blocks of
 *   4/8/16 elements (SSE4.1/AVX2/AVX-512): call once per skeleton per frame,
 *   or put several characters in one call (n = characters x joints) to share
 *   the fixed part. Measured figures: docs/performance.md.
 *
 * Accuracy (float32, against a double-precision reference, any backend)
 * -------------------------------------------------------------------
 *   rotations:  within PB_ACCURACY_ROTATION_RAD (2e-6 rad) of the reference,
 *               as the angle of q_ref^-1 q, sign-insensitive;
 *   velocities: within 1e-5 relative + 1e-6 absolute (per vector norm);
 *   scales:     within 2e-6 relative;
 * for inputs within the normal range: unit (to float rounding) quaternions and
 * offsets/velocities whose scaled angle-axis magnitude |u| is at most 2 pi.
 * Beyond that the float rounding of |u| itself dominates: the rotation error
 * grows as about 2^-22 |u| radians. Half-angles from 1e-8 rad up are resolved
 * to full relative precision (log uses atan2, never acos).
 * The weighted averages and blends hold these at any sample or layer count k
 * (tested to 1e6) and any weight scale; their own conditions are stated with
 * them: raw and raw_ref averages 2e-6 + 1.2e-7 kappa rad (kappa the condition
 * number of the weighted sum), log-space blended scales 2e-6 + 1.2e-7 L
 * relative (L the magnitude of the log sum, about |ln s|).
 */
#ifndef POSEBATCH_H
#define POSEBATCH_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(PB_SHARED_BUILD)
#define PB_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define PB_API __attribute__((visibility("default")))
#else
#define PB_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Version, status                                                          */
/* ------------------------------------------------------------------------ */

#define PB_VERSION_MAJOR 0
#define PB_VERSION_MINOR 1
#define PB_VERSION_PATCH 0

/* Largest element count any function accepts: keeps every byte size and index
 * computation inside ptrdiff_t on 32- and 64-bit targets. */
#define PB_MAX_COUNT ((size_t)1 << 28)

#define PB_ACCURACY_ROTATION_RAD 2e-6f
#define PB_ACCURACY_VELOCITY_REL 1e-5f
#define PB_ACCURACY_VELOCITY_ABS 1e-6f
#define PB_ACCURACY_SCALE_REL 2e-6f
/* pb_quat_average_accurate: error within max(2e-6, this / g) rad, see there */
#define PB_ACCURACY_EIGEN_GAP_RAD 4e-7f

typedef enum pb_status {
    PB_OK = 0,
    PB_ERR_NULL = 1,        /* required pointer is NULL */
    PB_ERR_SIZE = 2,        /* count above PB_MAX_COUNT or size overflow */
    PB_ERR_ARG = 3,         /* invalid argument: k == 0, unknown flags, bad name */
    PB_ERR_ALIAS = 4,       /* forbidden overlap between arrays */
    PB_ERR_UNSUPPORTED = 5, /* backend not built in or not supported by this CPU */
    PB_ERR_NOMEM = 6        /* memory allocation failed (clip-level functions) */
} pb_status;

/* Library version as MAJOR*10000 + MINOR*100 + PATCH of the linked library. */
PB_API uint32_t pb_version(void);
/* Library version as "MAJOR.MINOR.PATCH" (static storage). */
PB_API const char *pb_version_string(void);
/* A short English explanation of a status; never NULL (unknown values get
 * "unknown status"). */
PB_API const char *pb_status_str(pb_status status);

/* ------------------------------------------------------------------------ */
/* Batch types                                                              */
/* ------------------------------------------------------------------------ */

/* n quaternions as four arrays; writable (outputs). */
typedef struct pb_quats {
    float *w, *x, *y, *z;
} pb_quats;
/* n quaternions as four arrays; read-only (inputs). */
typedef struct pb_cquats {
    const float *w, *x, *y, *z;
} pb_cquats;
/* n vec3 as three arrays; writable (outputs). */
typedef struct pb_vec3s {
    float *x, *y, *z;
} pb_vec3s;
/* n vec3 as three arrays; read-only (inputs). */
typedef struct pb_cvec3s {
    const float *x, *y, *z;
} pb_cvec3s;

/* Views of a writable batch as an input. */
static inline pb_cquats pb_cq(pb_quats q)
{
    pb_cquats r = {q.w, q.x, q.y, q.z};
    return r;
}
static inline pb_cvec3s pb_cv(pb_vec3s v)
{
    pb_cvec3s r = {v.x, v.y, v.z};
    return r;
}

/* Flags (bit set; functions reject bits they do not document). */
#define PB_EXACT_VELOCITY 0x1u /* cubic interpolators: exact angular velocity J_l(u) du/dx */
#define PB_LONG_PATH 0x2u      /* slerp / nlerp: go the long way round (> 180 degrees) */
#define PB_CLOSED 0x4u         /* spline over keys: the sequence loops */
#define PB_CLIP_LOOP 0x8u      /* clip resampling: the clip is cyclic (frame F wraps to 0) */

/* ------------------------------------------------------------------------ */
/* Backends and runtime dispatch                                            */
/* ------------------------------------------------------------------------ */

typedef enum pb_backend {
    PB_BACKEND_SCALAR = 0,
    PB_BACKEND_SSE41 = 1,
    PB_BACKEND_AVX2 = 2,   /* AVX2 + FMA */
    PB_BACKEND_AVX512 = 3, /* AVX-512 F/DQ/BW/VL */
    PB_BACKEND_NEON = 4,
    PB_BACKEND_COUNT = 5
} pb_backend;

/* The backend every function uses now. Resolved once, on first use, to the
 * best supported backend, or to $POSEBATCH_BACKEND if that names a supported
 * one (see pb_backend_init_status). Thread-safe. */
PB_API pb_backend pb_backend_active(void);
/* "scalar", "sse41", "avx2", "avx512", "neon"; NULL for values out of range. */
PB_API const char *pb_backend_name(pb_backend backend);
/* Parses a name as printed by pb_backend_name. Errors: PB_ERR_NULL (name or
 * out NULL), PB_ERR_ARG (unknown name); *out is untouched on error. */
PB_API pb_status pb_backend_from_name(const char *name, pb_backend *out);
/* 1 if the backend is built into this library and this CPU runs it, else 0. */
PB_API int pb_backend_supported(pb_backend backend);
/* 1 if the backend runs through SIMDe emulation of its ISA in this build (a
 * test-only build with -Demulated_backends=true: NEON on x86, AVX-512 on AVX2
 * hardware), else 0. Emulated backends are supported (forcible) but never
 * chosen automatically, and are slow: they exist to prove the kernels. */
PB_API int pb_backend_emulated(pb_backend backend);
/* Floats processed per SIMD step by a backend (1 for scalar); 0 if unknown.
 * On a CPU that executes each 512-bit operation as two 256-bit halves, the
 * AVX-512 backend runs some small batches with its 8-lane (AVX2) kernels;
 * results are as from any backend. */
PB_API int pb_backend_lanes(pb_backend backend);
/* Makes every later call use this backend, process-wide. Errors: PB_ERR_ARG
 * (out of range), PB_ERR_UNSUPPORTED (not built in or not supported by this
 * CPU); the active backend is unchanged on error. Safe to call from any thread,
 * but calls already running finish on the backend they started with. */
PB_API pb_status pb_backend_force(pb_backend backend);
/* How $POSEBATCH_BACKEND was handled at resolution: PB_OK when unset or
 * honoured, PB_ERR_ARG for an unknown name, PB_ERR_UNSUPPORTED for a backend
 * this CPU or build lacks. In both error cases the library runs the scalar
 * backend (never a silently different SIMD one) until pb_backend_force. */
PB_API pb_status pb_backend_init_status(void);

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

/* ------------------------------------------------------------------------ */
/* Clips: resampling joint tracks, blending poses                           */
/* ------------------------------------------------------------------------ */
/*
 * A clip is F frames of J joints, frame-major structure of arrays: the value
 * of joint j in frame f is element f*J + j of each array. Rotations are
 * required; positions and scales are optional tracks (a batch whose first
 * pointer is NULL is absent). Frame f is at time f * frame_time seconds.
 */
typedef struct pb_clip {
    size_t frames;     /* F >= 1 */
    size_t joints;     /* J >= 1; F*J <= PB_MAX_COUNT */
    double frame_time; /* seconds between frames: finite, > 0, 1/frame_time finite */
    pb_quats rot;      /* F*J rotations (unit quaternions) */
    pb_vec3s pos;      /* F*J translations, or absent */
    pb_vec3s scale;    /* F*J positive scales, or absent */
} pb_clip;

/* Optional velocity outputs of a resampling, per second, same layout as the
 * output clip: angular velocity (rad/s, world-frame convention of
 * pb_quat_catmull_rom), linear velocity of the positions (units/s), and the
 * rate of the log of the scales (1/s). Each batch may be absent. */
typedef struct pb_clip_vel {
    pb_vec3s rot, pos, scale;
} pb_clip_vel;

/* Samples src at `count` arbitrary times (seconds, any order; sorted times
 * are fastest, since the per-segment work is then done once per source
 * segment) into dst, which must have dst->frames == count, dst->joints ==
 * src->joints, and the same tracks present as src (a track of src may be left
 * out of dst; one dst has and src lacks is PB_ERR_NULL). dst->frame_time is
 * not used or changed.
 *
 * Between source frames f and f+1 the value is the Catmull-Rom of frames f-1,
 * f, f+1, f+2: rotations by pb_quat_catmull_rom, positions by
 * pb_vec3_catmull_rom, scales by pb_scale_catmull_rom (log space), all with
 * the same results as those functions to float rounding. Rotation offsets are
 * taken as shortest arcs, so the source need not be unrolled; the output
 * rotation tracks are unrolled (each output frame in the hemisphere of the
 * previous one).
 * PB_EXACT_VELOCITY is honoured for the angular velocity. Either way the
 * velocity is continuous at source frames only to the text's formulation:
 * the default du/dx is exactly continuous (the tangent is shared), while the
 * exact velocity J_l(u) du/dx of the segment ending at a frame differs from
 * that of the segment starting there by about |d12 x t2| / 2 (d12 the
 * segment's offset, t2 its end tangent): second order in the step angle.
 * A time within 1e-9 relative (1e-9 frames near 0) of a frame time f *
 * frame_time is taken as exactly that frame time: times computed in double
 * as f * frame_time then land on their frame.
 * End conditions: by default (clamp) the missing neighbour of an end frame is
 * the end frame itself, and times outside [0, (F-1) frame_time] (after that
 * snapping) hold the end pose with zero velocity. With PB_CLIP_LOOP the clip is cyclic with period
 * F * frame_time: frame F-1 is followed by frame 0 (so a clip whose last
 * frame repeats its first should drop it first), neighbours wrap, any finite
 * time is taken modulo the period, and the result is continuous across the
 * seam. A sample at a source frame time reproduces that frame exactly (up to
 * the sign the unrolling picks). F == 1 gives that frame
 * everywhere with zero velocity.
 * vel may be NULL; its batches hold count*J values each.
 * Errors (nothing written): PB_ERR_NULL (src/dst/times or a needed batch
 * NULL), PB_ERR_SIZE (frames or joints 0, count 0, or a count above
 * PB_MAX_COUNT), PB_ERR_ARG (dst->frames != count, frame_time not finite and
 * > 0 or so small (denormal) that 1 / frame_time, the velocity factor, is
 * infinite, a time not finite, unknown flags, joints differ), PB_ERR_ALIAS
 * (an output overlapping src or another output, or times overlapping any
 * output: it is read while they are written), PB_ERR_NOMEM (the J-sized
 * per-segment workspace).
 * Accuracy: that of pb_quat_catmull_rom (rotation, velocity), vec3 and scale
 * Catmull-Rom; velocities per second are those divided by frame_time. */
PB_API pb_status pb_clip_sample(const pb_clip *src, size_t count, const double *times,
                                unsigned flags, pb_clip *dst, const pb_clip_vel *vel);

/* Output frame count of pb_clip_resample at fps frames per second: clamp:
 * floor(duration * fps) + 1 with duration (F-1) * frame_time; PB_CLIP_LOOP:
 * round(F * frame_time * fps) (one period, the seam frame not repeated), at
 * least 1, both with the ratio snapping of pb_clip_resample. Returns
 * 0 for invalid arguments (NULL, fps or frame_time not finite and > 0, or
 * either so small that its reciprocal, or 1 / (fps frame_time), is infinite;
 * zero sizes) or a count above PB_MAX_COUNT. */
PB_API size_t pb_clip_resample_frames(const pb_clip *src, double fps, unsigned flags);

/* Resamples src to fps frames per second: dst->frames must equal
 * pb_clip_resample_frames(src, fps, flags); output frame i is sampled at
 * source frame position i * s, s = 1 / (fps * src->frame_time), as in
 * pb_clip_sample (same flags, tracks, errors, accuracy). When s is within
 * 1e-4 relative of a ratio p/q of small integers (q <= 64; e.g. 0.25 for
 * 30 -> 120 fps with a printed frame time of 0.0333333, or 1 for 120 fps
 * with 0.008333) that ratio is used exactly, so every q-th output frame is
 * exactly a source frame. Sets dst->frame_time = 1 / fps (always finite: an
 * fps whose reciprocal is infinite is PB_ERR_ARG). Cost: proportional to the
 * output's frames x joints (figures: docs/performance.md). */
PB_API pb_status pb_clip_resample(const pb_clip *src, double fps, unsigned flags, pb_clip *dst,
                                  const pb_clip_vel *vel);

/* One pose of J joints (a frame of a clip); tracks as in pb_clip. */
typedef struct pb_pose {
    pb_quats rot;
    pb_vec3s pos;
    pb_vec3s scale;
} pb_pose;
typedef struct pb_cpose {
    pb_cquats rot;
    pb_cvec3s pos;
    pb_cvec3s scale;
} pb_cpose;

typedef enum pb_blend_method {
    PB_BLEND_LOG_REF = 0,  /* pb_quat_average_log_ref around ref (the default) */
    PB_BLEND_RAW_REF = 1,  /* pb_quat_average_raw_ref around ref */
    PB_BLEND_LOG = 2,      /* pb_quat_average_log */
    PB_BLEND_RAW = 3,      /* pb_quat_average_raw */
    PB_BLEND_ACCURATE = 4, /* pb_quat_average_accurate */
    PB_BLEND_METHOD_COUNT = 5
} pb_blend_method;

/* Weighted blend of k poses of J joints into out (what an animation runtime's
 * blending job does per frame): rotations by the chosen average; positions
 * by the weighted sum sum_i w_i p_i, or ref.pos + sum_i w_i (p_i - ref.pos)
 * when ref has positions; scales in log space, exp(sum_i w_i ln s_i), or
 * ref.scale * exp(sum_i w_i ln(s_i / ref.scale)) when ref has scales.
 * Weights are used as given (the usual use sums to 1; positions and log
 * blends are linear in them, see the averages above). rot/pos/scale are
 * arrays of k batches; pos and scale may be NULL (those tracks are then not
 * blended and out's must be absent; out having a track the inputs lack is
 * PB_ERR_NULL). ref may be NULL except for the *_REF methods (PB_ERR_NULL);
 * a track of ref given with only some of its pointers NULL (pos = {NULL, y,
 * z}) is PB_ERR_NULL, whether the output uses it or not.
 * out must not overlap any input (PB_ERR_ALIAS). k == 0 or an unknown method:
 * PB_ERR_ARG (as for the averages); joints or k above PB_MAX_COUNT:
 * PB_ERR_SIZE; joints == 0 (with a valid k and method) does nothing and
 * returns PB_OK, pointers unchecked. Accuracy, at any k (sums compensated as
 * the averages'): rotations that of the average used; positions within 1e-6
 * of sum_i |w_i p_i|; scales within 2e-6 + 1.2e-7 L relative, L = sum_i
 * |w_i ln(s_i / ref.scale)| (ref.scale 1 when absent): the log-space sum of
 * magnitude L carries about an ulp of L, so tiny or huge scales (1e-30:
 * |ln| = 69) lose relative accuracy in proportion (tested for magnitudes 1
 * to 1e-30, k up to 1000).
 * ln(s_i / ref.scale) is formed as 2 atanh((s_i - ref.scale) / (s_i +
 * ref.scale)) where the ratio lies within a factor sqrt 2 (no rounded
 * ratio: to an ulp of the log however near 1), else as ln of the rounded
 * ratio, which overflows (Inf or NaN in that component) only for ratios
 * beyond float range, as a scale of 1 over a denormal ref.scale. */
PB_API pb_status pb_pose_blend(size_t joints, size_t k, const pb_cquats *rot, const pb_cvec3s *pos,
                               const pb_cvec3s *scale, const float *weights, pb_blend_method method,
                               const pb_cpose *ref, const pb_pose *out);

/* One layer of pb_pose_blend_layers: a pose of the call's J joints, its
 * weight, and optionally a weight per joint (a mask: the layer's weight at
 * joint j is weight * joint_weights[j]). pose.rot is required; pose.pos and
 * pose.scale are read when the output has that track (absent there in a
 * blended layer: PB_ERR_NULL; absent in an additive layer: no delta). */
typedef struct pb_blend_layer {
    float weight;
    const float *joint_weights; /* NULL: 1 at every joint; else J floats */
    pb_cpose pose;
} pb_blend_layer;

/* pb_blend_desc.flags */
#define PB_BLEND_LINEAR_SCALE 1u /* scales blend linearly (ozz's semantics), not in log space */

typedef struct pb_blend_desc {
    size_t joints;                /* J */
    const pb_blend_layer *layers; /* layer_count >= 1 blended layers */
    size_t layer_count;
    const pb_blend_layer *additive; /* additive_count layers applied on top (may be 0) */
    size_t additive_count;
    pb_blend_method method; /* any but PB_BLEND_ACCURATE */
    unsigned flags;         /* 0 or PB_BLEND_LINEAR_SCALE */
    const pb_cpose *ref;    /* reference pose, or NULL (see below) */
} pb_blend_desc;

/* Layered pose blend, one pass over the joints (what a runtime's blending
 * job does per character per frame; n may also be characters x joints).
 * Blended layers: at joint j, layer i weighs e_ij = weight_i *
 * joint_weights_i[j], and the weights are relative: each is divided by
 * T_j = sum_i e_ij. Rotations by the method's average with the weights
 * e_ij / T_j (PB_BLEND_RAW_REF: abs(ref normalize(sum e_ij abs(ref^-1 q_i))),
 * as pb_quat_average_raw_ref), with these hemisphere rules:
 * - the *_REF methods with desc->ref NULL (the zero-initialised desc's
 *   default, log_ref): the reference at joint j is the rotation of the
 *   blended layer with the largest e_ij (the first of equals), so every
 *   layer is taken relative to the dominant sample: right wherever the
 *   layers agree to well under 180 degrees, however far they are from the
 *   rest pose (tested against the slerp: docs/performance.md);
 * - the *_REF methods with a reference (e.g. the rest pose): relative to
 *   it. Where a joint sits near 180 degrees from that reference, as joints
 *   of real clips do from the rest pose, nearby samples fall on both sides
 *   of the log map's cut (log_ref) or of the reference's hemispheres
 *   (raw_ref) and the blend is wrong there: pass a reference only when the
 *   samples stay well within 90 degrees of it;
 * - PB_BLEND_RAW: each layer is summed in the hemisphere of the running sum
 *   (the first layer with w >= 0), as ozz-animation's BlendingJob does, and
 *   the result has w >= 0: normalize(sum e_ij sigma_ij q_i), sigma_ij the sign
 *   of q_i . (the sum of the layers before i), so it follows the layers'
 *   order where they spread over more than 90 degrees (quaternion dot
 *   products near 0);
 * - PB_BLEND_LOG: the log average around the identity (the text's), for
 *   samples near the identity only.
 * Positions sum (e_ij / T_j) p_i (which is
 * ref.pos + sum (e_ij / T_j)(p_i - ref.pos): the weights sum to one), scales
 * ref.scale exp(sum (e_ij / T_j) ln(s_i / ref.scale)), or with
 * PB_BLEND_LINEAR_SCALE sum (e_ij / T_j) s_i (ref's tracks taken as
 * identity, zero and one where ref or a track of it is absent). The sums take
 * e_ij and are divided by T_j once per joint. Where T_j is not > 0 (every
 * layer masked out there) the joint gets the reference pose (its rotation
 * with w >= 0; without ref the identity, zero translation, unit scale). Additive layers then apply in order with their weights as
 * given (a_aj = weight_a * joint_weights_a[j], not normalised): rotation
 * q <- exp(a_aj log(d)) q (d's shortest arc; a_aj = 1 applies d, 0 nothing,
 * -1 removes it), position p <- p + a_aj d_p, scale s <- s exp(a_aj ln d_s),
 * or with PB_BLEND_LINEAR_SCALE s <- s (1 + a_aj (d_s - 1)) as ozz does;
 * rotations come out with w >= 0 when additive layers apply.
 * Out tracks: rot required, pos and scale optional (blended when present).
 * With plain layer weights that sum to exactly 1 in float, no masks, no
 * additive layers and the same reference, the rotations are bitwise
 * pb_pose_blend's (PB_BLEND_RAW: where the layers, each taken with w >= 0,
 * lie in one hemisphere, so that the running sum's signs are those of w) and
 * positions and scales agree with it to float rounding. Errors, nothing written: desc
 * or out NULL, a NULL layer array with a count > 0, a missing rotation, or a
 * track the output has and a blended layer lacks: PB_ERR_NULL (a NULL ref is
 * not an error); layer_count
 * == 0, PB_BLEND_ACCURATE, an unknown method or flag: PB_ERR_ARG; joints or a
 * count above PB_MAX_COUNT: PB_ERR_SIZE; out overlapping any input, joint
 * weights included (PB_ERR_ALIAS). joints == 0 does nothing and returns
 * PB_OK. Any layer count (sums compensated as the averages'), layer weights
 * in any units (scaled by 2^-E of the largest: weights w and 2^e w give
 * bitwise the same output where 2^e w is exact); a reference track with only
 * some pointers NULL is PB_ERR_NULL. Accuracy (tested against double on every
 * backend, up to 1e5 layers): rotations within
 * the method's average bound (2e-6 rad) plus 4e-7 rad per additive layer;
 * positions to 1e-6 of sum |(e_ij / T_j) p_i| + sum |a_aj d_p|; scales
 * 2e-6 relative plus 1e-6 per additive layer (log-space scales far from
 * the reference: plus 1.2e-7 L, as pb_pose_blend). Where, over a chunk of 64
 * joints, every blended layer's scale is the reference's (1 without one: a
 * rig's usual unit scales) and every weight (times its joint weight) is
 * finite, log-space scales take no logarithms (ln 1 = 0: the result is
 * bitwise the same, the reference's scale). Cost: one call per character
 * per frame is the intended use; per-joint weights let several characters
 * share one call (figures: docs/performance.md). */
PB_API pb_status pb_pose_blend_layers(const pb_blend_desc *desc, const pb_pose *out);

/* ------------------------------------------------------------------------ */
/* Skeletons: model space (forward kinematics)                              */
/* ------------------------------------------------------------------------ */
/*
 * A skeleton of J joints is its parent table: parents[j] is the index of
 * joint j's parent, which comes before it (parents[j] < j), or -1 for a root
 * (several roots are allowed). BVH files and pb_bvh list joints in this
 * order. P poses of the skeleton are laid out as a clip's frames: the value
 * of joint j in pose p is element p*J + j of each array.
 *
 * Local -> model (forward kinematics), for each pose, joints in order:
 *   root:  R_j = r_j, T_j = t_j, S_j = s_j;
 *   else:  R_j = R_a r_j, T_j = T_a + R_a (S_a * t_j), S_j = S_a * s_j,
 * a = parents[j], r/t/s the local rotation, translation and scale, R/T/S the
 * model-space ones, * componentwise. With uniform scales this is the
 * composition of the TRS matrices exactly; with non-uniform scales under
 * rotated children a matrix product has shear, which a TRS cannot hold, and
 * S_j is the componentwise product (as engines' "lossy scale").
 * Model -> local is its inverse: r_j = R_a^-1 R_j, t_j = (R_a^-1 (T_j -
 * T_a)) / S_a, s_j = S_j / S_a.
 * Tracks: rot is required in both poses. pos: local.pos is required when
 * model.pos is asked for (and vice versa for model -> local); an output
 * without pos gets rotations (and scales) only. scale: absent in the input
 * means unit scales; when the input has scales, the output must have them
 * too (PB_ERR_NULL), since positions depend on them; an output scale with no
 * input scale is filled with 1.
 * Aliasing: each output may be exactly the same arrays as the same track of
 * the input (in place: local poses overwritten by model ones); any other
 * overlap, parents included, is PB_ERR_ALIAS.
 * Errors, nothing written: PB_ERR_NULL (a required pointer, parents NULL),
 * PB_ERR_SIZE (poses or joints 0, or poses * joints above PB_MAX_COUNT),
 * PB_ERR_ARG (a parent index not in -1 .. j-1), PB_ERR_ALIAS.
 * Accuracy (float, against the same composition in double, for unit
 * input rotations; "depth" counts a root as 1, "size" is the pose's
 * largest |T_j|):
 *   local -> model: rotations within PB_ACCURACY_ROTATION_RAD x depth;
 *   positions within 3e-7 x depth x size, and within 1e-5 x size at every
 *   depth up to 200; scales within 2e-7 x depth relative.
 *   model -> local: each joint from its own and its parent's model values:
 *   rotations within PB_ACCURACY_ROTATION_RAD, positions within
 *   6e-7 x (|T_j| + |T_a|) / min(S_a), scales within 2e-7 relative.
 * (Model rotations from a deep chain drift from unit by about an ulp per
 * level; the inverse treats R_a^-1 as the conjugate, so renormalise such
 * rotations first if they went through hundreds of levels.)
 * Every backend gives the same bits in deterministic builds. Cost: lanes
 * are poses, so a call over many poses (a clip, or several characters of
 * one skeleton) is the efficient one; a single pose fills one lane of a
 * block (figures: docs/performance.md, "Model space (FK)").
 */
PB_API pb_status pb_pose_local_to_model(size_t poses, size_t joints, const int32_t *parents,
                                        const pb_cpose *local, const pb_pose *model);
PB_API pb_status pb_pose_model_to_local(size_t poses, size_t joints, const int32_t *parents,
                                        const pb_cpose *model, const pb_pose *local);

/* ------------------------------------------------------------------------ */
/* Skeletons: root motion and mirroring                                     */
/* ------------------------------------------------------------------------ */
/*
 * Root motion: a clip's travel over the ground and its turning, taken out of
 * the clip into a separate root track (one translation and one rotation per
 * frame) so that the clip plays in place, and put back.
 *
 * Axes: the up axis u is +X, +Y (BVH's, the default) or +Z; the ground plane
 * is the plane through the origin normal to u. The forward axis f is the next
 * axis after u in x -> y -> z -> x order, the side axis s = u x f the one
 * after that (up Y: forward +Z, side +X; up Z: forward +X, side +Y; up X:
 * forward +Y, side +Z).
 *
 * The measured joint (pb_root_opts.joint, default 0: a BVH file's ROOT) has
 * the model-space rotation R and translation P in each frame (its local
 * values when it is a root; forward kinematics, pb_pose_local_to_model, one
 * frame at a time, when it is below one). Per frame:
 *   ground translation  g = P - (P . u) u, the projection of P on the ground
 *                       plane (zero without PB_ROOT_GROUND);
 *   heading             H = the rotation about u by the yaw angle theta of
 *                       the Tait-Bryan decomposition R = Rot_u(theta)
 *                       Rot_s(pitch) Rot_f(roll) (the identity without
 *                       PB_ROOT_HEADING). That is: theta is the angle, about
 *                       u, from f to the projection of R f (the joint's
 *                       forward axis in model space) on the ground plane.
 *                       Fallback where that projection degenerates (R f
 *                       within 1e-6 rad of vertical, where pitch is +-90
 *                       degrees and yaw and roll are one angle): theta is
 *                       the angle from s to the projection of R s (the
 *                       decomposition's usual lock convention, roll = 0).
 * Extraction takes the motion out: every top-level root joint (parent -1;
 * with parents == NULL, the measured joint alone, which is then taken to be
 * a root) gets, with R, P its local rotation and translation,
 *   P' = H^-1 (P - g),  R' = H^-1 R,
 * which, with both components, moves the measured joint to the ground origin
 * (only its height left) with its forward axis projecting onto f (heading
 * 0). The track stores g (exactly 0 along u) and
 * H (unit, w >= 0 in the first frame and each later frame in the hemisphere
 * of the one before; the identity without PB_ROOT_HEADING). Application is
 * the inverse, R = H R', P = H P' + g, on the same joints: extraction then
 * application gives back the clip to float rounding (a few units in the last
 * place of the values' magnitudes).
 *
 * The clip is changed in place (its rot and pos arrays; pos is required, since
 * the heading turns translations too; scales are not touched). Only the
 * components asked for are applied: with PB_ROOT_GROUND alone no rotation is
 * written, with PB_ROOT_HEADING alone g is 0.
 * Errors, nothing written: PB_ERR_NULL (clip, a clip rot or pos array, a
 * track array), PB_ERR_SIZE (frames or joints 0, F*J above PB_MAX_COUNT),
 * PB_ERR_ARG (joint >= J, up not an axis, components 0 or with unknown bits,
 * a parent index not in -1 .. j-1; frame_time is neither used nor checked),
 * PB_ERR_ALIAS (a track array overlapping another track array, a clip array
 * or parents),
 * PB_ERR_NOMEM (the forward-kinematics workspace of 10 floats per joint,
 * only when the measured joint is not a top-level root).
 */
typedef enum pb_axis { PB_AXIS_X = 0, PB_AXIS_Y = 1, PB_AXIS_Z = 2 } pb_axis;

#define PB_ROOT_GROUND (1u << 0)  /* the ground-plane translation g */
#define PB_ROOT_HEADING (1u << 1) /* the yaw H about the up axis */
#define PB_ROOT_ALL (PB_ROOT_GROUND | PB_ROOT_HEADING)

typedef struct pb_root_opts {
    size_t joint;        /* the measured joint (0: a BVH file's ROOT) */
    pb_axis up;          /* PB_AXIS_Y in BVH */
    unsigned components; /* PB_ROOT_GROUND and/or PB_ROOT_HEADING */
} pb_root_opts;
/* The defaults (also what opts == NULL means). */
#define PB_ROOT_OPTS_DEFAULT                                                                       \
    {                                                                                              \
        0, PB_AXIS_Y, PB_ROOT_ALL                                                                  \
    }

/* F ground translations and F headings, frame f at element f. */
typedef struct pb_root_track {
    pb_vec3s pos;
    pb_quats rot;
} pb_root_track;
typedef struct pb_croot_track {
    pb_cvec3s pos;
    pb_cquats rot;
} pb_croot_track;

/* Takes the root motion out of clip (in place) into track. parents: the
 * clip's skeleton (see "Skeletons: model space"), or NULL. */
PB_API pb_status pb_clip_root_extract(const pb_clip *clip, const int32_t *parents,
                                      const pb_root_opts *opts, const pb_root_track *track);
/* Puts a root track back into clip (in place): the inverse of
 * pb_clip_root_extract with the same parents and opts (opts->joint is not
 * used: every top-level root, or with parents == NULL opts->joint, gets it). */
PB_API pb_status pb_clip_root_apply(const pb_clip *clip, const int32_t *parents,
                                    const pb_root_opts *opts, const pb_croot_track *track);

/*
 * Mirroring: a clip reflected in a plane through the origin, left and right
 * swapped. mirror[j] is the joint that j's counterpart is (mirror[j] == j for
 * a joint on the centre line); the table must be an involution (mirror[
 * mirror[j]] == j, every entry in 0 .. J-1), else PB_ERR_ARG.
 * Reflection M in the plane with normal axis n (PB_MIRROR_YZ: x -> -x, the
 * default; PB_MIRROR_XZ: y -> -y; PB_MIRROR_XY: z -> -z): a rotation R
 * becomes M R M, i.e. the quaternion's component along n is kept and the
 * other two vector components are negated ((w, x, y, z) -> (w, x, -y, -z)
 * for YZ); a translation t becomes M t (its n component negated); scales
 * are kept. Joint j of dst gets the reflected values of joint mirror[j] of
 * src, every frame.
 * With local values of a skeleton whose rest offsets are reflected and
 * swapped the same way (pb_bvh_mirror does both), and a table that respects
 * the hierarchy (parent of mirror[j] == mirror[parent of j]), forward
 * kinematics of dst is exactly M times that of src with the joints swapped.
 * Only sign changes and moves: bit-exact, mirroring twice gives src back
 * bit for bit (NaN payloads aside).
 * dst must have src's frames and joints and every track src has (a track src
 * lacks is left alone in dst); dst->frame_time is not used. In place: dst's
 * arrays may be exactly src's (same start pointers); any other overlap is
 * PB_ERR_ALIAS. Errors, nothing written: PB_ERR_NULL, PB_ERR_SIZE (frames or
 * joints 0, F*J above PB_MAX_COUNT), PB_ERR_ARG (the table, the plane,
 * frames or joints that differ), PB_ERR_ALIAS (mirror overlapping an output
 * too).
 */
typedef enum pb_mirror_plane {
    PB_MIRROR_YZ = 0, /* x -> -x */
    PB_MIRROR_XZ = 1, /* y -> -y */
    PB_MIRROR_XY = 2  /* z -> -z */
} pb_mirror_plane;

PB_API pb_status pb_clip_mirror(const pb_clip *src, const int32_t *mirror, pb_mirror_plane plane,
                                const pb_clip *dst);

/* ------------------------------------------------------------------------ */
/* Interleaved layouts <-> batches                                          */
/* ------------------------------------------------------------------------ */
/*
 * Engines and glTF store quaternions as (x, y, z, w), vectors as xyz and
 * poses as arrays of transform structs; these convert to and from the
 * batches above (element i of the interleaved data <-> element i of the
 * batch). Pure data movement: bit-exact (NaN payloads and -0 kept), the same
 * on every backend, vectorised (register transposes for the dense layouts).
 * Errors as everywhere (nothing written): PB_ERR_NULL, PB_ERR_SIZE (n above
 * PB_MAX_COUNT, or the interleaved size overflowing), PB_ERR_ALIAS (the
 * interleaved array overlapping any batch array, or batch arrays
 * overlapping each other); PB_ERR_ARG for an invalid layout.
 */

/* out.w[i] = xyzw[4i+3], out.x[i] = xyzw[4i], ... (4n floats read). */
PB_API pb_status pb_quats_from_xyzw(size_t n, const float *xyzw, pb_quats out);
/* xyzw[4i] = q.x[i], ..., xyzw[4i+3] = q.w[i] (4n floats written). */
PB_API pb_status pb_quats_to_xyzw(size_t n, pb_cquats q, float *xyzw);
/* out.x[i] = xyz[3i], out.y[i] = xyz[3i+1], out.z[i] = xyz[3i+2]. */
PB_API pb_status pb_vec3s_from_xyz(size_t n, const float *xyz, pb_vec3s out);
/* xyz[3i] = v.x[i], xyz[3i+1] = v.y[i], xyz[3i+2] = v.z[i]. */
PB_API pb_status pb_vec3s_to_xyz(size_t n, pb_cvec3s v, float *xyz);

/* An engine's transform struct as floats: each transform is `stride` floats;
 * translation x, y, z, rotation x, y, z, w and scale x, y, z start at the
 * given float offsets, or are absent (PB_AOS_NONE). E.g.
 * struct { float t[3], r[4], s[3]; } is {10, 0, 3, 7}, PB_AOS_TRS. The parts
 * present must lie within the stride and not overlap (else PB_ERR_ARG);
 * stride <= PB_AOS_MAX_STRIDE. */
#define PB_AOS_NONE (-1)
#define PB_AOS_MAX_STRIDE 4096
typedef struct pb_aos_layout {
    size_t stride;                    /* floats from one transform to the next */
    int translation, rotation, scale; /* float offsets, or PB_AOS_NONE */
} pb_aos_layout;
#define PB_AOS_TRS                                                                                 \
    {                                                                                              \
        10, 0, 3, 7                                                                                \
    }

/* n transforms of aos (laid out by layout) into out: each part the layout
 * has goes to out's track (which must be present: PB_ERR_NULL); out's other
 * tracks are not touched. Reads (n-1)*stride floats plus the last
 * transform's parts. */
PB_API pb_status pb_pose_from_aos(size_t n, const float *aos, const pb_aos_layout *layout,
                                  const pb_pose *out);
/* The reverse: each part the layout has is written from in's track (which
 * must be present); the floats of a transform that the layout does not name
 * (padding, other fields) are not written. */
PB_API pb_status pb_pose_to_aos(size_t n, const pb_cpose *in, const pb_aos_layout *layout,
                                float *aos);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_H */
