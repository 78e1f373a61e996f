/* posebatch/gltf.h — part of posebatch/io.h: glTF 2.0 files, and their
 * conversion to and from pb_bvh clips. */
#ifndef POSEBATCH_GLTF_H
#define POSEBATCH_GLTF_H

#include <stddef.h>
#include <stdio.h>

#include "bvh.h"
#include "io_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* glTF 2.0 (.gltf with .bin files or data: URIs, and .glb)                 */
/* ------------------------------------------------------------------------ */
/*
 * The JSON is parsed by jansson (a parse error names its line and column).
 * Errors use pb_io_code and pb_io_error like BVH: a JSON error has its line
 * in err->line; a document that parses but is not valid glTF gets a message
 * naming the JSON path, e.g. "animations[0].samplers[2].input: accessor 7 is
 * not float" (line 0), and nothing is returned (*out zeroed).
 *
 * What is read: the node hierarchy (name, parent, local TRS; a node with a
 * matrix gets its decomposition; a TRS beyond float range is
 * PB_IO_ERR_VALUE), skins (joints), and every animation:
 * channels (node, path translation / rotation / scale / weights; morph
 * weights are sampled and resampled like the others) and samplers (input key
 * times, output values, LINEAR / STEP / CUBICSPLINE); a channel without a
 * node is ignored, as glTF says. One sampler may serve several channels of
 * the same path, or translation and scale (both 3-vectors); one that serves
 * a rotation or weights channel and a channel of another path ("sampler 2
 * also animates rotation, not translation") is refused, PB_IO_ERR_VALUE:
 * its values cannot be both unit quaternions and plain values. Accessors of samplers are decoded to float:
 * FLOAT, or (rotations and weights, as glTF 2.0 allows) normalized
 * BYTE / UNSIGNED_BYTE / SHORT / UNSIGNED_SHORT (c / 127 clamped to -1, c / 255,
 * c / 32767 clamped, c / 65535; rotation keys whose norm is off 1 by more
 * than 1e-6, as quantized ones are, are renormalised, so that slerp gets unit
 * keys); sparse accessors are applied; byteStride is
 * honoured. Key times must be finite and strictly increasing; output counts
 * must match (x 3 for CUBICSPLINE). Buffers: GLB's BIN chunk, data: URIs
 * (base64), or files relative to the .gltf's directory (percent-decoded).
 * The JSON tree itself is kept, so that writing copies through everything
 * that is not animation. Only 2.x assets are read.
 *
 * Evaluation (pb_gltf_sample) is glTF 2.0's: before the first key the first
 * value, after the last the last; LINEAR rotations by slerp (pb_quat_slerp,
 * shortest arc), translations, scales and weights by (1 - x) a + x b; STEP
 * the value of the key at or before t; CUBICSPLINE the component-wise cubic
 * Hermite with the tangents multiplied by the key interval (pb_vec3_hermite
 * over the components), rotations then normalised (pb_quat_normalize).
 * "Rotations" are the samplers a rotation channel uses: any other sampler,
 * of 4 morph targets or used by no channel, holds plain values (not
 * renormalised, interpolated component-wise). Channels whose samplers share
 * key times are evaluated in one call per kind.
 */

typedef enum pb_gltf_path {
    PB_GLTF_TRANSLATION = 0,
    PB_GLTF_ROTATION = 1,
    PB_GLTF_SCALE = 2,
    PB_GLTF_WEIGHTS = 3
} pb_gltf_path;

typedef enum pb_gltf_interp {
    PB_GLTF_LINEAR = 0,
    PB_GLTF_STEP = 1,
    PB_GLTF_CUBICSPLINE = 2
} pb_gltf_interp;

typedef struct pb_gltf_node {
    const char *name; /* "" when the node has none; owned by the pb_gltf */
    int32_t parent;   /* index of the node listing it as a child, -1: none */
    float translation[3];
    float rotation[4]; /* (w, x, y, z) like every posebatch quaternion */
    float scale[3];
    int32_t mesh, skin; /* -1: none */
    size_t num_children;
    const int32_t *children;
} pb_gltf_node;

typedef struct pb_gltf_skin {
    const char *name;
    size_t num_joints;
    const int32_t *joints; /* node indices */
    /* 16 floats per joint (column-major MAT4, glTF's inverseBindMatrices,
     * the layout pb_pose_skinning_matrices reads), NULL when the skin has
     * none (identities) */
    const float *inverse_bind;
} pb_gltf_skin;

typedef struct pb_gltf_sampler {
    pb_gltf_interp interpolation;
    size_t count;      /* keys */
    float *input;      /* count key times (seconds), strictly increasing;
                            samplers with the same input accessor share it */
    size_t components; /* values per key: 3, 4 (rotation) or the morph
                            target count (weights) */
    /* count * components values (x 3 for CUBICSPLINE: in-tangent, value,
     * out-tangent per key, as glTF stores them), dequantised to float;
     * rotations in glTF's (x, y, z, w) order */
    float *output;
} pb_gltf_sampler;

typedef struct pb_gltf_channel {
    int32_t node;
    pb_gltf_path path;
    uint32_t sampler; /* index into the animation's samplers */
    size_t offset;    /* first of its `components` values in a pb_gltf_sample pose */
} pb_gltf_channel;

typedef struct pb_gltf_animation {
    const char *name;
    size_t num_channels;
    pb_gltf_channel *channels;
    size_t num_samplers;
    pb_gltf_sampler *samplers;
    size_t num_values;  /* floats of one pose (sum of the channels' components) */
    float t_min, t_max; /* first and last key time over its samplers */
} pb_gltf_animation;

/* A glTF document in memory. Zero-initialise, fill by a reader (or
 * pb_gltf_resample / pb_gltf_from_bvh), release with pb_gltf_free. */
typedef struct pb_gltf {
    size_t num_nodes;
    pb_gltf_node *nodes;
    size_t num_skins;
    pb_gltf_skin *skins;
    size_t num_animations;
    pb_gltf_animation *animations;
    /* private */
    void *priv_;
} pb_gltf;

/* Reads a .gltf or .glb file (by its first bytes, not its name). Returns
 * PB_IO_OK and fills *out, or an error (*out zeroed, nothing to free).
 * A file that is neither (a device such as /dev/zero, a binary stream) is
 * refused on its first 64 KiB: PB_IO_ERR_SYNTAX.
 * Buffer URIs: data: (base64), or a relative file name, percent-decoded,
 * that after resolving "..", "." and symbolic links is a regular file inside
 * the asset's directory; of it at most byteLength bytes are read. Anything
 * else (a name leaving the directory, an absolute path or other scheme, a
 * percent-decoded NUL, a FIFO or device, which is never waited on) is
 * PB_IO_ERR_VALUE naming the uri; a missing or unreadable file
 * PB_IO_ERR_IO with the OS reason. Memory: an accessor holds at most 2^28
 * values, all decoded accessors together at most 2^28, and accessors with
 * no bufferView (zeros) at most 2^20 + 16 per byte of the document
 * (PB_IO_ERR_LIMIT naming the accessor). */
PB_API pb_io_code pb_gltf_read_file(const char *path, pb_gltf *out, pb_io_error *err);
/* The same from memory; base_dir (NULL: ".") is the asset's directory, in
 * which relative buffer URIs are resolved and must stay. */
PB_API pb_io_code pb_gltf_read_memory(const void *data, size_t size, const char *base_dir,
                                      pb_gltf *out, pb_io_error *err);
PB_API void pb_gltf_free(pb_gltf *g);

/* Samples every channel of animation `anim` at `num_times` times: pose i is
 * values[i * num_values .. ], channel c's value at channels[c].offset
 * (rotations (x, y, z, w), unit). PB_IO_ERR_ARG for a bad index, NULL or a
 * non-finite time; PB_IO_ERR_NOMEM. */
PB_API pb_io_code pb_gltf_sample(const pb_gltf *g, size_t anim, size_t num_times,
                                 const float *times, float *values, pb_io_error *err);

enum {
    PB_GLTF_RESAMPLE_CUBIC = 1u << 0 /* CUBICSPLINE keys, Catmull-Rom tangents */
};
/* src with every animation resampled at fps: keys at t_min + i / fps,
 * i = 0 .. floor((t_max - t_min) fps + 1e-3), and one more at t_max where
 * (t_max - t_min) fps is not whole (the clip keeps its length), each the glTF
 * evaluation of the source there. Keys that would not increase in float
 * (times far from zero at a high rate): PB_IO_ERR_VALUE, nothing written.
 * LINEAR keys; with PB_GLTF_RESAMPLE_CUBIC CUBICSPLINE keys whose tangents
 * are the Catmull-Rom velocities of the samples (rotations unrolled to one
 * hemisphere first: pb_quat_raw_cubic's raw 4D velocity; translations,
 * scales by pb_vec3_catmull_rom; weights by central differences; at the ends
 * the end key repeated). Everything else is src's, but for an animation's
 * extras "bvh_frame_time" (the rate pb_gltf_to_bvh samples at), which
 * becomes 1 / fps. out is independent of src (release both). */
PB_API pb_io_code pb_gltf_resample(const pb_gltf *src, double fps, unsigned flags, pb_gltf *out,
                                   pb_io_error *err);

/* Writes g: its JSON tree with each animation sampler's input and output
 * replaced by g's data (the old accessors reused in place where only
 * animations used them, else new ones appended; FLOAT, no sparse), every
 * bufferView that is still referenced copied, all into one compact buffer.
 * .glb when path ends in ".glb" (any case), else .gltf with the buffer as a
 * base64 data: URI. Atomic, with the output-path rules of pb_bvh_write_file.
 * A sampler value that is not finite (no reader takes it: a resampled source
 * that overshoots float range) is PB_IO_ERR_ARG, and nothing is written. */
PB_API pb_io_code pb_gltf_write_file(const char *path, const pb_gltf *g, pb_io_error *err);
/* The same to a stream; binary: 1 for GLB, 0 for .gltf JSON. */
PB_API pb_io_code pb_gltf_write_stream(FILE *f, const pb_gltf *g, int binary, pb_io_error *err);

/* A mesh for skinning: its triangle primitives, concatenated (primitive p's
 * vertices after those before it, its indices shifted to match). Arrays
 * owned by the pb_gltf_mesh (pb_gltf_mesh_free), vertex v's data
 * consecutive, as pb_skin_vertices reads them. */
typedef struct pb_gltf_mesh {
    size_t num_vertices;
    float *positions; /* 3 per vertex (POSITION) */
    float *normals;   /* 3 per vertex (NORMAL); NULL when a primitive has none */
    uint16_t *joints; /* 4 per vertex (JOINTS_0): indices into the skin's joints */
    float *weights;   /* 4 per vertex (WEIGHTS_0, dequantised); both NULL when
                          the mesh is not skinned */
    size_t num_triangles;
    uint32_t *triangles; /* 3 vertex indices per triangle (the primitive's
                            indices, or its vertices in order without them) */
} pb_gltf_mesh;

/* Reads mesh `mesh` of a document read by pb_gltf_read_file / _memory (its
 * buffers are kept): POSITION (float VEC3, required), NORMAL (float VEC3),
 * JOINTS_0 (unsigned byte or short VEC4) with WEIGHTS_0 (float or normalized
 * unsigned byte / short VEC4; on every primitive or none), indices (unsigned
 * byte, short or int; each below its primitive's vertex count). Primitives
 * must be triangles (mode 4, the default); other attributes (TEXCOORD_0,
 * JOINTS_1...) are not read. At most 2^24 vertices. Errors (*out zeroed):
 * PB_IO_ERR_ARG (g or out NULL, g not read from a file, no such mesh),
 * PB_IO_ERR_SYNTAX / PB_IO_ERR_VALUE / PB_IO_ERR_LIMIT naming the JSON path
 * (another mode, a missing POSITION, counts that disagree, an index out of
 * range, an accessor of the wrong type), PB_IO_ERR_NOMEM. */
PB_API pb_io_code pb_gltf_read_mesh(const pb_gltf *g, size_t mesh, pb_gltf_mesh *out,
                                    pb_io_error *err);
PB_API void pb_gltf_mesh_free(pb_gltf_mesh *m);
/* Writes m as a static glTF 2.0 model: one node of one mesh of one triangle
 * primitive, POSITION (with its min and max), NORMAL when m has normals and
 * none of them is zero or not finite (each written normalised), indices
 * (UNSIGNED_INT); joints and weights are not written (a posed mesh, e.g.
 * pb_skin_vertices' output). .glb when path ends in ".glb" (any case), else
 * .gltf with the buffer as a base64 data: URI; atomic, with the output-path
 * rules of pb_bvh_write_file. Errors, nothing written: PB_IO_ERR_ARG (path
 * or m NULL or empty, no vertices or no triangles), PB_IO_ERR_VALUE (a
 * position not finite, a triangle's vertex index out of range),
 * PB_IO_ERR_LIMIT (more than 2^24 vertices or 2^26 triangles),
 * PB_IO_ERR_IO, PB_IO_ERR_NOMEM. */
PB_API pb_io_code pb_gltf_mesh_write_file(const char *path, const pb_gltf_mesh *m,
                                          pb_io_error *err);

/* A glTF of a BVH clip: one node per joint (names kept, OFFSET as
 * translation), End Sites as leaf nodes named "<parent>_End" with extras
 * {"bvh_end_site": true}, each joint's BVH channel list in its node's extras
 * ("bvh_channels"), a scene of the roots, and one animation "bvh" of LINEAR
 * keys at the frames' times: a rotation channel per joint and a translation
 * channel per joint with position channels (extras "bvh_frame_time"), and
 * one skin "skeleton" of every node in node order (joints, then End Sites),
 * so that importers see an armature: its inverseBindMatrices are those of
 * the rest pose (identity rotations at the OFFSETs: the translation by minus
 * each node's rest position, summed in double), its "skeleton" the root when
 * there is one. Errors (*out zeroed): pb_bvh_write's checks of the clip
 * (PB_IO_ERR_ARG), a rest position beyond float range (PB_IO_ERR_VALUE),
 * PB_IO_ERR_NOMEM. */
PB_API pb_io_code pb_gltf_from_bvh(const pb_bvh *bvh, pb_gltf *out, pb_io_error *err);

/* A BVH of a glTF skeleton. Joints: the joints of skin `skin` and their
 * ancestors, or with skin < 0 every node (a file with exactly one skin: pass
 * pb_gltf_default_skin), in depth-first order; End Sites: leaves with extras
 * {"bvh_end_site": true} (pb_gltf_from_bvh's), skin joints or not. Channels: those recorded in
 * "bvh_channels" extras (a file written by pb_gltf_from_bvh), else
 * "Xposition Yposition Zposition Zrotation Yrotation Xrotation" for roots
 * and joints with an animated translation, "Zrotation Yrotation Xrotation"
 * for the others (R = Rz Ry Rx). Motion: animation `anim` sampled at
 * frame_time steps from its t_min, floor((t_max - t_min) / frame_time +
 * 1e-3) + 1 frames (frame_time <= 0: its "bvh_frame_time" extras, else the
 * median key interval of its sampler with the most keys, else 1/30 s);
 * without animations one frame of the rest pose; no frame at all when the
 * extras give no joint a channel (a BVH frame of no values does not read
 * back); a sampled value that is not finite (a CUBICSPLINE beyond float
 * range) is PB_IO_ERR_VALUE; a tree deeper than PB_BVH_MAX_DEPTH (End
 * Sites counted) is PB_IO_ERR_LIMIT. Scales are not represented
 * in BVH and are dropped. Node names are made BVH-safe (braces and control
 * characters become '_', outer blanks dropped, an empty name "node<i>"). */
PB_API pb_io_code pb_gltf_to_bvh(const pb_gltf *g, long skin, size_t anim, double frame_time,
                                 pb_bvh *out, pb_io_error *err);
/* What pb_gltf_to_bvh(g, skin, anim, frame_time) would make, measured
 * without making it: *frames its frame count (0 when the extras give no
 * joint a channel), *frame_time_out its frame time, and *bytes the size of
 * its BVH text, estimated from up to 16 of its frames spread over the clip
 * (pb_bvh_estimate_bytes; 0 for no frames). For refusing a conversion out of
 * proportion to its input before it runs: a few key times far apart make
 * any number of frames. Frame counts above what pb_gltf_to_bvh makes (its
 * PB_IO_ERR_LIMIT) are measured too, up to 2^53. Errors are
 * pb_gltf_to_bvh's before its frames (skin or animation out of range, a
 * frame time no BVH holds, too deep a tree, a sampled value that is not
 * finite); the outputs are set only on PB_IO_OK. */
PB_API pb_io_code pb_gltf_to_bvh_estimate(const pb_gltf *g, long skin, size_t anim,
                                          double frame_time, size_t *frames, double *frame_time_out,
                                          double *bytes, pb_io_error *err);
/* The skin to convert: 0 for a file with one skin, -1 for none or several. */
PB_API long pb_gltf_default_skin(const pb_gltf *g);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_GLTF_H */
