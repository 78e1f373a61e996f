/* The glTF reader's JSON members: arrays, integers in a range (indices:
 * absent, never -1), finite numbers, names; errors name the JSON path. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "gltf_reader.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An optional array member (NULL when absent); error when not an array. */
int gltf_opt_array(reader *r, json_t *obj, const char *key, const char *path, json_t **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v)
        return 0;
    if (!json_is_array(v)) {
        gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "'%s' is not an array", key);
        return -1;
    }
    *out = v;
    return 0;
}

/* An integer member in [lo, hi]; absent: *out = def, or an error when def is
 * -1 below lo (required). */
int gltf_get_int(reader *r, json_t *obj, const char *key, const char *path, long long lo,
                 long long hi, long long def, long long *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (def == -1 && def < lo) {
            gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "'%s' is missing", key);
            return -1;
        }
        *out = def;
        return 0;
    }
    if (!json_is_integer(v)) {
        gltf_err(r->err, PB_IO_ERR_VALUE, path, "'%s' is not an integer", key);
        return -1;
    }
    long long x = json_integer_value(v);
    if (lo < 0 && x < 0) { /* an optional index: absent, never -1 */
        gltf_err(r->err, PB_IO_ERR_VALUE, path,
                 "'%s' is %lld: glTF leaves an absent index out, it has no -1", key, x);
        return -1;
    }
    if (x < lo || x > hi) {
        gltf_err(r->err, PB_IO_ERR_VALUE, path, "'%s' is %lld, outside [%lld, %lld]", key, x, lo,
                 hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* n finite numbers from an array member; 1 when present, 0 absent, -1 error. */
int gltf_get_floats(reader *r, json_t *obj, const char *key, const char *path, size_t n,
                    double *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    if (!json_is_array(v) || json_array_size(v) != n) {
        gltf_err(r->err, PB_IO_ERR_SYNTAX, path, "'%s' is not an array of %zu numbers", key, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_number(e) || !isfinite(json_number_value(e))) {
            gltf_err(r->err, PB_IO_ERR_VALUE, path, "%s[%zu] is not a finite number", key, i);
            return -1;
        }
        out[i] = json_number_value(e);
    }
    return 1;
}

const char *gltf_get_name(json_t *obj)
{
    const char *s = json_string_value(json_object_get(obj, "name"));
    return s ? s : "";
}
