/* glTF accessors decoded to floats: component types, normalized
 * integers, strides, sparse accessors; bounds checked before any
 * allocation. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "gltf_reader.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* gltf_internal.h: the values one read may decode, all accessors together */
size_t gltf_value_budget = GLTF_MAX_VALUES;

static size_t comp_size(long long ct)
{
    switch (ct) {
    case 5120:
    case 5121: return 1;
    case 5122:
    case 5123: return 2;
    case 5125:
    case 5126: return 4;
    default: return 0;
    }
}

static const char *comp_name(long long ct)
{
    switch (ct) {
    case 5120: return "BYTE";
    case 5121: return "UNSIGNED_BYTE";
    case 5122: return "SHORT";
    case 5123: return "UNSIGNED_SHORT";
    case 5125: return "UNSIGNED_INT";
    case 5126: return "FLOAT";
    default: return "unknown";
    }
}

size_t gltf_type_comps(const char *t)
{
    static const char *names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    static const size_t n[] = {1, 2, 3, 4, 4, 9, 16};
    for (int i = 0; i < 7; i++)
        if (t && strcmp(t, names[i]) == 0)
            return n[i];
    return 0;
}

static float decode_one(const unsigned char *p, long long ct, int normalized)
{
    switch (ct) {
    case 5126: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case 5120: {
        float v = (float)(int8_t)p[0];
        return normalized ? fmaxf(v / 127.0f, -1.0f) : v;
    }
    case 5121: return normalized ? (float)p[0] / 255.0f : (float)p[0];
    case 5122: {
        int16_t s;
        memcpy(&s, p, 2);
        return normalized ? fmaxf((float)s / 32767.0f, -1.0f) : (float)s;
    }
    case 5123: {
        uint16_t s;
        memcpy(&s, p, 2);
        return normalized ? (float)s / 65535.0f : (float)s;
    }
    default: {
        uint32_t u;
        memcpy(&u, p, 4);
        return (float)u;
    }
    }
}

/* The bytes of bufferView v (checked), for `what`. */
const unsigned char *gltf_view_bytes(reader *r, long long v, const char *path, size_t *len,
                                     size_t *stride)
{
    char vp[64];
    snprintf(vp, sizeof vp, "bufferViews[%lld]", v);
    json_t *views = json_object_get(r->root, "bufferViews");
    json_t *jv = json_array_get(views, (size_t)v);
    if (!json_is_object(jv)) {
        gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "bufferView %lld does not exist", v);
        return NULL;
    }
    long long buf, off, bl, st;
    if (gltf_get_int(r, jv, "buffer", vp, 0, (long long)r->pv->num_buffers - 1, -1, &buf) ||
        gltf_get_int(r, jv, "byteOffset", vp, 0, (long long)MAX_FILE, 0, &off) ||
        gltf_get_int(r, jv, "byteLength", vp, 1, (long long)MAX_FILE, -1, &bl) ||
        gltf_get_int(r, jv, "byteStride", vp, 4, 252, 0, &st))
        return NULL;
    if ((size_t)(off + bl) > r->pv->buf_len[buf]) {
        gltf_err(r->err, PB_IO_ERR_VALUE, vp,
                 "byteOffset %lld + byteLength %lld is past the end of buffer %lld (%zu bytes)",
                 off, bl, buf, r->pv->buf_len[buf]);
        return NULL;
    }
    *len = (size_t)bl;
    *stride = (size_t)st;
    return r->pv->buf[buf] + off;
}

/* Decodes accessor a to floats (count * comps), checking its component type
 * against `allowed` (bit per componentType - 5120; normalized required for
 * integers when want_norm). path names the referencing member. */
float *gltf_decode_accessor(reader *r, long long a, const char *path, unsigned allowed,
                            size_t want_comps, size_t *count_out)
{
    if (a < 0 || (size_t)a >= r->num_accessors) {
        gltf_err(r->err, PB_IO_ERR_VALUE, path, "accessor %lld does not exist", a);
        return NULL;
    }
    json_t *ja = json_array_get(json_object_get(r->root, "accessors"), (size_t)a);
    char ap[64];
    snprintf(ap, sizeof ap, "accessors[%lld]", a);
    if (!json_is_object(ja)) {
        gltf_err(r->err, PB_IO_ERR_SYNTAX, ap, "not an object");
        return NULL;
    }
    long long ct, count, off, bv;
    if (gltf_get_int(r, ja, "componentType", ap, 5120, 5126, -1, &ct) ||
        gltf_get_int(r, ja, "count", ap, 1, (long long)1 << 31, -1, &count) ||
        gltf_get_int(r, ja, "byteOffset", ap, 0, (long long)MAX_FILE, 0, &off) ||
        gltf_get_int(r, ja, "bufferView", ap, -1, (long long)r->num_views - 1, -1, &bv))
        return NULL;
    size_t cs = comp_size(ct);
    if (!cs) {
        gltf_err(r->err, PB_IO_ERR_VALUE, ap, "componentType %lld is not a glTF component type",
                 ct);
        return NULL;
    }
    json_t *jn = json_object_get(ja, "normalized");
    if (jn && !json_is_boolean(jn)) {
        gltf_err(r->err, PB_IO_ERR_VALUE, ap, "'normalized' is not a boolean");
        return NULL;
    }
    int norm = json_is_true(jn);
    const char *type = json_string_value(json_object_get(ja, "type"));
    size_t comps = gltf_type_comps(type);
    if (!comps) {
        gltf_err(r->err, PB_IO_ERR_VALUE, ap, "'type' is missing or not a glTF accessor type");
        return NULL;
    }
    if (comps != want_comps) {
        gltf_err(r->err, PB_IO_ERR_VALUE, path, "accessor %lld is %s, expected %s", a, type,
                 want_comps == 1   ? "SCALAR"
                 : want_comps == 3 ? "VEC3"
                                   : "VEC4");
        return NULL;
    }
    int ok_type = (allowed >> (ct - 5120)) & 1u;
    if (ok_type && ct != 5126 && norm == !!(allowed & GLTF_ACC_INT))
        ok_type = 0;
    if (!ok_type) {
        if (allowed & GLTF_ACC_INT)
            gltf_err(r->err, PB_IO_ERR_VALUE, path,
                     "accessor %lld is %s%s, expected unsigned integers (not normalized)", a,
                     norm ? "normalized " : "", comp_name(ct));
        else if (allowed == 1u << (5126 - 5120))
            gltf_err(r->err, PB_IO_ERR_VALUE, path, "accessor %lld is not float (%s%s)", a,
                     norm ? "normalized " : "", comp_name(ct));
        else
            gltf_err(r->err, PB_IO_ERR_VALUE, path,
                     "accessor %lld is %s%s, expected float or normalized byte/short", a,
                     norm ? "normalized " : "", comp_name(ct));
        return NULL;
    }
    size_t n = (size_t)count, es = cs * comps;
    if (n * comps > ((size_t)1 << 28)) { /* checked before the memory is taken */
        gltf_err(r->err, PB_IO_ERR_LIMIT, ap, "%lld %s elements: more than 2^28 values", count,
                 type);
        return NULL;
    }
    /* memory in proportion to the input: all decoding together at most 2^28
     * values; values no bufferView backs (zeros) bounded by the document's
     * own bytes */
    if (bv < 0 && n * comps > r->zeros_left) {
        gltf_err(r->err, PB_IO_ERR_LIMIT, ap,
                 "%zu values with no bufferView (zeros): more than a document of its size may "
                 "make (%zu left)",
                 n * comps, r->zeros_left);
        return NULL;
    }
    if (n * comps > r->values_left) {
        gltf_err(r->err, PB_IO_ERR_LIMIT, ap,
                 "%zu values more: the accessors decoded add up to more than the %zu values "
                 "one read may decode",
                 n * comps, gltf_value_budget);
        return NULL;
    }
    r->values_left -= n * comps;
    if (bv < 0)
        r->zeros_left -= n * comps;
    if (bv >= 0) { /* the bounds, before any allocation */
        size_t vlen, stride;
        if (!gltf_view_bytes(r, bv, ap, &vlen, &stride))
            return NULL;
        if (stride && stride < es) {
            gltf_err(r->err, PB_IO_ERR_VALUE, ap,
                     "bufferView %lld: byteStride %zu is smaller than an element (%zu bytes)", bv,
                     stride, es);
            return NULL;
        }
        if ((size_t)off + (stride ? stride : es) * (n - 1) + es > vlen) {
            gltf_err(r->err, PB_IO_ERR_VALUE, ap,
                     "%lld elements of %zu bytes (stride %zu) from byteOffset %lld do not fit in "
                     "bufferView %lld (%zu bytes)",
                     count, es, stride ? stride : es, off, bv, vlen);
            return NULL;
        }
    }
    float *out = calloc(n * comps, sizeof *out);
    if (!out) {
        io_nomem(r->err);
        return NULL;
    }
    if (bv >= 0) {
        size_t vlen, stride;
        const unsigned char *p = gltf_view_bytes(r, bv, ap, &vlen, &stride);
        if (!p)
            goto fail;
        if (!stride)
            stride = es;
        if ((size_t)off % cs != 0) {
            gltf_err(r->err, PB_IO_ERR_VALUE, ap, "byteOffset %lld is not a multiple of %zu", off,
                     cs);
            goto fail;
        }
        if ((size_t)off + stride * (n - 1) + es > vlen) {
            gltf_err(r->err, PB_IO_ERR_VALUE, ap,
                     "%lld elements of %zu bytes (stride %zu) from byteOffset %lld do not fit in "
                     "bufferView %lld (%zu bytes)",
                     count, es, stride, off, bv, vlen);
            goto fail;
        }
        for (size_t i = 0; i < n; i++)
            for (size_t c = 0; c < comps; c++)
                out[i * comps + c] = decode_one(p + (size_t)off + i * stride + c * cs, ct, norm);
    }
    json_t *js = json_object_get(ja, "sparse");
    if (js) {
        char sp[80];
        snprintf(sp, sizeof sp, "accessors[%lld].sparse", a);
        long long sc, ioff, ict, ibv, voff, vbv;
        json_t *ji = json_object_get(js, "indices"), *jv = json_object_get(js, "values");
        if (!json_is_object(js) || !json_is_object(ji) || !json_is_object(jv)) {
            gltf_err(r->err, PB_IO_ERR_SYNTAX, sp, "needs 'count', 'indices' and 'values' objects");
            goto fail;
        }
        char ip[96], vp[96];
        snprintf(ip, sizeof ip, "%s.indices", sp);
        snprintf(vp, sizeof vp, "%s.values", sp);
        if (gltf_get_int(r, js, "count", sp, 1, count, -1, &sc) ||
            gltf_get_int(r, ji, "bufferView", ip, 0, (long long)r->num_views - 1, -1, &ibv) ||
            gltf_get_int(r, ji, "byteOffset", ip, 0, (long long)MAX_FILE, 0, &ioff) ||
            gltf_get_int(r, ji, "componentType", ip, 5121, 5125, -1, &ict) ||
            gltf_get_int(r, jv, "bufferView", vp, 0, (long long)r->num_views - 1, -1, &vbv) ||
            gltf_get_int(r, jv, "byteOffset", vp, 0, (long long)MAX_FILE, 0, &voff))
            goto fail;
        if (ict != 5121 && ict != 5123 && ict != 5125) {
            gltf_err(r->err, PB_IO_ERR_VALUE, ip,
                     "componentType %lld is not UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT",
                     ict);
            goto fail;
        }
        size_t ics = comp_size(ict), ilen, vlen, st;
        const unsigned char *ib = gltf_view_bytes(r, ibv, ip, &ilen, &st);
        if (!ib)
            goto fail;
        const unsigned char *vb = gltf_view_bytes(r, vbv, vp, &vlen, &st);
        if (!vb)
            goto fail;
        if ((size_t)ioff + (size_t)sc * ics > ilen) {
            gltf_err(r->err, PB_IO_ERR_VALUE, ip, "%lld indices do not fit in bufferView %lld", sc,
                     ibv);
            goto fail;
        }
        if ((size_t)voff + (size_t)sc * es > vlen) {
            gltf_err(r->err, PB_IO_ERR_VALUE, vp, "%lld values do not fit in bufferView %lld", sc,
                     vbv);
            goto fail;
        }
        double prev = -1;
        for (size_t k = 0; k < (size_t)sc; k++) {
            double idx = (double)decode_one(ib + (size_t)ioff + k * ics, ict, 0);
            if (ict == 5125) {
                uint32_t u;
                memcpy(&u, ib + (size_t)ioff + k * ics, 4);
                idx = (double)u;
            }
            if (idx <= prev || idx >= (double)count) {
                gltf_err(r->err, PB_IO_ERR_VALUE, ip,
                         "index %zu is %.0f: indices must increase strictly and be below count "
                         "%lld",
                         k, idx, count);
                goto fail;
            }
            prev = idx;
            for (size_t c = 0; c < comps; c++)
                out[(size_t)idx * comps + c] =
                    decode_one(vb + (size_t)voff + k * es + c * cs, ct, norm);
        }
    }
    for (size_t i = 0; i < n * comps; i++)
        if (!isfinite(out[i])) {
            gltf_err(r->err, PB_IO_ERR_VALUE, ap, "element %zu is not finite", i / comps);
            goto fail;
        }
    *count_out = n;
    return out;
fail:
    free(out);
    return NULL;
}
