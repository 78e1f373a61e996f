/* The README's main job: resample a real motion-capture clip with every
 * backend this CPU runs, and write the result.
 *
 *   posebatch-demo IN.bvh [FACTOR] [OUT.bvh]
 *
 * pb_clip_resample: rotations by quaternion Catmull-Rom (offsets computed once
 * per source segment), positions by vec3 Catmull-Rom, FACTOR (default 4)
 * output frames per source frame, end frames clamped. Prints the frames, the time per backend (ns per output
 * joint-sample, best of 5) and the largest difference between backends. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "posebatch.h"
#include "posebatch/io.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static pb_clip clip_of(pb_bvh *c)
{
    pb_clip k = {c->num_frames,
                 c->num_joints,
                 c->frame_time,
                 {c->rot_w, c->rot_x, c->rot_y, c->rot_z},
                 {c->pos_x, c->pos_y, c->pos_z},
                 {NULL, NULL, NULL}};
    return k;
}

/* FACTOR output frames per source frame: pb_clip_resample to factor x the
 * source rate (ratio snapping makes every FACTOR-th frame a source frame). */
static int resample(pb_bvh *in, size_t factor, pb_bvh *out)
{
    pb_clip src = clip_of(in), dst = clip_of(out);
    pb_status st = pb_clip_resample(&src, (double)factor / in->frame_time, 0, &dst, NULL);
    if (st != PB_OK) {
        fprintf(stderr, "pb_clip_resample: %s\n", pb_status_str(st));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: %s IN.bvh [FACTOR] [OUT.bvh]\n", argv[0]);
        return 2;
    }
    size_t factor = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 4;
    if (factor < 1 || factor > 64) {
        fprintf(stderr, "FACTOR must be 1..64\n");
        return 2;
    }
    pb_bvh in, out, ref;
    pb_io_error err;
    if (pb_bvh_read_file(argv[1], &in, &err) != PB_IO_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], err.message);
        return 1;
    }
    size_t F = in.num_frames, J = in.num_joints;
    if (F < 2) {
        fprintf(stderr, "%s: need at least 2 frames\n", argv[1]);
        return 1;
    }
    pb_clip src = clip_of(&in);
    size_t G = pb_clip_resample_frames(&src, (double)factor / in.frame_time, 0);
    if (pb_bvh_read_file(argv[1], &out, &err) != PB_IO_OK ||
        pb_bvh_set_frames(&out, G, &err) != PB_IO_OK ||
        pb_bvh_read_file(argv[1], &ref, &err) != PB_IO_OK ||
        pb_bvh_set_frames(&ref, G, &err) != PB_IO_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    out.frame_time = ref.frame_time = in.frame_time / (double)factor;
    printf("clip: %s\n  %zu joints, %zu frames at %.3f fps -> %zu frames at %.3f fps\n", argv[1], J,
           F, 1.0 / in.frame_time, G, 1.0 / out.frame_time);
    printf("backend  ns/joint-sample  max diff vs scalar (rad)\n");
    for (int b = 0; b < PB_BACKEND_COUNT; b++) {
        if (!pb_backend_supported((pb_backend)b) || pb_backend_emulated((pb_backend)b))
            continue;
        pb_backend_force((pb_backend)b);
        pb_bvh *dst = b == PB_BACKEND_SCALAR ? &ref : &out;
        double best = 1e30;
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now();
            if (resample(&in, factor, dst) != 0) {
                fprintf(stderr, "resample failed\n");
                return 1;
            }
            double t = now() - t0;
            best = t < best ? t : best;
        }
        double maxd = 0;
        for (size_t i = 0; b != PB_BACKEND_SCALAR && i < G * J; i++) {
            /* angle between rotations, sign-insensitive; atan2 of the chord
             * lengths, since acos of a float dot is off by ~1e-3 near 1 */
            double a[4] = {ref.rot_w[i], ref.rot_x[i], ref.rot_y[i], ref.rot_z[i]};
            double c[4] = {out.rot_w[i], out.rot_x[i], out.rot_y[i], out.rot_z[i]};
            double dot = a[0] * c[0] + a[1] * c[1] + a[2] * c[2] + a[3] * c[3];
            double s = dot < 0 ? -1.0 : 1.0, dm = 0, dp = 0;
            for (int k = 0; k < 4; k++) {
                dm += (a[k] - s * c[k]) * (a[k] - s * c[k]);
                dp += (a[k] + s * c[k]) * (a[k] + s * c[k]);
            }
            double ang = 4.0 * atan2(sqrt(dm), sqrt(dp));
            maxd = ang > maxd ? ang : maxd;
        }
        printf("%-8s %15.2f  %.3g\n", pb_backend_name((pb_backend)b), best * 1e9 / ((double)G * J),
               maxd);
    }
    /* the floor for any resampler: writing the same output bytes (rotations
     * and positions) with memset, best of 5 */
    {
        float *arrs[7] = {out.rot_w, out.rot_x, out.rot_y, out.rot_z,
                          out.pos_x, out.pos_y, out.pos_z};
        double best = 1e30;
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now();
            for (int a = 0; a < 7; a++)
                memset(arrs[a], rep, G * J * sizeof(float));
            double t = now() - t0;
            best = t < best ? t : best;
        }
        printf("%-8s %15.2f  (memset of the same output bytes)\n", "write",
               best * 1e9 / ((double)G * J));
    }
    const char *dest = argc > 3 ? argv[3] : NULL;
    if (dest) {
        if (pb_bvh_write_file(dest, &ref, &err) != PB_IO_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        printf("wrote %s\n", dest);
    }
    pb_bvh_free(&in);
    pb_bvh_free(&out);
    pb_bvh_free(&ref);
    return 0;
}
