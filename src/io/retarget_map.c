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

/* the pair (1-based) before i naming `name` on side (0 source, 1 target),
 * 0 if none: a linear scan, fine for maps of a few hundred lines; bounded by
 * PB_BVH_MAX_JOINTS pairs */
static size_t named_before(const map_store *st, size_t i, const char *name, int side)
{
    const char **names = side ? st->target : st->source;
    for (size_t k = 0; k < i; k++)
        if (strcmp(names[k], name) == 0)
            return k + 1;
    return 0;
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
            size_t ps = named_before(st, n, sname, 0), pt = named_before(st, n, tname, 1);
            if (ps || pt) {
                code = io_set_err(err, PB_IO_ERR_VALUE, line,
                                  "%s joint '%s' is already mapped on line %ld",
                                  ps ? "source" : "target", ps ? sname : tname,
                                  st->line[(ps ? ps : pt) - 1]);
                goto fail;
            }
            st->source[n] = sname;
            st->target[n] = tname;
            st->line[n] = line;
            n++;
        }
        p = eol < end ? eol + 1 : end;
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
    unsigned char *data = io_read_whole(path, MAP_MAX_BYTES, accept_text, &len, &limit_hit,
                                        &refused);
    if (!data) {
        if (limit_hit)
            return io_path_err(err, PB_IO_ERR_LIMIT, path, "larger than %zu bytes",
                               MAP_MAX_BYTES);
        if (errno == ENOMEM)
            return io_path_err(err, PB_IO_ERR_NOMEM, path, "out of memory");
        return io_path_err(err, PB_IO_ERR_IO, path, "%s",
                           refused ? refused : strerror(errno ? errno : EIO));
    }
    pb_io_code code = pb_retarget_map_parse((const char *)data, len, out, err);
    free(data);
    return code;
}
