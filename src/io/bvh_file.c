/* BVH file output: written to a temporary file beside the target, then
 * renamed over it. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "bvh_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

pb_bvh_code pb_bvh_write_file(const char *path, const pb_bvh *b, pb_bvh_error *err)
{
    return pb_bvh_write_file_with(path, b, NULL, err);
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
    size_t plen = strlen(path);
    if (path[plen - 1] == '/')
        return bvh_set_err(err, PB_BVH_ERR_IO, 0, "%s: is a directory", path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) : 0;
    const char *base = slash ? slash + 1 : path;
    /* "<dir>/.<base>.tmp-<pid>-<n>" */
    size_t tsize = plen + 64;
    char *tmp = malloc(tsize);
    if (!tmp)
        return bvh_set_err(err, PB_BVH_ERR_NOMEM, 0, "out of memory");
    static atomic_uint counter;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        unsigned n = (atomic_fetch_add(&counter, 1u) + 1u) ^ (unsigned)clock() ^
                     ((unsigned)attempt * 2654435761u);
        if (slash)
            snprintf(tmp, tsize, "%.*s/.%s.tmp-%ld-%08x", (int)dirlen, path, base, (long)getpid(), n);
        else
            snprintf(tmp, tsize, ".%s.tmp-%ld-%08x", base, (long)getpid(), n);
        if (slash && dirlen == 0) /* path "/name" */
            snprintf(tmp, tsize, "/.%s.tmp-%ld-%08x", base, (long)getpid(), n);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return bvh_set_err(err, PB_BVH_ERR_IO, 0, "%s: cannot create a temporary file next to it: %s",
                       path, strerror(e));
    }
    /* Keep the permissions of a file we replace. */
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        (void)fchmod(fd, st.st_mode & 07777);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return bvh_set_err(err, PB_BVH_ERR_IO, 0, "%s: %s", path, strerror(e));
    }
    rc = pb_bvh_write_stream_with(f, b, opts, err);
    if (rc == PB_BVH_OK && fsync(fileno(f)) != 0 && errno != EINVAL && errno != ENOTSUP)
        rc = bvh_set_err(err, PB_BVH_ERR_IO, 0, "%s: fsync failed: %s", path, strerror(errno));
    if (fclose(f) != 0 && rc == PB_BVH_OK)
        rc = bvh_set_err(err, PB_BVH_ERR_IO, 0, "%s: close failed: %s", path, strerror(errno));
    if (rc == PB_BVH_OK && rename(tmp, path) != 0)
        rc = bvh_set_err(err, PB_BVH_ERR_IO, 0, "%s: cannot replace: %s", path, strerror(errno));
    if (rc != PB_BVH_OK) {
        unlink(tmp);
        free(tmp);
        return rc;
    }
    free(tmp);
    /* Make the rename durable (best effort). */
    char *dir = malloc(dirlen + 2);
    if (dir) {
        if (slash && dirlen > 0) {
            memcpy(dir, path, dirlen);
            dir[dirlen] = '\0';
        } else
            strcpy(dir, slash ? "/" : ".");
        int dfd = open(dir, O_RDONLY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    return PB_BVH_OK;
}
