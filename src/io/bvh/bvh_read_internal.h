/* The BVH reader's pieces shared by its files (internal to them): the parser
 * state, the reader's limits, and the two sections' parsers. bvh_read.c
 * checks the input and drives them; bvh_read_skeleton.c reads HIERARCHY,
 * bvh_read_motion.c MOTION. */
#ifndef PB_IO_BVH_READ_INTERNAL_H
#define PB_IO_BVH_READ_INTERNAL_H

#include "bvh_internal.h"

#include <stdarg.h>
#include <stdio.h>

/* The reader's limits, in one place (include/posebatch/io.h documents them). */
#define MAX_RATE BVH_MAX_RATE           /* frames per second: Frame Time >= 1 / MAX_RATE */
#define MAX_ANGLE_DEG BVH_MAX_ANGLE_DEG /* |rotation channel| in degrees */
#define ELEMS_SLACK READ_ELEMS_SLACK    /* frames * joints <= motion bytes + this */
#define MAX_WARNINGS 20                 /* further warnings of one kind are summarised */

typedef struct parser {
    bvh_lexer lx;
    pb_bvh_error *err;
    const pb_bvh_read_opts *opts; /* may be NULL */

    pb_bvh_joint *joints;
    uint32_t *name_off;
    size_t nj, capj, capn;
    char *pool;
    size_t pool_len, pool_cap;
    pb_bvh_end_site *ends;
    size_t ne, cape;
    size_t nchan;
} parser;

/* Reads HIERARCHY up to and including the MOTION keyword into out's skeleton
 * (joints, end sites, channels, names), then checks the joint names for
 * repeats (bvh_read_skeleton.c). On failure nothing is left allocated (out is
 * freed). */
pb_bvh_code bvh_read_skeleton(parser *P, pb_bvh *out);

/* Reads the rest, the MOTION section (Frames:, Frame Time:, the data lines),
 * into out, whose skeleton is read (bvh_read_motion.c). On failure the caller
 * frees out. */
pb_bvh_code bvh_read_motion(parser *P, pb_bvh *out);

/* Passes a warning to the caller's callback, if any (here, in line: the
 * driver, bvh_read.c, and the sections it calls all warn). */
static inline void bvh_read_warn(parser *P, const char *fmt, ...) PB_PRINTF(2, 3);
static inline void bvh_read_warn(parser *P, const char *fmt, ...)
{
    if (!P->opts || !P->opts->warn)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    P->opts->warn(P->opts->warn_ctx, msg);
}

#endif /* PB_IO_BVH_READ_INTERNAL_H */
