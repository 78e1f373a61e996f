/* posebatch info and posebatch cpu: read-only reports. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char info_usage[] =
    "usage: posebatch info [--json] [--strict] FILE.bvh|FILE.glb|FILE.gltf...\n"
    "\n"
    "Prints, per file: joints, end sites and channels per frame, frames, frame\n"
    "time and rate, duration (first to last frame, (F-1) * Frame Time), the\n"
    "channel layouts with the number of joints using each, and the joint tree.\n"
    "\n"
    "      --json         one JSON object per file, one per line (JSON Lines),\n"
    "                     in input order: {\"file\", \"joint_count\", \"joints\":\n"
    "                     [{\"name\", \"parent\" (index into joints, null for a\n"
    "                     ROOT), \"offset\": [x, y, z], \"channels\": [names]}],\n"
    "                     \"end_sites\", \"channels\" (per frame), \"frames\",\n"
    "                     \"frame_time\", \"fps\", \"duration\", \"warnings\":\n"
    "                     [the reader's warnings]}. A file that cannot be read\n"
    "                     has no line (its error goes to stderr).\n"
    "      --strict       a 'Frames:' count that disagrees with the data lines is\n"
    "                     an error (default: a warning; the data lines count)\n"

    "  -h, --help         this help\n"
    "\n"
    "A glTF file (recognised by its content) is described by its format, node\n"
    "count, skins (name, joints) and animations (name, channels, most keys of\n"
    "a sampler, first and last key time, interpolations); with --json:\n"
    "{\"file\", \"format\": \"glb\"|\"gltf\", \"nodes\", \"skins\": [{\"name\",\n"
    "\"joints\"}], \"animations\": [{\"name\", \"channels\", \"samplers\",\n"
    "\"max_keys\", \"start\", \"end\", \"interpolation\": [...]}]}.\n"
    "\n"
    "Exit status: 0 every file read, 1 some file failed, 2 usage error.\n";

static const char cpu_usage[] =
    "usage: posebatch cpu [--verbose]\n"
    "\n"
    "Prints two lines: 'backend: NAME', the backend in use (after\n"
    "$POSEBATCH_BACKEND), and 'supported: NAME...', every backend this build\n"
    "and CPU can run (any of them can be forced with --backend or\n"
    "$POSEBATCH_BACKEND).\n"
    "\n"
    "--verbose  then what the backend runs by call shape: for forward\n"
    "           kinematics of P poses and for batches of N elements (joints x\n"
    "           poses), which kernels (instruction set, lanes) take which part\n"
    "           of the call ($POSEBATCH_SHAPE_DISPATCH=0: the backend's own\n"
    "           kernels for every shape).\n";

/* --verbose: one line per call shape, its runs */
static void print_dispatch(const char *what, pb_dispatch_call call, const size_t *counts, size_t n)
{
    printf("%s:\n", what);
    for (size_t i = 0; i < n; i++) {
        pb_dispatch_run r[3];
        size_t k = pb_backend_dispatch(call, counts[i], r);
        printf("  %6zu:", counts[i]);
        for (size_t j = 0; j < k; j++)
            printf("%s %zu on %s (%d lanes)", j ? "," : "", r[j].count, r[j].isa, r[j].lanes);
        putchar('\n');
    }
}

static int same_layout(const pb_bvh_joint *a, const pb_bvh_joint *b)
{
    return a->num_channels == b->num_channels &&
           memcmp(a->channels, b->channels, a->num_channels) == 0;
}

/* Each distinct channel list once, in order of first use, with its count. */
static int print_layouts(const pb_bvh *b)
{
    size_t J = b->num_joints, reps = 0;
    size_t *rep = malloc((J ? J : 1) * sizeof *rep), *count = calloc(J ? J : 1, sizeof *count);
    if (!rep || !count) {
        free(rep);
        free(count);
        return -1;
    }
    for (size_t j = 0; j < J; j++) {
        size_t r = 0;
        while (r < reps && !same_layout(&b->joints[rep[r]], &b->joints[j]))
            r++;
        if (r == reps)
            rep[reps++] = j;
        count[r]++;
    }
    for (size_t r = 0; r < reps; r++) {
        char ch[128];
        cli_channels_str(&b->joints[rep[r]], ch, sizeof ch);
        printf("  %-12s%zu joint%s: %s\n", r ? "" : "layouts:", count[r], count[r] == 1 ? "" : "s",
               ch[0] ? ch : "(no channels)");
    }
    free(rep);
    free(count);
    return 0;
}

/* The joint tree, indented by depth (parents always precede children). */
static int print_tree(const pb_bvh *b)
{
    size_t J = b->num_joints;
    size_t *depth = malloc((J ? J : 1) * sizeof *depth);
    if (!depth)
        return -1;
    puts("  hierarchy:");
    for (size_t j = 0; j < J; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        char ch[128];
        depth[j] = jt->parent >= 0 ? depth[jt->parent] + 1 : 0;
        cli_channels_str(jt, ch, sizeof ch);
        printf("    %*s%s  [%s]\n", (int)(2 * depth[j]), "", jt->name, ch);
    }
    free(depth);
    return 0;
}

static int print_info(const char *path, const pb_bvh *b)
{
    double ft = b->frame_time;
    double duration = b->num_frames > 1 ? (double)(b->num_frames - 1) * ft : 0.0;
    printf("%s\n", path);
    printf("  %-12s%zu (%zu end site%s), %zu channels per frame\n", "joints:", b->num_joints,
           b->num_end_sites, b->num_end_sites == 1 ? "" : "s", b->num_channels);
    printf("  %-12s%zu\n", "frames:", b->num_frames);
    printf("  %-12s%.9g s (%.7g fps)\n", "frame time:", ft, 1.0 / ft);
    printf("  %-12s%.7g s (first to last frame)\n", "duration:", duration);
    if (print_layouts(b) || print_tree(b)) {
        cli_error("%s: out of memory", path);
        return -1;
    }
    return 0;
}

/* --json ------------------------------------------------------------------ */

typedef struct warnings {
    char **msg;
    size_t n, cap;
    int nomem;
} warnings;

static void collect_warning(void *ctx, const char *message)
{
    warnings *w = ctx;
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        char **m = realloc(w->msg, cap * sizeof *m);
        if (!m) {
            w->nomem = 1;
            return;
        }
        w->msg = m;
        w->cap = cap;
    }
    char *copy = strdup(message);
    if (!copy)
        w->nomem = 1;
    else
        w->msg[w->n++] = copy;
}

static void free_warnings(warnings *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->msg[i]);
    free(w->msg);
    memset(w, 0, sizeof *w);
}

static void print_json(const char *path, const pb_bvh *b, const warnings *w)
{
    double ft = b->frame_time;
    fputs("{\"file\":", stdout);
    cli_json_str(path);
    printf(",\"joint_count\":%zu,\"joints\":[", b->num_joints);
    for (size_t j = 0; j < b->num_joints; j++) {
        const pb_bvh_joint *jt = &b->joints[j];
        fputs(j ? ",{\"name\":" : "{\"name\":", stdout);
        cli_json_str(jt->name);
        if (jt->parent < 0)
            fputs(",\"parent\":null", stdout);
        else
            printf(",\"parent\":%ld", (long)jt->parent);
        fputs(",\"offset\":[", stdout);
        for (int a = 0; a < 3; a++) {
            if (a)
                putchar(',');
            cli_json_float(jt->offset[a]);
        }
        fputs("],\"channels\":[", stdout);
        for (int c = 0; c < jt->num_channels; c++) {
            const char *name = pb_bvh_channel_name((pb_bvh_channel)jt->channels[c]);
            if (c)
                putchar(',');
            cli_json_str(name ? name : "?");
        }
        fputs("]}", stdout);
    }
    printf("],\"end_sites\":%zu,\"channels\":%zu,\"frames\":%zu,\"frame_time\":", b->num_end_sites,
           b->num_channels, b->num_frames);
    cli_json_num(ft);
    fputs(",\"fps\":", stdout);
    cli_json_num(1.0 / ft);
    fputs(",\"duration\":", stdout);
    cli_json_num(b->num_frames > 1 ? (double)(b->num_frames - 1) * ft : 0.0);
    fputs(",\"warnings\":[", stdout);
    for (size_t i = 0; i < w->n; i++) {
        if (i)
            putchar(',');
        cli_json_str(w->msg[i]);
    }
    fputs("]}\n", stdout);
}

/* Reads the header (the data lines are checked, not kept) collecting the
 * reader's warnings, and prints the file's line. */
static int info_json(const char *path)
{
    pb_bvh b;
    pb_io_error err;
    warnings w = {0};
    int dash = cli_is_dash(path);
    const char *name = dash ? "(stdin)" : path;
    pb_bvh_read_opts ro = {cli_read_flags | PB_BVH_READ_HEADER_ONLY, 0, collect_warning, &w};
    pb_io_code code = dash ? pb_bvh_read_stream(stdin, name, &ro, &b, &err)
                           : pb_bvh_read_file_with(path, &ro, &b, &err);
    int rc = 0;
    if (code != PB_IO_OK) {
        cli_report_bvh(name, &err);
        rc = -1;
    } else if (w.nomem) {
        cli_error("%s: out of memory", name);
        rc = -1;
    } else
        print_json(name, &b, &w);
    if (code == PB_IO_OK)
        pb_bvh_free(&b);
    free_warnings(&w);
    return rc;
}

int cmd_info(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, OPT_JSON | OPT_STRICT, info_usage, &o);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if (o.num_inputs == 0)
        return cli_usage_error(o.cmd, "no input files");
    if (cli_check_dash(&o, 0) != CLI_OK)
        return CLI_USAGE;
    for (size_t i = 0; i < o.num_inputs && o.json; i++) {
        if (cli_is_gltf(o.inputs[i]) ? cli_gltf_info(o.inputs[i], 1) : info_json(o.inputs[i]))
            rc = CLI_FAILED;
        fflush(stdout);
    }
    for (size_t i = 0; i < o.num_inputs && !o.json; i++) {
        if (cli_is_gltf(o.inputs[i])) {
            if (cli_gltf_info(o.inputs[i], 0))
                rc = CLI_FAILED;
            continue;
        }
        pb_bvh b;
        if (cli_load_header(o.inputs[i], &b)) {
            rc = CLI_FAILED;
            continue;
        }
        if (print_info(o.inputs[i], &b))
            rc = CLI_FAILED;
        pb_bvh_free(&b);
    }
    return rc;
}

static const char *const cpu_own[] = {"--verbose"};
static int take_verbose(void *ctx, int which, char *val)
{
    (void)which, (void)val;
    *(int *)ctx = 1;
    return CLI_OK;
}

int cmd_cpu(int argc, char **argv)
{
    int verbose = 0;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(cpu_usage, stdout);
            return CLI_OK;
        }
    int rc = cli_take_own("cpu", &argc, argv, cpu_own, 1, take_verbose, &verbose);
    if (rc != CLI_OK)
        return rc;
    cli_opts o;
    rc = cli_parse(argc, argv, 0, cpu_usage, &o);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if (o.num_inputs > 0)
        return cli_usage_error(o.cmd, "unexpected argument '%s'", o.inputs[0]);
    printf("backend: %s\nsupported:", pb_backend_name(pb_backend_active()));
    for (int b = 0; b < PB_BACKEND_COUNT; b++)
        if (pb_backend_supported((pb_backend)b))
            printf(" %s", pb_backend_name((pb_backend)b));
    putchar('\n');
    if (verbose) {
        static const size_t poses[] = {1, 2, 3, 4, 5, 8, 16, 17, 64};
        static const size_t elems[] = {1, 4, 8, 16, 24, 31, 64, 1024};
        const size_t np = sizeof poses / sizeof poses[0], ne = sizeof elems / sizeof elems[0];
        print_dispatch("forward kinematics, poses", PB_DISPATCH_SKELETON, poses, np);
        print_dispatch("element-wise kernels, elements", PB_DISPATCH_ELEMENTWISE, elems, ne);
        print_dispatch("layered pose blend, elements", PB_DISPATCH_BLEND_LAYERS, elems, ne);
        print_dispatch("nlerp, elements", PB_DISPATCH_NLERP, elems, ne);
    }
    return CLI_OK;
}
