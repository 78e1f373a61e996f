/* BVH module: channel names, and the in-memory pb_bvh (free, frame
 * count, joint lookup). The reader is bvh_read.c (tokens: bvh_lex.c), the
 * writer bvh_write.c, BVH file output bvh_file.c (over ../file_write.c). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bvh_channel_names[6] = {
    "Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation",
};

const char *pb_bvh_channel_name(pb_bvh_channel c)
{
    if ((int)c < 0 || (int)c > 5)
        return NULL;
    return bvh_channel_names[c];
}

pb_bvh_code bvh_alloc_motion(pb_bvh *b, size_t frames, int angles)
{
    size_t n = frames * b->num_joints;
    float **arr[7] = {&b->rot_w, &b->rot_x, &b->rot_y, &b->rot_z, &b->pos_x, &b->pos_y, &b->pos_z};
    b->euler_deg = NULL;
    for (int k = 0; k < 7; k++) {
        *arr[k] = NULL;
        if (n) {
            *arr[k] = malloc(n * sizeof(float));
            if (!*arr[k])
                return PB_BVH_ERR_NOMEM;
        }
    }
    b->decimals = NULL;
    if (n && angles) {
        /* not zeroed: the reader fills both, pb_bvh_set_frames its new frames */
        b->euler_deg = malloc(3 * n * sizeof(double));
        b->decimals = malloc(frames * (b->num_channels ? b->num_channels : 1));
        if (!b->euler_deg || !b->decimals)
            return PB_BVH_ERR_NOMEM;
    }
    return PB_BVH_OK;
}

pb_bvh_code bvh_check_channels(const pb_bvh *b, pb_bvh_error *err)
{
    size_t n = 0;
    for (size_t j = 0; j < b->num_joints; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        if (jt->first_channel != n || jt->num_channels > 6)
            return bvh_set_err(err, PB_BVH_ERR_ARG, 0,
                               "joint %zu: first_channel %lu and %u channels, after %zu channels "
                               "of the joints before it",
                               j, (unsigned long)jt->first_channel, (unsigned)jt->num_channels, n);
        n += jt->num_channels;
    }
    if (n != b->num_channels)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0,
                           "num_channels %zu, but the joints have %zu channels", b->num_channels,
                           n);
    return PB_BVH_OK;
}

pb_bvh_code bvh_check_depth(const pb_bvh *b, pb_bvh_code code, pb_bvh_error *err)
{
    const size_t J = b->num_joints;
    uint16_t *depth = malloc((J ? J : 1) * sizeof *depth);
    if (!depth)
        return bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    pb_bvh_code rc = PB_BVH_OK;
    for (size_t j = 0; j < J && !rc; j++) {
        int32_t p = b->joints[j].parent;
        depth[j] = (uint16_t)(p < 0 ? 1 : depth[p] + 1);
        if (depth[j] > PB_BVH_MAX_DEPTH)
            rc = bvh_set_err(err, code, 0, "joint '%s' nests deeper than %d levels",
                             b->joints[j].name, PB_BVH_MAX_DEPTH);
    }
    for (size_t e = 0; e < b->num_end_sites && !rc; e++)
        if (depth[b->end_sites[e].parent] >= PB_BVH_MAX_DEPTH)
            rc = bvh_set_err(err, code, 0, "an End Site of joint '%s' nests deeper than %d levels",
                             b->joints[b->end_sites[e].parent].name, PB_BVH_MAX_DEPTH);
    free(depth);
    return rc;
}

void pb_bvh_free(pb_bvh *b)
{
    if (!b)
        return;
    free(b->joints);
    free(b->end_sites);
    free(b->name_pool_);
    free(b->rot_w);
    free(b->rot_x);
    free(b->rot_y);
    free(b->rot_z);
    free(b->pos_x);
    free(b->pos_y);
    free(b->pos_z);
    free(b->euler_deg);
    free(b->decimals);
    memset(b, 0, sizeof *b);
}

long pb_bvh_find_joint(const pb_bvh *b, const char *name)
{
    if (!b || !name)
        return -1;
    for (size_t j = 0; j < b->num_joints; j++)
        if (b->joints[j].name && strcmp(b->joints[j].name, name) == 0)
            return (long)j;
    return -1;
}

pb_bvh_code pb_bvh_set_frames(pb_bvh *b, size_t frames, pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!b)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "bvh is NULL");
    const size_t J = b->num_joints;
    if (J > 0 && frames > MAX_ELEMS / J)
        return bvh_set_err(err, PB_BVH_ERR_LIMIT, 0, "%zu frames x %zu joints is too large", frames,
                           J);
    pb_bvh nb = *b;
    const int angles = b->euler_deg != NULL;
    if (bvh_alloc_motion(&nb, frames, angles)) {
        float *arr[7] = {nb.rot_w, nb.rot_x, nb.rot_y, nb.rot_z, nb.pos_x, nb.pos_y, nb.pos_z};
        for (int k = 0; k < 7; k++)
            free(arr[k]);
        free(nb.euler_deg);
        free(nb.decimals);
        return bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory for %zu frames", frames);
    }
    if (angles) {
        /* New frames hold the rest pose: identity, angles 0. */
        size_t kept = (frames < b->num_frames ? frames : b->num_frames) * J;
        if (kept)
            memcpy(nb.euler_deg, b->euler_deg, 3 * kept * sizeof(double));
        if (frames * J > kept)
            memset(nb.euler_deg + 3 * kept, 0, 3 * (frames * J - kept) * sizeof(double));
        free(b->euler_deg);
        /* Decimals: kept frames keep theirs, new frames 0. */
        size_t kf = frames < b->num_frames ? frames : b->num_frames;
        size_t per = b->num_channels ? b->num_channels : 1;
        if (b->decimals && kf && b->num_channels)
            memcpy(nb.decimals, b->decimals, kf * b->num_channels);
        else
            kf = 0;
        if (frames > kf)
            memset(nb.decimals + kf * per, 0, (frames - kf) * per);
        free(b->decimals);
    }
    size_t keep = (frames < b->num_frames ? frames : b->num_frames) * J;
    float *src[7] = {b->rot_w, b->rot_x, b->rot_y, b->rot_z, b->pos_x, b->pos_y, b->pos_z};
    float *dst[7] = {nb.rot_w, nb.rot_x, nb.rot_y, nb.rot_z, nb.pos_x, nb.pos_y, nb.pos_z};
    for (int k = 0; k < 7; k++) {
        if (keep)
            memcpy(dst[k], src[k], keep * sizeof(float));
        free(src[k]);
    }
    /* New frames: the rest pose (keep is a whole number of frames). */
    for (size_t i = keep; i < frames * J; i += J)
        for (size_t j = 0; j < J; j++) {
            const pb_bvh_joint *jt = &b->joints[j];
            nb.rot_w[i + j] = 1.0f;
            nb.rot_x[i + j] = nb.rot_y[i + j] = nb.rot_z[i + j] = 0.0f;
            nb.pos_x[i + j] = jt->offset[0];
            nb.pos_y[i + j] = jt->offset[1];
            nb.pos_z[i + j] = jt->offset[2];
        }
    nb.num_frames = frames;
    *b = nb;
    return PB_BVH_OK;
}
