/* resample --loop: the clip is cyclic, but a clip whose root travels (a walk
 * or a run) does not end where it starts. Resampled as it is, the seam
 * segment (last frame -> first frame) would slide the root all the way back.
 * So the root's per-cycle displacement is carried across the seam:
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
 * at its mean velocity.
 *
 * Seam check: a clip that is not cyclic jumps at the seam. With M the
 * largest rotation of any joint from one frame to the next (over the clip)
 * and S the largest rotation of any joint from the last frame to the first,
 * S > 3 M and S > 5 degrees gives a warning
 * "posebatch: FILE: warning: --loop: ...". Rotations only: positions of the
 * roots are made continuous by the drift rule above, and other joints'
 * positions are offsets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SEAM_FACTOR 3.0   /* the seam may turn up to this many times the largest step */
#define SEAM_FLOOR_DEG 5.0 /* and always this much */

/* Rotation angle, in degrees, between two quaternions (either sign):
 * 2 atan2(|vec(a^-1 b)|, |a . b|), accurate at small angles. */
static double angle_deg(const pb_bvh *b, size_t e0, size_t e1)
{
    double aw = b->rot_w[e0], ax = b->rot_x[e0], ay = b->rot_y[e0], az = b->rot_z[e0];
    double bw = b->rot_w[e1], bx = b->rot_x[e1], by = b->rot_y[e1], bz = b->rot_z[e1];
    double w = aw * bw + ax * bx + ay * by + az * bz;
    double x = aw * bx - bw * ax - (ay * bz - az * by);
    double y = aw * by - bw * ay - (az * bx - ax * bz);
    double z = aw * bz - bw * az - (ax * by - ay * bx);
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w)) * (180.0 / M_PI);
}

void cli_loop_seam_check(const pb_bvh *b, const char *path)
{
    size_t F = b->num_frames, J = b->num_joints;
    if (F < 3 || J == 0)
        return; /* one or two frames: the seam is the only step there is */
    double step = 0.0, seam = 0.0;
    size_t worst = 0;
    for (size_t f = 0; f + 1 < F; f++)
        for (size_t j = 0; j < J; j++) {
            double a = angle_deg(b, f * J + j, (f + 1) * J + j);
            step = a > step ? a : step;
        }
    for (size_t j = 0; j < J; j++) {
        double a = angle_deg(b, (F - 1) * J + j, j);
        if (a > seam) {
            seam = a;
            worst = j;
        }
    }
    if (seam > SEAM_FACTOR * step && seam > SEAM_FLOOR_DEG)
        cli_error("%s: warning: --loop: the clip is not cyclic: joint '%s' turns %.1f degrees "
                  "from the last frame to the first (more than %g times the largest "
                  "frame-to-frame turn, %.1f degrees)",
                  path, b->joints[worst].name, seam, SEAM_FACTOR, step);
}

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

/* The step in source frames of pb_clip_resample (src/clip.c resample_step):
 * 1 / (fps T), snapped to p/q (q <= 64) within 1e-4 relative. */
static double resample_step(double frame_time, double fps)
{
    double step = 1.0 / (fps * frame_time);
    for (int q = 1; q <= 64; q++) {
        double p = floor(step * q + 0.5);
        if (p >= 1 && fabs(p / q - step) <= 1e-4 * step)
            return p / q;
    }
    return step;
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

int cli_resample_loop(const pb_bvh *src, double fps, pb_bvh *dst, const char *path)
{
    size_t F = src->num_frames, J = src->num_joints, n = F * J;
    cli_loop_seam_check(src, path);
    double(*drift)[3] = malloc((J ? J : 1) * sizeof *drift);
    if (!drift) {
        cli_error("%s: out of memory", path);
        return -1;
    }
    if (!loop_drift(src, drift)) {
        free(drift);
        return cli_resample(src, fps, PB_CLIP_LOOP, dst, path);
    }
    /* A copy of the source whose positions are its own (the rotations and the
     * skeleton are shared, read only). */
    pb_bvh work = *src;
    float *mem = malloc(3 * (n ? n : 1) * sizeof *mem);
    if (!mem) {
        free(drift);
        cli_error("%s: out of memory", path);
        return -1;
    }
    memcpy(mem, src->pos_x, n * sizeof *mem);
    memcpy(mem + n, src->pos_y, n * sizeof *mem);
    memcpy(mem + 2 * n, src->pos_z, n * sizeof *mem);
    work.pos_x = mem;
    work.pos_y = mem + n;
    work.pos_z = mem + 2 * n;
    apply_drift(&work, drift, F, 1.0, -1.0);
    int rc = cli_resample(&work, fps, PB_CLIP_LOOP, dst, path);
    if (rc == 0)
        apply_drift(dst, drift, F, resample_step(src->frame_time, fps), 1.0);
    free(mem);
    free(drift);
    return rc;
}
