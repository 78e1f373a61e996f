/*
 * posebatch/bvh.h — part of posebatch/io.h: pb_bvh, the clip in memory that
 * every format reads into and writes from, and the BVH text format.
 *
 * Data model
 * ----------
 * Skeleton: joints in file (depth-first pre-)order, so a parent always comes
 * before its children and every subtree is contiguous. Each joint keeps its
 * name, parent, OFFSET and its CHANNELS exactly as listed (count and order),
 * so that writing reproduces the channel layout. End Sites are kept with their
 * parent and their position among the parent's children.
 *
 * Motion: F frames, frame-major structure of arrays, element (f, j) at index
 * f * J + j, the layout of a pb_clip (pb_bvh_clip gives one):
 *   rot_w/x/y/z  local rotation of joint j in frame f as a unit quaternion
 *                (w, x, y, z), computed in double from the joint's rotation
 *                channels in their own order (the channels listed as e.g.
 *                "Zrotation Xrotation Yrotation" mean R = Rz * Rx * Ry on
 *                column vectors, degrees: see pb_euler_to_quat), stored as
 *                float. Each frame is converted independently: the sign
 *                (hemisphere) is whatever the Euler formula gives; the clip
 *                functions of posebatch.h take shortest arcs and need no
 *                unrolling (pb_quat_unroll when continuity matters).
 *   pos_x/y/z    local translation: the joint's position channels where it
 *                has them (they REPLACE the OFFSET), the OFFSET for the
 *                components it has no channel for. Defined for every joint.
 *
 * Reading rules
 * -------------
 * - Channels: 0..6 per joint, any of X/Y/Zposition, X/Y/Zrotation
 *   (case-insensitive), each at most once, in any order (rotation and
 *   position channels may interleave). A count above 6, a repeated or unknown
 *   channel is an error. 0 rotation channels: identity rotation; 1 or 2: the
 *   product of the listed ones (the writer projects onto them); CHANNELS 0 is
 *   allowed (no values on the data lines).
 * - Syntax: keywords case-insensitive; any whitespace (spaces, tabs, CR, LF,
 *   CRLF, blank lines); a UTF-8 BOM; numbers like ".0083333", "-0", "1e-5";
 *   "Frames:<TAB>N", "Frames :", "Frame Time:<TAB>T"; several ROOTs; a joint
 *   name is the rest of its line up to a brace (may contain spaces; control
 *   characters are rejected); names ending in "_End" are ordinary joints,
 *   only "End Site" starts an end site. In a joint block OFFSET and CHANNELS
 *   each appear exactly once, before the first child; an End Site holds
 *   exactly one OFFSET. Every frame is one line of exactly num_channels
 *   numbers; blank lines are ignored; after the last frame only whitespace.
 * - The data are the truth, the header a claim: the frames are the complete
 *   data lines. A 'Frames:' count that disagrees (either way) is a warning
 *   naming both counts and the count used; an error with PB_BVH_READ_STRICT.
 *   A last line cut inside a frame, or any line with the wrong number of
 *   values, is an error naming its line. A joint name used twice is a warning
 *   naming both lines.
 * - Values: NaN, infinities, hexadecimal and numbers beyond float range are
 *   errors naming their line (PB_BVH_ERR_VALUE); so are rotation channels
 *   beyond +-1e6 degrees and a Frame Time below 1e-5 s (above 100000 fps) or
 *   beyond float range. Numbers are parsed without the C library
 *   (locale-independent).
 * - Line numbers: 1-based; for errors at the end of the file, the line of
 *   the last token or data line read.
 * - Limits hold before the work: the first 64 KiB are looked at first, and
 *   binary input (NUL bytes before any HIERARCHY; glTF/GLB, FBX, archives,
 *   images, executables by their magic bytes) is refused at once with a
 *   message saying what it is ("this is a binary glTF (.glb) file, not
 *   BVH"); a file above PB_BVH_MAX_FILE_BYTES (or pb_bvh_read_opts.max_bytes)
 *   is refused from its size, a stream when it passes the limit. The data
 *   lines are counted before any frame memory is allocated; frames x joints
 *   may not exceed 2^28, nor the bytes of motion data + 65536. Memory: the
 *   text plus 52 bytes per frame and joint and a byte per value, at most 54
 *   bytes per input byte plus 3.4 MB; PB_BVH_READ_HEADER_ONLY keeps no
 *   motion. Nesting is limited to PB_BVH_MAX_DEPTH, joints to
 *   PB_BVH_MAX_JOINTS; no recursion.
 *
 */
#ifndef POSEBATCH_BVH_H
#define POSEBATCH_BVH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../posebatch.h"
#include "euler.h"
#include "io_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* BVH                                                                      */
/* ------------------------------------------------------------------------ */

#define PB_BVH_MAX_DEPTH 256                    /* joint nesting depth (ROOT = 1) */
#define PB_BVH_MAX_JOINTS 65536                 /* joints per file */
#define PB_BVH_MAX_FILE_BYTES ((size_t)1 << 31) /* largest file read or written */

typedef enum pb_bvh_channel {
    PB_BVH_XPOS = 0,
    PB_BVH_YPOS = 1,
    PB_BVH_ZPOS = 2,
    PB_BVH_XROT = 3,
    PB_BVH_YROT = 4,
    PB_BVH_ZROT = 5
} pb_bvh_channel;

typedef struct pb_bvh_joint {
    const char *name;       /* NUL-terminated, owned by the pb_bvh */
    long line;              /* line of its ROOT / JOINT keyword (0: not read from text) */
    int32_t parent;         /* index of the parent joint; -1 for a ROOT */
    float offset[3];        /* OFFSET x y z */
    uint8_t num_channels;   /* 0..6 */
    uint8_t channels[6];    /* pb_bvh_channel, in file order */
    uint8_t num_rot;        /* rotation channels, 0..3 */
    uint8_t rot_order;      /* pb_euler_order; its first num_rot axes are the
                              rotation channels in file order */
    uint32_t first_channel; /* index of this joint's first value on a data line */
} pb_bvh_joint;

typedef struct pb_bvh_end_site {
    int32_t parent;       /* joint index */
    uint32_t child_index; /* written after this many JOINT children of parent */
    float offset[3];
} pb_bvh_end_site;

/* A BVH file in memory. Zero-initialise, fill by a reader (or
 * pb_bvh_resample), release with pb_bvh_free. */
typedef struct pb_bvh {
    /* skeleton */
    size_t num_joints;
    pb_bvh_joint *joints;
    size_t num_end_sites;
    pb_bvh_end_site *end_sites;
    size_t num_channels; /* values per data line = sum of num_channels */
    /* motion */
    size_t num_frames;
    double frame_time;                    /* seconds, > 0 */
    float *rot_w, *rot_x, *rot_y, *rot_z; /* num_frames * num_joints each */
    float *pos_x, *pos_y, *pos_z;         /* num_frames * num_joints each */
    /* Optional, NULL when absent: the rotation channels' values in degrees as
     * read (3 per element (f, j), in the joint's channel order, unused slots
     * 0; num_frames * num_joints * 3 doubles). The writer's default Euler
     * choice (PB_BVH_EULER_SOURCE) writes, at each frame, the equivalent
     * triple nearest to these. Owned by the pb_bvh. */
    double *euler_deg;
    /* Optional, NULL when absent: the decimals each position value was
     * written with (0..17), num_frames * num_channels, element (f, c) at
     * f * num_channels + c (rotation columns 0). The writer prints a position
     * with that many decimals when that is finer than the shortest round-trip
     * form. Owned by the pb_bvh. */
    signed char *decimals;
    /* private */
    char *name_pool_;
} pb_bvh;

/* Reading options (NULL: all defaults). */
enum {
    PB_BVH_READ_STRICT = 1u << 0,      /* a 'Frames:' count that disagrees with the
                                          data lines is an error, not a warning */
    PB_BVH_READ_HEADER_ONLY = 1u << 1, /* count and check the data lines but keep
                                          no motion (num_frames is set, the
                                          motion arrays stay NULL) */
    PB_BVH_READ_UNIQUE_NAMES = 1u << 2 /* a joint name used twice is an error (at
                                          the first repeat in the file, naming
                                          both lines), not a warning: for callers
                                          that match joints by name */
};
typedef struct pb_bvh_read_opts {
    unsigned flags;   /* PB_BVH_READ_* */
    size_t max_bytes; /* largest input read; 0: PB_BVH_MAX_FILE_BYTES */
    /* Called for each warning (message without the file name, e.g. "line 3:
     * ..."); NULL: warnings are dropped. */
    void (*warn)(void *ctx, const char *message);
    void *warn_ctx;
} pb_bvh_read_opts;

/* How the writer chooses among the equivalent Euler triples of a rotation. */
typedef enum pb_bvh_euler_mode {
    PB_BVH_EULER_SOURCE = 0,     /* nearest to the source angles (euler_deg) where
                                    present, else continuous */
    PB_BVH_EULER_CONTINUOUS = 1, /* nearest to the previous frame's (from zero) */
    PB_BVH_EULER_PRINCIPAL = 2   /* middle angle in [-90, 90], others (-180, 180] */
} pb_bvh_euler_mode;

/* Writing options (NULL: all defaults). */
typedef struct pb_bvh_write_opts {
    pb_bvh_euler_mode euler;
    /* Called now and then while writing frames (frames written, total);
     * NULL: none. */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    /* Largest text written; 0: PB_BVH_MAX_FILE_BYTES (what the reader reads).
     * A clip whose text would be larger is refused (PB_IO_ERR_LIMIT): up
     * front from an estimate over sampled frames, and exactly while writing. */
    size_t max_bytes;
    /* Threads formatting frames (0 or 1: the calling thread alone). Where
     * each frame's angles depend on that frame alone (PB_BVH_EULER_SOURCE
     * with source angles, PB_BVH_EULER_PRINCIPAL) runs of frames are
     * formatted on up to this many threads and written in order: the same
     * bytes. Otherwise (continuous angles) one thread. */
    unsigned threads;
} pb_bvh_write_opts;

/* Reads a BVH file / an in-memory BVH text by the reading rules above. On
 * success returns PB_IO_OK and fills *out (release with pb_bvh_free). On
 * error returns the code, fills *err (if err != NULL) and leaves *out zeroed
 * (nothing to free). */
PB_API pb_io_code pb_bvh_read_file(const char *path, pb_bvh *out, pb_io_error *err);
PB_API pb_io_code pb_bvh_read_memory(const char *data, size_t size, pb_bvh *out, pb_io_error *err);
/* The same with options (opts may be NULL). read_stream reads f to its end
 * (name is used in messages; f is not closed). */
PB_API pb_io_code pb_bvh_read_file_with(const char *path, const pb_bvh_read_opts *opts, pb_bvh *out,
                                        pb_io_error *err);
PB_API pb_io_code pb_bvh_read_memory_with(const char *data, size_t size,
                                          const pb_bvh_read_opts *opts, pb_bvh *out,
                                          pb_io_error *err);
PB_API pb_io_code pb_bvh_read_stream(FILE *f, const char *name, const pb_bvh_read_opts *opts,
                                     pb_bvh *out, pb_io_error *err);

/* Writes bvh to path atomically: the text goes to a temporary file in the
 * same directory, which is flushed, fsync'ed and closed (each checked) and
 * then renamed over path. On any error the temporary is removed and an
 * existing file at path is left untouched. What exists at path decides: a
 * regular file the caller may not write to is refused, not replaced (a
 * replaced file keeps its mode, and its owner and group where allowed); a
 * symbolic link is followed and its target replaced (a dangling link's
 * target created); a character device or FIFO is written through directly
 * (no temporary, no rename); a directory, socket or block device is refused
 * (PB_IO_ERR_IO). A signal handler may remove the temporaries being written
 * with pb_io_unlink_temporaries.
 * Output: same hierarchy and channel layout, tabs, LF line endings; rotations
 * as Euler angles in each joint's own order, the triple chosen by
 * pb_bvh_write_opts.euler: by default the one nearest to the source angles
 * (euler_deg: as read, or interpolated by pb_bvh_resample_angles), and the
 * source angles themselves (printed as read) when the rotation is theirs to
 * within 2e-7 rad (float precision), so a clip read and written again, or
 * resampled at its own rate, reproduces every value of its source; without
 * source angles, or with PB_BVH_EULER_CONTINUOUS, continuous from frame to
 * frame from the principal triple (no +-180 or +-360 jumps: see
 * pb_euler_from_quat; an angle that would pass the reader's +-1e6 degrees,
 * a joint spinning for thousands of turns, goes back by whole turns);
 * PB_BVH_EULER_PRINCIPAL: the principal triple.
 * Computed angles are printed with 6 decimals (trailing zeros dropped);
 * positions with the fewest digits that read back to the same float, or with
 * the source's decimals when those are finer; offsets and the frame time
 * with the fewest digits that read back to the same float / double. A text
 * the reader would refuse is never written: larger than max_bytes (estimated
 * up front from sampled frames, counted while writing) or with more frames x
 * joints than its memory bound (PB_IO_ERR_LIMIT). Quaternions need not be
 * unit; a zero quaternion is written as the identity; a non-finite rotation
 * or position is an error (PB_IO_ERR_ARG), as are in-memory data the reader
 * could not read back (joints not in depth-first order, parents after
 * children, nesting deeper than PB_BVH_MAX_DEPTH with End Sites counted,
 * a data-line layout (first_channel, num_channels) that disagrees with the
 * channel lists, frames with no channel, invalid channel lists, names that
 * are empty or contain braces, control characters or leading/trailing
 * blanks); those are checked before any file is created. Prints in the "C"
 * numeric locale whatever the process locale is. */
PB_API pb_io_code pb_bvh_write_file(const char *path, const pb_bvh *bvh, pb_io_error *err);
/* Same text to an open stream (no atomicity; the stream is flushed, not
 * closed). */
PB_API pb_io_code pb_bvh_write_stream(FILE *f, const pb_bvh *bvh, pb_io_error *err);
/* The same with options (opts may be NULL). */
PB_API pb_io_code pb_bvh_write_file_with(const char *path, const pb_bvh *bvh,
                                         const pb_bvh_write_opts *opts, pb_io_error *err);
PB_API pb_io_code pb_bvh_write_stream_with(FILE *f, const pb_bvh *bvh,
                                           const pb_bvh_write_opts *opts, pb_io_error *err);

/* The bytes of the text the writer would produce for a clip of `frames`
 * frames like bvh's (its header, and its longest line among up to 16 frames
 * spread over it, times frames), without writing: for refusing an output
 * before computing it. bvh needs at least one frame (PB_IO_ERR_ARG). */
PB_API pb_io_code pb_bvh_estimate_bytes(const pb_bvh *bvh, size_t frames,
                                        const pb_bvh_write_opts *opts, double *bytes,
                                        pb_io_error *err);

/* bvh's local translations as three.js's BVHLoader plays them: a position
 * channel's value added to the joint's OFFSET (pb_bvh's pos_x/y/z hold it
 * in place of the OFFSET: the BVH convention), the OFFSET where the joint
 * has no channel for that axis; out gets num_frames x num_joints floats per
 * axis, frame-major like pos_x/y/z. out's arrays may be bvh's pos_x/y/z
 * themselves, axis for axis (in place), and must not otherwise overlap
 * them or each other. Errors (out untouched): PB_IO_ERR_ARG (NULL, a
 * clip without motion, overlap). */
PB_API pb_io_code pb_bvh_three_translations(const pb_bvh *bvh, pb_vec3s out, pb_io_error *err);

/* The inverse bind matrices of bvh's rest pose (identity rotations, the
 * joints' OFFSETs as translations; position channels not used), 16 floats
 * per joint, column-major, into out (16 * num_joints floats): for
 * pb_pose_skinning_matrices (pb_pose_inverse_bind_matrices, whose accuracy
 * they have). Errors (out untouched): PB_IO_ERR_ARG (NULL, no joints, out
 * overlapping the clip), PB_IO_ERR_VALUE (an OFFSET not finite),
 * PB_IO_ERR_NOMEM. */
PB_API pb_io_code pb_bvh_inverse_bind_matrices(const pb_bvh *bvh, float *out, pb_io_error *err);

/* The motion of bvh as a pb_clip (rotations and positions, no scales): both
 * are frame-major structure of arrays, so the clip points into bvh (writing
 * through it changes bvh). For pb_clip_sample / pb_clip_resample and the
 * batch functions of posebatch.h. */
PB_API pb_clip pb_bvh_clip(const pb_bvh *bvh);

/* A new clip of skeleton's joints and End Sites (copied: *out owns them)
 * with `frames` frames of the rest pose (identity rotations, OFFSET
 * translations) and the given frame time, for writing motion computed
 * elsewhere with a file's skeleton; release with pb_bvh_free. No source
 * angles (the writer's Euler choice is then continuous). Errors (*out
 * untouched): PB_IO_ERR_ARG (NULL, frame_time not finite and > 0),
 * PB_IO_ERR_LIMIT (frames x joints above 2^28), PB_IO_ERR_NOMEM. */
PB_API pb_io_code pb_bvh_new_motion(const pb_bvh *skeleton, size_t frames, double frame_time,
                                    pb_bvh *out, pb_io_error *err);

/* pb_bvh_resample flag, with PB_CLIP_LOOP: each ROOT's travel per cycle
 * (D = p[F-1] + v - p[0], v the mean of the first and last frame steps) is
 * taken out before the cyclic resample and put back at each output frame's
 * source position, so that a walk keeps moving forward across the seam
 * instead of sliding back (what `posebatch resample --loop` does). */
#define PB_BVH_LOOP_TRAVEL (1u << 16)

/* src resampled to fps frames per second into a new *out (release with
 * pb_bvh_free): a copy of src's skeleton with
 * pb_clip_resample_frames(pb_bvh_clip(src), fps, flags) frames of
 * pb_clip_resample (rotations by quaternion Catmull-Rom, positions by vec3
 * Catmull-Rom; flags 0, PB_CLIP_LOOP or PB_CLIP_LOOP | PB_BVH_LOOP_TRAVEL),
 * frame time 1 / fps, and src's source
 * angles and decimals carried over (pb_bvh_resample_angles), so that writing
 * it follows the source's Euler angles and digits. Errors (*out untouched):
 * PB_IO_ERR_ARG (NULL, src without frames, fps not finite and > 0, unknown
 * flags, PB_BVH_LOOP_TRAVEL without PB_CLIP_LOOP), PB_IO_ERR_LIMIT (more
 * than 2^28 frames x joints), PB_IO_ERR_NOMEM. */
PB_API pb_io_code pb_bvh_resample(const pb_bvh *src, double fps, unsigned flags, pb_bvh *out,
                                  pb_io_error *err);

/* Source angles and decimals for a resampled clip: dst->euler_deg and
 * dst->decimals (replaced) get, for each of its frames at time
 * g * dst->frame_time, src's euler_deg interpolated linearly between the
 * enclosing source frames (the later one's angles first moved by multiples of
 * 360 degrees to within 180 of the earlier's) and the finer of their
 * decimals (a frame at a source frame's time: that frame's); loop != 0: the
 * frame after the last is the first, else times past the end take the last
 * frame. Each is left NULL when src has none. Same skeleton required
 * (PB_IO_ERR_ARG). */
PB_API pb_io_code pb_bvh_resample_angles(const pb_bvh *src, int loop, pb_bvh *dst,
                                         pb_io_error *err);

/* pb_bvh_resample then pb_bvh_write_file_with(path, ..., opts), without the
 * resampled clip in memory: frames are resampled, converted to Euler angles,
 * formatted and written a block at a time (a few hundred kilobytes at any
 * clip length, instead of 40 bytes per output joint-sample), so the job's
 * memory and page faults are those of its input. The file is bitwise the
 * one the two calls write, and is written the same way (a temporary renamed
 * over path; on any error nothing replaces path). PB_BVH_LOOP_TRAVEL goes
 * through pb_bvh_resample (the travel needs the whole clip). Errors: those
 * of the two calls; a text that would be too large is refused up front
 * from an estimate over the source's lines, and exactly while writing. */
PB_API pb_io_code pb_bvh_resample_write_file(const pb_bvh *src, double fps, unsigned flags,
                                             const char *path, const pb_bvh_write_opts *opts,
                                             pb_io_error *err);

/* The size in bytes of the text pb_bvh_resample_write_file(src, fps, flags,
 * ..., opts) would write, estimated without resampling the clip: its
 * header, and its longest line among 16 output frames spread over it
 * (sampled, with the source's angles, and formatted as the writer will),
 * times *frames, the output's frame count. For refusing an output before
 * computing it (PB_BVH_MAX_FILE_BYTES); PB_BVH_LOOP_TRAVEL's drift is left
 * out. Errors (*frames, *bytes untouched): those of pb_bvh_resample's
 * argument checks, PB_IO_ERR_LIMIT, PB_IO_ERR_NOMEM. */
PB_API pb_io_code pb_bvh_resample_estimate(const pb_bvh *src, double fps, unsigned flags,
                                           const pb_bvh_write_opts *opts, size_t *frames,
                                           double *bytes, pb_io_error *err);

/* Releases everything owned by bvh and zeroes it. NULL and zeroed are fine. */
PB_API void pb_bvh_free(pb_bvh *bvh);

/* Changes the number of frames: keeps the first min(old, frames) frames, new
 * frames get the rest pose (identity rotation, OFFSET translation).
 * frames * num_joints must be <= 2^28 (PB_IO_ERR_LIMIT). */
PB_API pb_io_code pb_bvh_set_frames(pb_bvh *bvh, size_t frames, pb_io_error *err);

/* Index of the first joint with this exact name, or -1. */
PB_API long pb_bvh_find_joint(const pb_bvh *bvh, const char *name);

/* "Xposition", ... "Zrotation"; NULL out of range. */
PB_API const char *pb_bvh_channel_name(pb_bvh_channel c);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_BVH_H */
