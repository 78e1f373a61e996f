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
    "has Frame Time 1/N. Output frames: floor((F-1) * T * N) + 1 for F input\n"
    "frames of T seconds, or round(F * T * N) with --loop.\n"
    "\n"
    "  -o, --output PATH  output file (one input), or directory: with several\n"
    "                     inputs, or when PATH is a directory or ends in '/',\n"
    "                     each output is PATH/<input file name> (the directory\n"
    "                     is created if missing); '-o -' is standard output\n"
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
    "refused. Outputs are written atomically: a failed write leaves nothing.\n"
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

/* An input file's identity, for clash checks by sorting. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    size_t index;
} file_id;

static int by_id(const void *pa, const void *pb)
{
    const file_id *a = pa, *b = pb;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino)
        return a->ino < b->ino ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The first (lowest) input index of file st among ids[m] sorted by_id, or
 * (size_t)-1. */
static size_t input_of(const file_id *ids, size_t m, const struct stat *st)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const file_id *f = &ids[mid];
        if (f->dev < st->st_dev || (f->dev == st->st_dev && f->ino < st->st_ino))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m && ids[lo].dev == st->st_dev && ids[lo].ino == st->st_ino ? ids[lo].index
                                                                            : (size_t)-1;
}

typedef struct out_ref {
    const char *out;
    size_t index;
} out_ref;

static int by_out(const void *pa, const void *pb)
{
    const out_ref *a = pa, *b = pb;
    int c = strcmp(a->out, b->out);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* Refuses outputs that are an input file (device and inode, as
 * cli_same_output) or repeat an earlier output: with -j the two writers (or a
 * reader and a writer) would race. Linear in stat calls (each input and
 * output once, "-" never), O(n log n) in all: thousands of inputs set up in
 * milliseconds. Messages come in input order. Returns CLI_OK, or CLI_FAILED
 * when out of memory. */
static int refuse_clashes(job *jobs, size_t n)
{
    file_id *ids = malloc((n ? n : 1) * sizeof *ids);
    out_ref *outs = malloc((n ? n : 1) * sizeof *outs);
    size_t *clash = malloc((n ? n : 1) * sizeof *clash); /* input clashed with, or -1 */
    size_t m = 0, k = 0;
    if (!ids || !outs || !clash) {
        free(ids);
        free(outs);
        free(clash);
        cli_error("out of memory");
        return CLI_FAILED;
    }
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!cli_is_dash(jobs[i].in) && stat(jobs[i].in, &st) == 0)
            ids[m++] = (file_id){st.st_dev, st.st_ino, i};
    }
    qsort(ids, m, sizeof *ids, by_id);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        clash[i] = (size_t)-1;
        if (!cli_is_dash(jobs[i].out) && stat(jobs[i].out, &st) == 0)
            clash[i] = input_of(ids, m, &st);
        if (clash[i] == (size_t)-1)
            outs[k++] = (out_ref){jobs[i].out, i};
    }
    /* Among the jobs left, equal output paths: the first one keeps it. */
    qsort(outs, k, sizeof *outs, by_out);
    size_t *dup_of = clash; /* reused: n + i marks "output of job i too" */
    for (size_t g = 0, r = 1; r <= k; r++) {
        if (r < k && strcmp(outs[r].out, outs[g].out) == 0)
            dup_of[outs[r].index] = n + outs[g].index;
        else
            g = r;
    }
    for (size_t i = 0; i < n; i++) {
        size_t c = clash[i];
        if (c == (size_t)-1)
            continue;
        jobs[i].failed = 1;
        if (c >= n)
            cli_error("%s: output %s is also the output of %s; skipped", jobs[i].in, jobs[i].out,
                      jobs[c - n].in);
        else if (c == i || cli_same_output(jobs[i].out, jobs[i].in))
            cli_error("%s: the output would overwrite this input; refused", jobs[i].in);
        else
            cli_error("%s: output %s is the input file %s; refused", jobs[i].in, jobs[i].out,
                      jobs[c].in);
    }
    free(ids);
    free(outs);
    free(clash);
    return CLI_OK;
}

static int want_dir(const cli_opts *o)
{
    size_t len = strlen(o->out);
    if (cli_is_dash(o->out)) /* standard output */
        return 0;
    return o->num_inputs > 1 || cli_is_dir(o->out) || (len > 0 && o->out[len - 1] == '/');
}

/* Output paths for every input; returns CLI_OK, or an exit code. */
static int plan_outputs(const cli_opts *o, job *jobs)
{
    int dir = want_dir(o);
    struct stat st;
    if (dir && stat(o->out, &st) == 0 && !S_ISDIR(st.st_mode))
        return cli_usage_error(o->cmd, "-o %s: with several inputs -o must be a directory", o->out);
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
    return refuse_clashes(jobs, o->num_inputs);
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
