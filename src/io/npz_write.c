/* pb_npz_write_file (posebatch/npz.h): arrays as an .npz, a zip archive of
 * stored .npy entries. Everything is checked and every entry's header,
 * size and CRC-32 formed before the file is created; then the bytes go out
 * through pb_io_write_file_cb (the atomic temporary). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "npz_internal.h"

#define NPY_HDR_MAX 512
#define ZIP_DATE 0x21 /* 1980-01-01, every entry (the same arrays, the same bytes) */

typedef struct {
    const pb_npy_array *a;
    char hdr[NPY_HDR_MAX];
    size_t hlen;
    const unsigned char *data;
    size_t dlen;
    unsigned char *own; /* converted data (strings, byte swaps), or NULL */
    size_t nlen;        /* the entry's file name: name + ".npy" */
    uint32_t crc;
    size_t offset; /* of its local header */
} entry;

typedef struct {
    entry *e;
    size_t count, cd_offset, cd_size;
} archive;

/* the next code point of UTF-8 text at *s (advanced); invalid bytes give
 * U+FFFD one byte at a time */
static uint32_t utf8_next(const unsigned char **s)
{
    const unsigned char *p = *s;
    uint32_t c = p[0];
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 1) {
        *s = p + 1;
        return c;
    }
    uint32_t v = len == 2 ? c & 31 : len == 3 ? c & 15 : c & 7;
    for (int i = 1; i < len; i++) {
        if ((p[i] >> 6) != 2) {
            len = 0;
            break;
        }
        v = v << 6 | (p[i] & 63);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (len == 0 || v < least[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        *s = p + 1;
        return 0xFFFD;
    }
    *s = p + len;
    return v;
}
static size_t utf8_count(const char *text)
{
    size_t n = 0;
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        utf8_next(&s);
        n++;
    }
    return n;
}

static int name_ok(const char *name)
{
    if (!name || !*name || strlen(name) > 60000)
        return 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '/' || *p == '\\')
            return 0;
    return 1;
}

/* the element count of a's shape (0 when it would overflow: *ok cleared) */
static size_t elements(const pb_npy_array *a, int *ok)
{
    size_t n = 1;
    for (int d = 0; d < a->ndim; d++) {
        if (a->shape[d] != 0 && n > PB_NPZ_MAX_BYTES / a->shape[d]) {
            *ok = 0;
            return 0;
        }
        n *= a->shape[d];
    }
    return n;
}

/* entry e's .npy header (version 1.0: padded with blanks to 64 bytes and a
 * newline) and data bytes */
static pb_io_code prepare(entry *e, pb_io_error *err)
{
    const pb_npy_array *a = e->a;
    int ok = 1;
    const size_t n = elements(a, &ok);
    if (!ok)
        return io_set_err(err, PB_IO_ERR_LIMIT, 0, "array '%s': its shape is too large", a->name);
    char descr[32], shape[PB_NPY_MAX_DIMS * 24 + 4];
    size_t width = 0; /* strings: code points each */
    size_t item = npz_item_size(a->dtype);
    if (a->dtype == PB_NPY_STR) {
        const char *const *s = a->data;
        for (size_t i = 0; i < n; i++) {
            if (!s[i])
                return io_set_err(err, PB_IO_ERR_ARG, 0, "array '%s': string %zu is NULL", a->name,
                                  i);
            size_t c = utf8_count(s[i]);
            width = c > width ? c : width;
        }
        width = width ? width : 1;
        if (width > PB_NPZ_MAX_BYTES / 4)
            return io_set_err(err, PB_IO_ERR_LIMIT, 0, "array '%s': strings too long", a->name);
        item = 4 * width;
        snprintf(descr, sizeof descr, "<U%zu", width);
    } else {
        static const char *const names[5] = {"<f4", "<f8", "<i4", "<i8", "|u1"};
        snprintf(descr, sizeof descr, "%s", names[a->dtype]);
    }
    if (n > PB_NPZ_MAX_BYTES / item)
        return io_set_err(err, PB_IO_ERR_LIMIT, 0, "array '%s' is too large", a->name);
    size_t sl = 0;
    shape[sl++] = '(';
    for (int d = 0; d < a->ndim; d++)
        sl += (size_t)snprintf(shape + sl, sizeof shape - sl, d ? ", %zu" : "%zu", a->shape[d]);
    if (a->ndim == 1)
        shape[sl++] = ',';
    shape[sl++] = ')';
    shape[sl] = '\0';
    char dict[NPY_HDR_MAX];
    int dl = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                      descr, shape);
    if (dl < 0 || (size_t)dl + 80 > NPY_HDR_MAX)
        return io_set_err(err, PB_IO_ERR_LIMIT, 0, "array '%s': header too long", a->name);
    const size_t total = 10 + (size_t)dl + 1, pad = (64 - total % 64) % 64;
    const size_t hl = (size_t)dl + pad + 1;
    memcpy(e->hdr, "\x93NUMPY\x01\x00", 8);
    npz_put16((unsigned char *)e->hdr + 8, (unsigned)hl);
    memcpy(e->hdr + 10, dict, (size_t)dl);
    memset(e->hdr + 10 + dl, ' ', pad);
    e->hdr[10 + hl - 1] = '\n';
    e->hlen = 10 + hl;
    e->dlen = n * item;
    if (n > 0 && !a->data)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "array '%s': data is NULL", a->name);
    const int swap = npz_big_endian() && item > 1 && a->dtype != PB_NPY_STR;
    if (a->dtype == PB_NPY_STR || swap) {
        e->own = malloc(e->dlen ? e->dlen : 1);
        if (!e->own)
            return io_nomem(err);
        if (a->dtype == PB_NPY_STR) {
            const char *const *s = a->data;
            memset(e->own, 0, e->dlen);
            for (size_t i = 0; i < n; i++) {
                const unsigned char *p = (const unsigned char *)s[i];
                for (size_t k = 0; *p; k++)
                    npz_put32(e->own + i * item + 4 * k, utf8_next(&p));
            }
        } else {
            const unsigned char *src = a->data;
            for (size_t i = 0; i < n; i++)
                for (size_t b = 0; b < item; b++)
                    e->own[i * item + b] = src[i * item + item - 1 - b];
        }
        e->data = e->own;
    } else {
        e->data = a->data;
    }
    e->crc = npz_crc32(npz_crc32(0, e->hdr, e->hlen), e->data, e->dlen);
    return PB_IO_OK;
}

static pb_io_code put(FILE *f, const void *p, size_t n, pb_io_error *err)
{
    if (n && fwrite(p, 1, n, f) != n)
        return io_set_err(err, PB_IO_ERR_IO, 0, "write failed");
    return PB_IO_OK;
}

/* a local (central: cd) file header of entry e */
static size_t zip_header(unsigned char *h, const entry *e, int cd)
{
    const uint32_t size = (uint32_t)(e->hlen + e->dlen);
    size_t o = 0;
    npz_put32(h, cd ? 0x02014b50u : 0x04034b50u);
    o = 4;
    if (cd) {
        npz_put16(h + o, 20); /* made by: 2.0 */
        o += 2;
    }
    npz_put16(h + o, 20); /* needed: 2.0 */
    npz_put16(h + o + 2, 0);
    npz_put16(h + o + 4, 0); /* stored */
    npz_put16(h + o + 6, 0);
    npz_put16(h + o + 8, ZIP_DATE);
    npz_put32(h + o + 10, e->crc);
    npz_put32(h + o + 14, size);
    npz_put32(h + o + 18, size);
    npz_put16(h + o + 22, (unsigned)e->nlen);
    npz_put16(h + o + 24, 0);
    o += 26;
    if (cd) {
        memset(h + o, 0, 10); /* comment length, disk, attributes */
        npz_put32(h + o + 10, (uint32_t)e->offset);
        o += 14;
    }
    return o;
}

static pb_io_code write_archive(FILE *f, void *ctx, pb_io_error *err)
{
    const archive *z = ctx;
    unsigned char h[64];
    pb_io_code rc = PB_IO_OK;
    for (size_t i = 0; i < z->count && rc == PB_IO_OK; i++) {
        const entry *e = &z->e[i];
        if ((rc = put(f, h, zip_header(h, e, 0), err)) ||
            (rc = put(f, e->a->name, e->nlen - 4, err)) || (rc = put(f, ".npy", 4, err)) ||
            (rc = put(f, e->hdr, e->hlen, err)))
            break;
        rc = put(f, e->data, e->dlen, err);
    }
    for (size_t i = 0; i < z->count && rc == PB_IO_OK; i++) {
        const entry *e = &z->e[i];
        if ((rc = put(f, h, zip_header(h, e, 1), err)) ||
            (rc = put(f, e->a->name, e->nlen - 4, err)))
            break;
        rc = put(f, ".npy", 4, err);
    }
    if (rc != PB_IO_OK)
        return rc;
    npz_put32(h, 0x06054b50u);
    npz_put16(h + 4, 0);
    npz_put16(h + 6, 0);
    npz_put16(h + 8, (unsigned)z->count);
    npz_put16(h + 10, (unsigned)z->count);
    npz_put32(h + 12, (uint32_t)z->cd_size);
    npz_put32(h + 16, (uint32_t)z->cd_offset);
    npz_put16(h + 20, 0);
    return put(f, h, 22, err);
}

pb_io_code pb_npz_write_file(const char *path, const pb_npy_array *arrays, size_t count,
                             pb_io_error *err)
{
    if (!path || (count && !arrays))
        return io_set_err(err, PB_IO_ERR_ARG, 0, "pb_npz_write_file: NULL argument");
    if (count > 65535)
        return io_set_err(err, PB_IO_ERR_LIMIT, 0, "%zu arrays: an archive holds 65535", count);
    for (size_t i = 0; i < count; i++) {
        const pb_npy_array *a = &arrays[i];
        if (!name_ok(a->name))
            return io_set_err(err, PB_IO_ERR_ARG, 0,
                              "array %zu: a name must be 1 to 60000 bytes without '/', '\\' or "
                              "control characters",
                              i);
        if (a->ndim < 0 || a->ndim > PB_NPY_MAX_DIMS || a->dtype < PB_NPY_F32 ||
            a->dtype > PB_NPY_STR)
            return io_set_err(err, PB_IO_ERR_ARG, 0, "array '%s': bad dtype or ndim", a->name);
        for (size_t k = 0; k < i; k++)
            if (strcmp(arrays[k].name, a->name) == 0)
                return io_set_err(err, PB_IO_ERR_ARG, 0, "array name '%s' used twice", a->name);
    }
    archive z = {calloc(count ? count : 1, sizeof(entry)), count, 0, 0};
    if (!z.e)
        return io_nomem(err);
    pb_io_code rc = PB_IO_OK;
    size_t off = 0;
    for (size_t i = 0; i < count && rc == PB_IO_OK; i++) {
        entry *e = &z.e[i];
        e->a = &arrays[i];
        e->nlen = strlen(e->a->name) + 4;
        rc = prepare(e, err);
        e->offset = off;
        if (rc == PB_IO_OK && off > PB_NPZ_MAX_BYTES - (30 + e->nlen + e->hlen + e->dlen))
            rc = io_set_err(err, PB_IO_ERR_LIMIT, 0, "the archive would pass %zu bytes",
                            PB_NPZ_MAX_BYTES);
        off += 30 + e->nlen + e->hlen + e->dlen;
    }
    z.cd_offset = off;
    for (size_t i = 0; i < count; i++)
        z.cd_size += 46 + z.e[i].nlen;
    if (rc == PB_IO_OK && z.cd_size + 22 > PB_NPZ_MAX_BYTES - off)
        rc = io_set_err(err, PB_IO_ERR_LIMIT, 0, "the archive would pass %zu bytes",
                        PB_NPZ_MAX_BYTES);
    if (rc == PB_IO_OK)
        rc = pb_io_write_file_cb(path, write_archive, &z, err);
    for (size_t i = 0; i < count; i++)
        free(z.e[i].own);
    free(z.e);
    return rc;
}
