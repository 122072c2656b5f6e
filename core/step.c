/* step.c - ergo_step: per-step report and balance line, then a new step baseline. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fresh run starts the step files anew at its first step (as GADGET does with cpu.txt); a
 * run that loaded a checkpoint appends to them.  Starting anew writes the first step to a new
 * temporary file that replaces the old one only once the step is whole: a full disk or a
 * failed write keeps the previous run's file (and the next step tries anew). */
typedef struct step_file {
  FILE *f;
  char *tmp; /* the new file while it is being started, else NULL */
} step_file;

static int open_step_file(const char *path, int fresh, step_file *out) {
  const ergo__cold *root = ergo__node_cold_peek(&ergo__g.main_tree->root);
  int restarted = root && (root->loaded_s > 0 || root->loaded_calls > 0);
  /* Never through a symlink or into someone else's file: the default names are relative, and
   * the working directory of a root run may be writable by others. */
  char why[256] = "";
  out->tmp = NULL;
  int fd;
  if (fresh && !restarted) {
    /* The name passes the same checks as a growing file (no link, a regular file of ours) before
     * a new file is made to replace it. */
    fd = ergo__open_growing(path, 0, why, sizeof why);
    if (fd >= 0) {
      close(fd);
      fd = ergo__tmp_create(path, 0644, &out->tmp);
      if (fd < 0) snprintf(why, sizeof why, "%s", strerror(errno));
    }
  } else {
    fd = ergo__open_growing(path, 0, why, sizeof why);
  }
  out->f = fd >= 0 ? fdopen(fd, "a") : NULL;
  if (fd >= 0 && !out->f) {
    snprintf(why, sizeof why, "%s", strerror(errno));
    close(fd);
  }
  if (!out->f) {
    if (out->tmp) unlink(out->tmp);
    free(out->tmp);
    out->tmp = NULL;
    ergo__error("ergo_step: cannot open '%s': %s; this step's figures stay in the run's totals "
                "(fix: remove it, make the directory writable or set another path)",
                path, why);
    return ERGO_EIO;
  }
  return 0;
}

static int close_step_file(step_file *sf, const char *path) {
  int bad = ferror(sf->f);
  int err = bad ? EIO : 0;
  if (fclose(sf->f) != 0 && !err) err = errno ? errno : EIO;
  if (!err && sf->tmp && ergo__tmp_publish(sf->tmp, path) != 0) {
    err = errno;
    ergo__error("ergo_step: cannot replace '%s': %s; the previous file is kept and this step's "
                "figures stay in the run's totals (fix: remove it or set another path)",
                path, ergo__file_why(err));
  } else if (err) {
    ergo__error("ergo_step: writing '%s' failed: %s%s (fix: check free space)", path, strerror(err),
                sf->tmp ? "; the previous file is kept" : "");
  }
  if (err && sf->tmp) unlink(sf->tmp);
  free(sf->tmp);
  sf->tmp = NULL;
  return err ? ERGO_EIO : 0;
}

/* Make `now` the start of the next step for every node of the tree. */
static void rebase(ergo__tree *t, ergo__node *n, uint64_t now) {
  n->step_total = ergo__node_vticks(t, n, now);
  n->step_calls = n->calls;
  ergo__cold *cold;
  if (ergo__quant_any() && (cold = ergo__node_cold(n)) &&
      (cold->q_step || (cold->q_step = calloc(ERGO_MAX_QUANTITIES, sizeof *cold->q_step)))) {
    double v[ERGO_MAX_QUANTITIES][ERGO_MAX_COMPONENTS];
    ergo__quant_values(n, 0, v); /* this run's: a step differences them */
    memcpy(cold->q_step, v, sizeof v);
  }
  for (ergo__node *c = n->first_child; c; c = c->next_sibling) rebase(t, c, now);
}

/* Step numbers label the step report, the balance line and the step hooks; ergo expects them to
 * count up (from 0 or 1, gaps allowed: a code may step ergo every k of its own steps).  One that
 * does not is written all the same, so no figure is lost, with one warning per kind and run: a
 * code that repeats a number would otherwise say so at every step.  Caller holds ergo__g.lock. */
static void check_step_number(long step) {
  enum { NEGATIVE = 1, REPEATED = 2, DECREASING = 4 };
  int first = !ergo__g.has_last_step;
  long prev = ergo__g.last_step;
  char was[32] = "none";
  if (!first) snprintf(was, sizeof was, "%ld", prev);
  unsigned kind = step < 0       ? NEGATIVE
                  : first        ? 0
                  : step == prev ? REPEATED
                  : step < prev  ? DECREASING
                                 : 0;
  ergo__g.last_step = step;
  ergo__g.has_last_step = 1;
  if (!kind || (ergo__g.step_warned & kind)) return;
  ergo__g.step_warned |= kind;
  if (kind == NEGATIVE)
    ergo__warn("ergo_step(%ld): step number %ld is negative (previous step: %s); the step is "
               "written under that number, its figures kept (fix: number steps from 0 or 1 "
               "upwards; said once per run)",
               step, step, was);
  else if (kind == REPEATED)
    ergo__warn("ergo_step(%ld): step number %ld repeats the previous step's (%s); the step is "
               "written as a second step %ld, its figures kept (fix: pass each step its own "
               "number, counting up; said once per run)",
               step, step, was, step);
  else
    ergo__warn("ergo_step(%ld): step number %ld is below the previous step's (%s); the step is "
               "written under that number, its figures kept (fix: pass step numbers that count "
               "up; said once per run)",
               step, step, was);
}

int ergo_step_info(long step, const char *info) {
  if (!ergo__g.initialized) {
    ergo__warn("ergo_step(%ld) ignored: ergo is not initialised (fix: call ergo_init first)", step);
    return ERGO_ESTATE;
  }
  uint64_t now = ergo__ticks();
  pthread_mutex_lock(&ergo__g.lock);
  check_step_number(step);
  ergo__tree *t = ergo__g.main_tree;
  ergo__snap s;
  int rc = ergo__snap_take_step(t, now, &s);
  if (rc) {
    pthread_mutex_unlock(&ergo__g.lock);
    return rc;
  }
  int r;
  const char *steps = ergo__g.cfg.step_report, *bal = ergo__g.cfg.balance;
  /* In an MPI job rank 0 writes the step files (its own figures, as SPACE-Timers does); with
   * ERGO_REPORT_RANKS=1 every other rank writes its own <name>.rankN.  Separate processes (a
   * launcher's, without MPI) each write their own <name>.rankN, rank 0 too: no file is shared. */
  char *own_steps = NULL, *own_bal = NULL;
  if (ergo__rk.size > 1 && (ergo__rk.rank != 0 || ergo__rk.separate)) {
    if (ergo__g.cfg.report_ranks || ergo__rk.separate) {
      steps = own_steps = ergo__rank_path(steps, ergo__rk.rank);
      bal = own_bal = ergo__rank_path(bal, ergo__rk.rank);
    } else {
      steps = bal = NULL;
    }
  }
  step_file sf;
  if (steps && strcmp(steps, "none") != 0) {
    if (open_step_file(steps, !ergo__g.steps_ok[0], &sf))
      rc = ERGO_EIO;
    else {
      FILE *f = sf.f;
      fprintf(f, "Step %ld%s%s", step, info && *info ? " " : "", info ? info : "");
      /* The paper's header: "Step 100 Time: a=0.07125, MPI-Tasks: 6 Task:0". */
      if (ergo__rk.size > 1)
        fprintf(f, "%sMPI-Tasks: %d Task:%d", info && *info ? ", " : " ", ergo__rk.size,
                ergo__rk.rank);
      fputc('\n', f);
      ergo__report_text(f, &s, ergo__g.cfg.report_level, ergo__g.cfg.format == ERGO_FORMAT_WIDE);
      if ((r = close_step_file(&sf, steps)) && !rc) rc = r;
      if (!r) ergo__g.steps_ok[0]++;
    }
  }
  if (bal && strcmp(bal, "none") != 0) {
    int fresh = !ergo__g.steps_ok[1];
    if (open_step_file(bal, fresh, &sf))
      rc = rc ? rc : ERGO_EIO;
    else {
      int bad = ergo__balance_write(sf.f, &s, step, ergo__g.cfg.balance_level);
      if (bad && !rc) rc = bad;
      if ((r = close_step_file(&sf, bal)) && !rc) rc = r;
      if (!bad && !r) ergo__g.steps_ok[1]++;
      /* A new file that was not kept: the next one starts over, with its symbol headers. */
      if (fresh && (bad || r)) ergo__balance_reset();
    }
  }
  ergo__snap_free(&s);
  rebase(t, &t->root, now);
  t->step_t = now;
  ergo__g.steps_written++;
  pthread_mutex_unlock(&ergo__g.lock);
  free(own_steps);
  free(own_bal);
  /* Tools that act per step (the tuner's node sync) run after the step's files. */
  ergo__hooks_step(step);
  return rc;
}

/* The function behind the ergo_step macro: the parentheses keep the macro from expanding. */
int(ergo_step)(long step) { return ergo_step_info(step, NULL); }
