/* glTF in the CLI: recognising glTF inputs, resample of a glTF file, info of
 * one, and posebatch convert (BVH <-> glTF). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"

static const char convert_usage[] =
    "usage: posebatch convert IN OUT [--scale F] [--skin N] [--animation N] [--fps N]\n"
    "                         [--rest FILE.npy]\n"
    "\n"
    "Converts between BVH and glTF 2.0; the input's format is found from its\n"
    "content, the output's from its extension (.bvh, .glb, .gltf; '-' is\n"
    "standard output in the other format: glTF JSON for a BVH input, BVH text\n"
    "for a glTF one).\n"
    "\n"
    "BVH -> glTF: one node per joint (names kept, OFFSET as translation), End\n"
    "Sites as leaf nodes '<parent>_End', a skin 'skeleton' of every node (so\n"
    "that Blender, three.js and other importers see an armature: inverse bind\n"
    "matrices of the rest pose, identity rotations at the OFFSETs), one\n"
    "animation 'bvh' of LINEAR keys at the frame times: a rotation channel per\n"
    "joint, a translation channel per joint with position channels. The BVH\n"
    "channel lists and frame time are kept in extras, so that converting back\n"
    "gives the same layout.\n"
    "\n"
    "glTF -> BVH: the joints of the file's one skin and their ancestors (or\n"
    "--skin N; with no skin, every node), depth first. Channels: those kept in\n"
    "extras by a BVH -> glTF conversion, else 'Xposition Yposition Zposition\n"
    "Zrotation Yrotation Xrotation' for roots and joints with an animated\n"
    "translation and 'Zrotation Yrotation Xrotation' (R = Rz Ry Rx) for the\n"
    "others. Frames: the animation (--animation N, default 0) sampled as glTF\n"
    "defines it at 1/fps steps (--fps N; default: the frame time kept in\n"
    "extras, else the median key interval of its sampler with the most keys;\n"
    "none when the extras give no joint a channel).\n"
    "Scales and morph weights are not represented in BVH and are dropped.\n"
    "Frames out of proportion to the keys are refused before they are made:\n"
    "more than 64 MB of BVH text at more than 1000 frames per key (a few key\n"
    "times far apart), or more than the 2.15 GB a BVH file may have; so for\n"
    "every command reading glTF.\n"
    "\n"
    "      --scale F      every translation (OFFSETs, positions) times F > 0:\n"
    "                     units to metres, e.g. 0.01 for centimetres, 0.0254\n"
    "                     for inches, 0.056444 for CMU clips (1/0.45 inch);\n"
    "                     default 1\n"
    "      --skin N       the skin whose joints are converted (glTF input)\n"
    "      --animation N  the animation sampled (glTF input; default 0)\n"
    "      --fps N        output frame rate (glTF input)\n"
    "      --rest FILE.npy  an AMASS .npz input (SMPL-H poses, trans, framerate):\n"
    "                     its rest joint positions (joints x 3); the output, BVH\n"
    "                     or glTF by its extension, has the SMPL-H joints and names\n"
    "  -h, --help         this help\n"
    "\n"
    "Outputs are written atomically, like every output of posebatch.\n"
    "Exit status: 0 written, 1 failed, 2 usage error.\n";

static int has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && strcasecmp(path + n - e, ext) == 0;
}

int cli_is_gltf(const char *path) { return pb_io_format_of_file(path) != PB_IO_FORMAT_BVH; }

/* A file that is not glTF by its content but says it is one: named .gltf
 * or .glb, or JSON text (an array, say). */
static int looks_gltf(const char *path)
{
    if (cli_is_dash(path))
        return 0;
    if (has_ext(path, ".gltf") || has_ext(path, ".glb"))
        return 1;
    struct stat st; /* a FIFO is not opened here: its bytes are the reader's */
    FILE *f = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
    char head[64];
    size_t n = f ? fread(head, 1, sizeof head, f) : 0, i = 0;
    if (f)
        fclose(f);
    if (n >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    return i < n && head[i] == '[';
}

static int load_gltf(const char *path, pb_gltf *g)
{
    pb_io_error err;
    if (pb_gltf_read_file(path, g, &err) != PB_IO_OK) {
        cli_report_bvh(path, &err);
        return -1;
    }
    return 0;
}

/* Writes g to out: a file by its extension, or "-" standard output
 * (binary: GLB). */
static int write_gltf(const char *out, const pb_gltf *g, int binary)
{
    pb_io_error err;
    if (cli_is_dash(out)) {
        if (pb_gltf_write_stream(stdout, g, binary, &err) != PB_IO_OK) {
            cli_report_bvh("(stdout)", &err);
            return -1;
        }
        return 0;
    }
    if (pb_gltf_write_file(out, g, &err) != PB_IO_OK) {
        cli_report_bvh(out, &err);
        return -1;
    }
    return 0;
}

/* The most keys of one sampler of animation anim (1 without animations):
 * the key times the frames are made from. */
static size_t anim_keys(const pb_gltf *g, size_t anim)
{
    size_t keys = 1;
    if (anim < g->num_animations)
        for (size_t s = 0; s < g->animations[anim].num_samplers; s++)
            if (g->animations[anim].samplers[s].count > keys)
                keys = g->animations[anim].samplers[s].count;
    return keys;
}

/* pb_gltf_to_bvh of g (read from path) after cli_check_size of what it
 * would make (pb_gltf_to_bvh_estimate). 0, or -1 reported. */
static int gltf_to_clip(const char *path, const pb_gltf *g, long skin, size_t anim,
                        double frame_time, pb_bvh *out)
{
    size_t frames = 0;
    double ft = 0.0, bytes = 0.0;
    pb_io_error err;
    if (pb_gltf_to_bvh_estimate(g, skin, anim, frame_time, &frames, &ft, &bytes, &err) !=
        PB_IO_OK) {
        cli_report_bvh(path, &err);
        return -1;
    }
    if (cli_check_size(path, 1.0 / ft, frames, bytes, anim_keys(g, anim)))
        return -1;
    if (pb_gltf_to_bvh(g, skin, anim, frame_time, out, &err) != PB_IO_OK) {
        cli_report_bvh(path, &err);
        return -1;
    }
    return 0;
}

int cli_gltf_clip(const char *path, pb_bvh *out)
{
    pb_gltf g;
    if (load_gltf(path, &g))
        return -1;
    long skin = pb_gltf_default_skin(&g);
    int rc = -1;
    if (skin < 0 && g.num_skins > 1)
        cli_error("%s: the file has %zu skins, and this command reads one: make a BVH of the one "
                  "to use first ('posebatch convert %s OUT.bvh --skin N', N from 0 to %zu)",
                  path, g.num_skins, path, g.num_skins - 1);
    else
        rc = gltf_to_clip(path, &g, skin, 0, 0.0, out);
    pb_gltf_free(&g);
    return rc;
}

int cli_load_clip(const char *path, unsigned flags, pb_bvh *out)
{
    if (!cli_is_gltf(path))
        return cli_load_flags(path, 1, flags, out);
    if (cli_gltf_clip(path, out))
        return -1;
    return cli_require_frames(path, out); /* as for a BVH: no joint has a channel */
}

int cli_write_clip(const char *out, const pb_bvh *b, const pb_bvh_write_opts *opts)
{
    if (cli_is_dash(out) || pb_io_format_of_name(out) == PB_IO_FORMAT_BVH)
        return cli_write(out, b, opts);
    pb_io_error err;
    if (pb_io_write_clip(out, b, NULL, &err) != PB_IO_OK) {
        cli_report_bvh(out, &err);
        return -1;
    }
    return 0;
}

typedef struct pair_ctx {
    const pb_bvh *b;
    const pb_bvh_write_opts *opts;
    const pb_gltf *g; /* a glTF output: b as glTF */
    int binary;
    int (*also)(void *ctx);
    void *ctx;
    int also_failed; /* also() reported its own error */
} pair_ctx;

/* The clip into the first output's temporary, then the second output
 * (written and renamed) before the first's rename. */
static pb_io_code write_pair(FILE *f, void *vctx, pb_io_error *err)
{
    pair_ctx *p = vctx;
    pb_io_code rc = p->g ? pb_gltf_write_stream(f, p->g, p->binary, err)
                         : pb_bvh_write_stream_with(f, p->b, p->opts, err);
    if (rc != PB_IO_OK)
        return rc;
    if (fflush(f) != 0 || ferror(f)) {
        err->code = PB_IO_ERR_IO;
        snprintf(err->message, sizeof err->message, "write error");
        return PB_IO_ERR_IO;
    }
    if (p->also(p->ctx)) {
        p->also_failed = 1;
        err->code = PB_IO_ERR_ARG;
        err->message[0] = '\0';
        return PB_IO_ERR_ARG;
    }
    return PB_IO_OK;
}

int cli_write_clip_with(const char *out, const pb_bvh *b, const pb_bvh_write_opts *opts,
                        int (*also)(void *ctx), void *ctx)
{
    if (cli_is_dash(out)) /* standard output cannot wait for a rename */
        return also(ctx) ? -1 : cli_write(out, b, opts);
    pb_bvh_write_opts o = {PB_BVH_EULER_SOURCE, NULL, NULL, 0, 0};
    if (opts)
        o = *opts;
    o.euler = cli_euler_mode; /* --euler, as cli_write */
    pb_gltf g;
    pb_io_error err;
    memset(&err, 0, sizeof err);
    int gltf = pb_io_format_of_name(out) != PB_IO_FORMAT_BVH;
    if (gltf && pb_gltf_from_bvh(b, &g, &err) != PB_IO_OK) {
        cli_report_bvh(out, &err);
        return -1;
    }
    pair_ctx p = {b,   &o, gltf ? &g : NULL, pb_io_format_of_name(out) == PB_IO_FORMAT_GLB, also,
                  ctx, 0};
    int rc = pb_io_write_file(out, write_pair, &p, &err) == PB_IO_OK ? 0 : -1;
    if (rc && !p.also_failed)
        cli_report_bvh(out, &err);
    if (gltf)
        pb_gltf_free(&g);
    return rc;
}

/* The size of the glTF pb_gltf_resample would write (every animation's
 * keys at fps: times and values, 4 bytes each; base64 in a .gltf), by
 * cli_check_size. 0, or -1 reported. */
static int resample_size(const char *in, const pb_gltf *g, double fps, int cubic, int json)
{
    double bytes = 0.0, frames = 0.0, keys = 0.0;
    for (size_t a = 0; a < g->num_animations; a++) {
        const pb_gltf_animation *an = &g->animations[a];
        double span = (double)an->t_max - (double)an->t_min;
        double n = floor(span * fps + 1e-3) + 2, values = 1.0; /* + 1: the end key */
        for (size_t s = 0; s < an->num_samplers; s++)
            values += (double)an->samplers[s].components * (cubic ? 3.0 : 1.0);
        bytes += n * values * 4.0 * (json ? 4.0 / 3.0 : 1.0);
        frames += n;
        keys += (double)anim_keys(g, a);
    }
    return cli_check_size(in, fps, frames < 0x1p62 ? (size_t)frames : (size_t)1 << 62, bytes,
                          (size_t)keys);
}

int cli_gltf_resample(const char *in, const char *out, double fps, int cubic)
{
    if (!cli_is_dash(out) && has_ext(out, ".bvh")) {
        cli_error("%s: resample writes glTF for a glTF input (%s); use 'posebatch convert' for "
                  "BVH",
                  in, out);
        return -1;
    }
    pb_gltf g, r;
    if (load_gltf(in, &g))
        return -1;
    pb_io_error err;
    int rc = -1;
    int binary = cli_is_dash(out) ? pb_io_format_of_file(in) == PB_IO_FORMAT_GLB
                                  : pb_io_format_of_name(out) == PB_IO_FORMAT_GLB;
    if (g.num_animations == 0)
        cli_error("%s: the file has no animations", in);
    else if (resample_size(in, &g, fps, cubic, !binary) == 0) {
        if (pb_gltf_resample(&g, fps, cubic ? PB_GLTF_RESAMPLE_CUBIC : 0u, &r, &err) != PB_IO_OK)
            cli_report_bvh(in, &err);
        else {
            rc = write_gltf(out, &r, binary); /* a file: by its name, as the writer does */
            pb_gltf_free(&r);
        }
    }
    pb_gltf_free(&g);
    return rc;
}

static const char *interp_name(pb_gltf_interp i)
{
    return i == PB_GLTF_STEP ? "STEP" : i == PB_GLTF_CUBICSPLINE ? "CUBICSPLINE" : "LINEAR";
}

int cli_gltf_info(const char *path, int json)
{
    pb_gltf g;
    if (load_gltf(path, &g))
        return -1;
    int glb = pb_io_format_of_file(path) == PB_IO_FORMAT_GLB;
    if (json) {
        fputs("{\"file\":", stdout);
        cli_json_str(path);
        printf(",\"format\":\"%s\",\"nodes\":%zu,\"skins\":[", glb ? "glb" : "gltf", g.num_nodes);
        for (size_t s = 0; s < g.num_skins; s++) {
            fputs(s ? ",{\"name\":" : "{\"name\":", stdout);
            cli_json_str(g.skins[s].name);
            printf(",\"joints\":%zu}", g.skins[s].num_joints);
        }
        fputs("],\"animations\":[", stdout);
    } else {
        printf("%s\n  %-12sglTF 2.0 (%s)\n  %-12s%zu\n", path, "format:", glb ? "GLB" : "JSON",
               "nodes:", g.num_nodes);
        for (size_t s = 0; s < g.num_skins; s++)
            printf("  %-12s%zu: '%s', %zu joints\n", s ? "" : "skins:", s, g.skins[s].name,
                   g.skins[s].num_joints);
        printf("  %-12s%zu\n", "animations:", g.num_animations);
    }
    for (size_t a = 0; a < g.num_animations; a++) {
        const pb_gltf_animation *an = &g.animations[a];
        size_t keys = 0;
        unsigned kinds = 0;
        for (size_t s = 0; s < an->num_samplers; s++) {
            keys = an->samplers[s].count > keys ? an->samplers[s].count : keys;
            kinds |= 1u << an->samplers[s].interpolation;
        }
        if (json) {
            fputs(a ? ",{\"name\":" : "{\"name\":", stdout);
            cli_json_str(an->name);
            printf(",\"channels\":%zu,\"samplers\":%zu,\"max_keys\":%zu,\"start\":%.9g,"
                   "\"end\":%.9g,\"interpolation\":[",
                   an->num_channels, an->num_samplers, keys, (double)an->t_min, (double)an->t_max);
        } else
            printf("    %zu: '%s', %zu channels, up to %zu keys, %.7g .. %.7g s,", a, an->name,
                   an->num_channels, keys, (double)an->t_min, (double)an->t_max);
        int first = 1;
        for (int k = 0; k < 3; k++)
            if (kinds >> k & 1u) {
                const char *nm = interp_name((pb_gltf_interp)k);
                if (json)
                    printf("%s\"%s\"", first ? "" : ",", nm);
                else
                    printf(" %s", nm);
                first = 0;
            }
        fputs(json ? "]}" : "\n", stdout);
    }
    if (json)
        fputs("]}\n", stdout);
    pb_gltf_free(&g);
    return 0;
}

typedef struct convert_own {
    const char *rest; /* --rest FILE.npy: an AMASS input (amass.c) */
    double scale;     /* --scale F */
} convert_own;

static int take_convert_own(void *ctx, int which, char *val)
{
    convert_own *c = ctx;
    if (which == 0) {
        c->rest = val;
        return CLI_OK;
    }
    if (cli_parse_double(val, &c->scale) != 0 || !(c->scale > 0) || !isfinite(c->scale))
        return cli_usage_error("convert", "--scale: '%s' is not a finite number > 0", val);
    return CLI_OK;
}

/* every translation of b times s (OFFSETs, End Sites, positions); the
 * decimals the source was written with no longer hold. -1 (reported) when a
 * value leaves float range. */
static int scale_clip(const char *path, pb_bvh *b, double s)
{
    if (s == 1.0)
        return 0;
    int bad = 0;
    for (size_t j = 0; j < b->num_joints; j++)
        for (int k = 0; k < 3; k++)
            bad |= !isfinite(b->joints[j].offset[k] = (float)(b->joints[j].offset[k] * s));
    for (size_t e = 0; e < b->num_end_sites; e++)
        for (int k = 0; k < 3; k++)
            bad |= !isfinite(b->end_sites[e].offset[k] = (float)(b->end_sites[e].offset[k] * s));
    float *pos[3] = {b->pos_x, b->pos_y, b->pos_z};
    const size_t n = b->num_frames * b->num_joints;
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < n && pos[k]; i++)
            bad |= !isfinite(pos[k][i] = (float)(pos[k][i] * s));
    free(b->decimals);
    b->decimals = NULL;
    if (bad)
        cli_error("%s: --scale %g takes a translation beyond float range", path, s);
    return bad ? -1 : 0;
}

int cmd_convert(int argc, char **argv)
{
    cli_opts o;
    static const char *const own_names[] = {"--rest=", "--scale="};
    convert_own own = {NULL, 1.0};
    int rc = cli_take_own("convert", &argc, argv, own_names, 2, take_convert_own, &own);
    const char *rest = own.rest;
    if (rc == CLI_OK)
        rc = cli_parse(argc, argv, OPT_FPS | OPT_SKIN | OPT_STRICT | OPT_EULER, convert_usage, &o);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if (o.num_inputs != 2)
        return cli_usage_error(o.cmd, "needs IN and OUT (%zu argument%s given)", o.num_inputs,
                               o.num_inputs == 1 ? "" : "s");
    const char *in = o.inputs[0], *out = o.inputs[1];
    if (rest || cli_is_npz(in)) { /* AMASS -> BVH or glTF by out's name */
        pb_bvh b;
        cli_file fin = {in, NULL, NULL}, fout = {out, NULL, NULL};
        if (cli_protect(&fin, 1, &fout, 1) != CLI_OK)
            return CLI_FAILED;
        if (cli_load_amass(in, rest, &b))
            return CLI_FAILED;
        pb_bvh_write_opts wo = {.euler = cli_euler_mode};
        rc = scale_clip(in, &b, own.scale) || cli_write_clip(out, &b, &wo) ? CLI_FAILED : CLI_OK;
        pb_bvh_free(&b);
        return rc;
    }
    int from_gltf = cli_is_gltf(in);
    int to_bvh = cli_is_dash(out) ? from_gltf : has_ext(out, ".bvh");
    int to_gltf = cli_is_dash(out) ? !from_gltf : has_ext(out, ".glb") || has_ext(out, ".gltf");
    if (!to_bvh && !to_gltf)
        return cli_usage_error(o.cmd, "%s: the output's extension must be .bvh, .glb or .gltf",
                               out);
    if (!from_gltf && to_bvh && looks_gltf(in)) {
        pb_gltf g; /* named or begun like glTF, but not glTF: the reader says why */
        if (load_gltf(in, &g))
            return CLI_FAILED;
        pb_gltf_free(&g);
    }
    if (from_gltf == to_gltf)
        return cli_usage_error(o.cmd, "%s and %s are both %s: use 'posebatch resample'", in, out,
                               from_gltf ? "glTF" : "BVH");
    if (!from_gltf && (o.skin >= 0 || o.animation >= 0 || o.fps > 0))
        return cli_usage_error(o.cmd, "--skin, --animation and --fps are for a glTF input");
    cli_file fin = {in, NULL, NULL}, fout = {out, NULL, NULL};
    if (cli_protect(&fin, 1, &fout, 1) != CLI_OK)
        return CLI_FAILED;
    if (!from_gltf) {
        pb_bvh b;
        if (cli_load(in, 0, &b))
            return CLI_FAILED;
        pb_gltf g;
        pb_io_error err;
        rc = CLI_OK;
        if (scale_clip(in, &b, own.scale))
            rc = CLI_FAILED;
        else if (pb_gltf_from_bvh(&b, &g, &err) != PB_IO_OK) {
            cli_report_bvh(in, &err);
            rc = CLI_FAILED;
        } else {
            if (write_gltf(out, &g, 0))
                rc = CLI_FAILED;
            pb_gltf_free(&g);
        }
        pb_bvh_free(&b);
        return rc;
    }
    pb_gltf g;
    if (load_gltf(in, &g))
        return CLI_FAILED;
    long skin = o.skin >= 0 ? o.skin : pb_gltf_default_skin(&g);
    rc = CLI_OK;
    if (o.skin < 0 && g.num_skins > 1) {
        cli_error("%s: the file has %zu skins: pick one with --skin N (0..%zu)", in, g.num_skins,
                  g.num_skins - 1);
        rc = CLI_FAILED;
    } else if (o.animation >= 0 && (size_t)o.animation >= g.num_animations) {
        cli_error("%s: --animation %ld: the file has %zu animation%s", in, o.animation,
                  g.num_animations, g.num_animations == 1 ? "" : "s");
        rc = CLI_FAILED;
    } else {
        pb_bvh b;
        size_t anim = o.animation >= 0 ? (size_t)o.animation : 0;
        if (gltf_to_clip(in, &g, skin, anim, o.fps > 0 ? 1.0 / o.fps : 0.0, &b))
            rc = CLI_FAILED;
        else {
            if (scale_clip(in, &b, own.scale) || cli_write(out, &b, NULL))
                rc = CLI_FAILED;
            pb_bvh_free(&b);
        }
    }
    pb_gltf_free(&g);
    return rc;
}
