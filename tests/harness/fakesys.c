/* fakesys.c - the fake-sysfs test harness: build a tree, bind it over /sys in a private namespace.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fakesys.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* In memory when /dev/shm is a tmpfs, as sysfs is: file writes then cost what a
 * pseudo-file costs, not a disk file system's journal. */
int fakesys_create(fakesys *fs) {
  memset(fs, 0, sizeof *fs);
  struct statfs sf;
  const char *base = statfs("/dev/shm", &sf) == 0 && sf.f_type == TMPFS_MAGIC ? "/dev/shm" : "/tmp";
  snprintf(fs->root, sizeof fs->root, "%s/ergo-fakesys-XXXXXX", base);
  return mkdtemp(fs->root) ? 0 : -1;
}

const char *fakesys_path(fakesys *fs, const char *path) {
  static char buf[1024];
  snprintf(buf, sizeof buf, "%s%s", fs->root, path);
  return buf;
}

static int mkdirs(const char *dir) {
  char tmp[1024];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int fakesys_mkdir(fakesys *fs, const char *path) { return mkdirs(fakesys_path(fs, path)); }

int fakesys_write(fakesys *fs, const char *path, const char *content, mode_t mode) {
  char full[1024];
  snprintf(full, sizeof full, "%s", fakesys_path(fs, path));
  char *slash = strrchr(full, '/');
  *slash = '\0';
  if (mkdirs(full) != 0) return -1;
  *slash = '/';
  /* Rewrite in place (as sysfs does): an open reader keeps the same inode. */
  int fd = open(full, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  size_t len = strlen(content);
  int ok = write(fd, content, len) == (ssize_t)len;
  close(fd);
  return ok && chmod(full, mode) == 0 ? 0 : -1;
}

int fakesys_writef(fakesys *fs, const char *path, mode_t mode, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return fakesys_write(fs, path, buf, mode);
}

int fakesys_symlink(fakesys *fs, const char *path, const char *target) {
  char full[1024];
  snprintf(full, sizeof full, "%s", fakesys_path(fs, path));
  char *slash = strrchr(full, '/');
  *slash = '\0';
  if (mkdirs(full) != 0) return -1;
  *slash = '/';
  return symlink(target, full);
}

const char *fakesys_enter(fakesys *fs, const char *const *mounts) {
  if (geteuid() != 0) return "not root: the fake-sysfs harness needs root to bind-mount over /sys";
  if (unshare(CLONE_NEWNS) != 0)
    return "unshare(CLONE_NEWNS) refused: no private mount namespace here (container without "
           "CAP_SYS_ADMIN?)";
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return "cannot make / private in the new mount namespace";
  for (int i = 0; mounts[i]; i++) {
    if (fakesys_mkdir(fs, mounts[i]) != 0) return "cannot create a directory in the fake tree";
    struct stat st;
    if (stat(mounts[i], &st) != 0)
      return "a directory to mount over does not exist on this machine";
    if (mount(fakesys_path(fs, mounts[i]), mounts[i], NULL, MS_BIND, NULL) != 0)
      return "bind mount over /sys refused";
  }
  fs->entered = 1;
  return NULL;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

void fakesys_destroy(fakesys *fs) {
  if (fs->root[0]) nftw(fs->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  fs->root[0] = '\0';
}
