/* glTF 2.0 reader, its entry points (the pieces: gltf_reader.h): .gltf (external .bin files, data: URIs) and .glb, JSON by
 * jansson. Reads the node hierarchy, skins and animations (samplers decoded
 * to float: FLOAT or normalized integers, sparse accessors applied); keeps
 * the JSON tree and the buffers for the writer. Every malformed input is an
 * error naming its JSON path; nothing is returned then. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "gltf_head.h"
#include "gltf_reader.h"
#include "file_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* NULL when a JSON object starts at i, else why the data is not glTF. */
static const char *not_json(const unsigned char *data, size_t size, size_t i)
{
    if (i < size && data[i] == '{')
        return NULL;
    if (i < size && data[i] == '[')
        return "a JSON array, not glTF: a glTF document is a JSON object";
    return i + 9 <= size && memcmp(data + i, "HIERARCHY", 9) == 0
               ? "this is a BVH file, not glTF"
               : "not glTF: neither GLB nor a JSON object";
}

/* io_read_whole's look at a file's first bytes: GLB, or JSON (a stream of
 * blanks alone is read on). */
static const char *head_is_gltf(const unsigned char *head, size_t n)
{
    if (n >= 4 && le32(head) == GLB_MAGIC)
        return NULL;
    size_t i = gltf_json_start(head, n);
    return i == n && n > 0 ? NULL : not_json(head, n, i);
}

static int parse(reader *r, const unsigned char *data, size_t size)
{
    const char *json = (const char *)data;
    size_t jlen = size;
    r->values_left = gltf_value_budget;
    r->zeros_left = GLTF_ZEROS_BASE + GLTF_ZEROS_PER_BYTE * size;
    if (size >= 4 && le32(data) == GLB_MAGIC) {
        if (size < 20)
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, NULL, "GLB: truncated header (%zu bytes)",
                            size),
                   -1;
        uint32_t ver = le32(data + 4), len = le32(data + 8);
        if (ver != 2)
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, NULL, "GLB: version %u, only 2 is read", ver),
                   -1;
        if (len > size || len < 20)
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, NULL,
                            "GLB: header length %u but the file has %zu bytes", len, size),
                   -1;
        uint32_t cl = le32(data + 12);
        if (le32(data + 16) != GLB_JSON || cl > len - 20)
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, NULL,
                            "GLB: the first chunk is not a JSON chunk within the file"),
                   -1;
        json = (const char *)data + 20;
        jlen = cl;
        /* the chunk is padded to 4 bytes with spaces; NULs there (a common
         * writer's slip) would read as "end of file expected" */
        if (jlen > 0 && json[jlen - 1] == '\0')
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, NULL,
                            "GLB: the JSON chunk ends in NUL bytes; glTF pads it with spaces "
                            "(0x20)"),
                   -1;
        size_t pos = 20 + (size_t)cl;
        if (pos + 8 <= len) {
            uint32_t bl = le32(data + pos);
            if (le32(data + pos + 4) == GLB_BIN) {
                if (bl > len - pos - 8)
                    return gltf_err(r->err, PB_IO_ERR_SYNTAX, NULL,
                                    "GLB: the BIN chunk (%u bytes) runs past the end", bl),
                           -1;
                r->bin = data + pos + 8;
                r->bin_len = bl;
            }
        }
    } else {
        size_t i = gltf_json_start(data, size);
        const char *why = not_json(data, size, i);
        if (why)
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, NULL, "%s", why), -1;
        json = (const char *)data + i;
        jlen = size - i;
    }
    json_error_t je;
    r->root = json_loadb(json, jlen, JSON_REJECT_DUPLICATES, &je);
    if (!r->root) {
        if (r->err) {
            r->err->code = PB_IO_ERR_SYNTAX;
            r->err->line = je.line > 0 ? je.line : 0;
            snprintf(r->err->message, sizeof r->err->message, "line %d, column %d: JSON: %s",
                     je.line, je.column, je.text);
        }
        return -1;
    }
    r->pv->root = r->root;
    if (!json_is_object(r->root))
        return gltf_err(r->err, PB_IO_ERR_SYNTAX, NULL, "the JSON document is not an object"), -1;
    const char *ver =
        json_string_value(json_object_get(json_object_get(r->root, "asset"), "version"));
    if (!ver)
        return gltf_err(r->err, PB_IO_ERR_SYNTAX, "asset.version", "missing (not glTF?)"), -1;
    if (strncmp(ver, "2.", 2) != 0)
        return gltf_err(r->err, PB_IO_ERR_VALUE, "asset.version", "'%s': only glTF 2.x is read",
                        ver),
               -1;
    json_t *jb, *jv, *jacc;
    if (gltf_opt_array(r, r->root, "buffers", "buffers", &jb) ||
        gltf_opt_array(r, r->root, "bufferViews", "bufferViews", &jv) ||
        gltf_opt_array(r, r->root, "accessors", "accessors", &jacc))
        return -1;
    size_t nb = jb ? json_array_size(jb) : 0;
    r->num_views = jv ? json_array_size(jv) : 0;
    r->num_accessors = jacc ? json_array_size(jacc) : 0;
    r->pv->buf = calloc(nb ? nb : 1, sizeof *r->pv->buf);
    r->pv->buf_len = calloc(nb ? nb : 1, sizeof *r->pv->buf_len);
    r->acc_cache = calloc(r->num_accessors ? r->num_accessors : 1, sizeof *r->acc_cache);
    r->acc_count = calloc(r->num_accessors ? r->num_accessors : 1, sizeof *r->acc_count);
    if (!r->pv->buf || !r->pv->buf_len || !r->acc_cache || !r->acc_count)
        return io_nomem(r->err), -1;
    r->pv->num_buffers = nb;
    for (size_t b = 0; b < nb; b++)
        if (gltf_load_buffer(r, b, json_array_get(jb, b)))
            return -1;
    /* every bufferView, so that the writer can copy any of them */
    for (size_t v = 0; v < r->num_views; v++) {
        size_t len, st;
        char vp[64];
        snprintf(vp, sizeof vp, "bufferViews[%zu]", v);
        if (!gltf_view_bytes(r, (long long)v, vp, &len, &st))
            return -1;
    }
    if (gltf_read_nodes(r) || gltf_read_skins(r) || gltf_read_animations(r))
        return -1;
    return 0;
}

pb_io_code pb_gltf_read_memory(const void *data, size_t size, const char *base_dir, pb_gltf *out,
                               pb_io_error *err)
{
    io_clear_err(err);
    if (!out || (!data && size))
        return gltf_err(err, PB_IO_ERR_ARG, NULL, "data or out is NULL");
    pb_gltf g = {0};
    reader r = {0};
    r.g = &g;
    r.err = err;
    r.base_dir = base_dir && base_dir[0] ? base_dir : ".";
    r.pv = gltf_priv_new(&g);
    int rc = r.pv ? parse(&r, data, size) : (io_nomem(err), -1);
    free(r.acc_cache);
    free(r.acc_count);
    if (rc) {
        pb_io_code code = err ? err->code : PB_IO_ERR_SYNTAX;
        pb_gltf_free(&g);
        memset(out, 0, sizeof *out);
        return code ? code : PB_IO_ERR_SYNTAX;
    }
    *out = g;
    return PB_IO_OK;
}

pb_io_code pb_gltf_read_file(const char *path, pb_gltf *out, pb_io_error *err)
{
    io_clear_err(err);
    if (!path || !out) {
        if (out)
            memset(out, 0, sizeof *out);
        return gltf_err(err, PB_IO_ERR_ARG, NULL, "path or out is NULL");
    }
    size_t len;
    int big;
    const char *refused;
    unsigned char *data = io_read_whole(path, MAX_FILE, head_is_gltf, &len, &big, &refused);
    if (!data) {
        memset(out, 0, sizeof *out);
        if (refused)
            return io_path_err(err, PB_IO_ERR_SYNTAX, path, "%s", refused);
        if (errno == ENOMEM)
            return io_nomem(err);
        return io_path_err(err, big ? PB_IO_ERR_LIMIT : PB_IO_ERR_IO, path, "%s",
                           big ? "larger than 2 GiB" : strerror(errno));
    }
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    if (slash) {
        dir = strndup(path, (size_t)(slash - path) + 1);
        if (!dir) {
            free(data);
            memset(out, 0, sizeof *out);
            return io_nomem(err);
        }
    }
    pb_io_code rc = pb_gltf_read_memory(data, len, dir ? dir : ".", out, err);
    free(dir);
    free(data);
    return rc;
}
