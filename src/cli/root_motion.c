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
    "                     qy,qz', one line per frame (g and H); the clip and\n"
    "                     the CSV are written together (one failing, neither)\n"
    "      --apply FILE   the reverse: put the root track of FILE (a CSV as\n"
    "                     --root-csv writes, one line per frame of IN, frames\n"
    "                     0, 1, ... in order; H a unit quaternion, its norm\n"
    "                     within 1e-4 of 1) back into IN (R = H R', P = H P' + g)\n"
    "      --components LIST\n"
    "                     ground, heading or ground,heading (default both)\n"
    "      --up AXIS      x, y (default, as in BVH) or z\n"
    "      --joint NAME   the measured joint (default: the first ROOT); a\n"
    "                     joint below the root is measured in model space; a\n"
    "                     name several joints have is an error. A measured\n"
    "                     joint that never moves gets a warning naming one\n"
    "                     that does\n" CLI_HELP_STRICT_EULER "  -h, --help         this help\n"
    "\n"
    "An output (or CSV) that would replace an input (IN, the --apply file) is\n"
    "refused, as is an --apply file that is not a regular file; the clip is\n"
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
    const char *path; /* --root-csv */
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

/* The CSV by the output rules, as cli_write_clip_with's second output. */
static int write_track(void *ctx)
{
    return cli_write_text(((const track_csv *)ctx)->path, write_csv, ctx);
}

/* How far from 1 the norm of a heading read from an --apply CSV may be (as
 * pb_clip_root_apply takes it; docs/cli.md): write_csv's 9 digits of a
 * float unit quaternion are within 1e-7, 4 decimals typed by hand within
 * about 1e-4. */
#define UNIT_TOL 1e-4

/* Reads the track of `frames` lines written by write_csv (time not used):
 * line k + 2 is frame k (its frame column says so: a shuffled, repeated or
 * missing line is an error), its heading a unit quaternion. */
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
        } else if (!(fabs(sqrt(v[5] * v[5] + v[6] * v[6] + v[7] * v[7] + v[8] * v[8]) - 1.0) <=
                     UNIT_TOL)) {
            cli_error("%s: line %ld: the heading (qw,qx,qy,qz) = (%g,%g,%g,%g) is not a unit "
                      "quaternion (its norm %g is not within %g of 1)",
                      path, ln, v[5], v[6], v[7], v[8],
                      sqrt(v[5] * v[5] + v[6] * v[6] + v[7] * v[7] + v[8] * v[8]), UNIT_TOL);
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

/* 1 when joint j's local rotation or (pos: position) is not the same at
 * every frame of b. */
static int moves(const pb_bvh *b, size_t j, int pos)
{
    const size_t J = b->num_joints;
    for (size_t e = j + J; e < b->num_frames * J; e += J) {
        if (pos ? b->pos_x[e] != b->pos_x[j] || b->pos_y[e] != b->pos_y[j] ||
                      b->pos_z[e] != b->pos_z[j]
                : b->rot_w[e] != b->rot_w[j] || b->rot_x[e] != b->rot_x[j] ||
                      b->rot_y[e] != b->rot_y[j] || b->rot_z[e] != b->rot_z[j])
            return 1;
    }
    return 0;
}

/* A measured joint that never moves (a static joint_Root above the hips)
 * leaves no root motion to take out: warned, naming a joint that does (for
 * the components taken out: the first that travels, else the first that
 * turns). */
static void warn_static(const pb_bvh *b, const pb_root_track *t, const pb_root_opts *o,
                        const char *in)
{
    const size_t F = b->num_frames, J = b->num_joints;
    for (size_t f = 1; f < F; f++)
        if (t->pos.x[f] != t->pos.x[0] || t->pos.y[f] != t->pos.y[0] ||
            t->pos.z[f] != t->pos.z[0] || t->rot.w[f] != t->rot.w[0] ||
            t->rot.x[f] != t->rot.x[0] || t->rot.y[f] != t->rot.y[0] || t->rot.z[f] != t->rot.z[0])
            return;
    if (F < 2)
        return;
    const int ground = (o->components & PB_ROOT_GROUND) != 0;
    const int heading = (o->components & PB_ROOT_HEADING) != 0;
    const char *what = ground && heading ? "does not move (the same ground position and heading "
                                           "at every frame)"
                       : ground          ? "does not travel (the same ground position at every "
                                           "frame)"
                                         : "does not turn (the same heading at every frame)";
    long pick = -1;
    for (int pos = ground; pos >= (heading ? 0 : 1) && pick < 0; pos--)
        for (size_t j = 0; j < J && pick < 0; j++)
            if (j != o->joint && moves(b, j, pos))
                pick = (long)j;
    if (pick >= 0)
        cli_error("%s: warning: the measured joint '%s' %s: there is no root motion to take "
                  "out; measure one that moves with --joint (e.g. --joint '%s')",
                  in, b->joints[o->joint].name, what, b->joints[pick].name);
    else
        cli_error("%s: warning: the measured joint '%s' %s, nor does any other joint: there is "
                  "no root motion to take out",
                  in, b->joints[o->joint].name, what);
}

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
        size_t named = 0;
        for (size_t k = 0; k < J; k++)
            named += strcmp(b.joints[k].name, r->joint) == 0;
        if (j < 0) {
            cli_error("%s: --joint: no joint named '%s'", in, r->joint);
            goto done;
        }
        if (named > 1) {
            cli_error("%s: --joint: %zu joints are named '%s'; --joint cannot choose", in, named,
                      r->joint);
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
        if (st == PB_OK)
            warn_static(&b, &t, &r->o, in);
    }
    if (st != PB_OK) {
        cli_report_status(in, r->apply ? "root-motion --apply" : "root-motion", st);
        goto done;
    }
    /* the clip and the CSV both written, then both renamed: one failing
     * leaves neither */
    pb_bvh_write_opts wo = {.euler = cli_euler_mode};
    track_csv tc = {&b, &t, r->csv};
    if ((r->csv ? cli_write_clip_with(out, &b, &wo, write_track, &tc)
                : cli_write_clip(out, &b, &wo)) == 0)
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
    if ((rc = cli_check_one_in_one_out(&o)) != CLI_OK)
        return rc;
    if (r.csv && r.apply)
        return cli_usage_error(o.cmd, "--root-csv and --apply do not go together");
    const char *in = o.inputs[0];
    if (r.csv && (cli_is_dash(r.csv) || strcmp(r.csv, o.out) == 0))
        return cli_usage_error(o.cmd, "--root-csv %s: give a file other than the output", r.csv);
    if (cli_check_clip_output(o.cmd, o.out) != CLI_OK)
        return CLI_USAGE;
    cli_file ins[2] = {{in, NULL, NULL}, {r.apply, "--apply", NULL}};
    cli_file outs[2] = {{o.out, NULL, NULL}, {r.csv, NULL, NULL}};
    if (cli_protect(ins, r.apply ? 2 : 1, outs, r.csv ? 2 : 1) != CLI_OK)
        return CLI_FAILED;
    return run(in, o.out, &r);
}
