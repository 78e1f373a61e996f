/* The step of pb_clip_resample in source frames (clip.c), for the library's
 * own callers that place output frames on the source's time line (the BVH
 * loop's root travel, src/io/bvh/bvh_loop.c). Internal to libposebatch. */
#ifndef PB_CLIP_STEP_H
#define PB_CLIP_STEP_H

/* 1 / (fps frame_time), snapped to p/q (q <= 64) within 1e-4 relative: BVH
 * files print frame times to 6 or 7 digits (0.008333 is 1/120 to 4e-5), and
 * rates are usually rational. Output frame i samples source frame i * step. */
double pb_clip_step(double frame_time, double fps);

#endif /* PB_CLIP_STEP_H */
