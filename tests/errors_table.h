/* The table of batch entry points that tests/test_errors.c checks
 * (errors_table.c): each function as one uniform call over a set of
 * pointer slots, with the role, data kind and length of each slot, its
 * count kind, its flags and x. */
#ifndef PB_TESTS_ERRORS_TABLE_H
#define PB_TESTS_ERRORS_TABLE_H

#include <stddef.h>

#include "posebatch.h"

#define MAXS 10

enum { R_IN, R_OUT, R_OPT };
enum { D_QUAT, D_VEC, D_SCALE, D_WEIGHT, D_DELTA };
enum { L_N, L_M, L_MN };
enum { M_NONE, M_SAMPLES, M_UNROLL, M_EXTRACT, M_KEYS };

typedef struct {
    const char *name;
    int nc;   /* components: 4 quat, 3 vec3, 1 float */
    int role; /* R_IN, R_OUT, R_OPT (optional output) */
    int data;
    int len;
} slot_t;

typedef float *ptrs_t[MAXS][4];
typedef pb_status (*call_fn)(size_t n, size_t m, ptrs_t P, unsigned flags, float x);

typedef struct {
    const char *name;
    call_fn call;
    int nslots;
    slot_t sl[MAXS];
    int mkind;
    int has_flags;
    unsigned valid_flags;
    int no_exact_alias; /* outputs must not overlap inputs at all */
    int has_x;
    float x0;
} fn_t;

extern const fn_t FNS[];
extern const int NFNS;
extern int g_samples_null; /* averages: pass samples == NULL */

#endif /* PB_TESTS_ERRORS_TABLE_H */
