/* The files a glTF asset may make the reader open (src/io/file_read.c): a
 * buffer's uri names a regular file inside the asset's directory, after
 * resolving "..", percent-escapes and symbolic links; nothing else is read,
 * nothing past byteLength, and a FIFO or device never blocks the reader.
 * Each case builds its asset in a fresh temporary directory with a "secret"
 * file beside it (outside the asset's directory). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "posebatch/io.h"
#include "glb_build.h"

typedef struct site {
    char top[256];   /* holds secret.bin and asset/ */
    char asset[300]; /* the asset's directory */
} site;

static const unsigned char k_bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};

static void put_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

static void site_make(site *s)
{
    const char *t = getenv("TMPDIR");
    snprintf(s->top, sizeof s->top, "%s/pb_gltf_paths.XXXXXX", t && *t ? t : "/tmp");
    cr_assert_not_null(mkdtemp(s->top), "mkdtemp: %s", strerror(errno));
    snprintf(s->asset, sizeof s->asset, "%s/asset", s->top);
    cr_assert_eq(mkdir(s->asset, 0700), 0);
    char p[400];
    snprintf(p, sizeof p, "%s/secret.bin", s->top);
    put_file(p, k_bytes, sizeof k_bytes);
    snprintf(p, sizeof p, "%s/ok.bin", s->asset);
    put_file(p, k_bytes, sizeof k_bytes);
    snprintf(p, sizeof p, "%s/sub", s->asset);
    cr_assert_eq(mkdir(p, 0700), 0);
}

static void site_drop(const site *s)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->top);
    cr_assert_eq(system(cmd), 0);
}

/* A glTF whose only buffer has this uri and byteLength 8, read from memory
 * with the asset's directory as its base. */
static pb_bvh_code read_uri(const site *s, const char *uri, pb_gltf *g, pb_bvh_error *err)
{
    char json[512];
    int n = snprintf(json, sizeof json,
                     "{\"asset\":{\"version\":\"2.0\"},"
                     "\"buffers\":[{\"uri\":\"%s\",\"byteLength\":8}]}",
                     uri);
    return pb_gltf_read_memory(json, (size_t)n, s->asset, g, err);
}

static void expect_refused(const char *uri, const char *words)
{
    site s;
    site_make(&s);
    pb_gltf g;
    pb_bvh_error err;
    pb_bvh_code rc = read_uri(&s, uri, &g, &err);
    cr_expect_eq(rc, PB_BVH_ERR_VALUE, "uri '%s': code %d", uri, (int)rc);
    cr_expect(strstr(err.message, words) != NULL, "uri '%s': message '%s' lacks '%s'", uri,
              err.message, words);
    cr_expect(strstr(err.message, uri) != NULL, "the message '%s' does not name the uri",
              err.message);
    if (rc == PB_BVH_OK)
        pb_gltf_free(&g);
    site_drop(&s);
}

static void expect_read(const site *s, const char *uri)
{
    pb_gltf g;
    pb_bvh_error err;
    pb_bvh_code rc = read_uri(s, uri, &g, &err);
    cr_expect_eq(rc, PB_BVH_OK, "uri '%s': %s", uri, err.message);
    if (rc == PB_BVH_OK)
        pb_gltf_free(&g);
}

Test(gltf_paths, parent_directory_refused)
{
    expect_refused("../secret.bin", "outside the asset's directory");
    expect_refused("sub/../../secret.bin", "outside the asset's directory");
    expect_refused("../../../../../../../../etc/passwd", "outside the asset's directory");
}

Test(gltf_paths, percent_escaped_parent_refused)
{
    expect_refused("%2e%2e/secret.bin", "outside the asset's directory");
    expect_refused("%2E%2E%2Fsecret.bin", "outside the asset's directory");
}

Test(gltf_paths, absolute_and_proc_refused)
{
    expect_refused("/proc/self/fd/0", "only relative file names");
    expect_refused("%2fetc/passwd", "absolute path");
}

Test(gltf_paths, percent_nul_refused) { expect_refused("ok.bin%00.png", "NUL"); }

Test(gltf_paths, link_leaving_the_directory_refused)
{
    site s;
    site_make(&s);
    char p[400];
    snprintf(p, sizeof p, "%s/out.bin", s.asset);
    cr_assert_eq(symlink("../secret.bin", p), 0);
    snprintf(p, sizeof p, "%s/zero.bin", s.asset);
    cr_assert_eq(symlink("/dev/zero", p), 0);
    snprintf(p, sizeof p, "%s/sub/up", s.asset);
    cr_assert_eq(symlink("../..", p), 0);
    pb_gltf g;
    pb_bvh_error err;
    const char *uris[] = {"out.bin", "zero.bin", "sub/up/secret.bin"};
    for (size_t i = 0; i < 3; i++) {
        pb_bvh_code rc = read_uri(&s, uris[i], &g, &err);
        cr_expect_eq(rc, PB_BVH_ERR_VALUE, "uri '%s': code %d", uris[i], (int)rc);
        cr_expect(strstr(err.message, "outside the asset's directory") != NULL, "%s: %s", uris[i],
                  err.message);
        if (rc == PB_BVH_OK)
            pb_gltf_free(&g);
    }
    site_drop(&s);
}

Test(gltf_paths, inside_the_directory_read)
{
    site s;
    site_make(&s);
    char p[400];
    snprintf(p, sizeof p, "%s/sub/in.bin", s.asset);
    cr_assert_eq(symlink("../ok.bin", p), 0); /* a link that stays inside */
    expect_read(&s, "ok.bin");
    expect_read(&s, "sub/../ok.bin");
    expect_read(&s, "./sub/in.bin");
    expect_read(&s, "o%6b.bin");
    site_drop(&s);
}

/* A FIFO is refused at once: opened without blocking, not a regular file. */
Test(gltf_paths, fifo_refused_without_waiting, .timeout = 10)
{
    site s;
    site_make(&s);
    char p[400];
    snprintf(p, sizeof p, "%s/fifo.bin", s.asset);
    cr_assert_eq(mkfifo(p, 0600), 0);
    pb_gltf g;
    pb_bvh_error err;
    cr_expect_neq(read_uri(&s, "fifo.bin", &g, &err), PB_BVH_OK);
    cr_expect(strstr(err.message, "not a regular file") != NULL, "%s", err.message);
    site_drop(&s);
}

/* No more than byteLength is read: a sparse file of 3 GiB with byteLength 8
 * is read (reading it whole would pass the 2 GiB file limit). */
Test(gltf_paths, reads_only_byte_length, .timeout = 10)
{
    site s;
    site_make(&s);
    char p[400];
    snprintf(p, sizeof p, "%s/big.bin", s.asset);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, k_bytes, sizeof k_bytes), (ssize_t)sizeof k_bytes);
    int sparse = ftruncate(fd, (off_t)3 << 30) == 0;
    close(fd);
    if (!sparse) {
        fprintf(stderr, "SKIP: no 3 GiB sparse file here\n");
        site_drop(&s);
        return;
    }
    expect_read(&s, "big.bin");
    site_drop(&s);
}

/* A GLB's second buffer (the first is the BIN chunk) is held to the same rule. */
Test(gltf_paths, glb_second_buffer_refused)
{
    site s;
    site_make(&s);
    const char *json = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8},"
                       "{\"uri\":\"../secret.bin\",\"byteLength\":8}]}";
    size_t size;
    unsigned char *glb = glb_build(json, k_bytes, sizeof k_bytes, &size);
    cr_assert_not_null(glb);
    pb_gltf g;
    pb_bvh_error err;
    pb_bvh_code rc = pb_gltf_read_memory(glb, size, s.asset, &g, &err);
    free(glb);
    cr_expect_neq(rc, PB_BVH_OK, "the GLB's second buffer was read");
    cr_expect(strstr(err.message, "buffers[1]") && strstr(err.message, "outside"), "%s",
              err.message);
    if (rc == PB_BVH_OK)
        pb_gltf_free(&g);
    site_drop(&s);
}

/* The file named by the caller: a device or stream that is not glTF is
 * refused on its first bytes, not read to 2 GiB. */
Test(gltf_paths, dev_zero_refused_at_once, .timeout = 10)
{
    pb_gltf g;
    pb_bvh_error err;
    cr_expect_eq(pb_gltf_read_file("/dev/zero", &g, &err), PB_BVH_ERR_SYNTAX, "%s", err.message);
    cr_expect(strstr(err.message, "not glTF") != NULL, "%s", err.message);
    cr_expect_eq(pb_gltf_read_file("/dev/null", &g, &err), PB_BVH_ERR_SYNTAX, "%s", err.message);
}
