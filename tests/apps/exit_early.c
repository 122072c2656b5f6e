/* exit_early.c - a program that ends without ergo_finalize, as error exits and Fortran STOP do
 * (tests/exit.cmake): ergo finalizes at exit.
 *
 *   exit_early MODE [--steps N] [--show FILE]
 *
 * Runs N steps (default 3) of Timestep > solve, each 20 ms of work (simulated on the sim node,
 * else a busy wait), then pushes Timestep > inner and ends by MODE:
 *   exit      exit(3) with both regions open
 *   return    return 4 from main with both open
 *   finalize  pops both, calls ergo_finalize, then exit(5): nothing is left for the exit
 *   again     as finalize, but a second ergo_init and a region "again" open before exit(5)
 *   fork      a forked child pushes a region of its own and exit(0)s without ergo_finalize; the
 *             parent then checks that no report file appeared (ERGO_REPORT_JSON), says so, and
 *             exit(3)s
 *   thread    a thread pushes and pops regions in a loop while main exit(3)s
 * --show FILE prints FILE's contents just before the end (a knob's file on a fake CPU tree). */
#include <ergo.h>
#include <ergo_sim.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* MS milliseconds of work: the sim node's 20 cores at 2 GHz do 0.04 Gcycles per millisecond. */
static void work(double ms) {
  if (ergo_sim_active()) {
    ergo_sim_work_desc w = {ms * 0.04, ms * 0.001, 0.01};
    ergo_sim_work(&w);
    return;
  }
  volatile double x = 0;
  for (double end = now_s() + ms * 1e-3; now_s() < end;) x += 1e-9;
}

static void show(const char *path) {
  FILE *f = fopen(path, "r");
  char line[256] = "";
  if (!f || !fgets(line, sizeof line, f)) {
    printf("cannot read %s\n", path);
  } else {
    line[strcspn(line, "\n")] = '\0';
    printf("%s: %s\n", path, line);
  }
  if (f) fclose(f);
  fflush(stdout);
}

static int spinning; /* atomic: main waits for the thread's first region */

static void *spin(void *unused) {
  (void)unused;
  for (;;) {
    ergo_push(1, "worker");
    __atomic_store_n(&spinning, 1, __ATOMIC_RELEASE);
    ergo_pop(1, "worker");
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  const char *show_path = NULL;
  int steps = 3;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      steps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--show") == 0 && i + 1 < argc) {
      show_path = argv[++i];
    } else {
      fprintf(stderr, "exit_early: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  const char *modes[] = {"exit", "return", "finalize", "again", "fork", "thread"};
  int known = 0;
  for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) known |= strcmp(mode, modes[i]) == 0;
  if (!known) {
    fprintf(stderr,
            "exit_early: mode '%s' is not one of exit, return, finalize, again, fork, thread\n",
            mode);
    return 2;
  }
  int rc = ergo_init(NULL);
  if (rc) {
    fprintf(stderr, "exit_early: ergo_init: %s\n", ergo_strerror(rc));
    return 1;
  }
  for (int s = 1; s <= steps; s++) {
    ERGO_PUSH(1, "Timestep");
    ERGO_PUSH(2, "solve");
    work(20);
    ERGO_POP(2, "solve");
    ERGO_POP(1, "Timestep");
    ergo_step(s);
  }
  ERGO_PUSH(1, "Timestep");
  ERGO_PUSH(2, "inner");
  work(5);
  if (show_path) show(show_path);
  printf("ending by %s\n", mode);
  fflush(stdout);
  if (strcmp(mode, "exit") == 0) exit(3);
  if (strcmp(mode, "return") == 0) return 4;
  if (strcmp(mode, "finalize") == 0 || strcmp(mode, "again") == 0) {
    ERGO_POP(2, "inner");
    ERGO_POP(1, "Timestep");
    rc = ergo_finalize();
    printf("ergo_finalize: %d\n", rc);
    fflush(stdout);
    if (mode[0] == 'a') {
      rc = ergo_init(NULL);
      printf("ergo_init again: %d\n", rc);
      fflush(stdout);
      ERGO_PUSH(1, "again");
      work(5);
    }
    exit(5);
  }
  if (strcmp(mode, "fork") == 0) {
    pid_t child = fork();
    if (child < 0) {
      perror("exit_early: fork");
      return 1;
    }
    if (child == 0) {
      ERGO_PUSH(3, "child_only");
      exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    const char *json = getenv("ERGO_REPORT_JSON");
    printf("child: exit %d, %s\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
           json && access(json, F_OK) == 0 ? "wrote the parent's report" : "wrote no report");
    fflush(stdout);
    exit(3);
  }
  /* thread */
  pthread_t t;
  if (pthread_create(&t, NULL, spin, NULL) != 0) {
    perror("exit_early: pthread_create");
    return 1;
  }
  while (!__atomic_load_n(&spinning, __ATOMIC_ACQUIRE)) sched_yield();
  exit(3);
}
