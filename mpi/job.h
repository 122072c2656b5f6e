/* job.h - the MPI job as ergo sees it: world rank and size, the node (ranks that share memory, or
 * a pretend node under ERGO_NODE_SPLIT), and the few collectives ergo needs.  A build without MPI,
 * or a run that never called MPI_Init, is a job of one rank on one node. */
#ifndef ERGO_MPI_JOB_H
#define ERGO_MPI_JOB_H

#include <stddef.h>
#include <stdint.h>

typedef struct ergo__job {
  int mpi;                  /* 1: MPI was initialised at ergo_init and ergo talks over it */
  int rank, size;           /* in MPI_COMM_WORLD */
  int node, nnodes;         /* this rank's node (0 = the node of rank 0), nodes in the job */
  int node_rank, node_size; /* within the node; node_rank 0 leads it */
  int split;                /* ERGO_NODE_SPLIT: pretend nodes per real node (1 = none) */
} ergo__job;

/* Look at MPI: when it is initialised (and not finalised), duplicate the world communicator,
 * group ranks by shared memory and split each real node into `split` pretend nodes.  Otherwise
 * one rank.  Never fails: a problem is one line in why and the job is serial (returns < 0). */
int ergo__job_start(int split, char *why, size_t whylen);
void ergo__job_stop(void);
/* Collective over the job: 1 when every rank passes ok = 1.  When some rank did not, the others
 * stop using MPI (ergo__job_usable() becomes 0: they report on their own) and 0 is returned. */
int ergo__job_agree(int ok);
const ergo__job *ergo__job_get(void);
/* 1 while ergo may still call MPI (started over MPI, MPI not yet finalised, not left). */
int ergo__job_usable(void);
/* This rank makes no more MPI calls, whatever MPI's state: at exit without ergo_finalize it may
 * be the only rank ending (an error exit), and a collective would wait for the others forever.
 * From here ergo__job_usable() is 0, the collectives fail with ERGO_ESTATE as after
 * MPI_Finalize, and ergo__job_stop frees nothing of MPI's (the process is ending). */
void ergo__job_leave(void);
/* 1 when MPI_Init ran but MPI was not initialised at ergo_init (ergo_init came first), or the
 * launcher says this is one of several ranks while MPI is not initialised. */
int ergo__job_launched_without_mpi(void);
/* Ranks the launcher says it started (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_SIZE), else 1. */
int ergo__job_launcher_ranks(void);

/* World gather to rank 0: every rank sends len bytes; rank 0 gets a malloc'd concatenation in
 * all[0] and every rank's length in lens[0][size] (malloc'd too).  Collective.  0 or ERGO_E*. */
int ergo__job_gather(const void *buf, size_t len, char **all, size_t **lens);
/* The same within the node, to node rank 0. */
int ergo__job_node_gather(const void *buf, size_t len, char **all, size_t **lens);
/* Node rank 0's buffer to every rank of the node: on the others *buf and *len are replaced by a
 * malloc'd copy (the caller frees).  Collective within the node. */
int ergo__job_node_bcast(char **buf, size_t *len);
/* Every rank's value within the node, in node-rank order (all[node_size]). */
int ergo__job_node_allgather_u64(uint64_t v, uint64_t *all);
/* Sum over the job, delivered on every rank. */
int ergo__job_allreduce_sum(double *v, int n);

/* Readers of the node's energy domains: for package p (bit p of the masks), the lowest node rank
 * whose CPUs lie on p, else node rank 0.  masks[node_size] are the ranks' package masks.  Returns
 * the mask of packages `node_rank` reads; *reads_unbound is 1 for the rank that also reads
 * domains of no package (psys) and packages no rank covers: node rank 0. */
uint64_t ergo__job_elect(const uint64_t *masks, int node_size, int node_rank, int *reads_unbound);

#endif
