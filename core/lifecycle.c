/* lifecycle.c - the core's part of ergo_init/ergo_finalize: configuration, the main tree, the
 * final reports. */
#include "internal.h"

#include "util/path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned epoch_counter;
/* How long finalize waits for threads to leave a push or pop (they take microseconds; only a
 * blocked hook takes longer). */
#define QUIESCE_TIMEOUT_S 2.0

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static void free_strings(void) {
  free(ergo__g.str_report);
  free(ergo__g.str_json);
  free(ergo__g.str_hatchet);
  free(ergo__g.str_csv);
  free(ergo__g.str_steps);
  free(ergo__g.str_balance);
  free(ergo__g.str_energy);
  free(ergo__g.str_power_csv);
  free(ergo__g.str_trace);
  free(ergo__g.str_knobs);
  free(ergo__g.str_platform);
  free(ergo__g.str_sim_node);
  ergo__g.str_platform = ergo__g.str_sim_node = NULL;
  free(ergo__g.str_policy);
  free(ergo__g.str_objective);
  free(ergo__g.str_model);
  free(ergo__g.str_fixed);
  free(ergo__g.str_sweep);
  ergo__g.str_policy = ergo__g.str_objective = ergo__g.str_model = NULL;
  ergo__g.str_fixed = ergo__g.str_sweep = NULL;
  ergo__g.str_energy = ergo__g.str_power_csv = ergo__g.str_trace = ergo__g.str_knobs = NULL;
  ergo__g.str_report = ergo__g.str_json = ergo__g.str_hatchet = NULL;
  ergo__g.str_csv = ergo__g.str_steps = ergo__g.str_balance = NULL;
}

/* The runtime (runtime/runtime.c) resolves and checks the configuration. */
/* Who started the running ergo, when it was not the code itself: libergo-mpi-auto names
 * itself here right after its ergo_init at MPI_Init (mpi/pmpi.c), so a code's own ergo_init
 * is told which of the two to drop rather than to call ergo_finalize first. */
static const char *started_by;

ERGO_EXPORT void ergo__started_by(const char *who) { started_by = who; }
const char *ergo__core_started_by(void) { return ergo__g.initialized ? started_by : NULL; }

int ergo__core_init(const ergo_config *user) {
  if (ergo__g.initialized) {
    if (started_by)
      ergo__warn("ergo_init: %s already started ergo at MPI_Init, with the ERGO_* environment; "
                 "this call and its configuration are ignored (fix: choose one: set "
                 "ERGO_MPI_AUTO=0 or drop the LD_PRELOAD/-lergo-mpi-auto to keep this "
                 "ergo_init, or remove the code's ergo_init/ergo_finalize to keep %s)",
                 started_by, started_by);
    else
      ergo__warn("ergo_init called twice; the second call is ignored (fix: call ergo_finalize "
                 "first)");
    return ERGO_ESTATE;
  }
  started_by = NULL;
  ergo__readers_start();
  ergo_config cfg = *user;
  ergo__errors_reset();
  ergo__g.cfg = cfg;
  ergo__facts_start();
  ergo__log_set_abort(cfg.on_error == ERGO_ON_ERROR_ABORT);
  ergo__g.str_report = dup_or_null(cfg.report);
  ergo__g.str_json = dup_or_null(cfg.report_json);
  ergo__g.str_hatchet = dup_or_null(cfg.report_hatchet);
  ergo__g.str_csv = dup_or_null(cfg.report_csv);
  ergo__g.str_steps = dup_or_null(cfg.step_report);
  ergo__g.str_balance = dup_or_null(cfg.balance);
  ergo__g.cfg.report = ergo__g.str_report;
  ergo__g.cfg.report_json = ergo__g.str_json;
  ergo__g.cfg.report_hatchet = ergo__g.str_hatchet;
  ergo__g.cfg.report_csv = ergo__g.str_csv;
  ergo__g.cfg.step_report = ergo__g.str_steps;
  ergo__g.cfg.balance = ergo__g.str_balance;
  ergo__g.cfg.energy = ergo__g.str_energy = dup_or_null(cfg.energy);
  ergo__g.cfg.power_csv = ergo__g.str_power_csv = dup_or_null(cfg.power_csv);
  ergo__g.cfg.trace = ergo__g.str_trace = dup_or_null(cfg.trace);
  ergo__g.cfg.knobs = ergo__g.str_knobs = dup_or_null(cfg.knobs);
  ergo__g.cfg.platform = ergo__g.str_platform = dup_or_null(cfg.platform);
  ergo__g.cfg.sim_node = ergo__g.str_sim_node = dup_or_null(cfg.sim_node);
  ergo__g.cfg.policy = ergo__g.str_policy = dup_or_null(cfg.policy);
  ergo__g.cfg.objective = ergo__g.str_objective = dup_or_null(cfg.objective);
  ergo__g.cfg.model = ergo__g.str_model = dup_or_null(cfg.model);
  ergo__g.cfg.fixed = ergo__g.str_fixed = dup_or_null(cfg.fixed);
  ergo__g.cfg.sweep = ergo__g.str_sweep = dup_or_null(cfg.sweep);

  ergo__clock_init(&cfg);
  ergo__tree *t = ergo__tree_new();
  if (!t) {
    free_strings();
    return ERGO_ENOMEM;
  }
  pthread_mutex_lock(&ergo__g.lock);
  ergo__g.trees = NULL;
  ergo__g.ntrees = 0;
  ergo__tree_add(t);
  ergo__g.main_tree = t;
  ergo__g.steps_written = 0;
  ergo__g.steps_ok[0] = ergo__g.steps_ok[1] = 0;
  ergo__g.has_last_step = 0;
  ergo__g.last_step = 0;
  ergo__g.step_warned = 0;
  ergo__balance_reset();
  pthread_mutex_unlock(&ergo__g.lock);

  unsigned epoch = ++epoch_counter;
  if (epoch == 0 || epoch == ~0u) epoch = epoch_counter = 1;
  ergo__tls_set_main(t, epoch);
  ergo__reset_uninit_warning();
  ergo__names_reset();
  ergo__g.initialized = 1;
  __atomic_store_n(&ergo__epoch, epoch, __ATOMIC_RELEASE);
  return 0;
}

int ergo_initialized(void) { return ergo__g.initialized; }

const ergo_config *ergo__core_config(void) { return &ergo__g.cfg; }

void ergo__core_origin(void) {
  pthread_mutex_lock(&ergo__g.lock);
  if (ergo__g.main_tree && ergo__g.main_tree->depth == 0) /* no region open yet */
    ergo__g.main_tree->t0 = ergo__g.main_tree->step_t = ergo__ticks();
  pthread_mutex_unlock(&ergo__g.lock);
}

/* Report every region still open, then close it so its time is kept. */
static void close_open_regions(ergo__tree *t, uint64_t now) {
  for (int d = t->depth; d > 0; d--) {
    const ergo__frame *f = &t->stack[d];
    ergo__error("ergo_finalize: region \"%s\" pushed at %s:%d (level %d)%s is still open; "
                "closing it now (fix: add the matching ERGO_POP before ergo_finalize)",
                f->node->name, f->file ? f->file : "?", f->line, f->level,
                t->index ? " on another thread" : "");
  }
  ergo__close_all(t, now);
}

/* The final text report ends with the line saying how the run was made (step reports keep the
 * SPACE-Timers layout without it). */
static int print_final(FILE *f) {
  int rc = ergo_report_fprint(f);
  if (!rc) {
    ergo__facts_line(f);
    fflush(f);
  }
  return rc;
}

static int write_report_file(const char *dest) {
  if (!dest || strcmp(dest, "none") == 0) return 0;
  if (strcmp(dest, "stdout") == 0) return print_final(stdout);
  if (strcmp(dest, "stderr") == 0) return print_final(stderr);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return ERGO_ENOMEM;
  int rc = print_final(f);
  if (fclose(f) != 0 && !rc) rc = ERGO_ENOMEM;
  if (!rc) rc = ergo__atomic_write(dest, text, len);
  free(text);
  return rc;
}

/* A configured path as this rank writes it: as given, or <name>.rankN for a rank's own file.
 * A rank's own text report never goes to stdout or stderr: it gets ergo-report.rankN.txt. */
static char *dest_of(const char *path, const char *per_rank) {
  if (!per_rank) return path && strcmp(path, "none") ? strdup(path) : NULL;
  if (path && (strcmp(path, "stdout") == 0 || strcmp(path, "stderr") == 0))
    path = "ergo-report.txt";
  return ergo__rank_path(path, ergo__rk.rank);
}

/* The reports finalize writes, in write_reports' order. */
enum { NREPORTS = 4 };
static const struct {
  const char *what;
  int (*write)(const char *dest);
} reports[NREPORTS] = {{"text report", write_report_file},
                       {"JSON report", ergo_report_json},
                       {"Hatchet JSON", ergo_report_hatchet},
                       {"CSV report", ergo_report_csv}};

/* Write report i to dest; when dest cannot be written (the writer said why), to its fallback in
 * $TMPDIR and say where.  1 when dest itself was written. */
static int write_one(int i, const char *dest, int *rc) {
  int r = reports[i].write(dest);
  if (r == 0) return 1;
  if (!*rc) *rc = r;
  if (r != ERGO_EIO) return 0;
  char fb[4096];
  if (ergo__path_fallback(dest, fb, sizeof fb) != 0) {
    ergo__error("the %s is lost: '%s' could not be written, nor a fallback in $TMPDIR: %s (fix: "
                "set TMPDIR to a writable directory)",
                reports[i].what, dest, strerror(errno));
    return 0;
  }
  if (reports[i].write(fb) == 0)
    ergo__info("%s in %s instead ('%s' could not be written)", reports[i].what, fb, dest);
  else
    unlink(fb); /* the writer said why */
  return 0;
}

/* Every configured report; per_rank: this rank's own files (see dest_of).  written[i]: report i
 * went where it was asked to. */
static int write_reports(const char *per_rank, int written[NREPORTS]) {
  const ergo_config *c = &ergo__g.cfg;
  const char *paths[NREPORTS] = {c->report, c->report_json, c->report_hatchet, c->report_csv};
  int rc = 0;
  for (int i = 0; i < NREPORTS; i++) {
    char *d = dest_of(paths[i], per_rank);
    written[i] = d && write_one(i, d, &rc);
    free(d);
  }
  return rc;
}

/* During the run (ERGO_SAVE_EVERY, from an ergo_step): the JSON report so far, marked
 * "complete": false, where finalize will write the final one.  The merged report of an MPI job
 * is collective and made at finalize only: until then rank 0 writes its own tree to the job's
 * path (with ERGO_REPORT_RANKS=1, or when ranks keep separate files, every rank writes its own
 * <name>.rankN).  A failed write is said once (the writer said why) and not tried again. */
int ergo__core_save_partial(void) {
  static unsigned failed_epoch;
  const char *path = ergo__g.cfg.report_json;
  if (!ergo__g.initialized || ergo__g.finalizing || !path || strcmp(path, "none") == 0) return 0;
  unsigned epoch = __atomic_load_n(&ergo__epoch, __ATOMIC_ACQUIRE);
  if (failed_epoch && failed_epoch == epoch) return 0;
  int multi = ergo__rk.size > 1, rc = 0, r;
  int own = multi && (ergo__g.cfg.report_ranks || ergo__rk.separate);
  if (!multi || (ergo__rk.rank == 0 && !ergo__rk.separate)) rc = ergo_report_json(path);
  if (own) {
    char *d = dest_of(path, "rank");
    if (d && (r = ergo_report_json(d)) && !rc) rc = r;
    free(d);
  }
  if (rc) {
    failed_epoch = epoch;
    ergo__warn("ERGO_SAVE_EVERY: the JSON report is no longer saved during the run; "
               "ergo_finalize writes it (fix: set ERGO_REPORT_JSON to a writable path)");
  }
  return rc;
}

/* Say once where the files went, so nobody has to guess: only files that were written. */
static void note_files(const char *per_rank, const int written[NREPORTS]) {
  const ergo_config *c = &ergo__g.cfg;
  int steps = ergo__g.steps_written;
  if (per_rank && ergo__rk.separate) { /* rank 0's files, named as every process names its own */
    const char *paths[] = {c->step_report, c->balance,        c->report,
                           c->report_json, c->report_hatchet, c->report_csv};
    int done[] = {steps && ergo__g.steps_ok[0],
                  steps && ergo__g.steps_ok[1],
                  written[0],
                  written[1],
                  written[2],
                  written[3]};
    char list[1024] = "";
    size_t len = 0;
    for (int i = 0; i < 6; i++) {
      const char *p = paths[i];
      if (i == 2 && p && (strcmp(p, "stdout") == 0 || strcmp(p, "stderr") == 0))
        p = "ergo-report.txt";
      char *d = done[i] ? ergo__rank_path(p, 0) : NULL;
      if (d && len < sizeof list)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", d);
      free(d);
    }
    if (len)
      ergo__info("each of the %d processes wrote its own files, named by its rank: %s, ...",
                 ergo__rk.size, list);
    return;
  }
  if (per_rank) {
    ergo__info("every rank's own reports in <name>.rankN files (ERGO_REPORT_RANKS)");
    return;
  }
  const char *step_files[] = {c->step_report, c->balance};
  const char *step_what[] = {"step report(s)", "balance line(s)"};
  for (int i = 0; i < 2; i++) {
    int ok = ergo__g.steps_ok[i];
    if (!steps || !step_files[i] || strcmp(step_files[i], "none") == 0 || !ok) continue;
    if (ok < steps)
      ergo__info("%d %s in %s (%d more could not be written)", ok, step_what[i], step_files[i],
                 steps - ok);
    else
      ergo__info("%d %s in %s", ok, step_what[i], step_files[i]);
  }
  const char *files[] = {c->report_json, c->report_hatchet, c->report_csv};
  for (int i = 0; i < 3; i++)
    if (files[i] && written[i + 1]) ergo__info("%s in %s", reports[i + 1].what, files[i]);
  const char *r = c->report;
  if (r && written[0] && strcmp(r, "none") && strcmp(r, "stdout") && strcmp(r, "stderr"))
    ergo__info("text report in %s", r);
}

int ergo__core_finalize(void) {
  if (!ergo__g.initialized) return 0;
  uint64_t now = ergo__ticks();
  /* Stop new events first: any push from now on is a no-op.  Then wait for threads still
   * inside a push or pop to leave it: from here on no thread touches its tree or a hook. */
  __atomic_store_n(&ergo__epoch, 0, __ATOMIC_SEQ_CST);
  int inside = ergo__readers_quiesce(QUIESCE_TIMEOUT_S);
  if (inside)
    ergo__error("ergo_finalize: %d thread(s) still inside a region call after %.0f s (a hook "
                "blocked?); their regions are reported as they are and ergo's memory is kept "
                "(fix: end the threads' regions, or join the threads, before ergo_finalize)",
                inside, QUIESCE_TIMEOUT_S);
  pthread_mutex_lock(&ergo__g.lock);
  for (ergo__tree *t = ergo__g.trees; t; t = t->next) close_open_regions(t, now);
  pthread_mutex_unlock(&ergo__g.lock);
  ergo__g.final_ticks = now;
  ergo__g.finalizing = 1;
  ergo__hooks_finalize();

  int rc = 0, r;
  int multi = ergo__rk.size > 1;
  int merged = 0;
  if (multi) {
    if (ergo__rk.usable && ergo__rk.usable())
      merged = ergo__merge_take() == 0;                /* collective: every rank takes part */
    else if (ergo__rk.rank == 0 && !ergo__rk.separate) /* separate: said at ergo_init */
      ergo__warn("ergo_finalize: the %d ranks' regions cannot be merged (MPI is finalised, "
                 "the program ended without ergo_finalize, or a rank failed ergo_init); every "
                 "rank writes its own files (<name>.rankN) (fix: call ergo_finalize before "
                 "MPI_Finalize on every rank)",
                 ergo__rk.size);
  }
  /* Rank 0 writes the job's files; with ERGO_REPORT_RANKS=1 (or no merge) every rank also
   * writes its own, named <name>.rankN, and no rank but 0 prints to stdout. */
  if (!multi || (merged && ergo__rk.rank == 0)) {
    int written[NREPORTS];
    if ((r = write_reports(NULL, written)) && !rc) rc = r;
    note_files(NULL, written);
  }
  ergo__merged_free();
  if (multi && (ergo__g.cfg.report_ranks || !merged)) {
    int written[NREPORTS];
    if ((r = write_reports("rank", written)) && !rc) rc = r;
    if (ergo__rk.rank == 0) note_files("rank", written);
  }

  pthread_mutex_lock(&ergo__g.lock);
  ergo__tree *t = inside ? NULL : ergo__g.trees; /* a thread still inside keeps its memory */
  while (t) {
    ergo__tree *next = t->next;
    ergo__tree_free(t);
    t = next;
  }
  ergo__g.trees = NULL;
  ergo__g.main_tree = NULL;
  ergo__g.ntrees = 0;
  ergo__balance_reset();
  ergo__snap_pool_release();
  pthread_mutex_unlock(&ergo__g.lock);
  ergo__tls_set_main(NULL, ~0u);
  ergo__hooks_reset();
  ergo__quant_reset();
  ergo__sections_reset();
  ergo__facts_stop();
  free_strings();
  ergo__g.finalizing = 0;
  ergo__g.initialized = 0;
  return rc;
}
