/* posebatch mirror: a clip reflected in a plane with its left and right
 * swapped (pb_bvh_mirror, pairing by joint name with pb_bvh_mirror_table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: posebatch mirror IN -o OUT [--plane yz|xz|xy] [--pair A=B ...] [options]\n"
    "\n"
    "Mirrors a clip (BVH, or glTF through its one skin and first animation):\n"
    "every joint gets the motion of its left/right counterpart reflected in\n"
    "the plane, and the skeleton's OFFSETs and End Sites are reflected and\n"
    "swapped too, so that the mirrored left foot walks exactly the reflected\n"
    "path of the source's right foot. Mirroring twice gives the clip back.\n"
    "Joints pair by name (ASCII case ignored), by the first family that\n"
    "applies: Left/Right anywhere in the name (LeftUpLeg, HandRight), a _L/_R\n"
    "or .L/.R ending, an L_/R_ start, or a bare l/r first letter (lhip/rhip,\n"
    "LThumb/RThumb) where the other name exists. Joints of no family are on\n"
    "the centre line. A Left/_L/L_ name without its counterpart is an error:\n"
    "name the pair with --pair.\n"
    "\n"
    "  -o, --output PATH  output file ('-': standard output, BVH); .glb or\n"
    "                     .gltf writes glTF, anything else BVH\n"
    "      --plane P      the mirror plane: yz (default: x -> -x), xz\n"
    "                     (y -> -y) or xy (z -> -z)\n"
    "      --pair A=B     pair joints A and B explicitly (A=A: a centre\n"
    "                     joint); repeatable; overrides the name families\n"
    "      --print-pairs  print the pairs found ('A=B' per line) on standard\n"
    "                     error\n" CLI_HELP_STRICT_EULER "  -h, --help         this help\n"
    "\n"
    "An output that would replace the input is refused; outputs are written\n"
    "atomically. Exit status: 0 written, 1 the input failed, 2 usage error.\n";

#define MAX_PAIRS 1024

typedef struct mirror_opts {
    pb_mirror_plane plane;
    pb_joint_pair pairs[MAX_PAIRS];
    size_t num_pairs;
    int print_pairs;
} mirror_opts;

/* This command's own options (cli_take_own) */
static const char *const own_names[] = {"--plane=", "--pair=", "--print-pairs"};
static int take_own(void *ctx, int which, char *val)
{
    mirror_opts *m = ctx;
    if (which == 2) {
        m->print_pairs = 1;
    } else if (which == 0) {
        if (strcmp(val, "yz") == 0)
            m->plane = PB_MIRROR_YZ;
        else if (strcmp(val, "xz") == 0)
            m->plane = PB_MIRROR_XZ;
        else if (strcmp(val, "xy") == 0)
            m->plane = PB_MIRROR_XY;
        else
            return cli_usage_error("mirror", "--plane: unknown '%s' (yz, xz, xy)", val);
    } else {
        /* A=B, split at the first '=' (names may not contain one) */
        char *eq = strchr(val, '=');
        if (!eq || eq == val || !eq[1] || strchr(eq + 1, '='))
            return cli_usage_error("mirror", "--pair: '%s' is not A=B", val);
        if (m->num_pairs == MAX_PAIRS)
            return cli_usage_error("mirror", "--pair: more than %d pairs", MAX_PAIRS);
        /* the words stay alive (argv): cut at the '=' in place */
        *eq = '\0';
        m->pairs[m->num_pairs].a = val;
        m->pairs[m->num_pairs].b = eq + 1;
        m->num_pairs++;
    }
    return CLI_OK;
}

static int mirror_file(const char *in, const char *out, const mirror_opts *m)
{
    pb_bvh src;
    /* pairing is by name: a name used twice is an error */
    if (cli_load_clip(in, PB_BVH_READ_UNIQUE_NAMES, &src))
        return CLI_FAILED;
    int rc = CLI_FAILED;
    pb_io_error err;
    int32_t *tab = malloc((src.num_joints ? src.num_joints : 1) * sizeof *tab);
    pb_bvh dst;
    memset(&dst, 0, sizeof dst);
    if (!tab)
        cli_error("%s: out of memory", in);
    else if (pb_bvh_mirror_table(&src, m->pairs, m->num_pairs, tab, &err) != PB_IO_OK)
        cli_report_bvh(in, &err);
    else if (pb_bvh_mirror(&src, tab, m->plane, &dst, &err) != PB_IO_OK)
        cli_report_bvh(in, &err);
    else {
        if (m->print_pairs)
            for (size_t j = 0; j < src.num_joints; j++)
                if ((size_t)tab[j] > j)
                    fprintf(stderr, "%s=%s\n", src.joints[j].name, src.joints[tab[j]].name);
        pb_bvh_write_opts wo = {.euler = cli_euler_mode};
        if (cli_write_clip(out, &dst, &wo) == 0)
            rc = CLI_OK;
    }
    pb_bvh_free(&dst);
    free(tab);
    pb_bvh_free(&src);
    return rc;
}

int cmd_mirror(int argc, char **argv)
{
    mirror_opts *m = calloc(1, sizeof *m);
    if (!m) {
        cli_error("out of memory");
        return CLI_FAILED;
    }
    cli_opts o;
    int rc = cli_take_own("mirror", &argc, argv, own_names, 3, take_own, m);
    if (rc == CLI_OK)
        rc = cli_parse(argc, argv, OPT_OUT | OPT_STRICT | OPT_EULER, usage, &o);
    if (rc != CLI_OK) {
        free(m);
        return CLI_EXIT(rc);
    }
    if ((rc = cli_check_one_in_one_out(&o)) == CLI_OK &&
        (rc = cli_check_clip_output(o.cmd, o.out)) == CLI_OK) {
        cli_file in = {o.inputs[0], NULL, NULL}, out = {o.out, NULL, NULL};
        rc = cli_protect(&in, 1, &out, 1);
        if (rc == CLI_OK)
            rc = mirror_file(o.inputs[0], o.out, m);
    }
    free(m);
    return rc;
}
