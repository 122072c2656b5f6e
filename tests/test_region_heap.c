/* test_region_heap.c - many regions leave the application's heap as they found it: the lookup
 * tables grow without freeing blocks glibc mapped, which would raise its mmap threshold (and trim
 * threshold) under the application.  A program of its own: glibc's thresholds are per process. */
#include "test_util.h"

#include "internal.h"

#include <malloc.h>
#include <pthread.h>

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)

#define PROBE_BYTES (200 * 1024) /* above glibc's default mmap threshold (128 KiB) */
#define NREGIONS 40000           /* tables of 128 KiB and more, grown and freed on the way */

/* Whether malloc serves a PROBE_BYTES block with a mapping of its own: it does while glibc's
 * mmap threshold is at its default (and the heap has no free block that large); it no longer does
 * once a larger mapped block was freed.  The probes are freed at the end only (freeing one would
 * raise the threshold itself). */
static char *probes[4];
static int nprobes;
static int probe_mapped(void) {
  size_t before = mallinfo2().hblks;
  char *p = malloc(PROBE_BYTES);
  assert_non_null(p);
  p[0] = 1;
  probes[nprobes++] = p;
  return mallinfo2().hblks == before + 1;
}

static void many_regions(const char *prefix) {
  char name[32];
  ERGO_PUSH(1, "parent");
  for (int k = 0; k < NREGIONS; k++) {
    snprintf(name, sizeof name, "%s%d", prefix, k);
    region_ms(2, name, 1);
  }
  ERGO_POP(1, "parent");
}

static void *thread_regions(void *arg) {
  many_regions(arg); /* names interned already: only this thread's tree grows */
  return NULL;
}

static void test_tables_leave_thresholds(void **state) {
  (void)state;
  if (!probe_mapped()) skip_because("malloc does not map a 200 KiB block here (MALLOC_ tunables?)");
  test_init_default();
  many_regions("heap_region_"); /* the interned names' table and the main tree's */
  assert_true(probe_mapped());
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, thread_regions, "heap_region_"), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  assert_true(probe_mapped());
  assert_int_equal(ergo__g.ntrees, 2);
  assert_int_equal(ergo_error_count(), 0);
  /* (Not probed after finalize: the freed node chunks leave room in the heap for the probe.) */
  assert_int_equal(ergo_finalize(), 0);
  while (nprobes) free(probes[--nprobes]);
}

int main(void) {
  const struct CMUnitTest tests[] = {ERGO_TEST(test_tables_leave_thresholds)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void) {
  printf("SKIPPED: a sanitizer's allocator replaces glibc's malloc, whose thresholds this tests\n");
  return 77;
}
#endif
