/* runtime.c - ergo_init/ergo_finalize: pick the platform (machine or sim node), start the core,
 * then the layers that attach to it (energy, knobs). */
#include "core/internal.h"
#include "energy/energy.h"
#include "knobs/cpuset.h"
#include "knobs/knobs.h"
#include "knobs/state.h"
#include "mpi/job.h"
#include "mpi/launcher.h"
#include "optimizer/objective.h"
#include "policies/tuner.h"
#include "runtime/config.h"
#include "runtime/forward.h"
#include "runtime/introspect.h"
#include "runtime/pipeline.h"
#include "sim/node.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "auto": the sim node when no hardware energy meter works here. */
/* The model file of a process a launcher started among several that do not talk over MPI:
 * sweep and online write their own, <model>.rankN (each learnt its own work: no process
 * overwrites another's model); static reads <model>.rankN when such a run wrote one, else the
 * shared <model>.  NULL: the path stays as it is. */
static char *rank_model(const ergo_config *cfg, int rank) {
  const char *pol = cfg->policy ? cfg->policy : "monitor";
  int writes = strcmp(pol, "sweep") == 0 || strcmp(pol, "online") == 0;
  if (!writes && strcmp(pol, "static") != 0) return NULL;
  const char *model = ergo__config_model_path(cfg);
  char *own = model ? ergo__rank_path(model, rank) : NULL;
  if (own && !writes && access(own, R_OK) != 0) {
    free(own);
    return NULL;
  }
  return own;
}

static int want_sim(const ergo_config *cfg) {
  const char *p = cfg->platform ? cfg->platform : "real";
  if (strcmp(p, "sim") == 0) return 1;
  if (strcmp(p, "auto") != 0) return 0;
  ergo__meter m;
  char why[4 * ERGO__WHY_LEN];
  if (ergo__meter_open(&m, "auto", why, sizeof why) != 0) return 1;
  ergo__meter_close(&m);
  return 0;
}

/* The packages (bit p) this process runs on, from its CPU binding; 0 when hwloc cannot say. */
static uint64_t my_packages(void) {
  ergo__cpuset *cs = malloc(sizeof *cs);
  char why[256];
  uint64_t mask = 0;
  if (cs && ergo__cpuset_get(cs, why, sizeof why) == 0)
    for (int i = 0; i < cs->npackages; i++)
      if (cs->packages[i] >= 0 && cs->packages[i] < 64) mask |= 1ull << cs->packages[i];
  free(cs);
  return mask;
}

/* The ranks of one node share it.  On the sim node each rank becomes its slice of the node (its
 * share of the cores, static, uncore and DRAM power) and publishes its energy in a shared-memory
 * segment that node rank 0 creates, so the node's reader reads every rank's activity; the
 * estimate meter is told the node's processes, whose CPU time it sums.  Collective within the
 * node when it has several ranks. */
static void share_sim_and_pids(const ergo__job *job, int sim) {
  if (!job->mpi || job->node_size <= 1 || !ergo__job_usable()) return;
  char name[96] = "", why[256];
  char *buf = name;
  size_t len = 0;
  if (sim) {
    ergo__sim_slice(job->node_rank, job->node_size);
    if (job->node_rank == 0) {
      if (ergo__sim_share_create(job->node_size, name, sizeof name, why, sizeof why) != 0) {
        ergo__warn("%s; node %d's sim energy is node rank 0's alone (fix: a writable /dev/shm)",
                   why, job->node);
        name[0] = '\0';
      }
      len = strlen(name) + 1;
    }
    if (ergo__job_node_bcast(&buf, &len) == 0 && job->node_rank != 0) {
      if (len > 1 && buf[len - 1] == '\0' &&
          ergo__sim_share_open(buf, job->node_rank, job->node_size, why, sizeof why) != 0)
        ergo__warn("%s; node %d's sim energy leaves out rank %d's share", why, job->node,
                   job->rank);
      free(buf);
    }
  }
  long *pids = calloc((size_t)job->node_size, sizeof *pids);
  uint64_t *all = calloc((size_t)job->node_size, sizeof *all);
  /* Also the moment every rank has the segment open: its name can go. */
  if (pids && all && ergo__job_node_allgather_u64((uint64_t)getpid(), all) == 0) {
    for (int i = 0; i < job->node_size; i++) pids[i] = (long)all[i];
    ergo__energy_node_pids(pids, job->node_size);
  }
  if (job->node_rank == 0) ergo__sim_share_unlink(name);
  free(pids);
  free(all);
}

/* The node's ranks elect one reader per package for energy, and the same rank sets that
 * package's uncore; node rank 0 also takes domains of no package (psys).  Collective within the
 * node when it has several ranks; a serial run reads and sets everything. */
/* quiet: this process's notes are another's to say (a rank above 0). */
static void share_node(const ergo__job *job, int quiet) {
  uint64_t pkgs = ~0ull;
  int unbound = 1;
  char who[160] = "";
  if (job->mpi && job->node_size > 1) {
    uint64_t *masks = calloc((size_t)job->node_size, sizeof *masks);
    if (masks && ergo__job_node_allgather_u64(my_packages(), masks) == 0) {
      pkgs = ergo__job_elect(masks, job->node_size, job->node_rank, &unbound);
    } else { /* cannot elect: node rank 0 reads and sets everything */
      pkgs = job->node_rank == 0 ? ~0ull : 0;
      unbound = job->node_rank == 0;
    }
    free(masks);
    if (pkgs || unbound)
      snprintf(who, sizeof who, "rank %d reads node %d's energy (%d ranks there)", job->rank,
               job->node, job->node_size);
    else
      snprintf(who, sizeof who, "node %d's energy is read by another of its %d ranks", job->node,
               job->node_size);
  }
  ergo__energy_share(pkgs, unbound, who, quiet);
  ergo__uncore_share(pkgs);
}

/* This rank failed to start: tell the others (they go on alone), then undo the job. */
static int agree_or_stop(int rc, int sim) {
  ergo__job_agree(0);
  if (sim) ergo__sim_stop();
  ergo__job_stop();
  return rc;
}

static int section_energy(void *ctx, uint64_t t, double *out, uint64_t *unsure) {
  (void)ctx;
  return ergo__energy_at(t, out, unsure);
}

/* How the run is made, for the reports (core/facts.c): the platform (estimate when the energy is
 * the estimate meter's), the policy in force and, when it tunes, its objective and model file,
 * and the energy meter. */
static void tell_facts(const ergo_config *own, int sim) {
  const ergo__meter *m = ergo__energy_meter();
  int estimate = m && m->label && strcmp(m->label, "ESTIMATE") == 0;
  ergo__fact_set("platform", sim ? "sim" : estimate ? "estimate" : "real");
  const char *policy = ergo__tuner_policy();
  ergo__fact_set("policy", policy ? policy : "monitor");
  int tunes = policy && strcmp(policy, "monitor") != 0;
  char obj[128];
  const ergo__objective *o = ergo__tuner_objective();
  ergo__fact_set("objective", tunes && o ? ergo__objective_name(o, obj, sizeof obj) : NULL);
  int modelled = tunes && strcmp(policy, "fixed") != 0;
  ergo__fact_set("model", modelled ? (own->model ? own->model : "ergo-model.json") : NULL);
  ergo__fact_set("energy", m && m->ops ? m->ops->name : "none");
}

/* ---- the end of a program that never called ergo_finalize ---- */

/* The process that called ergo_init: a fork child that ends never finalizes its parent's run
 * (its reports would overwrite the parent's).  finalizing: ergo_finalize runs, so an exit from
 * inside it (a hook's) finishes nothing twice. */
static pid_t init_pid;
static int finalizing, at_exit_armed;

/* atexit: a program that ends by exit(), a return from main or a Fortran STOP (an error exit,
 * mostly) would lose every report.  ergo finalizes here as ergo_finalize would (open regions
 * closed with their error lines, reports, tuning model, settings unwound, knobs back), with two
 * differences: no MPI call, as this rank may be the only one ending and a collective would wait
 * forever (every rank writes its own files, as after MPI_Finalize); and no ERGO_ON_ERROR=abort,
 * which would replace the program's exit status and lose the reports.  Registered at ergo_init;
 * the knobs' own exit restore (knobs/state_signal.c), registered at the first change and so
 * run before this, calls it first: the settings unwind before the files are written back, as in
 * ergo_finalize.  Never from a signal handler: those restore the knobs only (writing reports is
 * not async-signal-safe). */
static void finalize_at_exit(void) {
  if (!ergo__g.initialized || finalizing || getpid() != init_pid) return;
  /* Rank 0 speaks for the job; a rank that ends while MPI still runs (an error exit), for
   * itself. */
  if (ergo__rk.rank == 0 || ergo__job_usable()) {
    const char *by = ergo__core_started_by();
    if (by)
      ergo__warn("the program is ending without MPI_Finalize, where %s calls ergo_finalize "
                 "(exit(), a return from main or a Fortran STOP came first): ergo finalizes at "
                 "exit and writes its reports as ergo_finalize would (fix: call MPI_Finalize "
                 "before the program ends; after an error, nothing: the reports are complete)",
                 by);
    else
      ergo__warn("the program is ending without ergo_finalize (exit(), a return from main or a "
                 "Fortran STOP): ergo finalizes at exit and writes its reports as ergo_finalize "
                 "would (fix: call ergo_finalize before the program ends; after an error, "
                 "nothing: the reports are complete)");
  }
  ergo__job_leave();
  ergo__log_set_abort(0);
  (void)ergo_finalize();
}

/* At the first ergo_init; once per process (atexit cannot be undone). */
static void arm_at_exit(void) {
  init_pid = getpid();
  ergo__state_exit_first(finalize_at_exit);
  if (at_exit_armed) return;
  at_exit_armed = atexit(finalize_at_exit) == 0;
  if (!at_exit_armed)
    ergo__warn("ergo cannot register its exit handler (atexit failed): a program that ends "
               "without ergo_finalize loses its reports (fix: call ergo_finalize before the "
               "program ends)");
}

int ergo_init(const ergo_config *user) {
  if (ergo__g.initialized) return ergo__core_init(user); /* says why, returns ERGO_ESTATE */
  ergo_config cfg;
  int bad_user = 0;
  if (user) {
    /* Checked first (cfg->size too); an older layout's missing fields keep their defaults. */
    bad_user = ergo__config_check(user) != 0;
    ergo_config_default(&cfg);
    if (!bad_user) memcpy(&cfg, user, user->size);
    cfg.size = sizeof cfg;
    if (!bad_user) bad_user = ergo__config_same_files(&cfg, 1) != 0;
  } else {
    ergo_config_default(&cfg);
    /* Bad environment values were reported (warnings) and kept at their defaults; with
     * ERGO_ON_ERROR=abort (when that variable itself is valid) they are an error, and errors
     * abort through the one log path like every other. */
    if (ergo_config_from_env(&cfg) && cfg.on_error == ERGO_ON_ERROR_ABORT) {
      ergo__log_set_abort(1);
      ergo__error("ERGO_ON_ERROR=abort and the environment has invalid ERGO_* values (the "
                  "warnings above say which)");
      abort(); /* not reached: ergo__error aborted */
    }
  }
  /* The job first: under MPI every later layer knows its rank and node. */
  char jwhy[1024]; /* the job layer says where it looked for libergo-mpi */
  if (bad_user) cfg.node_split = 1;
  /* Processes a launcher started (mpiexec, srun) that do not talk over MPI: each keeps its own
   * files, named by the rank the launcher gave it, so that none writes into another's. */
  ergo__launched launched = {0, 1, NULL};
  int separate = 0;
  if (ergo__job_start(cfg.node_split, jwhy, sizeof jwhy) < 0) {
    /* Serial per rank, in its own files when the launcher tells the ranks apart; rank 0 says so
     * for all of them then. */
    separate = ergo__launcher_rank(&launched) && ergo__launcher_several(&launched);
    if (!separate || launched.rank == 0)
      ergo__warn("MPI is initialised but ergo cannot use it: %s; every rank reports on its own%s",
                 jwhy, separate ? ", as <name>.rankN files (ergo-steps.rank0.txt, ...)" : "");
  } else if (ergo__job_launched_without_mpi()) {
    separate = ergo__launcher_rank(&launched) && ergo__launcher_several(&launched);
    /* Once per job: rank 0 speaks for the others when they can be told apart. */
    if (separate && launched.rank == 0)
      ergo__warn("this process is rank 0 of %d that the launcher started (%s) but MPI is not "
                 "initialised at ergo_init%s; each process writes its own files, named "
                 "<name>.rankN (ergo-steps.rank0.txt, ...), and nothing is merged (fix: call "
                 "ergo_init after MPI_Init, or link ergo-mpi-auto)",
                 launched.size, launched.var,
#if defined(ERGO_WITH_MPI)
                 ""
#else
                 " (and this ergo is built without MPI: configure with -DERGO_WITH_MPI=ON)"
#endif
      );
    else if (!separate)
      ergo__warn("this process is one of several MPI ranks but MPI is not initialised at "
                 "ergo_init%s; every rank reports on its own (fix: call ergo_init after MPI_Init, "
                 "or link ergo-mpi-auto)",
#if defined(ERGO_WITH_MPI)
                 ""
#else
                 " (and this ergo is built without MPI: configure with -DERGO_WITH_MPI=ON)"
#endif
      );
  }
  /* Every rank must start, or none may wait for the others later (the merged report and the
   * node's tuning are collective): the ranks agree on the outcome before going on. */
  if (bad_user) return agree_or_stop(ERGO_EINVAL, 0);
  int sim = want_sim(&cfg);
  if (sim) {
    char why[512];
    int rc = ergo__sim_start(cfg.sim_node, cfg.sim_noise, cfg.sim_seed, why, sizeof why);
    if (rc) {
      ergo__warn("the sim node cannot start: %s", why);
      return agree_or_stop(rc, 0);
    }
  }
  /* The core's inputs: the clock regions are timed with (the sim node's virtual one) and the
   * platform the reports name.  The other layers are told `sim` below, as an argument. */
  ergo_config core = cfg;
  core.platform = sim ? "sim" : "real";
  /* The energy layer's own files, per process too (the core names its files from the ranks). */
  char *own_power = NULL, *own_trace = NULL, *own_model = NULL;
  if (separate) {
    if (core.power_csv) core.power_csv = own_power = ergo__rank_path(core.power_csv, launched.rank);
    if (core.trace) core.trace = own_trace = ergo__rank_path(core.trace, launched.rank);
    own_model = rank_model(&core, launched.rank);
    if (own_model) core.model = own_model;
  }
  if (sim) {
    core.clock = ergo__sim_clock;
    core.clock_ctx = NULL;
  }
  int rc = ergo__core_init(&core); /* copies the strings */
  free(own_power);
  free(own_trace);
  free(own_model);
  if (rc) return agree_or_stop(rc, sim);
  arm_at_exit();
  /* Said now, not after hours of computation (counted: after the core's reset of the counts). */
  /* A new file is tried in each output directory by one process of the job only (rank 0). */
  ergo__config_writable(&cfg, user != NULL,
                        (separate ? launched.rank : ergo__job_get()->rank) == 0);
  if (!ergo__job_agree(1))
    ergo__warn("ergo_init failed on another rank (it said why); this rank reports on its own, "
               "as <name>.rankN files, and does not tune with its node");
  const ergo__job *job = ergo__job_get();
  ergo__ranks rk = {job->rank, job->size, job->nnodes, ergo__job_usable, ergo__job_gather, 0};
  if (separate)
    rk = (ergo__ranks){
        launched.rank, launched.size ? launched.size : launched.rank + 1, 1, NULL, NULL, 1};
  ergo__ranks_set(&rk);
  share_node(job, job->rank != 0 || (separate && launched.rank != 0));
  share_sim_and_pids(job, sim);
  /* Knobs that do not open are absent; only named ones warn. */
  const ergo_config *own = ergo__core_config(); /* the same, with strings the core owns */
  ergo__threads_ceiling(own->threads_max);      /* before the threads knob opens */
  ergo__settings_own();                         /* ergo_init's thread pushes and pops */
  ergo__knobs_start(own->knobs, sim);
  /* Energy is an addition: without a meter the run measures time and goes on.  Before the
   * tuner: a policy that learns under an objective that weighs energy runs as monitor where no
   * meter opened, said before any line announces a search. */
  ergo__energy_start(own, sim);
  ergo__tuner_start(own, sim, ergo__energy_meter() != NULL);
  /* Sections read the energy layer's curve at their starts and stops (core/sections.c). */
  if (ergo__energy_reads()) ergo__sections_meter(ergo__energy_quantity(), section_energy, NULL);
  tell_facts(own, sim);
  /* The one path of a region execution through the layers (pipeline.c says in which order). */
  ergo__pipeline_start();
  /* ERGO_FORWARD: NVTX and ITT ranges beside ergo's own (nothing loaded when unset). */
  ergo__forward_start();
  /* ERGO_DASHBOARD: snapshots at each ergo_step, served by rank 0 (introspect.c). */
  ergo__introspect_start();
  /* Global's time and energy from one instant: the core's clock started at ergo__core_init,
   * the meter's first reading came after knob discovery and the election (15-30 ms later), so
   * Global's power was low.  Both restart here, where the program's own work begins; ergo_init's
   * own cost is in neither (it runs before the program's first region). */
  ergo__energy_origin();
  ergo__core_origin();
  return 0;
}

static int finalize_layers(void) {
  ergo__introspect_stop();        /* the server first: nothing reads a layer being stopped */
  int rc = ergo__core_finalize(); /* runs the energy layer's finalize hook, writes reports */
  /* The tuning model was written first (the tuner's finalize hook): its error is the first. */
  int model_rc = ergo__tuner_finish_error();
  if (model_rc) rc = model_rc;
  ergo__pipeline_stop();
  ergo__forward_stop();
  ergo__energy_stop();
  ergo__tuner_stop();
  ergo__settings_reset(); /* the settings stack unwound: the original values in force */
  ergo__knobs_stop();     /* every knob back as found, the state file removed */
  ergo__sim_stop();
  ergo__ranks_set(NULL);
  ergo__job_stop();
  ergo__log_summary(); /* each kind of line counted but not printed: how many */
  return rc;
}

int ergo_finalize(void) {
  if (!ergo__g.initialized || finalizing) return 0;
  finalizing = 1;
  int rc = finalize_layers();
  finalizing = 0;
  return rc;
}
