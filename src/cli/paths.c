/* Paths the commands are given: "-" (standard input as an input, standard
 * output as -o), whether an output is an input under another name (device
 * and inode), directories, and an output's name from its input's. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

int cli_is_dash(const char *path) { return path && strcmp(path, "-") == 0; }

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

int cli_same_file(const char *out, const char *in)
{
    /* Device and inode: catches the same file under another spelling, through
     * symbolic links and hard links alike. */
    struct stat so, si;
    return stat(out, &so) == 0 && stat(in, &si) == 0 && so.st_dev == si.st_dev &&
           so.st_ino == si.st_ino;
}

int cli_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
