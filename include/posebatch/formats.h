/* posebatch/formats.h — part of posebatch/io.h: the table of formats. */
#ifndef POSEBATCH_FORMATS_H
#define POSEBATCH_FORMATS_H

#include <stddef.h>

#include "bvh.h"
#include "io_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Formats: one table (src/io/formats.c) for every caller that takes "a clip
 * file" (the CLI, Python, Dask): what a file is, a clip from any of them,
 * a clip to the format an output's name asks for. A new format is a folder
 * under src/io and a row of that table. */
/* ------------------------------------------------------------------------ */
typedef enum pb_io_format {
    PB_IO_FORMAT_BVH = 0,  /* BVH text (also: anything that is not glTF) */
    PB_IO_FORMAT_GLTF = 1, /* glTF 2.0 JSON (.gltf) */
    PB_IO_FORMAT_GLB = 2   /* glTF 2.0 binary (.glb) */
} pb_io_format;

/* The format of a file by its first bytes (n of them; 64 suffice): GLB by
 * its magic, glTF by a JSON object after blanks (and a UTF-8 byte order
 * mark), else BVH (whose reader judges the rest). */
PB_API pb_io_format pb_io_format_of_head(const void *head, size_t n);
/* The format of a file: by its first bytes when it is a regular file; by its
 * name (pb_io_format_of_name) when it cannot be read or is a stream (a FIFO
 * or device is not read here, so no byte of it is lost); "-" is BVH. */
PB_API pb_io_format pb_io_format_of_file(const char *path);
/* The format an output's name asks for: ".glb" GLB, ".gltf" glTF (any
 * case), else BVH. */
PB_API pb_io_format pb_io_format_of_name(const char *path);
/* "bvh", "gltf", "glb"; NULL for a value outside the enum. */
PB_API const char *pb_io_format_name(pb_io_format f);

/* A clip from a file of any format (pb_io_format_of_file): BVH by
 * pb_bvh_read_file_with(path, opts); glTF by pb_gltf_to_bvh of its one skin
 * (every node when it has none) and its first animation, at the keys' frame
 * time (a file with several skins: PB_IO_ERR_ARG naming them; convert one
 * with pb_gltf_to_bvh). Errors as those functions'. */
PB_API pb_io_code pb_io_read_clip(const char *path, const pb_bvh_read_opts *opts, pb_bvh *out,
                                  pb_io_error *err);
/* Writes a clip in the format its name asks for (pb_io_format_of_name): BVH
 * by pb_bvh_write_file_with(path, clip, opts); glTF or GLB by
 * pb_gltf_from_bvh and pb_gltf_write_file (opts unused). */
PB_API pb_io_code pb_io_write_clip(const char *path, const pb_bvh *clip,
                                   const pb_bvh_write_opts *opts, pb_io_error *err);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_FORMATS_H */
