/* Pieces shared by the glTF reader, evaluator and writer (internal to
 * src/io; the contract is include/posebatch/io.h). */
#ifndef PB_IO_GLTF_INTERNAL_H
#define PB_IO_GLTF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "posebatch/io.h"
#include "io_internal.h"

#ifdef PB_GLTF_JSON /* jansson users only */
#include <jansson.h>

/* The private part of a pb_gltf. */
typedef struct gltf_priv {
    json_t *root; /* the document, kept for writing (owned) */
    size_t num_buffers;
    unsigned char **buf; /* each buffer's bytes (byteLength of them) */
    size_t *buf_len;
    /* per animation, per sampler: the accessors it was read from (-1: none),
     * so that the writer can reuse them */
    int32_t **in_acc, **out_acc;
    /* every float array and name the pb_gltf points to, freed together */
    void **allocs;
    size_t num_allocs, cap_allocs;
} gltf_priv;

/* Writes root (its "buffers" replaced by one buffer of bin_len bytes, or
 * none when bin_len is 0) to f: GLB (binary) with bin as its BIN chunk, or
 * JSON text with bin as a base64 data: URI. The writer's tail, shared by
 * pb_gltf_write_stream and pb_gltf_mesh_write_file. */
pb_io_code gltf_emit(FILE *f, json_t *root, const unsigned char *bin, size_t bin_len, int binary,
                     pb_io_error *err);
/* Registers p (malloc'd) to be freed with g; returns p, or NULL (p freed)
 * when out of memory. */
void *gltf_keep(gltf_priv *pv, void *p);
/* Error naming a JSON path: "PATH: message". */
pb_io_code gltf_err(pb_io_error *err, pb_io_code code, const char *path, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Allocates g->priv_ (zeroed); NULL when out of memory. */
gltf_priv *gltf_priv_new(pb_gltf *g);
/* The channels' offsets, num_values, t_min and t_max of an animation. */
void gltf_anim_finish(pb_gltf_animation *a);
/* Values per key of a sampler's output (3 for CUBICSPLINE: in, value, out). */
static inline size_t gltf_stride(const pb_gltf_sampler *s)
{
    return s->interpolation == PB_GLTF_CUBICSPLINE ? 3u : 1u;
}
/* rot[s] (a->num_samplers bytes) = 1 where sampler s of a holds rotations
 * (slerped, renormalised): a rotation channel uses it (the reader lets no
 * other path share such a sampler); 0 for every other sampler, whatever its
 * width: a morph target weights sampler of 4 targets, an unused VEC4. One
 * pass over the channels. */
static inline void gltf_rotation_samplers(const pb_gltf_animation *a, unsigned char *rot)
{
    for (size_t s = 0; s < a->num_samplers; s++)
        rot[s] = 0;
    for (size_t c = 0; c < a->num_channels; c++)
        if (a->channels[c].path == PB_GLTF_ROTATION)
            rot[a->channels[c].sampler] = 1;
}
/* What one read may decode, all accessors together (values, each at most
 * one accessor's; a read starts with this much: gltf_read.c): 2^28
 * (GLTF_MAX_VALUES, gltf_reader.h). Written by nothing in the library: a
 * variable only so that a test linked with the static library can make it
 * small and see a small input spend it (test_gltf_budget.c). */
extern size_t gltf_value_budget;
/* Per-sampler evaluation: out[i * total + soff[s] ...] gets sampler s's
 * components at times[i]; soff from gltf_sampler_offsets (total returned). */
size_t gltf_sampler_offsets(const pb_gltf_animation *a, size_t *soff);
pb_io_code gltf_eval_samplers(const pb_gltf_animation *a, size_t num_times, const float *times,
                              const size_t *soff, size_t total, float *out, pb_io_error *err);
#endif

#endif /* PB_IO_GLTF_INTERNAL_H */
