/* AMASS (SMPL-H .npz) inputs of the CLI: read with the rest joint positions
 * the user gives (--rest FILE.npy), for `features` and `convert` (which
 * call this file; it calls none of theirs). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

int cli_is_npz(const char *path)
{
    struct stat st;
    if (cli_is_dash(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        /* not read here (a FIFO, a device): by its name */
        return cli_has_ext(path, ".npz");
    }
    unsigned char head[4] = {0};
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, 4, f) : 0;
    if (f)
        fclose(f);
    return got == 4 && memcmp(head, "PK\x03\x04", 4) == 0;
}

int cli_load_amass(const char *path, const char *rest, pb_bvh *out)
{
    if (!rest) {
        cli_error("%s: an .npz (AMASS) input needs its rest joint positions: --rest FILE.npy",
                  path);
        return -1;
    }
    pb_io_error err;
    if (pb_amass_read_file(path, rest, out, &err) != PB_IO_OK) {
        cli_report_bvh(path, &err);
        return -1;
    }
    return 0;
}

static int take_rest(void *ctx, int which, char *val)
{
    (void)which;
    *(const char **)ctx = val;
    return CLI_OK;
}

int cli_take_rest(const char *cmd, int *argc, char **argv, const char **rest)
{
    static const char *const names[] = {"--rest="};
    return cli_take_own(cmd, argc, argv, names, 1, take_rest, (void *)rest);
}
