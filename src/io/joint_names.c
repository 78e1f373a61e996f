/* Joint names: the left/right name families (see joint_names.h). Plain
 * ASCII case folding: joint names are identifiers in every format read. */
#include <stddef.h>
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

long jn_find(const char *const *names, size_t n, const char *name)
{
    long found = -1;
    for (size_t i = 0; i < n; i++)
        if (names[i] && eq_nocase(names[i], name)) {
            if (found >= 0)
                return -2;
            found = (long)i;
        }
    return found;
}

/* buf = the lower-cased name with [at, at + cut) replaced by rep. */
static int splice(const char *lo, size_t len, size_t at, size_t cut, const char *rep, char *buf,
                  size_t size)
{
    size_t rl = strlen(rep);
    if (len - cut + rl + 1 > size)
        return 0;
    memcpy(buf, lo, at);
    memcpy(buf + at, rep, rl);
    memcpy(buf + at + rl, lo + at + cut, len - at - cut);
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
        return splice(lo, len, (size_t)(l - lo), 4, "right", buf, size) ? JN_STRONG : JN_NONE;
    if (r)
        return splice(lo, len, (size_t)(r - lo), 5, "left", buf, size) ? JN_STRONG : JN_NONE;
    /* "_l" / "_r", ".l" / ".r" endings: Hand_L, hand.R */
    if (len >= 3 && (lo[len - 2] == '_' || lo[len - 2] == '.') &&
        (lo[len - 1] == 'l' || lo[len - 1] == 'r'))
        return splice(lo, len, len - 1, 1, lo[len - 1] == 'l' ? "r" : "l", buf, size) ? JN_STRONG
                                                                                      : JN_NONE;
    /* "l_" / "r_" starts: L_Hip */
    if (len >= 3 && lo[1] == '_' && (lo[0] == 'l' || lo[0] == 'r'))
        return splice(lo, len, 0, 1, lo[0] == 'l' ? "r" : "l", buf, size) ? JN_STRONG : JN_NONE;
    /* a bare first letter: lhip, RThumb, LHipJoint */
    if (len >= 2 && (lo[0] == 'l' || lo[0] == 'r') && alnum(lo[1]))
        return splice(lo, len, 0, 1, lo[0] == 'l' ? "r" : "l", buf, size) ? JN_WEAK : JN_NONE;
    return JN_NONE;
}
