/* Where results go: "-" as an input is standard input, "-o -" standard
 * output; everything else is a file written by pb_bvh_write_file_with (see
 * src/io/bvh_file.c for what an existing output path may be). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_is_dash(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

int cli_check_dash(const cli_opts *o, int several_outputs_ok)
{
    size_t dashes = 0;
    for (size_t i = 0; i < o->num_inputs; i++)
        dashes += cli_is_dash(o->inputs[i]) ? 1u : 0u;
    if (dashes > 1)
        return cli_usage_error(o->cmd, "standard input ('-') can be read only once");
    if (several_outputs_ok && cli_is_dash(o->out) && o->num_inputs > 1)
        return cli_usage_error(o->cmd, "-o - (standard output) takes a single input");
    return CLI_OK;
}

int cli_same_output(const char *out, const char *in)
{
    return !cli_is_dash(out) && !cli_is_dash(in) && cli_same_file(out, in);
}

const char *cli_output_name(const char *in)
{
    if (cli_is_dash(in))
        return "stdin.bvh";
    const char *s = strrchr(in, '/');
    return s ? s + 1 : in;
}

int cli_write(const char *out, const pb_bvh *b, const pb_bvh_write_opts *given)
{
    pb_bvh_error err;
    pb_bvh_write_opts o = {PB_BVH_EULER_SOURCE, NULL, NULL, 0};
    if (given)
        o = *given;
    o.euler = cli_euler_mode; /* --euler */
    const pb_bvh_write_opts *opts = &o;
    if (cli_is_dash(out)) {
        if (pb_bvh_write_stream_with(stdout, b, opts, &err) != PB_BVH_OK) {
            cli_report_bvh("(stdout)", &err);
            return -1;
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            cli_error("(stdout): write error");
            return -1;
        }
        return 0;
    }
    if (pb_bvh_write_file_with(out, b, opts, &err) != PB_BVH_OK) {
        cli_report_bvh(out, &err);
        return -1;
    }
    return 0;
}
