/* test_sampler.c - energy/sampler.c with a fake meter (a table of function pointers, as every
 * meter is): samples at the period and never sooner, the stop's sample count, the power CSV and
 * the Chrome trace complete and well formed after stop, power that is energy over time, failed
 * reads not counted, and a path that cannot be written: one warning, no crash. */
#include "test_util.h"

#include "energy/energy.h"
#include "energy/meter.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#define PERIOD_MS 10
#define MAX_READS 4096

/* The fake meter: every read adds 1 J to package-0 and 0.25 J to dram-0 (in uJ ticks), and
 * notes when it happened; reads listed in fail_every fail instead. */
static struct {
  uint64_t pkg, dram;
  int reads, ok_reads; /* every call; those that returned a reading */
  int fail_every;      /* 0: never; n: every n-th call fails */
  uint64_t at_ns[MAX_READS];
} fake;

static uint64_t mono_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int fake_read(ergo__meter *m, uint64_t *ticks) {
  (void)m;
  int n = __atomic_add_fetch(&fake.reads, 1, __ATOMIC_RELAXED);
  if (fake.fail_every && n % fake.fail_every == 0) return ERGO_EIO;
  fake.pkg += 1000000;
  fake.dram += 250000;
  ticks[0] = fake.pkg;
  ticks[1] = fake.dram;
  if (fake.ok_reads < MAX_READS) fake.at_ns[fake.ok_reads] = mono_ns();
  __atomic_add_fetch(&fake.ok_reads, 1, __ATOMIC_RELAXED);
  return 0;
}
static const ergo__meter_ops fake_ops = {"fake", NULL, fake_read, NULL};

static ergo__meter meter;

static int setup(void **state) {
  memset(&fake, 0, sizeof fake);
  memset(&meter, 0, sizeof meter);
  meter.ops = &fake_ops;
  meter.ndomains = 2;
  snprintf(meter.dom[0].name, sizeof meter.dom[0].name, "package-0");
  meter.dom[0].in_total = 1;
  meter.dom[0].joules_per_tick = 1e-6;
  snprintf(meter.dom[1].name, sizeof meter.dom[1].name, "dram-0");
  meter.dom[1].in_total = 1;
  meter.dom[1].joules_per_tick = 1e-6;
  meter.label = "FAKE";
  pthread_mutex_init(&meter.lock, NULL);
  return test_dir_setup(state);
}
static int teardown(void **state) {
  pthread_mutex_destroy(&meter.lock);
  return test_dir_teardown(state);
}

/* Wait (up to 20 s: a loaded machine is slow, never wrong) until the sampler made `n` reads
 * of its own, besides the one ergo__sampler_start makes. */
static void wait_reads(int n) {
  uint64_t until = mono_ns() + 20000000000ull;
  while (__atomic_load_n(&fake.reads, __ATOMIC_RELAXED) < n + 1 && mono_ns() < until) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  assert_true(__atomic_load_n(&fake.reads, __ATOMIC_RELAXED) >= n + 1);
}

/* Samples come every period, never sooner (the thread waits a whole period after each), and
 * the stop takes one last sample: its count is every successful read but the start's. */
static void test_period_and_count(void **state) {
  (void)state;
  ergo__sampler *s = NULL;
  uint64_t t0 = mono_ns();
  assert_int_equal(ergo__sampler_start(&s, &meter, PERIOD_MS, NULL, NULL), 0);
  assert_non_null(s);
  /* start reads once: the origin of the first sample (read atomically: the thread runs) */
  assert_int_equal(__atomic_load_n(&fake.reads, __ATOMIC_RELAXED), 1);
  wait_reads(5);
  double cost = -1;
  uint64_t t_stop = mono_ns();
  uint64_t n = ergo__sampler_stop(s, &cost);
  uint64_t t1 = mono_ns();
  assert_int_equal(n, (uint64_t)fake.ok_reads - 1);
  assert_int_equal(fake.reads, fake.ok_reads);
  assert_in_range(n, 6, MAX_READS - 1); /* 5 or more periodic samples, and the last one */
  /* Every periodic sample at least one period after the one before (the start's read first). */
  for (uint64_t i = 1; i < n; i++) {
    uint64_t gap = fake.at_ns[i] - fake.at_ns[i - 1];
    if (gap < PERIOD_MS * 1000000ull)
      print_message("sample %llu came %llu ns after the one before\n", (unsigned long long)i,
                    (unsigned long long)gap);
    assert_true(gap >= PERIOD_MS * 1000000ull);
  }
  /* The stop's own sample covers the stretch up to the stop. */
  assert_true(fake.at_ns[n] >= t_stop);
  /* ... so no more of them than the time allows. */
  assert_true(n - 1 <= (t1 - t0) / (PERIOD_MS * 1000000ull));
  assert_true(cost >= 0 && cost < (double)(t1 - t0) * 1e-9);
  /* The meter's cumulative reading saw every read (this one too). */
  double j[ERGO__METER_MAX_DOMAINS];
  assert_int_equal(ergo__meter_read(&meter, j), 0);
  assert_int_equal(fake.ok_reads, n + 2);
  assert_true(fabs(j[0] - (double)(n + 2)) < 1e-9);
  assert_true(fabs(j[1] - 0.25 * (double)(n + 2)) < 1e-9);
  assert_int_equal(ergo__sampler_stop(NULL, NULL), 0);
}

/* One CSV row: time and each domain's watts. */
typedef struct row {
  double t, w[2];
} row;

static int read_csv(const char *path, row *rows, int max) {
  char *text = slurp(path);
  assert_non_null(text);
  const char *head = "time_s,package-0_W,dram-0_W\n";
  assert_memory_equal(text, head, strlen(head));
  int n = 0;
  const char *p = text + strlen(head);
  while (*p) {
    assert_true(n < max);
    int used = 0;
    assert_int_equal(sscanf(p, "%lf,%lf,%lf\n%n", &rows[n].t, &rows[n].w[0], &rows[n].w[1], &used),
                     3);
    const char *nl = strchr(p, '\n');
    assert_non_null(nl); /* every row is whole */
    assert_ptr_equal(p + used, nl + 1);
    p = nl + 1;
    n++;
  }
  assert_int_equal(text[strlen(text) - 1], '\n');
  free(text);
  return n;
}

/* After stop both files are complete and in place (no .tmp left): a CSV row per sample whose
 * watts are the read's joules over the time since the row before, and a Chrome trace that
 * parses, with the process name and one counter event per sample carrying the same figures. */
static void test_files(void **state) {
  (void)state;
  char csv[512], trace[512];
  snprintf(csv, sizeof csv, "%s", test_in_dir("power.csv"));
  snprintf(trace, sizeof trace, "%s", test_in_dir("trace.json"));
  ergo__sampler *s = NULL;
  unsigned long errors = ergo_error_count();
  assert_int_equal(ergo__sampler_start(&s, &meter, PERIOD_MS, csv, trace), 0);
  wait_reads(4);
  uint64_t n = ergo__sampler_stop(s, NULL);
  assert_int_equal(ergo_error_count(), errors);
  assert_int_equal(n, (uint64_t)fake.ok_reads - 1);
  assert_int_equal(test_dir_entries(), 2);

  static row rows[MAX_READS];
  int nrows = read_csv(csv, rows, MAX_READS);
  assert_int_equal(nrows, (int)n);
  double prev = 0;
  for (int i = 0; i < nrows; i++) {
    double dt = rows[i].t - prev;
    assert_true(dt > 0);
    /* 1 J and 0.25 J per sample: W x dt is 1, to the rounding of the printed figures (times to
     * 1 us: dt within 1 us, i.e. W x 1e-6 relative; watts to 0.0005 W).  The stop's sample may
     * come right after the one before. */
    double tol = 1.000001e-6 * rows[i].w[0] + 5e-4 * dt + 1e-12;
    if (fabs(rows[i].w[0] * dt - 1) > tol)
      print_message("row %d: %.6f s, %.3f W after %.6f s\n", i, rows[i].t, rows[i].w[0], dt);
    assert_true(fabs(rows[i].w[0] * dt - 1) <= tol);
    assert_true(fabs(rows[i].w[1] / rows[i].w[0] - 0.25) <= 1e-4);
    prev = rows[i].t;
  }

  char *text = slurp(trace);
  assert_non_null(text);
  size_t len = strlen(text);
  assert_true(len > 4 && strcmp(text + len - 3, "\n]\n") == 0);
  json_error_t err;
  json_t *doc = json_loads(text, 0, &err);
  if (!doc) print_message("%s: line %d: %s\n", trace, err.line, err.text);
  assert_non_null(doc);
  free(text);
  assert_true(json_is_array(doc));
  assert_int_equal(json_array_size(doc), n + 1);
  json_t *meta = json_array_get(doc, 0);
  assert_string_equal(json_string_value(json_object_get(meta, "name")), "process_name");
  assert_string_equal(json_string_value(json_object_get(meta, "ph")), "M");
  assert_int_equal(json_integer_value(json_object_get(meta, "pid")), getpid());
  assert_string_equal(json_string_value(json_object_get(json_object_get(meta, "args"), "name")),
                      "ergo power FAKE");
  for (size_t i = 1; i <= n; i++) {
    json_t *e = json_array_get(doc, i);
    assert_string_equal(json_string_value(json_object_get(e, "name")), "power");
    assert_string_equal(json_string_value(json_object_get(e, "ph")), "C");
    assert_int_equal(json_integer_value(json_object_get(e, "pid")), getpid());
    assert_int_equal(json_integer_value(json_object_get(e, "tid")), 0);
    /* the same sample as the CSV row: microseconds, and the same watts */
    assert_true(fabs(json_number_value(json_object_get(e, "ts")) - rows[i - 1].t * 1e6) <= 1);
    json_t *args = json_object_get(e, "args");
    assert_int_equal(json_object_size(args), 2);
    assert_true(json_number_value(json_object_get(args, "package-0 W")) == rows[i - 1].w[0]);
    assert_true(json_number_value(json_object_get(args, "dram-0 W")) == rows[i - 1].w[1]);
  }
  json_decref(doc);
  unlink(csv);
  unlink(trace);
}

/* A read that fails is no sample: not counted, no row. */
static void test_failed_reads(void **state) {
  (void)state;
  char csv[512];
  snprintf(csv, sizeof csv, "%s", test_in_dir("power.csv"));
  fake.fail_every = 3; /* reads 3, 6, 9, ... (the start's is read 1) */
  ergo__sampler *s = NULL;
  assert_int_equal(ergo__sampler_start(&s, &meter, PERIOD_MS, csv, NULL), 0);
  wait_reads(8);
  uint64_t n = ergo__sampler_stop(s, NULL);
  int failed = fake.reads - fake.ok_reads;
  assert_int_equal(failed, fake.reads / 3);
  assert_true(failed >= 2);
  assert_int_equal(n, (uint64_t)fake.ok_reads - 1);
  static row rows[MAX_READS];
  assert_int_equal(read_csv(csv, rows, MAX_READS), (int)n);
  unlink(csv);
}

/* The temporary files "<path>.tmp.<random>" beside `path`: how many, and the last one's name. */
static int only_tmp_of(const char *path, char *tmp, size_t n) {
  const char *base = strrchr(path, '/') + 1;
  char prefix[300];
  snprintf(prefix, sizeof prefix, "%s.tmp.", base);
  DIR *d = opendir(test_dir);
  int count = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
        strlen(e->d_name) == strlen(prefix) + 16) {
      snprintf(tmp, n, "%s/%s", test_dir, e->d_name);
      count++;
    }
  if (d) closedir(d);
  return count;
}

/* A file that cannot be opened: one warning naming it and what to do, no timeline there, the
 * other file written in full; one that cannot be put in place: one warning, and the samples
 * stay in its .tmp. */
static void test_bad_paths(void **state) {
  (void)state;
  char csv[512], trace[512], want[2400];
  snprintf(csv, sizeof csv, "%s", test_in_dir("missing/power.csv"));
  snprintf(trace, sizeof trace, "%s", test_in_dir("trace.json"));
  ergo__sampler *s = NULL;
  unsigned long errors = ergo_error_count();
  assert_int_equal(ergo__sampler_start(&s, &meter, PERIOD_MS, csv, trace), 0);
  assert_int_equal(ergo_error_count(), errors + 1);
  snprintf(want, sizeof want,
           "cannot write '%s': No such file or directory; no power timeline there (fix: make "
           "the directory writable or choose another path)",
           csv);
  assert_string_equal(ergo_last_error(), want);
  wait_reads(2);
  uint64_t n = ergo__sampler_stop(s, NULL);
  assert_int_equal(ergo_error_count(), errors + 1); /* said once */
  assert_int_equal(n, (uint64_t)fake.ok_reads - 1);
  assert_int_equal(test_dir_entries(), 1); /* the trace alone */
  json_error_t err;
  json_t *doc = json_load_file(trace, 0, &err);
  assert_non_null(doc);
  assert_int_equal(json_array_size(doc), n + 1);
  json_decref(doc);
  unlink(trace);

  /* Both unwritable: two warnings, and the sampler still samples. */
  snprintf(trace, sizeof trace, "%s", test_in_dir("missing/trace.json"));
  fake.reads = fake.ok_reads = 0;
  errors = ergo_error_count();
  assert_int_equal(ergo__sampler_start(&s, &meter, PERIOD_MS, csv, trace), 0);
  wait_reads(1);
  n = ergo__sampler_stop(s, NULL);
  assert_int_equal(ergo_error_count(), errors + 2);
  assert_int_equal(n, (uint64_t)fake.ok_reads - 1);
  assert_int_equal(test_dir_entries(), 0);

  /* The final name is a directory: the rename fails at stop, the samples stay in the .tmp. */
  snprintf(csv, sizeof csv, "%s", test_in_dir("adir"));
  assert_int_equal(mkdir(csv, 0700), 0);
  fake.reads = fake.ok_reads = 0;
  errors = ergo_error_count();
  assert_int_equal(ergo__sampler_start(&s, &meter, PERIOD_MS, csv, NULL), 0);
  wait_reads(1);
  n = ergo__sampler_stop(s, NULL);
  assert_int_equal(ergo_error_count(), errors + 1);
  char tmp[600];
  assert_int_equal(only_tmp_of(csv, tmp, sizeof tmp), 1);
  snprintf(want, sizeof want,
           "writing '%s' failed: Is a directory; the partial timeline is in '%s' (fix: check free "
           "space, or remove '%s' if it is not a regular file)",
           csv, tmp, csv);
  assert_string_equal(ergo_last_error(), want);
  static row rows[MAX_READS];
  assert_int_equal(read_csv(tmp, rows, MAX_READS), (int)n);
  unlink(tmp);
  assert_int_equal(rmdir(csv), 0);
}

/* ERGO_POWER_CSV and ERGO_TRACE in a directory others can write: a link at the final name is
 * refused at stop (its target unchanged, the samples kept in the temporary file), and one at the
 * name the timeline used to grow under (<path>.tmp) is not written through. */
static void test_links_never_followed(void **state) {
  (void)state;
  char csv[512], trace[512], victim[512], victim2[512], old_tmp[600], want[2400];
  snprintf(csv, sizeof csv, "%s", test_in_dir("power.csv"));
  snprintf(trace, sizeof trace, "%s", test_in_dir("trace.json"));
  snprintf(victim, sizeof victim, "%s", test_in_dir("shadow"));
  snprintf(victim2, sizeof victim2, "%s", test_in_dir("passwd"));
  snprintf(old_tmp, sizeof old_tmp, "%s.tmp", trace);
  for (const char *v = victim; v; v = v == victim ? victim2 : NULL) {
    FILE *f = fopen(v, "w");
    fputs("precious\n", f);
    fclose(f);
  }
  assert_int_equal(symlink(victim, csv), 0);
  assert_int_equal(symlink(victim2, old_tmp), 0);
  ergo__sampler *s = NULL;
  unsigned long errors = ergo_error_count();
  assert_int_equal(ergo__sampler_start(&s, &meter, PERIOD_MS, csv, trace), 0);
  wait_reads(2);
  uint64_t n = ergo__sampler_stop(s, NULL);
  assert_int_equal(ergo_error_count(), errors + 1);
  char tmp[600];
  assert_int_equal(only_tmp_of(csv, tmp, sizeof tmp), 1);
  snprintf(want, sizeof want,
           "writing '%s' failed: it is a symbolic link, which ergo never writes through; the "
           "partial timeline is in '%s' (fix: check free space, or remove '%s' if it is not a "
           "regular file)",
           csv, tmp, csv);
  assert_string_equal(ergo_last_error(), want);
  static row rows[MAX_READS];
  assert_int_equal(read_csv(tmp, rows, MAX_READS), (int)n);
  char *text = slurp(victim);
  assert_string_equal(text, "precious\n");
  free(text);
  text = slurp(victim2);
  assert_string_equal(text, "precious\n");
  free(text);
  json_error_t err;
  json_t *doc = json_load_file(trace, 0, &err);
  assert_non_null(doc);
  assert_int_equal(json_array_size(doc), n + 1);
  json_decref(doc);
  unlink(tmp);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_period_and_count, setup, teardown),
      cmocka_unit_test_setup_teardown(test_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_reads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_paths, setup, teardown),
      cmocka_unit_test_setup_teardown(test_links_never_followed, setup, teardown),
  };
  return cmocka_run_group_tests_name("sampler", tests, NULL, NULL);
}
