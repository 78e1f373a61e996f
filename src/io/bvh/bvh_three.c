/* pb_bvh_three_translations: a clip's local translations as three.js's
 * BVHLoader plays them (posebatch/bvh.h). Outside the reader's sources (it
 * uses the batch API's argument checks, check.h), so the reader alone still
 * builds without src/ (the BVH fuzz target). */
#include "bvh_internal.h"
#include "check.h"

pb_io_code pb_bvh_three_translations(const pb_bvh *bvh, pb_vec3s out, pb_io_error *err)
{
    io_clear_err(err);
    if (!bvh || !out.x || !out.y || !out.z)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "%s is NULL", bvh ? "an out array" : "bvh");
    const size_t F = bvh->num_frames, J = bvh->num_joints, n = F * J;
    if (n == 0 || !bvh->pos_x || !bvh->pos_y || !bvh->pos_z)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "the clip has no motion");
    float *const dst[3] = {out.x, out.y, out.z};
    const float *const src[3] = {bvh->pos_x, bvh->pos_y, bvh->pos_z};
    if (chk_tracks_apart(3, (const float *const *)dst, src, n * sizeof(float), NULL, 0) != PB_OK)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "out overlaps the clip's positions");
    for (size_t j = 0; j < J; j++) {
        const pb_bvh_joint *jt = &bvh->joints[j];
        int chan[3] = {0, 0, 0};
        for (int c = 0; c < jt->num_channels; c++)
            if (jt->channels[c] <= PB_BVH_ZPOS)
                chan[jt->channels[c]] = 1;
        for (int c = 0; c < 3; c++)
            for (size_t i = j; i < n; i += J)
                dst[c][i] = chan[c] ? jt->offset[c] + src[c][i] : src[c][i];
    }
    return PB_IO_OK;
}
