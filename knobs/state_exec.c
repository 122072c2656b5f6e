/* state_exec.c - exec replaces the program but keeps the process: what this process changed
 * would outlive the program that tuned it (until someone runs `ergo restore` after the new
 * program ends).  So the exec functions a program calls are wrapped: the process that committed
 * restores every file first; if exec fails the program goes on, and the knobs forget what they
 * had saved so that their next change saves the originals again.  A child of fork or vfork is not
 * the committing process and restores nothing. */
#include "knobs/knobs.h"
#include "knobs/state_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

/* 1 when this process restored before an exec. */
static int restore_before_exec(void) {
  if (atomic_load(&ergo__st.owner_pid) != (int)getpid() || !atomic_load(&ergo__st.published))
    return 0;
  (void)ergo__state_restore();
  return 1;
}

static void after_failed_exec(int restored) {
  if (restored) ergo__knobs_forget_saved();
}

#define EXPORTED __attribute__((visibility("default")))

#define REAL(name, type)                                                                           \
  static type real_##name;                                                                         \
  if (!real_##name) *(void **)&real_##name = dlsym(RTLD_NEXT, #name);                              \
  if (!real_##name) {                                                                              \
    errno = ENOSYS;                                                                                \
    return -1;                                                                                     \
  }

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

#define WRAPPED(call)                                                                              \
  do {                                                                                             \
    int restored = restore_before_exec();                                                          \
    int rc = call;                                                                                 \
    int err = errno;                                                                               \
    after_failed_exec(restored);                                                                   \
    errno = err;                                                                                   \
    return rc;                                                                                     \
  } while (0)

EXPORTED int execve(const char *path, char *const argv[], char *const envp[]) {
  REAL(execve, execve_fn)
  WRAPPED(real_execve(path, argv, envp));
}

EXPORTED int execv(const char *path, char *const argv[]) {
  REAL(execv, execv_fn)
  WRAPPED(real_execv(path, argv));
}

EXPORTED int execvp(const char *file, char *const argv[]) {
  REAL(execvp, execv_fn)
  WRAPPED(real_execvp(file, argv));
}

EXPORTED int execvpe(const char *file, char *const argv[], char *const envp[]) {
  REAL(execvpe, execve_fn)
  WRAPPED(real_execvpe(file, argv, envp));
}

EXPORTED int fexecve(int fd, char *const argv[], char *const envp[]) {
  REAL(fexecve, fexecve_fn)
  WRAPPED(real_fexecve(fd, argv, envp));
}

/* The list forms: their arguments into a vector (on the stack, as glibc does), then the vector
 * forms above.  `envp` follows the terminating NULL for execle. */
#define ARGV_FROM_LIST(arg0, ap, argv, n)                                                          \
  size_t n = 1;                                                                                    \
  va_start(ap, arg0);                                                                              \
  while (va_arg(ap, const char *)) n++;                                                            \
  va_end(ap);                                                                                      \
  const char *argv[n + 1];                                                                         \
  argv[0] = arg0;                                                                                  \
  va_start(ap, arg0);                                                                              \
  for (size_t i = 1; i <= n; i++) argv[i] = i < n ? va_arg(ap, const char *) : NULL;

EXPORTED int execl(const char *path, const char *arg0, ...) {
  va_list ap;
  ARGV_FROM_LIST(arg0, ap, argv, n)
  va_end(ap);
  return execv(path, (char *const *)argv);
}

EXPORTED int execlp(const char *file, const char *arg0, ...) {
  va_list ap;
  ARGV_FROM_LIST(arg0, ap, argv, n)
  va_end(ap);
  return execvp(file, (char *const *)argv);
}

EXPORTED int execle(const char *path, const char *arg0, ...) {
  va_list ap;
  ARGV_FROM_LIST(arg0, ap, argv, n)
  (void)va_arg(ap, const char *); /* the NULL */
  char *const *envp = va_arg(ap, char *const *);
  va_end(ap);
  return execve(path, (char *const *)argv, envp);
}
