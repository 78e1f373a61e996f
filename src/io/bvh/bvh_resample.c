/* A pb_bvh's motion as a pb_clip, new clips of a skeleton, and resampling a
 * whole pb_bvh to a new frame rate with pb_clip_resample (what `posebatch
 * resample` does, less its up-front size estimate) and the source angles at
 * the new frames (pb_bvh_resample_angles, on the dispatched angles_lerp
 * kernel): with bvh_angles_simd.c, the BVH files that need the batch
 * kernels. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* madvise */
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_internal.h"
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Maps the pages of a large new output array in one system call (Linux
 * 5.14+: MADV_POPULATE_WRITE) instead of a page fault at a time as the
 * kernels first write them: a resample's output is mostly fresh memory
 * (frames x joints x 40 bytes, 29 MB for the CMU clip at 480 fps), and its
 * faults cost more than the kernels (pb_bvh_resample of that clip: 18.2 ->
 * 14.6 ms, median of 7, AMD EPYC VM). Nothing else changes; where the
 * call is refused (older kernels, other systems) the pages fault in as
 * before. */
static void prefault(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    const uintptr_t page = 4096;
    if (!p || bytes < ((size_t)256 << 10))
        return;
    uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + bytes) & ~(page - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

pb_clip pb_bvh_clip(const pb_bvh *b)
{
    pb_clip c;
    memset(&c, 0, sizeof c); /* no scale track */
    if (!b)
        return c;
    c.frames = b->num_frames;
    c.joints = b->num_joints;
    c.frame_time = b->frame_time;
    c.rot.w = b->rot_w;
    c.rot.x = b->rot_x;
    c.rot.y = b->rot_y;
    c.rot.z = b->rot_z;
    c.pos.x = b->pos_x;
    c.pos.y = b->pos_y;
    c.pos.z = b->pos_z;
    return c;
}

/* *out = a copy of src's skeleton (joints, names, end sites) and no motion. */
static pb_bvh_code copy_skeleton(const pb_bvh *src, pb_bvh *out)
{
    memset(out, 0, sizeof *out);
    out->num_joints = src->num_joints;
    out->num_end_sites = src->num_end_sites;
    out->num_channels = src->num_channels;
    out->frame_time = src->frame_time;
    size_t pool = 0;
    for (size_t j = 0; j < src->num_joints; j++)
        pool += (src->joints[j].name ? strlen(src->joints[j].name) : 0) + 1;
    out->joints = malloc((src->num_joints ? src->num_joints : 1) * sizeof *out->joints);
    out->end_sites = malloc((src->num_end_sites ? src->num_end_sites : 1) * sizeof *out->end_sites);
    out->name_pool_ = malloc(pool ? pool : 1);
    if (!out->joints || !out->end_sites || !out->name_pool_)
        return PB_BVH_ERR_NOMEM;
    if (src->num_joints)
        memcpy(out->joints, src->joints, src->num_joints * sizeof *out->joints);
    if (src->num_end_sites)
        memcpy(out->end_sites, src->end_sites, src->num_end_sites * sizeof *out->end_sites);
    char *p = out->name_pool_;
    for (size_t j = 0; j < src->num_joints; j++) {
        const char *name = src->joints[j].name ? src->joints[j].name : "";
        size_t n = strlen(name) + 1;
        memcpy(p, name, n);
        out->joints[j].name = p;
        p += n;
    }
    return PB_BVH_OK;
}

pb_bvh_code pb_bvh_new_motion(const pb_bvh *skeleton, size_t frames, double frame_time, pb_bvh *out,
                              pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!skeleton || !out)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "%s is NULL", skeleton ? "out" : "skeleton");
    if (!(frame_time > 0.0) || !isfinite(frame_time))
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "frame time must be positive and finite");
    pb_bvh nb;
    pb_bvh_code code = copy_skeleton(skeleton, &nb);
    if (code == PB_BVH_OK) {
        nb.frame_time = frame_time;
        code = pb_bvh_set_frames(&nb, frames, err);
    } else {
        bvh_set_err(err, code, 0, "out of memory for the skeleton");
    }
    if (code != PB_BVH_OK) {
        pb_bvh_free(&nb);
        return code;
    }
    *out = nb;
    return PB_BVH_OK;
}

pb_bvh_code bvh_resample_args(const pb_bvh *src, double fps, unsigned flags, pb_bvh_error *err)
{
    if ((flags & ~(unsigned)(PB_CLIP_LOOP | PB_BVH_LOOP_TRAVEL)) ||
        (flags & (PB_CLIP_LOOP | PB_BVH_LOOP_TRAVEL)) == PB_BVH_LOOP_TRAVEL)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0,
                           "unknown flags 0x%x (PB_BVH_LOOP_TRAVEL "
                           "goes with PB_CLIP_LOOP)",
                           flags);
    if (!(fps > 0.0) || !isfinite(fps))
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "cannot resample to %g fps", fps);
    if (src->num_frames == 0 || src->num_joints == 0 || !src->rot_w)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "the clip has no %s",
                           src->num_joints == 0 ? "joints" : "frames");
    return PB_BVH_OK;
}

pb_bvh_code bvh_resample_frames(const pb_bvh *src, double fps, unsigned flags, size_t *frames,
                                pb_bvh_error *err)
{
    pb_clip sc = pb_bvh_clip(src);
    *frames = pb_clip_resample_frames(&sc, fps, flags & PB_CLIP_LOOP);
    if (*frames == 0 || *frames > MAX_ELEMS / src->num_joints)
        return bvh_set_err(err, PB_BVH_ERR_LIMIT, 0,
                           "at %g fps the clip would have too many frames (frames x joints "
                           "above 2^28) or has an invalid frame time",
                           fps);
    if (!isfinite(1.0 / fps))
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "frame time must be positive and finite");
    return PB_BVH_OK;
}

static pb_bvh_code resample_clip(const pb_bvh *src, double fps, unsigned flags, pb_bvh *out,
                                 pb_bvh_error *err);

pb_bvh_code pb_bvh_resample(const pb_bvh *src, double fps, unsigned flags, pb_bvh *out,
                            pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!src || !out)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "%s is NULL", src ? "out" : "src");
    pb_bvh_code rc = bvh_resample_args(src, fps, flags, err);
    if (rc != PB_BVH_OK || !(flags & PB_BVH_LOOP_TRAVEL))
        return rc != PB_BVH_OK ? rc : resample_clip(src, fps, flags, out, err);
    /* bvh_loop.c: the root's drift out, the cyclic resample, the drift back */
    pb_bvh work;
    bvh_drift d;
    rc = bvh_loop_untravel(src, &work, &d, err);
    if (rc != PB_BVH_OK)
        return rc;
    rc = resample_clip(&work, fps, PB_CLIP_LOOP, out, err);
    bvh_loop_retravel(rc == PB_BVH_OK ? out : NULL, &d, src->frame_time, fps);
    return rc;
}

/* pb_bvh_resample of a checked src without PB_BVH_LOOP_TRAVEL */
static pb_bvh_code resample_clip(const pb_bvh *src, double fps, unsigned flags, pb_bvh *out,
                                 pb_bvh_error *err)
{
    pb_clip sc = pb_bvh_clip(src);
    size_t frames = 0;
    pb_bvh_code code = bvh_resample_frames(src, fps, flags, &frames, err);
    if (code != PB_BVH_OK)
        return code;
    /* pb_bvh_new_motion less its rest pose: pb_clip_resample writes every
     * element (the fill cost as much as the Catmull-Rom kernels) */
    pb_bvh nb;
    code = copy_skeleton(src, &nb);
    if (code == PB_BVH_OK)
        code = bvh_alloc_motion(&nb, frames, 0);
    if (code != PB_BVH_OK) {
        pb_bvh_free(&nb);
        return bvh_set_err(err, code, 0, "out of memory for %zu frames", frames);
    }
    nb.num_frames = frames;
    nb.frame_time = 1.0 / fps;
    float *arrays[7] = {nb.rot_w, nb.rot_x, nb.rot_y, nb.rot_z, nb.pos_x, nb.pos_y, nb.pos_z};
    for (int k = 0; k < 7; k++)
        prefault(arrays[k], frames * nb.num_joints * sizeof(float));
    pb_clip dc = pb_bvh_clip(&nb);
    pb_status st = pb_clip_resample(&sc, fps, flags, &dc, NULL);
    if (st != PB_OK) {
        pb_bvh_free(&nb);
        return bvh_set_err(err, st == PB_ERR_NOMEM ? PB_BVH_ERR_NOMEM : PB_BVH_ERR_ARG, 0,
                           "resampling failed: %s", pb_status_str(st));
    }
    nb.frame_time = dc.frame_time;
    /* The source's Euler angles and decimals at the new frames: the writer's
     * default choice among equivalent triples follows them. */
    code = pb_bvh_resample_angles(src, (flags & PB_CLIP_LOOP) != 0, &nb, err);
    if (code != PB_BVH_OK) {
        pb_bvh_free(&nb);
        return code;
    }
    *out = nb;
    return PB_BVH_OK;
}

/* b moved by a multiple of 360 to within 180 of a. */
static double near_angle(double a, double b) { return b - 360.0 * nearbyint((b - a) / 360.0); }

pb_bvh_code pb_bvh_resample_angles(const pb_bvh *src, int loop, pb_bvh *dst, pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!src || !dst || src->num_joints != dst->num_joints)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "clips NULL or of different skeletons");
    free(dst->euler_deg);
    free(dst->decimals);
    dst->euler_deg = NULL;
    dst->decimals = NULL;
    const size_t J = src->num_joints, F = src->num_frames, G = dst->num_frames;
    const size_t C = src->num_channels;
    if (!src->euler_deg || !src->decimals || F == 0 || G == 0 || J == 0)
        return PB_BVH_OK;
    if (!(src->frame_time > 0.0) || !(dst->frame_time > 0.0))
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "frame times must be positive");
    double *out = malloc(3 * G * J * sizeof *out);
    signed char *dec = malloc(G * (C ? C : 1));
    if (!out || !dec) {
        free(out);
        free(dec);
        return bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    }
    prefault(out, 3 * G * J * sizeof *out);
    prefault(dec, G * C);
    bvh_resample_angles_range(src, loop, dst->frame_time / src->frame_time, 0, G, out, dec);
    dst->euler_deg = out;
    dst->decimals = dec;
    return PB_BVH_OK;
}

void bvh_resample_angles_range(const pb_bvh *src, int loop, double step, size_t g0, size_t count,
                               double *out, signed char *dec)
{
    const size_t J = src->num_joints, F = src->num_frames, C = src->num_channels;
    const pb_kernels *K = pb_kernels_for(3 * J);
    for (size_t g = g0; g < g0 + count; g++) {
        double s = (double)g * step;
        if (fabs(s - nearbyint(s)) < 1e-9 * (s > 1.0 ? s : 1.0))
            s = nearbyint(s);
        double fl = floor(s);
        double u = s - fl;
        size_t f0, f1;
        if (loop) {
            f0 = (size_t)fmod(fl, (double)F);
            f1 = f0 + 1 < F ? f0 + 1 : 0;
        } else {
            f0 = fl >= (double)(F - 1) ? F - 1 : (size_t)fl;
            f1 = f0 + 1 < F ? f0 + 1 : f0;
            if (fl >= (double)(F - 1))
                u = 0.0;
        }
        const signed char *d0 = src->decimals + f0 * C, *d1 = src->decimals + f1 * C;
        if (u == 0.0) {
            memcpy(dec + (g - g0) * C, d0, C);
            memcpy(out + 3 * (g - g0) * J, src->euler_deg + 3 * f0 * J, 3 * J * sizeof *out);
            continue;
        }
        for (size_t c = 0; c < C; c++)
            dec[(g - g0) * C + c] = d0[c] > d1[c] ? d0[c] : d1[c];
        /* the kernel: the same operations, every joint at once; a frame with
         * a far pair is done again joint by joint (below) */
        if (!K->angles_lerp(3 * J, u, src->euler_deg + 3 * f0 * J, src->euler_deg + 3 * f1 * J,
                            out + 3 * (g - g0) * J))
            continue;
        for (size_t j = 0; j < J; j++) {
            const double *a = src->euler_deg + 3 * (f0 * J + j);
            const double *b = src->euler_deg + 3 * (f1 * J + j);
            double *o = out + 3 * ((g - g0) * J + j);
            /* Frames on different branches (an angle moving by more than 90
             * degrees: the source switched to the other triple) do not
             * interpolate: the nearer frame's angles are the reference. */
            int far = 0;
            for (int k = 0; k < 3; k++)
                far |= fabs(near_angle(a[k], b[k]) - a[k]) > 90.0;
            for (int k = 0; k < 3; k++) {
                double x = a[k];
                o[k] = far ? (u < 0.5 ? a[k] : b[k]) : x + u * (near_angle(x, b[k]) - x);
            }
        }
    }
}
