/* Reading clips for the commands (a BVH file or standard input, with the
 * --strict-euler flags and warnings as messages), a joint's channel list as
 * text, new motion over a skeleton, and the resample step with its up-front
 * output size check. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

unsigned cli_read_flags;
pb_bvh_euler_mode cli_euler_mode = PB_BVH_EULER_SOURCE;

static void warn_for(void *ctx, const char *message)
{
    cli_error("%s: warning: %s", (const char *)ctx, message);
}

static int load(const char *path, int require_frames, unsigned flags, pb_bvh *out)
{
    pb_io_error err;
    int dash = cli_is_dash(path); /* "-": standard input */
    if (dash)
        path = "(stdin)";
    pb_bvh_read_opts ro = {cli_read_flags | flags, 0, warn_for, (void *)(uintptr_t)path};
    if ((dash ? pb_bvh_read_stream(stdin, path, &ro, out, &err)
              : pb_bvh_read_file_with(path, &ro, out, &err)) != PB_IO_OK) {
        cli_report_bvh(path, &err);
        return -1;
    }
    return require_frames ? cli_require_frames(path, out) : 0;
}

int cli_require_frames(const char *path, pb_bvh *b)
{
    if (b->num_frames > 0)
        return 0;
    cli_error("%s: the file has no frames", path);
    pb_bvh_free(b);
    return -1;
}

int cli_load(const char *path, int require_frames, pb_bvh *out)
{
    return load(path, require_frames, 0u, out);
}

int cli_load_flags(const char *path, int require_frames, unsigned flags, pb_bvh *out)
{
    return load(path, require_frames, flags, out);
}

int cli_load_header(const char *path, pb_bvh *out)
{
    return load(path, 0, PB_BVH_READ_HEADER_ONLY, out);
}

void cli_channels_str(const pb_bvh_joint *jt, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int c = 0; c < jt->num_channels && n < size; c++) {
        const char *name = pb_bvh_channel_name((pb_bvh_channel)jt->channels[c]);
        int k = snprintf(buf + n, size - n, "%s%s", c ? " " : "", name ? name : "?");
        n += k > 0 ? (size_t)k : 0;
    }
}

int cli_motion_new(const pb_bvh *skel, size_t frames, double frame_time, pb_bvh *out,
                   const char *path)
{
    pb_io_error err;
    if (pb_bvh_new_motion(skel, frames, frame_time, out, &err) != PB_IO_OK) {
        cli_report_bvh(path, &err);
        return -1;
    }
    return 0;
}

int cli_check_size(const char *path, double fps, size_t frames, double bytes, size_t keys)
{
    const double bvh_max = (double)PB_BVH_MAX_FILE_BYTES;
    int beyond_bvh = bytes > bvh_max;
    int out_of_proportion =
        bytes > CLI_SIZE_FLOOR && (double)frames > CLI_FRAMES_PER_KEY * (double)keys;
    if (!beyond_bvh && !out_of_proportion)
        return 0;
    char limit[160];
    if (beyond_bvh)
        snprintf(limit, sizeof limit, "the %.3g GB a BVH file may have", bvh_max / 1e9);
    else
        snprintf(limit, sizeof limit,
                 "the %.3g GB allowed at more than %g frames for each of the input's %zu keys",
                 CLI_SIZE_FLOOR / 1e9, CLI_FRAMES_PER_KEY, keys);
    cli_error("%s: at %g fps the output would be about %.3g GB (%zu frames), more than %s; "
              "nothing written (a lower --fps?)",
              path, fps, bytes / 1e9, frames, limit);
    return -1;
}

/* cli_check_size of the resampled text (the library's estimate from 16
 * output frames spread over the clip, sampled as the resample will:
 * interpolated values print longer than the source's); -1 reported. */
static int too_large(const pb_bvh *src, double fps, unsigned flags, const char *path)
{
    size_t frames = 0;
    double est = 0.0;
    pb_bvh_write_opts wo = {cli_euler_mode, NULL, NULL, 0, 0};
    pb_io_error err;
    if (pb_bvh_resample_estimate(src, fps, flags & PB_CLIP_LOOP, &wo, &frames, &est, &err) !=
        PB_IO_OK)
        return 0; /* the resample itself says what is wrong */
    return cli_check_size(path, fps, frames, est, src->num_frames);
}

int cli_resample_check(const pb_bvh *src, double fps, unsigned flags, const char *path)
{
    pb_clip sc = pb_bvh_clip(src);
    unsigned clip_flags = flags & PB_CLIP_LOOP;
    size_t frames = pb_clip_resample_frames(&sc, fps, clip_flags);
    if (frames == 0) {
        cli_error("%s: cannot resample to %g fps (invalid clip or too many frames)", path, fps);
        return -1;
    }
    return too_large(src, fps, clip_flags, path);
}

int cli_resample(const pb_bvh *src, double fps, unsigned flags, pb_bvh *dst, const char *path)
{
    pb_clip sc = pb_bvh_clip(src);
    unsigned clip_flags = flags & PB_CLIP_LOOP; /* PB_BVH_LOOP_TRAVEL is pb_bvh_resample's */
    size_t frames = pb_clip_resample_frames(&sc, fps, clip_flags);
    if (frames == 0) {
        cli_error("%s: cannot resample to %g fps (invalid clip or too many frames)", path, fps);
        return -1;
    }
    /* refuse an output that the reader would refuse before computing it */
    if (too_large(src, fps, clip_flags, path))
        return -1;
    /* The library's whole-file resample: pb_clip_resample, and the source's
     * Euler angles at the new frames (the writer's default choice among
     * equivalent triples follows them). */
    pb_io_error err;
    if (pb_bvh_resample(src, fps, flags, dst, &err) != PB_IO_OK) {
        cli_report_bvh(path, &err);
        return -1;
    }
    return 0;
}
