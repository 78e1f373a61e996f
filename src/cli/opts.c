/* Option parsing for every command from one table, so that each command only
 * states which options it takes. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* getopt_long values of the long-only options (above any char). */
enum {
    LO_FPS = 256,
    LO_LOOP,
    LO_BACKEND,
    LO_WEIGHTS,
    LO_METHOD,
    LO_REF,
    LO_WEIGHTS_AS_GIVEN,
    LO_JSON,
    LO_STRICT,
    LO_EULER,
    LO_VELOCITY,
    LO_CUBIC,
    LO_SKIN,
    LO_ANIMATION
};

static const struct option long_opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"jobs", required_argument, NULL, 'j'},
    {"fps", required_argument, NULL, LO_FPS},
    {"loop", no_argument, NULL, LO_LOOP},
    {"backend", required_argument, NULL, LO_BACKEND},
    {"weights", required_argument, NULL, LO_WEIGHTS},
    {"method", required_argument, NULL, LO_METHOD},
    {"ref", required_argument, NULL, LO_REF},
    {"weights-as-given", no_argument, NULL, LO_WEIGHTS_AS_GIVEN},
    {"json", no_argument, NULL, LO_JSON},
    {"strict", no_argument, NULL, LO_STRICT},
    {"euler", required_argument, NULL, LO_EULER},
    {"velocity-csv", required_argument, NULL, LO_VELOCITY},
    {"cubic", no_argument, NULL, LO_CUBIC},
    {"skin", required_argument, NULL, LO_SKIN},
    {"animation", required_argument, NULL, LO_ANIMATION},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* Length of a plain decimal number at s: [+-] digits [. digits] [e [+-]
 * digits], with at least one digit before the exponent. strtod also takes
 * blanks, hexadecimal ("0x1e"), "inf", "infinity" and "nan(...)": none of
 * them is a number here. 0 when s does not start with one. */
static size_t decimal_len(const char *s)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    for (; isdigit((unsigned char)s[i]); i++)
        digits++;
    if (s[i] == '.')
        for (i++; isdigit((unsigned char)s[i]); i++)
            digits++;
    if (digits == 0)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t e = i + 1;
        if (s[e] == '+' || s[e] == '-')
            e++;
        if (!isdigit((unsigned char)s[e]))
            return 0; /* "1e" or "1e+": not a number, not "1" followed by junk */
        while (isdigit((unsigned char)s[e]))
            e++;
        i = e;
    }
    return i;
}

int cli_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    size_t len = decimal_len(s);
    if (len == 0 || s[len] != '\0')
        return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end != s + len || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int cli_parse_fps(const char *s, double *out)
{
    double v;
    /* The minimum keeps 1 / fps (the Frame Time) and the frame counts finite
     * and meaningful; 1e-320 would parse as a denormal > 0. */
    if (cli_parse_double(s, &v) || !(v >= CLI_MIN_FPS) || v > CLI_MAX_FPS)
        return -1;
    *out = v;
    return 0;
}

static int parse_jobs(const char *s, int *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < 1 || v > CLI_MAX_JOBS)
        return -1;
    *out = (int)v;
    return 0;
}

static int force_backend(const char *cmd, const char *name)
{
    pb_backend b;
    if (pb_backend_from_name(name, &b) != PB_OK)
        return cli_usage_error(cmd, "unknown backend '%s' (scalar, sse41, avx2, avx512, neon)",
                               name);
    pb_status st = pb_backend_force(b);
    if (st != PB_OK)
        return cli_usage_error(cmd, "backend '%s': %s", name, pb_status_str(st));
    return CLI_OK;
}

/* Which option bit a getopt value stands for (0: not a known option). */
static unsigned opt_bit(int c)
{
    switch (c) {
    case 'o': return OPT_OUT;
    case 'j': return OPT_JOBS;
    case LO_FPS: return OPT_FPS;
    case LO_LOOP: return OPT_LOOP;
    case LO_BACKEND: return OPT_BACKEND;
    case LO_WEIGHTS: return OPT_WEIGHTS;
    case LO_METHOD: return OPT_METHOD;
    case LO_REF: return OPT_REF;
    case LO_WEIGHTS_AS_GIVEN: return OPT_WEIGHTS;
    case LO_JSON: return OPT_JSON;
    case LO_STRICT: return OPT_STRICT;
    case LO_EULER: return OPT_EULER;
    case LO_VELOCITY: return OPT_VELOCITY;
    case LO_CUBIC: return OPT_CUBIC;
    case LO_SKIN: return OPT_SKIN;
    case LO_ANIMATION: return OPT_SKIN;
    default: return 0;
    }
}

static int take_option(int c, const char *arg, cli_opts *o)
{
    switch (c) {
    case 'o': o->out = arg; break;
    case 'j':
        if (parse_jobs(arg, &o->jobs))
            return cli_usage_error(o->cmd, "-j: '%s' is not a whole number in 1..%d", arg,
                                   CLI_MAX_JOBS);
        break;
    case LO_FPS:
        if (cli_parse_fps(arg, &o->fps))
            return cli_usage_error(o->cmd, "--fps: '%s' is not a decimal number in [%g, %g]", arg,
                                   CLI_MIN_FPS, CLI_MAX_FPS);
        break;
    case LO_LOOP: o->loop = 1; break;
    case LO_BACKEND: return force_backend(o->cmd, arg);
    case LO_WEIGHTS: o->weights = arg; break;
    case LO_METHOD: o->method = arg; break;
    case LO_REF: o->ref = arg; break;
    case LO_WEIGHTS_AS_GIVEN: o->weights_as_given = 1; break;
    case LO_JSON: o->json = 1; break;
    case LO_STRICT: cli_read_flags |= PB_BVH_READ_STRICT; break;
    case LO_VELOCITY: cli_velocity_csv = arg; break;
    case LO_CUBIC: o->cubic = 1; break;
    case LO_SKIN:
    case LO_ANIMATION: {
        char *end = NULL;
        errno = 0;
        long v = isdigit((unsigned char)arg[0]) ? strtol(arg, &end, 10) : -1;
        if (v < 0 || !end || *end || errno == ERANGE || v > 1000000)
            return cli_usage_error(o->cmd, "--%s: '%s' is not an index (0, 1, ...)",
                                   c == LO_SKIN ? "skin" : "animation", arg);
        if (c == LO_SKIN)
            o->skin = v;
        else
            o->animation = v;
        break;
    }
    case LO_EULER:
        if (strcmp(arg, "source") == 0)
            cli_euler_mode = PB_BVH_EULER_SOURCE;
        else if (strcmp(arg, "continuous") == 0)
            cli_euler_mode = PB_BVH_EULER_CONTINUOUS;
        else if (strcmp(arg, "principal") == 0)
            cli_euler_mode = PB_BVH_EULER_PRINCIPAL;
        else
            return cli_usage_error(o->cmd, "--euler: unknown '%s' (source, continuous, principal)",
                                   arg);
        break;
    default: break;
    }
    return CLI_OK;
}

/* --help wins over any other problem on the line, wherever it stands. */
static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

static const char *long_name(int val)
{
    for (const struct option *l = long_opts; l->name; l++)
        if (l->val == val)
            return l->name;
    return "?";
}

/* After a ':' or '?' from getopt_long: optopt is the short option's letter,
 * a long option's value, or 0 for an unknown long option; argv[optind - 1] is
 * the word just consumed. */
static int bad_option(const cli_opts *o, int c, char **argv)
{
    const char *word = argv[optind - 1];
    if (c == ':')
        return cli_usage_error(o->cmd, "option '%s' needs a value", word);
    if (optopt >= LO_FPS)
        return cli_usage_error(o->cmd, "option '--%s' takes no value", long_name(optopt));
    if (optopt > 0 && optopt < 128 && isgraph(optopt))
        return cli_usage_error(o->cmd, "unknown option '-%c'", optopt);
    return cli_usage_error(o->cmd, "unknown option '%s'", word);
}

int cli_parse(int argc, char **argv, unsigned allowed, const char *usage, cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = argv[0];
    o->jobs = 1;
    o->skin = -1;
    o->animation = -1;
    if (wants_help(argc, argv)) {
        fputs(usage, stdout);
        return CLI_DONE;
    }
    opterr = 0; /* our own messages */
    optind = 1;
    /* "-" first: operands come back in order as 1 (options may follow them,
     * also under POSIXLY_CORRECT); they are packed to the front of argv,
     * over words getopt has already passed. */
    size_t n = 0;
    int c;
    while ((c = getopt_long(argc, argv, "-:o:j:h", long_opts, NULL)) != -1) {
        if (c == 1) {
            argv[++n] = optarg;
            continue;
        }
        if (c == ':' || c == '?')
            return bad_option(o, c, argv);
        if (c == 'h') { /* an abbreviation such as --he */
            fputs(usage, stdout);
            return CLI_DONE;
        }
        if (!(opt_bit(c) & allowed))
            return cli_usage_error(o->cmd, "option '--%s' does not apply here", long_name(c));
        if (take_option(c, optarg, o) != CLI_OK)
            return CLI_USAGE;
    }
    while (optind < argc) /* after "--" */
        argv[++n] = argv[optind++];
    o->inputs = argv + 1;
    o->num_inputs = n;
    return CLI_OK;
}

int cli_take_own(const char *cmd, int *argc, char **argv, const char *const *names, int count,
                 int (*take)(void *ctx, int which, char *value), void *ctx)
{
    int n = 1;
    for (int i = 1; i < *argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            while (i < *argc)
                argv[n++] = argv[i++];
            break;
        }
        int which = -1;
        size_t len = 0;
        for (int k = 0; k < count && which < 0; k++) {
            len = strlen(names[k]);
            int valued = len > 0 && names[k][len - 1] == '=';
            if (valued && strncmp(a, names[k], len - 1) == 0 &&
                (a[len - 1] == '\0' || a[len - 1] == '='))
                which = k;
            else if (!valued && strcmp(a, names[k]) == 0)
                which = k;
        }
        if (which < 0) {
            argv[n++] = a;
            if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                 strcmp(a, "--backend") == 0) &&
                i + 1 < *argc)
                argv[n++] = argv[++i];
            continue;
        }
        char *val = NULL;
        if (names[which][len - 1] == '=') {
            if (a[len - 1] == '=')
                val = a + len;
            else if (i + 1 < *argc)
                val = argv[++i];
            if (!val || !*val)
                return cli_usage_error(cmd, "option '%.*s' needs a value", (int)(len - 1),
                                       names[which]);
        }
        int rc = take(ctx, which, val);
        if (rc != CLI_OK)
            return rc;
    }
    *argc = n;
    argv[n] = NULL;
    return CLI_OK;
}
