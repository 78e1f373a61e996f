/* posebatch positions: every joint's model-space (global) position at every
 * frame of a clip, by pb_pose_local_to_model, as CSV or a NumPy .npy array. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "numtext.h"

static const char usage[] =
    "usage: posebatch positions IN -o OUT.csv|OUT.npy [options]\n"
    "\n"
    "Writes the model-space (global) position of every joint at every frame of\n"
    "a BVH or glTF clip (forward kinematics: each joint's local rotation and\n"
    "translation composed down from its root). glTF inputs are read as\n"
    "'posebatch convert' makes them BVH (the one skin, the first animation).\n"
    "\n"
    "Root position: by default a joint's position channels REPLACE its OFFSET\n"
    "(posebatch's reading of BVH), so the root is where its channels put it.\n"
    "three.js's BVHLoader (and some other tools) ADD the channels to the\n"
    "OFFSET instead; --three does that. The two differ by the root's OFFSET,\n"
    "a constant shift of every joint (unless other joints have position\n"
    "channels).\n"
    "\n"
    "  -o, --output FILE  OUT.csv: a header line 'frame,time,J.x,J.y,J.z,...'\n"
    "                     then one line per frame (time in seconds; numbers\n"
    "                     in their shortest round-trip form);\n"
    "                     OUT.npy: float32 array of shape (frames, joints, 3);\n"
    "                     '-o -' (or a device or pipe) gets the CSV.\n"
    "                     IN may be '-' (a BVH on standard input)\n"
    "      --rotations    also the model-space rotation of each joint as a unit\n"
    "                     quaternion: CSV columns J.qw,J.qx,J.qy,J.qz after\n"
    "                     J.z; .npy shape (frames, joints, 7): x y z qw qx qy qz\n"
    "      --joints LIST  only these joints (comma separated names, in the\n"
    "                     order given); default every joint, in file order\n"
    "                     (a CSV of joints sharing a name is refused: its\n"
    "                     columns would repeat; .npy goes by index)\n"
    "      --three        three.js's root convention (channels + OFFSET; BVH\n"
    "                     inputs only)\n"
    "      --strict       a 'Frames:' count that disagrees with the data lines is\n"
    "                     an error (default: a warning; the data lines count)\n"
    "      --backend NAME force a SIMD backend (see 'posebatch cpu')\n"
    "  -h, --help         this help\n"
    "\n"
    "Exit status: 0 written, 1 the input failed or has no such joint (nothing\n"
    "written), 2 usage error.\n";

typedef struct pos_job {
    int rotations, three;
    const char *joints_arg; /* --joints, or NULL */
    const char *in, *out;
    int npy;
    pb_bvh clip;
    size_t num_sel;
    size_t *sel; /* the joints written, in output order */
    float *mem;  /* model-space rot w x y z, pos x y z: 7 arrays of F * J */
} pos_job;

/* --rotations, --three and --joints are this command's own (cli_take_own) */
static const char *const own_names[] = {"--rotations", "--three", "--joints="};
static int take_own(void *ctx, int which, char *val)
{
    pos_job *p = ctx;
    if (which == 0)
        p->rotations = 1;
    else if (which == 1)
        p->three = 1;
    else
        p->joints_arg = val;
    return CLI_OK;
}

static int ends_with(const char *s, const char *ext)
{
    size_t n = strlen(s), k = strlen(ext);
    if (n < k)
        return 0;
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != ext[i])
            return 0;
    }
    return 1;
}

static int check_args(const cli_opts *o, pos_job *p)
{
    if (o->num_inputs != 1)
        return cli_usage_error(o->cmd, "give one input file (%zu given)", o->num_inputs);
    if (!o->out)
        return cli_usage_error(o->cmd, "no output: give -o OUT.csv or -o OUT.npy");
    p->in = o->inputs[0];
    p->out = o->out;
    struct stat st;
    if (ends_with(o->out, ".npy"))
        p->npy = 1;
    else if (!cli_is_dash(o->out) && !ends_with(o->out, ".csv") &&
             !(stat(o->out, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))))
        return cli_usage_error(o->cmd,
                               "-o %s: the output must end in .csv or .npy (or be '-', a "
                               "device or a pipe: CSV)",
                               o->out);
    if (p->joints_arg) {
        /* a well-formed list: no empty name */
        const char *s = p->joints_arg;
        if (!*s)
            return cli_usage_error(o->cmd, "--joints: empty list");
        for (const char *c = s; *c; c++)
            if (*c == ',' && (c == s || c[1] == ',' || c[1] == '\0'))
                return cli_usage_error(o->cmd, "--joints '%s': an empty name in the list", s);
    }
    return CLI_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A CSV's columns are named by the joints: two joints of one name would
 * make two columns of one name. 0, or -1 reported (O(J log J)). */
static int unique_names(const pos_job *p)
{
    const pb_bvh *b = &p->clip;
    const size_t J = b->num_joints;
    const char **names = malloc((J ? J : 1) * sizeof *names);
    if (!names) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t j = 0; j < J; j++)
        names[j] = b->joints[j].name;
    qsort(names, J, sizeof *names, by_name);
    int rc = 0;
    for (size_t j = 1; j < J && rc == 0; j++)
        if (strcmp(names[j], names[j - 1]) == 0) {
            cli_error("%s: several joints are named '%s': the CSV's columns would repeat it "
                      "(name the joints to write with --joints, or write .npy)",
                      p->in, names[j]);
            rc = -1;
        }
    free(names);
    return rc;
}

/* The output joints: --joints by name (each present once in the file, and
 * once in the list), or every joint (each name once, for a CSV). 0, or -1
 * (reported). */
static int select_joints(pos_job *p)
{
    const pb_bvh *b = &p->clip;
    const size_t J = b->num_joints;
    if (!p->joints_arg) {
        if (!p->npy && unique_names(p))
            return -1;
        p->sel = malloc(J * sizeof *p->sel);
        if (!p->sel) {
            cli_error("out of memory");
            return -1;
        }
        for (size_t j = 0; j < J; j++)
            p->sel[j] = j;
        p->num_sel = J;
        return 0;
    }
    size_t n = 1;
    for (const char *c = p->joints_arg; *c; c++)
        n += *c == ',';
    char *names = strdup(p->joints_arg);
    p->sel = malloc(n * sizeof *p->sel);
    if (!names || !p->sel) {
        free(names);
        cli_error("out of memory");
        return -1;
    }
    int rc = 0;
    char *save = NULL;
    for (char *name = strtok_r(names, ",", &save); name && rc == 0;
         name = strtok_r(NULL, ",", &save)) {
        size_t hits = 0, at = 0;
        for (size_t j = 0; j < J; j++)
            if (strcmp(b->joints[j].name, name) == 0) {
                if (hits++ == 0)
                    at = j;
            }
        if (hits == 0) {
            cli_error("%s: no joint named '%s' (see 'posebatch info %s')", p->in, name, p->in);
            rc = -1;
        } else if (hits > 1) {
            cli_error("%s: %zu joints are named '%s'; --joints cannot choose", p->in, hits, name);
            rc = -1;
        } else {
            for (size_t k = 0; k < p->num_sel; k++)
                if (p->sel[k] == at) {
                    cli_error("%s: --joints names '%s' twice", p->in, name);
                    rc = -1;
                }
            p->sel[p->num_sel++] = at;
        }
    }
    free(names);
    return rc;
}

/* Forward kinematics over every frame: p->mem gets the model-space pose.
 * 0, or -1 (reported). */
static int compute(pos_job *p)
{
    const pb_bvh *b = &p->clip;
    const size_t F = b->num_frames, J = b->num_joints, n = F * J;
    int32_t *parents = malloc(J * sizeof *parents);
    p->mem = malloc(7 * n * sizeof *p->mem);
    float *three_pos = p->three ? malloc(3 * n * sizeof *three_pos) : NULL;
    if (!parents || !p->mem || (p->three && !three_pos)) {
        cli_error("%s: out of memory for %zu frames x %zu joints", p->in, F, J);
        free(parents);
        free(three_pos);
        return -1;
    }
    for (size_t j = 0; j < J; j++)
        parents[j] = b->joints[j].parent;
    pb_cpose local = {{b->rot_w, b->rot_x, b->rot_y, b->rot_z},
                      {b->pos_x, b->pos_y, b->pos_z},
                      {NULL, NULL, NULL}};
    if (p->three) { /* three.js: a position channel's value added to the OFFSET */
        pb_vec3s t = {three_pos, three_pos + n, three_pos + 2 * n};
        pb_io_error err;
        if (pb_bvh_three_translations(b, t, &err) != PB_IO_OK) {
            cli_report_bvh(p->in, &err);
            free(parents);
            free(three_pos);
            return -1;
        }
        local.pos = (pb_cvec3s){t.x, t.y, t.z};
    }
    float *m = p->mem;
    pb_pose model = {
        {m, m + n, m + 2 * n, m + 3 * n}, {m + 4 * n, m + 5 * n, m + 6 * n}, {NULL, NULL, NULL}};
    pb_status st = pb_pose_local_to_model(F, J, parents, &local, &model);
    free(parents);
    free(three_pos);
    if (st != PB_OK) {
        cli_report_status(p->in, "forward kinematics", st);
        return -1;
    }
    for (size_t i = 0; i < 7 * n; i++)
        if (!isfinite(m[i])) {
            cli_error("%s: a model-space value at frame %zu is beyond float range", p->in,
                      (i % n) / J);
            return -1;
        }
    return 0;
}

static int write_csv(FILE *f, const pos_job *p)
{
    const pb_bvh *b = &p->clip;
    const size_t F = b->num_frames, J = b->num_joints, n = F * J;
    static const char *const sfx[7] = {".x", ".y", ".z", ".qw", ".qx", ".qy", ".qz"};
    const int comps = p->rotations ? 7 : 3;
    fputs("frame,time", f);
    for (size_t k = 0; k < p->num_sel; k++)
        for (int c = 0; c < comps; c++)
            cli_csv_name(f, b->joints[p->sel[k]].name, sfx[c]);
    fputc('\n', f);
    /* the arrays in output column order: pos x y z, then rot w x y z */
    const float *col[7];
    for (int c = 0; c < 7; c++)
        col[c] = p->mem + (size_t)(c < 3 ? 4 + c : c - 3) * n;
    char *line = malloc(64 + p->num_sel * (size_t)comps * (PB_NT_MAX + 1));
    if (!line) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t fr = 0; fr < F; fr++) {
        size_t len = (size_t)sprintf(line, "%zu,", fr);
        len += pb_nt_double(line + len, (double)fr * b->frame_time);
        for (size_t k = 0; k < p->num_sel; k++) {
            size_t i = fr * J + p->sel[k];
            for (int c = 0; c < comps; c++) {
                line[len++] = ',';
                len += pb_nt_float(line + len, col[c][i]);
            }
        }
        line[len++] = '\n';
        if (fwrite(line, 1, len, f) != len)
            break; /* the caller reports the stream's error */
    }
    free(line);
    return 0;
}

static int big_endian(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 0;
}

/* NPY format 1.0: magic, version, a little-endian header length, then a
 * Python dict literal padded with spaces to a multiple of 64 bytes with its
 * newline; the data C-ordered little-endian float32. */
static int write_npy(FILE *f, const pos_job *p)
{
    const pb_bvh *b = &p->clip;
    const size_t F = b->num_frames, J = b->num_joints, n = F * J;
    const int comps = p->rotations ? 7 : 3;
    char dict[256];
    int dl = snprintf(dict, sizeof dict,
                      "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu, %zu, %d), }", F,
                      p->num_sel, comps);
    size_t total = 10 + (size_t)dl + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)dl + pad + 1;
    unsigned char pre[10] = {0x93,
                             'N',
                             'U',
                             'M',
                             'P',
                             'Y',
                             1,
                             0,
                             (unsigned char)(hlen & 255),
                             (unsigned char)(hlen >> 8)};
    fwrite(pre, 1, sizeof pre, f);
    fwrite(dict, 1, (size_t)dl, f);
    for (size_t i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    const float *col[7];
    for (int c = 0; c < 7; c++)
        col[c] = p->mem + (size_t)(c < 3 ? 4 + c : c - 3) * n;
    const int swap = big_endian();
    float *row = malloc(p->num_sel * (size_t)comps * sizeof *row);
    if (!row) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t fr = 0; fr < F; fr++) {
        size_t m = 0;
        for (size_t k = 0; k < p->num_sel; k++)
            for (int c = 0; c < comps; c++)
                row[m++] = col[c][fr * J + p->sel[k]];
        if (swap)
            for (size_t i = 0; i < m; i++) {
                unsigned char *q = (unsigned char *)&row[i], t;
                t = q[0], q[0] = q[3], q[3] = t;
                t = q[1], q[1] = q[2], q[2] = t;
            }
        if (fwrite(row, sizeof *row, m, f) != m)
            break; /* the caller reports the stream's error */
    }
    free(row);
    return 0;
}

static int write_cb(FILE *f, void *ctx)
{
    pos_job *p = ctx;
    return p->npy ? write_npy(f, p) : write_csv(f, p);
}

/* the library's output rules (cli_write_text: pb_io_write_file, a temporary
 * renamed over the output; "-" standard output) */
static int write_out(pos_job *p) { return cli_write_text(p->out, write_cb, p); }

int cmd_positions(int argc, char **argv)
{
    pos_job p;
    memset(&p, 0, sizeof p);
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout); /* --help wins over any other problem */
            return CLI_OK;
        }
    int rc = cli_take_own("positions", &argc, argv, own_names, 3, take_own, &p);
    if (rc != CLI_OK)
        return rc;
    cli_opts o;
    rc = cli_parse(argc, argv, OPT_OUT | OPT_BACKEND | OPT_STRICT, usage, &o);
    if (rc != CLI_OK)
        return CLI_EXIT(rc);
    if ((rc = check_args(&o, &p)) != CLI_OK)
        return rc;
    cli_file in = {p.in, NULL, NULL}, out = {p.out, NULL, NULL};
    if (cli_protect(&in, 1, &out, 1) != CLI_OK)
        return CLI_FAILED;
    if (p.three && cli_is_gltf(p.in))
        return cli_usage_error(o.cmd, "--three is for BVH inputs (three.js's GLTFLoader reads "
                                      "glTF translations as posebatch does)");
    rc = CLI_FAILED;
    if (cli_load_clip(p.in, 0u, &p.clip) == 0) {
        if (select_joints(&p) == 0 && compute(&p) == 0 && write_out(&p) == 0)
            rc = CLI_OK;
        pb_bvh_free(&p.clip);
    }
    free(p.sel);
    free(p.mem);
    return rc;
}
