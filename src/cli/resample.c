/* posebatch resample: every input is an independent job (read, resample,
 * write), so -j N simply runs N of them at a time. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char usage[] =
    "usage: posebatch resample IN.bvh|IN.glb|IN.gltf... (-o OUT | -o DIR) --fps N [options]\n"
    "\n"
    "Resamples each clip to N frames per second: rotations by quaternion\n"
    "Catmull-Rom (hemisphere flips in the input are handled), positions by\n"
    "vec3 Catmull-Rom. The output keeps the skeleton and channel layout and\n"
    "has Frame Time 1/N. Output frames: floor((F-1) / s) + 1 for F input\n"
    "frames of T seconds, or round(F / s) with --loop, where s = 1 / (T N) is\n"
    "the step in input frames, taken as the fraction p/q (q <= 64) within\n"
    "1e-4 of it where there is one (a Frame Time of 0.008333 is 1/120 s).\n"
    "\n"
    "  -o, --output PATH  output file (one input: .bvh, .glb or .gltf), or\n"
    "                     directory: with several inputs, or when PATH is a\n"
    "                     directory or ends in '/', each output is\n"
    "                     PATH/<input file name> (a missing directory is made\n"
    "                     when PATH ends in '/'); '-o -' is standard output\n"
    "                     (one input only). An input '-' is standard input\n"
    "                     (once; its output under -o DIR is stdin.bvh)\n"
    "      --fps N        output frame rate, 0.001 <= N <= 100000 (required)\n"
    "      --loop         the clips are cyclic: the last frame is followed by\n"
    "                     the first, and one period is written. A ROOT that\n"
    "                     travels (a walk, a run) keeps going across the seam:\n"
    "                     its displacement per cycle, D = p[F-1] + v - p[0]\n"
    "                     with v the mean of the first and last frame steps,\n"
    "                     is taken out before resampling (p[f] - D f/F) and\n"
    "                     put back at the output times. A warning says the\n"
    "                     clip is not cyclic when a joint turns from the last\n"
    "                     frame to the first by more than 3 times the largest\n"
    "                     frame-to-frame turn and more than 5 degrees\n"
    "      --velocity-csv FILE\n"
    "                     also write FILE: 'frame,time,<joint>...' then, per\n"
    "                     output frame, each joint's angular speed (degrees per\n"
    "                     second) of the resampled curve (one input only)\n" CLI_HELP_STRICT_EULER
    "      --backend NAME force a SIMD backend (see 'posebatch cpu')\n"
    "  -j, --jobs N       process N inputs at a time, 1..256 (default 1)\n"
    "      --cubic        glTF inputs: CUBICSPLINE keys with Catmull-Rom tangents\n"
    "                     (default: LINEAR keys); a BVH input with it fails\n"
    "  -h, --help         this help\n"
    "\n"
    "glTF inputs (.glb, .gltf, recognised by their content): every animated\n"
    "channel of every animation is sampled as glTF 2.0 defines it at uniform\n"
    "times t0 + i/N (t0, t1 each animation's first and last key time,\n"
    "i = 0 .. floor((t1 - t0) N), and t1 itself where that is not a step)\n"
    "and written as LINEAR keys (or with --cubic\n"
    "CUBICSPLINE keys); everything that is not animation is copied through,\n"
    "the buffers rewritten compactly. The output is GLB when its name ends in\n"
    ".glb, else glTF JSON with the buffer embedded (a data: URI).\n"
    "A BVH input written to OUT.glb or OUT.gltf is converted as 'posebatch\n"
    "convert' does (the skeleton as nodes, one animation of LINEAR keys).\n"
    "\n"
    "An output that would replace an input, or another input's output, is\n"
    "refused, and so is an output more than 64 MB at more than 1000 frames\n"
    "per input frame or key (see 'posebatch convert --help'). Under -o DIR an\n"
    "output already there that is not a regular file (a FIFO) is skipped.\n"
    "Outputs are written atomically: a failed write leaves nothing.\n"
    "Exit status: 0 all written, 1 some input failed (the others are still\n"
    "written), 2 usage error.\n";

typedef struct job {
    const char *in;
    char *out;
    int failed;
} job;

typedef struct pool {
    job *jobs;
    size_t n;
    size_t next, done; /* under lock */
    double fps;
    unsigned flags;
    pthread_mutex_t lock;
} pool;

static int cubic_keys;         /* --cubic: glTF outputs get CUBICSPLINE keys */
static unsigned frame_threads; /* threads formatting one file's frames */

static int resample_into(const pb_bvh *src, const job *jb, double fps, unsigned flags,
                         cli_file_progress *fp)
{
    if (!(flags & PB_CLIP_LOOP) && !cli_is_dash(jb->out) &&
        pb_io_format_of_name(jb->out) == PB_IO_FORMAT_BVH) {
        /* BVH to a BVH file: resampled and written a block at a time */
        if (cli_resample_check(src, fps, flags, jb->in) ||
            (cli_velocity_csv && cli_velocity_write(src, fps, flags, jb->in)))
            return -1;
        pb_bvh_write_opts wo = {.euler = cli_euler_mode,
                                .progress = cli_progress_frames,
                                .progress_ctx = fp,
                                .threads = frame_threads};
        pb_io_error err;
        if (pb_bvh_resample_write_file(src, fps, flags, jb->out, &wo, &err) != PB_IO_OK) {
            cli_report_bvh(jb->out, &err);
            return -1;
        }
        return 0;
    }
    pb_bvh dst;
    if ((flags & PB_CLIP_LOOP) ? cli_resample_loop(src, fps, &dst, jb->in)
                               : cli_resample(src, fps, flags, &dst, jb->in))
        return -1;
    if (cli_velocity_csv && cli_velocity_write(src, fps, flags, jb->in)) {
        pb_bvh_free(&dst);
        return -1;
    }
    pb_bvh_write_opts wo = {
        .euler = cli_euler_mode, .progress = cli_progress_frames, .progress_ctx = fp};
    int rc = cli_write_clip(jb->out, &dst, &wo); /* OUT.glb / OUT.gltf: glTF */
    pb_bvh_free(&dst);
    return rc;
}

static int run_job(const job *jb, double fps, unsigned flags, cli_file_progress *fp)
{
    if (cli_is_gltf(jb->in)) { /* glTF: every animation resampled (gltf.c) */
        if (flags & PB_CLIP_LOOP) {
            cli_error("%s: --loop is for BVH inputs, not glTF", jb->in);
            return -1;
        }
        return cli_gltf_resample(jb->in, jb->out, fps, cubic_keys);
    }
    if (cubic_keys) {
        cli_error("%s: --cubic is for glTF inputs, not BVH", jb->in);
        return -1;
    }
    pb_bvh src;
    if (cli_load(jb->in, 1, &src))
        return -1;
    int rc = resample_into(&src, jb, fps, flags, fp);
    pb_bvh_free(&src);
    return rc;
}

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->lock);
        if (i == p->n)
            return NULL;
        job *jb = &p->jobs[i];
        cli_file_progress fp = {i + 1, p->n, jb->in, -1};
        if (!jb->failed)
            jb->failed = run_job(jb, p->fps, p->flags, &fp) != 0;
        pthread_mutex_lock(&p->lock);
        cli_progress(++p->done, p->n, jb->in);
        pthread_mutex_unlock(&p->lock);
    }
}

/* The calling thread works too; if a thread cannot be started the others
 * (at least this one) still finish every job. */
static void run_pool(pool *p, int threads)
{
    pthread_t tid[CLI_MAX_JOBS];
    int started = 0;
    pthread_mutex_init(&p->lock, NULL);
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, worker, p) == 0)
            started++;
    worker(p);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&p->lock);
    cli_progress_end();
}

static char *join_path(const char *dir, const char *name)
{
    size_t d = strlen(dir), n = strlen(name);
    int slash = d > 0 && dir[d - 1] == '/';
    char *p = malloc(d + n + 2);
    if (p)
        snprintf(p, d + n + 2, "%s%s%s", dir, slash ? "" : "/", name);
    return p;
}

/* The one rule for inputs (cli_check_files) over every input and every
 * output (and --velocity-csv, its one input's): an output that is an input
 * file or repeats an earlier output is refused (with -j the two writers, or
 * a reader and a writer, would race). Under -o DIR an output already there
 * that is not a regular file (a FIFO: opening it waits for a reader) is
 * skipped. Returns CLI_OK, or CLI_FAILED when out of memory. */
static int refuse_clashes(job *jobs, size_t n, int dir)
{
    size_t n_out = n + (cli_velocity_csv ? 1u : 0u);
    cli_file *ins = malloc((n ? n : 1) * sizeof *ins);
    cli_file *outs = malloc(n_out * sizeof *outs + 1);
    unsigned char *bad = calloc(n_out + 1, 1);
    long refused = -1;
    if (ins && outs && bad) {
        for (size_t i = 0; i < n; i++) {
            ins[i] = (cli_file){jobs[i].in, NULL, NULL};
            outs[i] = (cli_file){jobs[i].out, NULL, jobs[i].in};
        }
        if (cli_velocity_csv)
            outs[n] = (cli_file){cli_velocity_csv, NULL, jobs[0].in};
        refused = cli_check_files(ins, n, outs, n_out, bad);
    }
    for (size_t i = 0; i < n && refused >= 0; i++) {
        struct stat st;
        if (bad[i] || (n_out > n && bad[n]))
            jobs[i].failed = 1;
        else if (dir && stat(jobs[i].out, &st) == 0 && !S_ISREG(st.st_mode)) {
            cli_error("%s: output %s is already there and is not a regular file; skipped",
                      jobs[i].in, jobs[i].out);
            jobs[i].failed = 1;
        }
    }
    free(ins);
    free(outs);
    free(bad);
    if (refused < 0) {
        cli_error("out of memory");
        return CLI_FAILED;
    }
    return CLI_OK;
}

static int ends_in_slash(const char *path)
{
    size_t len = strlen(path);
    return len > 0 && path[len - 1] == '/';
}

static int want_dir(const cli_opts *o)
{
    if (cli_is_dash(o->out)) /* standard output */
        return 0;
    return o->num_inputs > 1 || cli_is_dir(o->out) || ends_in_slash(o->out);
}

/* Output paths for every input; returns CLI_OK, or an exit code. */
static int plan_outputs(const cli_opts *o, job *jobs)
{
    int dir = want_dir(o);
    struct stat st;
    if (dir && stat(o->out, &st) == 0 && !S_ISDIR(st.st_mode))
        return cli_usage_error(o->cmd, "-o %s: with several inputs -o must be a directory", o->out);
    /* a directory is made only when asked for: "-o one.bvh" with two
     * inputs is a mistake, not a directory named one.bvh */
    if (dir && !cli_is_dir(o->out) && !ends_in_slash(o->out))
        return cli_usage_error(o->cmd,
                               "-o %s: several inputs are written into a directory, and there is "
                               "none of that name (end the name in '/' to have it made)",
                               o->out);
    if (!dir && cli_check_clip_output(o->cmd, o->out) != CLI_OK)
        return CLI_USAGE;
    if (dir && !cli_is_dir(o->out) && mkdir(o->out, 0777) != 0) {
        cli_error("%s: cannot create directory: %s", o->out, strerror(errno));
        return CLI_FAILED;
    }
    for (size_t i = 0; i < o->num_inputs; i++) {
        jobs[i].in = o->inputs[i];
        jobs[i].out = dir ? join_path(o->out, cli_output_name(o->inputs[i])) : strdup(o->out);
        if (!jobs[i].out) {
            cli_error("out of memory");
            return CLI_FAILED;
        }
    }
    return refuse_clashes(jobs, o->num_inputs, dir);
}

static int check_args(const cli_opts *o)
{
    if (o->num_inputs == 0)
        return cli_usage_error(o->cmd, "no input files");
    if (!o->out || !o->out[0])
        return cli_usage_error(o->cmd, "-o OUT is required");
    if (o->fps == 0.0)
        return cli_usage_error(o->cmd, "--fps N is required");
    if (cli_velocity_csv && o->num_inputs != 1)
        return cli_usage_error(o->cmd, "--velocity-csv takes one input, not %zu", o->num_inputs);
    return cli_check_dash(o, 1);
}

int cmd_resample(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv,
                       OPT_OUT | OPT_FPS | OPT_LOOP | OPT_BACKEND | OPT_JOBS | OPT_STRICT |
                           OPT_EULER | OPT_VELOCITY | OPT_CUBIC,
                       usage, &o);
    if (rc != CLI_OK || (rc = check_args(&o)) != CLI_OK)
        return CLI_EXIT(rc);
    cubic_keys = o.cubic;
    job *jobs = calloc(o.num_inputs, sizeof *jobs);
    if (!jobs) {
        cli_error("out of memory");
        return CLI_FAILED;
    }
    rc = plan_outputs(&o, jobs);
    if (rc == CLI_OK) {
        pool p = {
            .jobs = jobs, .n = o.num_inputs, .fps = o.fps, .flags = o.loop ? PB_CLIP_LOOP : 0u};
        size_t threads = (size_t)o.jobs < o.num_inputs ? (size_t)o.jobs : o.num_inputs;
        /* -j N beyond the inputs: the writer formats each file's frames on
         * the threads left over */
        frame_threads = (unsigned)((size_t)o.jobs / (threads ? threads : 1));
        run_pool(&p, (int)threads);
        for (size_t i = 0; i < o.num_inputs; i++)
            if (jobs[i].failed)
                rc = CLI_FAILED;
    }
    for (size_t i = 0; i < o.num_inputs; i++)
        free(jobs[i].out);
    free(jobs);
    return rc;
}
