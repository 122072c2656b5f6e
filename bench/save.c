/* save.c - ergo-bench-save: what one save during the run (ERGO_SAVE_EVERY) costs the ergo_step
 * that makes it: a sweep model of 13 regions (every point of a full schedule) and the JSON report
 * of a 10,000-region tree, each written atomically (temporary file, fsync, rename) to the current
 * directory.
 *
 *   ergo-bench-save [REPEATS]   (default 20) */
#include "runtime/toolkit.h"

#include <ergo.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  int repeats = argc > 1 ? atoi(argv[1]) : 20;
  if (repeats < 1) repeats = 1;
  /* The model: 13 regions with 300 points each (the default sweep budget), as a full sweep of
   * the mini-app writes it. */
  ergo__model m;
  memset(&m, 0, sizeof m);
  snprintf(m.policy, sizeof m.policy, "sweep");
  snprintf(m.objective, sizeof m.objective, "energy@5%%");
  m.partial = 1;
  m.steps = 2500;
  for (int r = 0; r < 13; r++) {
    char path[64];
    snprintf(path, sizeof path, "Global/Timestep/REGION_%02d", r);
    ergo__model_region *mr = ergo__model_region_add(&m, path);
    if (!mr) return 1;
    for (int p = 0; p < 300; p++) {
      ergo__config c;
      memset(&c, 0, sizeof c);
      c.v[0] = 1000000 + 100000 * (p % 11);
      c.v[1] = 1200000 + 100000 * (p % 13);
      c.v[2] = 1 + p % 20;
      if (ergo__model_point_add(mr, &c, 0.1 + 1e-4 * p, 10 + 0.01 * p, 3)) return 1;
    }
    mr->best = mr->points[0].config;
    ergo__model_pareto(mr);
  }
  double t0 = now_s();
  for (int i = 0; i < repeats; i++)
    if (ergo__model_save("bench-save-model.json", &m, NULL)) return 1;
  double model_ms = (now_s() - t0) / repeats * 1e3;
  ergo__model_free(&m);

  /* The report: 100 regions of 100 regions each under Global (10,100 nodes). */
  ergo_config cfg;
  ergo_config_default(&cfg);
  cfg.report = "none";
  if (ergo_init(&cfg)) return 1;
  char name[32];
  for (int a = 0; a < 100; a++) {
    snprintf(name, sizeof name, "outer_%03d", a);
    ergo_push_at(1, name, __FILE__, __LINE__);
    for (int b = 0; b < 100; b++) {
      snprintf(name, sizeof name, "inner_%03d", b);
      ergo_push_at(2, name, __FILE__, __LINE__);
      ergo_pop_at(2, name, __FILE__, __LINE__);
    }
    snprintf(name, sizeof name, "outer_%03d", a);
    ergo_pop_at(1, name, __FILE__, __LINE__);
  }
  t0 = now_s();
  for (int i = 0; i < repeats; i++)
    if (ergo_report_json("bench-save-report.json")) return 1;
  double report_ms = (now_s() - t0) / repeats * 1e3;
  ergo_finalize();
  remove("bench-save-model.json");
  remove("bench-save-report.json");
  printf("one save during the run, mean of %d:\n", repeats);
  printf("  tuning model, 13 regions x 300 points:  %8.2f ms\n", model_ms);
  printf("  JSON report, 10,100 regions:            %8.2f ms\n", report_ms);
  printf("  share of run time at ERGO_SAVE_EVERY=60: %.3f %%\n",
         (model_ms + report_ms) * 1e-3 / 60 * 100);
  return 0;
}
