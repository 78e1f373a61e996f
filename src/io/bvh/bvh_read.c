/* BVH reader: the entry points (memory, stream, file), the input's checks
 * before parsing (size, binary sniffing), and the warnings; the sections are
 * read by bvh_read_skeleton.c and bvh_read_motion.c (include/posebatch/io.h
 * documents the accepted syntax and the limits). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_read_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the first bytes say an input is when it is not BVH text: a message, or
 * NULL. Looks at most at the first 64 KiB. */
static const char *sniff(const char *data, size_t size)
{
    static const struct {
        const char *magic;
        size_t n;
        const char *what;
    } known[] = {
        {"glTF", 4, "this is a binary glTF (.glb) file, not BVH"},
        {"Kaydara FBX Binary", 18, "this is an FBX file, not BVH"},
        {"\x1f\x8b", 2, "this is a gzip-compressed file, not BVH text (decompress it first)"},
        {"BZh", 3, "this is a bzip2-compressed file, not BVH text (decompress it first)"},
        {"\xfd"
         "7zXZ",
         6, "this is an xz-compressed file, not BVH text (decompress it first)"},
        {"\x28\xb5\x2f\xfd", 4,
         "this is a zstd-compressed file, not BVH text (decompress it first)"},
        {"PK\x03\x04", 4, "this is a zip archive, not BVH"},
        {"\x89PNG", 4, "this is a PNG image, not BVH"},
        {"%PDF", 4, "this is a PDF file, not BVH"},
        {"\x7f"
         "ELF",
         4, "this is an executable (ELF), not BVH"},
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (size >= known[k].n && memcmp(data, known[k].magic, known[k].n) == 0)
            return known[k].what;
    size_t n = size < 65536 ? size : 65536;
    size_t i = 0;
    if (n >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        i = 3;
    while (i < n && is_space(data[i]))
        i++;
    if (i < n && data[i] == '{') {
        for (size_t k = i; k + 7 <= n; k++)
            if (memcmp(data + k, "\"asset\"", 7) == 0)
                return "this is a glTF (.gltf) file, not BVH";
        return "this is JSON, not BVH";
    }
    if (i + 7 <= n && memcmp(data + i, ";FBX", 4) == 0)
        return "this is an FBX file, not BVH";
    /* A text that starts like BVH gets line-numbered errors for what follows. */
    if ((n - i < 9 || !bvh_eq_ci(data + i, 9, "HIERARCHY")) && memchr(data, '\0', n))
        return "binary data (NUL bytes), not BVH text";
    return NULL;
}

static size_t max_bytes_of(const pb_bvh_read_opts *o)
{
    return o && o->max_bytes > 0 && o->max_bytes < PB_BVH_MAX_FILE_BYTES ? o->max_bytes
                                                                         : PB_BVH_MAX_FILE_BYTES;
}

pb_bvh_code pb_bvh_read_memory_with(const char *data, size_t size, const pb_bvh_read_opts *opts,
                                    pb_bvh *out, pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!out)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "output is NULL");
    memset(out, 0, sizeof *out);
    if (!data && size > 0)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "data is NULL");
    if (size > max_bytes_of(opts))
        return bvh_set_err(err, PB_BVH_ERR_LIMIT, 0, "input larger than %zu bytes",
                           max_bytes_of(opts));
    const char *what = data ? sniff(data, size) : NULL;
    if (what)
        return bvh_set_err(err, PB_BVH_ERR_SYNTAX, 0, "%s", what);
    parser P;
    memset(&P, 0, sizeof P);
    P.lx.p = data ? data : "";
    P.lx.end = P.lx.p + size;
    P.lx.line = 1;
    P.lx.last_line = 1;
    P.err = err;
    P.opts = opts;
    if (size >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        P.lx.p += 3;

    pb_bvh_code rc = bvh_read_skeleton(&P, out);
    if (rc)
        return rc;
    rc = bvh_read_motion(&P, out);
    if (rc) {
        pb_bvh_free(out);
        return rc;
    }
    return PB_BVH_OK;
}

pb_bvh_code pb_bvh_read_memory(const char *data, size_t size, pb_bvh *out, pb_bvh_error *err)
{
    return pb_bvh_read_memory_with(data, size, NULL, out, err);
}

/* Reads f to its end into a buffer (at most limit bytes; the first chunk is
 * checked by sniff before more is read, so /dev/zero or a binary file stops
 * at once). size_hint: the file's size when known, else 0. */
static pb_bvh_code slurp(FILE *f, const char *name, size_t limit, size_t size_hint, char **buf_out,
                         size_t *len_out, pb_bvh_error *err)
{
    size_t cap = size_hint ? size_hint + 1 : (size_t)1 << 16;
    char *buf = malloc(cap);
    size_t len = 0;
    int sniffed = 0;
    if (!buf)
        return bvh_path_err(err, PB_BVH_ERR_NOMEM, name, "out of memory");
    for (;;) {
        if (len == cap) {
            if (len > limit) {
                free(buf);
                return bvh_path_err(err, PB_BVH_ERR_LIMIT, name, "larger than %zu bytes", limit);
            }
            size_t nc = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            if (nc <= cap)
                nc = cap + 1;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                return bvh_path_err(err, PB_BVH_ERR_NOMEM, name, "out of memory");
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (!sniffed && (len >= 65536 || got == 0)) {
            sniffed = 1;
            const char *what = sniff(buf, len);
            if (what) {
                free(buf);
                return bvh_set_err(err, PB_BVH_ERR_SYNTAX, 0, "%s", what);
            }
        }
        if (len > limit) {
            free(buf);
            return bvh_path_err(err, PB_BVH_ERR_LIMIT, name, "larger than %zu bytes", limit);
        }
        if (got == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                return bvh_path_err(err, PB_BVH_ERR_IO, name, "read error: %s",
                                    strerror(e ? e : EIO));
            }
            break;
        }
    }
    *buf_out = buf;
    *len_out = len;
    return PB_BVH_OK;
}

pb_bvh_code pb_bvh_read_stream(FILE *f, const char *name, const pb_bvh_read_opts *opts, pb_bvh *out,
                               pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (out)
        memset(out, 0, sizeof *out);
    if (!f || !out)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "stream or output is NULL");
    if (!name)
        name = "(stream)";
    size_t limit = max_bytes_of(opts), hint = 0;
    struct stat st;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return bvh_path_err(err, PB_BVH_ERR_IO, name, "%s", strerror(EISDIR));
        if (S_ISREG(st.st_mode)) {
            if ((uintmax_t)st.st_size > limit)
                return bvh_path_err(err, PB_BVH_ERR_LIMIT, name, "larger than %zu bytes", limit);
            hint = (size_t)st.st_size;
        }
    }
    char *buf = NULL;
    size_t len = 0;
    pb_bvh_code rc = slurp(f, name, limit, hint, &buf, &len, err);
    if (rc)
        return rc;
    rc = pb_bvh_read_memory_with(buf, len, opts, out, err);
    free(buf);
    return rc;
}

pb_bvh_code pb_bvh_read_file_with(const char *path, const pb_bvh_read_opts *opts, pb_bvh *out,
                                  pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "path or output is NULL");
    FILE *f = fopen(path, "rb");
    if (!f)
        return bvh_path_err(err, PB_BVH_ERR_IO, path, "%s", strerror(errno));
    pb_bvh_code rc = pb_bvh_read_stream(f, path, opts, out, err);
    fclose(f);
    return rc;
}

pb_bvh_code pb_bvh_read_file(const char *path, pb_bvh *out, pb_bvh_error *err)
{
    return pb_bvh_read_file_with(path, NULL, out, err);
}
