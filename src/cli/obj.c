/* Wavefront OBJ text of a triangle mesh (posebatch skin): "v x y z" per
 * vertex, "vn x y z" per normal where there are normals, and "f a b c"
 * (1-based; "a//a" with normals) per triangle. Numbers as %.9g (a float
 * reads back exactly). */
#include <stdio.h>

#include "cli_obj.h"

int cli_obj_write(FILE *f, const char *comment, size_t nv, const float *pos, const float *nrm,
                  size_t nt, const uint32_t *tri)
{
    if (comment)
        fprintf(f, "# %s\n", comment);
    for (size_t v = 0; v < nv; v++)
        fprintf(f, "v %.9g %.9g %.9g\n", (double)pos[v * 3], (double)pos[v * 3 + 1],
                (double)pos[v * 3 + 2]);
    for (size_t v = 0; nrm && v < nv; v++)
        fprintf(f, "vn %.9g %.9g %.9g\n", (double)nrm[v * 3], (double)nrm[v * 3 + 1],
                (double)nrm[v * 3 + 2]);
    for (size_t t = 0; t < nt; t++) {
        const unsigned long a = (unsigned long)tri[t * 3] + 1,
                            b = (unsigned long)tri[t * 3 + 1] + 1,
                            c = (unsigned long)tri[t * 3 + 2] + 1;
        if (nrm)
            fprintf(f, "f %lu//%lu %lu//%lu %lu//%lu\n", a, a, b, b, c, c);
        else
            fprintf(f, "f %lu %lu %lu\n", a, b, c);
    }
    return 0;
}
