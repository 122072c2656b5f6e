/* state_restore_dead.c - `ergo restore`: put back what processes that died without cleaning up
 * (kill -9) left changed, from their state files, once sure each writer is gone. */
#include "knobs/state_internal.h"

#include "ergo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
static state_entry **parse_files(const json_t *files, const char *state_path, FILE *out, size_t *n,
                                 char *why, size_t whylen) {
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
      fprintf(out, "%s: files[%zu] is %s; refused\n", state_path, i, bad);
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

/* 1 while `pid` runs and is the process that wrote the state file; 0 when it is gone (no such
 * pid, a zombie, or the pid reused by a process started at another time). */
static int writer_alive(long pid, long long starttime) {
  if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return 0;
  char state = '?';
  long long start = -1;
  /* It exists and we cannot tell: keep off. */
  if (ergo__state_proc_stat(pid, &state, &start) != 0) return 1;
  if (state == 'Z' || state == 'X') return 0;
  if (starttime <= 0) return 1; /* the writer could not read its own: same caution */
  return start == starttime;
}

/* Restore one state file (or say what it would do).  Returns its failures. */
static int restore_one(const char *path, long pid, int explicit, int dry_run, FILE *out) {
  char why[WHY_LEN] = "", v[256];
  json_t *doc = load_state(path, why, sizeof why);
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
  state_entry **e =
      why[0] ? NULL : parse_files(json_object_get(doc, "files"), path, out, &n, why, sizeof why);
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
                ergo__state_shown(e[i]->content, e[i]->len, v, sizeof v));
      else
        fprintf(out, "would write '%s' to %s\n",
                ergo__state_shown(e[i]->content, e[i]->len, v, sizeof v), e[i]->path);
  } else {
    fprintf(out, "process %ld (%s) is gone; restoring the %zu files of %s\n", pid, exe, n, path);
    int *errs = calloc(n ? n : 1, sizeof *errs);
    failed = errs ? (int)ergo__state_write_all(e, n, errs) : (int)n;
    for (size_t i = 0; i < n; i++) {
      ergo__state_shown(e[i]->content, e[i]->len, v, sizeof v);
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
  for (size_t i = 0; i < n; i++) ergo__state_entry_free(e[i]);
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
  if (ergo__state_pick_dir(dir, sizeof dir, why, sizeof why) != 0) {
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
