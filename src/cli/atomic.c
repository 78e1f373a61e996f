/* Writing a non-BVH output (positions' CSV and NPY) by the rules of the BVH
 * and glTF writers (src/io/file_write.c, which is internal to the library):
 * "-" is standard output; a character device or FIFO is written through; a
 * symbolic link's target is replaced (the link stays); a regular file is
 * replaced only when the user may write to it; anything else is refused. A
 * file is replaced atomically: the bytes go to ".<name>.tmp-<pid>-<n>" in the
 * target's directory, which is flushed, fsync'ed and renamed over it.
 *
 * SIGINT, SIGTERM and SIGHUP stay blocked while the temporary exists (the
 * library's registry of temporaries, which the CLI's handler empties, is not
 * reachable from here); cli_atomic_poll, called between blocks of output,
 * removes the temporary and lets a pending signal end the process as usual.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "cli.h"

static const int held_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* The signals to hold: those not ignored (an ignored signal that is blocked
 * stays pending on Linux; ignored, it is simply dropped, as it should be). */
static void held_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < sizeof held_signals / sizeof held_signals[0]; i++) {
        struct sigaction sa;
        if (sigaction(held_signals[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
            continue;
        sigaddset(set, held_signals[i]);
    }
}

/* Drops the temporary (if any) and restores the signal mask: a pending
 * signal is delivered now. */
static void release(cli_atomic *a)
{
    if (a->tmp) {
        unlink(a->tmp);
        free(a->tmp);
        a->tmp = NULL;
    }
    free(a->target);
    a->target = NULL;
    if (a->masked) {
        a->masked = 0;
        pthread_sigmask(SIG_SETMASK, &a->old_mask, NULL);
    }
}

static FILE *fail(cli_atomic *a, const char *fmt, const char *what)
{
    cli_error(fmt, a->path, what);
    if (a->f && a->f != stdout)
        fclose(a->f);
    a->f = NULL;
    release(a);
    return NULL;
}

FILE *cli_atomic_open(const char *path, cli_atomic *a)
{
    memset(a, 0, sizeof *a);
    a->path = path;
    if (cli_is_dash(path)) {
        a->f = stdout;
        return a->f;
    }
    struct stat st;
    /* through any links, a device or FIFO is written through at path */
    if (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        a->f = fopen(path, "w");
        return a->f ? a->f : fail(a, "%s: %s", strerror(errno));
    }
    int exists = lstat(path, &st) == 0;
    if (!exists && errno != ENOENT)
        return fail(a, "%s: %s", strerror(errno));
    if (exists && S_ISLNK(st.st_mode)) {
        a->target = realpath(path, NULL); /* the link's final target */
        if (!a->target)
            return fail(a, "%s: symbolic link to nowhere usable: %s", strerror(errno));
        if (stat(a->target, &st) != 0)
            return fail(a, "%s: %s", strerror(errno));
    } else {
        a->target = strdup(path);
        if (!a->target)
            return fail(a, "%s: %s", strerror(ENOMEM));
    }
    if (exists && !S_ISREG(st.st_mode))
        return fail(a, "%s: %s; not replaced",
                    S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
    if (exists && access(a->target, W_OK) != 0)
        return fail(a, "%s: cannot write to it: %s; not replaced", strerror(errno));
    /* the temporary beside the target */
    const char *slash = strrchr(a->target, '/');
    size_t dir_len = slash ? (size_t)(slash - a->target) + 1 : 0;
    const char *base = a->target + dir_len;
    static unsigned serial;
    char name[NAME_MAX + 1];
    char tail[64];
    snprintf(tail, sizeof tail, ".tmp-%ld-%u", (long)getpid(), serial++);
    size_t keep = strlen(base);
    if (keep > NAME_MAX - 1 - strlen(tail))
        keep = NAME_MAX - 1 - strlen(tail);
    snprintf(name, sizeof name, ".%.*s%s", (int)keep, base, tail);
    a->tmp = malloc(dir_len + strlen(name) + 1);
    if (!a->tmp)
        return fail(a, "%s: %s", strerror(ENOMEM));
    memcpy(a->tmp, a->target, dir_len);
    strcpy(a->tmp + dir_len, name);
    sigset_t set;
    held_set(&set);
    if (pthread_sigmask(SIG_BLOCK, &set, &a->old_mask) == 0)
        a->masked = 1;
    int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        int e = errno;
        free(a->tmp);
        a->tmp = NULL; /* not ours to remove */
        return fail(a, "%s: %s", strerror(e));
    }
    if (exists) { /* a replaced file keeps its mode, and owner and group where allowed */
        if (fchown(fd, st.st_uid, st.st_gid) != 0) {
            /* not allowed: the file is the caller's */
        }
        if (fchmod(fd, st.st_mode & 07777) != 0) {
            /* the default mode then */
        }
    }
    a->f = fdopen(fd, "w");
    if (!a->f) {
        int e = errno;
        close(fd);
        return fail(a, "%s: %s", strerror(e));
    }
    return a->f;
}

int cli_atomic_poll(cli_atomic *a)
{
    if (!a->masked)
        return 0;
    sigset_t pending, set;
    held_set(&set);
    if (sigpending(&pending) != 0)
        return 0;
    for (size_t i = 0; i < sizeof held_signals / sizeof held_signals[0]; i++)
        if (sigismember(&pending, held_signals[i]) && sigismember(&set, held_signals[i])) {
            if (a->f)
                fclose(a->f);
            a->f = NULL;
            release(a); /* the signal is delivered here and normally ends the process */
            cli_error("%s: interrupted; nothing written", a->path);
            return -1;
        }
    return 0;
}

int cli_atomic_commit(cli_atomic *a)
{
    FILE *f = a->f;
    a->f = NULL;
    if (!f)
        return -1;
    int bad = fflush(f) != 0 || ferror(f);
    int e = errno ? errno : EIO;
    if (f == stdout) {
        if (bad)
            cli_error("(stdout): write error: %s", strerror(e));
        return bad ? -1 : 0;
    }
    if (!bad && a->tmp && fsync(fileno(f)) != 0) {
        bad = 1;
        e = errno;
    }
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && a->tmp && rename(a->tmp, a->target) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        cli_error("%s: write error: %s", a->path, strerror(e));
        release(a);
        return -1;
    }
    free(a->tmp);
    a->tmp = NULL; /* renamed: nothing to remove */
    release(a);
    return 0;
}

void cli_atomic_abort(cli_atomic *a)
{
    if (a->f && a->f != stdout)
        fclose(a->f);
    a->f = NULL;
    release(a);
}
