/*
 * posebatch/io.h — files: the BVH (Biovision Hierarchy) and glTF 2.0 readers
 * and writers, Euler angles <-> quaternions, and resampling a whole file's
 * motion.
 * Part of libposebatch (link as for posebatch.h: pkg-config posebatch, or
 * CMake find_package(posebatch)).
 *
 *     pb_bvh in, out;
 *     pb_io_error err;
 *     if (pb_bvh_read_file("in.bvh", &in, &err) ||
 *         pb_bvh_resample(&in, 60.0, 0, &out, &err) ||
 *         pb_bvh_write_file("out.bvh", &out, &err))
 *         fprintf(stderr, "%s\n", err.message);  // "line 12: ..." or "PATH: reason"
 *
 * Errors
 * ------
 * Every function here returns a pb_io_code (PB_IO_OK == 0, so a nonzero
 * result is an error) and fills an optional pb_io_error: the code, the
 * 1-based line of the problem (0 when it is not about a line: I/O, memory,
 * arguments) and a message ("line N: ..." for problems in a text, "PATH:
 * reason" for I/O; the file name is not repeated in text errors). Like
 * pb_status for the batch functions, the code says what kind of failure it
 * is; the message says exactly what and where. Outputs are untouched on
 * error, with one documented exception: the readers leave *out zeroed
 * (nothing to free). Warnings (not errors) go to pb_bvh_read_opts.warn.
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
 * Thread safety: every function is reentrant; distinct pb_bvh objects may be
 * used from different threads at once.
 */
#ifndef POSEBATCH_IO_H
#define POSEBATCH_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../posebatch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Euler angles <-> quaternions (double precision)                          */
/* ------------------------------------------------------------------------ */
/*
 * Convention (the BVH one): an order names the rotation axes in the order the
 * channels are listed, and the rotation is the product of the elementary
 * rotations in that order, applied to column vectors:
 *
 *     order ZXY, angles (a, b, c)  ->  R = Rz(a) * Rx(b) * Ry(c)
 *
 * i.e. intrinsic rotations in listed order (equivalently extrinsic in reverse
 * order). Angles are in degrees; angle k belongs to the k-th axis of the
 * order. Quaternions are (w, x, y, z) with the Hamilton product, matching
 * R: v' = q v q*, so q = q_a(a) * q_b(b) * q_c(c).
 *
 * Partial orders: a BVH joint may list fewer than three rotation channels.
 * The `_n` variants use only the first n (0..3) axes of the order; the
 * remaining angles are zero. The enum always holds a full permutation: the
 * listed axes first, the missing ones appended.
 */
typedef enum pb_euler_order {
    PB_EULER_XYZ = 0,
    PB_EULER_XZY = 1,
    PB_EULER_YXZ = 2,
    PB_EULER_YZX = 3,
    PB_EULER_ZXY = 4,
    PB_EULER_ZYX = 5,
    PB_EULER_ORDER_COUNT = 6
} pb_euler_order;

/* Axis indices (0 = x, 1 = y, 2 = z) of an order, in listed order. Returns 0,
 * or -1 (axes untouched) for an order out of range. */
PB_API int pb_euler_order_axes(pb_euler_order order, int axes[3]);
/* The order whose first axes are a0, a1, a2 (a permutation of 0, 1, 2); -1 if
 * they are not a permutation. */
PB_API int pb_euler_order_from_axes(int a0, int a1, int a2);
/* "XYZ", "XZY", ...; NULL for an order out of range. */
PB_API const char *pb_euler_order_name(pb_euler_order order);

/* q = q_a0(deg[0]) q_a1(deg[1]) q_a2(deg[2]) (unit; (w, x, y, z)). Any finite
 * angles; NaN/Inf angles give a NaN quaternion. */
PB_API void pb_euler_to_quat(pb_euler_order order, const double deg[3], double q[4]);
/* Same with only the first n axes (n = 0 gives the identity; n > 3 is taken
 * as 3). deg[k] for k >= n is not read. */
PB_API void pb_euler_to_quat_n(pb_euler_order order, int n, const double deg[3], double q[4]);

/* Inverse: the angles (degrees) with pb_euler_to_quat(order, deg) == +-q.
 * q need not be unit (it is normalised; a zero or non-finite q gives NaN
 * angles so that the caller can detect it; never NaN for a finite non-zero q).
 *
 * prev == NULL: the principal triple, middle angle in [-90, 90], the others in
 * (-180, 180].
 * prev != NULL: among all equivalent triples -- the two Tait-Bryan branches
 * (a, b, c) and (a + 180, 180 - b, c + 180), each with any multiple of 360
 * added to any angle -- the one closest (sum of squared differences) to prev;
 * the result is therefore continuous along a smooth rotation track, with no
 * +-180 or +-360 jumps.
 *
 * Gimbal lock (middle angle at +-90, where only a + c or a - c is defined):
 * the first angle is kept at prev[0] (0 without prev) and the third absorbs
 * the rest; the middle angle is exactly +-90 (+ multiples of 360) when the
 * input is exactly locked. Near the lock (cos(middle) < 1e-3, i.e. within
 * 0.057 degrees of +-90) the first angle is pulled towards prev[0] (0
 * without prev) as far as that changes the rotation by at most 1e-7 rad,
 * which removes the jitter that the lock amplifies from float-rounded input;
 * elsewhere the decomposition is exact to double rounding. */
PB_API void pb_euler_from_quat(pb_euler_order order, const double q[4], const double prev[3],
                               double deg[3]);
/* Same for a rotation that is a product of only the first n axes (n = 0..3).
 * deg[k] for k >= n is set to 0. For n < 3 the rotation is projected onto the
 * representable ones if it is not exactly representable (n = 1: the twist
 * about the axis; n = 2: the third angle is taken as zero). prev[k] for
 * k >= n is not read. */
PB_API void pb_euler_from_quat_n(pb_euler_order order, int n, const double q[4],
                                 const double prev[3], double deg[3]);

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

/* What kind of failure (pb_io_code_str names it); 0 is success. Every
 * function of the file API, BVH, glTF and the formats table alike, returns
 * one and fills a pb_io_error. */
typedef enum pb_io_code {
    PB_IO_OK = 0,
    PB_IO_ERR_IO = 1,     /* open/read/write/rename failed (message has the OS reason) */
    PB_IO_ERR_SYNTAX = 2, /* malformed file: unexpected token, braces, keywords; not that format */
    PB_IO_ERR_VALUE = 3,  /* a number that is not one, or out of range */
    PB_IO_ERR_LIMIT = 4,  /* absurd counts: frames, channels, depth, joints, size */
    PB_IO_ERR_MOTION = 5, /* data lines disagree with Frames / channel count */
    PB_IO_ERR_NOMEM = 6,  /* allocation failed */
    PB_IO_ERR_ARG = 7     /* invalid argument or inconsistent in-memory data */
} pb_io_code;

typedef struct pb_io_error {
    pb_io_code code;
    long line; /* 1-based line of the problem, 0 if not about a line */
    /* "line N: ..." (or "PATH: reason" for I/O errors). Room for a PATH_MAX
     * path and the text after it; an I/O message whose path would not fit
     * with its reason leaves the path out rather than cut the reason. */
    char message[4096 + 256];
} pb_io_error;

/* The names of the release before, when the file API read BVH only: the
 * same types and values, kept for one release. */
typedef pb_io_code pb_bvh_code;
typedef pb_io_error pb_bvh_error;
#define PB_BVH_OK PB_IO_OK
#define PB_BVH_ERR_IO PB_IO_ERR_IO
#define PB_BVH_ERR_SYNTAX PB_IO_ERR_SYNTAX
#define PB_BVH_ERR_VALUE PB_IO_ERR_VALUE
#define PB_BVH_ERR_LIMIT PB_IO_ERR_LIMIT
#define PB_BVH_ERR_MOTION PB_IO_ERR_MOTION
#define PB_BVH_ERR_NOMEM PB_IO_ERR_NOMEM
#define PB_BVH_ERR_ARG PB_IO_ERR_ARG

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
 * pb_euler_from_quat); PB_BVH_EULER_PRINCIPAL: the principal triple.
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
 * children, invalid channel lists, names that are empty or contain braces,
 * control characters or leading/trailing blanks); those are checked before
 * any file is created. Prints in the "C" numeric locale whatever the process
 * locale is. */
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
/* Short name of a code ("syntax error", ...); never NULL. pb_bvh_code_str:
 * the same, its name of the release before. */
PB_API const char *pb_io_code_str(pb_io_code code);
PB_API const char *pb_bvh_code_str(pb_io_code code);

/* Writes a file of any content (a CSV, an array) by the output-path rules of
 * the BVH and glTF writers: fn writes the whole content to f and returns
 * PB_IO_OK or a code it has put in err (with its message); the bytes go to
 * a temporary file in the target's directory, flushed, synced and renamed
 * over path (a symbolic link's target is replaced, the link kept; a
 * character device or FIFO is written through; a directory, socket or block
 * device is refused, PB_IO_ERR_IO). On any error, fn's included, nothing
 * replaces path. The temporary is registered for
 * pb_io_unlink_temporaries. */
typedef pb_io_code (*pb_io_write_fn)(FILE *f, void *ctx, pb_io_error *err);
PB_API pb_io_code pb_io_write_file(const char *path, pb_io_write_fn fn, void *ctx,
                                   pb_io_error *err);

/* Removes every temporary file the writers are writing at this moment (the
 * atomic pb_bvh_write_file*), for a signal handler that is about to end the
 * process: async-signal-safe, keeps errno. Returns how many were removed. */
PB_API int pb_io_unlink_temporaries(void);

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
 * matrix gets its decomposition), skins (joints), and every animation:
 * channels (node, path translation / rotation / scale / weights; morph
 * weights are sampled and resampled like the others) and samplers (input key
 * times, output values, LINEAR / STEP / CUBICSPLINE); a channel without a
 * node is ignored, as glTF says. Accessors of samplers are decoded to float:
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
 * Channels whose samplers share key times are evaluated in one call per kind.
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
 * PB_IO_ERR_IO with the OS reason. */
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
 * the end key repeated). Everything else is src's. */
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

/* A glTF of a BVH clip: one node per joint (names kept, OFFSET as
 * translation), End Sites as leaf nodes named "<parent>_End" with extras
 * {"bvh_end_site": true}, each joint's BVH channel list in its node's extras
 * ("bvh_channels"), a scene of the roots, and one animation "bvh" of LINEAR
 * keys at the frames' times: a rotation channel per joint and a translation
 * channel per joint with position channels (extras "bvh_frame_time"). */
PB_API pb_io_code pb_gltf_from_bvh(const pb_bvh *bvh, pb_gltf *out, pb_io_error *err);

/* A BVH of a glTF skeleton. Joints: the joints of skin `skin` and their
 * ancestors, or with skin < 0 every node (a file with exactly one skin: pass
 * pb_gltf_default_skin), in depth-first order. Channels: those recorded in
 * "bvh_channels" extras (a file written by pb_gltf_from_bvh), else
 * "Xposition Yposition Zposition Zrotation Yrotation Xrotation" for roots
 * and joints with an animated translation, "Zrotation Yrotation Xrotation"
 * for the others (R = Rz Ry Rx). Motion: animation `anim` sampled at
 * frame_time steps from its t_min, floor((t_max - t_min) / frame_time +
 * 1e-3) + 1 frames (frame_time <= 0: its "bvh_frame_time" extras, else the
 * median key interval of its sampler with the most keys, else 1/30 s);
 * without animations one frame of the rest pose. Scales are not represented
 * in BVH and are dropped. Node names are made BVH-safe (braces and control
 * characters become '_', outer blanks dropped, an empty name "node<i>"). */
PB_API pb_io_code pb_gltf_to_bvh(const pb_gltf *g, long skin, size_t anim, double frame_time,
                                 pb_bvh *out, pb_io_error *err);
/* The skin to convert: 0 for a file with one skin, -1 for none or several. */
PB_API long pb_gltf_default_skin(const pb_gltf *g);

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

/* ------------------------------------------------------------------------ */
/* Retargeting: a clip onto another skeleton                                */
/* ------------------------------------------------------------------------ */
/*
 * pb_bvh_retarget plays a clip's motion on another skeleton (joints, OFFSETs
 * and End Sites of a second pb_bvh; its motion, if any, is not read).
 *
 * Matching (pb_bvh_retarget_match). Joints are paired one to one:
 * 1. the map's pairs (source name = target name, exact names);
 * 2. the remaining joints by key, equal keys pairing. A name's key: the part
 *    after its last ':' ("mixamorig:Hips"), split into words at separators
 *    (blank _ - . and others) and case changes ("LeftUpLeg": left up leg,
 *    "LHip": l hip), lower case, leading zeros of numbers dropped; leading
 *    prefix words dropped (mixamorig, bip/biped/character with their number,
 *    joint, jnt, def: "Bip01 L Thigh", "Character1_Hips", "joint_Root"); a
 *    side word first or last (left, l, right, r; or "left"/"right" starting
 *    or ending a lower-case name) is the side; the other words joined are
 *    the core, which names a family where it is one of these (side needed
 *    for the limbs, none for the others):
 *      hips: hips, hip, pelvis, root | spine, spine1, spine2, spine3 |
 *      chest: chest, thorax | upperchest | neck | neck1 | head |
 *      collar: collar, clavicle, shoulder | arm: arm, upperarm, humerus |
 *      forearm: forearm, lowerarm, elbow | hand: hand, wrist |
 *      upleg: upleg, upperleg, thigh, hip, femur |
 *      leg: leg, lowerleg, knee, shin, calf | foot: foot, ankle |
 *      toe: toebase, toe, toes, ball
 *    so "LeftUpLeg", "LeftThigh", "LHip", "l_hip", "UpperLeg_L" all have
 *    the key (left, upleg); other names are their own core ("LThumb":
 *    (left, thumb)). Two joints of one skeleton with one key: a "shoulder"
 *    below a collar-family joint becomes the arm (3ds Max's LeftCollar /
 *    LeftShoulder / LeftElbow / LeftWrist); otherwise the family's own name
 *    (e.g. "hips" over "root") wins, then the first in file order, and the
 *    other stays unmatched.
 * The matched joints must hang under one matched pair, the root pair: the
 * first matched joint of each skeleton (file order) must be matched to the
 * other's first, and every matched joint must be it or below it (else
 * "no root match"). At least min(4, source joints, target joints) pairs are
 * needed ("too few matches"). A matched name used by two joints of its
 * skeleton is an error (ambiguous).
 *
 * Motion. Rest poses are the OFFSETs with identity rotations (BVH's), so a
 * rest alignment A_t (a rotation) per matched target joint t, from the rest
 * positions p (OFFSETs summed, double) of the two skeletons: t's matched
 * descendants without a matched joint between (its "chains"), each with
 * direction p(child) - p(t) and the same for their matches in the source;
 *   one chain: the shortest rotation taking the target direction to the
 *     source's;
 *   several: the rotation taking the target's frame to the source's, each
 *     frame built from a primary direction (a chain to a side-less joint,
 *     e.g. the spine, else the first) and a secondary (a left minus right
 *     pair of chains, e.g. the thighs or shoulders, else the next chain);
 *   none (a leaf of the matching): the shortest rotation between the only
 *     children (joint or End Site) where each joint has exactly one, else
 *     the nearest matched ancestor's A (identity at the root).
 * (A chain of zero length in either skeleton gives way to its own chains,
 * e.g. CMU's Hips -> LHipJoint (at the Hips) -> LeftUpLeg counts as Hips ->
 * LeftUpLeg; a chain whose source match is not below t's match is not
 * used.) Per frame, source global rotations G_s by
 * pb_pose_local_to_model; the target's global G_t = G_s A_t for a matched
 * joint, its parent's for an unmatched one (local rotation identity: the
 * rest pose), and local rotations by pb_pose_model_to_local; where t's
 * parent is matched to s's parent (or both are roots) the local rotation is
 * A_parent^-1 r_s A_t directly (double; a copy when both are identity). So
 * the world direction of every chain (and the frame at a branch point) is
 * the source's wherever the source joints between the pair are at rest; a
 * bend at unmatched source joints between them (CMU's Spine1 and Neck1 on
 * a skeleton without them) is not carried: the target joint takes its
 * matched source joint's global rotation (the source's Head keeps its own).
 * Translation: the root pair's target joint is placed at k times the source
 * joint's model-space position, k = target hip height / source hip height,
 * hip height = the root pair joint's rest height (y) above the lowest rest
 * joint of its skeleton (1 where either is below 1e-6 times its skeleton's
 * extent); the value goes to the position channels of that joint, else of
 * its nearest ancestor having them (else it is dropped). Other matched
 * joints with position channels whose parent pair matches get the OFFSET
 * plus k times the source's displacement from its OFFSET (in the parent's
 * aligned frame); all other positions are OFFSETs. Only components with a
 * position channel move (pb_bvh's contract).
 * Same skeleton (every joint matched to itself, the same OFFSETs and
 * channels): A = identity, k = 1, every rotation and position a bitwise
 * copy; the source angles and decimals are carried over too, so the written
 * text is the source's. Otherwise the work is in double and each value is
 * rounded to float once (a rotation composed through model space: the
 * error of pb_pose_local_to_model / pb_pose_model_to_local in float).
 * src and target may be the same pb_bvh; out may be neither (*out is
 * overwritten without being freed). Reentrant.
 * Errors (nothing written, *out untouched): PB_IO_ERR_ARG (NULL; out equal
 * to src or target; a source without frames; a skeleton without joints or with parents out of order;
 * a map pair with an empty name, naming a joint not in its skeleton, or
 * naming a joint twice; no root match; too few matches; an ambiguous name),
 * PB_IO_ERR_LIMIT (frames x target joints above 2^28), PB_IO_ERR_NOMEM.
 * Messages name the joints (and the map line where the map has them).
 */

/* Explicit pairs: source[i] is played on target[i]. line may be NULL, else
 * line[i] is pair i's line in its map file (for messages). */
typedef struct pb_retarget_map {
    size_t count;
    const char *const *source;
    const char *const *target;
    const long *line;
    /* private: owned storage of a parsed map */
    void *priv_;
} pb_retarget_map;

enum {
    PB_RETARGET_MAP_ONLY = 1u << 0 /* match only the map's pairs (no names) */
};

typedef struct pb_retarget_opts {
    const pb_retarget_map *map; /* NULL: names alone */
    unsigned flags;             /* PB_RETARGET_* */
} pb_retarget_opts;

/* Parses a map text: one pair a line, "source = target", names trimmed of
 * blanks (inside them blanks are kept: "Bip01 L Thigh = LeftUpLeg"), '#'
 * to the end of the line a comment, blank lines ignored. Errors, *out zeroed
 * (nothing to free): PB_IO_ERR_SYNTAX "line N: ..." (no '=', more than
 * one, an empty name, a control character, a NUL byte), PB_IO_ERR_VALUE (a
 * source or target named twice: "line N: source joint 'X' is already mapped
 * on line M"), PB_IO_ERR_LIMIT (more than PB_BVH_MAX_JOINTS pairs, a text
 * over 16 MiB), PB_IO_ERR_NOMEM. Release with pb_retarget_map_free. */
PB_API pb_io_code pb_retarget_map_parse(const char *text, size_t size, pb_retarget_map *out,
                                        pb_io_error *err);
/* The same from a file (PB_IO_ERR_IO "PATH: reason"; text errors "line N:
 * ..." without the path). */
PB_API pb_io_code pb_retarget_map_read_file(const char *path, pb_retarget_map *out,
                                            pb_io_error *err);
/* Releases a parsed map and zeroes it; NULL and zeroed are fine. */
PB_API void pb_retarget_map_free(pb_retarget_map *map);

/* The matching of the rules above: match[t] = the source joint played on
 * target joint t, or -1 (target->num_joints entries). Errors as
 * pb_bvh_retarget's (match untouched); src needs no frames here. */
PB_API pb_io_code pb_bvh_retarget_match(const pb_bvh *src, const pb_bvh *target,
                                        const pb_retarget_opts *opts, long *match,
                                        pb_io_error *err);

/* src's motion on target's skeleton into a new *out (release with
 * pb_bvh_free): a copy of target's skeleton, src's frame count and frame
 * time, motion by the rules above. opts may be NULL. */
PB_API pb_io_code pb_bvh_retarget(const pb_bvh *src, const pb_bvh *target,
                                  const pb_retarget_opts *opts, pb_bvh *out, pb_io_error *err);
/* Mirroring a clip (src/io/mirror.c; name families: src/io/joint_names.c)  */
/* ------------------------------------------------------------------------ */
/*
 * The left/right pairing of a skeleton's joints by name, and a whole BVH
 * clip mirrored with it (pb_clip_mirror of posebatch.h for the motion, plus
 * the skeleton's OFFSETs and End Sites, reflected and swapped).
 *
 * Name families (ASCII case ignored), the first that applies to a name:
 *   "left"/"right" anywhere, the first occurrence (LeftUpLeg/RightUpLeg,
 *       HandLeft/HandRight, mixamorig:LeftArm);
 *   a "_L"/"_R" or ".L"/".R" ending (Hand_L/Hand_R, hand.l);
 *   an "L_"/"R_" start (L_Hip/R_Hip);
 *   a bare "l"/"r" first letter before a letter or digit (lhip/rhip,
 *       LHipJoint/RHipJoint, LThumb), a side only where the counterpart
 *       exists ("lowerback" has no "rowerback" and is a centre joint).
 * The counterpart is the name with that part swapped, looked up ignoring
 * case. A joint of the first three families whose counterpart is missing is
 * an error (PB_IO_ERR_ARG naming both names), unless an explicit pair names
 * it; a joint of no family is on the centre line (mirror[j] = j).
 * Explicit pairs come first and override the families: {a, b} pairs joints
 * a and b (a == b: a centre joint); each name must be a joint, and a joint
 * may be in one pair only. Names must be unambiguous (two joints whose names
 * differ only in case: PB_IO_ERR_ARG when either is looked up). The result
 * is an involution (checked: a family counterpart that is already paired
 * otherwise is PB_IO_ERR_ARG).
 */
typedef struct pb_joint_pair {
    const char *a, *b;
} pb_joint_pair;

/* The mirror table (mirror[j], n entries written; see pb_clip_mirror) of n
 * joint names. Errors (mirror untouched): PB_IO_ERR_ARG (NULL, a name NULL,
 * the problems above, each message naming the joints). */
PB_API pb_io_code pb_joint_mirror_table(size_t n, const char *const *names,
                                        const pb_joint_pair *pairs, size_t num_pairs,
                                        int32_t *mirror, pb_io_error *err);
/* The same for a BVH's joints (num_joints entries). */
PB_API pb_io_code pb_bvh_mirror_table(const pb_bvh *bvh, const pb_joint_pair *pairs,
                                      size_t num_pairs, int32_t *mirror, pb_io_error *err);

/* src reflected in `plane` with its left and right swapped, into a new *out
 * (release with pb_bvh_free): the same joints (names, channels, order); joint
 * j gets the reflected motion of joint mirror[j] (pb_clip_mirror), its OFFSET
 * is the reflected OFFSET of mirror[j], and each End Site the reflected offset
 * of the End Site at the same place under mirror[j]; source angles
 * (euler_deg) are carried over reflected (an angle about the plane's normal
 * axis kept, the others negated: exactly the reflected rotation in the same
 * channel order) and decimals swapped with their joints, so the written file
 * keeps the source's digits. Forward kinematics of out is then exactly the
 * reflection of src's with paired joints swapped (a mirrored left foot walks
 * the reflected path of the source's right foot); mirroring twice gives src
 * back bit for bit. mirror == NULL: pb_bvh_mirror_table(src) without
 * explicit pairs. A source without frames gives a skeleton without frames.
 * Errors (*out untouched): PB_IO_ERR_ARG (NULL; a plane out of range; a
 * table entry out of range or not an involution; a pair whose parents are
 * not themselves paired (mirror[parent of j] != parent of mirror[j]); paired
 * joints with different channel lists or End Site counts; each message names
 * the joints), PB_IO_ERR_NOMEM. */
PB_API pb_io_code pb_bvh_mirror(const pb_bvh *src, const int32_t *mirror, pb_mirror_plane plane,
                                pb_bvh *out, pb_io_error *err);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_IO_H */
