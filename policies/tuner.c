/* tuner.c - drives a policy from the region hooks: per significant region, the policy's config on
 * entry (through the settings stack), and the exclusive time and energy of every execution. */
#include "policies/tuner.h"

#include "mpi/job.h"
#include "mpi/node_sync.h"
#include "policies/model.h"
#include "policies/policy.h"
#include "policies/work.h"
#include "util/buf.h"
#include "util/log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ERGO__TUNER_DEPTH 256
/* Significance: the median own time of a region's last K executions (fewer at its start). */
#define ERGO__SIG_WINDOW 3
/* Executions the mean own time of a significant region is taken over at the end (listed()),
 * and the kind of listed() that asks for such regions. */
#define LATE_N 20
#define LISTED_SHRANK 2
/* Never judged (listed() 0), by why: it ran once, or it had a measure of its work but never ran
 * untuned (0: neither, nothing measured its work under a tuned region). */
#define LISTED_ONCE 3
#define LISTED_MEASURED 4
/* ERGO_TUNE_PROGRESS: seconds between progress lines by default; the word for every step. */
#define ERGO__PROGRESS_VAR "ERGO_TUNE_PROGRESS"
#define ERGO__PROGRESS_DEFAULT_S 10.0
#define ERGO__PROGRESS_STEP "step"
/* ERGO_RETUNE: on (default) or off. */
#define ERGO__RETUNE_VAR "ERGO_RETUNE"

/* Executions since the last node sync (node mode): summed, told to the policy combined. */
typedef struct pending {
  uint64_t n, e_n;      /* executions; those with energy measured */
  double t, e, r;       /* sums of exclusive time, energy, resource */
  double pt;            /* of t, the time of descendants the node has not judged yet */
  ergo__config applied; /* the config of the first of them */
  int mixed;            /* a later one ran under another config */
} pending;

typedef struct rstate {
  ergo__region_state pub;
  int entered;          /* the policy has heard of it (preset) */
  int preset;           /* the policy knew it significant before its first execution */
  int known;            /* the policy has a setting for it (preset != 0) */
  int units_known;      /* and for its first unit PATH#1 (a model split it by call size) */
  struct rstate *next;  /* every state, for freeing */
  struct rstate *hnext; /* the path table's chain */
  /* Node mode: what this step's syncs decided for the whole node. */
  int decided;           /* significance is known (from the node's figures) */
  ergo__config node_cfg; /* the config every rank of the node runs it under */
  pending p;
  /* The setting its last tuned execution ran under (reports show it); varied: not all alike. */
  ergo__config last;
  int has_last, varied;
  /* Significance over a window: the own times of the last executions (a ring), their median at
   * the last check, and the execution at which the region was judged significant (0: not). */
  double win[ERGO__SIG_WINDOW];
  double robust;
  uint64_t sig_at;
  /* Once significant: its own times per execution since (at whatever setting each ran), the last
   * LATE_N of them in a ring, and their number (listed(), LISTED_SHRANK). */
  double late[LATE_N];
  long late_n;
  /* Like for like: time and energy per unit of the execution's work (policies/work.h). */
  ergo__work_norm norm;
  int work_src; /* the source of the last normalised execution (ERGO__WORK_*) */
  /* Sizes within a step (no work measure): the own times of this step's calls and whether they
   * all ran under one config; judged at the step's end.  ready: the region may be tuned (a step
   * has passed since its first execution, or it has a work measure, or too many calls per step
   * to split); split: its calls are tuned as this many units, one per call index (unit[]). */
  int calls_step, step_alike, split_judged, split, ready;
  double step_own; /* own time of this step's calls at the baseline (its own, not its units') */
  int step_base_n; /* and their number */
  int judged_n;    /* executions its significance was judged on (the window's) */
  int mean_judged; /* a step's end has passed with several calls: its mean was judged */
  double base_pw;  /* own time per unit of work at the baseline, from the last such execution */
  /* The same from an untuned execution not judged for its pending descendants' time, and its
   * own work then: base_pw once they are judged, where the own work is still what it was. */
  double pend_pw, pend_w;
  double step_t[ERGO__SPLIT_MAX];
  ergo__config step_cfg;
  /* Called more than ERGO__SPLIT_MAX times in a step, as a child of a parent run several times
   * per step: its calls within one execution of the parent (pexec: that execution's serial;
   * pcall: the calls so far in it), their own times and whether they ran under one config
   * (pstep_t, pcalls, palike: of the parent's last execution).  by_parent: it is split by the
   * call index within its parent's execution instead of within the step. */
  uint64_t pexec;
  int pcall, pcalls, palike, by_parent;
  double pstep_t[ERGO__SPLIT_MAX];
  ergo__config pstep_cfg;
  struct rstate *unit[ERGO__SPLIT_MAX];
  struct rstate *base; /* a unit: the region it is a call size of */
  int retunes;         /* the policy re-tuned it after a change (its work or the machine's) */
  /* Node rank 0: at its last judgement its slowest rank's time was significant but no energy
   * reading stood for it (node mode, an objective that weighs energy): its reader's time per
   * execution then (-1: no reader ran it) and the slowest rank's. */
  int no_energy;
  double no_energy_reader_t, no_energy_t;
  /* Node rank 0, during a sync: every rank's executions combined. */
  struct {
    double t;    /* the slowest rank's mean exclusive time per execution */
    double tj;   /* the same without descendants the node has not judged yet */
    double e;    /* the node's energy per execution, from its readers */
    double r;    /* summed mean resource (divided by ranks when told) */
    int e_ok;    /* some rank read the region's energy in every execution */
    int e_short; /* a reader ran it for less than ERGO_MIN_REGION_MS per execution */
    double e_t;  /* the shortest reader's time per execution */
    int mixed;   /* the executions did not all run under one config */
    int ranks;   /* ranks that ran it since the last sync (0: not touched) */
    ergo__config applied;
  } sum;
} rstate;

#define ERGO__TUNER_BUCKETS 1024

typedef struct frame {
  rstate *rs;
  rstate *base;              /* the region's own state (rs is one of its units when split) */
  int call;                  /* its call index within the step (from 0) */
  int pcall;                 /* and within its parent's execution */
  uint64_t serial;           /* this execution's number (its children's pexec) */
  double child_t, child_e;   /* inclusive figures of the children of this execution */
  ergo__work_sample w0;      /* the work counters at entry */
  double child_wh, child_wc; /* inclusive work of the significant children (hint, counter) */
  uint64_t child_wn;         /* and their ergo_region_work calls */
  int pushed;
  int tuned;   /* significant at entry: ran under the policy's choice */
  int settled; /* tuned: the policy's search for it is over (asked once per execution, on the
                  first child that needs it; see settled_above) */
  int settled_asked;
  int under;             /* an enclosing region was tuned: it ran under that region's setting */
  ergo__config napplied; /* node mode: applied in the node's terms (node_terms()) */
  double pend_t; /* own time it holds of descendants not significant whose judgement is pending
                    (their first executions) */
  ergo__config applied;
} frame;

static struct {
  int active;
  ergo__policy pol;
  double min_s;
  int level; /* regions deeper than the energy level are not measured, so not tuned */
  frame stack[ERGO__TUNER_DEPTH];
  int depth;
  rstate *states;
  rstate *table[ERGO__TUNER_BUCKETS]; /* by path: a rank may hear of a region it never ran */
  int fixed_pushed;
  /* Node mode: several ranks share this node's knobs, so node rank 0's policy decides for all of
   * them at every ergo_step, from every rank's measurements (tuner_step). */
  int node;
  int leader;
  long syncs;
  int energy_seen;         /* some execution of a tuned level had its energy measured */
  double progress_s;       /* ERGO_TUNE_PROGRESS: seconds between lines; 0 off; < 0 every step */
  double progress_at;      /* CLOCK_MONOTONIC of the last line (or of the start) */
  int progress_rank;       /* this process prints progress (rank 0) */
  char progress_last[512]; /* the last line's text after "step N: " */
  int save_failed;         /* a save during the run failed: no more of them */
  int time_only;           /* the objective weighs no energy: a meter is not needed */
  int finish_rc;           /* the policy's finish: 0, or the tuning model's write error */
  /* Node mode: node rank 0's most threads, the scale of the node's thread decisions (0 until the
   * first decision table), and which knobs' decisions this rank has said it cannot run as is. */
  int node_cores;
  int node_off_said[ERGO__NKNOBS];
  int shares_said; /* node rank 0 said its ranks' shares of the cores differ */
  uint64_t serial; /* executions entered so far */
} T;

static const ergo__policy_ops *const policies[] = {
    &ergo__policy_monitor, &ergo__policy_fixed,  &ergo__policy_static,
    &ergo__policy_sweep,   &ergo__policy_online,
};

const ergo__policy_ops *ergo__policy_find(const char *name) {
  for (size_t i = 0; name && i < sizeof policies / sizeof *policies; i++)
    if (strcmp(policies[i]->name, name) == 0) return policies[i];
  return NULL;
}

const char *ergo__policy_name(int i) {
  return i >= 0 && (size_t)i < sizeof policies / sizeof *policies ? policies[i]->name : NULL;
}

int ergo__policy_tunable(const ergo__space *space, char *why, size_t whylen) {
  for (int i = 0; i < ERGO__SPACE_DIMS; i++)
    if (space->n[i] > 1) return 0;
  snprintf(why, whylen,
           "no knob on this node has more than one value, so there is nothing to tune (`ergo "
           "info` says which knobs are missing and why)");
  return ERGO_EINVAL;
}

/* The median of the n (1..ERGO__SIG_WINDOW) values in w. */
static double median(const double *w, int n) {
  double v[ERGO__SIG_WINDOW];
  memcpy(v, w, sizeof *v * (size_t)n);
  for (int i = 1; i < n; i++) /* insertion sort: at most three values */
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      double x = v[j];
      v[j] = v[j - 1];
      v[j - 1] = x;
    }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The path of a region as the JSON report writes it: "Global/A/B". */
static char *path_of(ergo_region *r) {
  const char *names[256];
  int n = 0;
  for (ergo_region *p = r; p && n < 256; p = ergo_region_parent(p))
    names[n++] = ergo_region_name(p);
  size_t len = 1;
  for (int i = 0; i < n; i++) len += strlen(names[i]) * 2 + 1;
  char *s = malloc(len), *o = s;
  if (!s) return NULL;
  for (int i = n - 1; i >= 0; i--) {
    for (const char *c = names[i]; *c; c++) {
      if (*c == '/' || *c == '\\') *o++ = '\\';
      *o++ = *c;
    }
    if (i) *o++ = '/';
  }
  *o = '\0';
  return s;
}

static unsigned path_hash(const char *s) {
  unsigned h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h % ERGO__TUNER_BUCKETS;
}

/* The state of the region at `path`, made (with a copy of the path) when first asked for.
 * NULL on no memory. */
static rstate *state_of(const char *path) {
  if (!path) return NULL;
  unsigned h = path_hash(path);
  for (rstate *s = T.table[h]; s; s = s->hnext)
    if (strcmp(s->pub.path, path) == 0) return s;
  rstate *s = calloc(1, sizeof *s);
  if (!s || !(s->pub.path = strdup(path))) {
    free(s);
    return NULL;
  }
  s->next = T.states;
  T.states = s;
  s->hnext = T.table[h];
  T.table[h] = s;
  return s;
}

static void effective(ergo__config *c) {
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    ergo__knob *k = ergo__knob_get(i);
    c->v[i] = !k ? 0 : k->current_valid ? k->current : T.pol.space.baseline[i];
  }
}

/* ---- node mode: the node's decisions in this rank's terms -------------------------------------
 * Node rank 0 decides for the node in its own terms, but the ranks of a node may hold different
 * shares of its cores (the sim node's 20 over 3 ranks: 7, 7 and 6; uneven cpusets on a real one).
 * A rank runs a thread decision as the same share of its own cores: t of node rank 0's n threads
 * is round(t m / n) of its m, at least 1.  So every decision fits every rank, all-maximum stays
 * all-maximum, and each rank's resource term (threads / its cores) is the node's. */

/* This rank's most threads, its share of the node's cores (0: no thread knob here). */
static int own_cores(void) { return T.pol.space.n[ERGO__KNOB_THREADS] ? T.pol.space.cores : 0; }

static int64_t scale_threads(int64_t t, int from, int to) {
  if (!t || from <= 0 || to <= 0 || from == to) return t;
  int64_t v = (t * to + from / 2) / from;
  return v < 1 ? 1 : v;
}

/* The value this rank runs for the node's decision v of knob slot i (0: inherit); *off when its
 * own knob allows no such value even so (absent here: 0; else the nearest allowed). */
static int64_t node_value(int i, int64_t v, int *off) {
  *off = 0;
  if (!v) return 0;
  if (i == ERGO__KNOB_THREADS) v = scale_threads(v, T.node_cores, T.pol.space.cores);
  int64_t near = ergo__space_round(&T.pol.space, i, v);
  *off = near != v;
  return near;
}

/* The node's decision `want` for region `path` as this rank runs it (out).  A value its knob
 * cannot take is said once per knob, not at every execution. */
static void node_local(const ergo__config *want, ergo__config *out, const char *path) {
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    int off;
    out->v[i] = node_value(i, want->v[i], &off);
    if (!off || T.node_off_said[i]) continue;
    T.node_off_said[i] = 1;
    const ergo__knob_row *row = &ergo__knob_table[i];
    const ergo__space *sp = &T.pol.space;
    const ergo__job *job = ergo__job_get();
    if (!sp->n[i])
      ergo__warn("rank %d: node %d decided %s=%lld for '%s', but this rank has no usable %s knob "
                 "(`ergo info` says why); it leaves that knob as it is for every decision of the "
                 "node (fix: run the ranks of a node where the same knobs work, or leave %s out "
                 "of ERGO_KNOBS)",
                 job->rank, job->node, row->field, (long long)want->v[i], path, row->backend,
                 row->backend);
    else
      ergo__warn("rank %d: node %d decided %s=%lld for '%s', which this rank's %s knob does not "
                 "allow (%lld to %lld %s, %d values); it runs the nearest allowed value, here "
                 "%lld, for every decision of the node (fix: run the ranks of a node on CPUs with "
                 "the same %s values, or leave %s out of ERGO_KNOBS)",
                 job->rank, job->node, row->field, (long long)want->v[i], path, row->backend,
                 (long long)sp->values[i][0], (long long)sp->values[i][sp->n[i] - 1], row->unit,
                 sp->n[i], (long long)out->v[i], row->backend, row->backend);
  }
}

/* The config the execution in f ran under (f->applied, this rank's values) in the node's terms,
 * as its decisions are made and as node rank 0 compares its ranks' executions: the decision it
 * ran (want, its own or an enclosing region's) where this rank's value is that decision's, else
 * its value scaled back to node rank 0's share (an untuned execution at the machine's values). */
static void node_terms(frame *f, const ergo__config *want) {
  const frame *up = T.depth > 1 ? &T.stack[T.depth - 2] : NULL;
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    int64_t v = f->applied.v[i];
    int off;
    if (want && want->v[i] && node_value(i, want->v[i], &off) == v)
      f->napplied.v[i] = want->v[i];
    else if (up && up->rs && up->napplied.v[i] && node_value(i, up->napplied.v[i], &off) == v)
      f->napplied.v[i] = up->napplied.v[i];
    else
      f->napplied.v[i] =
          i == ERGO__KNOB_THREADS ? scale_threads(v, T.pol.space.cores, T.node_cores) : v;
  }
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The progress line, when one is due: at every step (ERGO_TUNE_PROGRESS=step, at_step), or
 * ERGO_TUNE_PROGRESS seconds after the last. */
static void progress(int at_step) {
  if (!T.progress_rank || !T.progress_s || !T.pol.ops->progress) return;
  if (T.progress_s < 0 ? !at_step : now_s() - T.progress_at < T.progress_s) return;
  char line[sizeof T.progress_last];
  if (!T.pol.ops->progress(&T.pol, line, sizeof line)) return;
  T.progress_at = now_s();
  /* Once every region is done the line stops changing: said once is enough. */
  if (strcmp(line, T.progress_last) == 0) return;
  memcpy(T.progress_last, line, sizeof line);
  if (T.pol.steps)
    ergo__info("%s: step %ld: %s", T.pol.ops->name, T.pol.steps, line);
  else
    ergo__info("%s: %s", T.pol.ops->name, line);
}

/* ERGO_TUNE_PROGRESS: seconds between progress lines (0 = off) or "step"; a bad value is one
 * warning and the default. */
static double progress_setting(void) {
  const char *v = getenv(ERGO__PROGRESS_VAR);
  if (!v) return ERGO__PROGRESS_DEFAULT_S;
  if (strcmp(v, ERGO__PROGRESS_STEP) == 0) return -1;
  char *end = NULL;
  errno = 0;
  double x = strtod(v, &end);
  if (end == v || *end || errno || !isfinite(x) || x < 0 || x > 86400) {
    ergo__warn("%s='%s' is not valid: expected seconds between tuning progress lines from 0 "
               "(off) to 86400, or '%s' for one line per ergo_step; using %g",
               ERGO__PROGRESS_VAR, v, ERGO__PROGRESS_STEP, ERGO__PROGRESS_DEFAULT_S);
    return ERGO__PROGRESS_DEFAULT_S;
  }
  return x;
}

/* Unit k (from 0) of a region split by call size: its own state, path "PATH#k+1" (made at
 * first use; NULL on no memory: the call is then the region's own). */
static rstate *unit_of(rstate *rs, int k) {
  if (rs->unit[k]) return rs->unit[k];
  size_t len = strlen(rs->pub.path) + 16;
  char *path = malloc(len);
  if (!path) return NULL;
  snprintf(path, len, "%s#%d", rs->pub.path, k + 1);
  rstate *u = state_of(path);
  free(path);
  if (!u) return NULL;
  u->base = rs;
  u->ready = u->split_judged = 1;
  rs->unit[k] = u;
  return u;
}

/* The policy hears of a region the first time it is entered: a policy that knows it already
 * (static: its model measured it) tunes it from its first execution. */
static void first_entry(rstate *rs) {
  if (rs->entered) return;
  rs->entered = 1;
  /* Under MPI the node decides at ergo_step instead. */
  int k = T.pol.ops->preset ? T.pol.ops->preset(&T.pol, rs->pub.path) : 0;
  rs->known = k != 0;
  if (k > 0 && !T.node) rs->preset = rs->pub.significant = rs->ready = 1;
  if (!rs->base && !T.node && T.pol.ops->preset) {
    size_t len = strlen(rs->pub.path) + 3;
    char *unit = malloc(len);
    if (unit) {
      snprintf(unit, len, "%s#1", rs->pub.path);
      rs->units_known = T.pol.ops->preset(&T.pol, unit) != 0;
      free(unit);
    }
  }
}

void ergo__tuner_enter(ergo_region *r, int level, void **state, const ergo__work_sample *w) {
  if (!T.active || level > T.level) return;
  if (T.depth >= ERGO__TUNER_DEPTH) {
    T.depth++; /* too deep: counted so the exits match, not tuned */
    return;
  }
  rstate **slot = (rstate **)state;
  if (!*slot) { /* first entry of this node: its state may exist already (a node sync) */
    char *path = path_of(r);
    *slot = state_of(path);
    free(path);
  }
  if (!*slot) {
    memset(&T.stack[T.depth++], 0, sizeof(frame)); /* not tuned: its children are not under it */
    return;
  }
  rstate *rs0 = *slot;
  first_entry(rs0);
  frame *f = &T.stack[T.depth++];
  memset(f, 0, sizeof *f);
  f->rs = f->base = rs0;
  f->w0 = *w;
  if (T.depth > 1) f->under = T.stack[T.depth - 2].tuned || T.stack[T.depth - 2].under;
  f->serial = ++T.serial;
  uint64_t parent = T.depth > 1 ? T.stack[T.depth - 2].serial : 0;
  if (rs0->pexec != parent) rs0->pexec = parent, rs0->pcall = 0;
  f->pcall = rs0->pcall++;
  f->call = rs0->calls_step++;
  int index = rs0->by_parent ? f->pcall : f->call;
  if (rs0->split && index < rs0->split && !T.node) {
    rstate *u = unit_of(rs0, index);
    if (u) {
      first_entry(u);
      f->rs = u;
    }
  }
  /* Not yet ready: its calls in a step may be of several sizes, which the step's end judges
   * (they run untuned and unobserved until then, so they are alike). */
  f->tuned = f->rs->pub.significant && (f->rs->ready || T.node);
  f->rs->pub.call = f->rs == f->base && !T.node ? f->call : 0;
  ergo__config want = {{0}};
  if (f->tuned) {
    ergo__config run;
    if (T.node) /* the node's decision at the last ergo_step, as this rank runs it */
      want = f->rs->node_cfg, node_local(&want, &run, f->rs->pub.path);
    else
      T.pol.ops->choose(&T.pol, &f->rs->pub, &want), run = want;
    if (run.v[0] || run.v[1] || run.v[2]) f->pushed = ergo__settings_push(run.v) == 0;
  } else if (rs0->units_known && !rs0->split_judged && !T.node) {
    /* The model has a setting per call size and this run has not yet told its calls apart (its
     * first step): they run untuned, at the machine's own values, not at an enclosing region's
     * setting, which may be far from theirs (ergo-bench-tuning-random --no-counter, seed 1268:
     * a memory-bound child's first step at its serial parent's 2 threads of 63). */
    f->pushed = ergo__settings_push(T.pol.space.baseline) == 0;
  }
  effective(&f->applied);
  if (T.node) node_terms(f, f->tuned ? &want : NULL);
}

/* Call i (from 0) of a series (a step's, or a parent execution's) ran under `applied` with own
 * time xt: whether all so far ran under one config (*cfg the first's), and its time. */
static void note_call(ergo__config *cfg, int *alike, double *t, int i, const ergo__config *applied,
                      double xt) {
  if (i == 0) {
    *cfg = *applied;
    *alike = 1;
  } else if (memcmp(cfg, applied, sizeof *applied) != 0) {
    *alike = 0;
  }
  if (i < ERGO__SPLIT_MAX) t[i] = xt > 0 ? xt : 0;
}

/* Whether the nearest enclosing tuned region (frames below T.depth) runs at its settled choice:
 * its search is over (the policy's view says done), so its setting is no trial but what its
 * children run under from now on. */
static int settled_above(void) {
  for (int i = T.depth - 1; i >= 0; i--) {
    frame *a = &T.stack[i];
    if (!a->tuned) continue;
    if (!a->settled_asked) { /* its search moves only when it ends: once per execution */
      ergo__policy_view v = {0};
      a->settled_asked = 1;
      a->settled =
          a->rs && T.pol.ops->inspect && T.pol.ops->inspect(&T.pol, &a->rs->pub, &v) && v.done;
    }
    return a->settled;
  }
  return 0;
}

/* The own time a region's significance is judged on, from this execution: its own time when it
 * ran untuned (no enclosing region tuned); under an enclosing region's setting (its search or its
 * choice) the time it would have taken untuned, from its work and its time per unit of work then;
 * -1 when neither is known (the execution is not judged).  Judged so, a short child is never
 * taken for significant because its parent tried a slow setting.  A region the policy has a
 * setting for but leaves to this run to judge (static: the model names it with no time) is
 * judged on its own time under the enclosing setting, which under static is no trial but what
 * it runs under for the whole run.  Else a region that only ever runs under a tuned parent would
 * never be judged, and would run at its parent's setting for good, which may be far from its
 * own in the model (issue 14: ergo-bench-tuning-random seed 1192, a compute-bound
 * child at its memory-bound parent's 16 threads of 108, 29x monitor's E.T^2).
 *
 * Without a work measure, a child under a settled choice is judged on its own time there: else
 * a child whose work grows under a tuned parent would never be judged on a node without a work
 * counter, its growth charged to the parent's own time (ergo-bench-tuning-random --no-counter,
 * seed 1239: a child that grew 17x left its parent tuned on work that was no longer its own). */
/* The execution's own work by the region's source (hint units xh, counter xc); 0: none. */
static double own_work(const rstate *st, double xh, double xc) {
  return st->work_src == ERGO__WORK_HINT ? xh : st->work_src == ERGO__WORK_COUNTER ? xc : 0;
}

static double judged_time(rstate *st, const frame *f, double xt, double xh, double xc) {
  double w = own_work(st, xh, xc);
  if (xt < 0) xt = 0;
  if (!f->under) {
    if (w > 0) st->base_pw = xt / w;
    return xt;
  }
  /* Its untuned executions were all skipped while its descendants' judgement was pending (a
   * wrapper of short children: their time is its own once they are judged not significant), and
   * now it runs under a tuned parent: the time per unit of work those executions had stands for
   * its untuned time where its own work is the same within 10 % (no descendant was taken out as
   * significant since).  Else a region of 0.3 s of short children was never judged and ran at
   * its parent's setting for good (the mini-app's FIND_HSML: its parent's unit 1.05-1.08x the
   * oracle's energy, SIMULATED). */
  if (st->base_pw <= 0 && st->pend_pw > 0 && w > 0 && f->pend_t <= 0 &&
      fabs(log(w / st->pend_w)) <= log(1.1))
    st->base_pw = st->pend_pw;
  if (w > 0 && st->base_pw > 0) return st->base_pw * w;
  return st->known || (w <= 0 && settled_above()) ? xt : -1;
}

/* The exclusive work of the execution in frame f from the counters at its exit (hint units and
 * calls, counter; the counter < 0 when there is none), and what it passes up to its parent. */
static void work_of(const frame *f, const ergo__work_sample *w, double *xh, uint64_t *xn,
                    double *xc, double *ih, uint64_t *in, double *ic) {
  *ih = w->hint - f->w0.hint;
  *in = w->hints - f->w0.hints;
  *ic = w->counter >= 0 && f->w0.counter >= 0 ? w->counter - f->w0.counter : -1;
  *xh = *ih - f->child_wh;
  *xn = *in - f->child_wn;
  *xc = *ic >= 0 ? *ic - f->child_wc : -1;
}

void ergo__tuner_exit(ergo_region *r, int level, void **state, const ergo__region_measurement *m) {
  (void)r, (void)state;
  if (!T.active || level > T.level || T.depth == 0) return;
  if (T.depth > ERGO__TUNER_DEPTH) {
    T.depth--;
    return;
  }
  frame *f = &T.stack[--T.depth];
  if (!f->rs) return;
  double t = m->time_s, e = m->energy_j;
  ergo__region_state *rs = &f->rs->pub;
  double xt = t - f->child_t, xe = e - f->child_e;
  double xh, xc, ih, ic;
  uint64_t xn, in;
  work_of(f, &m->work, &xh, &xn, &xc, &ih, &in, &ic);
  rs->executions++;
  rs->excl_time_s += xt > 0 ? xt : 0;
  double res = T.pol.space.cores && f->applied.v[ERGO__KNOB_THREADS]
                   ? (double)f->applied.v[ERGO__KNOB_THREADS] / T.pol.space.cores
                   : 1.0;
  /* Time and energy per unit of this execution's work, scaled to the region's first (1 when its
   * work is not known). */
  double scale = ergo__work_scale(&f->rs->norm, xh, xn, xc, &f->rs->work_src);
  rstate *b = f->base;
  if (!T.node && !b->split_judged) {
    /* This step's calls, for the judgement of sizes at its end (and, for one called more
     * often than a split allows, its calls in its parent's last execution); a region with a
     * work measure is compared per unit of work instead: ready at once. */
    if (f->rs->work_src != ERGO__WORK_NONE) {
      b->split_judged = b->ready = 1;
    } else {
      note_call(&b->step_cfg, &b->step_alike, b->step_t, f->call, &f->applied, xt);
      note_call(&b->pstep_cfg, &b->palike, b->pstep_t, f->pcall, &f->applied, xt);
      b->pcalls = f->pcall + 1;
    }
  }
  if (!T.node && f->rs == b && !f->under) {
    b->step_own += xt > 0 ? xt : 0;
    b->step_base_n++;
  }
  if (T.node) {
    /* The node decides at the next ergo_step, from every rank's executions. */
    pending *p = &f->rs->p;
    if (!p->n++)
      p->applied = f->napplied;
    else if (memcmp(&p->applied, &f->napplied, sizeof p->applied) != 0)
      p->mixed = 1;
    p->t += xt > 0 ? xt : 0;
    p->pt += fmin(f->pend_t, xt > 0 ? xt : 0);
    if (e >= 0) {
      p->e += xe > 0 ? xe : 0;
      p->e_n++;
    }
    p->r += res;
  } else if (!rs->significant && !f->rs->preset) {
    /* Judged on the median own time of its last executions, and judged again at each one until
     * it is significant: a region that grows is tuned from then on, one noisy execution decides
     * nothing once there are three.  Once significant it stays so (the policy holds its search).
     * Not judged on an execution that is significant only by the time of descendants whose own
     * judgement is pending (their first executions): they may well be tuned on their own, and the
     * parent left with nothing of its own to tune; such an execution, untuned, keeps its time per
     * unit of work for judged_time(). */
    rstate *st = f->rs;
    double judge_t = -1, w;
    if (!(xt >= T.min_s && xt - f->pend_t < T.min_s))
      judge_t = judged_time(st, f, xt, xh, xc);
    else if (!f->under && (w = own_work(st, xh, xc)) > 0)
      st->pend_pw = xt / w, st->pend_w = w;
    if (judge_t >= 0) {
      st->win[st->judged_n++ % ERGO__SIG_WINDOW] = judge_t;
      int n = st->judged_n < ERGO__SIG_WINDOW ? st->judged_n : ERGO__SIG_WINDOW;
      st->robust = median(st->win, n);
      if (st->robust >= T.min_s) {
        rs->significant = 1;
        st->sig_at = rs->executions;
      }
    }
  }
  if (rs->significant && !T.node) {
    rstate *st = f->rs;
    st->late[st->late_n++ % LATE_N] = xt > 0 ? xt : 0;
  }
  if (e >= 0) T.energy_seen = 1;
  /* A region's config governs its own code and every child too short to carry
   * one of its own, so that is what it is measured on: only significant
   * descendants (tuned on their own) are taken out of the parent's figures, at any depth: a
   * region that is not significant passes up those of its own children (work alike). */
  if (T.depth > 0) {
    frame *up = &T.stack[T.depth - 1];
    up->child_t += rs->significant ? t : f->child_t;
    up->child_e += rs->significant ? (e > 0 ? e : 0) : f->child_e;
    up->child_wh += rs->significant ? ih : f->child_wh;
    up->child_wn += rs->significant ? in : f->child_wn;
    up->child_wc += rs->significant ? (ic > 0 ? ic : 0) : f->child_wc;
    /* Pending: fewer than a window of judged executions, or calls of a step not yet judged on
     * their mean at a step's end. */
    int pending = T.node ? !f->rs->decided /* the node judges it at the next ergo_step */
                         : f->rs->judged_n < ERGO__SIG_WINDOW || (f->call > 0 && !b->mean_judged);
    if (!rs->significant) up->pend_t += pending ? (xt > 0 ? xt : 0) : f->pend_t;
  }
  if (f->tuned) {
    f->rs->varied |= f->rs->has_last && memcmp(&f->rs->last, &f->applied, sizeof f->applied);
    f->rs->last = f->applied;
    f->rs->has_last = 1;
  }
  if (!T.node && rs->significant && f->rs->ready && (e >= 0 || T.time_only)) {
    /* No energy reading under a time-only objective: the energy term weighs nothing. */
    double xts = xt > 0 ? xt * scale : 0, xes = e >= 0 && xe > 0 ? xe * scale : 0;
    ergo__measure x = {xts, xes, res};
    rs->call = f->rs == f->base ? f->call : 0; /* a recursive call may have changed it */
    rs->work = scale > 0 && isfinite(scale) ? 1 / scale : 1;
    rs->work_src = f->rs->work_src;
    T.pol.ops->observe(&T.pol, rs, &f->applied, &x);
  }
  if (f->pushed) ergo__settings_pop();
  if (rs->significant && T.progress_s > 0) progress(0);
}

/* At ergo_step (one process): each region's calls in the step just ended are judged for sizes
 * once, the first time they all ran under one config: calls of different sizes are tuned from
 * now on as one unit per call index.  Every region that ran is then ready to be tuned. */
static void judge_steps(void) {
  for (rstate *s = T.states; s; s = s->next) {
    if (!s->calls_step) continue;
    /* More calls than a split allows: split by the call index within its parent's execution
     * when the parent ran it at most that often (a parent run several times per step), else
     * not at all (tuned as one unit, its calls' sizes mixed). */
    int by_parent = s->calls_step > ERGO__SPLIT_MAX;
    if (!s->split_judged && !T.node && (by_parent || s->step_alike)) {
      const double *t = by_parent ? s->pstep_t : s->step_t;
      int n = by_parent ? s->pcalls : s->calls_step;
      /* Calls of one config, 2 to ERGO__SPLIT_MAX of them, can be told apart by index. */
      int splittable = !(by_parent && !s->palike) && n >= 2 && n <= ERGO__SPLIT_MAX;
      s->split = splittable ? ergo__work_split(t, n) : 0;
      /* Calls alike in this run, but its model has a setting per call (the run it was tuned on
       * told them apart, on other input or at another point of its work): split as the model
       * was, each call at its unit's setting or, where the model has none, as the tuning run
       * ran it (at an enclosing region's).  Left as one, every call ran at an enclosing
       * region's setting, tuned beside children at their own (ergo-bench-tuning-random
       * --no-counter, seed 1073: a parallel child at its serial parent's 1 thread of 4, the
       * run at 1.18x the untuned run's time). */
      int as_model = splittable && !s->split && s->units_known;
      if (as_model) s->split = n;
      s->by_parent = by_parent && s->split;
      s->split_judged = 1;
      double lo = t[0], hi = t[0];
      for (int i = 1; s->split && i < n; i++) lo = fmin(lo, t[i]), hi = fmax(hi, t[i]);
      if (s->split && T.pol.talk)
        ergo__info(
            "%s: region '%s' ran %d times in %s at %s sizes (own time %.3g to %.3g s)%s: "
            "each call %s %s, '%s#1' to '%s#%d'%s",
            T.pol.ops->name, s->pub.path, n, by_parent ? "an execution of its parent" : "a step",
            as_model ? "like" : "different", lo, hi,
            as_model ? ", but its model has a setting per call" : " with no measure of its work",
            by_parent ? "in an execution of its parent" : "of a step",
            as_model ? "runs as the model's unit" : "is tuned as its own unit", s->pub.path,
            s->pub.path, s->split,
            as_model ? ""
                     : " (fix: ergo_region_work tells its work, then one unit "
                       "compares them per unit of work)");
    }
    /* Called several times in the step: also judged on its mean own time per call, as a unit
     * that is tuned as one (calls of several sizes compared per unit of work) is measured. */
    if (!s->split && !s->pub.significant && s->calls_step > 1 && !s->preset &&
        s->step_base_n == s->calls_step) {
      double mean = s->step_own / s->calls_step;
      if (mean >= T.min_s) {
        s->pub.significant = 1;
        s->robust = mean;
        s->sig_at = s->pub.executions;
      } else if (mean > s->robust) {
        s->robust = mean;
      }
    }
    /* Its parent waited for this judgement (pend_t): one step's chance, taken or not. */
    if (s->calls_step > 1) s->mean_judged = 1;
    s->ready = 1;
    s->calls_step = 0;
    s->step_own = 0;
    s->step_base_n = 0;
  }
}

/* ---- node mode: one decision per region for every rank of the node, at each ergo_step ------ */

static int cmp_path(const void *a, const void *b) {
  return strcmp((*(rstate *const *)a)->pub.path, (*(rstate *const *)b)->pub.path);
}

/* Node rank 0: fold every rank's records into the policy, and choose the next configs.  Returns
 * the decision table (malloc'd) for every region the node knows. */
static char *lead(void *ctx, const char *all, const size_t *lens, int nranks, size_t *out_len) {
  (void)ctx;
  size_t nrec = 0, off = 0;
  ergo__sync_record w;
  for (int r = 0; r < nranks; off += lens[r], r++)
    for (size_t o = off; ergo__sync_get(all, off + lens[r], &o, &w);) nrec++;
  rstate **touched = calloc(nrec ? nrec : 1, sizeof *touched);
  size_t nt = 0;
  int shares = 0; /* some rank's share of the node's cores differs from node rank 0's */
  off = 0;
  for (int r = 0; touched && r < nranks; off += lens[r], r++) {
    const char *path;
    for (size_t o = off; (path = ergo__sync_get(all, off + lens[r], &o, &w));) {
      rstate *rs = state_of(path);
      if (!rs || !w.n) continue;
      if (!rs->sum.ranks++) {
        touched[nt++] = rs;
        memcpy(rs->sum.applied.v, w.config, sizeof rs->sum.applied.v);
      } else if (memcmp(rs->sum.applied.v, w.config, sizeof w.config) != 0) {
        rs->sum.mixed = 1;
      }
      double t = w.t / (double)w.n, tj = (w.t - w.pt) / (double)w.n;
      if (t > rs->sum.t) rs->sum.t = t;
      if (tj > rs->sum.tj) rs->sum.tj = tj;
      if (w.e_n == w.n) { /* a reader: its share of the node's energy */
        /* Over its own time in the region, which must be long enough to stand for the region
         * (not counting descendants judged at this step): a reader that runs a region for next
         * to nothing (its own time is a child only other ranks run) reads the node's energy
         * over that sliver, rounding noise beside the slowest rank's time it is judged on. */
        if (!rs->sum.e_ok && !rs->sum.e_short) rs->sum.e_t = tj;
        rs->sum.e_t = fmin(rs->sum.e_t, tj);
        if (tj > 0 && tj >= T.min_s)
          rs->sum.e += w.e / (double)w.n, rs->sum.e_ok = 1;
        else
          rs->sum.e_short = 1;
      }
      if (w.cores && w.cores != own_cores()) shares = 1;
      rs->sum.r += w.r / (double)w.n;
      rs->sum.mixed |= w.mixed;
    }
  }
  if (touched) qsort(touched, nt, sizeof *touched, cmp_path); /* one order, whatever was sent */
  for (size_t i = 0; i < nt; i++) {
    rstate *rs = touched[i];
    /* The node's energy in it is a measurement: every reader that ran it read it over a time
     * long enough to stand for it.  Else, as for executions with no reading at all, it is judged
     * on time alone where the objective weighs no energy (its energy 0: not known), and not at
     * all where it does. */
    int e_real = rs->sum.e_ok && !rs->sum.e_short;
    int e_ok = e_real || T.time_only;
    if (rs->sum.t >= T.min_s && rs->sum.tj < T.min_s && !rs->pub.significant) {
      /* Significant only by the time of descendants the node judges at this same step (their
       * first executions): they may well be tuned on their own, and it left with nothing of its
       * own to tune, so it is judged at the next step (as one process does: judged_time()). */
    } else if (!rs->decided || !rs->pub.significant) {
      /* Significant on the node's slowest rank, and measured by the node's reader; judged again
       * at each step until it is (a region that grows is tuned from then on). */
      rs->decided = 1;
      rs->pub.significant = rs->sum.t >= T.min_s && e_ok;
      rs->robust = rs->sum.t;
      rs->no_energy = rs->sum.t >= T.min_s && !e_ok;
      rs->no_energy_reader_t = rs->sum.e_ok || rs->sum.e_short ? rs->sum.e_t : -1;
      rs->no_energy_t = rs->sum.t;
    } else if (rs->pub.significant && e_ok && !rs->sum.mixed) {
      ergo__measure m = {rs->sum.t, e_real ? rs->sum.e : 0, rs->sum.r / rs->sum.ranks};
      T.pol.ops->observe(&T.pol, &rs->pub, &rs->sum.applied, &m);
    }
    memset(&rs->sum, 0, sizeof rs->sum);
  }
  free(touched);
  if (shares && own_cores() && !T.shares_said && T.pol.talk) {
    T.shares_said = 1;
    ergo__info("%s: the ranks of node %d hold different shares of its cores; the node decides "
               "threads as node rank 0's share of %d, and each rank runs the same share of its "
               "own (threads=t runs round(t x its cores / %d), at least 1)",
               T.pol.ops->name, ergo__job_get()->node, own_cores(), own_cores());
  }
  /* The table: every decided region with its config for the next step. */
  ergo__buf b = {0};
  for (rstate *s = T.states; s; s = s->next) {
    if (!s->decided) continue;
    memset(&w, 0, sizeof w);
    w.decided = 1;
    w.cores = own_cores();
    w.significant = s->pub.significant;
    if (s->pub.significant) {
      ergo__config want = {{0}};
      T.pol.ops->choose(&T.pol, &s->pub, &want);
      memcpy(w.config, want.v, sizeof w.config);
    }
    ergo__sync_put(&b, s->pub.path, &w);
  }
  if (b.fail) {
    free(b.p);
    return NULL;
  }
  *out_len = b.n;
  return b.p ? b.p : calloc(1, 1);
}

static void node_step(void);

/* ergo_step in node mode (collective within the node): every rank's executions since the last
 * step go to node rank 0, whose policy decides; its table comes back to every rank. */
void ergo__tuner_step(long step) {
  (void)step;
  if (!T.active) return;
  T.pol.steps++;
  if (T.node && ergo__job_usable())
    node_step();
  else if (!T.node)
    judge_steps();
  for (rstate *s = T.states; T.node && s; s = s->next) s->calls_step = 0;
  progress(1);
}

static void node_step(void) {
  ergo__buf mine = {0};
  for (rstate *s = T.states; s; s = s->next) {
    if (!s->p.n) continue;
    ergo__sync_record w;
    memset(&w, 0, sizeof w);
    w.n = s->p.n;
    w.e_n = s->p.e_n;
    w.t = s->p.t;
    w.e = s->p.e;
    w.r = s->p.r;
    w.pt = s->p.pt;
    memcpy(w.config, s->p.applied.v, sizeof w.config);
    w.mixed = s->p.mixed;
    w.cores = own_cores();
    ergo__sync_put(&mine, s->pub.path, &w);
    memset(&s->p, 0, sizeof s->p);
  }
  if (mine.fail)
    mine.n = 0; /* out of memory: this step's figures are dropped, ranks stay in step */
  char *table = NULL;
  size_t tlen = 0;
  int rc = ergo__node_sync(mine.p, mine.n, lead, NULL, &table, &tlen);
  free(mine.p);
  if (rc == 0) {
    size_t off = 0;
    ergo__sync_record w;
    const char *path;
    while ((path = ergo__sync_get(table, tlen, &off, &w))) {
      rstate *s = state_of(path);
      if (!s) continue;
      s->decided = w.decided;
      s->pub.significant = w.significant;
      T.node_cores = w.cores;
      memcpy(s->node_cfg.v, w.config, sizeof s->node_cfg.v);
    }
  }
  free(table);
  T.syncs++;
}

static int by_no_energy_t(const void *a, const void *b) {
  const rstate *x = *(const rstate *const *)a, *y = *(const rstate *const *)b;
  double u = x->no_energy_t, v = y->no_energy_t;
  return u < v ? 1 : u > v ? -1 : strcmp(x->pub.path, y->pub.path);
}

/* Node mode, node rank 0: the regions long enough to tune on the node's slowest rank that were
 * not tuned because no energy reading stood for them (node_step's lead()), in one line, longest
 * first (as a warning when nothing else was tuned: the reason no model is written).  Their
 * number. */
static size_t say_no_energy(int warn) {
  /* No energy seen at all (no meter works): the line for that is said instead. */
  if (!T.node || T.time_only || !T.energy_seen) return 0;
  size_t n = 0;
  for (const rstate *s = T.states; s; s = s->next) n += s->no_energy && !s->pub.significant;
  if (!n) return 0;
  rstate **v = malloc(n * sizeof *v);
  if (!v) return 0;
  size_t k = 0;
  for (rstate *s = T.states; s; s = s->next)
    if (s->no_energy && !s->pub.significant) v[k++] = s;
  qsort(v, n, sizeof *v, by_no_energy_t);
  ergo__buf b = {0};
  enum { SHOWN = 2 }; /* the line stays within a log line's length */
  for (size_t i = 0; i < n && i < SHOWN; i++) {
    char item[256], reader[32];
    double ms = v[i]->no_energy_t * 1e3, rms = v[i]->no_energy_reader_t * 1e3;
    if (v[i]->no_energy_reader_t < 0)
      snprintf(reader, sizeof reader, "never");
    else
      snprintf(reader, sizeof reader, "%.*f ms", rms >= 10 ? 1 : 3, rms);
    int len = snprintf(item, sizeof item, "%s'%s' (slowest %.*f ms, reader %s)", i ? ", " : "",
                       v[i]->pub.path, ms >= 10 ? 1 : 3, ms, reader);
    if (len > 0) ergo__buf_put(&b, item, (size_t)len < sizeof item ? (size_t)len : sizeof item - 1);
  }
  if (n > SHOWN) {
    char more[64];
    int len = snprintf(more, sizeof more, " and %zu more", n - SHOWN);
    if (len > 0) ergo__buf_put(&b, more, (size_t)len);
  }
  ergo__buf_put(&b, "", 1);
  char obj[64];
#define ERGO__NO_ENERGY_FMT                                                                        \
  "%s: %zu region%s not tuned for want of an energy reading: the node's energy reader ran %s "     \
  "for under ERGO_MIN_REGION_MS=%g ms per execution, or never, while its slowest rank ran %s "     \
  "longer, and ERGO_OBJECTIVE=%s weighs energy: %s (fix: ERGO_OBJECTIVE=time, or give the "        \
  "reader a share of that work)"
  const char *them = n == 1 ? "it" : "them";
  ergo__objective_name(&T.pol.objective, obj, sizeof obj);
  if (!b.fail && warn)
    ergo__warn(ERGO__NO_ENERGY_FMT, T.pol.ops->name, n, n == 1 ? "" : "s", them, T.min_s * 1e3,
               them, obj, b.p);
  else if (!b.fail)
    ergo__info(ERGO__NO_ENERGY_FMT, T.pol.ops->name, n, n == 1 ? "" : "s", them, T.min_s * 1e3,
               them, obj, b.p);
#undef ERGO__NO_ENERGY_FMT
  free(b.p);
  free(v);
  return n;
}

/* A policy that learns (sweep, online) and learnt nothing, or left regions untuned, says why in
 * one line with the fix, before its finish would blame the number of steps. */
static void nothing_learnt(void) {
  const char *name = T.pol.ops->name;
  int nsig = 0, once = 0;
  const rstate *longest = NULL, *first_once = NULL;
  double lmean = 0;
  for (const rstate *s = T.states; s; s = s->next) {
    if (!s->pub.executions || !strchr(s->pub.path, '/')) continue; /* Global: the whole run */
    double mean = s->pub.excl_time_s / (double)s->pub.executions;
    if (!longest || mean > lmean) longest = s, lmean = mean;
    if (!s->pub.significant) continue;
    nsig++;
    if (s->pub.executions == 1 && (!first_once || strcmp(s->pub.path, first_once->pub.path) < 0))
      first_once = s;
    once += s->pub.executions == 1;
  }
  double min_ms = T.min_s * 1e3;
  if (!longest) {
    T.pol.said = 1;
    ergo__warn("ERGO_POLICY=%s: the program entered no region below Global at a level up to "
               "ERGO_ENERGY_LEVEL=%d (deeper ones are not measured), so nothing was tuned and no "
               "model is written (fix: annotate the main phases of each step with "
               "ergo_push/ergo_pop, or raise ERGO_ENERGY_LEVEL)",
               name, T.level);
  } else if (!nsig && say_no_energy(1)) {
    T.pol.said = 1; /* no region had an energy reading: that line was the reason */
  } else if (!nsig) {
    T.pol.said = 1;
    double lms = lmean * 1e3, fix = lms >= 1 ? floor(lms) : lms;
    ergo__warn("ERGO_POLICY=%s: no region took ERGO_MIN_REGION_MS=%g ms or more per execution "
               "(the longest, '%s', %.*f ms), so nothing was tuned and no model is written "
               "(fix: ERGO_MIN_REGION_MS=%.*f, or time a longer part of the code as one region)",
               name, min_ms, longest->pub.path, lms >= 10 ? 1 : 3, lms, lms >= 1 ? 0 : 3, fix);
  } else if (!T.energy_seen && !T.time_only && !T.pol.said) {
    T.pol.said = 1;
    char obj[64];
    ergo__warn("ERGO_POLICY=%s: no energy was measured (no energy meter works here) and "
               "ERGO_OBJECTIVE=%s weighs energy, so no region was tuned and no model is "
               "written; more steps cannot help (fix: ERGO_ENERGY=estimate for energy from CPU "
               "time, ERGO_OBJECTIVE=time to tune on time alone, or `ergo info` says why the "
               "meters fail)",
               name, ergo__objective_name(&T.pol.objective, obj, sizeof obj));
  } else if (once) {
    ergo__warn("ERGO_POLICY=%s: %d of %d significant regions ran only once (first: '%s'); %s "
               "learns from a region's repeated executions, so %s not tuned and more steps cannot "
               "help (fix: `ergo sweep --runs -- APP` tunes such regions with one run per "
               "setting)",
               name, once, nsig, first_once->pub.path, name, once == 1 ? "it was" : "they were");
  }
}

static int learns(void) {
  return T.pol.ops == &ergo__policy_sweep || T.pol.ops == &ergo__policy_online;
}

/* The figure a listed region is shown and sorted by. */
static double listed_s(const rstate *s, int judged) {
  if (judged != LISTED_SHRANK) return s->robust;
  double sum = 0;
  for (int i = 0; i < LATE_N; i++) sum += s->late[i];
  return sum / LATE_N;
}

static int sort_judged;
static int by_robust(const void *a, const void *b) {
  const rstate *x = *(const rstate *const *)a, *y = *(const rstate *const *)b;
  double u = listed_s(x, sort_judged), v = listed_s(y, sort_judged);
  return u < v ? 1 : u > v ? -1 : strcmp(x->pub.path, y->pub.path);
}

/* A region shown in the end-of-run lines: below the threshold on the window (judged 1), never
 * judged (judged 0: it ran only under an enclosing tuned region, with no measure of its work),
 * or (judged LISTED_SHRANK) tuned, but its own time per execution since fell below half the
 * threshold over its last LATE_N executions or more. */
static int listed(const rstate *s, int judged) {
  if (!s->pub.executions || !strchr(s->pub.path, '/')) return 0;
  if (judged == LISTED_SHRANK)
    return s->pub.significant && !T.node && s->late_n >= LATE_N &&
           listed_s(s, judged) < T.min_s / 2;
  if (s->pub.significant) return 0;
  if (judged == 1) return T.node ? !s->no_energy : s->judged_n > 0; /* no_energy: say_no_energy() */
  if (T.node || s->judged_n > 0) return 0;
  int why = s->pub.executions <= 1           ? LISTED_ONCE
            : s->work_src != ERGO__WORK_NONE ? LISTED_MEASURED
                                             : 0;
  return judged == why;
}

/* "'Global/io' 12.3 ms, 'Global/halo' 0.850 ms and 3 more" into b (with_ms 0: names only), the
 * regions listed(judged), longest first.  Their number, 0 when none (or no memory). */
static size_t list_of(ergo__buf *b, int judged, int with_ms) {
  size_t n = 0;
  for (const rstate *s = T.states; s; s = s->next) n += listed(s, judged);
  if (!n) return 0;
  rstate **v = malloc(n * sizeof *v);
  if (!v) return 0;
  size_t k = 0;
  for (rstate *s = T.states; s; s = s->next)
    if (listed(s, judged)) v[k++] = s;
  sort_judged = judged;
  qsort(v, n, sizeof *v, by_robust);
  enum { SHOWN = 8 };
  for (size_t i = 0; i < n && i < SHOWN; i++) {
    char item[512];
    double ms = listed_s(v[i], judged) * 1e3;
    int len = with_ms ? snprintf(item, sizeof item, "%s'%s' %.*f ms", i ? ", " : "", v[i]->pub.path,
                                 ms >= 10 ? 1 : 3, ms)
                      : snprintf(item, sizeof item, "%s'%s'", i ? ", " : "", v[i]->pub.path);
    if (len > 0) ergo__buf_put(b, item, (size_t)len < sizeof item ? (size_t)len : sizeof item - 1);
  }
  if (n > SHOWN) {
    char more[64];
    int len = snprintf(more, sizeof more, " and %zu more", n - SHOWN);
    if (len > 0) ergo__buf_put(b, more, (size_t)len);
  }
  ergo__buf_put(b, "", 1);
  free(v);
  return b->fail ? 0 : n;
}

/* The regions never judged for reason `why` (listed()), in one line: why, as said of one (`one`)
 * or of several (`many`), then their names. */
static void say_not_judged(int why, const char *one, const char *many) {
  ergo__buf b = {0};
  size_t n = list_of(&b, why, 0);
  if (n)
    ergo__info("%zu region%s not judged, so not tuned: %s: %s", n, n == 1 ? "" : "s",
               n == 1 ? one : many, b.p);
  free(b.p);
}

/* After the summary of what was tuned: the regions judged not significant, longest first, with
 * the median own time they were judged on, and those never judged (said only when some region
 * was tuned: otherwise the warning named the longest already). */
static void not_significant(void) {
  size_t nsig = 0;
  for (const rstate *s = T.states; s; s = s->next)
    nsig += s->pub.executions && strchr(s->pub.path, '/') && s->pub.significant;
  if (!nsig) return;
  say_no_energy(0);
  ergo__buf b = {0};
  size_t n = list_of(&b, 1, 1);
  if (n)
    ergo__info("%zu region%s judged not significant, so not tuned (own time per execution, %s, "
               "below ERGO_MIN_REGION_MS=%g ms): %s",
               n, n == 1 ? "" : "s",
               T.node ? "the node's slowest rank over the last step" : "median of the last 3",
               T.min_s * 1e3, b.p);
  free(b.p);
  memset(&b, 0, sizeof b);
  n = list_of(&b, LISTED_SHRANK, 1);
  if (n)
    ergo__info("%zu tuned region%s ran below half ERGO_MIN_REGION_MS=%g ms per execution once "
               "judged significant (own time, mean of %s last %d: %s work shrank, or a "
               "child tuned on its own took it); tuned still, as a region once significant "
               "stays so: %s",
               n, n == 1 ? "" : "s", T.min_s * 1e3, n == 1 ? "its" : "their", LATE_N,
               n == 1 ? "its" : "their", b.p);
  free(b.p);
  /* Never judged, one line per why (one line for all said "nothing measures its work" of
   * regions the counter measured and of regions that ran once: random program 94's
   * 'Global/r2'). */
  say_not_judged(0,
                 "it ran only under an enclosing tuned region's setting and nothing measures its "
                 "work, so its untuned time is not known (fix: ergo_region_work in it)",
                 "they ran only under an enclosing tuned region's setting and nothing measures "
                 "their work, so their untuned time is not known (fix: ergo_region_work in them)");
  say_not_judged(LISTED_MEASURED,
                 "it never ran untuned (an enclosing region was tuned from its first execution "
                 "on), so its untuned time is not known",
                 "they never ran untuned (an enclosing region was tuned from their first "
                 "execution on), so their untuned time is not known");
  say_not_judged(LISTED_ONCE, "it ran once, while regions inside it were still being judged",
                 "they ran once, while regions inside them were still being judged");
}

void ergo__tuner_finalize(void) {
  if (!T.active || !T.pol.ops->finish) return;
  const ergo__job *job = ergo__job_get();
  if (T.node && !T.syncs && T.leader)
    ergo__warn("ERGO_POLICY=%s: under MPI with %d ranks on node %d, regions are tuned at "
               "ergo_step, which this run never called; nothing was tuned (fix: call "
               "ergo_step(n) once per time step on every rank)",
               T.pol.ops->name, job->node_size, job->node);
  /* One tuning model per job: rank 0's (its node's decisions). */
  if (job->mpi && job->rank != 0) return;
  if (learns()) nothing_learnt();
  T.finish_rc = T.pol.ops->finish(&T.pol);
  if (learns()) not_significant();
}

int ergo__tuner_finish_error(void) { return T.finish_rc; }

void ergo__tuner_save(void) {
  if (!T.active || !T.pol.ops->save || T.save_failed) return;
  /* One tuning model per job: rank 0's, as at finalize. */
  const ergo__job *job = ergo__job_get();
  if (job->mpi && job->rank != 0) return;
  if (T.pol.ops->save(&T.pol) == 0) return;
  T.save_failed = 1; /* the writer said why; once is enough */
  ergo__warn("ERGO_SAVE_EVERY: the tuning model is no longer saved during the run; "
             "ergo_finalize writes it, or its fallback in $TMPDIR (fix: set ERGO_MODEL to a "
             "writable path)");
}

static void build_space(ergo__space *s) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    ergo__knob *k = ergo__knob_get(i);
    if (!k) continue;
    s->n[i] = k->nvalues;
    memcpy(s->values[i], k->values, sizeof(int64_t) * (size_t)k->nvalues);
    int64_t v = 0;
    s->baseline[i] =
        k->ops->get(k, &v) == 0 ? ergo__space_round(s, i, v) : k->values[k->nvalues - 1];
  }
  s->cores = s->n[ERGO__KNOB_THREADS]
                 ? (int)s->values[ERGO__KNOB_THREADS][s->n[ERGO__KNOB_THREADS] - 1]
                 : 1;
}

/* ERGO_RETUNE: 1 (on, the default) or 0 (off); a bad value is one warning and the default. */
static int retune_setting(void) {
  const char *v = getenv(ERGO__RETUNE_VAR);
  if (!v || !strcmp(v, "on") || !strcmp(v, "1")) return 1;
  if (!strcmp(v, "off") || !strcmp(v, "0")) return 0;
  ergo__warn("%s='%s' is not valid: expected on (search again when a region's work or the "
             "machine changed) or off (keep the first choice); using on",
             ERGO__RETUNE_VAR, v);
  return 1;
}

int ergo__tuner_start(const ergo_config *cfg, int sim, int metered) {
  memset(&T, 0, sizeof T);
  const char *name = cfg->policy ? cfg->policy : "monitor";
  const ergo__policy_ops *ops = ergo__policy_find(name);
  if (!ops) {
    ergo__warn("ERGO_POLICY=%s is not in this build of ergo yet; running as monitor (changes "
               "nothing)",
               name);
    ops = &ergo__policy_monitor;
  }
  char why[1024] = "";
  ergo__objective obj;
  if (ergo__objective_parse(cfg->objective, &obj, why, sizeof why) != 0) {
    ergo__warn("%s; tuning as monitor (changes nothing)", why);
    ops = &ergo__policy_monitor;
    ergo__objective_parse(NULL, &obj, why, sizeof why);
  }
  T.pol.ops = ops;
  T.pol.objective = obj;
  T.time_only = obj.kind == ERGO__OBJ_TIME || (obj.kind == ERGO__OBJ_WEIGHTED && obj.w_energy == 0);
  T.pol.cfg = cfg;
  T.pol.sim = sim;
  build_space(&T.pol.space);
  T.min_s = cfg->min_region_ms * 1e-3;
  T.pol.min_s = T.min_s;
  T.pol.retune =
      ops == &ergo__policy_sweep || ops == &ergo__policy_online || ops == &ergo__policy_static
          ? retune_setting()
          : 1;
  T.level = cfg->energy_level;
  const ergo__job *job = ergo__job_get();
  T.pol.talk = !job->mpi || job->rank == 0;
  T.pol.metered = metered;
  int learner = ops == &ergo__policy_sweep || ops == &ergo__policy_online, rc = 0;
  if (learner && !metered && !T.time_only) {
    /* It could tune nothing: said as a node without a knob to turn is, before any line announces
     * a search, and no model is written (an empty one would replace a good one). */
    char objt[64];
    snprintf(why, sizeof why,
             "no energy meter reads here (ERGO_ENERGY=%s; `ergo info` says why), and "
             "ERGO_OBJECTIVE=%s weighs energy, so nothing can be tuned (fix: "
             "ERGO_ENERGY=estimate for energy from CPU time, ERGO_OBJECTIVE=time to tune on time "
             "alone, or run where a meter works)",
             cfg->energy ? cfg->energy : "auto", ergo__objective_name(&obj, objt, sizeof objt));
    rc = ERGO_ESTATE;
  } else if (ops->start) {
    rc = ops->start(&T.pol, why, sizeof why);
  }
  if (rc) {
    char kept[1100] = "";
    if (learner) ergo__model_kept(cfg->model ? cfg->model : ERGO__MODEL_DEFAULT, kept, sizeof kept);
    ergo__warn("ERGO_POLICY=%s: %s; running as monitor (changes nothing%s%s)", name, why,
               kept[0] ? ", and writes no tuning model: " : "", kept);
    if (ops->stop) ops->stop(&T.pol);
    memset(&T.pol.priv, 0, sizeof T.pol.priv);
    T.pol.ops = &ergo__policy_monitor;
  }
  /* monitor needs no hooks: it changes nothing and the reports already measure. */
  if (T.pol.ops == &ergo__policy_monitor) return rc;
  T.node = job->mpi && job->node_size > 1;
  T.leader = job->node_rank == 0;
  if (T.leader) T.node_cores = own_cores(); /* the others learn it from its tables */
  T.progress_rank = T.pol.talk;
  T.progress_s = progress_setting();
  T.progress_at = now_s();
  T.active = 1;
  return 0;
}

int ergo__tuner_active(void) { return T.active; }

const char *ergo__tuner_policy(void) { return T.pol.ops ? T.pol.ops->name : NULL; }

const ergo__objective *ergo__tuner_objective(void) { return T.pol.ops ? &T.pol.objective : NULL; }

int ergo__tuner_setting(void *state, int64_t *v, int n, int *varied) {
  const rstate *rs = state;
  if (!T.active || !rs || !rs->has_last) return 0;
  for (int i = 0; i < n && i < ERGO__NKNOBS; i++) v[i] = rs->last.v[i];
  *varied = rs->varied;
  return 1;
}

int ergo__tuner_significance(void *state, int level, int *judged, const char **reason,
                             double *mean_s, const char **work) {
  const rstate *rs = state;
  if (!T.active) return 0;
  *judged = 0;
  *mean_s = 0;
  *work = "none";
  if (level > T.level) {
    *reason = "deeper than ERGO_ENERGY_LEVEL: not measured, so not tuned";
    return 1;
  }
  if (!rs || !rs->pub.executions) {
    if (!rs || !rs->split) return 0;
  }
  *work = rs->norm.src == ERGO__WORK_HINT      ? "units"
          : rs->norm.src == ERGO__WORK_COUNTER ? "counter"
                                               : "none";
  *mean_s = rs->robust;
  *judged = rs->pub.significant;
  if (rs->split)
    *reason = "ran at several sizes per step with no measure of its work: each call of a step "
              "is tuned as its own unit, PATH#1, PATH#2, ...";
  else if (rs->preset)
    *reason = "the tuning model measured it at ERGO_MIN_REGION_MS or more";
  else if (T.node)
    *reason = rs->pub.significant ? "own time per execution on the node's slowest rank at or "
                                    "above ERGO_MIN_REGION_MS"
                                  : "own time per execution on the node's slowest rank below "
                                    "ERGO_MIN_REGION_MS";
  else if (rs->pub.significant && rs->pub.executions == 1)
    *reason = "significant, but ran once: no setting can be judged on one execution";
  else if (rs->pub.significant)
    *reason = "median own time of the last 3 executions at or above ERGO_MIN_REGION_MS";
  else if (!rs->judged_n)
    *reason = "not judged: it ran only under an enclosing region's setting, with no measure of "
              "its work to tell its untuned time";
  else
    *reason = "median own time of the last 3 executions below ERGO_MIN_REGION_MS";
  return 1;
}

void ergo__tuner_stop(void) {
  if (T.pol.ops && T.pol.ops->stop) T.pol.ops->stop(&T.pol);
  while (T.states) {
    rstate *n = T.states->next;
    free((char *)T.states->pub.path);
    free(T.states);
    T.states = n;
  }
  memset(&T, 0, sizeof T);
}

/* ---- the live view and the dashboard's changes (runtime/introspect.c) ---- */

int ergo__tuner_view_of(const char *path, ergo__tuner_view *v) {
  if (!T.active || !path) return 0;
  const rstate *s = T.table[path_hash(path)];
  while (s && strcmp(s->pub.path, path) != 0) s = s->hnext;
  if (!s) return 0;
  _Static_assert(ERGO__NKNOBS <= ERGO__TUNER_VIEW_KNOBS, "raise ERGO__TUNER_VIEW_KNOBS");
  memset(v, 0, sizeof *v);
  v->executions = s->pub.executions;
  v->significant = s->pub.significant;
  v->has_last = s->has_last;
  for (int i = 0; i < ERGO__NKNOBS; i++) v->last[i] = s->last.v[i];
  ergo__policy_view pv;
  memset(&pv, 0, sizeof pv);
  if (s->pub.policy && T.pol.ops->inspect &&
      T.pol.ops->inspect(&T.pol, (ergo__region_state *)&s->pub, &pv)) {
    v->has_best = 1;
    for (int i = 0; i < ERGO__NKNOBS; i++) v->best[i] = pv.best.v[i];
    v->evals = pv.evals;
    v->budget = pv.budget;
    v->done = pv.done;
    v->confidence = pv.confidence;
  }
  return 1;
}

int ergo__tuner_retarget(const char *policy, const char *objective, char *why, size_t whylen) {
  if (!T.active) {
    snprintf(why, whylen,
             "the run's policy (%s) does not tune, so there is no tuner to change (fix: start the "
             "run with ERGO_POLICY=online, sweep, static or fixed)",
             T.pol.ops ? T.pol.ops->name : "monitor");
    return ERGO_ESTATE;
  }
  const ergo__policy_ops *ops = NULL;
  if (policy && !(ops = ergo__policy_find(policy))) {
    snprintf(why, whylen,
             "policy '%s' is not known: expected monitor, fixed, static, sweep or "
             "online",
             policy);
    return ERGO_EINVAL;
  }
  ergo__objective obj = T.pol.objective;
  if (objective && ergo__objective_parse(objective, &obj, why, whylen) != 0) return ERGO_EINVAL;
  int new_obj = memcmp(&obj, &T.pol.objective, sizeof obj) != 0;
  T.pol.objective = obj;
  T.time_only = obj.kind == ERGO__OBJ_TIME || (obj.kind == ERGO__OBJ_WEIGHTED && obj.w_energy == 0);
  char name[128];
  /* A new policy, or a new objective for one that cannot re-judge what it measured (sweep's
   * schedule is built around its objective): the policy starts afresh. */
  int restart = (ops && ops != T.pol.ops) || (new_obj && !T.pol.ops->reobjective);
  if (restart) {
    /* The old policy's per-region state goes with it. */
    const ergo__policy_ops *old = T.pol.ops;
    if (!ops) ops = old;
    if (old->stop) old->stop(&T.pol);
    T.pol.priv = NULL;
    for (rstate *s = T.states; s; s = s->next) s->pub.policy = NULL;
    T.pol.ops = ops;
    int rc = ops->start ? ops->start(&T.pol, why, whylen) : 0;
    if (rc) {
      if (ops->stop) ops->stop(&T.pol);
      T.pol.priv = NULL;
      T.pol.ops = &ergo__policy_monitor;
      ergo__warn("dashboard: policy %s cannot start: %s; the run goes on as monitor (changes "
                 "nothing)",
                 ops->name, why);
      return rc;
    }
    if (T.pol.talk)
      ergo__info("dashboard: the tuner now runs policy %s (objective %s) afresh from step %ld",
                 ops->name, ergo__objective_name(&T.pol.objective, name, sizeof name), T.pol.steps);
  } else if (new_obj) {
    T.pol.ops->reobjective(&T.pol);
    if (T.pol.talk)
      ergo__info("dashboard: the tuner's objective is now %s from step %ld; online re-judges "
                 "what it measured",
                 ergo__objective_name(&T.pol.objective, name, sizeof name), T.pol.steps);
  }
  return 0;
}
