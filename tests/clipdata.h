/* Where the tests find real motion clips (shared by every test that reads
 * one).
 *
 * - The shipped clip: <source root>/data/cmu_01_03.bvh, always present
 *   (PB_REPO_DATA_DIR, set by meson).
 * - The optional shared collection: PB_SHARED_DATA_DIR/mocap, set by meson to
 *   <source root>/../shared/data; the environment variable of the same name
 *   overrides it. Tests that need it skip visibly (a "SKIP:" line on stderr
 *   and cr_skip_test) when it is absent.
 * The clips are only read, never copied or written. */
#ifndef POSEBATCH_TESTS_CLIPDATA_H
#define POSEBATCH_TESTS_CLIPDATA_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef PB_SHARED_DATA_DIR
#define PB_SHARED_DATA_DIR "../shared/data"
#endif
#ifndef PB_REPO_DATA_DIR
#define PB_REPO_DATA_DIR "data"
#endif

/* The shared data directory (environment override first). */
static inline const char *data_dir(void)
{
    const char *e = getenv("PB_SHARED_DATA_DIR");
    return (e && *e) ? e : PB_SHARED_DATA_DIR;
}

/* Full path of a clip in <data>/mocap (static storage), or NULL, with a
 * "SKIP:" line on stderr, if absent: the caller then skips its test. */
static inline char *clip_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/mocap/%s", data_dir(), name);
    struct stat st;
    if (stat(buf, &st) != 0) {
        fprintf(stderr, "SKIP: shared clip %s not found (PB_SHARED_DATA_DIR=%s)\n", buf,
                data_dir());
        return NULL;
    }
    return buf;
}

/* Full path of a clip shipped in the repository's data/ (static storage). */
static inline const char *repo_clip_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", PB_REPO_DATA_DIR, name);
    return buf;
}

/* Calls fn(path, file name, ctx) for every *.bvh in <data>/mocap (including
 * files added later), in directory order. Returns the number of files, or -1
 * (with a "SKIP:" line on stderr) if the directory is absent. */
typedef void (*mocap_file_fn)(const char *path, const char *name, void *ctx);
static inline int for_each_mocap_bvh(mocap_file_fn fn, void *ctx)
{
    char dirp[4096];
    snprintf(dirp, sizeof dirp, "%s/mocap", data_dir());
    DIR *d = opendir(dirp);
    if (!d) {
        fprintf(stderr, "SKIP: %s not found\n", dirp);
        return -1;
    }
    struct dirent *e;
    int count = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".bvh") != 0)
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dirp, e->d_name);
        fn(path, e->d_name, ctx);
        count++;
    }
    closedir(d);
    return count;
}

#endif /* POSEBATCH_TESTS_CLIPDATA_H */
