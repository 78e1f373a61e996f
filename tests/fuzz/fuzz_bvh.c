/* libFuzzer target for the BVH reader (src/io/bvh.c).
 *
 * Each input is parsed with pb_bvh_read_memory. On error the error contract
 * is checked (message set, "line N: " prefix when a line is given, output
 * left empty). On success the clip is written with pb_bvh_write_stream to
 * memory, read back, and compared: same skeleton and frame count, rotations
 * within 1e-5 rad, positions within float rounding. Any violation aborts. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_bvh: check failed: %s\n", what);
        abort();
    }
}

static double quat_angle(const pb_bvh *a, const pb_bvh *b, size_t i)
{
    double p[4] = {a->rot_w[i], a->rot_x[i], a->rot_y[i], a->rot_z[i]};
    double q[4] = {b->rot_w[i], b->rot_x[i], b->rot_y[i], b->rot_z[i]};
    double np = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
    double nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double w = (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3]) / (np * nq);
    double x = (p[0] * q[1] - p[1] * q[0] - p[2] * q[3] + p[3] * q[2]) / (np * nq);
    double y = (p[0] * q[2] + p[1] * q[3] - p[2] * q[0] - p[3] * q[1]) / (np * nq);
    double z = (p[0] * q[3] - p[1] * q[2] + p[2] * q[1] - p[3] * q[0]) / (np * nq);
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pb_bvh a;
    pb_bvh_error err;
    pb_bvh_code rc = pb_bvh_read_memory((const char *)data, size, &a, &err);
    if (rc != PB_BVH_OK) {
        check(err.code == rc, "error code recorded");
        check(memchr(err.message, '\0', sizeof err.message) != NULL, "message terminated");
        check(err.message[0] != '\0', "message non-empty");
        if (err.line == 0) {
            /* Not BVH at all (binary, glTF, ...): said about the whole input. */
            check(rc == PB_BVH_ERR_SYNTAX && strstr(err.message, "not BVH") != NULL,
                  "errors without a line say what the input is");
        } else {
            check(err.line > 0, "malformed input errors carry a line");
            char prefix[40];
            snprintf(prefix, sizeof prefix, "line %ld: ", err.line);
            check(strncmp(err.message, prefix, strlen(prefix)) == 0, "message starts with line N");
        }
        check(a.joints == NULL && a.rot_w == NULL && a.num_joints == 0, "output empty on error");
        return 0;
    }
    check(a.num_joints > 0 && a.frame_time > 0.0, "valid result");

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        pb_bvh_free(&a);
        return 0;
    }
    rc = pb_bvh_write_stream(f, &a, &err);
    fclose(f);
    if (rc != PB_BVH_OK)
        fprintf(stderr, "write failed: %s\n", err.message);
    check(rc == PB_BVH_OK, "a clip that was read can be written");

    pb_bvh b;
    rc = pb_bvh_read_memory(buf, len, &b, &err);
    if (rc != PB_BVH_OK)
        fprintf(stderr, "re-read failed: %s\n", err.message);
    check(rc == PB_BVH_OK, "written clip reads back");
    check(b.num_joints == a.num_joints && b.num_end_sites == a.num_end_sites &&
              b.num_channels == a.num_channels && b.num_frames == a.num_frames,
          "same layout");
    check(fabs(b.frame_time - a.frame_time) <= 1e-14 * a.frame_time, "same frame time");
    for (size_t j = 0; j < a.num_joints; j++) {
        check(strcmp(a.joints[j].name, b.joints[j].name) == 0, "same names");
        check(a.joints[j].parent == b.joints[j].parent, "same parents");
        check(memcmp(a.joints[j].channels, b.joints[j].channels, a.joints[j].num_channels) == 0,
              "same channels");
        for (int k = 0; k < 3; k++)
            check(a.joints[j].offset[k] == b.joints[j].offset[k], "same offsets");
    }
    size_t n = a.num_frames * a.num_joints;
    for (size_t i = 0; i < n; i++) {
        check(quat_angle(&a, &b, i) < 1e-5, "rotation round trip");
        const float pa[3] = {a.pos_x[i], a.pos_y[i], a.pos_z[i]};
        const float pb[3] = {b.pos_x[i], b.pos_y[i], b.pos_z[i]};
        for (int k = 0; k < 3; k++)
            check(fabsf(pa[k] - pb[k]) <= 2.4e-7f * fabsf(pa[k]), "position round trip");
    }
    pb_bvh_free(&b);
    pb_bvh_free(&a);
    free(buf);
    return 0;
}
