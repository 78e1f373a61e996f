/* An output file written whole or not at all (atomic.c), for the outputs the
 * library does not write itself (positions' CSV and NPY), by the rules of
 * the library's writers: see atomic.c. */
#ifndef PB_CLI_ATOMIC_H
#define PB_CLI_ATOMIC_H

#include <signal.h>
#include <stdio.h>

typedef struct cli_atomic {
    const char *path; /* as given, for messages */
    char *target;     /* the file replaced (symbolic links resolved) */
    char *tmp;        /* the temporary being written, or NULL */
    FILE *f;
    int masked; /* SIGINT, SIGTERM, SIGHUP blocked; old_mask to restore */
    sigset_t old_mask;
} cli_atomic;

/* Opens the stream to write path to ("-": standard output). NULL when path
 * cannot be written (reported as "posebatch: PATH: reason"). */
FILE *cli_atomic_open(const char *path, cli_atomic *a);
/* Between blocks of output: when SIGINT, SIGTERM or SIGHUP is pending,
 * removes the temporary and lets the signal end the process. Returns 0, or
 * -1 when it did so and the process lives on (a handler that returns): the
 * stream is closed then, stop writing (reported; cli_atomic_abort is still
 * safe to call). */
int cli_atomic_poll(cli_atomic *a);
/* Flushes, syncs and puts the file in place. 0, or -1 (reported; nothing
 * left behind). */
int cli_atomic_commit(cli_atomic *a);
/* Removes the temporary: nothing is written. */
void cli_atomic_abort(cli_atomic *a);

#endif /* PB_CLI_ATOMIC_H */
