/* glTF buffers: the GLB BIN chunk, data: URIs (base64), and files inside
 * the asset's directory (file_read.c's rules). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "gltf_reader.h"
#include "file_read.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int b64val(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* Base64 (padding optional); NULL on a bad character (*len = position). */
static unsigned char *b64_decode(const char *s, size_t n, size_t *len)
{
    unsigned char *out = malloc(n / 4 * 3 + 3);
    if (!out) {
        *len = (size_t)-1;
        return NULL;
    }
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=')
            break;
        int v = b64val((unsigned char)s[i]);
        if (v < 0) {
            free(out);
            *len = i;
            return NULL;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    *len = o;
    return out;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

int gltf_load_buffer(reader *r, size_t b, json_t *jb)
{
    char path[64];
    snprintf(path, sizeof path, "buffers[%zu]", b);
    if (!json_is_object(jb))
        return gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "not an object"), -1;
    long long len;
    if (gltf_get_int(r, jb, "byteLength", path, 1, (long long)MAX_FILE, -1, &len))
        return -1;
    json_t *ju = json_object_get(jb, "uri");
    unsigned char *data = NULL;
    size_t have = 0;
    if (!ju) {
        if (b != 0 || !r->bin)
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, path,
                            "no 'uri' and no GLB binary chunk to use"),
                   -1;
        have = r->bin_len;
        if (have < (size_t)len)
            return gltf_err(r->err, PB_IO_ERR_VALUE, path,
                            "byteLength %lld but the GLB binary chunk holds %zu bytes", len, have),
                   -1;
        data = malloc((size_t)len);
        if (!data)
            return io_nomem(r->err), -1;
        memcpy(data, r->bin, (size_t)len);
    } else {
        const char *uri = json_string_value(ju);
        if (!uri)
            return gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "'uri' is not a string"), -1;
        if (strncmp(uri, "data:", 5) == 0) {
            const char *comma = strchr(uri, ',');
            if (!comma || comma - uri < 7 || strncmp(comma - 7, ";base64", 7) != 0)
                return gltf_err(r->err, PB_IO_ERR_SYNTAX, path,
                                "uri: a data: URI that is not base64"),
                       -1;
            size_t dl;
            data = b64_decode(comma + 1, strlen(comma + 1), &dl);
            if (!data && dl == (size_t)-1)
                return io_nomem(r->err), -1;
            if (!data)
                return gltf_err(r->err, PB_IO_ERR_SYNTAX, path,
                                "uri: invalid base64 character at position %zu", dl),
                       -1;
            have = dl;
        } else {
            if (strstr(uri, "://") || uri[0] == '/')
                return gltf_err(r->err, PB_IO_ERR_VALUE, path,
                                "uri '%s': only relative file names and data: URIs are read", uri),
                       -1;
            /* percent-decoded; the file must lie inside the asset's
             * directory and be regular, and no more than byteLength bytes
             * of it are read (file_read.c) */
            size_t ul = strlen(uri);
            char *file = malloc(ul + 1);
            if (!file)
                return io_nomem(r->err), -1;
            size_t k = 0;
            for (size_t i = 0; i < ul; i++) {
                if (uri[i] == '%' && i + 2 < ul && hexval(uri[i + 1]) >= 0 &&
                    hexval(uri[i + 2]) >= 0) {
                    file[k++] = (char)(hexval(uri[i + 1]) * 16 + hexval(uri[i + 2]));
                    i += 2;
                } else
                    file[k++] = uri[i];
            }
            char why[256];
            int e;
            data = io_read_inside(r->base_dir, file, k, (size_t)len, &have, why, sizeof why, &e);
            free(file);
            if (!data) {
                if (e == ENOMEM)
                    return io_nomem(r->err), -1;
                return gltf_err(r->err, e ? PB_IO_ERR_IO : PB_IO_ERR_VALUE, path, "uri '%s': %s",
                                uri, why),
                       -1;
            }
        }
        if (have < (size_t)len) {
            free(data);
            return gltf_err(r->err, PB_IO_ERR_VALUE, path,
                            "byteLength %lld but its data holds %zu bytes", len, have),
                   -1;
        }
    }
    r->pv->buf[b] = data;
    r->pv->buf_len[b] = (size_t)len;
    return 0;
}
