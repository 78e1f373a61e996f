/* The table of file formats (include/posebatch/io.h, "Formats"): each row
 * says how to recognise a format by its first bytes or an output's name, and
 * how to read a clip from it and write one to it. Callers that take "a clip
 * file" (the CLI, Python, Dask) go through here, so a new format is a folder
 * under src/io and a row below. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "gltf_head.h"
#include "io_internal.h"

#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static int always(const unsigned char *h, size_t n)
{
    (void)h;
    (void)n;
    return 1;
}

static pb_io_code read_bvh_clip(const char *path, const pb_bvh_read_opts *opts, pb_bvh *out,
                                pb_io_error *err)
{
    return pb_bvh_read_file_with(path, opts, out, err);
}

static pb_io_code write_bvh_clip(const char *path, const pb_bvh *clip,
                                 const pb_bvh_write_opts *opts, pb_io_error *err)
{
    return pb_bvh_write_file_with(path, clip, opts, err);
}

static pb_io_code read_gltf_clip(const char *path, const pb_bvh_read_opts *opts, pb_bvh *out,
                                 pb_io_error *err)
{
    (void)opts;
    pb_gltf g;
    pb_io_code rc = pb_gltf_read_file(path, &g, err);
    if (rc)
        return rc;
    long skin = pb_gltf_default_skin(&g);
    if (skin < 0 && g.num_skins > 1)
        rc = io_path_err(err, PB_IO_ERR_ARG, path,
                         "the file has %zu skins; convert the one to use first (pb_gltf_to_bvh, "
                         "'posebatch convert --skin N')",
                         g.num_skins);
    else
        rc = pb_gltf_to_bvh(&g, skin, 0, 0.0, out, err);
    pb_gltf_free(&g);
    return rc;
}

static pb_io_code write_gltf_clip(const char *path, const pb_bvh *clip,
                                  const pb_bvh_write_opts *opts, pb_io_error *err)
{
    (void)opts;
    pb_gltf g;
    pb_io_code rc = pb_gltf_from_bvh(clip, &g, err);
    if (rc)
        return rc;
    rc = pb_gltf_write_file(path, &g, err);
    pb_gltf_free(&g);
    return rc;
}

typedef struct format_row {
    pb_io_format format;
    const char *name;
    const char *ext; /* an output name ending so asks for it (NULL: none) */
    int (*head)(const unsigned char *h, size_t n); /* recognised by its first bytes */
    pb_io_code (*read_clip)(const char *path, const pb_bvh_read_opts *opts, pb_bvh *out,
                            pb_io_error *err);
    pb_io_code (*write_clip)(const char *path, const pb_bvh *clip, const pb_bvh_write_opts *opts,
                             pb_io_error *err);
} format_row;

/* Tried in order by their first bytes; BVH, the last, takes the rest. */
static const format_row k_formats[] = {
    {PB_IO_FORMAT_GLB, "glb", ".glb", gltf_head_is_glb, read_gltf_clip, write_gltf_clip},
    {PB_IO_FORMAT_GLTF, "gltf", ".gltf", gltf_head_is_json, read_gltf_clip, write_gltf_clip},
    {PB_IO_FORMAT_BVH, "bvh", NULL, always, read_bvh_clip, write_bvh_clip},
};
#define NUM_FORMATS (sizeof k_formats / sizeof k_formats[0])

static const format_row *row(pb_io_format f)
{
    for (size_t i = 0; i < NUM_FORMATS; i++)
        if (k_formats[i].format == f)
            return &k_formats[i];
    return NULL;
}

pb_io_format pb_io_format_of_head(const void *head, size_t n)
{
    for (size_t i = 0; i < NUM_FORMATS; i++)
        if (head && k_formats[i].head(head, n))
            return k_formats[i].format;
    return PB_IO_FORMAT_BVH;
}

pb_io_format pb_io_format_of_name(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    for (size_t i = 0; i < NUM_FORMATS; i++) {
        const char *e = k_formats[i].ext;
        size_t k = e ? strlen(e) : 0;
        if (e && n > k && strcasecmp(path + n - k, e) == 0)
            return k_formats[i].format;
    }
    return PB_IO_FORMAT_BVH;
}

pb_io_format pb_io_format_of_file(const char *path)
{
    if (!path || strcmp(path, "-") == 0)
        return PB_IO_FORMAT_BVH;
    struct stat st;
    int fd = -1;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return pb_io_format_of_name(path);
    unsigned char h[64];
    ssize_t got = read(fd, h, sizeof h);
    close(fd);
    return got < 0 ? pb_io_format_of_name(path) : pb_io_format_of_head(h, (size_t)got);
}

const char *pb_io_format_name(pb_io_format f)
{
    const format_row *r = row(f);
    return r ? r->name : NULL;
}

pb_io_code pb_io_read_clip(const char *path, const pb_bvh_read_opts *opts, pb_bvh *out,
                           pb_io_error *err)
{
    io_clear_err(err);
    if (!path || !out) {
        if (out)
            memset(out, 0, sizeof *out);
        return io_set_err(err, PB_IO_ERR_ARG, 0, "path or out is NULL");
    }
    return row(pb_io_format_of_file(path))->read_clip(path, opts, out, err);
}

pb_io_code pb_io_write_clip(const char *path, const pb_bvh *clip, const pb_bvh_write_opts *opts,
                            pb_io_error *err)
{
    io_clear_err(err);
    if (!path || !clip)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "path or clip is NULL");
    return row(pb_io_format_of_name(path))->write_clip(path, clip, opts, err);
}
