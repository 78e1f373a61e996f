/* CMake consumer of the installed library: reads a BVH file, converts its
 * first frame's rotations to (x, y, z, w) and back, resamples it to 60 fps
 * and prints what it did. Usage: consumer FILE.bvh */
#include <posebatch.h>
#include <posebatch/io.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.bvh\n", argv[0]);
        return 2;
    }
    pb_bvh in, out;
    pb_bvh_error err;
    if (pb_bvh_read_file(argv[1], &in, &err) != PB_BVH_OK) {
        fprintf(stderr, "%s: %s (%s)\n", argv[1], err.message, pb_bvh_code_str(err.code));
        return 1;
    }
    size_t J = in.num_joints;
    float *xyzw = malloc(4 * J * sizeof *xyzw), *soa = malloc(4 * J * sizeof *soa);
    pb_quats q = {soa, soa + J, soa + 2 * J, soa + 3 * J};
    pb_cquats first = {in.rot_w, in.rot_x, in.rot_y, in.rot_z};
    int ok = xyzw && soa && pb_quats_to_xyzw(J, first, xyzw) == PB_OK &&
             pb_quats_from_xyzw(J, xyzw, q) == PB_OK &&
             memcmp(q.w, in.rot_w, J * sizeof(float)) == 0 &&
             pb_bvh_resample(&in, 60.0, 0, &out, &err) == PB_BVH_OK;
    if (ok)
        printf("posebatch %s (%s): %zu joints, %zu frames at %g fps -> %zu frames at 60 fps\n",
               pb_version_string(), pb_backend_name(pb_backend_active()), J, in.num_frames,
               1.0 / in.frame_time, out.num_frames);
    else
        fprintf(stderr, "consumer: conversion or resample failed: %s\n", err.message);
    free(xyzw);
    free(soa);
    pb_bvh_free(&in);
    if (ok)
        pb_bvh_free(&out);
    return ok ? 0 : 1;
}
