/* posebatch/dataset.h — part of posebatch/io.h: training data from clips:
 * a clip's motion features as named arrays (written as an .npz by
 * pb_npz_write_file), in posebatch's layout or HumanML3D's; AMASS (SMPL-H)
 * clips read into a pb_bvh. */
#ifndef POSEBATCH_DATASET_H
#define POSEBATCH_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "../posebatch.h"
#include "bvh.h"
#include "io_error.h"
#include "npz.h"
#include "retarget.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Motion features of a clip, as arrays (docs/formats.md: the layouts)      */
/* ------------------------------------------------------------------------ */
/*
 * pb_bvh_features: the clip resampled to opts->fps (pb_bvh_resample; not
 * when it already has that rate), mirrored when opts->mirror (pb_bvh_mirror
 * in the plane across the side axis, joints paired by name), its
 * translations times opts->scale, then
 *   PB_FEATURES_POSEBATCH: pb_clip_features (posebatch/features.h) with
 *     the facing joint opts->root (NULL: joint 0), the contacts of the
 *     joints opts->feet (by name) or, without names, of every joint of the
 *     foot and toe name families (retarget.h's: LeftFoot, LeftToeBase,
 *     l_ankle, ...) left side first, in file order (none found: no
 *     contacts); contact thresholds opts->contact_speed (units/s) and
 *     contact_height (units), each negative for its default: 0.5 and 0.1
 *     times the leg length L per second / once, L the root's rest height
 *     above the lowest rest joint along up (OFFSETs summed; 1 when below
 *     1e-9). Arrays: root_yaw_vel (F), root_vel (F, 2), root_height (F),
 *     positions (F, J, 3), velocities (F, J, 3), rot6d (F, J, 6), contacts
 *     (F, K), float32; joint_names (J), parents (J, int32), feet (K), fps
 *     (float64, 0-d), layout ("posebatch"), options (a JSON text, 0-d).
 *   PB_FEATURES_HUMANML3D: the 22 SMPL joints found in the clip (the map's
 *     pairs "source = smpl_name" first; then, in a clip that has all 22
 *     SMPL names (ASCII case ignored, as pb_amass_to_bvh names them), by
 *     name; then
 *     by name families: pelvis the hips, left_hip the left upleg, ...
 *     left_ankle the left foot, left_foot the left toe, left_collar the
 *     left collar, left_shoulder the left arm (a "shoulder" below a collar
 *     is an arm), left_elbow the left forearm, left_wrist the left hand,
 *     neck, head; spine1, spine2, spine3 three of the joints between the
 *     pelvis and the neck, evenly spaced, where three of them are apart in
 *     the rest pose, else the points at 1/4, 1/2 and 3/4 of that chain's
 *     rest length (between two joints: named "A~B@t" in source_joints));
 *     their model-space positions per
 *     frame times scale, turned to y up (up Z: (x, y, z) -> (x, z, -y); up
 *     X: (x, y, z) -> (-y, x, z)), into pb_humanml3d_features (fps default
 *     20, the target opts->target or NULL, the threshold opts->feet_threshold,
 *     negative: 0.002). Arrays: features (F-1, 263), joints (F, 22, 3: the
 *     positions given to it), joint_names (the SMPL names), parents (22),
 *     source_joints (22: the clip's joint of each), fps, layout
 *     ("humanml3d"), options.
 * On success *out owns the arrays (release with pb_npz_free); errors leave
 * it zeroed: PB_IO_ERR_ARG (NULL, a clip without frames, an unknown layout,
 * fps not finite and > 0 where given, scale not finite and > 0, a root or
 * foot name that is not a joint or names several, a humanml3d joint not
 * found (the message names every missing SMPL joint and suggests a map),
 * one source joint taken for two, a map naming an unknown joint or SMPL
 * name, fewer than 2 frames for humanml3d, and the errors of the functions
 * above), PB_IO_ERR_LIMIT, PB_IO_ERR_NOMEM.
 */
typedef enum pb_feature_layout {
    PB_FEATURES_POSEBATCH = 0,
    PB_FEATURES_HUMANML3D = 1
} pb_feature_layout;

typedef struct pb_feature_file_opts {
    pb_feature_layout layout;
    double fps;              /* > 0: resampled to it; 0: the clip's (posebatch), 20 (humanml3d) */
    int mirror;              /* 1: the clip mirrored first */
    pb_axis up;              /* the clip's up axis (BVH: PB_AXIS_Y) */
    double scale;            /* translations times this (0: 1) */
    const char *root;        /* posebatch: the facing joint (NULL: joint 0) */
    const char *const *feet; /* posebatch: the contacts' joints (NULL: by name) */
    size_t num_feet;         /* of feet */
    double contact_speed;    /* posebatch: units/s; negative: the default */
    double contact_height;   /* posebatch: units; negative: the default */
    const pb_retarget_map *map; /* humanml3d: "source = smpl_name" pairs (NULL: none) */
    const float *target;        /* humanml3d: 22 x 3 target joints (NULL: the clip's own) */
    double feet_threshold;      /* humanml3d: m^2 per frame; negative: 0.002 */
    const char *source;         /* the input's name, kept in options (NULL: none) */
} pb_feature_file_opts;

#define PB_FEATURE_FILE_OPTS_DEFAULT                                                               \
    {                                                                                              \
        PB_FEATURES_POSEBATCH, 0.0, 0, PB_AXIS_Y, 1.0, NULL, NULL, 0, -1.0, -1.0, NULL, NULL,      \
            -1.0, NULL                                                                             \
    }

/* The features of clip by opts (NULL: the defaults) as arrays in *out. */
PB_API pb_io_code pb_bvh_features(const pb_bvh *clip, const pb_feature_file_opts *opts, pb_npz *out,
                                  pb_io_error *err);
/* The name of SMPL joint j (0..21) as HumanML3D orders them ("pelvis",
 * "left_hip", ...), and of SMPL-H's (22..51: the hands, "left_index1",
 * ...); NULL past 51. */
PB_API const char *pb_smplh_joint_name(size_t j);
/* The parent of SMPL-H joint j (-1 for the pelvis; the first 22 are
 * SMPL's), or -2 past 51. */
PB_API int32_t pb_smplh_parent(size_t j);

/* ------------------------------------------------------------------------ */
/* AMASS (SMPL-H) clips                                                     */
/* ------------------------------------------------------------------------ */
/*
 * An AMASS .npz holds poses (F, 156: 52 joints, or F, 66: 22) as axis-angle
 * rotation vectors of each joint relative to its parent, trans (F, 3) the
 * root's translation, and mocap_framerate (or mocap_frame_rate); any float
 * or integer type. The body model (and so the rest joint positions) is
 * licensed and never shipped: the caller gives rest, the rest positions of
 * the joints (J x 3 floats, J = 52 or 22, or more: the first 52 or 22 are
 * taken), e.g. the body model's J_regressor times its shaped template,
 * saved as a .npy. The clip (pb_amass_to_bvh): the SMPL-H tree and names
 * (pb_smplh_joint_name; 22 joints for 66 pose values) in depth-first order
 * as a pb_bvh keeps joints (pelvis, left_hip, left_knee, left_ankle,
 * left_foot, right_hip, ...: children in SMPL-H's index order), each joint's OFFSET
 * rest[j] - rest[parent] (the pelvis's rest[0]), rotations from the
 * rotation vectors (pb_quat_from_scaled_angle_axis, in double), the
 * pelvis's translation rest[0] + trans, every other joint at its OFFSET;
 * channels: the pelvis Xposition Yposition Zposition Zrotation Yrotation
 * Xrotation, every other joint Zrotation Yrotation Xrotation; frame time
 * 1 / framerate; the data's own axes (AMASS: z up) and units (metres). Every
 * value must be finite. It writes as BVH or glTF like any clip
 * (pb_io_write_clip) and its features are pb_bvh_features's.
 * Errors (*out zeroed): PB_IO_ERR_ARG (NULL; poses or trans missing or of
 * another shape, their frame counts differing, no frames; no frame rate,
 * or one not finite and > 0; rest with fewer joints than poses; a value not
 * finite), PB_IO_ERR_LIMIT, PB_IO_ERR_NOMEM; the messages name the array.
 */
PB_API pb_io_code pb_amass_to_bvh(const pb_npz *npz, const float *rest, size_t rest_joints,
                                  pb_bvh *out, pb_io_error *err);
/* pb_npz_read_file(path), pb_npy_read_file(rest_path) (a J x 3 array of
 * any float type), then pb_amass_to_bvh; errors as theirs (the path in the
 * message). */
PB_API pb_io_code pb_amass_read_file(const char *path, const char *rest_path, pb_bvh *out,
                                     pb_io_error *err);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_DATASET_H */
