/* The BVH reader's rules for real files: the data lines are the truth and the
 * 'Frames:' count a claim (a warning, or an error when strict), absurd numbers
 * are errors naming their line, duplicate names are warnings, limits hold
 * before the work (binary input, size, memory per byte), header-only reads,
 * and what the reader keeps for the writer (source angles, position
 * decimals). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bvh_sample.h"

#include "posebatch/io.h"

#define k_text k_sample_bvh /* 20 */

typedef struct warnings {
    int count;
    char last[512];
} warnings;

static void collect(void *ctx, const char *msg)
{
    warnings *w = ctx;
    w->count++;
    snprintf(w->last, sizeof w->last, "%s", msg);
}

static char *edit(const char *from, const char *to)
{
    const char *p = strstr(k_text, from);
    cr_assert_not_null(p, "edit: '%s' not found", from);
    size_t n = strlen(k_text) - strlen(from) + strlen(to) + 1;
    char *r = malloc(n);
    cr_assert_not_null(r);
    size_t pre = (size_t)(p - k_text);
    memcpy(r, k_text, pre);
    strcpy(r + pre, to);
    strcat(r, p + strlen(from));
    return r;
}

/* The text up to the end of line `lines` plus `extra` bytes. */
static size_t cut(int lines, size_t extra)
{
    const char *p = k_text;
    for (int i = 0; i < lines; i++)
        p = strchr(p, '\n') + 1;
    return (size_t)(p - k_text) + extra;
}

static pb_bvh_code read_with(const char *text, size_t len, unsigned flags, pb_bvh *b,
                             pb_bvh_error *err, warnings *w)
{
    memset(w, 0, sizeof *w);
    pb_bvh_read_opts o = {flags, 0, collect, w};
    return pb_bvh_read_memory_with(text, len, &o, b, err);
}

static void expect_err(const char *text, size_t len, unsigned flags, pb_bvh_code code, long line,
                       const char *needle)
{
    pb_bvh b;
    pb_bvh_error err;
    warnings w;
    pb_bvh_code rc = read_with(text, len, flags, &b, &err, &w);
    cr_assert_eq(rc, code, "expected code %d, got %d: %s", code, rc, rc ? err.message : "ok");
    cr_assert_eq(err.line, line, "expected line %ld: %s", line, err.message);
    if (needle)
        cr_assert_not_null(strstr(err.message, needle), "'%s' lacks '%s'", err.message, needle);
    cr_assert_null(b.joints);
    cr_assert_null(b.rot_w);
    cr_assert_null(b.euler_deg);
}

/* Reads with a warning expected (needle in it) and `frames` frames. */
static pb_bvh expect_warned(const char *text, size_t len, size_t frames, const char *needle)
{
    pb_bvh b;
    pb_bvh_error err;
    warnings w;
    pb_bvh_code rc = read_with(text, len, 0, &b, &err, &w);
    cr_assert_eq(rc, PB_BVH_OK, "unexpected error: %s", err.message);
    cr_assert_eq(b.num_frames, frames);
    cr_assert_eq(w.count, 1, "expected one warning, got %d", w.count);
    cr_assert_not_null(strstr(w.last, needle), "warning '%s' lacks '%s'", w.last, needle);
    return b;
}

Test(bvh_read, frame_count_is_a_claim)
{
    /* More data lines than the header says (the real clip: Frames 3069, 3070
     * lines), fewer, and a count far beyond the data. */
    const char *claims[] = {"Frames: 1", "Frames: 3", "Frames: 300", "Frames: 999999999999"};
    for (size_t i = 0; i < sizeof claims / sizeof claims[0]; i++) {
        char *t = edit("Frames: 2", claims[i]);
        char need[128];
        snprintf(need, sizeof need,
                 "line 17: '%s' but the file holds 2 complete data lines; using 2", claims[i]);
        pb_bvh b = expect_warned(t, strlen(t), 2, need);
        /* Every line was read: frame 1's Chest is Rz(41) Rx(51) Ry(61). */
        double d[3] = {41, 51, 61}, q[4];
        pb_euler_to_quat(PB_EULER_ZXY, d, q);
        cr_assert_float_eq(b.rot_w[3], (float)q[0], 1e-7);
        cr_assert_eq(b.pos_x[2], 4.0f);
        pb_bvh_free(&b);
        expect_err(t, strlen(t), PB_BVH_READ_STRICT, PB_BVH_ERR_MOTION, 17,
                   "but the file holds 2 complete data lines");
        free(t);
    }
    /* An agreeing count: no warning. */
    pb_bvh b;
    pb_bvh_error err;
    warnings w;
    cr_assert_eq(read_with(k_text, strlen(k_text), PB_BVH_READ_STRICT, &b, &err, &w), PB_BVH_OK);
    cr_assert_eq(w.count, 0);
    cr_assert_eq(b.num_frames, 2);
    pb_bvh_free(&b);
}

Test(bvh_read, truncation)
{
    /* Cut after a whole line: the complete lines count (0 or 1), a warning. */
    pb_bvh b = expect_warned(k_text, cut(18, 0), 0, "holds 0 complete data lines; using 0");
    pb_bvh_free(&b);
    b = expect_warned(k_text, cut(19, 0), 1, "holds 1 complete data lines; using 1");
    pb_bvh_free(&b);
    expect_err(k_text, cut(19, 0), PB_BVH_READ_STRICT, PB_BVH_ERR_MOTION, 17, "1 complete");
    /* Cut inside a frame: an error naming the line, strict or not. */
    expect_err(k_text, cut(19, 8), 0, PB_BVH_ERR_MOTION, 20, "cut inside a frame");
    expect_err(k_text, cut(19, 8), PB_BVH_READ_STRICT, PB_BVH_ERR_MOTION, 20, "4 of the 9 values");
    /* A short line that is not the last stays a plain error. */
    char *t = edit("1 2 3 10 20 30 40 50 60", "1 2 3 10 20 30 40 50");
    expect_err(t, strlen(t), 0, PB_BVH_ERR_MOTION, 19, "expected 9 values");
    free(t);
}

Test(bvh_read, absurd_numbers)
{
    char *t = edit("4 5 6 11 21", "4 5 6 1e39 21");
    expect_err(t, strlen(t), 0, PB_BVH_ERR_VALUE, 20, "beyond +-1e+06");
    free(t);
    t = edit("4 5 6 11 21", "4 5 6 11 -1000000.5");
    expect_err(t, strlen(t), 0, PB_BVH_ERR_VALUE, 20, "rotation value 5");
    free(t);
    /* At the limit, and positions (not angles) beyond it, are fine. */
    t = edit("4 5 6 11 21", "4e7 5 6 11 -1000000");
    pb_bvh b;
    pb_bvh_error err;
    warnings w;
    cr_assert_eq(read_with(t, strlen(t), 0, &b, &err, &w), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(b.pos_x[2], 4e7f);
    pb_bvh_free(&b);
    free(t);
    /* Frame Time: above 100000 fps, denormal, beyond float range. */
    const char *bad[] = {"Frame Time: 4.9e-324", "Frame Time: 9.99e-6", "Frame Time: 1e-300",
                         "Frame Time: 1e39"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t = edit("Frame Time: .0333333", bad[i]);
        expect_err(t, strlen(t), 0, PB_BVH_ERR_VALUE, 18, "Frame Time");
        free(t);
    }
    t = edit("Frame Time: .0333333", "Frame Time: 1e-5");
    cr_assert_eq(read_with(t, strlen(t), 0, &b, &err, &w), PB_BVH_OK, "%s", err.message);
    pb_bvh_free(&b);
    free(t);
}

Test(bvh_read, duplicate_names_warn)
{
    char *t = edit("JOINT Chest", "JOINT Hips");
    pb_bvh b =
        expect_warned(t, strlen(t), 2, "line 6: joint name 'Hips' is already used at line 2");
    cr_assert_eq(b.joints[1].line, 6);
    cr_assert_eq(b.joints[0].line, 2);
    pb_bvh_free(&b);
    /* For callers that match joints by name: an error at the repeat. */
    expect_err(t, strlen(t), PB_BVH_READ_UNIQUE_NAMES, PB_BVH_ERR_SYNTAX, 6,
               "joint name 'Hips' is already used at line 2 (names must be unique)");
    free(t);
}

Test(bvh_read, known_binary_formats)
{
    static const struct {
        const char *data;
        size_t n;
        const char *needle;
    } cases[] = {
        {"glTF\x02\0\0\0\x10\0\0\0", 12, "binary glTF (.glb) file, not BVH"},
        {"{\n  \"asset\": {\"version\": \"2.0\"},\n  \"nodes\": []\n}\n", 48,
         "glTF (.gltf) file, not BVH"},
        {"\x1f\x8b\x08\0\0\0\0\0", 8, "gzip"},
        {"PK\x03\x04\x14\0", 6, "zip"},
        {"Kaydara FBX Binary  \0", 21, "FBX"},
        {"\0\0\0\0\0\0\0\0", 8, "binary data"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_err(cases[i].data, cases[i].n, 0, PB_BVH_ERR_SYNTAX, 0, cases[i].needle);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

Test(bvh_read, dev_zero_stops_at_once)
{
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    double t0 = now();
    pb_bvh b;
    pb_bvh_error err;
    pb_bvh_code rc = pb_bvh_read_file("/dev/zero", &b, &err);
    double dt = now() - t0;
    getrusage(RUSAGE_SELF, &r1);
    cr_assert_eq(rc, PB_BVH_ERR_SYNTAX, "%s", err.message);
    cr_assert_not_null(strstr(err.message, "binary data"), "%s", err.message);
    cr_assert_lt(dt, 1.0, "took %.2f s", dt);
    cr_assert_lt(r1.ru_maxrss - r0.ru_maxrss, 100 * 1024, "max RSS grew by %ld KiB",
                 r1.ru_maxrss - r0.ru_maxrss);
}

Test(bvh_read, size_limit_on_streams)
{
    FILE *f = fmemopen((void *)k_text, strlen(k_text), "r");
    cr_assert_not_null(f);
    pb_bvh_read_opts o = {0, 100, NULL, NULL};
    pb_bvh b;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_stream(f, "mem", &o, &b, &err), PB_BVH_ERR_LIMIT);
    cr_assert_not_null(strstr(err.message, "mem: larger than 100 bytes"), "%s", err.message);
    fclose(f);
    f = fmemopen((void *)k_text, strlen(k_text), "r");
    o.max_bytes = strlen(k_text);
    cr_assert_eq(pb_bvh_read_stream(f, "mem", &o, &b, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(b.num_frames, 2);
    pb_bvh_free(&b);
    fclose(f);
}

/* Memory per input byte: joints without channels multiply frames without
 * needing bytes. 10 of them under a 1-channel root, 100000 frames of "0":
 * 1.1 million elements from 200 kB of data. */
Test(bvh_read, memory_per_byte_is_bounded)
{
    size_t cap = 4096 + 100000 * 2;
    char *t = malloc(cap);
    cr_assert_not_null(t);
    size_t k = bvh_flat_hierarchy(t, cap, 10);
    k += (size_t)snprintf(t + k, cap - k, "Frames: 100000\nFrame Time: 0.01\n");
    for (int f = 0; f < 100000; f++) {
        t[k++] = '0';
        t[k++] = '\n';
    }
    expect_err(t, k, 0, PB_BVH_ERR_LIMIT, 58, "too large for the 200001 bytes of data");
    free(t);
}

Test(bvh_read, header_only)
{
    char *t = edit("Frames: 2", "Frames: 5");
    pb_bvh b;
    pb_bvh_error err;
    warnings w;
    cr_assert_eq(read_with(t, strlen(t), PB_BVH_READ_HEADER_ONLY, &b, &err, &w), PB_BVH_OK);
    cr_assert_eq(b.num_frames, 2);
    cr_assert_eq(b.num_joints, 2);
    cr_assert_null(b.rot_w);
    cr_assert_null(b.euler_deg);
    cr_assert_eq(w.count, 1);
    pb_bvh_free(&b);
    free(t);
    /* The data lines are still checked. */
    t = edit("4 5 6 11", "4 5 x 11");
    expect_err(t, strlen(t), PB_BVH_READ_HEADER_ONLY, PB_BVH_ERR_VALUE, 20, "'x'");
    free(t);
}

Test(bvh_read, keeps_source_angles_and_decimals)
{
    char *t = edit("4 5 6 11 21 31", "4.25 5.123456 6 -190.5 21 31");
    pb_bvh b;
    pb_bvh_error err;
    warnings w;
    cr_assert_eq(read_with(t, strlen(t), 0, &b, &err, &w), PB_BVH_OK, "%s", err.message);
    cr_assert_not_null(b.euler_deg);
    /* Element (1, 0): the root's Zrotation Xrotation Yrotation as written. */
    cr_assert_eq(b.euler_deg[3 * 2 + 0], -190.5);
    cr_assert_eq(b.euler_deg[3 * 2 + 1], 21.0);
    cr_assert_eq(b.euler_deg[3 * 2 + 2], 31.0);
    cr_assert_eq(b.euler_deg[3 * 3 + 2], 61.0);
    cr_assert_eq(b.decimals[9 + 0], 2); /* frame 1 */
    cr_assert_eq(b.decimals[9 + 1], 6);
    cr_assert_eq(b.decimals[9 + 2], 0);
    cr_assert_eq(b.decimals[9 + 3], 0); /* a rotation column */
    pb_bvh_free(&b);
    free(t);
    cr_assert_eq(read_with(k_text, strlen(k_text), 0, &b, &err, &w), PB_BVH_OK);
    for (int c = 0; c < 18; c++)
        cr_assert_eq(b.decimals[c], 0);
    pb_bvh_free(&b);
}
