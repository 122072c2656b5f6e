/* job_mpi.c - libergo-mpi: the job over MPI, ergo's own communicators (a duplicate of
 * MPI_COMM_WORLD, so its messages never meet the application's), the node by shared memory,
 * pretend nodes, collectives (all through PMPI).  It exports the ops table at the end, which
 * libergo (mpi/job.c) finds at ergo_init, and MPI_Allreduce and MPI_Barrier, which move the sim
 * node's clocks; it calls libergo only through pointers libergo hands it, so it links MPI alone. */
#include "mpi/job_mpi_ops.h"

#include "ergo.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The job layer's state: the job as ergo sees it and ergo's own communicators. */
static struct {
  ergo__job J;
  MPI_Comm world, node;     /* a duplicate of MPI_COMM_WORLD; this rank's node (or pretend node) */
  int alone;                /* another rank failed to start: no more collectives */
  const ergo__job_sim *sim; /* libergo's sim node, while the job runs */
} M = {{0, 0, 1, 0, 1, 0, 1, 1}, MPI_COMM_NULL, MPI_COMM_NULL, 0, NULL};

static const ergo__job *get(void) { return &M.J; }

static int usable(void) {
  if (!M.J.mpi || M.alone) return 0;
  int fin = 0;
  PMPI_Finalized(&fin);
  return !fin;
}

static void serial(void) {
  M.J = (ergo__job){0, 0, 1, 0, 1, 0, 1, 1};
  M.alone = 0;
  M.world = M.node = MPI_COMM_NULL;
  M.sim = NULL;
}

static int start(int split, const ergo__job_sim *sim, char *why, size_t whylen) {
  if (why && whylen) why[0] = '\0';
  serial();
  M.sim = sim;
  int init = 0, fin = 0;
  PMPI_Initialized(&init);
  PMPI_Finalized(&fin);
  if (!init || fin) return 0;
  MPI_Comm shm = MPI_COMM_NULL;
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &M.world) != MPI_SUCCESS ||
      PMPI_Comm_set_errhandler(M.world, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
    snprintf(why, whylen, "MPI_Comm_dup(MPI_COMM_WORLD) failed");
    serial();
    return ERGO_EIO;
  }
  PMPI_Comm_rank(M.world, &M.J.rank);
  PMPI_Comm_size(M.world, &M.J.size);
  M.J.split = split > 0 ? split : 1;
  if (PMPI_Comm_split_type(M.world, MPI_COMM_TYPE_SHARED, M.J.rank, MPI_INFO_NULL, &shm) !=
      MPI_SUCCESS) {
    snprintf(why, whylen, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
    PMPI_Comm_free(&M.world);
    serial();
    return ERGO_EIO;
  }
  int srank, ssize;
  PMPI_Comm_rank(shm, &srank);
  PMPI_Comm_size(shm, &ssize);
  /* Pretend nodes: contiguous blocks of the real node's ranks. */
  int parts = M.J.split < ssize ? M.J.split : ssize;
  int color = (int)((long)srank * parts / ssize);
  PMPI_Comm_split(shm, color, srank, &M.node);
  PMPI_Comm_free(&shm);
  PMPI_Comm_rank(M.node, &M.J.node_rank);
  PMPI_Comm_size(M.node, &M.J.node_size);
  /* Nodes are numbered in the order of their leaders' world ranks. */
  MPI_Comm leaders = MPI_COMM_NULL;
  PMPI_Comm_split(M.world, M.J.node_rank == 0 ? 0 : MPI_UNDEFINED, M.J.rank, &leaders);
  int idx[2] = {0, 0};
  if (leaders != MPI_COMM_NULL) {
    PMPI_Comm_rank(leaders, &idx[0]);
    PMPI_Comm_size(leaders, &idx[1]);
    PMPI_Comm_free(&leaders);
  }
  PMPI_Bcast(idx, 2, MPI_INT, 0, M.node);
  M.J.node = idx[0];
  M.J.nnodes = idx[1];
  M.J.mpi = 1;
  return 0;
}

static int agree(int ok) {
  if (!usable()) return ok;
  int all = ok;
  if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, M.world) != MPI_SUCCESS) all = 0;
  if (!all) M.alone = 1;
  return all;
}

static void stop(void) {
  int fin = 1;
  if (M.J.mpi) PMPI_Finalized(&fin);
  if (!fin) {
    if (M.node != MPI_COMM_NULL) PMPI_Comm_free(&M.node);
    if (M.world != MPI_COMM_NULL) PMPI_Comm_free(&M.world);
  }
  serial();
}

/* Gather variable-length buffers to rank 0 of comm. */
static int gatherv(MPI_Comm comm, const void *buf, size_t len, char **all, size_t **lensp) {
  int rank, size;
  *all = NULL;
  *lensp = NULL;
  if (len > INT_MAX) return ERGO_EINVAL;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int mylen = (int)len, *lens = NULL, *displs = NULL;
  if (rank == 0) {
    lens = calloc((size_t)size, sizeof *lens);
    displs = calloc((size_t)size, sizeof *displs);
    *lensp = calloc((size_t)size, sizeof **lensp);
  }
  /* Every rank takes part even when rank 0 ran out of memory; it then reports. */
  int fail = rank == 0 && (!lens || !displs || !*lensp);
  int rc = PMPI_Gather(&mylen, 1, MPI_INT, fail ? NULL : lens, 1, MPI_INT, 0, comm);
  long total = 0;
  if (rank == 0 && !fail) {
    for (int r = 0; r < size; r++) {
      displs[r] = (int)total;
      total += lens[r];
      (*lensp)[r] = (size_t)lens[r];
    }
    if (total > INT_MAX || !(*all = malloc(total ? (size_t)total : 1))) fail = 1;
  }
  PMPI_Bcast(&fail, 1, MPI_INT, 0, comm);
  if (!fail && rc == MPI_SUCCESS)
    rc = PMPI_Gatherv(buf, mylen, MPI_BYTE, *all, lens, displs, MPI_BYTE, 0, comm);
  free(lens);
  free(displs);
  if (fail || rc != MPI_SUCCESS) {
    free(*all);
    free(*lensp);
    *all = NULL;
    *lensp = NULL;
    return fail ? ERGO_ENOMEM : ERGO_EIO;
  }
  return 0;
}

static int gather(const void *buf, size_t len, char **all, size_t **lens) {
  if (!usable()) return ERGO_ESTATE;
  return gatherv(M.world, buf, len, all, lens);
}

static int node_gather(const void *buf, size_t len, char **all, size_t **lens) {
  if (!usable()) return ERGO_ESTATE;
  return gatherv(M.node, buf, len, all, lens);
}

static int node_bcast(char **buf, size_t *len) {
  if (!usable()) return ERGO_ESTATE;
  long n = M.J.node_rank == 0 ? (long)*len : 0;
  if (n > INT_MAX) n = -1; /* too large: every rank hears so and gives up */
  PMPI_Bcast(&n, 1, MPI_LONG, 0, M.node);
  if (n < 0) return ERGO_EINVAL;
  if (M.J.node_rank != 0) {
    *buf = malloc(n ? (size_t)n : 1);
    *len = (size_t)n;
  }
  /* Every rank says whether it has room before the bytes move, so nobody waits alone. */
  int ok = *buf != NULL;
  PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, M.node);
  if (!ok) return ERGO_ENOMEM;
  return PMPI_Bcast(*buf, (int)n, MPI_BYTE, 0, M.node) == MPI_SUCCESS ? 0 : ERGO_EIO;
}

static int node_allgather_u64(uint64_t v, uint64_t *all) {
  if (!usable()) {
    all[0] = v;
    return 0;
  }
  unsigned long long x = v, *out = (unsigned long long *)all;
  return PMPI_Allgather(&x, 1, MPI_UNSIGNED_LONG_LONG, out, 1, MPI_UNSIGNED_LONG_LONG, M.node) ==
                 MPI_SUCCESS
             ? 0
             : ERGO_EIO;
}

static int allreduce_sum(double *v, int n) {
  if (!usable()) return 0;
  return PMPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, M.world) == MPI_SUCCESS ? 0
                                                                                         : ERGO_EIO;
}

/* The application's collectives on the sim node: PMPI does the work, then the participants
 * (comm's ranks) agree on the latest virtual clock and the others wait until it, idle.  Only
 * while ergo runs over MPI with the sim node on, which every rank agreed on at ergo_init, so all
 * of comm's ranks take part in the extra allreduce or none does. */
static void sim_meet(MPI_Comm comm) {
  if (!M.sim || !M.J.mpi || M.alone || !M.sim->active()) return;
  double mine = (double)M.sim->now_ns() * 1e-9, last = mine;
  if (PMPI_Allreduce(&mine, &last, 1, MPI_DOUBLE, MPI_MAX, comm) == MPI_SUCCESS && last > mine)
    M.sim->wait(last - mine);
}

ERGO_EXPORT int MPI_Barrier(MPI_Comm comm) {
  int rc = PMPI_Barrier(comm);
  if (rc == MPI_SUCCESS) sim_meet(comm);
  return rc;
}

ERGO_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm) {
  int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  if (rc == MPI_SUCCESS) sim_meet(comm);
  return rc;
}

/* The MPI this file is compiled against, as its MPI_Get_library_version string begins: Open MPI
 * changes its ABI with the major version; MPICH, Intel MPI and MVAPICH share MPICH's. */
#define ERGO_STR_(x) #x
#define ERGO_STR(x) ERGO_STR_(x)
#if defined(OMPI_MAJOR_VERSION)
#define ERGO_MPI_BUILT "Open MPI v" ERGO_STR(OMPI_MAJOR_VERSION) "."
#elif defined(MPICH_VERSION)
#define ERGO_MPI_BUILT "MPICH|Intel(R) MPI|MVAPICH"
#else
#define ERGO_MPI_BUILT "" /* unknown: libergo accepts none */
#endif

ERGO_EXPORT const ergo__job_mpi_table ergo__job_mpi_ops = {ERGO__JOB_MPI_ABI,
                                                           sizeof(ergo__job_mpi_table),
                                                           ERGO_MPI_BUILT,
                                                           start,
                                                           stop,
                                                           agree,
                                                           get,
                                                           usable,
                                                           gather,
                                                           node_gather,
                                                           node_bcast,
                                                           node_allgather_u64,
                                                           allreduce_sum};
