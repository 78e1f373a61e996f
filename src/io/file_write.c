/* File output for every format (pb_io_write_file_cb: any writer that writes
 * to a FILE *). What is at the output path decides how it is written:
 *   nothing            a new file, created atomically (below);
 *   a regular file     replaced atomically, if the caller may write to it
 *                      (faccessat W_OK, effective ids): a file it could not
 *                      open for writing is refused, not replaced;
 *   a symbolic link    followed (chains, relative targets) and its target
 *                      written by these same rules; the link stays a link.
 *                      A dangling link: its target is created atomically;
 *   a character device or a FIFO
 *                      opened and written through directly (no temporary, no
 *                      rename): -o /dev/null is a dry run;
 *   anything else      (directory, socket, block device) refused.
 * Atomically: the text goes to ".<name>.tmp-<pid>-<n>" in the target's
 * directory (<name> shortened so that the temporary name stays within
 * NAME_MAX), which is flushed, fsync'ed, closed and renamed over the target;
 * the temporary is registered with tmp.c meanwhile, so that a signal
 * handler can remove it. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* O_PATH */
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "io_internal.h"
#include "tmp.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_NAME_MAX 255 /* NAME_MAX on every file system we care about */
#define MAX_LINK_HOPS 40 /* as the kernel's ELOOP limit */

/* "path: reason", or the reason alone when path and reason do not both fit
 * (the caller prints the path itself then): the OS reason is never cut. */
#define io_err(err, path, ...) io_path_err((err), PB_IO_ERR_IO, (path), __VA_ARGS__)

enum target_kind { T_NEW, T_REGULAR, T_STREAM };

typedef struct target {
    char *path; /* the file to write, symbolic links resolved (malloc'd) */
    enum target_kind kind;
    int via_link;   /* path is the target of a symbolic link */
    struct stat st; /* T_REGULAR, T_STREAM */
} target;

static const char *kind_name(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISBLK(m))
        return "a block device";
    return "not a regular file";
}

/* The contents of the symbolic link at path (malloc'd), or NULL (errno). */
static char *read_link(const char *path, size_t hint)
{
    size_t size = hint > 0 && hint < SIZE_MAX / 2 ? hint + 1 : 256;
    for (;;) {
        char *buf = malloc(size);
        if (!buf)
            return NULL;
        ssize_t n = readlink(path, buf, size);
        if (n < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return NULL;
        }
        if ((size_t)n < size) {
            buf[n] = '\0';
            return buf;
        }
        free(buf);
        if (size > ((size_t)1 << 20)) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        size *= 2;
    }
}

/* The link's text taken relative to the link's own directory. */
static char *link_target(const char *link, const char *text)
{
    const char *slash = strrchr(link, '/');
    if (text[0] == '/' || !slash) {
        char *p = strdup(text);
        return p;
    }
    size_t dl = (size_t)(slash - link) + 1, tl = strlen(text);
    char *p = malloc(dl + tl + 1);
    if (p) {
        memcpy(p, link, dl);
        memcpy(p + dl, text, tl + 1);
    }
    return p;
}

/* What path is, following symbolic links; fills *t or reports the refusal. */
static pb_io_code resolve(const char *path, target *t, pb_io_error *err)
{
    memset(t, 0, sizeof *t);
    /* Through any links, a device or FIFO is written through at path itself:
     * /dev/stdout's magic link names "pipe:[N]", not a path to follow. */
    if (stat(path, &t->st) == 0 && (S_ISCHR(t->st.st_mode) || S_ISFIFO(t->st.st_mode))) {
        t->path = strdup(path);
        t->kind = T_STREAM;
        return t->path ? PB_IO_OK : io_nomem(err);
    }
    char *cur = strdup(path);
    if (!cur)
        return io_nomem(err);
    for (int hops = 0;; hops++) {
        if (lstat(cur, &t->st) != 0) {
            int e = errno;
            if (e == ENOENT && hops > 0 && cur[0] && cur[strlen(cur) - 1] != '/') {
                t->path = cur; /* a dangling link: create its target */
                t->kind = T_NEW;
                return PB_IO_OK;
            }
            if (e == ENOENT && hops == 0) {
                t->path = cur;
                t->kind = T_NEW;
                return PB_IO_OK;
            }
            pb_io_code rc = hops ? io_err(err, path, "symbolic link to %s: %s", cur, strerror(e))
                                 : io_err(err, path, "%s", strerror(e));
            free(cur);
            return rc;
        }
        mode_t m = t->st.st_mode;
        if (S_ISLNK(m)) {
            if (hops >= MAX_LINK_HOPS) {
                free(cur);
                return io_err(err, path, "%s", strerror(ELOOP));
            }
            char *text = read_link(cur, (size_t)t->st.st_size);
            char *next = text ? link_target(cur, text) : NULL;
            int e = errno;
            free(text);
            if (!next) {
                pb_io_code rc =
                    io_err(err, path, "cannot read the symbolic link %s: %s", cur, strerror(e));
                free(cur);
                return rc;
            }
            free(cur);
            cur = next;
            t->via_link = 1;
            continue;
        }
        if (S_ISREG(m) || S_ISCHR(m) || S_ISFIFO(m)) {
            t->path = cur;
            t->kind = S_ISREG(m) ? T_REGULAR : T_STREAM;
            return PB_IO_OK;
        }
        pb_io_code rc = hops ? io_err(err, path, "its symbolic link target %s is %s; not replaced",
                                      cur, kind_name(m))
                             : io_err(err, path, "is %s; not replaced", kind_name(m));
        free(cur);
        return rc;
    }
}

/* A character device or FIFO: written through, no temporary, no rename. */
static pb_io_code write_through(const char *path, const target *t, pb_io_writer fn, void *ctx,
                                pb_io_error *err)
{
    int fd = open(t->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return io_err(err, path, "%s", strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        return io_err(err, path, "%s", strerror(e));
    }
    pb_io_code rc = fn(f, ctx, err);
    if (fclose(f) != 0 && rc == PB_IO_OK)
        rc = io_err(err, path, "close failed: %s", strerror(errno));
    return rc;
}

/* The directory part of p ("." when none), opened for *at() calls and
 * fsync; O_PATH when it cannot be read (a write-only directory). */
static int open_dir(const char *p, size_t dirlen, int has_slash)
{
    char *dir = malloc(dirlen + 2);
    if (!dir) {
        errno = ENOMEM;
        return -1;
    }
    if (has_slash && dirlen > 0) {
        memcpy(dir, p, dirlen);
        dir[dirlen] = '\0';
    } else
        strcpy(dir, has_slash ? "/" : ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#ifdef O_PATH
    if (fd < 0 && errno == EACCES)
        fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
#endif
    int e = errno;
    free(dir);
    errno = e;
    return fd;
}

/* ".<base>.tmp-<pid>-<n>" within TMP_NAME_MAX bytes: a long base is cut (not
 * inside a UTF-8 sequence); pid and n keep it unique, O_EXCL makes sure. */
static void tmp_name(char *out, size_t size, const char *base, unsigned n)
{
    char suffix[48];
    int k = snprintf(suffix, sizeof suffix, ".tmp-%ld-%08x", (long)getpid(), n);
    size_t sl = k > 0 ? (size_t)k : 0;
    size_t keep = strlen(base), room = TMP_NAME_MAX - 1 - sl;
    if (keep > room) {
        keep = room;
        while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80)
            keep--;
    }
    snprintf(out, size, ".%.*s%s", (int)keep, base, suffix);
}

static pb_io_code tmp_err(pb_io_error *err, const char *path, const target *t, int e)
{
    if (t->via_link)
        return io_err(err, path,
                      "cannot create a temporary file next to its symbolic link "
                      "target %s: %s",
                      t->path, strerror(e));
    return io_err(err, path, "cannot create a temporary file next to it: %s", strerror(e));
}

static pb_io_code write_atomic(const char *path, const target *t, pb_io_writer fn, void *ctx,
                               pb_io_error *err)
{
    if (t->kind == T_REGULAR && faccessat(AT_FDCWD, t->path, W_OK, AT_EACCESS) != 0)
        return io_err(err, path, "cannot write to it: %s; not replaced", strerror(errno));
    const char *slash = strrchr(t->path, '/');
    const char *base = slash ? slash + 1 : t->path;
    if (!base[0])
        return io_err(err, path, "%s", strerror(EISDIR));
    int dfd = open_dir(t->path, slash ? (size_t)(slash - t->path) : 0, slash != NULL);
    if (dfd < 0)
        return tmp_err(err, path, t, errno);
    static atomic_uint counter;
    char tmp[TMP_NAME_MAX + 1];
    int fd = -1, slot = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        unsigned n = (atomic_fetch_add(&counter, 1u) + 1u) ^ (unsigned)clock() ^
                     ((unsigned)attempt * 2654435761u);
        tmp_name(tmp, sizeof tmp, base, n);
        /* Registered before it exists: a signal in between finds nothing. */
        slot = io_tmp_add(dfd, tmp);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            int e = errno;
            io_tmp_remove(slot);
            slot = -1;
            errno = e;
            if (e != EEXIST)
                break;
        }
    }
    if (fd < 0) {
        pb_io_code rc = tmp_err(err, path, t, errno);
        close(dfd);
        return rc;
    }
    /* Keep the owner (where allowed: root, or a group of ours) and the
     * permissions of a file we replace. */
    if (t->kind == T_REGULAR) {
        if (fchown(fd, t->st.st_uid, t->st.st_gid) != 0)
            (void)fchown(fd, (uid_t)-1, t->st.st_gid);
        (void)fchmod(fd, t->st.st_mode & 07777);
    }
    pb_io_code rc = PB_IO_OK;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        rc = io_err(err, path, "%s", strerror(errno));
        close(fd);
    } else {
        rc = fn(f, ctx, err);
        if (rc == PB_IO_OK && fsync(fileno(f)) != 0 && errno != EINVAL && errno != ENOTSUP)
            rc = io_err(err, path, "fsync failed: %s", strerror(errno));
        if (fclose(f) != 0 && rc == PB_IO_OK)
            rc = io_err(err, path, "close failed: %s", strerror(errno));
    }
    if (rc == PB_IO_OK && renameat(dfd, tmp, dfd, base) != 0)
        rc = io_err(err, path, "cannot replace: %s", strerror(errno));
    if (rc != PB_IO_OK)
        unlinkat(dfd, tmp, 0);
    else
        (void)fsync(dfd); /* make the rename durable (best effort) */
    /* A signal handler that claimed the slot is using dfd: leave it open. */
    if (io_tmp_remove(slot))
        close(dfd);
    return rc;
}

pb_io_code pb_io_write_file_cb(const char *path, pb_io_writer fn, void *ctx, pb_io_error *err)
{
    if (path[strlen(path) - 1] == '/')
        return io_err(err, path, "is a directory");
    target t;
    pb_io_code rc = resolve(path, &t, err);
    if (rc)
        return rc;
    if (t.kind == T_STREAM)
        rc = write_through(path, &t, fn, ctx, err);
    else
        rc = write_atomic(path, &t, fn, ctx, err);
    free(t.path);
    return rc;
}

pb_io_code pb_io_write_file(const char *path, pb_io_write_fn fn, void *ctx, pb_io_error *err)
{
    io_clear_err(err);
    if (!path || !path[0] || !fn)
        return io_set_err(err, PB_IO_ERR_ARG, 0, "path or writer is NULL or empty");
    return pb_io_write_file_cb(path, fn, ctx, err);
}
