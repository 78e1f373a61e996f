/* glTF 2.0 reader: .gltf (external .bin files, data: URIs) and .glb, JSON by
 * jansson. Reads the node hierarchy, skins and animations (samplers decoded
 * to float: FLOAT or normalized integers, sparse accessors applied); keeps
 * the JSON tree and the buffers for the writer. Every malformed input is an
 * error naming its JSON path; nothing is returned then. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define PB_GLTF_JSON 1
#include "gltf_internal.h"
#include "bvh_internal.h"
#include "file_read.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u
#define MAX_FILE ((size_t)1 << 31)

/* ---- shared helpers (gltf_internal.h) ----------------------------------- */

void *gltf_keep(gltf_priv *pv, void *p)
{
    if (!p)
        return NULL;
    if (pv->num_allocs == pv->cap_allocs) {
        size_t cap = pv->cap_allocs ? 2 * pv->cap_allocs : 64;
        void **a = realloc(pv->allocs, cap * sizeof *a);
        if (!a) {
            free(p);
            return NULL;
        }
        pv->allocs = a;
        pv->cap_allocs = cap;
    }
    pv->allocs[pv->num_allocs++] = p;
    return p;
}

pb_bvh_code gltf_err(pb_bvh_error *err, pb_bvh_code code, const char *path, const char *fmt, ...)
{
    if (!err)
        return code;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    err->code = code;
    err->line = 0;
    if (path && path[0])
        snprintf(err->message, sizeof err->message, "%s: %s", path, msg);
    else
        snprintf(err->message, sizeof err->message, "%s", msg);
    return code;
}

gltf_priv *gltf_priv_new(pb_gltf *g)
{
    gltf_priv *pv = calloc(1, sizeof *pv);
    g->priv_ = pv;
    return pv;
}

void pb_gltf_free(pb_gltf *g)
{
    if (!g)
        return;
    gltf_priv *pv = g->priv_;
    if (pv) {
        for (size_t i = 0; i < pv->num_allocs; i++)
            free(pv->allocs[i]);
        free(pv->allocs);
        for (size_t b = 0; b < pv->num_buffers; b++)
            free(pv->buf[b]);
        free(pv->buf);
        free(pv->buf_len);
        for (size_t a = 0; a < g->num_animations; a++) {
            free(pv->in_acc ? pv->in_acc[a] : NULL);
            free(pv->out_acc ? pv->out_acc[a] : NULL);
        }
        free(pv->in_acc);
        free(pv->out_acc);
        if (pv->root)
            json_decref(pv->root);
        free(pv);
    }
    for (size_t a = 0; a < g->num_animations; a++) {
        free(g->animations[a].channels);
        free(g->animations[a].samplers);
    }
    free(g->animations);
    for (size_t n = 0; n < g->num_nodes; n++)
        free((void *)g->nodes[n].children);
    free(g->nodes);
    for (size_t s = 0; s < g->num_skins; s++)
        free((void *)g->skins[s].joints);
    free(g->skins);
    memset(g, 0, sizeof *g);
}

void gltf_anim_finish(pb_gltf_animation *a)
{
    size_t off = 0;
    for (size_t c = 0; c < a->num_channels; c++) {
        a->channels[c].offset = off;
        off += a->samplers[a->channels[c].sampler].components;
    }
    a->num_values = off;
    a->t_min = INFINITY;
    a->t_max = -INFINITY;
    for (size_t s = 0; s < a->num_samplers; s++) {
        const pb_gltf_sampler *sm = &a->samplers[s];
        if (sm->count == 0)
            continue;
        if (sm->input[0] < a->t_min)
            a->t_min = sm->input[0];
        if (sm->input[sm->count - 1] > a->t_max)
            a->t_max = sm->input[sm->count - 1];
    }
    if (!(a->t_min <= a->t_max))
        a->t_min = a->t_max = 0.0f;
}

/* ---- the reader ---------------------------------------------------------- */

typedef struct reader {
    pb_gltf *g;
    gltf_priv *pv;
    json_t *root;
    pb_bvh_error *err;
    const char *base_dir;
    const unsigned char *bin; /* GLB BIN chunk */
    size_t bin_len;
    size_t num_accessors, num_views;
    float **acc_cache; /* decoded accessors (as floats), by index */
    size_t *acc_comps, *acc_count;
} reader;

static pb_bvh_code nomem(pb_bvh_error *err)
{
    return gltf_err(err, PB_BVH_ERR_NOMEM, NULL, "out of memory");
}

/* An optional array member (NULL when absent); error when not an array. */
static int opt_array(reader *r, json_t *obj, const char *key, const char *path, json_t **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v)
        return 0;
    if (!json_is_array(v)) {
        gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "'%s' is not an array", key);
        return -1;
    }
    *out = v;
    return 0;
}

/* An integer member in [lo, hi]; absent: *out = def, or an error when def is
 * -1 below lo (required). */
static int get_int(reader *r, json_t *obj, const char *key, const char *path, long long lo,
                   long long hi, long long def, long long *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (def == -1 && def < lo) {
            gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "'%s' is missing", key);
            return -1;
        }
        *out = def;
        return 0;
    }
    if (!json_is_integer(v)) {
        gltf_err(r->err, PB_BVH_ERR_VALUE, path, "'%s' is not an integer", key);
        return -1;
    }
    long long x = json_integer_value(v);
    if (lo < 0 && x < 0) { /* an optional index: absent, never -1 */
        gltf_err(r->err, PB_BVH_ERR_VALUE, path,
                 "'%s' is %lld: glTF leaves an absent index out, it has no -1", key, x);
        return -1;
    }
    if (x < lo || x > hi) {
        gltf_err(r->err, PB_BVH_ERR_VALUE, path, "'%s' is %lld, outside [%lld, %lld]", key, x, lo,
                 hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* n finite numbers from an array member; 1 when present, 0 absent, -1 error. */
static int get_floats(reader *r, json_t *obj, const char *key, const char *path, size_t n,
                      double *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    if (!json_is_array(v) || json_array_size(v) != n) {
        gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "'%s' is not an array of %zu numbers", key, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_number(e) || !isfinite(json_number_value(e))) {
            gltf_err(r->err, PB_BVH_ERR_VALUE, path, "%s[%zu] is not a finite number", key, i);
            return -1;
        }
        out[i] = json_number_value(e);
    }
    return 1;
}

static const char *get_name(json_t *obj)
{
    const char *s = json_string_value(json_object_get(obj, "name"));
    return s ? s : "";
}

/* ---- buffers ---- */

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
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                   : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int load_buffer(reader *r, size_t b, json_t *jb)
{
    char path[64];
    snprintf(path, sizeof path, "buffers[%zu]", b);
    if (!json_is_object(jb))
        return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "not an object"), -1;
    long long len;
    if (get_int(r, jb, "byteLength", path, 1, (long long)MAX_FILE, -1, &len))
        return -1;
    json_t *ju = json_object_get(jb, "uri");
    unsigned char *data = NULL;
    size_t have = 0;
    if (!ju) {
        if (b != 0 || !r->bin)
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path,
                            "no 'uri' and no GLB binary chunk to use"), -1;
        have = r->bin_len;
        if (have < (size_t)len)
            return gltf_err(r->err, PB_BVH_ERR_VALUE, path,
                            "byteLength %lld but the GLB binary chunk holds %zu bytes", len, have),
                   -1;
        data = malloc((size_t)len);
        if (!data)
            return nomem(r->err), -1;
        memcpy(data, r->bin, (size_t)len);
    } else {
        const char *uri = json_string_value(ju);
        if (!uri)
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "'uri' is not a string"), -1;
        if (strncmp(uri, "data:", 5) == 0) {
            const char *comma = strchr(uri, ',');
            if (!comma || comma - uri < 7 || strncmp(comma - 7, ";base64", 7) != 0)
                return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path,
                                "uri: a data: URI that is not base64"), -1;
            size_t dl;
            data = b64_decode(comma + 1, strlen(comma + 1), &dl);
            if (!data && dl == (size_t)-1)
                return nomem(r->err), -1;
            if (!data)
                return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path,
                                "uri: invalid base64 character at position %zu", dl), -1;
            have = dl;
        } else {
            if (strstr(uri, "://") || uri[0] == '/')
                return gltf_err(r->err, PB_BVH_ERR_VALUE, path,
                                "uri '%s': only relative file names and data: URIs are read", uri),
                       -1;
            /* percent-decoded; the file must lie inside the asset's
             * directory and be regular, and no more than byteLength bytes
             * of it are read (file_read.c) */
            size_t ul = strlen(uri);
            char *file = malloc(ul + 1);
            if (!file)
                return nomem(r->err), -1;
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
                    return nomem(r->err), -1;
                return gltf_err(r->err, e ? PB_BVH_ERR_IO : PB_BVH_ERR_VALUE, path,
                                "uri '%s': %s", uri, why), -1;
            }
        }
        if (have < (size_t)len) {
            free(data);
            return gltf_err(r->err, PB_BVH_ERR_VALUE, path,
                            "byteLength %lld but its data holds %zu bytes", len, have), -1;
        }
    }
    r->pv->buf[b] = data;
    r->pv->buf_len[b] = (size_t)len;
    return 0;
}

/* ---- accessors ---- */

static size_t comp_size(long long ct)
{
    switch (ct) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
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

static size_t type_comps(const char *t)
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
static const unsigned char *view_bytes(reader *r, long long v, const char *path, size_t *len,
                                       size_t *stride)
{
    char vp[64];
    snprintf(vp, sizeof vp, "bufferViews[%lld]", v);
    json_t *views = json_object_get(r->root, "bufferViews");
    json_t *jv = json_array_get(views, (size_t)v);
    if (!json_is_object(jv)) {
        gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "bufferView %lld does not exist", v);
        return NULL;
    }
    long long buf, off, bl, st;
    if (get_int(r, jv, "buffer", vp, 0, (long long)r->pv->num_buffers - 1, -1, &buf) ||
        get_int(r, jv, "byteOffset", vp, 0, (long long)MAX_FILE, 0, &off) ||
        get_int(r, jv, "byteLength", vp, 1, (long long)MAX_FILE, -1, &bl) ||
        get_int(r, jv, "byteStride", vp, 4, 252, 0, &st))
        return NULL;
    if ((size_t)(off + bl) > r->pv->buf_len[buf]) {
        gltf_err(r->err, PB_BVH_ERR_VALUE, vp,
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
static float *decode_accessor(reader *r, long long a, const char *path, unsigned allowed,
                              size_t want_comps, size_t *count_out)
{
    if (a < 0 || (size_t)a >= r->num_accessors) {
        gltf_err(r->err, PB_BVH_ERR_VALUE, path, "accessor %lld does not exist", a);
        return NULL;
    }
    json_t *ja = json_array_get(json_object_get(r->root, "accessors"), (size_t)a);
    char ap[64];
    snprintf(ap, sizeof ap, "accessors[%lld]", a);
    if (!json_is_object(ja)) {
        gltf_err(r->err, PB_BVH_ERR_SYNTAX, ap, "not an object");
        return NULL;
    }
    long long ct, count, off, bv;
    if (get_int(r, ja, "componentType", ap, 5120, 5126, -1, &ct) ||
        get_int(r, ja, "count", ap, 1, (long long)1 << 31, -1, &count) ||
        get_int(r, ja, "byteOffset", ap, 0, (long long)MAX_FILE, 0, &off) ||
        get_int(r, ja, "bufferView", ap, -1, (long long)r->num_views - 1, -1, &bv))
        return NULL;
    size_t cs = comp_size(ct);
    if (!cs) {
        gltf_err(r->err, PB_BVH_ERR_VALUE, ap, "componentType %lld is not a glTF component type",
                 ct);
        return NULL;
    }
    json_t *jn = json_object_get(ja, "normalized");
    if (jn && !json_is_boolean(jn)) {
        gltf_err(r->err, PB_BVH_ERR_VALUE, ap, "'normalized' is not a boolean");
        return NULL;
    }
    int norm = json_is_true(jn);
    const char *type = json_string_value(json_object_get(ja, "type"));
    size_t comps = type_comps(type);
    if (!comps) {
        gltf_err(r->err, PB_BVH_ERR_VALUE, ap, "'type' is missing or not a glTF accessor type");
        return NULL;
    }
    if (comps != want_comps) {
        gltf_err(r->err, PB_BVH_ERR_VALUE, path, "accessor %lld is %s, expected %s", a, type,
                 want_comps == 1 ? "SCALAR" : want_comps == 3 ? "VEC3" : "VEC4");
        return NULL;
    }
    int ok_type = (allowed >> (ct - 5120)) & 1u;
    if (ok_type && ct != 5126 && !norm)
        ok_type = 0;
    if (!ok_type) {
        if (allowed == 1u << (5126 - 5120))
            gltf_err(r->err, PB_BVH_ERR_VALUE, path, "accessor %lld is not float (%s%s)", a,
                     norm ? "normalized " : "", comp_name(ct));
        else
            gltf_err(r->err, PB_BVH_ERR_VALUE, path,
                     "accessor %lld is %s%s, expected float or normalized byte/short", a,
                     norm ? "normalized " : "", comp_name(ct));
        return NULL;
    }
    size_t n = (size_t)count, es = cs * comps;
    if (n * comps > ((size_t)1 << 28)) { /* checked before the memory is taken */
        gltf_err(r->err, PB_BVH_ERR_LIMIT, ap, "%lld %s elements: more than 2^28 values", count,
                 type);
        return NULL;
    }
    if (bv >= 0) { /* the bounds, before any allocation */
        size_t vlen, stride;
        if (!view_bytes(r, bv, ap, &vlen, &stride))
            return NULL;
        if (stride && stride < es) {
            gltf_err(r->err, PB_BVH_ERR_VALUE, ap,
                     "bufferView %lld: byteStride %zu is smaller than an element (%zu bytes)", bv,
                     stride, es);
            return NULL;
        }
        if ((size_t)off + (stride ? stride : es) * (n - 1) + es > vlen) {
            gltf_err(r->err, PB_BVH_ERR_VALUE, ap,
                     "%lld elements of %zu bytes (stride %zu) from byteOffset %lld do not fit in "
                     "bufferView %lld (%zu bytes)",
                     count, es, stride ? stride : es, off, bv, vlen);
            return NULL;
        }
    }
    float *out = calloc(n * comps, sizeof *out);
    if (!out) {
        nomem(r->err);
        return NULL;
    }
    if (bv >= 0) {
        size_t vlen, stride;
        const unsigned char *p = view_bytes(r, bv, ap, &vlen, &stride);
        if (!p)
            goto fail;
        if (!stride)
            stride = es;
        if ((size_t)off % cs != 0) {
            gltf_err(r->err, PB_BVH_ERR_VALUE, ap, "byteOffset %lld is not a multiple of %zu", off,
                     cs);
            goto fail;
        }
        if ((size_t)off + stride * (n - 1) + es > vlen) {
            gltf_err(r->err, PB_BVH_ERR_VALUE, ap,
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
            gltf_err(r->err, PB_BVH_ERR_SYNTAX, sp, "needs 'count', 'indices' and 'values' objects");
            goto fail;
        }
        char ip[96], vp[96];
        snprintf(ip, sizeof ip, "%s.indices", sp);
        snprintf(vp, sizeof vp, "%s.values", sp);
        if (get_int(r, js, "count", sp, 1, count, -1, &sc) ||
            get_int(r, ji, "bufferView", ip, 0, (long long)r->num_views - 1, -1, &ibv) ||
            get_int(r, ji, "byteOffset", ip, 0, (long long)MAX_FILE, 0, &ioff) ||
            get_int(r, ji, "componentType", ip, 5121, 5125, -1, &ict) ||
            get_int(r, jv, "bufferView", vp, 0, (long long)r->num_views - 1, -1, &vbv) ||
            get_int(r, jv, "byteOffset", vp, 0, (long long)MAX_FILE, 0, &voff))
            goto fail;
        if (ict != 5121 && ict != 5123 && ict != 5125) {
            gltf_err(r->err, PB_BVH_ERR_VALUE, ip,
                     "componentType %lld is not UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT", ict);
            goto fail;
        }
        size_t ics = comp_size(ict), ilen, vlen, st;
        const unsigned char *ib = view_bytes(r, ibv, ip, &ilen, &st);
        if (!ib)
            goto fail;
        const unsigned char *vb = view_bytes(r, vbv, vp, &vlen, &st);
        if (!vb)
            goto fail;
        if ((size_t)ioff + (size_t)sc * ics > ilen) {
            gltf_err(r->err, PB_BVH_ERR_VALUE, ip, "%lld indices do not fit in bufferView %lld",
                     sc, ibv);
            goto fail;
        }
        if ((size_t)voff + (size_t)sc * es > vlen) {
            gltf_err(r->err, PB_BVH_ERR_VALUE, vp, "%lld values do not fit in bufferView %lld",
                     sc, vbv);
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
                gltf_err(r->err, PB_BVH_ERR_VALUE, ip,
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
            gltf_err(r->err, PB_BVH_ERR_VALUE, ap, "element %zu is not finite", i / comps);
            goto fail;
        }
    *count_out = n;
    return out;
fail:
    free(out);
    return NULL;
}

/* ---- nodes, skins ---- */

static void mat_to_trs(const double m[16], pb_gltf_node *nd)
{
    /* column-major: columns m[0..2], m[4..6], m[8..10]; translation m[12..14] */
    double c[3][3], s[3];
    for (int k = 0; k < 3; k++) {
        s[k] = sqrt(m[4 * k] * m[4 * k] + m[4 * k + 1] * m[4 * k + 1] + m[4 * k + 2] * m[4 * k + 2]);
        for (int i = 0; i < 3; i++)
            c[k][i] = s[k] > 0 ? m[4 * k + i] / s[k] : (i == k);
        nd->translation[k] = (float)m[12 + k];
    }
    double det = c[0][0] * (c[1][1] * c[2][2] - c[2][1] * c[1][2]) -
                 c[1][0] * (c[0][1] * c[2][2] - c[2][1] * c[0][2]) +
                 c[2][0] * (c[0][1] * c[1][2] - c[1][1] * c[0][2]);
    if (det < 0) {
        s[0] = -s[0];
        for (int i = 0; i < 3; i++)
            c[0][i] = -c[0][i];
    }
    for (int k = 0; k < 3; k++)
        nd->scale[k] = (float)s[k];
    /* R(i, j) = c[j][i] */
    double r00 = c[0][0], r11 = c[1][1], r22 = c[2][2], tr = r00 + r11 + r22, q[4];
    if (tr > 0) {
        double t = sqrt(tr + 1.0) * 2;
        q[0] = 0.25 * t;
        q[1] = (c[1][2] - c[2][1]) / t;
        q[2] = (c[2][0] - c[0][2]) / t;
        q[3] = (c[0][1] - c[1][0]) / t;
    } else if (r00 > r11 && r00 > r22) {
        double t = sqrt(1.0 + r00 - r11 - r22) * 2;
        q[0] = (c[1][2] - c[2][1]) / t;
        q[1] = 0.25 * t;
        q[2] = (c[1][0] + c[0][1]) / t;
        q[3] = (c[2][0] + c[0][2]) / t;
    } else if (r11 > r22) {
        double t = sqrt(1.0 + r11 - r00 - r22) * 2;
        q[0] = (c[2][0] - c[0][2]) / t;
        q[1] = (c[1][0] + c[0][1]) / t;
        q[2] = 0.25 * t;
        q[3] = (c[2][1] + c[1][2]) / t;
    } else {
        double t = sqrt(1.0 + r22 - r00 - r11) * 2;
        q[0] = (c[0][1] - c[1][0]) / t;
        q[1] = (c[2][0] + c[0][2]) / t;
        q[2] = (c[2][1] + c[1][2]) / t;
        q[3] = 0.25 * t;
    }
    for (int k = 0; k < 4; k++)
        nd->rotation[k] = (float)q[k];
}

static int read_nodes(reader *r)
{
    json_t *jn;
    if (opt_array(r, r->root, "nodes", "nodes", &jn))
        return -1;
    pb_gltf *g = r->g;
    size_t n = jn ? json_array_size(jn) : 0;
    g->nodes = calloc(n ? n : 1, sizeof *g->nodes);
    if (!g->nodes)
        return nomem(r->err), -1;
    g->num_nodes = n;
    for (size_t i = 0; i < n; i++)
        g->nodes[i].parent = -1;
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "nodes[%zu]", i);
        json_t *o = json_array_get(jn, i);
        pb_gltf_node *nd = &g->nodes[i];
        if (!json_is_object(o))
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "not an object"), -1;
        nd->name = get_name(o);
        long long mesh, skin;
        if (get_int(r, o, "mesh", path, -1, INT32_MAX, -1, &mesh) ||
            get_int(r, o, "skin", path, -1, INT32_MAX, -1, &skin))
            return -1;
        nd->mesh = (int32_t)mesh;
        nd->skin = (int32_t)skin;
        double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1}, m[16];
        int ht = get_floats(r, o, "translation", path, 3, t);
        int hr = get_floats(r, o, "rotation", path, 4, q);
        int hs = get_floats(r, o, "scale", path, 3, s);
        int hm = get_floats(r, o, "matrix", path, 16, m);
        if (ht < 0 || hr < 0 || hs < 0 || hm < 0)
            return -1;
        if (hm && (ht || hr || hs))
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path,
                            "has both 'matrix' and translation/rotation/scale"), -1;
        if (hm)
            mat_to_trs(m, nd);
        else {
            double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(fabs(qn - 1.0) < 1e-3))
                return gltf_err(r->err, PB_BVH_ERR_VALUE, path,
                                "'rotation' is not a unit quaternion (norm %g)", qn), -1;
            for (int k = 0; k < 3; k++) {
                nd->translation[k] = (float)t[k];
                nd->scale[k] = (float)s[k];
            }
            nd->rotation[0] = (float)(q[3] / qn);
            for (int k = 0; k < 3; k++)
                nd->rotation[k + 1] = (float)(q[k] / qn);
        }
        json_t *jc;
        snprintf(path, sizeof path, "nodes[%zu].children", i);
        if (opt_array(r, o, "children", path, &jc))
            return -1;
        size_t nc = jc ? json_array_size(jc) : 0;
        int32_t *ch = calloc(nc ? nc : 1, sizeof *ch);
        if (!ch)
            return nomem(r->err), -1;
        nd->children = ch;
        nd->num_children = nc;
        for (size_t k = 0; k < nc; k++) {
            json_t *e = json_array_get(jc, k);
            if (!json_is_integer(e) || json_integer_value(e) < 0 ||
                (size_t)json_integer_value(e) >= n)
                return gltf_err(r->err, PB_BVH_ERR_VALUE, path, "[%zu] is not a node index", k),
                       -1;
            ch[k] = (int32_t)json_integer_value(e);
        }
    }
    /* parents, then no cycles */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < g->nodes[i].num_children; k++) {
            int32_t c = g->nodes[i].children[k];
            if (g->nodes[c].parent >= 0 || (size_t)c == i)
                return gltf_err(r->err, PB_BVH_ERR_VALUE, NULL,
                                "nodes[%zu].children[%zu]: node %d is already a child of node %d",
                                i, k, c, (size_t)c == i ? (int)i : g->nodes[c].parent),
                       -1;
            g->nodes[c].parent = (int32_t)i;
        }
    for (size_t i = 0; i < n; i++) {
        int32_t p = g->nodes[i].parent;
        for (size_t steps = 0; p >= 0; steps++, p = g->nodes[p].parent)
            if (steps > n || (size_t)p == i)
                return gltf_err(r->err, PB_BVH_ERR_VALUE, NULL,
                                "nodes[%zu]: the node hierarchy has a cycle through it", i),
                       -1;
    }
    for (size_t i = 0; i < n; i++)
        if (g->nodes[i].skin >= 0) {
            json_t *js = json_object_get(r->root, "skins");
            if ((size_t)g->nodes[i].skin >= json_array_size(js))
                return gltf_err(r->err, PB_BVH_ERR_VALUE, NULL, "nodes[%zu].skin: skin %d does not exist",
                                i, g->nodes[i].skin), -1;
        }
    return 0;
}

static int read_skins(reader *r)
{
    json_t *js;
    if (opt_array(r, r->root, "skins", "skins", &js))
        return -1;
    pb_gltf *g = r->g;
    size_t n = js ? json_array_size(js) : 0;
    g->skins = calloc(n ? n : 1, sizeof *g->skins);
    if (!g->skins)
        return nomem(r->err), -1;
    g->num_skins = n;
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "skins[%zu].joints", i);
        json_t *o = json_array_get(js, i), *jj = json_object_get(o, "joints");
        if (!json_is_object(o) || !json_is_array(jj) || json_array_size(jj) == 0)
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "missing or not a non-empty array"), -1;
        size_t nj = json_array_size(jj);
        int32_t *j = calloc(nj, sizeof *j);
        if (!j)
            return nomem(r->err), -1;
        g->skins[i].joints = j;
        g->skins[i].num_joints = nj;
        g->skins[i].name = get_name(o);
        for (size_t k = 0; k < nj; k++) {
            json_t *e = json_array_get(jj, k);
            if (!json_is_integer(e) || json_integer_value(e) < 0 ||
                (size_t)json_integer_value(e) >= g->num_nodes)
                return gltf_err(r->err, PB_BVH_ERR_VALUE, path, "[%zu] is not a node index", k), -1;
            j[k] = (int32_t)json_integer_value(e);
        }
    }
    return 0;
}

/* ---- animations ---- */

static const char *const path_names[] = {"translation", "rotation", "scale", "weights"};

/* A sampler's input (shared between samplers of one accessor). */
static float *sampler_input(reader *r, long long acc, const char *path, size_t *count)
{
    if (acc >= 0 && (size_t)acc < r->num_accessors && r->acc_cache[acc]) {
        *count = r->acc_count[acc];
        return r->acc_cache[acc];
    }
    float *in = decode_accessor(r, acc, path, 1u << (5126 - 5120), 1, count);
    if (!in)
        return NULL;
    if (*count > 0 && !(in[0] >= 0.0f)) {
        gltf_err(r->err, PB_BVH_ERR_VALUE, path, "accessor %lld: key time %.9g is negative", acc,
                 (double)in[0]);
        free(in);
        return NULL;
    }
    for (size_t k = 1; k < *count; k++)
        if (!(in[k] > in[k - 1])) {
            gltf_err(r->err, PB_BVH_ERR_VALUE, path,
                     "accessor %lld: key times are not strictly increasing (key %zu: %.9g after "
                     "%.9g)",
                     acc, k, (double)in[k], (double)in[k - 1]);
            free(in);
            return NULL;
        }
    if (!gltf_keep(r->pv, in)) {
        nomem(r->err);
        return NULL;
    }
    r->acc_cache[acc] = in;
    r->acc_count[acc] = *count;
    return in;
}

static int read_animation(reader *r, size_t ai, json_t *o)
{
    char path[96];
    snprintf(path, sizeof path, "animations[%zu]", ai);
    if (!json_is_object(o))
        return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "not an object"), -1;
    pb_gltf_animation *a = &r->g->animations[ai];
    a->name = get_name(o);
    json_t *jc = json_object_get(o, "channels"), *js = json_object_get(o, "samplers");
    if (!json_is_array(jc) || json_array_size(jc) == 0)
        return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "'channels' is missing or empty"), -1;
    if (!json_is_array(js) || json_array_size(js) == 0)
        return gltf_err(r->err, PB_BVH_ERR_SYNTAX, path, "'samplers' is missing or empty"), -1;
    size_t ns = json_array_size(js), nc = json_array_size(jc);
    a->samplers = calloc(ns, sizeof *a->samplers);
    a->channels = calloc(nc, sizeof *a->channels);
    r->pv->in_acc[ai] = calloc(ns, sizeof(int32_t));
    r->pv->out_acc[ai] = calloc(ns, sizeof(int32_t));
    if (!a->samplers || !a->channels || !r->pv->in_acc[ai] || !r->pv->out_acc[ai])
        return nomem(r->err), -1;
    a->num_samplers = ns;
    /* the path each sampler serves (from its first channel): -1 none yet */
    int *spath = malloc(ns * sizeof *spath);
    if (!spath)
        return nomem(r->err), -1;
    for (size_t s = 0; s < ns; s++)
        spath[s] = -1;
    size_t used = 0;
    for (size_t c = 0; c < nc; c++) {
        char cp[128];
        snprintf(cp, sizeof cp, "animations[%zu].channels[%zu]", ai, c);
        json_t *ch = json_array_get(jc, c), *tg = json_object_get(ch, "target");
        long long smp, node;
        if (!json_is_object(ch) || !json_is_object(tg)) {
            free(spath);
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, cp, "not an object with a 'target'"), -1;
        }
        char tp[160];
        snprintf(tp, sizeof tp, "%s.target", cp);
        if (get_int(r, ch, "sampler", cp, 0, (long long)ns - 1, -1, &smp) ||
            get_int(r, tg, "node", tp, -1, (long long)r->g->num_nodes - 1, -1, &node)) {
            free(spath);
            return -1;
        }
        const char *ps = json_string_value(json_object_get(tg, "path"));
        int p = -1;
        for (int k = 0; k < 4 && ps; k++)
            if (strcmp(ps, path_names[k]) == 0)
                p = k;
        if (p < 0) {
            free(spath);
            return gltf_err(r->err, PB_BVH_ERR_VALUE, tp,
                            "'path' %s%s%s is not translation, rotation, scale or weights",
                            ps ? "'" : "", ps ? ps : "(missing)", ps ? "'" : ""), -1;
        }
        if (node < 0) /* glTF: a channel without a node is ignored */
            continue;
        if (spath[smp] >= 0 && spath[smp] != p && (spath[smp] == 1 || p == 1 ||
                                                  spath[smp] == 3 || p == 3)) {
            int other = spath[smp];
            free(spath);
            return gltf_err(r->err, PB_BVH_ERR_VALUE, cp, "sampler %lld also animates %s, not %s",
                            smp, path_names[other], path_names[p]), -1;
        }
        spath[smp] = p;
        a->channels[used].node = (int32_t)node;
        a->channels[used].path = (pb_gltf_path)p;
        a->channels[used].sampler = (uint32_t)smp;
        used++;
    }
    a->num_channels = used;
    for (size_t s = 0; s < ns; s++) {
        char sp[128], ip[160], op[160];
        snprintf(sp, sizeof sp, "animations[%zu].samplers[%zu]", ai, s);
        snprintf(ip, sizeof ip, "%s.input", sp);
        snprintf(op, sizeof op, "%s.output", sp);
        json_t *so = json_array_get(js, s);
        pb_gltf_sampler *sm = &a->samplers[s];
        long long in, out;
        if (!json_is_object(so)) {
            free(spath);
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, sp, "not an object"), -1;
        }
        if (get_int(r, so, "input", sp, 0, INT32_MAX, -1, &in) ||
            get_int(r, so, "output", sp, 0, INT32_MAX, -1, &out)) {
            free(spath);
            return -1;
        }
        json_t *ji = json_object_get(so, "interpolation");
        const char *is = ji ? json_string_value(ji) : "LINEAR";
        if (is && strcmp(is, "LINEAR") == 0)
            sm->interpolation = PB_GLTF_LINEAR;
        else if (is && strcmp(is, "STEP") == 0)
            sm->interpolation = PB_GLTF_STEP;
        else if (is && strcmp(is, "CUBICSPLINE") == 0)
            sm->interpolation = PB_GLTF_CUBICSPLINE;
        else {
            free(spath);
            return gltf_err(r->err, PB_BVH_ERR_VALUE, sp,
                            "'interpolation' is not LINEAR, STEP or CUBICSPLINE"), -1;
        }
        sm->input = sampler_input(r, in, ip, &sm->count);
        if (!sm->input) {
            free(spath);
            return -1;
        }
        r->pv->in_acc[ai][s] = (int32_t)in;
        r->pv->out_acc[ai][s] = (int32_t)out;
        /* output: by the path it serves; an unused sampler by its type */
        int p = spath[s];
        if (p < 0) {
            json_t *ja = json_array_get(json_object_get(r->root, "accessors"), (size_t)out);
            size_t tc = type_comps(json_string_value(json_object_get(ja, "type")));
            p = tc == 4 ? 1 : tc == 1 ? 3 : 0;
        }
        size_t want = p == 1 ? 4 : p == 3 ? 1 : 3;
        unsigned allowed = 1u << (5126 - 5120);
        if (p == 1 || p == 3)
            allowed |= 0xFu; /* normalized (u)byte, (u)short */
        size_t oc;
        float *ov = decode_accessor(r, out, op, allowed, want, &oc);
        if (!ov || !gltf_keep(r->pv, ov)) {
            free(spath);
            return ov ? nomem(r->err), -1 : -1;
        }
        size_t per = sm->count * gltf_stride(sm);
        if (p == 3) {
            if (oc % per != 0) {
                free(spath);
                return gltf_err(r->err, PB_BVH_ERR_VALUE, op,
                                "accessor %lld has %zu values, not a multiple of %zu keys%s", out,
                                oc, sm->count,
                                gltf_stride(sm) == 3 ? " x 3 (CUBICSPLINE)" : ""), -1;
            }
            sm->components = oc / per;
        } else {
            if (oc != per) {
                free(spath);
                return gltf_err(r->err, PB_BVH_ERR_VALUE, op,
                                "accessor %lld has %zu elements for %zu keys (%zu expected%s)",
                                out, oc, sm->count, per,
                                gltf_stride(sm) == 3 ? ": CUBICSPLINE stores 3 per key" : ""), -1;
            }
            sm->components = want;
        }
        if (p == 1) /* quantized rotation keys: renormalised (not the tangents) */
            for (size_t k = 0; k < sm->count; k++) {
                float *q = ov + (k * gltf_stride(sm) + (gltf_stride(sm) == 3)) * 4;
                double n2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                            (double)q[3] * q[3];
                /* a key of (near) zero length or not finite has no rotation:
                 * refused like a node's, not written back as (0,0,0,0) */
                if (spath[s] == 1 && !(n2 > 1e-12 && n2 < 1e12)) {
                    free(spath);
                    return gltf_err(r->err, PB_BVH_ERR_VALUE, op,
                                    "accessor %lld, key %zu: a rotation of length %g, not a "
                                    "unit quaternion", out, k, sqrt(n2)), -1;
                }
                if (fabs(n2 - 1.0) > 2e-6 && n2 > 0)
                    for (int j = 0; j < 4; j++)
                        q[j] = (float)(q[j] / sqrt(n2));
            }
        sm->output = ov;
    }
    free(spath);
    gltf_anim_finish(a);
    return 0;
}

static int read_animations(reader *r)
{
    json_t *ja;
    if (opt_array(r, r->root, "animations", "animations", &ja))
        return -1;
    size_t n = ja ? json_array_size(ja) : 0;
    pb_gltf *g = r->g;
    g->animations = calloc(n ? n : 1, sizeof *g->animations);
    r->pv->in_acc = calloc(n ? n : 1, sizeof *r->pv->in_acc);
    r->pv->out_acc = calloc(n ? n : 1, sizeof *r->pv->out_acc);
    if (!g->animations || !r->pv->in_acc || !r->pv->out_acc)
        return nomem(r->err), -1;
    g->num_animations = n;
    for (size_t i = 0; i < n; i++)
        if (read_animation(r, i, json_array_get(ja, i)))
            return -1;
    return 0;
}

/* ---- entry points ---- */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Where a .gltf's JSON starts: after a UTF-8 byte order mark and blanks. */
static size_t json_start(const unsigned char *data, size_t size)
{
    size_t i = 0;
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
        i = 3;
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    return i;
}

/* NULL when a JSON object starts at i, else why the data is not glTF. */
static const char *not_json(const unsigned char *data, size_t size, size_t i)
{
    if (i < size && data[i] == '{')
        return NULL;
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
    size_t i = json_start(head, n);
    return i == n && n > 0 ? NULL : not_json(head, n, i);
}

static int parse(reader *r, const unsigned char *data, size_t size)
{
    const char *json = (const char *)data;
    size_t jlen = size;
    if (size >= 4 && le32(data) == GLB_MAGIC) {
        if (size < 20)
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, NULL, "GLB: truncated header (%zu bytes)",
                            size), -1;
        uint32_t ver = le32(data + 4), len = le32(data + 8);
        if (ver != 2)
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, NULL, "GLB: version %u, only 2 is read",
                            ver), -1;
        if (len > size || len < 20)
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, NULL,
                            "GLB: header length %u but the file has %zu bytes", len, size), -1;
        uint32_t cl = le32(data + 12);
        if (le32(data + 16) != GLB_JSON || cl > len - 20)
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, NULL,
                            "GLB: the first chunk is not a JSON chunk within the file"), -1;
        json = (const char *)data + 20;
        jlen = cl;
        size_t pos = 20 + (size_t)cl;
        if (pos + 8 <= len) {
            uint32_t bl = le32(data + pos);
            if (le32(data + pos + 4) == GLB_BIN) {
                if (bl > len - pos - 8)
                    return gltf_err(r->err, PB_BVH_ERR_SYNTAX, NULL,
                                    "GLB: the BIN chunk (%u bytes) runs past the end", bl), -1;
                r->bin = data + pos + 8;
                r->bin_len = bl;
            }
        }
    } else {
        size_t i = json_start(data, size);
        const char *why = not_json(data, size, i);
        if (why)
            return gltf_err(r->err, PB_BVH_ERR_SYNTAX, NULL, "%s", why), -1;
        json = (const char *)data + i;
        jlen = size - i;
    }
    json_error_t je;
    r->root = json_loadb(json, jlen, JSON_REJECT_DUPLICATES, &je);
    if (!r->root) {
        if (r->err) {
            r->err->code = PB_BVH_ERR_SYNTAX;
            r->err->line = je.line > 0 ? je.line : 0;
            snprintf(r->err->message, sizeof r->err->message, "line %d, column %d: JSON: %s",
                     je.line, je.column, je.text);
        }
        return -1;
    }
    r->pv->root = r->root;
    if (!json_is_object(r->root))
        return gltf_err(r->err, PB_BVH_ERR_SYNTAX, NULL, "the JSON document is not an object"), -1;
    const char *ver = json_string_value(json_object_get(json_object_get(r->root, "asset"),
                                                        "version"));
    if (!ver)
        return gltf_err(r->err, PB_BVH_ERR_SYNTAX, "asset.version", "missing (not glTF?)"), -1;
    if (strncmp(ver, "2.", 2) != 0)
        return gltf_err(r->err, PB_BVH_ERR_VALUE, "asset.version", "'%s': only glTF 2.x is read",
                        ver), -1;
    json_t *jb, *jv, *jacc;
    if (opt_array(r, r->root, "buffers", "buffers", &jb) ||
        opt_array(r, r->root, "bufferViews", "bufferViews", &jv) ||
        opt_array(r, r->root, "accessors", "accessors", &jacc))
        return -1;
    size_t nb = jb ? json_array_size(jb) : 0;
    r->num_views = jv ? json_array_size(jv) : 0;
    r->num_accessors = jacc ? json_array_size(jacc) : 0;
    r->pv->buf = calloc(nb ? nb : 1, sizeof *r->pv->buf);
    r->pv->buf_len = calloc(nb ? nb : 1, sizeof *r->pv->buf_len);
    r->acc_cache = calloc(r->num_accessors ? r->num_accessors : 1, sizeof *r->acc_cache);
    r->acc_count = calloc(r->num_accessors ? r->num_accessors : 1, sizeof *r->acc_count);
    if (!r->pv->buf || !r->pv->buf_len || !r->acc_cache || !r->acc_count)
        return nomem(r->err), -1;
    r->pv->num_buffers = nb;
    for (size_t b = 0; b < nb; b++)
        if (load_buffer(r, b, json_array_get(jb, b)))
            return -1;
    /* every bufferView, so that the writer can copy any of them */
    for (size_t v = 0; v < r->num_views; v++) {
        size_t len, st;
        char vp[64];
        snprintf(vp, sizeof vp, "bufferViews[%zu]", v);
        if (!view_bytes(r, (long long)v, vp, &len, &st))
            return -1;
    }
    if (read_nodes(r) || read_skins(r) || read_animations(r))
        return -1;
    return 0;
}

pb_bvh_code pb_gltf_read_memory(const void *data, size_t size, const char *base_dir,
                                pb_gltf *out, pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!out || (!data && size))
        return gltf_err(err, PB_BVH_ERR_ARG, NULL, "data or out is NULL");
    pb_gltf g = {0};
    reader r = {0};
    r.g = &g;
    r.err = err;
    r.base_dir = base_dir && base_dir[0] ? base_dir : ".";
    r.pv = gltf_priv_new(&g);
    int rc = r.pv ? parse(&r, data, size) : (nomem(err), -1);
    free(r.acc_cache);
    free(r.acc_count);
    if (rc) {
        pb_bvh_code code = err ? err->code : PB_BVH_ERR_SYNTAX;
        pb_gltf_free(&g);
        memset(out, 0, sizeof *out);
        return code ? code : PB_BVH_ERR_SYNTAX;
    }
    *out = g;
    return PB_BVH_OK;
}

pb_bvh_code pb_gltf_read_file(const char *path, pb_gltf *out, pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!path || !out) {
        if (out)
            memset(out, 0, sizeof *out);
        return gltf_err(err, PB_BVH_ERR_ARG, NULL, "path or out is NULL");
    }
    size_t len;
    int big;
    const char *refused;
    unsigned char *data = io_read_whole(path, MAX_FILE, head_is_gltf, &len, &big, &refused);
    if (!data) {
        memset(out, 0, sizeof *out);
        if (refused)
            return bvh_path_err(err, PB_BVH_ERR_SYNTAX, path, "%s", refused);
        if (errno == ENOMEM)
            return nomem(err);
        return bvh_path_err(err, big ? PB_BVH_ERR_LIMIT : PB_BVH_ERR_IO, path, "%s",
                            big ? "larger than 2 GiB" : strerror(errno));
    }
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    if (slash) {
        dir = strndup(path, (size_t)(slash - path) + 1);
        if (!dir) {
            free(data);
            memset(out, 0, sizeof *out);
            return nomem(err);
        }
    }
    pb_bvh_code rc = pb_gltf_read_memory(data, len, dir ? dir : ".", out, err);
    free(dir);
    free(data);
    return rc;
}
