/* state_signal.c - the restore paths that run without being called: handlers for the fatal
 * signals (async-signal-safe, chained to whatever was there before) and atexit. */
#include "knobs/state_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Room for a handler on a thread whose stack overflowed (a deep recursion's SIGSEGV). */
#define ALTSTACK_SIZE (64 * 1024)

/* Every signal whose default action ends the process.  The first NCHAINED are the ones a
 * program commonly handles to end itself (or crashes on): ergo restores, then hands the signal
 * to the program's handler, which may go on.  The others (timers, profilers, user signals, I/O)
 * are often handled as routine events, hundreds of times a second: ergo catches them only while
 * their action is the default, i.e. while they would end the process, and leaves a program's
 * own handler alone (restoring there would undo the tuning at every tick). */
static const int fatal_signals[] = {
    SIGINT,    SIGTERM, SIGHUP,  SIGSEGV,   SIGBUS,  SIGFPE,  SIGABRT, /* chained */
    SIGQUIT,   SIGPIPE, SIGUSR1, SIGUSR2,   SIGALRM, SIGXCPU, SIGXFSZ,
    SIGILL,    SIGTRAP, SIGSYS,  SIGVTALRM, SIGPROF,
#ifdef SIGPWR
    SIGPWR,
#endif
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
#ifdef SIGIO
    SIGIO,
#endif
};
#define NFATAL (sizeof fatal_signals / sizeof *fatal_signals)
#define NCHAINED 7

/* The handlers' own state. */
static struct {
  int atexit_installed;              /* guarded by ergo__st.lock */
  void *altstack_mem;                /* kept reachable: the kernel holds the only other reference */
  struct sigaction previous[NFATAL]; /* the handler's view: lock-free */
} H;

static int fatal_index(int sig) {
  for (size_t i = 0; i < NFATAL; i++)
    if (fatal_signals[i] == sig) return (int)i;
  return -1;
}

/* Restore, then let the signal do what it would have done without us: with the default action
 * the process dies of it (the state file goes first); with the application's handler that one
 * runs next, and as the program may go on, the state file stays and atexit restores again. */
static void on_fatal_signal(int sig, siginfo_t *info, void *uctx) {
  (void)info, (void)uctx;
  int saved_errno = errno;
  int i = fatal_index(sig);
  const struct sigaction *prev = &H.previous[i < 0 ? 0 : i];
  int dies = !(prev->sa_flags & SA_SIGINFO) && prev->sa_handler == SIG_DFL;
  atomic_fetch_add(&ergo__st.readers, 1);
  state_table *t = atomic_load(&ergo__st.published);
  if (t && atomic_load(&ergo__st.owner_pid) == (int)getpid() &&
      ergo__state_write_all(t->e, t->n, NULL) == 0 && dies) {
    unlink(t->state_path);
    ergo__state_release(t->claims, t->nclaims, ergo__st.claim_prefix, ergo__st.claim_prefix_len);
  }
  atomic_fetch_sub(&ergo__st.readers, 1);
  if (i >= 0) {
    /* Blocked until we return (the handler's own mask), then delivered to `prev`. */
    sigaction(sig, prev, NULL);
    raise(sig);
  }
  errno = saved_errno;
}

static int is_ours(const struct sigaction *sa) {
  return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_fatal_signal;
}

/* Handlers for every fatal signal not already ours.  Checked at each commit: an application
 * handler installed since, or our own handed back by an earlier signal, is chained again.  An
 * ignored signal (nohup's SIGHUP) cannot end the process, so it is left alone. */
static void install_handlers(void) {
  for (size_t i = 0; i < NFATAL; i++) {
    struct sigaction cur;
    if (sigaction(fatal_signals[i], NULL, &cur) != 0 || is_ours(&cur)) continue;
    if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN) continue;
    if (i >= NCHAINED && ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)) continue;
    H.previous[i] = cur;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    /* A second fatal signal waits until this restore is over. */
    sigemptyset(&sa.sa_mask);
    for (size_t j = 0; j < NFATAL; j++) sigaddset(&sa.sa_mask, fatal_signals[j]);
    sigaction(fatal_signals[i], &sa, NULL);
  }
  stack_t cur;
  if (!H.altstack_mem && sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
    stack_t ss = {.ss_sp = malloc(ALTSTACK_SIZE), .ss_size = ALTSTACK_SIZE, .ss_flags = 0};
    if (ss.ss_sp && sigaltstack(&ss, NULL) == 0)
      H.altstack_mem = ss.ss_sp;
    else
      free(ss.ss_sp);
  }
}

static void (*exit_first)(void);

void ergo__state_exit_first(void (*fn)(void)) { exit_first = fn; }

static void restore_at_exit(void) {
  /* Not the committing process (a fork): the lock may even be a copy held by a lost thread. */
  if (atomic_load(&ergo__st.owner_pid) != (int)getpid()) return;
  if (exit_first) exit_first();
  (void)ergo__state_restore();
}

void ergo__state_arm(void) {
  install_handlers();
  if (!H.atexit_installed) H.atexit_installed = atexit(restore_at_exit) == 0;
}
