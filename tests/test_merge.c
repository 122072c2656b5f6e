/* test_merge.c - core/merge.c: the per-rank trees of a job merged into one report on rank 0, over
 * fake ranks.  Each fake rank is one ergo session on the manual clock that packs its main tree
 * through a capturing gather (as ergo_finalize does on a rank that is not 0); rank 0's session
 * then merges its own pack and theirs through a gather that hands them over.  Every figure is
 * known exactly: the union of regions, mean/min/max/std of their time over the ranks,
 * imbalance, calls and per-call extremes, summed quantities, a region on fewer ranks, the
 * sections (merged by name: mean time, summed calls and energy), and packs
 * rank 0 cannot read (truncated at every length, foreign, of another version) refused with one
 * line each and nothing else lost. */
#include "test_util.h"

#include "core/internal.h"

#include <jansson.h>
#include <math.h>
#include <unistd.h>

#define MAX_RANKS 8

/* ---- every fake rank's tree ------------------------------------------------------------- */

/* Rank r (0..2), on the manual clock from 1 s:
 *   Timestep (1) 100/120/140 ms: WORK (2) 30+30 / 80 / 40+60 ms; ONLY1 (3) 10 ms on rank 1
 *   IO (1)       5 / - / 15 ms
 * and an "energy" quantity (package-0, dram-0) with a known amount per region. */
static void build_rank(int r) {
  ERGO_PUSH(1, "Timestep");
  switch (r) {
  case 0:
    region_ms(2, "WORK", 30);
    advance_ms(10);
    region_ms(2, "WORK", 30);
    advance_ms(30);
    break;
  case 1:
    region_ms(2, "WORK", 80);
    region_ms(3, "ONLY1", 10);
    advance_ms(30);
    break;
  default:
    region_ms(2, "WORK", 40);
    region_ms(2, "WORK", 60);
    advance_ms(40);
    break;
  }
  ERGO_POP(1, "Timestep");
  if (r == 0) region_ms(1, "IO", 5);
  if (r == 2) region_ms(1, "IO", 15);
}

/* The quantity's amount in a region of rank `rank`'s tree. */
static int q_rank;
static int q_value_all(const ergo_region *r, double *out);
static int no_dram_rank = -1; /* this rank reads no DRAM (another rank of its node does) */
static int q_value(void *ctx, const ergo_region *r, double *out) {
  (void)ctx;
  int rc = q_value_all(r, out);
  if (q_rank == no_dram_rank) out[1] = 0;
  return rc;
}
static int q_value_all(const ergo_region *r, double *out) {
  const char *n = ergo_region_name(r);
  double k = q_rank + 1;
  if (!strcmp(n, "Timestep")) {
    out[0] = 10 * k;
    out[1] = 1;
  } else if (!strcmp(n, "WORK")) {
    out[0] = 6 * k;
    out[1] = 0.5;
  } else if (!strcmp(n, "ONLY1")) {
    out[0] = 2;
    out[1] = 0.25;
  } else if (!strcmp(n, "IO")) {
    out[0] = 1;
    out[1] = 0;
  } else { /* Global */
    out[0] = 20 * k;
    out[1] = 2;
  }
  return 0;
}
static void attach_energy(const char *second_component) {
  ergo_quantity q = {.name = "energy",
                     .unit = "J",
                     .rate_unit = "W",
                     .ncomponents = 2,
                     .components = {"package-0", second_component},
                     .total_mask = 3,
                     .value = q_value};
  assert_int_equal(ergo_quantity_attach(&q, NULL), 0);
}

/* ---- the fake job ------------------------------------------------------------------------- */

static char *packs[MAX_RANKS]; /* what each rank but 0 sent */
static size_t pack_len[MAX_RANKS];
static int capturing;

/* A rank but 0 in the collective: its pack is kept for rank 0, which alone gets the packs. */
static int capture_gather(const void *buf, size_t len, char **all, size_t **lens) {
  free(packs[capturing]);
  packs[capturing] = malloc(len ? len : 1);
  assert_non_null(packs[capturing]);
  memcpy(packs[capturing], buf, len);
  pack_len[capturing] = len;
  *all = NULL;
  *lens = NULL;
  return 0;
}
static int usable(void) { return 1; }

static int job_size, job_nodes = 2, gathers;
/* Rank 0: its own pack, then every other rank's, as MPI_Gatherv would hand them over. */
static int gather_all(const void *buf, size_t len, char **all, size_t **lens) {
  gathers++;
  size_t total = len;
  for (int r = 1; r < job_size; r++) total += pack_len[r];
  *all = malloc(total ? total : 1);
  *lens = malloc((size_t)job_size * sizeof **lens);
  assert_non_null(*all);
  assert_non_null(*lens);
  memcpy(*all, buf, len);
  (*lens)[0] = len;
  size_t off = len;
  for (int r = 1; r < job_size; r++) {
    memcpy(*all + off, packs[r], pack_len[r]);
    (*lens)[r] = pack_len[r];
    off += pack_len[r];
  }
  return 0;
}

/* What each rank's session runs (build_rank unless a test sets another). */
static void (*builder)(int r) = build_rank;

/* Rank r's session: its tree and quantity, packed at ergo_finalize as on a real rank. */
static void run_rank(int r, const char *second_component) {
  test_init_default();
  q_rank = r;
  attach_energy(second_component);
  builder(r);
  ergo__ranks rk = {r, job_size, job_nodes, usable, capture_gather, 0};
  ergo__ranks_set(&rk);
  capturing = r;
  pack_len[r] = (size_t)-1;
  assert_int_equal(ergo_finalize(), 0);
  assert_true(pack_len[r] != (size_t)-1); /* it took part in the gather */
  assert_null(ergo__merged());            /* and did not merge */
}

/* Rank 0's session up to the merge: the merged snapshot, or NULL.  The lines said while merging
 * are the error count's growth: after that (ergo_init resets the count). */
static unsigned long merge_errors;
static const char *rank0_json; /* ERGO_REPORT_JSON of rank 0's session, or NULL */
static const ergo__snap *merge_on_rank0(void) {
  ergo_config c = test_config();
  c.report_json = rank0_json;
  test_init(&c);
  q_rank = 0;
  attach_energy("dram-0");
  builder(0);
  ergo__ranks rk = {0, job_size, job_nodes, usable, gather_all, 0};
  ergo__ranks_set(&rk);
  unsigned long before = ergo_error_count();
  int rc = ergo__merge_take();
  merge_errors = ergo_error_count() - before;
  assert_int_equal(rc, 0);
  return ergo__merged();
}

static int setup(void **state) {
  (void)state;
  for (int r = 0; r < MAX_RANKS; r++) {
    free(packs[r]);
    packs[r] = NULL;
    pack_len[r] = 0;
  }
  gathers = 0;
  job_nodes = 2;
  builder = build_rank;
  return test_dir_setup(state);
}
static int loud(int show);
static int teardown(void **state) {
  loud(1); /* a test that ended while stderr was away */
  ergo__merged_free();
  ergo__ranks_set(NULL);
  for (int r = 0; r < MAX_RANKS; r++) {
    free(packs[r]);
    packs[r] = NULL;
  }
  return test_dir_teardown(state);
}

static const ergo__snap *child(const ergo__snap *s, const char *name) {
  for (size_t i = 0; s && i < s->nchildren; i++)
    if (strcmp(s->children[i].name, name) == 0) return &s->children[i];
  return NULL;
}

#define assert_close(a, b)                                                                         \
  do {                                                                                             \
    double a_ = (a), b_ = (b);                                                                     \
    if (!(fabs(a_ - b_) <= 1e-12 * fmax(1, fabs(b_))))                                             \
      print_message("%s = %.17g, expected %.17g\n", #a, a_, b_);                                   \
    assert_true(fabs(a_ - b_) <= 1e-12 * fmax(1, fabs(b_)));                                       \
  } while (0)

/* The population standard deviation of n values. */
static double stdev(const double *v, int n) {
  double mean = 0, sq = 0;
  for (int i = 0; i < n; i++) mean += v[i] / n;
  for (int i = 0; i < n; i++) sq += (v[i] - mean) * (v[i] - mean);
  return sqrt(sq / n);
}

/* One region's figures over the ranks: times[r] (0 where absent). */
static void assert_ranks(const ergo__snap *s, int nranks, int ran, const double *times) {
  assert_non_null(s);
  assert_int_equal(s->nranks, nranks);
  assert_int_equal(s->ranks_ran, ran);
  double sum = 0, lo = INFINITY, hi = 0;
  for (int r = 0; r < nranks; r++) {
    sum += times[r];
    lo = fmin(lo, times[r]);
    hi = fmax(hi, times[r]);
  }
  assert_close(s->time_s, sum / nranks);
  assert_close(s->r_min_s, lo);
  assert_close(s->r_max_s, hi);
  assert_close(s->r_std_s, stdev(times, nranks));
}

/* The job of three ranks: the union of their regions, with every figure over the ranks. */
static void test_three_ranks(void **state) {
  (void)state;
  job_size = 3;
  run_rank(1, "dram-0");
  run_rank(2, "dram-0");
  char path[512];
  snprintf(path, sizeof path, "%s", test_in_dir("job.json"));
  rank0_json = path;
  const ergo__snap *m = merge_on_rank0();
  rank0_json = NULL;
  assert_non_null(m);
  assert_int_equal(gathers, 1);
  assert_string_equal(m->name, "Global");
  assert_int_equal(m->nranks, 3);
  assert_int_equal(m->nnodes, 2);
  assert_int_equal(m->calls, 1);
  assert_ranks(m, 3, 3, (double[]){0.105, 0.120, 0.155});

  /* Union of regions, sorted by their mean time: Timestep, IO. */
  assert_int_equal(m->nchildren, 2);
  assert_string_equal(m->children[0].name, "Timestep");
  assert_string_equal(m->children[1].name, "IO");
  const ergo__snap *ts = child(m, "Timestep"), *io = child(m, "IO");
  assert_ranks(ts, 3, 3, (double[]){0.100, 0.120, 0.140});
  assert_int_equal(ts->level, 1);
  assert_int_equal(ts->depth, 1);
  assert_int_equal(ts->calls, 3);
  assert_close(ts->min_s, 0.100);
  assert_close(ts->max_s, 0.140);
  /* IO is on ranks 0 and 2: rank 1 counts 0 s. */
  assert_ranks(io, 3, 2, (double[]){0.005, 0, 0.015});
  assert_int_equal(io->calls, 2);
  assert_close(io->min_s, 0.005);
  assert_close(io->max_s, 0.015);

  assert_int_equal(ts->nchildren, 2);
  assert_string_equal(ts->children[0].name, "WORK");
  assert_string_equal(ts->children[1].name, "ONLY1"); /* only rank 1 has it: seen all the same */
  const ergo__snap *work = child(ts, "WORK"), *only1 = child(ts, "ONLY1");
  assert_ranks(work, 3, 3, (double[]){0.060, 0.080, 0.100});
  assert_int_equal(work->level, 2);
  assert_int_equal(work->depth, 2);
  assert_int_equal(work->calls, 5);
  assert_close(work->min_s, 0.030); /* the shortest call on any rank */
  assert_close(work->max_s, 0.080); /* the longest */
  /* Mean per call: 0.24 s over all ranks / 5 calls, between min and max (not 0.08 s / 5). */
  assert_close(ergo__snap_mean_s(work), 0.048);
  assert_ranks(only1, 3, 1, (double[]){0, 0.010, 0});
  assert_int_equal(only1->level, 3);
  assert_int_equal(only1->calls, 1);
  assert_int_equal(only1->nchildren, 0);

  /* Quantities: summed over the ranks, component by component. */
  assert_int_equal(ts->q_ok, 1);
  assert_close(ts->q[0][0], 10 + 20 + 30);
  assert_close(ts->q[0][1], 3);
  assert_close(work->q[0][0], 6 + 12 + 18);
  assert_close(work->q[0][1], 1.5);
  assert_close(only1->q[0][0], 2);
  assert_close(io->q[0][0], 2);
  assert_close(m->q[0][0], 20 + 40 + 60);

  /* The text report is the merged one while it exists: header, spread and imbalance. */
  char *text = ergo_report_string();
  assert_non_null(text);
  assert_non_null(strstr(text, "MPI-Tasks: 3, nodes: 2; sec is the mean over ranks, then "
                               "min/max/std over ranks and imbalance = max/mean - 1\n"));
  assert_non_null(strstr(text, "Total energy for Global = 126 J (package-0 120 J, dram-0 6 J)"));
  /* Whole lines: time (the mean) and share, the spread over the ranks (std over all of them,
   * imbalance = max / mean - 1), on how many ranks, then the summed energy.  Timestep: mean
   * 0.12, std sqrt(0.0008 / 3), imbalance 0.14 / 0.12 - 1; 63 J (package and DRAM) of Global's 126
   * J.  Watts are per node: the energy over the time its readers (here every rank) spent in the
   * region: Timestep 63 J / 0.36 s, WORK 37.5 J / 0.24 s, ONLY1 2.25 J / 0.01 s, IO 2 J / 0.02 s
   * (not the summed energy over the ranks' mean time, 525 W for Timestep). */
  assert_non_null(strstr(text, "\n* Timestep                       : 0.1200 sec,  94.74% | ranks "
                               "min 0.1000 max 0.1400 std 0.0163 sec, imbalance  16.67% | "
                               "63.0000 J, 175.00 W,  50.00%\n"));
  assert_non_null(strstr(text, "\n- * WORK                         : 0.0800 sec,  66.67% | ranks "
                               "min 0.0600 max 0.1000 std 0.0163 sec, imbalance  25.00% | "
                               "37.5000 J, 156.25 W,  59.52%\n"));
  assert_non_null(strstr(text, "\n- * ONLY1                        : 0.0033 sec,   2.78% | ranks "
                               "min 0.0000 max 0.0100 std 0.0047 sec, imbalance 200.00% | on "
                               "1/3 ranks | 2.2500 J, 225.00 W,   3.57%\n"));
  assert_non_null(strstr(text, "\n* IO                             : 0.0067 sec,   5.26% | ranks "
                               "min 0.0000 max 0.0150 std 0.0062 sec, imbalance 125.00% | on "
                               "2/3 ranks | 2.0000 J, 100.00 W,   1.59%\n"));
  free(text);
  ergo__merged_free();
  assert_null(ergo__merged());

  /* ergo_finalize merges again (collective) and writes the job's JSON report. */
  assert_int_equal(ergo_report_json(path), 0); /* before: this rank's own tree */
  json_error_t err;
  json_t *doc = json_load_file(path, 0, &err);
  assert_non_null(doc);
  assert_false(json_is_true(json_object_get(json_object_get(doc, "mpi"), "merged")));
  json_decref(doc);
  assert_int_equal(ergo_finalize(), 0);
  assert_int_equal(gathers, 2);
  doc = json_load_file(path, 0, &err);
  assert_non_null(doc);
  json_t *mpi = json_object_get(doc, "mpi");
  assert_true(json_is_true(json_object_get(mpi, "merged")));
  assert_int_equal(json_integer_value(json_object_get(mpi, "ranks")), 3);
  json_t *tree = json_object_get(json_array_get(json_object_get(doc, "threads"), 0), "tree");
  json_t *jts = json_array_get(json_object_get(tree, "children"), 0);
  assert_string_equal(json_string_value(json_object_get(jts, "name")), "Timestep");
  json_t *jr = json_object_get(jts, "ranks");
  assert_int_equal(json_integer_value(json_object_get(jr, "n")), 3);
  assert_int_equal(json_integer_value(json_object_get(jr, "ran")), 3);
  assert_close(json_real_value(json_object_get(jr, "mean_s")), 0.12);
  assert_close(json_real_value(json_object_get(jr, "min_s")), 0.1);
  assert_close(json_real_value(json_object_get(jr, "max_s")), 0.14);
  assert_true(fabs(json_real_value(json_object_get(jr, "imbalance")) - 1.0 / 6) < 1e-12);
  json_t *jonly = json_array_get(json_object_get(jts, "children"), 1);
  assert_string_equal(json_string_value(json_object_get(jonly, "name")), "ONLY1");
  assert_int_equal(json_integer_value(json_object_get(json_object_get(jonly, "ranks"), "ran")), 1);
  json_decref(doc);
}

/* A rank whose quantity has other components: its amounts are left out of the sums (one line),
 * its times are not. */
static void test_other_components(void **state) {
  (void)state;
  job_size = 3;
  run_rank(1, "dram-0");
  run_rank(2, "psys"); /* same name, another second component */
  const ergo__snap *m = merge_on_rank0();
  assert_non_null(m);
  assert_int_equal(merge_errors, 1);
  assert_string_equal(ergo_last_error(),
                      "ergo_finalize: rank 2 measures energy over other components than rank 0; "
                      "its energy is left out of the merged report (fix: ERGO_REPORT_RANKS=1 "
                      "writes it in that rank's own files)");
  const ergo__snap *ts = child(m, "Timestep");
  assert_ranks(ts, 3, 3, (double[]){0.100, 0.120, 0.140});
  assert_close(ts->q[0][0], 10 + 20);
  assert_close(ts->q[0][1], 2);
  assert_close(child(m, "IO")->q[0][0], 1); /* rank 0's only */
}

/* Sections: each rank's meter gives (rank + 1) x 100 W on package-0 and 10 W on dram-0; rank r
 * times "solve" for 20/10/30 ms, rank 1 alone "only1" for 5 ms. */
static int section_meter(void *ctx, uint64_t t, double *out, uint64_t *unsure) {
  (void)ctx;
  out[0] = (q_rank + 1) * 100 * ergo__ticks_to_s(t);
  out[1] = 10 * ergo__ticks_to_s(t);
  *unsure = 0;
  return 0;
}
static void build_sections(int r) {
  build_rank(r);
  ergo__sections_meter(0, section_meter, NULL);
  unsigned solve, only1;
  ergo_section_create("solve", &solve);
  ergo_section_start(solve);
  advance_ms(r == 0 ? 20 : r == 1 ? 10 : 30);
  ergo_section_stop(solve);
  if (r == 1) {
    ergo_section_create("only1", &only1);
    ergo_section_start(only1);
    advance_ms(5);
    ergo_section_stop(only1);
  }
}

static void test_sections_merged(void **state) {
  (void)state;
  job_size = 3;
  builder = build_sections;
  run_rank(1, "dram-0");
  run_rank(2, "dram-0");
  assert_non_null(merge_on_rank0());
  assert_int_equal(merge_errors, 0);
  ergo__section_fig *sec;
  size_t n = ergo__sections_take(&sec);
  assert_int_equal(n, 2);
  assert_string_equal(sec[0].name, "solve"); /* rank 0's first, then the others' new ones */
  assert_string_equal(sec[1].name, "only1");
  assert_int_equal(sec[0].nranks, 3);
  assert_int_equal(sec[0].ranks_ran, 3);
  assert_close(sec[0].time_s, (0.020 + 0.010 + 0.030) / 3);
  assert_int_equal(sec[0].calls, 3);
  assert_int_equal(sec[0].q_ok, 1u);
  assert_close(sec[0].q[0][0], 100 * 0.020 + 200 * 0.010 + 300 * 0.030);
  assert_close(sec[0].q[0][1], 10 * 0.060);
  assert_close(sec[0].q_time_s[0][0], 0.060); /* every rank reads its own domains here */
  assert_int_equal(sec[1].ranks_ran, 1);
  assert_close(sec[1].time_s, 0.005 / 3);
  assert_int_equal(sec[1].calls, 1);
  assert_close(sec[1].q[0][0], 200 * 0.005);
  free(sec);
  /* The text report shows the job's sections; a section on fewer ranks says so. */
  char *text = ergo_report_string();
  assert_non_null(text);
  assert_non_null(strstr(text, "Sections\n* solve "));
  assert_non_null(strstr(text, "calls 1 | 1.0500 J, "));
  assert_non_null(strstr(text, " | on 1/3 ranks\n"));
  free(text);
}

/* Rank 3 sends half a pack: one line names it, and everything the other ranks sent is merged
 * as if rank 3 had run nothing (the job still has 4 ranks). */
static void test_truncated_pack(void **state) {
  (void)state;
  job_size = 4;
  run_rank(1, "dram-0");
  run_rank(2, "dram-0");
  run_rank(3, "dram-0"); /* rank 3 runs as rank 2 does (build_rank's default) */
  pack_len[3] /= 2;
  char want[256];
  snprintf(want, sizeof want,
           "ergo_finalize: rank 3 sent regions rank 0 cannot read (%zu bytes); the merged report "
           "leaves it out (fix: run the same ergo build on every rank)",
           pack_len[3]);
  const ergo__snap *m = merge_on_rank0();
  assert_non_null(m);
  assert_int_equal(merge_errors, 1);
  assert_string_equal(ergo_last_error(), want);
  assert_int_equal(m->nranks, 4);
  const ergo__snap *ts = child(m, "Timestep"), *io = child(m, "IO");
  assert_ranks(ts, 4, 3, (double[]){0.100, 0.120, 0.140, 0});
  assert_int_equal(ts->calls, 3);
  assert_close(ts->min_s, 0.100);
  assert_close(ts->max_s, 0.140);
  assert_close(ts->q[0][0], 60);
  const ergo__snap *work = child(ts, "WORK"), *only1 = child(ts, "ONLY1");
  assert_ranks(work, 4, 3, (double[]){0.060, 0.080, 0.100, 0});
  assert_int_equal(work->calls, 5);
  assert_close(work->min_s, 0.030);
  assert_close(work->max_s, 0.080);
  assert_ranks(only1, 4, 1, (double[]){0, 0.010, 0, 0});
  assert_ranks(io, 4, 2, (double[]){0.005, 0, 0.015, 0});
  char *text = ergo_report_string();
  assert_non_null(text);
  assert_non_null(strstr(text, "MPI-Tasks: 4, nodes: 2;"));
  assert_non_null(strstr(text, "| on 3/4 ranks"));
  free(text);
}

/* While the loop below runs, stderr (ergo's warning lines) goes to a file, and the sanitizers'
 * reports to the saved stderr.  Whatever ends the loop early (a failed check, an assertion in a
 * helper, a signal cmocka catches) reaches loud(1) - the check itself or the teardown - which
 * puts stderr back and shows the end of what was said meanwhile, cmocka's message included. */
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));
static int quiet_fd = -1;
static FILE *quiet_log;
static void quiet(void) {
  fflush(stderr);
  quiet_log = tmpfile();
  quiet_fd = dup(2);
  assert_non_null(quiet_log);
  assert_true(quiet_fd >= 0);
  if (__sanitizer_set_report_fd) __sanitizer_set_report_fd((void *)(intptr_t)quiet_fd);
  dup2(fileno(quiet_log), 2);
}
/* stderr back (if it was away); the number of lines written to it meanwhile, their last 2000
 * bytes shown when `show`. */
static int loud(int show) {
  if (quiet_fd < 0) return -1;
  fflush(stderr);
  dup2(quiet_fd, 2);
  if (__sanitizer_set_report_fd) __sanitizer_set_report_fd((void *)(intptr_t)2);
  close(quiet_fd);
  quiet_fd = -1;
  int lines = 0, ch;
  long size = 0;
  rewind(quiet_log);
  while ((ch = fgetc(quiet_log)) != EOF) lines += ch == '\n', size++;
  if (show) {
    fprintf(stderr, "--- the end of stderr while it was counted (%d lines):\n", lines);
    fseek(quiet_log, size > 2000 ? size - 2000 : 0, SEEK_SET);
    while ((ch = fgetc(quiet_log)) != EOF) fputc(ch, stderr);
    fprintf(stderr, "---\n");
  }
  fclose(quiet_log);
  return lines;
}
#define quiet_check(cond, cut)                                                                     \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      loud(1);                                                                                     \
      print_message("with rank 1's pack cut to %zu bytes:\n", (size_t)(cut));                      \
      assert_true(cond);                                                                           \
    }                                                                                              \
  } while (0)

/* Every cut of rank 1's pack, a foreign pack, another version, trailing bytes: each refused
 * with one line and never read past its end; rank 2 is always merged in full.  An empty pack
 * (a rank that could not pack said so itself) is left out without a word from rank 0. */
static void test_unreadable_packs(void **state) {
  (void)state;
  job_size = 3;
  run_rank(1, "dram-0");
  run_rank(2, "dram-0");
  size_t full = pack_len[1];
  char *orig = packs[1];
  assert_true(full > 64);
  /* One warning per cut, hundreds: counted, not shown (see quiet()). */
  quiet();
  size_t refused = 0;
  for (size_t cut = 0; cut <= full + 1; cut++) {
    /* A copy of exactly `cut` bytes, so a read past the end is caught (ASan). */
    char *p = malloc(cut ? cut : 1);
    quiet_check(p != NULL, cut);
    memcpy(p, orig, cut < full ? cut : full);
    if (cut > full) p[full] = 0; /* one trailing byte */
    packs[1] = p;
    pack_len[1] = cut;
    const ergo__snap *m = merge_on_rank0();
    int whole = cut == full;
    quiet_check(m != NULL, cut);
    quiet_check(merge_errors == (whole || cut == 0 ? 0u : 1u), cut);
    const ergo__snap *ts = child(m, "Timestep");
    quiet_check(
        ts && ts->nranks == 3 && ts->ranks_ran == (whole ? 3 : 2) && ts->calls == 3u - !whole, cut);
    quiet_check(fabs(ts->time_s - (whole ? 0.36 : 0.24) / 3) < 1e-12, cut);
    quiet_check(fabs(ts->r_max_s - 0.14) < 1e-12 && fabs(ts->r_min_s - (whole ? 0.1 : 0)) < 1e-12,
                cut);
    quiet_check((child(ts, "ONLY1") != NULL) == whole, cut);
    refused += !whole && cut;
    ergo__merged_free();
    ergo__ranks_set(NULL);
    ergo_finalize();
    free(p);
  }
  packs[1] = orig;
  pack_len[1] = full;
  int lines = loud(0);
  assert_int_equal(refused, full);  /* 1 .. full-1 bytes, and full+1 */
  assert_int_equal(lines, refused); /* one line each, and nothing else */

  /* A pack of another program (magic) or another version of the format. */
  for (int kind = 0; kind < 2; kind++) {
    memcpy(packs[1], orig, full);
    if (kind == 0)
      memcpy(packs[1], "ERGX", 4);
    else
      packs[1][4] ^= 0x7f; /* the version's low byte */
    const ergo__snap *m = merge_on_rank0();
    assert_non_null(m);
    assert_int_equal(merge_errors, 1);
    assert_non_null(strstr(ergo_last_error(), "rank 1 sent regions rank 0 cannot read"));
    assert_ranks(child(m, "Timestep"), 3, 2, (double[]){0.100, 0, 0.140});
    ergo__merged_free();
    ergo__ranks_set(NULL);
    ergo_finalize();
  }
}

/* Watts per node when the ranks read different domains: rank 1 reads package-0 but no DRAM (its
 * Global has none), so DRAM's joules are over rank 0's time alone.  Timestep: package 10 + 20 J
 * over 0.10 + 0.12 s, DRAM 1 J over 0.10 s (not over 0.22 s): 136.36 + 10 W. */
static void test_power_per_domain(void **state) {
  (void)state;
  job_size = 2;
  no_dram_rank = 1;
  run_rank(1, "dram-0");
  const ergo__snap *m = merge_on_rank0();
  no_dram_rank = -1;
  assert_non_null(m);
  const ergo__snap *ts = child(m, "Timestep"), *work = child(ts, "WORK");
  assert_close(ts->q_time_s[0][0], 0.22);
  assert_close(ts->q_time_s[0][1], 0.10);
  assert_close(ergo__snap_q_rate(ts, 0), 30 / 0.22 + 1 / 0.10);
  /* WORK: package 6 + 12 J over 0.06 + 0.08 s, DRAM 0.5 J over 0.06 s. */
  assert_close(ergo__snap_q_rate(work, 0), 18 / 0.14 + 0.5 / 0.06);
  /* Unaccounted under Timestep: the same children out of energy and time alike. */
  double q[ERGO_MAX_COMPONENTS], qt[ERGO_MAX_COMPONENTS];
  ergo__snap_q_rest(ts, 0, q, qt);
  assert_close(q[0], 30 - 18 - 2);
  assert_close(qt[0], 0.22 - 0.14 - 0.01);
  assert_close(qt[1], 0.10 - 0.06);
  assert_int_equal(ergo_finalize(), 0);
}

/* The settings the tuner applied, as the pipeline hands them to the core: WORK under one setting
 * on every rank; Timestep under another on each rank (so the merged one is "varied"). */
static const char *const knob_fields[] = {"core_khz", "uncore_khz", "threads"};
static int set_rank;
static int rank_setting(void *ctx, const ergo__node *n, int64_t v[ERGO__SETTING_MAX], int *varied) {
  (void)ctx;
  *varied = 0;
  if (strcmp(n->name, "WORK") == 0) {
    v[0] = 1800000, v[2] = 8;
    return 1;
  }
  if (strcmp(n->name, "Timestep") == 0) {
    v[0] = set_rank ? 1500000 : 2000000;
    return 1;
  }
  return 0;
}

/* The pack carries each region's setting and the rank's host and steps: the merged report
 * shows the settings (varied where ranks differ), every host once, and says when a rank made
 * another number of steps. */
static void test_settings_and_hosts(void **state) {
  (void)state;
  job_size = 2;
  test_init_default();
  set_rank = 1;
  ergo__facts_setting_source(rank_setting, NULL, 3, knob_fields);
  build_rank(1);
  ergo_step(1);
  ergo_step(2);
  ergo__ranks rk = {1, job_size, job_nodes, usable, capture_gather, 0};
  ergo__ranks_set(&rk);
  capturing = 1;
  assert_int_equal(ergo_finalize(), 0);

  char path[512];
  snprintf(path, sizeof path, "%s", test_in_dir("job.json"));
  ergo_config c = test_config();
  c.report_json = path;
  test_init(&c);
  set_rank = 0;
  ergo__facts_setting_source(rank_setting, NULL, 3, knob_fields);
  build_rank(0);
  ergo_step(1);
  ergo__ranks rk0 = {0, job_size, job_nodes, usable, gather_all, 0};
  ergo__ranks_set(&rk0);
  unsigned long before = ergo_warning_count();
  assert_int_equal(ergo__merge_take(), 0);
  assert_int_equal(ergo_warning_count() - before, 1);
  assert_non_null(strstr(ergo_last_error(), "rank 1 called ergo_step 2 times, rank 0 1 times"));
  const ergo__snap *m = ergo__merged();
  assert_non_null(m);
  const ergo__snap *ts = child(m, "Timestep"), *work = child(ts, "WORK"), *io = child(m, "IO");
  assert_true(ts->has_setting && ts->setting_varied);
  assert_int_equal(ts->setting[0], 2000000); /* the first rank's */
  assert_true(work->has_setting && !work->setting_varied);
  assert_int_equal(work->setting[0], 1800000);
  assert_int_equal(work->setting[1], 0);
  assert_int_equal(work->setting[2], 8);
  assert_false(io->has_setting);
  assert_int_equal(ergo_report_json(path), 0);
  json_t *doc = json_load_file(path, 0, NULL);
  assert_non_null(doc);
  json_t *hosts = json_object_get(json_object_get(doc, "run"), "hosts");
  char host[256];
  assert_int_equal(gethostname(host, sizeof host), 0);
  assert_int_equal(json_array_size(hosts), 1);
  assert_string_equal(json_string_value(json_array_get(hosts, 0)), host);
  json_decref(doc);
}

/* ---- many siblings, in another order on every rank ----------------------------------------- */
#define NS 3000
/* Rank r pushes NS siblings under "Loop": rank 0 in order, rank 1 in reverse and without the
 * multiples of 3, rank 2 from the middle round; rank 2 alone also has "only2_<k>" for k < 100.
 * Sibling k lasts (k % 5 + 1) * (r + 1) ms. */
static void build_many(int r) {
  char name[32];
  ERGO_PUSH(1, "Loop");
  for (int i = 0; i < NS; i++) {
    int k = r == 0 ? i : r == 1 ? NS - 1 - i : (i + NS / 2) % NS;
    if (r == 1 && k % 3 == 0) continue;
    snprintf(name, sizeof name, "s%d", k);
    region_ms(2, name, (uint64_t)(k % 5 + 1) * (uint64_t)(r + 1));
    if (r == 2 && k < 100) {
      snprintf(name, sizeof name, "only2_%d", k);
      region_ms(2, name, 1);
    }
  }
  ERGO_POP(1, "Loop");
}

static void test_siblings_in_other_orders(void **state) {
  (void)state;
  job_size = 3;
  builder = build_many;
  for (int r = 1; r < job_size; r++) run_rank(r, "dram-0");
  const ergo__snap *m = merge_on_rank0();
  assert_non_null(m);
  assert_int_equal(merge_errors, 0);
  const ergo__snap *loop = child(m, "Loop");
  assert_non_null(loop);
  assert_int_equal(loop->nchildren, NS + 100);
  char name[32];
  for (int k = 0; k < NS; k++) {
    snprintf(name, sizeof name, "s%d", k);
    const ergo__snap *s = child(loop, name);
    double base = (k % 5 + 1) * 1e-3;
    double t[3] = {base, k % 3 ? 2 * base : 0, 3 * base};
    assert_ranks(s, 3, k % 3 ? 3 : 2, t);
    assert_int_equal(s->calls, k % 3 ? 3 : 2);
  }
  for (int k = 0; k < 100; k++) {
    snprintf(name, sizeof name, "only2_%d", k);
    double t[3] = {0, 0, 1e-3};
    assert_ranks(child(loop, name), 3, 1, t);
  }
  /* Sorted as every report is: by time, then name. */
  for (size_t i = 1; i < loop->nchildren; i++) {
    const ergo__snap *a = &loop->children[i - 1], *b = &loop->children[i];
    assert_true(a->time_s > b->time_s || (a->time_s == b->time_s && strcmp(a->name, b->name) < 0));
  }
  ergo_finalize();
}

/* ---- a large merge, figure for figure as the format-4 merge made it ------------------------ */
#define ND 700
#define DIGEST_WANT 0x18ffb82ff9fdfe01ull
/* Rank r of 4: "Loop" with ND siblings from its own offset, 1 in 5 on that rank alone (the
 * union, 1260, outgrows the merge's first table), each with one or two children of its own; rank
 * 3 also has "Tail".  Every duration depends on k and r. */
static void build_digest(int r) {
  char name[32], inner[32];
  ERGO_PUSH(1, "Loop");
  for (int i = 0; i < ND; i++) {
    int k = (i + r * ND / 4) % ND;
    if (k % 5 == r)
      snprintf(name, sizeof name, "rank%d_only_%d", r, k);
    else
      snprintf(name, sizeof name, "sib_%d", k);
    ERGO_PUSH(2, name);
    region_ms(3, "inner", (uint64_t)(k % 3 + r));
    if ((k + r) % 4 == 0) {
      snprintf(inner, sizeof inner, "inner_%d", k % 7);
      region_ms(3, inner, (uint64_t)(k % 5 + 1));
    }
    advance_ms((uint64_t)(k % 11 == 0) * (uint64_t)(r + 1));
    ERGO_POP(2, name);
  }
  ERGO_POP(1, "Loop");
  if (r == 3) region_ms(1, "Tail", 2);
}

/* FNV-1a over every figure of a merged node and its subtree, in the report's order. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}
static uint64_t digest(uint64_t h, const ergo__snap *s) {
  h = fnv(h, s->name, strlen(s->name) + 1);
  int ints[] = {s->level,     s->depth,       s->open,          s->nranks,
                s->ranks_ran, s->has_setting, s->setting_varied};
  h = fnv(h, ints, sizeof ints);
  double d[] = {s->time_s, s->min_s, s->max_s, s->r_min_s, s->r_max_s, s->r_std_s};
  h = fnv(h, d, sizeof d);
  h = fnv(h, &s->calls, sizeof s->calls);
  h = fnv(h, &s->q_ok, sizeof s->q_ok);
  h = fnv(h, s->q, sizeof s->q);
  h = fnv(h, s->q_time_s, sizeof s->q_time_s);
  h = fnv(h, s->setting, sizeof s->setting);
  h = fnv(h, &s->nchildren, sizeof s->nchildren);
  for (size_t i = 0; i < s->nchildren; i++) h = digest(h, &s->children[i]);
  return h;
}

/* 4 ranks of ND siblings and their children: the merged tree is, bit for bit, the one the
 * merge of pack format 4 (before the compact format 5) made: its digest, and its size. */
static void test_large_merge_unchanged(void **state) {
  (void)state;
  job_size = 4;
  builder = build_digest;
  for (int r = 1; r < job_size; r++) run_rank(r, "dram-0");
  const ergo__snap *m = merge_on_rank0();
  assert_non_null(m);
  assert_int_equal(merge_errors, 0);
  const ergo__snap *loop = child(m, "Loop");
  assert_non_null(loop);
  size_t nodes = 0;
  for (size_t i = 0; i < loop->nchildren; i++) nodes += 1 + loop->children[i].nchildren;
  uint64_t h = digest(0xcbf29ce484222325ull, m);
  print_message("merged: %zu siblings, %zu nodes under Loop, digest %016llx\n", loop->nchildren,
                nodes, (unsigned long long)h);
  assert_int_equal(h, DIGEST_WANT);
  ergo_finalize();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_settings_and_hosts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_three_ranks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_siblings_in_other_orders, setup, teardown),
      cmocka_unit_test_setup_teardown(test_large_merge_unchanged, setup, teardown),
      cmocka_unit_test_setup_teardown(test_other_components, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sections_merged, setup, teardown),
      cmocka_unit_test_setup_teardown(test_power_per_domain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_truncated_pack, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unreadable_packs, setup, teardown),
  };
  return cmocka_run_group_tests_name("merge", tests, NULL, NULL);
}
