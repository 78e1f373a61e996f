/* posebatch/clip.h — part of posebatch.h (conventions, accuracy: there):
 * clips (sampling, resampling joint tracks) and pose blending. */
#ifndef POSEBATCH_CLIP_H
#define POSEBATCH_CLIP_H

#include "base.h"
#include "rotations.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_CLIP_H */
