/* posebatch blend: K clips of one skeleton, resampled to a common rate, are
 * blended frame by frame with fixed weights (what a runtime's blend node
 * does each tick, over a whole clip). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: posebatch blend A.bvh B.bvh... --weights W1,W2,... -o OUT.bvh [options]\n"
    "\n"
    "Blends clips of the same skeleton (same joints, names, parents and\n"
    "channels) frame by frame. Every input is first resampled to a common\n"
    "rate; the output has as many frames as the shortest resampled input.\n"
    "Positions blend as ref + sum w_i (p_i - ref) (the plain weighted sum when\n"
    "the weights add up to 1). Joints are matched by name: a joint name that\n"
    "appears twice in an input is an error.\n"
    "\n"
    "glTF inputs (.glb, .gltf) are taken as 'posebatch convert' makes them BVH:\n"
    "the file's one skin (every node when it has none) and its first\n"
    "animation. OUT ending in .glb or .gltf is written as glTF (the skeleton\n"
    "as nodes and one animation, as 'posebatch convert' writes a BVH).\n"
    "\n"
    "  -o, --output FILE  output BVH (skeleton of the first input); '-o -' is\n"
    "                     standard output. One input may be '-', standard input\n"
    "      --weights LIST one weight per input, comma separated decimal numbers\n"
    "                     (required); they are divided by their sum, so 1,1 is\n"
    "                     0.5,0.5; a sum <= 0 is a usage error\n"
    "      --weights-as-given  use the weights unnormalised, for additive use\n"
    "                     (1,1 then adds both inputs' offsets from --ref)\n"
    "      --method M     rotation average: log_ref (default), raw_ref, log,\n"
    "                     raw, accurate (eigenvector)\n"
    "      --ref R        reference pose of the _ref methods and of positions:\n"
    "                     heaviest (default: at each frame the rotations of the\n"
    "                     input with the largest weight, OFFSET positions),\n"
    "                     rest (identity rotations, OFFSET positions; joints\n"
    "                     near 180 degrees from rest, which real clips have,\n"
    "                     then blend wrongly: the log map is cut there and\n"
    "                     raw_ref splits nearby rotations between hemispheres),\n"
    "                     first (the first input's pose at each frame),\n"
    "                     accurate (one pose for the clip: the eigenvector\n"
    "                     average of every frame of every input, mean positions)\n"
    "      --fps N        common rate, 0.001 <= N <= 100000 (default: the first\n"
    "                     input's, 1 / Frame Time)\n" CLI_HELP_STRICT_EULER
    "      --backend NAME force a SIMD backend (see 'posebatch cpu')\n"
    "  -h, --help         this help\n"
    "\n"
    "Exit status: 0 written, 1 an input failed, the skeletons differ or a joint\n"
    "name repeats (nothing written), 2 usage error.\n";

enum ref_kind { REF_HEAVIEST, REF_REST, REF_FIRST, REF_ACCURATE };

static const char *const method_names[PB_BLEND_METHOD_COUNT] = {"log_ref", "raw_ref", "log", "raw",
                                                                "accurate"};
static const char *const ref_names[] = {"heaviest", "rest", "first", "accurate"};

typedef struct blend_job {
    size_t k;
    char **paths;
    float *weights;
    pb_blend_method method;
    enum ref_kind ref;
    double fps;
    pb_bvh *src;    /* k inputs as read */
    pb_bvh *res;    /* k inputs resampled (skeletons shared with src) */
    float *ref_mem; /* REF_HEAVIEST / REF_REST / REF_ACCURATE: one pose, 7 arrays of J */
    long heavy;     /* REF_HEAVIEST: the input of the largest weight (-1: none > 0) */
} blend_job;

/* Index of name in names[count], or -1. */
static int lookup(const char *name, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* One weight: a decimal number that is still finite as a float. */
static int parse_weight(const char *s, size_t len, double *w)
{
    char item[64];
    double v;
    if (len >= sizeof item)
        return -1;
    memcpy(item, s, len);
    item[len] = '\0';
    if (cli_parse_double(item, &v) || fabs(v) > FLT_MAX)
        return -1;
    *w = v;
    return 0;
}

/* The weights as floats: divided by their sum (computed in double), whose
 * sum must then be finite and > 0; with --weights-as-given, as they are. */
static int normalise_weights(const cli_opts *o, const double *v, size_t count, float *w)
{
    double sum = 0.0;
    for (size_t i = 0; i < count; i++)
        sum += v[i];
    if (!o->weights_as_given && !(isfinite(sum) && sum > 0.0))
        return cli_usage_error(o->cmd,
                               "--weights: they add up to %g; the sum must be > 0 (they are "
                               "divided by it; --weights-as-given uses them unnormalised)",
                               sum);
    for (size_t i = 0; i < count; i++) {
        double x = o->weights_as_given ? v[i] : v[i] / sum;
        w[i] = (float)x;
    }
    return CLI_OK;
}

static int parse_weights(const cli_opts *o, float *w)
{
    size_t count = 1;
    for (const char *c = o->weights; *c; c++)
        count += *c == ',';
    if (count != o->num_inputs)
        return cli_usage_error(o->cmd, "--weights: %zu weight%s for %zu input%s", count,
                               count == 1 ? "" : "s", o->num_inputs, o->num_inputs == 1 ? "" : "s");
    double *v = malloc(count * sizeof *v);
    if (!v) {
        cli_error("out of memory");
        return CLI_FAILED;
    }
    const char *s = o->weights;
    int rc = CLI_OK;
    for (size_t i = 0; i < count && rc == CLI_OK; i++) {
        size_t len = strcspn(s, ",");
        if (parse_weight(s, len, &v[i]))
            rc = cli_usage_error(o->cmd,
                                 "--weights: '%.*s' is not a decimal number that "
                                 "is finite as a float",
                                 (int)(len < 60 ? len : 60), s);
        s += len + 1;
    }
    if (rc == CLI_OK)
        rc = normalise_weights(o, v, count, w);
    free(v);
    return rc;
}

static int parse_names(const cli_opts *o, blend_job *b)
{
    int m = o->method ? lookup(o->method, method_names, PB_BLEND_METHOD_COUNT) : 0;
    int r = o->ref ? lookup(o->ref, ref_names, 4) : 0;
    if (m < 0)
        return cli_usage_error(o->cmd,
                               "--method: unknown '%s' (log_ref, raw_ref, log, raw, "
                               "accurate)",
                               o->method);
    if (r < 0)
        return cli_usage_error(o->cmd, "--ref: unknown '%s' (heaviest, rest, first, accurate)",
                               o->ref);
    b->method = (pb_blend_method)m;
    b->ref = (enum ref_kind)r;
    return CLI_OK;
}

static int check_args(const cli_opts *o, blend_job *b)
{
    if (o->num_inputs == 0)
        return cli_usage_error(o->cmd, "no input files");
    if (!o->out || !o->out[0])
        return cli_usage_error(o->cmd, "-o OUT.bvh is required");
    if (!cli_is_dash(o->out) && cli_is_dir(o->out))
        return cli_usage_error(o->cmd, "-o %s is a directory; blend writes one file", o->out);
    if (cli_check_clip_output(o->cmd, o->out) != CLI_OK || cli_check_dash(o, 0) != CLI_OK)
        return CLI_USAGE;
    if (!o->weights)
        return cli_usage_error(o->cmd, "--weights is required");
    int rc = parse_names(o, b);
    return rc != CLI_OK ? rc : parse_weights(o, b->weights);
}

static const char *parent_name(const pb_bvh *b, const pb_bvh_joint *jt)
{
    return jt->parent >= 0 ? b->joints[jt->parent].name : "(none: a ROOT)";
}

/* The first difference between two skeletons, or 0 when they match. */
static int skeleton_diff(const pb_bvh *a, const pb_bvh *b, char *msg, size_t size)
{
    if (a->num_joints != b->num_joints) {
        snprintf(msg, size, "%zu joints, not %zu", b->num_joints, a->num_joints);
        return 1;
    }
    for (size_t j = 0; j < a->num_joints; j++) {
        const pb_bvh_joint *ja = &a->joints[j], *jb = &b->joints[j];
        char ca[128], cb[128];
        cli_channels_str(ja, ca, sizeof ca);
        cli_channels_str(jb, cb, sizeof cb);
        if (strcmp(ja->name, jb->name) != 0)
            snprintf(msg, size, "joint %zu is '%s', not '%s'", j, jb->name, ja->name);
        else if (ja->parent != jb->parent)
            snprintf(msg, size, "joint '%s' has parent '%s', not '%s'", ja->name,
                     parent_name(b, jb), parent_name(a, ja));
        else if (strcmp(ca, cb) != 0)
            snprintf(msg, size, "joint '%s' has channels '%s', not '%s'", ja->name, cb, ca);
        else
            continue;
        return 1;
    }
    return 0;
}

static int load_inputs(blend_job *b)
{
    int bad = 0;
    for (size_t i = 0; i < b->k; i++) {
        /* joints are matched by name: a name used twice is an error */
        if (cli_load_clip(b->paths[i], PB_BVH_READ_UNIQUE_NAMES, &b->src[i]) != 0)
            bad = 1;
    }
    for (size_t i = 1; i < b->k && !bad; i++) {
        char msg[512];
        if (skeleton_diff(&b->src[0], &b->src[i], msg, sizeof msg)) {
            cli_error("%s: skeleton differs from %s: %s", b->paths[i], b->paths[0], msg);
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

static int resample_inputs(blend_job *b)
{
    for (size_t i = 0; i < b->k; i++)
        if (cli_resample(&b->src[i], b->fps, 0, &b->res[i], b->paths[i]))
            return -1;
    return 0;
}

static pb_pose pose_of(float *w, float *x, float *y, float *z, float *px, float *py, float *pz)
{
    pb_pose p;
    memset(&p, 0, sizeof p); /* no scale track */
    p.rot.w = w;
    p.rot.x = x;
    p.rot.y = y;
    p.rot.z = z;
    p.pos.x = px;
    p.pos.y = py;
    p.pos.z = pz;
    return p;
}

static pb_cpose const_pose(pb_pose p)
{
    pb_cpose c;
    memset(&c, 0, sizeof c);
    c.rot = pb_cq(p.rot);
    c.pos = pb_cv(p.pos);
    return c;
}

/* Seven arrays of J floats in one block: rot w x y z, pos x y z. */
static pb_pose pose_in_block(float *m, size_t J)
{
    return pose_of(m, m + J, m + 2 * J, m + 3 * J, m + 4 * J, m + 5 * J, m + 6 * J);
}

static pb_pose frame_pose(const pb_bvh *r, size_t f)
{
    size_t o = f * r->num_joints;
    return pose_of(r->rot_w + o, r->rot_x + o, r->rot_y + o, r->rot_z + o, r->pos_x + o,
                   r->pos_y + o, r->pos_z + o);
}

static void rest_pose(const pb_bvh *skel, float *m)
{
    size_t J = skel->num_joints;
    for (size_t j = 0; j < J; j++) {
        m[j] = 1.0f;
        m[J + j] = m[2 * J + j] = m[3 * J + j] = 0.0f;
        for (size_t a = 0; a < 3; a++)
            m[(4 + a) * J + j] = skel->joints[j].offset[a];
    }
}

static void mean_positions(const blend_job *b, size_t total, float *m)
{
    size_t J = b->src[0].num_joints;
    for (size_t j = 0; j < J; j++) {
        double s[3] = {0, 0, 0};
        for (size_t i = 0; i < b->k; i++) {
            const pb_bvh *r = &b->res[i];
            for (size_t e = j; e < r->num_frames * J; e += J) {
                s[0] += r->pos_x[e];
                s[1] += r->pos_y[e];
                s[2] += r->pos_z[e];
            }
        }
        for (size_t a = 0; a < 3; a++)
            m[(4 + a) * J + j] = (float)(s[a] / (double)total);
    }
}

/* Every resampled frame of every input, one after the other. */
static float *concat_rotations(const blend_job *b, size_t total)
{
    size_t J = b->src[0].num_joints;
    float *q = malloc(4 * total * J * sizeof *q);
    if (!q)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < b->k; i++) {
        const pb_bvh *r = &b->res[i];
        size_t n = r->num_frames * J;
        const float *src[4] = {r->rot_w, r->rot_x, r->rot_y, r->rot_z};
        for (size_t c = 0; c < 4; c++)
            memcpy(q + c * total * J + at, src[c], n * sizeof *q);
        at += n;
    }
    return q;
}

static int accurate_pose(const blend_job *b, float *m)
{
    size_t J = b->src[0].num_joints, total = 0;
    for (size_t i = 0; i < b->k; i++)
        total += b->res[i].num_frames;
    if (total > PB_MAX_COUNT / J) {
        cli_error("%s: too many frames in all for --ref accurate", b->paths[0]);
        return -1;
    }
    float *q = concat_rotations(b, total);
    if (!q) {
        cli_error("out of memory");
        return -1;
    }
    size_t n = total * J;
    pb_cquats poses = {q, q + n, q + 2 * n, q + 3 * n};
    pb_quats out = {m, m + J, m + 2 * J, m + 3 * J};
    pb_status st = pb_quat_reference_extract(total, J, poses, out);
    free(q);
    if (st != PB_OK) {
        cli_report_status(b->paths[0], "reference extraction failed", st);
        return -1;
    }
    mean_positions(b, total, m);
    return 0;
}

/* Builds the fixed reference pose (rest / accurate; the rest pose's
 * positions for heaviest); none for REF_FIRST. */
static int make_ref(blend_job *b)
{
    size_t J = b->src[0].num_joints;
    b->heavy = -1;
    for (size_t i = 0; i < b->k; i++)
        if (b->weights[i] > 0.0f && (b->heavy < 0 || b->weights[i] > b->weights[b->heavy]))
            b->heavy = (long)i;
    if (b->ref == REF_FIRST)
        return 0;
    b->ref_mem = malloc(7 * J * sizeof *b->ref_mem);
    if (!b->ref_mem) {
        cli_error("out of memory");
        return -1;
    }
    if (b->ref == REF_REST || b->ref == REF_HEAVIEST) {
        rest_pose(&b->src[0], b->ref_mem);
        return 0;
    }
    return accurate_pose(b, b->ref_mem);
}

static int blend_frames(const blend_job *b, pb_bvh *out, pb_cquats *rot, pb_cvec3s *pos)
{
    size_t J = out->num_joints;
    for (size_t f = 0; f < out->num_frames; f++) {
        for (size_t i = 0; i < b->k; i++) {
            pb_cpose p = const_pose(frame_pose(&b->res[i], f));
            rot[i] = p.rot;
            pos[i] = p.pos;
        }
        pb_cpose ref =
            const_pose(b->ref_mem ? pose_in_block(b->ref_mem, J) : frame_pose(&b->res[0], f));
        if (b->ref == REF_HEAVIEST && b->heavy >= 0)
            ref.rot = const_pose(frame_pose(&b->res[b->heavy], f)).rot;
        pb_pose op = frame_pose(out, f);
        pb_status st = pb_pose_blend(J, b->k, rot, pos, NULL, b->weights, b->method, &ref, &op);
        if (st != PB_OK) {
            cli_error("blend failed at frame %zu: %s", f, pb_status_str(st));
            return -1;
        }
    }
    return 0;
}

static int blend_and_write(const blend_job *b, const char *path)
{
    size_t frames = b->res[0].num_frames;
    for (size_t i = 1; i < b->k; i++)
        frames = b->res[i].num_frames < frames ? b->res[i].num_frames : frames;
    pb_bvh out;
    if (cli_motion_new(&b->src[0], frames, 1.0 / b->fps, &out, path))
        return -1;
    pb_cquats *rot = calloc(b->k, sizeof *rot);
    pb_cvec3s *pos = calloc(b->k, sizeof *pos);
    int rc = -1;
    if (!rot || !pos)
        cli_error("out of memory");
    else if (blend_frames(b, &out, rot, pos) == 0) {
        /* The written Euler triples follow the first input's angles. */
        pb_io_error err;
        if (pb_bvh_resample_angles(&b->res[0], 0, &out, &err) != PB_IO_OK)
            cli_report_bvh(path, &err);
        else {
            cli_file_progress fp = {1, 1, path, -1};
            pb_bvh_write_opts wo = {
                .euler = cli_euler_mode, .progress = cli_progress_frames, .progress_ctx = &fp};
            rc = cli_write_clip(path, &out, &wo);
            cli_progress_end();
        }
    }
    free(rot);
    free(pos);
    pb_bvh_free(&out);
    return rc;
}

/* The one rule for inputs (cli_check_files): -o is none of them. */
static int refuse_input_as_output(const cli_opts *o)
{
    cli_file *ins = malloc((o->num_inputs ? o->num_inputs : 1) * sizeof *ins);
    if (!ins) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < o->num_inputs; i++)
        ins[i] = (cli_file){o->inputs[i], NULL, NULL};
    cli_file out = {o->out, NULL, NULL};
    long refused = cli_check_files(ins, o->num_inputs, &out, 1, NULL);
    free(ins);
    return refused ? -1 : 0;
}

static int default_fps(blend_job *b, double given)
{
    b->fps = given > 0.0 ? given : 1.0 / b->src[0].frame_time;
    if (!(b->fps >= CLI_MIN_FPS) || b->fps > CLI_MAX_FPS) {
        cli_error("%s: its frame rate %g is out of range; give --fps", b->paths[0], b->fps);
        return -1;
    }
    return 0;
}

static int run(blend_job *b, const cli_opts *o)
{
    if (refuse_input_as_output(o) || load_inputs(b) || default_fps(b, o->fps) ||
        resample_inputs(b) || make_ref(b) || blend_and_write(b, o->out))
        return CLI_FAILED;
    return CLI_OK;
}

int cmd_blend(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv,
                       OPT_OUT | OPT_FPS | OPT_BACKEND | OPT_WEIGHTS | OPT_METHOD | OPT_REF |
                           OPT_STRICT | OPT_EULER,
                       usage, &o);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    size_t k = o.num_inputs ? o.num_inputs : 1;
    blend_job b = {.k = o.num_inputs, .paths = o.inputs};
    b.weights = calloc(k, sizeof *b.weights);
    b.src = calloc(k, sizeof *b.src);
    b.res = calloc(k, sizeof *b.res);
    if (!b.weights || !b.src || !b.res) {
        cli_error("out of memory");
        rc = CLI_FAILED;
    } else if ((rc = check_args(&o, &b)) == CLI_OK)
        rc = run(&b, &o);
    for (size_t i = 0; b.res && b.src && i < b.k; i++) {
        pb_bvh_free(&b.res[i]);
        pb_bvh_free(&b.src[i]);
    }
    free(b.ref_mem);
    free(b.res);
    free(b.src);
    free(b.weights);
    return rc;
}
