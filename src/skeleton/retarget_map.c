/* Retargeting maps: the text "source = target" per line into a
 * pb_retarget_map (posebatch/io.h), and reading it from a file. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "io_internal.h"

#define MAP_MAX_BYTES ((size_t)16 << 20)

typedef struct map_store {
    char *pool;          /* the names, NUL-terminated */
    const char **source; /* into pool */
    const char **target;
    long *line;
} map_store;

static void store_free(map_store *st)
{
    if (!st)
        return;
    free(st->pool);
    free(st->source);
    free(st->target);
    free(st->line);
    free(st);
}

void pb_retarget_map_free(pb_retarget_map *map)
{
    if (!map)
        return;
    store_free(map->priv_);
    memset(map, 0, sizeof *map);
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* [b, e) trimmed of blanks */
static void trim(const char **b, const char **e)
{
    while (*b < *e && is_blank(**b))
        (*b)++;
    while (*e > *b && is_blank((*e)[-1]))
        (*e)--;
}

typedef struct named_pair {
    const char *name;
    size_t index;
} named_pair;

static int cmp_named_pair(const void *a, const void *b)
{
    const named_pair *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index < y->index ? -1 : x->index > y->index);
}

/* The first pair (in file order) that repeats a name of an earlier pair, on
 * either side: *later and *earlier its index and the earlier one's, *side 0
 * (source) or 1 (target). Returns 0 when none, -1 when out of memory, 1. */
static int find_repeat(const map_store *st, size_t n, size_t *later, size_t *earlier, int *side)
{
    named_pair *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    int found = 0;
    for (int k = 0; k < 2; k++) {
        const char **names = k ? st->target : st->source;
        for (size_t i = 0; i < n; i++) {
            v[i].name = names[i];
            v[i].index = i;
        }
        qsort(v, n, sizeof *v, cmp_named_pair);
        for (size_t i = 1; i < n; i++) /* a run's first is its earliest */
            if (strcmp(v[i].name, v[i - 1].name) == 0 && (!found || v[i].index < *later)) {
                size_t first = i - 1;
                while (first > 0 && strcmp(v[first - 1].name, v[i].name) == 0)
                    first--;
                *later = v[i].index;
                *earlier = v[first].index;
                *side = k;
                found = 1;
            }
    }
    free(v);
    return found;
}

pb_io_code pb_retarget_map_parse(const char *text, size_t size, pb_retarget_map *out,
                                 pb_io_error *err)
{
    io_clear_err(err);
    if (!out || (!text && size))
        return io_set_err(err, PB_IO_ERR_ARG, 0, "%s is NULL", out ? "text" : "out");
    memset(out, 0, sizeof *out);
    if (size > MAP_MAX_BYTES)
        return io_set_err(err, PB_IO_ERR_LIMIT, 0, "a map of %zu bytes (at most %zu)", size,
                          MAP_MAX_BYTES);
    /* lines and pairs at most: count the newlines */
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += text[i] == '\n';
    size_t cap = lines < PB_BVH_MAX_JOINTS ? lines : PB_BVH_MAX_JOINTS;
    map_store *st = calloc(1, sizeof *st);
    if (st) {
        st->pool = malloc(size + 2 * cap + 1);
        st->source = malloc(cap * sizeof *st->source);
        st->target = malloc(cap * sizeof *st->target);
        st->line = malloc(cap * sizeof *st->line);
    }
    if (!st || !st->pool || !st->source || !st->target || !st->line) {
        store_free(st);
        return io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory for the map");
    }
    pb_io_code code = PB_IO_OK;
    size_t n = 0, used = 0;
    long line = 0;
    const char *p = text, *end = text + size;
    while (p < end) {
        line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *hash = memchr(p, '#', (size_t)(eol - p));
        const char *stop = hash ? hash : eol;
        const char *q;
        for (q = p; q < stop; q++)
            if ((unsigned char)*q < 0x20 && *q != '\t' && *q != '\r') {
                if (*q)
                    code = io_set_err(err, PB_IO_ERR_SYNTAX, line,
                                      "control character 0x%02x in the map", (unsigned char)*q);
                else
                    code = io_set_err(err, PB_IO_ERR_SYNTAX, line, "a NUL byte in the map");
                goto fail;
            }
        const char *b = p, *e = stop;
        trim(&b, &e);
        if (b < e) {
            const char *eq = memchr(b, '=', (size_t)(e - b));
            if (!eq) {
                code = io_set_err(err, PB_IO_ERR_SYNTAX, line,
                                  "expected 'source = target', found no '='");
                goto fail;
            }
            if (memchr(eq + 1, '=', (size_t)(e - eq - 1))) {
                code = io_set_err(err, PB_IO_ERR_SYNTAX, line,
                                  "more than one '=' (a line is 'source = target')");
                goto fail;
            }
            const char *sb = b, *se = eq, *tb = eq + 1, *te = e;
            trim(&sb, &se);
            trim(&tb, &te);
            if (sb == se || tb == te) {
                code = io_set_err(err, PB_IO_ERR_SYNTAX, line, "an empty %s joint name",
                                  sb == se ? "source" : "target");
                goto fail;
            }
            if (n >= cap) {
                code = io_set_err(err, PB_IO_ERR_LIMIT, line, "more than %d pairs in the map",
                                  PB_BVH_MAX_JOINTS);
                goto fail;
            }
            char *sname = st->pool + used;
            memcpy(sname, sb, (size_t)(se - sb));
            sname[se - sb] = '\0';
            used += (size_t)(se - sb) + 1;
            char *tname = st->pool + used;
            memcpy(tname, tb, (size_t)(te - tb));
            tname[te - tb] = '\0';
            used += (size_t)(te - tb) + 1;
            st->source[n] = sname;
            st->target[n] = tname;
            st->line[n] = line;
            n++;
        }
        p = eol < end ? eol + 1 : end;
    }
    {
        size_t later = 0, earlier = 0;
        int side = 0, r = find_repeat(st, n, &later, &earlier, &side);
        if (r < 0) {
            code = io_set_err(err, PB_IO_ERR_NOMEM, 0, "out of memory for the map");
            goto fail;
        }
        if (r > 0) {
            code = io_set_err(err, PB_IO_ERR_VALUE, st->line[later],
                              "%s joint '%s' is already mapped on line %ld",
                              side ? "target" : "source",
                              side ? st->target[later] : st->source[later], st->line[earlier]);
            goto fail;
        }
    }
    out->count = n;
    out->source = st->source;
    out->target = st->target;
    out->line = st->line;
    out->priv_ = st;
    return PB_IO_OK;
fail:
    store_free(st);
    return code;
}

static const char *accept_text(const unsigned char *head, size_t n)
{
    (void)head;
    (void)n;
    return NULL;
}

pb_io_code pb_retarget_map_read_file(const char *path, pb_retarget_map *out, pb_io_error *err)
{
    io_clear_err(err);
    if (!path || !out)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "%s is NULL", out ? "path" : "out");
    memset(out, 0, sizeof *out);
    size_t len = 0;
    int limit_hit = 0;
    const char *refused = NULL;
    errno = 0;
    unsigned char *data =
        io_read_whole(path, MAP_MAX_BYTES, accept_text, &len, &limit_hit, &refused);
    if (!data) {
        if (limit_hit)
            return io_path_err(err, PB_IO_ERR_LIMIT, path, "larger than %zu bytes", MAP_MAX_BYTES);
        if (errno == ENOMEM)
            return io_path_err(err, PB_IO_ERR_NOMEM, path, "out of memory");
        return io_path_err(err, PB_IO_ERR_IO, path, "%s",
                           refused ? refused : strerror(errno ? errno : EIO));
    }
    pb_io_code code = pb_retarget_map_parse((const char *)data, len, out, err);
    free(data);
    return code;
}
