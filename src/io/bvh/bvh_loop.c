/* PB_BVH_LOOP_TRAVEL's rule for pb_bvh_resample (bvh_resample.c): the clip is cyclic, but a clip
 * whose root travels (a walk or a run) does not end where it starts.
 * Resampled as it is, the seam segment (last frame -> first frame) would
 * slide the root all the way back. So the root's per-cycle displacement is
 * carried across the seam:
 *
 *   For each ROOT joint's position track p[0..F-1] (each axis), the
 *   displacement per cycle is D = p[F-1] + v - p[0], where
 *   v = ((p[1] - p[0]) + (p[F-1] - p[F-2])) / 2 is the step at the seam (the
 *   mean of the first and last frame-to-frame steps; F == 2: v = p[1] - p[0];
 *   F == 1: D = 0): the frame after the last one, extrapolated, minus the
 *   first. The linear drift is taken out before the cyclic resample,
 *   p'[f] = p[f] - D f / F, and put back at each output frame's source
 *   position u (in source frames, u = i * step as pb_clip_resample samples):
 *   out[i] += D u / F.
 *
 * Away from the seam this changes nothing (Catmull-Rom reproduces linear
 * functions), and a stationary cyclic clip has D ~ 0 (its next frame would be
 * its first again), so it is unchanged to within float rounding and a
 * third-order term. A travelling clip keeps moving forward across the seam
 * at its mean velocity. */
#include "bvh_internal.h"
#include "clip_step.h"

#include <stdlib.h>
#include <string.h>

/* The per-cycle displacement of one track (stride J from element j). */
static double cycle_drift(const float *p, size_t F, size_t J, size_t j)
{
    if (F < 2)
        return 0.0;
    double first = p[j], last = p[(F - 1) * J + j];
    double v = F == 2 ? last - first
                      : ((double)p[J + j] - first + (last - (double)p[(F - 2) * J + j])) / 2.0;
    return last + v - first;
}

/* Every joint's per-cycle drift (nonzero only on ROOTs); 1 if any. */
static int loop_drift(const pb_bvh *b, double (*drift)[3])
{
    size_t F = b->num_frames, J = b->num_joints;
    const float *pos[3] = {b->pos_x, b->pos_y, b->pos_z};
    int any = 0;
    for (size_t j = 0; j < J; j++)
        for (int a = 0; a < 3; a++) {
            drift[j][a] = b->joints[j].parent < 0 ? cycle_drift(pos[a], F, J, j) : 0.0;
            any |= drift[j][a] != 0.0;
        }
    return any;
}

/* Adds (sign +1) or removes (-1) the drift of every joint at source frame
 * positions u_i = i * step, i < frames. */
static void apply_drift(pb_bvh *b, double (*drift)[3], size_t F, double step, double sign)
{
    size_t J = b->num_joints;
    float *pos[3] = {b->pos_x, b->pos_y, b->pos_z};
    for (size_t j = 0; j < J; j++)
        for (int a = 0; a < 3; a++) {
            if (drift[j][a] == 0.0)
                continue;
            double per_frame = sign * drift[j][a] / (double)F;
            for (size_t i = 0; i < b->num_frames; i++) {
                float *x = &pos[a][i * J + j];
                *x = (float)((double)*x + per_frame * ((double)i * step));
            }
        }
}

pb_bvh_code bvh_loop_untravel(const pb_bvh *src, pb_bvh *work, bvh_drift *d, pb_bvh_error *err)
{
    size_t F = src->num_frames, J = src->num_joints, n = F * J;
    *work = *src;
    d->drift = NULL;
    d->mem = NULL;
    double(*drift)[3] = malloc((J ? J : 1) * sizeof *drift);
    if (!drift)
        return bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    if (!loop_drift(src, drift)) {
        free(drift);
        return PB_BVH_OK;
    }
    /* positions of its own (the rotations and the skeleton are shared,
     * read only) */
    float *mem = malloc(3 * (n ? n : 1) * sizeof *mem);
    if (!mem) {
        free(drift);
        return bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    }
    memcpy(mem, src->pos_x, n * sizeof *mem);
    memcpy(mem + n, src->pos_y, n * sizeof *mem);
    memcpy(mem + 2 * n, src->pos_z, n * sizeof *mem);
    work->pos_x = mem;
    work->pos_y = mem + n;
    work->pos_z = mem + 2 * n;
    apply_drift(work, drift, F, 1.0, -1.0);
    d->drift = drift;
    d->mem = mem;
    d->frames = F;
    return PB_BVH_OK;
}

void bvh_loop_retravel(pb_bvh *out, bvh_drift *d, double src_frame_time, double fps)
{
    if (out && d->drift)
        apply_drift(out, d->drift, d->frames, pb_clip_step(src_frame_time, fps), 1.0);
    free(d->mem);
    free(d->drift);
    d->mem = NULL;
    d->drift = NULL;
}
