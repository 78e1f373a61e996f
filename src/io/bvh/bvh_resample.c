/* A pb_bvh's motion as a pb_clip, new clips of a skeleton, and resampling a
 * whole pb_bvh to a new frame rate with pb_clip_resample (what `posebatch
 * resample` does, less its up-front size estimate): the one BVH file that
 * needs the batch kernels. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

pb_bvh_code pb_bvh_new_motion(const pb_bvh *skeleton, size_t frames, double frame_time,
                              pb_bvh *out, pb_bvh_error *err)
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

pb_bvh_code pb_bvh_resample(const pb_bvh *src, double fps, unsigned flags, pb_bvh *out,
                            pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!src || !out)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "%s is NULL", src ? "out" : "src");
    if ((flags & ~(unsigned)(PB_CLIP_LOOP | PB_BVH_LOOP_TRAVEL)) ||
        (flags & (PB_CLIP_LOOP | PB_BVH_LOOP_TRAVEL)) == PB_BVH_LOOP_TRAVEL)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "unknown flags 0x%x (PB_BVH_LOOP_TRAVEL "
                           "goes with PB_CLIP_LOOP)", flags);
    if (!(fps > 0.0) || !isfinite(fps))
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "cannot resample to %g fps", fps);
    if (src->num_frames == 0 || src->num_joints == 0 || !src->rot_w)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "the clip has no %s",
                           src->num_joints == 0 ? "joints" : "frames");
    if (flags & PB_BVH_LOOP_TRAVEL) /* bvh_loop.c: around the cyclic resample */
        return bvh_resample_travel(src, fps, out, err);
    pb_clip sc = pb_bvh_clip(src);
    size_t frames = pb_clip_resample_frames(&sc, fps, flags);
    if (frames == 0 || frames > MAX_ELEMS / src->num_joints)
        return bvh_set_err(err, PB_BVH_ERR_LIMIT, 0,
                           "at %g fps the clip would have too many frames (frames x joints "
                           "above 2^28) or has an invalid frame time", fps);
    pb_bvh nb;
    pb_bvh_code code = pb_bvh_new_motion(src, frames, 1.0 / fps, &nb, err);
    if (code != PB_BVH_OK)
        return code;
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
