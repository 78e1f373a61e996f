/* Joint names (internal, src/io/joint_names.c): the left/right name
 * families, for pairing a skeleton's joints by name (mirroring) and for any
 * other caller that matches joints by name. */
#ifndef PB_IO_JOINT_NAMES_H
#define PB_IO_JOINT_NAMES_H

#include <stddef.h>

/* How strongly a name says it is on one side. */
typedef enum jn_side_kind {
    JN_NONE = 0,  /* no family: a centre joint */
    JN_WEAK = 1,  /* a bare l/r first letter (lhip, RThumb): a side only when
                      the counterpart exists ("lowerback" is not one) */
    JN_STRONG = 2 /* left/right as a word part, _L/_R, .L/.R, L_/R_: the
                      counterpart must exist */
} jn_side_kind;

/* The counterpart name of `name` (lower case, into buf of size bytes) by the
 * first family that applies, in this order: "left"/"right" anywhere (the
 * first occurrence), a "_l"/"_r" or ".l"/".r" ending, an "l_"/"r_" start,
 * an "l"/"r" first letter before more letters or digits; all
 * case-insensitive. Returns the kind (JN_NONE: buf untouched). A counterpart
 * longer than buf is JN_NONE. */
jn_side_kind jn_counterpart(const char *name, char *buf, size_t size);

/* Index of the one name among names[0..n-1] equal to `name` ignoring ASCII
 * case; -1 when none, -2 when several. */
long jn_find(const char *const *names, size_t n, const char *name);

#endif /* PB_IO_JOINT_NAMES_H */
