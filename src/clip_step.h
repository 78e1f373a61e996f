/* The step of pb_clip_resample in source frames (clip.c), for the library's
 * own callers that place output frames on the source's time line (the BVH
 * loop's root travel, src/io/bvh/bvh_loop.c). Internal to libposebatch. */
#ifndef PB_CLIP_STEP_H
#define PB_CLIP_STEP_H

#include "posebatch.h"

/* 1 / (fps frame_time), snapped to p/q (q <= 64) within 1e-4 relative: BVH
 * files print frame times to 6 or 7 digits (0.008333 is 1/120 to 4e-5), and
 * rates are usually rational. Output frame i samples source frame i * step. */
double pb_clip_step(double frame_time, double fps);

/* pb_clip_resample block by block, for writers that stream its output (the
 * BVH resample-and-write, src/io/bvh/bvh_stream.c): buf has cap + 1 frames of
 * src's joints and tracks; emit(ctx, first, count) is called with output
 * frames first .. first+count-1 in buf's frames 1 .. count (count <= cap), in
 * order, and returns nonzero to stop (then PB_ERR_ARG). The values are
 * bitwise pb_clip_resample's (the same runs; frame 0 of buf carries the
 * previous frame for the unrolling). No velocities. */
typedef struct pb_clip_stream {
    size_t cap; /* >= PB_RUN_MAX (16) */
    int (*emit)(void *ctx, size_t first, size_t count);
    void *ctx;
} pb_clip_stream;
pb_status pb_clip_resample_stream(const pb_clip *src, double fps, unsigned flags, pb_clip *buf,
                                  const pb_clip_stream *stm);

#endif /* PB_CLIP_STEP_H */
