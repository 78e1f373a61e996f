/* Joint names (internal, src/skeleton/joint_names.c): the left/right name
 * families, for pairing a skeleton's joints by name (mirroring) and for any
 * other caller that matches joints by name. */
#ifndef PB_IO_JOINT_NAMES_H
#define PB_IO_JOINT_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* How strongly a name says it is on one side. */
typedef enum jn_side_kind {
    JN_NONE = 0,  /* no family: a centre joint */
    JN_WEAK = 1,  /* a bare l/r first letter (lhip, RThumb): a side only when
                      the counterpart exists ("lowerback" is not one) */
    JN_STRONG = 2 /* left/right as a word part, _L/_R, .L/.R, L_/R_: the
                      counterpart must exist */
} jn_side_kind;

/* The counterpart name of `name` (into buf of size bytes; the replaced side
 * word in the case of the one it replaces: LeftUpLeg -> RightUpLeg,
 * Hand_L -> Hand_R) by the
 * first family that applies, in this order: "left"/"right" anywhere (the
 * first occurrence), a "_l"/"_r" or ".l"/".r" ending, an "l_"/"r_" start,
 * an "l"/"r" first letter before more letters or digits; all
 * case-insensitive. Returns the kind (JN_NONE: buf untouched). A counterpart
 * longer than buf is JN_NONE. */
jn_side_kind jn_counterpart(const char *name, char *buf, size_t size);

/* names[0..n-1] indexed by their ASCII-lower-cased text (a hash table,
 * open addressing): a look-up costs a few probes whatever n, so that pairing
 * n joints by name is linear, not quadratic. The names are not copied (they
 * must outlive the index). */
typedef struct jn_index {
    const char *const *names;
    size_t mask;          /* slots - 1 (a power of two, at least 2n slots) */
    int32_t *slot;        /* -1 empty, else the first name with that text */
    uint32_t *hash;       /* per slot, its name's hash (compared before the text) */
    unsigned char *dup;   /* per slot, 1 where several names have that text */
    size_t probes, texts; /* slots visited and texts compared so far: the work
                             done, which the tests bound (test_joint_names.c) */
} jn_index;

/* Builds the index of n <= INT32_MAX names (none NULL); 0, or -1 when out of
 * memory (then nothing to free). */
int jn_index_init(jn_index *ix, const char *const *names, size_t n);
void jn_index_free(jn_index *ix);
/* Index of the one name equal to `name` ignoring ASCII case; -1 when none,
 * -2 when several. */
long jn_index_find(jn_index *ix, const char *name);

#endif /* PB_IO_JOINT_NAMES_H */
