/* Tests of the glTF 2.0 part of the file API (include/posebatch/io.h;
 * src/io/gltf/): the reader on the shared sample models (read from
 * PB_SHARED_DATA_DIR/gltf, never copied) and on small files generated here
 * (quantized, sparse, CUBICSPLINE, STEP, external .bin, malformed ones), the
 * evaluation against an independent double-precision transcription of the
 * glTF 2.0 specification's interpolation, resampling, writing (everything
 * that is not animation copied through) and the BVH <-> glTF conversion. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "posebatch/io.h"
#include "clipdata.h"

/* ---- helpers ------------------------------------------------------------ */

static const char *gltf_sample_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/gltf/%s", data_dir(), name);
    struct stat st;
    if (stat(buf, &st) != 0) {
        fprintf(stderr, "SKIP: %s not found (PB_SHARED_DATA_DIR=%s)\n", buf, data_dir());
        return NULL;
    }
    return buf;
}

static char *tmpdir(void)
{
    static char path[256];
    const char *t = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/pb_gltf_test.XXXXXX", t && *t ? t : "/tmp");
    cr_assert_not_null(mkdtemp(path), "mkdtemp: %s", strerror(errno));
    return path;
}

static void rmtree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static char *b64(const unsigned char *p, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc((n + 2) / 3 * 4 + 1), *w = o;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0u) |
                     (i + 2 < n ? p[i + 2] : 0u);
        *w++ = t[v >> 18 & 63];
        *w++ = t[v >> 12 & 63];
        *w++ = i + 1 < n ? t[v >> 6 & 63] : '=';
        *w++ = i + 2 < n ? t[v & 63] : '=';
    }
    *w = 0;
    return o;
}

/* A small document builder: bytes appended to one buffer, one bufferView and
 * accessor per array. */
typedef struct doc {
    unsigned char bin[65536];
    size_t len;
    json_t *root, *views, *accs;
} doc;

static void doc_init(doc *d)
{
    memset(d, 0, sizeof *d);
    json_error_t je;
    d->root = json_loads("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\","
                         "\"children\":[1]},{\"name\":\"b\",\"translation\":[0,1,0]}],"
                         "\"scene\":0,\"scenes\":[{\"nodes\":[0]}]}",
                         0, &je);
    cr_assert_not_null(d->root);
    d->views = json_array();
    d->accs = json_array();
    json_object_set_new(d->root, "bufferViews", d->views);
    json_object_set_new(d->root, "accessors", d->accs);
}

/* Appends bytes as a bufferView; returns its index. */
static int doc_view(doc *d, const void *p, size_t n)
{
    d->len = (d->len + 3) & ~(size_t)3;
    cr_assert(d->len + n <= sizeof d->bin);
    memcpy(d->bin + d->len, p, n);
    json_array_append_new(d->views, json_pack("{s:i,s:i,s:i}", "buffer", 0, "byteOffset",
                                              (int)d->len, "byteLength", (int)n));
    d->len += n;
    return (int)json_array_size(d->views) - 1;
}

/* Appends an accessor over new bytes; returns its index. */
static int doc_acc(doc *d, const void *p, size_t count, int ctype, size_t csize, const char *type,
                   int normalized)
{
    size_t comps = strcmp(type, "SCALAR") == 0 ? 1 : strcmp(type, "VEC3") == 0 ? 3 : 4;
    int v = doc_view(d, p, count * comps * csize);
    json_t *a = json_pack("{s:i,s:i,s:i,s:s}", "bufferView", v, "componentType", ctype, "count",
                          (int)count, "type", type);
    if (normalized)
        json_object_set_new(a, "normalized", json_true());
    json_array_append_new(d->accs, a);
    return (int)json_array_size(d->accs) - 1;
}

static int doc_floats(doc *d, const float *p, size_t count, const char *type)
{
    return doc_acc(d, p, count, 5126, 4, type, 0);
}

/* One animation of the given channels (node, path, input, output, interp). */
static void doc_anim(doc *d, int nch, const int *node, const char *const *path, const int *in,
                     const int *out, const char *const *interp)
{
    json_t *ch = json_array(), *sm = json_array();
    for (int i = 0; i < nch; i++) {
        json_array_append_new(ch, json_pack("{s:i,s:{s:i,s:s}}", "sampler", i, "target", "node",
                                            node[i], "path", path[i]));
        json_array_append_new(sm, json_pack("{s:i,s:i,s:s}", "input", in[i], "output", out[i],
                                            "interpolation", interp[i]));
    }
    json_object_set_new(
        d->root, "animations",
        json_pack("[{s:s,s:o,s:o}]", "name", "test", "channels", ch, "samplers", sm));
}

/* Serialises with the buffer as a data: URI and reads it back. */
static pb_bvh_code doc_read(doc *d, pb_gltf *g, pb_bvh_error *err)
{
    char *enc = b64(d->bin, d->len), *uri = malloc(strlen(enc) + 64);
    sprintf(uri, "data:application/octet-stream;base64,%s", enc);
    json_object_set_new(
        d->root, "buffers",
        json_pack("[{s:i,s:s}]", "byteLength", (int)(d->len ? d->len : 1), "uri", uri));
    char *text = json_dumps(d->root, JSON_COMPACT);
    pb_bvh_code rc = pb_gltf_read_memory(text, strlen(text), NULL, g, err);
    free(text);
    free(enc);
    free(uri);
    return rc;
}

/* ---- an independent reference of glTF 2.0's interpolation (double) ---- */

static void ref_sample(const pb_gltf_sampler *s, int rot, double t, double *out)
{
    size_t n = s->count, c = s->components, st = s->interpolation == PB_GLTF_CUBICSPLINE ? 3 : 1,
           vo = st == 3 ? 1 : 0;
    const float *in = s->input, *o = s->output;
    if (n == 1 || t <= in[0] || t >= in[n - 1]) {
        size_t k = (n == 1 || t <= in[0]) ? 0 : n - 1;
        for (size_t j = 0; j < c; j++)
            out[j] = o[(k * st + vo) * c + j];
        return;
    }
    size_t k = 0;
    while (!(in[k] <= t && t < in[k + 1]))
        k++;
    double td = (double)in[k + 1] - in[k], x = (t - in[k]) / td;
    const float *a = o + (k * st + vo) * c, *b = o + ((k + 1) * st + vo) * c;
    if (s->interpolation == PB_GLTF_STEP) {
        for (size_t j = 0; j < c; j++)
            out[j] = a[j];
    } else if (s->interpolation == PB_GLTF_LINEAR && rot) {
        double d = 0;
        for (int j = 0; j < 4; j++)
            d += (double)a[j] * b[j];
        double sg = d < 0 ? -1 : 1, ang = acos(fmin(1.0, fabs(d))), wa, wb;
        if (ang < 1e-9)
            wa = 1 - x, wb = x;
        else
            wa = sin((1 - x) * ang) / sin(ang), wb = sin(x * ang) / sin(ang);
        for (int j = 0; j < 4; j++)
            out[j] = wa * a[j] + sg * wb * b[j];
    } else if (s->interpolation == PB_GLTF_LINEAR) {
        for (size_t j = 0; j < c; j++)
            out[j] = (1 - x) * a[j] + x * b[j];
    } else {
        double x2 = x * x, x3 = x2 * x;
        for (size_t j = 0; j < c; j++)
            out[j] = (2 * x3 - 3 * x2 + 1) * a[j] + td * (x3 - 2 * x2 + x) * a[c + j] +
                     (-2 * x3 + 3 * x2) * b[j] + td * (x3 - x2) * (b - c)[j];
        if (rot) {
            double nq = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
            for (int j = 0; j < 4; j++)
                out[j] /= nq;
        }
    }
}

/* The angle (rad) between the rotations of two quaternions (any norm, either
 * sign): 4 asin(|a - s b| / 2) of the normalised ones, s the sign of their
 * dot product (acos of the dot product loses everything below 1e-4 rad). */
static double rot_angle(const double a[4], const double b[4])
{
    double na = 0, nb = 0, d = 0, e = 0;
    for (int j = 0; j < 4; j++)
        na += a[j] * a[j], nb += b[j] * b[j], d += a[j] * b[j];
    double s = d < 0 ? -1 : 1;
    na = sqrt(na), nb = sqrt(nb);
    for (int j = 0; j < 4; j++) {
        double x = a[j] / na - s * b[j] / nb;
        e += x * x;
    }
    return 4 * asin(fmin(1.0, sqrt(e) / 2));
}

/* Largest difference between pb_gltf_sample and the reference over `n`
 * times spread over [t_min - 0.1, t_max + 0.1] (rotations: angle in rad). */
static double max_eval_error(const pb_gltf *g, size_t a, size_t n)
{
    const pb_gltf_animation *an = &g->animations[a];
    float *t = malloc(n * sizeof *t), *v = malloc(n * (an->num_values + 1) * sizeof *v);
    unsigned seed = 12345;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        double u = (double)(seed >> 8) / (double)(1u << 24);
        t[i] = (float)(an->t_min - 0.1 + u * (an->t_max - an->t_min + 0.2));
    }
    if (n > 2) { /* the key times themselves too */
        t[0] = an->samplers[0].input[0];
        t[1] = an->samplers[0].input[an->samplers[0].count / 2];
    }
    pb_bvh_error err;
    cr_assert_eq(pb_gltf_sample(g, a, n, t, v, &err), PB_BVH_OK, "%s", err.message);
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < an->num_channels; c++) {
            const pb_gltf_channel *ch = &an->channels[c];
            const pb_gltf_sampler *s = &an->samplers[ch->sampler];
            int rot = ch->path == PB_GLTF_ROTATION;
            double r[64];
            cr_assert(s->components <= 64);
            ref_sample(s, rot, t[i], r);
            const float *got = v + i * an->num_values + ch->offset;
            if (rot) {
                double g4[4] = {got[0], got[1], got[2], got[3]};
                if (getenv("PB_GLTF_DEBUG") && rot_angle(r, g4) > 1e-6)
                    fprintf(stderr, "t %.9g channel %zu interp %d: %g rad\n", (double)t[i], c,
                            s->interpolation, rot_angle(r, g4));
                worst = fmax(worst, rot_angle(r, g4));
            } else
                for (size_t j = 0; j < s->components; j++) {
                    if (getenv("PB_GLTF_DEBUG") && fabs(r[j] - got[j]) > 1e-6)
                        fprintf(stderr, "t %.9g channel %zu interp %d: %g vs %g\n", (double)t[i], c,
                                s->interpolation, r[j], got[j]);
                    worst = fmax(worst, fabs(r[j] - got[j]) / fmax(1.0, fabs(r[j])));
                }
        }
    free(t);
    free(v);
    return worst;
}

/* ---- the sample models ---------------------------------------------------- */

Test(gltf, fox_glb_reads_and_evaluates_as_specified)
{
    const char *p = gltf_sample_path("Fox.glb");
    if (!p)
        cr_skip_test("no Fox.glb");
    pb_gltf g;
    pb_bvh_error err;
    cr_assert_eq(pb_gltf_read_file(p, &g, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(g.num_skins, 1);
    cr_assert_eq(g.skins[0].num_joints, 24);
    cr_assert_eq(g.num_animations, 3);
    const char *names[] = {"Survey", "Walk", "Run"};
    for (size_t a = 0; a < 3; a++) {
        cr_assert_str_eq(g.animations[a].name, names[a]);
        cr_assert_gt(g.animations[a].num_channels, 0);
        double e = max_eval_error(&g, a, 300);
        cr_assert_lt(e, 2e-6, "%s: %g", names[a], e);
    }
    /* parents agree with children lists */
    for (size_t n = 0; n < g.num_nodes; n++)
        for (size_t k = 0; k < g.nodes[n].num_children; k++)
            cr_assert_eq(g.nodes[g.nodes[n].children[k]].parent, (int32_t)n);
    pb_gltf_free(&g);
    cr_assert_eq(g.num_nodes, 0);
}

Test(gltf, cesium_man_reads_and_evaluates_as_specified)
{
    const char *p = gltf_sample_path("cesium_man.gltf");
    if (!p)
        cr_skip_test("no cesium_man.gltf");
    pb_gltf g;
    pb_bvh_error err;
    cr_assert_eq(pb_gltf_read_file(p, &g, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(g.num_animations, 1);
    cr_assert_eq(g.animations[0].num_channels, 57);
    cr_assert_eq(g.num_skins, 1);
    double e = max_eval_error(&g, 0, 300);
    cr_assert_lt(e, 2e-6, "%g", e);
    pb_gltf_free(&g);
}

/* ---- generated files ------------------------------------------------------ */

static const float times3[3] = {0.0f, 0.4f, 1.5f}; /* non-uniform */

Test(gltf, linear_step_cubic_quantized_sparse)
{
    doc d;
    doc_init(&d);
    int tin = doc_floats(&d, times3, 3, "SCALAR");
    /* rotations: float LINEAR, SHORT normalized LINEAR, BYTE normalized STEP */
    float rq[12] = {0, 0, 0, 1, 0, 0.7071068f, 0, 0.7071068f, 0.6f, 0, 0, 0.8f};
    int rf = doc_floats(&d, rq, 3, "VEC4");
    short rs[12];
    signed char rb[12];
    for (int i = 0; i < 12; i++) {
        rs[i] = (short)lrintf(rq[i] * 32767.0f);
        rb[i] = (signed char)lrintf(rq[i] * 127.0f);
    }
    int rsh = doc_acc(&d, rs, 3, 5122, 2, "VEC4", 1);
    int rby = doc_acc(&d, rb, 3, 5120, 1, "VEC4", 1);
    /* CUBICSPLINE translation and rotation: in-tangent, value, out-tangent */
    float ct[27], cr[36];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 3; j++) {
            ct[(3 * k) * 3 + j] = 0.5f * (float)(j + 1);       /* in */
            ct[(3 * k + 1) * 3 + j] = (float)(k * k + j);      /* value */
            ct[(3 * k + 2) * 3 + j] = -0.25f * (float)(k + j); /* out */
        }
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 4; j++) {
            cr[(3 * k) * 4 + j] = 0.1f * (float)j;
            cr[(3 * k + 1) * 4 + j] = rq[4 * k + j];
            cr[(3 * k + 2) * 4 + j] = -0.2f * (float)(j - k);
        }
    int cta = doc_floats(&d, ct, 9, "VEC3");
    int cra = doc_floats(&d, cr, 9, "VEC4");
    /* sparse scale: base zeros (no bufferView) with two entries replaced */
    unsigned short sidx[2] = {0, 2};
    float sval[6] = {1, 2, 3, 4, 5, 6};
    int iv = doc_view(&d, sidx, sizeof sidx), vv = doc_view(&d, sval, sizeof sval);
    json_array_append_new(d.accs, json_pack("{s:i,s:i,s:s,s:{s:i,s:{s:i,s:i},s:{s:i}}}",
                                            "componentType", 5126, "count", 3, "type", "VEC3",
                                            "sparse", "count", 2, "indices", "bufferView", iv,
                                            "componentType", 5123, "values", "bufferView", vv));
    int sacc = (int)json_array_size(d.accs) - 1;
    int node[] = {0, 1, 0, 1, 0, 1};
    const char *path[] = {"rotation", "rotation", "translation", "rotation", "scale", "scale"};
    int in[] = {tin, tin, tin, tin, tin, tin};
    int out[] = {rf, rsh, cta, cra, sacc, sacc};
    const char *interp[] = {"LINEAR", "LINEAR", "CUBICSPLINE", "CUBICSPLINE", "LINEAR", "STEP"};
    doc_anim(&d, 6, node, path, in, out, interp);
    (void)rby;
    pb_gltf g;
    pb_bvh_error err;
    cr_assert_eq(doc_read(&d, &g, &err), PB_BVH_OK, "%s", err.message);
    const pb_gltf_animation *a = &g.animations[0];
    cr_assert_eq(a->num_channels, 6);
    cr_assert_eq(a->samplers[2].interpolation, PB_GLTF_CUBICSPLINE);
    cr_assert_eq(a->samplers[2].count, 3);
    /* dequantised shorts: c / 32767, then renormalised (key 1: elements 4..7) */
    double n1 = 0;
    for (int j = 4; j < 8; j++)
        n1 += ((double)rs[j] / 32767.0) * ((double)rs[j] / 32767.0);
    cr_assert_float_eq(a->samplers[1].output[7], (float)((double)rs[7] / 32767.0 / sqrt(n1)), 1e-7);
    /* sparse: element 0 and 2 replaced, 1 stays zero */
    cr_assert_float_eq(a->samplers[4].output[0], 1.0f, 0);
    cr_assert_float_eq(a->samplers[4].output[3], 0.0f, 0);
    cr_assert_float_eq(a->samplers[4].output[8], 6.0f, 0);
    double e = max_eval_error(&g, 0, 400);
    cr_assert_lt(e, 2e-6, "%g", e);
    /* STEP holds key 0's value until key 1's time */
    float t = 0.39f, v[64];
    cr_assert_eq(pb_gltf_sample(&g, 0, 1, &t, v, &err), PB_BVH_OK);
    cr_assert_float_eq(v[a->channels[5].offset], 1.0f, 0);
    pb_gltf_free(&g);
    /* BYTE normalized too (a fresh doc with the byte accessor on rotation) */
    json_t *s0 = json_array_get(
        json_object_get(json_array_get(json_object_get(d.root, "animations"), 0), "samplers"), 0);
    json_object_set_new(s0, "output", json_integer(rby));
    cr_assert_eq(doc_read(&d, &g, &err), PB_BVH_OK, "%s", err.message);
    double n0 = 0;
    for (int j = 0; j < 4; j++)
        n0 += ((double)rb[j] / 127.0) * ((double)rb[j] / 127.0);
    cr_assert_float_eq(g.animations[0].samplers[0].output[3],
                       (float)((double)rb[3] / 127.0 / sqrt(n0)), 1e-7);
    e = max_eval_error(&g, 0, 100);
    cr_assert_lt(e, 2e-6, "%g", e);
    pb_gltf_free(&g);
    json_decref(d.root);
}

/* A valid two-key document, then one defect at a time: each gives an error
 * naming its JSON path, and nothing. */
static doc base_doc(int *tin, int *rout)
{
    doc d;
    doc_init(&d);
    float t[2] = {0, 1}, q[8] = {0, 0, 0, 1, 0, 0, 1, 0};
    *tin = doc_floats(&d, t, 2, "SCALAR");
    *rout = doc_floats(&d, q, 2, "VEC4");
    int node[] = {1};
    const char *path[] = {"rotation"};
    const char *interp[] = {"LINEAR"};
    doc_anim(&d, 1, node, path, tin, rout, interp);
    return d;
}

static void expect_error(doc *d, const char *needle)
{
    pb_gltf g;
    pb_bvh_error err;
    memset(&g, 0x5a, sizeof g);
    pb_bvh_code rc = doc_read(d, &g, &err);
    cr_assert_neq(rc, PB_BVH_OK, "accepted; expected '%s'", needle);
    cr_assert_eq(err.code, rc);
    cr_assert_not_null(strstr(err.message, needle), "message '%s' lacks '%s'", err.message, needle);
    cr_assert_eq(g.num_nodes, 0);
    cr_assert_null(g.priv_);
    json_decref(d->root);
}

static json_t *sampler0(doc *d)
{
    return json_array_get(
        json_object_get(json_array_get(json_object_get(d->root, "animations"), 0), "samplers"), 0);
}

Test(gltf, malformed_inputs_name_their_json_path)
{
    int tin, rout;
    doc d = base_doc(&tin, &rout);
    pb_gltf g;
    pb_bvh_error err;
    cr_assert_eq(doc_read(&d, &g, &err), PB_BVH_OK, "%s", err.message);
    pb_gltf_free(&g);
    json_decref(d.root);

    /* input accessor not float */
    d = base_doc(&tin, &rout);
    unsigned char bytes[2] = {0, 1};
    int bad = doc_acc(&d, bytes, 2, 5121, 1, "SCALAR", 0);
    json_object_set_new(sampler0(&d), "input", json_integer(bad));
    char want[128];
    snprintf(want, sizeof want, "animations[0].samplers[0].input: accessor %d is not float", bad);
    expect_error(&d, want);

    /* times not increasing */
    d = base_doc(&tin, &rout);
    float t2[2] = {1, 1};
    int ti = doc_floats(&d, t2, 2, "SCALAR");
    json_object_set_new(sampler0(&d), "input", json_integer(ti));
    expect_error(&d, "animations[0].samplers[0].input: accessor 2: key times are not strictly");

    /* output count does not match */
    d = base_doc(&tin, &rout);
    float q3[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    int o3 = doc_floats(&d, q3, 3, "VEC4");
    json_object_set_new(sampler0(&d), "output", json_integer(o3));
    expect_error(&d, "animations[0].samplers[0].output: accessor 2 has 3 elements for 2 keys");

    /* rotation from a VEC3 accessor */
    d = base_doc(&tin, &rout);
    float v3[6] = {0};
    int o4 = doc_floats(&d, v3, 2, "VEC3");
    json_object_set_new(sampler0(&d), "output", json_integer(o4));
    expect_error(&d, "animations[0].samplers[0].output: accessor 2 is VEC3, expected VEC4");

    /* translation from UNSIGNED_SHORT normalized (rotations and weights only) */
    d = base_doc(&tin, &rout);
    unsigned short us[6] = {0};
    int o5 = doc_acc(&d, us, 2, 5123, 2, "VEC3", 1);
    json_object_set_new(sampler0(&d), "output", json_integer(o5));
    json_object_set_new(
        json_object_get(
            json_array_get(json_object_get(json_array_get(json_object_get(d.root, "animations"), 0),
                                           "channels"),
                           0),
            "target"),
        "path", json_string("translation"));
    expect_error(&d, "output: accessor 2 is not float (normalized UNSIGNED_SHORT)");

    /* accessor past its bufferView */
    d = base_doc(&tin, &rout);
    json_object_set_new(json_array_get(d.accs, (size_t)rout), "count", json_integer(3));
    expect_error(&d, "accessors[1]: 3 elements of 16 bytes");

    /* unknown interpolation, node out of range, bad path */
    d = base_doc(&tin, &rout);
    json_object_set_new(sampler0(&d), "interpolation", json_string("SMOOTH"));
    expect_error(&d, "animations[0].samplers[0]: 'interpolation' is not LINEAR");
    d = base_doc(&tin, &rout);
    json_t *tg = json_object_get(
        json_array_get(
            json_object_get(json_array_get(json_object_get(d.root, "animations"), 0), "channels"),
            0),
        "target");
    json_object_set_new(tg, "node", json_integer(7));
    expect_error(&d, "animations[0].channels[0].target: 'node' is 7");
    d = base_doc(&tin, &rout);
    tg = json_object_get(
        json_array_get(
            json_object_get(json_array_get(json_object_get(d.root, "animations"), 0), "channels"),
            0),
        "target");
    json_object_set_new(tg, "path", json_string("colour"));
    expect_error(&d, "animations[0].channels[0].target: 'path' 'colour'");

    /* bufferView past its buffer; buffer larger than its data */
    d = base_doc(&tin, &rout);
    json_object_set_new(json_array_get(d.views, 0), "byteLength", json_integer(4000));
    expect_error(&d, "bufferViews[0]: byteOffset 0 + byteLength 4000 is past the end of buffer 0");

    /* a node that is its own ancestor; two parents */
    d = base_doc(&tin, &rout);
    json_object_set_new(json_array_get(json_object_get(d.root, "nodes"), 1), "children",
                        json_pack("[i]", 0));
    expect_error(&d, "has a cycle");
    d = base_doc(&tin, &rout);
    json_array_append_new(json_object_get(d.root, "nodes"), json_pack("{s:[i]}", "children", 1));
    expect_error(&d, "nodes[2].children[0]: node 1 is already a child of node 0");

    /* sparse indices not increasing */
    d = base_doc(&tin, &rout);
    unsigned char si[2] = {1, 1};
    float sv[8] = {0, 0, 0, 1, 0, 0, 0, 1};
    int iv = doc_view(&d, si, 2), vv = doc_view(&d, sv, sizeof sv);
    json_object_set_new(json_array_get(d.accs, (size_t)rout), "sparse",
                        json_pack("{s:i,s:{s:i,s:i},s:{s:i}}", "count", 2, "indices", "bufferView",
                                  iv, "componentType", 5121, "values", "bufferView", vv));
    expect_error(&d, "accessors[1].sparse.indices: index 1 is 1");

    /* an absurd accessor: refused before any memory is taken */
    d = base_doc(&tin, &rout);
    json_array_append_new(d.accs, json_pack("{s:i,s:i,s:s}", "componentType", 5126, "count",
                                            1 << 30, "type", "VEC4"));
    json_object_set_new(sampler0(&d), "output", json_integer(2));
    expect_error(&d, "accessors[2]: 1073741824 VEC4 elements: more than 2^28 values");

    /* version 1.0 */
    d = base_doc(&tin, &rout);
    json_object_set_new(json_object_get(d.root, "asset"), "version", json_string("1.0"));
    expect_error(&d, "asset.version: '1.0': only glTF 2.x");
}

Test(gltf, json_and_container_errors)
{
    pb_gltf g;
    pb_bvh_error err;
    const char *bad = "{\n  \"asset\": {\"version\": \"2.0\"},\n  \"nodes\": [1, }\n}";
    cr_assert_eq(pb_gltf_read_memory(bad, strlen(bad), NULL, &g, &err), PB_BVH_ERR_SYNTAX);
    cr_assert_eq(err.line, 3, "%s", err.message);
    cr_assert_not_null(strstr(err.message, "line 3, column"), "%s", err.message);
    const char *dup = "{\"asset\":{\"version\":\"2.0\"},\"asset\":{}}";
    cr_assert_neq(pb_gltf_read_memory(dup, strlen(dup), NULL, &g, &err), PB_BVH_OK);
    cr_assert_not_null(strstr(err.message, "duplicate"), "%s", err.message);
    const char *bvh = "HIERARCHY\nROOT a\n";
    cr_assert_neq(pb_gltf_read_memory(bvh, strlen(bvh), NULL, &g, &err), PB_BVH_OK);
    cr_assert_not_null(strstr(err.message, "this is a BVH file, not glTF"), "%s", err.message);
    unsigned char glb[24] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 200, 0, 0, 0};
    cr_assert_neq(pb_gltf_read_memory(glb, sizeof glb, NULL, &g, &err), PB_BVH_OK);
    cr_assert_not_null(strstr(err.message, "GLB: header length 200"), "%s", err.message);
    const char *b64bad = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,"
                         "\"uri\":\"data:application/octet-stream;base64,AA*A\"}]}";
    cr_assert_neq(pb_gltf_read_memory(b64bad, strlen(b64bad), NULL, &g, &err), PB_BVH_OK);
    cr_assert_not_null(strstr(err.message, "buffers[0]: uri: invalid base64 character"), "%s",
                       err.message);
    const char *nofile = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,"
                         "\"uri\":\"missing%20file.bin\"}]}";
    cr_assert_eq(pb_gltf_read_memory(nofile, strlen(nofile), "/nonexistent", &g, &err),
                 PB_BVH_ERR_IO);
    cr_assert_not_null(strstr(err.message, "/nonexistent/missing file.bin"), "%s", err.message);
    cr_assert_eq(pb_gltf_read_file("/nonexistent/x.glb", &g, &err), PB_BVH_ERR_IO);
}

/* d as a GLB file in a buffer of exactly its size (malloc'd: under ASan a
 * read past it is reported): the JSON chunk, then a BIN chunk of d's bytes
 * whose length field claims `extra` bytes more than the file holds. The
 * buffer's byteLength is the claim and the last bufferView is moved by
 * `shift` bytes, so that a reader taking the claim reads past the end. */
static unsigned char *doc_glb(doc *d, uint32_t extra, size_t shift, size_t *size)
{
    json_t *last = json_array_get(d->views, json_array_size(d->views) - 1);
    json_object_set_new(
        last, "byteOffset",
        json_integer(json_integer_value(json_object_get(last, "byteOffset")) + (json_int_t)shift));
    json_object_set_new(d->root, "buffers",
                        json_pack("[{s:I}]", "byteLength", (json_int_t)d->len + extra));
    char *text = json_dumps(d->root, JSON_COMPACT);
    size_t jl = strlen(text), jp = (jl + 3) & ~(size_t)3;
    *size = 12 + 8 + jp + 8 + d->len;
    unsigned char *g = malloc(*size), *p = g;
    cr_assert_not_null(g);
    uint32_t head[5] = {0x46546C67u, 2, (uint32_t)*size, (uint32_t)jp, 0x4E4F534Au};
    uint32_t bin[2] = {(uint32_t)d->len + extra, 0x004E4942u};
    memcpy(p, head, sizeof head); /* little-endian hosts (x86, aarch64) */
    p += sizeof head;
    memcpy(p, text, jl);
    memset(p + jl, ' ', jp - jl);
    p += jp;
    memcpy(p, bin, sizeof bin);
    memcpy(p + sizeof bin, d->bin, d->len);
    free(text);
    return g;
}

/* A GLB BIN chunk claiming more bytes than the file has is malformed
 * (PB_BVH_ERR_SYNTAX), by 1 byte to 8 (the chunk header's size, where a
 * bound off by a header would still take it) and by 2^32 - 1 - its size;
 * the exact claim reads. Each in a buffer of exactly the file's size (run
 * under ASan in CI). */
Test(gltf, glb_bin_chunk_past_the_end_is_refused)
{
    static const uint32_t extras[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12};
    const size_t ne = sizeof extras / sizeof extras[0];
    for (size_t i = 0; i <= ne; i++) { /* the last: the largest claim */
        int tin, rout;
        doc d = base_doc(&tin, &rout);
        uint32_t extra = i < ne ? extras[i] : 0xFFFFFFFFu - (uint32_t)d.len;
        size_t size;
        /* the rotations' view moved to end at the claimed end (4-byte steps) */
        unsigned char *glb = doc_glb(&d, extra, extra <= 12 ? extra & ~3u : 0, &size);
        pb_gltf g;
        pb_bvh_error err;
        memset(&g, 0x5a, sizeof g);
        pb_bvh_code rc = pb_gltf_read_memory(glb, size, NULL, &g, &err);
        if (extra == 0) {
            cr_assert_eq(rc, PB_BVH_OK, "%s", err.message);
            float t = 1, v[4];
            cr_assert_eq(pb_gltf_sample(&g, 0, 1, &t, v, &err), PB_BVH_OK);
            cr_assert(v[0] == 0 && v[1] == 0 && v[2] == 1 && v[3] == 0);
            pb_gltf_free(&g);
        } else {
            cr_assert_eq(rc, PB_BVH_ERR_SYNTAX, "BIN chunk %u bytes past the end: %d (%s)", extra,
                         rc, rc ? err.message : "accepted");
            cr_assert_not_null(strstr(err.message, "GLB: the BIN chunk"), "%s", err.message);
            cr_assert_null(g.priv_);
        }
        free(glb);
        json_decref(d.root);
    }
}

Test(gltf, external_bin_file)
{
    char *dir = tmpdir();
    int tin, rout;
    doc d = base_doc(&tin, &rout);
    char path[512];
    snprintf(path, sizeof path, "%s/my data.bin", dir);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fwrite(d.bin, 1, d.len, f);
    fclose(f);
    json_object_set_new(d.root, "buffers",
                        json_pack("[{s:i,s:s}]", "byteLength", (int)d.len, "uri", "my%20data.bin"));
    snprintf(path, sizeof path, "%s/a.gltf", dir);
    cr_assert_eq(json_dump_file(d.root, path, 0), 0);
    pb_gltf g;
    pb_bvh_error err;
    cr_assert_eq(pb_gltf_read_file(path, &g, &err), PB_BVH_OK, "%s", err.message);
    float t = 0.5f, v[4];
    cr_assert_eq(pb_gltf_sample(&g, 0, 1, &t, v, &err), PB_BVH_OK);
    /* halfway between identity and 180 degrees about z: 90 degrees */
    cr_assert_float_eq(v[2], (float)sqrt(0.5), 1e-6);
    cr_assert_float_eq(v[3], (float)sqrt(0.5), 1e-6);
    pb_gltf_free(&g);
    json_decref(d.root);
    rmtree(dir);
}

/* ---- resample, write ------------------------------------------------------ */

static pb_gltf read_ok(const char *p)
{
    pb_gltf g;
    pb_bvh_error err;
    cr_assert_eq(pb_gltf_read_file(p, &g, &err), PB_BVH_OK, "%s: %s", p, err.message);
    return g;
}

Test(gltf, resample_at_the_source_rate_keeps_the_keys)
{
    const char *p = gltf_sample_path("Fox.glb");
    if (!p)
        cr_skip_test("no Fox.glb");
    pb_gltf g = read_ok(p), r;
    pb_bvh_error err;
    const pb_gltf_sampler *s0 = &g.animations[1].samplers[0];
    double fps = (double)(s0->count - 1) / ((double)s0->input[s0->count - 1] - s0->input[0]);
    cr_assert_eq(pb_gltf_resample(&g, fps, 0, &r, &err), PB_BVH_OK, "%s", err.message);
    const pb_gltf_animation *a = &r.animations[1], *sa = &g.animations[1];
    cr_assert_eq(a->samplers[0].count, s0->count);
    for (size_t s = 0; s < a->num_samplers; s++) {
        const pb_gltf_sampler *x = &a->samplers[s], *y = &sa->samplers[s];
        cr_assert_eq(x->interpolation, PB_GLTF_LINEAR);
        for (size_t k = 0; k < x->count * x->components; k++) {
            float d = fabsf(x->output[k] - y->output[k]);
            if (x->components == 4) /* unrolled: the same rotation may be negated */
                d = fminf(d, fabsf(x->output[k] + y->output[k]));
            cr_assert_lt(d, 2e-5f, "sampler %zu value %zu: %g vs %g", s, k, x->output[k],
                         y->output[k]);
        }
    }
    pb_gltf_free(&r);
    pb_gltf_free(&g);
}

Test(gltf, resample_cubic_tangents_are_catmull_rom)
{
    const char *p = gltf_sample_path("cesium_man.gltf");
    if (!p)
        cr_skip_test("no cesium_man.gltf");
    pb_gltf g = read_ok(p), r;
    pb_bvh_error err;
    double fps = 50;
    cr_assert_eq(pb_gltf_resample(&g, fps, PB_GLTF_RESAMPLE_CUBIC, &r, &err), PB_BVH_OK, "%s",
                 err.message);
    const pb_gltf_animation *a = &r.animations[0];
    size_t n = a->samplers[0].count;
    cr_assert_eq(n,
                 (size_t)floor((g.animations[0].t_max - g.animations[0].t_min) * fps + 1e-3) + 1);
    for (size_t s = 0; s < a->num_samplers; s++) {
        const pb_gltf_sampler *x = &a->samplers[s];
        size_t c = x->components;
        cr_assert_eq(x->interpolation, PB_GLTF_CUBICSPLINE);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < c; j++) {
                size_t ip = i ? i - 1 : 0, in = i + 1 < n ? i + 1 : n - 1;
                double want =
                    ((double)x->output[(3 * in + 1) * c + j] - x->output[(3 * ip + 1) * c + j]) *
                    0.5 * fps;
                cr_assert_float_eq(x->output[(3 * i) * c + j], (float)want,
                                   1e-4 * fmax(1, fabs(want)), "sampler %zu key %zu", s, i);
                cr_assert_eq(x->output[(3 * i) * c + j], x->output[(3 * i + 2) * c + j]);
            }
        if (c == 4) /* one hemisphere: consecutive keys' dot >= 0 */
            for (size_t i = 1; i < n; i++) {
                double d = 0;
                for (int j = 0; j < 4; j++)
                    d += (double)x->output[(3 * i + 1) * 4 + j] * x->output[(3 * i - 2) * 4 + j];
                cr_assert_geq(d, 0.0);
            }
    }
    /* the resampled animation evaluates close to the source between keys */
    size_t nt = 500;
    const pb_gltf_animation *sa = &g.animations[0];
    float *t = malloc(nt * sizeof *t), *v1 = malloc(nt * sa->num_values * 4),
          *v2 = malloc(nt * sa->num_values * 4);
    for (size_t i = 0; i < nt; i++)
        t[i] = sa->t_min + (sa->t_max - sa->t_min) * (float)i / (float)(nt - 1);
    cr_assert_eq(pb_gltf_sample(&g, 0, nt, t, v1, &err), PB_BVH_OK);
    cr_assert_eq(pb_gltf_sample(&r, 0, nt, t, v2, &err), PB_BVH_OK);
    double worst = 0;
    for (size_t i = 0; i < nt; i++)
        for (size_t c = 0; c < sa->num_channels; c++)
            if (sa->channels[c].path == PB_GLTF_ROTATION) {
                const float *q1 = v1 + i * sa->num_values + sa->channels[c].offset,
                            *q2 = v2 + i * sa->num_values + sa->channels[c].offset;
                double a4[4] = {q1[0], q1[1], q1[2], q1[3]}, b4[4] = {q2[0], q2[1], q2[2], q2[3]};
                worst = fmax(worst, rot_angle(a4, b4));
            }
    cr_assert_lt(worst, 0.05, "%g rad", worst); /* 24 fps source, LINEAR keys */
    cr_assert_gt(worst, 0.0);                   /* not trivially the source */
    free(t);
    free(v1);
    free(v2);
    pb_gltf_free(&r);
    pb_gltf_free(&g);
}

/* The JSON of a .gltf or .glb file. */
static json_t *file_json(const char *path)
{
    json_error_t je;
    json_t *j;
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    unsigned char h[20];
    cr_assert_eq(fread(h, 1, 20, f), 20);
    if (memcmp(h, "glTF", 4) == 0) {
        unsigned len = (unsigned)h[12] | (unsigned)h[13] << 8 | (unsigned)h[14] << 16;
        char *text = malloc(len + 1);
        cr_assert_eq(fread(text, 1, len, f), len);
        j = json_loadb(text, len, 0, &je);
        free(text);
    } else {
        rewind(f);
        j = json_loadf(f, 0, &je);
    }
    fclose(f);
    cr_assert_not_null(j, "%s", je.text);
    return j;
}

/* The document minus what the writer may change. */
static json_t *non_animation(const char *path)
{
    json_t *j = file_json(path);
    json_object_del(j, "accessors");
    json_object_del(j, "bufferViews");
    json_object_del(j, "buffers");
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(j, "animations"), i, a) json_object_del(a, "samplers");
    return j;
}

Test(gltf, write_copies_everything_but_animation)
{
    const char *p = gltf_sample_path("Fox.glb");
    const char *q = gltf_sample_path("cesium_man.gltf");
    if (!p || !q)
        cr_skip_test("no sample models");
    char *dir = tmpdir();
    const char *srcs[2] = {p, q}, *outs[2] = {"fox.gltf", "man.glb"};
    for (int m = 0; m < 2; m++) {
        pb_gltf g = read_ok(srcs[m]), r;
        pb_bvh_error err;
        cr_assert_eq(pb_gltf_resample(&g, 30, 0, &r, &err), PB_BVH_OK, "%s", err.message);
        char out[512];
        snprintf(out, sizeof out, "%s/%s", dir, outs[m]);
        cr_assert_eq(pb_gltf_write_file(out, &r, &err), PB_BVH_OK, "%s", err.message);
        pb_gltf h = read_ok(out);
        /* animations: exactly r's data */
        cr_assert_eq(h.num_animations, r.num_animations);
        for (size_t a = 0; a < h.num_animations; a++)
            for (size_t s = 0; s < h.animations[a].num_samplers; s++) {
                const pb_gltf_sampler *x = &h.animations[a].samplers[s],
                                      *y = &r.animations[a].samplers[s];
                cr_assert_eq(x->count, y->count);
                cr_assert_eq(x->components, y->components);
                cr_assert_eq(memcmp(x->output, y->output, x->count * x->components * 4), 0);
                cr_assert_eq(memcmp(x->input, y->input, x->count * 4), 0);
            }
        /* nodes, skins: the source's */
        cr_assert_eq(h.num_nodes, g.num_nodes);
        for (size_t n = 0; n < g.num_nodes; n++) {
            cr_assert_str_eq(h.nodes[n].name, g.nodes[n].name);
            cr_assert_eq(memcmp(h.nodes[n].rotation, g.nodes[n].rotation, 16), 0);
        }
        /* the JSON outside accessors, views, buffers and samplers: equal */
        json_t *ja = non_animation(srcs[m]), *jb = non_animation(out);
        cr_assert(json_equal(ja, jb), "%s: the JSON tree changed", outs[m]);
        json_decref(ja);
        json_decref(jb);
        pb_gltf_free(&h);
        pb_gltf_free(&r);
        pb_gltf_free(&g);
    }
    rmtree(dir);
}

/* glTF requires min and max on every animation input accessor: those the
 * writer gives must be the first and last key times exactly (as floats), in
 * every file it writes: resampled LINEAR and CUBICSPLINE, .glb and .gltf, a
 * source written again, a BVH clip. (CI's validator stage checks them too,
 * but only where node is installed.) */
static void expect_input_min_max(const char *path, const pb_gltf *r)
{
    json_t *j = file_json(path), *accs = json_object_get(j, "accessors");
    pb_gltf h = read_ok(path);
    cr_assert_eq(h.num_animations, r->num_animations);
    cr_assert_eq(json_array_size(json_object_get(j, "animations")), h.num_animations, "%s", path);
    size_t checked = 0;
    for (size_t a = 0; a < h.num_animations; a++) {
        json_t *sm =
            json_object_get(json_array_get(json_object_get(j, "animations"), a), "samplers");
        cr_assert_eq(json_array_size(sm), h.animations[a].num_samplers, "%s animation %zu", path,
                     a);
        for (size_t s = 0; s < h.animations[a].num_samplers; s++) {
            const pb_gltf_sampler *x = &h.animations[a].samplers[s],
                                  *y = &r->animations[a].samplers[s];
            cr_assert_eq(x->count, y->count);
            json_int_t in = json_integer_value(json_object_get(json_array_get(sm, s), "input"));
            json_t *acc = json_array_get(accs, (size_t)in);
            json_t *mn = json_object_get(acc, "min"), *mx = json_object_get(acc, "max");
            cr_assert(json_array_size(mn) == 1 && json_array_size(mx) == 1,
                      "%s animation %zu sampler %zu: input accessor %lld without min/max", path, a,
                      s, (long long)in);
            float lo = (float)json_number_value(json_array_get(mn, 0));
            float hi = (float)json_number_value(json_array_get(mx, 0));
            /* the keys as written (r) and as read back (h) */
            cr_assert(lo == y->input[0] && lo == x->input[0] && hi == y->input[y->count - 1] &&
                          hi == x->input[x->count - 1],
                      "%s animation %zu sampler %zu: min %.9g max %.9g, keys %.9g .. %.9g", path, a,
                      s, (double)lo, (double)hi, (double)y->input[0],
                      (double)y->input[y->count - 1]);
            checked++;
        }
    }
    cr_assert_gt(checked, 0);
    pb_gltf_free(&h);
    json_decref(j);
}

Test(gltf, written_input_min_max_are_the_first_and_last_key_times)
{
    char *dir = tmpdir();
    char out[512];
    pb_bvh_error err;
    const char *p = gltf_sample_path("Fox.glb"), *q = gltf_sample_path("cesium_man.gltf");
    const struct {
        const char *src, *out;
        double fps;
        unsigned flags;
    } cases[] = {
        {p, "fox30.gltf", 30, 0},
        {p, "fox60c.glb", 60, PB_GLTF_RESAMPLE_CUBIC},
        {p, "fox.glb", 0, 0},
        {q, "man24.glb", 24, 0},
        {q, "man50c.gltf", 50, PB_GLTF_RESAMPLE_CUBIC},
        {q, "man.gltf", 0, 0},
    };
    size_t done = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (!cases[c].src)
            continue; /* a missing sample model (named above) */
        pb_gltf g = read_ok(cases[c].src), r;
        if (cases[c].fps > 0)
            cr_assert_eq(pb_gltf_resample(&g, cases[c].fps, cases[c].flags, &r, &err), PB_BVH_OK,
                         "%s", err.message);
        snprintf(out, sizeof out, "%s/%s", dir, cases[c].out);
        const pb_gltf *w = cases[c].fps > 0 ? &r : &g;
        cr_assert_eq(pb_gltf_write_file(out, w, &err), PB_BVH_OK, "%s", err.message);
        expect_input_min_max(out, w);
        if (cases[c].fps > 0)
            pb_gltf_free(&r);
        pb_gltf_free(&g);
        done++;
    }
    /* a BVH clip (the shipped one), both containers */
    pb_bvh b;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &b, &err), PB_BVH_OK, "%s",
                 err.message);
    pb_gltf g;
    cr_assert_eq(pb_gltf_from_bvh(&b, &g, &err), PB_BVH_OK, "%s", err.message);
    const char *names[2] = {"cmu.glb", "cmu.gltf"};
    for (int k = 0; k < 2; k++) {
        snprintf(out, sizeof out, "%s/%s", dir, names[k]);
        cr_assert_eq(pb_gltf_write_file(out, &g, &err), PB_BVH_OK, "%s", err.message);
        expect_input_min_max(out, &g);
    }
    pb_gltf_free(&g);
    pb_bvh_free(&b);
    rmtree(dir);
    if (done < sizeof cases / sizeof cases[0]) /* the missing ones were named SKIP above */
        fprintf(stderr, "min/max: %zu of %zu sample-model cases run, and the BVH clip\n", done,
                sizeof cases / sizeof cases[0]);
}

/* The mesh data survive: a mesh accessor's bytes in the output equal the
 * source's (read through both documents' views). */
static unsigned char *accessor_bytes(const char *path, int acc, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    unsigned char *all = malloc((size_t)size);
    cr_assert_eq(fread(all, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    cr_assert(memcmp(all, "glTF", 4) == 0);
    unsigned jl = (unsigned)all[12] | (unsigned)all[13] << 8 | (unsigned)all[14] << 16;
    json_error_t je;
    json_t *j = json_loadb((const char *)all + 20, jl, 0, &je);
    const unsigned char *bin = all + 20 + jl + 8;
    json_t *a = json_array_get(json_object_get(j, "accessors"), (size_t)acc);
    json_t *v = json_array_get(json_object_get(j, "bufferViews"),
                               (size_t)json_integer_value(json_object_get(a, "bufferView")));
    size_t off = (size_t)json_integer_value(json_object_get(v, "byteOffset")) +
                 (size_t)json_integer_value(json_object_get(a, "byteOffset"));
    *n = (size_t)json_integer_value(json_object_get(a, "count")) * 12;
    unsigned char *out = malloc(*n);
    memcpy(out, bin + off, *n);
    json_decref(j);
    free(all);
    return out;
}

Test(gltf, write_keeps_mesh_bytes)
{
    const char *p = gltf_sample_path("Fox.glb");
    if (!p)
        cr_skip_test("no Fox.glb");
    char *dir = tmpdir();
    pb_gltf g = read_ok(p), r;
    pb_bvh_error err;
    cr_assert_eq(pb_gltf_resample(&g, 60, PB_GLTF_RESAMPLE_CUBIC, &r, &err), PB_BVH_OK);
    char out[512];
    snprintf(out, sizeof out, "%s/f.glb", dir);
    cr_assert_eq(pb_gltf_write_file(out, &r, &err), PB_BVH_OK, "%s", err.message);
    /* accessor 0 of Fox is the mesh's POSITION (VEC3 float) */
    size_t n1, n2;
    unsigned char *a = accessor_bytes(p, 0, &n1), *b = accessor_bytes(out, 0, &n2);
    cr_assert_eq(n1, n2);
    cr_assert_eq(memcmp(a, b, n1), 0);
    free(a);
    free(b);
    /* nothing left behind but the output */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = f.glb", dir);
    cr_assert_eq(system(cmd), 0);
    /* a directory is refused, nothing written */
    cr_assert_eq(pb_gltf_write_file(dir, &r, &err), PB_BVH_ERR_IO);
    pb_gltf_free(&r);
    pb_gltf_free(&g);
    rmtree(dir);
}

/* ---- BVH <-> glTF ---------------------------------------------------------- */

Test(gltf, bvh_gltf_bvh_round_trip_within_1e_3_degrees)
{
    pb_bvh b, back;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &b, &err), PB_BVH_OK, "%s",
                 err.message);
    pb_gltf g;
    cr_assert_eq(pb_gltf_from_bvh(&b, &g, &err), PB_BVH_OK, "%s", err.message);
    char *dir = tmpdir();
    char out[512];
    snprintf(out, sizeof out, "%s/c.glb", dir);
    cr_assert_eq(pb_gltf_write_file(out, &g, &err), PB_BVH_OK, "%s", err.message);
    pb_gltf h = read_ok(out);
    cr_assert_eq(h.num_nodes, b.num_joints + b.num_end_sites);
    cr_assert_eq(pb_gltf_to_bvh(&h, -1, 0, 0, &back, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(back.num_joints, b.num_joints);
    cr_assert_eq(back.num_end_sites, b.num_end_sites);
    cr_assert_eq(back.num_frames, b.num_frames);
    cr_assert_eq(back.frame_time, b.frame_time);
    double worst = 0, worst_pos = 0;
    for (size_t j = 0; j < b.num_joints; j++) {
        cr_assert_str_eq(back.joints[j].name, b.joints[j].name);
        cr_assert_eq(back.joints[j].parent, b.joints[j].parent);
        cr_assert_eq(back.joints[j].num_channels, b.joints[j].num_channels);
        cr_assert_eq(memcmp(back.joints[j].channels, b.joints[j].channels, 6), 0);
    }
    for (size_t e = 0; e < b.num_end_sites; e++) {
        cr_assert_eq(back.end_sites[e].parent, b.end_sites[e].parent);
        cr_assert_eq(back.end_sites[e].child_index, b.end_sites[e].child_index);
    }
    for (size_t i = 0; i < b.num_frames * b.num_joints; i++) {
        double a4[4] = {b.rot_w[i], b.rot_x[i], b.rot_y[i], b.rot_z[i]};
        double b4[4] = {back.rot_w[i], back.rot_x[i], back.rot_y[i], back.rot_z[i]};
        worst = fmax(worst, rot_angle(a4, b4) * 180 / 3.14159265358979323846);
        worst_pos = fmax(worst_pos, fabs((double)b.pos_x[i] - back.pos_x[i]));
    }
    fprintf(stderr, "BVH -> glTF -> BVH: max rotation difference %.3g degrees\n", worst);
    cr_assert_lt(worst, 1e-3, "%g degrees", worst);
    cr_assert_eq(worst_pos, 0.0);
    /* and through BVH text again */
    snprintf(out, sizeof out, "%s/c.bvh", dir);
    cr_assert_eq(pb_bvh_write_file(out, &back, &err), PB_BVH_OK, "%s", err.message);
    pb_bvh again;
    cr_assert_eq(pb_bvh_read_file(out, &again, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(again.num_frames, b.num_frames);
    pb_bvh_free(&again);
    pb_bvh_free(&back);
    pb_gltf_free(&h);
    pb_gltf_free(&g);
    pb_bvh_free(&b);
    rmtree(dir);
}

Test(gltf, gltf_to_bvh_of_a_skin)
{
    const char *p = gltf_sample_path("Fox.glb");
    if (!p)
        cr_skip_test("no Fox.glb");
    pb_gltf g = read_ok(p);
    pb_bvh b;
    pb_bvh_error err;
    cr_assert_eq(pb_gltf_default_skin(&g), 0);
    cr_assert_eq(pb_gltf_to_bvh(&g, 1, 0, 0, &b, &err), PB_BVH_ERR_ARG);
    cr_assert_not_null(strstr(err.message, "skin 1: the file has 1 skin"), "%s", err.message);
    cr_assert_eq(pb_gltf_to_bvh(&g, 0, 2, 0, &b, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_geq(b.num_joints, g.skins[0].num_joints);
    /* the Run animation: keys 1/24 s apart but the last 0.2 s: frames at the
     * median interval over its whole span */
    const pb_gltf_animation *run = &g.animations[2];
    cr_assert_float_eq(b.frame_time, 1.0 / 24, 1e-6);
    cr_assert_eq(b.num_frames, (size_t)floor((run->t_max - run->t_min) / b.frame_time + 1e-3) + 1);
    /* every skin joint is a BVH joint with its name, rotations as sampled */
    float *v = malloc(g.animations[2].num_values * sizeof *v);
    float t = g.animations[2].t_min + 5 * (float)b.frame_time;
    cr_assert_eq(pb_gltf_sample(&g, 2, 1, &t, v, &err), PB_BVH_OK);
    for (size_t c = 0; c < g.animations[2].num_channels; c++) {
        const pb_gltf_channel *ch = &g.animations[2].channels[c];
        if (ch->path != PB_GLTF_ROTATION)
            continue;
        long j = pb_bvh_find_joint(&b, g.nodes[ch->node].name);
        cr_assert_geq(j, 0, "%s", g.nodes[ch->node].name);
        size_t e = 5 * b.num_joints + (size_t)j;
        const float *q = v + ch->offset;
        double d = fabs((double)q[3] * b.rot_w[e] + (double)q[0] * b.rot_x[e] +
                        (double)q[1] * b.rot_y[e] + (double)q[2] * b.rot_z[e]);
        cr_assert_gt(d, 1 - 1e-6);
    }
    free(v);
    pb_bvh_free(&b);
    pb_gltf_free(&g);
}
