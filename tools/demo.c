/* demo.c - `ergo demo`: what ergo does, in a few seconds of wall time.  ergo's mini-app runs on
 * the sim node three times, each through `ergo run` as a user would type it: untuned (monitor),
 * tuned online (which writes a tuning model), and with that model applied (static); then
 * `ergo compare` reads the three JSON reports.  Every figure is marked SIMULATED, and the
 * commands a user types next, with their own code, end it.  The runs and the comparison are
 * this ergo binary itself (/proc/self/exe), so what is shown is what ran. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Enough steps for online to converge (about 40 executions per region) and then keep the
 * saving; on the sim node a step takes microseconds of wall time. */
#define DEMO_STEPS 100
#define DEMO_DIR "ergo-demo"
#define MARK " [SIMULATED]"
#define APP_NAME "ergo-example-miniapp"
#ifndef ERGO_DEMO_APP_INSTALLED /* set by tools/CMakeLists.txt from CMAKE_INSTALL_LIBEXECDIR */
#define ERGO_DEMO_APP_INSTALLED "libexec/ergo/" APP_NAME
#endif

static void demo_usage(FILE *out) {
  fprintf(out,
          "usage: ergo demo [--dir DIR] [--steps N] [--app PATH]\n\n"
          "Runs ergo's mini-app (an OpenGadget3-shaped timestep loop) on the sim node three\n"
          "times with `ergo run`: untuned (policy monitor), tuned online (policy online, which\n"
          "writes a tuning model) and with that model applied (policy static), then compares\n"
          "the three with `ergo compare`.  Every figure is SIMULATED.  Each run's output, JSON\n"
          "report, step and balance files, the model and the comparison go to DIR.\n\n"
          "  --dir DIR    where the files go and the runs run (default " DEMO_DIR ", made if\n"
          "               missing; the demo's files in it are replaced)\n"
          "  --steps N    timesteps of each run (default %d)\n"
          "  --app PATH   the mini-app (default: " APP_NAME " in ../examples beside this\n"
          "               ergo, as in the build tree, else the installed one in\n"
          "               ../" ERGO_DEMO_APP_INSTALLED ")\n\n"
          "Exit status: 0, 1 when a run fails (one line says which and where its output is),\n"
          "2 for a usage error.\n",
          DEMO_STEPS);
}

/* One line on stderr naming the command; the exit code of a failure. */
#define failure(...) ergo_cli_say(ERGO_CLI_FAIL, "ergo demo", __VA_ARGS__)

/* One run of the story. */
typedef struct demo_run {
  const char *name;   /* NAME.txt (its output), NAME.json (its report) */
  const char *policy; /* --policy */
  int model;          /* with --model model.json */
  const char *title, *what;
} demo_run;

static const demo_run story[] = {
    {"untuned", "monitor", 0, "untuned",
     "policy monitor measures every region and changes nothing"},
    {"online", "online", 1, "tuned online",
     "policy online searches each region's best core and uncore frequency\n"
     "    and thread count while the run goes on (Nelder-Mead; the search costs this run\n"
     "    time), then writes them to a model"},
    {"static", "static", 1, "model applied",
     "policy static runs each region at the model's setting from the\n"
     "    first step, with no search"},
};
#define NRUNS ((int)(sizeof story / sizeof *story))

/* path relative to the working directory when it lies below it, else as it is. */
static const char *shown(const char *path, const char *cwd) {
  size_t n = strlen(cwd);
  if (n > 1 && strncmp(path, cwd, n) == 0 && path[n] == '/') return path + n + 1;
  return path;
}

/* Runs argv (argv[0] a path) in dir with its stdout and stderr to dir/out and the "NAME=VALUE"
 * settings in env added; its exit status, or -1 (said) when it could not be run. */
static int spawn(char *const *argv, const char *dir, const char *out, char *const *env) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return failure("cannot start '%s': fork: %s", argv[0], strerror(errno)), -1;
  if (pid == 0) {
    int fd = chdir(dir) == 0 ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644) : -1;
    if (fd < 0) {
      fprintf(stderr, "ergo demo: cannot write %s/%s: %s\n", dir, out, strerror(errno));
      _exit(127);
    }
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    for (int i = 0; env && env[i]; i++) putenv(env[i]);
    execv(argv[0], argv);
    fprintf(stderr, "ergo demo: cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return failure("waitpid: %s", strerror(errno)), -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

/* "$ ergo run ... \n      -- ergo-example-miniapp ... > out 2>&1": argv as typed in dir, ergo
 * and the app by name (the legend says where they are). */
static void show(char *const *argv, const char *out) {
  printf("  $ ergo");
  for (int i = 1; argv[i]; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      printf(" \\\n        --");
      continue;
    }
    if (i > 1 && strcmp(argv[i - 1], "--") == 0) a = APP_NAME;
    printf(" %s", a);
  }
  printf(" > %s 2>&1\n", out);
}

/* dir/file as JSON, or NULL (said). */
static json_t *load(const char *dir, const char *file) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  json_error_t err;
  json_t *doc = json_load_file(path, 0, &err);
  if (!doc) failure("%s cannot be read: %s", path, err.text);
  return doc;
}

/* "  time 563.559 s, energy 76399.81 J [SIMULATED]" from a run's report; 1 when it ran on the sim
 * node, 0 when not, -1 when the report is not one (said). */
static int summary(const char *dir, const char *name) {
  char file[64];
  snprintf(file, sizeof file, "%s.json", name);
  json_t *doc = load(dir, file);
  if (!doc) return -1;
  /* The report's "threads" is its list of thread trees, not the knob. */
  const json_t *root = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  const json_t *t = json_object_get(root, "time_s");
  if (!json_is_number(t)) {
    json_decref(doc);
    return failure("%s/%s has no main tree with time_s: not an ergo report", dir, file), -1;
  }
  const char *platform = json_string_value(json_object_get(doc, "platform"));
  int sim = platform && strcmp(platform, "sim") == 0;
  const json_t *e = json_object_get(json_object_get(root, "energy"), "total");
  printf("  time %.3f s", json_number_value(t));
  if (json_is_number(e))
    printf(", energy %.2f J", json_number_value(e));
  else
    printf(", no energy measured");
  printf("%s", sim ? MARK : "");
  json_decref(doc);
  return sim;
}

/* A line with a figure: a word that is a decimal number ("563.559", "-6.02%", "(1.5"). */
static int has_figure(const char *s) {
  for (const char *p = s; *p;) {
    while (*p == ' ' || *p == '\t') p++;
    const char *w = p;
    while (*w == '(' || *w == '+' || *w == '-') w++;
    const char *d = w;
    while (*d >= '0' && *d <= '9') d++;
    if (d > w && *d == '.' && d[1] >= '0' && d[1] <= '9') return 1;
    while (*p && *p != ' ' && *p != '\t') p++;
  }
  return 0;
}

/* compare.txt up to the regions' table (the user has it in the file), every figure line marked
 * when the runs were simulated; 0, or -1 (said). */
static int show_compare(const char *dir, int sim) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/compare.txt", dir);
  FILE *f = fopen(path, "r");
  if (!f) return failure("%s cannot be read: %s", path, strerror(errno)), -1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  int blanks = 0;
  while ((n = getline(&line, &cap, f)) > 0) {
    if (line[n - 1] == '\n') line[--n] = '\0';
    if (strncmp(line, "region ", 7) == 0) break;
    if (n == 0) { /* held back: no blank line before the end */
      blanks++;
      continue;
    }
    for (; blanks; blanks--) printf("\n");
    int mark = sim && has_figure(line) && !strstr(line, "SIMULATED");
    printf("%s%s\n", line, mark ? MARK : "");
  }
  free(line);
  fclose(f);
  return 0;
}

static int demo_main(int argc, char **argv) {
  const char *dir = NULL, *steps_arg = NULL, *app_arg = NULL;
  static const char *const names[] = {"--dir", "--steps", "--app"};
  const char **slots[] = {&dir, &steps_arg, &app_arg};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      demo_usage(stdout);
      return ERGO_CLI_OK;
    }
    int r = 0;
    for (size_t k = 0; k < sizeof names / sizeof *names && !r; k++)
      r = ergo_cli_value("ergo demo", argc, argv, &i, names[k], slots[k]);
    if (r < 0) return ERGO_CLI_USAGE;
    if (!r) {
      fprintf(stderr,
              "ergo demo: unknown argument '%s': expected --dir, --steps, --app or --help\n",
              argv[i]);
      return ERGO_CLI_USAGE;
    }
  }
  if (!dir) dir = DEMO_DIR;
  long steps = DEMO_STEPS;
  if (steps_arg) {
    char *end;
    errno = 0;
    steps = strtol(steps_arg, &end, 10);
    if (errno || end == steps_arg || *end || steps < 1 || steps > 1000000) {
      fprintf(stderr,
              "ergo demo: --steps '%s' is not valid: expected an integer from 1 to 1000000\n",
              steps_arg);
      return ERGO_CLI_USAGE;
    }
  }
  if (!*dir) {
    fprintf(stderr, "ergo demo: --dir is empty: expected a directory path\n");
    return ERGO_CLI_USAGE;
  }

  /* This ergo runs the runs and the comparison; the mini-app is beside it in the build tree. */
  char self[PATH_MAX], app[PATH_MAX], cwd[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len < 0) return failure("cannot find this program: /proc/self/exe: %s", strerror(errno));
  self[len] = '\0';
  if (!getcwd(cwd, sizeof cwd))
    return failure("cannot read the working directory: %s", strerror(errno));
  /* The build tree's examples/ beside tools/, else where the install puts it. */
  char guess[2][PATH_MAX + 64];
  char *slash = strrchr(self, '/');
  int base = (int)(slash - self);
  snprintf(guess[0], sizeof guess[0], "%.*s/../examples/" APP_NAME, base, self);
  if (ERGO_DEMO_APP_INSTALLED[0] == '/')
    snprintf(guess[1], sizeof guess[1], "%s", ERGO_DEMO_APP_INSTALLED);
  else
    snprintf(guess[1], sizeof guess[1], "%.*s/../%s", base, self, ERGO_DEMO_APP_INSTALLED);
  const char *want = app_arg ? app_arg : access(guess[0], X_OK) == 0 ? guess[0] : guess[1];
  if (!realpath(want, app) || access(app, X_OK) != 0)
    return failure("the mini-app '%s' cannot be run: %s (it is built with ergo, as "
                   "build/examples/" APP_NAME ", and installed in %s; fix: --app PATH)",
                   want, strerror(errno), ERGO_DEMO_APP_INSTALLED);

  /* The directory: made if missing, and really writable (root passes access() checks). */
  struct stat st;
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return failure("cannot make the directory '%s' for its files: %s (fix: --dir DIR)", dir,
                   strerror(errno));
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return failure("cannot put its files in '%s': it is not a directory (fix: --dir DIR)", dir);
  char probe[PATH_MAX + 64];
  snprintf(probe, sizeof probe, "%s/.ergo-demo-probe", dir);
  int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return failure("cannot write in the directory '%s': %s (fix: --dir DIR)", dir, strerror(errno));
  close(fd);
  unlink(probe);
  /* A failed run must not leave the last demo's report to be read as its own. */
  static const char *const old[] = {"untuned.json", "online.json", "static.json", "model.json",
                                    "compare.txt",  "report.html", "report.txt"};
  for (size_t k = 0; k < sizeof old / sizeof *old; k++) {
    snprintf(probe, sizeof probe, "%s/%s", dir, old[k]);
    unlink(probe);
  }

  const char *me = ergo_cli_argv0;
  printf("ergo demo: ergo's mini-app (a timestep loop shaped like OpenGadget3's, %ld steps) runs\n"
         "three times on the sim node, ergo's simulated machine: untuned, tuned online, then with\n"
         "the tuned model applied, and `ergo compare` sets the three side by side. Every figure\n"
         "is SIMULATED.\n"
         "Every file goes to %s/, where the commands below run, with ERGO_PLATFORM=sim and\n"
         "each run's step and balance files as NAME-steps.txt and NAME-balance.txt; in them\n",
         steps, dir);
  if (strchr(me, '/')) printf("  ergo                 = %s\n", me);
  printf("  " APP_NAME " = %s\n", shown(app, cwd));

  char steps_s[32];
  snprintf(steps_s, sizeof steps_s, "%ld", steps);
  int sim = 1;
  for (int r = 0; r < NRUNS; r++) {
    const demo_run *d = &story[r];
    char out[64], report[64], steps_env[128], balance_env[128];
    snprintf(out, sizeof out, "%s.txt", d->name);
    snprintf(report, sizeof report, "%s.json", d->name);
    snprintf(steps_env, sizeof steps_env, "ERGO_REPORT_STEPS=%s-steps.txt", d->name);
    snprintf(balance_env, sizeof balance_env, "ERGO_BALANCE=%s-balance.txt", d->name);
    char *env[] = {"ERGO_PLATFORM=sim", steps_env, balance_env, NULL};
    char *args[16];
    int k = 0;
    args[k++] = self;
    args[k++] = "run";
    args[k++] = "--policy";
    args[k++] = (char *)d->policy;
    if (d->model) {
      args[k++] = "--model";
      args[k++] = "model.json";
    }
    args[k++] = "--report-json";
    args[k++] = report;
    args[k++] = "--";
    args[k++] = app;
    args[k++] = "--steps";
    args[k++] = steps_s;
    args[k] = NULL;
    printf("\n%d/%d %s: %s\n", r + 1, NRUNS, d->title, d->what);
    show(args, out);
    int rc = spawn(args, dir, out, env);
    if (rc < 0) return ERGO_CLI_FAIL;
    if (rc != 0)
      return failure("the %s run failed (exit status %d); its output is in %s/%s", d->title, rc,
                     dir, out);
    int on_sim = summary(dir, d->name);
    if (on_sim < 0) return ERGO_CLI_FAIL;
    sim &= on_sim;
    if (d->model && strcmp(d->policy, "online") == 0) {
      json_t *model = load(dir, "model.json");
      if (!model) return ERGO_CLI_FAIL;
      size_t nreg = json_object_size(json_object_get(model, "regions"));
      json_decref(model);
      printf("; model.json holds %zu region%s", nreg, nreg == 1 ? "" : "s");
    }
    printf("\n");
  }

  printf("\n%d/%d the three compared (every region: compare.txt)\n", NRUNS + 1, NRUNS + 1);
  char *cmp[] = {self, "compare", "untuned.json", "online.json", "static.json", NULL};
  printf("  $ ergo compare untuned.json online.json static.json > compare.txt 2>&1\n");
  int rc = spawn(cmp, dir, "compare.txt", NULL);
  if (rc < 0) return ERGO_CLI_FAIL;
  if (rc != 0)
    return failure("ergo compare failed (exit status %d); its output is in %s/compare.txt", rc,
                   dir);
  if (show_compare(dir, sim)) return ERGO_CLI_FAIL;

#ifdef ERGO_CLI_WEB
  /* The same runs as pictures: one page, nothing loaded from the network. */
  printf("\npictures: the region trees, the online search's measurements per region, the three\n"
         "runs' energy and the balance lines as one page (open it in a browser)\n");
  char *pic[] = {self,          "report",      "--html",     "report.html",        "untuned.json",
                 "online.json", "static.json", "model.json", "online-balance.txt", NULL};
  printf("  $ ergo report --html report.html untuned.json online.json static.json model.json \\\n"
         "        online-balance.txt > report.txt 2>&1\n");
  rc = spawn(pic, dir, "report.txt", NULL);
  if (rc < 0) return ERGO_CLI_FAIL;
  if (rc != 0)
    return failure("ergo report failed (exit status %d); its output is in %s/report.txt", rc, dir);
  printf("  %s/report.html\n", dir);
#endif

  /* What a user types next, each command real: the annotation, then this same CLI. */
  printf(
      "\nNext, with your own code:\n"
      "  1. annotate its main regions with ERGO_PUSH(level, \"name\") ... ERGO_POP(level,\n"
      "     \"name\") and link ergo (README.md: \"Quick start\", \"Using ergo from your build\")\n"
      "  2. tune it while it runs (writes ergo-model.json), then run it with that model:\n"
      "       %s run --policy online -- ./your_app\n"
      "       %s run --policy static -- ./your_app\n"
      "  3. see what ergo can measure and set on this machine:\n"
      "       %s info\n",
      me, me, me);
  return ERGO_CLI_OK;
}

const ergo_cli_command ergo_cli_demo = {
    .name = "demo",
    .summary = "the mini-app untuned, tuned online, with the model applied, compared (sim)",
    .run = demo_main,
};
