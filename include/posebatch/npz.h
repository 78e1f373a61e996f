/* posebatch/npz.h — part of posebatch/io.h: NumPy arrays in files, .npy
 * (one array) and .npz (a zip archive of .npy entries, numpy.savez's and
 * numpy.savez_compressed's format), written and read without Python. */
#ifndef POSEBATCH_NPZ_H
#define POSEBATCH_NPZ_H

#include <stddef.h>

#include "io_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* NumPy arrays: .npy and .npz                                              */
/* ------------------------------------------------------------------------ */
/*
 * An array: a name, an element type, a shape (C order) and its data.
 * Numbers are in the machine's byte order in memory and little-endian in
 * files ('<f4', '<f8', '<i4', '<i8', '|u1'); strings are an array of UTF-8
 * C strings in memory and numpy's fixed-width unicode ('<U' + the longest
 * string's code points, UTF-32) in files. Elements of a type the reader
 * does not take (booleans, complex numbers, Python objects, structured
 * types) come back as PB_NPY_OTHER with no data: the arrays around them
 * are still read.
 */
typedef enum pb_npy_dtype {
    PB_NPY_F32 = 0, /* float */
    PB_NPY_F64 = 1, /* double */
    PB_NPY_I32 = 2, /* int32_t */
    PB_NPY_I64 = 3, /* int64_t */
    PB_NPY_U8 = 4,  /* uint8_t */
    PB_NPY_STR = 5, /* const char *: UTF-8, NUL-terminated */
    PB_NPY_OTHER = 6
} pb_npy_dtype;

#define PB_NPY_MAX_DIMS 8
/* The largest .npz or .npy read or written (no ZIP64 archives are
 * written: every entry and offset fits the 32-bit fields). */
#define PB_NPZ_MAX_BYTES ((size_t)0xfffffffe)

typedef struct pb_npy_array {
    const char *name; /* the entry's name without ".npy" */
    pb_npy_dtype dtype;
    int ndim;                      /* 0 (a scalar) .. PB_NPY_MAX_DIMS */
    size_t shape[PB_NPY_MAX_DIMS]; /* ndim entries */
    const void *data;              /* prod(shape) elements */
} pb_npy_array;

/* Arrays read from a file, owned (release with pb_npz_free). */
typedef struct pb_npz {
    size_t count;
    pb_npy_array *arrays; /* in the archive's order */
    void *priv_;
} pb_npz;

/* Writes `count` arrays as an .npz file: a zip archive of stored
 * (uncompressed) entries NAME.npy, each a .npy of format version 1.0 (its
 * header padded to 64 bytes), CRC-32 included, every date 1980-01-01 (the
 * same arrays give the same bytes); numpy.load reads it. By the file rules
 * of pb_io_write_file (a temporary renamed over path; "-" is not special
 * here). Errors, nothing written: PB_IO_ERR_ARG (NULL, a name NULL, empty,
 * with '/' or a control character, or used twice, ndim out of range, a
 * string NULL, data NULL for a non-empty array, PB_NPY_OTHER),
 * PB_IO_ERR_LIMIT (an archive above PB_NPZ_MAX_BYTES), PB_IO_ERR_NOMEM,
 * PB_IO_ERR_IO. */
PB_API pb_io_code pb_npz_write_file(const char *path, const pb_npy_array *arrays, size_t count,
                                    pb_io_error *err);
/* Reads an .npz: every entry NAME.npy (other entries are skipped), stored
 * or deflated (numpy.savez_compressed; deflate needs a build with zlib,
 * otherwise such an entry is PB_IO_ERR_ARG saying so); ZIP64 records as
 * numpy writes them. On success *out owns the arrays; on error *out is
 * zeroed. Errors: PB_IO_ERR_IO (the file), PB_IO_ERR_SYNTAX (not a zip
 * archive, a broken entry or .npy header, a CRC that does not match, a
 * Fortran-ordered array, data shorter than its shape), PB_IO_ERR_LIMIT
 * (above PB_NPZ_MAX_BYTES, more than PB_NPY_MAX_DIMS axes, sizes that
 * overflow), PB_IO_ERR_NOMEM; each message names the entry. */
PB_API pb_io_code pb_npz_read_file(const char *path, pb_npz *out, pb_io_error *err);
/* Reads an .npy file: one array, named after the file (its base name
 * without ".npy"); errors as pb_npz_read_file's. */
PB_API pb_io_code pb_npy_read_file(const char *path, pb_npz *out, pb_io_error *err);
/* The array of that name, or NULL. */
PB_API const pb_npy_array *pb_npz_find(const pb_npz *npz, const char *name);
/* Releases what a reader filled and zeroes it; NULL and zeroed are fine. */
PB_API void pb_npz_free(pb_npz *npz);

#ifdef __cplusplus
}
#endif

#endif /* POSEBATCH_NPZ_H */
