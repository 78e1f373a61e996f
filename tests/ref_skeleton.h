/*
 * Double-precision reference for the skeleton functions (pb_pose_local_to_model,
 * pb_pose_model_to_local): the composition of include/posebatch.h written
 * plainly over ref.h's algebra (vectors rotated as q v conj(q)), one pose at
 * a time (a quaternion stands for its rotation: q / |q|). Not a port of the float kernels.
 */
#ifndef POSEBATCH_TESTS_REF_SKELETON_H
#define POSEBATCH_TESTS_REF_SKELETON_H

#include <stddef.h>
#include <stdint.h>

#include "ref.h"

/* a joint's rotation, translation and scale */
typedef struct {
    rq r;
    rv3 t, s;
} ref_xf;

/* v rotated by q's rotation: vec(q (0, v) conj(q)) / |q|^2 */
rv3 ref_rotate(rq q, rv3 v);
/* Local -> model for one pose of J joints (parents[j] < j or -1). */
void ref_local_to_model(size_t J, const int32_t *parents, const ref_xf *local, ref_xf *model);
/* Model -> local: r = R_a^-1 R_j, t = (R_a^-1 (T_j - T_a)) / S_a, s = S_j / S_a. */
void ref_model_to_local(size_t J, const int32_t *parents, const ref_xf *model, ref_xf *local);
/* depth of each joint: 1 for a root, its parent's + 1 otherwise */
void ref_depths(size_t J, const int32_t *parents, int *depth);

#endif
