/* resample --velocity-csv: the angular speed of every joint at every output
 * frame, as the resample's Catmull-Rom defines it, for users to plot. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *cli_velocity_csv;

/* One CSV: "frame,time,J1,J2,..." then per output frame its index, time in
 * seconds and each joint's angular speed in degrees per second (|omega| of
 * pb_clip_resample's velocity), by the output rules (cli_write_text). */
typedef struct vel_csv {
    const pb_bvh *src;
    size_t frames;
    double frame_time;
    const float *vx, *vy, *vz;
} vel_csv;

static int write_csv(FILE *f, void *ctx)
{
    const vel_csv *v = ctx;
    const pb_bvh *src = v->src;
    const size_t frames = v->frames;
    const double frame_time = v->frame_time;
    const float *vx = v->vx, *vy = v->vy, *vz = v->vz;
    const size_t J = src->num_joints;
    fputs("frame,time", f);
    for (size_t j = 0; j < J; j++)
        cli_csv_name(f, src->joints[j].name, "");
    fputc('\n', f);
    const double deg = 180.0 / 3.14159265358979323846;
    for (size_t g = 0; g < frames; g++) {
        fprintf(f, "%zu,%.9g", g, (double)g * frame_time);
        for (size_t j = 0; j < J; j++) {
            size_t i = g * J + j;
            double w = sqrt((double)vx[i] * vx[i] + (double)vy[i] * vy[i] + (double)vz[i] * vz[i]);
            fprintf(f, ",%.6g", w * deg);
        }
        fputc('\n', f);
    }
    return 0; /* the stream's errors: cli_write_text */
}

int cli_velocity_write(const pb_bvh *src, double fps, unsigned flags, const char *path)
{
    pb_clip sc = pb_bvh_clip(src);
    size_t frames = pb_clip_resample_frames(&sc, fps, flags);
    size_t n = frames * src->num_joints;
    if (frames == 0 || n / frames != src->num_joints) {
        cli_error("%s: cannot resample to %g fps", path, fps);
        return -1;
    }
    /* the clip again, with its velocity (the rotations are the resample's) */
    float *mem = malloc(10 * n * sizeof *mem);
    if (!mem) {
        cli_error("%s: out of memory for the velocities", path);
        return -1;
    }
    pb_clip dc;
    memset(&dc, 0, sizeof dc);
    dc.frames = frames;
    dc.joints = src->num_joints;
    float *a[10];
    for (int k = 0; k < 10; k++)
        a[k] = mem + (size_t)k * n;
    dc.rot = (pb_quats){a[0], a[1], a[2], a[3]};
    dc.pos = (pb_vec3s){a[4], a[5], a[6]};
    pb_clip_vel vel;
    memset(&vel, 0, sizeof vel);
    vel.rot = (pb_vec3s){a[7], a[8], a[9]};
    pb_status st = pb_clip_resample(&sc, fps, flags, &dc, &vel);
    int rc = -1;
    if (st != PB_OK)
        cli_report_status(path, "velocity", st);
    else {
        vel_csv v = {src, frames, dc.frame_time, a[7], a[8], a[9]};
        rc = cli_write_text(cli_velocity_csv, write_csv, &v);
    }
    free(mem);
    return rc;
}
