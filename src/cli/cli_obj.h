/* The OBJ writer of posebatch skin (obj.c). */
#ifndef PB_CLI_OBJ_H
#define PB_CLI_OBJ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* nv vertices (pos: xyz each; nrm: xyz each, or NULL) and nt triangles (3
 * 0-based vertex indices each) as OBJ text to f, after "# comment" (NULL:
 * none). Returns 0 (stream errors are the caller's to check). */
int cli_obj_write(FILE *f, const char *comment, size_t nv, const float *pos, const float *nrm,
                  size_t nt, const uint32_t *tri);

#endif
