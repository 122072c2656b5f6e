/* path.h - questions about output paths asked before hours of computation: can this file be
 * written, are two paths one file; and where a file goes when its own path cannot be written. */
#ifndef ERGO_UTIL_PATH_H
#define ERGO_UTIL_PATH_H

#include <stddef.h>

/* 0 when `path` can be written: its directory exists and takes a new file (one is created there
 * and removed, as the writers create theirs: /proc refuses it even to root), and it is not a
 * directory, a symbolic link or another non-file (which the writers refuse).
 * Else -1 and why ("directory '/x' does not exist", ...) in why. */
int ergo__path_writable(const char *path, char *why, size_t whylen);
/* The same; the file is created only where `create` (else the permissions alone are checked). */
int ergo__path_writable_as(const char *path, int create, char *why, size_t whylen);

/* 1 when a and b name one file: the same realpath when the file exists, else the same
 * normalised string (its directory's realpath when that exists, "./" and "//" dropped). */
int ergo__path_same(const char *a, const char *b);

/* Create the fallback for `path`: $TMPDIR (else /tmp) + "/ergo-<pid>-<basename>", made empty with
 * O_EXCL|O_NOFOLLOW (mode 0600) so nobody else's file or link is written through.  0 and the
 * name in out, or -1 (errno set). */
int ergo__path_fallback(const char *path, char *out, size_t outlen);

/* Running as root: -1 (errno EMLINK) when a directory on `path`'s way is a symbolic link owned
 * by another user than root (planted in a directory that user can write: it would lead root's
 * write anywhere); else, and for every other user, 0. */
int ergo__path_links_trusted(const char *path);

#endif
