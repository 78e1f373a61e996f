/* posebatch/skeleton.h — part of posebatch.h (conventions, accuracy:
 * there): model space (forward kinematics and its inverse), root motion
 * and mirroring. */
#ifndef POSEBATCH_SKELETON_H
#define POSEBATCH_SKELETON_H

#include "base.h"
#include "clip.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * used: every top-level root, or with parents == NULL opts->joint, gets it).
 * With PB_ROOT_HEADING every heading must be a unit quaternion to within
 * 1e-4 (| |H| - 1 | <= 1e-4; H is applied as given, not renormalised): a
 * zero, NaN or otherwise non-unit one is PB_ERR_ARG, nothing written. */
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

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_SKELETON_H */
