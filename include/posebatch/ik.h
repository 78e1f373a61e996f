/* posebatch/ik.h — part of posebatch.h (conventions, accuracy: there):
 * inverse kinematics over P poses of one skeleton: two-bone IK (a limb's
 * start and middle joints bent so that its end reaches a target) and aim IK
 * (a joint, or a chain of joints, turned so that a forward axis points at a
 * target). */
#ifndef POSEBATCH_IK_H
#define POSEBATCH_IK_H

#include "base.h"
#include "clip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Inverse kinematics                                                       */
/* ------------------------------------------------------------------------ */
/*
 * Layout: P poses of a skeleton of J joints as in "Skeletons: model space"
 * (posebatch/skeleton.h): joint j of pose p is element p*J + j of each
 * array. The solvers read the model-space pose (rotations and positions,
 * as pb_pose_local_to_model writes them) and the local rotations, and
 * write the corrected local rotations of the joints they move, element
 * p*J + j of out, every other element of out untouched: out may be exactly
 * the local rotations' arrays (in place, the usual call: local pose ->
 * model pose -> IK -> the local pose corrected). Per-pose inputs (targets,
 * pole vectors, weights) are P elements, element p for pose p.
 * Conventions: quaternions (w, x, y, z), structure of arrays, right-handed,
 * a rotation q applied to a vector as q v q^-1; model-space values are in
 * the skeleton's model space (targets and pole vectors too); axes given
 * per call (mid_axis, forward, up) are in the joint's own local frame.
 * A correction c of a joint (its local rotation r becomes r c) is a
 * rotation in the joint's frame; the model rotation R of the joint becomes
 * R c, and every joint below it turns with it. Scales: the solvers use
 * positions and rotations only (with uniform scales, as positions already
 * carry them, the result is the same as with the full matrices).
 * Weights: w <= 0 leaves a pose untouched (its corrections are the
 * identity), w >= 1 applies the full correction, in between the correction
 * is nlerp(identity, c, w) with c taken with w >= 0 (the shorter way).
 * Errors, nothing written: PB_ERR_NULL (ik, model, a required array),
 * PB_ERR_SIZE (poses or joints 0, poses * joints above PB_MAX_COUNT),
 * PB_ERR_ARG (a joint index not in 0 .. J-1, the three joints of a limb not
 * distinct, an axis that is zero, not finite, or (aim) forward and up
 * parallel), PB_ERR_ALIAS (out overlapping any input other than exactly the
 * local rotations, or reached overlapping anything).
 * Every backend gives the same bits in deterministic builds. Cost: lanes
 * are poses, so many poses a call (characters, or a clip's frames) is the
 * efficient call; a single pose runs on the scalar kernels (a solve is a
 * chain of dependent operations that one vector lane runs slower), so in
 * builds that are not deterministic it may differ from the same pose in a
 * batch by rounding, within the accuracy (figures: docs/performance.md,
 * "Inverse kinematics").
 */

/*
 * Two-bone IK (ozz-animation's IKTwoBoneJob, twist angle 0): the start
 * joint s (a shoulder, a hip), the middle joint m (elbow, knee), the end
 * joint e (wrist, ankle), m below s and e below m. Per pose, with the
 * model positions p_s, p_m, p_e, bone lengths a = |p_m - p_s|, b = |p_e -
 * p_m| and the target t:
 *   soften: with the chain length l = a + b and d_a = l * clamp(soften,
 *   0, 1), d_s = l - d_a, a target further than d_a from p_s (and d_s > 0)
 *   is pulled in to the distance d_a + d_s (1 - (3 / (x + 3))^4), x = (|t -
 *   p_s| - d_a) / d_s: the limb straightens smoothly instead of snapping
 *   (soften 1: no softening);
 *   middle joint: turned about mid_axis (the bend axis, in the middle
 *   joint's frame) so that |p_e - p_s| becomes the (softened) target
 *   distance, clamped to [|a - b|, a + b];
 *   start joint: the shortest rotation that points the limb (start to
 *   end) at the target, then a rotation about that direction that puts the
 *   bend axis along (t - p_s) x pole: the limb bends in the plane of the
 *   target and the pole vector, the middle joint on the pole's side (the
 *   bend is positive about mid_axis when mid_axis, in model space, points
 *   along v x u, u = p_m - p_s and v = p_e - p_m: that is the way the
 *   middle joint bends; a limb bent the negative way unbends through
 *   straight, as in ozz);
 *   reached (if asked for): the target distance is in [|a - b|, d_a] and
 *   the weight is at least 1 (ozz: the same, but (|a - b|, d_a]).
 * Degenerate cases (documented behaviour, no NaN from finite input):
 *   a target beyond reach (distance > d_a with soften 1) or at it: the
 *   limb points at the target, straight; closer than |a - b|: folded;
 *   target on the start joint: the middle joint folds (distance |a - b|),
 *   the start joint does not turn; a zero-length bone (a or b 0): the
 *   middle joint does not turn, the start joint points the limb at the
 *   target; a pole vector along the target direction (or zero): the plane
 *   is kept as it is (only the pointing rotation); the limb pointing
 *   exactly away from the target: a half turn about an axis perpendicular
 *   to the limb.
 * Accuracy (float, against the same solve in double on unit rotations):
 *   for a reachable target (distance in [|a - b| + 1e-3 l, (1 - 1e-3) l]),
 *   the corrected end joint within 1e-5 l of the target; bone lengths kept
 *   (the corrections are rotations); the bend plane within 1e-4 rad of the
 *   plane of the target and pole.
 */
typedef struct pb_ik_two_bone {
    size_t start, mid, end; /* joint indices (0 .. J-1), distinct */
    float mid_axis[3];      /* the bend axis in the middle joint's frame (normalised) */
    pb_cvec3s target;       /* P targets, model space */
    pb_cvec3s pole;         /* P pole vectors, model space */
    const float *weight;    /* P weights, or NULL: all 1 */
    const float *soften;    /* P soften ratios in [0, 1], or NULL: all 1 */
} pb_ik_two_bone;

/* model: P*J model rotations and positions (rot and pos required; scale
 * not read); local: P*J local rotations; out: P*J rotations, elements
 * start and mid of each pose written; reached: P bytes (1: reached, 0:
 * not), or NULL. */
PB_API pb_status pb_ik_two_bone_solve(size_t poses, size_t joints, const pb_ik_two_bone *ik,
                                      const pb_cpose *model, pb_cquats local, pb_quats out,
                                      uint8_t *reached);

/*
 * Aim IK (ozz-animation's IKAimJob, offset 0 and twist angle 0): joint j
 * turned so that its forward axis (in its frame) points at the target and
 * its up axis lies in the plane of the aim direction and the pole vector,
 * on the pole's side:
 *   c = the shortest rotation taking R forward onto t - p (R, p: the
 *   joint's model rotation and position), then a rotation about t - p
 *   that takes the turned up axis into that plane (none where the pole is
 *   along the aim direction or zero, or up ends along it).
 * A target on the joint (t = p): no correction.
 * Chains (ozz's "look at" sample: a spine, neck and head): count joints,
 * each below the one before, solved in order; each joint's solve sees the
 * model pose as turned by the corrections before it (the later joints'
 * model rotations and positions are moved rigidly with each correction:
 * the joints must be each other's descendants for that to be the new pose)
 * and has the weight weight[p] * joint_weight[i]; the last joint usually
 * gets 1, so the chain ends aimed exactly, the earlier ones a share of the
 * turn each. count 1 is the single-joint aim.
 * Accuracy: the aim error of a joint solved at weight 1 (the angle between
 * its corrected forward axis and the direction to the target) within
 * 1e-5 rad, the up axis within 1e-4 rad of the pole plane; for the last
 * joint of a chain, with the target at least ten chain lengths away (the
 * joint's position moves with the earlier corrections and carries float
 * rounding of the chain's size, about 1e-6 of it, which a near target
 * turns into angle).
 */
typedef struct pb_ik_aim {
    size_t count;              /* joints in the chain, at least 1 */
    const size_t *chain;       /* count joint indices (0 .. J-1), parent to child */
    const float *joint_weight; /* count weights, or NULL: all 1 */
    float forward[3];          /* the joints' forward axis, their own frames */
    float up[3];               /* the joints' up axis, not parallel to forward */
    pb_cvec3s target;          /* P targets, model space */
    pb_cvec3s pole;            /* P pole vectors (model-space up references) */
    const float *weight;       /* P weights, or NULL: all 1 */
} pb_ik_aim;

/* model, local, out as in pb_ik_two_bone_solve; out's elements of the
 * chain's joints written. */
PB_API pb_status pb_ik_aim_solve(size_t poses, size_t joints, const pb_ik_aim *ik,
                                 const pb_cpose *model, pb_cquats local, pb_quats out);

#ifdef __cplusplus
}
#endif

#endif
