/* glTF writer: the document's JSON tree with every animation sampler's input
 * and output replaced by the pb_gltf's data, and one compact buffer holding
 * every bufferView still referenced plus the new sampler data. .glb or .gltf
 * (buffer as a base64 data: URI). Files go through file_write.c's atomic
 * output (pb_io_write_file_cb). */
#define PB_GLTF_JSON 1
#include "gltf_internal.h"
#include "io_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct blob {
    const float *data;
    size_t floats;
    json_t *accessor; /* gets "bufferView" once views are numbered */
} blob;

typedef struct wstate {
    json_t *root;
    blob *blobs;
    size_t num_blobs, cap_blobs;
    pb_io_error *err;
} wstate;

static void mark_acc(json_t *v, unsigned char *used, size_t n)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0 && (size_t)json_integer_value(v) < n)
        used[json_integer_value(v)] = 1;
}

static void mark_map(json_t *obj, unsigned char *used, size_t n)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) mark_acc(v, used, n);
}

/* Accessors used outside animations: mesh attributes, indices and morph
 * targets, skins' inverse bind matrices, EXT_mesh_gpu_instancing. */
static void other_accessor_users(json_t *root, unsigned char *used, size_t n)
{
    size_t i, j, k;
    json_t *m, *p, *t;
    json_array_foreach(json_object_get(root, "meshes"), i, m)
        json_array_foreach(json_object_get(m, "primitives"), j, p)
    {
        mark_map(json_object_get(p, "attributes"), used, n);
        mark_acc(json_object_get(p, "indices"), used, n);
        json_array_foreach(json_object_get(p, "targets"), k, t) mark_map(t, used, n);
    }
    json_array_foreach(json_object_get(root, "skins"), i, m)
        mark_acc(json_object_get(m, "inverseBindMatrices"), used, n);
    json_array_foreach(json_object_get(root, "nodes"), i, m)
        mark_map(json_object_get(
                     json_object_get(json_object_get(m, "extensions"), "EXT_mesh_gpu_instancing"),
                     "attributes"),
                 used, n);
}

/* Every member named "bufferView" anywhere: mark (map == NULL) or renumber. */
static void walk_views(json_t *v, unsigned char *used, const long *map, size_t n)
{
    const char *k;
    json_t *e;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach(v, k, e)
        {
            if (strcmp(k, "bufferView") == 0 && json_is_integer(e)) {
                json_int_t x = json_integer_value(e);
                if (x >= 0 && (size_t)x < n) {
                    if (map)
                        json_integer_set(e, map[x]);
                    else
                        used[x] = 1;
                }
            } else
                walk_views(e, used, map, n);
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e) walk_views(e, used, map, n);
    }
}

static int add_blob(wstate *w, const float *data, size_t floats, json_t *acc)
{
    if (w->num_blobs == w->cap_blobs) {
        size_t cap = w->cap_blobs ? 2 * w->cap_blobs : 16;
        blob *b = realloc(w->blobs, cap * sizeof *b);
        if (!b)
            return -1;
        w->blobs = b;
        w->cap_blobs = cap;
    }
    w->blobs[w->num_blobs++] = (blob){data, floats, acc};
    return 0;
}

/* Makes `acc` (an object, old or new) a tightly packed FLOAT accessor of
 * count elements of `type`, keeping its name and extras. */
static int set_accessor(wstate *w, json_t *acc, const float *data, size_t count, size_t comps,
                        int minmax)
{
    static const char *types[] = {"", "SCALAR", "", "VEC3", "VEC4"};
    json_t *name = json_incref(json_object_get(acc, "name"));
    json_t *extras = json_incref(json_object_get(acc, "extras"));
    json_object_clear(acc);
    if (name)
        json_object_set_new(acc, "name", name);
    int bad = json_object_set_new(acc, "componentType", json_integer(5126)) ||
              json_object_set_new(acc, "count", json_integer((json_int_t)count)) ||
              json_object_set_new(acc, "type", json_string(comps <= 4 ? types[comps] : "SCALAR"));
    if (minmax && !bad) {
        json_t *mn = json_array(), *mx = json_array();
        float lo = data[0], hi = data[0];
        for (size_t i = 1; i < count; i++) {
            lo = fminf(lo, data[i]);
            hi = fmaxf(hi, data[i]);
        }
        bad = !mn || !mx || json_array_append_new(mn, json_real((double)lo)) ||
              json_array_append_new(mx, json_real((double)hi));
        bad = bad || json_object_set_new(acc, "min", mn) || json_object_set_new(acc, "max", mx);
    }
    if (extras)
        json_object_set_new(acc, "extras", extras);
    return bad || add_blob(w, data, count * comps, acc) ? -1 : 0;
}

typedef struct slot_state {
    unsigned char *other; /* used outside animations */
    unsigned char *claimed;
    size_t num_old;
    json_t *accessors;
} slot_state;

/* The accessor object to (re)write for a sampler: its old one when only
 * animations used it and no one claimed it yet, else a new one appended. */
static json_t *accessor_slot(slot_state *ss, long old, json_int_t *index)
{
    if (old >= 0 && (size_t)old < ss->num_old && !ss->other[old] && !ss->claimed[old] &&
        json_is_object(json_array_get(ss->accessors, (size_t)old))) {
        ss->claimed[old] = 1;
        *index = old;
        return json_array_get(ss->accessors, (size_t)old);
    }
    json_t *o = json_object();
    if (!o || json_array_append_new(ss->accessors, o))
        return NULL;
    *index = (json_int_t)json_array_size(ss->accessors) - 1;
    return o;
}

static const char *interp_name(pb_gltf_interp i)
{
    return i == PB_GLTF_STEP ? "STEP" : i == PB_GLTF_CUBICSPLINE ? "CUBICSPLINE" : "LINEAR";
}

static pb_io_code replace_samplers(wstate *w, const pb_gltf *g)
{
    gltf_priv *pv = g->priv_;
    json_t *root = w->root;
    json_t *accs = json_object_get(root, "accessors");
    if (!accs) {
        accs = json_array();
        if (!accs || json_object_set_new(root, "accessors", accs))
            return io_nomem(w->err);
    }
    size_t n = json_array_size(accs);
    slot_state ss = {calloc(n + 1, 1), calloc(n + 1, 1), n, accs};
    pb_io_code rc = PB_IO_OK;
    if (!ss.other || !ss.claimed) {
        rc = io_nomem(w->err);
        goto done;
    }
    other_accessor_users(root, ss.other, n);
    json_t *janims = json_object_get(root, "animations");
    for (size_t a = 0; a < g->num_animations && !rc; a++) {
        const pb_gltf_animation *an = &g->animations[a];
        json_t *js = json_object_get(json_array_get(janims, a), "samplers");
        if (json_array_size(js) != an->num_samplers) {
            rc = io_set_err(w->err, PB_IO_ERR_ARG, 0,
                            "animations[%zu]: the document and the pb_gltf disagree", a);
            break;
        }
        /* inputs shared by pointer keep one accessor per accessor they had
         * in the source: each old input accessor is rewritten, none is left
         * behind unused, and no other reference is renumbered */
        const float **seen = calloc(an->num_samplers, sizeof *seen);
        json_int_t *seen_idx = calloc(an->num_samplers, sizeof *seen_idx);
        long *seen_old = calloc(an->num_samplers, sizeof *seen_old);
        size_t nseen = 0;
        if (!seen || !seen_idx || !seen_old) {
            free(seen);
            free(seen_idx);
            free(seen_old);
            rc = io_nomem(w->err);
            break;
        }
        for (size_t s = 0; s < an->num_samplers && !rc; s++) {
            const pb_gltf_sampler *sm = &an->samplers[s];
            json_t *jsm = json_array_get(js, s);
            json_int_t in_idx = -1, out_idx;
            /* a reader refuses non-finite values (a resampled or evaluated
             * source that overshoots float range): not written */
            size_t nv = sm->count * gltf_stride(sm) * sm->components;
            for (size_t k = 0; k < nv && !rc; k++)
                if (!isfinite(sm->output[k]))
                    rc = io_set_err(w->err, PB_IO_ERR_ARG, 0,
                                    "animations[%zu].samplers[%zu]: output value %zu is not "
                                    "finite",
                                    a, s, k);
            if (rc)
                break;
            long old_in = pv->in_acc ? pv->in_acc[a][s] : -1;
            for (size_t k = 0; k < nseen; k++)
                if (seen[k] == sm->input && seen_old[k] == old_in)
                    in_idx = seen_idx[k];
            if (in_idx < 0) {
                json_t *acc = accessor_slot(&ss, old_in, &in_idx);
                if (!acc || set_accessor(w, acc, sm->input, sm->count, 1, 1)) {
                    rc = io_nomem(w->err);
                    break;
                }
                seen[nseen] = sm->input;
                seen_old[nseen] = old_in;
                seen_idx[nseen++] = in_idx;
            }
            json_t *acc = accessor_slot(&ss, pv->out_acc ? pv->out_acc[a][s] : -1, &out_idx);
            size_t c = sm->components, elems = sm->count * gltf_stride(sm);
            int vec = c == 3 || c == 4;
            for (size_t ch = 0; ch < an->num_channels; ch++)
                if (an->channels[ch].sampler == s && an->channels[ch].path == PB_GLTF_WEIGHTS)
                    vec = 0; /* weights are SCALAR whatever their count */
            if (!acc || set_accessor(w, acc, sm->output, vec ? elems : elems * c, vec ? c : 1, 0) ||
                json_object_set_new(jsm, "input", json_integer(in_idx)) ||
                json_object_set_new(jsm, "output", json_integer(out_idx)) ||
                json_object_set_new(jsm, "interpolation",
                                    json_string(interp_name(sm->interpolation))))
                rc = io_nomem(w->err);
        }
        free(seen);
        free(seen_idx);
        free(seen_old);
    }
done:
    free(ss.other);
    free(ss.claimed);
    return rc;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const unsigned char *p, size_t n, const char *prefix)
{
    size_t pl = strlen(prefix), ol = pl + (n + 2) / 3 * 4 + 1;
    char *out = malloc(ol);
    if (!out)
        return NULL;
    memcpy(out, prefix, pl);
    char *o = out + pl;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0u) |
                     (i + 2 < n ? p[i + 2] : 0u);
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? b64[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* Keeps the referenced bufferViews (renumbered), appends the blobs' views,
 * and builds the one buffer. */
static pb_io_code rebuild_buffers(wstate *w, const gltf_priv *pv, unsigned char **bin_out,
                                  size_t *bin_len)
{
    json_t *root = w->root;
    json_t *views = json_object_get(root, "bufferViews");
    size_t nv = json_array_size(views);
    unsigned char *used = calloc(nv + 1, 1);
    long *map = malloc((nv + 1) * sizeof *map);
    json_t *nviews = json_array();
    if (!used || !map || !nviews) {
        free(used);
        free(map);
        json_decref(nviews);
        return io_nomem(w->err);
    }
    walk_views(root, used, NULL, nv);
    size_t total = 0, kept = 0;
    for (size_t v = 0; v < nv; v++)
        if (used[v]) {
            json_t *jv = json_array_get(views, v);
            total = (total + 3) & ~(size_t)3;
            total += (size_t)json_integer_value(json_object_get(jv, "byteLength"));
            map[v] = (long)kept++;
        } else
            map[v] = -1;
    for (size_t b = 0; b < w->num_blobs; b++)
        total = ((total + 3) & ~(size_t)3) + w->blobs[b].floats * sizeof(float);
    total = (total + 3) & ~(size_t)3;
    unsigned char *bin = calloc(total ? total : 1, 1);
    if (!bin) {
        free(used);
        free(map);
        json_decref(nviews);
        return io_nomem(w->err);
    }
    walk_views(root, NULL, map, nv); /* renumber every reference */
    size_t at = 0;
    int bad = 0;
    for (size_t v = 0; v < nv && !bad; v++) {
        if (!used[v])
            continue;
        json_t *jv = json_deep_copy(json_array_get(views, v));
        size_t buf = (size_t)json_integer_value(json_object_get(jv, "buffer"));
        size_t off = (size_t)json_integer_value(json_object_get(jv, "byteOffset"));
        size_t len = (size_t)json_integer_value(json_object_get(jv, "byteLength"));
        at = (at + 3) & ~(size_t)3;
        if (jv && buf < pv->num_buffers && off + len <= pv->buf_len[buf])
            memcpy(bin + at, pv->buf[buf] + off, len);
        bad = !jv || json_object_set_new(jv, "buffer", json_integer(0)) ||
              json_object_set_new(jv, "byteOffset", json_integer((json_int_t)at)) ||
              json_array_append_new(nviews, jv);
        at += len;
    }
    for (size_t b = 0; b < w->num_blobs && !bad; b++) {
        size_t len = w->blobs[b].floats * sizeof(float);
        at = (at + 3) & ~(size_t)3;
        memcpy(bin + at, w->blobs[b].data, len);
        json_t *jv = json_object();
        bad = !jv || json_object_set_new(jv, "buffer", json_integer(0)) ||
              json_object_set_new(jv, "byteOffset", json_integer((json_int_t)at)) ||
              json_object_set_new(jv, "byteLength", json_integer((json_int_t)len)) ||
              json_array_append_new(nviews, jv) ||
              json_object_set_new(w->blobs[b].accessor, "bufferView",
                                  json_integer((json_int_t)json_array_size(nviews) - 1));
        at += len;
    }
    free(used);
    free(map);
    if (bad) {
        free(bin);
        json_decref(nviews);
        return io_nomem(w->err);
    }
    if (json_array_size(nviews))
        json_object_set_new(root, "bufferViews", nviews);
    else {
        json_decref(nviews);
        json_object_del(root, "bufferViews");
    }
    *bin_out = bin;
    *bin_len = total;
    return PB_IO_OK;
}

static pb_io_code put(FILE *f, const void *p, size_t n, pb_io_error *err)
{
    if (n && fwrite(p, 1, n, f) != n)
        return io_set_err(err, PB_IO_ERR_IO, 0, "write error");
    return PB_IO_OK;
}

static void le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16),
    p[3] = (unsigned char)(v >> 24);
}

pb_io_code gltf_emit(FILE *f, json_t *root, const unsigned char *bin, size_t bin_len, int binary,
                     pb_io_error *err)
{
    pb_io_code rc = PB_IO_OK;
    char *text = NULL;
    json_t *buf = json_object(), *bufs = json_array();
    int bad =
        !buf || !bufs || json_object_set_new(buf, "byteLength", json_integer((json_int_t)bin_len));
    if (!bad && !binary) {
        char *uri = b64_encode(bin, bin_len, "data:application/octet-stream;base64,");
        bad = !uri || json_object_set_new(buf, "uri", json_string(uri));
        free(uri);
    }
    bad = bad || json_array_append_new(bufs, buf);
    buf = NULL;
    if (!bad && bin_len)
        bad = json_object_set_new(root, "buffers", bufs);
    else {
        json_decref(bufs);
        json_object_del(root, "buffers");
    }
    json_decref(buf);
    if (!bad)
        text = json_dumps(root, binary ? JSON_COMPACT : JSON_INDENT(2));
    if (bad || !text)
        rc = io_nomem(err);
    if (!rc && binary) {
        size_t jl = strlen(text), jp = (jl + 3) & ~(size_t)3, bp = (bin_len + 3) & ~(size_t)3;
        size_t total = 12 + 8 + jp + (bin_len ? 8 + bp : 0);
        if (total > UINT32_MAX)
            rc = io_set_err(err, PB_IO_ERR_LIMIT, 0, "the GLB would exceed 4 GiB");
        unsigned char h[20];
        le32(h, 0x46546C67u);
        le32(h + 4, 2);
        le32(h + 8, (uint32_t)total);
        le32(h + 12, (uint32_t)jp);
        le32(h + 16, 0x4E4F534Au);
        static const char spaces[4] = {' ', ' ', ' ', ' '};
        static const unsigned char zeros[4] = {0, 0, 0, 0};
        if (!rc)
            rc = put(f, h, 20, err);
        if (!rc)
            rc = put(f, text, jl, err);
        if (!rc)
            rc = put(f, spaces, jp - jl, err);
        if (!rc && bin_len) {
            le32(h, (uint32_t)bp);
            le32(h + 4, 0x004E4942u);
            rc = put(f, h, 8, err);
            if (!rc)
                rc = put(f, bin, bin_len, err);
            if (!rc)
                rc = put(f, zeros, bp - bin_len, err);
        }
    } else if (!rc) {
        rc = put(f, text, strlen(text), err);
        if (!rc)
            rc = put(f, "\n", 1, err);
    }
    if (!rc && (fflush(f) != 0 || ferror(f)))
        rc = io_set_err(err, PB_IO_ERR_IO, 0, "write error");
    free(text);
    return rc;
}

pb_io_code pb_gltf_write_stream(FILE *f, const pb_gltf *g, int binary, pb_io_error *err)
{
    io_clear_err(err);
    if (!f || !g || !g->priv_ || !((gltf_priv *)g->priv_)->root)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "stream or glTF is NULL or empty");
    const gltf_priv *pv = g->priv_;
    wstate w = {json_deep_copy(pv->root), NULL, 0, 0, err};
    if (!w.root)
        return io_nomem(err);
    unsigned char *bin = NULL;
    size_t bin_len = 0;
    pb_io_code rc = replace_samplers(&w, g);
    if (!rc)
        rc = rebuild_buffers(&w, pv, &bin, &bin_len);
    if (!rc)
        rc = gltf_emit(f, w.root, bin, bin_len, binary, err);
    free(bin);
    free(w.blobs);
    json_decref(w.root);
    return rc;
}

typedef struct wctx {
    const pb_gltf *g;
    int binary;
} wctx;

static pb_io_code write_cb(FILE *f, void *ctx, pb_io_error *err)
{
    const wctx *c = ctx;
    return pb_gltf_write_stream(f, c->g, c->binary, err);
}

pb_io_code pb_gltf_write_file(const char *path, const pb_gltf *g, pb_io_error *err)
{
    io_clear_err(err);
    if (!path || !path[0] || !g || !g->priv_)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "path or glTF is NULL or empty");
    size_t n = strlen(path);
    wctx c = {g, n >= 4 && strcasecmp(path + n - 4, ".glb") == 0};
    return pb_io_write_file_cb(path, write_cb, &c, err);
}
