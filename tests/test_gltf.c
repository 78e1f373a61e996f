/* The glTF 2.0 reader (include/posebatch/io.h; src/io/gltf/) on the shared
 * sample models and on small files generated here (LINEAR, STEP,
 * CUBICSPLINE, quantized, sparse, an external .bin): the evaluation against
 * an independent double-precision transcription of the glTF 2.0
 * specification's interpolation. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "gltf_util.h"

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
    pb_gltf g = read_sample_or_skip("Fox.glb");
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
    pb_gltf g = read_sample_or_skip("cesium_man.gltf");
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

/* Only a sampler that a rotation channel uses holds rotations. A morph
 * target weights sampler of 4 targets is interpolated linearly (it was
 * slerped and normalised: (0.707, 0.707, 0, 0) halfway from (1,0,0,0) to
 * (0,1,0,0)), when sampled and when resampled; an unused VEC4 sampler keeps
 * the values it was read with (it was renormalised, so a round trip
 * changed them: the glTF fuzzer's open findings on unused samplers). */
Test(gltf, only_rotation_channels_make_rotations)
{
    static const char weights4[] =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"m\",\"mesh\":0}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{}}],\"weights\":[0,0,0,0]}],"
        "\"buffers\":[{\"byteLength\":72,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAgD8AAIA/AAAAAAAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAA"
        "QEAAAAAA\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},"
        "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":32},"
        "{\"buffer\":0,\"byteOffset\":40,\"byteLength\":32}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","
        "\"min\":[0],\"max\":[1]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":8,\"type\":\"SCALAR\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1},{\"input\":0,\"output\":2}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}]}]}";
    pb_gltf g;
    pb_io_error err;
    cr_assert_eq(pb_gltf_read_memory(weights4, strlen(weights4), NULL, &g, &err), PB_IO_OK, "%s",
                 err.message);
    const pb_gltf_animation *a = &g.animations[0];
    cr_assert_eq(a->num_samplers, 2);
    cr_assert_eq(a->samplers[0].components, 4);
    /* the unused VEC4 as read: (0,0,0,2), (0,0,3,0), not unit length */
    cr_expect_eq(a->samplers[1].output[3], 2.0f);
    cr_expect_eq(a->samplers[1].output[6], 3.0f);
    float t = 0.5f, v[8];
    cr_assert_eq(pb_gltf_sample(&g, 0, 1, &t, v, &err), PB_IO_OK, "%s", err.message);
    const float *w = v + a->channels[0].offset;
    cr_expect(w[0] == 0.5f && w[1] == 0.5f && w[2] == 0.0f && w[3] == 0.0f,
              "weights halfway: %g %g %g %g", w[0], w[1], w[2], w[3]);
    pb_gltf r;
    cr_assert_eq(pb_gltf_resample(&g, 4.0, 0, &r, &err), PB_IO_OK, "%s", err.message);
    const pb_gltf_sampler *rs = &r.animations[0].samplers[0], *ru = &r.animations[0].samplers[1];
    cr_assert_eq(rs->count, 5);
    cr_expect(rs->output[4] == 0.75f && rs->output[5] == 0.25f, "weights at 0.25 s: %g %g",
              rs->output[4], rs->output[5]);
    cr_expect(ru->output[3 * 4 + 2] == 2.25f && ru->output[3 * 4 + 3] == 0.5f,
              "unused VEC4 at 0.75 s, lerped: %g %g", ru->output[14], ru->output[15]);
    /* written and read back: the same values */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    cr_assert_eq(pb_gltf_write_stream(f, &r, 0, &err), PB_IO_OK, "%s", err.message);
    fclose(f);
    pb_gltf back;
    cr_assert_eq(pb_gltf_read_memory(text, len, NULL, &back, &err), PB_IO_OK, "%s", err.message);
    for (size_t s = 0; s < 2; s++) {
        const pb_gltf_sampler *x = &r.animations[0].samplers[s],
                              *y = &back.animations[0].samplers[s];
        cr_assert_eq(x->count * x->components, y->count * y->components);
        for (size_t i = 0; i < x->count * x->components; i++)
            cr_expect_eq(x->output[i], y->output[i], "sampler %zu value %zu: %g read back as %g", s,
                         i, x->output[i], y->output[i]);
    }
    free(text);
    pb_gltf_free(&back);
    pb_gltf_free(&r);
    pb_gltf_free(&g);
}

/* A CUBICSPLINE rotation whose tangents, times a huge key interval, pass
 * 1e18 (where pb_quat_normalize's square overflows float): sampled, still
 * a unit quaternion (it was (0,0,0,0): found by the glTF fuzzer). */
Test(gltf, cubic_rotation_with_huge_tangents_is_unit)
{
    static const char huge[] =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"n\"}],"
        "\"buffers\":[{\"byteLength\":104,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAI/LTmwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAAACPwvW8AAAAAAAA"
        "AAAAAAAAAAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAAAA=\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},"
        "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":96}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","
        "\"min\":[0],\"max\":[1e27]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":6,\"type\":\"VEC4\"}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1,"
        "\"interpolation\":\"CUBICSPLINE\"}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}]}";
    pb_gltf g;
    pb_io_error err;
    cr_assert_eq(pb_gltf_read_memory(huge, strlen(huge), NULL, &g, &err), PB_IO_OK, "%s",
                 err.message);
    const float t[3] = {1e9f, 2.5e26f, 7.5e26f};
    float v[12];
    cr_assert_eq(pb_gltf_sample(&g, 0, 3, t, v, &err), PB_IO_OK, "%s", err.message);
    for (int i = 0; i < 3; i++) {
        const float *q = v + 4 * i;
        double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                        (double)q[3] * q[3]);
        cr_expect_float_eq(n, 1.0, 1e-6, "t %g: (%g %g %g %g)", (double)t[i], q[0], q[1], q[2],
                           q[3]);
    }
    /* at 2.5e26 the tangent term (x: -0.03 x 1e27 x -0.047) dominates */
    cr_expect_gt(v[4], 0.999f, "x %g", v[4]);
    pb_gltf_free(&g);
}
