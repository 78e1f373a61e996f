/* Errors of the file API (io_internal.h): messages into a pb_io_error and
 * the codes' names. */
#include "io_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

pb_io_code io_set_err(pb_io_error *err, pb_io_code code, long line, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->line = line;
    size_t n = 0;
    if (line > 0) {
        int k = snprintf(err->message, sizeof err->message, "line %ld: ", line);
        n = k > 0 ? (size_t)k : 0;
        if (n >= sizeof err->message)
            n = sizeof err->message - 1;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + n, sizeof err->message - n, fmt, ap);
    va_end(ap);
    return code;
}

pb_io_code io_path_err(pb_io_error *err, pb_io_code code, const char *path, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (!err)
        return code;
    if (strlen(path) + 2 + strlen(why) < sizeof err->message)
        return io_set_err(err, code, 0, "%s: %s", path, why);
    return io_set_err(err, code, 0, "%s", why); /* the reason, never cut */
}

void io_clear_err(pb_io_error *err)
{
    if (err) {
        err->code = PB_IO_OK;
        err->line = 0;
        err->message[0] = '\0';
    }
}

const char *pb_io_code_str(pb_io_code code)
{
    switch (code) {
    case PB_IO_OK: return "ok";
    case PB_IO_ERR_IO: return "I/O error";
    case PB_IO_ERR_SYNTAX: return "syntax error";
    case PB_IO_ERR_VALUE: return "invalid value";
    case PB_IO_ERR_LIMIT: return "limit exceeded";
    case PB_IO_ERR_MOTION: return "motion data mismatch";
    case PB_IO_ERR_NOMEM: return "out of memory";
    case PB_IO_ERR_ARG: return "invalid argument";
    }
    return "unknown error";
}

const char *pb_bvh_code_str(pb_io_code code) { return pb_io_code_str(code); }

pb_io_code io_nomem(pb_io_error *err)
{
    return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory");
}
