/* tune_cases.c - a small program whose regions make each case of tuning that does nothing
 * (issue 12, item 13): regions too short to tune, a region run once, region names that another
 * program's model does not know, and, on the real machine, work without an energy meter.
 *
 *   tune_cases [--steps N] [--names PREFIX] [--ms MS] [--once MS] [--extra] [--first MS]
 *              [--grow X] [--toggle K] [--small MS] [--nest] [--phase S] [--load F:S]
 *              [--stall K]
 *
 * Each step runs PREFIX_solve (MS milliseconds of work, default 200), then with --extra
 * PREFIX_extra (as long), then calls ergo_step; --once MS first runs PREFIX_init once (MS
 * milliseconds).  PREFIX defaults to "phase".  Significance (issue 14): --first MS makes the first
 * solve MS long; --grow X makes solve grow steadily to X times MS at the last step; --toggle K
 * makes solve twice as long in every other block of K steps (from step K): work that keeps
 * changing, and not along a line; --small MS
 * adds PREFIX_small, MS milliseconds per step; --nest runs solve as PREFIX_outer > PREFIX_mid >
 * PREFIX_solve, where outer and mid do no work of their own.  Work that changes (issue 14, items 1
 * and 5): --phase S turns solve's work memory-bound from step S on (as long at the untuned
 * setting; sim node only); --load F:S makes the machine loaded until step S: each solve also
 * waits F times its length, time that no setting changes; --stall K makes every K-th step's solve
 * (from step K/2) also wait 0.8 times its length: an outlier, as a daemon or a network stall
 * makes one.  On the sim node (ERGO_PLATFORM=sim)
 * the work is simulated compute of that length at the untuned setting; on the real machine it is a
 * busy wait of that length. */
#include <ergo_sim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* MS milliseconds of work: the sim node's 20 cores at 2 GHz do 0.04 Gcycles per millisecond. */
static long phase_at = -1, load_until = -1, cur_step, stall_every;
static double load_f;

static void work(double ms) {
  if (ergo_sim_active()) {
    /* Memory-bound: the node's 100 GB/s move 0.1 GB per millisecond. */
    ergo_sim_work_desc w = phase_at >= 0 && cur_step >= phase_at
                               ? (ergo_sim_work_desc){ms * 0.002, ms * 0.1, 0.01}
                               : (ergo_sim_work_desc){ms * 0.04, ms * 0.001, 0.01};
    ergo_sim_work(&w);
    if (cur_step < load_until) ergo_sim_wait(load_f * ms * 1e-3);
    if (stall_every > 0 && cur_step % stall_every == stall_every / 2)
      ergo_sim_wait(0.8 * ms * 1e-3);
    return;
  }
  if (cur_step < load_until) ms *= 1 + load_f;
  if (stall_every > 0 && cur_step % stall_every == stall_every / 2) ms *= 1.8;
  volatile double x = 0;
  for (double end = now_s() + ms * 1e-3; now_s() < end;) x += 1e-9;
}

static void region(const char *prefix, const char *name, double ms) {
  char full[128];
  snprintf(full, sizeof full, "%s_%s", prefix, name);
  ergo_push(1, full);
  work(ms);
  ergo_pop(1, full);
}

static void nested(const char *prefix, double ms) {
  char outer[128], mid[128];
  snprintf(outer, sizeof outer, "%s_outer", prefix);
  snprintf(mid, sizeof mid, "%s_mid", prefix);
  ergo_push(1, outer);
  ergo_push(1, mid);
  region(prefix, "solve", ms);
  ergo_pop(1, mid);
  ergo_pop(1, outer);
}

int main(int argc, char **argv) {
  long steps = 10;
  const char *prefix = "phase";
  double ms = 200, once = 0, first = 0, grow = 1, small = 0;
  long toggle = 0;
  int extra = 0, nest = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
      steps = atol(argv[++i]);
    else if (strcmp(argv[i], "--names") == 0 && i + 1 < argc)
      prefix = argv[++i];
    else if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc)
      ms = atof(argv[++i]);
    else if (strcmp(argv[i], "--once") == 0 && i + 1 < argc)
      once = atof(argv[++i]);
    else if (strcmp(argv[i], "--extra") == 0)
      extra = 1;
    else if (strcmp(argv[i], "--first") == 0 && i + 1 < argc)
      first = atof(argv[++i]);
    else if (strcmp(argv[i], "--grow") == 0 && i + 1 < argc)
      grow = atof(argv[++i]);
    else if (strcmp(argv[i], "--toggle") == 0 && i + 1 < argc)
      toggle = atol(argv[++i]);
    else if (strcmp(argv[i], "--small") == 0 && i + 1 < argc)
      small = atof(argv[++i]);
    else if (strcmp(argv[i], "--nest") == 0)
      nest = 1;
    else if (strcmp(argv[i], "--phase") == 0 && i + 1 < argc)
      phase_at = atol(argv[++i]);
    else if (strcmp(argv[i], "--load") == 0 && i + 1 < argc &&
             sscanf(argv[i + 1], "%lf:%ld", &load_f, &load_until) == 2)
      i++;
    else if (strcmp(argv[i], "--stall") == 0 && i + 1 < argc)
      stall_every = atol(argv[++i]);
    else {
      fprintf(stderr, "usage: tune_cases [--steps N] [--names PREFIX] [--ms MS] [--once MS] "
                      "[--extra] [--first MS] [--grow X] [--toggle K] [--small MS] [--nest] "
                      "[--phase S] [--load F:S] [--stall K]\n");
      return 2;
    }
  }
  if (ergo_init(NULL) != 0) return 2;
  if (once > 0) region(prefix, "init", once);
  for (long s = 0; s < steps; s++) {
    cur_step = s;
    double len = s == 0 && first > 0 ? first
                 : steps > 1         ? ms * (1 + (grow - 1) * (double)s / (double)(steps - 1))
                                     : ms;
    if (toggle > 0 && (s / toggle) % 2 == 1) len *= 2;
    if (nest)
      nested(prefix, len);
    else
      region(prefix, "solve", len);
    if (small > 0) region(prefix, "small", small);
    if (extra) region(prefix, "extra", ms);
    ergo_step(s);
  }
  ergo_finalize();
  printf("tune_cases: %ld steps done\n", steps);
  return 0;
}
