/* main.c - a minimal ergo user: three regions, the report on stdout, "ok" at the end; it includes
 * both installed headers and calls each once. */
#include <ergo.h>
#include <ergo_sim.h>

#include <stdio.h>
#include <string.h>

static double work(int n) {
  volatile double x = 0;
  for (int i = 0; i < n; i++) x += i * 0.5;
  return x;
}

int main(void) {
  int rc = ergo_init(NULL);
  if (rc) {
    fprintf(stderr, "consumer: ergo_init: %s\n", ergo_strerror(rc));
    return 1;
  }
  ERGO_PUSH(1, "package_outer");
  ERGO_PUSH(2, "package_a");
  work(100000);
  ERGO_POPPUSH(2, "package_a", "package_b");
  work(100000);
  ERGO_POP(2, "package_b");
  ERGO_POP(1, "package_outer");
  if (ergo_error_count()) {
    fprintf(stderr, "consumer: unexpected region error: %s\n", ergo_last_error());
    return 1;
  }
  /* ergo_sim.h from the install: the sim node runs only when asked for (or no meter works). */
  ergo_sim_work_desc none = {0, 0, 0};
  rc = ergo_sim_work(&none);
  if (rc != 0 && rc != ERGO_ESTATE) {
    fprintf(stderr, "consumer: ergo_sim_work: %s\n", ergo_strerror(rc));
    return 1;
  }
  if ((rc = ergo_finalize())) {
    fprintf(stderr, "consumer: ergo_finalize: %s\n", ergo_strerror(rc));
    return 1;
  }
  printf("consumer: ergo %s ok\n", ERGO_VERSION_STRING);
  return 0;
}
