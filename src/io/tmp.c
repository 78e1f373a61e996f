/* Registry of live temporary files for signal handlers (see tmp.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "tmp.h"
#include "posebatch/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { SLOT_FREE = 0, SLOT_FILLING = 1, SLOT_LIVE = 2, SLOT_CLAIMED = 3 };

typedef struct tmp_slot {
    atomic_int state;
    int dirfd;
    char name[IO_TMP_NAME];
} tmp_slot;

static tmp_slot slots[IO_TMP_SLOTS];

#if defined(ATOMIC_INT_LOCK_FREE) && ATOMIC_INT_LOCK_FREE != 2
#error "the temporary-file registry needs lock-free atomic int (signal handlers)"
#endif

int io_tmp_add(int dirfd, const char *name)
{
    size_t n = name ? strlen(name) : IO_TMP_NAME;
    if (n >= IO_TMP_NAME)
        return -1;
    for (int i = 0; i < IO_TMP_SLOTS; i++) {
        int want = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&slots[i].state, &want, SLOT_FILLING))
            continue;
        /* A handler skips FILLING slots: the file does not exist yet. */
        slots[i].dirfd = dirfd;
        memcpy(slots[i].name, name, n + 1);
        atomic_store(&slots[i].state, SLOT_LIVE);
        return i;
    }
    return -1;
}

int io_tmp_remove(int slot)
{
    if (slot < 0 || slot >= IO_TMP_SLOTS)
        return 1;
    int want = SLOT_LIVE;
    return atomic_compare_exchange_strong(&slots[slot].state, &want, SLOT_FREE) ? 1 : 0;
}

int io_tmp_unlink_all(void)
{
    int saved = errno, count = 0;
    for (int i = 0; i < IO_TMP_SLOTS; i++) {
        int want = SLOT_LIVE;
        /* Claimed slots stay claimed: the owner no longer reuses them. */
        if (atomic_compare_exchange_strong(&slots[i].state, &want, SLOT_CLAIMED) &&
            unlinkat(slots[i].dirfd, slots[i].name, 0) == 0)
            count++;
    }
    errno = saved;
    return count;
}

int pb_io_unlink_temporaries(void) { return io_tmp_unlink_all(); }
