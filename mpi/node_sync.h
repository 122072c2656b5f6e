/* node_sync.h - the node sync's wire protocol: at ergo_step every rank's measurements since the
 * last step go to node rank 0 as records, whose policy decides; its decision table comes back to
 * every rank of the node in the same records. */
#ifndef ERGO_MPI_NODE_SYNC_H
#define ERGO_MPI_NODE_SYNC_H

#include "optimizer/space.h"
#include "util/buf.h"

#include <stddef.h>
#include <stdint.h>

/* A record: a region's path, then its figures (a rank's executions going to node rank 0; n == 0
 * in the decision table coming back, where config is the node's choice). */
typedef struct ergo__sync_record {
  uint64_t n, e_n; /* executions; those with energy measured */
  double t, e, r;  /* sums of exclusive time, energy, resource */
  double pt;       /* of t, the time of descendants the node has not judged yet */
  int64_t config[ERGO__SPACE_DIMS];
  int32_t mixed, significant, decided;
  /* The most threads of the sender (its share of the node's cores; 0: no thread knob): in the
   * decision table node rank 0's, the scale of config's threads, which every rank runs as the
   * same share of its own. */
  int32_t cores;
} ergo__sync_record;

/* Append one record to b (b->fail on no memory). */
void ergo__sync_put(ergo__buf *b, const char *path, const ergo__sync_record *w);
/* The next record of buf[*off..end): its path (inside buf) and figures; NULL at the end or on a
 * malformed record. */
const char *ergo__sync_get(const char *buf, size_t end, size_t *off, ergo__sync_record *w);

/* Node rank 0's side: every rank's records (all, lens[nranks]) in, the decision table out
 * (malloc'd, *out_len bytes; NULL on no memory). */
typedef char *(*ergo__sync_lead_fn)(void *ctx, const char *all, const size_t *lens, int nranks,
                                    size_t *out_len);

/* Collective within the node: mine goes to node rank 0, where lead() makes the table, which
 * comes back to every rank as *table (malloc'd, *tlen bytes; the caller frees).  Every rank joins
 * the broadcast even when the gather failed, so none waits alone.  0, or ERGO_E* with *table
 * NULL. */
int ergo__node_sync(const void *mine, size_t len, ergo__sync_lead_fn lead, void *ctx, char **table,
                    size_t *tlen);

#endif
