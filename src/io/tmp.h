/* Registry of the temporary files being written (file_write.c), so that a
 * signal handler can remove them before the process dies.
 *
 * A fixed table of slots, each an atomic state plus a directory descriptor
 * and a file name (no allocation, no locks): io_tmp_add() stores a name
 * *before* the file is created, io_tmp_remove() clears it after the file
 * has been renamed or unlinked, and io_tmp_unlink_all() -- the only one
 * a signal handler may call -- claims every live slot with a compare-and-swap
 * and unlinkat()s it. A name registered but not yet created, or already
 * renamed, is simply not found (ENOENT). Safe from any number of threads and
 * from a handler running on any of them. Internal to posebatch. */
#ifndef PB_IO_TMP_H
#define PB_IO_TMP_H

#define IO_TMP_SLOTS 512 /* concurrent temporary files tracked (CLI: <= 256 jobs) */
#define IO_TMP_NAME 256  /* longest name + 1 (NAME_MAX + 1) */

/* Registers name (a file name, no '/', shorter than IO_TMP_NAME) inside
 * the directory dirfd. Returns the slot, or -1 when the table is full or the
 * name too long (the file is then written untracked). */
int io_tmp_add(int dirfd, const char *name);
/* Clears a slot from io_tmp_add (-1: nothing). Returns 1, or 0 when a
 * signal handler has claimed the slot: it is unlinking the file with dirfd,
 * so the caller must leave dirfd open (the process is about to end). */
int io_tmp_remove(int slot);
/* Unlinks every registered file. Async-signal-safe; keeps errno. Returns how
 * many were unlinked. */
int io_tmp_unlink_all(void);

#endif /* PB_IO_TMP_H */
