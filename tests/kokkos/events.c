/* events.c - drives libergo-kokkos's kokkosp_* entry points as Kokkos would (no Kokkos needed),
 * for tests/kokkos.cmake:
 *   events nest      regions, kernels of every kind and a section, nested; ERGO_KOKKOS_STEP
 *   events mismatch  ends and pops that do not match what is open: error lines, no crash, and
 *                    the tree as if the inner things had been closed first
 *   events join      the program starts ergo itself: the tool joins it, leaves it running at
 *                    kokkosp_finalize_library, and the program's own report holds both */
#include "ergo.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void kokkosp_init_library(const int, const uint64_t, const uint32_t, void *);
void kokkosp_finalize_library(void);
void kokkosp_push_profile_region(const char *);
void kokkosp_pop_profile_region(void);
void kokkosp_begin_parallel_for(const char *, const uint32_t, uint64_t *);
void kokkosp_end_parallel_for(const uint64_t);
void kokkosp_begin_parallel_reduce(const char *, const uint32_t, uint64_t *);
void kokkosp_end_parallel_reduce(const uint64_t);
void kokkosp_begin_parallel_scan(const char *, const uint32_t, uint64_t *);
void kokkosp_end_parallel_scan(const uint64_t);
void kokkosp_begin_fence(const char *, const uint32_t, uint64_t *);
void kokkosp_end_fence(const uint64_t);
void kokkosp_create_profile_section(const char *, uint32_t *);
void kokkosp_start_profile_section(const uint32_t);
void kokkosp_stop_profile_section(const uint32_t);
void kokkosp_destroy_profile_section(const uint32_t);

static void nest(void) {
  kokkosp_init_library(0, 20210225, 0, NULL);
  uint32_t sec;
  kokkosp_create_profile_section("solve", &sec);
  for (int step = 0; step < 3; step++) {
    uint64_t a, b, c, f;
    kokkosp_push_profile_region("Timestep");
    kokkosp_push_profile_region("FORCES");
    kokkosp_begin_parallel_for("forces", 0, &a);
    kokkosp_end_parallel_for(a);
    kokkosp_start_profile_section(sec);
    kokkosp_begin_parallel_reduce("energy", 0, &b);
    kokkosp_end_parallel_reduce(b);
    kokkosp_pop_profile_region();
    kokkosp_begin_parallel_scan("prefix", 0, &c);
    kokkosp_begin_fence("fence", 0, &f);
    kokkosp_end_fence(f);
    kokkosp_end_parallel_scan(c);
    kokkosp_stop_profile_section(sec);
    kokkosp_pop_profile_region();
  }
  kokkosp_destroy_profile_section(sec);
  kokkosp_finalize_library();
}

static void mismatch(void) {
  kokkosp_init_library(0, 20210225, 0, NULL);
  uint64_t a, b, c;
  kokkosp_push_profile_region("Outer");
  kokkosp_begin_parallel_for("k_for", 0, &a);
  kokkosp_push_profile_region("InKernel");
  kokkosp_end_parallel_for(a); /* closes InKernel first */
  kokkosp_end_parallel_for(a); /* no longer open */
  kokkosp_end_parallel_for(987654321);
  kokkosp_begin_parallel_reduce("k_reduce", 0, &b);
  kokkosp_begin_parallel_scan("k_scan", 0, &c);
  kokkosp_end_parallel_reduce(b); /* closes k_scan first */
  kokkosp_end_parallel_scan(c);   /* no longer open */
  kokkosp_pop_profile_region();   /* Outer */
  kokkosp_pop_profile_region();   /* nothing open */
  kokkosp_push_profile_region("Left");
  kokkosp_finalize_library(); /* Left still open */
}

static void join(void) {
  if (ergo_init(NULL) != 0) return;
  ergo_push(1, "App");
  kokkosp_init_library(0, 20210225, 0, NULL);
  uint64_t a;
  kokkosp_push_profile_region("KokkosPart");
  kokkosp_begin_parallel_for("k", 0, &a);
  kokkosp_end_parallel_for(a);
  kokkosp_pop_profile_region();
  kokkosp_finalize_library();
  printf("after kokkosp_finalize_library: ergo_initialized %d\n", ergo_initialized());
  ergo_pop(1, "App");
  ergo_finalize();
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "nest"))
    nest();
  else if (!strcmp(what, "mismatch"))
    mismatch();
  else if (!strcmp(what, "join"))
    join();
  else {
    fprintf(stderr, "usage: %s nest|mismatch|join\n", argv[0]);
    return 2;
  }
  return 0;
}
