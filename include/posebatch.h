/*
 * posebatch — batch skeletal pose processing over structure-of-arrays data.
 *
 * This header states the conventions and accuracy that hold for every
 * function, and includes one header per part (each may be included alone):
 *
 *     posebatch/base.h       version, pb_status, batch types, backends
 *     posebatch/rotations.h  quaternion primitives, cubic and spherical
 *                            interpolation, averages, spline constructions
 *     posebatch/clip.h       clips: sampling, resampling; pose blending
 *     posebatch/skeleton.h   model space (FK), root motion, mirroring
 *     posebatch/layout.h     interleaved layouts <-> batches
 *     posebatch/rotrep.h     rotation representations: matrices, 6D,
 *                            rotation vectors
 *     posebatch/features.h   motion features for learning (a clip's,
 *                            HumanML3D's)
 *     posebatch/ik.h         inverse kinematics: two-bone and aim IK
 *
 * The file API (BVH, glTF, ...) is posebatch/io.h.
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

#include "posebatch/base.h"
#include "posebatch/rotations.h"
#include "posebatch/clip.h"
#include "posebatch/skeleton.h"
#include "posebatch/skin.h"
#include "posebatch/layout.h"
#include "posebatch/rotrep.h"
#include "posebatch/features.h"
#include "posebatch/ik.h"

#endif /* POSEBATCH_H */
