/* Reading files for the format readers (file_read.h): an asset's own files
 * only inside its directory, and whole files with a look at their first bytes
 * before a stream is read to its end. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* realpath, O_CLOEXEC, O_NOFOLLOW */
#endif

#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEAD_BYTES ((size_t)1 << 16)

/* Reads fd to its end or to `want` bytes (max + 1 where limit_hit is
 * wanted), growing from `hint`; after the first HEAD_BYTES (or a shorter
 * end), accept sees them. NULL with errno (0: refused or too large). */
static unsigned char *read_fd(int fd, size_t want, size_t hint,
                              const char *(*accept)(const unsigned char *, size_t),
                              const char **refused, size_t *len)
{
    size_t cap = hint && hint < want ? hint : (want < HEAD_BYTES ? want : HEAD_BYTES);
    if (cap == 0)
        cap = 1;
    unsigned char *buf = malloc(cap);
    size_t n = 0;
    int looked = accept == NULL;
    if (!buf) {
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (n == cap && n < want) {
            size_t nc = cap > want / 2 ? want : cap * 2;
            unsigned char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        ssize_t got = n < want ? read(fd, buf + n, cap - n) : 0;
        if (got < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            errno = e;
            return NULL;
        }
        n += (size_t)got;
        if (!looked && (n >= HEAD_BYTES || got == 0 || n == want)) {
            looked = 1;
            const char *why = accept(buf, n);
            if (why) {
                *refused = why;
                free(buf);
                errno = 0;
                return NULL;
            }
        }
        if (got == 0)
            break;
    }
    *len = n;
    return buf;
}

unsigned char *io_read_whole(const char *path, size_t max,
                             const char *(*accept)(const unsigned char *head, size_t n),
                             size_t *len, int *limit_hit, const char **refused)
{
    *limit_hit = 0;
    *refused = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    size_t hint = 0;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        errno = EISDIR;
        return NULL;
    }
    if (S_ISREG(st.st_mode)) {
        if ((unsigned long long)st.st_size > (unsigned long long)max) {
            close(fd);
            *limit_hit = 1;
            errno = 0;
            return NULL;
        }
        hint = (size_t)st.st_size + 1; /* + 1: the end is seen without a regrowth */
    }
    unsigned char *buf = read_fd(fd, max + 1, hint, accept, refused, len);
    int e = errno;
    close(fd);
    if (buf && *len > max) {
        free(buf);
        *limit_hit = 1;
        e = 0;
        buf = NULL;
    }
    errno = e;
    return buf;
}

static void say(char *why, size_t size, const char *text) { snprintf(why, size, "%s", text); }

unsigned char *io_read_inside(const char *dir, const char *rel, size_t rel_len, size_t want,
                              size_t *got, char *why, size_t why_size, int *errno_out)
{
    *got = 0;
    *errno_out = 0;
    if (memchr(rel, '\0', rel_len) || rel_len == 0) {
        say(why, why_size, rel_len ? "a NUL byte in the file name" : "an empty file name");
        return NULL;
    }
    if (rel[0] == '/') {
        say(why, why_size, "an absolute path: only files inside the asset's directory are read");
        return NULL;
    }
    /* the name as given (dir/rel), for messages, and as resolved */
    if (!dir || !dir[0])
        dir = ".";
    size_t gl = strlen(dir), sep = dir[gl - 1] != '/';
    char *given = malloc(gl + sep + rel_len + 1);
    if (!given) {
        *errno_out = ENOMEM;
        say(why, why_size, "out of memory");
        return NULL;
    }
    memcpy(given, dir, gl);
    given[gl] = '/';
    memcpy(given + gl + sep, rel, rel_len);
    given[gl + sep + rel_len] = '\0';
    char *rdir = realpath(dir, NULL);
    char *rfile = rdir ? realpath(given, NULL) : NULL;
    if (!rfile) {
        *errno_out = errno;
        snprintf(why, why_size, "%s: %s", given, strerror(errno));
        free(given);
        free(rdir);
        return NULL;
    }
    free(given);
    size_t dl = strlen(rdir);
    /* inside: rdir is a proper prefix ending at a '/' ("/" itself ends in one) */
    int inside = strncmp(rfile, rdir, dl) == 0 &&
                 ((dl > 0 && rdir[dl - 1] == '/') ? rfile[dl] != '\0' : rfile[dl] == '/');
    free(rdir);
    if (!inside) {
        say(why, why_size, "outside the asset's directory (after resolving '..' and links)");
        free(rfile);
        return NULL;
    }
    /* O_NOFOLLOW: the resolved path has no link left, so one planted since
     * is refused rather than followed; O_NONBLOCK: opening a FIFO cannot
     * wait for a writer */
    int fd = open(rfile, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    free(rfile);
    if (fd < 0) {
        *errno_out = errno;
        say(why, why_size, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *errno_out = errno;
        say(why, why_size, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        say(why, why_size, "not a regular file");
        close(fd);
        return NULL;
    }
    const char *refused = NULL;
    size_t hint =
        (unsigned long long)st.st_size < (unsigned long long)want ? (size_t)st.st_size : want;
    unsigned char *buf = read_fd(fd, want, hint ? hint : 1, NULL, &refused, got);
    if (!buf) {
        *errno_out = errno;
        say(why, why_size, strerror(errno));
    }
    close(fd);
    return buf;
}
