/* state.c - the original contents of every file ergo writes, and the ways they come back:
 * ergo_finalize, atexit, fatal signals (async-signal-safe) and `ergo restore` after kill -9. */
#include "knobs/state.h"

#include "ergo.h"
#include "util/atomic_file.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A sysfs attribute is at most one page: anything longer is not a knob's file. */
#define CONTENT_MAX 4096
#define STATE_FORMAT "ergo-knob-state"
#define STATE_VERSION 1
/* Room for a handler on a thread whose stack overflowed (a deep recursion's SIGSEGV). */
#define ALTSTACK_SIZE (64 * 1024)
#define WHY_LEN 512

/* One tracked file.  Never changed once made, so a signal handler may read it at any moment. */
typedef struct entry {
  char *path;
  char *content; /* the original bytes, as read */
  size_t len;
  int placeholder; /* "<unsupported>": the kernel's text for "no value"; nothing to write back */
  char *failmsg;   /* the handler's line when writing back fails: no formatting in a handler */
  size_t failmsg_len;
} entry;

/* What the restore paths use: the entries of the last commit, published as one pointer so a
 * handler sees either the old list or the new one, never one being built. */
typedef struct table {
  char *state_path;
  struct table *older; /* tables a handler may still be reading: freed with this one */
  size_t n;
  entry *e[];
} table;

static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT};
#define NFATAL (sizeof fatal_signals / sizeof *fatal_signals)

/* Everything but the handler's view is guarded by `lock`. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static entry **tracked;
static size_t ntracked, tracked_cap, ncommitted;
static int atexit_installed;
static void *altstack_mem; /* kept reachable: the kernel holds the only other reference */

/* The handler's view: lock-free atomics only. */
static _Atomic(table *) published;
static atomic_int readers;   /* handlers reading `published` right now */
static atomic_int owner_pid; /* the process that committed: any other (a fork) restores nothing */
static struct sigaction previous[NFATAL];

/* ---- the write-back (async-signal-safe: open, write, close only) ------------------------- */

/* Write e's original bytes back in one write(2), as sysfs wants.  0 or an errno. */
static int write_back(const entry *e) {
  int fd;
  do fd = open(e->path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno;
  ssize_t w;
  do w = write(fd, e->content, e->len);
  while (w < 0 && errno == EINTR);
  int err = w < 0 ? errno : (size_t)w != e->len ? EIO : 0;
  if (close(fd) != 0 && !err && errno != EINTR) err = errno;
  return err;
}

/* Two passes in tracking order: the second settles files the first could not write because of
 * another file's value (a minimum above the maximum still in force).  errs[i] gets entry i's
 * final errno; without errs (in a handler) failures print their precomputed line.  Returns the
 * number of files not restored. */
static size_t write_all(entry *const *e, size_t n, int *errs) {
  for (size_t i = 0; i < n; i++)
    if (!e[i]->placeholder) (void)write_back(e[i]);
  size_t failed = 0;
  for (size_t i = 0; i < n; i++) {
    int err = e[i]->placeholder ? 0 : write_back(e[i]);
    if (errs) errs[i] = err;
    if (!err) continue;
    failed++;
    if (!errs && e[i]->failmsg) {
      ssize_t w = write(STDERR_FILENO, e[i]->failmsg, e[i]->failmsg_len);
      (void)w;
    }
  }
  return failed;
}

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
  const struct sigaction *prev = &previous[i < 0 ? 0 : i];
  int dies = !(prev->sa_flags & SA_SIGINFO) && prev->sa_handler == SIG_DFL;
  atomic_fetch_add(&readers, 1);
  table *t = atomic_load(&published);
  if (t && atomic_load(&owner_pid) == (int)getpid() && write_all(t->e, t->n, NULL) == 0 && dies)
    unlink(t->state_path);
  atomic_fetch_sub(&readers, 1);
  if (i >= 0) {
    /* Blocked until we return (the handler's own mask), then delivered to `prev`. */
    sigaction(sig, prev, NULL);
    raise(sig);
  }
  errno = saved_errno;
}

/* ---- memory --------------------------------------------------------------------------- */

static void entry_free(entry *e) {
  if (!e) return;
  free(e->path);
  free(e->content);
  free(e->failmsg);
  free(e);
}

static void table_free(table *t) {
  while (t) {
    table *older = t->older;
    free(t->state_path);
    free(t);
    t = older;
  }
}

/* Forget everything: unpublish first, wait out any handler still reading, then free. */
static void forget(void) {
  table *t = atomic_exchange(&published, NULL);
  while (atomic_load(&readers) > 0) sched_yield();
  table_free(t);
  for (size_t i = 0; i < ntracked; i++) entry_free(tracked[i]);
  free(tracked);
  tracked = NULL;
  ntracked = tracked_cap = ncommitted = 0;
  atomic_store(&owner_pid, 0);
}

/* In a child of a committed process: the parent's files are the parent's to restore. */
static void forget_if_forked(void) {
  int owner = atomic_load(&owner_pid);
  if (owner && owner != (int)getpid()) forget();
}

/* The child of a fork has only the forking thread: a lock or a reader count held by another
 * thread of the parent would never be released. */
static void after_fork_child(void) {
  pthread_mutex_init(&lock, NULL);
  atomic_store(&readers, 0);
}

static void setup_once(void) { pthread_atfork(NULL, NULL, after_fork_child); }

/* ---- text helpers --------------------------------------------------------------------- */

/* `len` bytes for a message: one trailing newline dropped, quotes and control bytes escaped. */
static const char *shown(const char *s, size_t len, char *buf, size_t n) {
  if (len && s[len - 1] == '\n') len--;
  size_t o = 0;
  for (size_t i = 0; i < len && o + 5 < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\n')
      o += (size_t)snprintf(buf + o, n - o, "\\n");
    else if (c == '\'' || c == '\\')
      o += (size_t)snprintf(buf + o, n - o, "\\%c", c);
    else if (c < 0x20 || c == 0x7f)
      o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
    else
      buf[o++] = (char)c;
  }
  buf[o] = '\0';
  return buf;
}

/* "<unsupported>" (scaling_setspeed under another governor) and the like: not a setting. */
static int is_placeholder(const char *s, size_t len) {
  if (len && s[len - 1] == '\n') len--;
  return len >= 2 && s[0] == '<' && s[len - 1] == '>';
}

/* Text a state file can hold and sysfs would accept back: no NUL, valid UTF-8. */
static int is_text(const char *s, size_t len) {
  if (memchr(s, '\0', len)) return 0;
  json_t *j = json_stringn(s, len);
  json_decref(j);
  return j != NULL;
}

/* ---- /proc ------------------------------------------------------------------------------ */

/* Fields 3 (state) and 22 (start time in clock ticks since boot) of /proc/<pid>/stat: a pid
 * with another start time is another process that got the number again.  0 or -1. */
static int proc_stat(long pid, char *state, long long *starttime) {
  char path[64], buf[1024];
  if (pid == 0)
    snprintf(path, sizeof path, "/proc/self/stat");
  else
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  /* The command name (field 2) may hold spaces and parentheses: count from the last ')'. */
  char *p = strrchr(buf, ')');
  if (!p) return -1;
  p++;
  for (int field = 3; field <= 22; field++) {
    while (*p == ' ') p++;
    if (!*p) return -1;
    if (field == 3) *state = *p;
    if (field == 22) {
      char *end;
      errno = 0;
      *starttime = strtoll(p, &end, 10);
      return errno || end == p ? -1 : 0;
    }
    while (*p && *p != ' ') p++;
  }
  return -1;
}

/* ---- the state directory ---------------------------------------------------------------- */

/* NULL when `dir` is a directory (not a symlink) of ours that nobody else may write, so no one
 * can plant a state file for `ergo restore` to obey; else why not, in why. */
static const char *unsafe_dir(const char *dir, char *why, size_t n) {
  struct stat st;
  if (lstat(dir, &st) != 0)
    snprintf(why, n, "cannot use %s: %s", dir, strerror(errno));
  else if (!S_ISDIR(st.st_mode))
    snprintf(why, n, "%s is not a directory", dir);
  else if (st.st_uid != geteuid())
    snprintf(why, n, "%s belongs to uid %u, not to this user (uid %u)", dir, (unsigned)st.st_uid,
             (unsigned)geteuid());
  else if (st.st_mode & 022)
    snprintf(why, n, "%s is writable by group or others (mode %03o)", dir,
             (unsigned)(st.st_mode & 0777));
  else
    return NULL;
  return why;
}

/* The state directory into buf (created if missing): 0, or -1 with why. */
static int pick_dir(char *buf, size_t n, char *why, size_t whylen) {
  const char *env = getenv("ERGO_STATE_DIR");
  if (env && *env) {
    snprintf(buf, n, "%s", env);
    if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
      snprintf(why, whylen, "cannot create ERGO_STATE_DIR=%s: %s", buf, strerror(errno));
      return -1;
    }
    if (access(buf, W_OK | X_OK) != 0) {
      snprintf(why, whylen, "ERGO_STATE_DIR=%s is not a writable directory: %s", buf,
               strerror(errno));
      return -1;
    }
    return 0;
  }
  /* Root's choice: tmpfs, gone at reboot exactly when the settings are. */
  snprintf(buf, n, "/run/ergo");
  if ((mkdir(buf, 0700) == 0 || errno == EEXIST) && !unsafe_dir(buf, why, whylen) &&
      access(buf, W_OK | X_OK) == 0)
    return 0;
  snprintf(buf, n, "/tmp/ergo-%u", (unsigned)geteuid());
  if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
    snprintf(why, whylen, "cannot create %s: %s (fix: set ERGO_STATE_DIR to a private directory)",
             buf, strerror(errno));
    return -1;
  }
  char unsafe[WHY_LEN / 2]; /* leaves room for the path and the fix in why */
  if (unsafe_dir(buf, unsafe, sizeof unsafe)) {
    snprintf(why, whylen,
             "refusing %s as the state directory: %s (fix: remove it, or set ERGO_STATE_DIR to "
             "a private directory)",
             buf, unsafe);
    return -1;
  }
  return 0;
}

const char *ergo__state_dir(void) {
  static char dir[PATH_MAX];
  char why[WHY_LEN];
  (void)pick_dir(dir, sizeof dir, why, sizeof why); /* the caller's own line says it failed */
  return dir;
}

/* ---- tracking ---------------------------------------------------------------------------- */

/* The whole file, up to CONTENT_MAX bytes: 0, -1 with errno, or -2 when longer. */
static int read_whole(const char *path, char *buf, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -1;
  size_t off = 0;
  for (;;) {
    ssize_t r = read(fd, buf + off, CONTENT_MAX + 1 - off);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int err = errno;
      close(fd);
      errno = err;
      return -1;
    }
    if (r == 0) break;
    off += (size_t)r;
    if (off > CONTENT_MAX) {
      close(fd);
      return -2;
    }
  }
  close(fd);
  *len = off;
  return 0;
}

static entry *entry_new(const char *path, const char *content, size_t len) {
  entry *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->path = strdup(path);
  e->content = malloc(len + 1);
  if (!e->path || !e->content) {
    entry_free(e);
    return NULL;
  }
  memcpy(e->content, content, len);
  e->content[len] = '\0';
  e->len = len;
  e->placeholder = is_placeholder(content, len);
  return e;
}

int ergo__state_track(const char *path) {
  if (!path || path[0] != '/') {
    ergo__warn("cannot save '%s': not an absolute path; not changing it", path ? path : "(null)");
    return ERGO_EINVAL;
  }
  pthread_once(&once, setup_once);
  pthread_mutex_lock(&lock);
  forget_if_forked();
  for (size_t i = 0; i < ntracked; i++)
    if (strcmp(tracked[i]->path, path) == 0) {
      pthread_mutex_unlock(&lock);
      return 0; /* the first reading is the original; later ones may be ours */
    }
  char buf[CONTENT_MAX + 1];
  size_t len = 0;
  int rc = read_whole(path, buf, &len);
  if (rc == -1) {
    ergo__warn("cannot read %s to save its original value: %s; not changing it", path,
               strerror(errno));
    pthread_mutex_unlock(&lock);
    return ERGO_EIO;
  }
  if (rc == -2 || !is_text(buf, len)) {
    ergo__warn("%s is %s, not a setting ergo can save and write back; not changing it", path,
               rc == -2 ? "longer than 4096 bytes" : "not text");
    pthread_mutex_unlock(&lock);
    return ERGO_EFORMAT;
  }
  entry *e = entry_new(path, buf, len);
  char msg[PATH_MAX + 160];
  int mlen = snprintf(msg, sizeof msg,
                      "ergo: warning: cannot restore %s after a fatal signal (fix: run `ergo "
                      "restore` once this process is gone)\n",
                      path);
  if (e) {
    e->failmsg = strdup(msg);
    e->failmsg_len = e->failmsg ? (size_t)mlen : 0;
  }
  if (e && ntracked == tracked_cap) {
    size_t cap = tracked_cap ? 2 * tracked_cap : 16;
    entry **grown = realloc(tracked, cap * sizeof *grown);
    if (grown) {
      tracked = grown;
      tracked_cap = cap;
    }
  }
  if (!e || !e->failmsg || ntracked == tracked_cap) {
    entry_free(e);
    pthread_mutex_unlock(&lock);
    ergo__warn("out of memory saving %s; not changing it", path);
    return ERGO_ENOMEM;
  }
  tracked[ntracked++] = e;
  pthread_mutex_unlock(&lock);
  return 0;
}

/* ---- commit: the state file, then the restore paths ----------------------------------- */

static json_t *state_doc(void) {
  char host[256] = "", exe[PATH_MAX] = "";
  if (gethostname(host, sizeof host) != 0) host[0] = '\0';
  host[sizeof host - 1] = '\0';
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  char state;
  long long start = 0;
  if (proc_stat(0, &state, &start) != 0) start = 0;
  json_t *files = json_array();
  for (size_t i = 0; i < ncommitted; i++) {
    json_t *f = json_object();
    json_object_set_new(f, "path", json_string(tracked[i]->path));
    json_object_set_new(f, "content", json_stringn(tracked[i]->content, tracked[i]->len));
    json_array_append_new(files, f);
  }
  json_t *doc = json_object();
  json_object_set_new(doc, "format", json_string(STATE_FORMAT));
  json_object_set_new(doc, "version", json_integer(STATE_VERSION));
  json_object_set_new(doc, "pid", json_integer((json_int_t)getpid()));
  json_object_set_new(doc, "starttime", json_integer(start));
  json_object_set_new(doc, "host", json_string(host));
  json_object_set_new(doc, "exe", json_string(exe));
  json_object_set_new(doc, "files", files);
  return doc;
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
    previous[i] = cur;
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
  if (!altstack_mem && sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
    stack_t ss = {.ss_sp = malloc(ALTSTACK_SIZE), .ss_size = ALTSTACK_SIZE, .ss_flags = 0};
    if (ss.ss_sp && sigaltstack(&ss, NULL) == 0)
      altstack_mem = ss.ss_sp;
    else
      free(ss.ss_sp);
  }
}

static void restore_at_exit(void) {
  /* Not the committing process (a fork): the lock may even be a copy held by a lost thread. */
  if (atomic_load(&owner_pid) != (int)getpid()) return;
  (void)ergo__state_restore();
}

int ergo__state_commit(void) {
  pthread_once(&once, setup_once);
  pthread_mutex_lock(&lock);
  forget_if_forked();
  if (ntracked == 0 || (atomic_load(&published) && ncommitted == ntracked)) {
    pthread_mutex_unlock(&lock);
    return 0; /* nothing to save, or the state file already lists everything */
  }
  char dir[PATH_MAX], why[WHY_LEN], path[PATH_MAX + 32];
  if (pick_dir(dir, sizeof dir, why, sizeof why) != 0) {
    pthread_mutex_unlock(&lock);
    ergo__warn("%s", why);
    return ERGO_EIO;
  }
  snprintf(path, sizeof path, "%s/%ld.json", dir, (long)getpid());
  table *t = malloc(sizeof *t + ntracked * sizeof(entry *));
  char *state_path = strdup(path);
  size_t before = ncommitted;
  ncommitted = ntracked;
  json_t *doc = t && state_path ? state_doc() : NULL;
  char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
  json_decref(doc);
  int rc = text ? ergo__atomic_write(path, text, strlen(text)) : ERGO_ENOMEM;
  free(text);
  if (rc) {
    ncommitted = before;
    free(t);
    free(state_path);
    pthread_mutex_unlock(&lock);
    if (rc == ERGO_ENOMEM) ergo__warn("out of memory writing the state file %s", path);
    return rc == ERGO_ENOMEM ? rc : ERGO_EIO;
  }
  t->state_path = state_path;
  t->n = ntracked;
  memcpy(t->e, tracked, ntracked * sizeof(entry *));
  atomic_store(&owner_pid, (int)getpid());
  t->older = atomic_exchange(&published, t);
  /* ERGO_STATE_DIR changed since the last commit: the older file is superseded. */
  if (t->older && strcmp(t->older->state_path, path) != 0) unlink(t->older->state_path);
  install_handlers();
  if (!atexit_installed) atexit_installed = atexit(restore_at_exit) == 0;
  pthread_mutex_unlock(&lock);
  return 0;
}

/* ---- restore in this process ------------------------------------------------------------ */

int ergo__state_restore(void) {
  pthread_once(&once, setup_once);
  pthread_mutex_lock(&lock);
  forget_if_forked();
  table *t = atomic_load(&published);
  if (!t) {
    forget(); /* tracked but never committed: nothing was written */
    pthread_mutex_unlock(&lock);
    return 0;
  }
  int *errs = calloc(t->n, sizeof *errs);
  int failed = (int)write_all(t->e, t->n, errs);
  for (size_t i = 0; errs && i < t->n; i++) {
    if (!errs[i]) continue;
    char v[256];
    ergo__warn("cannot restore %s to '%s': %s; the state file %s stays (fix: run `ergo restore` "
               "once this process is gone)",
               t->e[i]->path, shown(t->e[i]->content, t->e[i]->len, v, sizeof v), strerror(errs[i]),
               t->state_path);
  }
  free(errs);
  if (!failed) {
    if (unlink(t->state_path) != 0 && errno != ENOENT)
      ergo__warn("cannot remove the state file %s: %s (every file is restored; remove it by hand)",
                 t->state_path, strerror(errno));
    forget();
  }
  pthread_mutex_unlock(&lock);
  return failed;
}

void ergo__state_reset(void) {
  pthread_once(&once, setup_once);
  pthread_mutex_lock(&lock);
  forget();
  pthread_mutex_unlock(&lock);
}

/* ---- `ergo restore`: state files of dead processes -------------------------------------- */

/* The entries of a parsed state file, or NULL with why. */
static entry **parse_files(const json_t *files, size_t *n, char *why, size_t whylen) {
  if (!json_is_array(files)) {
    snprintf(why, whylen, "no \"files\" array");
    return NULL;
  }
  *n = json_array_size(files);
  entry **e = calloc(*n ? *n : 1, sizeof *e);
  if (!e) {
    snprintf(why, whylen, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < *n; i++) {
    const json_t *f = json_array_get(files, i);
    const char *path = json_string_value(json_object_get(f, "path"));
    const json_t *c = json_object_get(f, "content");
    const char *content = json_string_value(c);
    size_t len = json_string_length(c);
    if (!path || !content) snprintf(why, whylen, "files[%zu] lacks a path or a content", i);
    /* Only sysfs: a state file must not make root write anywhere else. */
    else if (strncmp(path, "/sys/", 5) != 0 || strstr(path, "/../"))
      snprintf(why, whylen, "files[%zu] is %s, not a file under /sys/", i, path);
    else if (len > CONTENT_MAX || memchr(content, '\0', len))
      snprintf(why, whylen, "files[%zu] has a content that is not a setting", i);
    else if (!(e[i] = entry_new(path, content, len)))
      snprintf(why, whylen, "out of memory");
    if (!e[i]) {
      for (size_t j = 0; j < i; j++) entry_free(e[j]);
      free(e);
      return NULL;
    }
  }
  return e;
}

/* 1 while `pid` runs and is the process that wrote the state file; 0 when it is gone (no such
 * pid, a zombie, or the pid reused by a process started at another time). */
static int writer_alive(long pid, long long starttime) {
  if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return 0;
  char state = '?';
  long long start = -1;
  if (proc_stat(pid, &state, &start) != 0) return 1; /* it exists and we cannot tell: keep off */
  if (state == 'Z' || state == 'X') return 0;
  if (starttime <= 0) return 1; /* the writer could not read its own: same caution */
  return start == starttime;
}

/* Restore one state file (or say what it would do).  Returns its failures. */
static int restore_one(const char *path, long pid, int explicit, int dry_run, FILE *out) {
  char why[WHY_LEN] = "", v[256];
  struct stat st;
  json_error_t jerr;
  json_t *doc = NULL;
  if (lstat(path, &st) != 0)
    snprintf(why, sizeof why, "%s", strerror(errno));
  else if (!S_ISREG(st.st_mode))
    snprintf(why, sizeof why, "not a regular file");
  else if (st.st_uid != geteuid())
    snprintf(why, sizeof why, "belongs to uid %u, not to this user", (unsigned)st.st_uid);
  else if (!(doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr)))
    snprintf(why, sizeof why, "%s at line %d", jerr.text, jerr.line);
  if (why[0]) {
    fprintf(out, "%s: not a usable ergo state file (%s); left in place\n", path, why);
    json_decref(doc);
    return 1;
  }
  const char *format = json_string_value(json_object_get(doc, "format"));
  const json_t *version = json_object_get(doc, "version");
  const json_t *jpid = json_object_get(doc, "pid");
  const json_t *jstart = json_object_get(doc, "starttime");
  const char *host = json_string_value(json_object_get(doc, "host"));
  const char *exe = json_string_value(json_object_get(doc, "exe"));
  if (!format || strcmp(format, STATE_FORMAT) != 0)
    snprintf(why, sizeof why, "\"format\" is not \"%s\"", STATE_FORMAT);
  else if (!json_is_integer(version))
    snprintf(why, sizeof why, "no \"version\"");
  else if (json_integer_value(version) != STATE_VERSION)
    snprintf(why, sizeof why, "version %lld; this ergo reads version %d",
             (long long)json_integer_value(version), STATE_VERSION);
  else if (!json_is_integer(jpid) || json_integer_value(jpid) != pid)
    snprintf(why, sizeof why, "its \"pid\" is not %ld, the number in its name", pid);
  else if (!json_is_integer(jstart) || !host || !exe)
    snprintf(why, sizeof why, "\"starttime\", \"host\" or \"exe\" missing");
  size_t n = 0;
  entry **e = why[0] ? NULL : parse_files(json_object_get(doc, "files"), &n, why, sizeof why);
  if (!e) {
    fprintf(out, "%s: not a usable ergo state file (%s); left in place\n", path, why);
    json_decref(doc);
    return 1;
  }
  char here[256] = "";
  if (gethostname(here, sizeof here) != 0) here[0] = '\0';
  here[sizeof here - 1] = '\0';
  int failed = 0;
  if (strcmp(host, here) != 0) {
    fprintf(out, "%s: written on host %s, this is %s; left in place\n", path, host, here);
    failed = explicit;
  } else if (writer_alive(pid, json_integer_value(jstart))) {
    fprintf(out, "process %ld is alive: it restores its own settings\n", pid);
    failed = explicit;
  } else if (dry_run) {
    fprintf(out, "process %ld (%s) is gone; %s lists %zu files\n", pid, exe, path, n);
    for (size_t i = 0; i < n; i++)
      if (e[i]->placeholder)
        fprintf(out, "would skip %s: '%s' is the kernel's placeholder, not a value\n", e[i]->path,
                shown(e[i]->content, e[i]->len, v, sizeof v));
      else
        fprintf(out, "would write '%s' to %s\n", shown(e[i]->content, e[i]->len, v, sizeof v),
                e[i]->path);
  } else {
    fprintf(out, "process %ld (%s) is gone; restoring the %zu files of %s\n", pid, exe, n, path);
    int *errs = calloc(n ? n : 1, sizeof *errs);
    failed = errs ? (int)write_all(e, n, errs) : (int)n;
    for (size_t i = 0; i < n; i++) {
      shown(e[i]->content, e[i]->len, v, sizeof v);
      if (!errs)
        fprintf(out, "cannot restore %s to '%s': out of memory\n", e[i]->path, v);
      else if (errs[i])
        fprintf(out, "cannot restore %s to '%s': %s\n", e[i]->path, v, strerror(errs[i]));
      else if (e[i]->placeholder)
        fprintf(out, "skipped %s: '%s' is the kernel's placeholder, not a value\n", e[i]->path, v);
      else
        fprintf(out, "restored %s to '%s'\n", e[i]->path, v);
    }
    free(errs);
    if (failed)
      fprintf(out, "%s stays: %d of %zu files could not be restored\n", path, failed, n);
    else if (unlink(path) != 0) {
      fprintf(out, "cannot remove %s: %s\n", path, strerror(errno));
      failed = 1;
    } else
      fprintf(out, "removed %s\n", path);
  }
  for (size_t i = 0; i < n; i++) entry_free(e[i]);
  free(e);
  json_decref(doc);
  return failed;
}

/* The pid a state file's name gives ("1234.json"), or 0 for other names (temporary files). */
static long name_pid(const char *name) {
  char *end;
  if (name[0] < '1' || name[0] > '9') return 0;
  errno = 0;
  long pid = strtol(name, &end, 10);
  return errno || pid <= 0 || pid > INT_MAX || strcmp(end, ".json") != 0 ? 0 : pid;
}

static int by_value(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

int ergo__state_restore_dead(pid_t pid, int dry_run, FILE *out) {
  char dir[PATH_MAX], why[WHY_LEN], path[PATH_MAX + 32];
  if (pick_dir(dir, sizeof dir, why, sizeof why) != 0) {
    fprintf(out, "%s\n", why);
    return 1;
  }
  if (pid > 0) {
    snprintf(path, sizeof path, "%s/%ld.json", dir, (long)pid);
    if (access(path, F_OK) != 0 && errno == ENOENT) {
      fprintf(out, "no state file for process %ld in %s: nothing to restore\n", (long)pid, dir);
      return 0;
    }
    return restore_one(path, (long)pid, 1, dry_run, out);
  }
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(out, "cannot read %s: %s\n", dir, strerror(errno));
    return 1;
  }
  long *pids = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *de; (de = readdir(d));) {
    long p = name_pid(de->d_name);
    if (!p) continue;
    if (n == cap) {
      size_t more = cap ? 2 * cap : 16;
      long *grown = realloc(pids, more * sizeof *pids);
      if (!grown) break;
      pids = grown;
      cap = more;
    }
    pids[n++] = p;
  }
  closedir(d);
  if (n == 0)
    fprintf(out, "no state files in %s: nothing to restore\n", dir);
  else
    qsort(pids, n, sizeof *pids, by_value);
  int failed = 0;
  for (size_t i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%ld.json", dir, pids[i]);
    failed += restore_one(path, pids[i], 0, dry_run, out);
  }
  free(pids);
  return failed;
}

int ergo_restore(long pid, int dry_run) {
  if (pid < 0 || pid > INT_MAX) {
    printf("no such process id: %ld\n", pid);
    fflush(stdout);
    return ERGO_EINVAL;
  }
  int failed = ergo__state_restore_dead((pid_t)pid, dry_run, stdout);
  fflush(stdout);
  return failed;
}
