/* state_file.c - the state file: every tracked file with its original contents and who wrote it
 * (pid, start time, host, program), written atomically before the first change; committing it
 * publishes the table the restore paths read and arms them. */
#include "knobs/state_internal.h"

#include "ergo.h"
#include "util/atomic_file.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *state_doc(void) {
  char host[256] = "", exe[PATH_MAX] = "";
  if (gethostname(host, sizeof host) != 0) host[0] = '\0';
  host[sizeof host - 1] = '\0';
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  char state;
  long long start = 0;
  if (ergo__state_proc_stat(0, &state, &start) != 0) start = 0;
  json_t *files = json_array();
  for (size_t i = 0; i < ergo__st.ncommitted; i++) {
    json_t *f = json_object();
    json_object_set_new(f, "path", json_string(ergo__st.tracked[i]->path));
    json_object_set_new(f, "content",
                        json_stringn(ergo__st.tracked[i]->content, ergo__st.tracked[i]->len));
    json_array_append_new(files, f);
  }
  json_t *doc = json_object();
  json_object_set_new(doc, "format", json_string(STATE_FORMAT));
  json_object_set_new(doc, "version", json_integer(STATE_VERSION));
  json_object_set_new(doc, "pid", json_integer((json_int_t)getpid()));
  json_object_set_new(doc, "starttime", json_integer(start));
  /* This program image's: after exec the pid and start time stay, the image id does not. */
  char inst[24];
  snprintf(inst, sizeof inst, "%016llx", (unsigned long long)ergo__state_instance());
  json_object_set_new(doc, "instance", json_string(inst));
  json_object_set_new(doc, "host", json_string(host));
  json_object_set_new(doc, "exe", json_string(exe));
  json_object_set_new(doc, "files", files);
  return doc;
}

int ergo__state_commit(void) {
  ergo__state_once();
  pthread_mutex_lock(&ergo__st.lock);
  ergo__state_forget_if_forked();
  if (ergo__st.ntracked == 0 ||
      (atomic_load(&ergo__st.published) && ergo__st.ncommitted == ergo__st.ntracked)) {
    pthread_mutex_unlock(&ergo__st.lock);
    return 0; /* nothing to save, or the state file already lists everything */
  }
  char dir[PATH_MAX], why[WHY_LEN], path[PATH_MAX + 32];
  if (ergo__state_pick_dir(dir, sizeof dir, why, sizeof why) != 0) {
    pthread_mutex_unlock(&ergo__st.lock);
    ergo__warn("%s", why);
    return ERGO_EIO;
  }
  snprintf(path, sizeof path, "%s/%ld.json", dir, (long)getpid());
  state_table *t = malloc(sizeof *t + ergo__st.ntracked * sizeof(state_entry *) +
                          ergo__st.nclaims * sizeof(char *));
  char *state_path = strdup(path);
  size_t before = ergo__st.ncommitted;
  ergo__st.ncommitted = ergo__st.ntracked;
  json_t *doc = t && state_path ? state_doc() : NULL;
  char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
  json_decref(doc);
  int rc = text ? ergo__atomic_write(path, text, strlen(text)) : ERGO_ENOMEM;
  free(text);
  if (rc) {
    ergo__st.ncommitted = before;
    free(t);
    free(state_path);
    pthread_mutex_unlock(&ergo__st.lock);
    if (rc == ERGO_ENOMEM) ergo__warn("out of memory writing the state file %s", path);
    return rc == ERGO_ENOMEM ? rc : ERGO_EIO;
  }
  t->state_path = state_path;
  t->n = ergo__st.ntracked;
  memcpy(t->e, ergo__st.tracked, ergo__st.ntracked * sizeof(state_entry *));
  t->claims = (char **)(t->e + t->n);
  t->nclaims = ergo__st.nclaims;
  if (t->nclaims) memcpy(t->claims, ergo__st.claims, t->nclaims * sizeof(char *));
  atomic_store(&ergo__st.owner_pid, (int)getpid());
  t->older = atomic_exchange(&ergo__st.published, t);
  /* ERGO_STATE_DIR changed since the last commit: the older file is superseded. */
  if (t->older && strcmp(t->older->state_path, path) != 0) unlink(t->older->state_path);
  ergo__state_arm();
  pthread_mutex_unlock(&ergo__st.lock);
  return 0;
}
