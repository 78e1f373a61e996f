/* How a glTF file begins: GLB's magic, or a JSON object after a UTF-8 byte
 * order mark and blanks (gltf_head.c, built with or without jansson). The
 * table of formats (formats.c) recognises glTF by them; the reader finds
 * its JSON text with gltf_json_start. */
#ifndef PB_GLTF_HEAD_H
#define PB_GLTF_HEAD_H

#include <stddef.h>

/* the index of the first byte after a byte order mark and blanks */
size_t gltf_json_start(const unsigned char *data, size_t size);
/* whether the first n bytes h are GLB's magic / start a JSON object */
int gltf_head_is_glb(const unsigned char *h, size_t n);
int gltf_head_is_json(const unsigned char *h, size_t n);

#endif
