/* check_job.c - checks the JSON reports of an MPI run (tests/mpi.cmake):
 *   check_job merged REPORT N          the merged report of N ranks: every region has its
 *                                      "ranks" figures, consistent with each other; ONLY_RANK3
 *                                      ran on one rank of N
 *   check_job energy MERGED R0 .. Rn-1 node readers: the ranks whose own report has energy are
 *                                      the readers; the merged Global energy is their sum
 * Prints what it checked and "ok", or one FAIL line; exit 0 or 1. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL: " __VA_ARGS__);                                                                \
      putchar('\n');                                                                               \
      fails++;                                                                                     \
    }                                                                                              \
  } while (0)

static json_t *load(const char *path) {
  json_error_t e;
  json_t *d = json_load_file(path, 0, &e);
  if (!d) {
    printf("FAIL: %s: %s (line %d)\n", path, e.text, e.line);
    exit(1);
  }
  return d;
}

static json_t *tree(json_t *doc) {
  return json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
}

static double num(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

static int close_to(double a, double b) {
  return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12;
}

static int regions, only3;

static void walk(json_t *n, int nranks) {
  const char *name = json_string_value(json_object_get(n, "name"));
  json_t *r = json_object_get(n, "ranks");
  CHECK(r && json_is_object(r), "region %s has no \"ranks\" figures", name);
  if (!r) return;
  regions++;
  double mn = num(r, "min_s"), mx = num(r, "max_s"), mean = num(r, "mean_s"), sd = num(r, "std_s");
  int n_ = (int)json_integer_value(json_object_get(r, "n"));
  int ran = (int)json_integer_value(json_object_get(r, "ran"));
  CHECK(n_ == nranks, "region %s: ranks.n=%d, expected %d", name, n_, nranks);
  CHECK(ran >= 1 && ran <= nranks, "region %s: ranks.ran=%d", name, ran);
  CHECK(mn <= mean + 1e-12 && mean <= mx + 1e-12, "region %s: min %g mean %g max %g out of order",
        name, mn, mean, mx);
  CHECK(close_to(mean, num(n, "time_s")), "region %s: mean %g is not time_s %g", name, mean,
        num(n, "time_s"));
  CHECK(sd >= 0 && sd <= mx - mn + 1e-12, "region %s: std %g outside [0, max-min]", name, sd);
  CHECK(mean <= 0 || close_to(num(r, "imbalance"), mx / mean - 1), "region %s: imbalance %g", name,
        num(r, "imbalance"));
  if (strcmp(name, "ONLY_RANK3") == 0) {
    only3 = 1;
    /* One rank of N: the others count 0 s, so the mean is max/N and the imbalance N - 1. */
    CHECK(ran == 1, "ONLY_RANK3 ran on %d ranks, expected 1", ran);
    CHECK(mn == 0, "ONLY_RANK3: min %g, expected 0 (ranks without it)", mn);
    CHECK(close_to(mean, mx / nranks), "ONLY_RANK3: mean %g, expected max/%d = %g", mean, nranks,
          mx / nranks);
    CHECK(close_to(num(r, "imbalance"), nranks - 1), "ONLY_RANK3: imbalance %g, expected %d",
          num(r, "imbalance"), nranks - 1);
  }
  json_t *kids = json_object_get(n, "children");
  for (size_t i = 0; i < json_array_size(kids); i++) walk(json_array_get(kids, i), nranks);
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "merged") == 0) {
    json_t *d = load(argv[2]);
    int n = atoi(argv[3]);
    json_t *mpi = json_object_get(d, "mpi");
    CHECK(json_is_true(json_object_get(mpi, "merged")), "%s is not a merged report", argv[2]);
    CHECK(json_integer_value(json_object_get(mpi, "ranks")) == n, "mpi.ranks is not %d", n);
    CHECK(json_array_size(json_object_get(d, "threads")) == 1, "a merged report has one tree");
    walk(tree(d), n);
    CHECK(only3, "no region ONLY_RANK3 in the merged report (rank 0 never ran it)");
    printf("merged report: %d regions with min/max/mean/std over %d ranks\n", regions, n);
  } else if (argc >= 4 && strcmp(argv[1], "energy") == 0) {
    json_t *m = load(argv[2]);
    json_t *me = json_object_get(tree(m), "energy");
    CHECK(json_is_object(me), "the merged report has no Global energy");
    double sum = 0;
    int readers = 0;
    char who[256] = "";
    for (int i = 3; i < argc; i++) {
      json_t *d = load(argv[i]);
      json_t *e = json_object_get(tree(d), "energy");
      if (!json_is_object(e)) continue;
      readers++;
      sum += num(e, "total");
      snprintf(who + strlen(who), sizeof who - strlen(who), " %d", i - 3);
    }
    double total = num(me, "total");
    printf("node readers:%s (%d); job energy %.6f J, sum of readers %.6f J\n", who, readers, total,
           sum);
    CHECK(close_to(total, sum), "job energy %g is not the readers' sum %g", total, sum);
    CHECK(total > 0, "job energy is %g", total);
    if (argc > 4) printf("readers=%d\n", readers);
  } else {
    fprintf(stderr, "usage: check_job merged REPORT N | check_job energy MERGED RANK_REPORT...\n");
    return 2;
  }
  if (!fails) printf("ok\n");
  return fails ? 1 : 0;
}
