/* The glTF API in a build without jansson (a cross build without the host's
 * libjansson-dev): every function fails saying so, so that the library
 * exports the same symbols everywhere. */
#include "io_internal.h"

#include <string.h>

static pb_io_code none(pb_io_error *err)
{
    return io_set_err(err, PB_IO_ERR_ARG, 0,
                      "glTF support is not built in (posebatch was built without jansson)");
}

pb_io_code pb_gltf_read_file(const char *path, pb_gltf *out, pb_io_error *err)
{
    (void)path;
    if (out)
        memset(out, 0, sizeof *out);
    return none(err);
}

pb_io_code pb_gltf_read_memory(const void *data, size_t size, const char *base_dir, pb_gltf *out,
                               pb_io_error *err)
{
    (void)data, (void)size, (void)base_dir;
    if (out)
        memset(out, 0, sizeof *out);
    return none(err);
}

void pb_gltf_free(pb_gltf *g)
{
    if (g)
        memset(g, 0, sizeof *g);
}

pb_io_code pb_gltf_sample(const pb_gltf *g, size_t anim, size_t num_times, const float *times,
                          float *values, pb_io_error *err)
{
    (void)g, (void)anim, (void)num_times, (void)times, (void)values;
    return none(err);
}

pb_io_code pb_gltf_resample(const pb_gltf *src, double fps, unsigned flags, pb_gltf *out,
                            pb_io_error *err)
{
    (void)src, (void)fps, (void)flags, (void)out;
    return none(err);
}

pb_io_code pb_gltf_write_file(const char *path, const pb_gltf *g, pb_io_error *err)
{
    (void)path, (void)g;
    return none(err);
}

pb_io_code pb_gltf_write_stream(FILE *f, const pb_gltf *g, int binary, pb_io_error *err)
{
    (void)f, (void)g, (void)binary;
    return none(err);
}

pb_io_code pb_gltf_from_bvh(const pb_bvh *bvh, pb_gltf *out, pb_io_error *err)
{
    (void)bvh;
    if (out)
        memset(out, 0, sizeof *out);
    return none(err);
}

pb_io_code pb_gltf_to_bvh(const pb_gltf *g, long skin, size_t anim, double frame_time, pb_bvh *out,
                          pb_io_error *err)
{
    (void)g, (void)skin, (void)anim, (void)frame_time, (void)out;
    return none(err);
}

pb_io_code pb_gltf_to_bvh_estimate(const pb_gltf *g, long skin, size_t anim, double frame_time,
                                   size_t *frames, double *frame_time_out, double *bytes,
                                   pb_io_error *err)
{
    (void)g, (void)skin, (void)anim, (void)frame_time, (void)frames, (void)frame_time_out,
        (void)bytes;
    return none(err);
}

long pb_gltf_default_skin(const pb_gltf *g)
{
    (void)g;
    return -1;
}

pb_io_code pb_gltf_read_mesh(const pb_gltf *g, size_t mesh, pb_gltf_mesh *out, pb_io_error *err)
{
    (void)g, (void)mesh;
    if (out)
        memset(out, 0, sizeof *out);
    return none(err);
}

void pb_gltf_mesh_free(pb_gltf_mesh *m)
{
    if (m)
        memset(m, 0, sizeof *m);
}

pb_io_code pb_gltf_mesh_write_file(const char *path, const pb_gltf_mesh *m, pb_io_error *err)
{
    (void)path, (void)m;
    return none(err);
}
