/* A clip written as BVH text to memory, read back from it, or refused by
 * the writer: for tests of what the writer produces or refuses (the files
 * that include it define _POSIX_C_SOURCE for open_memstream). */
#ifndef PB_TESTS_BVH_TEXT_H
#define PB_TESTS_BVH_TEXT_H

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posebatch/io.h"

/* b's text (malloc'd, NUL-terminated), *len its bytes; the writer must
 * succeed. */
static inline char *bvh_text(const pb_bvh *b, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    cr_assert_not_null(f);
    pb_io_error err;
    cr_assert_eq(pb_bvh_write_stream(f, b, &err), PB_IO_OK, "%s", err.message);
    fclose(f);
    return text;
}

/* b written and read back (both must succeed): the clip as read. */
static inline pb_bvh bvh_round_trip(const pb_bvh *b)
{
    size_t len = 0;
    char *text = bvh_text(b, &len);
    pb_bvh c;
    pb_io_error err;
    cr_assert_eq(pb_bvh_read_memory(text, len, &c, &err), PB_IO_OK, "%s\n%s", err.message, text);
    free(text);
    return c;
}

/* Writing b must fail with `code`, a message naming `needle`, and nothing
 * written. */
static inline void bvh_write_refused(const pb_bvh *b, pb_io_code code, const char *needle)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    pb_io_error err;
    cr_expect_eq(pb_bvh_write_stream(f, b, &err), code, "expected a refusal naming '%s'", needle);
    cr_expect(strstr(err.message, needle) != NULL, "'%s' lacks '%s'", err.message, needle);
    fflush(f);
    cr_expect_eq(len, 0, "nothing written: %zu bytes", len);
    fclose(f);
    free(text);
}

#endif /* PB_TESTS_BVH_TEXT_H */
