/* Reading files for the format readers, by rules that do not depend on the
 * format (internal to src/io). */
#ifndef PB_IO_FILE_READ_H
#define PB_IO_FILE_READ_H

#include <stddef.h>

/* A file that an asset names (a glTF buffer's uri, percent-decoded: rel, of
 * rel_len bytes): read only when, after resolving "..", "." and symbolic
 * links, it is a regular file inside the directory dir (itself resolved).
 * Opened without blocking (a FIFO cannot hang the reader) and read up to
 * `want` bytes, no further. Returns the bytes (malloc'd, *got of them; fewer
 * than want where the file is shorter), or NULL with why filled (a NUL byte in
 * the name, outside the directory, not a regular file, the OS reason) and
 * errno_out the OS error (0 for a refusal by these rules, ENOMEM when out of
 * memory). */
unsigned char *io_read_inside(const char *dir, const char *rel, size_t rel_len, size_t want,
                              size_t *got, char *why, size_t why_size, int *errno_out);

/* A whole file named by the caller, at most max bytes. Directories are
 * refused; a file that is not regular (a FIFO, a device) is read as a stream,
 * and its first bytes (up to 64 KiB, or all of a shorter file) are shown to
 * accept() first, so that /dev/zero or a binary stream is refused at once:
 * accept returns NULL to go on, else the message. *limit_hit set when the file
 * is larger than max. Returns the bytes (malloc'd) or NULL with errno set (0
 * with *refused set when accept refused, *limit_hit when too large). */
unsigned char *io_read_whole(const char *path, size_t max,
                             const char *(*accept)(const unsigned char *head, size_t n),
                             size_t *len, int *limit_hit, const char **refused);

#endif /* PB_IO_FILE_READ_H */
