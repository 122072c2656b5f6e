/* state_entry.c - one tracked file in memory (its path, original bytes and the handler's failure
 * line), the tables that list them, and how a message shows a file's contents. */
#include "knobs/state_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ergo__state_entry_free(state_entry *e) {
  if (!e) return;
  free(e->path);
  free(e->content);
  free(e->failmsg);
  free(e);
}

void ergo__state_table_free(state_table *t) {
  while (t) {
    state_table *older = t->older;
    free(t->state_path);
    free(t);
    t = older;
  }
}

const char *ergo__state_shown(const char *s, size_t len, char *buf, size_t n) {
  if (len && s[len - 1] == '\n') len--;
  size_t o = 0;
  for (size_t i = 0; i < len && o + 5 < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\n')
      o += (size_t)snprintf(buf + o, n - o, "\\n");
    else if (c == '\'' || c == '\\')
      o += (size_t)snprintf(buf + o, n - o, "\\%c", c);
    else if (c < 0x20 || c == 0x7f)
      o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
    else
      buf[o++] = (char)c;
  }
  buf[o] = '\0';
  return buf;
}

/* "<unsupported>" (scaling_setspeed under another governor) and the like: not a setting. */
static int is_placeholder(const char *s, size_t len) {
  if (len && s[len - 1] == '\n') len--;
  return len >= 2 && s[0] == '<' && s[len - 1] == '>';
}

state_entry *ergo__state_entry_new(const char *path, const char *content, size_t len) {
  state_entry *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->path = strdup(path);
  e->content = malloc(len + 1);
  if (!e->path || !e->content) {
    ergo__state_entry_free(e);
    return NULL;
  }
  memcpy(e->content, content, len);
  e->content[len] = '\0';
  e->len = len;
  e->placeholder = is_placeholder(content, len);
  return e;
}
