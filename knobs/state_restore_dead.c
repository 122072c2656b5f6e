/* state_restore_dead.c - `ergo restore`: put back what processes that died without cleaning up
 * (kill -9) left changed, from their state files, once sure each writer is gone. */
#include "knobs/state_internal.h"

#include "ergo.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The entries of a parsed state file, or NULL with why. */
static state_entry **parse_files(const json_t *files, size_t *n, char *why, size_t whylen) {
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
    else if (!(e[i] = ergo__state_entry_new(path, content, len)))
      snprintf(why, whylen, "out of memory");
    if (!e[i]) {
      for (size_t j = 0; j < i; j++) ergo__state_entry_free(e[j]);
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
  /* It exists and we cannot tell: keep off. */
  if (ergo__state_proc_stat(pid, &state, &start) != 0) return 1;
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
  state_entry **e = why[0] ? NULL : parse_files(json_object_get(doc, "files"), &n, why, sizeof why);
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
