/*
 * posebatch/io.h — files: the BVH (Biovision Hierarchy) and glTF 2.0 readers
 * and writers, Euler angles <-> quaternions, resampling a whole file's
 * motion, the table of formats, retargeting and mirroring clips. It
 * includes one header per part, each of which may be included alone:
 *
 *     posebatch/io_error.h   pb_io_code, pb_io_error, the file-output rules
 *     posebatch/euler.h      Euler angles <-> quaternions (double)
 *     posebatch/bvh.h        pb_bvh, the clip in memory; BVH read and write
 *     posebatch/gltf.h       glTF 2.0 read, sample, resample, write
 *     posebatch/formats.h    what a file is; a clip from or to any format
 *     posebatch/retarget.h   a clip onto another skeleton
 *     posebatch/mirror.h     left/right pairing by name, a clip mirrored
 *     posebatch/npz.h        NumPy arrays: .npy and .npz read and written
 *     posebatch/dataset.h    training data: features of a clip, AMASS input
 *
 * Part of libposebatch (link as for posebatch.h: pkg-config posebatch, or
 * CMake find_package(posebatch)).
 *
 *     pb_bvh in, out;
 *     pb_io_error err;
 *     if (pb_bvh_read_file("in.bvh", &in, &err) ||
 *         pb_bvh_resample(&in, 60.0, 0, &out, &err) ||
 *         pb_bvh_write_file("out.bvh", &out, &err))
 *         fprintf(stderr, "%s\n", err.message);  // "line 12: ..." or "PATH: reason"
 *
 * Errors
 * ------
 * Every function here returns a pb_io_code (PB_IO_OK == 0, so a nonzero
 * result is an error) and fills an optional pb_io_error: the code, the
 * 1-based line of the problem (0 when it is not about a line: I/O, memory,
 * arguments) and a message ("line N: ..." for problems in a text, "PATH:
 * reason" for I/O; the file name is not repeated in text errors). Like
 * pb_status for the batch functions, the code says what kind of failure it
 * is; the message says exactly what and where. Outputs are untouched on
 * error, with one documented exception: the readers leave *out zeroed
 * (nothing to free). Warnings (not errors) go to pb_bvh_read_opts.warn.
 *
 * Thread safety: every function is reentrant; distinct pb_bvh objects may be
 * used from different threads at once.
 */
#ifndef POSEBATCH_IO_H
#define POSEBATCH_IO_H

#include "../posebatch.h"
#include "io_error.h"
#include "euler.h"
#include "bvh.h"
#include "gltf.h"
#include "formats.h"
#include "retarget.h"
#include "mirror.h"
#include "npz.h"
#include "dataset.h"

#endif /* POSEBATCH_IO_H */
