/* assets.h - files embedded in the library at build time (web/CMakeLists.txt lists them): the
 * charting library from Debian's libjs-chart.js and the pages that use it, so that a dashboard
 * or an HTML report never loads anything from the network or from the user's disk. */
#ifndef ERGO_WEB_ASSETS_H
#define ERGO_WEB_ASSETS_H

#include <stddef.h>

typedef struct {
  const char *name;          /* "chart.min.js", as listed in web/CMakeLists.txt */
  const unsigned char *data; /* the file's bytes, followed by a NUL */
  size_t len;                /* without that NUL */
  const char *type;          /* its Content-Type */
} ergo__web_asset;

/* The table, ended by an entry whose name is NULL. */
extern const ergo__web_asset ergo__web_assets[];

/* The asset called `name`, or NULL when it was not embedded. */
const ergo__web_asset *ergo__web_asset_find(const char *name);

#endif
