/* run.c - `ergo run`: check the tuning options, put them in the environment (ERGO_POLICY, ...)
 * and become the application, so its exit status is the command's. */
#include "cli.h"
#include "runtime/toolkit.h"

#include <ergo.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void run_usage(FILE *out) {
  fprintf(out, "usage: ergo run [options] [--] APP [ARGS...]\n\n"
               "Runs APP with ergo's tuning settings in its environment; the options set the\n"
               "ERGO_* variables of the same meaning (unset ones keep what the environment says).\n"
               "Every value is checked before APP starts.  The exit status is APP's, 2 for a\n"
               "usage error, 126 or 127 when APP cannot be run.\n\n"
               "  --policy P        ERGO_POLICY: monitor, fixed, static, sweep or online\n"
               "  --objective O     ERGO_OBJECTIVE: energy, time, edp, ed2p,\n"
               "                    weighted[:t=W,e=W,r=W] or energy@N%% (default energy@5%%)\n"
               "  --model F         ERGO_MODEL: the tuning model static reads, sweep and online\n"
               "                    write (default ergo-model.json)\n"
               "  --platform P      ERGO_PLATFORM: real, sim (the simulated node) or auto\n"
               "  --report-json F   ERGO_REPORT_JSON: the JSON report, for `ergo compare`\n\n"
               "ERGO_FIXED (for fixed) and ERGO_SWEEP (for sweep) pass through the environment.\n");
}

static const char *const policies[] = {"monitor", "fixed", "static", "sweep", "online"};
static const char *const platforms[] = {"real", "sim", "auto"};

static int one_of(const char *v, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v, list[i]) == 0) return 1;
  return 0;
}

/* Every value APP would reject, said here instead, in one line each; 0 when all are good. */
static int check(const char *policy, const char *objective, const char *model, const char *platform,
                 const char *report) {
  if (policy && !one_of(policy, policies, sizeof policies / sizeof *policies)) {
    fprintf(stderr,
            "ergo run: --policy '%s' is not valid: expected monitor, fixed, static, "
            "sweep or online\n",
            policy);
    return -1;
  }
  if (objective) {
    ergo__objective o;
    char why[512];
    if (ergo__objective_parse(objective, &o, why, sizeof why) != 0) {
      /* The library's line names ERGO_OBJECTIVE; here the option was given. */
      const char *expected = strstr(why, "expected");
      fprintf(stderr, "ergo run: --objective '%s' is not valid: %s\n", objective,
              expected ? expected : why);
      return -1;
    }
  }
  if (platform && !one_of(platform, platforms, sizeof platforms / sizeof *platforms)) {
    fprintf(stderr, "ergo run: --platform '%s' is not valid: expected real, sim or auto\n",
            platform);
    return -1;
  }
  if (model && !*model) {
    fprintf(stderr, "ergo run: --model is empty: expected a file path\n");
    return -1;
  }
  if (report && !*report) {
    fprintf(stderr, "ergo run: --report-json is empty: expected a file path\n");
    return -1;
  }
  /* static reads the model at start; a missing one would run the whole job untuned. */
  const char *pol = policy ? policy : getenv("ERGO_POLICY");
  const char *file = model ? model : getenv("ERGO_MODEL");
  if (!file || !*file) file = "ergo-model.json";
  /* A report on the model's file would overwrite the model at finalize (the library would drop
   * the report; the run would not be what was asked for): refused before APP starts. */
  const char *rep = report ? report : getenv("ERGO_REPORT_JSON");
  if (pol && (!strcmp(pol, "static") || !strcmp(pol, "sweep") || !strcmp(pol, "online")) && rep &&
      *rep && ergo__path_same(file, rep)) {
    fprintf(stderr,
            "ergo run: %s '%s' is the tuning model's file (%s '%s'): the report would overwrite "
            "the model (fix: give the report another path)\n",
            report ? "--report-json" : "ERGO_REPORT_JSON", rep, model ? "--model" : "ERGO_MODEL",
            file);
    return -1;
  }
  if (pol && strcmp(pol, "static") == 0 && access(file, R_OK) != 0) {
    fprintf(stderr,
            "ergo run: the tuning model '%s' cannot be read: %s (static needs one: "
            "write it with --policy sweep or `ergo sweep --runs`)\n",
            file, strerror(errno));
    return -1;
  }
  /* ... nor one that is not a model (a report, an empty file): it ran the job as monitor after a
   * warning and exited 0, as if tuned. */
  if (pol && strcmp(pol, "static") == 0) {
    ergo__model m;
    char why[1024];
    if (ergo__model_load(file, &m, why, sizeof why) != 0) {
      fprintf(stderr, "ergo run: %s\n", why);
      return -1;
    }
    ergo__model_free(&m);
  }
  return 0;
}

static int run_run(int argc, char **argv) {
  const char *policy = NULL, *objective = NULL, *model = NULL, *platform = NULL, *report = NULL;
  static const char *const names[] = {"--policy", "--objective", "--model", "--platform",
                                      "--report-json"};
  const char **slots[] = {&policy, &objective, &model, &platform, &report};
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      run_usage(stdout);
      return ERGO_CLI_OK;
    }
    if (a[0] != '-') break; /* APP */
    int r = 0;
    for (size_t k = 0; k < sizeof names / sizeof *names && !r; k++)
      r = ergo_cli_value("ergo run", argc, argv, &i, names[k], slots[k]);
    if (r < 0) return ERGO_CLI_USAGE;
    if (!r) {
      fprintf(stderr,
              "ergo run: unknown option '%s': expected --policy, --objective, --model, "
              "--platform, --report-json, --help, or -- before the application\n",
              a);
      return ERGO_CLI_USAGE;
    }
  }
  if (i >= argc) {
    fprintf(stderr, "ergo run: no application given: expected ergo run [options] -- APP "
                    "[ARGS...]\n");
    return ERGO_CLI_USAGE;
  }
  if (check(policy, objective, model, platform, report)) return ERGO_CLI_USAGE;
  static const char *const vars[] = {"ERGO_POLICY", "ERGO_OBJECTIVE", "ERGO_MODEL", "ERGO_PLATFORM",
                                     "ERGO_REPORT_JSON"};
  for (size_t k = 0; k < sizeof vars / sizeof *vars; k++)
    if (*slots[k] && setenv(vars[k], *slots[k], 1) != 0) {
      fprintf(stderr, "ergo run: cannot set %s: %s\n", vars[k], strerror(errno));
      return ERGO_CLI_FAIL;
    }
  fflush(NULL);
  execvp(argv[i], argv + i);
  /* As a shell does: 127 when there is no such program, 126 when it cannot be executed. */
  int err = errno;
  fprintf(stderr, "ergo run: cannot run '%s': %s\n", argv[i], strerror(err));
  return err == ENOENT ? 127 : 126;
}

const ergo_cli_command ergo_cli_run = {
    .name = "run",
    .summary = "run an application with a tuning policy (sets ERGO_POLICY, ...)",
    .run = run_run,
};
