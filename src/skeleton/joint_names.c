/* Joint names: the left/right name families (see joint_names.h). Plain
 * ASCII case folding: joint names are identifiers in every format read. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "joint_names.h"

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }
static int alnum(char c)
{
    c = lower(c);
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int eq_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower(*a) != lower(*b))
            return 0;
    return *a == *b;
}

/* FNV-1a over the lower-cased bytes, folded to 32 bits */
static uint32_t hash_nocase(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++) {
        h ^= (unsigned char)lower(*s);
        h *= 1099511628211u;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* The slot of `name` (hash h): where it is, or the empty slot it would go to. */
static size_t probe(jn_index *ix, const char *name, uint32_t h)
{
    size_t i = h & ix->mask;
    for (;; i = (i + 1) & ix->mask) {
        ix->probes++;
        if (ix->slot[i] < 0)
            return i;
        if (ix->hash[i] == h) {
            ix->texts++;
            if (eq_nocase(ix->names[ix->slot[i]], name))
                return i;
        }
    }
}

int jn_index_init(jn_index *ix, const char *const *names, size_t n)
{
    memset(ix, 0, sizeof *ix);
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    ix->names = names;
    ix->mask = cap - 1;
    ix->slot = malloc(cap * sizeof *ix->slot);
    ix->hash = malloc(cap * sizeof *ix->hash);
    ix->dup = calloc(cap, 1);
    if (!ix->slot || !ix->hash || !ix->dup) {
        jn_index_free(ix);
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        ix->slot[i] = -1;
    for (size_t j = 0; j < n; j++) {
        uint32_t h = hash_nocase(names[j]);
        size_t i = probe(ix, names[j], h);
        if (ix->slot[i] >= 0) {
            ix->dup[i] = 1;
        } else {
            ix->slot[i] = (int32_t)j;
            ix->hash[i] = h;
        }
    }
    return 0;
}

void jn_index_free(jn_index *ix)
{
    free(ix->slot);
    free(ix->hash);
    free(ix->dup);
    memset(ix, 0, sizeof *ix);
}

long jn_index_find(jn_index *ix, const char *name)
{
    size_t i = probe(ix, name, hash_nocase(name));
    return ix->slot[i] < 0 ? -1 : ix->dup[i] ? -2 : (long)ix->slot[i];
}

static int upper_case(char c) { return c >= 'A' && c <= 'Z'; }

/* buf = name with [at, at + cut) replaced by rep (lower case), in the case
 * of what it replaces: all capitals ("LEFT", "_L") give capitals, a capital
 * first letter ("Left") a capital first letter, else lower case; so the
 * counterpart of LeftUpLeg reads RightUpLeg. */
static int splice(const char *name, size_t len, size_t at, size_t cut, const char *rep, char *buf,
                  size_t size)
{
    size_t rl = strlen(rep);
    if (len - cut + rl + 1 > size)
        return 0;
    int all = 1;
    for (size_t i = at; i < at + cut; i++)
        all &= upper_case(name[i]);
    memcpy(buf, name, at);
    for (size_t i = 0; i < rl; i++)
        buf[at + i] = (all || (i == 0 && upper_case(name[at]))) && rep[i] >= 'a' && rep[i] <= 'z'
                          ? (char)(rep[i] - 'a' + 'A')
                          : rep[i];
    memcpy(buf + at + rl, name + at + cut, len - at - cut);
    buf[len - cut + rl] = '\0';
    return 1;
}

jn_side_kind jn_counterpart(const char *name, char *buf, size_t size)
{
    char lo[512];
    size_t len = strlen(name);
    if (len == 0 || len >= sizeof lo)
        return JN_NONE;
    for (size_t i = 0; i <= len; i++)
        lo[i] = lower(name[i]);
    /* "left" / "right" anywhere: LeftUpLeg, HandRight, mixamorig:LeftArm */
    const char *l = strstr(lo, "left"), *r = strstr(lo, "right");
    if (l && (!r || l < r))
        return splice(name, len, (size_t)(l - lo), 4, "right", buf, size) ? JN_STRONG : JN_NONE;
    if (r)
        return splice(name, len, (size_t)(r - lo), 5, "left", buf, size) ? JN_STRONG : JN_NONE;
    /* "_l" / "_r", ".l" / ".r" endings: Hand_L, hand.R */
    if (len >= 3 && (lo[len - 2] == '_' || lo[len - 2] == '.') &&
        (lo[len - 1] == 'l' || lo[len - 1] == 'r'))
        return splice(name, len, len - 1, 1, lo[len - 1] == 'l' ? "r" : "l", buf, size) ? JN_STRONG
                                                                                        : JN_NONE;
    /* "l_" / "r_" starts: L_Hip */
    if (len >= 3 && lo[1] == '_' && (lo[0] == 'l' || lo[0] == 'r'))
        return splice(name, len, 0, 1, lo[0] == 'l' ? "r" : "l", buf, size) ? JN_STRONG : JN_NONE;
    /* a bare first letter: lhip, RThumb, LHipJoint */
    if (len >= 2 && (lo[0] == 'l' || lo[0] == 'r') && alnum(lo[1]))
        return splice(name, len, 0, 1, lo[0] == 'l' ? "r" : "l", buf, size) ? JN_WEAK : JN_NONE;
    return JN_NONE;
}
