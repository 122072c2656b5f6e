/* node_sync.c - the node sync's wire protocol and its collective: records to node rank 0, the
 * decision table back. */
#include "mpi/node_sync.h"

#include "mpi/job.h"

#include <stdlib.h>
#include <string.h>

void ergo__sync_put(ergo__buf *b, const char *path, const ergo__sync_record *w) {
  uint32_t pl = (uint32_t)strlen(path) + 1;
  ergo__buf_put(b, &pl, sizeof pl);
  ergo__buf_put(b, path, pl);
  ergo__buf_put(b, w, sizeof *w);
}

const char *ergo__sync_get(const char *buf, size_t end, size_t *off, ergo__sync_record *w) {
  uint32_t pl;
  if (end - *off < sizeof pl) return NULL;
  memcpy(&pl, buf + *off, sizeof pl);
  if (pl == 0 || end - *off - sizeof pl < (size_t)pl + sizeof *w) return NULL;
  const char *path = buf + *off + sizeof pl;
  if (path[pl - 1] != '\0') return NULL;
  memcpy(w, path + pl, sizeof *w);
  *off += sizeof pl + pl + sizeof *w;
  return path;
}

int ergo__node_sync(const void *mine, size_t len, ergo__sync_lead_fn lead, void *ctx, char **table,
                    size_t *tlen) {
  const ergo__job *job = ergo__job_get();
  int leader = job->node_rank == 0;
  char *all = NULL;
  size_t *lens = NULL;
  *table = NULL;
  *tlen = 0;
  int rc = ergo__job_node_gather(mine ? mine : "", len, &all, &lens);
  if (rc == 0 && leader) *table = lead(ctx, all, lens, job->node_size, tlen);
  free(all);
  free(lens);
  if (leader && !*table) *table = calloc(1, 1), *tlen = 0;
  rc = ergo__job_node_bcast(table, tlen);
  if (rc) {
    free(*table);
    *table = NULL;
    *tlen = 0;
  }
  return rc;
}
