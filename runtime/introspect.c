/* introspect.c - the live view of the running job (ergo_snapshot_*) and the dashboard that
 * serves it (ERGO_DASHBOARD).
 *
 * The main thread publishes an immutable copy at each ergo_step (a step hook: the hot path pays
 * nothing and takes no lock): region totals, the tuner's state per region, the power timeline,
 * the nodes' summaries (under MPI gathered to rank 0 at that step, outside every region).  Any
 * thread takes the latest copy with a reference; the pointer swap and the reference counts share
 * one mutex that is held for a few instructions.  A change of policy or objective is checked
 * when it is asked for and applied at the next ergo_step on the main thread, before that step's
 * copy.  The web server lives in libergo-dashboard, dlopen'ed only when ERGO_DASHBOARD is set. */
#include "runtime/introspect.h"
#include "core/internal.h"
#include "knobs/knobs.h"
#include "knobs/table.h"
#include "mpi/job.h"
#include "optimizer/objective.h"
#include "policies/policy.h"
#include "policies/tuner.h"
#include "runtime/dashboard.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DASH_VAR "ERGO_DASHBOARD"
#define CONTROL_VAR "ERGO_DASHBOARD_CONTROL"
#define PACE_VAR "ERGO_DASHBOARD_STEP_MS"
#ifndef ERGO_DASHBOARD_SONAME
#define ERGO_DASHBOARD_SONAME "libergo-dashboard.so.1"
#endif
/* Steps the timeline keeps (the last ones), and tuned regions whose settings it follows. */
#define TIMELINE_MAX 2048
#define TRACK_MAX 8
/* Nodes whose power the timeline keeps per step (the first ones). */
#define NODES_MAX 16

struct ergo_snapshot {
  int refs; /* under I.lock */
  long step;
  double run_s, energy_j, power_w; /* energy_j < 0: not measured */
  char policy[32], objective[128], change[512];
  char platform[16]; /* real, sim or estimate (the run's facts): the page labels what is not real */
  int control, tunes, ranks;
  unsigned knobs; /* bit i: knob i is open on this node */
  ergo_snapshot_region *regions;
  size_t nregions;
  ergo_snapshot_point *points;
  int64_t (*track)[TRACK_MAX][ERGO_SNAPSHOT_KNOBS]; /* per point; 0: not run yet */
  double (*node_w)[NODES_MAX];                      /* per point: each node's power (-1: none) */
  int nnode_w;
  size_t npoints;
  char *tracked[TRACK_MAX];
  int ntracked;
  ergo_snapshot_node *nodes;
  size_t nnodes;
  ergo_snapshot_rank *ranks_v;
  size_t nranks;
  double cost_s; /* the main thread's time in publishing so far */
};

/* What one rank sends rank 0 at a step (MPI). */
typedef struct rank_line {
  int32_t node, measured;
  double step_time_s, step_energy_j, energy_j;
} rank_line;

static struct {
  int on, slot, mpi_nodes;
  pthread_mutex_t lock; /* the current pointer and every reference count */
  ergo_snapshot *cur;
  /* The timeline: a ring of the last TIMELINE_MAX steps. */
  ergo_snapshot_point ring[TIMELINE_MAX];
  int64_t ring_track[TIMELINE_MAX][TRACK_MAX][ERGO_SNAPSHOT_KNOBS];
  double ring_node_w[TIMELINE_MAX][NODES_MAX];
  int nnode_w; /* nodes the ring has powers of */
  size_t head, count;
  char *tracked[TRACK_MAX];
  int ntracked;
  double prev_run_s, prev_energy_j;
  double node_energy[4096]; /* rank 0 under MPI: each node's energy so far */
  /* A change asked for, waiting for the next step. */
  pthread_mutex_t ctl_lock;
  int ctl_pending;
  char ctl_policy[32], ctl_objective[128];
  int has_policy, has_objective;
  char change[512]; /* what the last change did (main thread; copied into snapshots) */
  int tunes, control;
  double pace_s, last_step_at, cost_s;
  long published;
  /* libergo-dashboard */
  void *lib;
  ergo__dashboard_stop_fn stop;
} I = {.lock = PTHREAD_MUTEX_INITIALIZER, .ctl_lock = PTHREAD_MUTEX_INITIALIZER};

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- snapshots ---- */

static void snap_free(ergo_snapshot *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nregions; i++) free((char *)s->regions[i].path);
  for (int i = 0; i < s->ntracked; i++) free(s->tracked[i]);
  free(s->regions);
  free(s->points);
  free(s->track);
  free(s->node_w);
  free(s->nodes);
  free(s->ranks_v);
  free(s);
}

const ergo_snapshot *ergo_snapshot_acquire(void) {
  pthread_mutex_lock(&I.lock);
  ergo_snapshot *s = I.cur;
  if (s) s->refs++;
  pthread_mutex_unlock(&I.lock);
  return s;
}

void ergo_snapshot_release(const ergo_snapshot *cs) {
  if (!cs) return;
  ergo_snapshot *s = (ergo_snapshot *)cs;
  pthread_mutex_lock(&I.lock);
  int last = --s->refs == 0;
  pthread_mutex_unlock(&I.lock);
  if (last) snap_free(s);
}

long ergo_snapshot_step(const ergo_snapshot *s, double *run_s) {
  if (run_s) *run_s = s ? s->run_s : 0;
  return s ? s->step : 0;
}
size_t ergo_snapshot_regions(const ergo_snapshot *s, const ergo_snapshot_region **out) {
  if (out) *out = s ? s->regions : NULL;
  return s ? s->nregions : 0;
}
size_t ergo_snapshot_timeline(const ergo_snapshot *s, const ergo_snapshot_point **out) {
  if (out) *out = s ? s->points : NULL;
  return s ? s->npoints : 0;
}
size_t ergo_snapshot_nodes(const ergo_snapshot *s, const ergo_snapshot_node **out) {
  if (out) *out = s ? s->nodes : NULL;
  return s ? s->nnodes : 0;
}
size_t ergo_snapshot_ranks(const ergo_snapshot *s, const ergo_snapshot_rank **out) {
  if (out) *out = s ? s->ranks_v : NULL;
  return s ? s->nranks : 0;
}
const char *ergo_snapshot_knob(int i) {
  _Static_assert(ERGO__NKNOBS <= ERGO_SNAPSHOT_KNOBS, "raise ERGO_SNAPSHOT_KNOBS in ergo.h");
  return i >= 0 && i < ERGO__NKNOBS ? ergo__knob_table[i].field : NULL;
}

/* The index of the quantity called energy, or -1. */
static int energy_q(void) {
  for (int i = 0; i < ERGO_MAX_QUANTITIES; i++)
    if (ergo__quants[i].used && ergo__quants[i].q.name &&
        strcmp(ergo__quants[i].q.name, "energy") == 0)
      return i;
  return -1;
}

typedef struct {
  ergo_snapshot_region *v;
  size_t n, cap;
  int fail, qi;
} walk;

static void add_region(walk *w, const ergo__snap *s, const char *parent_path) {
  if (w->fail) return;
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 64;
    ergo_snapshot_region *v = realloc(w->v, cap * sizeof *v);
    if (!v) {
      w->fail = 1;
      return;
    }
    w->v = v, w->cap = cap;
  }
  ergo_snapshot_region *r = &w->v[w->n];
  memset(r, 0, sizeof *r);
  char *path = ergo__path_join(parent_path, s->name);
  if (!path) {
    w->fail = 1;
    return;
  }
  w->n++;
  r->path = path;
  r->depth = s->depth;
  r->calls = s->calls;
  r->time_s = s->time_s;
  r->energy_j = w->qi >= 0 && (s->q_ok & (1u << w->qi)) ? ergo__snap_q_total(s, w->qi) : -1;
  r->power_w = r->energy_j >= 0 && r->time_s > 0 ? r->energy_j / r->time_s : 0;
  ergo__tuner_view tv;
  if (ergo__tuner_view_of(path, &tv)) {
    r->tuned = tv.significant;
    r->executions = tv.executions;
    r->has_setting = tv.has_last;
    r->has_best = tv.has_best;
    for (int i = 0; i < ERGO__NKNOBS; i++) r->setting[i] = tv.last[i], r->best[i] = tv.best[i];
    r->evals = tv.evals, r->budget = tv.budget, r->done = tv.done;
    r->confidence = tv.confidence;
  }
  for (size_t i = 0; i < s->nchildren; i++) add_region(w, &s->children[i], path);
}

/* Under MPI (every rank, at the step): each rank's line to rank 0, which keeps them (*ranks) and
 * sums them per node. */
static ergo_snapshot_node *gather_nodes(const rank_line *mine, size_t *n,
                                        ergo_snapshot_rank **ranks, size_t *nranks) {
  *n = *nranks = 0;
  *ranks = NULL;
  const ergo__job *job = ergo__job_get();
  char *all = NULL;
  size_t *lens = NULL;
  if (ergo__job_gather(mine, sizeof *mine, &all, &lens) != 0 || job->rank != 0) {
    free(all);
    free(lens);
    return NULL;
  }
  int nn = job->nnodes > 0 && job->nnodes <= 4096 ? job->nnodes : 1;
  ergo_snapshot_node *v = calloc((size_t)nn, sizeof *v);
  ergo_snapshot_rank *rv = calloc((size_t)job->size, sizeof *rv);
  size_t off = 0;
  for (int r = 0; v && rv && r < job->size; off += lens[r], r++) {
    if (lens[r] != sizeof(rank_line)) continue;
    rank_line l;
    memcpy(&l, all + off, sizeof l);
    if (l.node < 0 || l.node >= nn) continue;
    rv[*nranks] = (ergo_snapshot_rank){r, l.node, l.step_time_s, l.measured ? l.step_energy_j : -1,
                                       l.measured ? l.energy_j : -1};
    ++*nranks;
    ergo_snapshot_node *d = &v[l.node];
    d->node = l.node;
    d->ranks++;
    if (l.step_time_s > d->step_time_s) d->step_time_s = l.step_time_s;
    if (l.measured) d->step_energy_j += l.step_energy_j, d->energy_j += l.energy_j;
  }
  for (int i = 0; v && i < nn; i++) {
    v[i].node = i;
    v[i].power_w = v[i].step_time_s > 0 ? v[i].step_energy_j / v[i].step_time_s : 0;
  }
  free(all);
  free(lens);
  if (!v || !rv) {
    free(v);
    free(rv);
    *nranks = 0;
    return NULL;
  }
  *ranks = rv;
  *n = (size_t)nn;
  return v;
}

static void publish(long step) {
  ergo__snap root;
  pthread_mutex_lock(&ergo__g.lock);
  int rc = ergo__snap_take(ergo__g.main_tree, 0, &root);
  pthread_mutex_unlock(&ergo__g.lock);
  if (rc) return;
  walk w = {0};
  w.qi = energy_q();
  const ergo__job *job = ergo__job_get();
  int serve = !job->mpi || job->rank == 0;
  if (serve) add_region(&w, &root, NULL);
  double run_s = root.time_s;
  double energy = w.qi >= 0 && (root.q_ok & (1u << w.qi)) ? ergo__snap_q_total(&root, w.qi) : -1;
  ergo__snap_free(&root);
  ergo_snapshot_point p = {step, run_s, run_s - I.prev_run_s, -1, 0};
  if (energy >= 0) {
    p.energy_j = energy - (I.prev_energy_j > 0 ? I.prev_energy_j : 0);
    p.power_w = p.time_s > 0 ? p.energy_j / p.time_s : 0;
  }
  I.prev_run_s = run_s;
  I.prev_energy_j = energy;
  /* The nodes: gathered under MPI (every rank takes part), this process's alone otherwise. */
  ergo_snapshot_node *nodes = NULL;
  ergo_snapshot_rank *ranks = NULL;
  size_t nnodes = 0, nranks = 0;
  if (I.mpi_nodes) {
    rank_line l = {job->node, energy >= 0, p.time_s, p.energy_j, energy};
    nodes = gather_nodes(&l, &nnodes, &ranks, &nranks);
  } else if ((nodes = calloc(1, sizeof *nodes)) && (ranks = calloc(1, sizeof *ranks))) {
    nnodes = nranks = 1;
    *nodes = (ergo_snapshot_node){0, 1, p.time_s, p.energy_j, energy, p.power_w};
    *ranks = (ergo_snapshot_rank){0, 0, p.time_s, p.energy_j, energy};
  }
  if (I.mpi_nodes && nodes) {
    /* The job's figures, not rank 0's own: the slowest node's step, every node's energy. */
    double st = 0, se = 0, e = 0;
    int measured = 0;
    for (size_t i = 0; i < nnodes; i++) {
      if (nodes[i].step_time_s > st) st = nodes[i].step_time_s;
      if (nodes[i].energy_j > 0) se += nodes[i].step_energy_j, e += nodes[i].energy_j, measured = 1;
    }
    p.time_s = st;
    p.energy_j = measured ? se : -1;
    p.power_w = measured && st > 0 ? se / st : 0;
    energy = measured ? e : -1;
  }
  if (!serve || w.fail || !nodes || !ranks) {
    for (size_t i = 0; i < w.n; i++) free((char *)w.v[i].path);
    free(w.v);
    free(nodes);
    free(ranks);
    return;
  }
  /* The timeline: this step, and the settings of the tuned regions it follows. */
  size_t at = (I.head + I.count) % TIMELINE_MAX;
  if (I.count == TIMELINE_MAX)
    I.head = (I.head + 1) % TIMELINE_MAX;
  else
    I.count++;
  I.ring[at] = p;
  memset(I.ring_track[at], 0, sizeof I.ring_track[at]);
  for (int k = 0; k < NODES_MAX; k++)
    I.ring_node_w[at][k] = (size_t)k < nnodes && nodes[k].energy_j >= 0 ? nodes[k].power_w : -1;
  if ((int)nnodes > I.nnode_w) I.nnode_w = nnodes < NODES_MAX ? (int)nnodes : NODES_MAX;
  for (size_t i = 0; i < w.n; i++) {
    const ergo_snapshot_region *r = &w.v[i];
    if (!r->tuned || !r->has_setting) continue;
    int k = 0;
    while (k < I.ntracked && strcmp(I.tracked[k], r->path) != 0) k++;
    if (k == I.ntracked) {
      if (k == TRACK_MAX || !(I.tracked[k] = strdup(r->path))) continue;
      I.ntracked++;
    }
    memcpy(I.ring_track[at][k], r->setting, sizeof r->setting);
  }
  ergo_snapshot *s = calloc(1, sizeof *s);
  if (s) {
    s->refs = 1;
    s->step = step;
    s->run_s = run_s;
    s->energy_j = energy;
    s->power_w = energy >= 0 && run_s > 0 ? energy / run_s : 0;
    const char *pol = ergo__tuner_policy();
    snprintf(s->policy, sizeof s->policy, "%s", pol ? pol : "monitor");
    const char *platform = ergo__fact_get("platform");
    snprintf(s->platform, sizeof s->platform, "%s", platform ? platform : "real");
    const ergo__objective *o = ergo__tuner_objective();
    if (o && I.tunes) ergo__objective_name(o, s->objective, sizeof s->objective);
    snprintf(s->change, sizeof s->change, "%s", I.change);
    s->control = I.control;
    s->tunes = I.tunes;
    for (int i = 0; i < ERGO__NKNOBS; i++)
      if (ergo__knob_get(i)) s->knobs |= 1u << i;
    s->ranks = job->mpi ? job->size : 1;
    s->regions = w.v, s->nregions = w.n;
    w.v = NULL;
    s->nodes = nodes, s->nnodes = nnodes;
    s->ranks_v = ranks, s->nranks = nranks;
    nodes = NULL;
    ranks = NULL;
    s->points = malloc(I.count * sizeof *s->points);
    s->track = malloc(I.count * sizeof *s->track);
    s->node_w = malloc(I.count * sizeof *s->node_w);
    s->nnode_w = I.nnode_w;
    for (int k = 0; k < I.ntracked; k++) s->tracked[k] = strdup(I.tracked[k]);
    s->ntracked = I.ntracked;
    if (s->points && s->track && s->node_w) {
      for (size_t i = 0; i < I.count; i++) {
        size_t j = (I.head + i) % TIMELINE_MAX;
        s->points[i] = I.ring[j];
        memcpy(s->track[i], I.ring_track[j], sizeof s->track[i]);
        memcpy(s->node_w[i], I.ring_node_w[j], sizeof s->node_w[i]);
      }
      s->npoints = I.count;
    }
    s->cost_s = I.cost_s;
    pthread_mutex_lock(&I.lock);
    ergo_snapshot *old = I.cur;
    I.cur = s;
    pthread_mutex_unlock(&I.lock);
    ergo_snapshot_release(old);
    I.published++;
  }
  free(w.v);
  free(nodes);
  free(ranks);
}

/* ---- changes asked for (any thread), applied at the step (main thread) ---- */

int ergo_snapshot_control(const char *policy, const char *objective, char *why, size_t whylen) {
  char tmp[512];
  if (!why || !whylen) why = tmp, whylen = sizeof tmp;
  if (!I.on) {
    snprintf(why, whylen,
             "ergo publishes no snapshots (fix: ERGO_DASHBOARD, or "
             "ergo_snapshot_enable after ergo_init)");
    return ERGO_ESTATE;
  }
  if (!I.tunes) {
    snprintf(why, whylen,
             "the run's policy does not tune, so there is no tuner to change (fix: "
             "start the run with ERGO_POLICY=online, sweep, static or fixed)");
    return ERGO_ESTATE;
  }
  if (ergo__job_get()->mpi && ergo__job_get()->rank != 0) {
    snprintf(why, whylen, "under MPI rank 0 takes the changes (it serves the dashboard)");
    return ERGO_ESTATE;
  }
  if (policy && !*policy) policy = NULL;
  if (objective && !*objective) objective = NULL;
  if (policy && (strlen(policy) >= sizeof I.ctl_policy || !ergo__policy_find(policy))) {
    snprintf(why, whylen,
             "policy '%.64s' is not known: expected monitor, fixed, static, sweep or online",
             policy);
    return ERGO_EINVAL;
  }
  ergo__objective o;
  if (objective && (strlen(objective) >= sizeof I.ctl_objective ||
                    ergo__objective_parse(objective, &o, why, whylen) != 0)) {
    if (strlen(objective) >= sizeof I.ctl_objective)
      snprintf(why, whylen, "the objective is longer than %zu characters",
               sizeof I.ctl_objective - 1);
    return ERGO_EINVAL;
  }
  if (!policy && !objective) {
    snprintf(why, whylen, "nothing to change: give a policy, an objective or both");
    return ERGO_EINVAL;
  }
  pthread_mutex_lock(&I.ctl_lock);
  I.has_policy = policy != NULL;
  I.has_objective = objective != NULL;
  snprintf(I.ctl_policy, sizeof I.ctl_policy, "%s", policy ? policy : "");
  snprintf(I.ctl_objective, sizeof I.ctl_objective, "%s", objective ? objective : "");
  __atomic_store_n(&I.ctl_pending, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&I.ctl_lock);
  return 0;
}

/* The change asked for, if any, applied on this rank.  Under MPI rank 0's change reaches every
 * rank (each node's leader decides for its node) through one sum over the job at each step. */
static void apply_pending(long step) {
  char policy[32] = "", objective[128] = "";
  int hp = 0, ho = 0;
  int pending = __atomic_load_n(&I.ctl_pending, __ATOMIC_ACQUIRE);
  if (pending) {
    pthread_mutex_lock(&I.ctl_lock);
    hp = I.has_policy, ho = I.has_objective;
    memcpy(policy, I.ctl_policy, sizeof policy);
    memcpy(objective, I.ctl_objective, sizeof objective);
    __atomic_store_n(&I.ctl_pending, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&I.ctl_lock);
  }
  if (I.mpi_nodes) {
    double v[8] = {0}; /* changed, policy index + 1, objective: set, kind, weights, slowdown */
    ergo__objective o;
    char why[256];
    if (pending) {
      v[0] = 1;
      for (int i = 0; hp && ergo__policy_name(i); i++)
        if (!strcmp(ergo__policy_name(i), policy)) v[1] = i + 1;
      if (ho && ergo__objective_parse(objective, &o, why, sizeof why) == 0)
        v[2] = 1, v[3] = o.kind, v[4] = o.w_time, v[5] = o.w_energy, v[6] = o.w_resource,
        v[7] = o.slowdown;
    }
    if (ergo__job_allreduce_sum(v, 8) != 0 || !v[0]) return;
    hp = v[1] > 0;
    if (hp) snprintf(policy, sizeof policy, "%s", ergo__policy_name((int)v[1] - 1));
    ho = v[2] > 0;
    if (ho) {
      memset(&o, 0, sizeof o);
      o.kind = (ergo__objective_kind)v[3];
      o.w_time = v[4], o.w_energy = v[5], o.w_resource = v[6], o.slowdown = v[7];
      ergo__objective_name(&o, objective, sizeof objective);
    }
  } else if (!pending) {
    return;
  }
  char why[1024] = "", name[128] = "-";
  int rc = ergo__tuner_retarget(hp ? policy : NULL, ho ? objective : NULL, why, sizeof why);
  /* The reports say what was in force at the end (a policy that could not start: monitor). */
  const ergo__objective *o = ergo__tuner_objective();
  if (o) ergo__objective_name(o, name, sizeof name);
  ergo__fact_set("policy", ergo__tuner_policy());
  ergo__fact_set("objective", o ? name : NULL);
  int w = rc ? snprintf(I.change, sizeof I.change,
                        "at step %ld: refused: %.300s; in force: policy %s, objective %s", step,
                        why, ergo__tuner_policy(), name)
             : snprintf(I.change, sizeof I.change, "at step %ld: policy %s, objective %s", step,
                        ergo__tuner_policy(), name);
  if (w < 0) I.change[0] = '\0';
}

static void step_hook(void *ctx, long step) {
  (void)ctx;
  double t0 = mono_s();
  apply_pending(step);
  publish(step);
  double t1 = mono_s();
  I.cost_s += t1 - t0;
  /* ERGO_DASHBOARD_STEP_MS: a step lasts at least that long in real time (a sim-node run, whose
   * steps take no real time, can then be watched and steered). */
  if (I.pace_s > 0 && I.last_step_at > 0 && t1 - I.last_step_at < I.pace_s) {
    double d = I.pace_s - (t1 - I.last_step_at);
    struct timespec ts = {(time_t)d, (long)((d - floor(d)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }
  I.last_step_at = mono_s();
}

int ergo_snapshot_enable(void) {
  if (!ergo__g.initialized) return ERGO_ESTATE;
  if (I.on) return 0;
  ergo_hooks h = {NULL, NULL, NULL, NULL, step_hook};
  int rc = ergo_hooks_attach(&h, &I.slot);
  if (rc) return rc;
  I.on = 1;
  I.tunes = ergo__tuner_active();
  return 0;
}

/* ---- JSON ---- */

static json_t *num_or_null(double v) { return v >= 0 && isfinite(v) ? json_real(v) : json_null(); }

static json_t *setting_json(const int64_t *v) {
  json_t *o = json_object();
  for (int i = 0; i < ERGO__NKNOBS; i++)
    if (v[i]) json_object_set_new(o, ergo__knob_table[i].field, json_integer(v[i]));
  return o;
}

static json_t *state_json(const ergo_snapshot *s) {
  json_t *knobs = json_array();
  for (int i = 0; i < ERGO__NKNOBS; i++)
    if (s->knobs & (1u << i)) json_array_append_new(knobs, json_string(ergo__knob_table[i].field));
  return json_pack("{s:I,s:f,s:o,s:f,s:s,s:s,s:o,s:b,s:b,s:i,s:i,s:o,s:s,s:f}", "step",
                   (json_int_t)s->step, "run_s", s->run_s, "energy_j", num_or_null(s->energy_j),
                   "power_w", s->power_w, "platform", s->platform, "policy", s->policy, "objective",
                   s->objective[0] ? json_string(s->objective) : json_null(), "tunes", s->tunes,
                   "control", s->control, "ranks", s->ranks, "nodes", (int)s->nnodes, "knobs",
                   knobs, "last_change", s->change, "publish_s", s->cost_s);
}

/* The last name of an escaped path ("Global/Setup_Left\\/Right" ends in "Setup_Left/Right"). */
static json_t *last_name(const char *path) {
  const char *start = path;
  for (const char *c = path; *c; c++)
    if (*c == '\\' && c[1])
      c++;
    else if (*c == '/')
      start = c + 1;
  char *name = strdup(start), *o = name;
  if (!name) return json_null();
  for (const char *c = start; *c; c++) *o++ = *c == '\\' && c[1] ? *++c : *c;
  *o = '\0';
  json_t *j = json_string(name);
  free(name);
  return j ? j : json_null();
}

static json_t *regions_json(const ergo_snapshot *s) {
  json_t *a = json_array();
  for (size_t i = 0; i < s->nregions; i++) {
    const ergo_snapshot_region *r = &s->regions[i];
    json_t *o = json_pack("{s:s,s:o,s:i,s:I,s:f,s:o,s:f,s:b,s:I}", "path", r->path, "name",
                          last_name(r->path), "depth", r->depth, "calls", (json_int_t)r->calls,
                          "time_s", r->time_s, "energy_j", num_or_null(r->energy_j), "power_w",
                          r->power_w, "tuned", r->tuned, "executions", (json_int_t)r->executions);
    json_object_set_new(o, "setting", r->has_setting ? setting_json(r->setting) : json_null());
    json_object_set_new(o, "best", r->has_best ? setting_json(r->best) : json_null());
    if (r->budget) {
      json_object_set_new(o, "evals", json_integer(r->evals));
      json_object_set_new(o, "budget", json_integer(r->budget));
      json_object_set_new(o, "done", json_boolean(r->done));
      json_object_set_new(o, "confidence", json_real(r->confidence));
    }
    json_array_append_new(a, o);
  }
  return a;
}

static json_t *timeline_json(const ergo_snapshot *s) {
  json_t *tracked = json_array(), *pts = json_array();
  for (int k = 0; k < s->ntracked; k++)
    json_array_append_new(tracked, json_string(s->tracked[k] ? s->tracked[k] : ""));
  for (size_t i = 0; i < s->npoints; i++) {
    const ergo_snapshot_point *p = &s->points[i];
    json_t *set = json_array();
    for (int k = 0; k < s->ntracked; k++) {
      const int64_t *v = s->track[i][k];
      int any = 0;
      for (int j = 0; j < ERGO__NKNOBS; j++) any |= v[j] != 0;
      json_array_append_new(set, any ? setting_json(v) : json_null());
    }
    json_t *nw = json_array();
    for (int k = 0; k < s->nnode_w; k++) json_array_append_new(nw, num_or_null(s->node_w[i][k]));
    json_array_append_new(
        pts,
        json_pack("{s:I,s:f,s:f,s:o,s:f,s:o,s:o,s:o}", "step", (json_int_t)p->step, "at_s", p->at_s,
                  "time_s", p->time_s, "energy_j", num_or_null(p->energy_j), "power_w", p->power_w,
                  "steps_per_kj", p->energy_j > 0 ? json_real(1000.0 / p->energy_j) : json_null(),
                  "settings", set, "node_power_w", nw));
  }
  return json_pack("{s:o,s:o}", "tracked", tracked, "points", pts);
}

static json_t *nodes_json(const ergo_snapshot *s) {
  json_t *a = json_array();
  for (size_t i = 0; i < s->nnodes; i++) {
    const ergo_snapshot_node *n = &s->nodes[i];
    json_array_append_new(a, json_pack("{s:i,s:i,s:f,s:o,s:o,s:f}", "node", n->node, "ranks",
                                       n->ranks, "step_time_s", n->step_time_s, "step_energy_j",
                                       num_or_null(n->step_energy_j), "energy_j",
                                       num_or_null(n->energy_j), "power_w", n->power_w));
  }
  return a;
}

static json_t *ranks_json(const ergo_snapshot *s) {
  json_t *a = json_array();
  for (size_t i = 0; i < s->nranks; i++) {
    const ergo_snapshot_rank *r = &s->ranks_v[i];
    json_array_append_new(a, json_pack("{s:i,s:i,s:f,s:o,s:o}", "rank", r->rank, "node", r->node,
                                       "step_time_s", r->step_time_s, "step_energy_j",
                                       num_or_null(r->step_energy_j), "energy_j",
                                       num_or_null(r->energy_j)));
  }
  return a;
}

char *ergo_snapshot_json(const ergo_snapshot *s, const char *part) {
  if (!s || !part) return NULL;
  json_t *j = NULL;
  if (!strcmp(part, "state"))
    j = state_json(s);
  else if (!strcmp(part, "regions"))
    j = regions_json(s);
  else if (!strcmp(part, "timeline"))
    j = timeline_json(s);
  else if (!strcmp(part, "nodes"))
    j = nodes_json(s);
  else if (!strcmp(part, "ranks"))
    j = ranks_json(s);
  else if (!strcmp(part, "all"))
    j = json_pack("{s:o,s:o,s:o,s:o,s:o}", "state", state_json(s), "regions", regions_json(s),
                  "timeline", timeline_json(s), "nodes", nodes_json(s), "ranks", ranks_json(s));
  if (!j) return NULL;
  char *out = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(10));
  json_decref(j);
  return out;
}

/* ---- ERGO_DASHBOARD: load the server ---- */

static void say(int warn, const char *line) {
  if (warn)
    ergo__warn("%s", line);
  else
    ergo__info("%s", line);
}

static const ergo__dashboard_host host = {ERGO__DASHBOARD_ABI,
                                          sizeof host,
                                          ergo_snapshot_acquire,
                                          ergo_snapshot_release,
                                          ergo_snapshot_json,
                                          ergo_snapshot_control,
                                          say};

/* "HOST:PORT", ":PORT" or "PORT" (host 127.0.0.1); 0, or -1 with why. */
static int parse_addr(const char *v, char *addr, size_t alen, int *port, char *why, size_t wl) {
  const char *colon = strrchr(v, ':');
  const char *p = colon ? colon + 1 : v;
  size_t hl = colon ? (size_t)(colon - v) : 0;
  char *end = NULL;
  errno = 0;
  long n = strtol(p, &end, 10);
  if (!*p || *end || errno || n < 0 || n > 65535 || hl >= alen) {
    snprintf(why, wl,
             "%s='%s' is not valid: expected HOST:PORT (an IPv4 address, port 0-65535; 0 picks a "
             "free one), e.g. 127.0.0.1:0",
             DASH_VAR, v);
    return -1;
  }
  if (hl)
    snprintf(addr, alen, "%.*s", (int)hl, v);
  else
    snprintf(addr, alen, "127.0.0.1");
  struct in_addr a;
  if (inet_pton(AF_INET, addr, &a) != 1) {
    snprintf(why, wl, "%s='%s' is not valid: '%s' is not an IPv4 address (e.g. 127.0.0.1:8080)",
             DASH_VAR, v, addr);
    return -1;
  }
  *port = (int)n;
  return 0;
}

static void *load_server(char *why, size_t wl) {
  char dir[4096] = "";
  Dl_info self;
  void *h = NULL;
  if (dladdr((void *)&ergo_snapshot_acquire, &self) && self.dli_fname) {
    const char *slash = strrchr(self.dli_fname, '/');
    if (slash) {
      char path[4096 + 64];
      snprintf(dir, sizeof dir, "%.*s", (int)(slash - self.dli_fname), self.dli_fname);
      snprintf(path, sizeof path, "%s/%s", dir, ERGO_DASHBOARD_SONAME);
      h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (!h && access(path, F_OK) == 0) {
        const char *e = dlerror();
        if (snprintf(why, wl, "%s cannot be loaded (%s); fix: reinstall ergo", path,
                     e ? e : "dlopen failed") < 0)
          why[0] = '\0';
        return NULL;
      }
    }
  }
  if (!h && !(h = dlopen(ERGO_DASHBOARD_SONAME, RTLD_NOW | RTLD_LOCAL)))
    snprintf(why, wl,
             "%s is neither beside libergo (in %s) nor on the library path; fix: build ergo "
             "with libmicrohttpd-dev and libjs-chart.js installed",
             ERGO_DASHBOARD_SONAME, dir[0] ? dir : "an unknown directory");
  return h;
}

static int want_dashboard(void) {
  const char *v = getenv(DASH_VAR);
  return v && *v && strcmp(v, "off") != 0;
}

/* ERGO_DASHBOARD_STEP_MS in seconds (0 when unset; a bad value is one warning and 0). */
static double pace_setting(void) {
  const char *v = getenv(PACE_VAR);
  if (!v) return 0;
  char *end = NULL;
  errno = 0;
  double x = strtod(v, &end);
  if (end == v || *end || errno || !isfinite(x) || x < 0 || x > 3600000) {
    ergo__warn("%s='%s' is not valid: expected milliseconds from 0 to 3600000 that each "
               "ergo_step lasts at least in real time; using 0",
               PACE_VAR, v);
    return 0;
  }
  return x * 1e-3;
}

void ergo__introspect_start(void) {
  const ergo__job *job = ergo__job_get();
  int want = want_dashboard();
  /* Under MPI rank 0 serves and every rank sends it its line at each step: all of them must
   * take part, so they agree on it (once, at ergo_init). */
  if (job->mpi && job->size > 1 && ergo__job_usable()) {
    double w = want;
    if (ergo__job_allreduce_sum(&w, 1) == 0) {
      if ((w > 0) != want && job->rank == 0)
        ergo__warn("%s is set on some ranks only; the dashboard is %s for all (fix: give every "
                   "rank the same environment, e.g. mpirun -x %s)",
                   DASH_VAR, w > 0 ? "on" : "off", DASH_VAR);
      want = w > 0;
      I.mpi_nodes = want;
    }
  }
  if (!want) return;
  I.pace_s = pace_setting();
  const char *c = getenv(CONTROL_VAR);
  I.control = !(c && strcmp(c, "0") == 0);
  if (c && strcmp(c, "0") != 0 && strcmp(c, "1") != 0) {
    ergo__warn("%s='%s' is not valid: expected 0 (read-only) or 1 (sliders change the tuner); "
               "using 1",
               CONTROL_VAR, c);
  }
  if (ergo_snapshot_enable() != 0) {
    ergo__warn("%s: no hook slot is free for the snapshots; the run goes on without a dashboard",
               DASH_VAR);
    return;
  }
  /* Step 0: the page has a snapshot from the start (every rank: a gather under MPI). */
  publish(0);
  I.prev_run_s = I.prev_energy_j = 0;
  I.head = I.count = 0;
  if (job->mpi && job->rank != 0) return; /* rank 0 serves */
  const char *v = getenv(DASH_VAR);
  char addr[64], why[1024], url[256];
  int port;
  if (parse_addr(v, addr, sizeof addr, &port, why, sizeof why) != 0) {
    ergo__warn("%s; the run goes on without a dashboard", why);
    return;
  }
  void *lib = load_server(why, sizeof why);
  if (!lib) {
    ergo__warn("%s: %s; the run goes on without a dashboard", DASH_VAR, why);
    return;
  }
  ergo__dashboard_start_fn start = (ergo__dashboard_start_fn)dlsym(lib, ERGO__DASHBOARD_START);
  ergo__dashboard_stop_fn stop = (ergo__dashboard_stop_fn)dlsym(lib, ERGO__DASHBOARD_STOP);
  if (!start || !stop) {
    ergo__warn("%s: the loaded %s has no %s; the run goes on without a dashboard (fix: install "
               "libergo-dashboard from the build of this libergo)",
               DASH_VAR, ERGO_DASHBOARD_SONAME, ERGO__DASHBOARD_START);
    dlclose(lib);
    return;
  }
  if (start(&host, addr, port, I.control, url, sizeof url, why, sizeof why) != 0) {
    ergo__warn("%s=%s: %s; the run goes on without a dashboard", DASH_VAR, v, why);
    dlclose(lib);
    return;
  }
  I.lib = lib;
  I.stop = stop;
  ergo__info("dashboard at %s%s", url, I.control ? "" : " (read-only)");
  if (strncmp(addr, "127.", 4) != 0)
    ergo__warn("%s=%s serves beyond this machine: anyone who reaches %s and has the token can "
               "%s the run (fix: 127.0.0.1 and an SSH tunnel)",
               DASH_VAR, v, addr, I.control ? "steer" : "watch");
}

void ergo__introspect_stop(void) {
  if (I.stop) I.stop();
  if (I.lib) dlclose(I.lib);
  if (I.on) ergo_hooks_detach(I.slot);
  pthread_mutex_lock(&I.lock);
  ergo_snapshot *s = I.cur;
  I.cur = NULL;
  pthread_mutex_unlock(&I.lock);
  ergo_snapshot_release(s);
  for (int k = 0; k < I.ntracked; k++) free(I.tracked[k]);
  if (I.lib && I.published)
    ergo__info("dashboard: %ld snapshots published in %.6f s of real time on the main thread",
               I.published, I.cost_s);
  I.on = I.slot = I.mpi_nodes = 0;
  I.cur = NULL;
  I.head = I.count = 0;
  I.ntracked = 0;
  I.nnode_w = 0;
  I.prev_run_s = I.prev_energy_j = 0;
  I.ctl_pending = 0;
  I.change[0] = '\0';
  I.tunes = I.control = 0;
  I.pace_s = I.last_step_at = I.cost_s = 0;
  I.published = 0;
  I.lib = NULL;
  I.stop = NULL;
}
