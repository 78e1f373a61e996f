/* posebatch/io_error.h — part of posebatch/io.h (see there): what every
 * function of the file API returns, and the output rules of its writers. */
#ifndef POSEBATCH_IO_ERROR_H
#define POSEBATCH_IO_ERROR_H

#include <stdio.h>

#include "../posebatch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What kind of failure (pb_io_code_str names it); 0 is success. Every
 * function of the file API, BVH, glTF and the formats table alike, returns
 * one and fills a pb_io_error. */
typedef enum pb_io_code {
    PB_IO_OK = 0,
    PB_IO_ERR_IO = 1,     /* open/read/write/rename failed (message has the OS reason) */
    PB_IO_ERR_SYNTAX = 2, /* malformed file: unexpected token, braces, keywords; not that format */
    PB_IO_ERR_VALUE = 3,  /* a number that is not one, or out of range */
    PB_IO_ERR_LIMIT = 4,  /* absurd counts: frames, channels, depth, joints, size */
    PB_IO_ERR_MOTION = 5, /* data lines disagree with Frames / channel count */
    PB_IO_ERR_NOMEM = 6,  /* allocation failed */
    PB_IO_ERR_ARG = 7     /* invalid argument or inconsistent in-memory data */
} pb_io_code;

typedef struct pb_io_error {
    pb_io_code code;
    long line; /* 1-based line of the problem, 0 if not about a line */
    /* "line N: ..." (or "PATH: reason" for I/O errors). Room for a PATH_MAX
     * path and the text after it; an I/O message whose path would not fit
     * with its reason leaves the path out rather than cut the reason. */
    char message[4096 + 256];
} pb_io_error;

/* The names of the release before, when the file API read BVH only: the
 * same types and values, kept for one release. */
typedef pb_io_code pb_bvh_code;
typedef pb_io_error pb_bvh_error;
#define PB_BVH_OK PB_IO_OK
#define PB_BVH_ERR_IO PB_IO_ERR_IO
#define PB_BVH_ERR_SYNTAX PB_IO_ERR_SYNTAX
#define PB_BVH_ERR_VALUE PB_IO_ERR_VALUE
#define PB_BVH_ERR_LIMIT PB_IO_ERR_LIMIT
#define PB_BVH_ERR_MOTION PB_IO_ERR_MOTION
#define PB_BVH_ERR_NOMEM PB_IO_ERR_NOMEM
#define PB_BVH_ERR_ARG PB_IO_ERR_ARG

/* Short name of a code ("syntax error", ...); never NULL. pb_bvh_code_str:
 * the same, its name of the release before. */
PB_API const char *pb_io_code_str(pb_io_code code);
PB_API const char *pb_bvh_code_str(pb_io_code code);

/* Writes a file of any content (a CSV, an array) by the output-path rules of
 * the BVH and glTF writers: fn writes the whole content to f and returns
 * PB_IO_OK or a code it has put in err (with its message); the bytes go to
 * a temporary file in the target's directory, flushed, synced and renamed
 * over path (a symbolic link's target is replaced, the link kept; a
 * character device or FIFO is written through; a directory, socket or block
 * device is refused, PB_IO_ERR_IO). On any error, fn's included, nothing
 * replaces path. The temporary is registered for
 * pb_io_unlink_temporaries. */
typedef pb_io_code (*pb_io_write_fn)(FILE *f, void *ctx, pb_io_error *err);
PB_API pb_io_code pb_io_write_file(const char *path, pb_io_write_fn fn, void *ctx,
                                   pb_io_error *err);

/* Removes every temporary file the writers are writing at this moment (the
 * atomic pb_bvh_write_file*), for a signal handler that is about to end the
 * process: async-signal-safe, keeps errno. Returns how many were removed. */
PB_API int pb_io_unlink_temporaries(void);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_IO_ERROR_H */
