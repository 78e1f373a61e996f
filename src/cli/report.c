/* What the commands tell the user: errors (one lock for stderr, shared with
 * the progress line), usage errors, the progress line, and library errors
 * and statuses as messages naming the file. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* One lock for stderr: workers report errors while the main thread may be
 * redrawing the progress line. */
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static int progress_shown; /* a progress line without newline is on screen */

static void clear_progress_locked(void)
{
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        progress_shown = 0;
    }
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&err_lock);
    clear_progress_locked();
    fputs("posebatch: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    pthread_mutex_unlock(&err_lock);
    va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "posebatch%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'posebatch%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    va_end(ap);
    return CLI_USAGE;
}

static int progress_tty = -1; /* stderr is a terminal (-1: not asked yet) */

/* Under err_lock. */
static int progress_on_locked(void)
{
    if (progress_tty < 0)
        progress_tty = isatty(STDERR_FILENO);
    return progress_tty;
}

void cli_progress(size_t done, size_t total, const char *name)
{
    pthread_mutex_lock(&err_lock);
    if (progress_on_locked()) {
        fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, name);
        fflush(stderr);
        progress_shown = 1;
    }
    pthread_mutex_unlock(&err_lock);
}

void cli_progress_frames(void *ctx, size_t done, size_t total)
{
    cli_file_progress *fp = ctx;
    if (total == 0 || done > total)
        return;
    int pct = (int)(done * 100 / total);
    if (pct == fp->pct) /* redraw only when the number changes */
        return;
    fp->pct = pct;
    pthread_mutex_lock(&err_lock);
    if (progress_on_locked()) {
        fprintf(stderr, "\r\033[K[%zu/%zu] %s %d%%", fp->index, fp->total, fp->name, pct);
        fflush(stderr);
        progress_shown = 1;
    }
    pthread_mutex_unlock(&err_lock);
}

void cli_progress_end(void)
{
    pthread_mutex_lock(&err_lock);
    if (progress_shown)
        fputc('\n', stderr);
    progress_shown = 0;
    pthread_mutex_unlock(&err_lock);
}

void cli_report_bvh(const char *path, const pb_io_error *err)
{
    /* I/O messages already start with the path. */
    size_t n = strlen(path);
    if (strncmp(err->message, path, n) == 0 && err->message[n] == ':')
        cli_error("%s", err->message);
    else
        cli_error("%s: %s", path, err->message[0] ? err->message : pb_io_code_str(err->code));
}

void cli_report_status(const char *path, const char *what, pb_status st)
{
    cli_error("%s: %s: %s", path, what, pb_status_str(st));
}
