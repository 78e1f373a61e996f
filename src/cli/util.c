/* Messages, progress, file loading and pb_bvh <-> pb_clip plumbing shared by
 * the commands. */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* One lock for stderr: workers report errors while the main thread may be
 * redrawing the progress line. */
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static int progress_shown; /* a progress line without newline is on screen */

static void clear_progress_locked(void)
{
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        progress_shown = 0;
    }
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&err_lock);
    clear_progress_locked();
    fputs("posebatch: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    pthread_mutex_unlock(&err_lock);
    va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "posebatch%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'posebatch%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    va_end(ap);
    return CLI_USAGE;
}

static int progress_tty = -1; /* stderr is a terminal (-1: not asked yet) */

/* Under err_lock. */
static int progress_on_locked(void)
{
    if (progress_tty < 0)
        progress_tty = isatty(STDERR_FILENO);
    return progress_tty;
}

void cli_progress(size_t done, size_t total, const char *name)
{
    pthread_mutex_lock(&err_lock);
    if (progress_on_locked()) {
        fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, name);
        fflush(stderr);
        progress_shown = 1;
    }
    pthread_mutex_unlock(&err_lock);
}

void cli_progress_frames(void *ctx, size_t done, size_t total)
{
    cli_file_progress *fp = ctx;
    if (total == 0 || done > total)
        return;
    int pct = (int)(done * 100 / total);
    if (pct == fp->pct) /* redraw only when the number changes */
        return;
    fp->pct = pct;
    pthread_mutex_lock(&err_lock);
    if (progress_on_locked()) {
        fprintf(stderr, "\r\033[K[%zu/%zu] %s %d%%", fp->index, fp->total, fp->name, pct);
        fflush(stderr);
        progress_shown = 1;
    }
    pthread_mutex_unlock(&err_lock);
}

void cli_progress_end(void)
{
    pthread_mutex_lock(&err_lock);
    if (progress_shown)
        fputc('\n', stderr);
    progress_shown = 0;
    pthread_mutex_unlock(&err_lock);
}

void cli_report_bvh(const char *path, const pb_bvh_error *err)
{
    /* I/O messages already start with the path. */
    size_t n = strlen(path);
    if (strncmp(err->message, path, n) == 0 && err->message[n] == ':')
        cli_error("%s", err->message);
    else
        cli_error("%s: %s", path, err->message[0] ? err->message : pb_bvh_code_str(err->code));
}

void cli_report_status(const char *path, const char *what, pb_status st)
{
    cli_error("%s: %s: %s", path, what, pb_status_str(st));
}

unsigned cli_read_flags;
pb_bvh_euler_mode cli_euler_mode = PB_BVH_EULER_SOURCE;

static void warn_for(void *ctx, const char *message)
{
    cli_error("%s: warning: %s", (const char *)ctx, message);
}

static int load(const char *path, int require_frames, unsigned flags, pb_bvh *out)
{
    pb_bvh_error err;
    int dash = cli_is_dash(path); /* "-": standard input */
    if (dash)
        path = "(stdin)";
    pb_bvh_read_opts ro = {cli_read_flags | flags, 0, warn_for, (void *)(uintptr_t)path};
    if ((dash ? pb_bvh_read_stream(stdin, path, &ro, out, &err)
              : pb_bvh_read_file_with(path, &ro, out, &err)) != PB_BVH_OK) {
        cli_report_bvh(path, &err);
        return -1;
    }
    if (require_frames && out->num_frames == 0) {
        cli_error("%s: the file has no frames", path);
        pb_bvh_free(out);
        return -1;
    }
    return 0;
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
    pb_bvh_error err;
    if (pb_bvh_new_motion(skel, frames, frame_time, out, &err) != PB_BVH_OK) {
        cli_report_bvh(path, &err);
        return -1;
    }
    return 0;
}

/* 1 (reported) when the resampled text would pass the reader's size limit. */
static int too_large(const pb_bvh *src, const pb_clip *sc, double fps, unsigned flags,
                     size_t frames, const char *path)
{
    enum { N = 16 };
    double times[N];
    size_t n = frames < N ? frames : N;
    for (size_t i = 0; i < n; i++)
        times[i] = (double)(n > 1 ? i * (frames - 1) / (n - 1) : 0) / fps;
    pb_bvh probe;
    if (cli_motion_new(src, n, 1.0 / fps, &probe, path))
        return 1;
    pb_clip pc = pb_bvh_clip(&probe);
    double est = 0.0;
    pb_bvh_write_opts wo = {cli_euler_mode, NULL, NULL, 0};
    pb_bvh_error err;
    int big = pb_clip_sample(sc, n, times, flags, &pc, NULL) == PB_OK &&
              pb_bvh_estimate_bytes(&probe, frames, &wo, &est, &err) == PB_BVH_OK &&
              est > (double)PB_BVH_MAX_FILE_BYTES;
    pb_bvh_free(&probe);
    if (big)
        cli_error("%s: at %g fps the output would be about %.2f GB (%zu frames), more than the "
                  "%.2f GB a BVH file may have; nothing written (a lower --fps?)",
                  path, fps, est / 1e9, frames, (double)PB_BVH_MAX_FILE_BYTES / 1e9);
    return big;
}

int cli_resample(const pb_bvh *src, double fps, unsigned flags, pb_bvh *dst, const char *path)
{
    pb_clip sc = pb_bvh_clip(src);
    size_t frames = pb_clip_resample_frames(&sc, fps, flags);
    if (frames == 0) {
        cli_error("%s: cannot resample to %g fps (invalid clip or too many frames)", path, fps);
        return -1;
    }
    /* Refuse an output that the reader would refuse before computing it:
     * estimated from 16 output frames spread over the clip, sampled as the
     * resample will (interpolated values print longer than the source's). */
    if (too_large(src, &sc, fps, flags, frames, path))
        return -1;
    /* The library's whole-file resample: pb_clip_resample, and the source's
     * Euler angles at the new frames (the writer's default choice among
     * equivalent triples follows them). */
    pb_bvh_error err;
    if (pb_bvh_resample(src, fps, flags, dst, &err) != PB_BVH_OK) {
        cli_report_bvh(path, &err);
        return -1;
    }
    return 0;
}

int cli_same_file(const char *out, const char *in)
{
    /* Device and inode: catches the same file under another spelling, through
     * symbolic links and hard links alike. */
    struct stat so, si;
    return stat(out, &so) == 0 && stat(in, &si) == 0 && so.st_dev == si.st_dev &&
           so.st_ino == si.st_ino;
}

int cli_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
