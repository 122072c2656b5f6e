/* tuner.c - drives a policy from the region hooks: per significant region, the policy's config on
 * entry (through the settings stack), and the exclusive time and energy of every execution. */
#include "policies/tuner.h"

#include "mpi/job.h"
#include "mpi/node_sync.h"
#include "policies/policy.h"
#include "util/buf.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERGO__TUNER_DEPTH 256

/* Executions since the last node sync (node mode): summed, told to the policy combined. */
typedef struct pending {
  uint64_t n, e_n;      /* executions; those with energy measured */
  double t, e, r;       /* sums of exclusive time, energy, resource */
  ergo__config applied; /* the config of the first of them */
  int mixed;            /* a later one ran under another config */
} pending;

typedef struct rstate {
  ergo__region_state pub;
  struct rstate *next;  /* every state, for freeing */
  struct rstate *hnext; /* the path table's chain */
  /* Node mode: what this step's syncs decided for the whole node. */
  int decided;           /* significance is known (from the node's figures) */
  ergo__config node_cfg; /* the config every rank of the node runs it under */
  pending p;
  /* The setting its last tuned execution ran under (reports show it); varied: not all alike. */
  ergo__config last;
  int has_last, varied;
  /* Node rank 0, during a sync: every rank's executions combined. */
  struct {
    double t;  /* the slowest rank's mean exclusive time per execution */
    double e;  /* the node's energy per execution, from its readers */
    double r;  /* summed mean resource (divided by ranks when told) */
    int e_ok;  /* some rank read the region's energy in every execution */
    int mixed; /* the executions did not all run under one config */
    int ranks; /* ranks that ran it since the last sync (0: not touched) */
    ergo__config applied;
  } sum;
} rstate;

#define ERGO__TUNER_BUCKETS 1024

typedef struct frame {
  rstate *rs;
  double child_t, child_e; /* inclusive figures of the children of this execution */
  int pushed;
  int tuned; /* significant at entry: ran under the policy's choice */
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

void ergo__tuner_enter(ergo_region *r, int level, void **state) {
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
    T.depth++;
    return;
  }
  frame *f = &T.stack[T.depth++];
  memset(f, 0, sizeof *f);
  f->rs = *slot;
  f->tuned = f->rs->pub.significant;
  if (f->tuned) {
    ergo__config want = {{0}};
    if (T.node) /* the node's decision at the last ergo_step */
      want = f->rs->node_cfg;
    else
      T.pol.ops->choose(&T.pol, &f->rs->pub, &want);
    if (want.v[0] || want.v[1] || want.v[2]) f->pushed = ergo__settings_push(want.v) == 0;
  }
  effective(&f->applied);
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
  rs->executions++;
  rs->excl_time_s += xt > 0 ? xt : 0;
  double res = T.pol.space.cores && f->applied.v[ERGO__KNOB_THREADS]
                   ? (double)f->applied.v[ERGO__KNOB_THREADS] / T.pol.space.cores
                   : 1.0;
  if (T.node) {
    /* The node decides at the next ergo_step, from every rank's executions. */
    pending *p = &f->rs->p;
    if (!p->n++)
      p->applied = f->applied;
    else if (memcmp(&p->applied, &f->applied, sizeof p->applied) != 0)
      p->mixed = 1;
    p->t += xt > 0 ? xt : 0;
    if (e >= 0) {
      p->e += xe > 0 ? xe : 0;
      p->e_n++;
    }
    p->r += res;
  } else if (rs->executions == 1) {
    rs->significant = rs->excl_time_s >= T.min_s;
  }
  /* A region's config governs its own code and every child too short to carry
   * one of its own, so that is what it is measured on: only significant
   * children (tuned on their own) are taken out of the parent's figures. */
  if (T.depth > 0 && rs->significant) {
    T.stack[T.depth - 1].child_t += t;
    T.stack[T.depth - 1].child_e += e > 0 ? e : 0;
  }
  if (f->tuned) {
    f->rs->varied |= f->rs->has_last && memcmp(&f->rs->last, &f->applied, sizeof f->applied);
    f->rs->last = f->applied;
    f->rs->has_last = 1;
  }
  if (!T.node && rs->significant && e >= 0) {
    ergo__measure x = {xt > 0 ? xt : 0, xe > 0 ? xe : 0, res};
    T.pol.ops->observe(&T.pol, rs, &f->applied, &x);
  }
  if (f->pushed) ergo__settings_pop();
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
      double t = w.t / (double)w.n;
      if (t > rs->sum.t) rs->sum.t = t;
      if (w.e_n == w.n) { /* a reader: its share of the node's energy */
        rs->sum.e += w.e / (double)w.n;
        rs->sum.e_ok = 1;
      }
      rs->sum.r += w.r / (double)w.n;
      rs->sum.mixed |= w.mixed;
    }
  }
  if (touched) qsort(touched, nt, sizeof *touched, cmp_path); /* one order, whatever was sent */
  for (size_t i = 0; i < nt; i++) {
    rstate *rs = touched[i];
    if (!rs->decided) {
      /* Significant on the node's slowest rank, and measured by the node's reader. */
      rs->decided = 1;
      rs->pub.significant = rs->sum.t >= T.min_s && rs->sum.e_ok;
    } else if (rs->pub.significant && rs->sum.e_ok && !rs->sum.mixed) {
      ergo__measure m = {rs->sum.t, rs->sum.e, rs->sum.r / rs->sum.ranks};
      T.pol.ops->observe(&T.pol, &rs->pub, &rs->sum.applied, &m);
    }
    memset(&rs->sum, 0, sizeof rs->sum);
  }
  free(touched);
  /* The table: every decided region with its config for the next step. */
  ergo__buf b = {0};
  for (rstate *s = T.states; s; s = s->next) {
    if (!s->decided) continue;
    memset(&w, 0, sizeof w);
    w.decided = 1;
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

/* ergo_step in node mode (collective within the node): every rank's executions since the last
 * step go to node rank 0, whose policy decides; its table comes back to every rank. */
void ergo__tuner_step(long step) {
  (void)step;
  if (!T.active || !T.node || !ergo__job_usable()) return;
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
    memcpy(w.config, s->p.applied.v, sizeof w.config);
    w.mixed = s->p.mixed;
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
      memcpy(s->node_cfg.v, w.config, sizeof s->node_cfg.v);
    }
  }
  free(table);
  T.syncs++;
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
  T.pol.ops->finish(&T.pol);
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

int ergo__tuner_start(const ergo_config *cfg, int sim) {
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
  T.pol.cfg = cfg;
  T.pol.sim = sim;
  build_space(&T.pol.space);
  T.min_s = cfg->min_region_ms * 1e-3;
  T.level = cfg->energy_level;
  int rc = ops->start ? ops->start(&T.pol, why, sizeof why) : 0;
  if (rc) {
    ergo__warn("ERGO_POLICY=%s: %s; running as monitor (changes nothing)", name, why);
    if (ops->stop) ops->stop(&T.pol);
    memset(&T.pol.priv, 0, sizeof T.pol.priv);
    T.pol.ops = &ergo__policy_monitor;
  }
  /* monitor needs no hooks: it changes nothing and the reports already measure. */
  if (T.pol.ops == &ergo__policy_monitor) return rc;
  const ergo__job *job = ergo__job_get();
  T.node = job->mpi && job->node_size > 1;
  T.leader = job->node_rank == 0;
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
