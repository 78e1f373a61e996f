/* Internal contract between the validated public API (api.c), the dispatcher
 * (dispatch.c) and the per-ISA backends (simd/backend_<isa>.c). Kernels get
 * arguments that api.c has already checked: no NULLs where n > 0, only the
 * aliasing the header allows, known flags. */
#ifndef PB_INTERNAL_H
#define PB_INTERNAL_H

#include "posebatch.h"

/* The k samples of an average: either an array of batches, or k batches laid
 * out frame-major in one batch (sample i starts at element i*stride). */
typedef struct pb_samples {
    const pb_cquats *list;
    pb_cquats base;
    size_t stride;
} pb_samples;

static inline pb_cquats pb_sample_at(const pb_samples *s, size_t i)
{
    if (s->list)
        return s->list[i];
    size_t o = i * s->stride;
    pb_cquats q = {s->base.w + o, s->base.x + o, s->base.y + o, s->base.z + o};
    return q;
}

/* The layers of a layered pose blend (blended or additive). */
typedef struct pb_layer_set {
    size_t k;
    const pb_blend_layer *layers;
} pb_layer_set;

static inline pb_cquats ls_rot(const pb_layer_set *s, size_t i) { return s->layers[i].pose.rot; }
static inline pb_cvec3s ls_pos(const pb_layer_set *s, size_t i) { return s->layers[i].pose.pos; }
static inline pb_cvec3s ls_scale(const pb_layer_set *s, size_t i)
{
    return s->layers[i].pose.scale;
}
static inline float ls_weight(const pb_layer_set *s, size_t i) { return s->layers[i].weight; }
static inline const float *ls_joint_weights(const pb_layer_set *s, size_t i)
{
    return s->layers[i].joint_weights;
}

/* the most output frames of one kernel run over a source segment */
#define PB_RUN_MAX 16

/* ----------------------------------------------------- cubic bases */
/* Factored forms: the expanded polynomials (x^3 - 2x^2 + x, ...) cancel near
 * x = 1, which large tangents turn into visible rotation error. The weights
 * are per call, not per lane: evaluated in double and rounded once, so each
 * carries half an ulp instead of the two or three a float evaluation adds
 * (they multiply the tangents, which may be huge). The derivative weights
 * carry dscale (1, or 1/frame_time for velocities per second, 0 for held
 * poses) for the same reason, and k scales the tangent weights and 1/k the
 * offset's derivative weight (1/2: hermite_basis_half). */
typedef struct {
    float w1, w2, w3, q1, q2, q3;
} pb_hermite_w;
static inline pb_hermite_w hermite_w_k(float xs, double dscale, double k)
{
    double x = xs, x2 = x * x, xm1 = x - 1.0;
    pb_hermite_w w;
    w.w1 = (float)(x2 * (3.0 - 2.0 * x));
    w.w2 = (float)(k * x * xm1 * xm1);
    w.w3 = (float)(k * x2 * xm1);
    w.q1 = (float)(dscale / k * 6.0 * x * (1.0 - x));
    w.q2 = (float)(dscale * (3.0 * x - 1.0) * xm1);
    w.q3 = (float)(dscale * x * (3.0 * x - 2.0));
    return w;
}
/* The weights of a run's frames, formed once per run by clip.c for every
 * track: half for the rotations (k = 1/2), full for positions and scales */
typedef struct {
    pb_hermite_w half[PB_RUN_MAX], full[PB_RUN_MAX];
} pb_run_w;

/* pose_blend options */
#define PB_BL_LOG 1u          /* log average of the rotations (else raw) */
#define PB_BL_POS 2u          /* blend translations */
#define PB_BL_SCALE 4u        /* blend scales */
#define PB_BL_LINEAR_SCALE 8u /* scales linearly (else in log space) */
#define PB_BL_UNIFORM 16u     /* (kernel-internal) no joint weights, weight total > 0 */
#define PB_BL_HEAVY 32u       /* reference: per joint the heaviest blended layer's rotation */

/* One entry per kernel; signatures mirror the public functions. An optional
 * output batch is "absent" when its first pointer is NULL. weights == NULL
 * means every weight is 1. */
typedef struct pb_kernels {
    int lanes;       /* PB_LANES of the table's lane layer */
    const char *isa; /* its instruction set, as pb_dispatch_run names it */
    void (*quat_mul)(size_t n, pb_cquats a, pb_cquats b, pb_quats out);
    void (*quat_mul_inv)(size_t n, pb_cquats a, pb_cquats b, pb_quats out);
    void (*quat_inv_mul)(size_t n, pb_cquats a, pb_cquats b, pb_quats out);
    void (*quat_abs)(size_t n, pb_cquats q, pb_quats out);
    void (*quat_normalize)(size_t n, pb_cquats q, pb_quats out);
    void (*quat_log)(size_t n, pb_cquats q, float scale, pb_vec3s out);
    void (*quat_exp)(size_t n, pb_cvec3s v, float scale, pb_quats out);
    void (*quat_unroll)(size_t frames, size_t tracks, pb_cquats in, pb_quats out);
    void (*quat_delta_to_angular_velocity)(size_t n, pb_cquats ref, pb_cquats delta, pb_vec3s out);

    void (*vec3_hermite)(size_t n, float x, pb_cvec3s p0, pb_cvec3s p1, pb_cvec3s v0, pb_cvec3s v1,
                         pb_vec3s pos, pb_vec3s vel);
    /* vscale multiplies the velocity (1 for the public function) */
    void (*vec3_catmull_rom)(size_t n, float x, float vscale, pb_cvec3s p0, pb_cvec3s p1,
                             pb_cvec3s p2, pb_cvec3s p3, pb_vec3s pos, pb_vec3s vel);
    void (*quat_hermite)(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cvec3s v0, pb_cvec3s v1,
                         unsigned flags, pb_quats rot, pb_vec3s vel);
    void (*quat_catmull_rom)(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cquats r2,
                             pb_cquats r3, unsigned flags, pb_quats rot, pb_vec3s vel);
    void (*quat_raw_cubic)(size_t n, float x, pb_cquats r0, pb_cquats r1, pb_cquats r2,
                           pb_cquats r3, unsigned flags, pb_quats rot, pb_quats vel4);
    void (*scale_hermite)(size_t n, float x, pb_cvec3s s0, pb_cvec3s s1, pb_cvec3s v0, pb_cvec3s v1,
                          pb_vec3s scale, pb_vec3s svel);
    void (*scale_catmull_rom)(size_t n, float x, float vscale, pb_cvec3s s0, pb_cvec3s s1,
                              pb_cvec3s s2, pb_cvec3s s3, pb_vec3s scale, pb_vec3s svel);
    void (*quat_slerp)(size_t n, float t, pb_cquats a, pb_cquats b, unsigned flags, pb_quats out);
    void (*quat_nlerp)(size_t n, float t, pb_cquats a, pb_cquats b, unsigned flags, pb_quats out);

    /* ref is NULL-first-pointer for the non-ref variants */
    void (*average_raw)(size_t n, size_t k, pb_cquats ref, const pb_samples *s, const float *w,
                        pb_quats out);
    void (*average_log)(size_t n, size_t k, pb_cquats ref, const pb_samples *s, const float *w,
                        pb_quats out);
    void (*average_accurate)(size_t n, size_t k, const pb_samples *s, const float *w, pb_quats out);
    void (*average_basic)(size_t n, size_t k, const pb_samples *s, const float *w, pb_quats out);
    void (*sin_half_angle)(size_t n, pb_cquats a, pb_cquats b, float *out);

    void (*tangent_offset)(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                           pb_quats offset);
    void (*bezier_controls)(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next,
                            pb_quats before, pb_quats after);
    void (*de_casteljau)(size_t n, float t, pb_cquats q0, pb_cquats q1, pb_cquats q2, pb_cquats q3,
                         pb_quats out);
    void (*shoemake_controls)(size_t n, pb_cquats prev, pb_cquats cur, pb_cquats next, pb_quats b,
                              pb_quats a);

    /* clips (clip.c): offsets of consecutive frames as logs (half the scaled
     * angle-axis); runs of m <= PB_RUN_MAX output frames in one source
     * segment, frame k at element offset k*n of the outputs with weights
     * w->half[k] (rotations) or w->full[k] (simd/kernels_clip.h): the
     * Catmull-Rom rotations from the offsets (each put in the previous
     * frame's hemisphere: the frame before the run is prev when prev.w, its
     * tail block also in keep, padded scratch), positions and log-space
     * scales; vec3 pose blend (linear or log space) */
    void (*quat_offset)(size_t n, pb_cquats a, pb_cquats b, pb_vec3s out);
    void (*quat_cr_run)(size_t n, size_t m, const pb_run_w *w, pb_cquats r1, pb_cvec3s l01,
                        pb_cvec3s l12, pb_cvec3s l23, unsigned flags, pb_cquats prev, pb_quats keep,
                        pb_quats rot, pb_vec3s vel);
    void (*vec3_cr_run)(size_t n, size_t m, const pb_run_w *w, pb_cvec3s p0, pb_cvec3s p1,
                        pb_cvec3s p2, pb_cvec3s p3, pb_vec3s pos, pb_vec3s vel);
    void (*scale_cr_run)(size_t n, size_t m, const pb_run_w *w, pb_cvec3s s0, pb_cvec3s s1,
                         pb_cvec3s s2, pb_cvec3s s3, pb_vec3s scale, pb_vec3s svel);
    void (*vec3_blend)(size_t n, size_t k, pb_cvec3s ref, const pb_cvec3s *s, const float *w,
                       int log_space, pb_vec3s out);
    /* the layered pose blend (weights relative per joint): blended layers
     * bl (k >= 1), additive ad (k may be 0), options PB_BL_*; ref->rot.w
     * NULL: no rotation reference (raw / log), ref->pos.x / ref->scale.x
     * NULL: none (ref by pointer: by value it was copied to the stack) */
    void (*pose_blend)(size_t n, const pb_layer_set *bl, const pb_layer_set *ad, unsigned opts,
                       const pb_cpose *ref, const pb_pose *out);
    /* the glance of pb_pose_blend_layers' check over its outputs, blended
     * layers and reference (simd/kernels_glance.h): 1 when they surely
     * pass, the outputs' hull in hull[]; tracks bit 0 positions, bit 1
     * scales, bit 2 rotations (the reference's) */
    int (*layers_glance)(size_t k, const pb_blend_layer *l, const pb_cpose *ref, unsigned rtracks,
                         const pb_pose *out, size_t bytes, unsigned tracks, uintptr_t hull[2]);

    /* Euler angles (simd/kernels_euler.h; double lanes), each element with
     * its own order (pb_euler_order) and rotation channels nrot (0..3):
     * euler_choose is the BVH writer's bvh_choose_angles for n elements
     * (quaternions q; src: source angles, or src NULL; else prev: the
     * previous angles, or prev NULL: principal), angles SoA in degrees;
     * state[i] 1: the source angles taken (deg = src), 0: converted, 2:
     * redo with the scalar reference (deg unspecified); print_scale > 0
     * also redoes elements whose angle printed as round(|v| print_scale)
     * might differ from the reference's. euler_to_quat: pb_euler_to_quat_n
     * of n elements rounded to float (deg SoA; slots past nrot not read),
     * redo[i] 1 where the float could differ from the reference's (out
     * unspecified there). angles_lerp: the source-angle
     * interpolation of pb_bvh_resample_angles over n doubles, returning
     * whether some pair is 'far' (more than 90 degrees apart: redo). */
    void (*euler_choose)(size_t n, const uint8_t *order, const uint8_t *nrot, pb_cquats q,
                         const double *const src[3], const double *const prev[3],
                         double print_scale, double *const deg[3], uint8_t *state);
    void (*euler_to_quat)(size_t n, const uint8_t *order, const uint8_t *nrot,
                          const double *const deg[3], pb_quats out, uint8_t *redo);
    int (*angles_lerp)(size_t n, double u, const double *a, const double *b, double *out);

    /* layout converters (simd/kernels_layout.h): dst[c][i] = src[i*stride + c]
     * and back, c < comps (3 or 4); the other floats of a stride untouched */
    void (*deinterleave)(size_t n, const float *src, size_t stride, int comps, float *const dst[4]);
    void (*interleave)(size_t n, const float *const src[4], int comps, size_t stride, float *dst);

    /* skeletons (simd/kernels_skeleton.h): pb_pose_local_to_model and
     * pb_pose_model_to_local over checked arguments (skeleton.c) */
    void (*local_to_model)(size_t poses, size_t joints, const int32_t *parents,
                           const pb_cpose *local, const pb_pose *model);
    void (*model_to_local)(size_t poses, size_t joints, const int32_t *parents,
                           const pb_cpose *model, const pb_pose *local);
    /* skinning matrices (simd/kernels_skin.h): pb_pose_skinning_matrices,
     * ib NULL for identities, rows3 for PB_MATRIX_3X4 */
    void (*skinning_matrices)(size_t poses, size_t joints, const pb_cpose *model, const float *ib,
                              int rows3, float *out);
    /* linear blend skinning (simd/kernels_skin.h): pb_skin_vertices over
     * checked arguments (skinning.c): n vertices of K influences, matrices
     * of 16 (rows3 0) or 12 floats, xyz triples in and out (in/on NULL: no
     * normals; op == ip and on == in allowed) */
    void (*skin_vertices)(size_t n, int K, const uint16_t *jt, const float *wt, const float *mat,
                          int rows3, const float *ip, float *op, const float *in, float *on);
    /* the largest of n joint indices (pb_skin_vertices' check, before the
     * kernel runs) */
    uint16_t (*skin_max_joint)(const uint16_t *j, size_t n);

    /* inverse kinematics (simd/kernels_ik.h, over ik.c's checks; the
     * axes normalised, the chain's indices valid; the batches by pointer:
     * a one-pose call copies nothing) */
    void (*ik_two_bone)(size_t poses, size_t joints, const pb_ik_two_bone *ik,
                        const pb_cpose *model, const pb_cquats *local, const pb_quats *out,
                        uint8_t *reached);
    void (*ik_aim)(size_t poses, size_t joints, const pb_ik_aim *ik, const pb_cpose *model,
                   const pb_cquats *local, const pb_quats *out);

    /* rotation representations (simd/kernels_rotrep.h, over rotrep.c's
     * checks): matrices as column arrays, col[3*c + r] the entry of row r,
     * column c, so that a 6D (posebatch/rotrep.h) is col[0..5];
     * quat_to_mat3 stores the first cols (2 or 3) columns */
    void (*quat_to_mat3)(size_t n, pb_cquats q, int cols, float *const col[9]);
    void (*mat3_to_quat)(size_t n, const float *const col[9], pb_quats out);
    void (*rot6d_to_mat3)(size_t n, const float *const c6[6], float *const col[9]);
    void (*rot6d_to_quat)(size_t n, const float *const c6[6], pb_quats out);
    void (*quat_to_rotvec)(size_t n, pb_cquats q, pb_vec3s out);
} pb_kernels;

extern const pb_kernels pb_kernels_scalar;

/* The kernels the active backend (resolved on first use) runs a batch of n
 * elements with: its own, or, on a CPU that executes each 512-bit operation
 * as two 256-bit halves (AMD family 19h, dispatch.c's companions), the AVX-512 backend's
 * 256-bit ones (the AVX2 kernels) for n of at most one whole 16-lane block
 * and a partial one of at most 8 lanes (n = 1..8 and 17..24). Results as
 * from any backend (bit-identical in deterministic builds). Why, with the
 * measurements behind these rules: docs/performance.md ("What the headers
 * and source comments said"). */
const pb_kernels *pb_kernels_for(size_t n);
#define K(n) (pb_kernels_for(n)) /* the kernels for a batch of n */
/* the same for pb_pose_blend_layers, whose 16-lane kernel there wins from
 * 17 elements up: the 256-bit one for n = 1..8 only */
const pb_kernels *pb_kernels_for_blend(size_t n);
/* the same for pb_quat_nlerp, whose one whole 16-lane block there loses
 * to two whole 8-lane ones: the 256-bit one for n = 1..8, 16 and 17..24.
 * At 9..15 it stays 16-lane: there the 8-lane pair's second block is a back
 * tail. */
const pb_kernels *pb_kernels_for_nlerp(size_t n);
/* The skeleton kernels (lanes are poses) by call shape: a call of P poses
 * runs as up to three runs, consecutive poses each, each on one table:
 * whole blocks on the widest table that wins there, the rest on narrower
 * ones (a partial block costs about what a whole one does), a last single
 * pose on any (every table has the same one-pose path). Returns the number
 * of runs; their poses add up to P. With the active backend's tables alone
 * (POSEBATCH_SHAPE_DISPATCH=0, a backend without companions) it is one run.
 * The rules and the measurements behind them: docs/performance.md, "Model
 * space (FK)". */
typedef struct pb_sk_run {
    const pb_kernels *k;
    size_t poses;
} pb_sk_run;
size_t pb_skeleton_runs(size_t poses, pb_sk_run run[3]);

#endif
