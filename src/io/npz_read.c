/* pb_npz_read_file and pb_npy_read_file (posebatch/npz.h): the zip
 * archive's central directory (ZIP64 records as numpy writes them), each
 * NAME.npy entry stored or deflated (zlib, where the build has it), its CRC
 * checked, its .npy header parsed; numbers converted to the machine's byte
 * order, strings to UTF-8. Every offset and length is checked against the
 * bytes read before it is used. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "io_internal.h"
#include "npz_internal.h"

#if defined(PB_HAVE_ZLIB)
#include <zlib.h>
#endif

typedef struct {
    const unsigned char *p;
    size_t n;
} span;

/* ------------------------------------------------------------------ .npy */

static const char *skip_blank(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\n'))
        s++;
    return s;
}
/* the value after 'key': in the header dict text [s, end), or NULL */
static const char *dict_value(const char *s, const char *end, const char *key)
{
    const size_t kl = strlen(key);
    for (const char *p = s; p + kl + 2 <= end; p++) {
        if ((*p == '\'' || *p == '"') && p[kl + 1] == *p && memcmp(p + 1, key, kl) == 0) {
            const char *q = skip_blank(p + kl + 2, end);
            if (q < end && *q == ':')
                return skip_blank(q + 1, end);
        }
    }
    return NULL;
}

typedef struct {
    pb_npy_dtype dtype;
    int swap;     /* big-endian numbers */
    size_t item;  /* bytes per element in the file */
    int kind;     /* 'f', 'i', 'u', 'U', 'S', or another (PB_NPY_OTHER) */
    size_t width; /* U: code points, S: bytes */
} npy_type;

/* numpy's descr string: byte order, kind, size */
static int parse_descr(const char *d, size_t len, npy_type *t)
{
    memset(t, 0, sizeof *t);
    if (len < 2)
        return -1;
    char order = d[0], kind = d[1];
    size_t size = 0;
    for (size_t i = 2; i < len; i++) {
        if (d[i] < '0' || d[i] > '9' || size > (SIZE_MAX - 9) / 10)
            return -1;
        size = size * 10 + (size_t)(d[i] - '0');
    }
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return -1;
    t->swap = order == '>';
    t->kind = kind;
    t->dtype = PB_NPY_OTHER;
    if (kind == 'f' && size == 4)
        t->dtype = PB_NPY_F32;
    else if (kind == 'f' && size == 8)
        t->dtype = PB_NPY_F64;
    else if (kind == 'i' && size == 4)
        t->dtype = PB_NPY_I32;
    else if (kind == 'i' && size == 8)
        t->dtype = PB_NPY_I64;
    else if (kind == 'u' && size == 1)
        t->dtype = PB_NPY_U8;
    else if (kind == 'U' || kind == 'S')
        t->dtype = PB_NPY_STR;
    t->width = size;
    t->item = kind == 'U' ? (size > SIZE_MAX / 4 ? 0 : 4 * size) : size;
    return 0;
}

/* one .npy held in b: the array named `name` appended to out */
static pb_io_code parse_npy(span b, const char *name, pb_npz *out, pb_npy_array *a,
                            pb_io_error *err)
{
    if (b.n < 10 || memcmp(b.p, "\x93NUMPY", 6) != 0)
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: not a .npy array (no magic)", name);
    const unsigned major = b.p[6];
    size_t hl, at;
    if (major == 1) {
        hl = npz_get16(b.p + 8);
        at = 10;
    } else if ((major == 2 || major == 3) && b.n >= 12) {
        hl = npz_get32(b.p + 8);
        at = 12;
    } else {
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: .npy format version %u", name, major);
    }
    if (hl > b.n - at)
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: .npy header cut short", name);
    const char *h = (const char *)b.p + at, *he = h + hl;
    const char *dv = dict_value(h, he, "descr"), *fo = dict_value(h, he, "fortran_order"),
               *sv = dict_value(h, he, "shape");
    if (!dv || !fo || !sv || dv >= he || sv >= he || (*dv != '\'' && *dv != '"'))
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0,
                          "%s: .npy header without descr, fortran_order or shape", name);
    const char *de = memchr(dv + 1, *dv, (size_t)(he - dv - 1));
    npy_type t;
    if (!de || parse_descr(dv + 1, (size_t)(de - dv - 1), &t))
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: unknown .npy descr", name);
    if ((size_t)(he - fo) >= 4 && memcmp(fo, "True", 4) == 0)
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0,
                          "%s: a Fortran-ordered array is not read (save it C-ordered)", name);
    if ((size_t)(he - fo) < 5 || memcmp(fo, "False", 5) != 0)
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: bad fortran_order", name);
    if (*sv != '(')
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: bad shape", name);
    memset(a, 0, sizeof *a);
    const char *s = skip_blank(sv + 1, he);
    size_t count = 1;
    int overflow = 0;
    while (s < he && *s != ')') {
        if (a->ndim == PB_NPY_MAX_DIMS)
            return io_set_err(err, PB_IO_ERR_LIMIT, 0, "%s: more than %d axes", name,
                              PB_NPY_MAX_DIMS);
        size_t v = 0;
        const char *d0 = s;
        for (; s < he && *s >= '0' && *s <= '9'; s++) {
            if (v > (SIZE_MAX - 9) / 10)
                overflow = 1;
            v = v * 10 + (size_t)(*s - '0');
        }
        if (s == d0)
            return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: bad shape", name);
        /* numpy may write 3L (Python 2) */
        if (s < he && *s == 'L')
            s++;
        a->shape[a->ndim++] = v;
        if (v != 0 && count > SIZE_MAX / v)
            overflow = 1;
        count *= v;
        s = skip_blank(s, he);
        if (s < he && *s == ',')
            s = skip_blank(s + 1, he);
    }
    if (s >= he)
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: bad shape", name);
    const size_t avail = b.n - at - hl;
    if (overflow || (t.item && count > avail / t.item))
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0,
                          "%s: data shorter than the shape says (%zu bytes)", name, avail);
    const size_t nl = strlen(name) + 1;
    char *nm = npz_alloc(out, nl);
    if (!nm)
        return io_nomem(err);
    memcpy(nm, name, nl);
    a->name = nm;
    a->dtype = t.dtype;
    const unsigned char *src = b.p + at + hl;
    if (t.dtype == PB_NPY_STR && t.item == 0)
        a->dtype = PB_NPY_OTHER; /* '<U0': nothing to take */
    if (a->dtype == PB_NPY_OTHER)
        return PB_IO_OK; /* not taken: no data */
    if (t.dtype == PB_NPY_STR) {
        /* UTF-8 strings: at most 4 bytes a code point (or 1 a byte) + NUL */
        const size_t per = t.kind == 'U' ? 4 * t.width + 1 : t.width + 1;
        if (count > (SIZE_MAX - 1) / (per + sizeof(char *)))
            return io_set_err(err, PB_IO_ERR_LIMIT, 0, "%s: strings too large", name);
        char **list = npz_alloc(out, count * (per + sizeof(char *)) + 1);
        if (!list)
            return io_nomem(err);
        char *text = (char *)(list + count);
        for (size_t i = 0; i < count; i++) {
            const unsigned char *e = src + i * t.item;
            char *o = text + i * per;
            list[i] = o;
            for (size_t k = 0; k < t.width; k++) {
                uint32_t c = t.kind == 'S' ? e[k] : npz_get32(e + 4 * k);
                if (t.kind == 'U' && t.swap)
                    c = (c >> 24) | ((c >> 8) & 0xff00u) | ((c << 8) & 0xff0000u) | (c << 24);
                if (c == 0)
                    break;
                if (t.kind == 'S' || c < 0x80) {
                    *o++ = (char)c;
                } else {
                    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
                        c = 0xFFFD;
                    if (c < 0x800) {
                        *o++ = (char)(0xC0 | (c >> 6));
                    } else if (c < 0x10000) {
                        *o++ = (char)(0xE0 | (c >> 12));
                        *o++ = (char)(0x80 | ((c >> 6) & 63));
                    } else {
                        *o++ = (char)(0xF0 | (c >> 18));
                        *o++ = (char)(0x80 | ((c >> 12) & 63));
                        *o++ = (char)(0x80 | ((c >> 6) & 63));
                    }
                    *o++ = (char)(0x80 | (c & 63));
                }
            }
            *o = '\0';
        }
        a->data = list;
        return PB_IO_OK;
    }
    const size_t bytes = count * t.item;
    unsigned char *d = npz_alloc(out, bytes ? bytes : 1);
    if (!d)
        return io_nomem(err);
    const int swap = t.swap != npz_big_endian() && t.item > 1;
    if (swap) {
        for (size_t i = 0; i < count; i++)
            for (size_t k = 0; k < t.item; k++)
                d[i * t.item + k] = src[i * t.item + t.item - 1 - k];
    } else {
        memcpy(d, src, bytes);
    }
    a->data = d;
    return PB_IO_OK;
}

/* out->arrays grown by one (zeroed); NULL when out of memory */
static pb_npy_array *push(pb_npz *out, size_t *cap)
{
    if (out->count == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        pb_npy_array *na = realloc(out->arrays, nc * sizeof *na);
        if (!na)
            return NULL;
        out->arrays = na;
        *cap = nc;
    }
    pb_npy_array *a = &out->arrays[out->count++];
    memset(a, 0, sizeof *a);
    return a;
}

/* ------------------------------------------------------------------ zip */

/* the uncompressed bytes of an entry: stored in place, or inflated into
 * npz-owned memory */
static pb_io_code entry_bytes(span z, const char *name, unsigned method, size_t off, size_t csize,
                              size_t usize, uint32_t crc, pb_npz *out, span *b, pb_io_error *err)
{
    if (off > z.n || z.n - off < 30 || npz_get32(z.p + off) != 0x04034b50u)
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: bad local header", name);
    const size_t data = off + 30 + npz_get16(z.p + off + 26) + npz_get16(z.p + off + 28);
    if (data > z.n || csize > z.n - data)
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: entry runs past the end", name);
    if (method == 0) {
        if (csize != usize)
            return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: stored sizes differ", name);
        b->p = z.p + data;
        b->n = usize;
    } else if (method == 8) {
#if defined(PB_HAVE_ZLIB)
        if (usize > PB_NPZ_MAX_BYTES)
            return io_set_err(err, PB_IO_ERR_LIMIT, 0, "%s: %zu bytes inflated", name, usize);
        unsigned char *d = npz_alloc(out, usize ? usize : 1);
        if (!d)
            return io_nomem(err);
        z_stream s;
        memset(&s, 0, sizeof s);
        if (inflateInit2(&s, -15) != Z_OK)
            return io_nomem(err);
        s.next_in = (unsigned char *)(uintptr_t)(z.p + data);
        s.next_out = d;
        size_t left_in = csize, left_out = usize;
        int zr = Z_OK;
        while (zr == Z_OK) {
            uInt ci = left_in > 0x40000000u ? 0x40000000u : (uInt)left_in;
            uInt co = left_out > 0x40000000u ? 0x40000000u : (uInt)left_out;
            s.avail_in = ci;
            s.avail_out = co;
            zr = inflate(&s, Z_NO_FLUSH);
            left_in -= ci - s.avail_in;
            left_out -= co - s.avail_out;
            if (zr == Z_OK && ci == s.avail_in && co == s.avail_out)
                zr = Z_DATA_ERROR; /* no progress */
        }
        inflateEnd(&s);
        if (zr != Z_STREAM_END || left_out != 0)
            return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: broken deflate data", name);
        b->p = d;
        b->n = usize;
#else
        (void)out;
        return io_set_err(err, PB_IO_ERR_ARG, 0,
                          "%s: a compressed entry (numpy.savez_compressed), and this build has no "
                          "zlib: re-save it with numpy.savez",
                          name);
#endif
    } else {
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: compression method %u", name, method);
    }
    if (npz_crc32(0, b->p, b->n) != crc)
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "%s: CRC-32 does not match", name);
    return PB_IO_OK;
}

static pb_io_code parse_zip(span z, pb_npz *out, pb_io_error *err)
{
    /* the end of central directory record: the last one in the final
     * 22 + 65535 bytes */
    if (z.n < 22)
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "not a zip archive (.npz): too short");
    size_t eocd = z.n - 22, stop = z.n > 22 + 65535 ? z.n - 22 - 65535 : 0;
    while (npz_get32(z.p + eocd) != 0x06054b50u) {
        if (eocd == stop)
            return io_set_err(err, PB_IO_ERR_SYNTAX, 0,
                              "not a zip archive (.npz): no end of central directory");
        eocd--;
    }
    uint64_t entries = npz_get16(z.p + eocd + 10), cd_size = npz_get32(z.p + eocd + 12),
             cd_off = npz_get32(z.p + eocd + 16);
    if (entries == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_off == 0xFFFFFFFFu) {
        /* ZIP64: the locator just before, then the ZIP64 end record */
        if (eocd < 20 || npz_get32(z.p + eocd - 20) != 0x07064b50u)
            return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "zip: ZIP64 locator missing");
        uint64_t r = npz_get64(z.p + eocd - 12);
        if (r > z.n || z.n - r < 56 || npz_get32(z.p + r) != 0x06064b50u)
            return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "zip: bad ZIP64 end record");
        entries = npz_get64(z.p + r + 32);
        cd_size = npz_get64(z.p + r + 40);
        cd_off = npz_get64(z.p + r + 48);
    }
    if (cd_off > z.n || cd_size > z.n - cd_off || entries > cd_size / 46)
        return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "zip: bad central directory");
    size_t cap = 0, at = (size_t)cd_off;
    const size_t cd_end = (size_t)(cd_off + cd_size);
    char name[1024];
    for (uint64_t i = 0; i < entries; i++) {
        if (cd_end - at < 46 || npz_get32(z.p + at) != 0x02014b50u)
            return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "zip: bad central directory entry %llu",
                              (unsigned long long)i);
        const unsigned flags = npz_get16(z.p + at + 8), method = npz_get16(z.p + at + 10);
        const uint32_t crc = npz_get32(z.p + at + 16);
        uint64_t csize = npz_get32(z.p + at + 20), usize = npz_get32(z.p + at + 24),
                 off = npz_get32(z.p + at + 42);
        const size_t nl = npz_get16(z.p + at + 28), el = npz_get16(z.p + at + 30),
                     cl = npz_get16(z.p + at + 32);
        if (cd_end - at - 46 < nl + el + cl)
            return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "zip: central directory entry cut short");
        const unsigned char *nm = z.p + at + 46, *ex = nm + nl;
        /* ZIP64 extra field: the 64-bit values of the fields at 0xFFFFFFFF */
        for (size_t e = 0; e + 4 <= el;) {
            const unsigned id = npz_get16(ex + e), len = npz_get16(ex + e + 2);
            if (e + 4 + len > el)
                break;
            if (id == 1) {
                size_t k = e + 4;
                if (usize == 0xFFFFFFFFu && k + 8 <= e + 4 + len)
                    usize = npz_get64(ex + k), k += 8;
                if (csize == 0xFFFFFFFFu && k + 8 <= e + 4 + len)
                    csize = npz_get64(ex + k), k += 8;
                if (off == 0xFFFFFFFFu && k + 8 <= e + 4 + len)
                    off = npz_get64(ex + k), k += 8;
            }
            e += 4 + len;
        }
        at += 46 + nl + el + cl;
        if (nl < 5 || nl >= sizeof name || memcmp(nm + nl - 4, ".npy", 4) != 0)
            continue; /* not an array */
        memcpy(name, nm, nl);
        name[nl] = '\0';
        if (memchr(name, '\0', nl))
            return io_set_err(err, PB_IO_ERR_SYNTAX, 0, "zip: an entry name holds a NUL byte");
        if (flags & 1)
            return io_set_err(err, PB_IO_ERR_ARG, 0, "%s: encrypted", name);
        if (usize > SIZE_MAX || csize > SIZE_MAX || off > SIZE_MAX)
            return io_set_err(err, PB_IO_ERR_LIMIT, 0, "%s: too large", name);
        span b;
        pb_io_code rc = entry_bytes(z, name, method, (size_t)off, (size_t)csize, (size_t)usize, crc,
                                    out, &b, err);
        if (rc != PB_IO_OK)
            return rc;
        name[nl - 4] = '\0';
        pb_npy_array *a = push(out, &cap);
        if (!a)
            return io_nomem(err);
        rc = parse_npy(b, name, out, a, err);
        if (rc != PB_IO_OK)
            return rc;
    }
    return PB_IO_OK;
}

/* io_read_whole's look at the first bytes: a zip archive or a .npy */
static const char *head_zip(const unsigned char *h, size_t n)
{
    if (n >= 4 && memcmp(h, "PK", 2) == 0)
        return NULL;
    return "not a zip archive (.npz)";
}
static const char *head_npy(const unsigned char *h, size_t n)
{
    if (n >= 6 && memcmp(h, "\x93NUMPY", 6) == 0)
        return NULL;
    return "not a .npy array";
}

static pb_io_code read_path(const char *path, int npy, pb_npz *out, pb_io_error *err)
{
    if (!out)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "NULL argument");
    memset(out, 0, sizeof *out);
    if (!path)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "NULL argument");
    size_t len = 0;
    int big = 0;
    const char *refused = NULL;
    unsigned char *data =
        io_read_whole(path, PB_NPZ_MAX_BYTES, npy ? head_npy : head_zip, &len, &big, &refused);
    if (!data) {
        if (refused)
            return io_path_err(err, PB_IO_ERR_SYNTAX, path, "%s", refused);
        if (big)
            return io_path_err(err, PB_IO_ERR_LIMIT, path, "larger than %zu bytes",
                               PB_NPZ_MAX_BYTES);
        return io_path_err(err, PB_IO_ERR_IO, path, "%s", strerror(errno));
    }
    span z = {data, len};
    pb_io_code rc;
    if (npy) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        char name[1024];
        snprintf(name, sizeof name, "%s", base);
        size_t nl = strlen(name);
        if (nl > 4 && strcmp(name + nl - 4, ".npy") == 0)
            name[nl - 4] = '\0';
        size_t cap = 0;
        pb_npy_array *a = push(out, &cap);
        rc = a ? parse_npy(z, name, out, a, err) : io_nomem(err);
    } else {
        rc = parse_zip(z, out, err);
    }
    free(data);
    if (rc != PB_IO_OK)
        pb_npz_free(out);
    return rc;
}

pb_io_code pb_npz_read_file(const char *path, pb_npz *out, pb_io_error *err)
{
    return read_path(path, 0, out, err);
}
pb_io_code pb_npy_read_file(const char *path, pb_npz *out, pb_io_error *err)
{
    return read_path(path, 1, out, err);
}
