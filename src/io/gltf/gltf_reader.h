/* The glTF reader's pieces (gltf_read.c entry points, gltf_read_json.c
 * JSON members, gltf_buffers.c buffers and URIs, gltf_accessors.c accessor
 * decoding, gltf_nodes.c nodes and skins, gltf_animations.c animations):
 * the state of one read and what the pieces call of each other. Internal. */
#ifndef PB_IO_GLTF_READER_H
#define PB_IO_GLTF_READER_H

#define PB_GLTF_JSON 1
#include "gltf_internal.h"
#include "io_internal.h"

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u
#define MAX_FILE ((size_t)1 << 31)

/* The state of one read. */
typedef struct reader {
    pb_gltf *g;
    gltf_priv *pv;
    json_t *root;
    pb_io_error *err;
    const char *base_dir;
    const unsigned char *bin; /* GLB BIN chunk */
    size_t bin_len;
    size_t num_accessors, num_views;
    float **acc_cache; /* decoded accessors (as floats), by index */
    size_t *acc_comps, *acc_count;
    /* what may still be decoded (gltf_decode_accessor): values in all
     * (GLTF_MAX_VALUES), and values no bufferView backs (zeros: at most
     * GLTF_ZEROS_BASE + GLTF_ZEROS_PER_BYTE per byte of the document) */
    size_t values_left, zeros_left;
} reader;
#define GLTF_MAX_VALUES ((size_t)1 << 28)
#define GLTF_ZEROS_BASE ((size_t)1 << 20)
#define GLTF_ZEROS_PER_BYTE 16

/* An optional array member (NULL when absent); error when not an array. */
int gltf_opt_array(reader *r, json_t *obj, const char *key, const char *path, json_t **out);
/* An integer member in [lo, hi]; absent: *out = def, or an error when def is
 * -1 below lo (required). */
int gltf_get_int(reader *r, json_t *obj, const char *key, const char *path, long long lo,
                 long long hi, long long def, long long *out);
/* n finite numbers from an array member; 1 when present, 0 absent, -1 error. */
int gltf_get_floats(reader *r, json_t *obj, const char *key, const char *path, size_t n,
                    double *out);
const char *gltf_get_name(json_t *obj);
int gltf_load_buffer(reader *r, size_t b, json_t *jb);
size_t gltf_type_comps(const char *t);
/* The bytes of bufferView v (checked: buffer, offset, length, stride), for
 * the member at path; NULL with the error set. */
const unsigned char *gltf_view_bytes(reader *r, long long v, const char *path, size_t *len,
                                     size_t *stride);
/* Decodes accessor a to floats (count * comps), checking its component type
 * against `allowed` (bit per componentType - 5120; integers must be
 * normalized, unless `allowed` has GLTF_ACC_INT: then they must not be, and
 * decode to their values: joint indices, vertex indices). path names the
 * referencing member. */
#define GLTF_ACC_INT (1u << 16)
float *gltf_decode_accessor(reader *r, long long a, const char *path, unsigned allowed,
                            size_t want_comps, size_t *count_out);
int gltf_read_nodes(reader *r);
int gltf_read_skins(reader *r);
int gltf_read_animations(reader *r);

#endif /* PB_IO_GLTF_READER_H */
