/* posebatch info and posebatch cpu: read-only reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char info_usage[] =
    "usage: posebatch info FILE.bvh...\n"
    "\n"
    "Prints, per file: joints, end sites and channels per frame, frames, frame\n"
    "time and rate, duration (first to last frame, (F-1) * Frame Time), the\n"
    "channel layouts with the number of joints using each, and the joint tree.\n"
    "\n"
    "Exit status: 0 every file read, 1 some file failed, 2 usage error.\n";

static const char cpu_usage[] =
    "usage: posebatch cpu\n"
    "\n"
    "Prints two lines: 'backend: NAME', the backend in use (after\n"
    "$POSEBATCH_BACKEND), and 'supported: NAME...', every backend this build\n"
    "and CPU can run (any of them can be forced with --backend or\n"
    "$POSEBATCH_BACKEND).\n";

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

int cmd_info(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 0, info_usage, &o);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if (o.num_inputs == 0)
        return cli_usage_error(o.cmd, "no input files");
    for (size_t i = 0; i < o.num_inputs; i++) {
        pb_bvh b;
        if (cli_load(o.inputs[i], 0, &b)) {
            rc = CLI_FAILED;
            continue;
        }
        if (print_info(o.inputs[i], &b))
            rc = CLI_FAILED;
        pb_bvh_free(&b);
    }
    return rc;
}

int cmd_cpu(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 0, cpu_usage, &o);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if (o.num_inputs > 0)
        return cli_usage_error(o.cmd, "unexpected argument '%s'", o.inputs[0]);
    printf("backend: %s\nsupported:", pb_backend_name(pb_backend_active()));
    for (int b = 0; b < PB_BACKEND_COUNT; b++)
        if (pb_backend_supported((pb_backend)b))
            printf(" %s", pb_backend_name((pb_backend)b));
    putchar('\n');
    return CLI_OK;
}
