/* Writing a BVH result: "-o -" is standard output; everything else is a
 * file written by pb_bvh_write_file_with (see src/io/file_write.c for what an
 * existing output path may be), with the command's --euler choice. */
#include <stdio.h>

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
