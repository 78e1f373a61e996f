/* posebatch features: motion features for learning of each clip (BVH,
 * glTF, AMASS .npz) as an .npz, in posebatch's layout or HumanML3D's
 * (pb_bvh_features, pb_npz_write_file); -j N clips at a time. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char usage[] =
    "usage: posebatch features CLIP... -o OUT.npz|DIR [options]\n"
    "\n"
    "Writes the motion features of each clip (BVH, glTF, or an AMASS .npz with\n"
    "--rest) as a NumPy .npz archive (numpy.load reads it; the arrays and what\n"
    "they hold: docs/formats.md, 'Motion features'). The posebatch layout, per\n"
    "frame: the root's turn rate and ground velocity in its facing frame and\n"
    "its height; every joint's position relative to the root's ground point\n"
    "and velocity in the facing frame; local rotations in 6D; foot contacts;\n"
    "with joint names, parents, fps and the options used. --layout humanml3d:\n"
    "HumanML3D's 263-dimensional vectors of the 22 SMPL joints found by name.\n"
    "\n"
    "  -o, --output OUT   OUT.npz for one clip; a directory (existing, ending in\n"
    "                     '/', or with several clips) gets DIR/NAME.npz\n"
    "      --fps N        resample to N frames per second first (default: the\n"
    "                     clip's rate; humanml3d: 20)\n"
    "      --layout L     posebatch (default) or humanml3d\n"
    "      --mirror       also the mirrored clip (left and right swapped by\n"
    "                     name): OUT_mirror.npz beside OUT.npz\n"
    "      --up AXIS      the clip's up axis: x, y (default: BVH) or z (AMASS)\n"
    "      --scale S      translations times S (units to metres: humanml3d\n"
    "                     wants metres; CMU's BVH units are 0.056444 m)\n"
    "      --root NAME    the joint whose heading and ground point make the\n"
    "                     facing frame (default: the first joint)\n"
    "      --feet LIST    the contacts' joints, comma separated (default: the\n"
    "                     foot and toe name families, left first)\n"
    "      --contact-speed V   a foot slower than V units/s ... (default 0.5\n"
    "                     leg lengths a second)\n"
    "      --contact-height H  ... and less than H units above its lowest point\n"
    "                     in the clip is in contact (default 0.1 leg length)\n"
    "      --map FILE     humanml3d: 'source joint = smpl_joint' lines first\n"
    "      --target FILE.npy   humanml3d: the 22 x 3 joints of the skeleton to\n"
    "                     take bone lengths from (default: the clip's first frame)\n"
    "      --feet-threshold T  humanml3d: a foot's squared step in m^2 per\n"
    "                     frame below which it is in contact (default 0.002)\n"
    "      --rest FILE.npy     AMASS inputs: the rest joint positions (J x 3)\n"
    "  -j, --jobs N       process N clips at a time, 1..256 (default 1)\n"
    "      --strict       a 'Frames:' count that disagrees with the data lines is\n"
    "                     an error (default: a warning; the data lines count)\n"
    "      --backend NAME force a SIMD backend (see 'posebatch cpu')\n"
    "  -h, --help         this help\n"
    "\n"
    "Exit status: 0 all written, 1 some clip failed (the others are still\n"
    "written; nothing is left of a failed one), 2 usage error.\n";

typedef struct fjob {
    const char *in;
    char *out, *out_mirror; /* out_mirror: NULL without --mirror */
    int failed;
} fjob;

typedef struct fcmd {
    pb_feature_file_opts o;
    const char *layout, *up, *scale, *root, *feet, *cspeed, *cheight, *map_path, *target_path, *thr,
        *rest;
    const char **feet_names;
    char *feet_copy;
    pb_retarget_map map;
    float target[PB_HUMANML3D_JOINTS * 3];
    fjob *jobs;
    size_t n, next; /* next: taken atomically by the workers */
} fcmd;

static const char *const own_names[] = {
    "--layout=",        "--mirror",          "--up=",  "--scale=",  "--root=",          "--feet=",
    "--contact-speed=", "--contact-height=", "--map=", "--target=", "--feet-threshold="};
#define NOWN ((int)(sizeof own_names / sizeof own_names[0]))

static int take_own(void *ctx, int which, char *val)
{
    fcmd *c = ctx;
    const char **slot[NOWN] = {&c->layout, NULL,       &c->up,      &c->scale,    &c->root,
                               &c->feet,   &c->cspeed, &c->cheight, &c->map_path, &c->target_path,
                               &c->thr};
    if (which == 1)
        c->o.mirror = 1;
    else
        *slot[which] = val;
    return CLI_OK;
}

static int number(const char *cmd, const char *opt, const char *s, double *out)
{
    if (cli_parse_double(s, out) || *out < 0)
        return cli_usage_error(cmd, "%s: '%s' is not a decimal number >= 0", opt, s);
    return CLI_OK;
}

/* the options into c->o (usage errors reported) */
static int settle(const cli_opts *co, fcmd *c)
{
    const char *cmd = co->cmd;
    if (co->num_inputs == 0)
        return cli_usage_error(cmd, "no input clips");
    if (!co->out || !co->out[0])
        return cli_usage_error(cmd, "-o OUT.npz or -o DIR is required");
    for (size_t i = 0; i < co->num_inputs; i++)
        if (cli_is_dash(co->inputs[i]))
            return cli_usage_error(cmd, "inputs are files ('-' is not read here)");
    if (cli_is_dash(co->out))
        return cli_usage_error(cmd, "-o -: an .npz archive goes to a file");
    c->o.fps = co->fps;
    if (c->layout && strcmp(c->layout, "humanml3d") == 0)
        c->o.layout = PB_FEATURES_HUMANML3D;
    else if (c->layout && strcmp(c->layout, "posebatch") != 0)
        return cli_usage_error(cmd, "--layout: '%s' is not posebatch or humanml3d", c->layout);
    if (c->up) {
        if (strlen(c->up) != 1 || (c->up[0] != 'x' && c->up[0] != 'y' && c->up[0] != 'z'))
            return cli_usage_error(cmd, "--up: '%s' is not x, y or z", c->up);
        c->o.up = (pb_axis)(c->up[0] - 'x');
    }
    double v;
    if (c->scale) {
        if (number(cmd, "--scale", c->scale, &v) || v == 0)
            return cli_usage_error(cmd, "--scale: '%s' is not a number > 0", c->scale);
        c->o.scale = v;
    }
    if (c->cspeed && number(cmd, "--contact-speed", c->cspeed, &c->o.contact_speed))
        return CLI_USAGE;
    if (c->cheight && number(cmd, "--contact-height", c->cheight, &c->o.contact_height))
        return CLI_USAGE;
    if (c->thr && number(cmd, "--feet-threshold", c->thr, &c->o.feet_threshold))
        return CLI_USAGE;
    const int hml = c->o.layout == PB_FEATURES_HUMANML3D;
    if (hml && (c->root || c->feet || c->cspeed || c->cheight))
        return cli_usage_error(cmd, "--root, --feet and --contact-* are for the posebatch layout");
    if (!hml && (c->map_path || c->target_path || c->thr))
        return cli_usage_error(cmd, "--map, --target and --feet-threshold are for humanml3d");
    c->o.root = c->root;
    if (c->feet) {
        size_t n = 1;
        for (const char *p = c->feet; *p; p++)
            n += *p == ',';
        c->feet_names = calloc(n, sizeof *c->feet_names);
        c->feet_copy = strdup(c->feet);
        if (!c->feet_names || !c->feet_copy) {
            cli_error("out of memory");
            return CLI_FAILED;
        }
        size_t k = 0; /* split in place */
        for (char *p = c->feet_copy, *s = c->feet_copy;; p++)
            if (*p == ',' || *p == '\0') {
                int end = *p == '\0';
                *p = '\0';
                if (!*s)
                    return cli_usage_error(cmd, "--feet '%s': an empty name", c->feet);
                c->feet_names[k++] = s;
                s = p + 1;
                if (end)
                    break;
            }
        c->o.feet = c->feet_names;
        c->o.num_feet = k;
    }
    return CLI_OK;
}

/* the map and target files (errors reported) */
static int load_files(fcmd *c)
{
    pb_io_error err;
    if (c->map_path) {
        if (pb_retarget_map_read_file(c->map_path, &c->map, &err) != PB_IO_OK) {
            cli_report_bvh(c->map_path, &err);
            return -1;
        }
        c->o.map = &c->map;
    }
    if (c->target_path) {
        pb_npz t;
        if (pb_npy_read_file(c->target_path, &t, &err) != PB_IO_OK) {
            cli_report_bvh(c->target_path, &err);
            return -1;
        }
        const pb_npy_array *a = &t.arrays[0];
        int ok = a->ndim == 2 && a->shape[0] >= PB_HUMANML3D_JOINTS && a->shape[1] == 3 &&
                 (a->dtype == PB_NPY_F32 || a->dtype == PB_NPY_F64);
        for (size_t i = 0; ok && i < PB_HUMANML3D_JOINTS * 3; i++)
            c->target[i] = a->dtype == PB_NPY_F32 ? ((const float *)a->data)[i]
                                                  : (float)((const double *)a->data)[i];
        pb_npz_free(&t);
        if (!ok) {
            cli_error("%s: --target must be a (22, 3) float array (more rows: the first 22)",
                      c->target_path);
            return -1;
        }
        c->o.target = c->target;
    }
    return 0;
}

/* base (a file name or path) without its extension, plus suffix */
static char *with_suffix(const char *dir, const char *base, const char *suffix)
{
    const char *dot = strrchr(base, '.');
    size_t bl = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    size_t dl = dir ? strlen(dir) : 0;
    int slash = dir && dl > 0 && dir[dl - 1] != '/';
    char *p = malloc(dl + 1 + bl + strlen(suffix) + 1);
    if (p)
        sprintf(p, "%s%s%.*s%s", dir ? dir : "", slash ? "/" : "", (int)bl, base, suffix);
    return p;
}

/* every clip's output(s); CLI_OK or an exit status (reported) */
static int plan(const cli_opts *co, fcmd *c)
{
    const size_t len = strlen(co->out);
    const int dir = co->num_inputs > 1 || cli_is_dir(co->out) || co->out[len - 1] == '/';
    struct stat st;
    if (!dir && !cli_has_ext(co->out, ".npz"))
        return cli_usage_error(co->cmd, "-o %s: the output must end in .npz (or be a directory)",
                               co->out);
    if (dir && stat(co->out, &st) == 0 && !S_ISDIR(st.st_mode))
        return cli_usage_error(co->cmd, "-o %s: with several clips -o must be a directory",
                               co->out);
    if (dir && !cli_is_dir(co->out) && mkdir(co->out, 0777) != 0) {
        cli_error("%s: cannot create directory: %s", co->out, strerror(errno));
        return CLI_FAILED;
    }
    c->jobs = calloc(co->num_inputs, sizeof *c->jobs);
    if (!c->jobs) {
        cli_error("out of memory");
        return CLI_FAILED;
    }
    c->n = co->num_inputs;
    for (size_t i = 0; i < c->n; i++) {
        fjob *j = &c->jobs[i];
        j->in = co->inputs[i];
        j->out = dir ? with_suffix(co->out, cli_output_name(j->in), ".npz") : strdup(co->out);
        if (j->out && c->o.mirror)
            j->out_mirror = with_suffix(NULL, j->out, "_mirror.npz");
        if (!j->out || (c->o.mirror && !j->out_mirror)) {
            cli_error("out of memory");
            return CLI_FAILED;
        }
    }
    /* an output that is an input, or another clip's output: refused, that
     * clip skipped (cli_check_files: O(n log n) over all the files) */
    size_t per = c->o.mirror ? 2u : 1u, n_out = c->n * per;
    cli_file *ins = malloc(c->n * sizeof *ins), *outs = malloc(n_out * sizeof *outs);
    unsigned char *bad = calloc(n_out, 1);
    long refused = -1;
    if (ins && outs && bad) {
        for (size_t i = 0; i < c->n; i++) {
            const fjob *j = &c->jobs[i];
            ins[i] = (cli_file){j->in, NULL, NULL};
            outs[i * per] = (cli_file){j->out, NULL, j->in};
            if (per == 2)
                outs[i * per + 1] = (cli_file){j->out_mirror, NULL, j->in};
        }
        refused = cli_check_files(ins, c->n, outs, n_out, bad);
        for (size_t k = 0; k < n_out && refused > 0; k++)
            if (bad[k])
                c->jobs[k / per].failed = 1;
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

/* a clip from any input: AMASS (an .npz) with --rest, else the format
 * table (cli_load_clip) */
static int load(const fcmd *c, const char *in, pb_bvh *b)
{
    if (cli_is_npz(in))
        return cli_load_amass(in, c->rest, b);
    return cli_load_clip(in, 0u, b);
}

static int write_one(const fcmd *c, const pb_bvh *b, const fjob *j, int mirror)
{
    pb_feature_file_opts o = c->o;
    o.mirror = mirror;
    o.source = cli_output_name(j->in);
    pb_npz z;
    pb_io_error err;
    if (pb_bvh_features(b, &o, &z, &err) != PB_IO_OK) {
        cli_report_bvh(j->in, &err);
        return -1;
    }
    const char *out = mirror ? j->out_mirror : j->out;
    int rc = 0;
    if (pb_npz_write_file(out, z.arrays, z.count, &err) != PB_IO_OK) {
        cli_report_bvh(out, &err);
        rc = -1;
    }
    pb_npz_free(&z);
    return rc;
}

static void *worker(void *arg)
{
    fcmd *c = arg;
    for (;;) {
        size_t i = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED);
        if (i >= c->n)
            return NULL;
        fjob *j = &c->jobs[i];
        if (j->failed)
            continue;
        pb_bvh b;
        if (load(c, j->in, &b)) {
            j->failed = 1;
            continue;
        }
        j->failed = write_one(c, &b, j, 0) != 0 || (c->o.mirror && write_one(c, &b, j, 1) != 0);
        pb_bvh_free(&b);
    }
}

int cmd_features(int argc, char **argv)
{
    fcmd c;
    memset(&c, 0, sizeof c);
    const pb_feature_file_opts dflt = PB_FEATURE_FILE_OPTS_DEFAULT;
    c.o = dflt;
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout); /* --help wins over any other problem */
            return CLI_OK;
        }
    int rc = cli_take_own("features", &argc, argv, own_names, NOWN, take_own, &c);
    if (rc == CLI_OK)
        rc = cli_take_rest("features", &argc, argv, &c.rest);
    if (rc != CLI_OK)
        return rc;
    cli_opts co;
    rc = cli_parse(argc, argv, OPT_OUT | OPT_FPS | OPT_JOBS | OPT_BACKEND | OPT_STRICT, usage, &co);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if ((rc = settle(&co, &c)) == CLI_OK && (rc = load_files(&c) ? CLI_FAILED : CLI_OK) == CLI_OK &&
        (rc = plan(&co, &c)) == CLI_OK) {
        size_t threads = (size_t)co.jobs < c.n ? (size_t)co.jobs : c.n;
        pthread_t tid[CLI_MAX_JOBS];
        size_t started = 0;
        for (size_t t = 1; t < threads; t++)
            if (pthread_create(&tid[started], NULL, worker, &c) == 0)
                started++;
        worker(&c);
        for (size_t t = 0; t < started; t++)
            pthread_join(tid[t], NULL);
        for (size_t i = 0; i < c.n; i++)
            if (c.jobs[i].failed)
                rc = CLI_FAILED;
    }
    for (size_t i = 0; c.jobs && i < c.n; i++) {
        free(c.jobs[i].out);
        free(c.jobs[i].out_mirror);
    }
    free(c.jobs);
    free(c.feet_names);
    free(c.feet_copy);
    pb_retarget_map_free(&c.map);
    return rc;
}
