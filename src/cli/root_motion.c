/* posebatch root-motion: a clip's ground travel and heading taken out (the
 * clip plays in place) into a root track CSV, or such a track put back
 * (pb_clip_root_extract / pb_clip_root_apply). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: posebatch root-motion IN -o OUT [--root-csv FILE] [options]\n"
    "       posebatch root-motion IN -o OUT --apply FILE [options]\n"
    "\n"
    "Takes the root motion out of a clip (BVH, or glTF through its one skin\n"
    "and first animation): per frame, the ground-plane translation g of the\n"
    "measured joint (its position with the up component zeroed) and its\n"
    "heading H (the yaw about the up axis of its rotation, Tait-Bryan order\n"
    "up, side, forward: the angle from the forward axis to the ground\n"
    "projection of the joint's own forward axis; forward is z for up y, x for\n"
    "up z, y for up x). The roots of the clip get P' = H^-1 (P - g) and\n"
    "R' = H^-1 R, so that it plays in place at the ground origin facing\n"
    "forward. OUT is that in-place clip.\n"
    "\n"
    "  -o, --output PATH  output file ('-': standard output, BVH); .glb or\n"
    "                     .gltf writes glTF, anything else BVH\n"
    "      --root-csv FILE\n"
    "                     also write the root track: 'frame,time,x,y,z,qw,qx,\n"
    "                     qy,qz', one line per frame (g and H)\n"
    "      --apply FILE   the reverse: put the root track of FILE (a CSV as\n"
    "                     --root-csv writes, one line per frame of IN) back\n"
    "                     into IN (R = H R', P = H P' + g)\n"
    "      --components LIST\n"
    "                     ground, heading or ground,heading (default both)\n"
    "      --up AXIS      x, y (default, as in BVH) or z\n"
    "      --joint NAME   the measured joint (default: the first ROOT); a\n"
    "                     joint below the root is measured in model space\n" CLI_HELP_STRICT_EULER
    "  -h, --help         this help\n"
    "\n"
    "An output (or CSV) that would replace the input is refused; the clip is\n"
    "written atomically. Exit status: 0 written, 1 the input failed, 2 usage\n"
    "error.\n";

typedef struct root_opts {
    pb_root_opts o;
    const char *csv, *apply, *joint;
} root_opts;

static int parse_components(const char *v, unsigned *out)
{
    unsigned c = 0;
    const char *s = v;
    while (*s) {
        size_t n = strcspn(s, ",");
        if (n == 6 && strncmp(s, "ground", 6) == 0)
            c |= PB_ROOT_GROUND;
        else if (n == 7 && strncmp(s, "heading", 7) == 0)
            c |= PB_ROOT_HEADING;
        else
            return cli_usage_error("root-motion",
                                   "--components: '%s' is not ground, heading or "
                                   "ground,heading",
                                   v);
        s += n;
        if (*s == ',' && *++s == '\0')
            return cli_usage_error("root-motion", "--components: '%s' ends in a comma", v);
    }
    if (!c)
        return cli_usage_error("root-motion", "--components: empty");
    *out = c;
    return CLI_OK;
}

/* This command's own options (cli_take_own) */
static const char *const own_names[] = {
    "--root-csv=", "--apply=", "--components=", "--up=", "--joint="};
static int take_own(void *ctx, int which, char *val)
{
    root_opts *r = ctx;
    switch (which) {
    case 0: r->csv = val; break;
    case 1: r->apply = val; break;
    case 2:
        if (parse_components(val, &r->o.components) != CLI_OK)
            return CLI_USAGE;
        break;
    case 3:
        if (strcmp(val, "x") == 0 || strcmp(val, "X") == 0)
            r->o.up = PB_AXIS_X;
        else if (strcmp(val, "y") == 0 || strcmp(val, "Y") == 0)
            r->o.up = PB_AXIS_Y;
        else if (strcmp(val, "z") == 0 || strcmp(val, "Z") == 0)
            r->o.up = PB_AXIS_Z;
        else
            return cli_usage_error("root-motion", "--up: unknown '%s' (x, y, z)", val);
        break;
    default: r->joint = val; break;
    }
    return CLI_OK;
}

/* ------------------------------------------------------------ the CSV */

typedef struct track_csv {
    const pb_bvh *b;
    const pb_root_track *t;
} track_csv;

static int write_csv(FILE *f, void *ctx)
{
    const pb_bvh *b = ((const track_csv *)ctx)->b;
    const pb_root_track *t = ((const track_csv *)ctx)->t;
    fputs("frame,time,x,y,z,qw,qx,qy,qz\n", f);
    for (size_t g = 0; g < b->num_frames; g++)
        fprintf(f, "%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", g, (double)g * b->frame_time,
                (double)t->pos.x[g], (double)t->pos.y[g], (double)t->pos.z[g], (double)t->rot.w[g],
                (double)t->rot.x[g], (double)t->rot.y[g], (double)t->rot.z[g]);
    return 0; /* the stream's errors: cli_write_text */
}

/* Reads the track of `frames` lines written by write_csv (time not used). */
static int read_csv(const char *path, size_t frames, const pb_root_track *t)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_error("%s: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    size_t g = 0;
    long ln = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        ln++;
        if (!strchr(line, '\n') && !feof(f)) {
            cli_error("%s: line %ld: too long", path, ln);
            rc = -1;
            break;
        }
        if (ln == 1) {
            if (strncmp(line, "frame,time,x,y,z,qw,qx,qy,qz", 28) != 0) {
                cli_error("%s: line 1: not a root track (header "
                          "'frame,time,x,y,z,qw,qx,qy,qz')",
                          path);
                rc = -1;
            }
            continue;
        }
        if (strspn(line, " \t\r\n") == strlen(line))
            continue;
        double v[9];
        char *s = line, *end = NULL;
        int k = 0;
        for (; k < 9; k++) {
            errno = 0;
            v[k] = strtod(s, &end);
            if (end == s || !isfinite(v[k]) || (k < 8 && *end != ','))
                break;
            s = end + 1;
        }
        if (k < 9 || strspn(end, " \t\r\n") != strlen(end)) {
            cli_error("%s: line %ld: not 9 finite numbers separated by commas", path, ln);
            rc = -1;
        } else if (g >= frames || v[0] != (double)g) {
            cli_error("%s: line %ld: frame %g where frame %zu was expected (the clip has %zu "
                      "frames)",
                      path, ln, v[0], g, frames);
            rc = -1;
        } else {
            t->pos.x[g] = (float)v[2];
            t->pos.y[g] = (float)v[3];
            t->pos.z[g] = (float)v[4];
            t->rot.w[g] = (float)v[5];
            t->rot.x[g] = (float)v[6];
            t->rot.y[g] = (float)v[7];
            t->rot.z[g] = (float)v[8];
            g++;
        }
    }
    if (rc == 0 && ferror(f)) {
        cli_error("%s: read error", path);
        rc = -1;
    }
    fclose(f);
    if (rc == 0 && g != frames) {
        cli_error("%s: %zu frames, the clip has %zu", path, g, frames);
        rc = -1;
    }
    return rc;
}

/* ------------------------------------------------------------ the work */

static int run(const char *in, const char *out, root_opts *r)
{
    pb_bvh b;
    if (cli_load_clip(in, 0, &b))
        return CLI_FAILED;
    const size_t F = b.num_frames, J = b.num_joints;
    int rc = CLI_FAILED;
    int32_t *parents = malloc(J * sizeof *parents);
    float *mem = malloc(7 * F * sizeof *mem);
    if (!parents || !mem) {
        cli_error("%s: out of memory", in);
        goto done;
    }
    for (size_t j = 0; j < J; j++)
        parents[j] = b.joints[j].parent;
    if (r->joint) {
        long j = pb_bvh_find_joint(&b, r->joint);
        if (j < 0) {
            cli_error("%s: --joint: no joint named '%s'", in, r->joint);
            goto done;
        }
        r->o.joint = (size_t)j;
    }
    pb_root_track t = {{mem, mem + F, mem + 2 * F},
                       {mem + 3 * F, mem + 4 * F, mem + 5 * F, mem + 6 * F}};
    pb_clip c = pb_bvh_clip(&b);
    pb_status st;
    if (r->apply) {
        if (read_csv(r->apply, F, &t))
            goto done;
        pb_croot_track ct = {pb_cv(t.pos), pb_cq(t.rot)};
        st = pb_clip_root_apply(&c, parents, &r->o, &ct);
    } else {
        st = pb_clip_root_extract(&c, parents, &r->o, &t);
    }
    if (st != PB_OK) {
        cli_report_status(in, r->apply ? "root-motion --apply" : "root-motion", st);
        goto done;
    }
    /* the clip is written first: a CSV is only left for a written clip */
    pb_bvh_write_opts wo = {.euler = cli_euler_mode};
    track_csv tc = {&b, &t};
    if (cli_write_clip(out, &b, &wo) == 0 &&
        (!r->csv || cli_write_text(r->csv, in, write_csv, &tc) == 0))
        rc = CLI_OK;
done:
    free(mem);
    free(parents);
    pb_bvh_free(&b);
    return rc;
}

int cmd_root_motion(int argc, char **argv)
{
    root_opts r;
    memset(&r, 0, sizeof r);
    pb_root_opts dflt = PB_ROOT_OPTS_DEFAULT;
    r.o = dflt;
    cli_opts o;
    int rc = cli_take_own("root-motion", &argc, argv, own_names, 5, take_own, &r);
    if (rc == CLI_OK)
        rc = cli_parse(argc, argv, OPT_OUT | OPT_STRICT | OPT_EULER, usage, &o);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if (o.num_inputs != 1)
        return cli_usage_error(o.cmd, "needs one input (%zu given)", o.num_inputs);
    if (!o.out || !o.out[0])
        return cli_usage_error(o.cmd, "-o OUT is required");
    if (!cli_is_dash(o.out) && cli_is_dir(o.out))
        return cli_usage_error(o.cmd, "-o %s is a directory; give the output file", o.out);
    if (r.csv && r.apply)
        return cli_usage_error(o.cmd, "--root-csv and --apply do not go together");
    const char *in = o.inputs[0];
    if (r.csv && (cli_is_dash(r.csv) || strcmp(r.csv, o.out) == 0))
        return cli_usage_error(o.cmd, "--root-csv %s: give a file other than the output", r.csv);
    if (cli_same_output(o.out, in) || (r.csv && cli_same_output(r.csv, in)) ||
        (r.csv && r.apply == NULL && cli_same_output(r.csv, o.out))) {
        cli_error("%s: an output is the input file %s; refusing to overwrite it",
                  cli_same_output(o.out, in) ? o.out : r.csv, in);
        return CLI_FAILED;
    }
    return run(in, o.out, &r);
}
