/* posebatch: resample and blend motion-capture clips with the posebatch
 * library, from the shell. Each command lives in its own file; this one only
 * dispatches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"resample", cmd_resample, "resample clips to a frame rate (quaternion Catmull-Rom)"},
    {"blend", cmd_blend, "blend clips of one skeleton with weights"},
    {"info", cmd_info, "describe BVH and glTF files: skeleton, channels, frames, rate"},
    {"convert", cmd_convert, "convert BVH <-> glTF 2.0 (.glb, .gltf)"},
    {"positions", cmd_positions, "global (model-space) joint positions per frame, CSV or .npy"},
    {"retarget", cmd_retarget, "play a clip on another skeleton (joints matched by name)"},
    {"cpu", cmd_cpu, "print the SIMD backend in use and those supported"},
    {"mirror", cmd_mirror, "mirror a clip: reflect it and swap left and right joints"},
    {"root-motion", cmd_root_motion, "take a clip's ground travel and heading out (in place)"},
    {"skin", cmd_skin, "pose a skinned glTF model at a time of its animation (OBJ)"},
    {"features", cmd_features, "motion features for learning (.npz; HumanML3D's layout too)"},
    {"ik", cmd_ik, "foot clean-up: feet held at their contacts with two-bone IK"},
};

static void usage(FILE *f)
{
    fputs("usage: posebatch COMMAND [ARGS...]\n"
          "       posebatch --help | --version\n"
          "\ncommands:\n",
          f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\n'posebatch COMMAND --help' describes a command and its options.\n"
          "$POSEBATCH_BACKEND=scalar|sse41|avx2|avx512|neon picks the SIMD backend\n"
          "(--backend NAME on resample and blend does the same).\n"
          "\nexit status:\n"
          "  0  success\n"
          "  1  some input failed (read, parse, process or write error; reported as\n"
          "     'posebatch: FILE: message', the other inputs are still processed,\n"
          "     and no partial output is left behind)\n"
          "  2  usage error (unknown option, missing argument, bad number)\n",
          f);
}

/* The library falls back to scalar on a bad $POSEBATCH_BACKEND; say so,
 * since the user asked for something else. */
static void check_env_backend(void)
{
    const char *env = getenv("POSEBATCH_BACKEND");
    pb_status st = pb_backend_init_status();
    if (env && st != PB_OK)
        cli_error("warning: POSEBATCH_BACKEND=%s: %s; using %s", env, pb_status_str(st),
                  pb_backend_name(pb_backend_active()));
}

int main(int argc, char **argv)
{
    cli_install_signals();
    if (argc < 2)
        return cli_usage_error(NULL, "no command given");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("posebatch %s\n", pb_version_string());
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0) {
            check_env_backend();
            return commands[i].run(argc - 1, argv + 1);
        }
    return cli_usage_error(NULL,
                           "unknown command '%s' (resample, blend, info, convert, positions, "
                           "retarget, mirror, root-motion, features, ik, cpu)",
                           cmd);
}
