/* fakesys.h - a fake sysfs tree, bind-mounted over the real paths in a private mount namespace,
 * so production code (libcpupower included) reads and writes it unchanged. */
#ifndef ERGO_TEST_FAKESYS_H
#define ERGO_TEST_FAKESYS_H

#include <sys/types.h>

/* Exit code of a test program whose tests could not run here; ctest shows "Skipped". */
#define FAKESYS_SKIP 77

typedef struct fakesys {
  char root[256]; /* the fake tree: root/sys/... mirrors /sys/... */
  int entered;
} fakesys;

/* Make an empty fake tree in a new temporary directory.  0 or -1. */
int fakesys_create(fakesys *fs);

/* Write `content` to the fake counterpart of the absolute sysfs path `path`
 * ("/sys/class/powercap/intel-rapl:0/energy_uj"), creating directories, then
 * chmod it to `mode`.  Works before and after fakesys_enter.  0 or -1. */
int fakesys_write(fakesys *fs, const char *path, const char *content, mode_t mode);

/* printf-style content. */
int fakesys_writef(fakesys *fs, const char *path, mode_t mode, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Make a directory (and parents) in the fake tree. */
int fakesys_mkdir(fakesys *fs, const char *path);

/* A symlink at `path` in the fake tree pointing to `target` (as the kernel's
 * /sys/class/... entries point into /sys/devices/...). */
int fakesys_symlink(fakesys *fs, const char *path, const char *target);

/* The fake counterpart of `path` (static buffer). */
const char *fakesys_path(fakesys *fs, const char *path);

/* Enter a private mount namespace and bind-mount the fake counterpart of
 * each directory in `mounts` (NULL-terminated, e.g. "/sys/class") over the
 * real one; a fake directory that does not exist yet is created empty.
 * Returns NULL on success, else a static one-line reason to skip (not root,
 * unshare or mount refused). */
const char *fakesys_enter(fakesys *fs, const char *const *mounts);

/* Remove the fake tree (the mounts go with the process). */
void fakesys_destroy(fakesys *fs);

#endif
