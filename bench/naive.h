/*
 * The "naive" baseline of posebatch-bench: the reference texts transcribed the
 * way a user would write them from the articles, one joint at a time over
 * array-of-structs data (struct quat {w, x, y, z}), with the author's helpers
 * (acos-based log, sinf/cosf exp, eps-normalize, 64-iteration power
 * iteration). Benchmark baseline only; not part of the library.
 */
#ifndef POSEBATCH_BENCH_NAIVE_H
#define POSEBATCH_BENCH_NAIVE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nv_quat {
    float w, x, y, z;
} nv_quat;
typedef struct nv_vec3 {
    float x, y, z;
} nv_vec3;

/* Interpolation of a pose of n joints at parameter x (the text's functions). */
void nv_quat_catmull_rom(size_t n, float x, const nv_quat *r0, const nv_quat *r1, const nv_quat *r2,
                         const nv_quat *r3, nv_quat *rot, nv_vec3 *vel);
void nv_quat_hermite(size_t n, float x, const nv_quat *r0, const nv_quat *r1, const nv_vec3 *v0,
                     const nv_vec3 *v1, nv_quat *rot, nv_vec3 *vel);
/* 4D Catmull-Rom on the raw quaternion components, renormalised; vel4 is the
 * 4D velocity of the un-normalised cubic. */
void nv_quat_raw_cubic(size_t n, float x, const nv_quat *r0, const nv_quat *r1, const nv_quat *r2,
                       const nv_quat *r3, nv_quat *rot, nv_quat *vel4);
void nv_vec3_catmull_rom(size_t n, float x, const nv_vec3 *p0, const nv_vec3 *p1, const nv_vec3 *p2,
                         const nv_vec3 *p3, nv_vec3 *pos, nv_vec3 *vel);
void nv_scale_catmull_rom(size_t n, float x, const nv_vec3 *s0, const nv_vec3 *s1,
                          const nv_vec3 *s2, const nv_vec3 *s3, nv_vec3 *scl, nv_vec3 *svl);
/* slerp.txt's slerp (acos, shortest path via the hemisphere flip) and nlerp. */
void nv_quat_slerp(size_t n, float t, const nv_quat *a, const nv_quat *b, nv_quat *out);
void nv_quat_nlerp(size_t n, float t, const nv_quat *a, const nv_quat *b, nv_quat *out);

/* Weighted averages: samples is k poses of n joints, sample i of joint j at
 * samples[i*n + j] (the text's slice2d). accum is n vec3 of scratch. */
void nv_average_raw(size_t n, size_t k, const nv_quat *samples, const float *weights, nv_quat *out);
void nv_average_log(size_t n, size_t k, const nv_quat *samples, const float *weights,
                    nv_vec3 *accum, nv_quat *out);
void nv_average_raw_ref(size_t n, size_t k, const nv_quat *ref, const nv_quat *samples,
                        const float *weights, nv_quat *out);
void nv_average_log_ref(size_t n, size_t k, const nv_quat *ref, const nv_quat *samples,
                        const float *weights, nv_vec3 *accum, nv_quat *out);
/* quat_average_accurate per joint (k <= 64). */
void nv_average_accurate(size_t n, size_t k, const nv_quat *samples, const float *weights,
                         nv_quat *out);

/* Blend of k full poses around a reference: rotations by nv_average_log_ref
 * (log_average != 0) or nv_average_raw_ref, translations by the plain
 * weighted sum sum_i w_i p_i, scales in log space, exp(sum_i w_i ln s_i)
 * (log_scale != 0), or by the plain weighted sum (ozz's semantics).
 * rot/pos/scl: sample i of joint j at [i*n + j]; accum: n vec3 of scratch. */
void nv_pose_blend_ref(size_t n, size_t k, int log_average, int log_scale, const nv_quat *ref,
                       const nv_quat *rot, const nv_vec3 *pos, const nv_vec3 *scl,
                       const float *weights, nv_vec3 *accum, nv_quat *out_rot, nv_vec3 *out_pos,
                       nv_vec3 *out_scl);

/* Clip resampling without segment reuse: src is `frames` poses of `joints`
 * rotations, frame-major (joint j of frame f at f*joints + j); output frame i
 * (count of them, same layout) is the text's quat_catmull_rom at source
 * position u = i*step, segment floor(u), neighbours clamped to the clip (the
 * end frame stands in for a missing one), recomputing the three log offsets
 * per sample. vel is per second: the per-x velocity times fps (the source
 * frame rate); past the last frame the last pose is held with zero velocity. */
void nv_clip_resample(size_t joints, size_t frames, float fps, double step, size_t count,
                      const nv_quat *src, nv_quat *rot, nv_vec3 *vel);

#ifdef __cplusplus
}
#endif

#endif
