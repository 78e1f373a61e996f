/* Joint matching for retargeting (internal to src/io; the rules are in
 * include/posebatch/io.h, "Retargeting"): name keys and the one-to-one
 * pairing of two skeletons' joints (retarget_names.c). */
#ifndef PB_IO_RETARGET_NAMES_H
#define PB_IO_RETARGET_NAMES_H

#include <stddef.h>

#include "posebatch/io.h"

#define RT_CORE_MAX 64

/* A joint name's key: side ('L', 'R' or 0), family (index, -1: none; then
 * core is the key), rank (0: the family's own name, 1: an alias), alt (the
 * family it moves to when a joint of the same key is its ancestor, -1). */
typedef struct rt_key {
    char side;
    int family;
    int rank;
    int alt;
    char core[RT_CORE_MAX];
} rt_key;

void rt_name_key(const char *name, rt_key *k);
/* The family's name ("hips", "upleg", ...), NULL out of range. */
const char *rt_family_name(int family);
/* 1 when family is the one named `name` ("foot", "toe", "upleg", ...). */
int rt_family_is(int family, const char *name);
/* 1 for the families of the torso and neck chains, whose bend is
 * distributed: spine, spine1, spine2, spine3, chest, upperchest, neck,
 * neck1. */
int rt_family_bends(int family);

/* The pairing: match_t[t] = source joint or -1, for every target joint;
 * with the map, the name keys (unless map_only), the root pair and count
 * checks. Returns PB_IO_OK or an error in err. */
pb_io_code rt_match(const pb_bvh *src, const pb_bvh *tgt, const pb_retarget_map *map, int map_only,
                    long *match_t, pb_io_error *err);

#endif /* PB_IO_RETARGET_NAMES_H */
