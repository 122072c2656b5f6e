/* pmpi.c - libergo-mpi-auto: ergo_init right after MPI_Init and ergo_finalize right before
 * MPI_Finalize, through the MPI profiling interface, so that an MPI code gets one merged report
 * over all ranks without calling ergo_init/ergo_finalize itself.
 *
 * Use: link it before the MPI library (cc app.c -lergo-mpi-auto -lergo -lmpi), or run an
 * unmodified MPI binary with LD_PRELOAD=libergo-mpi-auto.so (a binary without ERGO_PUSH/ERGO_POP
 * annotations gets the Global total: the job's wall time and energy).  A code that uses it must
 * not call ergo_init itself (ergo is already running: that call returns ERGO_ESTATE with a
 * warning and its configuration is ignored); ERGO_MPI_AUTO=0 turns the interception off at run
 * time for such a code.  ergo_init(NULL) takes its settings from the ERGO_* environment.
 *
 * C bindings only: MPI_Init, MPI_Init_thread, MPI_Finalize.  A Fortran code's MPI_INIT goes
 * through Open MPI's Fortran library straight to PMPI_Init and is not seen here. */
#include "ergo.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when MPI_Init* here started ergo: only then does MPI_Finalize here stop it. */
static int started;

/* ERGO_MPI_AUTO=0|1 (default 1).  A bad value is one line from world rank 0 (every rank reads
 * the same environment) and the default. */
static int auto_enabled(void) {
  const char *v = getenv("ERGO_MPI_AUTO");
  if (!v || strcmp(v, "1") == 0) return 1;
  if (strcmp(v, "0") == 0) return 0;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    fprintf(stderr,
            "ergo: warning: ERGO_MPI_AUTO='%s' is not valid: expected 0 (off) or 1 (ergo_init "
            "at MPI_Init, ergo_finalize at MPI_Finalize); keeping 1\n",
            v);
    fflush(stderr);
  }
  return 1;
}

/* libergo's (core/lifecycle.c): a later ergo_init by the code then names this library. */
void ergo__started_by(const char *who);

/* After a successful PMPI_Init*: start ergo unless it runs already or is switched off. */
static void start_ergo(void) {
  if (!auto_enabled() || ergo_initialized()) return;
  int rc = ergo_init(NULL);
  if (rc == 0) {
    started = 1;
    ergo__started_by("libergo-mpi-auto");
    return;
  }
  fprintf(stderr,
          "ergo: error: ergo_init at MPI_Init failed: %s; this rank runs without ergo (fix: "
          "the ergo warning above, if any, names the cause; ERGO_MPI_AUTO=0 turns this off)\n",
          ergo_strerror(rc));
  fflush(stderr);
}

ERGO_EXPORT int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) start_ergo();
  return rc;
}

ERGO_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) start_ergo();
  return rc;
}

/* ergo_finalize is collective over the ranks (rank 0 merges the report), so it runs while MPI
 * still works. */
ERGO_EXPORT int MPI_Finalize(void) {
  if (started && ergo_initialized()) {
    int rc = ergo_finalize();
    if (rc)
      fprintf(stderr,
              "ergo: error: ergo_finalize at MPI_Finalize: %s; a report may be missing (the "
              "lines above say which)\n",
              ergo_strerror(rc));
  }
  started = 0;
  return PMPI_Finalize();
}
