/* The README's main job: resample a real motion-capture clip with every
 * backend this CPU runs, and write the result.
 *
 *   posebatch-demo IN.bvh [FACTOR] [OUT.bvh]
 *
 * Rotations are unrolled, then resampled by quaternion Catmull-Rom, positions
 * by vec3 Catmull-Rom, FACTOR (default 4) output frames per source frame, end
 * frames clamped. Prints the frames, the time per backend (ns per output
 * joint-sample, best of 5) and the largest difference between backends. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bvh.h"
#include "posebatch.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static pb_cquats rot_at(const pb_bvh *c, size_t f)
{
    size_t o = f * c->num_joints;
    pb_cquats q = {c->rot_w + o, c->rot_x + o, c->rot_y + o, c->rot_z + o};
    return q;
}
static pb_cvec3s pos_at(const pb_bvh *c, size_t f)
{
    size_t o = f * c->num_joints;
    pb_cvec3s v = {c->pos_x + o, c->pos_y + o, c->pos_z + o};
    return v;
}

/* Resamples every source segment; out has (F-1)*factor + 1 frames. */
static int resample(const pb_bvh *in, size_t factor, pb_bvh *out)
{
    size_t F = in->num_frames, J = in->num_joints;
    for (size_t f = 0; f + 1 < F; f++) {
        size_t f0 = f ? f - 1 : 0, f3 = f + 2 < F ? f + 2 : F - 1;
        for (size_t s = 0; s < factor; s++) {
            size_t o = (f * factor + s) * J;
            float x = (float)s / (float)factor;
            pb_quats rot = {out->rot_w + o, out->rot_x + o, out->rot_y + o, out->rot_z + o};
            pb_vec3s pos = {out->pos_x + o, out->pos_y + o, out->pos_z + o};
            pb_vec3s none = {0, 0, 0};
            if (pb_quat_catmull_rom(J, x, rot_at(in, f0), rot_at(in, f), rot_at(in, f + 1),
                                    rot_at(in, f3), 0, rot, none) != PB_OK ||
                pb_vec3_catmull_rom(J, x, pos_at(in, f0), pos_at(in, f), pos_at(in, f + 1),
                                    pos_at(in, f3), pos, none) != PB_OK)
                return -1;
        }
    }
    size_t o = (F - 1) * factor * J, last = (F - 1) * J;
    memcpy(out->rot_w + o, in->rot_w + last, J * sizeof(float));
    memcpy(out->rot_x + o, in->rot_x + last, J * sizeof(float));
    memcpy(out->rot_y + o, in->rot_y + last, J * sizeof(float));
    memcpy(out->rot_z + o, in->rot_z + last, J * sizeof(float));
    memcpy(out->pos_x + o, in->pos_x + last, J * sizeof(float));
    memcpy(out->pos_y + o, in->pos_y + last, J * sizeof(float));
    memcpy(out->pos_z + o, in->pos_z + last, J * sizeof(float));
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
    pb_bvh_error err;
    if (pb_bvh_read_file(argv[1], &in, &err) != PB_BVH_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], err.message);
        return 1;
    }
    size_t F = in.num_frames, J = in.num_joints;
    if (F < 2) {
        fprintf(stderr, "%s: need at least 2 frames\n", argv[1]);
        return 1;
    }
    pb_cquats all = rot_at(&in, 0);
    pb_quats all_w = {in.rot_w, in.rot_x, in.rot_y, in.rot_z};
    pb_quat_unroll(F, J, all, all_w); /* Euler wraps become continuous quaternion tracks */
    size_t G = (F - 1) * factor + 1;
    if (pb_bvh_read_file(argv[1], &out, &err) != PB_BVH_OK || pb_bvh_set_frames(&out, G, &err) != PB_BVH_OK ||
        pb_bvh_read_file(argv[1], &ref, &err) != PB_BVH_OK || pb_bvh_set_frames(&ref, G, &err) != PB_BVH_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    out.frame_time = ref.frame_time = in.frame_time / (double)factor;
    printf("clip: %s\n  %zu joints, %zu frames at %.3f fps -> %zu frames at %.3f fps\n", argv[1], J, F,
           1.0 / in.frame_time, G, 1.0 / out.frame_time);
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
        printf("%-8s %15.2f  %.3g\n", pb_backend_name((pb_backend)b), best * 1e9 / ((double)G * J), maxd);
    }
    const char *dest = argc > 3 ? argv[3] : NULL;
    if (dest) {
        if (pb_bvh_write_file(dest, &ref, &err) != PB_BVH_OK) {
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
