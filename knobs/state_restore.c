/* state_restore.c - writing the original contents back (async-signal-safe: open, write, close
 * only), and restoring this process's files at ergo_finalize and at exit. */
#include "knobs/state_internal.h"

#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Write e's original bytes back in one write(2), as sysfs wants; never through a link in the
 * last component (a knob's file is never one).  0 or an errno. */
static int write_back(const state_entry *e) {
  int fd;
  do fd = open(e->path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno;
  ssize_t w;
  do w = write(fd, e->content, e->len);
  while (w < 0 && errno == EINTR);
  int err = w < 0 ? errno : (size_t)w != e->len ? EIO : 0;
  if (close(fd) != 0 && !err && errno != EINTR) err = errno;
  return err;
}

size_t ergo__state_write_all(state_entry *const *e, size_t n, int *errs) {
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

int ergo__state_restore(void) {
  ergo__state_once();
  pthread_mutex_lock(&ergo__st.lock);
  ergo__state_forget_if_forked();
  state_table *t = atomic_load(&ergo__st.published);
  if (!t) {
    ergo__state_release_mine();
    ergo__state_forget(); /* tracked but never committed: nothing was written */
    pthread_mutex_unlock(&ergo__st.lock);
    return 0;
  }
  int *errs = calloc(t->n, sizeof *errs);
  int failed = (int)ergo__state_write_all(t->e, t->n, errs);
  for (size_t i = 0; errs && i < t->n; i++) {
    if (!errs[i]) continue;
    char v[256];
    ergo__error("cannot restore %s to '%s': %s; the state file %s stays (fix: run `ergo restore` "
                "once this process is gone)",
                t->e[i]->path, ergo__state_shown(t->e[i]->content, t->e[i]->len, v, sizeof v),
                strerror(errs[i]), t->state_path);
  }
  free(errs);
  if (!failed) {
    if (unlink(t->state_path) != 0 && errno != ENOENT)
      ergo__warn("cannot remove the state file %s: %s (every file is restored; remove it by hand)",
                 t->state_path, strerror(errno));
    /* After the files are back: a process that claims them next reads the originals. */
    ergo__state_release_mine();
    ergo__state_forget();
  }
  pthread_mutex_unlock(&ergo__st.lock);
  return failed;
}
