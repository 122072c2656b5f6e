/* atomic_file.h - the one way ergo creates output files: whole files that readers see complete or
 * not at all, and files that grow; never through a symlink or into a file someone else planted
 * (ergo runs as root, output directories may be writable by others). */
#ifndef ERGO_UTIL_ATOMIC_FILE_H
#define ERGO_UTIL_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Write a whole file atomically: a new temporary file with an unpredictable name beside it
 * (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644 less the umask), fsync, rename over `path`, fsync of the
 * directory.  An existing `path` that is a symlink or not a regular file is refused, never
 * replaced.  0, or ERGO_EINVAL (no path), ERGO_ENOMEM, ERGO_EIO (one line names the path and the
 * fix). */
int ergo__atomic_write(const char *path, const char *data, size_t len);

/* Append a newline to the malloc'd `text`, write it atomically, free it. */
int ergo__write_json_text(const char *path, char *text);

/* For a file written bit by bit and then published whole (the sampler's timeline): create a new
 * temporary file beside `path` as ergo__atomic_write does.  The descriptor (O_WRONLY) and the
 * malloc'd temporary name in *tmp, or -1 with errno set. */
int ergo__tmp_create(const char *path, mode_t mode, char **tmp);

/* Publish what ergo__tmp_create made: rename `tmp` over `path` (refused, as above, when `path` is
 * a symlink or not a regular file) and fsync the directory.  0, or -1 with errno set (ELOOP: a
 * symlink, EISDIR/EEXIST: not a regular file); the temporary file is then left for the caller. */
int ergo__tmp_publish(const char *tmp, const char *path);

/* What an errno of ergo__tmp_publish means to a user ("it is a symbolic link, which ergo never
 * writes through", else strerror). */
const char *ergo__file_why(int err);

/* Open `path` for a text file that grows (step and balance files): created 0644 less the umask
 * when missing, never opened through a symlink (O_NOFOLLOW), refused when it is not a regular
 * file, has other hard links, or (when running as root) belongs to another user; with `truncate`
 * emptied once it passed.  A descriptor opened O_WRONLY|O_APPEND|O_CLOEXEC, or -1 with why
 * ("it is a symbolic link", ...) in why. */
int ergo__open_growing(const char *path, int truncate, char *why, size_t whylen);

#endif
