/* atomic_file.h - whole-file writes that readers see complete or not at all. */
#ifndef ERGO_UTIL_ATOMIC_FILE_H
#define ERGO_UTIL_ATOMIC_FILE_H

#include <stddef.h>

/* Write a whole file atomically: temp file in the same directory, fsync, rename.  0, or
 * ERGO_EINVAL (no path), ERGO_ENOMEM, ERGO_EIO (one warning line names the path and the fix). */
int ergo__atomic_write(const char *path, const char *data, size_t len);

/* Append a newline to the malloc'd `text`, write it atomically, free it. */
int ergo__write_json_text(const char *path, char *text);

#endif
