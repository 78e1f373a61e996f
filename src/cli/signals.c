/* SIGINT, SIGTERM and SIGHUP: remove the temporary files being written
 * (pb_io_unlink_temporaries) and die of the same signal, so that the shell sees
 * 128 + N (130, 143, 129) and no hidden ".NAME.tmp-PID-N" file is left. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NUM_CLEANUP_SIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])

/* Async-signal-safe only: unlinkat, sigaction, raise, pthread_sigmask, _exit. */
static void on_signal(int sig)
{
    pb_io_unlink_temporaries();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    /* Blocked while this handler runs: pending until unblocked just below,
     * then the default action ends the whole process. */
    raise(sig);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    _exit(128 + sig);
}

void cli_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NUM_CLEANUP_SIGNALS; i++)
        sigaddset(&sa.sa_mask, cleanup_signals[i]);
    for (size_t i = 0; i < NUM_CLEANUP_SIGNALS; i++) {
        struct sigaction old;
        /* A signal ignored when we start (nohup, '&' without job control)
         * stays ignored. */
        if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}
