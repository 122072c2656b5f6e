/* state_restore_dead.c - `ergo restore`: put back what processes that died without cleaning up
 * (kill -9) left changed, from their state files, once sure each writer is gone; never a file
 * whose directory a live process claims (state_claim.c).  Also how a process taking over a
 * claim from one that is gone restores that one's state file first. */
#include "knobs/state_internal.h"

#include "ergo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where restore's lines go: what it does to out, what fails or is refused to err, after
 * "ergo restore: " when err is another stream than out (the command's stderr).  One stream keeps
 * the plain lines in order, as a takeover's message and the tests read them. */
typedef struct restore_io {
  FILE *out, *err;
} restore_io;

__attribute__((format(printf, 3, 4))) static void say(const restore_io *io, int error,
                                                      const char *fmt, ...) {
  FILE *f = error ? io->err : io->out;
  if (f != io->out) {
    fflush(io->out); /* the line follows what was said before it */
    fputs("ergo restore: ", f);
  }
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
}

/* The files a knob's save() tracks, the only ones a state file may name: knobs/cpufreq.c's four
 * per CPU (and their policyN directories, where the kernel links cpuN/cpufreq), knobs/uncore.c's
 * two per die.  '#' stands for a decimal number.  A new knob that saves other files adds them
 * here, or `ergo restore` refuses its state files. */
static const char *const allowed[] = {
    "/sys/devices/system/cpu/cpu#/cpufreq/scaling_min_freq",
    "/sys/devices/system/cpu/cpu#/cpufreq/scaling_max_freq",
    "/sys/devices/system/cpu/cpu#/cpufreq/scaling_governor",
    "/sys/devices/system/cpu/cpu#/cpufreq/scaling_setspeed",
    "/sys/devices/system/cpu/cpufreq/policy#/scaling_min_freq",
    "/sys/devices/system/cpu/cpufreq/policy#/scaling_max_freq",
    "/sys/devices/system/cpu/cpufreq/policy#/scaling_governor",
    "/sys/devices/system/cpu/cpufreq/policy#/scaling_setspeed",
    "/sys/devices/system/cpu/intel_uncore_frequency/package_#_die_#/min_freq_khz",
    "/sys/devices/system/cpu/intel_uncore_frequency/package_#_die_#/max_freq_khz",
};
#define ALLOWED_SHOWN                                                                              \
  "cpufreq scaling_{min,max}_freq, scaling_governor or scaling_setspeed, intel_uncore_frequency "  \
  "{min,max}_freq_khz"
/* A state file is a few hundred bytes per CPU: anything this big was not written by ergo. */
#define STATE_FILE_MAX (16 << 20)

static int matches(const char *pat, const char *s) {
  for (; *pat; pat++) {
    if (*pat == '#') {
      if (*s < '0' || *s > '9') return 0;
      while (*s >= '0' && *s <= '9') s++;
    } else if (*s++ != *pat) {
      return 0;
    }
  }
  return *s == '\0';
}

static int allowed_path(const char *path) {
  for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
    if (matches(allowed[i], path)) return 1;
  return 0;
}

/* The file a state file's `path` lets restore write: the path itself when it matches the list
 * (so no "..", "//" or other spelling) and, when it exists, what it resolves to, which must match
 * too (cpuN/cpufreq -> cpufreq/policyN), so a link cannot lead elsewhere.  NULL with why. */
static const char *writable_path(const char *path, char *resolved, char *why, size_t whylen) {
  if (!allowed_path(path)) {
    snprintf(why, whylen, "%.300s, not a file an ergo knob writes (" ALLOWED_SHOWN ")", path);
    return NULL;
  }
  if (!realpath(path, resolved)) return path; /* missing: the write fails and says so */
  if (!allowed_path(resolved)) {
    int n = snprintf(why, whylen, "%.200s, which leads to %.200s", path, resolved);
    snprintf(why + n, whylen - (size_t)n, ", not a file an ergo knob writes");
    return NULL;
  }
  return resolved;
}

/* The entries of a parsed state file, or NULL with why.  Each path no knob writes is refused in
 * a line of its own (to out), and then the whole file: nothing of a tampered file is written. */
static state_entry **parse_files(const json_t *files, const char *state_path, const restore_io *io,
                                 size_t *n, char *why, size_t whylen) {
  if (!json_is_array(files)) {
    snprintf(why, whylen, "no \"files\" array");
    return NULL;
  }
  *n = json_array_size(files);
  state_entry **e = calloc(*n ? *n : 1, sizeof *e);
  if (!e) {
    snprintf(why, whylen, "out of memory");
    return NULL;
  }
  size_t refused = 0;
  for (size_t i = 0; i < *n && !why[0]; i++) {
    const json_t *f = json_array_get(files, i);
    const char *path = json_string_value(json_object_get(f, "path"));
    const json_t *c = json_object_get(f, "content");
    const char *content = json_string_value(c);
    size_t len = json_string_length(c);
    char resolved[PATH_MAX], bad[WHY_LEN];
    const char *target = NULL;
    if (!path || !content)
      snprintf(why, whylen, "files[%zu] lacks a path or a content", i);
    else if (len > CONTENT_MAX || memchr(content, '\0', len))
      snprintf(why, whylen, "files[%zu] has a content that is not a setting", i);
    else if (!(target = writable_path(path, resolved, bad, sizeof bad))) {
      say(io, 1, "%s: files[%zu] is %s; refused", state_path, i, bad);
      refused++;
    } else if (!(e[i] = ergo__state_entry_new(target, content, len)))
      snprintf(why, whylen, "out of memory");
  }
  if (refused && !why[0])
    snprintf(why, whylen, "%zu of %zu files refused, so none is written", refused, *n);
  if (why[0]) {
    for (size_t j = 0; j < *n; j++) ergo__state_entry_free(e[j]);
    free(e);
    return NULL;
  }
  return e;
}

/* Read a state file from one descriptor, opened without following a link and checked before
 * anything is read: nobody can swap it between the check and the read.  NULL with why. */
static json_t *load_state(const char *path, char *why, size_t whylen) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    snprintf(why, whylen, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
    return NULL;
  }
  struct stat st;
  json_t *doc = NULL;
  char *text = NULL;
  if (fstat(fd, &st) != 0)
    snprintf(why, whylen, "%s", strerror(errno));
  else if (!S_ISREG(st.st_mode))
    snprintf(why, whylen, "not a regular file");
  else if (st.st_uid != geteuid())
    snprintf(why, whylen, "belongs to uid %u, not to this user", (unsigned)st.st_uid);
  else if (st.st_mode & 022)
    snprintf(why, whylen, "writable by group or others (mode %03o)", (unsigned)(st.st_mode & 0777));
  else if (st.st_size > STATE_FILE_MAX)
    snprintf(why, whylen, "%lld bytes, more than a state file's %d", (long long)st.st_size,
             STATE_FILE_MAX);
  else if (!(text = malloc((size_t)st.st_size + 1)))
    snprintf(why, whylen, "out of memory");
  if (why[0]) {
    close(fd);
    return NULL;
  }
  /* Up to one byte past the size seen: a file that grew since is not the file checked. */
  size_t len = 0, cap = (size_t)st.st_size + 1;
  for (ssize_t r; len < cap; len += (size_t)r) {
    r = read(fd, text + len, cap - len);
    if (r < 0 && errno == EINTR)
      r = 0;
    else if (r <= 0) {
      if (r < 0) snprintf(why, whylen, "%s", strerror(errno));
      break;
    }
  }
  close(fd);
  json_error_t jerr;
  if (!why[0] && len != (size_t)st.st_size)
    snprintf(why, whylen, "it changed while being read");
  else if (!why[0] && !(doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr)))
    snprintf(why, whylen, "%s at line %d", jerr.text, jerr.line);
  free(text);
  return doc;
}

/* A process known to be gone whose state file is being taken over (state_claim.c). */
typedef struct dead_owner {
  const ergo__claim_owner *owner;
  uint64_t not_instance;
} dead_owner;

/* The claim on the directory of `file`, into claim (may be "") and o; 1 when there is one. */
static int claim_of(const char *dir, const char *file, char *claim, size_t n,
                    ergo__claim_owner *o) {
  char domain[PATH_MAX];
  claim[0] = '\0';
  if (ergo__state_domain(file, domain) != 0 || ergo__state_claim_path(dir, domain, claim, n) != 0)
    return 0;
  return ergo__state_claim_read(claim, o) == 1;
}

/* Restore one state file (or say what it would do), under the directory lock.  Files whose
 * directory a live process (not the writer) claims are left alone, and the state file stays for
 * later; the writer's claims of what it restores go.  With dead, the writer is known to be gone
 * and the file is used only when it is that owner's (else left, quietly).  Returns its failures;
 * *restored (if given) gets the number of files written back. */
static int restore_one(const char *dir, const char *path, long pid, int explicit, int dry_run,
                       const dead_owner *dead, const restore_io *io, size_t *restored) {
  char why[WHY_LEN] = "", v[256];
  json_t *doc = load_state(path, why, sizeof why);
  if (why[0]) {
    say(io, 1, "%s: not a usable ergo state file (%s); left in place", path, why);
    json_decref(doc);
    return 1;
  }
  const char *format = json_string_value(json_object_get(doc, "format"));
  const json_t *version = json_object_get(doc, "version");
  const json_t *jpid = json_object_get(doc, "pid");
  const json_t *jstart = json_object_get(doc, "starttime");
  const char *host = json_string_value(json_object_get(doc, "host"));
  const char *exe = json_string_value(json_object_get(doc, "exe"));
  const char *jinst = json_string_value(json_object_get(doc, "instance"));
  uint64_t instance = jinst ? strtoull(jinst, NULL, 16) : 0;
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
  long long start = json_is_integer(jstart) ? (long long)json_integer_value(jstart) : 0;
  if (!why[0] && dead) {
    const ergo__claim_owner *o = dead->owner;
    int theirs = (o->start <= 0 || start == o->start) &&
                 (!o->instance || !instance || instance == o->instance) &&
                 (!dead->not_instance || instance != dead->not_instance);
    if (!theirs) { /* another process's that got the pid since: not this owner's to undo */
      json_decref(doc);
      return 0;
    }
  }
  size_t n = 0;
  state_entry **e =
      why[0] ? NULL : parse_files(json_object_get(doc, "files"), path, io, &n, why, sizeof why);
  if (!e) {
    say(io, 1, "%s: not a usable ergo state file (%s); left in place", path, why);
    json_decref(doc);
    return 1;
  }
  char here[256] = "";
  if (gethostname(here, sizeof here) != 0) here[0] = '\0';
  here[sizeof here - 1] = '\0';
  int failed = 0;
  /* Which files a live process holds now: those stay as they are. */
  char *held = calloc(n ? n : 1, 1);
  long *holder = calloc(n ? n : 1, sizeof *holder);
  size_t nheld = 0;
  for (size_t i = 0; held && holder && i < n; i++) {
    char claim[PATH_MAX + 64];
    ergo__claim_owner o;
    if (claim_of(dir, e[i]->path, claim, sizeof claim, &o) &&
        !(o.pid == pid && (start <= 0 || o.start == start)) &&
        ergo__state_owner_alive(o.pid, o.start, o.instance)) {
      held[i] = 1;
      holder[i] = o.pid;
      nheld++;
    }
  }
  if (!held || !holder) {
    say(io, 1, "%s: out of memory; left in place", path);
    failed = 1;
  } else if (strcmp(host, here) != 0) {
    say(io, explicit, "%s: written on host %s, this is %s; left in place", path, host, here);
    failed = explicit;
  } else if (!dead && ergo__state_owner_alive(pid, start, instance)) {
    say(io, explicit, "process %ld is alive: it restores its own settings", pid);
    failed = explicit;
  } else if (dry_run) {
    say(io, 0, "process %ld (%s) is gone; %s lists %zu files", pid, exe, path, n);
    for (size_t i = 0; i < n; i++)
      if (held[i])
        say(io, 0, "would leave %s alone: process %ld holds it now", e[i]->path, holder[i]);
      else if (e[i]->placeholder)
        say(io, 0, "would skip %s: '%s' is the kernel's placeholder, not a value", e[i]->path,
            ergo__state_shown(e[i]->content, e[i]->len, v, sizeof v));
      else
        say(io, 0, "would write '%s' to %s",
            ergo__state_shown(e[i]->content, e[i]->len, v, sizeof v), e[i]->path);
  } else {
    say(io, 0, "process %ld (%s) is gone; restoring the %zu files of %s", pid, exe, n, path);
    /* The files nobody holds, in their order. */
    state_entry **w = calloc(n ? n : 1, sizeof *w);
    int *errs = calloc(n ? n : 1, sizeof *errs);
    size_t nw = 0;
    for (size_t i = 0; w && i < n; i++)
      if (!held[i]) w[nw++] = e[i];
    failed = errs && w ? (int)ergo__state_write_all(w, nw, errs) : (int)(n - nheld);
    for (size_t i = 0, j = 0; i < n; i++) {
      ergo__state_shown(e[i]->content, e[i]->len, v, sizeof v);
      if (held[i]) {
        say(io, 0, "left %s alone: process %ld holds it now and restores it when it ends",
            e[i]->path, holder[i]);
        continue;
      }
      int err = errs && w ? errs[j++] : ENOMEM;
      if (err)
        say(io, 1, "cannot restore %s to '%s': %s", e[i]->path, v, strerror(err));
      else if (e[i]->placeholder)
        say(io, 0, "skipped %s: '%s' is the kernel's placeholder, not a value", e[i]->path, v);
      else {
        say(io, 0, "restored %s to '%s'", e[i]->path, v);
        if (restored) (*restored)++;
      }
      if (err) continue;
      /* Back as found: the writer's claim on it goes (once per directory: a second read finds
       * none). */
      char claim[PATH_MAX + 64];
      ergo__claim_owner o;
      if (claim_of(dir, e[i]->path, claim, sizeof claim, &o) && o.pid == pid &&
          (start <= 0 || o.start == start))
        unlink(claim);
    }
    free(w);
    free(errs);
    if (failed)
      say(io, 1, "%s stays: %d of %zu files could not be restored", path, failed, n);
    else if (nheld) {
      say(io, explicit,
          "%s stays: %zu of %zu files are held by running processes (run `ergo restore` "
          "again once they are gone)",
          path, nheld, n);
      failed = explicit;
    } else if (unlink(path) != 0) {
      say(io, 1, "cannot remove %s: %s", path, strerror(errno));
      failed = 1;
    } else
      say(io, 0, "removed %s", path);
  }
  free(held);
  free(holder);
  for (size_t i = 0; i < n; i++) ergo__state_entry_free(e[i]);
  free(e);
  json_decref(doc);
  return failed;
}

int ergo__state_restore_owner(const char *dir, const ergo__claim_owner *owner,
                              uint64_t not_instance, char *msg, size_t n) {
  char path[PATH_MAX + 32];
  msg[0] = '\0';
  snprintf(path, sizeof path, "%s/%ld.json", dir, owner->pid);
  if (access(path, F_OK) != 0) return 0;
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  if (!out) {
    snprintf(msg, n,
             "cannot restore %s, the state file of process %ld, which is gone: out of "
             "memory",
             path, owner->pid);
    return 1;
  }
  dead_owner dead = {owner, not_instance};
  size_t restored = 0;
  const restore_io io = {out, out};
  int failed = restore_one(dir, path, owner->pid, 0, 0, &dead, &io, &restored);
  fclose(out);
  if (failed) {
    /* The first line that says what went wrong. */
    const char *line = text ? text : "";
    for (const char *p = line; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
      if (strncmp(p, "process ", 8) != 0 && strncmp(p, "restored ", 9) != 0 &&
          strncmp(p, "skipped ", 8) != 0 && strncmp(p, "left ", 5) != 0) {
        line = p;
        break;
      }
    int ll = (int)strcspn(line, "\n");
    snprintf(msg, n,
             "process %ld, which is gone, left %s: %.*s (fix: run `ergo restore` and follow what "
             "it says)",
             owner->pid, path, ll > 200 ? 200 : ll, line);
  } else if (restored) {
    snprintf(msg, n,
             "process %ld left its settings changed (it is gone): restored the %zu files of its "
             "state file %s first",
             owner->pid, restored, path);
  }
  free(text);
  return failed;
}

/* Claims whose owner is gone and left no state file (it died before saving, or after restoring
 * but before releasing): nothing to restore, so they go.  Under the directory lock. */
static int sweep_claims(const char *dir, const restore_io *io) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  const char *host = ergo__state_host();
  for (struct dirent *de; (de = readdir(d));) {
    if (strncmp(de->d_name, "claim-", 6) != 0) continue;
    char claim[PATH_MAX + 300], state[PATH_MAX + 32];
    snprintf(claim, sizeof claim, "%s/%s", dir, de->d_name);
    ergo__claim_owner o;
    int got = ergo__state_claim_read(claim, &o);
    if (got == 1 &&
        (strcmp(o.host, host) != 0 || ergo__state_owner_alive(o.pid, o.start, o.instance)))
      continue;
    if (got == 1) {
      snprintf(state, sizeof state, "%s/%ld.json", dir, o.pid);
      if (access(state, F_OK) == 0) continue; /* its state file says more: left for it */
    }
    if (unlink(claim) != 0) continue;
    if (got == 1)
      say(io, 0, "removed %s: the claim of process %ld on %s, which is gone", claim, o.pid,
          o.domain);
    else
      say(io, 0, "removed %s: an unreadable claim", claim);
  }
  closedir(d);
  return 0;
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

int ergo__state_restore_dead(pid_t pid, int dry_run, FILE *out, FILE *err) {
  char dir[PATH_MAX], why[WHY_LEN], path[PATH_MAX + 32];
  const restore_io io_ = {out, err ? err : out}, *io = &io_;
  /* Never created here: a process that changed a setting made it first, so a missing one means
   * nothing was saved there (and a mistyped ERGO_STATE_DIR is not made into a directory). */
  int found = ergo__state_find_dir(dir, sizeof dir, why, sizeof why);
  if (found < 0) {
    say(io, 1, "%s", why);
    return 1;
  }
  if (found > 0) {
    say(io, 0, "%s does not exist: no ergo process saved settings there, nothing to restore", why);
    return 0;
  }
  /* No process claims or takes over a directory meanwhile. */
  int lock = ergo__state_lock_dir(dir);
  if (lock < 0) {
    say(io, 1, "cannot lock %s: %s (fix: if an ergo process is stopped, resume or end it)", dir,
        strerror(errno));
    return 1;
  }
  if (pid > 0) {
    int failed = 0;
    snprintf(path, sizeof path, "%s/%ld.json", dir, (long)pid);
    if (access(path, F_OK) != 0 && errno == ENOENT)
      say(io, 0, "no state file for process %ld in %s: nothing to restore", (long)pid, dir);
    else
      failed = restore_one(dir, path, (long)pid, 1, dry_run, NULL, io, NULL);
    close(lock);
    return failed;
  }
  DIR *d = opendir(dir);
  if (!d) {
    say(io, 1, "cannot read %s: %s", dir, strerror(errno));
    close(lock);
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
    say(io, 0, "no state files in %s: nothing to restore", dir);
  else
    qsort(pids, n, sizeof *pids, by_value);
  int failed = 0;
  for (size_t i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%ld.json", dir, pids[i]);
    failed += restore_one(dir, path, pids[i], 0, dry_run, NULL, io, NULL);
  }
  free(pids);
  if (!dry_run) failed += sweep_claims(dir, io);
  close(lock);
  return failed;
}

int ergo_restore(long pid, int dry_run) {
  if (pid < 0 || pid > INT_MAX) {
    fflush(stdout);
    fprintf(stderr, "ergo restore: no such process id: %ld (fix: pass a positive process id)\n",
            pid);
    return ERGO_EINVAL;
  }
  int failed = ergo__state_restore_dead((pid_t)pid, dry_run, stdout, stderr);
  fflush(stdout);
  return failed;
}
