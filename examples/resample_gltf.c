/* Resample a glTF file's animations with the installed library: resample_gltf IN.glb FPS OUT.glb */
#include <posebatch/io.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    pb_gltf in = {0}, out = {0};
    pb_io_error err;
    if (argc != 4)
        return fprintf(stderr, "usage: %s IN.glb FPS OUT.glb\n", argv[0]), 2;
    int failed = pb_gltf_read_file(argv[1], &in, &err) ||
                 pb_gltf_resample(&in, atof(argv[2]), 0, &out, &err) ||
                 pb_gltf_write_file(argv[3], &out, &err);
    if (failed)
        fprintf(stderr, "%s: %s\n", argv[0], err.message);
    pb_gltf_free(&in);
    pb_gltf_free(&out);
    return failed;
}
