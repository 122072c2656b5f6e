/* work_counter.c - a real node's work counter, for ERGO_WORK=instructions: instructions retired in
 * user space by every thread of the process, counted by perf_event_open(2) (the generic
 * PERF_COUNT_HW_INSTRUCTIONS event, inherited by each thread created after it opens) and read with
 * read(2) on the main thread, which sums the threads' counts.  The tuner divides a region's time
 * and energy by the instructions it retired (policies/work.c), so configs are compared on
 * like-for-like work where a region's work changes.  Not on by default: a thread that waits
 * spinning (an OpenMP barrier under OMP_WAIT_POLICY=active, MPI polling) retires instructions
 * that are no work, and how many depends on the setting being tried (README, Work and change). */
#include "energy/work_counter.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define CPU_PMU "/sys/bus/event_source/devices/cpu"

static int fd = -1;
static int threads_before;

/* Threads of this process now, from /proc/self/task; 0 when unknown. */
static int threads_now(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static void say_why(int err, uint32_t type, char *why, size_t n) {
  const char *what = type == PERF_TYPE_HARDWARE ? "instructions retired" : "the counter";
  if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
    snprintf(why, n,
             "perf counts no %s on this machine (%s: %s); fix: run on a node that has it, "
             "or leave ERGO_WORK unset",
             what, strerror(err),
             access(CPU_PMU, F_OK) != 0
                 ? "no hardware performance counters, " CPU_PMU " is missing, as in a VM without a "
                   "virtual PMU"
                 : "the CPU's performance monitoring unit has no such event");
  else if (err == EACCES || err == EPERM) {
    int paranoid = -99;
    FILE *f = fopen(PARANOID, "r");
    if (f) {
      if (fscanf(f, "%d", &paranoid) != 1) paranoid = -99;
      fclose(f);
    }
    snprintf(why, n,
             "perf refused to count %s for this process (%s; %s is %d); fix: `sysctl "
             "kernel.perf_event_paranoid=2` (counting one's own process in user space), or "
             "CAP_PERFMON",
             what, strerror(err), PARANOID, paranoid);
  } else if (err == ENOSYS)
    snprintf(why, n,
             "perf_event_open is not available (%s: a container's seccomp filter or a kernel "
             "without perf events); fix: allow perf_event_open, or leave ERGO_WORK unset",
             strerror(err));
  else
    snprintf(why, n, "perf could not count %s (%s)", what, strerror(err));
}

/* A counter of (type, config) for this thread and the threads it creates from now on: its
 * descriptor, or -1 with why said. */
static int open_event(uint32_t type, uint64_t config, char *why, size_t n) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = type;
  a.config = config;
  a.inherit = 1; /* every thread created from now on, summed by read() */
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  long r = syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1 /* any CPU */, -1,
                   PERF_FLAG_FD_CLOEXEC);
  if (r < 0) say_why(errno, type, why, n);
  return r < 0 ? -1 : (int)r;
}

int ergo__work_counter_open(uint32_t type, uint64_t config, char *why, size_t n) {
  ergo__work_counter_stop();
  int before = threads_now();
  fd = open_event(type, config, why, n);
  if (fd < 0) return -1;
  threads_before = before > 1 ? before - 1 : 0;
  if (ergo__work_counter_read() < 0) {
    snprintf(why, n, "perf opened the counter but reading it failed (%s)", strerror(errno));
    ergo__work_counter_stop();
    return -1;
  }
  return 0;
}

int ergo__work_counter_probe(char *why, size_t n) {
  int f = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, why, n);
  if (f < 0) return -1;
  close(f);
  return 0;
}

int ergo__work_counter_start(char *why, size_t n) {
  return ergo__work_counter_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, why, n);
}

double ergo__work_counter_read(void) {
  if (fd < 0) return -1;
  uint64_t v[3]; /* value, time enabled, time running */
  if (read(fd, v, sizeof v) != (ssize_t)sizeof v) return -1;
  double count = (double)v[0];
  /* Multiplexed with other events (more than the PMU holds at once): the kernel's estimate. */
  if (v[2] > 0 && v[2] < v[1]) count *= (double)v[1] / (double)v[2];
  return count * 1e-9;
}

int ergo__work_counter_threads_before(void) { return threads_before; } /* 0 once stopped */

void ergo__work_counter_stop(void) {
  if (fd >= 0) close(fd);
  fd = -1;
  threads_before = 0;
}
