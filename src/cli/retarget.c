/* posebatch retarget: a clip's motion on another skeleton
 * (pb_bvh_retarget), joints matched by name and an optional map file; with
 * -v the matching is reported on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: posebatch retarget IN --to SKELETON -o OUT [--map FILE] [--map-only] [-v]\n"
    "                          [--strict] [--euler source|continuous|principal]\n"
    "\n"
    "Plays the clip IN (BVH or glTF) on the skeleton of SKELETON (a BVH or glTF\n"
    "file; only its joints, offsets and End Sites are used) and writes the result\n"
    "(BVH, or glTF when OUT ends in .glb or .gltf; -o - is standard output).\n"
    "Joints are matched by name (case, separators and prefixes such as\n"
    "'mixamorig:', 'Bip01 ', 'Character1_' ignored; families such as\n"
    "LeftUpLeg/LeftThigh/LHip/l_hip or LeftForeArm/LeftElbow/LowerArm_L known);\n"
    "rotations go through the two rest poses (T-pose and A-pose skeletons work),\n"
    "the bend of a torso or neck of another length is spread over the target's\n"
    "joints; the root travel is scaled by the ratio of the leg lengths (hip\n"
    "heights where no leg matches) and the root height is placed by the feet\n"
    "(the lowest foot joint at that ratio times the source's height, y = 0 the\n"
    "ground of both); other unmatched joints keep their rest pose.\n"
    "\n"
    "  -o, --output FILE  the output (required)\n"
    "      --to FILE      the target skeleton (required)\n"
    "      --map FILE     explicit pairs, one 'source = target' a line, '#' comments;\n"
    "                     they come before the names\n"
    "      --map-only     match only the map's pairs\n"
    "  -v, --verbose      report the matching on stderr: each target joint and the\n"
    "                     source joint it plays (or '(rest)'), then the source\n"
    "                     joints left unused\n" CLI_HELP_STRICT_EULER "\n"
    "Errors (exit 1): no joint matched, no root match (the matched joints must hang\n"
    "under one matched pair: match the hips), fewer than min(4, joints) matches,\n"
    "a map naming a joint that is not in its skeleton or naming one twice.\n";

typedef struct rt_args {
    const char *in, *to, *out, *map;
    int map_only, verbose;
} rt_args;

static int parse(int argc, char **argv, rt_args *a)
{
    memset(a, 0, sizeof *a);
    int no_more_opts = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *val = NULL;
        if (!no_more_opts && s[0] == '-' && s[1]) {
            if (strcmp(s, "--") == 0) {
                no_more_opts = 1;
                continue;
            }
            if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
                fputs(usage, stdout);
                return CLI_DONE;
            }
            if (strcmp(s, "-v") == 0 || strcmp(s, "--verbose") == 0) {
                a->verbose = 1;
                continue;
            }
            if (strcmp(s, "--map-only") == 0) {
                a->map_only = 1;
                continue;
            }
            if (strcmp(s, "--strict") == 0) {
                cli_read_flags |= PB_BVH_READ_STRICT;
                continue;
            }
            /* options with a value: "--opt VALUE" or "--opt=VALUE" */
            static const char *const with_value[] = {"-o", "--output", "--to", "--map", "--euler"};
            const char *name = NULL;
            for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++) {
                size_t n = strlen(with_value[k]);
                if (strcmp(s, with_value[k]) == 0) {
                    if (i + 1 >= argc)
                        return cli_usage_error("retarget", "%s needs a value", s);
                    name = with_value[k];
                    val = argv[++i];
                    break;
                }
                if (with_value[k][1] == '-' && strncmp(s, with_value[k], n) == 0 && s[n] == '=') {
                    name = with_value[k];
                    val = s + n + 1;
                    break;
                }
            }
            if (!name)
                return cli_usage_error("retarget", "unknown option '%s'", s);
            const char **slot = NULL;
            if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0)
                slot = &a->out;
            else if (strcmp(name, "--to") == 0)
                slot = &a->to;
            else if (strcmp(name, "--map") == 0)
                slot = &a->map;
            if (slot) {
                if (*slot)
                    return cli_usage_error("retarget", "%s given twice", name);
                if (!val[0])
                    return cli_usage_error("retarget", "%s: an empty value", name);
                *slot = val;
                continue;
            }
            /* --euler */
            if (strcmp(val, "source") == 0)
                cli_euler_mode = PB_BVH_EULER_SOURCE;
            else if (strcmp(val, "continuous") == 0)
                cli_euler_mode = PB_BVH_EULER_CONTINUOUS;
            else if (strcmp(val, "principal") == 0)
                cli_euler_mode = PB_BVH_EULER_PRINCIPAL;
            else
                return cli_usage_error(
                    "retarget", "--euler: unknown '%s' (source, continuous, principal)", val);
            continue;
        }
        if (a->in)
            return cli_usage_error("retarget", "one input only ('%s' and '%s' given)", a->in, s);
        a->in = s;
    }
    if (!a->in)
        return cli_usage_error("retarget", "no input given");
    if (!a->to)
        return cli_usage_error("retarget", "--to SKELETON is required");
    if (!a->out)
        return cli_usage_error("retarget", "-o OUT is required");
    if (a->map_only && !a->map)
        return cli_usage_error("retarget", "--map-only needs --map FILE");
    if (cli_is_dash(a->to) || cli_is_dash(a->map))
        return cli_usage_error("retarget", "--to and --map must be files, not '-'");
    return CLI_OK;
}

/* the target skeleton: a BVH file's header (no motion kept), or a glTF's */
static int load_skeleton(const char *path, pb_bvh *out)
{
    return cli_is_gltf(path) ? cli_gltf_clip(path, out) : cli_load_header(path, out);
}

static void report(const pb_bvh *src, const pb_bvh *tgt, const long *match, const char *in,
                   const char *to)
{
    size_t matched = 0;
    unsigned char *used = calloc(src->num_joints, 1);
    for (size_t t = 0; t < tgt->num_joints; t++)
        if (match[t] >= 0) {
            matched++;
            if (used)
                used[match[t]] = 1;
        }
    cli_error("%s -> %s: %zu of %zu target joints matched", in, to, matched, tgt->num_joints);
    for (size_t t = 0; t < tgt->num_joints; t++)
        cli_error("  %-24s <- %s", tgt->joints[t].name,
                  match[t] >= 0 ? src->joints[match[t]].name : "(rest)");
    if (used) {
        size_t unused = 0;
        for (size_t s = 0; s < src->num_joints; s++)
            unused += !used[s];
        if (unused) {
            cli_error("  source joints not used: %zu", unused);
            for (size_t s = 0; s < src->num_joints; s++)
                if (!used[s])
                    cli_error("    %s", src->joints[s].name);
        }
        free(used);
    }
}

/* the retarget command (declared in cli.h) */
int cmd_retarget(int argc, char **argv)
{
    rt_args a;
    int rc = parse(argc, argv, &a);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if (cli_check_clip_output("retarget", a.out) != CLI_OK)
        return CLI_USAGE;
    cli_file ins[3] = {{a.in, NULL, NULL}, {a.to, "--to", NULL}, {a.map, "--map", NULL}};
    cli_file fout = {a.out, NULL, NULL};
    if (cli_protect(ins, a.map ? 3 : 2, &fout, 1) != CLI_OK)
        return CLI_FAILED;
    pb_retarget_map map;
    memset(&map, 0, sizeof map);
    pb_io_error err;
    if (a.map && pb_retarget_map_read_file(a.map, &map, &err) != PB_IO_OK) {
        cli_report_bvh(a.map, &err);
        return CLI_FAILED;
    }
    pb_bvh src, tgt, out;
    if (cli_load_clip(a.in, 0, &src)) {
        pb_retarget_map_free(&map);
        return CLI_FAILED;
    }
    if (load_skeleton(a.to, &tgt)) {
        pb_bvh_free(&src);
        pb_retarget_map_free(&map);
        return CLI_FAILED;
    }
    pb_retarget_opts ro = {a.map ? &map : NULL, a.map_only ? PB_RETARGET_MAP_ONLY : 0u};
    rc = CLI_OK;
    long *match = malloc((tgt.num_joints ? tgt.num_joints : 1) * sizeof *match);
    if (!match) {
        cli_error("%s: out of memory", a.in);
        rc = CLI_FAILED;
    } else if (pb_bvh_retarget_match(&src, &tgt, &ro, match, &err) != PB_IO_OK) {
        cli_error("%s -> %s: %s", a.in, a.to, err.message);
        rc = CLI_FAILED;
    } else {
        if (a.verbose)
            report(&src, &tgt, match, a.in, a.to);
        if (pb_bvh_retarget(&src, &tgt, &ro, &out, &err) != PB_IO_OK) {
            cli_error("%s -> %s: %s", a.in, a.to, err.message);
            rc = CLI_FAILED;
        } else {
            if (cli_write_clip(a.out, &out, NULL))
                rc = CLI_FAILED;
            pb_bvh_free(&out);
        }
    }
    free(match);
    pb_bvh_free(&src);
    pb_bvh_free(&tgt);
    pb_retarget_map_free(&map);
    return rc;
}
