/* Resample a BVH file with the installed library: resample_file IN.bvh FPS OUT.bvh */
#include <posebatch/io.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4)
        return fprintf(stderr, "usage: %s IN.bvh FPS OUT.bvh\n", argv[0]), 2;
    pb_bvh in = {0}, out = {0};
    pb_io_error err;
    int failed = pb_bvh_read_file(argv[1], &in, &err) ||
                 pb_bvh_resample(&in, atof(argv[2]), 0, &out, &err) ||
                 pb_bvh_write_file(argv[3], &out, &err);
    if (failed)
        fprintf(stderr, "%s: %s\n", argv[0], err.message); /* "line 12: ..." */
    pb_bvh_free(&in);
    pb_bvh_free(&out);
    return failed;
}
