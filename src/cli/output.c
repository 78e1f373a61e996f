/* Writing a BVH result: "-o -" is standard output; everything else is a
 * file written by pb_bvh_write_file_with (see src/io/file_write.c for what an
 * existing output path may be), with the command's --euler choice; and text
 * outputs (CSVs) by the same rules through pb_io_write_file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_write(const char *out, const pb_bvh *b, const pb_bvh_write_opts *given)
{
    pb_io_error err;
    pb_bvh_write_opts o = {PB_BVH_EULER_SOURCE, NULL, NULL, 0, 0};
    if (given)
        o = *given;
    o.euler = cli_euler_mode; /* --euler */
    const pb_bvh_write_opts *opts = &o;
    if (cli_is_dash(out)) {
        if (pb_bvh_write_stream_with(stdout, b, opts, &err) != PB_IO_OK) {
            cli_report_bvh("(stdout)", &err);
            return -1;
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            cli_error("(stdout): write error");
            return -1;
        }
        return 0;
    }
    if (pb_bvh_write_file_with(out, b, opts, &err) != PB_IO_OK) {
        cli_report_bvh(out, &err);
        return -1;
    }
    return 0;
}

typedef struct text_ctx {
    int (*fn)(FILE *f, void *ctx);
    void *ctx;
    int failed; /* fn reported its own error */
} text_ctx;

static pb_io_code write_text_cb(FILE *f, void *vctx, pb_io_error *err)
{
    text_ctx *t = vctx;
    if (t->fn(f, t->ctx)) {
        t->failed = 1;
        err->code = PB_IO_ERR_ARG;
        err->message[0] = '\0';
        return PB_IO_ERR_ARG;
    }
    if (fflush(f) != 0 || ferror(f)) {
        err->code = PB_IO_ERR_IO;
        snprintf(err->message, sizeof err->message, "write error: %s",
                 strerror(errno ? errno : EIO));
        return PB_IO_ERR_IO;
    }
    return PB_IO_OK;
}

int cli_write_text(const char *path, int (*fn)(FILE *f, void *ctx), void *ctx)
{
    text_ctx t = {fn, ctx, 0};
    pb_io_error err;
    memset(&err, 0, sizeof err);
    if (cli_is_dash(path)) {
        if (write_text_cb(stdout, &t, &err) == PB_IO_OK)
            return 0;
        if (!t.failed)
            cli_report_bvh("(stdout)", &err);
        return -1;
    }
    if (pb_io_write_file(path, write_text_cb, &t, &err) == PB_IO_OK)
        return 0;
    if (!t.failed)
        cli_report_bvh(path, &err);
    return -1;
}

void cli_csv_name(FILE *f, const char *name, const char *suffix)
{
    fputc(',', f);
    if (strpbrk(name, ",\"")) {
        fputc('"', f);
        for (const char *c = name; *c; c++) {
            if (*c == '"')
                fputc('"', f);
            fputc(*c, f);
        }
        fputs(suffix, f);
        fputc('"', f);
    } else {
        fputs(name, f);
        fputs(suffix, f);
    }
}
