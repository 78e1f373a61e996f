/* The small BVH text that the reader tests edit: two joints (Hips with 6
 * channels, Chest with 3), an End Site, two frames; the comments give the
 * line numbers that error messages name. */
#ifndef PB_TESTS_BVH_SAMPLE_H
#define PB_TESTS_BVH_SAMPLE_H

#include <stddef.h>
#include <stdio.h>

static const char *const k_sample_bvh =
    "HIERARCHY\n"                                                                /* 1 */
    "ROOT Hips\n"                                                                /* 2 */
    "{\n"                                                                        /* 3 */
    "  OFFSET 0 0 0\n"                                                           /* 4 */
    "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n" /* 5 */
    "  JOINT Chest\n"                                                            /* 6 */
    "  {\n"                                                                      /* 7 */
    "    OFFSET 0 10 0\n"                                                        /* 8 */
    "    CHANNELS 3 Zrotation Xrotation Yrotation\n"                             /* 9 */
    "    End Site\n"                                                             /* 10 */
    "    {\n"                                                                    /* 11 */
    "      OFFSET 0 5 0\n"                                                       /* 12 */
    "    }\n"                                                                    /* 13 */
    "  }\n"                                                                      /* 14 */
    "}\n"                                                                        /* 15 */
    "MOTION\n"                                                                   /* 16 */
    "Frames: 2\n"                                                                /* 17 */
    "Frame Time: .0333333\n"                                                     /* 18 */
    "1 2 3 10 20 30 40 50 60\n"                                                  /* 19 */
    "4 5 6 11 21 31 41 51 61\n";

/* The hierarchy of a BVH text whose root R has one channel (Xrotation)
 * and `joints` children J0, J1, ... with none, up to and including
 * "MOTION\n", written into t (cap bytes); returns its length. The caller
 * adds the frame count, frame time and data lines. */
static inline size_t bvh_flat_hierarchy(char *t, size_t cap, int joints)
{
    size_t k =
        (size_t)snprintf(t, cap, "HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n");
    for (int j = 0; j < joints; j++)
        k += (size_t)snprintf(t + k, cap - k, "JOINT J%d\n{\nOFFSET 0 1 0\nCHANNELS 0\n}\n", j);
    k += (size_t)snprintf(t + k, cap - k, "}\nMOTION\n");
    return k;
}

#endif /* PB_TESTS_BVH_SAMPLE_H */
