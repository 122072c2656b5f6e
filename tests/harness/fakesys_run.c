/* fakesys_run.c - ergo-fakesys-run: run a command on a fake RAPL machine (fake powercap sysfs
 * in a private mount namespace, counters advancing at a set power while the command runs). */
#define _GNU_SOURCE
#include "fakesys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PC "/sys/class/powercap"
/* The kernel's values on a Skylake server: the package counter wraps at ~262 kJ, DRAM at ~65.7 kJ.
 */
#define PKG_RANGE_UJ 262143328850ull
#define DRAM_RANGE_UJ 65712999613ull
#define NOBODY 65534

typedef enum { RAPL_PKGDRAM, RAPL_NONE, RAPL_DENIED } rapl_kind;

typedef struct options {
  rapl_kind rapl;
  double package_w, dram_w;
  uint64_t step_uj; /* fixed package step per period instead of watts x elapsed; 0 = off */
  uint64_t start_uj;
  uint64_t range_uj; /* the package's max_energy_range_uj; 0 = the kernel's value */
  double tdp_w;      /* package constraint_0_max_power_uw and _power_limit_uw; 0 = none */
  long period_us;
  char **cmd;
} options;

/* One counter the runner advances: its file, value and range. */
typedef struct counter {
  char path[256]; /* the file in the fake tree */
  uint64_t value, range_uj;
  double watts;
  double carry_uj; /* fractions of a microjoule not yet written */
} counter;

static void usage(FILE *out) {
  fprintf(out,
          "usage: ergo-fakesys-run [options] -- CMD [ARGS...]\n\n"
          "Runs CMD with a fake RAPL powercap tree bind-mounted over /sys/class (needs root;\n"
          "prints SKIPPED and exits 77 where that is impossible) and exits with CMD's status.\n\n"
          "  --rapl=pkgdram      package-0 with a dram subzone (default)\n"
          "  --rapl=none         no powercap at all\n"
          "  --rapl=denied       as pkgdram, but CMD runs as nobody: energy_uj is root-only\n"
          "                      since Linux 5.10, so CMD sees what an ordinary user sees\n"
          "  --watts=W           package power (default 100); dram draws W/10\n"
          "  --energy-step-uj=N  add exactly N uJ to the package (N/10 to dram) per period,\n"
          "                      whatever the time elapsed: deterministic counters\n"
          "  --start-uj=N        initial package counter (dram N/10); near the range, it wraps\n"
          "  --period-us=N       how often the counters move (default 1000)\n"
          "  --range-uj=N        the package's max_energy_range_uj (default: a Skylake\n"
          "                      server's, 262 kJ; dram keeps its 65.7 kJ): small, it wraps often\n"
          "  --tdp-w=W           write the package's constraint_0 (long_term) with a power\n"
          "                      limit and max power of W (default: no constraint files)\n");
}

static int bad(const char *arg, const char *expected) {
  fprintf(stderr, "ergo-fakesys-run: '%s' is not valid: expected %s\n", arg, expected);
  return 2;
}

static int parse_u64(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || *end || errno || s[0] == '-') return -1;
  *out = v;
  return 0;
}

static int parse_args(int argc, char **argv, options *o) {
  *o = (options){.rapl = RAPL_PKGDRAM, .package_w = 100, .dram_w = 10, .period_us = 1000};
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    const char *a = argv[i], *v = strchr(a, '=');
    v = v ? v + 1 : "";
    uint64_t n;
    if (strcmp(a, "--help") == 0) {
      usage(stdout);
      exit(0);
    } else if (strncmp(a, "--rapl=", 7) == 0) {
      if (strcmp(v, "pkgdram") == 0)
        o->rapl = RAPL_PKGDRAM;
      else if (strcmp(v, "none") == 0)
        o->rapl = RAPL_NONE;
      else if (strcmp(v, "denied") == 0)
        o->rapl = RAPL_DENIED;
      else
        return bad(a, "--rapl=pkgdram, none or denied");
    } else if (strncmp(a, "--watts=", 8) == 0) {
      char *end;
      double w = strtod(v, &end);
      if (end == v || *end || !(w >= 0) || w > 100000) return bad(a, "watts from 0 to 100000");
      o->package_w = w;
      o->dram_w = w / 10;
    } else if (strncmp(a, "--energy-step-uj=", 17) == 0) {
      if (parse_u64(v, &n) != 0 || n >= DRAM_RANGE_UJ) return bad(a, "microjoules per period");
      o->step_uj = n;
    } else if (strncmp(a, "--start-uj=", 11) == 0) {
      if (parse_u64(v, &n) != 0 || n >= PKG_RANGE_UJ) return bad(a, "microjoules below the range");
      o->start_uj = n;
    } else if (strncmp(a, "--range-uj=", 11) == 0) {
      if (parse_u64(v, &n) != 0 || n < 1000 || n > PKG_RANGE_UJ)
        return bad(a, "microjoules from 1000 to 262143328850");
      o->range_uj = n;
    } else if (strncmp(a, "--tdp-w=", 8) == 0) {
      char *end;
      double w = strtod(v, &end);
      if (end == v || *end || !(w > 0) || w > 100000) return bad(a, "watts above 0, to 100000");
      o->tdp_w = w;
    } else if (strncmp(a, "--period-us=", 12) == 0) {
      if (parse_u64(v, &n) != 0 || n < 100 || n > 10000000)
        return bad(a, "microseconds from 100 to 10000000");
      o->period_us = (long)n;
    } else {
      return bad(a, "--rapl=, --watts=, --energy-step-uj=, --start-uj=, --period-us=, "
                    "--range-uj=, --tdp-w=, --help, "
                    "then -- CMD");
    }
  }
  if (i + 1 >= argc) {
    fprintf(stderr, "ergo-fakesys-run: no command: expected [options] -- CMD [ARGS...]\n");
    return 2;
  }
  if (o->range_uj && o->start_uj >= o->range_uj) {
    fprintf(stderr,
            "ergo-fakesys-run: --start-uj=%" PRIu64 " is not below --range-uj=%" PRIu64 "\n",
            o->start_uj, o->range_uj);
    return 2;
  }
  o->cmd = argv + i + 1;
  return 0;
}

/* Every counter file holds exactly COUNTER_WIDTH bytes: 19 digits (above any range), zero-padded,
 * and a newline.  A reader holding the file open (powercap.c preads one fd for the whole run;
 * renaming a new file in would leave it reading the old inode forever) then never sees the file
 * change size, so no read is empty, cut short or missing its newline: one pwrite rewrites the
 * same bytes in place.  The kernel does not zero-pad, but every parser reads it. */
#define COUNTER_WIDTH 20

static int counter_format(const counter *c, char *buf, size_t len) {
  return snprintf(buf, len, "%019" PRIu64 "\n", c->value);
}

static int counter_write(counter *c) {
  char buf[32];
  int n = counter_format(c, buf, sizeof buf);
  int fd = open(c->path, O_WRONLY);
  if (fd < 0) return -1;
  int ok = n == COUNTER_WIDTH && pwrite(fd, buf, (size_t)n, 0) == n;
  close(fd);
  return ok ? 0 : -1;
}

/* The first value, root-only (mode 0400) as since Linux 5.10 (CVE-2020-8694). */
static int counter_create(fakesys *fs, counter *c) {
  char buf[32];
  counter_format(c, buf, sizeof buf);
  if (fakesys_write(fs, c->path, buf, 0400) != 0) return -1;
  /* From now on the runner writes the fake file directly: it needs no namespace for that. */
  snprintf(c->path, sizeof c->path, "%s", fakesys_path(fs, c->path));
  return 0;
}

static void counter_advance(counter *c, double uj) {
  c->carry_uj += uj;
  uint64_t whole = (uint64_t)c->carry_uj;
  c->carry_uj -= (double)whole;
  /* The counter restarts at 0 after max_energy_range_uj, as meter.c assumes. */
  c->value = (c->value + whole % c->range_uj) % c->range_uj;
}

/* The kernel's layout: /sys/class/powercap/intel-rapl (the control type),
 * intel-rapl:0 (package-0) and intel-rapl:0:0 (its dram), each zone also
 * reachable under its parent.  The kernel's class entries are symlinks into
 * /sys/devices/virtual/powercap, which cannot be faked on a machine without
 * it (nothing to mount over), so here they are the directories themselves. */
static int build_rapl(fakesys *fs, const options *o, counter *pkg, counter *dram) {
  int rc = 0;
  uint64_t pkg_range = o->range_uj ? o->range_uj : PKG_RANGE_UJ;
  uint64_t dram_range = DRAM_RANGE_UJ;
  rc |= fakesys_write(fs, PC "/intel-rapl/enabled", "1\n", 0644);
  rc |= fakesys_write(fs, PC "/intel-rapl:0/name", "package-0\n", 0444);
  rc |= fakesys_write(fs, PC "/intel-rapl:0/enabled", "1\n", 0644);
  rc |=
      fakesys_writef(fs, PC "/intel-rapl:0/max_energy_range_uj", 0444, "%" PRIu64 "\n", pkg_range);
  if (o->tdp_w > 0) {
    /* The kernel's names (Documentation/power/powercap/powercap.rst); intel_rapl fills
     * max_power from the package's thermal spec power (TDP). */
    uint64_t uw = (uint64_t)(o->tdp_w * 1e6);
    rc |= fakesys_write(fs, PC "/intel-rapl:0/constraint_0_name", "long_term\n", 0444);
    rc |= fakesys_writef(fs, PC "/intel-rapl:0/constraint_0_power_limit_uw", 0644, "%" PRIu64 "\n",
                         uw);
    rc |=
        fakesys_writef(fs, PC "/intel-rapl:0/constraint_0_max_power_uw", 0444, "%" PRIu64 "\n", uw);
  }
  rc |= fakesys_write(fs, PC "/intel-rapl:0:0/name", "dram\n", 0444);
  rc |= fakesys_write(fs, PC "/intel-rapl:0:0/enabled", "1\n", 0644);
  rc |= fakesys_writef(fs, PC "/intel-rapl:0:0/max_energy_range_uj", 0444, "%" PRIu64 "\n",
                       dram_range);
  rc |= fakesys_symlink(fs, PC "/intel-rapl:0/intel-rapl:0:0", "../intel-rapl:0:0");
  *pkg = (counter){.value = o->start_uj, .range_uj = pkg_range, .watts = o->package_w};
  *dram = (counter){.value = o->start_uj / 10, .range_uj = dram_range, .watts = o->dram_w};
  snprintf(pkg->path, sizeof pkg->path, "%s", PC "/intel-rapl:0/energy_uj");
  snprintf(dram->path, sizeof dram->path, "%s", PC "/intel-rapl:0:0/energy_uj");
  rc |= counter_create(fs, pkg) | counter_create(fs, dram);
  return rc ? -1 : 0;
}

/* Mounting over /sys/class hides every other class (net, block, tty, ...),
 * which a command (hwloc, MPI) may read: recreate their entries, which are
 * symlinks into /sys/devices and so still resolve to the real devices. */
static void mirror_class(fakesys *fs) {
  DIR *top = opendir("/sys/class");
  if (!top) return;
  struct dirent *c;
  while ((c = readdir(top))) {
    if (c->d_name[0] == '.' || strcmp(c->d_name, "powercap") == 0) continue;
    char dir[512];
    snprintf(dir, sizeof dir, "/sys/class/%s", c->d_name);
    fakesys_mkdir(fs, dir);
    DIR *d = opendir(dir);
    if (!d) continue;
    struct dirent *e;
    while ((e = readdir(d))) {
      char path[1024], target[1024];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      ssize_t n = readlink(path, target, sizeof target - 1);
      if (n <= 0) continue; /* a plain file (gpio's export): cannot be mirrored faithfully */
      target[n] = '\0';
      fakesys_symlink(fs, path, target);
    }
    closedir(d);
  }
  closedir(top);
}

static volatile sig_atomic_t child_pid;

/* Interrupting the runner interrupts the command; the runner then reaps it and exits with its
 * status, which removes the fake tree. */
static void forward(int sig) {
  if (child_pid > 0) kill(child_pid, sig);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

_Noreturn static void run_child(const options *o) {
  if (o->rapl == RAPL_DENIED &&
      (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0)) {
    perror("ergo-fakesys-run: cannot become nobody for --rapl=denied");
    _exit(126);
  }
  execvp(o->cmd[0], o->cmd);
  fprintf(stderr, "ergo-fakesys-run: cannot run %s: %s\n", o->cmd[0], strerror(errno));
  _exit(errno == ENOENT ? 127 : 126);
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_args(argc, argv, &o);
  if (rc != 0) return rc;

  fakesys fs;
  if (fakesys_create(&fs) != 0) {
    perror("ergo-fakesys-run: cannot create the fake tree in /tmp");
    return 1;
  }
  /* Reachable by nobody (--rapl=denied); mkdtemp made it 0700. */
  chmod(fs.root, 0755);
  mirror_class(&fs);
  counter pkg, dram;
  int have_rapl = o.rapl != RAPL_NONE;
  if (have_rapl && build_rapl(&fs, &o, &pkg, &dram) != 0) {
    perror("ergo-fakesys-run: cannot build the fake powercap tree");
    fakesys_destroy(&fs);
    return 1;
  }
  static const char *const mounts[] = {"/sys/class", NULL};
  const char *skip = fakesys_enter(&fs, mounts);
  if (skip) {
    printf("SKIPPED: %s\n", skip);
    fakesys_destroy(&fs);
    return FAKESYS_SKIP;
  }

  struct sigaction sa = {.sa_handler = forward};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    perror("ergo-fakesys-run: fork");
    fakesys_destroy(&fs);
    return 1;
  }
  if (pid == 0) run_child(&o);
  child_pid = pid;

  /* The parent stays in the namespace and plays the hardware until CMD ends.
   * Energy follows elapsed time, so a late wake-up still gives the set power; a late one
   * still moves energy from one region to the next, so the counters run at real-time
   * priority where allowed (on a loaded host, ms of lag are % of a short region). */
  struct sched_param sp = {.sched_priority = 1};
  (void)sched_setscheduler(0, SCHED_FIFO, &sp);
  int status = 0;
  double last = now_s();
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    next.tv_nsec += o.period_us * 1000;
    while (next.tv_nsec >= 1000000000L) {
      next.tv_nsec -= 1000000000L;
      next.tv_sec++;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    /* Like RAPL, which updates on its own clock and never in a burst: periods this process
     * missed (a loaded host held it back) are dropped, not caught up microseconds apart. */
    struct timespec woke;
    clock_gettime(CLOCK_MONOTONIC, &woke);
    if ((double)(woke.tv_sec - next.tv_sec) + 1e-9 * (double)(woke.tv_nsec - next.tv_nsec) >
        1e-6 * (double)o.period_us)
      next = woke;
    if (!have_rapl) continue;
    double t = now_s(), dt = t - last;
    last = t;
    if (o.step_uj) {
      counter_advance(&pkg, (double)o.step_uj);
      counter_advance(&dram, (double)(o.step_uj / 10));
    } else {
      counter_advance(&pkg, pkg.watts * dt * 1e6);
      counter_advance(&dram, dram.watts * dt * 1e6);
    }
    counter_write(&pkg);
    counter_write(&dram);
  }
  fakesys_destroy(&fs);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}
