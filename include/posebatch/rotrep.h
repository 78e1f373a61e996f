/* posebatch/rotrep.h — part of posebatch.h (conventions, accuracy: there):
 * rotation representations, batched: quaternions <-> 3x3 rotation matrices
 * <-> the continuous 6D representation <-> rotation vectors (axis-angle).
 * Euler angles are in posebatch/euler.h (double precision). */
#ifndef POSEBATCH_ROTREP_H
#define POSEBATCH_ROTREP_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Rotation representations (element-wise over n)                          */
/* ------------------------------------------------------------------------ */
/*
 * Matrices: n 3x3 matrices as nine arrays, m[3*r + c] the entry of row r,
 * column c (row-major, as numpy's (..., 3, 3) flattens), acting on column
 * vectors: v' = M v is the rotation v' = q v q* of the same quaternion.
 *
 * Continuous 6D (Zhou, Barnes, Lu, Yang, Li, "On the Continuity of Rotation
 * Representations in Neural Networks", CVPR 2019): the first two COLUMNS of
 * the matrix, c[0..2] = column 0 (m00, m10, m20), c[3..5] = column 1 (m01,
 * m11, m21), the order HumanML3D and PyTorch3D use for (..., 6) arrays. Back
 * to a matrix by Gram-Schmidt: column 0 = a / |a|, column 1 = b - (column 0
 * . b) column 0, normalised, column 2 = column 0 x column 1 (a = c[0..2],
 * b = c[3..5]), so any 6 numbers whose two halves are not parallel map to a
 * rotation, and the 6D of a rotation maps back to it.
 *
 * Rotation vectors (axis-angle): the full angle times the unit axis, angle
 * in [0, pi] (pb_quat_to_rotvec); back with pb_quat_from_scaled_angle_axis
 * (any length: a vector of length a is the rotation by a).
 *
 * Aliasing, errors: those of every batch function (posebatch.h): each output
 * array may be exactly an input array (in place), no other overlap
 * (PB_ERR_ALIAS); PB_ERR_NULL for a NULL array while n > 0, PB_ERR_SIZE for
 * n above PB_MAX_COUNT; nothing written on error. NaN in, NaN out.
 *
 * Accuracy (float32 against the same conversion in double, any backend;
 * tests/test_rotrep.c holds every backend to it, angles 0, pi and near them
 * included):
 *   quaternion -> matrix / 6D: each entry within 4e-7 of the matrix of
 *     q / |q| (unit to float rounding or not: |q| from 1e-18 to 1e18);
 *   matrix -> quaternion: within PB_ACCURACY_ROTATION_RAD of the rotation
 *     of the matrix when it is a rotation to float rounding (columns
 *     orthonormal within 1e-6);
 *   6D -> matrix / quaternion: for the 6D of a rotation (halves orthonormal
 *     within 1e-6): entries within 6e-7, rotations within
 *     PB_ACCURACY_ROTATION_RAD; for other halves the Gram-Schmidt of them,
 *     entries within 6e-7 / sin(t), t the angle between the halves (any
 *     lengths from 1e-15 to 1e15);
 *   quaternion -> rotation vector: that of pb_quat_log (3e-7 relative).
 */
typedef struct pb_mat3s {
    float *m[9];
} pb_mat3s;
typedef struct pb_cmat3s {
    const float *m[9];
} pb_cmat3s;
typedef struct pb_rot6ds {
    float *c[6];
} pb_rot6ds;
typedef struct pb_crot6ds {
    const float *c[6];
} pb_crot6ds;

/* The 6D of a matrix batch is its first two columns: these views point
 * into m (no copy). */
static inline pb_rot6ds pb_rot6d_of_mat3(pb_mat3s m)
{
    pb_rot6ds r = {{m.m[0], m.m[3], m.m[6], m.m[1], m.m[4], m.m[7]}};
    return r;
}
static inline pb_crot6ds pb_crot6d_of_mat3(pb_cmat3s m)
{
    pb_crot6ds r = {{m.m[0], m.m[3], m.m[6], m.m[1], m.m[4], m.m[7]}};
    return r;
}

/* out = the rotation matrix of q / |q| (q need not be unit; a zero q gives
 * the identity). */
PB_API pb_status pb_quat_to_mat3(size_t n, pb_cquats q, pb_mat3s out);
/* out = the 6D of q / |q| (the first two columns of pb_quat_to_mat3), in
 * one pass. */
PB_API pb_status pb_quat_to_rot6d(size_t n, pb_cquats q, pb_rot6ds out);
/* out = the unit quaternion of a rotation matrix, w >= 0 (sign bit clear),
 * by Shepperd's method: from the largest of 4w^2, 4x^2, 4y^2, 4z^2 (each
 * from the trace and the diagonal), so that angles near pi lose nothing;
 * the result is normalised. A matrix that is not a rotation gives that
 * formula's result normalised (not the nearest rotation); a zero matrix
 * gives the identity. */
PB_API pb_status pb_mat3_to_quat(size_t n, pb_cmat3s m, pb_quats out);
/* out = the matrix of a 6D rotation by Gram-Schmidt (above). Degenerate
 * input, a documented result: a zero first half is taken as (1, 0, 0); a
 * second half parallel to the first (or zero) as (0, 1, 0), or (0, 0, 1)
 * when |column 0 . (0, 1, 0)| >= 0.6, so the 6D of zeros is the identity. */
PB_API pb_status pb_rot6d_to_mat3(size_t n, pb_crot6ds r, pb_mat3s out);
/* out = the unit quaternion (w >= 0) of pb_rot6d_to_mat3, in one pass. */
PB_API pb_status pb_rot6d_to_quat(size_t n, pb_crot6ds r, pb_quats out);
/* out = the rotation vector of q: 2 log(abs(q)), angle in [0, pi] (the
 * shortest of the two scaled angle-axis forms of q; pb_quat_to_scaled_angle
 * _axis gives 2 log(q), angle in [0, 2 pi]). Scale-invariant. */
PB_API pb_status pb_quat_to_rotvec(size_t n, pb_cquats q, pb_vec3s out);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_ROTREP_H */
