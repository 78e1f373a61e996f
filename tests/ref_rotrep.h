/*
 * Independent double-precision reference of the rotation representations
 * (posebatch/rotrep.h): plain formulas written from their definitions (the
 * rotation matrix of a quaternion; Gram-Schmidt of two vectors, as in Zhou
 * et al. 2019), not the kernels in double. Matrices are row-major m[3*r + c].
 */
#ifndef POSEBATCH_TESTS_REF_ROTREP_H
#define POSEBATCH_TESTS_REF_ROTREP_H

#include "ref.h"

/* the matrix of q / |q| as R v = q v q*: column c is q e_c q* / |q|^2
 * (the rotated basis vector); zero q: identity */
void ref_quat_to_mat3(rq q, double m[9]);
/* Gram-Schmidt of the 6D halves a = c[0..2], b = c[3..5]: columns
 * a/|a|, (b - (a^.b) a^) normalised, their cross product */
void ref_rot6d_to_mat3(const double c[6], double m[9]);
/* the largest |a_i - b_i| of two matrices */
double ref_mat3_maxdiff(const double a[9], const double b[9]);
/* the angle of the rotation taking orthonormal matrix a to b (double) */
double ref_mat3_angle(const double a[9], const double b[9]);

#endif
