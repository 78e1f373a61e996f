/* What the .npz writer and reader share (npz_internal.h), and the public
 * look-up and release of read arrays (posebatch/npz.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "npz_internal.h"

/* 8 tables of 256: table 0 the bytewise CRC, table k a byte k positions
 * earlier, so that 8 bytes take 8 look-ups and no dependency chain */
static uint32_t crc_tab[8][256];
static int crc_ready;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_tab[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 256; i++)
            crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 255];
    __atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

uint32_t npz_crc32(uint32_t crc, const void *data, size_t n)
{
    /* the tables are the same whoever fills them: a race only repeats the
     * work */
    if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE))
        crc_init();
    const unsigned char *p = data;
    uint32_t c = ~crc;
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo =
            c ^ (p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        uint32_t hi = p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        c = crc_tab[7][lo & 255] ^ crc_tab[6][(lo >> 8) & 255] ^ crc_tab[5][(lo >> 16) & 255] ^
            crc_tab[4][lo >> 24] ^ crc_tab[3][hi & 255] ^ crc_tab[2][(hi >> 8) & 255] ^
            crc_tab[1][(hi >> 16) & 255] ^ crc_tab[0][hi >> 24];
    }
    for (; n > 0; n--, p++)
        c = crc_tab[0][(c ^ *p) & 255] ^ (c >> 8);
    return ~c;
}

size_t npz_item_size(pb_npy_dtype t)
{
    switch (t) {
    case PB_NPY_F32:
    case PB_NPY_I32: return 4;
    case PB_NPY_F64:
    case PB_NPY_I64: return 8;
    case PB_NPY_U8: return 1;
    default: return 0;
    }
}

int npz_big_endian(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 0;
}

const pb_npy_array *pb_npz_find(const pb_npz *npz, const char *name)
{
    if (!npz || !name)
        return NULL;
    for (size_t i = 0; i < npz->count; i++)
        if (npz->arrays[i].name && strcmp(npz->arrays[i].name, name) == 0)
            return &npz->arrays[i];
    return NULL;
}

/* priv_: the list of blocks the reader allocated, each a header and its
 * bytes */
typedef union npz_block {
    union npz_block *next;
    max_align_t align_;
} npz_block;

void *npz_alloc(pb_npz *npz, size_t bytes)
{
    if (bytes > SIZE_MAX - sizeof(npz_block))
        return NULL;
    npz_block *b = malloc(sizeof *b + bytes);
    if (!b)
        return NULL;
    b->next = npz->priv_;
    npz->priv_ = b;
    return b + 1;
}

void pb_npz_free(pb_npz *npz)
{
    if (!npz)
        return;
    npz_block *b = npz->priv_;
    while (b) {
        npz_block *n = b->next;
        free(b);
        b = n;
    }
    free(npz->arrays);
    memset(npz, 0, sizeof *npz);
}
