/* pb_bvh_resample_write_file: a resample written as it is computed. The
 * Catmull-Rom runs block by block (pb_clip_resample_stream: the same runs
 * and values as pb_clip_resample), each block's source angles are
 * interpolated (bvh_resample_angles_range) and the writer formats it
 * (bvh_write_fed): the output clip never exists whole. */
#include "bvh_internal.h"
#include "clip_step.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Output frames per block: the block's arrays (40 bytes per joint-sample,
 * with the source angles) stay within a few hundred kilobytes for a
 * skeleton's joints, and a block is long enough that the per-block work is
 * noise. */
#define STREAM_SAMPLES ((size_t)8192)

typedef struct stream {
    const pb_bvh *src;
    double fps, step;
    unsigned flags;
    size_t cap;
    pb_bvh block; /* the block's view for the writer (motion arrays below) */
    pb_clip buf;  /* cap + 1 frames: slot 0 the previous frame */
    float *mem;
    double *deg; /* cap frames of source angles, or NULL */
    signed char *dec;
    /* the writer's side, during run */
    bvh_deliver_fn deliver;
    void *wctx;
    pb_bvh_error *err;
    pb_bvh_code rc;
} stream;

static int emit(void *ctx, size_t first, size_t count)
{
    stream *S = ctx;
    const size_t J = S->src->num_joints;
    if (S->deg)
        bvh_resample_angles_range(S->src, (S->flags & PB_CLIP_LOOP) != 0, S->step, first, count,
                                  S->deg, S->dec);
    pb_bvh *b = &S->block;
    b->num_frames = count;
    b->rot_w = S->buf.rot.w + J; /* slot 1: the block's first frame */
    b->rot_x = S->buf.rot.x + J;
    b->rot_y = S->buf.rot.y + J;
    b->rot_z = S->buf.rot.z + J;
    b->pos_x = S->buf.pos.x + J;
    b->pos_y = S->buf.pos.y + J;
    b->pos_z = S->buf.pos.z + J;
    b->euler_deg = S->deg;
    b->decimals = S->dec;
    S->rc = S->deliver(S->wctx, b, first, S->err);
    return S->rc != PB_BVH_OK;
}

static pb_bvh_code run(void *ctx, bvh_deliver_fn deliver, void *wctx, pb_bvh_error *err)
{
    stream *S = ctx;
    S->deliver = deliver;
    S->wctx = wctx;
    S->err = err;
    S->rc = PB_BVH_OK;
    pb_clip sc = pb_bvh_clip(S->src);
    pb_status st =
        pb_clip_resample_stream(&sc, S->fps, S->flags, &S->buf, &(pb_clip_stream){S->cap, emit, S});
    if (S->rc != PB_BVH_OK)
        return S->rc;
    if (st != PB_OK)
        return bvh_set_err(err, st == PB_ERR_NOMEM ? PB_BVH_ERR_NOMEM : PB_BVH_ERR_ARG, 0,
                           "resampling failed: %s", pb_status_str(st));
    return PB_BVH_OK;
}

/* The frames the whole-clip writer would estimate a line from (16 spread
 * over the output), sampled, with their source angles: *probe (its own
 * motion; release with pb_bvh_free). */
static pb_bvh_code probe_frames(const pb_bvh *src, double fps, unsigned flags, size_t frames,
                                pb_bvh *probe, pb_bvh_error *err)
{
    enum { N = 16 };
    const size_t n = frames < N ? frames : N, J = src->num_joints, C = src->num_channels;
    const double step = (1.0 / fps) / src->frame_time; /* as pb_bvh_resample_angles */
    pb_bvh_code rc = pb_bvh_new_motion(src, n, 1.0 / fps, probe, err);
    if (rc != PB_BVH_OK)
        return rc;
    size_t g[N];
    double times[N];
    for (size_t i = 0; i < n; i++) {
        g[i] = n > 1 ? i * (frames - 1) / (n - 1) : 0;
        times[i] = (double)g[i] * step * src->frame_time;
    }
    pb_clip sc = pb_bvh_clip(src), pc = pb_bvh_clip(probe);
    if (pb_clip_sample(&sc, n, times, flags & PB_CLIP_LOOP, &pc, NULL) != PB_OK)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "resampling failed");
    if (src->euler_deg && src->decimals) {
        probe->euler_deg = malloc(3 * n * J * sizeof *probe->euler_deg);
        probe->decimals = malloc(n * (C ? C : 1));
        if (!probe->euler_deg || !probe->decimals)
            return bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
        for (size_t i = 0; i < n; i++)
            bvh_resample_angles_range(src, (flags & PB_CLIP_LOOP) != 0, step, g[i], 1,
                                      probe->euler_deg + 3 * i * J, probe->decimals + i * C);
    }
    return PB_BVH_OK;
}

/* the output's frame count for pb_bvh_resample_write_file's arguments
 * (checked by bvh_resample_args), or the error */
static pb_bvh_code out_frames(const pb_bvh *src, double fps, unsigned flags, size_t *frames,
                              pb_bvh_error *err)
{
    pb_bvh_code rc = bvh_resample_frames(src, fps, flags, frames, err);
    return rc != PB_BVH_OK ? rc : bvh_validate(src, err);
}

pb_bvh_code pb_bvh_resample_estimate(const pb_bvh *src, double fps, unsigned flags,
                                     const pb_bvh_write_opts *opts, size_t *frames, double *bytes,
                                     pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!src || !frames || !bytes)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "%s is NULL",
                           !src      ? "src"
                           : !frames ? "frames"
                                     : "bytes");
    pb_bvh_code rc = bvh_resample_args(src, fps, flags, err);
    size_t n = 0;
    if (rc == PB_BVH_OK)
        rc = out_frames(src, fps, flags, &n, err);
    if (rc != PB_BVH_OK)
        return rc;
    pb_bvh probe;
    memset(&probe, 0, sizeof probe);
    double est = 0.0;
    rc = probe_frames(src, fps, flags, n, &probe, err);
    if (rc == PB_BVH_OK)
        rc = pb_bvh_estimate_bytes(&probe, n, opts, &est, err);
    pb_bvh_free(&probe);
    if (rc == PB_BVH_OK) {
        *frames = n;
        *bytes = est;
    }
    return rc;
}

typedef struct file_ctx {
    const pb_bvh *head, *src;
    const pb_bvh_write_opts *opts;
    bvh_feed feed;
} file_ctx;

static pb_bvh_code write_cb(FILE *f, void *ctx, pb_bvh_error *err)
{
    const file_ctx *c = ctx;
    return bvh_write_fed(f, c->head, c->src, c->opts, &c->feed, err);
}

/* materialised: pb_bvh_resample, then the whole-clip writer */
static pb_bvh_code whole(const pb_bvh *src, double fps, unsigned flags, const char *path,
                         const pb_bvh_write_opts *opts, pb_bvh_error *err)
{
    pb_bvh out;
    memset(&out, 0, sizeof out);
    pb_bvh_code rc = pb_bvh_resample(src, fps, flags, &out, err);
    if (rc == PB_BVH_OK)
        rc = pb_bvh_write_file_with(path, &out, opts, err);
    pb_bvh_free(&out);
    return rc;
}

pb_bvh_code pb_bvh_resample_write_file(const pb_bvh *src, double fps, unsigned flags,
                                       const char *path, const pb_bvh_write_opts *opts,
                                       pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!src || !path || !path[0])
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "%s is NULL or empty", src ? "path" : "src");
    pb_bvh_code rc = bvh_resample_args(src, fps, flags, err);
    if (rc != PB_BVH_OK)
        return rc;
    if (flags & PB_BVH_LOOP_TRAVEL)
        return whole(src, fps, flags, path, opts, err);
    const size_t J = src->num_joints, C = src->num_channels;
    size_t frames = 0;
    rc = out_frames(src, fps, flags, &frames, err);
    if (rc)
        return rc;
    stream S;
    memset(&S, 0, sizeof S);
    S.src = src;
    S.fps = fps;
    S.flags = flags;
    S.step = (1.0 / fps) / src->frame_time; /* as pb_bvh_resample_angles */
    /* with threads, blocks they can share (a part of at least a few dozen
     * frames each) */
    const unsigned th = opts && opts->threads > 1 ? (opts->threads < 8 ? opts->threads : 8) : 1;
    const size_t samples = th > 1 ? 4 * th * STREAM_SAMPLES : STREAM_SAMPLES;
    S.cap = samples / J > PB_RUN_MAX ? samples / J : PB_RUN_MAX;
    if (S.cap > frames)
        S.cap = frames > PB_RUN_MAX ? frames : PB_RUN_MAX;
    const size_t slots = (S.cap + 1) * J;
    S.mem = malloc(7 * slots * sizeof(float));
    const int angles = src->euler_deg && src->decimals;
    if (angles) {
        S.deg = malloc(3 * S.cap * J * sizeof *S.deg);
        S.dec = malloc(S.cap * (C ? C : 1));
    }
    if (!S.mem || (angles && (!S.deg || !S.dec))) {
        free(S.mem);
        free(S.deg);
        free(S.dec);
        return bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory for %zu frames", S.cap);
    }
    float *m = S.mem;
    S.buf.frames = S.cap + 1;
    S.buf.joints = J;
    S.buf.frame_time = 1.0 / fps;
    S.buf.rot = (pb_quats){m, m + slots, m + 2 * slots, m + 3 * slots};
    S.buf.pos = (pb_vec3s){m + 4 * slots, m + 5 * slots, m + 6 * slots};
    /* the header: src's skeleton, the output's frame count and time */
    pb_bvh head = *src;
    head.num_frames = frames;
    head.frame_time = 1.0 / fps;
    head.euler_deg = NULL;
    head.decimals = NULL;
    S.block = head;
    pb_bvh probe;
    memset(&probe, 0, sizeof probe);
    rc = probe_frames(src, fps, flags, frames, &probe, err);
    file_ctx c = {&head, &probe, opts, {run, &S}};
    if (rc == PB_BVH_OK)
        rc = pb_io_write_file_cb(path, write_cb, &c, err);
    pb_bvh_free(&probe);
    free(S.mem);
    free(S.deg);
    free(S.dec);
    return rc;
}
