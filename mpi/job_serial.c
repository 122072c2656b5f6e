/* job_serial.c - the job of a build without MPI: one rank on one node, collectives copy. */
#include "mpi/job.h"

#include "ergo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ergo__job J = {0, 0, 1, 0, 1, 0, 1, 1};

int ergo__job_start(int split, char *why, size_t whylen) {
  (void)split;
  if (why && whylen) why[0] = '\0';
  return 0;
}
void ergo__job_stop(void) {}
int ergo__job_agree(int ok) { return ok; }
const ergo__job *ergo__job_get(void) { return &J; }
int ergo__job_usable(void) { return 0; }

int ergo__job_launched_without_mpi(void) { return ergo__job_launcher_ranks() > 1; }

static int copy(const void *buf, size_t len, char **all, size_t **lens) {
  *all = malloc(len ? len : 1);
  *lens = malloc(sizeof **lens);
  if (!*all || !*lens) {
    free(*all);
    free(*lens);
    *all = NULL;
    *lens = NULL;
    return ERGO_ENOMEM;
  }
  if (len) memcpy(*all, buf, len);
  (*lens)[0] = len;
  return 0;
}

int ergo__job_gather(const void *buf, size_t len, char **all, size_t **lens) {
  return copy(buf, len, all, lens);
}
int ergo__job_node_gather(const void *buf, size_t len, char **all, size_t **lens) {
  return copy(buf, len, all, lens);
}
int ergo__job_node_bcast(char **buf, size_t *len) {
  (void)buf, (void)len;
  return 0;
}
int ergo__job_node_allgather_u64(uint64_t v, uint64_t *all) {
  all[0] = v;
  return 0;
}
int ergo__job_allreduce_sum(double *v, int n) {
  (void)v, (void)n;
  return 0;
}
