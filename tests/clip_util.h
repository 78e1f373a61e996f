/* Helpers of the clip tests (test_clip.c, test_clip_files.c,
 * test_pose_blend.c, test_clip_errors.c): clips and velocities made and
 * freed, random fills, a double-precision reference of pb_clip_sample's
 * frame location and sampling, comparisons. */
#ifndef PB_TESTS_CLIP_UTIL_H
#define PB_TESTS_CLIP_UTIL_H

#include <criterion/criterion.h>

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch/io.h"
#include "clipdata.h"
#include "posebatch.h"
#include "ref.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

#define TOL_SAME_ROT 1e-6 /* rad, against the per-sample function */
#define TOL_SAME_VAL 1e-6 /* relative + absolute, positions and scales */
#define VEL_REL 1e-5      /* header: velocities, per unit x */
#define VEL_ABS 1e-6

static inline const char *flags_name(unsigned flags)
{
    switch (flags) {
    case 0: return "clamp";
    case PB_EXACT_VELOCITY: return "clamp|exact";
    case PB_CLIP_LOOP: return "loop";
    case PB_CLIP_LOOP | PB_EXACT_VELOCITY: return "loop|exact";
    default: return "?";
    }
}

/* Views of element `off` onwards of a batch (absent stays absent). */
static inline pb_cquats cq_at(pb_quats q, size_t off)
{
    pb_cquats r = {q.w + off, q.x + off, q.y + off, q.z + off};
    return r;
}
static inline pb_vec3s v_at(pb_vec3s v, size_t off)
{
    if (!v.x) {
        pb_vec3s none = {NULL, NULL, NULL};
        return none;
    }
    pb_vec3s r = {v.x + off, v.y + off, v.z + off};
    return r;
}
static inline pb_cvec3s cv_at(pb_vec3s v, size_t off) { return pb_cv(v_at(v, off)); }

static inline pb_clip clip_new(size_t frames, size_t joints, double ft, int pos, int scale)
{
    pb_clip c;
    memset(&c, 0, sizeof c);
    c.frames = frames;
    c.joints = joints;
    c.frame_time = ft;
    c.rot = fq_alloc(frames * joints);
    if (pos)
        c.pos = fv_alloc(frames * joints);
    if (scale)
        c.scale = fv_alloc(frames * joints);
    return c;
}
static inline void clip_free(pb_clip *c)
{
    fq_free(c->rot);
    if (c->pos.x)
        fv_free(c->pos);
    if (c->scale.x)
        fv_free(c->scale);
    memset(c, 0, sizeof *c);
}
static inline pb_clip_vel vel_new(size_t n, int rot, int pos, int scale)
{
    pb_clip_vel v;
    memset(&v, 0, sizeof v);
    if (rot)
        v.rot = fv_alloc(n);
    if (pos)
        v.pos = fv_alloc(n);
    if (scale)
        v.scale = fv_alloc(n);
    return v;
}
static inline void vel_free(pb_clip_vel *v)
{
    if (v->rot.x)
        fv_free(v->rot);
    if (v->pos.x)
        fv_free(v->pos);
    if (v->scale.x)
        fv_free(v->scale);
}

/* Random clip: rotations independent uniform (walk = 0) or a random walk of
 * steps up to 1 rad (walk = 1), each stored with a random sign (the source
 * need not be unrolled); positions uniform in [-2, 2]^3 or a walk; scales
 * log-uniform in [0.5, 2] per axis. */
static inline void clip_fill_random(pb_clip *c, rng_t *r, int walk)
{
    size_t F = c->frames, J = c->joints;
    for (size_t j = 0; j < J; j++) {
        rq q = rng_quat(r);
        rv3 p = rng_vec3(r, 2.0);
        for (size_t f = 0; f < F; f++) {
            size_t i = f * J + j;
            q = walk ? rng_quat_near(r, q, 1.0) : rng_quat(r);
            fq_set(c->rot, i, rq_scale(q, rng_sign(r)));
            p = walk ? rv3_add(p, rng_vec3(r, 0.3)) : rng_vec3(r, 2.0);
            if (c->pos.x)
                fv_set(c->pos, i, p);
            if (c->scale.x)
                fv_set(c->scale, i,
                       rv3_make(rng_logrange(r, 0.5, 2.0), rng_logrange(r, 0.5, 2.0),
                                rng_logrange(r, 0.5, 2.0)));
        }
    }
}

/* Where the header puts a sample at time t: Catmull-Rom of frames f[0..3]
 * (f[1] the segment start) at parameter x, or held (clamp, t outside
 * [0, (F-1) ft]: the end frame, zero velocity). Written from the header:
 * a time within 1e-9 relative (1e-9 frames near 0) of a frame time is that
 * frame, x = 0;
 * otherwise u = t / ft, taken modulo F for loop; the float x of u - floor(u)
 * may round up to 1, which is x = 0 of the next segment (a float x cannot
 * say anything else). Clamp: the missing neighbours of the end frames are the
 * end frames; loop: neighbours wrap. */
typedef struct {
    size_t f[4];
    float x;
    int held;
    double u;
} loc_t;

static inline loc_t ref_locate(double t, size_t F, double ft, int loop)
{
    loc_t L;
    double u = t / ft, rnd = nearbyint(u);
    if (fabs(u - rnd) <= 1e-9 * fmax(1.0, fabs(u))) /* the header's frame-time snapping */
        u = rnd;
    L.held = 0;
    if (loop) {
        u = fmod(u, (double)F);
        if (u < 0)
            u += (double)F;
        if (u >= (double)F)
            u = 0;
    } else if (u < 0 || u > (double)(F - 1)) {
        L.held = 1;
        u = u < 0 ? 0.0 : (double)(F - 1);
    }
    L.u = u;
    double fl = floor(u);
    size_t f = (size_t)fl;
    L.x = (float)(u - fl);
    if (L.x >= 1.0f) {
        f++;
        L.x = 0.0f;
    }
    if (loop) {
        f %= F;
        L.f[0] = (f + F - 1) % F;
        L.f[1] = f;
        L.f[2] = (f + 1) % F;
        L.f[3] = (f + 2) % F;
    } else {
        if (f > F - 1)
            f = F - 1;
        L.f[0] = f ? f - 1 : 0;
        L.f[1] = f;
        L.f[2] = f + 1 < F ? f + 1 : F - 1;
        L.f[3] = f + 2 < F ? f + 2 : F - 1;
    }
    return L;
}

/* The per-sample functions of the header at location L, for all J joints of
 * src: rot/rvel, pos/pvel, scale/svel (per unit x). */
static inline void ref_sample(const pb_clip *src, const loc_t *L, unsigned flags, pb_quats rot,
                              pb_vec3s rvel, pb_vec3s pos, pb_vec3s pvel, pb_vec3s scl,
                              pb_vec3s svel)
{
    size_t J = src->joints, o[4];
    for (int k = 0; k < 4; k++)
        o[k] = L->f[k] * J;
    cr_assert_eq(pb_quat_catmull_rom(J, L->x, cq_at(src->rot, o[0]), cq_at(src->rot, o[1]),
                                     cq_at(src->rot, o[2]), cq_at(src->rot, o[3]),
                                     flags & PB_EXACT_VELOCITY, rot, rvel),
                 PB_OK);
    if (src->pos.x && pos.x)
        cr_assert_eq(pb_vec3_catmull_rom(J, L->x, cv_at(src->pos, o[0]), cv_at(src->pos, o[1]),
                                         cv_at(src->pos, o[2]), cv_at(src->pos, o[3]), pos, pvel),
                     PB_OK);
    if (src->scale.x && scl.x)
        cr_assert_eq(pb_scale_catmull_rom(J, L->x, cv_at(src->scale, o[0]), cv_at(src->scale, o[1]),
                                          cv_at(src->scale, o[2]), cv_at(src->scale, o[3]), scl,
                                          svel),
                     PB_OK);
}

static inline void shuffle(rng_t *r, double *t, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t k = (size_t)(rng_uniform(r) * (double)i);
        double s = t[i - 1];
        t[i - 1] = t[k];
        t[k] = s;
    }
}

/* Quaternions equal component-wise (== : -0 equals 0) up to a common sign. */
static inline int q_same_up_to_sign(rq a, rq b)
{
    return (a.w == b.w && a.x == b.x && a.y == b.y && a.z == b.z) ||
           (a.w == -b.w && a.x == -b.x && a.y == -b.y && a.z == -b.z);
}
static inline int v_same(rv3 a, rv3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* ratio of |v - vref| to the header's velocity tolerance (per unit x) */
static inline double vel_ratio(rv3 v, rv3 vref) { return ref_vel_err(v, vref); }
/* ratio of |v - vref| to TOL_SAME_VAL (|vref| + 1) */
static inline double val_ratio(rv3 v, rv3 vref)
{
    return rv3_dist(v, vref) / (TOL_SAME_VAL * (rv3_norm(vref) + 1.0));
}

static inline const char *method_name(pb_blend_method m)
{
    static const char *names[] = {"log_ref", "raw_ref", "log", "raw", "accurate"};
    return (unsigned)m < PB_BLEND_METHOD_COUNT ? names[m] : "?";
}
static inline int method_uses_ref(pb_blend_method m)
{
    return m == PB_BLEND_LOG_REF || m == PB_BLEND_RAW_REF;
}

/* The average the method names, on the same inputs. */

#endif /* PB_TESTS_CLIP_UTIL_H */
