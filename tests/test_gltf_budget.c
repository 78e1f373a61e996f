/* The glTF reader's budget of decoded values across all accessors of one
 * read (2^28, gltf_value_budget in gltf_internal.h): many accessors over
 * one bufferView, each within the per-accessor limit, must spend it, so that
 * a small file cannot make the reader take memory without bound. The budget
 * is made small here (a variable only for this: the test is linked with the
 * static library) so that a small input shows it. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glb_build.h"
#include "posebatch/io.h"
#define PB_GLTF_JSON 1
#include "gltf_internal.h"

/* A GLB of k animations, each its own input accessor (8 key times) and
 * output accessor (8 VEC3 translations), all 2k accessors over the one
 * bufferView of 24 floats: 32 values an animation. */
static unsigned char *many_accessors(size_t k, size_t *size)
{
    float bin[24];
    for (int i = 0; i < 24; i++)
        bin[i] = (float)i; /* increasing: key times and translations alike */
    size_t cap = 512 + k * 256, n = 0;
    char *js = malloc(cap);
    cr_assert(js);
    n += (size_t)snprintf(js + n, cap - n,
                          "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\"}],"
                          "\"buffers\":[{\"byteLength\":96}],"
                          "\"bufferViews\":[{\"buffer\":0,\"byteLength\":96}],\"accessors\":[");
    for (size_t a = 0; a < k; a++)
        n += (size_t)snprintf(js + n, cap - n,
                              "%s{\"bufferView\":0,\"componentType\":5126,\"count\":8,\"type\":"
                              "\"SCALAR\"},{\"bufferView\":0,\"componentType\":5126,\"count\":8,"
                              "\"type\":\"VEC3\"}",
                              a ? "," : "");
    n += (size_t)snprintf(js + n, cap - n, "],\"animations\":[");
    for (size_t a = 0; a < k; a++)
        n += (size_t)snprintf(js + n, cap - n,
                              "%s{\"samplers\":[{\"input\":%zu,\"output\":%zu}],\"channels\":[{"
                              "\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}",
                              a ? "," : "", 2 * a, 2 * a + 1);
    n += (size_t)snprintf(js + n, cap - n, "]}");
    cr_assert_lt(n, cap);
    unsigned char *g = glb_build(js, bin, sizeof bin, size);
    cr_assert(g);
    free(js);
    return g;
}

/* 16 animations (512 values): read within a budget of 512; with 511 or
 * 400 left for them the accessor that would pass it is PB_IO_ERR_LIMIT,
 * named, and nothing is returned; with the default budget it reads. */
Test(gltf_budget, many_accessors_over_one_view_spend_it)
{
    const size_t k = 16;
    size_t size;
    unsigned char *glb = many_accessors(k, &size);
    pb_gltf g;
    pb_io_error err;
    cr_assert_eq(gltf_value_budget, (size_t)1 << 28, "the default: 2^28");
    cr_assert_eq(pb_gltf_read_memory(glb, size, NULL, &g, &err), PB_IO_OK, "%s", err.message);
    cr_expect_eq(g.num_animations, k);
    pb_gltf_free(&g);
    gltf_value_budget = 32 * k;
    cr_expect_eq(pb_gltf_read_memory(glb, size, NULL, &g, &err), PB_IO_OK, "%s", err.message);
    pb_gltf_free(&g);
    const size_t less[2] = {32 * k - 1, 400};
    for (int i = 0; i < 2; i++) {
        gltf_value_budget = less[i];
        memset(&g, 0x5a, sizeof g);
        pb_io_code rc = pb_gltf_read_memory(glb, size, NULL, &g, &err);
        cr_expect_eq(rc, PB_IO_ERR_LIMIT, "budget %zu: %d, %s", less[i], (int)rc, err.message);
        /* the first accessor past it: 400 = 12 animations (384) + 8 + 8 */
        char want[96];
        snprintf(want, sizeof want, "accessors[%d]: 24 values more", i ? 25 : 31);
        cr_expect(strstr(err.message, want) && strstr(err.message, "add up"),
                  "budget %zu: '%s' lacks '%s'", less[i], err.message, want);
        cr_expect_eq(g.num_animations, 0);
        cr_expect_null(g.priv_);
    }
    free(glb);
}
