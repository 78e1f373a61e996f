/*
 * pb_bvh_resample_write_file (include/posebatch/io.h): a resample written a
 * block at a time, and pb_bvh_write_opts.threads.
 *
 * bvh_stream/same_bytes_as_resample_then_write
 *     the shipped clip at 24, 480 and 1000 fps, clamp and loop (and loop
 *     with the root travel), each Euler mode, 0, 1, 2 and 5 threads; the
 *     shared clips at 480 fps on 5 threads: the file is byte for byte the one
 *     pb_bvh_resample + pb_bvh_write_file_with writes (blocks cut the
 *     resample's runs and the unrolling's previous frame; threads cut the
 *     blocks into parts).
 * bvh_stream/threads_keep_whole_clip_writes
 *     pb_bvh_write_file_with with threads 1 and 4 of a long clip: the same
 *     bytes.
 * bvh_stream/errors_write_nothing
 *     NULL arguments, bad flags and rates, an output in a missing
 *     directory, a text over max_bytes, a non-finite rotation in the middle
 *     of the clip (named by its output frame): an error, and no file (an
 *     existing one untouched).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clipdata.h"
#include "posebatch.h"
#include "posebatch/io.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    cr_assert(p);
    *len = fread(p, 1, (size_t)n, f);
    fclose(f);
    return p;
}

static void tmp_path(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "%s/pb_stream_%ld_%s.bvh", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid(), tag);
}

static size_t cases;

static void compare(const pb_bvh *src, const char *name, double fps, unsigned flags,
                    pb_bvh_euler_mode mode, unsigned threads)
{
    char pa[512], pb[512];
    tmp_path(pa, sizeof pa, "whole");
    tmp_path(pb, sizeof pb, "stream");
    pb_io_error err;
    pb_bvh out;
    memset(&out, 0, sizeof out);
    pb_bvh_write_opts wo = {mode, NULL, NULL, 0, 0};
    cr_assert_eq(pb_bvh_resample(src, fps, flags, &out, &err), PB_IO_OK, "%s: %s", name,
                 err.message);
    cr_assert_eq(pb_bvh_write_file_with(pa, &out, &wo, &err), PB_IO_OK, "%s: %s", name,
                 err.message);
    pb_bvh_free(&out);
    wo.threads = threads;
    cr_assert_eq(pb_bvh_resample_write_file(src, fps, flags, pb, &wo, &err), PB_IO_OK,
                 "%s at %g fps: %s", name, fps, err.message);
    size_t la = 0, lb = 0;
    char *a = slurp(pa, &la), *b = slurp(pb, &lb);
    cr_assert(a && b);
    size_t at = 0;
    while (at < la && at < lb && a[at] == b[at])
        at++;
    cr_expect(la == lb && at == la,
              "%s at %g fps, flags 0x%x, euler %d, %u threads: %zu vs %zu bytes, first "
              "difference at byte %zu",
              name, fps, flags, (int)mode, threads, la, lb, at);
    free(a);
    free(b);
    unlink(pa);
    unlink(pb);
    cases++;
}

/* the shipped clip every way; the shared ones at 480 fps, clamp and loop,
 * source angles on 3 threads (the CLI digests cover their one-thread files) */
static void every_way(const pb_bvh *src, const char *name, int full)
{
    static const double rates[] = {24, 480, 1000};
    static const unsigned flag_sets[] = {0u, PB_CLIP_LOOP, PB_CLIP_LOOP | PB_BVH_LOOP_TRAVEL};
    static const unsigned threads[] = {0, 1, 2, 5};
    for (size_t r = full ? 0 : 1; r < (full ? 3u : 2u); r++)
        for (size_t fl = 0; fl < (full ? 3u : 2u); fl++)
            for (int m = 0; m < (full ? 3 : 1); m++)
                for (size_t t = 0; t < 4; t++) /* every count on the default mode */
                    if ((m == 0 && (full || t == 3)) || (m > 0 && t == (size_t)m + 1))
                        compare(src, name, rates[r], flag_sets[fl], (pb_bvh_euler_mode)m,
                                threads[t]);
}

static void shared_clip(const char *path, const char *name, void *ctx)
{
    (void)ctx;
    pb_bvh src;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(path, &src, &err), PB_IO_OK, "%s: %s", name, err.message);
    every_way(&src, name, 0);
    pb_bvh_free(&src);
}

Test(bvh_stream, same_bytes_as_resample_then_write, .timeout = 600)
{
    pb_bvh src;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &src, &err), PB_IO_OK);
    every_way(&src, "data/cmu_01_03.bvh", 1);
    pb_bvh_free(&src);
    if (for_each_mocap_bvh(shared_clip, NULL) < 0)
        cr_log_info("shared clips absent (optional): the shipped clip only");
    cr_log_info("%zu files compared", cases);
}

Test(bvh_stream, threads_keep_whole_clip_writes)
{
    pb_bvh src;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &src, &err), PB_IO_OK);
    for (int m = 0; m < 3; m++) {
        char pa[512], pb[512];
        tmp_path(pa, sizeof pa, "t1");
        tmp_path(pb, sizeof pb, "t4");
        pb_bvh_write_opts wo = {(pb_bvh_euler_mode)m, NULL, NULL, 0, 1};
        cr_assert_eq(pb_bvh_write_file_with(pa, &src, &wo, &err), PB_IO_OK);
        wo.threads = 4;
        cr_assert_eq(pb_bvh_write_file_with(pb, &src, &wo, &err), PB_IO_OK);
        size_t la = 0, lb = 0;
        char *a = slurp(pa, &la), *b = slurp(pb, &lb);
        cr_expect(a && b && la == lb && memcmp(a, b, la) == 0, "euler %d: texts differ", m);
        free(a);
        free(b);
        unlink(pa);
        unlink(pb);
    }
    pb_bvh_free(&src);
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

Test(bvh_stream, errors_write_nothing)
{
    pb_bvh src;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &src, &err), PB_IO_OK);
    char p[512];
    tmp_path(p, sizeof p, "err");
    unlink(p);
    pb_bvh_write_opts wo = {PB_BVH_EULER_SOURCE, NULL, NULL, 0, 2};
    cr_expect_eq(pb_bvh_resample_write_file(NULL, 60, 0, p, &wo, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_resample_write_file(&src, 60, 0, NULL, &wo, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_resample_write_file(&src, 60, 0, "", &wo, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_resample_write_file(&src, 60, 0x40, p, &wo, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_resample_write_file(&src, 60, PB_BVH_LOOP_TRAVEL, p, &wo, &err),
                 PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_resample_write_file(&src, NAN, 0, p, &wo, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_resample_write_file(&src, -5, 0, p, &wo, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_resample_write_file(&src, 1e300, 0, p, &wo, &err), PB_IO_ERR_LIMIT);
    cr_expect(!exists(p), "a file after argument errors");
    cr_expect_eq(pb_bvh_resample_write_file(&src, 60, 0, "/nonexistent-dir/x.bvh", &wo, &err),
                 PB_IO_ERR_IO);
    /* an existing output stays as it was on errors */
    FILE *f = fopen(p, "w");
    cr_assert(f);
    fputs("keep me\n", f);
    fclose(f);
    wo.max_bytes = 100000; /* far below the 480 fps text */
    cr_expect_eq(pb_bvh_resample_write_file(&src, 480, 0, p, &wo, &err), PB_IO_ERR_LIMIT);
    wo.max_bytes = 0;
    /* a NaN rotation at source frame 2000: output frame 8000 at 480 fps
     * (and around it) cannot be written; the error names an output frame */
    size_t J = src.num_joints, i = 2000 * J + 3;
    src.rot_w[i] = NAN;
    for (unsigned t = 0; t < 3; t++) {
        wo.threads = t;
        cr_expect_eq(pb_bvh_resample_write_file(&src, 480, 0, p, &wo, &err), PB_IO_ERR_ARG);
        cr_expect(strstr(err.message, "non-finite rotation") != NULL, "%s", err.message);
        unsigned long fr = 0;
        cr_expect(sscanf(err.message, "frame %lu", &fr) == 1 && fr >= 7988 && fr <= 8004,
                  "threads %u: %s", t, err.message);
    }
    size_t len = 0;
    char *kept = slurp(p, &len);
    cr_expect(kept && len == 8 && memcmp(kept, "keep me\n", 8) == 0, "the output was replaced");
    free(kept);
    unlink(p);
    pb_bvh_free(&src);
}

/* pb_bvh_resample_estimate: the size the streamed resample then writes,
 * from 16 sampled frames (every line is about as long as the longest of
 * them), and the frame count pb_clip_resample_frames gives. */
Test(bvh_stream, estimate_is_near_the_written_size)
{
    pb_bvh src;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &src, &err), PB_IO_OK);
    static const double rates[] = {24, 120, 480};
    for (int m = 0; m < 3; m++)
        for (size_t r = 0; r < 3; r++) {
            char p[512];
            tmp_path(p, sizeof p, "est");
            pb_bvh_write_opts wo = {(pb_bvh_euler_mode)m, NULL, NULL, 0, 0};
            size_t frames = 0;
            double est = 0.0;
            cr_assert_eq(pb_bvh_resample_estimate(&src, rates[r], 0, &wo, &frames, &est, &err),
                         PB_IO_OK, "%s", err.message);
            pb_clip sc = pb_bvh_clip(&src);
            cr_expect_eq(frames, pb_clip_resample_frames(&sc, rates[r], 0));
            cr_assert_eq(pb_bvh_resample_write_file(&src, rates[r], 0, p, &wo, &err), PB_IO_OK);
            size_t len = 0;
            char *text = slurp(p, &len);
            cr_assert(text);
            free(text);
            unlink(p);
            /* the longest of 16 lines for every line: not below the size,
             * above it by what the longest line has over the mean (18% at
             * 24 and 120 fps on this clip, 2% at 480) */
            cr_expect(est >= 0.98 * (double)len && est <= 1.25 * (double)len,
                      "euler %d at %g fps: estimate %.0f, written %zu", m, rates[r], est, len);
        }
    size_t frames = 7;
    double est = -1.0;
    cr_expect_eq(pb_bvh_resample_estimate(NULL, 60, 0, NULL, &frames, &est, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_resample_estimate(&src, 60, 0, NULL, NULL, &est, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_resample_estimate(&src, -1, 0, NULL, &frames, &est, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_bvh_resample_estimate(&src, 1e300, 0, NULL, &frames, &est, &err),
                 PB_IO_ERR_LIMIT);
    cr_expect(frames == 7 && est == -1.0, "outputs written on errors");
    pb_bvh_free(&src);
}
