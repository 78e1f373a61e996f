/* What the BVH writer gives back: the source's own values (Euler angles and
 * position digits), the Euler modes, and never a text its reader would
 * refuse. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh_util.h"
#include "posebatch/io.h"

static const char *k_text =
    "HIERARCHY\n"
    "ROOT Hips\n"
    "{\n"
    "  OFFSET 0 0 0\n"
    "  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n"
    "  End Site\n"
    "  {\n"
    "    OFFSET 0 5 0\n"
    "  }\n"
    "}\n"
    "MOTION\n"
    "Frames: 3\n"
    "Frame Time: 0.0083333\n"
    "91.753342 -0.000001 1e-7 154.4 -36.8 -111.4\n"
    "91.753342 17.8049 18.3516 179.9 10 -179.9\n"
    "1 2 3 -25.6 -143.2 68.6\n";

static pb_bvh read_text(const char *text)
{
    pb_bvh b;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_memory(text, strlen(text), &b, &err), PB_BVH_OK, "%s", err.message);
    return b;
}

/* Writes b into a memory buffer (returned, NUL-terminated). */
static char *write_text(const pb_bvh *b, const pb_bvh_write_opts *o, pb_bvh_code want,
                        const char *needle)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    pb_bvh_error err;
    pb_bvh_code rc = pb_bvh_write_stream_with(f, b, o, &err);
    fclose(f);
    cr_assert_eq(rc, want, "expected %d, got %d: %s", want, rc, rc ? err.message : "ok");
    if (needle)
        cr_assert_not_null(strstr(err.message, needle), "'%s' lacks '%s'", err.message, needle);
    return buf;
}

static const char *data_of(const char *text)
{
    const char *p = strstr(text, "Frame Time");
    cr_assert_not_null(p);
    return strchr(p, '\n') + 1;
}

Test(bvh_fidelity, source_values_come_back)
{
    pb_bvh b = read_text(k_text);
    cr_assert_eq(b.decimals[0], 6);
    cr_assert_eq(b.decimals[1], 6);
    cr_assert_eq(b.decimals[2], 7);
    cr_assert_eq(b.decimals[6 + 1], 4); /* frame 1 */
    char *out = write_text(&b, NULL, PB_BVH_OK, NULL);
    /* Every value as the source wrote it (numerically): the angles are the
     * source's own triples, not the equivalent (-25.6 -143.2 68.6) of
     * (154.4 -36.8 -111.4), and 91.753342 keeps its sixth decimal. */
    const char *want[] = {"91.753342 -0.000001 0.0000001 154.4 -36.8 -111.4\n",
                          "91.753342 17.8049 18.3516 179.9 10 -179.9\n",
                          "1 2 3 -25.6 -143.2 68.6\n"};
    const char *p = data_of(out);
    for (int f = 0; f < 3; f++) {
        size_t n = strlen(want[f]);
        cr_assert_eq(strncmp(p, want[f], n), 0, "frame %d: '%.*s' vs '%s'", f,
                     (int)(strchr(p, '\n') - p), p, want[f]);
        p += n;
    }
    free(out);
    pb_bvh_free(&b);
}

static void angles_of_frame(const char *text, int frame, double v[6])
{
    const char *p = data_of(text);
    for (int f = 0; f < frame; f++)
        p = strchr(p, '\n') + 1;
    char *end;
    for (int k = 0; k < 6; k++) {
        v[k] = strtod(p, &end);
        p = end;
    }
}

Test(bvh_fidelity, euler_modes)
{
    pb_bvh b = read_text(k_text);
    double v[6];
    /* Principal: middle angle in [-90, 90]: frame 2's triple becomes the
     * other branch (154.4 -36.8 -111.4). */
    pb_bvh_write_opts o = {PB_BVH_EULER_PRINCIPAL, NULL, NULL, 0, 0};
    char *out = write_text(&b, &o, PB_BVH_OK, NULL);
    angles_of_frame(out, 2, v);
    cr_assert_float_eq(v[3], 154.4, 1e-4, "%g", v[3]);
    cr_assert_float_eq(v[4], -36.8, 1e-4, "%g", v[4]);
    cr_assert_float_eq(v[5], -111.4, 1e-4, "%g", v[5]);
    free(out);
    /* Continuous: frame 1 follows frame 0 (179.9 -> 179.9, -179.9 -> 180.1,
     * no jump), whatever the source wrote. */
    o.euler = PB_BVH_EULER_CONTINUOUS;
    out = write_text(&b, &o, PB_BVH_OK, NULL);
    double v0[6];
    angles_of_frame(out, 0, v0);
    angles_of_frame(out, 1, v);
    for (int k = 3; k < 6; k++)
        cr_assert_lt(fabs(v[k] - v0[k]), 180.0, "channel %d: %g -> %g", k, v0[k], v[k]);
    free(out);
    pb_bvh_free(&b);
}

Test(bvh_fidelity, never_writes_what_the_reader_refuses)
{
    pb_bvh b = read_text(k_text);
    char *text = write_text(&b, NULL, PB_BVH_OK, NULL);
    size_t full = strlen(text), head = (size_t)(data_of(text) - text), longest = 0;
    for (const char *p = data_of(text); *p; p = strchr(p, '\n') + 1) {
        size_t n = (size_t)(strchr(p, '\n') - p) + 1;
        longest = n > longest ? n : longest;
    }
    free(text);
    /* Up front: the estimate alone is over the limit; nothing written. */
    pb_bvh_write_opts o = {PB_BVH_EULER_SOURCE, NULL, NULL, 100, 0};
    char *out = write_text(&b, &o, PB_BVH_ERR_LIMIT, "nothing written");
    cr_assert_eq(strlen(out), 0, "'%s'", out);
    free(out);
    /* One byte short: refused (up front or while writing). */
    o.max_bytes = full - 1;
    free(write_text(&b, &o, PB_BVH_ERR_LIMIT, "reader"));
    /* The estimate: the header and the longest of the sampled lines (here
     * every line) times the frames. */
    o.max_bytes = head + 3 * longest;
    out = write_text(&b, &o, PB_BVH_OK, NULL);
    cr_assert_eq(strlen(out), full);
    free(out);
    pb_bvh_free(&b);
}

/* Joints without channels: frames x joints beyond the reader's memory bound
 * for the bytes of data is refused. */
Test(bvh_fidelity, never_writes_more_elements_than_the_reader_reads)
{
    size_t cap = 1 << 16;
    char *t = malloc(cap);
    cr_assert_not_null(t);
    size_t k = bvh_flat_hierarchy(t, cap, 40);
    snprintf(t + k, cap - k, "Frames: 1\nFrame Time: 0.01\n0\n");
    pb_bvh b = read_text(t);
    pb_bvh_error err;
    /* 41 joints x 20000 frames of "0\n": 820000 elements in 40000 bytes. */
    cr_assert_eq(pb_bvh_set_frames(&b, 20000, &err), PB_BVH_OK, "%s", err.message);
    free(write_text(&b, NULL, PB_BVH_ERR_LIMIT, "more than a reader accepts"));
    cr_assert_eq(pb_bvh_set_frames(&b, 1000, &err), PB_BVH_OK, "%s", err.message);
    char *out = write_text(&b, NULL, PB_BVH_OK, NULL);
    pb_bvh back;
    cr_assert_eq(pb_bvh_read_memory(out, strlen(out), &back, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(back.num_frames, 1000);
    pb_bvh_free(&back);
    free(out);
    pb_bvh_free(&b);
    free(t);
}

/* Element i's rotation (w, x, y, z), normalised, in double. */
/* Angle (rad) between two unit rotations, sign-free, accurate when small. */
static double turn_between(const double a[4], const double b[4])
{
    double w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double x = a[0] * b[1] - a[1] * b[0] - a[2] * b[3] + a[3] * b[2];
    double y = a[0] * b[2] + a[1] * b[3] - a[2] * b[0] - a[3] * b[1];
    double z = a[0] * b[3] - a[1] * b[2] + a[2] * b[1] - a[3] * b[0];
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}

/* The source angles stand for a rotation only within 2e-7 rad of theirs
 * (posebatch/io.h): a rotation turned by 1e-6 rad from its source angles
 * (and by 4e-7, 1e-5), written with PB_BVH_EULER_SOURCE, reads back as the
 * turned rotation, not the source's. Frame 1 is near the +-180 wrap, frame
 * 2 on the other branch from frame 0. */
Test(bvh_fidelity, a_rotation_turned_past_2e_7_rad_is_not_the_source_angles)
{
    static const double turns[3] = {1e-6, 4e-7, 1e-5};
    static const double axes[3][3] = {{1, 2, 3}, {0, 0, 1}, {-3, 1, 1}};
    pb_bvh b = read_text(k_text);
    cr_assert_not_null(b.euler_deg);
    double src[3][4], turned[3][4];
    for (size_t f = 0; f < 3; f++) {
        bvh_quat(&b, f, src[f]);
        const double *a = axes[f];
        double an = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), s = sin(turns[f] / 2) / an;
        double d[4] = {cos(turns[f] / 2), s * a[0], s * a[1], s * a[2]}, *q = src[f];
        /* q d, stored as floats as the reader stores rotations */
        b.rot_w[f] = (float)(q[0] * d[0] - q[1] * d[1] - q[2] * d[2] - q[3] * d[3]);
        b.rot_x[f] = (float)(q[0] * d[1] + q[1] * d[0] + q[2] * d[3] - q[3] * d[2]);
        b.rot_y[f] = (float)(q[0] * d[2] - q[1] * d[3] + q[2] * d[0] + q[3] * d[1]);
        b.rot_z[f] = (float)(q[0] * d[3] + q[1] * d[2] - q[2] * d[1] + q[3] * d[0]);
        bvh_quat(&b, f, turned[f]);
        /* the turn after float rounding (about 1.2e-7 at most) */
        double t = turn_between(src[f], turned[f]);
        cr_assert(fabs(t - turns[f]) < 1.5e-7, "frame %zu: turned by %g rad", f, t);
    }
    pb_bvh_write_opts o = {PB_BVH_EULER_SOURCE, NULL, NULL, 0, 0};
    char *out = write_text(&b, &o, PB_BVH_OK, NULL);
    pb_bvh back = read_text(out);
    for (size_t f = 0; f < 3; f++) {
        double q[4];
        bvh_quat(&back, f, q);
        /* 6 printed decimals of a degree and float rounding (measured up
         * to 7e-9 rad); the source angles would be turns[f] away */
        double to_turned = turn_between(q, turned[f]), to_src = turn_between(q, src[f]);
        cr_assert_lt(to_turned, 5e-8,
                     "frame %zu: read back %g rad from the turned rotation, %g from the source's",
                     f, to_turned, to_src);
        cr_assert_gt(to_src, turns[f] - 2e-7, "frame %zu: %g rad from the source's", f, to_src);
    }
    /* and the printed angles are not the source's text */
    double v[6];
    angles_of_frame(out, 0, v);
    cr_assert(v[3] != 154.4 || v[4] != -36.8 || v[5] != -111.4, "frame 0: the source's angles");
    pb_bvh_free(&back);
    free(out);
    pb_bvh_free(&b);
}
