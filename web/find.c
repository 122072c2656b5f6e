/* find.c - look an embedded asset up by name. */
#include "web/assets.h"

#include <string.h>

const ergo__web_asset *ergo__web_asset_find(const char *name) {
  if (!name) return NULL;
  for (const ergo__web_asset *a = ergo__web_assets; a->name; a++)
    if (!strcmp(a->name, name)) return a;
  return NULL;
}
