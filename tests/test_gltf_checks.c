/* glTF inputs that glTF forbids, and outputs our own readers would refuse
 * (issue 35, points 3 and 4): each is an error naming what is wrong, before
 * anything is written; resampling keeps each animation's length. Small GLBs
 * are built here (one node, one animation); the sample models come from
 * PB_SHARED_DATA_DIR/gltf. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bvh_text.h"
#include "clipdata.h"
#include "glb_build.h"
#include "gltf_util.h"
#include "posebatch/io.h"

/* One node animated by one rotation sampler of n keys (times, xyzw), read
 * from a GLB; extra JSON members of the node and the input accessor may be
 * given (node_extra, acc_extra: "" or ",\"key\":value"). */
static pb_bvh_code read_anim(size_t n, const float *times, const float *xyzw,
                             const char *node_extra, const char *view_extra, pb_gltf *g,
                             pb_bvh_error *err)
{
    size_t tb = n * 4, qb = n * 16;
    unsigned char *bin = malloc(tb + qb);
    cr_assert_not_null(bin);
    memcpy(bin, times, tb);
    memcpy(bin + tb, xyzw, qb);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\"%s}],"
             "\"buffers\":[{\"byteLength\":%zu}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu%s}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%zu,"
             "\"type\":\"SCALAR\"},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":%zu,\"type\":\"VEC4\"}],"
             "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}]}",
             node_extra, tb + qb, tb, tb, qb, view_extra, n, n);
    size_t size;
    unsigned char *glb = glb_build(json, bin, tb + qb, &size);
    cr_assert_not_null(glb);
    pb_bvh_code rc = pb_gltf_read_memory(glb, size, NULL, g, err);
    free(glb);
    free(bin);
    return rc;
}

static const float k_ident[4] = {0, 0, 0, 1};

static void keys(size_t n, const float *times, float *t, float *q)
{
    for (size_t i = 0; i < n; i++) {
        t[i] = times[i];
        memcpy(q + 4 * i, k_ident, sizeof k_ident);
    }
}

Test(gltf_checks, rotation_key_of_length_zero_refused)
{
    float t[3] = {0, 1, 2}, q[12];
    keys(3, t, t, q);
    q[4] = q[5] = q[6] = q[7] = 0.0f; /* key 1: (0, 0, 0, 0) */
    pb_gltf g;
    pb_bvh_error err;
    cr_assert_eq(read_anim(3, t, q, "", "", &g, &err), PB_BVH_ERR_VALUE, "%s", err.message);
    cr_expect(strstr(err.message, "accessor 1, key 1") != NULL, "%s", err.message);
    cr_expect(strstr(err.message, "length 0") != NULL, "%s", err.message);
}

Test(gltf_checks, forbidden_values_refused)
{
    float t[3] = {0, 1, 2}, q[12];
    keys(3, t, t, q);
    pb_gltf g;
    pb_bvh_error err;
    /* sanity: the same file without the fault reads */
    cr_assert_eq(read_anim(3, t, q, "", "", &g, &err), PB_BVH_OK, "%s", err.message);
    pb_gltf_free(&g);
    /* negative key times */
    float neg[3] = {-1, 0, 1};
    cr_expect_eq(read_anim(3, neg, q, "", "", &g, &err), PB_BVH_ERR_VALUE);
    cr_expect(strstr(err.message, "negative") != NULL, "%s", err.message);
    /* -1 as an index: glTF leaves an absent index out */
    cr_expect_eq(read_anim(3, t, q, ",\"mesh\":-1", "", &g, &err), PB_BVH_ERR_VALUE);
    cr_expect(strstr(err.message, "'mesh' is -1") != NULL, "%s", err.message);
    /* a byteStride smaller than the element (VEC4 of floats: 16 bytes) */
    cr_expect_eq(read_anim(3, t, q, "", ",\"byteStride\":8", &g, &err), PB_BVH_ERR_VALUE);
    cr_expect(strstr(err.message, "byteStride 8 is smaller") != NULL, "%s", err.message);
}

/* Keys far from zero at a high rate collapse in float: an error, not a file
 * whose key times do not increase (which every reader refuses). */
Test(gltf_checks, resample_refuses_keys_that_collapse)
{
    float t[4] = {1e7f, 1e7f + 1, 1e7f + 2, 1e7f + 3}, q[16];
    keys(4, t, t, q);
    pb_gltf g, r;
    pb_bvh_error err;
    cr_assert_eq(read_anim(4, t, q, "", "", &g, &err), PB_BVH_OK, "%s", err.message);
    cr_expect_eq(pb_gltf_resample(&g, 60, 0, &r, &err), PB_BVH_ERR_VALUE, "%s", err.message);
    cr_expect(strstr(err.message, "not distinct in float") != NULL, "%s", err.message);
    /* at 0.5 fps the same keys are distinct: resampled, each key time increasing */
    cr_assert_eq(pb_gltf_resample(&g, 0.5, 0, &r, &err), PB_BVH_OK, "%s", err.message);
    const pb_gltf_sampler *s = &r.animations[0].samplers[0];
    for (size_t k = 1; k < s->count; k++)
        cr_expect_gt(s->input[k], s->input[k - 1]);
    pb_gltf_free(&r);
    pb_gltf_free(&g);
}

/* A frame time the BVH reader refuses is never made or written. */
Test(gltf_checks, bvh_frame_times_the_reader_takes)
{
    float t[3] = {0, 1e-40f, 2e-40f}, q[12];
    keys(3, t, t, q);
    pb_gltf g;
    pb_bvh b;
    pb_bvh_error err;
    cr_assert_eq(read_anim(3, t, q, "", "", &g, &err), PB_BVH_OK, "%s", err.message);
    /* from the keys (1e-40 s apart) */
    cr_expect_eq(pb_gltf_to_bvh(&g, -1, 0, 0.0, &b, &err), PB_BVH_ERR_VALUE, "%s", err.message);
    cr_expect(strstr(err.message, "from the keys") != NULL, "%s", err.message);
    /* given: NaN, Inf are argument errors; 1e300 beyond float range */
    cr_expect_eq(pb_gltf_to_bvh(&g, -1, 0, NAN, &b, &err), PB_BVH_ERR_ARG);
    cr_expect_eq(pb_gltf_to_bvh(&g, -1, 0, INFINITY, &b, &err), PB_BVH_ERR_ARG);
    cr_expect_eq(pb_gltf_to_bvh(&g, -1, 0, 1e300, &b, &err), PB_BVH_ERR_VALUE);
    cr_expect_eq(pb_gltf_to_bvh(&g, -1, 0, 1e-6, &b, &err), PB_BVH_ERR_VALUE);
    /* a good one converts, and the writer then refuses to write a frame time
     * its reader would refuse */
    cr_assert_eq(pb_gltf_to_bvh(&g, -1, 0, 1.0 / 30, &b, &err), PB_BVH_OK, "%s", err.message);
    b.frame_time = 9.99e-41;
    bvh_write_refused(&b, PB_BVH_ERR_ARG, "frame time");
    pb_bvh_free(&b);
    pb_gltf_free(&g);
}

/* A tiny file claiming a huge animation fails at once on its estimated size
 * (it used to sample hundreds of millions of frames first). */
Test(gltf_checks, huge_animation_refused_up_front, .timeout = 10)
{
    float t[2] = {0, 1e7f}, q[8];
    keys(2, t, t, q);
    pb_gltf g;
    pb_bvh b;
    pb_bvh_error err;
    cr_assert_eq(read_anim(2, t, q, "", "", &g, &err), PB_BVH_OK, "%s", err.message);
    cr_expect_eq(pb_gltf_to_bvh(&g, -1, 0, 0.04, &b, &err), PB_BVH_ERR_LIMIT, "%s", err.message);
    cr_expect(strstr(err.message, "GB") != NULL, "%s", err.message);
    pb_gltf_free(&g);
}

/* Fox's Walk (0.7083 s) and Run (1.1583 s) keep their length at 60 fps: a
 * last key at the end, not 0.7 and 1.15 s (looping clips would pop). */
Test(gltf_checks, resample_keeps_each_animation_length)
{
    pb_gltf g = read_sample_or_skip("Fox.glb"), r;
    pb_bvh_error err;
    for (unsigned flags = 0; flags <= PB_GLTF_RESAMPLE_CUBIC; flags += PB_GLTF_RESAMPLE_CUBIC) {
        cr_assert_eq(pb_gltf_resample(&g, 60, flags, &r, &err), PB_BVH_OK, "%s", err.message);
        for (size_t a = 0; a < g.num_animations; a++) {
            cr_expect_eq(r.animations[a].t_max, g.animations[a].t_max,
                         "animation %zu: %g s, not %g", a, (double)r.animations[a].t_max,
                         (double)g.animations[a].t_max);
            /* the value at the end is the source's there */
            float t_end = g.animations[a].t_max;
            size_t nv = g.animations[a].num_values;
            float *u = malloc(nv * sizeof *u), *v = malloc(nv * sizeof *v);
            cr_assert_eq(pb_gltf_sample(&g, a, 1, &t_end, u, &err), PB_BVH_OK);
            cr_assert_eq(pb_gltf_sample(&r, a, 1, &t_end, v, &err), PB_BVH_OK);
            for (size_t i = 0; i < nv; i++)
                cr_expect_float_eq(u[i], v[i], 1e-5f * (1.0f + fabsf(u[i])), "value %zu", i);
            free(u);
            free(v);
        }
        pb_gltf_free(&r);
    }
    pb_gltf_free(&g);
}

/* glTF -> BVH: keys 1/24 s apart in float mean 1/24 s, written so. */
Test(gltf_checks, frame_time_of_the_keys_is_the_whole_rate)
{
    pb_gltf g = read_sample_or_skip("Fox.glb");
    pb_bvh b;
    pb_bvh_error err;
    cr_assert_eq(pb_gltf_to_bvh(&g, pb_gltf_default_skin(&g), 1, 0.0, &b, &err), PB_BVH_OK, "%s",
                 err.message);
    cr_expect_eq(b.frame_time, 1.0 / 24.0, "%.17g", b.frame_time);
    pb_bvh_free(&b);
    pb_gltf_free(&g);
}

/* pb_gltf_to_bvh_estimate (issue 47): what pb_gltf_to_bvh makes, measured
 * without making it. The shipped clip through glTF at its own rate and at
 * 60 fps: the same frame count and frame time as the conversion, and the
 * text within 5% of the text written; two keys 1e7 s apart at 1 s: ten
 * million frames (and at 1 ms ten billion, beyond what pb_gltf_to_bvh
 * makes), measured at once. */
Test(gltf_checks, to_bvh_estimate_measures_what_to_bvh_makes, .timeout = 30)
{
    pb_bvh src;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &src, &err), PB_BVH_OK, "%s",
                 err.message);
    pb_gltf g;
    cr_assert_eq(pb_gltf_from_bvh(&src, &g, &err), PB_BVH_OK, "%s", err.message);
    const double fts[2] = {0.0, 1.0 / 60.0};
    for (int k = 0; k < 2; k++) {
        size_t frames = 0;
        double ft = 0, bytes = 0;
        cr_assert_eq(pb_gltf_to_bvh_estimate(&g, -1, 0, fts[k], &frames, &ft, &bytes, &err),
                     PB_IO_OK, "%s", err.message);
        pb_bvh b;
        cr_assert_eq(pb_gltf_to_bvh(&g, -1, 0, fts[k], &b, &err), PB_IO_OK, "%s", err.message);
        cr_expect_eq(frames, b.num_frames, "frame time %g: %zu frames, made %zu", fts[k], frames,
                     b.num_frames);
        cr_expect_eq(ft, b.frame_time);
        size_t len = 0;
        free(bvh_text(&b, &len));
        cr_expect(fabs(bytes - (double)len) <= 0.05 * (double)len, "%.0f bytes, written %zu", bytes,
                  len);
        pb_bvh_free(&b);
    }
    pb_gltf_free(&g);
    pb_bvh_free(&src);

    float t[2] = {0, 1e7f}, q[8];
    keys(2, t, t, q);
    cr_assert_eq(read_anim(2, t, q, "", "", &g, &err), PB_BVH_OK, "%s", err.message);
    size_t frames = 0;
    double ft = 0, bytes = 0;
    cr_assert_eq(pb_gltf_to_bvh_estimate(&g, -1, 0, 1.0, &frames, &ft, &bytes, &err), PB_IO_OK,
                 "%s", err.message);
    cr_expect_eq(frames, 10000001);
    cr_expect_eq(ft, 1.0);
    cr_expect(bytes > 1e8 && bytes < 1e9, "%g bytes", bytes);
    cr_assert_eq(pb_gltf_to_bvh_estimate(&g, -1, 0, 1e-3, &frames, &ft, &bytes, &err), PB_IO_OK,
                 "%s", err.message);
    cr_expect_eq(frames, 10000000001u);
    pb_bvh b;
    cr_expect_eq(pb_gltf_to_bvh(&g, -1, 0, 1e-3, &b, &err), PB_IO_ERR_LIMIT);
    /* its errors are the conversion's: an animation it does not have */
    cr_expect_eq(pb_gltf_to_bvh_estimate(&g, -1, 3, 0, &frames, &ft, &bytes, &err), PB_IO_ERR_ARG);
    cr_expect_eq(pb_gltf_to_bvh_estimate(&g, -1, 0, 0, NULL, &ft, &bytes, &err), PB_IO_ERR_ARG);
    pb_gltf_free(&g);
}

/* A glTF made of a BVH says its frame time (extras "bvh_frame_time");
 * resampled, it says the new one (issue 47: a 120 fps clip resampled to
 * 30 fps converted back as 120 fps, four times as many frames), and the
 * resample's names stay valid once the source is freed. */
Test(gltf_checks, resample_says_its_frame_time)
{
    pb_bvh src;
    pb_bvh_error err;
    cr_assert_eq(pb_bvh_read_file(repo_clip_path("cmu_01_03.bvh"), &src, &err), PB_BVH_OK, "%s",
                 err.message);
    pb_gltf g, r;
    cr_assert_eq(pb_gltf_from_bvh(&src, &g, &err), PB_BVH_OK, "%s", err.message);
    cr_assert_eq(pb_gltf_resample(&g, 30, 0, &r, &err), PB_IO_OK, "%s", err.message);
    pb_gltf_free(&g);
    pb_bvh b;
    cr_assert_eq(pb_gltf_to_bvh(&r, -1, 0, 0, &b, &err), PB_IO_OK, "%s", err.message);
    cr_expect_eq(b.frame_time, 1.0 / 30.0, "%.17g", b.frame_time);
    size_t want = (size_t)floor((double)(src.num_frames - 1) * src.frame_time * 30 + 1e-3) + 1;
    cr_expect(b.num_frames == want || b.num_frames == want + 1, "%zu frames, not %zu", b.num_frames,
              want);
    cr_expect_str_eq(b.joints[0].name, src.joints[0].name);
    cr_expect_str_eq(r.animations[0].name, "bvh");
    pb_bvh_free(&b);
    pb_gltf_free(&r);
    pb_bvh_free(&src);
}

/* Not glTF, and said so (issue 47): a JSON array, and a GLB whose JSON
 * chunk is padded with NUL bytes instead of spaces (jansson's own message
 * was "end of file expected"). */
Test(gltf_checks, json_array_and_nul_padding_named)
{
    pb_gltf g;
    pb_io_error err;
    const char *arr = " [1, 2]";
    cr_expect_eq(pb_gltf_read_memory(arr, strlen(arr), NULL, &g, &err), PB_IO_ERR_SYNTAX);
    cr_expect(strstr(err.message, "a JSON array, not glTF") != NULL, "%s", err.message);
    size_t size; /* 41 bytes of JSON: padded with 3 */
    unsigned char *glb =
        glb_build("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}]} ", NULL, 0, &size);
    cr_assert_not_null(glb);
    cr_assert_eq(pb_gltf_read_memory(glb, size, NULL, &g, &err), PB_IO_OK, "%s", err.message);
    pb_gltf_free(&g);
    for (size_t i = size - 1; glb[i] == ' '; i--)
        glb[i] = '\0';
    cr_expect_eq(pb_gltf_read_memory(glb, size, NULL, &g, &err), PB_IO_ERR_SYNTAX);
    cr_expect(strstr(err.message, "JSON chunk ends in NUL bytes") != NULL, "%s", err.message);
    free(glb);
}
