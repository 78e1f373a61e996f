/* posebatch ik: foot clean-up. Each foot is held at its contact position
 * through every contact span (contacts found by height and speed, or
 * given) with two-bone IK (pb_ik_two_bone_solve, every frame of the clip
 * in one call per leg); the foot keeps its model-space rotation. Prints
 * the foot sliding during contact before and after. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: posebatch ik IN -o OUT [--feet A,B] [--contacts FILE] [options]\n"
    "\n"
    "Foot clean-up: holds each foot where it stands through each of its\n"
    "contacts (its mean position over the contact), bending the leg with\n"
    "two-bone IK (hip, knee, foot: the foot joint, its parent and\n"
    "grandparent) on every frame, the knee kept in its own bend plane and\n"
    "the foot's orientation kept; the weight ramps in and out over --blend\n"
    "frames around each contact. Prints, per foot, the contact frames and\n"
    "the foot sliding during contact (its mean ground-plane travel per\n"
    "frame) before and after.\n"
    "\n"
    "  -o, --output PATH  output file ('-': standard output, BVH); .glb or\n"
    "                     .gltf writes glTF, anything else BVH\n"
    "      --feet A,B     the foot (ankle) joints (default: the left/right pair\n"
    "                     whose names hold 'foot' or 'ankle', not 'toe')\n"
    "      --contacts FILE  contacts given: lines 'JOINT FIRST LAST' (a foot\n"
    "                     joint's name, frames FIRST..LAST from 0; '#' comments)\n"
    "                     instead of found\n"
    "      --contact-speed V   found contacts: a foot slower than V units/s\n"
    "                     (default 0.5 leg lengths a second) ...\n"
    "      --contact-height H  ... and less than H units above its lowest\n"
    "                     point in the clip (default 0.1 leg length)\n"
    "      --up x|y|z     the up axis (default y, BVH's)\n"
    "      --blend N      frames of weight ramp before and after a contact\n"
    "                     (default 3)\n" CLI_HELP_STRICT_EULER "  -h, --help         this help\n"
    "\n"
    "An output that would replace the input is refused; outputs are written\n"
    "atomically. Exit status: 0 written, 1 the input failed, 2 usage error.\n";

typedef struct ik_opts {
    const char *feet, *contacts;
    double speed, height; /* < 0: default */
    int up;
    long blend;
} ik_opts;

static const char *const own_names[] = {
    "--feet=", "--contacts=", "--contact-speed=", "--contact-height=", "--up=", "--blend="};
static int take_own(void *ctx, int which, char *val)
{
    ik_opts *k = ctx;
    double d;
    switch (which) {
    case 0: k->feet = val; break;
    case 1: k->contacts = val; break;
    case 2:
    case 3:
        if (cli_parse_double(val, &d) != 0 || !(d >= 0) || !isfinite(d))
            return cli_usage_error("ik", "%s: '%s' is not a number >= 0", own_names[which], val);
        *(which == 2 ? &k->speed : &k->height) = d;
        break;
    case 4:
        if (strcmp(val, "x") && strcmp(val, "y") && strcmp(val, "z"))
            return cli_usage_error("ik", "--up: '%s' is not x, y or z", val);
        k->up = val[0] - 'x';
        break;
    default:
        if (cli_parse_double(val, &d) != 0 || !(d >= 0 && d <= 1000) || d != floor(d))
            return cli_usage_error("ik", "--blend: '%s' is not a whole number 0..1000", val);
        k->blend = (long)d;
    }
    return CLI_OK;
}

/* ------------------------------------------------------------ feet */

static int has_word(const char *name, const char *w)
{
    size_t n = strlen(name), m = strlen(w);
    for (size_t i = 0; i + m <= n; i++) {
        size_t k = 0;
        while (k < m && tolower((unsigned char)name[i + k]) == w[k])
            k++;
        if (k == m)
            return 1;
    }
    return 0;
}
static int foot_name(const char *s)
{
    return (has_word(s, "foot") || has_word(s, "ankle")) && !has_word(s, "toe");
}

/* the two feet: named (--feet A,B) or the first left/right pair of foot
 * names (the mirror table pairs them); -1 reported */
static int find_feet(const char *in, const pb_bvh *b, const char *names, size_t feet[2])
{
    const size_t J = b->num_joints;
    if (names) {
        const char *comma = strchr(names, ',');
        if (!comma || strchr(comma + 1, ',')) {
            cli_error("ik: --feet: '%s' is not A,B", names);
            return -1;
        }
        char buf[2][256];
        size_t la = (size_t)(comma - names), lb = strlen(comma + 1);
        if (la >= sizeof buf[0] || lb >= sizeof buf[1]) {
            cli_error("ik: --feet: a name is too long");
            return -1;
        }
        memcpy(buf[0], names, la), buf[0][la] = '\0';
        memcpy(buf[1], comma + 1, lb + 1);
        for (int k = 0; k < 2; k++) {
            long j = pb_bvh_find_joint(b, buf[k]);
            if (j < 0) {
                cli_error("%s: no joint '%s' (--feet)", in, buf[k]);
                return -1;
            }
            feet[k] = (size_t)j;
        }
        return 0;
    }
    int32_t *tab = malloc(J * sizeof *tab);
    pb_io_error err;
    if (!tab) {
        cli_error("%s: out of memory", in);
        return -1;
    }
    int found = 0;
    if (pb_bvh_mirror_table(b, NULL, 0, tab, &err) == PB_IO_OK)
        for (size_t j = 0; j < J && !found; j++)
            if ((size_t)tab[j] > j && foot_name(b->joints[j].name) &&
                foot_name(b->joints[tab[j]].name))
                feet[0] = j, feet[1] = (size_t)tab[j], found = 1;
    free(tab);
    if (!found) {
        cli_error("%s: no left/right pair of foot joints found by name; name them with --feet A,B",
                  in);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ vectors (double) */

typedef struct {
    double v[3];
} d3;
static d3 d3_of(const float *const p[3], size_t e)
{
    d3 r = {{p[0][e], p[1][e], p[2][e]}};
    return r;
}
static d3 d3_sub(d3 a, d3 b)
{
    d3 r = {{a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2]}};
    return r;
}
static double d3_dot(d3 a, d3 b) { return a.v[0] * b.v[0] + a.v[1] * b.v[1] + a.v[2] * b.v[2]; }
static d3 d3_cross(d3 a, d3 b)
{
    d3 r = {{a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2],
             a.v[0] * b.v[1] - a.v[1] * b.v[0]}};
    return r;
}
/* conj(q) v q (q: w x y z) */
static d3 d3_unrotate(const double q[4], d3 v)
{
    const d3 u = {{-q[1], -q[2], -q[3]}};
    d3 c = d3_cross(u, v);
    for (int k = 0; k < 3; k++)
        c.v[k] *= 2;
    d3 d = d3_cross(u, c), r;
    for (int k = 0; k < 3; k++)
        r.v[k] = v.v[k] + q[0] * c.v[k] + d.v[k];
    return r;
}

/* ------------------------------------------------------------ the work */

typedef struct model {
    float *a[7]; /* w x y z px py pz, F*J each */
} model;
static int model_new(const pb_bvh *b, model *m)
{
    const size_t n = b->num_frames * b->num_joints;
    float *buf = malloc(7 * n * sizeof *buf);
    if (!buf)
        return -1;
    for (int k = 0; k < 7; k++)
        m->a[k] = buf + (size_t)k * n;
    return 0;
}
static int model_fk(const pb_bvh *b, const int32_t *par, model *m)
{
    pb_cpose l = {{b->rot_w, b->rot_x, b->rot_y, b->rot_z},
                  {b->pos_x, b->pos_y, b->pos_z},
                  {NULL, NULL, NULL}};
    pb_pose o = {
        {m->a[0], m->a[1], m->a[2], m->a[3]}, {m->a[4], m->a[5], m->a[6]}, {NULL, NULL, NULL}};
    return pb_pose_local_to_model(b->num_frames, b->num_joints, par, &l, &o) == PB_OK ? 0 : -1;
}

/* the foot's mean ground-plane travel per frame over contact frames whose
 * previous frame is in the same span (span[f] > 0 the span's number) */
static double sliding(const model *m, size_t F, size_t J, size_t e, int up, const int *span,
                      size_t *steps)
{
    const float *const p[3] = {m->a[4], m->a[5], m->a[6]};
    double sum = 0;
    size_t cnt = 0;
    for (size_t f = 1; f < F; f++) {
        if (!span[f] || span[f] != span[f - 1])
            continue;
        d3 d = d3_sub(d3_of(p, f * J + e), d3_of(p, (f - 1) * J + e));
        d.v[up] = 0;
        sum += sqrt(d3_dot(d, d));
        cnt++;
    }
    *steps = cnt;
    return cnt ? sum / (double)cnt : 0.0;
}

/* contacts from --contacts FILE into span (numbered spans); -1 reported */
static int read_contacts(const char *path, const pb_bvh *b, size_t foot, int *span)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_error("%s: cannot open", path);
        return -1;
    }
    char line[512];
    long ln = 0;
    int next = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char name[256];
        long a, z;
        char *h = strchr(line, '#');
        if (h)
            *h = '\0';
        char extra[2];
        int got = sscanf(line, "%255s %ld %ld %1s", name, &a, &z, extra);
        if (got <= 0)
            continue;
        if (got != 3 || a < 0 || z < a || (size_t)z >= b->num_frames) {
            cli_error("%s:%ld: not 'JOINT FIRST LAST' with 0 <= FIRST <= LAST < %zu", path, ln,
                      b->num_frames);
            rc = -1;
            break;
        }
        long j = pb_bvh_find_joint(b, name);
        if (j < 0) {
            cli_error("%s:%ld: no joint '%s'", path, ln, name);
            rc = -1;
            break;
        }
        if ((size_t)j != foot)
            continue;
        next++;
        for (long k = a; k <= z; k++)
            span[k] = next;
    }
    fclose(f);
    return rc;
}

/* found contacts: below the height and slower than the speed */
static void find_contacts(const model *m, const pb_bvh *b, size_t e, int up, double height,
                          double speed, int *span)
{
    const size_t F = b->num_frames, J = b->num_joints;
    const float *const p[3] = {m->a[4], m->a[5], m->a[6]};
    double low = INFINITY;
    /* a compare, not fmin: GCC 12 for aarch64 (-O3) stops with an internal
     * compiler error vectorizing the fmin reduction of floats into a double */
    for (size_t f = 0; f < F; f++)
        if (p[up][f * J + e] < low)
            low = p[up][f * J + e];
    int next = 0;
    for (size_t f = 0; f < F; f++) {
        size_t g = f ? f - 1 : (F > 1 ? 1 : 0);
        d3 d = d3_sub(d3_of(p, f * J + e), d3_of(p, g * J + e));
        double v = sqrt(d3_dot(d, d)) / b->frame_time;
        int c = p[up][f * J + e] < low + height && v < speed;
        if (c && (f == 0 || !span[f - 1]))
            next++;
        span[f] = c ? next : 0;
    }
}

/* One leg: targets, poles and weights per frame, then the solve over every
 * frame (in place on the clip's rotations), then the foot's model rotation
 * put back. Returns 0, or -1 reported. */
static int fix_leg(const char *in, pb_bvh *b, const int32_t *par, const model *m, size_t e,
                   const int *span, long blend)
{
    const size_t F = b->num_frames, J = b->num_joints;
    const size_t mid = (size_t)par[e], start = (size_t)par[mid];
    const float *const p[3] = {m->a[4], m->a[5], m->a[6]};
    float *buf = calloc(7 * F, sizeof *buf);
    if (!buf) {
        cli_error("%s: out of memory", in);
        return -1;
    }
    float *t[3] = {buf, buf + F, buf + 2 * F}, *pl[3] = {buf + 3 * F, buf + 4 * F, buf + 5 * F};
    float *w = buf + 6 * F;
    /* the bend axis in the knee's frame: from the most bent frame */
    double best = -1, axis[3] = {0, 0, 1};
    for (size_t f = 0; f < F; f++) {
        d3 u = d3_sub(d3_of(p, f * J + mid), d3_of(p, f * J + start));
        d3 v = d3_sub(d3_of(p, f * J + e), d3_of(p, f * J + mid));
        d3 n = d3_cross(v, u);
        double s = sqrt(d3_dot(n, n) / (d3_dot(u, u) * d3_dot(v, v)));
        if (s > best && isfinite(s)) {
            best = s;
            const size_t k = f * J + mid;
            const double q[4] = {m->a[0][k], m->a[1][k], m->a[2][k], m->a[3][k]};
            d3 l = d3_unrotate(q, n);
            double nl = sqrt(d3_dot(l, l));
            for (int c = 0; c < 3; c++)
                axis[c] = l.v[c] / nl;
        }
    }
    /* each span's mean position; targets and weights with the ramps */
    for (size_t f = 0; f < F; f++)
        for (int c = 0; c < 3; c++)
            t[c][f] = p[c][f * J + e];
    for (size_t f0 = 0; f0 < F;) {
        if (!span[f0]) {
            f0++;
            continue;
        }
        size_t f1 = f0;
        while (f1 < F && span[f1] == span[f0])
            f1++;
        double mean[3] = {0, 0, 0};
        for (size_t f = f0; f < f1; f++)
            for (int c = 0; c < 3; c++)
                mean[c] += p[c][f * J + e];
        const size_t lo = f0 >= (size_t)blend ? f0 - (size_t)blend : 0;
        const size_t hi = f1 + (size_t)blend < F ? f1 + (size_t)blend : F;
        for (size_t f = lo; f < hi; f++) {
            double wf = 1.0;
            if (f < f0)
                wf = (double)(f - lo + 1) / (double)(blend + 1);
            else if (f >= f1)
                wf = (double)(hi - f) / (double)(blend + 1);
            if (wf < w[f])
                continue; /* a nearer span's ramp or contact wins */
            w[f] = (float)wf;
            for (int c = 0; c < 3; c++)
                t[c][f] = (float)(mean[c] / (double)(f1 - f0));
        }
        f0 = f1;
    }
    /* poles: the knee's offset from the hip-foot line (its own plane) */
    for (size_t f = 0; f < F; f++) {
        d3 u = d3_sub(d3_of(p, f * J + mid), d3_of(p, f * J + start));
        d3 d = d3_sub(d3_of(p, f * J + e), d3_of(p, f * J + start));
        double dd = d3_dot(d, d), k = dd > 0 ? d3_dot(u, d) / dd : 0;
        for (int c = 0; c < 3; c++)
            pl[c][f] = (float)(u.v[c] - k * d.v[c]);
    }
    pb_ik_two_bone ik = {start,
                         mid,
                         e,
                         {(float)axis[0], (float)axis[1], (float)axis[2]},
                         {t[0], t[1], t[2]},
                         {pl[0], pl[1], pl[2]},
                         w,
                         NULL};
    pb_cpose mp = {
        {m->a[0], m->a[1], m->a[2], m->a[3]}, {m->a[4], m->a[5], m->a[6]}, {NULL, NULL, NULL}};
    pb_quats rot = {b->rot_w, b->rot_x, b->rot_y, b->rot_z};
    pb_status st = pb_ik_two_bone_solve(F, J, &ik, &mp, pb_cq(rot), rot, NULL);
    free(buf);
    if (st != PB_OK) {
        cli_error("%s: two-bone IK: %s", in, pb_status_str(st));
        return -1;
    }
    return 0;
}

/* the foot's local rotation set so that its model rotation is what it was
 * (old) under the knee's new one (now): r = conj(R_knee) R_foot */
static void keep_foot(pb_bvh *b, const int32_t *par, const model *old, const model *now, size_t e)
{
    const size_t F = b->num_frames, J = b->num_joints, mid = (size_t)par[e];
    float *r[4] = {b->rot_w, b->rot_x, b->rot_y, b->rot_z};
    for (size_t f = 0; f < F; f++) {
        const size_t k = f * J + mid, i = f * J + e;
        int same = 1; /* the knee not turned (weight 0): the foot as it was */
        for (int c = 0; c < 4; c++)
            same &= now->a[c][k] == old->a[c][k];
        if (same)
            continue;
        const double a[4] = {now->a[0][k], -now->a[1][k], -now->a[2][k], -now->a[3][k]};
        const double c[4] = {old->a[0][i], old->a[1][i], old->a[2][i], old->a[3][i]};
        const double q[4] = {a[0] * c[0] - a[1] * c[1] - a[2] * c[2] - a[3] * c[3],
                             a[0] * c[1] + a[1] * c[0] + a[2] * c[3] - a[3] * c[2],
                             a[0] * c[2] - a[1] * c[3] + a[2] * c[0] + a[3] * c[1],
                             a[0] * c[3] + a[1] * c[2] - a[2] * c[1] + a[3] * c[0]};
        const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int c2 = 0; c2 < 4; c2++)
            r[c2][i] = (float)(q[c2] / n);
    }
}

static int ik_file(const char *in, const char *out, const ik_opts *k)
{
    pb_bvh b;
    if (cli_load_clip(in, PB_BVH_READ_UNIQUE_NAMES, &b))
        return CLI_FAILED;
    const size_t F = b.num_frames, J = b.num_joints;
    int rc = CLI_FAILED;
    int32_t *par = malloc(J * sizeof *par);
    int *span = calloc(2 * F, sizeof *span);
    model m0 = {{NULL}}, m1 = {{NULL}};
    size_t feet[2];
    if (!par || !span || model_new(&b, &m0) || model_new(&b, &m1)) {
        cli_error("%s: out of memory", in);
        goto done;
    }
    for (size_t j = 0; j < J; j++)
        par[j] = b.joints[j].parent;
    if (find_feet(in, &b, k->feet, feet))
        goto done;
    for (int s = 0; s < 2; s++)
        if (par[feet[s]] < 0 || par[par[feet[s]]] < 0) {
            cli_error("%s: foot '%s' has no knee and hip above it", in, b.joints[feet[s]].name);
            goto done;
        }
    if (model_fk(&b, par, &m0)) {
        cli_error("%s: forward kinematics failed", in);
        goto done;
    }
    for (int s = 0; s < 2; s++) {
        const size_t e = feet[s], mid = (size_t)par[e], start = (size_t)par[mid];
        const float *const p[3] = {m0.a[4], m0.a[5], m0.a[6]};
        d3 u = d3_sub(d3_of(p, mid), d3_of(p, start)), v = d3_sub(d3_of(p, e), d3_of(p, mid));
        const double leg = sqrt(d3_dot(u, u)) + sqrt(d3_dot(v, v));
        int *sp = span + (size_t)s * F;
        if (k->contacts) {
            if (read_contacts(k->contacts, &b, e, sp))
                goto done;
        } else
            find_contacts(&m0, &b, e, k->up, k->height >= 0 ? k->height : 0.1 * leg,
                          k->speed >= 0 ? k->speed : 0.5 * leg, sp);
        if (fix_leg(in, &b, par, &m0, e, sp, k->blend))
            goto done;
    }
    if (model_fk(&b, par, &m1))
        goto done;
    for (int s = 0; s < 2; s++)
        keep_foot(&b, par, &m0, &m1, feet[s]);
    if (model_fk(&b, par, &m1))
        goto done;
    for (int s = 0; s < 2; s++) {
        size_t steps, spans = 0, frames = 0;
        const int *sp = span + (size_t)s * F;
        for (size_t f = 0; f < F; f++) {
            frames += sp[f] != 0;
            spans += sp[f] && (f == 0 || sp[f - 1] != sp[f]);
        }
        double before = sliding(&m0, F, J, feet[s], k->up, sp, &steps);
        double after = sliding(&m1, F, J, feet[s], k->up, sp, &steps);
        fprintf(stderr,
                "posebatch ik: %s: %zu contact frames in %zu spans; sliding during contact %.6g -> "
                "%.6g units/frame\n",
                b.joints[feet[s]].name, frames, spans, before, after);
    }
    {
        pb_bvh_write_opts wo = {.euler = cli_euler_mode};
        if (cli_write_clip(out, &b, &wo) == 0)
            rc = CLI_OK;
    }
done:
    free(m0.a[0]);
    free(m1.a[0]);
    free(span);
    free(par);
    pb_bvh_free(&b);
    return rc;
}

int cmd_ik(int argc, char **argv)
{
    ik_opts k = {NULL, NULL, -1.0, -1.0, 1, 3};
    cli_opts o;
    int rc = cli_take_own("ik", &argc, argv, own_names, 6, take_own, &k);
    if (rc == CLI_OK)
        rc = cli_parse(argc, argv, OPT_OUT | OPT_STRICT | OPT_EULER, usage, &o);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if ((rc = cli_check_one_in_one_out(&o)) == CLI_OK &&
        (rc = cli_check_clip_output(o.cmd, o.out)) == CLI_OK) {
        cli_file in[2] = {{o.inputs[0], NULL, NULL}, {k.contacts, "--contacts", NULL}},
                 out = {o.out, NULL, NULL};
        rc = cli_protect(in, k.contacts ? 2 : 1, &out, 1);
        if (rc == CLI_OK)
            rc = ik_file(o.inputs[0], o.out, &k);
    }
    return rc;
}
