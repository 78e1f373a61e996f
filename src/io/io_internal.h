/* The format-neutral layer of src/io (internal, hidden in libposebatch; the
 * contract is include/posebatch/io.h): error reporting into a pb_io_error,
 * and file output with the output-path rules every format shares
 * (file_write.c). Formats live in bvh/ and gltf/ and build on this; nothing
 * here knows a format. File input rules: file_read.h. */
#ifndef PB_IO_INTERNAL_H
#define PB_IO_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "posebatch/io.h"

#if defined(__GNUC__) || defined(__clang__)
#define PB_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PB_PRINTF(a, b)
#endif

/* PB_IO_ERR_NOMEM, "out of memory" (io_error.c) */
pb_io_code io_nomem(pb_io_error *err);
/* Fills *err (when not NULL): "line N: " (line > 0) and the message; returns
 * code (io_error.c). */
pb_io_code io_set_err(pb_io_error *err, pb_io_code code, long line, const char *fmt, ...)
    PB_PRINTF(4, 5);
void io_clear_err(pb_io_error *err);
/* "path: reason" (line 0), or only the reason when the path would not leave
 * room for it: a message never cuts the reason. */
pb_io_code io_path_err(pb_io_error *err, pb_io_code code, const char *path, const char *fmt, ...)
    PB_PRINTF(4, 5);

/* Writes through fn (which writes the whole content to f, returns PB_IO_OK
 * or an error it has put in err) with the output-path rules of
 * pb_bvh_write_file: atomic replace through a registered temporary,
 * links followed, devices and FIFOs written through, others refused
 * (file_write.c). */
typedef pb_io_code (*pb_io_writer)(FILE *f, void *ctx, pb_io_error *err);
pb_io_code pb_io_write_file_cb(const char *path, pb_io_writer fn, void *ctx, pb_io_error *err);

#endif /* PB_IO_INTERNAL_H */
