/* short_regions.c - ergo-short-regions WATTS BOUND_PCT ROUNDS REPORT.json US:CALLS... : on a
 * fake RAPL machine drawing a constant WATTS (packages + dram), with ergo's settings from the
 * environment, for each US:CALLS and each of ROUNDS rounds a region "batch_<US>us_<round>"
 * (level 1) that runs CALLS times a region "r_<US>us" (level 2) busy for US microseconds, then
 * busy as long again in the batch itself (its Unaccounted).  After ergo_finalize it reads every
 * r_ region's and every batch's Unaccounted energy and time back from the JSON report, and
 * prints for each US the power and its bias against WATTS, per round and the median over the
 * rounds.  Exits 1 when a median bias is BOUND_PCT % or more: the meter is read in the push and
 * pop hooks, outside a call's timed interval, and only an energy window fitted to that interval
 * keeps short regions from reading high and their parent's Unaccounted low.  The fake counters
 * move every --period-us, so a figure is an average over many calls (CALLS must be large); the
 * median leaves out a round that a torn read of a fake counter (a false wrap) spoiled. */
#include <ergo.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SPECS 8
#define MAX_ROUNDS 15

static double mono_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Busy (not asleep) for us microseconds: the power is the fake machine's either way, but a
 * sleeping process may wake late, and the point is many short calls in a row. */
static void busy(double us) {
  double until = mono_s() + us * 1e-6;
  while (mono_s() < until) {
  }
}

static json_t *child(json_t *node, const char *name) {
  size_t i;
  json_t *kid;
  json_array_foreach(json_object_get(node, "children"), i, kid) {
    const char *n = json_string_value(json_object_get(kid, "name"));
    if (n && strcmp(n, name) == 0) return kid;
  }
  return NULL;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median bias of n rounds' joules and seconds against watts, printed with every round's;
 * 1 when it is bound_pct % or more. */
static int figure(const char *what, const double *joules, const double *seconds, int n, long calls,
                  double watts, double bound_pct) {
  double bias[MAX_ROUNDS], sorted[MAX_ROUNDS];
  for (int k = 0; k < n; k++) {
    double w = seconds[k] > 0 ? joules[k] / seconds[k] : 0;
    bias[k] = sorted[k] = 100 * (w / watts - 1);
  }
  qsort(sorted, (size_t)n, sizeof *sorted, cmp);
  double med = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  int bad = !(fabs(med) < bound_pct);
  printf("%-24s %d rounds of %ld calls: median bias %+6.2f %% (bound %g %%)%s; rounds", what, n,
         calls, med, bound_pct, bad ? " FAIL" : "");
  for (int k = 0; k < n; k++) printf(" %+.2f", bias[k]);
  printf("\n");
  return bad;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: ergo-short-regions WATTS BOUND_PCT ROUNDS REPORT.json US:CALLS...\n");
    return 2;
  }
  double watts = atof(argv[1]), bound = atof(argv[2]);
  int rounds = atoi(argv[3]), nspec = argc - 5;
  const char *report = argv[4];
  if (nspec > MAX_SPECS || !(watts > 0) || !(bound > 0) || rounds < 1 || rounds > MAX_ROUNDS) {
    fprintf(stderr,
            "ergo-short-regions: WATTS and BOUND_PCT above 0, ROUNDS 1 to %d, at most %d "
            "US:CALLS\n",
            MAX_ROUNDS, MAX_SPECS);
    return 2;
  }
  double us[MAX_SPECS];
  long calls[MAX_SPECS];
  char name[MAX_SPECS][32], batch[MAX_SPECS][MAX_ROUNDS][48];
  for (int i = 0; i < nspec; i++) {
    if (sscanf(argv[5 + i], "%lf:%ld", &us[i], &calls[i]) != 2 || !(us[i] > 0) || calls[i] < 1) {
      fprintf(stderr, "ergo-short-regions: '%s' is not US:CALLS (e.g. 10:20000)\n", argv[5 + i]);
      return 2;
    }
    snprintf(name[i], sizeof name[i], "r_%gus", us[i]);
    for (int k = 0; k < rounds; k++)
      snprintf(batch[i][k], sizeof batch[i][k], "batch_%gus_%d", us[i], k + 1);
  }
  if (ergo_init(NULL) != 0) return 2;
  for (int k = 0; k < rounds; k++)
    for (int i = 0; i < nspec; i++) {
      ERGO_PUSH(1, batch[i][k]);
      for (long c = 0; c < calls[i]; c++) {
        ERGO_PUSH(2, name[i]);
        busy(us[i]);
        ERGO_POP(2, name[i]);
        busy(us[i]);
      }
      ERGO_POP(1, batch[i][k]);
    }
  if (ergo_finalize() != 0) return 2;

  json_error_t err;
  json_t *doc = json_load_file(report, 0, &err);
  if (!doc) {
    fprintf(stderr, "%s:%d:%d: %s\n", report, err.line, err.column, err.text);
    return 2;
  }
  json_t *tree = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  int bad = 0;
  for (int i = 0; i < nspec; i++) {
    double rj[MAX_ROUNDS], rs[MAX_ROUNDS], uj[MAX_ROUNDS], us_[MAX_ROUNDS];
    for (int k = 0; k < rounds; k++) {
      json_t *b = child(tree, batch[i][k]), *r = b ? child(b, name[i]) : NULL;
      json_t *be = json_object_get(b, "energy"), *re = json_object_get(r, "energy");
      if (!json_is_object(be) || !json_is_object(re)) {
        fprintf(stderr, "no energy for %s or its %s in %s\n", batch[i][k], name[i], report);
        json_decref(doc);
        return 1;
      }
      rs[k] = json_number_value(json_object_get(r, "time_s"));
      rj[k] = json_number_value(json_object_get(re, "total"));
      us_[k] = json_number_value(json_object_get(b, "time_s")) - rs[k];
      uj[k] = json_number_value(json_object_get(be, "self"));
    }
    char what[64];
    snprintf(what, sizeof what, "%s:", name[i]);
    bad |= figure(what, rj, rs, rounds, calls[i], watts, bound);
    snprintf(what, sizeof what, "batch_%gus Unaccounted:", us[i]);
    bad |= figure(what, uj, us_, rounds, calls[i], watts, bound);
  }
  json_decref(doc);
  return bad;
}
