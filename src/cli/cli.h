/* Shared pieces of the posebatch command-line tool: option parsing, strict
 * number parsing, messages, and pb_bvh <-> pb_clip plumbing. */
#ifndef PB_CLI_H
#define PB_CLI_H

#include <stddef.h>

#include "posebatch.h"
#include "posebatch/io.h"

/* Exit codes (documented in --help and docs/cli.md). */
#define CLI_OK 0
#define CLI_FAILED 1  /* some input could not be read, processed or written */
#define CLI_USAGE 2   /* bad option, missing argument, bad number */
#define CLI_DONE (-1) /* not an exit code: --help was answered */

#define CLI_MAX_FPS 100000.0
#define CLI_MIN_FPS 0.001 /* --fps range: [CLI_MIN_FPS, CLI_MAX_FPS] */
#define CLI_MAX_JOBS 256

/* The --help lines of --strict and --euler (resample and blend). */
#define CLI_HELP_STRICT_EULER                                                                      \
    "      --strict       a 'Frames:' count that disagrees with the data lines is\n"               \
    "                     an error (default: a warning; the data lines count)\n"                   \
    "      --euler MODE   which of the equivalent Euler triples is written:\n"                     \
    "                     source (default: the source's own angles where the\n"                    \
    "                     rotation is the source's, else the triple nearest to\n"                  \
    "                     them), continuous (nearest to the previous frame's),\n"                  \
    "                     principal (middle angle in [-90, 90])\n"

/* Options a command accepts (bit set passed to cli_parse). */
enum {
    OPT_OUT = 1u << 0,
    OPT_FPS = 1u << 1,
    OPT_LOOP = 1u << 2,
    OPT_BACKEND = 1u << 3,
    OPT_JOBS = 1u << 4,
    OPT_WEIGHTS = 1u << 5,
    OPT_METHOD = 1u << 6,
    OPT_REF = 1u << 7,
    OPT_JSON = 1u << 8,      /* info --json */
    OPT_STRICT = 1u << 9,    /* --strict: header counts that disagree are errors */
    OPT_EULER = 1u << 10,    /* --euler source|continuous|principal */
    OPT_VELOCITY = 1u << 11, /* resample --velocity-csv FILE */
    OPT_CUBIC = 1u << 12,    /* resample --cubic (glTF CUBICSPLINE keys) */
    OPT_SKIN = 1u << 13      /* convert --skin N --animation N */
};

typedef struct cli_opts {
    const char *cmd; /* command name, for messages */
    const char *out;
    double fps; /* 0 when not given */
    int loop;
    int jobs;
    const char *weights;  /* unparsed: the command knows how many it needs */
    int weights_as_given; /* --weights-as-given (allowed with OPT_WEIGHTS) */
    int json;             /* --json */
    const char *method;
    const char *ref;
    int cubic;      /* --cubic */
    long skin;      /* --skin N; -1 when not given */
    long animation; /* --animation N; -1 when not given */
    char **inputs;  /* positional arguments */
    size_t num_inputs;
} cli_opts;

/* Parses argv[1..] of a command (argv[0] is the command name). Options not in
 * `allowed` are usage errors; --backend is applied here so that it is in force
 * before any worker starts. With --help, prints `usage` to stdout.
 * Returns CLI_OK to go on, CLI_DONE after --help, or CLI_USAGE (message
 * printed). */
int cli_parse(int argc, char **argv, unsigned allowed, const char *usage, cli_opts *o);
/* A command's own options, taken out of argv before cli_parse (the rest,
 * *argc updated, goes on to it): names[i] is "--name" (a flag) or
 * "--name=" (a value: the next word, or after '='; an empty one is a usage
 * error). "--" ends them; the values of -o, --output and --backend are
 * passed over. For each found, take(ctx, i, value or NULL) returns CLI_OK or
 * a usage status, which is returned. */
int cli_take_own(const char *cmd, int *argc, char **argv, const char *const *names, int count,
                 int (*take)(void *ctx, int which, char *value), void *ctx);
/* The exit code for a cli_parse result other than CLI_OK. */
#define CLI_EXIT(rc) ((rc) == CLI_DONE ? CLI_OK : (rc))

/* Strict parsers: the whole string must be a plain decimal number
 * ([+-]digits[.digits][e[+-]digits]; no blanks, hexadecimal, inf or nan), the
 * value finite; cli_parse_fps also wants [CLI_MIN_FPS, CLI_MAX_FPS].
 * Return 0 on success. */
int cli_parse_double(const char *s, double *out);
int cli_parse_fps(const char *s, double *out);

/* "posebatch: ..." on stderr, serialised with the progress line. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* A usage error: message, a pointer to --help, and CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Progress on stderr when it is a terminal: "\r[done/total] name"
 * (report.c, with the messages above and the reports below). */
void cli_progress(size_t done, size_t total, const char *name);
/* Progress within one file, as a pb_bvh_write_opts.progress callback (ctx: a
 * cli_file_progress): "\r[index/total] name P%" on stderr when it is a
 * terminal, P the percent of frames written, redrawn when P changes. */
typedef struct cli_file_progress {
    size_t index, total; /* this file's number (1-based) and the file count */
    const char *name;
    int pct; /* last shown; start at -1 */
} cli_file_progress;
void cli_progress_frames(void *ctx, size_t done, size_t total);
void cli_progress_end(void);

/* Reader flags of every cli_load (PB_BVH_READ_STRICT with --strict). */
extern unsigned cli_read_flags;
/* The writer's Euler choice for every output (--euler; default source). */
extern pb_bvh_euler_mode cli_euler_mode;
/* resample --velocity-csv FILE (NULL: none), and the CSV it writes for src
 * resampled to fps (velocity.c): "frame,time,<joint>..." then per output
 * frame each joint's angular speed in degrees per second. Returns 0, or -1
 * (reported for path). */
extern const char *cli_velocity_csv;
int cli_velocity_write(const pb_bvh *src, double fps, unsigned flags, const char *path);
/* Loading clips (load.c): reads a BVH file, reporting any error as "posebatch: FILE: message" and
 * each warning as "posebatch: FILE: warning: message".
 * require_frames: a file without frames is an error. Returns 0 on success. */
int cli_load(const char *path, int require_frames, pb_bvh *out);
/* The same without the motion (PB_BVH_READ_HEADER_ONLY: num_frames is
 * counted, no frame is kept): for describing a file. */
int cli_load_header(const char *path, pb_bvh *out);
/* cli_load with more reader flags (PB_BVH_READ_*). */
int cli_load_flags(const char *path, int require_frames, unsigned flags, pb_bvh *out);
/* 0 when clip b (read from path) has frames; else "FILE: the file has no
 * frames" reported, b freed, -1. */
int cli_require_frames(const char *path, pb_bvh *b);
/* Reports a failed pb_* call for a file. */
void cli_report_status(const char *path, const char *what, pb_status st);
void cli_report_bvh(const char *path, const pb_io_error *err);

/* A joint's channel names, space separated, into buf (>= 64 bytes). */
void cli_channels_str(const pb_bvh_joint *jt, char *buf, size_t size);

/* pb_bvh_new_motion (a copy of skel's skeleton with `frames` rest-pose
 * frames; release with pb_bvh_free), errors reported for path. */
int cli_motion_new(const pb_bvh *skel, size_t frames, double frame_time, pb_bvh *out,
                   const char *path);
/* The size rule of every command that turns keys (or frames) into frames
 * (resample; a glTF input turned into a clip), before the work: an output
 * estimated at `bytes` (frames frames at fps, from an input of `keys` keys
 * or frames) is refused when it is more than the PB_BVH_MAX_FILE_BYTES a
 * BVH file may have, or out of proportion to its input: more than
 * CLI_SIZE_FLOOR bytes at more than CLI_FRAMES_PER_KEY frames a key (a few
 * key times far apart). One message for every command:
 * "FILE: at N fps the output would be about X GB (F frames), more than
 * LIMIT; nothing written (a lower --fps?)". 0, or -1 reported. */
#define CLI_SIZE_FLOOR 64e6
#define CLI_FRAMES_PER_KEY 1000.0
int cli_check_size(const char *path, double fps, size_t frames, double bytes, size_t keys);
/* src resampled to fps by pb_bvh_resample (flags: 0 or PB_CLIP_LOOP) into a
 * new *dst (its own copy of the skeleton), after cli_check_size of its
 * text (pb_bvh_resample_estimate: 16 sampled frames); errors
 * are reported for path. Returns 0 on success (release dst with
 * pb_bvh_free, like every output of cli_resample and cli_resample_loop). */
int cli_resample(const pb_bvh *src, double fps, unsigned flags, pb_bvh *dst, const char *path);
/* cli_resample's checks alone (the frame count, the output's size), for a
 * resample written a block at a time: 0, or -1 reported. */
int cli_resample_check(const pb_bvh *src, double fps, unsigned flags, const char *path);

/* resample --loop (loop.c): like cli_resample with PB_CLIP_LOOP, but each
 * ROOT's per-cycle displacement is carried across the seam (a travelling
 * clip keeps moving forward), after cli_loop_seam_check. */
int cli_resample_loop(const pb_bvh *src, double fps, pb_bvh *dst, const char *path);
/* Warns "posebatch: FILE: warning: --loop: ..." when some joint turns from
 * the last frame to the first by more than 3 times the largest
 * frame-to-frame turn and more than 5 degrees. */
void cli_loop_seam_check(const pb_bvh *b, const char *path);

/* Paths (paths.c): 1 if path names an existing directory. */
int cli_is_dir(const char *path);
/* 1 if path ends in ext (lower case, with its dot), ASCII case ignored. */
int cli_has_ext(const char *path, const char *ext);

/* "-" (paths.c): as an input it reads standard input
 * (cli_load), "-o -" writes standard output. */
int cli_is_dash(const char *path);
/* Usage checks: at most one "-" among the inputs; with several_outputs_ok
 * (resample), "-o -" only with a single input. CLI_OK or CLI_USAGE. */
int cli_check_dash(const cli_opts *o, int several_outputs_ok);

/* A file a command reads or writes, for cli_check_files. */
typedef struct cli_file {
    const char *path;
    const char *role;  /* inputs: NULL for an operand, else the option that
                          names it ("--map"); outputs: not used */
    const char *owner; /* outputs: the input named in messages (NULL: the
                          output itself) */
} cli_file;
/* The one rule that keeps every input of every command from harm, checked
 * by each command before any work, over every file it reads (its operands,
 * the files of --to, --map, --apply) and every file it writes (-o, the
 * outputs of -o DIR, --root-csv, --velocity-csv):
 * - an input given by an option must be a regular file where it exists
 *   (reading a FIFO waits for a writer; a device never ends): refused;
 * - an output that is one of the inputs (the same file: device and inode,
 *   under any spelling, through symbolic and hard links; "-" never is) is
 *   refused: "OWNER: the output OUT would overwrite this input; refused",
 *   or "OWNER: output OUT would overwrite the input IN; refused" ("the
 *   ROLE file IN" for an option's);
 * - an output that repeats an earlier one (the same path, or the same
 *   existing file) is refused, the first keeping it.
 * Linear in stat calls, O(n log n) in all (thousands of files in
 * milliseconds). bad[k] (NULL: not wanted) is set to 1 for each output k
 * refused. Returns the number of refusals (0: go on), or -1 when out of
 * memory; each reported. */
long cli_check_files(const cli_file *ins, size_t n_in, const cli_file *outs, size_t n_out,
                     unsigned char *bad);
/* cli_check_files for a command of one job (at most 4 outputs, owned by
 * ins[0] unless they say otherwise): CLI_OK, or CLI_FAILED (reported). */
int cli_protect(const cli_file *ins, size_t n_in, const cli_file *outs, size_t n_out);
/* The name of a clip output (resample, blend, mirror, root-motion,
 * retarget): OUT, or the file a symbolic link OUT leads to, must end in
 * .bvh, .glb or .gltf (ASCII case ignored), unless OUT is "-" or an
 * existing device or pipe (written as BVH); else a usage error. CLI_OK or
 * CLI_USAGE. */
int cli_check_clip_output(const char *cmd, const char *out);
/* A command of one input clip and one output file (mirror, root-motion,
 * ik): one input, -o given, -o not a directory ("-" allowed); else the
 * usage error. CLI_OK or CLI_USAGE. */
int cli_check_one_in_one_out(const cli_opts *o);
/* The output file name of an input under -o DIR: its base name, or
 * "stdin.bvh" for "-". */
const char *cli_output_name(const char *in);
/* Writes b to out (output.c; "-": standard output; otherwise pb_bvh_write_file_with),
 * reporting any error as "posebatch: OUT: message". Returns 0 on success. */
int cli_write(const char *out, const pb_bvh *b, const pb_bvh_write_opts *opts);
/* A text output (a CSV) by the library's output rules (pb_io_write_file: a
 * temporary renamed into place; "-" standard output): fn writes it all to f
 * and returns 0, or -1 having reported why. The command has checked its
 * files (cli_check_files). 0, or -1 reported; nothing replaced on errors. */
int cli_write_text(const char *path, int (*fn)(FILE *f, void *ctx), void *ctx);
/* A CSV header field ",NAME<suffix>": quoted, quotes doubled, when the name
 * holds a comma or a quote (--velocity-csv, positions). */
void cli_csv_name(FILE *f, const char *name, const char *suffix);
/* SIGINT, SIGTERM, SIGHUP remove the temporary files being written and end
 * the process by the same signal (signals.c). Signals ignored at start stay
 * ignored. */
void cli_install_signals(void);

/* Commands: argv[0] is the command name. */
int cmd_resample(int argc, char **argv);
int cmd_blend(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_cpu(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_positions(int argc, char **argv);
int cmd_retarget(int argc, char **argv);    /* retarget.c */
int cmd_mirror(int argc, char **argv);      /* mirror.c */
int cmd_ik(int argc, char **argv);          /* ik.c */
int cmd_root_motion(int argc, char **argv); /* root_motion.c */
int cmd_features(int argc, char **argv);    /* features.c */
int cmd_skin(int argc, char **argv);        /* skin.c */

/* AMASS inputs (amass.c): 1 when path is an .npz archive (a regular file
 * by its first bytes, else by its name); the clip of one with the rest
 * joint positions of the .npy rest (NULL: the error asking for --rest), 0
 * or -1 reported; --rest FILE taken out of argv (cli_take_own; *rest NULL
 * when absent). */
int cli_is_npz(const char *path);
int cli_load_amass(const char *path, const char *rest, pb_bvh *out);
int cli_take_rest(const char *cmd, int *argc, char **argv, const char **rest);

/* glTF (gltf.c). 1 when path is a glTF file: its first bytes (GLB magic, or
 * a JSON object), or for a file that cannot be read its extension (.gltf,
 * .glb); "-" is never glTF (standard input is read as BVH). */
int cli_is_gltf(const char *path);
/* resample of a glTF file: every animation at fps, LINEAR keys or with cubic
 * CUBICSPLINE keys, written to out (a file: .glb or .gltf by its extension;
 * "-": standard output in the input's format). Errors reported; 0 or -1. */
int cli_gltf_resample(const char *in, const char *out, double fps, int cubic);
/* JSON text on stdout (json.c): a string, quoted and escaped (bytes that
 * are not UTF-8 as U+FFFD); the shortest number that reads back as v. */
void cli_json_str(const char *s);
void cli_json_num(double v);
void cli_json_float(float v);
/* info of a glTF file (json: one JSON line). Errors reported; 0 or -1. */
int cli_gltf_info(const char *path, int json);
/* A clip for the commands that work on BVH motion (blend): a BVH file read
 * with cli_load_flags(path, 1, flags), or a glTF file by cli_gltf_clip; a
 * clip of no frames is an error either way. Returns 0, or -1 (reported). */
int cli_load_clip(const char *path, unsigned flags, pb_bvh *out);
/* A glTF file's clip as cli_load_clip takes it (its one skin, or every node
 * when it has none; its first animation), after cli_check_size of the
 * frames it makes (pb_gltf_to_bvh_estimate); a clip of no frames is not an
 * error here (a skeleton). A file of several skins is an error naming
 * 'posebatch convert --skin N'. 0, or -1 (reported). */
int cli_gltf_clip(const char *path, pb_bvh *out);
/* Writes b as cli_write does, or as glTF (pb_gltf_from_bvh: the skeleton as
 * nodes, one animation) when out ends in .glb or .gltf. */
int cli_write_clip(const char *out, const pb_bvh *b, const pb_bvh_write_opts *opts);
/* cli_write_clip and a second output as one: b is written to its
 * temporary beside out, then also(ctx) writes the second (by the same
 * rules: a CSV through cli_write_text) and returns 0, or -1 having reported
 * why; only then is out renamed into place. Either failing leaves neither
 * written (the second is renamed just before the first; a failure in
 * between, of the first's fsync, close or rename, is the one gap). "-":
 * also() first, then b to standard output. 0, or -1 (reported). */
int cli_write_clip_with(const char *out, const pb_bvh *b, const pb_bvh_write_opts *opts,
                        int (*also)(void *ctx), void *ctx);

#endif /* PB_CLI_H */
