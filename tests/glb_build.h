/* A GLB in memory for the glTF tests: the JSON chunk (padded with blanks)
 * and, when bin_len > 0, the BIN chunk (padded with zeros). Returns the
 * malloc'd file and its size in *size. */
#ifndef PB_TESTS_GLB_BUILD_H
#define PB_TESTS_GLB_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline void glb_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline unsigned char *glb_build(const char *json, const void *bin, size_t bin_len,
                                       size_t *size)
{
    size_t jl = (strlen(json) + 3) & ~(size_t)3, bl = (bin_len + 3) & ~(size_t)3;
    size_t n = 12 + 8 + jl + (bin_len ? 8 + bl : 0);
    unsigned char *g = calloc(n, 1);
    if (!g)
        return NULL;
    glb_put32(g, 0x46546C67u); /* "glTF" */
    glb_put32(g + 4, 2);
    glb_put32(g + 8, (uint32_t)n);
    glb_put32(g + 12, (uint32_t)jl);
    glb_put32(g + 16, 0x4E4F534Au); /* "JSON" */
    memset(g + 20, ' ', jl);
    memcpy(g + 20, json, strlen(json));
    if (bin_len) {
        glb_put32(g + 20 + jl, (uint32_t)bl);
        glb_put32(g + 24 + jl, 0x004E4942u); /* "BIN\0" */
        memcpy(g + 28 + jl, bin, bin_len);
    }
    *size = n;
    return g;
}

#endif /* PB_TESTS_GLB_BUILD_H */
