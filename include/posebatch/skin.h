/* posebatch/skin.h — part of posebatch.h (conventions, accuracy: there):
 * skinning matrices, as engines upload them for a skinned mesh. */
#ifndef POSEBATCH_SKIN_H
#define POSEBATCH_SKIN_H

#include "base.h"
#include "clip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Skinning matrices                                                        */
/* ------------------------------------------------------------------------ */
/*
 * Matrices are float, 4x4 in column-major order (element (r, c) at c*4 + r:
 * glTF's inverseBindMatrices, OpenGL, ozz-animation's Float4x4), or 3x4:
 * rows 0..2 of the 4x4 in row-major order (element (r, c) at r*4 + c: three
 * float4 rows, the affine matrix as shaders often take it; the last row of
 * an affine matrix, 0 0 0 1, left out).
 */
typedef enum pb_matrix_layout {
    PB_MATRIX_4X4 = 0, /* 16 floats, column-major */
    PB_MATRIX_3X4 = 1  /* 12 floats, rows 0..2, row-major */
} pb_matrix_layout;

/* Skinning matrices of P poses of J joints: for joint j of pose p, the
 * model transform as a matrix times joint j's inverse bind matrix,
 *   out_pj = M_pj B_j,   M = [R diag(S), T; 0 0 0 1],
 * R the rotation's matrix, S the scale and T the translation of model (as
 * pb_pose_local_to_model gives them; positions absent: 0, scales absent:
 * 1), B_j the 16 floats at inverse_bind + 16 j (column-major, glTF's
 * layout; NULL: the identity, so out is M itself). The matrix of (p, j) is
 * at out + (p*J + j) * 16 (PB_MATRIX_4X4: its row 3 is B_j's row 3, 0 0 0 1
 * for an affine B) or * 12 (PB_MATRIX_3X4: rows 0..2). Rotations are taken
 * as unit (the matrix of a non-unit q is not a rotation: normalise first).
 * Aliasing: out overlaps no input (PB_ERR_ALIAS).
 * Errors, nothing written: PB_ERR_NULL (model or out NULL, a rotation
 * array NULL, a position or scale track given with only some of its
 * arrays), PB_ERR_SIZE (poses or joints 0, poses * joints above
 * PB_MAX_COUNT), PB_ERR_ARG (an unknown layout), PB_ERR_ALIAS.
 * Accuracy (float, against the same product in double from the same
 * float inputs, unit rotations): element (r, c) within 1e-6 x
 * (|S_x| |B(0,c)| + |S_y| |B(1,c)| + |S_z| |B(2,c)| + |T_r| |B(3,c)|) (the
 * rotation's entries are at most 1); row 3 exact. Every backend gives the same bits in deterministic builds.
 * Cost: lanes are joints (docs/performance.md, "Skinning matrices"). */
PB_API pb_status pb_pose_skinning_matrices(size_t poses, size_t joints, const pb_cpose *model,
                                           const float *inverse_bind, pb_matrix_layout layout,
                                           float *out);

/* Inverse bind matrices from a rest pose: for J joints of the parent
 * table parents (as pb_pose_local_to_model's), the rest pose's local
 * transforms (one pose: rest->rot required, rest->pos and rest->scale
 * optional: 0 and 1 when absent) taken to model space and inverted, in
 * double, into 16 floats per joint at out + 16 j (column-major, the layout
 * pb_pose_skinning_matrices reads): B_j = M_j^-1, M_j the rest's model
 * matrix [R diag(S), T; 0 0 0 1] as pb_pose_local_to_model composes it
 * (so B_j = [diag(1/S) R^T, -diag(1/S) R^T T; 0 0 0 1]). A BVH's rest pose
 * is its OFFSETs with identity rotations (pb_bvh_inverse_bind_matrices).
 * Aliasing: out overlaps no input (PB_ERR_ALIAS).
 * Errors, nothing written: PB_ERR_NULL (parents, rest, a rotation array,
 * out; a track with only some of its arrays), PB_ERR_SIZE (joints 0 or
 * above PB_MAX_COUNT), PB_ERR_ARG (a parent index not in -1 .. j-1, a model
 * scale that is 0 or not finite, a non-finite rest value), PB_ERR_ALIAS.
 * Accuracy: each element the double result rounded once (rotations
 * normalised in double first). */
PB_API pb_status pb_pose_inverse_bind_matrices(size_t joints, const int32_t *parents,
                                               const pb_cpose *rest, float *out);

/* ------------------------------------------------------------------------ */
/* Linear blend skinning                                                    */
/* ------------------------------------------------------------------------ */

/* Linear blend skinning of `vertices` vertices, K = influences (1..8) each:
 *   B_v = sum_k w_vk S_{j_vk},  p'_v = B_v [p_v; 1],  n'_v = B_v [n_v; 0],
 * S_j the skinning matrix of joint j (joint_count of them at matrices, 16
 * floats each for PB_MATRIX_4X4, 12 for PB_MATRIX_3X4: one pose of
 * pb_pose_skinning_matrices' output; row 3 of a 4x4 is not read). Layouts,
 * as glTF accessors and GPU vertex buffers hold them (tightly packed,
 * vertex v's data consecutive): joints[v*K + k] (uint16, glTF's JOINTS_0,
 * with JOINTS_1 interleaved after it for 8), weights[v*K + k] (float),
 * positions and normals xyz triples at 3v. Weights are used as given (not
 * normalised: glTF's sum to 1). Normals: transformed by the same blended
 * matrix (rows 0..2, columns 0..2), neither normalised nor corrected for
 * non-uniform scale (that needs the inverse transpose: for rotations and
 * uniform scale, as from most rigs, the direction is right); NULL normals
 * and out_normals: positions only.
 * Aliasing: out_positions may be positions (in place) and out_normals
 * normals; any other overlap of an output with an input or with the other
 * output is PB_ERR_ALIAS.
 * Errors, nothing written: PB_ERR_NULL (joints, weights, matrices,
 * positions or out_positions NULL, only one of normals / out_normals),
 * PB_ERR_SIZE (vertices 0 or above PB_MAX_COUNT, joint_count 0 or above
 * 65536), PB_ERR_ARG (influences outside 1..8, an unknown layout, a joint
 * index >= joint_count), PB_ERR_ALIAS.
 * Accuracy (float, against the same sums in double from the same float
 * inputs): each output coordinate within 2e-6 x sum_k |w_k| (|S(r,0) x| +
 * |S(r,1) y| + |S(r,2) z| + |S(r,3)|) (normals: without the last term);
 * for a mesh, well within 1e-5 of its extent. Every backend gives the same
 * bits in deterministic builds.
 * Cost: per vertex and influence one matrix blended in (docs/performance.md,
 * "Skinning", has the figures per backend). */
PB_API pb_status pb_skin_vertices(size_t vertices, int influences, const uint16_t *joints,
                                  const float *weights, size_t joint_count, const float *matrices,
                                  pb_matrix_layout layout, const float *positions,
                                  float *out_positions, const float *normals, float *out_normals);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_SKIN_H */
