/* job.c - the job as libergo sees it.  libergo links no MPI: a process that runs MPI (PMPI_Init
 * is among its symbols) and has initialised it at ergo_init gets the job from libergo-mpi's ops
 * table (mpi/job_mpi_ops.h), found in this order: linked into the program (the weak reference:
 * a static link with -Wl,-u,ergo__job_mpi_ops), loaded in the process (dlsym), libergo-mpi beside
 * libergo (dladdr), libergo-mpi by its soname on the library path.  Any other process is a job
 * of one rank on one node, whose collectives copy. */
#include "mpi/job.h"

#include "ergo.h"
#include "ergo_sim.h"
#include "mpi/job_mpi_ops.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ERGO_MPI_SONAME
#define ERGO_MPI_SONAME "libergo-mpi.so.1"
#endif

/* Defined when libergo-mpi is linked into the program (or into a library loaded with it). */
extern const ergo__job_mpi_table ergo__job_mpi_ops __attribute__((weak, visibility("default")));

static const ergo__job one = {0, 0, 1, 0, 1, 0, 1, 1};
/* The table while the job runs over MPI, else NULL. */
static const ergo__job_mpi_table *ops;
/* ergo__job_leave: no more MPI calls (the table stays for the job's rank and node). */
static int left;

/* A symbol of the process's MPI, by name (NULL without MPI). */
static void *mpi_sym(const char *name) { return dlsym(RTLD_DEFAULT, name); }

/* MPI_Initialized / MPI_Finalized of the process's MPI: the same signature in every MPI. */
static int mpi_flag(const char *name) {
  void *p = mpi_sym(name);
  int (*fn)(int *);
  int flag = 0;
  if (!p) return 0;
  memcpy(&fn, &p, sizeof fn);
  fn(&flag);
  return flag;
}

/* 1 when the process's MPI is one of those in list ('|'-separated prefixes of its library
 * version string); else 0 and the running MPI's first line in running. */
static int mpi_matches(const char *list, char *running, size_t rlen) {
  void *p = mpi_sym("MPI_Get_library_version");
  snprintf(running, rlen, "an MPI without MPI_Get_library_version");
  if (!p || !list) return 0;
  int (*fn)(char *, int *);
  memcpy(&fn, &p, sizeof fn);
  static char version[8192]; /* MPICH's MPI_MAX_LIBRARY_VERSION_STRING; Open MPI's is 256 */
  int len = 0;
  if (fn(version, &len) != 0) return 0;
  version[sizeof version - 1] = '\0';
  snprintf(running, rlen, "%.*s", (int)strcspn(version, ",\n"), version);
  for (const char *s = list; *s;) {
    size_t n = strcspn(s, "|");
    if (n && strncmp(version, s, n) == 0) return 1;
    s += n + (s[n] == '|');
  }
  return 0;
}

/* libergo-mpi's table, checked; NULL and a line in why when none is usable. */
static const ergo__job_mpi_table *find_ops(char *why, size_t whylen) {
  const ergo__job_mpi_table *t = &ergo__job_mpi_ops;
  void *handle = NULL;
  if (!t) t = mpi_sym("ergo__job_mpi_ops");
  if (!t) {
    /* Beside libergo (the installed lib/, the build tree), then on the library path. */
    char dir[4096] = "";
    Dl_info self;
    if (dladdr((void *)&ergo__job_start, &self) && self.dli_fname) {
      const char *slash = strrchr(self.dli_fname, '/');
      if (slash) {
        char path[4096 + 64];
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - self.dli_fname), self.dli_fname);
        snprintf(path, sizeof path, "%s/%s", dir, ERGO_MPI_SONAME);
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!handle && access(path, F_OK) == 0) {
          /* There, but unusable (another architecture, a missing MPI library, ...). */
          const char *e = dlerror();
          snprintf(why, whylen, "%s cannot be loaded (%s); fix: reinstall ergo", path,
                   e ? e : "dlopen failed");
          return NULL;
        }
      }
    }
    if (!handle && !(handle = dlopen(ERGO_MPI_SONAME, RTLD_NOW | RTLD_LOCAL))) {
      snprintf(why, whylen,
               "%s is neither beside libergo (in %s) nor on the library path; fix: link the "
               "program with -lergo-mpi (ergo::ergo_mpi, pkg-config ergo-mpi) or install "
               "libergo-mpi beside libergo",
               ERGO_MPI_SONAME, dir[0] ? dir : "an unknown directory");
      return NULL;
    }
    t = dlsym(handle, "ergo__job_mpi_ops");
    if (!t) {
      snprintf(why, whylen,
               "the loaded %s has no ergo__job_mpi_ops; fix: install libergo-mpi from the build "
               "of this libergo",
               ERGO_MPI_SONAME);
      dlclose(handle);
      return NULL;
    }
  }
  char running[160];
  if (t->abi != ERGO__JOB_MPI_ABI || t->size < sizeof *t)
    snprintf(why, whylen,
             "libergo-mpi's job ABI is %d but this libergo's is %d; fix: install libergo and "
             "libergo-mpi from the same ergo build",
             t->abi, ERGO__JOB_MPI_ABI);
  else if (!mpi_matches(t->mpi, running, sizeof running))
    snprintf(why, whylen,
             "libergo-mpi is built for %s but this process runs %s; fix: build ergo against the "
             "MPI the program uses",
             t->mpi ? t->mpi : "no MPI", running);
  else
    return t;
  if (handle) dlclose(handle);
  return NULL;
}

int ergo__job_start(int split, char *why, size_t whylen) {
  if (why && whylen) why[0] = '\0';
  ops = NULL;
  left = 0;
  /* Not an MPI process, or MPI not (or no longer) initialised: one rank. */
  if (!mpi_sym("PMPI_Init") || !mpi_flag("MPI_Initialized") || mpi_flag("MPI_Finalized")) return 0;
  const ergo__job_mpi_table *t = find_ops(why, whylen);
  if (!t) return ERGO_EIO;
  static const ergo__job_sim sim = {ergo_sim_active, ergo_now_ns, ergo_sim_wait};
  int rc = t->start(split, &sim, why, whylen);
  if (rc < 0) return rc;
  if (t->get()->mpi) ops = t;
  return 0;
}

void ergo__job_stop(void) {
  if (ops && !left) ops->stop();
  ops = NULL;
  left = 0;
}

void ergo__job_leave(void) { left = ops != NULL; }

int ergo__job_agree(int ok) { return ops && !left ? ops->agree(ok) : ok; }
const ergo__job *ergo__job_get(void) { return ops ? ops->get() : &one; }
int ergo__job_usable(void) { return ops && !left ? ops->usable() : 0; }

int ergo__job_launched_without_mpi(void) {
  if (mpi_flag("MPI_Initialized") && !mpi_flag("MPI_Finalized")) return !ops;
  return !ops && ergo__job_launcher_ranks() > 1;
}

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

/* After ergo__job_leave the collectives fail as libergo-mpi's do once MPI is finalised. */
int ergo__job_gather(const void *buf, size_t len, char **all, size_t **lens) {
  if (left) {
    *all = NULL;
    *lens = NULL;
    return ERGO_ESTATE;
  }
  return ops ? ops->gather(buf, len, all, lens) : copy(buf, len, all, lens);
}
int ergo__job_node_gather(const void *buf, size_t len, char **all, size_t **lens) {
  if (left) {
    *all = NULL;
    *lens = NULL;
    return ERGO_ESTATE;
  }
  return ops ? ops->node_gather(buf, len, all, lens) : copy(buf, len, all, lens);
}
int ergo__job_node_bcast(char **buf, size_t *len) {
  if (left) return ERGO_ESTATE;
  return ops ? ops->node_bcast(buf, len) : 0;
}
int ergo__job_node_allgather_u64(uint64_t v, uint64_t *all) {
  if (ops && !left) return ops->node_allgather_u64(v, all);
  all[0] = v;
  return 0;
}
int ergo__job_allreduce_sum(double *v, int n) {
  return ops && !left ? ops->allreduce_sum(v, n) : 0;
}
