/* Paths the commands are given: "-" (standard input as an input, standard
 * output as -o), the one rule that keeps every input of every command from
 * being overwritten (cli_check_files), the names a clip output may have,
 * directories, and an output's name from its input's. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_is_dash(const char *path) { return path && strcmp(path, "-") == 0; }

int cli_check_dash(const cli_opts *o, int several_outputs_ok)
{
    size_t dashes = 0;
    for (size_t i = 0; i < o->num_inputs; i++)
        dashes += cli_is_dash(o->inputs[i]) ? 1u : 0u;
    if (dashes > 1)
        return cli_usage_error(o->cmd, "standard input ('-') can be read only once");
    if (several_outputs_ok && cli_is_dash(o->out) && o->num_inputs > 1)
        return cli_usage_error(o->cmd, "-o - (standard output) takes a single input");
    return CLI_OK;
}

const char *cli_output_name(const char *in)
{
    if (cli_is_dash(in))
        return "stdin.bvh";
    const char *s = strrchr(in, '/');
    return s ? s + 1 : in;
}

int cli_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ------------------------------------------------ the one rule for inputs */

/* A file's identity (device and inode: the same file under any spelling,
 * through symbolic and hard links alike), for clash checks by sorting. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    size_t index;
} file_id;

static int by_id(const void *pa, const void *pb)
{
    const file_id *a = pa, *b = pb;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino)
        return a->ino < b->ino ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The first (lowest) index of file st among ids[m] sorted by_id, or
 * (size_t)-1. */
static size_t index_of(const file_id *ids, size_t m, const struct stat *st)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const file_id *f = &ids[mid];
        if (f->dev < st->st_dev || (f->dev == st->st_dev && f->ino < st->st_ino))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m && ids[lo].dev == st->st_dev && ids[lo].ino == st->st_ino ? ids[lo].index
                                                                            : (size_t)-1;
}

typedef struct out_ref {
    const char *path;
    size_t index;
} out_ref;

static int by_path(const void *pa, const void *pb)
{
    const out_ref *a = pa, *b = pb;
    int c = strcmp(a->path, b->path);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISDIR(m)  ? "a directory"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/* An input given by an option must be a regular file: reading a FIFO
 * waits for a writer, a device never ends. 0, or -1 (reported). */
static int regular_input(const cli_file *in)
{
    struct stat st;
    if (!in->role || cli_is_dash(in->path) || stat(in->path, &st) != 0 || S_ISREG(st.st_mode))
        return 0; /* a file that is not there: its reader says so */
    cli_error("%s: %s needs a regular file, and this is %s; refused", in->path, in->role,
              kind_of(st.st_mode));
    return -1;
}

static const char *owner_of(const cli_file *out) { return out->owner ? out->owner : out->path; }

/* Outputs clash[k] != -1 are refused: n_in + i repeats output i, else it is
 * input clash[k]. Reports each, in output order. */
static long report_clashes(const cli_file *ins, size_t n_in, const cli_file *outs, size_t n_out,
                           const size_t *clash, unsigned char *bad)
{
    long refused = 0;
    for (size_t k = 0; k < n_out; k++) {
        size_t c = clash[k];
        if (c == (size_t)-1)
            continue;
        refused++;
        if (bad)
            bad[k] = 1;
        const cli_file *o = &outs[k];
        if (c >= n_in) {
            const cli_file *first = &outs[c - n_in];
            if (strcmp(owner_of(first), owner_of(o)) != 0)
                cli_error("%s: output %s is also the output of %s; skipped", owner_of(o), o->path,
                          owner_of(first));
            else
                cli_error("%s: output %s is also output %s (the same file); refused", owner_of(o),
                          o->path, first->path);
        } else if (strcmp(ins[c].path, owner_of(o)) == 0 && !ins[c].role)
            cli_error("%s: the output %s would overwrite this input; refused", owner_of(o),
                      o->path);
        else
            cli_error("%s: output %s would overwrite the %s%s %s; refused", owner_of(o), o->path,
                      ins[c].role ? ins[c].role : "input", ins[c].role ? " file" : "", ins[c].path);
    }
    return refused;
}

long cli_check_files(const cli_file *ins, size_t n_in, const cli_file *outs, size_t n_out,
                     unsigned char *bad)
{
    long problems = 0;
    for (size_t i = 0; i < n_in; i++)
        problems += regular_input(&ins[i]) ? 1 : 0;
    file_id *ids = malloc((n_in ? n_in : 1) * sizeof *ids);
    file_id *oids = malloc((n_out ? n_out : 1) * sizeof *oids);
    out_ref *refs = malloc((n_out ? n_out : 1) * sizeof *refs);
    size_t *clash = malloc((n_out ? n_out : 1) * sizeof *clash);
    if (!ids || !oids || !refs || !clash) {
        free(ids);
        free(oids);
        free(refs);
        free(clash);
        cli_error("out of memory");
        return -1;
    }
    /* each file stat'ed once, "-" never: O((n_in + n_out) log) in all */
    size_t m = 0, mo = 0, k = 0;
    for (size_t i = 0; i < n_in; i++) {
        struct stat st;
        if (!cli_is_dash(ins[i].path) && stat(ins[i].path, &st) == 0)
            ids[m++] = (file_id){st.st_dev, st.st_ino, i};
    }
    qsort(ids, m, sizeof *ids, by_id);
    for (size_t o = 0; o < n_out; o++) {
        struct stat st;
        clash[o] = (size_t)-1;
        if (cli_is_dash(outs[o].path))
            continue;
        if (stat(outs[o].path, &st) == 0) {
            clash[o] = index_of(ids, m, &st);
            if (clash[o] == (size_t)-1)
                oids[mo++] = (file_id){st.st_dev, st.st_ino, o};
        }
        if (clash[o] == (size_t)-1)
            refs[k++] = (out_ref){outs[o].path, o};
    }
    /* Among the outputs left, the same path or the same existing file: the
     * first one keeps it. */
    qsort(refs, k, sizeof *refs, by_path);
    for (size_t g = 0, r = 1; r <= k; r++) {
        if (r < k && strcmp(refs[r].path, refs[g].path) == 0)
            clash[refs[r].index] = n_in + refs[g].index;
        else
            g = r;
    }
    qsort(oids, mo, sizeof *oids, by_id);
    for (size_t g = 0, r = 1; r <= mo; r++) {
        if (r < mo && oids[r].dev == oids[g].dev && oids[r].ino == oids[g].ino) {
            if (clash[oids[r].index] == (size_t)-1)
                clash[oids[r].index] = n_in + oids[g].index;
        } else
            g = r;
    }
    problems += report_clashes(ins, n_in, outs, n_out, clash, bad);
    free(ids);
    free(oids);
    free(refs);
    free(clash);
    return problems;
}

int cli_protect(const cli_file *ins, size_t n_in, const cli_file *outs, size_t n_out)
{
    cli_file o[4];
    if (n_out > sizeof o / sizeof o[0])
        return CLI_FAILED;
    for (size_t k = 0; k < n_out; k++) {
        o[k] = outs[k];
        if (!o[k].owner && n_in > 0)
            o[k].owner = ins[0].path;
    }
    return cli_check_files(ins, n_in, o, n_out, NULL) == 0 ? CLI_OK : CLI_FAILED;
}

/* ---------------------------------------------------- clip output names */

static int clip_ext(const char *path)
{
    static const char *const ext[] = {".bvh", ".glb", ".gltf"};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t e = strlen(ext[i]);
        if (n > e && path[n - e - 1] != '/' && strcasecmp(path + n - e, ext[i]) == 0)
            return 1;
    }
    return 0;
}

/* The name a chain of symbolic links at path ends in (malloc'd; path itself
 * when it is no link): the file that will be written. NULL when out of
 * memory; a loop or an unreadable link ends the walk where it is. */
static char *final_name(const char *path)
{
    char *p = strdup(path);
    for (int hop = 0; p && hop < 40; hop++) {
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
            break;
        char buf[PATH_MAX];
        ssize_t len = readlink(p, buf, sizeof buf - 1);
        if (len <= 0)
            break;
        buf[len] = '\0';
        const char *slash = strrchr(p, '/');
        size_t dir = buf[0] == '/' || !slash ? 0 : (size_t)(slash - p) + 1;
        char *next = malloc(dir + (size_t)len + 1);
        if (next) {
            memcpy(next, p, dir);
            memcpy(next + dir, buf, (size_t)len + 1);
        }
        free(p);
        p = next;
    }
    return p;
}

int cli_check_clip_output(const char *cmd, const char *out)
{
    struct stat st;
    if (cli_is_dash(out) || clip_ext(out))
        return CLI_OK;
    /* a device or a pipe is written through, as BVH (/dev/null: a dry run);
     * a socket, block device, directory or link loop is the writer's to
     * refuse */
    if (stat(out, &st) == 0 ? !S_ISREG(st.st_mode) : errno == ELOOP)
        return CLI_OK;
    char *name = final_name(out); /* a link: the name of the file written */
    int ok = name && clip_ext(name);
    free(name);
    if (ok)
        return CLI_OK;
    return cli_usage_error(cmd,
                           "-o %s: the output's name must end in .bvh, .glb or .gltf (or be '-', "
                           "a device or a pipe: BVH)",
                           out);
}

int cli_check_one_in_one_out(const cli_opts *o)
{
    if (o->num_inputs != 1)
        return cli_usage_error(o->cmd, "needs one input (%zu given)", o->num_inputs);
    if (!o->out || !o->out[0])
        return cli_usage_error(o->cmd, "-o OUT is required");
    if (!cli_is_dash(o->out) && cli_is_dir(o->out))
        return cli_usage_error(o->cmd, "-o %s is a directory; give the output file", o->out);
    return CLI_OK;
}

int cli_has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), k = strlen(ext);
    if (n < k)
        return 0;
    for (size_t i = 0; i < k; i++) {
        char c = path[n - k + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != ext[i])
            return 0;
    }
    return 1;
}
