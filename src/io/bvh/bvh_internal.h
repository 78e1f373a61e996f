/* Pieces shared by the BVH reader, writer and resampler (internal to
 * src/io, hidden in libposebatch; the module's contract is the public
 * include/posebatch/io.h). */
#ifndef PB_IO_BVH_INTERNAL_H
#define PB_IO_BVH_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "numtext.h"
#include "posebatch/io.h"
#include "io_internal.h"

#define MAX_ELEMS ((size_t)1 << 28) /* frames * joints, as PB_MAX_COUNT */
/* frames per second at most: a Frame Time below 1 / BVH_MAX_RATE is refused
 * by the reader, and so never written */
#define BVH_MAX_RATE 100000.0
#define BVH_MIN_FRAME_TIME (1.0 / BVH_MAX_RATE)
/* |rotation channel| in degrees that the reader takes: the writer wraps
 * a computed angle beyond it by whole turns */
#define BVH_MAX_ANGLE_DEG 1e6
/* The reader keeps frames * joints <= bytes of motion data + this. */
#define READ_ELEMS_SLACK ((size_t)65536)

/* the neutral layer's error helpers under the names the BVH code uses */
#define bvh_set_err io_set_err
#define bvh_clear_err io_clear_err
#define bvh_path_err io_path_err

extern const char *const bvh_channel_names[6];

/* Allocates the 7 motion arrays of frames * num_joints floats, and euler_deg
 * (3 doubles per element) and decimals when angles != 0 (all NULL when
 * empty; none zeroed); on failure some may be allocated: the caller frees
 * them. */
pb_bvh_code bvh_alloc_motion(pb_bvh *b, size_t frames, int angles);
/* PB_BVH_LOOP_TRAVEL's drift rule (bvh_loop.c) around the cyclic resample
 * of bvh_resample.c. bvh_loop_untravel: *work = src with each ROOT's
 * per-cycle drift taken out of its positions (own positions, everything
 * else shared with src); *d holds the drift, or nothing when none drifts
 * (then *work is *src). bvh_loop_retravel: the drift put back into out
 * (resampled from *work to fps; NULL after a failure), then *d freed. */
typedef struct bvh_drift {
    double (*drift)[3];
    float *mem;
    size_t frames;
} bvh_drift;
pb_bvh_code bvh_loop_untravel(const pb_bvh *src, pb_bvh *work, bvh_drift *d, pb_bvh_error *err);
void bvh_loop_retravel(pb_bvh *out, bvh_drift *d, double src_frame_time, double fps);

/* The data line's layout of b (J joints, checked before): each joint's
 * first_channel the channels of the joints before it, 0..6 channels each,
 * num_channels their sum; else PB_BVH_ERR_ARG (set). */
pb_bvh_code bvh_check_channels(const pb_bvh *b, pb_bvh_error *err);
/* The nesting of b (parents and end sites checked before) as the reader
 * takes it: joints at most PB_BVH_MAX_DEPTH deep (a root is 1), End Sites
 * under joints less deep; else `code` (set). */
pb_bvh_code bvh_check_depth(const pb_bvh *b, pb_bvh_code code, pb_bvh_error *err);
/* The checks the writer makes on in-memory data before writing anything
 * (bvh_write.c). */
pb_bvh_code bvh_validate(const pb_bvh *b, pb_bvh_error *err);
/* The rest positions (identity rotations: OFFSETs summed, in double) of
 * every joint, then of every End Site: 3 (num_joints + num_end_sites)
 * doubles in p. For a clip bvh_validate takes (a parent before its
 * children). */
static inline void bvh_rest_positions(const pb_bvh *b, double *p)
{
    const size_t J = b->num_joints, N = J + b->num_end_sites;
    for (size_t i = 0; i < N; i++) {
        const int32_t par = i < J ? b->joints[i].parent : b->end_sites[i - J].parent;
        const float *off = i < J ? b->joints[i].offset : b->end_sites[i - J].offset;
        for (int k = 0; k < 3; k++)
            p[3 * i + k] = (par >= 0 ? p[3 * (size_t)par + k] : 0.0) + (double)off[k];
    }
}
/* pb_bvh_resample's checks of src (not NULL), fps and flags: OK or the error. */
pb_bvh_code bvh_resample_args(const pb_bvh *src, double fps, unsigned flags, pb_bvh_error *err);
/* The output's frame count for checked arguments (*frames), or the error
 * when it is 0 or frames x joints would pass 2^28 (bvh_resample.c). */
pb_bvh_code bvh_resample_frames(const pb_bvh *src, double fps, unsigned flags, size_t *frames,
                                pb_bvh_error *err);

/* pb_bvh_resample_angles for output frames g0 .. g0+count-1 (step: output
 * frame time over the source's) into out (3 J count doubles) and dec (C
 * count): the same values. src has euler_deg and decimals. */
void bvh_resample_angles_range(const pb_bvh *src, int loop, double step, size_t g0, size_t count,
                               double *out, signed char *dec);

/* The writer's frames from a producer instead of a whole clip (bvh_write.c,
 * bvh_stream.c): run(ctx, deliver, wctx, err) calls deliver(wctx, block,
 * first, err) for consecutive blocks in order (block: a pb_bvh of the text's
 * skeleton whose num_frames frames are text frames first ..), and returns
 * the first non-OK code (deliver's, or its own with *err filled). */
typedef pb_bvh_code (*bvh_deliver_fn)(void *wctx, const pb_bvh *block, size_t first,
                                      pb_bvh_error *err);
typedef struct bvh_feed {
    pb_bvh_code (*run)(void *ctx, bvh_deliver_fn deliver, void *wctx, pb_bvh_error *err);
    void *ctx;
} bvh_feed;
/* Writes the text of head (skeleton, frame time, num_frames; motion arrays
 * unused) with its frames from feed; the line length that the up-front size
 * checks take is estimated from frames of like, a clip of the same skeleton
 * (the source of a resample). */
pb_bvh_code bvh_write_fed(FILE *f, const pb_bvh *head, const pb_bvh *like,
                          const pb_bvh_write_opts *opts, const bvh_feed *feed, pb_bvh_error *err);

/* The Euler angles to write for rotation q (any norm > 0) of a joint whose
 * rotation channels are the first nrot axes of order (bvh_angles.c):
 * PB_BVH_EULER_SOURCE with source angles (3, channel order): the source
 * angles themselves when q is their rotation to float precision (returns 1:
 * print them as read), else the equivalent triple nearest to them;
 * CONTINUOUS (or SOURCE without source angles): nearest to prev (NULL: the
 * principal triple); PRINCIPAL: the principal triple. Returns 0 unless the
 * source angles were taken. */
int bvh_choose_angles(pb_bvh_euler_mode mode, int order, int nrot, const double q[4],
                      const double *source, const double *prev, double deg[3]);

/* bvh_choose_angles for n joints at once (a frame's): joint e has order[e]
 * and nrot[e] rotation channels (0: angles 0, as_read 0), rotation (qw[e],
 * qx[e], qy[e], qz[e]) as stored (all zero is the identity, as the writer
 * takes it), source and prev (NULL or 3 n angles, 3 per joint in channel
 * order, as bvh_choose_angles takes them joint by joint; slots past nrot
 * are not read); deg (3 n) gets the angles, as_read (n) the return values.
 * deg may be prev itself (the previous frame's angles replaced by this
 * one's). The same as_read as bvh_choose_angles, and the same angles to a
 * few ulps, which print the same with the writer's 6 decimals (an angle that
 * could print otherwise is bvh_choose_angles' own, as is every joint near
 * gimbal lock or at one of its discrete decisions' margins): the library's
 * runs on the dispatched Euler kernel (bvh_angles_simd.c), the reader-only
 * build's is a loop over bvh_choose_angles (bvh_angles_scalar.c). A
 * non-finite rotation gives NaN angles (the writer reports it before). */
void bvh_choose_angles_n(pb_bvh_euler_mode mode, size_t n, const uint8_t *order,
                         const uint8_t *nrot, const float *qw, const float *qx, const float *qy,
                         const float *qz, const double *source, const double *prev, double *deg,
                         unsigned char *as_read);

/* pb_euler_to_quat_n for n joints at once (a frame's, as the reader
 * converts them), rounded to float: joint e's angles deg[3e..3e+2] (channel
 * order, slots past nrot[e] not read), order[e], nrot[e] -> (qw[e], qx[e],
 * qy[e], qz[e]). Exactly the floats of (float) pb_euler_to_quat_n: a joint
 * whose float could round otherwise from the dispatched kernel's double is
 * converted by pb_euler_to_quat_n itself (bvh_angles_simd.c; the
 * reader-only build's bvh_angles_scalar.c always is). */
void bvh_euler_to_quat_n(size_t n, const uint8_t *order, const uint8_t *nrot, const double *deg,
                         float *qw, float *qx, float *qy, float *qz);

/* ---- lexing (bvh_lex.c) ---- */

static inline int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
static inline int is_hspace(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }
static inline int is_eol(char c) { return c == '\n' || c == '\r'; }

/* Case-insensitive: the n bytes at s equal the NUL-terminated word. */
int bvh_eq_ci(const char *s, size_t n, const char *word);
/* A printable, truncated copy of a token for messages. */
const char *bvh_show(const char *s, size_t n, char out[48]);
/* Locale-independent decimal number: [+-] digits [. digits] [e [+-] digits],
 * at least one mantissa digit, the whole of s[0..n). No nan/inf/hex. Returns
 * 1 and a finite *out, correctly rounded (pb_nt_parse, numtext.h), or 0. */
int bvh_parse_number(const char *s, size_t n, double *out);
/* The same for the token starting at s (it ends at whitespace or end),
 * read where it starts: its length when it is such a number (finite *out,
 * *info as pb_nt_parse_info gives it), else 0. */
static inline size_t bvh_number_token(const char *s, const char *end, double *out, pb_nt_info *info)
{
    size_t len = pb_nt_parse_info(s, (size_t)(end - s), out, info);
    const char *p = s + len;
    if (len == 0 || (p < end && !is_space(*p)) || !isfinite(*out))
        return 0;
    return len;
}

typedef struct tok {
    const char *s;
    size_t n;
    long line;
} tok;

typedef struct bvh_lexer {
    const char *p, *end;
    long line;      /* line of *p */
    long last_line; /* line of the last token read (for end-of-file errors) */
} bvh_lexer;

/* Skips whitespace including line breaks; counts lines (LF, CRLF, lone CR). */
void lex_skip_ws(bvh_lexer *X);
/* Skips horizontal whitespace only (stays on the line). */
void lex_skip_hws(bvh_lexer *X);
/* Next token: '{', '}' or a run of non-space, non-brace bytes. 0 at EOF. */
int lex_next(bvh_lexer *X, tok *t);
int lex_is(const tok *t, const char *word);
/* Matches a case-insensitive keyword at X->p (no line breaks skipped). */
int lex_match_kw(bvh_lexer *X, const char *kw);
/* The rest of the current line is a single token (returned) followed only by
 * horizontal whitespace. Returns 0 if there is no token. */
int lex_line_value(bvh_lexer *X, tok *t);
/* Only horizontal whitespace up to the end of the line (or file). */
int lex_rest_blank(bvh_lexer *X);

#endif /* PB_IO_BVH_INTERNAL_H */
