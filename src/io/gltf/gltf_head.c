/* How a glTF file begins (gltf_head.h). */
#include "gltf_head.h"

#include <string.h>

size_t gltf_json_start(const unsigned char *data, size_t size)
{
    size_t i = 0;
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
        i = 3;
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    return i;
}

int gltf_head_is_glb(const unsigned char *h, size_t n)
{
    return n >= 4 && memcmp(h, "glTF", 4) == 0;
}

int gltf_head_is_json(const unsigned char *h, size_t n)
{
    size_t i = gltf_json_start(h, n);
    return i < n && h[i] == '{';
}
