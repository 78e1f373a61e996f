/* posebatch/features.h — part of posebatch.h (conventions, accuracy:
 * there): motion features for learning, per clip: the root track in a
 * facing-canonical frame, joint positions and velocities, local rotations
 * in 6D, foot contacts (pb_clip_features); and HumanML3D's 263-dimensional
 * vectors from joint positions (pb_humanml3d_features). Files of them (names,
 * feet by name, resampling, mirroring, .npz): posebatch/npz.h. */
#ifndef POSEBATCH_FEATURES_H
#define POSEBATCH_FEATURES_H

#include "base.h"
#include "clip.h"
#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Motion features of a clip                                                */
/* ------------------------------------------------------------------------ */
/*
 * A clip of F frames of a skeleton of J joints (its parent table, as
 * pb_pose_local_to_model takes it) at 1 / frame_time frames per second.
 * The facing frame of frame f: the root joint's ground point g_f and heading
 * H_f, exactly as pb_clip_root_extract takes them out (skeleton.h: the
 * rotation about the up axis by the yaw of the root's forward axis, g_f its
 * position projected on the ground plane). Per frame f (finite differences
 * pair f with f + 1, the last frame F-1 with F-2 (its backward difference);
 * one frame: zeros), every quantity in double and rounded to float once:
 *   root_yaw_vel[f]   the heading's turn from a to b (the pair) about the up
 *                     axis, in (-pi, pi], times fps: rad/s (positive
 *                     counter-clockwise seen from above);
 *   root_vel[f][2]    H_f^-1 (g_b - g_a) times fps: the ground velocity in
 *                     the facing frame, its two ground components in axis
 *                     order (up Y: x, z; up Z: x, y; up X: y, z);
 *   root_height[f]    the root's height (its coordinate along up);
 *   positions[f][j][3]  H_f^-1 (P_j - g_f), P_j joint j's model-space
 *                     position: relative to the root's ground point, in the
 *                     facing frame (heights kept: as HumanML3D's
 *                     root-relative positions);
 *   velocities[f][j][3] H_f^-1 (P_j(b) - P_j(a)) times fps: the model-space
 *                     velocity in frame f's facing frame;
 *   rot6d[f][j][6]    the local rotations in 6D (posebatch/rotrep.h: the
 *                     matrix's first two columns), every top-level root's
 *                     with the heading taken out (H_f^-1 R);
 *   contacts[f][k]    1 where foot feet[k] moves slower than contact_speed
 *                     (|velocities|, units/s) and is less than
 *                     contact_height above its own lowest point in the clip
 *                     (its height along up, minimum over all frames), else 0.
 * Outputs are interleaved arrays (C order, the shapes above); each may be
 * NULL (not computed). fps = 1 / clip->frame_time. Scales (clip->scale,
 * optional) enter the forward kinematics.
 * Aliasing: no output may overlap another output, an input array or the
 * tables (PB_ERR_ALIAS). Errors, nothing written: PB_ERR_NULL (clip, a
 * rot or pos array, parents, opts->feet with num_feet > 0), PB_ERR_SIZE
 * (frames or joints 0, F*J above PB_MAX_COUNT / 6), PB_ERR_ARG (root, up or
 * a foot out of range, a parent not in -1 .. j-1, a contact threshold
 * negative or NaN, frame_time not finite and > 0), PB_ERR_ALIAS,
 * PB_ERR_NOMEM (a workspace of 17 floats per frame and joint).
 * Accuracy: positions that of pb_pose_local_to_model (with the heading's
 * rotation, a few float roundings more); velocities the finite differences
 * of those positions, formed in double: their error times fps; the 6D that
 * of pb_quat_to_rot6d; headings and the root track as
 * pb_clip_root_extract (double). tests/test_features.c holds every array to
 * an independent double-precision computation.
 */
typedef struct pb_feature_opts {
    size_t root;          /* the joint whose heading and ground point make the
                             facing frame (0: a BVH file's ROOT) */
    pb_axis up;           /* PB_AXIS_Y */
    size_t num_feet;      /* joints of the contacts (0: none) */
    const size_t *feet;   /* their indices */
    float contact_speed;  /* units/s */
    float contact_height; /* units above the foot's lowest point */
} pb_feature_opts;

typedef struct pb_features {
    float *root_yaw_vel; /* F */
    float *root_vel;     /* F x 2 */
    float *root_height;  /* F */
    float *positions;    /* F x J x 3 */
    float *velocities;   /* F x J x 3 */
    float *rot6d;        /* F x J x 6 */
    float *contacts;     /* F x num_feet */
} pb_features;

PB_API pb_status pb_clip_features(const pb_clip *clip, const int32_t *parents,
                                  const pb_feature_opts *opts, const pb_features *out);

/* ------------------------------------------------------------------------ */
/* HumanML3D's 263-dimensional vectors                                      */
/* ------------------------------------------------------------------------ */
/*
 * The motion representation of HumanML3D (Guo et al., "Generating Diverse
 * and Natural 3D Human Motions from Text", CVPR 2022; its
 * motion_representation process_file), computed from the positions of the
 * 22 joints of the SMPL skeleton in its order (pelvis, left_hip, right_hip,
 * spine1, left_knee, right_knee, spine2, left_ankle, right_ankle, spine3,
 * left_foot, right_foot, neck, left_collar, right_collar, head,
 * left_shoulder, right_shoulder, left_elbow, right_elbow, left_wrist,
 * right_wrist), in metres, y up, at 20 fps. Its steps, as its script runs
 * them (docs/formats.md spells each out):
 *   the bones re-lengthened to a target skeleton's, keeping directions, the
 *   root position scaled by the ratio of the two right-leg lengths (knee to
 *   ankle plus ankle to foot); put on the floor (lowest y of the clip 0);
 *   the first frame's root moved to x = z = 0 and the clip turned about y
 *   so that its first frame faces +z (from the hips and shoulders); per
 *   frame a facing from the joints (the script's own combination of the
 *   hip and shoulder lines, Gaussian-smoothed over time, sigma 20 frames,
 *   the first frame's taken as the identity), each bone's rotation from its
 *   rest direction, and from those, per frame f < F-1 (263 floats):
 *   [0]        asin of the y component of the facing's change from f to f+1
 *              (half the yaw step, radians per frame);
 *   [1..2]     the root's step f -> f+1 (x, z) in frame f+1's facing;
 *   [3]        the root's height;
 *   [4..66]    joints 1..21 relative to the root's ground point, facing
 *              frame (21 x 3);
 *   [67..192]  joints 1..21's local rotations in 6D (21 x 6);
 *   [193..258] every joint's step f -> f+1 in frame f's facing (22 x 3);
 *   [259..262] foot contacts, 1 where a foot's squared step (metres^2 per
 *              frame) is below feet_threshold: left ankle, left foot, right
 *              ankle, right foot.
 * positions: frames x 22 x 3 floats (C order); out: (frames - 1) x 263.
 * target: the 22 x 3 joint positions of the skeleton whose bone lengths the
 * clip takes (HumanML3D's own: the first frame of its example 000021); NULL:
 * the clip's own first frame (its bones then keep their frame-0 lengths).
 * feet_threshold: 0.002 in HumanML3D.
 * Computed in double; the script mixes float32 (torch) and float64 steps:
 * docs/performance.md compares the two on the same positions.
 * Errors, nothing written: PB_ERR_NULL (positions, out), PB_ERR_SIZE
 * (frames < 2, or frames x 263 above PB_MAX_COUNT), PB_ERR_ARG (a
 * feet_threshold negative or NaN; a right leg (knee to ankle to foot) of
 * length 0 in the first frame of the clip or the target; hips and
 * shoulders giving no horizontal facing in the first frame), PB_ERR_ALIAS
 * (out overlapping positions or target), PB_ERR_NOMEM. A bone of length 0
 * elsewhere, or a non-finite position, gives NaN features (as the script).
 */
#define PB_HUMANML3D_JOINTS 22
#define PB_HUMANML3D_DIM 263

PB_API pb_status pb_humanml3d_features(size_t frames, const float *positions, const float *target,
                                       float feet_threshold, float *out);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_FEATURES_H */
