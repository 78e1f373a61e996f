/* BVH files: pb_bvh_write_file(_with) through the neutral file output
 * (file_write.c: atomic replace, links, devices; the rules are there). */
#include "bvh_internal.h"

pb_bvh_code pb_bvh_write_file(const char *path, const pb_bvh *b, pb_bvh_error *err)
{
    return pb_bvh_write_file_with(path, b, NULL, err);
}

typedef struct bvh_write_ctx {
    const pb_bvh *b;
    const pb_bvh_write_opts *opts;
} bvh_write_ctx;

static pb_bvh_code write_bvh(FILE *f, void *ctx, pb_bvh_error *err)
{
    const bvh_write_ctx *c = ctx;
    return pb_bvh_write_stream_with(f, c->b, c->opts, err);
}

pb_bvh_code pb_bvh_write_file_with(const char *path, const pb_bvh *b, const pb_bvh_write_opts *opts,
                                   pb_bvh_error *err)
{
    bvh_clear_err(err);
    if (!path || !path[0] || !b)
        return bvh_set_err(err, PB_BVH_ERR_ARG, 0, "path or bvh is NULL or empty");
    pb_bvh_code rc = bvh_validate(b, err);
    if (rc)
        return rc;
    bvh_write_ctx c = {b, opts};
    return pb_io_write_file_cb(path, write_bvh, &c, err);
}
