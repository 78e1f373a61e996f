/* glTF resampling (the keys kept at the source rate, CUBICSPLINE tangents
 * Catmull-Rom) and writing: everything that is not animation copied
 * through, the input accessors' min / max, the mesh bytes. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "gltf_util.h"

/* ---- resample, write ------------------------------------------------------ */

Test(gltf, resample_at_the_source_rate_keeps_the_keys)
{
    pb_gltf g = read_sample_or_skip("Fox.glb"), r;
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
    pb_gltf g = read_sample_or_skip("cesium_man.gltf"), r;
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
